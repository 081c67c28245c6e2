"""Self-play throughput (games/s) per agent line-up: ``paiju ddz selfplay`` end to end.

Each line-up plays ``--games`` games into a fresh record directory (deal, play, record
rows, atomic Parquet batches: what ``paiju ddz selfplay`` does), with 1 local process and
with ``--workers`` processes, optionally on a local Ray instance (``--ray``). Repeats are
interleaved; we quote the median games/s and, for the parallel runs, the median of the
per-repeat speed-up over 1 process. There is no peer for this end-to-end figure (the engine
alone is compared with DouZero and RLCard in ``benchmarks/ddz_selfplay.py``).

Usage::

    .venv/bin/python benchmarks/ddz_selfplay_throughput.py --games 200 --repeats 3 --workers 2 \\
        --lineups random,greedy,rule,policy:model=small,policy:model=large
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from paiju.doudizhu.selfplay import selfplay


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lineups", default="random,greedy,rule,policy:model=small,policy:model=large",
                    help="specs, each in all three seats (';' separates explicit A,B,C line-ups)")
    ap.add_argument("--games", type=int, default=200, help="games per run")
    ap.add_argument("--search-games", type=int, default=20, help="games per run for line-ups with search")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--ray", action="store_true", help="also run on a local Ray instance (num_cpus=workers)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="write the figures here")
    args = ap.parse_args()

    text = args.lineups
    lineups = [s.split(",") for s in text.split(";")] if ";" in text else [[s] for s in text.split(",")]
    backends: list[tuple[str, int, bool]] = [("in-process", 1, False), ("processes", args.workers, False)]
    if args.ray:
        import ray

        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
        backends.append(("ray", args.workers, True))
    rates: dict[tuple[str, str], list[float]] = {}
    runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.repeats):
            for lineup in lineups:
                label = ",".join(lineup)
                n = args.search_games if any(a.startswith("search") for a in lineup) else args.games
                for backend, workers, use_ray in backends:
                    runs += 1
                    out = Path(tmp) / f"run-{runs}"  # a fresh directory for every run
                    result = selfplay(lineup, n, out, workers=workers, seed=args.seed + rep, use_ray=use_ray)
                    rates.setdefault((label, backend), []).append(result.games_per_second)
                    print(f"repeat {rep} {label:32s} {backend:10s} {result.games_per_second:8.1f} games/s",
                          flush=True)
    rows: list[dict[str, Any]] = []
    print(f"\n| line-up (all seats) | backend | workers | games/s (median of {args.repeats}) | speed-up |")
    print("|---|---|---:|---:|---:|")
    for lineup in lineups:
        label = ",".join(lineup)
        base = rates[(label, "in-process")]
        for backend, workers, _ in backends:
            r = rates[(label, backend)]
            speedup = statistics.median(a / b for a, b in zip(r, base, strict=True))
            rows.append({"lineup": label, "backend": backend, "workers": workers,
                         "games_per_second": statistics.median(r), "speedup": speedup, "runs": r})
            print(f"| {label} | {backend} | {workers} | {statistics.median(r):.1f} | {speedup:.2f}x |")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "rows": rows}, indent=2))
    if args.ray:
        import ray

        ray.shutdown()


if __name__ == "__main__":
    main()
