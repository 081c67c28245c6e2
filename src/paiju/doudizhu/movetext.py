"""Legal moves straight to notation: the string API's generator, without Move objects.

:func:`paiju.doudizhu.legal_moves` is what outside tools call, often from a fresh process (a
bot restarted for every move), so its first calls count as much as its warm ones (issue 12
§4, ``docs/results/first-call.md``). :mod:`paiju.doudizhu.movegen` interns a
:class:`~paiju.doudizhu.moves.Move` for every move it meets and fills a table per rank mask:
cheap once warm, but a fresh process keeps meeting new hands. This module lists the same
moves, in the same order, as canonical strings taken from small tables made at import: per
five-rank slice of a mask (solos, pairs, trios, bombs), per run of ranks (chains), per trio
rank (its kickers); fours with two and airplanes are spelled out by movegen's enumeration.
A new hand then costs about what a known one does, and nothing is interned.

The move to beat is read from its packed key (:func:`reading_of`); only sets that are not
plainly one reading (ambiguous, 20 cards or more, no move at all) and Move objects go through
:mod:`paiju.doudizhu.moves`, imported then, whose ``Move.parse`` raises the errors. So a
fresh process answering ordinary positions imports neither ``moves`` nor ``movegen``.
``tests/doudizhu/test_ddz_movetext.py`` checks every part against the Move-based generator
on random positions under both wing rules.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import TYPE_CHECKING, Final, TypeVar

from paiju.core.errors import InvalidNotationError
from paiju.doudizhu.cards import BIG_JOKER, NUM_RANKS, RANKS, SHIFTS, SMALL_JOKER, UNIT, parse_key
from paiju.doudizhu.movetypes import CHAIN_TOP, MIN_CHAIN, OF_A_KIND, MoveType

if TYPE_CHECKING:
    from paiju.doudizhu.moves import Move

# Hot-path aliases of the members (docs/design.md, "One source per fact"), taken from the light
# movetypes module so that the Move classes are still not imported here. Plain ints: a reading
# is an int tuple, and CPython specialises == only between exact ints (measured: the first-call
# benchmark lost ~7% with IntEnum members in the readings).
_PASS, _SOLO, _PAIR, _TRIO = int(MoveType.PASS), int(MoveType.SOLO), int(MoveType.PAIR), int(MoveType.TRIO)
_BOMB, _ROCKET = int(MoveType.BOMB), int(MoveType.ROCKET)
_TRIO_SOLO, _TRIO_PAIR = int(MoveType.TRIO_SOLO), int(MoveType.TRIO_PAIR)
_SOLO_CHAIN, _PAIR_CHAIN = int(MoveType.SOLO_CHAIN), int(MoveType.PAIR_CHAIN)
_TRIO_CHAIN = int(MoveType.TRIO_CHAIN)
_AIRPLANE_SOLO, _AIRPLANE_PAIR = int(MoveType.AIRPLANE_SOLO), int(MoveType.AIRPLANE_PAIR)
_FOUR_TWO_SOLO, _FOUR_TWO_PAIR = int(MoveType.FOUR_TWO_SOLO), int(MoveType.FOUR_TWO_PAIR)
_MIN_CHAIN: Final = (0, *(MIN_CHAIN[w] for w in (1, 2, 3)))
"""MIN_CHAIN as a tuple indexed by width (a tuple index is cheaper than a dict lookup)."""
_OF_A_KIND: Final = (-1, *(int(OF_A_KIND[n]) for n in (1, 2, 3, 4)))
"""OF_A_KIND as ints indexed by the card count (no type for 0 cards)."""

_LOW: Final = sum(1 << s for s in SHIFTS)
"""Bit 0 of every rank's nibble: the layout of rank masks."""
_CHAINABLE: Final = sum(1 << SHIFTS[r] for r in range(CHAIN_TOP + 1))
_ABOVE: Final = tuple(sum(1 << SHIFTS[r] for r in range(lo + 1, NUM_RANKS)) for lo in range(NUM_RANKS))
_JOKERS: Final = UNIT[SMALL_JOKER] | UNIT[BIG_JOKER]
_ROCKET_TEXT: Final = RANKS[SMALL_JOKER] + RANKS[BIG_JOKER]
_SLICE: Final = sum(1 << (4 * i) for i in range(5))
"""Rank bits of one five-rank slice of a mask (ranks 3..7, 8..Q, K..D at shifts 0, 20, 40)."""


