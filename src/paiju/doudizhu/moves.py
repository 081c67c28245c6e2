"""Dou Dizhu moves: the move types of ``docs/doudizhu.md`` §2, classification, notation and the beating rule.

A :class:`Move` is an immutable, hashable value: a card multiset plus its **reading** (type,
main rank, length). Notation is the cards in canonical ascending order (``str(move)``),
``"pass"`` for :data:`PASS`; ``repr`` round-trips (``Move.parse('33344')``).

Encoding. Cards are a 15-count vector (see :mod:`paiju.doudizhu.cards`), packed into one
int, 4 bits per rank (rank ``r`` at bits ``4r..4r+3``): the move's :attr:`Move.key`. Keys
add and subtract like multisets, and a containment test is one subtraction (see
:func:`contains_key`), which is what makes the generator and ``apply`` cheap. The key layout
(``SHIFTS``, ``UNIT``, ``GUARD``, :func:`key_of`, :func:`parse_key`) is defined in
:mod:`paiju.doudizhu.cards`, so that the string API can parse without this module.

Readings and the rule that picks one (documented in ``docs/doudizhu.md``). Under the default
(DouZero) wing rule a few card sets have more than one reading:

* same type, different body: an airplane with solo wings whose wings hold a trio next to the
  body, e.g. ``3334445556667778`` = 333444555666+7778 or 444555666777+3338. The reading
  with the **highest body** is always taken: it beats everything the lower one beats and is
  beaten by less, so no player would choose the other.
* different types: ``333444555666`` = trio chain of 4, or airplane of 3 with a trio as the
  wings (444555666+333). Neither dominates, so :meth:`Move.parse` without ``type=`` raises
  :class:`~paiju.core.errors.AmbiguousMoveError` for these (and only these) sets. In a game
  the context decides: on a **lead** the set is the trio chain (the DouZero reading, and the
  harder one to beat); when **following** an airplane of 3 it may be played as that airplane.

Both facts are checked by brute force over every card set in ``tests/doudizhu``.

:class:`MoveType`, the chain rules and the named type properties (``BOMB_TYPES``,
``KICKER_TYPES``) are declared in :mod:`paiju.doudizhu.movetypes` and re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Final, Generic, TypeVar

from paiju.core.errors import AmbiguousMoveError, InvalidNotationError
from paiju.doudizhu.cards import (
    BIG_JOKER,
    GUARD,
    NUM_RANKS,
    RANKS,
    SHIFTS,
    SMALL_JOKER,
    UNIT,
    Hand,
    format_counts,
    key_of,
    parse_key,
)
from paiju.doudizhu.movetypes import (
    BOMB_TYPES,
    CHAIN_OF_WIDTH,
    CHAIN_TOP,
    KICKER_TYPES,
    MIN_CHAIN,
    OF_A_KIND,
    MoveType,
)

_V = TypeVar("_V")
_C5: Final = range(5)


class _SliceTable(dict[int, _V], Generic[_V]):
    """Per 12-bit slice of a key (three ranks): built for counts 0..4, computed past that."""

    def __init__(self, value: Callable[[int, int, int], _V]) -> None:
        super().__init__({a | b << 4 | c << 8: value(a, b, c) for c in _C5 for b in _C5 for a in _C5})
        self.value = value

    def __missing__(self, v: int) -> _V:
        return self.value(v & 15, (v >> 4) & 15, v >> 8)


_T12: Final = _SliceTable(lambda a, b, c: (a, b, c))
"""Counts of three ranks for every 12-bit slice of a key (125 entries: counts 0..4)."""
def _slice_text(j: int) -> Callable[[int, int, int], str]:
    """The notation of counts ``a, b, c`` of the three ranks of slice ``j``."""
    r = RANKS[3 * j : 3 * j + 3]
    return lambda a, b, c: r[0] * a + r[1] * b + r[2] * c


_TEXT12: Final = tuple(_SliceTable(_slice_text(j)) for j in range(5))
"""Notation of three ranks for every 12-bit slice, one table per slice position."""


def counts_of(key: int) -> tuple[int, ...]:
    """15-count tuple of a packed key (five 12-bit slice lookups: ~4x a per-rank loop)."""
    t = _T12
    return (
        t[key & 4095] + t[(key >> 12) & 4095] + t[(key >> 24) & 4095] + t[(key >> 36) & 4095] + t[key >> 48]
    )


def format_key(key: int) -> str:
    """Canonical notation of a packed key: five slice lookups, no per-rank loop."""
    t = _TEXT12
    return (
        t[0][key & 4095]
        + t[1][(key >> 12) & 4095]
        + t[2][(key >> 24) & 4095]
        + t[3][(key >> 36) & 4095]
        + t[4][key >> 48]
    )


def contains_key(hand: int, cards: int) -> bool:
    """True if the multiset ``cards`` is inside ``hand`` (both packed keys)."""
    return ((hand | GUARD) - cards) & GUARD == GUARD


# hot-path aliases of the members (docs/design.md, "One source per fact")
_PASS, _SOLO = MoveType.PASS, MoveType.SOLO
_BOMB, _ROCKET = MoveType.BOMB, MoveType.ROCKET
_TRIO_SOLO, _TRIO_PAIR = MoveType.TRIO_SOLO, MoveType.TRIO_PAIR
_SOLO_CHAIN, _PAIR_CHAIN, _TRIO_CHAIN = MoveType.SOLO_CHAIN, MoveType.PAIR_CHAIN, MoveType.TRIO_CHAIN
_AIRPLANE_SOLO, _AIRPLANE_PAIR = MoveType.AIRPLANE_SOLO, MoveType.AIRPLANE_PAIR
_FOUR_TWO_SOLO, _FOUR_TWO_PAIR = MoveType.FOUR_TWO_SOLO, MoveType.FOUR_TWO_PAIR
_TYPES: Final = tuple(MoveType)


class Move:
    """One Dou Dizhu move: a card multiset and its reading. Immutable and hashable.

    Attributes (read-only): ``type`` (:class:`MoveType`), ``rank`` (main rank index: the
    trio/four/pair/solo rank, or the **lowest** rank of a chain's body), ``length`` (ranks
    in the chain body: 5 for ``34567``, 3 for ``334455``, 2 for ``33344467``; 1 otherwise),
    ``size`` (cards), ``key`` (packed counts). Moves compare equal when cards and reading
    are equal. Build them with :meth:`parse`; the generator reuses interned instances.

    ``lead`` is True when this reading is the one a card set takes when played on a free
    lead, ``top`` when no other reading of the same type has a higher body, ``strict`` when
    the move is allowed under RLCard's stricter wing rule.
    """

    __slots__ = ("_counts", "_hash", "_str", "key", "lead", "length", "rank", "size", "strict", "top", "type")

    key: int
    type: MoveType
    rank: int
    length: int
    size: int
    lead: bool
    top: bool
    strict: bool
    _counts: tuple[int, ...]
    _str: str
    _hash: int

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError("build moves with Move.parse(text, type=None) or the generator, not Move(...)")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Move is immutable")

    # ---- construction ---------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, type: MoveType | str | None = None) -> Move:
        """Parse a move (any character order; ``"pass"`` for a pass).

        ``type`` (a :class:`MoveType` or its name) selects a reading; without it the set's
        unique type is used, the highest body when one type has several bodies. Raises
        :class:`InvalidNotationError` for bad characters or a set that is no move (of the
        given type), :class:`AmbiguousMoveError` for a set readable as two different types
        (only trio chains of 4 = airplane of 3 with trio wings, e.g. ``333444555666``).
        """
        # Moves are immutable and interned, so a parse is memoised by its arguments (only plain
        # str arguments: a MoveType would compare equal to an int and widen what is accepted).
        if text.__class__ is not str or not (
            type is None or (isinstance(type, str) and type.__class__ is str)
        ):
            return cls._parse(text, type)
        got = _PARSED.get((text, type))
        if got is not None:
            return got
        move = cls._parse(text, type)
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        _PARSED[(text, type)] = move
        return move

    @classmethod
    def _parse(cls, text: str, type: MoveType | str | None) -> Move:
        if not isinstance(text, str):
            raise InvalidNotationError(f"move notation must be a string, not {text.__class__.__name__}")
        want = None if type is None else MoveType.parse(type)
        if text.strip().lower() == "pass":
            if want not in (None, MoveType.PASS):
                raise InvalidNotationError(f"move 'pass' is not a {want.label}")
            return PASS
        if not text:
            raise InvalidNotationError("empty move notation; write 'pass' for a pass")
        key = parse_key(text, what="move")
        counts = counts_of(key)
        if want is MoveType.PASS:
            raise InvalidNotationError(f"move {text!r} has cards, so it is not a pass")
        readings = _readings(counts, key)
        if not readings:
            raise InvalidNotationError(
                f"{format_counts(counts)!r} is not a Dou Dizhu move: no move type fits these cards"
            )
        if want is not None:
            chosen = [m for m in readings if m.type == want]
            if not chosen:
                kinds = " or ".join(sorted({m.type.label for m in readings}))
                raise InvalidNotationError(
                    f"{format_counts(counts)!r} cannot be read as a {want.label}; it is a {kinds}"
                )
            return max(chosen, key=lambda m: m.rank)
        types = {m.type for m in readings}
        if len(types) > 1:
            options = "; ".join(f"{m.type.name.lower()}: {m.describe()}" for m in readings if m.top)
            names = " or ".join(repr(m.type.name.lower()) for m in readings if m.top)
            raise AmbiguousMoveError(
                f"{format_counts(counts)!r} has readings of more than one type ({options}); "
                f"choose one with type={names} (on a free lead a game plays it as the trio chain)"
            )
        return max(readings, key=lambda m: m.rank)

    @classmethod
    def from_cards(cls, cards: Hand | tuple[int, ...], type: MoveType | str | None = None) -> Move:
        """Like :meth:`parse`, from a :class:`Hand` or a 15-count tuple."""
        counts = cards.counts if isinstance(cards, Hand) else tuple(cards)
        return cls.parse(format_counts(counts) or "pass", type)

    # ---- accessors ------------------------------------------------------------------------
    @property
    def counts(self) -> tuple[int, ...]:
        """15-count tuple of the cards."""
        return self._counts

    @property
    def cards(self) -> Hand:
        """The cards as a :class:`Hand`."""
        return Hand._trusted(self._counts)

    @property
    def is_pass(self) -> bool:
        return self.type == _PASS

    @property
    def is_bomb(self) -> bool:
        """True for bombs and the rocket (the moves that raise the multiplier)."""
        return self.type in BOMB_TYPES

    @property
    def body(self) -> Hand:
        """The main part without kickers (the trio of a trio with solo, an airplane's trios...)."""
        return Hand._trusted(counts_of(self.key - self._kicker_key()))

    @property
    def kickers(self) -> Hand:
        """The kicker cards (wings, the solo/pair of a trio, the two of a four); empty if none."""
        return Hand._trusted(counts_of(self._kicker_key()))

    def _kicker_key(self) -> int:
        t = self.type
        if t not in KICKER_TYPES:
            return 0
        if t in (_TRIO_SOLO, _TRIO_PAIR):
            return self.key - 3 * UNIT[self.rank]
        if t in (_FOUR_TWO_SOLO, _FOUR_TWO_PAIR):
            return self.key - 4 * UNIT[self.rank]
        # an airplane: the wings are what the body's trios leave
        return self.key - sum(3 * UNIT[r] for r in range(self.rank, self.rank + self.length))

    def beats(self, other: Move) -> bool:
        """True if this move may be played on ``other`` (``docs/doudizhu.md`` §2). Pass beats nothing."""
        t = self.type
        if t == _ROCKET:
            return other.type != _ROCKET
        o = other.type
        if t == _BOMB:
            return o != _ROCKET and (o != _BOMB or self.rank > other.rank)
        return t == o and t != _PASS and self.length == other.length and self.rank > other.rank

    def describe(self) -> str:
        """Readable form: ``"airplane with solo wings 444555666+333"``."""
        if self.type == _PASS:
            return "pass"
        kick = self._kicker_key()
        if kick:
            body = format_counts(counts_of(self.key - kick))
            return f"{self.type.label} {body}+{format_counts(counts_of(kick))}"
        return f"{self.type.label} {self._str}"

    # ---- value semantics ------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return (
            isinstance(other, Move)
            and self.key == other.key
            and self.type == other.type
            and self.rank == other.rank
        )

    def __hash__(self) -> int:
        return self._hash

    def __len__(self) -> int:
        return self.size

    def __str__(self) -> str:
        return self._str

    def __repr__(self) -> str:
        if self.type == _PASS:
            return "Move.parse('pass')"
        types = {m.type for m in all_readings(self._counts)}
        if len(types) > 1 or not self.top:
            return f"Move.parse({self._str!r}, type={self.type.name.lower()!r})"
        return f"Move.parse({self._str!r})"

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (Move.parse, (self._str if self.type != _PASS else "pass", self.type.name))


