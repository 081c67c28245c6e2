"""The core of hand splitting: typed splits, the tag codec, the heuristic and exact solvers.

Import the public API from :mod:`paiju.doudizhu.split`, which re-exports all of this and adds
``split(hand, method, objective)``. Why a module of its own: the learned splitter
(:mod:`paiju.doudizhu.tagger.model`) is built on these types, the tag codec and the exact
solver, while ``split(method="tagger")`` calls the learned splitter; the core sits below the
tagger and the facade above it, so neither imports the other in a circle
(``docs/design.md`` §21).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from paiju.core.errors import ConfigError, InvalidNotationError
from paiju.doudizhu import split_exact as _ex
from paiju.doudizhu.cards import MAX_COUNT, NUM_RANKS, RANKS, Hand, format_counts, parse_counts
from paiju.doudizhu.movetypes import CHAIN_TOP, MIN_CHAIN
from paiju.doudizhu.split_heuristic import ORDERS, heuristic_split

__all__ = [
    "LABELS",
    "OBJECTIVES",
    "ORDERS",
    "Group",
    "GroupType",
    "Play",
    "Split",
    "exact",
    "hand_counts",
    "heuristic",
    "min_groups",
    "min_plays",
    "repair_tags",
    "tags_need_repair",
]

OBJECTIVES: Final = ("groups", "plays")
LABELS: Final = "0123"
"""Tag labels (``docs/splitting.md``, Tags): 0 solo/solo chain, 1 pair/pair chain, 2 trio/trio chain,
3 bomb/rocket."""

_SMALL_JOKER: Final = 13
_BIG_JOKER: Final = 14


class GroupType(StrEnum):
    """The eight basic group types of a split (``docs/splitting.md``), valued by their English names."""

    SOLO = "solo"
    SOLO_CHAIN = "solo chain"
    PAIR = "pair"
    PAIR_CHAIN = "pair chain"
    TRIO = "trio"
    TRIO_CHAIN = "trio chain"
    BOMB = "bomb"
    ROCKET = "rocket"

    @property
    def label(self) -> int:
        """The tag label (``docs/splitting.md``, Tags): 0 solo-like, 1 pair-like, 2 trio-like, 3 bomb."""
        return _LABEL[self]

    @property
    def width(self) -> int:
        """Cards per rank (1 for a rocket: one small and one big joker)."""
        return _WIDTH[self]

    @property
    def is_chain(self) -> bool:
        return self in (GroupType.SOLO_CHAIN, GroupType.PAIR_CHAIN, GroupType.TRIO_CHAIN)


_TYPES: Final = tuple(GroupType)
"""Index = the raw kind codes of :mod:`split_exact` (SOLO=0 ... ROCKET=7)."""
_LABEL: Final = {t: i // 2 for i, t in enumerate(_TYPES)}
_WIDTH: Final = {
    GroupType.SOLO: 1,
    GroupType.SOLO_CHAIN: 1,
    GroupType.PAIR: 2,
    GroupType.PAIR_CHAIN: 2,
    GroupType.TRIO: 3,
    GroupType.TRIO_CHAIN: 3,
    GroupType.BOMB: 4,
    GroupType.ROCKET: 1,
}
_SINGLE: Final = {1: GroupType.SOLO, 2: GroupType.PAIR, 3: GroupType.TRIO, 4: GroupType.BOMB}
_CHAIN_OF: Final = {1: GroupType.SOLO_CHAIN, 2: GroupType.PAIR_CHAIN, 3: GroupType.TRIO_CHAIN}
_SHORTEST: Final = {_CHAIN_OF[w]: MIN_CHAIN[w] for w in (1, 2, 3)}

_BASIC_HELP: Final = (
    "a basic group is a solo, a solo chain (5+ consecutive ranks), a pair, a pair chain "
    "(3+ consecutive pairs), a trio, a trio chain (2+ consecutive trios), a bomb (four of a "
    "rank) or the rocket (XD); chains use ranks 3..A only"
)


@dataclass(frozen=True, slots=True)
class Group:
    """One basic group: its type, lowest rank index and number of ranks.

    ``Group.parse("555444")`` (any character order) -> ``Group(TRIO_CHAIN, 1, 2)``;
    ``str(group)`` is the canonical ascending notation.
    """

    type: GroupType
    low: int
    length: int = 1

    def __post_init__(self) -> None:
        t, low, n = self.type, self.low, self.length
        if not isinstance(t, GroupType):
            raise InvalidNotationError(f"group type must be a GroupType, not {t!r}")
        if t is GroupType.ROCKET:
            ok = low == _SMALL_JOKER and n == 2
        elif t.is_chain:
            ok = low >= 0 and low + n - 1 <= CHAIN_TOP and n >= _SHORTEST[t]
        else:
            ok = n == 1 and 0 <= low <= (_BIG_JOKER if t is GroupType.SOLO else 12)
        if not ok:
            raise InvalidNotationError(
                f"no {t.value} starts at rank index {low} with {n} ranks; {_BASIC_HELP}"
            )

    @classmethod
    def parse(cls, text: str) -> Group:
        """Parse one group in any character order; raises :class:`InvalidNotationError`."""
        counts = parse_counts(text, what="group")
        group = _classify(counts)
        if group is None:
            what = "an empty group" if not any(counts) else f"group {text!r} is not a basic group"
            raise InvalidNotationError(f"{what}: {_BASIC_HELP}")
        return group

    @property
    def counts(self) -> tuple[int, ...]:
        """The group's cards as a 15-count vector."""
        c = [0] * NUM_RANKS
        w = _WIDTH[self.type]
        for r in range(self.low, self.low + self.length):
            c[r] = w
        return tuple(c)

    @property
    def ranks(self) -> range:
        """Rank indices covered by the group."""
        return range(self.low, self.low + self.length)

    @property
    def high(self) -> int:
        """Highest rank index in the group."""
        return self.low + self.length - 1

    @property
    def size(self) -> int:
        """Number of cards."""
        return _WIDTH[self.type] * self.length

    @property
    def label(self) -> int:
        return _LABEL[self.type]

    @property
    def sort_key(self) -> tuple[int, int, int]:
        """Canonical order in a split: by lowest rank, then narrower first, then shorter."""
        return (self.low, _WIDTH[self.type], self.length)

    def __str__(self) -> str:
        return "".join(RANKS[r] * _WIDTH[self.type] for r in self.ranks)

    def __repr__(self) -> str:
        return f"Group.parse({str(self)!r})"


