"""Master points from a TOML or JSON table: the scale by field size, places shared where only
the lot decided, the CSV export, and a malformed table refused naming the scale and key."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from director_helpers import MakeEvent, six_player_event

from paiju.core.errors import ConfigError
from paiju.tournament.director.masterpoints import award, awards_csv, load_table, parse_table
from paiju.tournament.director.standings import compute_standings

TABLE = """
name = "Club scale"

[[scale]]
players = 24
points = [20, 14, 10, 7, 5, 3]

[[scale]]
players = 6
points = [6, 4, 2]
"""


def test_the_scale_of_the_largest_field_not_above_the_events(tmp_path: Path) -> None:
    path = tmp_path / "mp.toml"
    path.write_text(TABLE)
    table = load_table(path)
    assert table.name == "Club scale" and [s.players for s in table.scales] == [6, 24]
    assert table.scale_for(5) is None
    assert table.scale_for(6) is table.scales[0] and table.scale_for(23) is table.scales[0]
    assert table.scale_for(108) is table.scales[1]
    as_json = tmp_path / "mp.json"
    as_json.write_text(json.dumps({"scale": [{"players": 6, "points": [6, 4, 2]}]}))
    assert load_table(as_json).scales == table.scales[:1]


def test_awards_by_rank_and_the_export(make_event: MakeEvent) -> None:
    standings = compute_standings(six_player_event(make_event))
    awards = award(standings, parse_table({"scale": [{"players": 6, "points": [6, 4, 2]}]}))
    # ranks 01, 02, 04 (on the landlord tie-break: not shared), 05, 03, 06
    assert [(a.standing.player.code, a.points) for a in awards] == [
        ("01", 6.0),
        ("02", 4.0),
        ("04", 2.0),
        ("05", 0.0),
        ("03", 0.0),
        ("06", 0.0),
    ]
    rows = list(csv.reader(io.StringIO(awards_csv(awards))))
    assert rows[0] == ["rank", "place", "id", "name", "club", "total", "masterpoints"]
    assert rows[1] == ["1", "1", "01", "P01", "", "7", "6"]
    assert rows[3] == ["3", "2", "04", "P04", "", "5", "2"]
    assert award(standings, parse_table({"scale": [{"players": 7, "points": [1]}]}))[0].points == 0.0


def test_players_ordered_only_by_the_lot_share_their_places_points(make_event: MakeEvent) -> None:
    standings = compute_standings(six_player_event(make_event))
    rows = standings.rows
    # as if 02 and 04 had been equal on every tie-break but the lot, and 05 and 03 too
    lot_rows = [
        rows[0],
        rows[1],
        replace(rows[2], decided_by="lot"),
        rows[3],
        replace(rows[4], decided_by="lot"),
        rows[5],
    ]
    awards = award(
        replace(standings, rows=lot_rows), parse_table({"scale": [{"players": 6, "points": [6, 4, 2, 1]}]})
    )
    assert [a.points for a in awards] == [6.0, 3.0, 3.0, 0.5, 0.5, 0.0]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "expected a table with 'scale' entries"),
        ({"scale": []}, "no 'scale' entries"),
        ({"scales": []}, "unknown key(s) ['scales']"),
        ({"scale": [{"players": 6}]}, "scale 1: give exactly 'players'"),
        ({"scale": [{"players": 0, "points": [1]}]}, "scale 1, 'players': 0"),
        ({"scale": [{"players": 6, "points": [3, "x"]}]}, "scale 1, 'points', place 2: 'x'"),
        ({"scale": [{"players": 6, "points": [1, 3]}]}, "a lower place earns more than a higher one"),
        (
            {"scale": [{"players": 6, "points": [1]}, {"players": 6, "points": [2]}]},
            "two scales for fields of the same size",
        ),
    ],
)
def test_a_malformed_table_is_refused(data: object, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_table(data, "mp.toml")


def test_a_file_that_is_no_toml_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mp.toml"
    path.write_text("[[scale]\nplayers = ")
    with pytest.raises(ConfigError, match=r"mp\.toml: not TOML"):
        load_table(path)
