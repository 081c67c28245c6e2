"""Start-up of `paiju botzone ddz` in Botzone's simple interaction: one fresh process per move.

Botzone restarts a bot that does not keep running for every request, so each move pays the
interpreter, the imports, building the agent (a model's loading included) and one decision.
Each run here is a fresh subprocess fed one request on stdin; the figure is the wall time
from spawn to exit (what the judge's clock sees) and the process's CPU time, medians over
``--runs`` runs per agent, agents interleaved run by run so a busy neighbour hurts all alike.
The requests are the landlord's first move and a farmer's reply in game 0 of a seeded deal.

Usage::

    .venv/bin/python benchmarks/botzone_startup.py [--runs 10] [--agents greedy,rule,policy] [--seed 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from paiju.doudizhu.cards import Deal
from paiju.interop.botzone_judge import deal_ids

PAIJU = str(Path(sys.executable).with_name("paiju"))


def requests(seed: int) -> dict[str, str]:
    """Two typical requests: the landlord's free lead, and farmer 1 answering the landlord's 3."""
    hands, kitty = deal_ids(Deal.random(seed))
    lowest = min(hands[0], key=lambda c: c // 4 + c // 53)
    lead = {"requests": [{"own": hands[0], "history": [[], []], "publiccard": kitty}], "responses": []}
    first = {"own": hands[1], "history": [[], [lowest]], "publiccard": kitty}
    follow = {"requests": [first], "responses": []}
    return {"lead": json.dumps(lead), "follow": json.dumps(follow)}


def one_run(agent: str, payload: str) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh `paiju botzone ddz` answering ``payload``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [PAIJU, "botzone", "ddz", "--agent", agent], input=payload.encode(), capture_output=True, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or b'"response"' not in done.stdout:
        raise SystemExit(f"{agent}: bot failed: {done.stderr.decode()[-300:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--agents", default="greedy,rule,policy")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    agents = args.agents.split(",")
    payloads = requests(args.seed)
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    one_run(agents[0], payloads["lead"])  # warm the OS file cache once (not counted)
    for _ in range(args.runs):
        for agent in agents:
            for kind, payload in payloads.items():
                times.setdefault((agent, kind), []).append(one_run(agent, payload))
    load = os.getloadavg()[0]
    print(f"load average {load:.1f}, {args.runs} runs per cell, python {sys.version.split()[0]}")
    print("| agent | request | wall median | wall max | CPU median |")
    print("|---|---|---|---|---|")
    for (agent, kind), runs in times.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"| `{agent}` | {kind} | {statistics.median(walls):.2f} s | {max(walls):.2f} s "
            f"| {statistics.median(cpus):.2f} s |"
        )


if __name__ == "__main__":
    main()
