"""Shanten speed: ours vs the PyPI ``mahjong`` package on the same fixed-seed hands.

1. 14-tile and 13-tile random hands (the sizes the package takes): per-call time of our
   ``shanten_counts`` and of ``Shanten.calculate_shanten_for_regular_hand`` over the same N
   hands, timed alternately in each of R repeats; medians, calls/s and the median ratio
   (target: ours >= 10x faster). The values are also compared (they must all agree).
2. 16/17-tile Taiwan hands (no peer takes them): our calls/s.
3. The one-off cost of building our tables at first use, in a fresh process.

Usage: ``.venv/bin/python benchmarks/mahjong_shanten.py [--hands N] [--repeats R] [--seed S]``.
Quote the ratios: the machine is shared.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np
from mahjong.shanten import Shanten

from paiju.mahjong.shanten import shanten_counts, warm_up


def random_hands(n: int, size: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    wall = np.repeat(np.arange(34), 4)
    hands = []
    for _ in range(n):
        counts = [0] * 34
        for t in rng.choice(wall, size, replace=False):
            counts[int(t)] += 1
        hands.append(counts)
    return hands


def per_call(fn: Callable[[Sequence[int]], int], hands: list[list[int]], repeats: int) -> float:
    return statistics.median(_timed(fn, hands)[0] for _ in range(repeats))


def _timed(fn: Callable[[Sequence[int]], int], hands: list[list[int]]) -> tuple[float, float]:
    """Wall-clock and CPU (``process_time``) seconds per call."""
    start, start_cpu = time.perf_counter(), time.process_time()
    for h in hands:
        fn(h)
    return (time.perf_counter() - start) / len(hands), (time.process_time() - start_cpu) / len(hands)


def interleaved(
    ours: Callable[[Sequence[int]], int], theirs: Callable[[Sequence[int]], int], hands: list[list[int]],
    repeats: int,
) -> tuple[float, float, float, float]:
    """Median wall times per call, and the medians of the per-repeat wall and CPU ratios.

    Alternating the two in every repeat keeps a busy neighbour on the shared machine from
    favouring one side; the CPU-time ratio is the steadier of the two under contention.
    """
    a, b, ratios, cpu_ratios = [], [], [], []
    for _ in range(repeats):
        (ta, ca), (tb, cb) = _timed(ours, hands), _timed(theirs, hands)
        a.append(ta)
        b.append(tb)
        ratios.append(tb / ta)
        cpu_ratios.append(cb / ca)
    med = statistics.median
    return med(a), med(b), med(ratios), med(cpu_ratios)


def build_time() -> float:
    code = (
        "import time; t = time.perf_counter(); from paiju.mahjong.shanten import warm_up; warm_up(); "
        "print(time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    warm_up()
    peer = Shanten.calculate_shanten_for_regular_hand
    print(f"shanten: {args.hands} random hands per size, seed {args.seed}, median of {args.repeats} repeats")
    for size in (14, 13):
        hands = random_hands(args.hands, size, args.seed + size)
        mismatches = sum(shanten_counts(h) != peer(h) for h in hands)  # also warms our caches
        ours, theirs, ratio, cpu_ratio = interleaved(shanten_counts, peer, hands, args.repeats)
        print(
            f"  {size} tiles: ours {ours * 1e6:.2f} us/call ({1 / ours:,.0f}/s), mahjong {theirs * 1e6:.2f} "
            f"us/call ({1 / theirs:,.0f}/s), ratio {ratio:.1f}x wall, {cpu_ratio:.1f}x CPU "
            f"(medians of per-repeat ratios), mismatches {mismatches}"
        )
    for size in (16, 17):
        hands = random_hands(args.hands, size, args.seed + size)
        for h in hands:
            shanten_counts(h)
        ours = per_call(shanten_counts, hands, args.repeats)
        print(f"  {size} tiles: ours {ours * 1e6:.2f} us/call ({1 / ours:,.0f}/s) (no peer)")
    print(f"  table build at first use (fresh process): {build_time():.2f} s")


if __name__ == "__main__":
    main()
