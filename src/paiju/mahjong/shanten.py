"""Shanten (向聽數) and effective tiles (進張) of regular hands of any size 3k+1 / 3k+2.

A regular hand is k sets (chow / pung) and one pair. Taiwan 16-tile mahjong has no special
shapes (no seven pairs, no thirteen orphans: ``docs/mahjong-rules.md`` §5), so this
is the only shape. Exposed melds are already complete sets, so the shanten of a player is the
shanten of his *concealed* tiles alone with ``k = len(concealed) // 3``: a 16/17-tile
concealed hand needs 5 sets and a pair, 13/14 tiles (one exposed meld) need 4, and so on.

Definition used (the standard one, equal to the PyPI ``mahjong`` package's regular-hand
value, which the tests check on many random hands)::

    distance(H) = min over complete hands W of |W - H|     (tiles W needs that H lacks)
    shanten(H)  = distance(H) - 1

where W ranges over the multisets of k sets + 1 pair with at most 4 copies of each kind.
So a complete hand has shanten -1, a ready hand (聽牌) 0, and a tile you hold four of can
never be waited on: that copy limit is exactly what makes naive "melds and partial melds"
counts wrong on hands like ``1111m234p567p789p``.

How it is fast: ``distance`` splits over the four suits, because a set never mixes suits.
For every count vector of one suit (5^9 of them; 5^7 for honours) a table gives the
distance to "m sets (+ a pair)" for m = 0..5, built with a few vectorised numpy passes
(about one second; see :func:`build_distance_table`) and kept as a one-byte row-id array
(the 1.95 million suit vectors have only 198 distinct rows). A hand's distance is the
min-plus combination of its four suit rows; those combinations close after 130 more rows, so
all of them fit three small tables too. Suit tables and combination tables are built ahead of
time and shipped (``shanten_tables.xz``, 37 kB, read in ~3 ms at the first query, the suit
table split at ranks 7/8 to keep it small; regenerate with ``scripts/build_shanten_tables.py``):
a lookup is then four memo hits and three array indexings, from the first call
(``benchmarks/mahjong_shanten.py`` and ``benchmarks/first_call.py`` compare the speed with the
``mahjong`` package).
"""

from __future__ import annotations

import re
import sys
from _thread import allocate_lock  # threading's Lock without importing threading
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import mul
from pathlib import Path
from typing import TYPE_CHECKING

from paiju.core.errors import InvalidNotationError
from paiju.mahjong.tiles import NUM_KINDS, parse_counts, tile_name

if TYPE_CHECKING:  # numpy is imported where a table is built, never for a query
    import numpy as np

MAX_SETS = 5
"""Most sets a concealed hand can still need: 5 sets + pair = the 17-tile Taiwan hand."""
MAX_TILES = 3 * MAX_SETS + 2
"""17: the largest concealed hand (a 16-tile hand plus the drawn tile)."""
COPIES = 4

_INF = 31
"""Distance of an impossible class (real distances are <= 17; 31 packs a row into 5-bit fields)."""
_NCLS = 2 * (MAX_SETS + 1)
"""Columns of a distance row: index ``2 * m + p`` = m sets, p (0/1) pairs."""


# ---------------------------------------------------------------------------------------------
# Table construction
# ---------------------------------------------------------------------------------------------
Meld = tuple[tuple[int, int], ...]
"""A set as (axis, copies) pairs inside one suit: a pung ``((r, 3),)``, a chow three ``(r+i, 1)``."""


def _slices(n_axes: int, meld: Meld, upper: bool) -> tuple[slice, ...]:
    out = [slice(None)] * n_axes
    for axis, k in meld:
        out[axis] = slice(k, COPIES + 1) if upper else slice(0, COPIES + 1 - k)
    return tuple(out)