class _NewMove(Move):
    """A Move under construction: plain slot stores, then its class becomes :class:`Move`.

    Building a move this way is ~4x faster than eleven ``object.__setattr__`` calls, which
    matters when a fresh process interns its first thousand moves.
    """

    __slots__ = ()
    __setattr__ = object.__setattr__  # type: ignore[assignment]  # object's own: plain slot stores, 4x faster


def _make(
    key: int,
    type_: int,
    rank: int,
    length: int,
    lead: bool,
    top: bool,
    strict: bool,
    counts: tuple[int, ...] | None = None,
) -> Move:
    if counts is None:
        counts = counts_of(key)
    m: Move = object.__new__(_NewMove)
    m.key = key
    m.type = _TYPES[type_]
    m.rank = rank
    m.length = length
    m.size = sum(counts)
    m.lead = lead
    m.top = top
    m.strict = strict
    m._counts = counts
    m._str = format_key(key) if type_ != _PASS else "pass"
    m._hash = hash((key, type_, rank))
    m.__class__ = Move
    return m


_PARSED: Final[dict[tuple[str, str | None], Move]] = {}
"""Memo of :meth:`Move.parse` by (text, type name); bounded by ``_PARSED_LIMIT`` entries."""
_PARSED_LIMIT: Final = 100_000

