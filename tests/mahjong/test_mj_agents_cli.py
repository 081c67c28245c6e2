"""`paiju mahjong shanten | play | arena`: output, JSON, and one-line errors (exit code 2)."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.mahjong.shanten import effective_tiles, shanten

runner = CliRunner()


def _paiju(*args: str) -> subprocess.CompletedProcess[str]:
    """Through ``main()``, which turns bad input into exit code 2 and one line on stderr."""
    return subprocess.run(
        [sys.executable, "-m", "paiju.cli.main", *args], capture_output=True, text=True, timeout=300
    )


def test_shanten_json_for_a_3k_plus_1_hand() -> None:
    result = runner.invoke(app, ["mahjong", "shanten", "123m456m789m23p456p77z", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["shanten"] == shanten("123m456m789m23p456p77z") == 0
    assert data["effective"] == effective_tiles("123m456m789m23p456p77z") == {"1p": 4, "4p": 3, "7p": 4}
    assert data["effective_total"] == 11 and data["tiles"] == 16 and data["sets_needed"] == 5


def test_shanten_discard_table_for_a_3k_plus_2_hand() -> None:
    result = runner.invoke(app, ["mahjong", "shanten", "123m456p789s11223z", "--json"])
    data = json.loads(result.output)
    assert data["shanten"] == 0
    first = data["discards"][0]
    assert first == {"discard": "3z", "shanten": 0, "effective": {"1z": 2, "2z": 2}, "effective_total": 4}
    text = runner.invoke(app, ["mahjong", "shanten", "123m456p789s11223z"]).output
    assert "ready (聽牌)" in text and "3z" in text


def test_shanten_bad_hand_is_one_line_and_exit_code_2() -> None:
    proc = _paiju("mahjong", "shanten", "1234x")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: invalid tiles '1234x': unknown suit 'x' (use m 萬, p 筒, s 條, z honours)"
    ]
    proc = _paiju("mahjong", "shanten", "123m")
    assert proc.returncode == 2 and "3k+1 or 3k+2" in proc.stderr and "Traceback" not in proc.stderr


def test_play_prints_a_transcript_with_the_scoring_breakdown() -> None:
    # seed 3: greedy seat 1 wins on a discard (the transcript must show its payment and tai)
    args = ["mahjong", "play", "--agents", "greedy,greedy,expectimax-shanten:depth=1,random", "--seed", "3"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "dealer seat 0" in out and "東0 greedy:" in out
    assert "WIN: seat" in out and " tai × 500" in out and "points:" in out
    data = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert data["agents"][2] == "expectimax-shanten:depth=1" and data["moves"]
    assert sum(data["result"]["deltas"]) == 0
    for win in data["result"]["wins"]:
        for payment in win["payments"]:
            assert payment["amount"] == 1000 + 500 * payment["tai"]
            assert payment["tai"] == sum(v for _, v in payment["breakdown"])


def test_play_needs_four_agents_and_known_names() -> None:
    proc = _paiju("mahjong", "play", "--agents", "greedy,random")
    assert proc.returncode == 2 and "expected 4 agents" in proc.stderr
    proc = _paiju("mahjong", "play", "--agents", "greedy,random,greedy,minimax")
    assert proc.returncode == 2 and "unknown mahjong agent 'minimax'" in proc.stderr


def test_arena_2v2_json() -> None:
    """paiju mahjong arena is paiju arena -g mahjong: the same report, 2v2 by default, with the
    paper's per-seat-hand figures (greedy and random in a 2v2: each sits twice per hand)."""
    args = ["--agents", "greedy,random", "-n", "8", "--json", "--no-progress"]
    result = runner.invoke(app, ["mahjong", "arena", *args])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["game"] == "mahjong" and data["format"] == "2v2" and data["games"] == 8
    greedy, rnd = data["hands"]["agents"]
    assert greedy["seat_hands"] == rnd["seat_hands"] == 16
    assert greedy["mean_score"]["value"] == -rnd["mean_score"]["value"]
    assert 0 <= data["hands"]["exhaustive_draw_rate"]["value"] <= 1
    same = json.loads(runner.invoke(app, ["arena", "-g", "mahjong", *args]).output)
    for report in (same, data):
        del report["decision_time"]  # timings differ run to run
    assert same == data
    proc = _paiju("mahjong", "arena", "--agents", "greedy,random", "-n", "7")
    assert proc.returncode == 2 and "not a whole number of deals" in proc.stderr
