"""`paiju ddz moves | deal | play`: output, JSON, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.doudizhu import Deal, legal_moves
from paiju.doudizhu.game import GameRecord

runner = CliRunner()
PAIJU = Path(sys.executable).with_name("paiju")


def test_moves_json_matches_the_api() -> None:
    result = runner.invoke(app, ["ddz", "moves", "D2AX3TT", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["hand"] == "3TTA2XD" and data["beat"] is None and not data["can_pass"]
    assert [m["cards"] for m in data["moves"]] == legal_moves("3TTA2XD")
    assert data["count"] == len(data["moves"])
    assert {"cards": "XD", "type": "rocket"} in data["moves"]


def test_moves_to_beat_text_and_readings() -> None:
    result = runner.invoke(app, ["ddz", "moves", "33344455567", "--beat", "3334"])
    assert result.exit_code == 0
    assert "trio with solo (8): 3444 4445 4446 4447 3555 4555 5556 5557" in result.output
    assert "pass" in result.output
    result = runner.invoke(
        app,
        ["ddz", "moves", "444555666777", "--beat", "333444555666", "--beat-type", "airplane_solo", "--json"],
    )
    data = json.loads(result.output)
    assert data["beat"] == {"cards": "333444555666", "type": "airplane_solo"}
    assert [m["cards"] for m in data["moves"]] == ["444555666777"] and data["can_pass"]
    strict = runner.invoke(app, ["ddz", "moves", "333444XD", "--wings", "rlcard", "--json"])
    assert "333444XD" not in [m["cards"] for m in json.loads(strict.output)["moves"]]


def test_deal_is_seeded() -> None:
    a = runner.invoke(app, ["ddz", "deal", "--seed", "7", "--json"])
    b = runner.invoke(app, ["ddz", "deal", "--seed", "7", "--json"])
    assert a.output == b.output
    data = json.loads(a.output)
    assert Deal.parse(data["deal"]) == Deal.random(7)
    text = runner.invoke(app, ["ddz", "deal", "--seed", "7"]).output
    assert str(Deal.random(7)) in text and "kitty" in text


def test_play_transcript_and_record() -> None:
    result = runner.invoke(app, ["ddz", "play", "--agents", "random,random,random", "--seed", "3"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("deal [")
    assert "seat 0 landlord (random):" in lines[1]
    assert lines[-1].startswith("winner: seat")
    data = json.loads(runner.invoke(app, ["ddz", "play", "--seed", "3", "--json"]).output)
    record = GameRecord.from_dict(data["record"])
    assert record.replay().returns() == data["returns"]
    bid = runner.invoke(app, ["ddz", "play", "--seed", "4", "--bidding", "--scoring", "casual"])
    assert bid.exit_code == 0 and "bid" in bid.output


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["ddz", "moves", "33a"], "unknown card 'a'"),
        (["ddz", "moves", "3333", "--beat", "34"], "is not a Dou Dizhu move"),
        (["ddz", "moves", "3333", "--beat", "333444555666"], "more than one type"),
        (["ddz", "play", "--agents", "random,nobody,random"], "unknown doudizhu agent 'nobody'"),
        (["ddz", "play", "--agents", "random,random"], "expected 3 agents"),
        (["ddz", "play", "--deal", "[3][4][5]"], "not a partition of the 54 cards"),
        (["ddz", "play", "--scoring", "poker"], "unknown Dou Dizhu scoring rule"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: list[str], fragment: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from paiju.cli.main import main

    monkeypatch.setattr(sys, "argv", ["paiju", *args])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], err


def test_console_script_bad_input() -> None:
    """The installed entry point: exit code 2, one line on stderr, no traceback."""
    proc = subprocess.run([str(PAIJU), "ddz", "moves", "33a"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "unknown card 'a'" in proc.stderr
