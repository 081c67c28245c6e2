"""A connect-four solver, for measuring agents against perfect play (never a training target).

``solve(moves)`` gives the game-theoretic result of a position for the side to move (+1 win,
0 draw, -1 loss: the *weak* solution, which is what "did the agent keep the best result?"
needs); ``move_values(moves)`` gives it for every legal move, so a move is optimal when its
value equals the best. Positions are the columns played so far (0-based), the same actions
as :mod:`paiju.games.connect_four`; the solver keeps its own bitboards, so it checks the
engine rather than sharing its code.

The method is Pascal Pons's, as described in his connect-four solver tutorial (2017):
negamax with alpha-beta on null windows, a transposition table of bounds keyed by the
position, moves that would hand the opponent an immediate win never tried (a position with
two open threats against the mover is lost without search), and moves ordered by how many
winning cells they create, centre columns first. Bitboard layout as the engine's: column
``c`` owns bits ``7c .. 7c+5`` bottom to top and bit ``7c+6`` is an empty guard.

Cost: pure Python, about 10-30 us a node. Late middle-game positions (ply 12 and after)
solve in well under a second to a few seconds each; openings would take hours and are not
what it is for.
"""

from __future__ import annotations

from collections.abc import Sequence

from paiju.core.errors import ConfigError

ROWS = 6
COLUMNS = 7
_H = ROWS + 1
_BOTTOM = [1 << (_H * c) for c in range(COLUMNS)]
_TOP = [1 << (_H * c + ROWS - 1) for c in range(COLUMNS)]
_COLUMN = [((1 << ROWS) - 1) << (_H * c) for c in range(COLUMNS)]
_BOARD = sum(_COLUMN)
_BOTTOM_ROW = sum(_BOTTOM)
_ORDER = (3, 2, 4, 1, 5, 0, 6)
"""Columns by how many lines pass through them: the centre first."""
CELLS = ROWS * COLUMNS
WIN, DRAW, LOSS = 1, 0, -1


def _winning_cells(position: int, mask: int) -> int:
    """The empty cells where ``position``'s stones would complete four in a row."""
    r = (position << 1) & (position << 2) & (position << 3)  # vertical: three below
    for shift in (_H, _H - 1, _H + 1):  # horizontal, the two diagonals
        p = (position << shift) & (position << 2 * shift)
        r |= p & (position << 3 * shift)
        r |= p & (position >> shift)
        p = (position >> shift) & (position >> 2 * shift)
        r |= p & (position << shift)
        r |= p & (position >> 3 * shift)
    return r & (_BOARD ^ mask)


def _popcount(x: int) -> int:
    return x.bit_count()


