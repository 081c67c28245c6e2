"""Tic-tac-toe on the core protocol: a test bed for search, small enough to solve by brute force.

Encoding identical to OpenSpiel's ``tic_tac_toe`` so the two are compared move for move:
cells are actions ``0..8`` row by row (``action = 3 * row + col``), seat 0 plays ``x`` and
moves first, a win is +1/-1 and a full board without a line a draw (0/0).

The board is two 9-bit masks (one per seat), so a clone is four attribute copies and a win
test is a handful of integer ``&`` against the lines through the last cell.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from paiju.core.errors import InvalidNotationError
from paiju.core.protocol import TERMINAL, GameInfo
from paiju.games._grid import DRAW as _DRAW
from paiju.games._grid import (
    MARKS,
    BoardObservation,
    BoardState,
    as_action,
    board_registry,
    replay_observation,
)

_LINES = [
    0b000000111,
    0b000111000,
    0b111000000,  # rows
    0b001001001,
    0b010010010,
    0b100100100,  # columns
    0b100010001,
    0b001010100,  # diagonals
]
_LINES_THROUGH = [[line for line in _LINES if line >> cell & 1] for cell in range(9)]
_FULL = 0b111111111
_EMPTY_CELLS = [tuple(cell for cell in range(9) if not occupied >> cell & 1) for occupied in range(1 << 9)]
"""The empty cells, by occupied-cell mask."""


class TicTacToeObservation(BoardObservation):
    """A tic-tac-toe position as a player sees it (the whole board and history)."""


class TicTacToeState(BoardState):
    """A tic-tac-toe position.

    Attributes:
        _boards: the cells of ``x`` (seat 0) and ``o`` (seat 1) as 9-bit masks, bit = action.
        _player: seat to move, or ``TERMINAL``.
        _winner: None while the game runs, the winning seat, or ``_DRAW``.
        _history: the cells played, in order.
    """

    game: TicTacToe

    __slots__ = ("_boards", "_history", "_player", "_winner", "game")
    observation_type = TicTacToeObservation
    display_name = "tic-tac-toe"

    def _legal_actions(self) -> list[int]:
        return list(_EMPTY_CELLS[self._boards[0] | self._boards[1]])

    def _is_legal(self, action: int) -> bool:
        cell = as_action(action)
        return cell is not None and 0 <= cell < 9 and not (self._boards[0] | self._boards[1]) >> cell & 1

    def _illegal_reason(self, action: int) -> str:
        cell = as_action(action)
        if cell is None:
            return f"tic-tac-toe move {action!r} is not a cell number 0..8"
        if not 0 <= cell < 9:
            return f"tic-tac-toe cell {cell} does not exist (cells are 0..8)"
        return f"tic-tac-toe cell {cell} (row {cell // 3}, col {cell % 3}) is taken in\n{self}"

    def _apply(self, action: int) -> None:
        cell = action if type(action) is int else operator.index(action)  # numpy ints too
        bit = 1 << cell
        player = self._player
        x, o = self._boards
        if player == 0:
            x |= bit
            mine = x
        else:
            o |= bit
            mine = o
        self._boards = (x, o)
        self._history.append(cell)
        for line in _LINES_THROUGH[cell]:
            if mine & line == line:
                self._winner = player
                self._player = TERMINAL
                return
        if x | o == _FULL:
            self._winner = _DRAW
            self._player = TERMINAL
        else:
            self._player = 1 - player

    def action_to_string(self, action: int) -> str:
        """OpenSpiel's notation, ``x(row,col)``, with the mark of the player to move."""
        cell = as_action(action)
        if cell is None or not 0 <= cell < 9:
            raise InvalidNotationError(f"{action!r} is not a tic-tac-toe cell 0..8")
        mark = MARKS[self._player] if self._player in (0, 1) else "?"
        return f"{mark}({cell // 3},{cell % 3})"

    def string_to_action(self, text: str) -> int:
        """Parse ``x(1,2)``, ``(1,2)`` or ``1,2`` into a cell number."""
        body = text.strip().lstrip("xo").strip("() ")
        parts = body.split(",")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise InvalidNotationError(f"{text!r} is not a tic-tac-toe move like 'x(1,2)'")
        row, col = (int(p) for p in parts)
        if not (0 <= row < 3 and 0 <= col < 3):
            raise InvalidNotationError(f"{text!r}: row and column must be 0..2")
        return 3 * row + col

    def __str__(self) -> str:
        x, o = self._boards
        cells = ["x" if x >> i & 1 else "o" if o >> i & 1 else "." for i in range(9)]
        return "\n".join("".join(cells[r * 3 : r * 3 + 3]) for r in range(3))

    def __repr__(self) -> str:
        return f"TicTacToeState(history={self._history})"


class TicTacToe:
    """Tic-tac-toe: the game object (static info, initial state, exact ``sample_state``)."""

    info = GameInfo(
        name="tictactoe",
        num_players=2,
        has_chance=False,
        perfect_information=True,
        utility_range=(-1.0, 1.0),
        max_game_length=9,
        rules_version="1",
        num_distinct_actions=9,
        constant_sum=0.0,
    )

    def new_initial_state(self) -> TicTacToeState:
        return TicTacToeState(self)

    def sample_state(self, observation: Any, rng: np.random.Generator) -> TicTacToeState:
        """The exact state of the observation (nothing is hidden): its history replayed."""
        return replay_observation(TicTacToeState(self), observation, TicTacToeObservation)


REGISTRY = board_registry(TicTacToe(), mcts_simulations=2000)
"""``random`` and ``mcts:simulations=N,...`` for tic-tac-toe."""
