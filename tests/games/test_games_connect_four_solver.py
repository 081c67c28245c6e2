"""The connect-four solver against brute force over the engine, and hand-checked positions."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from paiju.core.errors import ConfigError
from paiju.games.connect_four import ConnectFour, ConnectFourState
from paiju.games.connect_four_solver import DRAW, LOSS, WIN, Solver, format_moves, parse_moves


def _state(moves: list[int]) -> ConnectFourState:
    state = ConnectFour().new_initial_state()
    for column in moves:
        state.apply(column)
    return state


@functools.cache
def _brute(board: str, history: tuple[int, ...]) -> int:
    """Plain negamax over the engine's own rules, no pruning: the mover's result."""
    state = _state(list(history))
    mover = state.current_player()
    best = LOSS
    for column in state.legal_actions():
        child = state.clone()
        child.apply(column)
        if child.is_terminal():
            value = round(child.returns()[mover])
        else:
            value = -_brute(str(child), (*history, column))
        best = max(best, value)
        if best == WIN:
            break
    return best


def _brute_move_values(moves: list[int]) -> dict[int, int]:
    state = _state(moves)
    mover = state.current_player()
    values = {}
    for column in state.legal_actions():
        child = state.clone()
        child.apply(column)
        terminal = child.is_terminal()
        values[column] = round(child.returns()[mover]) if terminal else -_brute(str(child), (*moves, column))
    return values


def _random_positions(count: int, ply: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    found: list[list[int]] = []
    while len(found) < count:
        state, moves = ConnectFour().new_initial_state(), []
        for _ in range(ply):
            legal = state.legal_actions()
            column = int(legal[int(rng.integers(len(legal)))])
            state.apply(column)
            moves.append(column)
            if state.is_terminal():
                break
        if not state.is_terminal():
            found.append(moves)
    return found


def test_solver_agrees_with_brute_force_near_the_end() -> None:
    solver = Solver()
    decided = set()
    for moves in _random_positions(20, 30, seed=2):
        expected = _brute_move_values(moves)
        assert solver.move_values(moves) == expected, format_moves(moves)
        assert solver.solve(moves) == max(expected.values())
        decided.add(max(expected.values()))
    assert decided == {WIN, DRAW, LOSS}  # the sample exercises every result


def test_hand_checked_positions() -> None:
    solver = Solver()
    # x on 0, 1, 2 of the bottom row, o on top of them: x to move wins at column 3 (or not at all)
    moves = [0, 0, 1, 1, 2, 2]
    assert solver.solve(moves) == WIN
    assert solver.nodes == 0  # an immediate win needs no search
    # o to move faces two open ends of x's three in a row (columns 1 and 5): lost
    assert solver.solve([2, 2, 3, 3, 4]) == LOSS
    assert solver.move_values([2, 2, 3, 3, 4]) == dict.fromkeys(range(7), LOSS)


def test_notation_round_trip_and_refusals() -> None:
    assert parse_moves("4453") == [3, 3, 4, 2]
    assert format_moves(parse_moves("1234567")) == "1234567"
    for text in ("", "48", "12a", "0"):
        with pytest.raises(ConfigError, match="not a connect-four position"):
            parse_moves(text)
    solver = Solver()
    with pytest.raises(ConfigError, match="column 0 is full"):
        solver.solve([0] * 7)
    with pytest.raises(ConfigError, match="ends the game"):
        solver.solve([0, 1, 0, 1, 0, 1, 0, 1])
    with pytest.raises(ConfigError, match="not a connect-four column"):
        solver.solve([7])