_Item = TypeVar("_Item")


def _slice_tables(item: Callable[[int], _Item]) -> tuple[dict[int, tuple[_Item, ...]], ...]:
    """Per five-rank slice: ``item(rank)`` of every rank set in the slice's mask, ascending."""
    tables = []
    for j in range(3):
        table: dict[int, tuple[_Item, ...]] = {0: ()}
        for i in range(5):
            bit, value = 1 << (4 * i), item(5 * j + i)
            table.update({m | bit: (*row, value) for m, row in table.items()})
        tables.append(table)
    return tuple(tables)


def _notation_of(width: int) -> Callable[[int], str]:
    """The notation of ``width`` cards of a rank, as a function of the rank."""
    return lambda r: RANKS[r] * width


_RANKS_IN: Final = _slice_tables(lambda r: r)
_SINGLES: Final = {w: _slice_tables(_notation_of(w)) for w in (1, 2, 3, 4)}
"""_SINGLES[width][slice][slice mask]: the solo/pair/trio/bomb notation of each rank."""


def _ranks(m: int) -> tuple[int, ...]:
    """Ranks whose bit is set in the rank mask ``m``, ascending."""
    t = _RANKS_IN
    return t[0][m & _SLICE] + t[1][(m >> 20) & _SLICE] + t[2][m >> 40]


def _singles(width: int, m: int) -> tuple[str, ...]:
    t = _SINGLES[width]
    return t[0][m & _SLICE] + t[1][(m >> 20) & _SLICE] + t[2][m >> 40]


def _half_runs(first: int) -> dict[int, tuple[tuple[int, int], ...]]:
    """Maximal runs (start, length) inside ranks ``first .. first + 5``, by their rank mask.

    Built rank by rank: adding rank ``r`` above every mask of lower ranks extends the last
    run when ``r - 1`` is in the mask, and starts a new run otherwise.
    """
    table: dict[int, tuple[tuple[int, int], ...]] = {0: ()}
    for i in range(6):
        bit, prev, r = 1 << (4 * i), 1 << (4 * i - 4) if i else 0, first + i
        table.update(
            {
                m | bit: (*runs[:-1], (runs[-1][0], runs[-1][1] + 1)) if m & prev else (*runs, (r, 1))
                for m, runs in table.items()
            }
        )
    return table


_RUNS_LO: Final = _half_runs(0)
_RUNS_HI: Final = _half_runs(6)
_HALF: Final = (1 << 24) - 1
_JOIN: Final = (1 << SHIFTS[5]) | (1 << SHIFTS[6])
"""Ranks 8 and 9: a run holding both crosses from the low half into the high one."""


def _max_runs(m: int) -> tuple[tuple[int, int], ...]:
    """(start, length) of every maximal run of consecutive ranks 3..A in the mask, ascending."""
    m &= _CHAINABLE
    lo = _RUNS_LO[m & _HALF]
    hi = _RUNS_HI[m >> 24]
    if m & _JOIN == _JOIN:
        s, n = lo[-1]
        return (*lo[:-1], (s, n + hi[0][1]), *hi[1:])
    return lo + hi


_CHAIN_TEXT: Final = tuple("".join(c * w for c in RANKS[: CHAIN_TOP + 1]) for w in range(4))
"""Every chainable rank ``w`` times: a chain's notation is one slice of it."""
_RUN_CHAINS: Final[dict[tuple[int, int, int], tuple[str, ...]]] = {}
"""(width, start, length) of a maximal run -> every chain inside it, in generation order."""