_INTERN: Final[dict[int, Move]] = {}
"""Every move built so far, by ``(key << 8) | (type << 4) | rank``: one object per move."""


def intern(key: int, type_: int, rank: int) -> Move:
    """The unique :class:`Move` for a packed key and a reading known to be valid."""
    ik = (key << 8) | (type_ << 4) | rank
    m = _INTERN.get(ik)
    if m is None:
        m = _build(key, type_, rank)
        _INTERN[ik] = m
    return m


_LOW: Final = sum(1 << s for s in SHIFTS)
"""Bit 0 of every rank's nibble (the layout of rank masks)."""
_CHAIN_RANKS: Final = sum(1 << SHIFTS[r] for r in range(CHAIN_TOP + 1))
_JOKER_PAIR: Final = UNIT[SMALL_JOKER] | UNIT[BIG_JOKER]
_LENGTH_DIVISOR: Final[dict[int, int]] = {
    _SOLO_CHAIN: 1, _PAIR_CHAIN: 2, _TRIO_CHAIN: 3, _AIRPLANE_SOLO: 4, _AIRPLANE_PAIR: 5
}
"""Cards per body rank of each chain type (an airplane's wings included)."""


def _build(key: int, type_: int, rank: int) -> Move:
    """Create a move, computing its length and its lead/top/strict flags from its cards."""
    c = counts_of(key)
    divisor = _LENGTH_DIVISOR.get(type_)
    length = 1 if divisor is None else sum(c) // divisor
    lead = top = strict = True
    if type_ == _AIRPLANE_SOLO:
        hi = rank + length  # the rank just above the body
        top = not (hi <= CHAIN_TOP and c[hi] == 3)
        trio_below = rank > 0 and c[rank - 1] == 3
        # the whole set may also be a plain trio chain (333444555666 = 444555666+333), the
        # reading a free lead takes; with at most 20 cards that happens only for length 3.
        # Bit tests on the key: every present rank holds 3, and the present ranks are one run
        # within 3..A (shifted down, a run of k ranks is 0x11..1, and 15 * that + 1 = 16 ** k).
        present = (key | (key >> 1) | (key >> 2)) & _LOW
        run = present >> ((present & -present).bit_length() - 1)
        trio_chain = key == 3 * present and not (15 * run + 1) & (15 * run) and not present & ~_CHAIN_RANKS
        lead = top and not trio_chain
        body = sum(1 << SHIFTS[r] for r in range(rank, hi))
        fours = (key >> 2) & _LOW
        strict = (key & _JOKER_PAIR) != _JOKER_PAIR and not fours & ~body and not trio_below and top
    elif type_ == _FOUR_TWO_SOLO:
        strict = (key & _JOKER_PAIR) != _JOKER_PAIR
    return _make(key, type_, rank, length, lead, top, strict, c)


