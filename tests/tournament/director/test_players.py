"""The players CSV: a good file read exactly; every problem one error naming row and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from paiju.core.errors import ConfigError
from paiju.tournament.director.players import Entry, parse_entry, parse_players_csv, read_players_csv


def test_a_file_with_every_column_in_any_order(tmp_path: Path) -> None:
    path = tmp_path / "players.csv"
    path.write_text("\ufeffRating,Club,ID,Name\n1850,Red,A7,Wang Fang\n,,B2,  Li Lei \n\n", encoding="utf-8")
    assert read_players_csv(path) == [
        Entry("A7", "Wang Fang", "Red", 1850.0),
        Entry("B2", "Li Lei", "", None),
    ]


def test_only_the_required_columns() -> None:
    assert parse_players_csv("name,id\n张伟,1\n") == [Entry("1", "张伟")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "players: empty; the first row names the columns"),
        ("name,id,elo\nA,1,3\n", "players, row 1, column 3: unknown column 'elo'"),
        ("name,name,id\n", "players, row 1, column 2: column 'name' is named twice"),
        ("name,club\nA,x\n", "players, row 1: no column 'id'"),
        ("name,id\n", "players: no players below the header"),
        ("name,id,rating\nA,1,1500\nB,2,abc\n", "players, row 3, column 'rating': 'abc' is not a number"),
        ("name,id,rating\nA,1,nan\n", "players, row 2, column 'rating': 'nan' is not a finite number"),
        ("name,id\nA,1\n,2\n", "players, row 3, column 'name': empty"),
        ("name,id\nA, \n", "players, row 2, column 'id': empty"),
        ("name,id\nA,1\nB,2\nC,1\n", "players, row 4, column 'id': '1' is already the id of row 2"),
        ("name,id\nA,1,extra\n", "players, row 2: 3 cells but the header names 2 columns"),
        ("name,id\n" + "x" * 201 + ",1\n", "players, row 2, column 'name': 201 characters"),
        ('name,id\n"A\x07",1\n', "players, row 2, column 'name': 'A\\x07' holds a control character"),
    ],
)
def test_each_problem_names_its_row_and_column(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_players_csv(text)
    assert str(err.value).startswith(message), str(err.value)


def test_an_unreadable_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes("name,id\nJos\xe9,1\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"latin1\.csv: cannot read it as UTF-8"):
        read_players_csv(path)


def test_a_late_entry_is_one_row_in_the_columns_order() -> None:
    assert parse_entry("Zhao Min,Z9,Blue,1720") == Entry("Z9", "Zhao Min", "Blue", 1720.0)
    assert parse_entry('"Ma, Jun",M1') == Entry("M1", "Ma, Jun")
    with pytest.raises(ConfigError, match="entry 'A,1,c,2,x': 5 cells"):
        parse_entry("A,1,c,2,x")
    with pytest.raises(ConfigError, match="column 'rating': 'high' is not a number"):
        parse_entry("A,1,c,high")