def _run_chains(w: int, s: int, length: int) -> tuple[str, ...]:
    got = _RUN_CHAINS.get((w, s, length))
    if got is None:
        text = _CHAIN_TEXT[w]
        got = tuple(
            text[w * st : w * (st + n)]
            for n in range(_MIN_CHAIN[w], length + 1)
            for st in range(s, s + length - n + 1)
        )
        _RUN_CHAINS[(w, s, length)] = got
    return got


def _lead_group(w: int, m: int) -> list[str]:
    """The single moves of width ``w`` on the ranks of ``m``, then every chain of them."""
    out = list(_singles(w, m))
    c = m & _CHAINABLE
    # a run of the shortest chain's length (5, 3, 2 ranks) exists: a few shifts decide it
    if w == 1:
        c &= (c >> 4) & (c >> 8) & (c >> 12) & (c >> 16)
    elif w == 2:
        c &= (c >> 4) & (c >> 8)
    else:
        c &= c >> 4
    if c:
        minlen = _MIN_CHAIN[w]
        for s, length in _max_runs(m):
            if length >= minlen:
                out += _run_chains(w, s, length)
    return out


def _chains(w: int, n: int, m: int) -> list[str]:
    """Chains of width ``w`` and exactly ``n`` ranks inside the mask ``m``."""
    text = _CHAIN_TEXT[w]
    return [
        text[w * st : w * (st + n)]
        for s, length in _max_runs(m)
        for st in range(s, s + length - n + 1)
    ]


def _kicker_rows(width: int) -> tuple[tuple[str, ...], ...]:
    """[trio rank][kicker rank]: the trio with that solo (width 1) or pair (width 2).

    Index ``t`` of row ``t`` is an empty filler: a trio never kicks its own rank.
    """
    kickers = [c * width for c in RANKS[: NUM_RANKS if width == 1 else 13]]
    rows = []
    for t in range(13):
        trio = RANKS[t] * 3
        rows.append((*[k + trio for k in kickers[:t]], "", *[trio + k for k in kickers[t + 1 :]]))
    return tuple(rows)


_TRIO_SOLO_TEXT: Final = _kicker_rows(1)
_TRIO_PAIR_TEXT: Final = _kicker_rows(2)


def _trios_with_kickers(out: list[str], trios: tuple[int, ...], m1: int, m2: int) -> None:
    """Append, trio by trio, the trio with each solo and then with each pair (a lead's order)."""
    r1, r2 = _ranks(m1), _ranks(m2)
    for t in trios:
        row = _TRIO_SOLO_TEXT[t]
        out += [row[k] for k in r1 if k != t]
        row = _TRIO_PAIR_TEXT[t]
        out += [row[k] for k in r2 if k != t]


def _four_solos(out: list[str], f: int, r1: tuple[int, ...], r2: tuple[int, ...], strict: bool) -> None:
    """Append the four of rank ``f`` with every two solos (a pair counts as two solos)."""
    big = RANKS[f] * 4
    ks = [r for r in r1 if r != f]
    for i, a in enumerate(ks):
        low = RANKS[a]
        if a in r2:
            out.append(low * 2 + big if a < f else big + low * 2)
        if strict and a == SMALL_JOKER:
            continue  # RLCard: the rocket is not two solos
        for b in ks[i + 1 :]:
            if f < a:
                out.append(big + low + RANKS[b])
            elif f < b:
                out.append(low + big + RANKS[b])
            else:
                out.append(low + RANKS[b] + big)


def _four_pairs(out: list[str], f: int, r2: tuple[int, ...]) -> None:
    """Append the four of rank ``f`` with every two pairs of other ranks."""
    big = RANKS[f] * 4
    for a, b in combinations([r for r in r2 if r != f], 2):
        pa, pb = RANKS[a] * 2, RANKS[b] * 2
        if f < a:
            out.append(big + pa + pb)
        elif f < b:
            out.append(pa + big + pb)
        else:
            out.append(pa + pb + big)


