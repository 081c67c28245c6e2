"""`paiju tournament` for results: enter, results, correct, pins, adjust, standings and
masterpoints from the command line, and bad input as exit 2 with one line."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from paiju.cli.main import run

PLAYERS = "name,id\n" + "".join(f"Player {i},0{i}\n" for i in range(1, 7))
RESULTS = "table,board,bombs,result\n1,1,0,won\n2,1,0,lost\n1,2,0,won\n2,2,0,won\n"
MASTERPOINTS = "[[scale]]\nplayers = 6\npoints = [6, 4, 2]\n"


def paiju(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code, out, err = paiju(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """Six players, two boards a round seeded by rating; round 1 paired, boards chosen, released."""
    (tmp_path / "players.csv").write_text(PLAYERS)
    (tmp_path / "results.csv").write_text(RESULTS)
    (tmp_path / "mp.toml").write_text(MASTERPOINTS)
    db = str(tmp_path / "club.db")
    as_json(
        capsys,
        "tournament",
        "new",
        db,
        "--players",
        str(tmp_path / "players.csv"),
        "--format",
        "boards_per_round=2",
        "--format",
        "first_round=rating",
        "--by",
        "chief",
    )
    as_json(capsys, "tournament", "pair", db, "-r", "1")
    as_json(capsys, "tournament", "boards", db, "-r", "1", "--select", "random")
    as_json(capsys, "tournament", "release", db, "-r", "1")
    return tmp_path / "club.db"


def test_results_to_standings_from_the_command_line(
    event: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(event)
    pins = as_json(capsys, "tournament", "pins", db, "-r", "1")["pins"]
    assert set(pins) == {"1", "2"}
    entered = as_json(
        capsys, "tournament", "enter", db, "-r", "1", "-f", str(tmp_path / "results.csv"), "--by", "desk"
    )
    assert [(r["table"], r["board"], r["landlord_score"], r["status"]) for r in entered["entered"]] == [
        (1, 1, 1.0, "confirmed"),
        (2, 1, -1.0, "confirmed"),
        (1, 2, 1.0, "confirmed"),
        (2, 2, 1.0, "confirmed"),
    ]
    fixed = as_json(
        capsys,
        "tournament",
        "correct",
        db,
        "-r",
        "1",
        "-t",
        "2",
        "-b",
        "2",
        "--result",
        "lost",
        "--reason",
        "slip misread",
        "--by",
        "chief",
    )
    assert (fixed["before"]["result"], fixed["after"]["result"]) == ("won", "lost")
    assert fixed["after"]["confirmed_by"] == "chief"
    listed = as_json(capsys, "tournament", "results", db)["results"]
    assert len(listed) == 4 and {r["status"] for r in listed} == {"confirmed"}
    adjusted = as_json(
        capsys,
        "tournament",
        "adjust",
        db,
        "penalty",
        "-r",
        "1",
        "--player",
        "01",
        "--points",
        "1",
        "--reason",
        "late",
        "--by",
        "chief",
    )["adjustments"]
    assert [(a["kind"], a["player"], a["points"], a["made_by"]) for a in adjusted] == [
        ("penalty", "01", 1.0, "chief")
    ]
    html, table_csv = tmp_path / "hall.html", tmp_path / "standings.csv"
    standings = as_json(
        capsys, "tournament", "standings", db, "--html", str(html), "--refresh", "20", "--csv", str(table_csv)
    )
    assert standings["after_round"] == 1 and standings["comparison"] == "matchpoints"
    rows = standings["standings"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5, 6]
    # every board is compared between the two tables: 2 boards x 3 hands x 2 points among 6
    # players, less the penalty
    assert sum(r["total"] for r in rows) == 2 * 3 * 2 - 1
    assert len(standings["boards"]) == 2 and standings["pending"] == 0
    assert '<meta http-equiv="refresh" content="20">' in html.read_text()
    exported = list(csv.DictReader(table_csv.open()))
    assert [r["id"] for r in exported] == [r["id"] for r in rows]
    mp_csv = tmp_path / "mp.csv"
    awarded = as_json(
        capsys,
        "tournament",
        "masterpoints",
        db,
        "--points-table",
        str(tmp_path / "mp.toml"),
        "--csv",
        str(mp_csv),
    )
    assert len(awarded["awards"]) == 6 and mp_csv.read_text().startswith(
        "rank,place,id,name,club,total,masterpoints"
    )
    code, out, _ = paiju(capsys, "tournament", "standings", db, "--boards")
    assert code == 0 and "standings after round 1" in out and "round 1, board 2" in out
    log = as_json(capsys, "tournament", "log", db)["audit"]
    assert [e["action"] for e in log if e["who"] == "desk"] == [
        "enter results of round 1 from results.csv"
    ] * 4
    assert "correct round 1, table 2, board 2: slip misread" in [
        e["action"] for e in log if e["who"] == "chief"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["enter", "{db}", "-r", "1", "-f", "{tmp}/bad.csv"],
            "error: bad.csv, row 2, field 'bombs': 9 bombs and rockets",
        ),
        (["enter", "{db}", "-r", "2", "-f", "{tmp}/results.csv"], "error: round 2 is not paired yet"),
        (["enter", "{db}", "-r", "1", "-f", "{tmp}/missing.csv"], "does not exist"),
        (["correct", "{db}", "-r", "1", "-t", "1", "-b", "1", "--reason", "x"], "has no result to correct"),
        (["adjust", "{db}", "fouled", "-r", "1", "-b", "1"], "error: an adjustment needs a reason"),
        (["adjust", "{db}", "fouled", "-r", "1", "--reason", "x"], "error: adjust fouled needs --board"),
        (["adjust", "{db}", "knock", "--reason", "x"], "error: KIND 'knock': choose one of fouled, score"),
        (["adjust", "{db}", "cancel", "--id", "7", "--reason", "x"], "error: no adjustment 7"),
        (["standings", "{db}", "-r", "3"], "error: standings after round 3: the event has 1 paired round"),
        (["masterpoints", "{db}", "--points-table", "{tmp}/players.csv"], "not TOML"),
        (["pins", "{db}", "-r", "2"], "error: round 2 is not paired yet"),
    ],
)
def test_bad_input_is_exit_2_and_one_line(
    event: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    (tmp_path / "bad.csv").write_text("table,board,bombs,result\n1,1,9,won\n")
    places = {"db": str(event), "tmp": str(tmp_path)}
    code, _, err = paiju(capsys, "tournament", *(a.format(**places) for a in args))
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and message in err, err
