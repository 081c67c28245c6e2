"""Tic-tac-toe: the shared API suite, hand-checked positions, and a differential test against OpenSpiel."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from paiju.core.agents import UniformRandomAgent
from paiju.core.conformance import check_game_api
from paiju.core.errors import ConfigError, CorruptRecordError, IllegalMoveError, InvalidNotationError
from paiju.core.protocol import TERMINAL, play_game
from paiju.games.tictactoe import REGISTRY, TicTacToe, TicTacToeObservation, TicTacToeState


def _play(moves: list[int]) -> TicTacToeState:
    state = TicTacToe().new_initial_state()
    for m in moves:
        state.apply(m)
    return state


def _first_illegal(state: TicTacToeState) -> int | None:
    taken = [c for c in range(9) if c not in state.legal_actions()]
    return taken[0] if taken else 9


def test_api_conformance() -> None:
    check_game_api(TicTacToe(), games=40, seed=3, illegal_action=_first_illegal)


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        ([0, 3, 1, 4, 2], 0),  # top row
        ([0, 1, 3, 2, 6], 0),  # left column
        ([4, 0, 8, 1, 5, 2], 1),  # o on the top row
        ([0, 1, 4, 2, 8], 0),  # main diagonal
        ([2, 0, 4, 1, 6], 0),  # anti-diagonal
        ([0, 4, 8, 2, 6, 3, 5, 7, 1], None),  # full board, no line: draw
    ],
)
def test_hand_checked_results(moves: list[int], winner: int | None) -> None:
    state = _play(moves)
    assert state.is_terminal()
    expected = {0: [1.0, -1.0], 1: [-1.0, 1.0], None: [0.0, 0.0]}[winner]
    assert state.returns() == expected
    assert state.winner() == winner


def test_no_win_on_a_broken_line() -> None:
    state = _play([2, 0, 3, 1, 4])  # x on cells 2, 3, 4: not a line (wraps rows)
    assert not state.is_terminal()
    assert str(state) == "oox\nxx.\n..."


def test_illegal_moves_say_why() -> None:
    state = _play([4])
    with pytest.raises(IllegalMoveError, match=r"cell 4 .* is taken"):
        state.apply(4)
    with pytest.raises(IllegalMoveError, match="does not exist"):
        state.apply(9)
    with pytest.raises(IllegalMoveError, match="not a cell number"):
        state.apply("a")  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="not a cell number"):
        state.apply(True)  # bools are not cells
    state.apply(np.int64(0))  # numpy integers (from argmax) are cells
    assert state.legal_actions() == [1, 2, 3, 5, 6, 7, 8]
    done = _play([0, 3, 1, 4, 2])
    with pytest.raises(IllegalMoveError, match="over"):
        done.apply(8)


def test_notation_round_trips() -> None:
    state = _play([4])
    for cell in range(9):
        text = state.action_to_string(cell)
        assert text == f"o({cell // 3},{cell % 3})"
        assert state.string_to_action(text) == cell
    for bad in ("x(3,0)", "x(1)", "hello", ""):
        with pytest.raises(InvalidNotationError):
            state.string_to_action(bad)


def test_sample_state_is_exact_and_checks_the_observation() -> None:
    game = TicTacToe()
    state = _play([4, 0, 8])
    obs = state.observation(1)
    rebuilt = game.sample_state(obs, np.random.default_rng(0))
    assert repr(rebuilt) == repr(state) and str(rebuilt) == str(state)
    assert rebuilt.observation(1) == obs
    forged = TicTacToeObservation(1, 1, "x..\n...\n...", (4, 0, 8))
    with pytest.raises(CorruptRecordError, match="inconsistent"):
        game.sample_state(forged, np.random.default_rng(0))
    with pytest.raises(IllegalMoveError, match="move 2"):
        game.sample_state(TicTacToeObservation(1, 0, "", (4, 4)), np.random.default_rng(0))


def test_matches_openspiel_on_random_games() -> None:
    """Same legal moves, player to move, board, terminal flag and returns along 300 random games."""
    ours_game = TicTacToe()
    theirs_game = pyspiel.load_game("tic_tac_toe")
    rng = np.random.default_rng(11)
    for _ in range(300):
        ours, theirs = ours_game.new_initial_state(), theirs_game.new_initial_state()
        while True:
            assert ours.is_terminal() == theirs.is_terminal()
            assert str(ours) == str(theirs)
            if ours.is_terminal():
                assert ours.returns() == list(theirs.returns())
                assert ours.current_player() == TERMINAL
                break
            assert ours.current_player() == theirs.current_player()
            assert ours.legal_actions() == theirs.legal_actions()
            assert ours.action_to_string(0) == theirs.action_to_string(theirs.current_player(), 0)
            action = ours.legal_actions()[int(rng.integers(len(ours.legal_actions())))]
            ours.apply(action)
            theirs.apply_action(action)


def test_registry_builds_seeded_agents() -> None:
    assert REGISTRY.names() == ["mcts", "random"]
    game = TicTacToe()
    agents = [REGISTRY.make("mcts:simulations=200", seed=1), REGISTRY.make("random", seed=2)]
    played = play_game(game, agents, seed=0)
    final, history = played.state, played.actions
    again = play_game(
        game, [REGISTRY.make("mcts:simulations=200", seed=1), REGISTRY.make("random", seed=2)], seed=0
    )
    final2, history2 = again.state, again.actions
    assert history == history2 and final.returns() == final2.returns()
    assert isinstance(REGISTRY.make("random", seed=0), UniformRandomAgent)
    with pytest.raises(ConfigError, match="unknown parameter"):
        REGISTRY.make("mcts:depth=3")
    with pytest.raises(ConfigError, match="not a valid int"):
        REGISTRY.make("mcts:simulations=lots")
    with pytest.raises(ConfigError, match="rule"):
        REGISTRY.make("mcts:rule=minimax")
    with pytest.raises(ConfigError, match="budget"):
        REGISTRY.make("mcts:simulations=0")