def _classify(counts: Sequence[int]) -> Group | None:
    """The basic group with exactly these cards, or None."""
    ranks = [r for r, n in enumerate(counts) if n]
    if not ranks:
        return None
    if ranks == [_SMALL_JOKER, _BIG_JOKER]:
        return Group(GroupType.ROCKET, _SMALL_JOKER, 2)
    width = counts[ranks[0]]
    if any(counts[r] != width for r in ranks):
        return None
    if len(ranks) == 1:
        return Group(_SINGLE[width], ranks[0], 1)
    low, n = ranks[0], len(ranks)
    if width > 3 or ranks[-1] - low != n - 1 or ranks[-1] > CHAIN_TOP:
        return None
    chain = _CHAIN_OF[width]
    if n < _SHORTEST[chain]:
        return None
    return Group(chain, low, n)


def _from_raw(raw: tuple[int, int, int]) -> Group:
    return Group(_TYPES[raw[0]], raw[1], raw[2])


@dataclass(frozen=True, slots=True)
class Play:
    """A carrier group with the kicker groups it takes, or a group played alone.

    ``kind`` names the move type of ``docs/doudizhu.md`` §2 (``"trio with solo"``, ``"airplane with
    wings"``, ``"four with two"``...).
    """

    body: Group
    kickers: tuple[Group, ...] = ()

    @property
    def counts(self) -> tuple[int, ...]:
        c = list(self.body.counts)
        for k in self.kickers:
            for r, n in enumerate(k.counts):
                c[r] += n
        return tuple(c)

    @property
    def size(self) -> int:
        return self.body.size + sum(k.size for k in self.kickers)

    @property
    def kind(self) -> str:
        if not self.kickers:
            return self.body.type.value
        t = self.body.type
        if t is GroupType.TRIO:
            return "trio with solo" if self.kickers[0].type is GroupType.SOLO else "trio with pair"
        if t is GroupType.TRIO_CHAIN:
            return "airplane with wings"
        return "four with two"

    def __str__(self) -> str:
        return format_counts(self.counts)


