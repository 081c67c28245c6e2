"""`paiju yuxi balance --compare A.toml B.toml`: the same games on two card tables, and what
the change did, as paired differences; card rankings by the lower end of their interval."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paiju.cli.main import app, run
from paiju.yuxi.balance import compare_balance, run_balance

DATA = Path(__file__).parents[2] / "src" / "paiju" / "yuxi" / "data"
DECKS = ("tide_guild", "storm_iron")  # reef_crab is in the first, not in the second
SHIPPED = (DATA / "cards.toml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("compare")
    a, b = root / "a.toml", root / "b.toml"
    a.write_text(SHIPPED, encoding="utf-8")
    crab = 'key = "reef_crab"'
    head, tail = SHIPPED.split(crab, 1)
    assert tail.count("points = 2") and tail.index("points = 2") < tail.index("[[card]]")
    b.write_text(head + crab + tail.replace("points = 2", "points = 9", 1), encoding="utf-8")
    return a, b


def test_the_same_table_on_both_sides_changes_nothing(tables: tuple[Path, Path]) -> None:
    a, _ = tables
    c = compare_balance(8, 2, cards_files=(a, a), boards=("3x3",), decks=DECKS)
    assert c.changed_cards == []
    assert all(e.value == 0.0 and e.n == 8 for e in c.first_player.values())
    assert all(e.value == 0.0 for e in c.decks.values())


def test_a_stronger_card_shows_as_its_decks_gain_on_the_same_seeds(tables: tuple[Path, Path]) -> None:
    a, b = tables
    c = compare_balance(30, 4, cards_files=(a, b), boards=("3x3",), decks=DECKS)
    assert c.changed_cards == ["reef_crab"]
    # the games are the same deals and seeds: the B run equals a plain run on table B
    plain_b = run_balance(30, 4, boards=("3x3",), decks=DECKS, cards_file=b)
    assert [r.result for r in c.b.records] == [r.result for r in plain_b.records]
    gain = c.decks["tide_guild"]
    assert gain.low > 0, gain  # a 2-point card printed as 9: the deck that holds it wins more
    assert c.decks["storm_iron"].high < 0  # and its opponent, which never holds it, loses
    md = c.markdown()
    assert "Changed cards: reef_crab" in md and "| tide_guild |" in md
    data = c.to_dict()
    assert data["changed_cards"] == ["reef_crab"] and data["table_hashes"][0] != data["table_hashes"][1]


def test_cards_are_ranked_by_the_lower_end_of_their_interval() -> None:
    report = run_balance(10, 1, boards=("3x3",))
    md = report.markdown().split("ranked by the lower end", 1)[1]
    lows = [float(m) for m in re.findall(r"\| [+-]\d\.\d{3} \[([+-]\d\.\d{3}), [+-]\d\.\d{3}\] \|", md)]
    assert len(lows) > 5 and lows == sorted(lows, reverse=True)
    assert not all(math.isclose(x, lows[0]) for x in lows)


def test_the_cli(tables: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = tables
    runner = CliRunner()
    ok = runner.invoke(
        app,
        ["yuxi", "balance", "--games", "4", "--boards", "3x3", "--decks", ",".join(DECKS),
         "--compare", str(a), str(b), "--out-dir", str(tmp_path / "out"), "--json"],
    )
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["changed_cards"] == ["reef_crab"]
    assert (tmp_path / "out" / "compare.md").read_text().startswith("Balance comparison")

def test_bad_comparisons_exit_2_naming_the_problem(
    tables: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tables
    assert run(["yuxi", "balance", "--compare", str(a), str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml is not a file" in capsys.readouterr().err
    assert run(["yuxi", "balance", "--compare", str(a), str(b), "--cards-file", str(a)]) == 2
    assert "leave out --cards-file" in capsys.readouterr().err
