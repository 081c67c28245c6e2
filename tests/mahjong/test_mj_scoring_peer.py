"""Win detection and decomposition against the PyPI ``mahjong`` package (Japanese-mahjong tools,
an independent implementation) on many random near-complete hands.

The peer's ``Agari.is_agari`` and ``HandDivider`` are written for 14-tile hands (4 sets + a
pair; on 17 tiles ``is_agari`` accepts e.g. ``255m22p112233677889s``), so the comparison uses
14-tile hands (13 for waits). The same code paths decide 17-tile hands (the suits are tested
independently, whatever their number of sets); there the check is that the decomposition a
random hand was built from is always found, and that every decomposition is a real one.

The peer also knows seven pairs and thirteen orphans, which Taiwan 16-tile mahjong does not
have (``docs/mahjong-rules.md`` §5): those peer-only shapes are recognised and skipped explicitly.
"""

from __future__ import annotations

import numpy as np
import pytest
from mahjong.agari import Agari
from mahjong.hand_calculating.divider import HandDivider

from paiju.core.rng import as_generator
from paiju.mahjong.scoring import SET_CHOW, SET_PUNG, decompositions, is_complete, waits

ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def random_complete(rng: np.random.Generator, n_sets: int) -> tuple[list[int], list[tuple[int, int]], int]:
    """A random complete hand built from sets + a pair (at most 4 of a kind); its building blocks."""
    while True:
        c = [0] * 34
        sets = []
        ok = True
        for _ in range(n_sets):
            if rng.random() < 0.55:
                suit, r = int(rng.integers(3)), int(rng.integers(7))
                t = suit * 9 + r
                for i in range(3):
                    c[t + i] += 1
                sets.append((SET_CHOW, t))
            else:
                t = int(rng.integers(34))
                c[t] += 3
                sets.append((SET_PUNG, t))
        pair = int(rng.integers(34))
        c[pair] += 2
        ok = max(c) <= 4
        if ok:
            return c, sorted(sets), pair


def perturb(rng: np.random.Generator, c: list[int]) -> list[int]:
    """Move one tile to a random kind (keeps the size; often breaks the hand, sometimes not)."""
    d = c[:]
    src = int(rng.choice([k for k in range(34) if d[k]]))
    d[src] -= 1
    dst = int(rng.integers(34))
    if d[dst] < 4:
        d[dst] += 1
    else:
        d[src] += 1
    return d


def is_peer_only_shape(c: list[int]) -> bool:
    """Seven pairs or thirteen orphans: complete for the peer, not in Taiwan 16-tile rules."""
    if sum(c) != 14:
        return False
    seven_pairs = sum(1 for x in c if x == 2) == 7
    orphans = all(c[k] >= 1 for k in ORPHANS) and sum(c[k] for k in ORPHANS) == 14
    return seven_pairs or orphans


def peer_decompositions(c: list[int]) -> set[tuple[int, tuple[tuple[int, int], ...]]]:
    out = set()
    for blocks in HandDivider.divide_hand(c):
        if len(blocks) == 7:  # seven pairs
            continue
        pair = next(b[0] for b in blocks if len(b) == 2)
        sets = tuple(sorted((SET_CHOW if b[0] != b[1] else SET_PUNG, b[0]) for b in blocks if len(b) == 3))
        out.add((pair, sets))
    return out


def run_complete_check(n: int, seed: int) -> int:
    rng = as_generator(seed)
    agree = 0
    for _ in range(n):
        c, _, _ = random_complete(rng, 4)
        for hand in (c, perturb(rng, c)):
            ours = is_complete(hand)
            theirs = Agari.is_agari(hand)
            if theirs and not ours:
                assert is_peer_only_shape(hand), hand
                continue
            assert ours == theirs, hand
            agree += 1
    return agree


def run_seventeen_tile_check(n: int, seed: int) -> None:
    rng = as_generator(seed)
    for _ in range(n):
        c, sets, pair = random_complete(rng, 5)
        found = decompositions(c)
        assert is_complete(c) and (pair, tuple(sets)) in {(d.pair, d.sets) for d in found}
        for d in found:  # each decomposition uses exactly the hand's tiles
            used = [0] * 34
            used[d.pair] += 2
            for kind, t in d.sets:
                for i in range(3):
                    used[t + (i if kind == SET_CHOW else 0)] += 1
            assert used == c
        broken = perturb(rng, c)
        assert is_complete(broken) == bool(decompositions(broken))


def run_decomposition_check(n: int, seed: int) -> None:
    rng = as_generator(seed)
    for _ in range(n):
        c, _, _ = random_complete(rng, 4)
        ours = {(d.pair, d.sets) for d in decompositions(c)}
        assert ours == peer_decompositions(c), c


def run_waits_check(n: int, seed: int) -> None:
    rng = as_generator(seed)
    for _ in range(n):
        c, _, _ = random_complete(rng, 4)
        c = perturb(rng, c)
        k = int(rng.choice([x for x in range(34) if c[x]]))
        c[k] -= 1  # a 3n+1 hand, usually ready or one away
        expected = []
        for t in range(34):
            if c[t] >= 4:
                continue
            c[t] += 1
            # a seven-pairs hand may also be a regular one (11m445566p556677s): ask the peer's divider
            if Agari.is_agari(c) and (not is_peer_only_shape(c) or peer_decompositions(c)):
                expected.append(t)
            c[t] -= 1
        assert waits(c) == expected, c


def test_complete_hands_match_peer() -> None:
    assert run_complete_check(1500, seed=1) >= 2900


def test_seventeen_tile_hands_decompose() -> None:
    run_seventeen_tile_check(1000, seed=4)


def test_decompositions_match_peer_on_14_tiles() -> None:
    run_decomposition_check(800, seed=2)


def test_waits_match_peer() -> None:
    run_waits_check(800, seed=3)


@pytest.mark.slow
def test_peer_differential_long() -> None:
    for seed in range(10, 14):
        run_complete_check(20_000, seed)
        run_seventeen_tile_check(10_000, seed)
        run_decomposition_check(10_000, seed)
        run_waits_check(10_000, seed)
