"""`paiju tournament`: a round from the command line, exit codes, and one line for bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paiju.cli.main import run
from paiju.doudizhu.cards import Deal
from paiju.tournament.distributions import DealDistribution, ScoreDistribution, write_distribution_table

PLAYERS = "name,id,club,rating\n" + "".join(
    f"Player {i},{i},{'RB'[i % 2]},{1900 - i}\n" for i in range(1, 12)
)


def paiju(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    """The command's JSON output (it must succeed)."""
    code, out, err = paiju(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    players = tmp_path / "players.csv"
    players.write_text(PLAYERS, encoding="utf-8")
    path = tmp_path / "club.db"
    made = as_json(
        capsys,
        "tournament",
        "new",
        str(path),
        "--players",
        str(players),
        "--name",
        "Club night",
        "--format",
        "rounds=4",
        "--by",
        "chief",
    )
    assert made["players"] == 11 and made["name"] == "Club night"
    return path


def test_a_round_from_the_command_line(
    event: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(event)
    listed = as_json(capsys, "tournament", "players", db, "--add", "Late Comer,L1,R,1500")
    assert len(listed["players"]) == 12
    as_json(capsys, "tournament", "players", db, "--withdraw", "3")
    paired = as_json(capsys, "tournament", "pair", db, "--round", "1", "--seed", "5")
    assert len(paired["tables"]) == 3 and len(paired["byes"]) == 2
    secret = as_json(capsys, "tournament", "boards", db, "-r", "1", "--select", "random", "--seed", "9")
    assert secret["released"] is False
    assert all(set(b) == {"board", "check"} for b in secret["boards"])
    assert all("deal" not in d for d in secret["selection"]["deals"])
    code, out, _ = paiju(capsys, "tournament", "boards", db, "-r", "1")
    assert code == 0 and "the cards stay secret until" in out and " A " not in out
    as_json(capsys, "tournament", "release", db, "-r", "1")
    shown = as_json(capsys, "tournament", "boards", db, "-r", "1")
    assert [b["record"].split(":")[0] for b in shown["boards"]] == ["board 1", "board 2", "board 3"]
    sheets = as_json(capsys, "tournament", "sheets", db, "-r", "1", "--out", str(tmp_path / "sheets"))
    assert len(sheets["files"]) == 4
    log = as_json(capsys, "tournament", "log", db)
    actions = [e["action"] for e in log["audit"]]
    assert actions[0] == "create the event" and actions[-1] == "release round 1"
    assert {"late entry from round 1", "withdraw from round 1", "pair round 1"} <= set(actions)
    assert log["audit"][0]["who"] == "chief"


def test_dih_boards_from_a_pool_with_score_laws(
    event: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deals = [Deal.random(i) for i in range(8)]
    pool = tmp_path / "pool.txt"
    pool.write_text("".join(f"{d}\n" for d in deals))
    laws = [
        DealDistribution(str(d), ScoreDistribution.from_mapping({-1: 0.5, i + 1: 0.5}), 60)
        for i, d in enumerate(deals)
    ]
    dists = tmp_path / "dists.parquet"
    write_distribution_table(dists, laws)
    as_json(capsys, "tournament", "pair", str(event), "-r", "1")
    chosen = as_json(
        capsys,
        "tournament",
        "boards",
        str(event),
        "-r",
        "1",
        "--select",
        "dih",
        "--pool",
        str(pool),
        "--dists",
        str(dists),
    )
    report = chosen["selection"]
    assert report["method"] == "dih" and report["pool_size"] == 8
    dih = [d["dih"] for d in report["deals"]]
    assert dih == sorted(dih, reverse=True) and len(dih) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["pair", "{db}", "-r", "2"],
            "error: round 2: rounds are paired in order; the next to pair is round 1",
        ),
        (["pair", "{db}", "-r", "1", "--method", "knockout"], "error: --method 'knockout': choose one of"),
        (["boards", "{db}", "-r", "1"], "error: round 1 is not paired yet"),
        (
            ["boards", "{db}", "-r", "1", "--select", "best"],
            "error: --select 'best': choose one of dih, random",
        ),
        (["release", "{db}", "-r", "1"], "error: round 1 is not paired yet"),
        (["sheets", "{db}", "-r", "1", "--out", "{tmp}/s"], "error: round 1 is not paired yet"),
        (["players", "{db}", "--withdraw", "nobody"], "error: no player with id 'nobody'"),
        (["players", "{db}", "--add", "X,1"], "error: entry '1': a player with this id is already entered"),
        (
            ["players", "{db}", "--add", "X,9,c,9", "--withdraw", "1"],
            "error: give --add or --withdraw, not both",
        ),
        (["new", "{db}", "--players", "{csv}"], "already exists"),
        (["new", "{tmp}/x.db", "--players", "{csv}", "--format", "odd_field=maybe"], "odd_field='maybe'"),
        (
            [
                "new",
                "{tmp}/x.db",
                "--players",
                "{csv}",
                "--format",
                "final_after=2",
                "--format",
                "final_players=12",
            ],
            "final_players=12: only 11 players entered",
        ),
    ],
)
def test_bad_input_is_exit_2_and_one_line(
    event: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    places = {"db": str(event), "tmp": str(tmp_path), "csv": str(tmp_path / "players.csv")}
    code, _, err = paiju(capsys, "tournament", *(a.format(**places) for a in args))
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert not (tmp_path / "x.db").exists() and not (tmp_path / "s").exists()
