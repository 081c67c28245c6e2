"""Hand-splitting benchmark (``docs/splitting.md``): speed and baseline quality.

For N fixed-seed random deals it takes the landlord's 20-card and farmer 1's 17-card hand
and, per hand and method, times one call in CPU seconds of the calling thread
(``time.thread_time``: other jobs on a shared machine do not inflate it; wall-clock
``perf_counter`` is printed too for the exact solver as a check):

* ``heuristic``: the paper's 40-priority-order baseline;
* ``exact groups`` / ``exact plays``: the exact solver, in two cache regimes: *shared*
  (the process-wide memo tables start empty at the beginning of the run and fill as it goes,
  which is how an agent calling the solver all game long uses it) and *cold* (every memo
  cleared before each hand, the clearing not timed).

There is no peer implementation of either splitter, so the ratio printed is
heuristic time / exact time in the same process. Quality: the share of hands where the
baseline needs more groups than the optimum (Wilson 95% interval) and the distribution of the
excess; also how often decoding the exact split's own tags (``docs/splitting.md``, Tags) gives it
back unchanged.

    .venv/bin/python benchmarks/ddz_split.py            # 10,000 deals (about a minute)
    .venv/bin/python benchmarks/ddz_split.py --deals 500
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence

from paiju.core.rng import as_generator
from paiju.core.stats import proportion_ci
from paiju.doudizhu.cards import Deal
from paiju.doudizhu.split import Split, exact, heuristic
from paiju.doudizhu.split_exact import clear_caches, split_min_groups, split_min_plays
from paiju.doudizhu.split_heuristic import heuristic_split

Counts = tuple[int, ...]


def time_each(
    fn: Callable[[Counts], object],
    hands: Sequence[Counts],
    cold: bool,
    clock: Callable[[], float] = time.thread_time,
) -> list[float]:
    """Seconds per call, one call per hand."""
    out = []
    for h in hands:
        if cold:
            clear_caches()
        t0 = clock()
        fn(h)
        out.append(clock() - t0)
    return out


def fmt_ms(xs: Sequence[float]) -> tuple[str, str]:
    return f"{statistics.fmean(xs) * 1e3:.3f}", f"{statistics.median(xs) * 1e3:.3f}"


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=10_000, help="deals (one 20-, one 17-card hand each)")
    ap.add_argument("--seed", type=int, default=20240611)
    args = ap.parse_args(argv)

    gen = as_generator(args.seed)
    deals = [Deal.random(gen) for _ in range(args.deals)]
    sizes = {20: [d.landlord.counts for d in deals], 17: [d.farmer1.counts for d in deals]}

    print(f"# ddz_split: {args.deals} deals, seed {args.seed}, Python {platform.python_version()}, one core")
    print()
    print("| hand | method | cache | mean ms | median ms |")
    print("|---|---|---|---:|---:|")
    means: dict[tuple[int, str], float] = {}
    medians: dict[tuple[int, str], float] = {}
    clear_caches()
    runs: list[tuple[str, str, Callable[[Counts], object], bool]] = [
        ("heuristic", "-", heuristic_split, False),
        ("exact groups", "shared", split_min_groups, False),
        ("exact plays", "shared", split_min_plays, False),
        ("exact groups", "cold", split_min_groups, True),
        ("exact plays", "cold", split_min_plays, True),
    ]
    for size, hands in sizes.items():
        clear_caches()
        for name, cache, fn, cold in runs:
            ts = time_each(fn, hands, cold)
            mean, med = fmt_ms(ts)
            means[(size, f"{name} {cache}")] = statistics.fmean(ts)
            medians[(size, f"{name} {cache}")] = statistics.median(ts)
            print(f"| {size} | {name} | {cache} | {mean} | {med} |")
        print(f"| {size} | full API `split()` (exact groups, Split value) | shared | ", end="")
        ts = time_each(lambda h: exact(h), hands, False)
        print(" | ".join(fmt_ms(ts)) + " |")
        for name, fn in (("exact groups", split_min_groups), ("exact plays", split_min_plays)):
            ts = time_each(fn, hands, True, clock=time.perf_counter)
            print(f"| {size} | {name}, wall clock | cold | " + " | ".join(fmt_ms(ts)) + " |")
    print()
    print("Ratios heuristic / exact (no peer exists; same process, same hands):")
    print()
    print("| hand | exact variant | mean ratio | median ratio |")
    print("|---|---|---:|---:|")
    for size in sizes:
        for variant in ("exact groups shared", "exact groups cold", "exact plays shared", "exact plays cold"):
            r_mean = means[(size, "heuristic -")] / means[(size, variant)]
            r_med = medians[(size, "heuristic -")] / medians[(size, variant)]
            print(f"| {size} | {variant} | {r_mean:.1f} | {r_med:.1f} |")

    print()
    print("Baseline quality (groups of the 40-order baseline minus the optimum):")
    print()
    print("| hand | hands | baseline worse (95% CI) | excess 0 / 1 / 2 / 3+ | mean groups: base, opt |")
    print("|---|---:|---|---|---|")
    for size, hands in sizes.items():
        excess: Counter[int] = Counter()
        g_base = g_opt = 0
        for h in hands:
            b = len(heuristic(h))
            o = len(exact(h))
            if b < o:
                raise AssertionError(f"baseline beat the exact solver on {h}")
            excess[min(b - o, 3)] += 1
            g_base += b
            g_opt += o
        n = len(hands)
        worse = proportion_ci(n - excess[0], n)
        dist = " / ".join(f"{excess[k]}" for k in range(4))
        print(
            f"| {size} | {n} | {worse.value:.2%} [{worse.low:.2%}, {worse.high:.2%}] | {dist} | "
            f"{g_base / n:.3f}, {g_opt / n:.3f} |"
        )

    print()
    print("Tag round trip of the exact split (decode(tags(split)) == split), and plays vs groups:")
    print()
    print("| hand | same split back | same group count | mean plays: groups-optimal split, plays-optimal |")
    print("|---|---|---|---|")
    for size, hands in sizes.items():
        same = same_n = 0
        p_groups = p_plays = 0
        for h in hands:
            s = exact(h)
            back = Split.from_tags(h, s.tags())
            same += back == s
            same_n += len(back) == len(s)
            p_groups += s.num_plays
            p_plays += exact(h, "plays").num_plays
        n = len(hands)
        print(f"| {size} | {same / n:.2%} | {same_n / n:.2%} | {p_groups / n:.3f}, {p_plays / n:.3f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
