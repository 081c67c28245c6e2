"""Dou Dizhu cards, hands and deals, with their notation (``docs/doudizhu.md`` §1).

Suits never matter in Dou Dizhu, so a hand is a **count vector** over the 15 ranks in
playing order::

    index  0 1 2 3 4 5 6 7 8 9 10 11 12 13 14
    rank   3 4 5 6 7 8 9 T J Q K  A  2  X  D

(``X`` = small joker, ``D`` = big joker). Ranks 0..11 (3..A) may form chains; 2 and the
jokers may not. Every engine routine works on these 15-long count tuples; :class:`Hand`
is the typed, immutable value at the API boundary and carries its own notation:
``Hand.parse("KQJ33")`` accepts any character order, ``str(hand)`` prints the canonical
ascending order (``"33JQK"``) and ``repr(hand)`` is ``Hand.parse('33JQK')``.

A :class:`Deal` is the three hands, landlord first (20 + 17 + 17 cards), written
``[20 cards][17 cards][17 cards]``, optionally followed by a fourth bracket naming the
landlord's three open kitty cards (底牌), which are part of the landlord's 20.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Final

from paiju.core.errors import InvalidNotationError

if TYPE_CHECKING:  # paiju.core.rng loads numpy: imported where a deal is drawn, not with the notation
    from paiju.core.rng import SeedLike

RANKS: Final = "3456789TJQKA2XD"
"""Rank characters in playing order; a rank's index is its strength (0 = '3' ... 14 = 'D')."""
NUM_RANKS: Final = 15
TWO: Final = 12
"""Index of rank '2' (the highest non-joker rank; not allowed in chains)."""
SMALL_JOKER: Final = 13
"""Index of 'X', the small (black) joker."""
BIG_JOKER: Final = 14
"""Index of 'D', the big (red) joker."""
MAX_COUNT: Final = (4,) * 13 + (1, 1)
"""Copies of each rank in the 54-card deck."""
DECK_SIZE: Final = 54
HAND_SIZES: Final = (20, 17, 17)
"""Cards per seat in a deal, landlord first (the landlord's 20 include the 3 kitty cards)."""
KITTY_SIZE: Final = 3

_RANK_INDEX: Final = {c: i for i, c in enumerate(RANKS)}
_RANK_NAMES: Final = (
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "J",
    "Q",
    "K",
    "A",
    "2",
    "small joker",
    "big joker",
)


def rank_index(char: str) -> int:
    """Index of one rank character (``'T'`` -> 7); raises for anything else."""
    try:
        return _RANK_INDEX[char]
    except (KeyError, TypeError):
        raise InvalidNotationError(
            f"unknown Dou Dizhu rank {char!r}; ranks are {' '.join(RANKS)} (T = 10, X/D = small/big joker)"
        ) from None


def rank_name(index: int) -> str:
    """Human name of a rank index (``7`` -> ``'10'``, ``13`` -> ``'small joker'``)."""
    return _RANK_NAMES[index]


def parse_counts(text: str, *, what: str = "hand") -> tuple[int, ...]:
    """Parse rank characters in any order into a 15-count tuple, validating every limit.

    ``what`` names the thing being parsed in error messages (``"hand"``, ``"move"``...).
    """
    if not isinstance(text, str):
        raise InvalidNotationError(f"{what} notation must be a string, not {type(text).__name__}")
    counts = [0] * NUM_RANKS
    index = _RANK_INDEX
    for pos, char in enumerate(text):
        i = index.get(char)
        if i is None:
            hint = " (write 10 as T)" if char in "10" else ""
            hint = hint or (" (ranks are upper case)" if char.upper() in index else "")
            raise InvalidNotationError(
                f"{what} {text!r}: unknown card {char!r} at position {pos}{hint}; "
                f"ranks are {RANKS} (T = 10, X = small joker, D = big joker)"
            )
        counts[i] += 1
    for i, n in enumerate(counts):
        if n > MAX_COUNT[i]:
            if i >= SMALL_JOKER:
                raise InvalidNotationError(
                    f"{what} {text!r}: {n} copies of the {rank_name(i)} {RANKS[i]!r}; there is only one"
                )
            raise InvalidNotationError(
                f"{what} {text!r}: {n} cards of rank {RANKS[i]!r}; there are only 4 in the deck"
            )
    return tuple(counts)


def format_counts(counts: Sequence[int]) -> str:
    """Canonical ascending notation of a 15-count vector (``"33JQK"``)."""
    return "".join(RANKS[i] * n for i, n in enumerate(counts) if n)