class Solver:
    """Weak connect-four solver with a transposition table kept between calls.

    Args:
        table_limit: entries the transposition table may hold before it is cleared
            (memory: roughly 150 bytes an entry).
    """

    def __init__(self, table_limit: int = 2_000_000) -> None:
        self.table_limit = table_limit
        self._lower: dict[int, int] = {}
        self._upper: dict[int, int] = {}
        self.nodes = 0
        """Positions searched since the solver was made (a cost measure)."""

    # ---- positions --------------------------------------------------------------------------------
    @staticmethod
    def position(moves: Sequence[int]) -> tuple[int, int]:
        """``(stones of the side to move, every stone)`` after ``moves``; refuses a full
        column, a column outside 0..6 and a position where the game is already over."""
        position = mask = 0
        for i, column in enumerate(moves):
            if isinstance(column, bool) or not isinstance(column, int) or not 0 <= column < COLUMNS:
                raise ConfigError(f"move {i + 1}: {column!r} is not a connect-four column 0..6")
            if mask & _TOP[column]:
                raise ConfigError(f"move {i + 1}: column {column} is full")
            bit = (mask + _BOTTOM[column]) & _COLUMN[column]
            if _winning_cells(position, mask) & bit:
                raise ConfigError(f"move {i + 1} (column {column}) ends the game: nothing left to solve")
            position ^= mask  # the side to move changes
            mask |= bit
        if mask == _BOARD:
            raise ConfigError("the board is full: nothing left to solve")
        return position, mask

    # ---- solving ----------------------------------------------------------------------------------
    def solve(self, moves: Sequence[int]) -> int:
        """The result for the side to move after ``moves`` with perfect play on both sides."""
        position, mask = self.position(moves)
        return self._solve(position, mask)

    def move_values(self, moves: Sequence[int]) -> dict[int, int]:
        """The result for the side to move of each of its legal moves (column -> +1/0/-1)."""
        position, mask = self.position(moves)
        values: dict[int, int] = {}
        mine = _winning_cells(position, mask)
        for column in range(COLUMNS):
            if mask & _TOP[column]:
                continue
            bit = (mask + _BOTTOM[column]) & _COLUMN[column]
            if mine & bit:
                values[column] = WIN
                continue
            child_mask = mask | bit
            if child_mask == _BOARD:
                values[column] = DRAW
                continue
            values[column] = -self._solve(position ^ mask, child_mask)  # the opponent's view
        return values

    def optimal_moves(self, moves: Sequence[int]) -> list[int]:
        """The legal moves that keep the best result."""
        values = self.move_values(moves)
        best = max(values.values())
        return sorted(c for c, v in values.items() if v == best)

    def _solve(self, position: int, mask: int) -> int:
        playable = (mask + _BOTTOM_ROW) & _BOARD
        if _winning_cells(position, mask) & playable:
            return WIN
        if len(self._lower) + len(self._upper) > self.table_limit:
            self._lower.clear()
            self._upper.clear()
        moves = _popcount(mask)
        if self._negamax(position, mask, moves, DRAW, WIN) > DRAW:  # can the mover win?
            return WIN
        if self._negamax(position, mask, moves, LOSS, DRAW) < DRAW:  # must the mover lose?
            return LOSS
        return DRAW

    def _negamax(self, position: int, mask: int, moves: int, alpha: int, beta: int) -> int:
        """Alpha-beta value for the mover, who has no winning move on the spot (callers check).

        Fail-soft within [LOSS, WIN]: a result <= alpha is an upper bound, >= beta a lower one.
        """
        self.nodes += 1
        playable = (mask + _BOTTOM_ROW) & _BOARD
        opponent = position ^ mask
        threats = _winning_cells(opponent, mask)
        forced = playable & threats
        if forced:
            if forced & (forced - 1):  # two cells to block at once
                return LOSS
            playable = forced
        playable &= ~(threats >> 1)  # never fill the cell under an opponent's winning cell
        if not playable:
            return LOSS
        if moves >= CELLS - 2:  # neither side can complete a line in the last two stones
            return DRAW
        key = position + mask
        upper = self._upper.get(key)
        if upper is not None and upper < beta:
            beta = upper
            if alpha >= beta:
                return beta
        lower = self._lower.get(key)
        if lower is not None and lower > alpha:
            alpha = lower
            if alpha >= beta:
                return alpha
        floor = alpha  # a result above it is exact, at or below it only an upper bound
        best = LOSS
        for bit in _ordered(position, mask, playable):
            value = -self._negamax(opponent, mask | bit, moves + 1, -beta, -alpha)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        self._lower[key] = value
                        return value
        self._upper[key] = best
        if best > floor:
            self._lower[key] = best
        return best


def _ordered(position: int, mask: int, playable: int) -> list[int]:
    """The playable cells, those that open the most winning cells for the mover first
    (ties: centre columns first)."""
    candidates: list[tuple[int, int, int]] = []
    for rank, column in enumerate(_ORDER):
        bit = playable & _COLUMN[column]
        if bit:
            candidates.append((-_popcount(_winning_cells(position | bit, mask)), rank, bit))
    candidates.sort()
    return [bit for _, _, bit in candidates]


def parse_moves(text: str) -> list[int]:
    """A position in Pons's notation (the columns played, 1-based, e.g. ``4453``) as 0-based columns."""
    body = text.strip()
    if not body.isdigit() or any(ch in "089" for ch in body):
        raise ConfigError(f"{text!r} is not a connect-four position: columns 1..7, e.g. 4453")
    return [int(ch) - 1 for ch in body]


def format_moves(moves: Sequence[int]) -> str:
    """The columns played in Pons's notation (1-based): the inverse of :func:`parse_moves`."""
    return "".join(str(c + 1) for c in moves)
