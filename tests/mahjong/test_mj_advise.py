"""`paiju mahjong advise` and :func:`paiju.mahjong.score_hand.advise` on hand-built hands."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import PaijuError
from paiju.mahjong.agents.value import ValueExpectimaxAgent
from paiju.mahjong.score_hand import advice_observation, advise
from paiju.mahjong.tiles import Tile, parse_counts, tile_name

# 123456789m 234p 67s 55s + a lone 中: dropping 中 leaves a ready hand waiting on 5s / 8s
READY_AFTER_RED = "123456789m234p5567s7z"


def test_the_discard_that_makes_the_hand_ready_is_best() -> None:
    rows = advise(READY_AFTER_RED, left=40)
    best = rows[0]
    assert best.discard == Tile.RED and best.shanten == 0
    # by hand: 5s has 2 copies left (two in the hand), 8s all 4
    assert best.effective == {Tile.S5: 2, Tile.S8: 4}
    assert all(best.win_probability > r.win_probability for r in rows[1:])
    assert [r.value for r in rows] == sorted((r.value for r in rows), reverse=True)
    # every distinct tile of the hand is a candidate (alpha 1: nothing pruned)
    held = [k for k, c in enumerate(parse_counts(READY_AFTER_RED)) if c]
    assert sorted(r.discard for r in rows) == held


def test_seen_tiles_take_effective_tiles_away() -> None:
    free = advise(READY_AFTER_RED, left=40)[0]
    gone = next(r for r in advise(READY_AFTER_RED, seen="8888s", left=40) if r.discard == Tile.RED)
    assert gone.effective == {Tile.S5: 2}
    assert 0 < gone.win_probability < free.win_probability and gone.value < free.value
    dead = next(r for r in advise(READY_AFTER_RED, seen="8888s55s", left=40) if r.discard == Tile.RED)
    assert dead.effective == {} and dead.win_probability == 0.0


def test_nothing_left_to_draw_wins_nothing() -> None:
    rows = advise(READY_AFTER_RED, left=0)
    assert all(r.win_probability == 0.0 and r.value == 0.0 for r in rows)


def test_more_tiles_left_never_lowers_the_win_probability() -> None:
    probs = [advise(READY_AFTER_RED, left=n)[0].win_probability for n in (4, 12, 40)]
    assert probs == sorted(probs) and probs[0] < probs[-1]


def test_values_are_what_the_agent_plays_by() -> None:
    """The per-discard values are the agent's: its move on the same turn is their best."""
    hand = "134579m2469p11889s55z"
    obs = advice_observation(hand, left=30)
    agent = ValueExpectimaxAgent(alpha=1.0, defence=False)
    values = agent.discard_values(obs)
    legal = [k for k in range(34) if obs.hand[k]]
    assert sorted(values) == legal
    move = agent.act(obs, legal)
    assert values[move] == max(values.values())
    assert move == advise(hand, left=30)[0].discard


def test_melds_count_towards_the_hand() -> None:
    rows = advise("123456m234p5567s7z", melds="999p", left=20)
    assert rows[0].discard == Tile.RED and rows[0].shanten == 0


@pytest.mark.parametrize(
    ("hand", "melds", "seen", "left", "fragment"),
    [
        ("123456789m234p5567s", "", "", 40, "wrong tile count"),
        (READY_AFTER_RED, "", "7777z", 40, "more than 4 copies of 7z"),
        (READY_AFTER_RED, "", "", 500, "must be 0..71"),
        ("123456m234p5567s7z", "124m", "", 40, "not a chow"),
    ],
)
def test_bad_input_names_the_problem(hand: str, melds: str, seen: str, left: int, fragment: str) -> None:
    with pytest.raises(PaijuError, match=fragment):
        advise(hand, melds, seen=seen, left=left)


def test_cli_json_and_text() -> None:
    argv = ["mahjong", "advise", READY_AFTER_RED, "--seen", "8s", "--json", "--top", "3"]
    out = CliRunner().invoke(app, argv)
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["best"] == tile_name(Tile.RED) and len(data["candidates"]) == 3
    assert data["candidates"][0]["effective"] == {"5s": 2, "8s": 3}
    text = CliRunner().invoke(app, ["mahjong", "advise", READY_AFTER_RED, "--left", "10"])
    assert text.exit_code == 0 and "7z" in text.output and "win prob." in text.output
