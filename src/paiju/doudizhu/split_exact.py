"""Exact minimum hand splits (``docs/splitting.md``, Exact), on 15-count vectors.

This module is the engine behind ``split(..., method="exact")``; it knows nothing of the
typed values of :mod:`paiju.doudizhu.split` and returns *raw groups* ``(kind, low, length)``
(``kind`` is one of the eight basic types below, ``low`` the lowest rank index, ``length``
the number of ranks; a rocket is ``(ROCKET, 13, 2)``). The full write-up, with the proofs,
is ``docs/splitting.md``; the short version:

**Fewest groups.** Only chains are real choices: once the chains are fixed, the cards left
at a rank form exactly one group (1 = solo, 2 = pair, 3 = trio, 4 = bomb), and two jokers
a rocket. So a memoised recursion over the ranks 3..A decides, at the lowest rank still
holding cards, either to start one more chain there (a chain holding that rank's card must
*start* there, since lower ranks are done) or to close the rank into its one group. The
memo key is the count suffix from that rank up, which keeps the state space tiny (tens of
states for a 20-card hand) and lets the cache serve every later call too.

**Fewest plays** (a trio carries one solo or pair, an airplane one kicker per trio, a four
two solos or two pairs, with the DouZero kicker rules of ``docs/doudizhu.md`` §2). Every chain multiset is
enumerated (a depth-first search with the same "chain must start at the lowest rank"
branching, multisets visited once); what is left is summarised by a *signature* (how many
ranks hold 1, 2, 3, 4 leftover cards, the jokers, and each airplane's length and
"forbidden" solos) and solved exactly, once per signature, by enumerating every way to cut
the leftover ranks into solos/pairs/trios/bombs and computing the maximum number of
kickers the carriers can take in closed form (Hall's and the Gale-Ryser conditions, see
:func:`max_kickers`). Plays = groups - kickers attached.

**Tie-break** (documented in ``docs/splitting.md``): among optimal splits prefer, in
order, more bombs and rockets kept whole, then (plays objective) fewer groups, then fewer
solo groups, then fewer pair groups; any remaining tie goes to the first split in the
search order: scanning ranks upward, at each rank start a trio chain before a pair chain
before a solo chain, longer before shorter, and any chain before closing the rank; when
ranks with the same leftover count are cut differently, the higher ranks keep the bigger
groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Final

from paiju.doudizhu.cards import BIG_JOKER, SMALL_JOKER, TWO
from paiju.doudizhu.movetypes import CHAIN_TOP

SOLO, SOLO_CHAIN, PAIR, PAIR_CHAIN, TRIO, TRIO_CHAIN, BOMB, ROCKET = range(8)
"""Codes of the eight basic group types (the order of ``GroupType`` in ``split.py``)."""

RawGroup = tuple[int, int, int]
"""``(kind, low, length)``: a basic group as the solvers produce it."""

CHAIN_RANKS: Final = CHAIN_TOP + 1
"""Ranks 0..CHAIN_TOP (3..A) may form chains; 2 and the jokers may not."""

_CHAIN_KIND: Final = {1: SOLO_CHAIN, 2: PAIR_CHAIN, 3: TRIO_CHAIN}
_SINGLE_KIND: Final = {1: SOLO, 2: PAIR, 3: TRIO, 4: BOMB}
_MIN_LEN: Final = ((3, 2), (2, 3), (1, 5))
"""(width, shortest chain) in search order: trio chains, then pair chains, then solo chains."""

_CACHE_LIMIT: Final = 400_000
"""Entries per memo before it is cleared (bounds memory in long self-play runs)."""


# --------------------------------------------------------------------------------------
# chain options
# --------------------------------------------------------------------------------------


def chain_options(suffix: Sequence[int]) -> list[tuple[int, int]]:
    """Every chain ``(width, length)`` that can start at ``suffix[0]`` (counts of ranks r..A).

    In search order: trio chains, pair chains, solo chains; longer before shorter.
    """
    opts: list[tuple[int, int]] = []
    n = len(suffix)
    for width, shortest in _MIN_LEN:
        run = 0
        while run < n and suffix[run] >= width:
            run += 1
        for length in range(run, shortest - 1, -1):
            opts.append((width, length))
    return opts


def _option_rank(width: int, length: int) -> int:
    """Position of an option in the search order (lower = tried first); used to visit each
    chain multiset once (options at one rank are taken in non-decreasing position)."""
    return (3 - width) * 16 + (16 - length)


# --------------------------------------------------------------------------------------
# fewest groups
# --------------------------------------------------------------------------------------

# Lexicographic key packed in one int: groups, then -(bombs + rockets), solos, pairs.
_G_GROUP: Final = 1 << 20
_G_BOMB: Final = 1 << 14
_G_SOLO: Final = 1 << 7
_G_PAIR: Final = 1
_G_CLOSE: Final = (0, _G_GROUP + _G_SOLO, _G_GROUP + _G_PAIR, _G_GROUP, _G_GROUP - _G_BOMB)
"""Key of the one group left at a rank holding 0..4 cards after the chains."""

_gmemo: dict[tuple[int, ...], int] = {}


def _g(s: tuple[int, ...]) -> int:
    """Best key for the chain ranks ``s`` (counts of ranks r..A; chains start at >= r)."""
    v = _gmemo.get(s)
    if v is not None:
        return v
    if not s:
        return 0
    head = s[0]
    if head == 0:
        v = _g(s[1:])
    else:
        v = _G_CLOSE[head] + _g(s[1:])
        for width, length in chain_options(s):
            t = tuple([x - width for x in s[:length]]) + s[length:]
            x = _G_GROUP + _g(t)
            if x < v:
                v = x
    if len(_gmemo) >= _CACHE_LIMIT:
        _gmemo.clear()
    _gmemo[s] = v
    return v


def _tail_key_groups(counts: Sequence[int]) -> int:
    """Key of the 2s and jokers (never in chains): one group for the 2s, a rocket or solos."""
    key = _G_CLOSE[counts[TWO]]
    jokers = counts[SMALL_JOKER] + counts[BIG_JOKER]
    if jokers == 2:
        key += _G_GROUP - _G_BOMB
    elif jokers == 1:
        key += _G_GROUP + _G_SOLO
    return key


def _unpack_groups_key(key: int) -> int:
    return (key + (_G_GROUP >> 1)) // _G_GROUP


def min_groups(counts: Sequence[int]) -> int:
    """The fewest basic groups a hand (15-count vector) can be split into."""
    c = tuple(counts)
    return _unpack_groups_key(_g(c[:CHAIN_RANKS]) + _tail_key_groups(c))


def _tail_groups(counts: Sequence[int]) -> list[RawGroup]:
    out: list[RawGroup] = []
    n = counts[TWO]
    if n:
        out.append((_SINGLE_KIND[n], TWO, 1))
    if counts[SMALL_JOKER] and counts[BIG_JOKER]:
        out.append((ROCKET, SMALL_JOKER, 2))
    else:
        if counts[SMALL_JOKER]:
            out.append((SOLO, SMALL_JOKER, 1))
        if counts[BIG_JOKER]:
            out.append((SOLO, BIG_JOKER, 1))
    return out


def split_min_groups(counts: Sequence[int]) -> list[RawGroup]:
    """A fewest-groups split of ``counts``, chosen by the documented tie-break."""
    c = tuple(counts)
    s = c[:CHAIN_RANKS]
    _g(s)
    groups: list[RawGroup] = []
    r = 0  # rank index of s[0]
    while s:
        head = s[0]
        if head == 0:
            s = s[1:]
            r += 1
            continue
        target = _g(s)
        for width, length in chain_options(s):
            t = tuple([x - width for x in s[:length]]) + s[length:]
            if _G_GROUP + _g(t) == target:
                groups.append((_CHAIN_KIND[width], r, length))
                s = t
                break
        else:  # closing the rank is the optimum
            groups.append((_SINGLE_KIND[head], r, 1))
            s = s[1:]
            r += 1
    groups.extend(_tail_groups(c))
    return groups


# --------------------------------------------------------------------------------------
# fewest plays: kicker attachment in closed form
# --------------------------------------------------------------------------------------


def max_kickers(
    solos: int,
    pairs: int,
    twins: int,
    trios: int,
    flagged_trios: int,
    bombs: int,
    airplanes: Sequence[tuple[int, int]],
) -> tuple[int, tuple[int, ...]]:
    """Most kicker groups the carriers can take, and the airplane modes that reach it.

    Kickers: ``solos`` solo groups and ``pairs`` pair groups, of which ``twins`` ranks hold
    two pair groups. Carriers: ``trios`` trios (one kicker), ``flagged_trios`` more trios
    whose own rank also has a solo group (cut from four of a kind), ``bombs`` fours (two
    solos or two pairs) and ``airplanes`` ``(k, f)``: a trio chain of ``k`` trios (exactly
    ``k`` solos or ``k`` pairs) with ``f`` solo groups at ranks inside its body.

    Rules (DouZero's, ``docs/doudizhu.md`` §2): a solo kicker may not share its carrier's rank (that is the
    ``f``); several solo kickers may share a rank; the pairs of one carrier have distinct
    ranks. Every solo is forbidden to at most one carrier, so by Hall's theorem a set of
    solo-mode carriers with demands ``k_i`` is served iff ``sum k_i <= solos`` and every
    ``k_i + f_i <= solos``; pair ranks hold at most two pair groups, so by the Gale-Ryser
    theorem pair-mode carriers are served iff ``sum k_i <= pairs`` and every
    ``k_i <= pairs - twins`` (the number of distinct pair ranks). Airplane modes are
    enumerated (0 none, 1 solos, 2 pairs); bombs and trios then take the rest greedily
    (each bomb used is worth two kickers, never fewer than the trios it displaces).
    """
    if not airplanes:
        return _bombs_and_trios(solos, pairs, twins, trios, flagged_trios, bombs), ()
    best = -1
    best_modes: tuple[int, ...] = ()
    distinct_pairs = pairs - twins
    all_trios = trios + flagged_trios
    for modes in _MODES[len(airplanes)]:
        ds = dp = 0
        ok = True
        for (k, f), m in zip(airplanes, modes, strict=True):
            if m == 1:
                if k + f > solos:
                    ok = False
                    break
                ds += k
            elif m == 2:
                if k > distinct_pairs:
                    ok = False
                    break
                dp += k
        if not ok or ds > solos or dp > pairs:
            continue
        s1 = solos - ds
        p1 = pairs - dp
        pair_bombs = p1 // 2 if distinct_pairs >= 2 else 0
        if solos >= 2 or flagged_trios == 0:
            u = min(bombs, s1 // 2 + pair_bombs)
            got = ds + dp + 2 * u + min(all_trios, s1 + p1 - 2 * u)
        else:  # at most one solo: a flagged trio can only take a pair
            u = min(bombs, pair_bombs)
            got = ds + dp + 2 * u + min(all_trios, p1 - 2 * u + min(s1, trios))
        if got > best:
            best = got
            best_modes = modes
    return best, best_modes


_MODES: Final = tuple(tuple(product((0, 1, 2), repeat=n)) for n in range(8))


def _bombs_and_trios(solos: int, pairs: int, twins: int, trios: int, flagged_trios: int, bombs: int) -> int:
    """:func:`max_kickers` without airplanes (the common case, kept loop-free)."""
    pair_bombs = pairs // 2 if pairs - twins >= 2 else 0
    if solos >= 2 or flagged_trios == 0:
        u = min(bombs, solos // 2 + pair_bombs)
        return 2 * u + min(trios + flagged_trios, solos + pairs - 2 * u)
    u = min(bombs, pair_bombs)
    return 2 * u + min(trios + flagged_trios, pairs - 2 * u + min(solos, trios))


# Lexicographic key packed in one int: plays, -(bombs + rockets), groups, solos, pairs.
_P_PLAY: Final = 1 << 21
_P_BOMB: Final = 1 << 15
_P_GROUP: Final = 1 << 10
_P_SOLO: Final = 1 << 5
_P_PAIR: Final = 1


def _compositions(n: int, parts: int) -> list[tuple[int, ...]]:
    """All ways to write ``n`` as an ordered sum of ``parts`` non-negative integers, the
    first part largest first (so the kept-whole option is tried first)."""
    if parts == 1:
        return [(n,)]
    out: list[tuple[int, ...]] = []
    for first in range(n, -1, -1):
        for rest in _compositions(n - first, parts - 1):
            out.append((first, *rest))
    return out


_COMP3: Final = tuple(tuple(_compositions(n, 3)) for n in range(14))
_COMP5: Final = tuple(tuple(_compositions(n, 5)) for n in range(14))

Cut = tuple[int, tuple[int, int, int], tuple[int, int, int, int, int], bool]
"""How the leftover ranks are cut: (pair ranks cut into 2 solos, (trio, pair+solo, 3 solos)
for 3-card ranks, (bomb, trio+solo, 2 pairs, pair+2 solos, 4 solos) for 4-card ranks,
whether two jokers are kept as a rocket)."""

_rmemo: dict[tuple[object, ...], tuple[int, Cut]] = {}


def _remainder(
    n1: int, n2: int, n3: int, n4: int, jokers: int, airplanes: tuple[tuple[int, int], ...]
) -> tuple[int, Cut]:
    """Best plays key for the leftover non-chain cards and airplanes; memoised by signature.

    ``n1..n4``: ranks (3..2) holding 1..4 leftover cards; ``jokers``: 0, 1 or 2; airplanes
    as in :func:`max_kickers` (their ``f`` solos are among the ``n1``).
    """
    sig = (n1, n2, n3, n4, jokers, airplanes)
    hit = _rmemo.get(sig)
    if hit is not None:
        return hit
    if n3 == 0 and n4 == 0 and not airplanes:
        # no carrier can exist: nothing is attached, so cutting only adds groups
        rocket = jokers == 2
        solos = n1 + (0 if rocket else jokers)
        groups = solos + n2 + rocket
        key = groups * _P_PLAY - rocket * _P_BOMB + groups * _P_GROUP + solos * _P_SOLO + n2 * _P_PAIR
        result = (key, (0, (0, 0, 0), (0, 0, 0, 0, 0), rocket))
        _rmemo[sig] = result
        return result
    best_key = -1
    best_cut: Cut | None = None
    n_air = len(airplanes)
    kickers_of = _bombs_and_trios
    rocket_options = (True, False) if jokers == 2 else (False,)
    for rocket in rocket_options:
        joker_solos = 0 if rocket else jokers
        for x2 in range(n2 + 1):
            for a3, b3, c3 in _COMP3[n3]:
                for a4, b4, c4, d4, e4 in _COMP5[n4]:
                    solos = n1 + 2 * x2 + b3 + 3 * c3 + b4 + 2 * d4 + 4 * e4 + joker_solos
                    pairs = n2 - x2 + b3 + 2 * c4 + d4
                    groups = solos + pairs + a3 + b4 + a4 + n_air + (1 if rocket else 0)
                    if n_air:
                        kick = max_kickers(solos, pairs, c4, a3, b4, a4, airplanes)[0]
                    else:
                        kick = kickers_of(solos, pairs, c4, a3, b4, a4)
                    key = (
                        (groups - kick) * _P_PLAY
                        - (a4 + rocket) * _P_BOMB
                        + groups * _P_GROUP
                        + solos * _P_SOLO
                        + pairs * _P_PAIR
                    )
                    if best_cut is None or key < best_key:
                        best_key = key
                        best_cut = (x2, (a3, b3, c3), (a4, b4, c4, d4, e4), rocket)
    assert best_cut is not None
    if len(_rmemo) >= _CACHE_LIMIT:
        _rmemo.clear()
    result = (best_key, best_cut)
    _rmemo[sig] = result
    return result


def _unpack_plays_key(key: int) -> int:
    return (key + (_P_PLAY >> 1)) // _P_PLAY


class _PlaysSearch:
    """Depth-first search over chain multisets for the fewest-plays objective."""

    __slots__ = ("best", "best_chains", "best_cut", "chains", "jokers", "rem")

    def __init__(self, counts: Sequence[int]) -> None:
        self.rem = list(counts[:13])  # ranks 3..2; chains only touch 0..11
        self.jokers = counts[SMALL_JOKER] + counts[BIG_JOKER]
        self.chains: list[tuple[int, int, int]] = []  # (width, low, length)
        self.best = -1
        self.best_chains: list[tuple[int, int, int]] = []
        self.best_cut: Cut | None = None

    def run(self) -> None:
        self._dfs(0, 0)

    def _dfs(self, r: int, min_opt: int) -> None:
        """Chains starting at rank ``r`` whose search position is >= ``min_opt`` (so each
        multiset is visited once), then close the rank and go on; "close" is the loop."""
        rem = self.rem
        chains = self.chains
        while True:
            while r < CHAIN_RANKS and rem[r] == 0:
                r += 1
                min_opt = 0
            if r >= CHAIN_RANKS:
                self._leaf()
                return
            # lengths of the runs of >=3, >=2 and >=1 cards starting at r
            run3 = run2 = run1 = 0
            i = r
            while i < CHAIN_RANKS:
                x = rem[i]
                if x == 0:
                    break
                if x >= 3 and run3 == run1:
                    run3 += 1
                if x >= 2 and run2 == run1:
                    run2 += 1
                run1 += 1
                i += 1
            if run3 >= 2 or run2 >= 3 or run1 >= 5:
                for width, run, shortest in ((3, run3, 2), (2, run2, 3), (1, run1, 5)):
                    for length in range(run, shortest - 1, -1):
                        pos = (3 - width) * 16 + (16 - length)  # _option_rank
                        if pos < min_opt:
                            continue
                        for j in range(r, r + length):
                            rem[j] -= width
                        chains.append((width, r, length))
                        self._dfs(r, pos)
                        chains.pop()
                        for j in range(r, r + length):
                            rem[j] += width
            r += 1
            min_opt = 0

    def _leaf(self) -> None:
        rem = self.rem
        n = [0, 0, 0, 0, 0]
        for x in rem:
            n[x] += 1
        airplanes = []
        plain_chains = 0
        for width, low, length in self.chains:
            if width == 3:
                f = 0
                for i in range(low, low + length):
                    if rem[i] == 1:
                        f += 1
                airplanes.append((length, f))
            else:
                plain_chains += 1
        key, cut = _remainder(n[1], n[2], n[3], n[4], self.jokers, tuple(sorted(airplanes)))
        key += plain_chains * (_P_PLAY + _P_GROUP)
        if self.best_cut is None or key < self.best:
            self.best = key
            self.best_chains = list(self.chains)
            self.best_cut = cut


_pmemo: dict[tuple[int, ...], tuple[int, list[RawGroup]]] = {}


def _plays_solve(counts: Sequence[int]) -> tuple[int, list[RawGroup]]:
    c = tuple(counts)
    hit = _pmemo.get(c)
    if hit is not None:
        return hit
    search = _PlaysSearch(c)
    search.run()
    assert search.best_cut is not None
    groups = _materialise(c, search.best_chains, search.best_cut)
    result = (_unpack_plays_key(search.best), groups)
    if len(_pmemo) >= _CACHE_LIMIT:
        _pmemo.clear()
    _pmemo[c] = result
    return result


def _materialise(counts: tuple[int, ...], chains: list[tuple[int, int, int]], cut: Cut) -> list[RawGroup]:
    """Turn chains plus a cut of the leftover ranks into raw groups (higher ranks keep the
    bigger groups when ranks with the same leftover count are cut differently)."""
    rem = list(counts[:13])
    groups: list[RawGroup] = []
    for width, low, length in chains:
        groups.append((_CHAIN_KIND[width], low, length))
        for i in range(low, low + length):
            rem[i] -= width
    x2, cut3, cut4, rocket = cut
    by_count: list[list[int]] = [[], [], [], [], []]
    for r, x in enumerate(rem):
        by_count[x].append(r)  # ascending ranks
    for r in by_count[1]:
        groups.append((SOLO, r, 1))
    for i, r in enumerate(by_count[2]):
        if i < x2:
            groups += [(SOLO, r, 1), (SOLO, r, 1)]
        else:
            groups.append((PAIR, r, 1))
    _cut_trios(by_count[3], cut3, groups)
    _cut_fours(by_count[4], cut4, groups)
    _joker_groups(counts, rocket, groups)
    return groups


def _cut_trios(ranks: list[int], cut3: tuple[int, int, int], groups: list[RawGroup]) -> None:
    """The ranks with 3 cards left, ascending: the lowest ``c3`` as three solos, the next
    ``b3`` as pair + solo, the remainder (``a3`` of them) kept whole as trios."""
    _, b3, c3 = cut3
    for i, r in enumerate(ranks):
        if i < c3:
            groups += [(SOLO, r, 1)] * 3
        elif i < c3 + b3:
            groups += [(PAIR, r, 1), (SOLO, r, 1)]
        else:
            groups.append((TRIO, r, 1))


def _cut_fours(ranks: list[int], cut4: tuple[int, int, int, int, int], groups: list[RawGroup]) -> None:
    """The ranks with 4 cards left, ascending: ``e4`` as four solos, ``d4`` as pair + two
    solos, ``c4`` as two pairs, ``b4`` as trio + solo, the remainder (``a4``) as bombs."""
    _, b4, c4, d4, e4 = cut4
    for i, r in enumerate(ranks):
        if i < e4:
            groups += [(SOLO, r, 1)] * 4
        elif i < e4 + d4:
            groups += [(PAIR, r, 1), (SOLO, r, 1), (SOLO, r, 1)]
        elif i < e4 + d4 + c4:
            groups += [(PAIR, r, 1), (PAIR, r, 1)]
        elif i < e4 + d4 + c4 + b4:
            groups += [(TRIO, r, 1), (SOLO, r, 1)]
        else:
            groups.append((BOMB, r, 1))


def _joker_groups(counts: tuple[int, ...], rocket: bool, groups: list[RawGroup]) -> None:
    """The jokers: a rocket if the cut keeps both together, else a solo each."""
    if counts[SMALL_JOKER] and counts[BIG_JOKER] and rocket:
        groups.append((ROCKET, SMALL_JOKER, 2))
    else:
        if counts[SMALL_JOKER]:
            groups.append((SOLO, SMALL_JOKER, 1))
        if counts[BIG_JOKER]:
            groups.append((SOLO, BIG_JOKER, 1))


def min_plays(counts: Sequence[int]) -> int:
    """The fewest plays a hand (15-count vector) can be played out in (kickers attached)."""
    return _plays_solve(counts)[0]


def split_min_plays(counts: Sequence[int]) -> list[RawGroup]:
    """A fewest-plays split of ``counts`` (kickers as their own solo/pair groups)."""
    return list(_plays_solve(counts)[1])


def clear_caches() -> None:
    """Forget every memo (for cold-cache timings; results never depend on the caches)."""
    _gmemo.clear()
    _rmemo.clear()
    _pmemo.clear()
