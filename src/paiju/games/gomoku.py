"""Gomoku (five in a row, freestyle) on a configurable board, on the core protocol.

The rules are OpenSpiel's ``gomoku``, so the two are compared move for move: seat 0 (black,
shown ``x``) moves first, a move is a cell ``row * cols + col``, the first player with
``win_length`` (default 5) or more stones in a row, column or diagonal wins +1/-1 (freestyle:
an overline also wins), a full board is a draw. The board may be rectangular
(``Gomoku(rows=9, cols=13)``); OpenSpiel only has square ones.

It is the check that the same search trains on gomoku unchanged (``docs/design.md`` §13): the MCTS
and AlphaZero code never import it. Stones are bit masks laid out with one always-empty guard column
(``bit = row * (cols + 1) + col``), so a run test is a few shift-and-``&`` steps per
direction and no run can wrap from one row into the next.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from paiju.core.agents import AgentRegistry
from paiju.core.errors import ConfigError, InvalidNotationError
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


def _has_run(stones: int, length: int, directions: tuple[int, ...]) -> bool:
    """Whether ``stones`` holds ``length`` in a row along any of the bit ``directions``.

    After each step ``m`` marks the cells that start a run of ``n`` stones; combining it
    with itself shifted by ``s <= n`` cells marks the starts of runs of ``n + s``.
    """
    for d in directions:
        m, n = stones, 1
        while n < length and m:
            s = min(n, length - n)
            m &= m >> (d * s)
            n += s
        if m:
            return True
    return False


class GomokuObservation(BoardObservation):
    """A gomoku position as a player sees it (the whole board and history)."""


class GomokuState(BoardState):
    """A gomoku position.

    Attributes:
        _boards: the stones of black (seat 0) and white (seat 1) as padded bit masks.
        _player: seat to move, or ``TERMINAL``.
        _winner: None while the game runs, the winning seat, or ``_DRAW``.
        _history: the cells played, in order.
    """

    __slots__ = ("_boards", "_history", "_player", "_winner", "game")
    observation_type = GomokuObservation
    display_name = "gomoku"

    game: Gomoku

    def _legal_actions(self) -> list[int]:
        occupied = self._boards[0] | self._boards[1]
        return [cell for cell, bit in enumerate(self.game._bits) if not occupied & bit]

    def _is_legal(self, action: int) -> bool:
        cell = action if type(action) is int else as_action(action)
        g = self.game
        return (
            cell is not None
            and 0 <= cell < g.num_cells
            and not (self._boards[0] | self._boards[1]) & g._bits[cell]
        )

    def _illegal_reason(self, action: int) -> str:
        cell = as_action(action)
        g = self.game
        if cell is None:
            return f"gomoku move {action!r} is not a cell number 0..{g.num_cells - 1}"
        if not 0 <= cell < g.num_cells:
            return f"gomoku cell {cell} does not exist on a {g.rows}x{g.cols} board (0..{g.num_cells - 1})"
        return f"gomoku cell {cell} (row {cell // g.cols}, col {cell % g.cols}) is taken"

    def _apply(self, action: int) -> None:
        cell = action if type(action) is int else operator.index(action)  # numpy ints too
        g = self.game
        bit = g._bits[cell]
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
        if _has_run(mine, g.win_length, g._directions):
            self._winner = player
            self._player = TERMINAL
        elif len(self._history) == g.num_cells:
            self._winner = _DRAW
            self._player = TERMINAL
        else:
            self._player = 1 - player

    def action_to_string(self, action: int) -> str:
        """The mover's mark and ``(row,col)``, e.g. ``x(7,7)``."""
        cell = as_action(action)
        g = self.game
        if cell is None or not 0 <= cell < g.num_cells:
            raise InvalidNotationError(f"{action!r} is not a gomoku cell 0..{g.num_cells - 1}")
        mark = MARKS[self._player] if self._player in (0, 1) else "?"
        return f"{mark}({cell // g.cols},{cell % g.cols})"

    def string_to_action(self, text: str) -> int:
        """Parse ``x(7,7)``, ``(7,7)`` or ``7,7`` into a cell number."""
        g = self.game
        parts = text.strip().lstrip("xo").strip("() ").split(",")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise InvalidNotationError(f"{text!r} is not a gomoku move like 'x(7,7)'")
        row, col = (int(p) for p in parts)
        if not (0 <= row < g.rows and 0 <= col < g.cols):
            raise InvalidNotationError(f"{text!r} is off the {g.rows}x{g.cols} board")
        return row * g.cols + col

    def __str__(self) -> str:
        """One line per row, row 0 first, ``x`` (black) / ``o`` (white) / ``.``."""
        x, o = self._boards
        bits = self.game._bits
        cells = ["x" if x & b else "o" if o & b else "." for b in bits]
        cols = self.game.cols
        return "\n".join("".join(cells[r * cols : (r + 1) * cols]) for r in range(self.game.rows))

    def __repr__(self) -> str:
        return f"GomokuState(rows={self.game.rows}, cols={self.game.cols}, history={self._history})"


MAX_SIDE = 25
"""The longest board side accepted: beyond the 15x15 and 19x19 boards played, with room to
spare (a game option, so it bounds what a command line or a request can ask for)."""


class Gomoku:
    """Gomoku on a ``rows`` x ``cols`` board (default 15 x 15), ``win_length`` in a row wins.

    Attributes:
        rows, cols: the board size.
        win_length: stones in a row needed to win (5 for gomoku; 3 on 3x3 is tic-tac-toe).
        num_cells: ``rows * cols``, the size of the action space.
    """

    def __init__(self, rows: int = 15, cols: int | None = None, win_length: int = 5) -> None:
        cols = rows if cols is None else cols
        for label, value in (("rows", rows), ("cols", cols), ("win_length", win_length)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"gomoku {label} must be an integer, got {value!r}")
        if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
            raise ConfigError(
                f"gomoku board must have 1..{MAX_SIDE} rows and columns, got {rows}x{cols}"
            )
        if not 2 <= win_length <= max(rows, cols):
            raise ConfigError(
                f"gomoku win_length={win_length} must be between 2 and the longer side of the "
                f"{rows}x{cols} board"
            )
        self.rows = rows
        self.cols = cols
        self.win_length = win_length
        self.num_cells = rows * cols
        width = cols + 1  # one guard column per row
        self._bits = [1 << (r * width + c) for r in range(rows) for c in range(cols)]
        self._directions = (1, width, width + 1, width - 1)  # row, column, both diagonals
        self.info = GameInfo(
            name="gomoku",
            num_players=2,
            has_chance=False,
            perfect_information=True,
            utility_range=(-1.0, 1.0),
            max_game_length=self.num_cells,
            rules_version=f"freestyle-{rows}x{cols}-{win_length}",
            num_distinct_actions=self.num_cells,
            constant_sum=0.0,
        )

    def new_initial_state(self) -> GomokuState:
        return GomokuState(self)

    def sample_state(self, observation: Any, rng: np.random.Generator) -> GomokuState:
        """The exact state of the observation (nothing is hidden): its history replayed."""
        return replay_observation(GomokuState(self), observation, GomokuObservation)

    def __repr__(self) -> str:
        return f"Gomoku(rows={self.rows}, cols={self.cols}, win_length={self.win_length})"


def registry_for(game: Gomoku, mcts_simulations: int = 400) -> AgentRegistry:
    """``random`` and ``mcts:simulations=N,...`` for a gomoku board of any size."""
    return board_registry(game, mcts_simulations=mcts_simulations, az=True)


REGISTRY = registry_for(Gomoku())
"""Agents for standard 15 x 15 gomoku."""