# ---- packed keys: 4 bits per rank (rank r at bits 4r..4r+3), the engine's encoding --------
# (documented in paiju.doudizhu.moves; here so that the string API can parse without it)
SHIFTS: Final = tuple(4 * r for r in range(NUM_RANKS))
"""Bit offset of each rank's 4-bit count in a packed key."""
UNIT: Final = tuple(1 << s for s in SHIFTS)
"""Key of one card of each rank."""
GUARD: Final = sum(8 << s for s in SHIFTS)
"""Bit 3 of every nibble: counts never exceed 4, so it detects a borrow in ``moves.contains_key``."""


def key_of(counts: tuple[int, ...] | list[int]) -> int:
    """Packed key of a 15-count vector."""
    k = 0
    for s, n in zip(SHIFTS, counts, strict=True):
        k |= n << s
    return k


_UNIT_OF: Final = {c: 1 << (4 * r) for r, c in enumerate(RANKS)}
"""The key of one card, by its rank character."""
_LOW_NIBBLES: Final = sum(15 << (8 * i) for i in range(8))
"""The low nibble of every byte of a key (for its digit sum)."""
_LIMIT_PAD: Final = sum((8 - 1 - MAX_COUNT[r]) << (4 * r) for r in range(NUM_RANKS))
"""Per nibble, 7 minus the rank's copies in the deck: 3 for 3..2, 6 for each joker."""


def parse_key(text: str, what: str = "hand") -> int:
    """Packed key of card notation in any order, validated exactly like :func:`parse_counts`.

    The string API's hot path: one dict lookup per card, then a few bit operations check the
    copy limits; anything unusual (a bad character, too many copies) is handed to
    :func:`parse_counts`, which raises the error naming the problem.
    """
    if type(text) is not str:
        return key_of(parse_counts(text, what=what))
    try:
        key = sum(map(_UNIT_OF.__getitem__, text))
    except KeyError:
        return key_of(parse_counts(text, what=what))  # raises, naming the bad character
    # 16+ copies of one rank would carry into the next nibble; a carry lowers the digit sum of
    # the key by 15, so an unchanged sum proves there was none (digit sum: nibble pairs added
    # into bytes, then mod 255 sums the bytes as 256 = 1 mod 255; exact below 255, and 15
    # nibbles of at most 15 sum to 225)
    if len(text) > 15 and ((key & _LOW_NIBBLES) + ((key >> 4) & _LOW_NIBBLES)) % 255 != len(text):
        return key_of(parse_counts(text, what=what))
    # Copy limits: adding 3 to a rank's nibble (6 to a joker's) sets its bit 3 exactly when the
    # count is 5..7 (a joker's 2..7); counts of 8+ already have bit 3. Only those can carry.
    if ((key + _LIMIT_PAD) | key) & GUARD:
        return key_of(parse_counts(text, what=what))  # raises, naming the rank
    return key


