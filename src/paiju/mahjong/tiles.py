"""Mahjong tiles and their tenhou-style notation (``123m456p789s1234567z``).

The 34 tile kinds are indexed 0..33 in the order every count-vector algorithm expects:

* 0-8   = 1m-9m (萬 characters)
* 9-17  = 1p-9p (筒 dots)
* 18-26 = 1s-9s (條 bamboo)
* 27-33 = 1z-7z = 東 南 西 北 白 發 中 (the order of the Japanese-mahjong tools, so hands can be
  checked against the PyPI ``mahjong`` package)

Taiwan 16-tile mahjong in paiju is played **without flower tiles** by default (the source
paper removes them, see ``docs/mahjong-rules.md`` §1), so there is no flower kind: ``8z`` and
the like are rejected. With the flowers option (§9.1) a flower is a wall entry
``FLOWER_BASE + f``, written ``1f``..``8f`` in a wall (:func:`parse_wall_kinds`), never a kind.

:class:`Tile` is an ``IntEnum``: a tile *is* its kind index, so it indexes count vectors
directly, while ``str`` / ``repr`` / :meth:`Tile.parse` give the notation. Engines and search
code work on plain ``int`` kinds and 34-long count vectors (:func:`to_counts`); the typed
values are for the API boundary, tests and display.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import NamedTuple

from paiju.core.errors import InvalidNotationError

NUM_KINDS = 34
"""Number of distinct tile kinds (no flowers)."""
COPIES = 4
"""Copies of each kind in the set."""
NUM_TILES = NUM_KINDS * COPIES
"""136 tiles in the wall."""

SUITS = "mpsz"
"""Suit letters in kind order: m 萬, p 筒, s 條, z honours."""

_HONOUR_CHINESE = ("東", "南", "西", "北", "白", "發", "中")
_HONOUR_ENGLISH = ("East", "South", "West", "North", "White", "Green", "Red")
_SUIT_CHINESE = ("萬", "筒", "條")
_SUIT_ENGLISH = ("characters", "dots", "bamboo")
_NUMERAL_CHINESE = ("一", "二", "三", "四", "五", "六", "七", "八", "九")


class Tile(IntEnum):
    """One of the 34 tile kinds; the value is the kind index 0..33."""

    M1 = 0
    M2 = 1
    M3 = 2
    M4 = 3
    M5 = 4
    M6 = 5
    M7 = 6
    M8 = 7
    M9 = 8
    P1 = 9
    P2 = 10
    P3 = 11
    P4 = 12
    P5 = 13
    P6 = 14
    P7 = 15
    P8 = 16
    P9 = 17
    S1 = 18
    S2 = 19
    S3 = 20
    S4 = 21
    S5 = 22
    S6 = 23
    S7 = 24
    S8 = 25
    S9 = 26
    EAST = 27
    SOUTH = 28
    WEST = 29
    NORTH = 30
    WHITE = 31
    GREEN = 32
    RED = 33

    @classmethod
    def parse(cls, text: str) -> Tile:
        """One tile from its notation, e.g. ``Tile.parse("5m")`` or ``Tile.parse("7z")`` (中)."""
        if not isinstance(text, str):
            raise InvalidNotationError(f"tile notation must be a string, not {type(text).__name__}")
        s = text.strip()
        if len(s) != 2:
            raise InvalidNotationError(
                f"invalid tile {text!r}: expected one digit and a suit letter (m/p/s/z), e.g. '5m' or '7z'"
            )
        return cls(_kind(s[0], s[1], text))

    @property
    def suit(self) -> str:
        """Suit letter: ``m``, ``p``, ``s`` or ``z``."""
        return SUITS[self.value // 9]

    @property
    def number(self) -> int:
        """Number on the tile, 1..9 for suits and 1..7 for honours (tenhou ``z`` numbering)."""
        return self.value % 9 + 1

    @property
    def is_honour(self) -> bool:
        return self.value >= 27

    @property
    def is_terminal(self) -> bool:
        """A 1 or 9 of a suit."""
        return self.value < 27 and self.value % 9 in (0, 8)

    @property
    def chinese(self) -> str:
        """Chinese name, e.g. 五萬, 東, 中 — what the CLI and web app show."""
        if self.value >= 27:
            return _HONOUR_CHINESE[self.value - 27]
        return _NUMERAL_CHINESE[self.value % 9] + _SUIT_CHINESE[self.value // 9]

    @property
    def english(self) -> str:
        if self.value >= 27:
            return _HONOUR_ENGLISH[self.value - 27]
        return f"{self.value % 9 + 1} of {_SUIT_ENGLISH[self.value // 9]}"

    def __str__(self) -> str:
        return tile_name(self.value)

    def __repr__(self) -> str:
        return f"Tile.parse({tile_name(self.value)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def tile_name(kind: int) -> str:
    """Notation of a plain int kind (``4`` -> ``'5m'``), without building a :class:`Tile`."""
    if not 0 <= kind < NUM_KINDS:
        raise InvalidNotationError(f"tile kind {kind} out of range 0..{NUM_KINDS - 1}")
    return f"{kind % 9 + 1}{SUITS[kind // 9]}"


def _kind(digit: str, suit: str, text: str) -> int:
    if suit not in SUITS:
        raise InvalidNotationError(
            f"invalid tile notation {text!r}: unknown suit {suit!r} (use m 萬, p 筒, s 條, z honours)"
        )
    if not digit.isdigit() or not digit.isascii():
        raise InvalidNotationError(f"invalid tile notation {text!r}: {digit!r} is not a tile number")
    n = int(digit)
    if suit == "z":
        if not 1 <= n <= 7:
            extra = " (no flower tiles in this rule set)" if n >= 8 else ""
            raise InvalidNotationError(
                f"invalid tile notation {text!r}: honour {n}z does not exist; honours are "
                f"1z-7z = 東南西北白發中{extra}"
            )
        return 27 + n - 1
    if not 1 <= n <= 9:
        raise InvalidNotationError(
            f"invalid tile notation {text!r}: {n}{suit} does not exist; suited tiles are numbered 1-9"
            + (" (no red fives in Taiwan mahjong)" if n == 0 else "")
        )
    return SUITS.index(suit) * 9 + n - 1


def parse_kinds(text: str, *, max_copies: int = COPIES) -> list[int]:
    """Parse notation into plain int kinds, in the written order.

    Accepts tenhou-style groups (``123m456p11z``), one tile at a time (``1m2m3m``) and spaces
    between groups. Raises :class:`InvalidNotationError` for an unknown character or suit, a
    digit group without a suit, a tile that does not exist (``0m``, ``8z``), or more than
    ``max_copies`` of a kind.
    """
    if not isinstance(text, str):
        raise InvalidNotationError(f"tile notation must be a string, not {type(text).__name__}")
    kinds: list[int] = []
    pending: list[str] = []
    for ch in text:
        if ch.isspace():
            if pending:
                raise InvalidNotationError(
                    f"invalid tiles {text!r}: digits {''.join(pending)!r} are not followed by a suit letter"
                )
            continue
        if ch.isdigit() and ch.isascii():
            pending.append(ch)
        elif ch.isalpha() and ch.isascii():
            if ch not in SUITS:
                raise InvalidNotationError(
                    f"invalid tiles {text!r}: unknown suit {ch!r} (use m 萬, p 筒, s 條, z honours)"
                )
            if not pending:
                raise InvalidNotationError(
                    f"invalid tiles {text!r}: suit letter {ch!r} has no numbers before it"
                )
            kinds.extend(_kind(d, ch, text) for d in pending)
            pending = []
        else:
            raise InvalidNotationError(f"invalid tiles {text!r}: unexpected character {ch!r}")
    if pending:
        raise InvalidNotationError(
            f"invalid tiles {text!r}: digits {''.join(pending)!r} are not followed by a suit letter"
        )
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
        if counts[k] > max_copies:
            raise InvalidNotationError(
                f"invalid tiles {text!r}: {tile_name(k)} appears more than {max_copies} times"
            )
    return kinds


def parse_tiles(text: str) -> list[Tile]:
    """Parse notation into typed tiles, in the written order: ``parse_tiles("123m")``."""
    return [Tile(k) for k in parse_kinds(text)]


_WELL_FORMED = re.compile(r"(?:[1-9]+[mps]|[1-7]+z)+")
"""Compact notation that needs no error checks but the copy limit (the fast path's input)."""
_GROUP = re.compile(r"([1-9]+)([mpsz])")
_KIND_OF = {suit: {str(d): 9 * s + d - 1 for d in range(1, 10)} for s, suit in enumerate(SUITS)}
"""_KIND_OF[suit][digit]: the kind of a tile of the compact notation."""


def parse_counts(text: str) -> list[int]:
    """Parse notation straight into a 34-long count vector.

    Compact notation (``123m456p11z``) takes a fast path: a regular expression checks the
    shape, then one table step per tile; anything else, and any error, goes through
    :func:`parse_kinds`, which names the problem.
    """
    if text.__class__ is str and _WELL_FORMED.fullmatch(text):
        counts = [0] * NUM_KINDS
        for digits, suit in _GROUP.findall(text):
            kind_of = _KIND_OF[suit]
            for d in digits:
                counts[kind_of[d]] += 1
        if max(counts) <= COPIES:
            return counts
    return to_counts(parse_kinds(text))


def format_tiles(tiles: Iterable[int]) -> str:
    """Canonical compact notation, sorted by kind: ``[Tile.M3, Tile.M1, Tile.EAST]`` -> ``'13m1z'``.

    ``parse_tiles(format_tiles(ts)) == sorted(ts)`` and ``format_tiles(parse_tiles(s)) == s``
    for every canonical string ``s``.
    """
    return format_counts(to_counts(tiles))


def format_counts(counts: Sequence[int]) -> str:
    """Canonical compact notation of a 34-long count vector."""
    if len(counts) != NUM_KINDS:
        raise InvalidNotationError(f"a count vector has {NUM_KINDS} entries, got {len(counts)}")
    parts: list[str] = []
    for s, suit in enumerate(SUITS):
        width = 7 if suit == "z" else 9
        digits = []
        for i in range(width):
            c = counts[s * 9 + i]
            if c < 0:
                raise InvalidNotationError(f"negative count {c} for {tile_name(s * 9 + i)}")
            digits.append(str(i + 1) * c)
        group = "".join(digits)
        if group:
            parts.append(group + suit)
    return "".join(parts)


def to_counts(tiles: Iterable[int]) -> list[int]:
    """34-long count vector of a tile list (tiles or plain int kinds)."""
    counts = [0] * NUM_KINDS
    for t in tiles:
        if not 0 <= t < NUM_KINDS:
            raise InvalidNotationError(f"tile kind {t} out of range 0..{NUM_KINDS - 1}")
        counts[t] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[Tile]:
    """Sorted typed tiles of a 34-long count vector (inverse of :func:`to_counts`)."""
    if len(counts) != NUM_KINDS:
        raise InvalidNotationError(f"a count vector has {NUM_KINDS} entries, got {len(counts)}")
    out: list[Tile] = []
    for k, c in enumerate(counts):
        if c < 0:
            raise InvalidNotationError(f"negative count {c} for {tile_name(k)}")
        out.extend([Tile(k)] * c)
    return out


def is_honour(kind: int) -> bool:
    return kind >= 27


def is_suited(kind: int) -> bool:
    return kind < 27


WINDS: tuple[int, ...] = (27, 28, 29, 30)
"""東 南 西 北 kinds; seat/round wind ``w`` (0 = 東) is kind ``27 + w``."""
DRAGONS: tuple[int, ...] = (31, 32, 33)
"""白 發 中 kinds."""
ALL_KINDS: tuple[Tile, ...] = tuple(Tile)


class MeldType(IntEnum):
    """How a meld was formed; the value is stable (used in observations and features)."""

    CHOW = 0
    """吃: three consecutive suited tiles, the discard of the previous player."""
    PUNG = 1
    """碰: three identical tiles, one of them claimed."""
    EXPOSED_KONG = 2
    """明槓 (大明槓): four identical tiles, one claimed from a discard."""
    ADDED_KONG = 3
    """加槓 / 補槓: a fourth tile added to one's own exposed pung."""
    CONCEALED_KONG = 4
    """暗槓: four identical tiles all drawn by the player; not robbable."""

    @property
    def is_kong(self) -> bool:
        return self >= MeldType.EXPOSED_KONG

    @property
    def is_exposed(self) -> bool:
        """Formed from a claimed tile (breaks 門清); a concealed kong is not."""
        return self != MeldType.CONCEALED_KONG


class Meld(NamedTuple):
    """A set on the table. ``tile`` is the kind of a pung/kong, the lowest kind of a chow.

    ``claimed`` is the kind taken from a discard (-1 for a concealed kong) and ``source`` the
    seat it came from (-1 for a concealed kong; an added kong keeps its pung's source). In
    another player's observation a face-down concealed kong has ``tile == -1``.
    """

    type: MeldType
    tile: int
    claimed: int = -1
    source: int = -1

    def kinds(self) -> tuple[int, ...]:
        """The tile kinds in the meld (4 for a kong)."""
        t = self.tile
        if self.type == MeldType.CHOW:
            return (t, t + 1, t + 2)
        if self.type == MeldType.PUNG:
            return (t, t, t)
        return (t, t, t, t)

    def __str__(self) -> str:
        if self.tile < 0:
            return "concealed kong (face down)"
        names = {
            MeldType.CHOW: "chow",
            MeldType.PUNG: "pung",
            MeldType.EXPOSED_KONG: "kong",
            MeldType.ADDED_KONG: "added kong",
            MeldType.CONCEALED_KONG: "concealed kong",
        }
        return f"{names[self.type]} {format_tiles(self.kinds())}"


# ---------------------------------------------------------------------------------------------
# Flowers (only with ``MahjongConfig(flowers=True)``): never in a count vector, never discarded
# ---------------------------------------------------------------------------------------------

FLOWER_BASE = NUM_KINDS
"""In a wall with flowers, the flower f (0..7) is the entry ``FLOWER_BASE + f``."""
NUM_FLOWERS = 8
"""春 夏 秋 冬 梅 蘭 竹 菊, one of each: 0..3 the seasons, 4..7 the plants."""
NUM_TILES_WITH_FLOWERS = NUM_TILES + NUM_FLOWERS
"""144 tiles in the wall when flowers are played."""
FLOWER_CHINESE = "春夏秋冬梅蘭竹菊"


def flower_name(flower: int) -> str:
    """Notation of flower 0..7: ``1f`` (春) .. ``8f`` (菊)."""
    if not 0 <= flower < NUM_FLOWERS:
        raise InvalidNotationError(f"flower {flower} out of range 0..{NUM_FLOWERS - 1}")
    return f"{flower + 1}f"


def wall_tile_name(entry: int) -> str:
    """Notation of one wall entry: a tile kind (``5m``) or a flower (``3f``)."""
    if entry >= FLOWER_BASE:
        return flower_name(entry - FLOWER_BASE)
    return tile_name(entry)


def parse_wall_kinds(text: str, *, flowers: bool = False, max_copies: int = COPIES) -> list[int]:
    """Wall entries in written order: tile notation, plus ``1f``..``8f`` flowers when
    ``flowers`` (entries ``FLOWER_BASE + f``); each flower at most once, each kind at most
    ``max_copies`` times."""
    if not isinstance(text, str):
        raise InvalidNotationError(f"tile notation must be a string, not {type(text).__name__}")
    out: list[int] = []
    pos = 0
    for m in re.finditer(r"([1-9]+)f", text):
        if not flowers:
            raise InvalidNotationError(
                f"invalid tiles {text!r}: flowers ({m.group(0)!r}) are played only with flowers=True"
            )
        out += parse_kinds(text[pos : m.start()], max_copies=max_copies)
        for d in m.group(1):
            if int(d) > NUM_FLOWERS:
                raise InvalidNotationError(f"invalid flower {d}f in {text[:40]!r}: flowers are 1f..8f")
            out.append(FLOWER_BASE + int(d) - 1)
        pos = m.end()
    out += parse_kinds(text[pos:], max_copies=max_copies)
    counts = [0] * NUM_KINDS
    for e in out:
        if e < FLOWER_BASE:
            counts[e] += 1
            if counts[e] > max_copies:
                raise InvalidNotationError(
                    f"invalid tiles {text[:40]!r}…: {tile_name(e)} appears more than {max_copies} times"
                )
    seen = [e for e in out if e >= FLOWER_BASE]
    if len(seen) != len(set(seen)):
        raise InvalidNotationError(f"invalid tiles {text[:40]!r}…: a flower appears more than once")
    return out
