"""Connect four (6 rows x 7 columns) on the core protocol, fast enough for pure-Python search.

Encoding identical to OpenSpiel's ``connect_four``: actions are columns ``0..6``, seat 0
plays ``x`` and moves first, four in a row (horizontal, vertical, diagonal) wins +1/-1, a
full board is a draw.

Why bitboards: OpenSpiel's Python MCTS bot drives the C++ game, so to out-search it from
Python the game itself must be cheap. The position is two integers in the classic layout
(John Tromp's): column ``c`` owns bits ``7c .. 7c+5`` bottom to top, bit ``7c+6`` is an
always-empty guard, so "four in a row" is three shift-and-``&`` steps per direction and no
run can wrap from one column into the next. A clone copies five attributes, and
:meth:`ConnectFourState.playout_returns` plays a uniform random game to the end on local
integers without touching the state (the rollout fast path of the MCTS evaluator).
"""

from __future__ import annotations

import itertools
import operator
import random
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
from paiju.games._grid import RETURNS as _RETURNS

ROWS = 6
COLUMNS = 7
_H = ROWS + 1  # bits per column, including the guard bit
_BOTTOM = [1 << (_H * c) for c in range(COLUMNS)]
_TOP = [1 << (_H * c + ROWS - 1) for c in range(COLUMNS)]
_COLUMN = [((1 << ROWS) - 1) << (_H * c) for c in range(COLUMNS)]
_FULL = sum(_COLUMN)
_TOPS = sum(_TOP)
_ROW = sum(_BOTTOM)  # the bottom cell of every column: shifted by r, row r
_ROW_TEXT = {
    (sum(_BOTTOM[c] for c in range(COLUMNS) if marks[c] == "x"),
     sum(_BOTTOM[c] for c in range(COLUMNS) if marks[c] == "o")): "".join(marks)
    for marks in itertools.product(".xo", repeat=COLUMNS)
}
"""A row's text by its ``x`` and ``o`` stones (as bits of row 0): every board is printed for
its observation, which a search asks for at every node, so rows are looked up, not built."""
_OPEN_COLUMNS = {
    sum(_TOP[c] for c in range(COLUMNS) if full >> c & 1): tuple(
        c for c in range(COLUMNS) if not full >> c & 1
    )
    for full in range(1 << COLUMNS)
}
"""The open columns, by which top cells are taken (``mask & _TOPS``)."""


class ConnectFourObservation(BoardObservation):
    """A connect-four position as a player sees it (the whole board and history)."""


