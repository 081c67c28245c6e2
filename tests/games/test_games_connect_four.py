"""Connect four: API suite, hand-checked wins, OpenSpiel differential, rollout fast path, MCTS strength."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

from paiju.algorithms.mcts import FastPlayout, MCTSAgent, random_playout
from paiju.core.agents import UniformRandomAgent
from paiju.core.conformance import check_game_api
from paiju.core.errors import IllegalMoveError, InvalidNotationError
from paiju.core.protocol import TERMINAL, play_game
from paiju.core.rng import derive_seed
from paiju.core.stats import proportion_ci
from paiju.games.connect_four import REGISTRY, ConnectFour, ConnectFourState


def _play(moves: list[int]) -> ConnectFourState:
    state = ConnectFour().new_initial_state()
    for m in moves:
        state.apply(m)
    return state


def _full_column_or_none(state: ConnectFourState) -> int | None:
    full = [c for c in range(7) if c not in state.legal_actions()]
    return full[0] if full else 7


def test_api_conformance() -> None:
    check_game_api(ConnectFour(), games=30, seed=5, illegal_action=_full_column_or_none)


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        ([0, 6, 0, 6, 0, 6, 0], 0),  # vertical in column 0
        ([0, 0, 1, 1, 2, 2, 3], 0),  # horizontal on the bottom row
        ([6, 0, 5, 0, 4, 0, 6, 0], 1),  # o vertical
        ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], 0),  # diagonal /
        ([6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], 0),  # diagonal \
    ],
)
def test_hand_checked_results(moves: list[int], winner: int) -> None:
    state = _play(moves[:-1])
    assert not state.is_terminal()
    state.apply(moves[-1])
    assert state.is_terminal() and state.winner() == winner
    assert state.returns() == ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])


def test_runs_do_not_wrap_between_columns() -> None:
    # x ends with the top three cells of column 0 and the bottom cell of column 1: bits 3, 4, 5
    # and 7, a run of four in a layout without the guard bit, not four in a row on the board.
    moves = [1, 0, 6, 0, 5, 0, 0, 6, 0, 5, 0]
    state = _play(moves)
    assert str(state).splitlines()[0] == "x......" and str(state).splitlines()[-1] == "ox...xx"
    assert not state.is_terminal(), str(state)


def test_a_full_board_is_a_draw_and_full_columns_are_refused() -> None:
    # a drawn random game (checked with OpenSpiel), final board:
    # xxoxooo / oxxoxxx / xooxoxo / oxxooxo / xoxxxox / ooxooxo (top row first)
    order = [
        5,
        5,
        5,
        0,
        5,
        4,
        4,
        6,
        6,
        3,
        5,
        1,
        3,
        5,
        2,
        1,
        2,
        3,
        0,
        4,
        1,
        4,
        3,
        0,
        2,
        2,
        2,
        1,
        0,
        0,
        0,
        2,
        1,
        6,
        1,
        3,
        4,
        4,
        3,
        6,
        6,
        6,
    ]
    state = ConnectFour().new_initial_state()
    for i, column in enumerate(order):
        assert not state.is_terminal(), f"game ended early at move {i}:\n{state}"
        state.apply(column)
    assert state.is_terminal() and state.winner() is None and state.returns() == [0.0, 0.0]
    assert str(state) == "xxoxooo\noxxoxxx\nxooxoxo\noxxooxo\nxoxxxox\nooxooxo"
    state = _play([3] * 6)
    with pytest.raises(IllegalMoveError, match="column 3 is full"):
        state.apply(3)
    with pytest.raises(IllegalMoveError, match="does not exist"):
        state.apply(7)


def test_notation_round_trips() -> None:
    state = _play([3])
    for column in range(7):
        assert state.string_to_action(state.action_to_string(column)) == column
    assert state.action_to_string(2) == "o2"
    with pytest.raises(InvalidNotationError):
        state.string_to_action("x9")


def test_matches_openspiel_on_random_games() -> None:
    _compare_with_openspiel(games=300, seed=7)


@pytest.mark.slow
def test_matches_openspiel_on_many_random_games() -> None:
    _compare_with_openspiel(games=20_000, seed=8)


def _compare_with_openspiel(games: int, seed: int) -> None:
    ours_game = ConnectFour()
    theirs_game = pyspiel.load_game("connect_four")
    rng = np.random.default_rng(seed)
    for _ in range(games):
        ours, theirs = ours_game.new_initial_state(), theirs_game.new_initial_state()
        while True:
            assert ours.is_terminal() == theirs.is_terminal()
            assert str(ours) == str(theirs).strip()
            if ours.is_terminal():
                assert ours.returns() == list(theirs.returns())
                assert ours.current_player() == TERMINAL
                break
            assert ours.current_player() == theirs.current_player()
            assert ours.legal_actions() == theirs.legal_actions()
            action = ours.legal_actions()[int(rng.integers(len(ours.legal_actions())))]
            assert ours.action_to_string(action) == theirs.action_to_string(theirs.current_player(), action)
            ours.apply(action)
            theirs.apply_action(action)


def test_rollout_fast_path_equals_the_generic_playout() -> None:
    """``playout_returns`` draws exactly as ``random_playout`` does: same generator, same game."""
    game = ConnectFour()
    assert isinstance(game.new_initial_state(), FastPlayout)
    rng = np.random.default_rng(3)
    outcomes = set()
    for trial in range(400):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 30))):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        before = repr(state), str(state)
        fast = state.playout_returns(random.Random(trial))
        assert (repr(state), str(state)) == before, "the fast path changed the state"
        slow = random_playout(state, random.Random(trial), np.random.default_rng(0))
        assert fast == slow
        outcomes.add(tuple(fast))
    assert {(1.0, -1.0), (-1.0, 1.0)} <= outcomes


def test_mcts_beats_random() -> None:
    """At least 90% wins for MCTS(200 simulations) against uniform random, 30 games per seat."""
    _mcts_against_random(games=60, simulations=200)


@pytest.mark.slow
def test_mcts_beats_random_over_many_games() -> None:
    _mcts_against_random(games=400, simulations=400)


def _mcts_against_random(games: int, simulations: int) -> None:
    game = ConnectFour()
    wins = 0
    for i in range(games):
        mcts_seat = i % 2
        mcts = MCTSAgent(game, seed=derive_seed(17, i, 0), simulations=simulations)
        rand = UniformRandomAgent(derive_seed(17, i, 1))
        agents = [mcts, rand] if mcts_seat == 0 else [rand, mcts]
        final = play_game(game, agents, seed=i).state
        wins += final.returns()[mcts_seat] > 0
    estimate = proportion_ci(wins, games)
    assert wins / games >= 0.9, estimate
    assert estimate.low >= 0.85, estimate


def test_registry() -> None:
    assert REGISTRY.names() == ["az", "mcts", "random"]
    agent = REGISTRY.make("mcts:simulations=50,c=2.0", seed=0)
    state = _play([3, 3])
    assert agent.act(state.observation(0), state.legal_actions()) in range(7)