def _windows(m3: int, n: int | None = None) -> list[tuple[int, int]]:
    """(start, length) of the trio chains in ``m3``: every length >= 2, or exactly ``n``."""
    return [
        (st, ln)
        for s, length in _max_runs(m3)
        for ln in (range(2, length + 1) if n is None else (n,) if n <= length else ())
        for st in range(s, s + length - ln + 1)
    ]


_CACHE_LIMIT: Final = 200_000
_AIR_SOLOS: dict[int, tuple[str, ...]] = {}
"""Airplanes with solo wings by (cards outside the body, body, lead, strict); bounded."""


def _airplanes_solo(h: int, s: int, n: int, lead: bool, strict: bool) -> tuple[str, ...]:
    """Airplanes with solo wings on the body (s, n): wings are any n cards outside the body.

    The wings are enumerated as multisets of the remaining counts, in movegen's order; a set
    whose wings make a higher body is skipped (that reading is generated instead), and on a
    lead so is a set that is a plain trio chain (``333444555666``: its lead reading).
    """
    body_bits = sum(15 << SHIFTS[r] for r in range(s, s + n))
    rest = h & ~body_bits
    ck = (((rest << 4 | s) << 4 | n) << 2) | (lead << 1) | strict
    got = _AIR_SOLOS.get(ck)
    if got is not None:
        return got
    body_key = sum(3 * UNIT[r] for r in range(s, s + n))
    body_text = _CHAIN_TEXT[3][3 * s : 3 * (s + n)]
    partial: list[tuple[int, str, str, int]] = [(0, "", "", n)]  # wings, text below / above, left
    for r in range(NUM_RANKS):
        cap = (rest >> SHIFTS[r]) & 15
        if not cap:
            continue
        unit, ch, below = UNIT[r], RANKS[r], r < s
        nxt = []
        for k, lo, up, rem in partial:
            nxt.append((k, lo, up, rem))
            for t in range(1, (cap if cap < rem else rem) + 1):
                if below:
                    nxt.append((k + t * unit, lo + ch * t, up, rem - t))
                else:
                    nxt.append((k + t * unit, lo, up + ch * t, rem - t))
        partial = nxt
    hi = SHIFTS[s + n] if s + n <= CHAIN_TOP else -1
    out = []
    for w, lo, up, rem in partial:
        if rem or (hi >= 0 and (w >> hi) & 15 == 3):
            continue  # not n cards, or a higher body exists in these cards
        mk = body_key + w
        if lead and _is_trio_chain(mk):
            continue
        if strict and (
            (mk & _JOKERS) == _JOKERS or (w >> 2) & _LOW or (s > 0 and (w >> SHIFTS[s - 1]) & 15 == 3)
        ):
            continue  # RLCard: no rocket, bomb or trio next to the body as wings
        out.append(lo + body_text + up)
    result = tuple(out)
    if len(_AIR_SOLOS) > _CACHE_LIMIT:
        _AIR_SOLOS.clear()
    _AIR_SOLOS[ck] = result
    return result


def _is_trio_chain(key: int) -> bool:
    """Every rank present holds 3 cards and the ranks are one run within 3..A."""
    present = (key | (key >> 1) | (key >> 2)) & _LOW
    run = present >> ((present & -present).bit_length() - 1)
    return key == 3 * present and not (15 * run + 1) & (15 * run) and not present & ~_CHAINABLE


def _airplanes_pair(s: int, n: int, m2: int) -> list[str]:
    """Airplanes with pair wings on the body (s, n): any n pairs of other ranks in ``m2``."""
    avail = [p for p in _ranks(m2) if not s <= p < s + n]
    texts = [RANKS[p] * 2 for p in avail]
    below = sum(p < s for p in avail)
    body_text = _CHAIN_TEXT[3][3 * s : 3 * (s + n)]
    out = []
    for combo in combinations(range(len(avail)), n):
        j = sum(i < below for i in combo)
        below_text = "".join([texts[i] for i in combo[:j]])
        out.append(below_text + body_text + "".join([texts[i] for i in combo[j:]]))
    return out


