"""The distilled search (``expectimax-distill``, paiju.mahjong.distill): leaf cost and decision time.

Positions: decisions of a search-data folder's held-out hands (the last ``--test`` share by
hand index, as ``train_distill`` holds them out), rebuilt by replaying the hands
(``search_data.replay``): every decision with a choice, turns and claim windows, as the
teacher labelled them. One torch thread (``torch.set_num_threads(1)``), one process.

``leaf-cost``: the distilled agent plays each position; every batch its value head values
(one per decision: all the leaves of the decision's trees) is timed, and the teacher's
analytic leaf is timed on the same batch. Reported: the median over batches of the
milliseconds per leaf (``process_time``), the batch sizes, and the median of the network's
share alone (the analytic leaf is its input).

``decision-time``: each agent spec decides every position (``process_time`` of ``act``);
median and p95 per spec, and how often each spec's move is the teacher's on the same
position.

``held-out``: several distilled models measured on the held-out hands of one ``train-distill``
run (its ``samples.npz`` and split): value RMSE, root advantage RMSE and top-1 agreement with
the teacher, as ``metrics.json``'s ``test`` reports them (e.g. an expert-iteration round's
model against the round before it, on the round's own targets).

Usage::

    .venv/bin/python benchmarks/mahjong_distill.py leaf-cost --data runs/mj-search-3584 --decisions 300
    .venv/bin/python benchmarks/mahjong_distill.py decision-time --data runs/mj-search-3584 --decisions 300 \\
        --agents "expectimax;expectimax-distill;expectimax-distill:leaf=value"
    .venv/bin/python benchmarks/mahjong_distill.py held-out --data runs/mj-exit/round-1/train \
        --models "runs/mj-exit/round-0/model.pt;runs/mj-exit/round-1/model.pt"
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paiju.mahjong import search_data as S
from paiju.mahjong.agents import REGISTRY, ValueExpectimaxAgent
from paiju.mahjong.agents.value import LeafState
from paiju.mahjong.distill import DistillLeaf
from paiju.mahjong.game import MahjongObservation

TEACHER = "expectimax"


def positions(data: str, count: int, test: float) -> list[tuple[MahjongObservation, list[int], int]]:
    """``count`` decisions (observation, legal actions, the teacher's action) of the held-out
    hands, spread evenly over them."""
    con = S.connect(data)
    hands = [h for (h,) in con.execute("SELECT hand FROM hands ORDER BY hand").fetchall()]
    first = hands[len(hands) - max(1, round(len(hands) * test))]
    rows = con.execute("SELECT hand, move, seat, teacher_action FROM decisions WHERE hand >= ? "
                       "ORDER BY hand, move", [first]).fetchall()
    picked = [rows[int(i)] for i in np.linspace(0, len(rows) - 1, min(count, len(rows)))]
    by_hand: dict[int, dict[int, tuple[int, int]]] = {}
    for h, move, seat, action in picked:
        by_hand.setdefault(h, {})[move] = (seat, action)
    out = []
    for h, wall, actions in con.execute("SELECT hand, wall, actions FROM hands WHERE hand >= ? ORDER BY hand",
                                        [first]).fetchall():
        todo = by_hand.get(h, {})
        for move, state in S.replay(wall, actions):
            if move in todo:
                seat, action = todo[move]
                out.append((state.observation(seat), list(state.legal_actions()), action))
    return out


class TimedLeaf:
    """The distilled leaf, each batch timed, with the teacher's analytic leaf on the same batch."""

    def __init__(self, leaf: DistillLeaf) -> None:
        assert leaf.base is not None
        self.leaf = leaf
        self.base = leaf.base
        self.batches: list[dict[str, float]] = []

    def evaluate(self, obs: MahjongObservation, leaves: Sequence[LeafState]) -> np.ndarray:
        clock = time.process_time()
        out = self.leaf.evaluate(obs, leaves)
        whole = time.process_time() - clock
        clock = time.process_time()
        self.base.evaluate(obs, leaves)
        analytic = time.process_time() - clock
        self.batches.append({"leaves": len(leaves), "ms_per_leaf": 1e3 * whole / len(leaves),
                             "analytic_ms_per_leaf": 1e3 * analytic / len(leaves)})
        return out


def leaf_cost(args: argparse.Namespace) -> dict[str, Any]:
    spec = f"expectimax-distill:model={args.model}" if args.model else "expectimax-distill"
    agent = REGISTRY.make(spec, seed=0)
    assert isinstance(agent, ValueExpectimaxAgent) and isinstance(agent.leaf_evaluator, DistillLeaf)
    timed = TimedLeaf(agent.leaf_evaluator)
    agent.leaf_evaluator = timed
    for obs, legal, _ in positions(args.data, args.decisions, args.test):
        agent.act(obs, legal)
    batches = timed.batches
    big = [b for b in batches if b["leaves"] >= 100]
    return {
        "decisions": args.decisions, "batches": len(batches), "batches_100_leaves_or_more": len(big),
        "leaves": sum(b["leaves"] for b in batches),
        "leaves_median": statistics.median(b["leaves"] for b in batches),
        "ms_per_leaf_median": statistics.median(b["ms_per_leaf"] for b in batches),
        "ms_per_leaf_median_100_or_more": statistics.median(b["ms_per_leaf"] for b in big) if big else None,
        "analytic_ms_per_leaf_median": statistics.median(b["analytic_ms_per_leaf"] for b in batches),
        "network_ms_per_leaf_median": statistics.median(b["ms_per_leaf"] - b["analytic_ms_per_leaf"]
                                                        for b in batches),
    }


def decision_time(args: argparse.Namespace) -> dict[str, Any]:
    work = positions(args.data, args.decisions, args.test)
    out: dict[str, Any] = {"decisions": len(work)}
    for spec in args.agents.split(";"):
        agent = REGISTRY.make(spec, seed=0)
        times, same = [], 0
        for obs, legal, teacher_action in work:
            clock = time.process_time()
            action = agent.act(obs, legal)
            times.append(time.process_time() - clock)
            same += action == teacher_action
        times.sort()
        out[spec] = {"median_s": statistics.median(times), "p95_s": times[int(0.95 * (len(times) - 1))],
                     "max_s": times[-1], "teacher_agreement": same / len(work)}
    return out


def held_out(args: argparse.Namespace) -> dict[str, Any]:
    from paiju.core.run_folder import read_config
    from paiju.mahjong import distill as D
    from paiju.mahjong import train_distill as T

    run = Path(args.data)
    saved = read_config(run)
    cfg = T.DistillConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in saved["config"].items()})
    samples = T.load_samples(cfg.data, cfg.hands, run, saved["data_job"])  # rebuilt if stale
    split = T.split(samples, cfg.validation, cfg.test)
    out: dict[str, Any] = {"test_decisions": len(split.test)}
    for model in args.models.split(";"):
        m = T.measures(D.load_model(model).net, samples, split, split.test)
        out[model] = {"value_rmse": m["value"]["rmse"],
                      "analytic_leaf_rmse": m["value"]["analytic_leaf_rmse"],
                      "advantage_root_rmse": m["advantage_root"]["rmse"],
                      "top1": m["agreement"]["network"]["top1"]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("leaf-cost", "decision-time", "held-out"))
    parser.add_argument("--data", required=True, help="a search-data folder (held-out: a train-distill run)")
    parser.add_argument("--models", default="", help="held-out: ';'-separated distilled models")
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--test", type=float, default=0.1, help="held-out share of the hands (the last ones)")
    parser.add_argument("--model", default="", help="a distilled model file (default: the shipped one)")
    parser.add_argument("--agents", default=f"{TEACHER};expectimax-distill")
    parser.add_argument("--out", type=Path, help="also write the result as JSON here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    run = {"leaf-cost": leaf_cost, "decision-time": decision_time, "held-out": held_out}[args.command]
    result = {"command": args.command, "data": args.data, **run(args)}
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