class ConnectFourState(BoardState):
    """A connect-four position.

    Attributes:
        _boards: the stones of ``x`` (seat 0) and ``o`` (seat 1) as bit masks.
        _mask: every occupied cell (``_boards[0] | _boards[1]``), kept for the drop arithmetic.
        _player: seat to move, or ``TERMINAL``.
        _winner: None while the game runs, the winning seat, or ``_DRAW``.
        _history: the columns played, in order.
    """

    game: ConnectFour

    __slots__ = ("_boards", "_history", "_mask", "_player", "_winner", "game")
    observation_type = ConnectFourObservation
    display_name = "connect four"

    def __init__(self, game: ConnectFour) -> None:
        super().__init__(game)
        self._mask = 0

    def _legal_actions(self) -> list[int]:
        return list(_OPEN_COLUMNS[self._mask & _TOPS])

    def _is_legal(self, action: int) -> bool:
        column = action if type(action) is int else as_action(action)
        return column is not None and 0 <= column < COLUMNS and not self._mask & _TOP[column]

    def _illegal_reason(self, action: int) -> str:
        column = as_action(action)
        if column is None:
            return f"connect-four move {action!r} is not a column number 0..6"
        if not 0 <= column < COLUMNS:
            return f"connect-four column {column} does not exist (columns are 0..6)"
        return f"connect-four column {column} is full in\n{self}"

    def _apply(self, action: int) -> None:
        column = action if type(action) is int else operator.index(action)  # numpy ints too
        mask = self._mask
        bit = (mask + _BOTTOM[column]) & _COLUMN[column]  # lowest empty cell of the column
        mask |= bit
        self._mask = mask
        player = self._player
        x, o = self._boards
        if player == 0:
            x |= bit
            mine = x
        else:
            o |= bit
            mine = o
        self._boards = (x, o)
        self._history.append(column)
        # four in a row: horizontal (neighbouring columns), both diagonals, vertical
        if (
            (m := mine & (mine >> _H)) & (m >> (2 * _H))
            or (m := mine & (mine >> (_H - 1))) & (m >> (2 * (_H - 1)))
            or (m := mine & (mine >> (_H + 1))) & (m >> (2 * (_H + 1)))
            or (m := mine & (mine >> 1)) & (m >> 2)
        ):
            self._winner = player
            self._player = TERMINAL
        elif mask == _FULL:
            self._winner = _DRAW
            self._player = TERMINAL
        else:
            self._player = 1 - player

    def clone(self) -> ConnectFourState:
        copy = super().clone()
        copy._mask = self._mask
        return copy

    def playout_returns(self, rnd: random.Random) -> list[float]:
        """Returns of a uniform random game from here; the state itself is left unchanged.

        The rollout fast path of :class:`paiju.algorithms.mcts.RandomRolloutEvaluator`. It
        draws exactly as the generic rollout does (one ``rnd.random()`` per move, picking
        ``legal[int(u * len(legal))]`` from the legal columns in ascending order), so both
        give the same result from the same generator; the tests check that.
        """
        if self._winner is not None:
            return list(_RETURNS[self._winner])
        mask = self._mask
        player = self._player
        mine, theirs = self._boards if player == 0 else self._boards[::-1]
        legal = list(_OPEN_COLUMNS[mask & _TOPS])
        rand = rnd.random
        h1, h2, d1, d2, u1, u2 = _H, 2 * _H, _H - 1, 2 * (_H - 1), _H + 1, 2 * (_H + 1)
        bottom, column_bits, top = _BOTTOM, _COLUMN, _TOP
        while True:
            column = legal[int(rand() * len(legal))]
            bit = (mask + bottom[column]) & column_bits[column]
            mask |= bit
            mine |= bit
            m = mine & (mine >> h1)
            if m & (m >> h2):
                break
            m = mine & (mine >> d1)
            if m & (m >> d2):
                break
            m = mine & (mine >> u1)
            if m & (m >> u2):
                break
            m = mine & (mine >> 1)
            if m & (m >> 2):
                break
            if mask & top[column]:
                legal.remove(column)
                if not legal:
                    return [0.0, 0.0]
            mine, theirs = theirs, mine
            player = 1 - player
        return list(_RETURNS[player])

    def action_to_string(self, action: int) -> str:
        """OpenSpiel's notation: the mover's mark and the column, e.g. ``x3``."""
        column = as_action(action)
        if column is None or not 0 <= column < COLUMNS:
            raise InvalidNotationError(f"{action!r} is not a connect-four column 0..6")
        mark = MARKS[self._player] if self._player in (0, 1) else "?"
        return f"{mark}{column}"

    def string_to_action(self, text: str) -> int:
        """Parse ``x3``, ``o3`` or ``3`` into a column number."""
        body = text.strip().lstrip("xo")
        if not body.isdigit() or not 0 <= int(body) < COLUMNS:
            raise InvalidNotationError(f"{text!r} is not a connect-four move like 'x3' (columns 0..6)")
        return int(body)

    def __str__(self) -> str:
        """The board as OpenSpiel prints it: the top row first, ``x``/``o``/``.``."""
        x, o = self._boards
        return "\n".join(_ROW_TEXT[(x >> row) & _ROW, (o >> row) & _ROW] for row in reversed(range(ROWS)))

    def __repr__(self) -> str:
        return f"ConnectFourState(history={self._history})"


class ConnectFour:
    """Connect four: the game object (static info, initial state, exact ``sample_state``)."""

    info = GameInfo(
        name="connect_four",
        num_players=2,
        has_chance=False,
        perfect_information=True,
        utility_range=(-1.0, 1.0),
        max_game_length=ROWS * COLUMNS,
        rules_version="1",
        num_distinct_actions=COLUMNS,
        constant_sum=0.0,
    )

    def new_initial_state(self) -> ConnectFourState:
        return ConnectFourState(self)

    def sample_state(self, observation: Any, rng: np.random.Generator) -> ConnectFourState:
        """The exact state of the observation (nothing is hidden): its history replayed."""
        return replay_observation(ConnectFourState(self), observation, ConnectFourObservation)


REGISTRY = board_registry(ConnectFour(), mcts_simulations=1000, az=True)
"""``random`` and ``mcts:simulations=N,...`` for connect four."""
