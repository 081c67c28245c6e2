"""DIH cost: our exact O(r K) recursion vs the paper's nested sum over place scores.

1. Per deal, n = 108 players, m = 18 rounds (the CCPC final), r in {2, 3, 4, 8}: ours
   (``dih``: the 18-fold convolution plus the recursion; and the recursion alone,
   ``dih_of_total``) vs ``nested_sum_dih`` on the same total (the ratio compares the two on
   the same input). The nested sum runs under a time limit; where it is cut off, the time it would need
   is extrapolated from the number of its outer-loop iterations, C(K, r - 1) for K lattice
   values (K = 217 here), at the rate measured for the largest r that finished.
2. A 2,000-deal pool at r = 4: ranking all deals (the paper's selection, batched) and our
   joint selection.
3. Selection quality on the synthetic pool: the DIH of the paper's set vs our joint set.

Deals are synthetic but shaped like the paper's data: the landlord's score is
±(bombs + rockets played, at least 1), support {-6..-1, 1..6}; each deal has its own win
rate, its own number of bombs certain to be played and a Poisson number of extra bombs.

Usage: ``.venv/bin/python benchmarks/dih.py [--limit S] [--deals D] [--repeats R]``. Prints
medians and ratios; quote the ratios (the machine is shared).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable

import numpy as np

from paiju.core.rng import as_generator
from paiju.tournament.dih import dih, dih_of_total
from paiju.tournament.distributions import ScoreDistribution, repeated_total
from paiju.tournament.reference import NestedSumTimeout, nested_sum_dih
from paiju.tournament.selection import DealPool, rank_by_dih, select_joint, select_paper

PLAYERS, ROUNDS = 108, 18


def synthetic_deal(rng: np.random.Generator) -> ScoreDistribution:
    """A paper-shaped score law: win rate w, ``sure`` certain bombs, Poisson extra bombs."""
    win = rng.beta(2.0, 2.0)
    sure = int(rng.choice([0, 0, 0, 1, 2, 3]))
    lam = rng.gamma(1.0, 0.5)
    extra = np.array([math.exp(-lam) * lam**j / math.factorial(j) for j in range(7)])
    extra /= extra.sum()
    probs: dict[int, float] = {}
    for j, pj in enumerate(extra):
        b = min(6, max(1, sure + j))
        probs[b] = probs.get(b, 0.0) + win * pj
        probs[-b] = probs.get(-b, 0.0) + (1 - win) * pj
    return ScoreDistribution.from_mapping(probs)


def synthetic_pool(size: int, seed: int) -> DealPool:
    rng = as_generator(seed)
    return DealPool.from_distributions({f"deal{i:05d}": synthetic_deal(rng) for i in range(size)})


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def per_deal(limit: float, deals: int, repeats: int) -> None:
    print(f"## 1. Per deal, n = {PLAYERS}, m = {ROUNDS} (median over {deals} deals x {repeats} repeats)")
    pool = synthetic_pool(deals, 1)
    totals = [repeated_total(d, ROUNDS) for d in pool.distributions]
    lattice = len(totals[0])
    print(f"lattice of the 18-round total: K = {lattice} values")
    print("ours = dih() from the deal's law (18-fold convolution included); recursion = dih_of_total() only")
    header = ("r", "ours ms", "recursion ms", "nested s", "nested/rec", "max |diff|")
    print("{:>3} {:>10} {:>13} {:>12} {:>10} {:>11}  note".format(*header))
    rate: tuple[int, float] | None = None  # (levels, seconds per outer iteration)
    for r in (2, 3, 4, 8):
        ours = statistics.median(
            median_time(lambda d=d, r=r: dih(d, PLAYERS, ROUNDS, r), repeats) for d in pool.distributions
        )
        recursion = statistics.median(
            median_time(lambda t=t, r=r: dih_of_total(t, PLAYERS, r), repeats) for t in totals
        )
        ours_values = [dih(d, PLAYERS, ROUNDS, r) for d in pool.distributions]
        nested_times: list[float] = []
        diffs: list[float] = []
        note = ""
        budget_deals = deals if r <= 2 else 3 if r == 3 else 1
        for total, value in zip(totals[:budget_deals], ours_values, strict=False):
            start = time.perf_counter()
            try:
                ref = nested_sum_dih(total, PLAYERS, r, time_limit_s=limit)
            except NestedSumTimeout:
                note = f"cut off at {limit:g} s"
                break
            nested_times.append(time.perf_counter() - start)
            diffs.append(abs(ref - value))
        if nested_times:
            nested = statistics.median(nested_times)
            rate = (r, nested / math.comb(lattice, r - 1))
            print(
                f"{r:>3} {ours * 1e3:>10.3f} {recursion * 1e3:>13.3f} {nested:>12.4f} "
                f"{nested / recursion:>10.0f} {max(diffs):>11.1e}  "
                f"nested on {len(nested_times)} deal(s)"
            )
        else:
            assert rate is not None
            estimate = rate[1] * math.comb(lattice, r - 1)
            print(
                f"{r:>3} {ours * 1e3:>10.3f} {recursion * 1e3:>13.3f} {'>' + format(limit, 'g'):>12} "
                f"{'>' + format(limit / recursion, '.0f'):>10} {'-':>11}  "
                f"{note}; extrapolated {estimate:.3g} s (ratio ~{estimate / recursion:.1e})"
            )


def pool_costs(size: int, repeats: int) -> None:
    print(f"\n## 2. Pool of {size} deals, n = {PLAYERS}, m = {ROUNDS}, r = 4")
    pool = synthetic_pool(size, 2)
    batched = median_time(lambda: rank_by_dih(pool, PLAYERS, ROUNDS, 4), repeats)
    sample = pool.distributions[:200]
    one_by_one = median_time(lambda: [dih(d, PLAYERS, ROUNDS, 4) for d in sample], 1) * size / len(sample)
    per_deal_ms = batched / size * 1e3
    print(f"rank the pool, batched (median of {repeats}): {batched:.3f} s ({per_deal_ms:.3f} ms/deal)")
    ratio = one_by_one / batched
    print(f"rank the pool, one dih() call per deal (est.): {one_by_one:.3f} s (ratio {ratio:.1f})")
    own = rank_by_dih(pool, PLAYERS, ROUNDS, 4)
    paper = median_time(lambda: select_paper(pool, PLAYERS, ROUNDS, 4, own=own), repeats)
    start = time.perf_counter()
    joint = select_joint(pool, PLAYERS, ROUNDS, 4, own=own)
    joint_s = time.perf_counter() - start
    paper_sel = select_paper(pool, PLAYERS, ROUNDS, 4, own=own)
    print(f"paper selection after ranking: {paper:.4f} s; joint selection after ranking: {joint_s:.2f} s")
    print(f"set DIH: paper {paper_sel.set_dih:.5f}, joint {joint.set_dih:.5f}")


def quality(size: int) -> None:
    print(f"\n## 3. Set DIH, paper's ranking vs joint search (synthetic pool of {size} deals)")
    pool = synthetic_pool(size, 3)
    header = ("n", "m", "r", "paper", "joint", "gain", "shared deals", "joint s")
    print("{:>4} {:>3} {:>3} {:>9} {:>9} {:>8} {:>13} {:>8}".format(*header))
    grid = ((10, 2, 2), (30, 2, 2), (30, 3, 2), (30, 5, 2), (10, 5, 2), (20, 5, 2), (8, 4, 2), (108, 18, 4))
    for n, m, r in grid:
        own = rank_by_dih(pool, n, m, r)
        paper = select_paper(pool, n, m, r, own=own)
        start = time.perf_counter()
        joint = select_joint(pool, n, m, r, own=own)
        took = time.perf_counter() - start
        gain = (joint.set_dih - paper.set_dih) / paper.set_dih
        shared = len(set(paper.indices) & set(joint.indices))
        print(
            f"{n:>4} {m:>3} {r:>3} {paper.set_dih:>9.5f} {joint.set_dih:>9.5f} {gain:>8.2%} "
            f"{shared:>10}/{m:<2} {took:>8.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=float, default=60.0, help="time limit of one nested sum (s)")
    parser.add_argument("--deals", type=int, default=20, help="deals timed per r")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pool", type=int, default=2000)
    args = parser.parse_args()
    per_deal(args.limit, args.deals, args.repeats)
    pool_costs(args.pool, args.repeats)
    quality(args.pool)


if __name__ == "__main__":
    main()