def _size(m1: int, m2: int, m3: int, m4: int) -> int:
    return m1.bit_count() + m2.bit_count() + m3.bit_count() + m4.bit_count()


def _masks(h: int) -> tuple[int, int, int, int]:
    """Rank masks of the ranks with >= 1, >= 2, >= 3 and 4 cards in the packed key ``h``."""
    return (
        (h | (h >> 1) | (h >> 2)) & _LOW,
        ((h >> 1) | (h >> 2)) & _LOW,
        ((h >> 2) | ((h >> 1) & h)) & _LOW,
        (h >> 2) & _LOW,
    )


def lead_notations(h: int, strict: bool = False) -> list[str]:
    """Notation of every free lead of the hand with packed key ``h``, in movegen's order.

    Equal to ``[str(m) for m in movegen.generate(h, None, strict=strict)]``.
    """
    m1 = (h | (h >> 1) | (h >> 2)) & _LOW
    m2 = ((h >> 1) | (h >> 2)) & _LOW
    m3 = ((h >> 2) | ((h >> 1) & h)) & _LOW
    out = _lead_group(1, m1)
    if m2:
        out += _lead_group(2, m2)
    if h & _JOKERS == _JOKERS:
        out.append(_ROCKET_TEXT)
    if m3:
        out += _lead_group(3, m3)
        _trios_with_kickers(out, _ranks(m3), m1, m2)
        m4 = (h >> 2) & _LOW
        if m3 & (m3 >> 4) & _CHAINABLE:  # two consecutive trios: airplanes
            n = _size(m1, m2, m3, m4)
            for s, ln in _windows(m3):
                if 4 * ln <= n:
                    out += _airplanes_solo(h, s, ln, True, strict)
                    if 5 * ln <= n:
                        out += _airplanes_pair(s, ln, m2)
        if m4:
            out += _singles(4, m4)
            r1, r2 = _ranks(m1), _ranks(m2)
            for f in _ranks(m4):
                _four_solos(out, f, r1, r2, strict)
                _four_pairs(out, f, r2)
    return out