class Split:
    """An immutable split: groups in canonical order (ascending lowest rank, then narrower,
    then shorter), hashable and comparable; ``len(split)`` is the number of groups.

    Notation: groups separated by spaces, e.g. ``3 444555 6789T A 22 XD``;
    :meth:`parse` also accepts commas and surrounding braces (``{3, 444555, ...}``) and any
    character order inside a group. ``repr`` round-trips.
    """

    __slots__ = ("_counts", "_groups")

    _groups: tuple[Group, ...]
    _counts: tuple[int, ...]

    def __init__(self, groups: Iterable[Group]) -> None:
        gs = tuple(groups)
        for g in gs:
            if not isinstance(g, Group):
                raise InvalidNotationError(f"a split holds Group values, not {g!r}")
        gs = tuple(sorted(gs, key=lambda g: g.sort_key))
        counts = [0] * NUM_RANKS
        for g in gs:
            for r in g.ranks:
                counts[r] += _WIDTH[g.type]
        for r, n in enumerate(counts):
            if n > MAX_COUNT[r]:
                text = " ".join(str(g) for g in gs)
                limit = "one" if MAX_COUNT[r] == 1 else "four"
                raise InvalidNotationError(
                    f"split {text!r} holds {n} cards of rank {RANKS[r]!r}; the deck has only {limit}"
                )
        object.__setattr__(self, "_groups", gs)
        object.__setattr__(self, "_counts", tuple(counts))

    @classmethod
    def _trusted(cls, groups: Iterable[Group], counts: tuple[int, ...]) -> Split:
        s = object.__new__(cls)
        object.__setattr__(s, "_groups", tuple(sorted(groups, key=lambda g: g.sort_key)))
        object.__setattr__(s, "_counts", counts)
        return s

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Split is immutable")

    @classmethod
    def parse(cls, text: str) -> Split:
        """Parse ``"3 444555 6789T A 22 XD"`` (or ``"{3, 444555, ...}"``)."""
        if not isinstance(text, str):
            raise InvalidNotationError(f"split notation must be a string, not {type(text).__name__}")
        body = text.strip()
        if body.startswith("{") and body.endswith("}"):
            body = body[1:-1]
        groups = []
        for token in re.split(r"[\s,]+", body.strip()):
            if not token:
                continue
            try:
                groups.append(Group.parse(token))
            except InvalidNotationError as err:
                raise InvalidNotationError(f"split {text!r}: {err}") from None
        return cls(groups)

    @classmethod
    def from_tags(cls, hand: Hand | str, tags: str | Sequence[int], *, repair: bool = True) -> Split:
        """Decode per-card tags (``docs/splitting.md``, Tags) into a split; see :func:`repair_tags` for the
        repair of tags that cannot be decoded as given (``repair=False`` raises instead)."""
        counts = hand_counts(hand)
        labels = _parse_tags(counts, tags)
        per_rank = _label_counts(counts, labels)
        if _needs_repair(per_rank):
            if not repair:
                raise InvalidNotationError(
                    f"tags {''.join(map(str, labels))!r} cannot be decoded for hand "
                    f"{format_counts(counts)!r}: {_repair_reason(per_rank)}"
                )
            per_rank = _repair(per_rank)
        return _decode(per_rank, counts)

    # --- views -------------------------------------------------------------------------

    @property
    def groups(self) -> tuple[Group, ...]:
        return self._groups

    @property
    def counts(self) -> tuple[int, ...]:
        """The split's cards as a 15-count vector."""
        return self._counts

    @property
    def hand(self) -> Hand:
        return Hand._trusted(self._counts)

    @property
    def num_groups(self) -> int:
        return len(self._groups)

    @property
    def num_plays(self) -> int:
        """Fewest plays these groups can be played out in, kickers attached optimally."""
        return len(self.plays())

    def by_type(self) -> dict[GroupType, int]:
        """Number of groups of each type (every type present as a key)."""
        out = dict.fromkeys(_TYPES, 0)
        for g in self._groups:
            out[g.type] += 1
        return out

    def tags(self) -> str:
        """One label per card of the hand in canonical ascending order; the cards of one
        rank take their labels in ascending order (cards of a rank are interchangeable)."""
        per_rank: list[list[int]] = [[] for _ in range(NUM_RANKS)]
        for g in self._groups:
            for r in g.ranks:
                per_rank[r].extend([_LABEL[g.type]] * _WIDTH[g.type])
        return "".join(str(label) for labels in per_rank for label in sorted(labels))

    def plays(self) -> tuple[Play, ...]:
        """These groups as the fewest plays: kickers attached to trios, airplanes and fours
        by the DouZero rules of ``docs/doudizhu.md`` §2 (see :func:`paiju.doudizhu.split_exact.max_kickers`),
        listed by body in the split's canonical order. Deterministic: airplanes (longest,
        then highest) choose first, then fours and trios from the highest; solo kickers are
        the lowest the rules allow, pair kickers come from the ranks with most pairs left."""
        return _attach(self._groups)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: groups with types and labels, plays, tags."""
        return {
            "hand": format_counts(self._counts),
            "split": str(self),
            "groups": [{"cards": str(g), "type": g.type.value, "label": g.label} for g in self._groups],
            "num_groups": len(self._groups),
            "plays": [{"cards": str(p), "kind": p.kind} for p in self.plays()],
            "num_plays": self.num_plays,
            "tags": self.tags(),
        }

    # --- protocol ------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._groups)

    def __iter__(self) -> Iterator[Group]:
        return iter(self._groups)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Split) and self._groups == other._groups

    def __hash__(self) -> int:
        return hash(self._groups)

    def __str__(self) -> str:
        return " ".join(str(g) for g in self._groups)

    def __repr__(self) -> str:
        return f"Split.parse({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Split.parse, (str(self),))


# ======================================================================================
# tag codec
# ======================================================================================


def hand_counts(hand: Hand | str | Sequence[int]) -> tuple[int, ...]:
    """The 15 rank counts of ``hand`` (a Hand, its notation or counts), checked."""
    if isinstance(hand, Hand):
        return hand.counts
    if isinstance(hand, bytes | bytearray) or not isinstance(hand, Sequence):
        raise InvalidNotationError(f"a hand is notation like '34445556789TA22XD' or a Hand, not {hand!r}")
    if isinstance(hand, str):
        return parse_counts(hand, what="hand")
    return Hand.from_counts(hand).counts


def _parse_tags(counts: Sequence[int], tags: str | Sequence[int]) -> list[int]:
    """Tags as a list of ints 0..3, one per card; separators (commas, spaces) allowed."""
    if isinstance(tags, str):
        cleaned = re.sub(r"[\s,]+", "", tags)
        bad = [ch for ch in cleaned if ch not in LABELS]
        if bad:
            raise InvalidNotationError(f"tags {tags!r}: unknown label {bad[0]!r}; labels are 0, 1, 2, 3")
        labels = [int(ch) for ch in cleaned]
    else:
        labels = []
        for x in tags:
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= 3:
                raise InvalidNotationError(f"tags {list(tags)!r}: label {x!r} is not one of 0, 1, 2, 3")
            labels.append(int(x))
    n = sum(counts)
    if len(labels) != n:
        raise InvalidNotationError(
            f"tags {''.join(map(str, labels))!r} have {len(labels)} labels for the {n} cards of "
            f"{format_counts(counts)!r}"
        )
    return labels


def _label_counts(counts: Sequence[int], labels: Sequence[int]) -> list[list[int]]:
    """``per_rank[r][label]``: how many cards of rank r carry each label (hand in
    canonical ascending order, so card i belongs to the i-th rank slot)."""
    per_rank = [[0, 0, 0, 0] for _ in range(NUM_RANKS)]
    i = 0
    for r, n in enumerate(counts):
        for _ in range(n):
            per_rank[r][labels[i]] += 1
            i += 1
    return per_rank


def _rank_ok(r: int, a: Sequence[int], rocket: bool) -> bool:
    if r >= _SMALL_JOKER:
        return a[1] == 0 and a[2] == 0 and (a[3] == 0 or rocket)
    return a[1] % 2 == 0 and a[2] in (0, 3) and a[3] in (0, 4)


def _rocket_tagged(per_rank: Sequence[Sequence[int]]) -> bool:
    return per_rank[_SMALL_JOKER][3] == 1 and per_rank[_BIG_JOKER][3] == 1


def _needs_repair(per_rank: Sequence[Sequence[int]]) -> bool:
    rocket = _rocket_tagged(per_rank)
    return not all(_rank_ok(r, a, rocket) for r, a in enumerate(per_rank))


def _repair_reason(per_rank: Sequence[Sequence[int]]) -> str:
    rocket = _rocket_tagged(per_rank)
    for r, a in enumerate(per_rank):
        if _rank_ok(r, a, rocket):
            continue
        name = RANKS[r]
        if r >= _SMALL_JOKER:
            label = max(i for i in range(4) if a[i])
            return f"joker {name!r} is tagged {label}; a joker is a solo (0) or, with the other, a rocket (3)"
        if a[3] not in (0, 4):
            return f"{a[3]} card(s) of rank {name!r} tagged 3, but a bomb needs all four"
        if a[2] not in (0, 3):
            return f"{a[2]} card(s) of rank {name!r} tagged 2, but a trio needs three"
        return f"{a[1]} card(s) of rank {name!r} tagged 1, an odd number cannot form pairs"
    return "no problem"


def _repair(per_rank: Sequence[Sequence[int]]) -> list[list[int]]:
    """The documented repair: at each rank, labels that cannot be honoured are lowered one
    step at a time (3 -> 2 -> 1 -> 0) until they can: label 3 keeps all four cards of a rank
    (or both jokers), label 2 keeps three, label 1 an even number, label 0 anything."""
    rocket = _rocket_tagged(per_rank)
    out: list[list[int]] = []
    for r, a in enumerate(per_rank):
        if r >= _SMALL_JOKER:
            n = sum(a)
            out.append([0, 0, 0, n] if rocket else [n, 0, 0, 0])
            continue
        b = [0, 0, 0, 0]
        carry = 0
        for label in (3, 2, 1, 0):
            k = a[label] + carry
            if label == 3:
                keep = 4 if k == 4 else 0
            elif label == 2:
                keep = 3 if k >= 3 else 0
            elif label == 1:
                keep = k - k % 2
            else:
                keep = k
            b[label] = keep
            carry = k - keep
        out.append(b)
    return out


def _tags_of(per_rank: Sequence[Sequence[int]]) -> str:
    return "".join(str(label) * a[label] for a in per_rank for label in range(4))


def tags_need_repair(hand: Hand | str, tags: str | Sequence[int]) -> bool:
    """True if ``tags`` cannot be decoded for ``hand`` as given (a lone card tagged 1, three
    cards tagged 3, a lone joker tagged 3, ...) and :func:`repair_tags` would change them."""
    counts = hand_counts(hand)
    return _needs_repair(_label_counts(counts, _parse_tags(counts, tags)))


def repair_tags(hand: Hand | str, tags: str | Sequence[int]) -> str:
    """``tags`` after the documented repair (unchanged when decodable; see :func:`_repair`).

    Rule: at each rank, labels that cannot be honoured are lowered one step at a time,
    3 -> 2 -> 1 -> 0: a 3 survives only on all four cards of a rank or on both jokers, a 2
    only on exactly three cards (a fourth is lowered), a 1 only on an even number of cards
    (one is lowered); 0 is always decodable. The result is returned in canonical order
    (each rank's labels ascending).
    """
    counts = hand_counts(hand)
    per_rank = _label_counts(counts, _parse_tags(counts, tags))
    if _needs_repair(per_rank):
        per_rank = _repair(per_rank)
    return _tags_of(per_rank)


_cover_memo: dict[tuple[int, tuple[int, ...]], int] = {}


def _cover(s: tuple[int, ...], shortest: int) -> int:
    """Fewest groups for units ``s`` (counts per rank, from some rank up to A) cut into
    chains of >= ``shortest`` consecutive units and single units."""
    key = (shortest, s)
    v = _cover_memo.get(key)
    if v is not None:
        return v
    if not s:
        return 0
    if s[0] == 0:
        v = _cover(s[1:], shortest)
    else:
        v = s[0] + _cover(s[1:], shortest)  # every unit left at this rank stands alone
        run = 0
        while run < len(s) and s[run] >= 1:
            run += 1
        for length in range(run, shortest - 1, -1):
            t = tuple([x - 1 for x in s[:length]]) + s[length:]
            v = min(v, 1 + _cover(t, shortest))
    _cover_memo[key] = v
    return v


def _chain_units(units: list[int], shortest: int) -> list[tuple[int, int]]:
    """Cut units into chains ``(low, length)`` with the fewest groups (ties: longer chains
    first, starting lower); ``units`` is modified to the units left alone."""
    chains: list[tuple[int, int]] = []
    r = 0
    while r <= CHAIN_TOP:
        s = tuple(units[r : CHAIN_TOP + 1])
        if s[0] == 0:
            r += 1
            continue
        target = _cover(s, shortest)
        run = 0
        while run < len(s) and s[run] >= 1:
            run += 1
        for length in range(run, shortest - 1, -1):
            t = tuple([x - 1 for x in s[:length]]) + s[length:]
            if 1 + _cover(t, shortest) == target:
                chains.append((r, length))
                for i in range(r, r + length):
                    units[i] -= 1
                break
        else:
            r += 1
    return chains


def _decode(per_rank: Sequence[Sequence[int]], counts: tuple[int, ...]) -> Split:
    """Decode decodable per-rank label counts (the rule of ``docs/splitting.md``, Tags)."""
    groups: list[Group] = []
    for label, width, chain_type, single_type, shortest in (
        (0, 1, GroupType.SOLO_CHAIN, GroupType.SOLO, 5),
        (1, 2, GroupType.PAIR_CHAIN, GroupType.PAIR, 3),
        (2, 3, GroupType.TRIO_CHAIN, GroupType.TRIO, 2),
    ):
        units = [a[label] // width for a in per_rank]
        for low, length in _chain_units(units, shortest):
            groups.append(Group(chain_type, low, length))
        for r, n in enumerate(units):
            if n:
                groups.extend([Group(single_type, r, 1)] * n)
    for r in range(_SMALL_JOKER):
        if per_rank[r][3] == 4:
            groups.append(Group(GroupType.BOMB, r, 1))
    if _rocket_tagged(per_rank):
        groups.append(Group(GroupType.ROCKET, _SMALL_JOKER, 2))
    return Split._trusted(groups, tuple(counts))


# ======================================================================================
# kicker attachment (Split.plays)
# ======================================================================================


def _attach(groups: tuple[Group, ...]) -> tuple[Play, ...]:
    """Attach kickers optimally (see :func:`split_exact.max_kickers` for the conditions);
    the assignment itself is built by augmenting paths (solos) and the Gale-Ryser greedy
    (pairs: each carrier takes the ranks with most pair groups left, lowest first)."""
    solos = sorted((g for g in groups if g.type is GroupType.SOLO), key=lambda g: g.low)
    pairs = sorted((g for g in groups if g.type is GroupType.PAIR), key=lambda g: g.low)
    trios = sorted((g for g in groups if g.type is GroupType.TRIO), key=lambda g: -g.low)
    bombs = sorted((g for g in groups if g.type is GroupType.BOMB), key=lambda g: -g.low)
    planes = sorted((g for g in groups if g.type is GroupType.TRIO_CHAIN), key=lambda g: (-g.length, -g.low))
    rest = [g for g in groups if g.type not in _CARRIER_OR_KICKER]

    solo_ranks = [g.low for g in solos]
    pair_count: dict[int, int] = {}
    for g in pairs:
        pair_count[g.low] = pair_count.get(g.low, 0) + 1
    twins = sum(1 for n in pair_count.values() if n == 2)
    flagged = [t for t in trios if t.low in solo_ranks]
    plain = [t for t in trios if t.low not in solo_ranks]
    air = [(p.length, sum(1 for r in solo_ranks if p.low <= r <= p.high)) for p in planes]

    n_s, n_p = len(solos), len(pairs)
    _, modes = _ex.max_kickers(n_s, n_p, twins, len(plain), len(flagged), len(bombs), air)
    solo_carriers: list[tuple[Group, int]] = []  # (carrier, slots)
    pair_carriers: list[tuple[Group, int]] = []
    ds = dp = 0
    for p, m in zip(planes, modes, strict=True):
        if m == 1:
            solo_carriers.append((p, p.length))
            ds += p.length
        elif m == 2:
            pair_carriers.append((p, p.length))
            dp += p.length
    s1, p1 = n_s - ds, n_p - dp
    pair_bombs = p1 // 2 if n_p - twins >= 2 else 0
    if n_s >= 2 or not flagged:
        bs, bp, solo_trios, pair_trios = _bomb_and_trio_carriers(bombs, trios, s1, p1, pair_bombs)
    else:  # at most one solo: flagged trios may only take pairs
        bs, bp, solo_trios, pair_trios = _carriers_beside_one_solo(bombs, trios, plain, s1, p1, pair_bombs)
    solo_carriers += [(b, 2) for b in bombs[:bs]] + [(t, 1) for t in solo_trios]
    pair_carriers += [(b, 2) for b in bombs[bs : bs + bp]] + [(t, 1) for t in pair_trios]

    taken: dict[int, list[Group]] = {}  # id(carrier) -> kickers
    carrier_of = _match_solo_kickers(solos, solo_carriers, groups)
    for solo, carrier in zip(solos, carrier_of, strict=True):
        if carrier is not None:
            taken.setdefault(id(carrier), []).append(solo)
    used_pairs = _deal_pair_kickers(pair_carriers, pair_count, taken, groups)

    plays: list[Play] = []
    for c in [*planes, *bombs, *trios]:
        ks = taken.get(id(c), [])
        plays.append(Play(c, tuple(sorted(ks, key=lambda g: g.sort_key))))
    plays += [Play(g) for g, carrier in zip(solos, carrier_of, strict=True) if carrier is None]
    for g in pairs:
        if used_pairs.get(g.low, 0) > 0:
            used_pairs[g.low] -= 1
        else:
            plays.append(Play(g))
    plays += [Play(g) for g in rest]
    return tuple(sorted(plays, key=lambda p: p.body.sort_key))


def _bomb_and_trio_carriers(
    bombs: list[Group], trios: list[Group], s1: int, p1: int, pair_bombs: int
) -> tuple[int, int, list[Group], list[Group]]:
    """How many bombs take two solos / two pairs, and which trios take a solo / a pair, when
    any trio may take a solo: bombs first (two kickers each), solos before pairs."""
    u = min(len(bombs), s1 // 2 + pair_bombs)
    bs = min(u, s1 // 2)
    bp = u - bs
    n_trio = min(len(trios), s1 - 2 * bs + p1 - 2 * bp)
    ts = min(n_trio, s1 - 2 * bs)
    return bs, bp, trios[:ts], trios[ts:n_trio]


def _carriers_beside_one_solo(
    bombs: list[Group], trios: list[Group], plain: list[Group], s1: int, p1: int, pair_bombs: int
) -> tuple[int, int, list[Group], list[Group]]:
    """The same when the hand has at most one solo: a trio of the solo's rank (flagged) may
    not take it, so bombs take pairs only and the solo goes to a plain trio."""
    bp = min(len(bombs), pair_bombs)
    ts = min(s1, len(plain))
    solo_trios = plain[:ts]
    others = [t for t in trios if t not in solo_trios]
    return 0, bp, solo_trios, others[: min(len(others), p1 - 2 * bp)]


def _match_solo_kickers(
    solos: list[Group], solo_carriers: list[tuple[Group, int]], groups: tuple[Group, ...]
) -> list[Group | None]:
    """Each solo's carrier, or None if it stays a play of its own.

    A bipartite matching of carrier slots to solo groups (a solo may not share its carrier's
    rank): Kuhn's augmenting paths, slots in carrier order, solos lowest first."""
    slots = [c for c, n in solo_carriers for _ in range(n)]
    owner: list[int] = [-1] * len(solos)

    def augment(slot: int, seen: list[bool]) -> bool:
        c = slots[slot]
        for j in range(len(solos)):
            if seen[j] or c.low <= solos[j].low <= c.high:
                continue
            seen[j] = True
            if owner[j] < 0 or augment(owner[j], seen):
                owner[j] = slot
                return True
        return False

    for slot in range(len(slots)):
        if not augment(slot, [False] * len(solos)):
            raise AssertionError(f"kicker attachment failed for {groups}")  # Hall says impossible
    return [slots[slot] if slot >= 0 else None for slot in owner]


def _deal_pair_kickers(
    pair_carriers: list[tuple[Group, int]],
    pair_count: dict[int, int],
    taken: dict[int, list[Group]],
    groups: tuple[Group, ...],
) -> dict[int, int]:
    """Give the pair carriers their pairs (into ``taken``); the pairs used, by rank.

    Largest carriers first, each takes distinct ranks with the most pair groups left."""
    left = dict(pair_count)
    used_pairs: dict[int, int] = {}
    for c, n in sorted(pair_carriers, key=lambda cn: -cn[1]):
        ranks = sorted((r for r, k in left.items() if k > 0), key=lambda r: (-left[r], r))[:n]
        if len(ranks) < n:
            raise AssertionError(f"kicker attachment failed for {groups}")  # Gale-Ryser says impossible
        for r in ranks:
            left[r] -= 1
            used_pairs[r] = used_pairs.get(r, 0) + 1
            taken.setdefault(id(c), []).append(Group(GroupType.PAIR, r, 1))
    return used_pairs


_CARRIER_OR_KICKER: Final = (
    GroupType.SOLO,
    GroupType.PAIR,
    GroupType.TRIO,
    GroupType.TRIO_CHAIN,
    GroupType.BOMB,
)


# ======================================================================================
# the public solvers
# ======================================================================================


def _split_of(raw: Iterable[tuple[int, int, int]], counts: tuple[int, ...]) -> Split:
    return Split._trusted([_from_raw(g) for g in raw], counts)


def heuristic(hand: Hand | str | Sequence[int]) -> Split:
    """The paper's baseline (``docs/splitting.md``): fewest groups over the 40 greedy priority orders."""
    counts = hand_counts(hand)
    groups, _ = heuristic_split(counts)
    return _split_of(groups, counts)


def exact(hand: Hand | str | Sequence[int], objective: str = "groups") -> Split:
    """A provably optimal split for ``objective`` ("groups" or "plays"), documented tie-break."""
    counts = hand_counts(hand)
    if objective == "groups":
        return _split_of(_ex.split_min_groups(counts), counts)
    if objective == "plays":
        return _split_of(_ex.split_min_plays(counts), counts)
    raise ConfigError(f"unknown split objective {objective!r}; expected one of {', '.join(OBJECTIVES)}")


def min_groups(hand: Hand | str | Sequence[int]) -> int:
    """Fewest basic groups of ``hand`` (fast path for agents: no Split is built)."""
    return _ex.min_groups(hand_counts(hand))


def min_plays(hand: Hand | str | Sequence[int]) -> int:
    """Fewest plays of ``hand``, kickers attached (fast path for agents)."""
    return _ex.min_plays(hand_counts(hand))