class Hand:
    """An immutable multiset of Dou Dizhu cards (a 15-count tuple), hashable and comparable.

    Use :meth:`parse` for notation and :meth:`from_counts` for count vectors. ``a - b``
    removes cards (raising if ``b`` is not contained in ``a``), ``a + b`` adds them,
    ``b in a`` / ``a.contains(b)`` tests sub-multiset containment.
    """

    __slots__ = ("_counts", "_size")

    _counts: tuple[int, ...]
    _size: int

    def __init__(self, counts: Iterable[int] = (0,) * NUM_RANKS) -> None:
        c = tuple(int(n) for n in counts)
        if len(c) != NUM_RANKS:
            raise InvalidNotationError(f"a hand needs {NUM_RANKS} rank counts, got {len(c)}: {c}")
        for i, n in enumerate(c):
            if n < 0 or n > MAX_COUNT[i]:
                raise InvalidNotationError(
                    f"hand counts {c}: {n} of rank {RANKS[i]!r} (allowed 0..{MAX_COUNT[i]})"
                )
        object.__setattr__(self, "_counts", c)
        object.__setattr__(self, "_size", sum(c))

    @classmethod
    def _trusted(cls, counts: tuple[int, ...]) -> Hand:
        """Build from a count tuple already known to be valid (engine hot paths)."""
        h = object.__new__(cls)
        object.__setattr__(h, "_counts", counts)
        object.__setattr__(h, "_size", sum(counts))
        return h

    @classmethod
    def parse(cls, text: str) -> Hand:
        """Parse notation in any character order; raises :class:`InvalidNotationError`."""
        return cls._trusted(parse_counts(text, what="hand"))

    @classmethod
    def from_counts(cls, counts: Iterable[int]) -> Hand:
        """From a 15-long count vector (validated)."""
        return cls(counts)

    @classmethod
    def full_deck(cls) -> Hand:
        """All 54 cards."""
        return cls._trusted(MAX_COUNT)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Hand is immutable")

    @property
    def counts(self) -> tuple[int, ...]:
        """The 15 rank counts, index 0 = '3' ... 14 = 'D'."""
        return self._counts

    def count(self, rank: str | int) -> int:
        """Copies of one rank, given as a character (``'T'``) or an index."""
        i = rank_index(rank) if isinstance(rank, str) else rank
        return self._counts[i]

    def ranks(self) -> list[int]:
        """Rank index of every card, ascending with repeats (``33J`` -> ``[0, 0, 8]``)."""
        return [i for i, n in enumerate(self._counts) for _ in range(n)]

    def contains(self, other: Hand) -> bool:
        """True if ``other`` is a sub-multiset of this hand."""
        return all(a >= b for a, b in zip(self._counts, other._counts, strict=True))

    def __contains__(self, other: object) -> bool:
        if isinstance(other, str):
            other = Hand.parse(other)
        if not isinstance(other, Hand):
            return False
        return self.contains(other)

    def __sub__(self, other: Hand) -> Hand:
        if not isinstance(other, Hand):
            return NotImplemented
        if not self.contains(other):
            raise InvalidNotationError(f"cannot remove {other} from {self}: not all of those cards are in it")
        return Hand._trusted(tuple(a - b for a, b in zip(self._counts, other._counts, strict=True)))

    def __add__(self, other: Hand) -> Hand:
        if not isinstance(other, Hand):
            return NotImplemented
        return Hand(a + b for a, b in zip(self._counts, other._counts, strict=True))

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

    def __iter__(self) -> Iterator[int]:
        """Rank indices of the cards, ascending (see :meth:`ranks`)."""
        return iter(self.ranks())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and self._counts == other._counts

    def __hash__(self) -> int:
        return hash(self._counts)

    def __str__(self) -> str:
        return format_counts(self._counts)

    def __repr__(self) -> str:
        return f"Hand.parse({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[tuple[int, ...]]]:
        return (Hand, (self._counts,))


_DEAL_RE: Final = re.compile(r"\s*\[([^\]]*)\]\s*\[([^\]]*)\]\s*\[([^\]]*)\]\s*(?:\[([^\]]*)\]\s*)?")
_ROLE_NAMES: Final = ("landlord", "farmer 1", "farmer 2")


