"""Speed of the BiLSTM-CRF hand tagger (``docs/splitting.md``, "The learned splitter").

Times, in CPU seconds of the calling thread (``time.thread_time``: other jobs on a shared
machine do not inflate it) and wall clock, with torch on one thread:

* **one hand**: ``tag_hands(model, [hand])`` (encode, BiLSTM, Viterbi, repair, decode to a
  ``Split``) for each of N fixed-seed random 20-card landlord hands;
* **a batch of 1,000**: one ``tag_hands`` call on 1,000 hands (17 and 20 cards mixed), R times.

Targets (issue 15): one hand <= 5 ms, a batch of 1,000 <= 0.5 s.

    .venv/bin/python benchmarks/tagger_speed.py                 # the shipped model
    .venv/bin/python benchmarks/tagger_speed.py --model runs/tagger/model.pt --hands 200
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import torch

from paiju.doudizhu.cards import Deal
from paiju.doudizhu.tagger.model import load_model, tag_hands


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=None, help="checkpoint (default: the shipped tagger)")
    parser.add_argument("--hands", type=int, default=500, help="single-hand calls")
    parser.add_argument("--repeats", type=int, default=5, help="batch calls")
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    torch.set_num_threads(1)
    model = load_model(args.model)
    deals = [Deal.random(args.seed + i) for i in range(max(args.hands, 500))]
    singles = [str(d.landlord) for d in deals[: args.hands]]
    batch = [str(h) for d in deals[:500] for h in (d.landlord, d.farmer1)]
    tag_hands(model, singles[:5])  # warm-up
    one_cpu, one_wall = [], []
    for hand in singles:
        c, w = time.thread_time(), time.perf_counter()
        tag_hands(model, [hand])
        one_cpu.append(time.thread_time() - c)
        one_wall.append(time.perf_counter() - w)
    batch_cpu, batch_wall = [], []
    for _ in range(args.repeats):
        c, w = time.thread_time(), time.perf_counter()
        tag_hands(model, batch)
        batch_cpu.append(time.thread_time() - c)
        batch_wall.append(time.perf_counter() - w)
    out = {
        "machine": f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
                   f"torch {torch.__version__}, 1 thread",
        "one_hand_ms": {
            "cpu_median": 1e3 * statistics.median(one_cpu),
            "cpu_mean": 1e3 * statistics.mean(one_cpu),
            "wall_median": 1e3 * statistics.median(one_wall),
            "hands": len(singles),
        },
        "batch_1000_s": {
            "cpu_median": statistics.median(batch_cpu),
            "wall_median": statistics.median(batch_wall),
            "repeats": args.repeats,
        },
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
