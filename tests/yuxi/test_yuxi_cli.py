"""`paiju yuxi ...`: play, audit, replay, balance, cards; bad input exits 2 with one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import PaijuError
from paiju.yuxi.cards import load_card_table
from paiju.yuxi.rulesdoc import card_reference_markdown

runner = CliRunner()


def test_play_shows_boards_and_a_result() -> None:
    result = runner.invoke(
        app, ["yuxi", "play", "--agents", "greedy,random", "--board", "3x3", "--seed", "3"]
    )
    assert result.exit_code == 0, result.output
    assert "final: A" in result.output and "┃" in result.output and "play " in result.output
    play_json = "yuxi play --agents random,random --board 6x4 --seed 1 --decks tempest,crab_feast"
    play_json += " --no-die --json"
    js = runner.invoke(app, play_json.split())
    data = json.loads(js.output)
    assert data["decks"] == ["tempest", "crab_feast"] and data["bonus"] == 0
    assert data["moves"][0]["move"].startswith("deal ")
    again = runner.invoke(app, play_json.split())
    assert again.output == js.output


def test_bad_input_exits_2_with_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "paiju.cli.main", "yuxi", "play", "--board", "5x5"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "error: unknown yuxi board '5x5'; boards: 3x3, 4x4, 6x4\n"
    for args, match in (
        (["--agents", "bogus,random"], "unknown yuxi agent 'bogus'"),
        (["--decks", "nope,tempest"], "unknown yuxi deck 'nope'"),
        (["--agents", "greedy"], "expected 2 agents"),
    ):
        result = runner.invoke(app, ["yuxi", "play", *args])
        assert isinstance(result.exception, PaijuError) and match in str(result.exception)
    result = runner.invoke(app, ["yuxi", "audit", "--games", "0"])
    # refused while the command line is parsed (a usage error); its one line is checked in
    # tests/cli/test_cli_bad_input.py
    assert result.exit_code == 2 and not isinstance(result.exception, PaijuError)


def test_audit_reports_the_fuzzers_reach_of_every_effect_and_weather() -> None:
    result = runner.invoke(app, ["yuxi", "audit", "--games", "2", "--fuzz", "400", "--json"])
    assert result.exit_code == 0, result.output
    fuzz = json.loads(result.output)["fuzz"]
    assert fuzz["positions"] == 400 and fuzz["findings"] == []
    from paiju.yuxi.game import YuxiConfig, YuxiGame
    from paiju.yuxi.oracle.fuzz import fuzz_targets

    # round robin over every effect of the card table and the turn rules: each reached
    targets = fuzz_targets(YuxiGame(YuxiConfig()))
    assert all(fuzz["coverage"].get(t, 0) >= 400 // len(targets) for t in targets), fuzz["coverage"]
    for weather in ("fog", "thunder", "erosion", "ice"):
        assert fuzz["coverage"].get(weather, 0) > 0


def test_audit_replay_and_balance(tmp_path: Path) -> None:
    report = tmp_path / "audit.json"
    result = runner.invoke(
        app,
        ["yuxi", "audit", "--games", "3", "--seed", "2", "--search", "greedy", "--out", str(report),
         "--fuzz", "0"],
    )
    assert result.exit_code == 0, result.output
    assert "no invariant violated" in result.output and "fuzzer" not in result.output
    assert json.loads(report.read_text())["games"] == 3
    rep = runner.invoke(app, ["yuxi", "replay", str(report)])
    assert rep.exit_code == 0 and "no violations" in rep.output
    out = tmp_path / "bal"
    bal = runner.invoke(
        app,
        [
            "yuxi",
            "balance",
            "--games",
            "2",
            "--boards",
            "3x3",
            "--agents",
            "greedy,random",
            "--out-dir",
            str(out),
        ],
    )
    assert bal.exit_code == 0, bal.output
    assert "first player" in bal.output
    assert {p.name for p in out.iterdir()} >= {"report.md", "report.json", "first_player.png", "cards.png"}
    luck = runner.invoke(
        app,
        ["yuxi", "balance", "--games", "3", "--boards", "3x3", "--agents", "greedy,random",
         "--luck", "--json"],
    )
    assert luck.exit_code == 0, luck.output
    rows = json.loads(luck.output)["luck"]
    assert [(r["board"], r["die_bonus"], r["share"]["n"]) for r in rows] == [
        ("3x3", True, 3), ("3x3", False, 3)
    ]
    both = runner.invoke(app, ["yuxi", "balance", "--luck", "--compare", "a.toml", "b.toml"])
    # the entry point turns a PaijuError into exit 2 with its one line
    assert isinstance(both.exception, PaijuError) and "--luck goes with one card table" in str(both.exception)


def test_cards_lists_and_prints_the_rules_reference() -> None:
    result = runner.invoke(app, ["yuxi", "cards", "--json"])
    cards = json.loads(result.output)
    assert len(cards) == 44 and cards[0]["key"] == "reef_crab"
    md = runner.invoke(app, ["yuxi", "cards", "--markdown"])
    assert md.output == card_reference_markdown(load_card_table())
    decks = runner.invoke(app, ["yuxi", "cards", "--decks", "--json"])
    assert all(d["size"] == 35 for d in json.loads(decks.output).values())
