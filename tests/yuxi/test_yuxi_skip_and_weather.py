"""Rules version yuxi-2 (docs/yuxi-rules.md §3.4, §12): a turn that ends by itself is a skip,
not a pass, and weather keeps acting on the characters of a finished player.

Hand-built positions, hand-checked results, invariant checker (and rules oracle) on.
4×4 cells: a1=0 b1=1 c1=2 d1=3 / a2=4 b2=5 c2=6 d2=7 / a3=8 b3=9 c3=10 d3=11 / a4..d4=12..15.
"""

from __future__ import annotations

import numpy as np

from paiju.core.protocol import TERMINAL
from paiju.yuxi.actions import END_TURN
from paiju.yuxi.game import RULES_VERSION, YuxiConfig, YuxiGame, YuxiState
from paiju.yuxi.phases import PH_OVER
from paiju.yuxi.scenario import scenario


def mk(decks: tuple[str, str]) -> YuxiGame:
    return YuxiGame(YuxiConfig(board="4x4", decks=decks, die_bonus=False, swaps=False), check_invariants=True)


def play(st: YuxiState, text: str) -> None:
    st.apply(st.parse_action(text))


def points(st: YuxiState, cell: str) -> tuple[int, int]:
    i = st.shape.parse_cell(cell)
    return st.power[i], st.armour[i]


def test_rules_version_is_bumped() -> None:
    assert RULES_VERSION == "yuxi-2" and mk(("tempest", "tide_iron")).info.rules_version == "yuxi-2"


def test_a_turn_that_ends_by_itself_is_a_skip_and_the_player_plays_again_later() -> None:
    g = mk(("tempest", "tide_iron"))
    # seat 0 holds a Hired Blade (cost 1) and an empty purse; its Moneylender pays out every 2nd turn
    st = scenario(
        g,
        units={"a1": ("moneylender", 0, {"cd": 2, "coins": 0})},
        hands=(["hired_blade"], ["footman", "footman", "footman"]),
        purses=(0, 0),
        to_move=1,
    )
    play(st, "play footman@d4")
    # seat 0's turn: the Moneylender counts 2 -> 1, the blade is unaffordable: the turn ends by itself
    assert st.out == [False, False] and st.skipped == [True, False]
    assert st.current_player() == 1 and st.observation(1).skipped == (True, False)
    play(st, "play footman@d3")  # a card was played: seat 0's skip no longer counts
    assert st.skipped == [False, False]
    # seat 0's turn: the Moneylender fires (+1 coin), the blade is now playable
    assert st.current_player() == 0 and st.purse[0] == 1
    play(st, "play hired_blade@c4")
    assert points(st, "d4") == (3, 0)  # 3 points, armour 1 absorbed the blade's 1 damage
    assert st.purse[0] == 0 and st.out == [True, False]  # its hand is empty now: finished


def test_every_player_in_the_game_skipping_in_a_row_ends_the_game() -> None:
    g = mk(("tempest", "tempest"))
    st = scenario(
        g,
        units={"a1": ("hired_blade", 0), "b1": ("pickpocket", 1)},
        hands=(["undertow"], ["undertow"]),
        purses=(0, 0),
        acted=True,
        played=True,
    )
    st.apply(END_TURN)  # seat 0 played this turn: no pass; seat 1 cannot pay Undertow: skip; seat 0 too
    assert st.phase == PH_OVER and st.current_player() == TERMINAL
    assert st.out == [True, True] and st.returns() == [1.0, -1.0]  # 3 points to 2


def test_a_skip_while_the_opponent_is_finished_ends_the_game() -> None:
    g = mk(("tempest", "tide_iron"))
    st = scenario(
        g,
        units={"a1": ("footman", 1)},
        hands=(["undertow"], ["footman"]),
        purses=(0, 0),
        to_move=1,
        acted=True,
        played=True,
    )
    st.apply(END_TURN)  # seat 1 had played: its turn ends, seat 0 cannot pay: skip; seat 1 still in
    assert st.out == [False, False] and st.current_player() == 1
    turn = st.turn
    st.apply(END_TURN)  # seat 1 ends without playing although it could: a pass, it is finished
    # seat 0 gets one more turn, still cannot play: it skips, and nobody is left to play: game over
    assert st.turn == turn + 1
    assert st.phase == PH_OVER and st.out == [True, True]


def test_a_voluntary_end_without_a_card_is_still_a_pass() -> None:
    g = mk(("tempest", "tide_iron"))
    st = scenario(g, hands=(["pickpocket", "hired_blade"], ["footman", "footman"]))
    st.apply(END_TURN)
    assert st.out == [True, False] and st.skipped == [False, False] and st.current_player() == 1


def test_weather_acts_on_a_finished_players_characters_every_turn() -> None:
    g = mk(("guild_iron", "tide_iron"))
    st = scenario(
        g,
        units={
            "a1": ("footman", 0, {"power": 3, "armour": 1}),  # thunder: armour 1 absorbs, 1 point lost
            "b1": ("peddler", 0, {"power": 2}),  # thunder: dies, its 2 coins a bounty for seat 1
            "c1": ("footman", 0, {"power": 3, "armour": 4}),  # erosion ignores armour
            "d1": ("footman", 1, {"power": 3, "armour": 0}),  # the mover's own, on thunder
        },
        weather={"a1": "thunder", "b1": "thunder", "c1": "erosion", "d1": "thunder"},
        hands=([], ["footman", "footman", "footman"]),
        purses=(0, 0),
        out=(True, False),
        to_move=1,
    )
    play(st, "play footman@a4")
    assert points(st, "a1") == (2, 0) and points(st, "c1") == (2, 4) and points(st, "d1") == (1, 0)
    assert not st.card[1] and st.purse[1] == 2 and st.grave[0][g.table.card("peddler").id] == 1
    assert st.current_player() == 1
    play(st, "play footman@b4")  # and again at the end of seat 1's next turn
    assert points(st, "a1") == (0, 0) or not st.card[0]
    assert not st.card[0] and points(st, "c1") == (1, 4) and not st.card[3]


def test_an_active_opponents_characters_tick_only_at_their_own_turn_end() -> None:
    g = mk(("guild_iron", "tide_iron"))
    st = scenario(
        g,
        units={"a1": ("footman", 0, {"power": 3, "armour": 0})},
        weather={"a1": "thunder"},
        hands=(["footman"], ["footman", "footman"]),
        to_move=1,
    )
    play(st, "play footman@a4")
    assert points(st, "a1") == (3, 0)  # seat 0 is still in the game: its turn end is its own
    play(st, "play footman@b4")
    assert points(st, "a1") == (1, 0)


def test_sample_state_keeps_the_skips() -> None:
    g = mk(("tempest", "tide_iron"))
    st = scenario(
        g,
        units={"a1": ("moneylender", 0, {"cd": 2, "coins": 0})},
        hands=(["hired_blade"], ["footman", "footman"]),
        purses=(0, 0),
        to_move=1,
    )
    play(st, "play footman@d4")
    rebuilt = g.sample_state(st.observation(1), np.random.default_rng(3))
    assert rebuilt.skipped == [True, False] and rebuilt.out == [False, False]