PASS: Final = _make(0, _PASS, 0, 0, True, True, True)
"""The pass move (不出); legal only when following."""
_INTERN[0] = PASS


def all_readings(counts: tuple[int, ...] | list[int]) -> list[Move]:
    """Every reading of a card multiset under the DouZero wing rule (empty if it is no move).

    This is the reference classifier: it looks at the counts directly, one rule per type,
    and is what :meth:`Move.parse` and the brute-force oracle use.
    """
    c = tuple(counts)
    return _readings(c, key_of(c)) if sum(c) else []


def _readings(c: tuple[int, ...], key: int) -> list[Move]:
    """:func:`all_readings` of the counts ``c`` whose packed key is ``key``."""
    n = sum(c)
    if n == 0:
        return []
    present = [r for r in range(NUM_RANKS) if c[r]]
    distinct = len(present)
    if n == 1:
        return [intern(key, _SOLO, present[0])]
    if n == 2 and c[SMALL_JOKER] and c[BIG_JOKER]:
        return [intern(key, _ROCKET, SMALL_JOKER)]
    if distinct == 1:
        r = present[0]
        return [intern(key, OF_A_KIND[n], r)] if n >= 2 else []
    out: list[Move] = []
    top = max(c)
    # chains of equal counts (solos >= 5, pairs >= 3, trios >= 2), 3..A only
    if (
        top <= 3
        and top == min(c[r] for r in present)
        and present[-1] <= CHAIN_TOP
        and present[-1] - present[0] + 1 == distinct
        and distinct >= MIN_CHAIN[top]
    ):
        out.append(intern(key, CHAIN_OF_WIDTH[top], present[0]))
    _kicker_readings(c, key, n, distinct, top, out)
    _airplane_readings(c, key, n, out)
    return out


