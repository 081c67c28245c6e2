"""Shanten and effective tiles: hand-checked cases, the PyPI ``mahjong`` package, brute force.

Oracles, all independent of the table method in ``paiju.mahjong.shanten``:

* the ``mahjong`` package's regular-hand shanten (13/14 tiles and the small sizes it takes);
* a brute force over explicit target hands (k sets + a pair, each kind at most 4 times) that
  maximises the overlap with the hand, for every size up to 17 tiles;
* hand-checked cases, including the four-copies traps.
"""

from __future__ import annotations

import numpy as np
import pytest
from mahjong.shanten import Shanten

from paiju.core.errors import InvalidNotationError
from paiju.mahjong.shanten import (
    discard_options,
    discard_table,
    effective_counts,
    effective_tiles,
    is_complete_counts,
    shanten,
    shanten_counts,
)
from paiju.mahjong.tiles import parse_counts

WALL = np.repeat(np.arange(34), 4)


def _random_hand(rng: np.random.Generator, n: int, pool: np.ndarray = WALL, quads: int = 0) -> list[int]:
    """n tiles from ``pool``; ``quads`` kinds are forced to four copies (the copy-limit traps)."""
    counts = [0] * 34
    kinds = rng.choice(np.unique(pool), quads, replace=False) if quads else []
    for k in kinds:
        counts[int(k)] = 4
    rest = np.array([t for t in pool if counts[int(t)] == 0])
    for t in rng.choice(rest, n - 4 * quads, replace=False):
        counts[int(t)] += 1
    return counts


# ---- brute force: explicit target hands --------------------------------------------------------
_SETS = [(k, k, k) for k in range(34)] + [
    (9 * s + r, 9 * s + r + 1, 9 * s + r + 2) for s in range(3) for r in range(7)
]


def brute_force_shanten(counts: list[int]) -> int:
    """``3k+2 - 1 - max |H ∩ W|`` over targets W = k sets + pair, each kind <= 4 times.

    Sets sharing no tile with the hand add nothing and can always be filled in elsewhere, so
    only sets touching the hand are enumerated (nondecreasing order, each adding overlap),
    with the bound "3 per set still to place + 2 for the pair".
    """
    k = sum(counts) // 3
    hand = list(counts)
    cand = [m for m in _SETS if any(hand[x] for x in m)]
    target = [0] * 34
    best = 0

    def pair_gain() -> int:
        gains = [min(hand[i], target[i] + 2) - target[i] for i in range(34) if target[i] <= 2]
        return max([g for g in gains if g > 0] + [0])

    def dfs(start: int, left: int, overlap: int) -> None:
        nonlocal best
        best = max(best, overlap + pair_gain())
        if left == 0 or overlap + 3 * left + 2 <= best:
            return
        for j in range(start, len(cand)):
            meld = cand[j]
            before = [min(hand[x], target[x]) for x in set(meld)]
            for x in meld:
                target[x] += 1
            if all(target[x] <= 4 for x in meld):
                gain = sum(min(hand[x], target[x]) for x in set(meld)) - sum(before)
                if gain > 0:
                    dfs(j, left - 1, overlap + gain)
            for x in meld:
                target[x] -= 1

    dfs(0, k, 0)
    return 3 * k + 2 - best - 1


# ---- hand-checked cases ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("11m", -1),  # a pair alone is complete (k = 0)
        ("1m", 0),  # waiting on 1m for the pair
        ("19m", 0),  # two tiles, no pair: one exchange from complete
        ("123m11z", -1),
        ("123m456p789s1122z", 0),  # 13 tiles, two pairs: shanpon wait
        ("123m456p789s11223z", 0),  # 14 tiles with a stray 3z: discard it -> ready
        ("123m456p789s11222z", -1),
        ("1111m234p567p789p", 1),  # 13 tiles: the 4th 1m cannot be waited on
        ("1111m", 1),  # 4 tiles: 111m + 1m single, the pair tile does not exist
        ("1111z", 1),  # same for honours
        ("1111m2222m3333m4z", 0),  # 13 tiles: 123m x4 + 4z single, ready on 4z
        ("12m", 0),
        ("13m", 0),
        ("1m1p1s1z", 2),  # four isolated tiles, k = 1
        ("1112345678999m", 0),  # nine gates, 13 tiles
        ("11123456789999m", -1),
        ("123456789m123p11z", -1),  # 123m 456m 789m 123p + 11z
    ],
)
def test_hand_checked_cases(hand: str, expected: int) -> None:
    assert shanten(hand) == expected
    assert brute_force_shanten(parse_counts(hand)) == expected


