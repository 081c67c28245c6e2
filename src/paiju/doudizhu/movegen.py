"""Legal-move generation on packed count keys (``docs/design.md`` §8).

Shape: classify the move to beat, generate only that type (and length) above its rank, then
add bombs and the rocket; on a free lead generate every type. Everything works on the hand's
15 rank counts, so a move can never be produced twice: there is exactly one way to pick
counts, unlike DouZero's combinations over card lists (its bug D1). Card sets with several
readings are generated once, in the reading :mod:`paiju.doudizhu.moves` documents (``top``
reading when following, ``lead`` reading on a free lead).

How it is fast (each step measured in ``docs/results/ddz-engine.md``):

* every move is an interned :class:`Move`, so generating one is a lookup, not an allocation;
* four bit masks of the hand (ranks with >= 1, >= 2, >= 3, 4 cards; one bit per rank's
  nibble) are computed with a handful of integer operations, and every kicker-free part of
  the answer (solos + solo chains, pairs + pair chains, trios + trio chains, bombs, a trio's
  solo/pair kickers, a four's kickers, an airplane's pair wings) is a tuple looked up by
  mask in a table that is filled lazily, the first time a mask is seen;
* airplane solo wings depend on the exact counts, so they are enumerated as multisets of
  the remaining counts (one count per rank: duplicate-free) and memoised per remaining hand;
* the lead list of a hand is memoised (bounded), which pays off in search rollouts where
  the same hands recur;
* a fresh process meets new masks all the time, so the table builders are C-level maps over
  precomputed rank tuples and per-run chain tuples (``benchmarks/first_call.py``,
  ``docs/results/first-call.md``).

The public string API ``paiju.doudizhu.legal_moves`` is answered by
:mod:`paiju.doudizhu.movetext`, which lists the same moves as strings without Move objects
(tested against :func:`generate` and :func:`legal_moves` here).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from itertools import combinations
from typing import Final, Generic, TypeVar

from paiju.core.errors import InvalidNotationError
from paiju.doudizhu.cards import BIG_JOKER, NUM_RANKS, SMALL_JOKER
from paiju.doudizhu.moves import (
    _INTERN,
    BOMB_TYPES,
    CHAIN_OF_WIDTH,
    CHAIN_TOP,
    MIN_CHAIN,
    OF_A_KIND,
    PASS,
    SHIFTS,
    UNIT,
    Move,
    MoveType,
    contains_key,
    intern,
    notations,
    parse_key,
)

# hot-path aliases of the members (docs/design.md, "One source per fact")
_PASS, _SOLO, _PAIR, _TRIO = MoveType.PASS, MoveType.SOLO, MoveType.PAIR, MoveType.TRIO
_BOMB, _ROCKET = MoveType.BOMB, MoveType.ROCKET
_TRIO_SOLO, _TRIO_PAIR = MoveType.TRIO_SOLO, MoveType.TRIO_PAIR
_SOLO_CHAIN, _PAIR_CHAIN, _TRIO_CHAIN = MoveType.SOLO_CHAIN, MoveType.PAIR_CHAIN, MoveType.TRIO_CHAIN
_AIRPLANE_SOLO, _AIRPLANE_PAIR = MoveType.AIRPLANE_SOLO, MoveType.AIRPLANE_PAIR
_FOUR_TWO_SOLO, _FOUR_TWO_PAIR = MoveType.FOUR_TWO_SOLO, MoveType.FOUR_TWO_PAIR

LOW: Final = sum(1 << s for s in SHIFTS)
"""Bit 0 of every rank nibble: the layout of the rank masks."""
CHAINABLE: Final = sum(1 << SHIFTS[r] for r in range(CHAIN_TOP + 1))
"""Mask of the ranks 3..A (the ones that may form chains)."""
ABOVE: Final = tuple(sum(1 << SHIFTS[r] for r in range(lo + 1, NUM_RANKS)) for lo in range(NUM_RANKS))
"""ABOVE[r]: mask of the ranks higher than r."""
JOKERS: Final = UNIT[SMALL_JOKER] | UNIT[BIG_JOKER]
_ALL: Final = (1 << (4 * NUM_RANKS)) - 1

K = TypeVar("K")
V = TypeVar("V")


class _Lazy(dict[K, V], Generic[K, V]):
    """A table filled on first use of each key (``table[key]`` builds a missing entry)."""

    def __init__(self, build: Callable[[K], V]) -> None:
        super().__init__()
        self.build = build

    def __missing__(self, key: K) -> V:
        value = self.build(key)
        self[key] = value
        return value


def _rank_subsets(first: int, count: int) -> dict[int, tuple[int, ...]]:
    """Ranks ``first .. first + count - 1`` of every rank mask of them (bits at 4 * (r - first))."""
    table: dict[int, tuple[int, ...]] = {0: ()}
    for r in range(first, first + count):
        bit = 1 << SHIFTS[r - first]
        table.update({m | bit: (*ranks, r) for m, ranks in table.items()})
    return table


_RANKS_LO: Final = _rank_subsets(0, 8)
_RANKS_HI: Final = _rank_subsets(8, NUM_RANKS - 8)
_LO_MASK: Final = (1 << SHIFTS[8]) - 1


def _ranks(mask: int) -> tuple[int, ...]:
    mask &= LOW
    return _RANKS_LO[mask & _LO_MASK] + _RANKS_HI[mask >> SHIFTS[8]]


RANKS_OF: Final = _Lazy[int, tuple[int, ...]](_ranks)
"""RANKS_OF[mask]: the ranks whose bit is set, ascending (table builders call :func:`_ranks`:
their masks are new by definition, and a second table miss inside the first costs more than
the two lookups)."""


def _half_runs(first: int) -> dict[int, tuple[tuple[int, int], ...]]:
    """Maximal runs (start, length) inside ranks ``first .. first + 5``, by their rank mask."""
    table = {}
    for dense in range(64):
        runs: list[tuple[int, int]] = []
        for r in range(6):
            if dense >> r & 1:
                if runs and runs[-1][0] + runs[-1][1] == first + r:
                    runs[-1] = (runs[-1][0], runs[-1][1] + 1)
                else:
                    runs.append((first + r, 1))
        table[sum(1 << SHIFTS[r] for r in range(6) if dense >> r & 1)] = tuple(runs)
    return table


_RUNS_LO: Final = _half_runs(0)
_RUNS_HI: Final = _half_runs(6)
_HALF: Final = (1 << SHIFTS[6]) - 1
_BOTTOM_OF_HI: Final = 1 << SHIFTS[6]
_TOP_OF_LO: Final = 1 << SHIFTS[5]


def _max_runs(mask: int) -> tuple[tuple[int, int], ...]:
    """(start, length) of every maximal run of consecutive ranks 3..A in ``mask``, ascending.

    Two lookups (ranks 3..8 and 9..A), joined when a run crosses from 8 to 9.
    """
    mask &= CHAINABLE
    lo = _RUNS_LO[mask & _HALF]
    hi = _RUNS_HI[mask >> SHIFTS[6]]
    if mask & _TOP_OF_LO and mask & _BOTTOM_OF_HI:
        s, n = lo[-1]
        return (*lo[:-1], (s, n + hi[0][1]), *hi[1:])
    return lo + hi


def _runs(mask: int, minlen: int) -> list[tuple[int, int]]:
    """(start, length) of every window of consecutive ranks 3..A inside ``mask``, length >= minlen."""
    return [
        (st, n)
        for s, length in _max_runs(mask)
        for n in range(minlen, length + 1)
        for st in range(s, s + length - n + 1)
    ]


SINGLE: Final = {
    w: tuple(intern(w * UNIT[r], OF_A_KIND[w], r) for r in range(NUM_RANKS if w == 1 else 13))
    for w in (1, 2, 3, 4)
}
"""SINGLE[width][rank]: the solo, pair, trio or bomb of a rank (built at import: 54 moves)."""


def _chain_table(w: int) -> _Lazy[tuple[int, int], Move]:
    def build(start_length: tuple[int, int]) -> Move:
        s, n = start_length
        return intern(sum(w * UNIT[r] for r in range(s, s + n)), CHAIN_OF_WIDTH[w], s)

    return _Lazy(build)


CHAIN: Final = {w: _chain_table(w) for w in (1, 2, 3)}
"""CHAIN[width][(start, length)]: the solo, pair or trio chain (interned at first use)."""


def _run_chains_table(w: int) -> _Lazy[tuple[int, int], tuple[Move, ...]]:
    chain, minlen = CHAIN[w], MIN_CHAIN[w]
    return _Lazy(
        lambda run: tuple(
            chain[(st, n)] for n in range(minlen, run[1] + 1) for st in range(run[0], run[0] + run[1] - n + 1)
        )
    )


_RUN_CHAINS: Final = {w: _run_chains_table(w) for w in (1, 2, 3)}
"""_RUN_CHAINS[width][(start, length)]: the chains inside one maximal run, in generation order."""


def _chain(width: int, start: int, n: int) -> Move:
    return CHAIN[width][(start, n)]


def _by_rank(row: tuple[Move, ...]) -> Callable[[int], tuple[Move, ...]]:
    """Builder: ``row[r]`` for every rank ``r`` of a mask, ascending (one C-level map)."""
    move_of = row.__getitem__
    return lambda mask: tuple(map(move_of, _ranks(mask)))


def _lead_group(width: int) -> Callable[[int], tuple[Move, ...]]:
    """Builder: the single moves of one width (solo/pair/trio) plus every chain of them."""
    move_of = SINGLE[width].__getitem__
    run_chains = _RUN_CHAINS[width]
    minlen = MIN_CHAIN[width]

    def build(mask: int) -> tuple[Move, ...]:
        moves = list(map(move_of, _ranks(mask)))
        for run in _max_runs(mask):
            if run[1] >= minlen:
                moves += run_chains[run]
        return tuple(moves)

    return build


LEAD1: Final = _Lazy[int, tuple[Move, ...]](_lead_group(1))
LEAD2: Final = _Lazy[int, tuple[Move, ...]](_lead_group(2))
LEAD3: Final = _Lazy[int, tuple[Move, ...]](_lead_group(3))
SOLOS: Final = _Lazy[int, tuple[Move, ...]](_by_rank(SINGLE[1]))
PAIRS: Final = _Lazy[int, tuple[Move, ...]](_by_rank(SINGLE[2]))
TRIOS: Final = _Lazy[int, tuple[Move, ...]](_by_rank(SINGLE[3]))
BOMBS: Final = _Lazy[int, tuple[Move, ...]](_by_rank(SINGLE[4]))
ROCKET: Final = intern(JOKERS, _ROCKET, SMALL_JOKER)
TRIO_WINDOWS: Final = _Lazy[int, tuple[tuple[int, int], ...]](lambda m: tuple(_runs(m, 2)))
"""TRIO_WINDOWS[mask of ranks with >= 3]: (start, length) of every trio chain."""


def _chains_of_length(width: int, n: int) -> _Lazy[int, tuple[Move, ...]]:
    chain = CHAIN[width]
    return _Lazy(
        lambda m: tuple(
            chain[(st, n)] for s, length in _max_runs(m) for st in range(s, s + length - n + 1)
        )
    )


_LONGEST_CHAIN: Final = CHAIN_TOP + 1
"""Ranks 3..A: the most a chain (or an airplane's body) can span."""
CHAINS: Final = {
    (w, n): _chains_of_length(w, n) for w in (1, 2, 3) for n in range(MIN_CHAIN[w], _LONGEST_CHAIN + 1)
}
"""CHAINS[(width, length)][mask]: chains of exactly that length inside the mask."""


def _kicker_row(width: int, t: int) -> tuple[Move, ...]:
    """The trio of rank ``t`` with each rank as its solo (width 1) or pair (width 2).

    Index ``t`` holds PASS as a filler: a trio never kicks its own rank, so its users look up
    only the ranks of a mask without ``t``.
    """
    type_ = _TRIO_SOLO if width == 1 else _TRIO_PAIR
    ranks = NUM_RANKS if width == 1 else 13
    return tuple(intern(3 * UNIT[t] + width * UNIT[k], type_, t) if k != t else PASS for k in range(ranks))


_KICKER_ROWS: Final = {w: _Lazy[int, tuple[Move, ...]](partial(_kicker_row, w)) for w in (1, 2)}
"""_KICKER_ROWS[width][trio rank]: the trio with each solo / pair (interned at first use)."""


def _trio_kicker_row(width: int, t: int) -> _Lazy[int, tuple[Move, ...]]:
    rows, without_t = _KICKER_ROWS[width], ~(1 << SHIFTS[t])
    return _Lazy(lambda m: tuple(map(rows[t].__getitem__, _ranks(m & without_t))))


def _trio_solo_row(t: int) -> _Lazy[int, tuple[Move, ...]]:
    return _trio_kicker_row(1, t)


def _trio_pair_row(t: int) -> _Lazy[int, tuple[Move, ...]]:
    return _trio_kicker_row(2, t)


TRIO_SOLO: Final = tuple(_trio_solo_row(t) for t in range(13))
"""TRIO_SOLO[trio rank][mask of ranks present]: the trio with each possible solo."""
TRIO_PAIR: Final = tuple(_trio_pair_row(t) for t in range(13))


def _four_solo_row(f: int, strict: bool) -> _Lazy[int, tuple[Move, ...]]:
    def build(masks: int) -> tuple[Move, ...]:
        m1, m2 = masks & _ALL, masks >> 64
        ks = [r for r in _ranks(m1) if r != f]
        pairs = set(_ranks(m2))
        moves = []
        for i, a in enumerate(ks):
            if a in pairs:
                moves.append(intern(4 * UNIT[f] + 2 * UNIT[a], _FOUR_TWO_SOLO, f))
            for b in ks[i + 1 :]:
                if strict and a == SMALL_JOKER:
                    continue  # RLCard: the rocket is not two solos
                moves.append(intern(4 * UNIT[f] + UNIT[a] + UNIT[b], _FOUR_TWO_SOLO, f))
        return tuple(moves)

    return _Lazy(build)


def _four_pair_row(f: int) -> _Lazy[int, tuple[Move, ...]]:
    def build(m2: int) -> tuple[Move, ...]:
        ps = [r for r in _ranks(m2) if r != f]
        return tuple(
            intern(4 * UNIT[f] + 2 * UNIT[a] + 2 * UNIT[b], _FOUR_TWO_PAIR, f) for a, b in combinations(ps, 2)
        )

    return _Lazy(build)


FOUR_SOLO: Final = {strict: tuple(_four_solo_row(f, strict) for f in range(13)) for strict in (False, True)}
"""FOUR_SOLO[strict][four rank][m1 | m2 << 64]: the four with every two solo kickers."""
FOUR_PAIR: Final = tuple(_four_pair_row(f) for f in range(13))
_BODY3: Final = {
    (s, n): sum(3 * UNIT[r] for r in range(s, s + n))
    for n in range(MIN_CHAIN[3], _LONGEST_CHAIN + 1)
    for s in range(_LONGEST_CHAIN - n + 1)
}
_BODY_MASK: Final = {(s, n): sum(15 << SHIFTS[r] for r in range(s, s + n)) for (s, n) in _BODY3}


def _air_pair_table(s: int, n: int) -> _Lazy[int, tuple[Move, ...]]:
    body = _BODY3[(s, n)]

    def build(m2: int) -> tuple[Move, ...]:
        avail = [p for p in _ranks(m2) if not s <= p < s + n]
        return tuple(
            intern(body + sum(2 * UNIT[p] for p in combo), _AIRPLANE_PAIR, s)
            for combo in combinations(avail, n)
        )

    return _Lazy(build)


AIR_PAIR: Final = {sn: _air_pair_table(*sn) for sn in _BODY3}
"""AIR_PAIR[(start, length)][mask of ranks with >= 2]: airplanes with pair wings."""

_CACHE_LIMIT: Final = 200_000
_WING_CACHE: dict[int, tuple[int, ...]] = {}
_AIR_SOLO_CACHE: dict[int, tuple[Move, ...]] = {}
_LEAD_CACHE: dict[int, tuple[Move, ...]] = {}
_BEATS: dict[str, Move] = {}
"""The string API's moves to beat, by notation (bounded like the other memos)."""


def clear_caches() -> None:
    """Forget memoised per-hand results (the per-mask tables stay: they are bounded)."""
    _WING_CACHE.clear()
    _AIR_SOLO_CACHE.clear()
    _LEAD_CACHE.clear()


def _wing_sets(rest: int, size: int) -> tuple[int, ...]:
    """Keys of every multiset of ``size`` cards inside ``rest`` (a packed key), each once."""
    ck = (rest << 3) | size
    got = _WING_CACHE.get(ck)
    if got is not None:
        return got
    partial: list[tuple[int, int]] = [(0, size)]
    for s in SHIFTS:
        cap = (rest >> s) & 15
        if not cap:
            continue
        unit = 1 << s
        nxt = []
        for k, rem in partial:
            nxt.append((k, rem))
            if rem:
                for t in range(1, (cap if cap < rem else rem) + 1):
                    nxt.append((k + t * unit, rem - t))
        partial = nxt
    result = tuple(k for k, rem in partial if rem == 0)
    if len(_WING_CACHE) > _CACHE_LIMIT:
        _WING_CACHE.clear()
    _WING_CACHE[ck] = result
    return result


def airplanes_solo(h: int, s: int, n: int, lead: bool, strict: bool) -> tuple[Move, ...]:
    """Airplanes with solo wings on the body (s, n): wings are any n cards outside the body.

    Packed hand ``h``, body (trio chain) starting at rank ``s`` with ``n`` trios; ``lead``
    keeps only the moves that may be led (their canonical reading), ``strict`` only those
    RLCard's wing rule allows. Public for the peers' differential check (:mod:`peers`).
    """
    rest = h & (_ALL ^ _BODY_MASK[(s, n)])
    ck = (((rest << 4 | s) << 4 | n) << 2) | (lead << 1) | strict
    got = _AIR_SOLO_CACHE.get(ck)
    if got is not None:
        return got
    body = _BODY3[(s, n)]
    hi = SHIFTS[s + n] if s + n <= CHAIN_TOP else -1
    base = (_AIRPLANE_SOLO << 4) | s
    get = _INTERN.get
    out = []
    for w in _wing_sets(rest, n):
        if hi >= 0 and (w >> hi) & 15 == 3:
            continue  # a higher body exists in these cards: that reading is generated instead
        mk = body + w
        m = get((mk << 8) | base)
        if m is None:
            m = intern(mk, _AIRPLANE_SOLO, s)
        if (lead and not m.lead) or (strict and not m.strict):
            continue
        out.append(m)
    result = tuple(out)
    if len(_AIR_SOLO_CACHE) > _CACHE_LIMIT:
        _AIR_SOLO_CACHE.clear()
    _AIR_SOLO_CACHE[ck] = result
    return result


def _size(h: int) -> int:
    return sum((h >> s) & 15 for s in SHIFTS)


def _lead(h: int, strict: bool) -> tuple[Move, ...]:
    m1 = (h | (h >> 1) | (h >> 2)) & LOW
    m2 = ((h >> 1) | (h >> 2)) & LOW
    m3 = ((h >> 2) | ((h >> 1) & h)) & LOW
    out = list(LEAD1[m1])
    if m2:
        out += LEAD2[m2]
    if (h & JOKERS) == JOKERS:
        out.append(ROCKET)
    if m3:
        out += LEAD3[m3]
        for t in RANKS_OF[m3]:
            out += TRIO_SOLO[t][m1]
            out += TRIO_PAIR[t][m2]
        windows = TRIO_WINDOWS[m3 & CHAINABLE]
        if windows:
            n = _size(h)
            for s, ln in windows:
                if 4 * ln <= n:
                    out += airplanes_solo(h, s, ln, True, strict)
                    if 5 * ln <= n:
                        out += AIR_PAIR[(s, ln)][m2]
        m4 = (h >> 2) & LOW
        if m4:
            out += BOMBS[m4]
            fs = FOUR_SOLO[strict]
            both = m1 | (m2 << 64)
            for f in RANKS_OF[m4]:
                out += fs[f][both]
                out += FOUR_PAIR[f][m2]
    return tuple(out)


def _follow(h: int, beat: Move, strict: bool) -> list[Move]:
    t = beat.type
    if t == _ROCKET:
        return []
    above = ABOVE[beat.rank]
    if t == _BOMB:
        out = list(BOMBS[(h >> 2) & LOW & above])
        if (h & JOKERS) == JOKERS:
            out.append(ROCKET)
        return out
    # one lookup per follow, not a chain of type tests: the moves of the beaten type first,
    # then every bomb and the rocket (each beats any non-bomb move)
    out = _SAME_TYPE[t](h, beat, above, strict)
    m4 = (h >> 2) & LOW
    if m4:
        out += BOMBS[m4]
    if (h & JOKERS) == JOKERS:
        out.append(ROCKET)
    return out


# The moves of hand h that beat ``beat`` within its own type, one function per type and one
# signature for all, unused arguments included (a fresh list each: _follow appends to it).
# ``above`` is the mask of the ranks above the beaten body; the rank masks are: any card
# (h | h >> 1 | h >> 2), a pair (h >> 1 | h >> 2), a trio (h >> 2 | (h >> 1 & h)), four (h >> 2).


def _solos_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    return list(SOLOS[(h | (h >> 1) | (h >> 2)) & LOW & above])


def _pairs_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    return list(PAIRS[((h >> 1) | (h >> 2)) & LOW & above])


def _trios_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    return list(TRIOS[((h >> 2) | ((h >> 1) & h)) & LOW & above])


def _trio_solos_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    m3 = ((h >> 2) | ((h >> 1) & h)) & LOW & above
    out: list[Move] = []
    if m3:
        m1 = (h | (h >> 1) | (h >> 2)) & LOW
        for tr in RANKS_OF[m3]:
            out += TRIO_SOLO[tr][m1]
    return out


def _trio_pairs_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    m3 = ((h >> 2) | ((h >> 1) & h)) & LOW & above
    out: list[Move] = []
    if m3:
        m2 = ((h >> 1) | (h >> 2)) & LOW
        for tr in RANKS_OF[m3]:
            out += TRIO_PAIR[tr][m2]
    return out


def _solo_chains_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    return list(CHAINS[(1, beat.length)][(h | (h >> 1) | (h >> 2)) & CHAINABLE & above])


def _pair_chains_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    return list(CHAINS[(2, beat.length)][((h >> 1) | (h >> 2)) & CHAINABLE & above])


def _trio_chains_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    return list(CHAINS[(3, beat.length)][((h >> 2) | ((h >> 1) & h)) & CHAINABLE & above])


def _airplane_solos_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    n = beat.length
    out: list[Move] = []
    bodies = CHAINS[(3, n)][((h >> 2) | ((h >> 1) & h)) & CHAINABLE & above]
    if bodies and _size(h) >= beat.size:
        for body in bodies:
            out += airplanes_solo(h, body.rank, n, False, strict)
    return out


def _airplane_pairs_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    n = beat.length
    out: list[Move] = []
    bodies = CHAINS[(3, n)][((h >> 2) | ((h >> 1) & h)) & CHAINABLE & above]
    if bodies and _size(h) >= beat.size:
        m2 = ((h >> 1) | (h >> 2)) & LOW
        for body in bodies:
            out += AIR_PAIR[(body.rank, n)][m2]
    return out


def _four_solos_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    m4 = (h >> 2) & LOW & above
    out: list[Move] = []
    if m4:
        m2 = ((h >> 1) | (h >> 2)) & LOW
        both = ((h | (h >> 1) | (h >> 2)) & LOW) | (m2 << 64)
        fs = FOUR_SOLO[strict]
        for f in RANKS_OF[m4]:
            out += fs[f][both]
    return out


def _four_pairs_above(h: int, beat: Move, above: int, strict: bool) -> list[Move]:
    m4 = (h >> 2) & LOW & above
    out: list[Move] = []
    if m4:
        m2 = ((h >> 1) | (h >> 2)) & LOW
        for f in RANKS_OF[m4]:
            out += FOUR_PAIR[f][m2]
    return out


_SAME_TYPE: Final[dict[MoveType, Callable[[int, Move, int, bool], list[Move]]]] = {
    _SOLO: _solos_above,
    _PAIR: _pairs_above,
    _TRIO: _trios_above,
    _TRIO_SOLO: _trio_solos_above,
    _TRIO_PAIR: _trio_pairs_above,
    _SOLO_CHAIN: _solo_chains_above,
    _PAIR_CHAIN: _pair_chains_above,
    _TRIO_CHAIN: _trio_chains_above,
    _AIRPLANE_SOLO: _airplane_solos_above,
    _AIRPLANE_PAIR: _airplane_pairs_above,
    _FOUR_TWO_SOLO: _four_solos_above,
    _FOUR_TWO_PAIR: _four_pairs_above,
}
"""The same-type follow of each move type but bomb and rocket (handled in _follow)."""


def generate(hand_key: int, beat: Move | None = None, *, strict: bool = False) -> list[Move]:
    """Legal moves (pass excluded) of the hand with packed key ``hand_key``.

    ``beat=None`` (or :data:`PASS`) means a free lead. ``strict=True`` applies RLCard's
    wing rule. The list is fresh (callers may keep or change it) and duplicate-free.
    """
    if beat is None or beat.type == _PASS:
        return list(_lead_moves(hand_key, strict))
    return _follow(hand_key, beat, strict)


def _lead_moves(hand_key: int, strict: bool) -> tuple[Move, ...]:
    """The memoised lead list of a hand (shared: callers copy it before handing it out)."""
    ck = (hand_key << 1) | strict
    got = _LEAD_CACHE.get(ck)
    if got is None:
        got = _lead(hand_key, strict)
        if len(_LEAD_CACHE) > _CACHE_LIMIT:
            _LEAD_CACHE.clear()
        _LEAD_CACHE[ck] = got
    return got


def is_legal(hand_key: int, move: Move, beat: Move | None, *, strict: bool = False) -> bool:
    """Cheap legality test that agrees with :func:`generate` (pass is legal only when following)."""
    if move.type == _PASS:
        return beat is not None and beat.type != _PASS
    if not contains_key(hand_key, move.key) or (strict and not move.strict):
        return False
    if beat is None or beat.type == _PASS:
        return move.lead
    return move.top and move.beats(beat)


def illegal_reason(hand_key: int, move: Move, beat: Move | None, *, strict: bool = False) -> str | None:
    """Why ``move`` is illegal here (None if it is legal): the message of an IllegalMoveError."""
    from paiju.doudizhu.moves import counts_of, format_counts

    following = beat is not None and beat.type != _PASS
    hand = format_counts(counts_of(hand_key))
    if move.type == _PASS:
        return None if following else "cannot pass on a free lead: the leader must play"
    if not contains_key(hand_key, move.key):
        return f"{move} is not in the hand {hand}"
    if strict and not move.strict:
        return f"{move.describe()} breaks the RLCard wing rule (no rocket, bomb or adjacent trio as wings)"
    if not following:
        if move.lead:
            return None
        return f"on a free lead {move} is played as {Move.parse(str(move), 'trio_chain').describe()}"
    assert beat is not None
    if not move.top:
        return f"{move} is read with its highest body when following, not as {move.describe()}"
    if move.beats(beat):
        return None
    if move.type != beat.type and move.type not in BOMB_TYPES:
        return f"{move.describe()} does not beat {beat.describe()}: a different type"
    if move.length != beat.length and move.type == beat.type:
        return f"{move.describe()} does not beat {beat.describe()}: a different length"
    return f"{move.describe()} does not beat {beat.describe()}: not higher"


def legal_moves(hand: str, beat: str | Move | None = None) -> list[str]:
    """String API: canonical notation of every legal move of ``hand`` (pass not included).

    ``beat`` is the move to beat (notation or a :class:`Move`); None for a free lead.
    """
    key = parse_key(hand, "hand")
    if beat is None:
        return notations(_lead_moves(key, False))
    # the few moves to beat recur all the time: a plain dict lookup before Move.parse's memo
    target = _BEATS.get(beat) if beat.__class__ is str else None
    if target is not None:
        return notations(_follow(key, target, False))
    if isinstance(beat, Move):
        return notations(generate(key, beat))  # PASS: a lead
    target = Move.parse(beat)
    if target is PASS:
        raise InvalidNotationError("beat='pass' is not a move to beat; use beat=None for a free lead")
    if beat.__class__ is str:
        if len(_BEATS) >= _CACHE_LIMIT:
            _BEATS.clear()
        _BEATS[beat] = target
    return notations(_follow(key, target, False))


__all__ = ["airplanes_solo", "generate", "illegal_reason", "is_legal", "legal_moves"]