def _kicker_readings(c: tuple[int, ...], key: int, n: int, distinct: int, top: int, out: list[Move]) -> None:
    """The trio-with-kicker and four-with-two readings of counts ``c`` (``n`` cards)."""
    if n == 4 and distinct == 2 and top == 3:
        out.append(intern(key, _TRIO_SOLO, c.index(3)))
    if n == 5 and distinct == 2 and top == 3 and 2 in c:
        out.append(intern(key, _TRIO_PAIR, c.index(3)))
    if n == 6 and top == 4:
        out.append(intern(key, _FOUR_TWO_SOLO, c.index(4)))
    if n == 8 and top == 4 and distinct == 3 and sorted(x for x in c if x) == [2, 2, 4]:
        out.append(intern(key, _FOUR_TWO_PAIR, c.index(4)))


def _airplane_readings(c: tuple[int, ...], key: int, n: int, out: list[Move]) -> None:
    """The airplane readings of counts ``c`` (``n`` cards): a body of L >= 2 consecutive
    ranks (3..A) with exactly 3 cards each, L solo or L pair wings."""
    if n % 4 == 0 and n >= 8:
        length = n // 4
        for s in range(CHAIN_TOP - length + 2):
            if all(c[r] == 3 for r in range(s, s + length)):
                out.append(intern(key, _AIRPLANE_SOLO, s))
    if n % 5 == 0 and n >= 10:
        length = n // 5
        for s in range(CHAIN_TOP - length + 2):
            if all(c[r] == 3 for r in range(s, s + length)):
                rest = [c[r] for r in range(NUM_RANKS) if not s <= r < s + length and c[r]]
                if len(rest) == length and all(x == 2 for x in rest):
                    out.append(intern(key, _AIRPLANE_PAIR, s))


_NOTATION_OF: Final = attrgetter("_str")


def notations(moves: Iterable[Move]) -> list[str]:
    """``[str(m) for m in moves]`` without a Python call per move (the string API's output)."""
    return list(map(_NOTATION_OF, moves))


def allowed(move: Move, strict: bool) -> bool:
    """True if ``move`` is allowed under the wing rule (``strict`` = RLCard's)."""
    return move.strict or not strict


__all__ = [
    "BOMB_TYPES",
    "CHAIN_OF_WIDTH",
    "CHAIN_TOP",
    "GUARD",
    "KICKER_TYPES",
    "MIN_CHAIN",
    "OF_A_KIND",
    "PASS",
    "SHIFTS",
    "UNIT",
    "Move",
    "MoveType",
    "all_readings",
    "contains_key",
    "counts_of",
    "format_key",
    "intern",
    "key_of",
    "notations",
    "parse_key",
]