def test_sixteen_tile_hands_by_hand() -> None:
    # 16 tiles = 5 sets + single: ready on the single (and nothing else).
    hand = "123m456m789m123p456p7z"
    assert shanten(hand) == 0
    assert effective_tiles(hand) == {"7z": 3}
    # 17 tiles = complete Taiwan hand (5 sets + pair).
    assert shanten("123m456m789m123p456p77z") == -1
    assert is_complete_counts(parse_counts("123m456m789m123p456p77z"))
    # one set broken: 23p456p is ready on 1p (123p 456p), 4p (234p 456p) and 7p
    # (234p 567p).
    assert shanten("123m456m789m23p456p77z") == 0
    assert effective_tiles("123m456m789m23p456p77z") == {"1p": 4, "4p": 3, "7p": 4}
    # full flush of one suit, all four copies of 1m..4m: 16 tiles, 1234 x4.
    assert shanten("1111222233334444m") == brute_force_shanten(parse_counts("1111222233334444m"))


def test_effective_tiles_by_hand() -> None:
    assert effective_tiles("1234m") == {"1m": 3, "4m": 3}
    assert effective_tiles("1m") == {"1m": 3}
    # 1111m: 111m + a single 1m that can never pair; any other tile X gives 111m + X waiting on X.
    assert effective_tiles("1111m") == {f"{k % 9 + 1}{'mpsz'[k // 9]}": 4 for k in range(1, 34)}
    assert effective_tiles("11m") == {}  # complete: nothing lowers it
    # 3k+2: union over the shanten-keeping discards.
    assert effective_tiles("123m456p789s11223z") == {"1z": 2, "2z": 2}