Reading = tuple[int, int, int]
"""(type, main rank, length) of a move to beat, as :class:`~paiju.doudizhu.moves.Move` has them."""
_REPUNIT: Final = tuple((16**n - 1) // 15 for n in range(NUM_RANKS + 1))
"""A run of ``n`` rank bits, lowest at bit 0."""


def reading_of(key: int) -> Reading | None:
    """The reading :meth:`Move.parse` gives the card set ``key``, for the plain cases.

    Plain: one rank (solo, pair, trio, bomb), the rocket, a trio with a solo or a pair, a
    four with two solos or two pairs, a chain of solos or pairs, a trio chain of 2, 3, 5 or 6
    ranks (a chain of 4 is also an airplane), an airplane of up to 19 cards (highest body).
    None for everything else (ambiguous sets, 20+ cards, no move): those go through
    ``Move.parse``, which names the problem or the reading.
    """
    m1, m2, m3, m4 = _masks(key)
    distinct = m1.bit_count()
    low_bit = (m1 & -m1).bit_length() - 1
    low = low_bit >> 2
    n = _size(m1, m2, m3, m4)
    if distinct == 1:
        return (_OF_A_KIND[n], low, 1)
    if key == _JOKERS:
        return (_ROCKET, SMALL_JOKER, 1)
    if m4:
        if m4.bit_count() == 1 and (n == 6 or (n == 8 and distinct == 3 and m2.bit_count() == 3)):
            four = (m4.bit_length() - 1) >> 2
            return (_FOUR_TWO_SOLO if n == 6 else _FOUR_TWO_PAIR, four, 1)
    elif distinct == 2 and m3.bit_count() == 1:
        trio = (m3.bit_length() - 1) >> 2
        return (_TRIO_PAIR if m2 != m3 else _TRIO_SOLO, trio, 1)
    elif m1 >> low_bit == _REPUNIT[distinct] and low + distinct - 1 <= CHAIN_TOP:
        # one run of ranks within 3..A, all with the same count: a chain if long enough
        if not m2:
            return (_SOLO_CHAIN, low, distinct) if distinct >= _MIN_CHAIN[1] else None
        if m2 == m1 and not m3:
            return (_PAIR_CHAIN, low, distinct) if distinct >= _MIN_CHAIN[2] else None
        if m3 == m1:
            # not 4 (also an airplane of 3: ambiguous) nor 7+ (21+ cards): Move.parse reads those
            return (_TRIO_CHAIN, low, distinct) if distinct in (2, 3, 5, 6) else None
    # airplanes (at most 20 cards: 20 itself could be read with solo or with pair wings)
    if 8 <= n < 20 and not (n % 4 and n % 5):
        exact3 = m3 & ~m4
        if n % 4 == 0:
            bodies = _windows(exact3, n // 4)
            return (_AIRPLANE_SOLO, bodies[-1][0], n // 4) if bodies else None
        length = n // 5
        best = None
        for s, _ in _windows(exact3, length):  # wings: exactly one pair of each other rank
            r1, r2, r3, _r4 = _masks(key - sum(3 * UNIT[r] for r in range(s, s + length)))
            if r1 == r2 and not r3:
                best = s
        return None if best is None else (_AIRPLANE_PAIR, best, length)
    return None


def follow_notations(h: int, beat: Reading, strict: bool = False) -> list[str]:
    """Notation of every move of hand ``h`` that beats a move of reading ``beat``, in movegen's order.

    Equal to ``[str(m) for m in movegen.generate(h, move, strict=strict)]`` for any move of
    that reading.
    """
    t, rank, length = beat
    above = _ABOVE[rank]
    # the commonest moves to beat first, with only the mask they need (a third of a call)
    if t == _SOLO:
        m = (h | (h >> 1) | (h >> 2)) & above
        singles = _SINGLES[1]
        out: list[str] = [*singles[0][m & _SLICE], *singles[1][(m >> 20) & _SLICE], *singles[2][m >> 40]]
        m = (h >> 2) & _LOW
        if m:
            out += _singles(4, m)
        if h & _JOKERS == _JOKERS:
            out.append(_ROCKET_TEXT)
        return out
    if t == _ROCKET:
        return []
    m1, m2, m3, m4 = _masks(h)
    if t == _BOMB:
        out = list(_singles(4, m4 & above))
        if h & _JOKERS == _JOKERS:
            out.append(_ROCKET_TEXT)
        return out
    # one lookup per follow, not a chain of type tests (then the bombs and the rocket)
    out = _SAME_TYPE[t](h, m1, m2, m3, m4, above, length, strict)
    if m4:
        out += _singles(4, m4)
    if h & _JOKERS == _JOKERS:
        out.append(_ROCKET_TEXT)
    return out


# The notations of the moves of hand h that beat a move of a reading within its own type, one
# function per type and one signature for all, unused arguments included (a fresh list each:
# follow_notations appends to it). m1..m4 are the masks of _masks(h), ``above`` the mask of
# the ranks above the beaten body, ``length`` its length.


def _pairs_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    return list(_singles(2, m2 & above))


def _trios_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    return list(_singles(3, m3 & above))


def _trio_solos_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    out: list[str] = []
    kickers = _ranks(m1)
    for tr in _ranks(m3 & above):
        row = _TRIO_SOLO_TEXT[tr]
        out += [row[k] for k in kickers if k != tr]
    return out


def _trio_pairs_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    out: list[str] = []
    kickers = _ranks(m2)
    for tr in _ranks(m3 & above):
        row = _TRIO_PAIR_TEXT[tr]
        out += [row[k] for k in kickers if k != tr]
    return out


def _solo_chains_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    return _chains(1, length, m1 & above)


def _pair_chains_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    return _chains(2, length, m2 & above)


def _trio_chains_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    return _chains(3, length, m3 & above)


def _airplane_solos_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    out: list[str] = []
    bodies = _windows(m3 & above, length)
    if bodies and _size(m1, m2, m3, m4) >= length * 4:
        for s, _ in bodies:
            out += _airplanes_solo(h, s, length, False, strict)
    return out


def _airplane_pairs_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    out: list[str] = []
    bodies = _windows(m3 & above, length)
    if bodies and _size(m1, m2, m3, m4) >= length * 5:
        for s, _ in bodies:
            out += _airplanes_pair(s, length, m2)
    return out


def _four_solos_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    out: list[str] = []
    fours = _ranks(m4 & above)
    if fours:
        r1, r2 = _ranks(m1), _ranks(m2)
        for f in fours:
            _four_solos(out, f, r1, r2, strict)
    return out


def _four_pairs_above(
    h: int, m1: int, m2: int, m3: int, m4: int, above: int, length: int, strict: bool
) -> list[str]:
    out: list[str] = []
    fours = _ranks(m4 & above)
    if fours:
        r2 = _ranks(m2)
        for f in fours:
            _four_pairs(out, f, r2)
    return out


_SAME_TYPE: Final[dict[int, Callable[[int, int, int, int, int, int, int, bool], list[str]]]] = {
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
"""The same-type follow of each reading type but solo, bomb and rocket (handled in follow_notations)."""


_LEADS: dict[int, tuple[str, ...]] = {}
"""Lead lists by hand key (bounded): a restarted bot or a search meets the same hands again."""
_KEYS: dict[str, int] = {}
"""Packed keys of hands by notation (bounded)."""
_BEATS: dict[str, Reading] = {}
"""Readings of moves to beat by notation (bounded)."""


def legal_moves(hand: str, beat: str | Move | None = None) -> list[str]:
    """String API: canonical notation of every legal move of ``hand`` (pass not included).

    ``beat`` is the move to beat (notation or a :class:`~paiju.doudizhu.moves.Move`); None
    for a free lead. Same lists, order and errors as :func:`paiju.doudizhu.movegen.legal_moves`.
    """
    # a hand meets several moves to beat in a row: its key is memoised by notation
    key = _KEYS.get(hand) if hand.__class__ is str else None
    if key is None:
        key = parse_key(hand, "hand")  # raises for anything but valid notation
        if len(_KEYS) >= _CACHE_LIMIT:
            _KEYS.clear()
        _KEYS[hand] = key
    if beat is not None:
        target = _BEATS.get(beat) if beat.__class__ is str else None
        if target is None:
            target = _beat_of(beat)
            if target is None:  # a PASS Move: a free lead
                return lead_notations(key)
            if beat.__class__ is str:
                if len(_BEATS) >= _CACHE_LIMIT:
                    _BEATS.clear()
                _BEATS[beat] = target
        return follow_notations(key, target)
    got = _LEADS.get(key)
    if got is not None:
        return list(got)
    out = lead_notations(key)
    if len(_LEADS) >= _CACHE_LIMIT:
        _LEADS.clear()
    _LEADS[key] = tuple(out)  # the memo keeps its own copy: the caller may change the list
    return out


def _beat_of(beat: str | Move) -> Reading | None:
    """The reading of the move to beat (None for a PASS Move); raises what ``Move.parse`` raises."""
    # Move.parse checks "pass" and the empty string before parsing the cards, with its own
    # messages: only other text is read here (parse_key raises just what Move.parse would)
    if beat.__class__ is str and beat and beat.strip().lower() != "pass":
        reading = reading_of(parse_key(beat, "move"))
        if reading is not None:
            return reading
    from paiju.doudizhu.moves import PASS, Move

    if isinstance(beat, Move):
        move = beat
        if move.type == _PASS:
            return None
    else:
        move = Move.parse(beat)
        if move is PASS:
            raise InvalidNotationError("beat='pass' is not a move to beat; use beat=None for a free lead")
    return (int(move.type), move.rank, move.length)


__all__ = ["Reading", "follow_notations", "lead_notations", "legal_moves", "reading_of"]
