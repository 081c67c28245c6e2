"""The yuxi event log (:mod:`paiju.yuxi.events`): what each step did, in words.

Checked against independent expectations: hand-built positions whose consequences are
known from the rules (a crab eaten, a character killed by thunder, fog halving), the board
itself (every character that leaves the board in a step has an event saying how, and every
change of a staying character's points is the sum of its events), and the engine without a
log (the same seeded games, move for move: recording changes nothing).
"""

from __future__ import annotations

import numpy as np
import pytest

from paiju.core.protocol import CHANCE
from paiju.yuxi.events import Event, EventLog, describe
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiState
from paiju.yuxi.scenario import scenario

GONE = {"dies", "returned"}
POINTS = {"damage": -1, "drain": -1, "halve": -1, "boost": 1, "heal": 1}


def words(st: YuxiState, events: list[Event]) -> list[str]:
    return describe(
        events,
        card_name=lambda c: st.game.table.card(c).key,
        cell_name=st.shape.cell_name,
        seat_name=lambda s: "AB"[s],
    )


def logged(st: YuxiState) -> YuxiState:
    st.log = EventLog()
    return st


def test_a_crab_eaten_on_deploy_is_said_to_be_eaten() -> None:
    g = YuxiGame(YuxiConfig(board="4x4", decks=("tide_iron", "tide_iron"), die_bonus=False, swaps=False))
    crab = {"b1": ("reef_crab", 1, {"power": 4})}
    st = logged(scenario(g, units=crab, hands=(["reef_crab", "footman"], ["footman"])))
    st.apply(st.parse_action("play reef_crab@a1"))
    events = st.log.take() if st.log else []
    eaten = [e for e in events if e.what == "eaten"]
    assert len(eaten) == 1 and st.shape.cell_name(eaten[0].cell) == "b1" and eaten[0].amount == 4
    assert words(st, events)[0] == (
        "reef_crab deploy: eats reef_crab (B, b1), gaining its 4 pts; reef_crab (A, a1) +4 → 6 pts"
    )


def test_thunder_kills_and_the_transcript_says_so() -> None:
    g = YuxiGame(YuxiConfig(board="4x4", decks=("tempest", "tide_iron"), die_bonus=False, swaps=False))
    st = logged(scenario(
        g,
        units={"a1": ("footman", 1, {"power": 2, "armour": 0}),
               "c3": ("footman", 1, {"power": 5, "armour": 1})},
        weather={"a1": "thunder", "c3": "thunder"},
        hands=(["pickpocket"], ["footman", "footman"]),
        to_move=1,
    ))
    # seat 1 plays its deck card; its turn ends by itself and thunder strikes its characters
    st.apply(st.parse_action("play footman@d4"))
    text = words(st, st.log.take() if st.log else [])
    assert text == [
        "thunder: footman (B, a1) -2 → 0 pts; footman (B, c3)'s armour absorbs 1; footman (B, c3) -1 → 4 pts",
        "the weather: footman (B, a1) dies, killed by thunder",
    ]
    assert st.card[0] == 0  # the board agrees: a1 is empty


Step = tuple[YuxiState, YuxiState, list[Event]]


def _play_seeded(game: YuxiGame, seed: int, log: bool) -> tuple[list[str], list[Step]]:
    """A game of uniformly random moves; with ``log``, each step as (before, after, events)."""
    rng = np.random.default_rng(seed)
    st = game.new_initial_state()
    if log:
        st.log = EventLog()
    moves, steps = [], []
    while not st.is_terminal():
        if st.current_player() == CHANCE:
            action = st.sample_chance(rng)
        else:
            legal = st.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        moves.append(st.action_to_string(action))
        before = st.clone()
        st.apply(action)
        if st.log is not None:
            steps.append((before, st.clone(), st.log.take()))
    moves.append(str(st.final_scores()))
    return moves, steps


@pytest.mark.parametrize("board", ["3x3", "4x4", "6x4"])
def test_recording_changes_nothing_and_explains_every_change_of_the_board(board: str) -> None:
    kinds: set[str] = set()
    for seed in range(12):
        decks = [("tempest", "tide_iron"), ("tide_iron", "guild_storm"), ("guild_storm", "tempest")][seed % 3]
        game = YuxiGame(YuxiConfig(board=board, decks=decks))
        plain, _ = _play_seeded(game, seed, log=False)
        moves, steps = _play_seeded(game, seed, log=True)
        assert moves == plain  # the same game, move for move, and the same result
        for before, after, events in steps:
            _check_against_the_board(before, after, events)
            kinds |= {e.what for e in events}
            words(after, events)  # every event reads as a sentence
    assert {"damage", "dies", "boost", "weather"} <= kinds  # the games exercised the log


def _check_against_the_board(before: YuxiState, after: YuxiState, events: list[Event]) -> None:
    """Each character that left the board in the step has a 'dies' or 'returned' event at its
    cell; each one that stayed changed its points and armour by exactly the sum of its events."""
    gone = {(e.cell, e.card) for e in events if e.what in GONE}
    for cell, card in enumerate(before.card):
        if not card:
            continue
        if after.card[cell] != card or after.owner[cell] != before.owner[cell]:
            assert (cell, card) in gone, (cell, card, events)
        elif not any(e.cell == cell and e.what in GONE for e in events):
            mine = [e for e in events if e.cell == cell]
            points = sum(POINTS.get(e.what, 0) * e.amount for e in mine)
            armour = sum(e.amount for e in mine if e.what == "armour") - sum(
                e.amount for e in mine if e.what == "armour_hit"
            )
            assert after.power[cell] - before.power[cell] == points, (cell, mine)
            assert after.armour[cell] - before.armour[cell] == armour, (cell, mine)
