"""Self-play throughput on a multi-node Ray cluster against the number of worker nodes.

A cluster is started on this machine with ``ray.cluster_utils.Cluster`` (what a test of a
real cluster can do on one box): a head that runs no tasks (0 CPUs) and ``n`` worker nodes
of one CPU each, for every ``n`` in ``--nodes``. On each, ``paiju ddz selfplay`` (the public
API, records written by the driver) plays ``--games`` games of one line-up with
``--workers n``; we record games/s and the CPU time the cluster's worker processes spent
per game (``psutil``: user + system time of every ``ray::`` worker process, before and
after), so the cost of a worker shows beside its throughput. Repeats interleave the
cluster sizes; medians are quoted. The cluster is started once per size (its start-up is
timed separately: it is paid once per job, not per game).

Usage::

    .venv/bin/python benchmarks/ray_cluster.py --nodes 1,2 --games 120 --repeats 3 \\
        --lineup rule,rule,rule --json docs/results/ray-cluster.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
import ray
from ray.cluster_utils import Cluster

from paiju.doudizhu.selfplay import selfplay


def _worker_cpu_seconds() -> float:
    total = 0.0
    for proc in psutil.process_iter(["name", "cmdline"]):
        try:
            cmd = " ".join(proc.info["cmdline"] or [])
            if proc.info["name"].startswith("ray::") or "default_worker.py" in cmd:
                t = proc.cpu_times()
                total += t.user + t.system
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return total


def run_size(nodes: int, lineup: list[str], games: int, repeats: int, seed: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(nodes):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    startup = time.perf_counter() - t0
    rates, cpu_per_game = [], []
    try:
        # one untimed warm-up: the first tasks start the worker processes and import paiju
        with tempfile.TemporaryDirectory() as tmp:
            selfplay(lineup, 2 * nodes, Path(tmp) / "warm", workers=nodes, use_ray=True, batch_size=1)
        for rep in range(repeats):
            with tempfile.TemporaryDirectory() as tmp:
                cpu0 = _worker_cpu_seconds()
                out = Path(tmp) / "run"
                result = selfplay(lineup, games, out, workers=nodes, seed=seed + rep, use_ray=True,
                                  batch_size=4)
                cpu = _worker_cpu_seconds() - cpu0
            rates.append(result.games_per_second)
            cpu_per_game.append(cpu / games)
            print(f"nodes {nodes} repeat {rep}: {result.games_per_second:.1f} games/s, "
                  f"{1000 * cpu / games:.1f} worker CPU-ms/game", flush=True)
    finally:
        ray.shutdown()
        cluster.shutdown()
    return {
        "nodes": nodes,
        "startup_s": startup,
        "games_per_second": statistics.median(rates),
        "worker_cpu_ms_per_game": 1000 * statistics.median(cpu_per_game),
        "runs": rates,
        "cpu_per_game_runs": cpu_per_game,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", default="1,2", help="comma-separated numbers of one-CPU worker nodes")
    ap.add_argument("--lineup", default="rule,rule,rule")
    ap.add_argument("--games", type=int, default=120, help="games per timed run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="write the figures here")
    args = ap.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.pop("RAY_ADDRESS", None)
    lineup = args.lineup.split(",")
    rows = [run_size(int(n), lineup, args.games, args.repeats, args.seed) for n in args.nodes.split(",")]
    base = rows[0]["games_per_second"]
    print(f"\n| worker nodes (1 CPU each) | games/s (median of {args.repeats}) | speed-up | "
          "worker CPU-ms per game | cluster start-up s |")
    print("|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['nodes']} | {r['games_per_second']:.1f} | {r['games_per_second'] / base:.2f}x | "
              f"{r['worker_cpu_ms_per_game']:.1f} | {r['startup_s']:.1f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "machine": os.uname().nodename,
                                               "cpus": os.cpu_count(), "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