class Deal:
    """The three hands of one game, **landlord first** (20, 17, 17 cards), plus the kitty.

    ``kitty`` is the landlord's three open cards (底牌, shown to everyone), a sub-multiset of
    the landlord's hand; it is ``None`` when a deal was written without it. Notation:
    ``[landlord][farmer 1][farmer 2]`` or ``[landlord][farmer 1][farmer 2][kitty]``.
    """

    __slots__ = ("_hands", "_kitty")

    _hands: tuple[Hand, Hand, Hand]
    _kitty: Hand | None

    def __init__(self, hands: Sequence[Hand | str], kitty: Hand | str | None = None) -> None:
        hs = tuple(Hand.parse(h) if isinstance(h, str) else h for h in hands)
        if len(hs) != 3:
            raise InvalidNotationError(f"a deal has 3 hands (landlord, farmer 1, farmer 2), got {len(hs)}")
        k = Hand.parse(kitty) if isinstance(kitty, str) else kitty
        text = "".join(f"[{h}]" for h in hs) + (f"[{k}]" if k is not None else "")
        total = [a + b + c for a, b, c in zip(hs[0].counts, hs[1].counts, hs[2].counts, strict=True)]
        if tuple(total) != MAX_COUNT:
            problems = []
            for i, n in enumerate(total):
                if n > MAX_COUNT[i]:
                    problems.append(f"{n} x {RANKS[i]!r} (the deck has {MAX_COUNT[i]})")
                elif n < MAX_COUNT[i]:
                    problems.append(f"{MAX_COUNT[i] - n} x {RANKS[i]!r} missing")
            raise InvalidNotationError(
                f"deal {text} is not a partition of the 54 cards ({sum(total)} cards): {', '.join(problems)}"
            )
        for role, h, size in zip(_ROLE_NAMES, hs, HAND_SIZES, strict=True):
            if len(h) != size:
                raise InvalidNotationError(f"deal {text}: the {role} has {len(h)} cards, expected {size}")
        if k is not None:
            if len(k) != KITTY_SIZE:
                raise InvalidNotationError(
                    f"deal {text}: the kitty has {len(k)} cards, expected {KITTY_SIZE}"
                )
            if not hs[0].contains(k):
                raise InvalidNotationError(
                    f"deal {text}: kitty {k} is not part of the landlord's hand {hs[0]}"
                )
        object.__setattr__(self, "_hands", hs)
        object.__setattr__(self, "_kitty", k)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Deal is immutable")

    @classmethod
    def parse(cls, text: str) -> Deal:
        """Parse ``[..][..][..]`` (optionally ``[kitty]`` after); raises :class:`InvalidNotationError`."""
        if not isinstance(text, str):
            raise InvalidNotationError(f"deal notation must be a string, not {type(text).__name__}")
        m = _DEAL_RE.fullmatch(text)
        if m is None:
            raise InvalidNotationError(
                f"deal {text!r}: expected three bracketed hands, landlord first, e.g. "
                "'[<20 cards>][<17 cards>][<17 cards>]', optionally followed by '[<3 kitty cards>]'"
            )
        roles = (*_ROLE_NAMES, "kitty")
        hands = []
        for role, part in zip(roles[:3], m.groups()[:3], strict=True):
            hands.append(Hand._trusted(parse_counts(part, what=f"deal {text!r}: {role} hand")))
        kitty = m.group(4)
        k = None if kitty is None else Hand._trusted(parse_counts(kitty, what=f"deal {text!r}: kitty"))
        return cls(hands, k)

    @classmethod
    def random(cls, rng: SeedLike) -> Deal:
        """A uniformly random deal by the paper's algorithm (``docs/doudizhu.md`` §4).

        Shuffle the 54 cards; for i = 1..51 card i goes to the landlord if i mod 3 = 1, to
        farmer 1 if i mod 3 = 2, to farmer 2 if i mod 3 = 0; cards 52-54 (the kitty) go to
        the landlord.
        """
        from paiju.core.rng import as_generator

        gen = as_generator(rng)
        order = gen.permutation(DECK_SIZE)
        counts = [[0] * NUM_RANKS for _ in range(3)]
        kitty = [0] * NUM_RANKS
        deck = _DECK_RANKS
        for pos in range(51):  # pos = i - 1, so i mod 3 = 1 <=> pos % 3 == 0 -> landlord
            counts[pos % 3][deck[order[pos]]] += 1
        for pos in range(51, DECK_SIZE):
            r = deck[order[pos]]
            counts[0][r] += 1
            kitty[r] += 1
        return cls._trusted(tuple(Hand._trusted(tuple(c)) for c in counts), Hand._trusted(tuple(kitty)))

    @classmethod
    def _trusted(cls, hands: tuple[Hand, ...], kitty: Hand | None) -> Deal:
        d = object.__new__(cls)
        object.__setattr__(d, "_hands", hands)
        object.__setattr__(d, "_kitty", kitty)
        return d

    @property
    def hands(self) -> tuple[Hand, Hand, Hand]:
        """Landlord, farmer 1 (landlord's next player), farmer 2 (landlord's previous player)."""
        return self._hands

    @property
    def landlord(self) -> Hand:
        return self._hands[0]

    @property
    def farmer1(self) -> Hand:
        return self._hands[1]

    @property
    def farmer2(self) -> Hand:
        return self._hands[2]

    @property
    def kitty(self) -> Hand | None:
        """The landlord's three open cards, or None if the deal was given without them."""
        return self._kitty

    def without_kitty(self) -> Deal:
        """The same hands with the kitty forgotten (notation of exactly three brackets)."""
        return Deal._trusted(self._hands, None)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deal) and self._hands == other._hands and self._kitty == other._kitty

    def __hash__(self) -> int:
        return hash((self._hands, self._kitty))

    def __str__(self) -> str:
        text = "".join(f"[{h}]" for h in self._hands)
        return text if self._kitty is None else f"{text}[{self._kitty}]"

    def __repr__(self) -> str:
        return f"Deal.parse({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Deal.parse, (str(self),))


_DECK_RANKS: Final = tuple(i for i in range(NUM_RANKS) for _ in range(MAX_COUNT[i]))
"""The 54 cards as rank indices (suits do not matter)."""