def build_distance_table(n_axes: int, melds: Sequence[Meld], max_sets: int = MAX_SETS) -> np.ndarray:
    """Distance of every count vector of one suit to "m sets + p pairs", for all m, p.

    Needs numpy (imported here: queries read the shipped tables and never load it).
    Returns an int8 array of shape ``(2 * (max_sets + 1), 5 ** n_axes)``: entry
    ``[2 * m + p, v]`` is ``min_W sum_i max(W_i - v_i, 0)`` over the complete sub-hands W
    of that suit with m sets and p pairs (each kind at most 4 times), where ``v`` is the
    base-5 index ``sum v_i * 5 ** (n_axes - 1 - i)``. Impossible classes read ``_INF``.

    Two vectorised steps, both exact:

    1. the indicator of the complete sub-hands of each class, by shifting the class with one
       set fewer by each set (and each pair), clipped at 4 copies;
    2. the distance transform. The cost ``sum_i max(W_i - v_i, 0)`` is separable over the
       axes, so it is computed one axis at a time: along an axis,
       ``new[c] = min(min_{w <= c} D[w], new[c + 1] + 1)`` (a cumulative minimum for the
       tiles already held, then a backward pass paying one per missing copy).
    """
    import numpy as np

    shape = (COPIES + 1,) * n_axes
    ncls = 2 * (max_sets + 1)
    present = np.zeros((ncls, *shape), dtype=bool)
    present[(0,) + (0,) * n_axes] = True
    pairs: list[Meld] = [((r, 2),) for r in range(n_axes)]
    for m in range(max_sets + 1):
        if m:
            for meld in melds:
                source = present[2 * m - 2][_slices(n_axes, meld, False)]
                present[2 * m][_slices(n_axes, meld, True)] |= source
        for pair in pairs:
            present[2 * m + 1][_slices(n_axes, pair, True)] |= present[2 * m][_slices(n_axes, pair, False)]
    size = (COPIES + 1) ** n_axes
    dist = np.where(present, np.int8(0), np.int8(_INF)).reshape(ncls, size)
    tmp = np.empty(ncls * size // (COPIES + 1), dtype=np.int8)
    for axis in range(n_axes):
        view = dist.reshape(ncls * (COPIES + 1) ** axis, COPIES + 1, (COPIES + 1) ** (n_axes - 1 - axis))
        plus = tmp.reshape(view.shape[0], view.shape[2])
        for c in range(1, COPIES + 1):
            np.minimum(view[:, c], view[:, c - 1], out=view[:, c])
        for c in range(COPIES - 1, -1, -1):
            np.add(view[:, c + 1], 1, out=plus)
            np.minimum(view[:, c], plus, out=view[:, c])
    np.minimum(dist, _INF, out=dist)
    return dist


SUIT_MELDS: tuple[Meld, ...] = tuple(((r, 3),) for r in range(9)) + tuple(
    ((r, 1), (r + 1, 1), (r + 2, 1)) for r in range(7)
)
"""The 16 sets inside a numbered suit: 9 pungs, 7 chows."""
HONOUR_MELDS: tuple[Meld, ...] = tuple(((r, 3),) for r in range(7))
"""Honours only form pungs (``docs/mahjong-rules.md`` §3: honours never chow)."""


_SPLITS = tuple(
    tuple(
        (2 * m1 + p1, 2 * (m - m1) + p - p1)
        for m1 in range(m + 1)
        for p1 in range(p + 1)
    )
    for m in range(MAX_SETS + 1)
    for p in (0, 1)
)
"""_SPLITS[2 * m + p]: the ways (column of a, column of b) to split m sets and p pairs."""


def _combine(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Min-plus product of two distance rows (the sets and the pair split between them)."""
    return tuple(min(min([a[i] + b[k] for i, k in splits]), _INF) for splits in _SPLITS)


TABLE_FILE = Path(__file__).with_name("shanten_tables.xz")
"""The shipped tables (:func:`write_tables` makes it; ``scripts/build_shanten_tables.py``)."""
_MAGIC = b"paiju shanten tables 3\n"
_SUIT_SIZE = (COPIES + 1) ** 9
_HONOUR_SIZE = (COPIES + 1) ** 7
_TAIL = (COPIES + 1) ** 2
"""Count vectors of a suit's last two ranks (8 and 9): the shipped suit table is split there.

Of the 5^7 vectors of ranks 1-7 only 2,914 behave differently (give a different row for some
ranks 8-9), so the file holds a class id per head (5^7) and a row id per class and tail
(2,914 x 25): 0.23 MB instead of the 1.95 MB table, which xz then reads in a third of the time.
"""


def _combination_tables(rows: list[tuple[int, ...]]) -> tuple[list[tuple[int, ...]], bytes, bytes, bytes]:
    """The combinations of the per-suit rows a hand's distance needs, all of them, with numpy.

    ``rows`` are the distinct rows of the suit and honour tables (ids ``0 .. b - 1``).
    Returns the new rows the combinations make (ids ``b ..``) and three little-endian tables:
    ``first[a * b + c]`` = id of ``_combine(row a, row c)`` (2 bytes), ``second[i * b + c]`` =
    id of ``_combine(row i, row c)`` for every row i (2 bytes), and ``final[(i * b + z) * 6 +
    sets]`` = the distance of row i with honour row z needing ``sets`` sets (1 byte).
    The combined rows close quickly: a few hundred, so every table is small.
    """
    import numpy as np

    base = np.array(rows, dtype=np.int16)

    def combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.full((len(a), len(b), _NCLS), _INF, dtype=np.int16)
        for j, splits in enumerate(_SPLITS):
            for i, k in splits:
                np.minimum(out[:, :, j], a[:, None, i] + b[None, :, k], out=out[:, :, j])
        return np.minimum(out, _INF).reshape(-1, _NCLS)

    first = combine(base, base)
    made = np.unique(first, axis=0)
    second_made = np.unique(combine(made, base), axis=0)
    known = {row: i for i, row in enumerate(rows)}
    new_rows: list[tuple[int, ...]] = []
    for row in map(tuple, np.unique(np.concatenate([made, second_made]), axis=0).tolist()):
        if row not in known:
            known[row] = len(rows) + len(new_rows)
            new_rows.append(row)
    every = np.array(rows + new_rows, dtype=np.int16)

    def ids(table: np.ndarray) -> bytes:
        return np.array([known[tuple(r)] for r in table.tolist()], dtype="<u2").tobytes()

    second = combine(every, base)
    final = np.full((len(every), len(base), MAX_SETS + 1), _INF, dtype=np.int16)
    for sets in range(MAX_SETS + 1):
        for m in range(sets + 1):
            for p in (0, 1):
                part = every[:, None, 2 * m + p] + base[None, :, 2 * (sets - m) + 1 - p]
                np.minimum(final[:, :, sets], part, out=final[:, :, sets])
    final = np.minimum(final, _INF).astype(np.uint8)
    return new_rows, ids(first), ids(second), final.tobytes()


def _split_suit_table(suit_ids: array) -> tuple[int, bytes, bytes]:
    """The suit table as classes of its heads (ranks 1-7) and rows per class and tail (8-9).

    Returns the number of classes, the class id of every head (2 bytes, little-endian, base-5
    order) and the row id of every class and tail (``tail[c * 25 + t]``). Two heads share a
    class when they give the same row for every tail, so ``tail[head_class[i // 25] * 25 + i %
    25] == suit_ids[i]`` for every index (classes numbered in the sorted order of their rows).
    """
    import numpy as np

    by_head = np.frombuffer(suit_ids.tobytes(), dtype=np.uint8).reshape(-1, _TAIL)
    classes, head_class = np.unique(by_head, axis=0, return_inverse=True)
    return len(classes), head_class.reshape(-1).astype("<u2").tobytes(), classes.tobytes()


def table_bytes() -> bytes:
    """The tables as the shipped file holds them, uncompressed, from a fresh build.

    Layout: a magic line; the number of distinct rows of the suit and honour tables, of the
    rows their combinations add and of the suit table's head classes (2 bytes each,
    little-endian); every row as ``_NCLS`` bytes; the suit table split by
    :func:`_split_suit_table` (a class per head, a row id per class and tail); one row id byte
    per honour vector (5^7, base-5 order); then the three combination tables of
    :func:`_combination_tables`. Row ids of the suit and honour tables fit a byte: there are
    under 200 distinct rows.
    """
    tables = ShantenTables(load=False)
    rows = tables.rows[: tables.n_base]
    if len(rows) > 255:
        raise AssertionError(f"{len(rows)} distinct rows do not fit the one-byte row ids")
    new_rows, first, second, final = _combination_tables(rows)
    n_class, head_class, tail = _split_suit_table(tables.suit_ids)
    header = _MAGIC + b"".join(n.to_bytes(2, "little") for n in (len(rows), len(new_rows), n_class))
    flat = bytes(v for row in rows + new_rows for v in row)
    return header + flat + head_class + tail + tables.honour_ids.tobytes() + first + second + final


def write_tables(path: Path = TABLE_FILE) -> None:
    """Write the shipped table file (xz: about 37 kB, read in a few milliseconds)."""
    import lzma

    path.write_bytes(lzma.compress(table_bytes(), preset=9))


def _u16(data: bytes) -> array:
    out = array("H", data)
    if sys.byteorder == "big":
        out.byteswap()  # the file is little-endian
    return out


class _Shipped:
    """The contents of the shipped table file, checked for size (xz checks its CRC64)."""

    def __init__(self, data: bytes) -> None:
        n = len(_MAGIC)
        if data[:n] != _MAGIC:
            raise ValueError("not a paiju shanten table file")
        n_base, n_new, n_class = (int.from_bytes(data[i : i + 2], "little") for i in range(n, n + 6, 2))
        n_all = n_base + n_new
        sizes = (
            n_all * _NCLS, 2 * (_SUIT_SIZE // _TAIL), n_class * _TAIL, _HONOUR_SIZE, 2 * n_base * n_base,
            2 * n_all * n_base, n_all * n_base * (MAX_SETS + 1),
        )
        if len(data) != n + 6 + sum(sizes):
            raise ValueError("paiju shanten table file of the wrong size")
        parts, at = [], n + 6
        for size in sizes:
            parts.append(data[at : at + size])
            at += size
        flat = parts[0]
        self.rows = [tuple(flat[i : i + _NCLS]) for i in range(0, len(flat), _NCLS)]
        self.n_base = n_base
        self.head_class, self.tail = _u16(parts[1]), parts[2]
        self.honour_ids = array("B", parts[3])
        self.first, self.second, self.final = _u16(parts[4]), _u16(parts[5]), array("B", parts[6])


def _read_tables(path: Path) -> _Shipped | None:
    """The shipped file's tables; None if it is missing or damaged (then they are rebuilt)."""
    import lzma

    try:
        return _Shipped(lzma.decompress(path.read_bytes()))
    except (OSError, lzma.LZMAError, ValueError):
        return None


class ShantenTables:
    """The per-suit tables and their combinations (one instance, made at first use).

    Read from the shipped file (a few milliseconds) unless ``load=False`` or the file is
    unreadable; then the suit tables are built afresh with numpy (about a second) and the
    combinations are computed as they are met and memoised. ``distance`` uses the shipped
    combination tables when they are there (three array lookups, nothing to fill); the
    search's ``pair``/``final`` memos work on the same row ids either way.
    """

    def __init__(self, load: bool = True) -> None:
        self.rows: list[tuple[int, ...]] = []
        self._row_ids: dict[tuple[int, ...], int] = {}
        shipped = _read_tables(TABLE_FILE) if load else None
        if shipped is not None:
            for row in shipped.rows:
                self._intern(row)
        # the suit table: whole (built here, or made from the split once a search asks for
        # it), else as the shipped split, enough for the string API's lookups
        self._suit_ids: array | None = None
        self._head_class: array = array("H")
        self._tail = b""
        if shipped is not None and len(self.rows) == len(shipped.rows):
            self.n_base = shipped.n_base
            self._head_class, self._tail = shipped.head_class, shipped.tail
            self.honour_ids = shipped.honour_ids
            self.dense: tuple[array, array, array] | None = (shipped.first, shipped.second, shipped.final)
        else:
            self.rows, self._row_ids = [], {}
            import numpy as np

            suit = build_distance_table(9, SUIT_MELDS)
            honour = build_distance_table(7, HONOUR_MELDS)
            # array('B'): a byte per entry, and indexing returns plain ints (fast in the search)
            self._suit_ids = array("B", self._intern_table(suit).astype(np.uint8).tobytes())
            self.honour_ids = array("B", self._intern_table(honour).astype(np.uint8).tobytes())
            self.n_base = len(self.rows)
            self.dense = None
        self.suit_cache: dict[tuple[int, ...], int] = {}
        self.honour_cache: dict[tuple[int, ...], int] = {}
        self.digit_rows: dict[str | None, int] = {}
        self.honour_digit_rows: dict[str | None, int] = {}
        self.pair_cache: dict[int, int] = {}
        self.final_cache: dict[int, int] = {}

    def _intern(self, row: tuple[int, ...]) -> int:
        rid = self._row_ids.get(row)
        if rid is None:
            rid = len(self.rows)
            self.rows.append(row)
            self._row_ids[row] = rid
        return rid

    def _intern_table(self, table: np.ndarray) -> np.ndarray:
        """Replace every column by the id of its (interned) row; few distinct rows exist."""
        import numpy as np

        packed = np.zeros(table.shape[1], dtype=np.int64)
        for j in range(table.shape[0]):
            packed = (packed << 5) | table[j].astype(np.int64)
        uniq, inverse = np.unique(packed, return_inverse=True)
        ids = np.empty(len(uniq), dtype=np.int32)
        for u, value in enumerate(uniq.tolist()):
            row = tuple((value >> (5 * (table.shape[0] - 1 - j))) & 31 for j in range(table.shape[0]))
            ids[u] = self._intern(row)
        return ids[inverse.reshape(-1)]

    @property
    def suit_ids(self) -> array:
        """Row id of every suit vector (5^9, base-5 index): what the searches index directly.

        Made from the shipped split at the first use (a few milliseconds), not at loading: the
        string API's lookups read the split (:meth:`suit_id`).
        """
        if self._suit_ids is None:
            tail = self._tail
            rows = [tail[i : i + _TAIL] for i in range(0, len(tail), _TAIL)]
            self._suit_ids = array("B", b"".join(map(rows.__getitem__, self._head_class)))
        return self._suit_ids

    def suit_id(self, index: int) -> int:
        """Row id of the suit vector of base-5 index ``index`` (0 <= index < 5^9)."""
        whole = self._suit_ids
        if whole is not None:
            return whole[index]
        head, tail = divmod(index, _TAIL)
        return self._tail[self._head_class[head] * _TAIL + tail]

    # -- lookups ----------------------------------------------------------------------------
    def suit_row(self, key: tuple[int, ...]) -> int:
        rid = self.suit_cache.get(key)
        if rid is None:
            rid = self.suit_id(_base5(key))
            self.suit_cache[key] = rid
        return rid

    def honour_row(self, key: tuple[int, ...]) -> int:
        rid = self.honour_cache.get(key)
        if rid is None:
            rid = self.honour_ids[_base5(key)]
            self.honour_cache[key] = rid
        return rid

    def digit_row(self, digits: str | None, honours: bool) -> int:
        """Row id of one suit written as its digits (None: no tile); -1 beyond four copies.

        ``digits`` holds only the suit's digits (1-9, honours 1-7), in any order. A fresh
        process meets most suits for the first time, so this is on the first call's path:
        the base-5 index is a sum of place values (no count vector is built).
        """
        if digits is None:
            index = 0
        elif len(digits) > COPIES and max(map(digits.count, digits)) > COPIES:
            return -1  # a fifth copy would carry into the next place value
        else:
            index = sum(map((_HONOUR_PLACE if honours else _SUIT_PLACE).__getitem__, digits))
        rid = self.honour_ids[index] if honours else self.suit_id(index)
        (self.honour_digit_rows if honours else self.digit_rows)[digits] = rid
        return rid

    def pair(self, a: int, b: int) -> int:
        key = (a << 20) | b
        rid = self.pair_cache.get(key)
        if rid is None:
            rid = self._intern(_combine(self.rows[a], self.rows[b]))
            self.pair_cache[key] = rid
        return rid

    def final(self, suited: int, honours: int, sets: int) -> int:
        key = (suited << 24) | (honours << 4) | sets
        d = self.final_cache.get(key)
        if d is None:
            a, h = self.rows[suited], self.rows[honours]
            d = min(
                a[2 * m + p] + h[2 * (sets - m) + 1 - p] for m in range(sets + 1) for p in (0, 1)
            )
            self.final_cache[key] = d
        return d

    def distance(self, counts: Sequence[int], sets: int) -> int:
        """Distance of a hand (34 counts, values already known valid) needing ``sets`` sets."""
        c = counts if type(counts) is tuple else tuple(counts)  # tuple slices are cheap dict keys
        sc = self.suit_cache
        m = sc.get(c[0:9])
        if m is None:
            m = self.suit_row(c[0:9])
        p = sc.get(c[9:18])
        if p is None:
            p = self.suit_row(c[9:18])
        s = sc.get(c[18:27])
        if s is None:
            s = self.suit_row(c[18:27])
        z = self.honour_cache.get(c[27:34])
        if z is None:
            z = self.honour_row(c[27:34])
        if self.dense is not None:
            first, second, final = self.dense
            b = self.n_base
            return final[(second[first[m * b + p] * b + s] * b + z) * (MAX_SETS + 1) + sets]
        pc = self.pair_cache
        mp = pc.get((m << 20) | p)
        if mp is None:
            mp = self.pair(m, p)
        mps = pc.get((mp << 20) | s)
        if mps is None:
            mps = self.pair(mp, s)
        d = self.final_cache.get((mps << 24) | (z << 4) | sets)
        if d is None:
            d = self.final(mps, z, sets)
        return d

    def distances_after_draw(
        self, index: Sequence[int], sets: int, kinds: Iterable[int] = range(NUM_KINDS)
    ) -> list[int]:
        """Distance (shanten + 1) after drawing each of ``kinds`` into the hand at ``index``: a
        search's chance node. One entry per kind of the 34 (kinds not asked for, and kinds held
        four times, get 99). The three suits a draw leaves alone are combined once, so each
        kind costs a few dict probes."""
        sid, hid, pc, fc = self.suit_ids, self.honour_ids, self.pair_cache, self.final_cache
        rows = [sid[index[0]], sid[index[1]], sid[index[2]], hid[index[3]]]
        other = (self.pair(rows[1], rows[2]), self.pair(rows[0], rows[2]), self.pair(rows[0], rows[1]))
        numbered = self.pair(other[2], rows[2])
        z_key = (rows[3] << 4) | sets
        out = [99] * NUM_KINDS
        for t in kinds:
            suit = KIND_SUIT[t]
            step = KIND_STEP[t]
            if (index[suit] // step) % 5 >= 4:
                continue
            if suit < 3:
                r = sid[index[suit] + step]
                o = other[suit]
                n_id = pc.get((r << 20) | o)
                if n_id is None:
                    n_id = self.pair(r, o)
                d = fc.get((n_id << 24) | z_key)
                if d is None:
                    d = self.final(n_id, rows[3], sets)
            else:
                z = hid[index[3] + step]
                d = fc.get((numbered << 24) | (z << 4) | sets)
                if d is None:
                    d = self.final(numbered, z, sets)
            out[t] = d
        return out


    def distance_at(self, index: Sequence[int], sets: int) -> int:
        """Distance from the four base-5 suit indices of :func:`suit_indices` (the search's path).

        Search code keeps the indices up to date as tiles come and go (``+ KIND_STEP[k]``),
        so a child hand costs a few list and dict lookups, no tuple building.
        """
        sid = self.suit_ids
        m, p, s = sid[index[0]], sid[index[1]], sid[index[2]]
        z = self.honour_ids[index[3]]
        pc = self.pair_cache
        mp = pc.get((m << 20) | p)
        if mp is None:
            mp = self.pair(m, p)
        mps = pc.get((mp << 20) | s)
        if mps is None:
            mps = self.pair(mp, s)
        d = self.final_cache.get((mps << 24) | (z << 4) | sets)
        if d is None:
            d = self.final(mps, z, sets)
        return d


_PLACES = {n: tuple((COPIES + 1) ** (n - 1 - i) for i in range(n)) for n in (7, 9)}
"""Base-5 place value of each position of a 9-kind suit and of the 7 honours."""
_SUIT_PLACE = {str(d): (COPIES + 1) ** (9 - d) for d in range(1, 10)}
_HONOUR_PLACE = {str(d): (COPIES + 1) ** (7 - d) for d in range(1, 8)}
"""Place value of a digit of a suit (``"1"`` is the most significant) and of the honours."""


def _base5(key: tuple[int, ...]) -> int:
    places = _PLACES.get(len(key))
    if places is not None and min(key) >= 0 and max(key) <= COPIES:
        return sum(map(mul, key, places))
    idx = 0
    for v in key:
        if not 0 <= v <= COPIES:
            raise InvalidNotationError(f"a tile count must be 0..{COPIES}, got {v}")
        idx = idx * (COPIES + 1) + v
    return idx


_TABLES: ShantenTables | None = None
_LOCK = allocate_lock()


def shanten_tables() -> ShantenTables:
    """The process's shanten tables, loaded at first use: the fast interface of searches.

    :meth:`ShantenTables.distance` (34 counts, already valid) and
    :meth:`ShantenTables.distance_at` (the base-5 suit indices of :func:`suit_indices`, kept
    up to date with ``KIND_STEP`` as tiles come and go) return shanten + 1 without checking
    their input; the checked public functions (:func:`shanten_counts`, :func:`shanten`) are
    for everyone else.
    """
    global _TABLES
    if _TABLES is None:
        with _LOCK:
            if _TABLES is None:
                _TABLES = ShantenTables()
    return _TABLES


KIND_SUIT = tuple(min(k // 9, 3) for k in range(NUM_KINDS))
"""Which of the four indices (m, p, s, honours) a kind belongs to."""
KIND_STEP = tuple(
    (COPIES + 1) ** (8 - k % 9) if k < 27 else (COPIES + 1) ** (33 - k) for k in range(NUM_KINDS)
)
"""How much one tile of a kind adds to its suit's base-5 index."""


def suit_indices(counts: Sequence[int]) -> list[int]:
    """The base-5 indices of the four suits of a hand (for :meth:`ShantenTables.distance_at`)."""
    out = [0, 0, 0, 0]
    for k in range(NUM_KINDS):
        if counts[k]:
            out[KIND_SUIT[k]] += counts[k] * KIND_STEP[k]
    return out


# ---------------------------------------------------------------------------------------------
# Count-vector API (what agents and the engine call)
# ---------------------------------------------------------------------------------------------
def sets_needed(num_tiles: int) -> int:
    """Sets a concealed hand of ``num_tiles`` still needs; raises for sizes that cannot occur."""
    if num_tiles % 3 == 0 or not 0 < num_tiles <= MAX_TILES:
        raise InvalidNotationError(
            f"a concealed hand has 3k+1 or 3k+2 tiles (k <= {MAX_SETS}), got {num_tiles} tiles"
        )
    return num_tiles // 3


def _check_counts(counts: Sequence[int]) -> int:
    if len(counts) != NUM_KINDS:
        raise InvalidNotationError(f"a count vector has {NUM_KINDS} entries, got {len(counts)}")
    return sum(counts)


def shanten_counts(counts: Sequence[int]) -> int:
    """Shanten of a concealed hand given as 34 counts (a list of ints; -1 = complete)."""
    if len(counts) != NUM_KINDS:
        raise InvalidNotationError(f"a count vector has {NUM_KINDS} entries, got {len(counts)}")
    n = sum(counts)
    if n % 3 == 0 or not 0 < n <= MAX_TILES:
        sets_needed(n)  # raises the error naming the size
    return (_TABLES or shanten_tables()).distance(counts, n // 3) - 1


def is_complete_counts(counts: Sequence[int]) -> bool:
    """Whether a 3k+2 concealed hand is k sets + a pair (a winning shape)."""
    n = _check_counts(counts)
    return n % 3 == 2 and shanten_tables().distance(counts, sets_needed(n)) == 0


def _default_unseen(counts: Sequence[int]) -> list[int]:
    return [COPIES - c for c in counts]


def _check_unseen(unseen: Sequence[int] | None, counts: Sequence[int]) -> Sequence[int]:
    if unseen is None:
        return _default_unseen(counts)
    if len(unseen) != NUM_KINDS:
        raise InvalidNotationError(f"an unseen-count vector has {NUM_KINDS} entries, got {len(unseen)}")
    for k, u in enumerate(unseen):
        if not 0 <= u <= COPIES - counts[k]:
            raise InvalidNotationError(
                f"unseen copies of {tile_name(k)} must be 0..{COPIES - counts[k]} with "
                f"{counts[k]} in hand, got {u}"
            )
    return unseen


def _waits(c: list[int], sets: int, target: int, unseen: Sequence[int], t: ShantenTables) -> dict[int, int]:
    """Kinds whose draw brings the distance of ``c`` (3k+1 tiles) down to ``target``."""
    out: dict[int, int] = {}
    for kind in range(NUM_KINDS):
        if unseen[kind] > 0 and c[kind] < COPIES:
            c[kind] += 1
            if t.distance(c, sets) <= target:
                out[kind] = unseen[kind]
            c[kind] -= 1
    return out


def effective_counts(counts: Sequence[int], unseen: Sequence[int] | None = None) -> dict[int, int]:
    """Effective tiles (進張): kind -> unseen copies, for the draws that lower the shanten.

    For a 3k+1 hand these are the draws after which the 3k+2 hand has a lower shanten.
    For a 3k+2 hand (a discard is due) they are the union over the discards that keep the
    shanten of each discard's effective tiles: the tiles that improve the hand by one
    exchange. A complete hand has none. ``unseen[kind]`` is how many copies the player
    cannot see (defaults to ``4 - counts``: only his own hand is known); a kind with no
    unseen copy is never listed.
    """
    n = _check_counts(counts)
    sets = sets_needed(n)
    t = shanten_tables()
    c = list(counts)
    u = _check_unseen(unseen, c)
    d = t.distance(c, sets)
    if n % 3 == 1:
        return _waits(c, sets, d - 1, u, t)
    out: dict[int, int] = {}
    for kind in range(NUM_KINDS):
        if c[kind]:
            c[kind] -= 1
            if t.distance(c, sets) == d:  # this discard keeps the shanten
                out.update(_waits(c, sets, d - 1, u, t))
            c[kind] += 1
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class DiscardOption:
    """One discard of a 3k+2 hand: the shanten after it and its effective tiles."""

    discard: int
    shanten: int
    effective: dict[int, int]

    @property
    def total(self) -> int:
        """Number of unseen tiles that lower the shanten after this discard."""
        return sum(self.effective.values())


def discard_options(counts: Sequence[int], unseen: Sequence[int] | None = None) -> list[DiscardOption]:
    """Every distinct discard of a 3k+2 hand, best first (lowest shanten, most effective tiles).

    ``unseen`` counts the copies the player cannot see *before* the discard; the discarded
    tile becomes visible, so it is never counted twice.
    """
    n = _check_counts(counts)
    if n % 3 != 2:
        raise InvalidNotationError(f"discard options need a 3k+2 hand (a discard is due), got {n} tiles")
    sets = sets_needed(n)
    t = shanten_tables()
    c = list(counts)
    u = _check_unseen(unseen, c)
    options: list[DiscardOption] = []
    for kind in range(NUM_KINDS):
        if c[kind]:
            c[kind] -= 1
            d = t.distance(c, sets)
            options.append(DiscardOption(kind, d - 1, _waits(c, sets, d - 1, u, t)))
            c[kind] += 1
    options.sort(key=lambda o: (o.shanten, -o.total, o.discard))
    return options


# ---------------------------------------------------------------------------------------------
# Notation API (what people and the CLI call)
# ---------------------------------------------------------------------------------------------
def shanten(tiles: str) -> int:
    """Shanten of a concealed hand in tenhou notation: ``shanten("123m456p789s1122z") == 0``.

    -1 means complete (k sets + a pair), 0 ready, n: n more useful tiles to be ready.
    """
    t = _TABLES or shanten_tables()
    # Fast path for compact notation with each suit once (what tools write): the digit string
    # of a suit names its count vector, so it is the memo key, and no 34-count list is built.
    dense = t.dense
    m = _ONE_GROUP_PER_SUIT.fullmatch(tiles) if tiles.__class__ is str and dense is not None else None
    if m is not None and dense is not None:
        groups = m.groups()
        n = len(tiles) - 4 + groups.count(None)  # every suit letter written is one character
        if n % 3 and 0 < n <= MAX_TILES:
            dm, dp, ds, dz = groups
            rows = t.digit_rows
            a, b, c, z = rows.get(dm), rows.get(dp), rows.get(ds), t.honour_digit_rows.get(dz)
            if a is None:
                a = t.digit_row(dm, False)
            if b is None:
                b = t.digit_row(dp, False)
            if c is None:
                c = t.digit_row(ds, False)
            if z is None:
                z = t.digit_row(dz, True)
            if a >= 0 and b >= 0 and c >= 0 and z >= 0:  # -1: more than four copies somewhere
                first, second, final = dense
                nb = t.n_base
                return final[(second[first[a * nb + b] * nb + c] * nb + z) * (MAX_SETS + 1) + n // 3] - 1
    counts = parse_counts(tiles)  # always 34 entries: shanten_counts's length check is not needed
    n = sum(counts)
    if n % 3 == 0 or not 0 < n <= MAX_TILES:
        sets_needed(n)  # raises the error naming the size
    return t.distance(counts, n // 3) - 1


_ONE_GROUP_PER_SUIT = re.compile(r"(?:([1-9]+)m)?(?:([1-9]+)p)?(?:([1-9]+)s)?(?:([1-7]+)z)?")


def effective_tiles(tiles: str) -> dict[str, int]:
    """Effective tiles of a hand in notation: tile -> unseen copies (see :func:`effective_counts`).

    ``effective_tiles("1234m")`` (4 tiles, shanten 0) is ``{"1m": 3, "4m": 3}``.
    """
    return {tile_name(k): v for k, v in effective_counts(parse_counts(tiles)).items()}


def discard_table(tiles: str) -> dict[str, tuple[int, dict[str, int]]]:
    """For a 3k+2 hand in notation: discard -> (shanten after it, its effective tiles), best first."""
    return {
        tile_name(o.discard): (o.shanten, {tile_name(k): v for k, v in o.effective.items()})
        for o in discard_options(parse_counts(tiles))
    }


def warm_up() -> None:
    """Load the tables now (milliseconds; a second if they must be built) instead of at the first query."""
    shanten_tables()


__all__ = [
    "KIND_STEP",
    "KIND_SUIT",
    "MAX_SETS",
    "MAX_TILES",
    "DiscardOption",
    "ShantenTables",
    "build_distance_table",
    "discard_options",
    "discard_table",
    "effective_counts",
    "effective_tiles",
    "is_complete_counts",
    "sets_needed",
    "shanten",
    "shanten_counts",
    "shanten_tables",
    "suit_indices",
    "warm_up",
]