def test_discard_table_lists_every_discard_best_first() -> None:
    table = discard_table("123m456p789s11223z")
    assert next(iter(table)) == "3z"
    assert table["3z"] == (0, {"1z": 2, "2z": 2})
    assert set(table) == {"1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "2z", "3z"}
    assert all(sh == 1 for tile, (sh, _) in table.items() if tile != "3z")


# ---- differential against the PyPI mahjong package -------------------------------------------
def test_matches_mahjong_package_on_20000_random_hands() -> None:
    rng = np.random.default_rng(20240601)
    mismatches = []
    for i in range(20_000):
        hand = _random_hand(rng, 13 + i % 2)
        ours, theirs = shanten_counts(hand), Shanten.calculate_shanten_for_regular_hand(hand)
        if ours != theirs:
            mismatches.append((hand, ours, theirs))
    assert mismatches == []


def test_matches_mahjong_package_with_quads_and_small_sizes() -> None:
    """Four-copy hands (where naive counting goes wrong) and every size the package takes."""
    rng = np.random.default_rng(7)
    honours_and_man = WALL[(WALL < 9) | (WALL >= 27)]
    mismatches = []
    for i in range(6_000):
        n = (1, 2, 4, 5, 7, 8, 10, 11, 13, 14)[i % 10]
        quads = int(rng.integers(0, min(2, n // 4) + 1))
        pool = honours_and_man if i % 3 == 0 else WALL
        hand = _random_hand(rng, n, pool, quads)
        ours, theirs = shanten_counts(hand), Shanten.calculate_shanten_for_regular_hand(hand)
        if ours != theirs:
            mismatches.append((hand, ours, theirs))
    assert mismatches == []


def test_effective_tiles_match_package_shanten() -> None:
    """Effective tiles of 13-tile hands = kinds whose draw lowers the package's shanten."""
    rng = np.random.default_rng(11)
    for i in range(150):
        hand = _random_hand(rng, 13, quads=int(i % 5 == 0))
        base = Shanten.calculate_shanten_for_regular_hand(hand)
        expected = {}
        for k in range(34):
            if hand[k] < 4:
                hand[k] += 1
                if Shanten.calculate_shanten_for_regular_hand(hand) < base:
                    expected[k] = 4 - (hand[k] - 1)
                hand[k] -= 1
        assert effective_counts(hand) == expected


# ---- brute force on every size, up to 17 tiles ----------------------------------------------
def test_matches_brute_force_on_small_hands() -> None:
    rng = np.random.default_rng(3)
    for i in range(400):
        n = (1, 2, 4, 5, 7, 8)[i % 6]
        hand = _random_hand(rng, n, WALL if i % 2 else WALL[WALL < 9], quads=int(n >= 4 and i % 4 == 0))
        assert shanten_counts(hand) == brute_force_shanten(hand), hand


def test_matches_brute_force_on_16_and_17_tile_hands() -> None:
    """Taiwan sizes (5 sets + pair), random, one-suit-heavy and with quads."""
    rng = np.random.default_rng(17)
    pools = [WALL, WALL[WALL < 18], WALL[(WALL < 9) | (WALL >= 27)]]
    for i in range(24):
        hand = _random_hand(rng, 16 + i % 2, pools[i % 3], quads=int(i % 4 == 3))
        assert shanten_counts(hand) == brute_force_shanten(hand), hand


@pytest.mark.slow
def test_matches_brute_force_many_taiwan_hands() -> None:
    rng = np.random.default_rng(170)
    pools = [WALL, WALL[WALL < 18], WALL[(WALL < 9) | (WALL >= 27)], WALL[WALL < 9]]
    for i in range(400):
        n = (10, 11, 13, 14, 16, 17)[i % 6]
        hand = _random_hand(rng, n, pools[i % 4], quads=int(rng.integers(0, 3)))
        assert shanten_counts(hand) == brute_force_shanten(hand), hand


@pytest.mark.slow
def test_matches_mahjong_package_on_300000_random_hands() -> None:
    rng = np.random.default_rng(300_000)
    for i in range(300_000):
        hand = _random_hand(rng, 13 + i % 2, quads=int(i % 10 == 0))
        assert shanten_counts(hand) == Shanten.calculate_shanten_for_regular_hand(hand), hand


# ---- invariants --------------------------------------------------------------------------------
def test_draw_lowers_shanten_by_at_most_one_and_suits_are_symmetric() -> None:
    rng = np.random.default_rng(5)
    for i in range(300):
        hand = _random_hand(rng, (4, 7, 10, 13, 16)[i % 5])
        s = shanten_counts(hand)
        for k in range(34):
            if hand[k] < 4:
                hand[k] += 1
                assert s - 1 <= shanten_counts(hand) <= s
                hand[k] -= 1
        permuted = hand[9:18] + hand[18:27] + hand[0:9] + hand[27:34][::-1]
        assert shanten_counts(permuted) == s
        mirrored = [x for s_ in range(3) for x in hand[9 * s_ : 9 * s_ + 9][::-1]] + hand[27:]
        assert shanten_counts(mirrored) == s


def test_discard_options_agree_with_shanten_and_unseen_counts() -> None:
    rng = np.random.default_rng(9)
    for _ in range(60):
        hand = _random_hand(rng, 17)
        unseen = [max(0, 4 - hand[k] - int(rng.integers(0, 3))) for k in range(34)]
        options = discard_options(hand, unseen)
        assert {o.discard for o in options} == {k for k in range(34) if hand[k]}
        assert min(o.shanten for o in options) == shanten_counts(hand)
        for o in options:
            after = list(hand)
            after[o.discard] -= 1
            assert o.shanten == shanten_counts(after)
            assert o.effective == effective_counts(after, unseen)
            assert all(unseen[k] > 0 for k in o.effective)
        keys = [(o.shanten, -o.total) for o in options]
        assert keys == sorted(keys)


# ---- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hand", "fragment"),
    [
        ("123m", r"3k\+1 or 3k\+2"),
        ("", r"3k\+1 or 3k\+2"),
        ("123456789m123456789p", r"3k\+1 or 3k\+2"),  # 18 tiles
        ("11111m", "more than 4"),
        ("8z", "does not exist"),
        ("12x", "unknown suit"),
    ],
)
def test_bad_hands_raise_clear_errors(hand: str, fragment: str) -> None:
    with pytest.raises(InvalidNotationError, match=fragment):
        shanten(hand)


def test_bad_count_vectors_raise() -> None:
    with pytest.raises(InvalidNotationError, match="34 entries"):
        shanten_counts([1] * 13)
    bad = [0] * 34
    bad[0] = 5
    bad[1] = 8
    with pytest.raises(InvalidNotationError, match=r"0\.\.4"):
        shanten_counts(bad)
    hand = parse_counts("123m456p789s1122z")
    with pytest.raises(InvalidNotationError, match="unseen"):
        effective_counts(hand, [4] * 34)
    with pytest.raises(InvalidNotationError, match="3k\\+2"):
        discard_options(hand)
