"""The exact splitter against independent oracles.

Oracles (nothing shared with ``split_exact``):

* brute force for small hands: DouZero's move generator (the peer, ``docs/doudizhu.md`` §2) lists every
  legal move of the hand; a memoised search partitions the hand into those moves (basic
  types only for the groups objective), minimising the full tie-break key;
* an integer program (scipy's HiGHS MILP) over the same move lists for full 17/20-card hands.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from douzero.env.move_generator import MovesGener
from scipy.optimize import Bounds, LinearConstraint, milp

from paiju.core.rng import as_generator
from paiju.doudizhu.cards import Deal, Hand
from paiju.doudizhu.split import (
    GroupType,
    Split,
    exact,
    min_groups,
    min_plays,
    split,
)
from paiju.doudizhu.split_exact import clear_caches

DZ_VALUE = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)  # DouZero card codes
DZ_INDEX = {v: i for i, v in enumerate(DZ_VALUE)}
BASIC_DZ_TYPES = {1, 2, 3, 4, 5, 8, 9, 10}  # solo, pair, trio, bomb, rocket, the three chains

Counts = tuple[int, ...]


def dz_moves(counts: Counts) -> list[tuple[Counts, int]]:
    """Every legal move of the hand with its type, as (count vector, DouZero type number).

    The type is the DouZero generator that produced the move (``gen_type_<n>_*``), not
    DouZero's classifier (which misreads some airplanes, ``docs/doudizhu.md`` §3 D2/D3). A card set with two
    readings (``333444555666``: trio chain, or airplane with ``666`` as three solo wings)
    appears once per reading.
    """
    cards = [DZ_VALUE[i] for i, n in enumerate(counts) for _ in range(n)]
    gen = MovesGener(cards)
    producers = {
        1: gen.gen_type_1_single,
        2: gen.gen_type_2_pair,
        3: gen.gen_type_3_triple,
        4: gen.gen_type_4_bomb,
        5: gen.gen_type_5_king_bomb,
        6: gen.gen_type_6_3_1,
        7: gen.gen_type_7_3_2,
        8: gen.gen_type_8_serial_single,
        9: gen.gen_type_9_serial_pair,
        10: gen.gen_type_10_serial_triple,
        11: gen.gen_type_11_serial_3_1,
        12: gen.gen_type_12_serial_3_2,
        13: gen.gen_type_13_4_2,
        14: gen.gen_type_14_4_22,
    }
    out: set[tuple[Counts, int]] = set()
    for dz_type, produce in producers.items():
        for move in produce():
            v = [0] * 15
            for x in move:
                v[DZ_INDEX[x]] += 1
            out.add((tuple(v), dz_type))
    return sorted(out)


def move_key(move: Counts, dz_type: int) -> tuple[int, int, int, int, int]:
    """(plays, -bombs, groups, solos, pairs) of one move read as ``dz_type``, kickers
    stripped into their own solo/pair groups (several solo kickers may share a rank)."""
    if dz_type in BASIC_DZ_TYPES:
        bomb = dz_type in (4, 5)
        return (1, -int(bomb), 1, int(dz_type == 1), int(dz_type == 2))
    if dz_type == 11:  # airplane of k trios with k solo wings: 4k cards
        solos, pairs = sum(move) // 4, 0
    elif dz_type == 12:  # airplane of k trios with k pair wings: 5k cards
        solos, pairs = 0, sum(move) // 5
    else:  # trio+solo, trio+pair, four+2 solos, four+2 pairs
        solos, pairs = {6: (1, 0), 7: (0, 1), 13: (2, 0), 14: (0, 2)}[dz_type]
    bombs = 1 if dz_type in (13, 14) else 0
    return (1, -bombs, 1 + solos + pairs, solos, pairs)


def brute_force(counts: Counts, objective: str) -> tuple[int, ...]:
    """Best tie-break key over all partitions of the hand into legal moves.

    Groups objective: basic moves only, key (groups, -bombs, solos, pairs). Plays objective:
    every legal move, key (plays, -bombs, groups, solos, pairs).
    """
    moves = [(m, t) for m, t in dz_moves(counts) if objective == "plays" or t in BASIC_DZ_TYPES]
    keyed = []
    for m, t in moves:
        k = move_key(m, t)
        keyed.append((m, k if objective == "plays" else (k[0], k[1], k[3], k[4])))
    memo: dict[Counts, tuple[int, ...]] = {}
    zero = (0,) * (5 if objective == "plays" else 4)

    def best(c: Counts) -> tuple[int, ...]:
        if not any(c):
            return zero
        hit = memo.get(c)
        if hit is not None:
            return hit
        low = next(i for i, n in enumerate(c) if n)
        result: tuple[int, ...] | None = None
        for m, k in keyed:
            if m[low] and all(a >= b for a, b in zip(c, m, strict=True)):
                sub = best(tuple(a - b for a, b in zip(c, m, strict=True)))
                total = tuple(x + y for x, y in zip(k, sub, strict=True))
                if result is None or total < result:
                    result = total
        assert result is not None
        memo[c] = result
        return result

    return best(tuple(counts))


def ilp_minimum(counts: Counts, objective: str) -> int:
    """Fewest groups/plays by integer programming over the legal moves (HiGHS)."""
    moves = sorted({m for m, t in dz_moves(counts) if objective == "plays" or t in BASIC_DZ_TYPES})
    a = np.array(moves, dtype=float).T  # 15 x n
    b = np.array(counts, dtype=float)
    res = milp(
        c=np.ones(len(moves)),
        constraints=LinearConstraint(a, b, b),
        integrality=np.ones(len(moves)),
        bounds=Bounds(0, 4),
    )
    assert res.status == 0, res.message
    return round(res.fun)


def split_key(s: Split, objective: str) -> tuple[int, ...]:
    by = s.by_type()
    bombs = by[GroupType.BOMB] + by[GroupType.ROCKET]
    solos, pairs = by[GroupType.SOLO], by[GroupType.PAIR]
    if objective == "plays":
        return (s.num_plays, -bombs, len(s), solos, pairs)
    return (len(s), -bombs, solos, pairs)


def random_small_hand(gen: np.random.Generator, max_cards: int) -> Counts:
    """A random hand of 1..max_cards cards, often from a few adjacent ranks so that chains,
    trios and bombs are common (uniform deals rarely make them in small hands)."""
    n = int(gen.integers(1, max_cards + 1))
    if gen.random() < 0.75:
        lo = int(gen.integers(0, 13))
        hi = min(15, lo + int(gen.integers(2, 8)))
    else:
        lo, hi = 0, 15
    deck = [r for r in range(lo, hi) for _ in range(4 if r < 13 else 1)]
    pick = gen.choice(len(deck), size=min(n, len(deck)), replace=False)
    c = [0] * 15
    for p in pick:
        c[deck[p]] += 1
    return tuple(c)


def assert_valid(s: Split, counts: Counts) -> None:
    """The split partitions the hand into basic groups, and its plays are legal moves."""
    assert s.counts == tuple(counts)
    assert sum(g.size for g in s) == sum(counts)
    legal = {m for m, _ in dz_moves(counts)}
    for p in s.plays():
        assert p.counts in legal, (str(s), str(p))


def check_against_brute_force(hands: Sequence[Counts]) -> None:
    for c in hands:
        for objective in ("groups", "plays"):
            s = exact(c, objective)
            assert_valid(s, c)
            want = brute_force(c, objective)
            assert split_key(s, objective) == want, (Hand(c), objective, str(s))
        assert min_groups(c) == brute_force(c, "groups")[0]
        assert min_plays(c) == brute_force(c, "plays")[0]


def test_exact_matches_brute_force_on_random_small_hands() -> None:
    gen = as_generator(20240611)
    check_against_brute_force([random_small_hand(gen, 10) for _ in range(2500)])


@pytest.mark.slow
def test_exact_matches_brute_force_on_many_small_hands_slow() -> None:
    gen = as_generator(77)
    check_against_brute_force([random_small_hand(gen, 13) for _ in range(20000)])


def full_hands(seed: int, deals: int) -> list[Counts]:
    gen = as_generator(seed)
    out = []
    for _ in range(deals):
        d = Deal.random(gen)
        out += [d.landlord.counts, d.farmer1.counts]
    return out


def check_against_ilp(hands: Sequence[Counts]) -> None:
    for c in hands:
        for objective, value in (("groups", min_groups), ("plays", min_plays)):
            s = exact(c, objective)
            assert_valid(s, c)
            got = len(s) if objective == "groups" else s.num_plays
            assert got == value(c) == ilp_minimum(c, objective), (Hand(c), objective, str(s))


def test_exact_matches_integer_program_on_full_hands() -> None:
    check_against_ilp(full_hands(seed=5, deals=12))


@pytest.mark.slow
def test_exact_matches_integer_program_on_many_full_hands_slow() -> None:
    check_against_ilp(full_hands(seed=6, deals=400))


def test_full_hand_tie_break_matches_brute_force_on_chain_heavy_hands() -> None:
    """Full-size hands built from few ranks (many chains, trios, bombs) where the memoised
    brute force is still quick: the whole tie-break key must match."""
    gen = as_generator(3)
    hands = []
    while len(hands) < 12:
        lo = int(gen.integers(0, 6))
        deck = [r for r in range(lo, lo + 7) for _ in range(4)]
        pick = gen.choice(len(deck), size=int(gen.integers(14, 18)), replace=False)
        c = [0] * 15
        for p in pick:
            c[deck[p]] += 1
        hands.append(tuple(c))
    check_against_brute_force(hands)


# --- hand-checked cases and the documented tie-break ------------------------------------


@pytest.mark.parametrize(
    ("hand", "objective", "expected"),
    [
        # 2 groups: two overlapping solo chains beat any single long chain
        ("3445566778", "groups", "34567 45678"),
        # keep the bomb: 3333 45678 and 345678 333 both have 2 groups
        ("333345678", "groups", "3333 45678"),
        # 3 groups, no solo: 33 334455 456789 (the baseline leaves a solo 3)
        ("33334445556789", "groups", "33 334455 456789"),
        # equal groups (6) and bombs (rocket): fewer solos wins
        ("34445556789TA22XD", "groups", "3456789T 44 55 A 22 XD"),
        # plays: the airplane carries 3 and A; the rest are one play each
        ("34445556789TA22XD", "plays", "3 444555 6789T A 22 XD"),
        # plays: airplane 888999 with A and 2, the fourth 8 rides on KKK, 555 takes QQ
        ("2AKKKQQ9998888555", "plays", "555 8 888999 QQ KKK A 2"),
        # a four takes two solos that happen to be a pair: one play
        ("333355", "plays", "3333 5 5"),
        # 33334444 is not one play (four-with-two-pairs needs two ranks, wings may not sit
        # in the body), so two bombs
        ("33334444", "plays", "3333 4444"),
        # an airplane's solo may not sit at a body rank, so 33344445 takes two plays; of
        # those, 333+5 and the bomb 4444 keep a bomb (333+4 and 444+5 do not)
        ("33344445", "plays", "333 4444 5"),
    ],
)
def test_hand_checked_splits(hand: str, objective: str, expected: str) -> None:
    s = split(hand, "exact", objective)
    assert s == Split.parse(expected), str(s)


def test_hand_checked_play_counts() -> None:
    assert min_plays("33344445") == 2
    assert min_plays("33334444") == 2
    assert min_plays("333355") == 1
    assert min_plays("3334445566") == 1  # airplane with two pairs
    assert min_plays("33344455") == 1  # airplane with two solos that form a pair
    assert min_plays("33335566") == 1  # four with two pairs
    assert min_plays("33335555") == 2  # not four with two pairs (one rank)
    assert min_plays("333444555666") == 1  # a trio chain of four
    assert min_plays("XD3333") == 1  # four with both jokers as solos
    assert min_groups("XD3333") == 2


def test_exact_is_deterministic_and_independent_of_caches_and_notation() -> None:
    hands = full_hands(seed=11, deals=40)
    first = {c: (str(exact(c, "groups")), str(exact(c, "plays"))) for c in hands}
    clear_caches()
    gen = as_generator(12)
    for c in reversed(hands):
        text = str(Hand(c))
        shuffled = "".join(gen.permutation(list(text)))
        assert (str(split(shuffled, "exact", "groups")), str(split(shuffled, "exact", "plays"))) == first[c]


def test_plays_objective_never_uses_more_plays_than_groups_split() -> None:
    for c in full_hands(seed=13, deals=100):
        g = exact(c, "groups")
        p = exact(c, "plays")
        assert p.num_plays <= g.num_plays
        assert len(g) == min_groups(c) <= len(p)
        assert p.num_plays == min_plays(c)


def test_empty_hand() -> None:
    assert len(split("", "exact", "groups")) == 0
    assert min_plays("") == 0
    assert str(split("", "heuristic")) == ""
