"""Board shapes of yuxi: the 3×3, 4×4 and 6×4 grids, cell names and neighbourhoods.

Cells are numbered row by row, ``index = row * width + column``; a cell is named like a
chess square, column letter then row number counted from the top (``a1`` is the top-left
cell, ``c3`` the bottom-right cell of the 3×3 board). Adjacency is orthogonal (up, down,
left, right), the only adjacency any card speaks of. Everything here is precomputed once per
shape so effects look neighbours up instead of computing them in the hot path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paiju.core.errors import ConfigError, InvalidNotationError

MAX_CELLS = 24
"""Cells of the largest board (6×4): the width of the fixed action space's target axis."""


@dataclass(frozen=True)
class BoardShape:
    """One board size: its name (``"4x4"``), dimensions, hand size and minimum deck size."""

    name: str
    width: int
    height: int
    hand_size: int
    """Cards dealt to each player at the start (the game never draws afterwards)."""
    min_deck: int
    """Smallest deck allowed on this board (player guides of the original: 15 / 25 / 35)."""
    neighbours: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    rows: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    columns: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        w, h = self.width, self.height
        nbrs = []
        for cell in range(w * h):
            r, c = divmod(cell, w)
            cand = [(r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c)]
            nbrs.append(tuple(sorted(rr * w + cc for rr, cc in cand if 0 <= rr < h and 0 <= cc < w)))
        object.__setattr__(self, "neighbours", tuple(nbrs))
        object.__setattr__(self, "rows", tuple(tuple(r * w + c for c in range(w)) for r in range(h)))
        object.__setattr__(self, "columns", tuple(tuple(r * w + c for r in range(h)) for c in range(w)))

    @property
    def cells(self) -> int:
        return self.width * self.height

    def row_of(self, cell: int) -> tuple[int, ...]:
        return self.rows[cell // self.width]

    def column_of(self, cell: int) -> tuple[int, ...]:
        return self.columns[cell % self.width]

    def cell_name(self, cell: int) -> str:
        """``0 -> "a1"``; raises :class:`InvalidNotationError` for a cell off this board."""
        if not 0 <= cell < self.cells:
            raise InvalidNotationError(f"cell {cell} is not on the {self.name} board (0..{self.cells - 1})")
        r, c = divmod(cell, self.width)
        return f"{'abcdef'[c]}{r + 1}"

    def parse_cell(self, text: str) -> int:
        """``"b2" -> 5`` on the 4×4 board; the inverse of :meth:`cell_name`."""
        t = text.strip().lower()
        if len(t) != 2 or t[0] not in "abcdef"[: self.width] or not t[1].isdigit():
            raise InvalidNotationError(
                f"{text!r} is not a cell of the {self.name} board "
                f"(columns a-{'abcdef'[self.width - 1]}, rows 1-{self.height})"
            )
        r = int(t[1]) - 1
        if not 0 <= r < self.height:
            raise InvalidNotationError(f"{text!r}: row {t[1]} is off the {self.name} board (1-{self.height})")
        return r * self.width + "abcdef".index(t[0])


BOARDS: dict[str, BoardShape] = {
    "3x3": BoardShape("3x3", 3, 3, hand_size=4, min_deck=15),
    "4x4": BoardShape("4x4", 4, 4, hand_size=6, min_deck=25),
    "6x4": BoardShape("6x4", 6, 4, hand_size=8, min_deck=35),
}


def board_shape(name: str) -> BoardShape:
    """The shape named ``name`` (``"3x3"``, ``"4x4"`` or ``"6x4"``); anything else is a ConfigError."""
    try:
        return BOARDS[name.strip().lower().replace("×", "x")]
    except (KeyError, AttributeError):
        raise ConfigError(f"unknown yuxi board {name!r}; boards: {', '.join(BOARDS)}") from None
