"""Decision time of the combined Expectimax + (Double) DQN (``expectimax-ddqn``), ResNet and flat leaf.

Positions: turn decisions with a discard due and at least two choices, from seeded greedy
self-play (every ``--every``-th such decision, so early, middle and late hands appear),
played through the one game loop (``play_game``, a ``before_move`` hook collects them).
Networks: randomly initialised (seed 1) at the default sizes of ``QNetConfig`` — the ResNet
(4 blocks x 32 channels on the 19×19 planes), the flat MLP (256, 256), and trunk ``shape``:
that MLP on the hand-shape feature set (``mj-features-2``, whose features cost more per
leaf) — since the time
does not depend on the weights. Each configuration runs in a **fresh process** (this
script calls itself with ``--one``) with one torch thread, and times every decision of
``agent.act`` (wall clock and ``process_time``); it also reports per decision the leaves
the tree visits, the distinct leaves the network values, the max nodes it pruned by Q and
the forward passes.

Usage::

    .venv/bin/python benchmarks/mj_combined_speed.py [--positions 60] [--seed 18] \\
        [--configs mlp:2:0.6,resnet:2:0.6,resnet:1:0.6] [--out docs/results/mahjong-dqn-speed.json]

A configuration is ``trunk:depth:alpha`` (trunk ``mlp``, ``resnet`` or ``shape``) with an
optional ``:exact`` (leaves keyed on their exact path instead of shared by hand and draws)
and an optional ``:draw`` (the agent's ``leaf=draw``: leaves after each discard's draw;
default ``leaf=discard``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paiju.core.protocol import State, play_game
from paiju.core.rng import derive_seed
from paiju.mahjong.game import MahjongGame, MahjongObservation, Phase
from paiju.mahjong.tiles import NUM_KINDS

DEFAULT_CONFIGS = "mlp:2:0.6,mlp:2:0.6:exact,resnet:2:0.6,resnet:2:0.4,resnet:1:0.6"


def positions(count: int, seed: int, every: int = 3) -> list[tuple[MahjongObservation, list[int]]]:
    """``count`` turn decisions (a discard due, >= 2 choices, >= 8 tiles left) of greedy self-play."""
    from paiju.mahjong.agents import GreedyAgent

    game = MahjongGame()
    out: list[tuple[MahjongObservation, list[int]]] = []
    seen = [0]

    def collect(state: State[Any], player: int) -> None:
        if player < 0 or len(out) >= count:
            return
        obs, legal = state.observation(player), state.legal_actions()
        if obs.phase == Phase.TURN and sum(a < NUM_KINDS for a in legal) > 1 and obs.live_tiles >= 8:
            seen[0] += 1
            if seen[0] % every == 0:
                out.append((obs, list(legal)))

    hand = 0
    while len(out) < count:
        play_game(game, [GreedyAgent() for _ in range(4)], derive_seed(seed, hand), before_move=collect)
        hand += 1
    return out


def _quantiles(values: list[float]) -> dict[str, float]:
    s = sorted(values)
    return {"median": statistics.median(s), "p95": s[min(len(s) - 1, int(0.95 * len(s)))], "max": s[-1]}


def measure_one(config: str, count: int, seed: int) -> dict[str, Any]:
    """Time every decision of one configuration (in this process)."""
    import torch

    from paiju.algorithms.dqn import QNetConfig, count_parameters, save_model, seeded_network
    from paiju.mahjong import features as F
    from paiju.mahjong.agents.combined import CombinedAgent

    trunk, depth, alpha, *rest = config.split(":")
    torch.set_num_threads(1)
    version = F.SHAPE_VERSION if trunk == "shape" else F.FEATURES_VERSION
    net_config = QNetConfig(F.PLANE_SHAPE, NUM_KINDS) if trunk == "resnet" else QNetConfig(
        (F.flat_size(version),), NUM_KINDS, kind="mlp")
    net = seeded_network(net_config, 1)
    cases = positions(count, seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = save_model(Path(tmp) / "mj-random.pt", net, {"features": version})
        agent = CombinedAgent(
            model=str(path), depth=int(depth), alpha=float(alpha), exact_leaves="exact" in rest,
            leaf="draw" if "draw" in rest else "discard",
        )
    rows: list[dict[str, float]] = []
    for obs, legal in cases:
        forwards = agent.model.forwards
        wall, cpu = time.perf_counter(), time.process_time()
        agent.act(obs, legal)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        search = agent.last_search
        if search is None or agent.model.forwards == forwards:  # the rule decided (a kong) alone
            continue
        rows.append({
            "cpu": cpu, "wall": wall, "visits": search.stats["leaves"], "leaves": len(search.leaves),
            "q_nodes": len(search.q_ordering.q), "forwards": agent.model.forwards - forwards,
        })
        agent.last_search = None
    return {
        "config": config, "trunk": trunk, "depth": int(depth), "alpha": float(alpha),
        "exact_leaves": "exact" in rest, "leaf": "draw" if "draw" in rest else "discard",
        "parameters": count_parameters(net), "decisions": len(rows),
        **{key: _quantiles([r[key] for r in rows]) for key in ("cpu", "wall", "visits", "leaves", "q_nodes")},
        "forwards_max": max(r["forwards"] for r in rows),
    }


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| leaf network | depth | α | leaves | decisions | CPU median | CPU p95 | wall median | wall p95 "
        "| leaf after | leaves in tree (median) | distinct leaves valued (median / p95) "
        "| Q-pruned nodes (median) "
        "| forwards |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        name = {"resnet": "ResNet 4×32 (planes)", "shape": "MLP 256-256 (flat + shape)"}.get(
            r["trunk"], "MLP 256-256 (flat)")
        lines.append(
            f"| {name} | {r['depth']} | {r['alpha']} | {'exact path' if r['exact_leaves'] else 'shared'} "
            f"| {r['decisions']} | {r['cpu']['median']:.3f} s | {r['cpu']['p95']:.3f} s "
            f"| {r['wall']['median']:.3f} s | {r['wall']['p95']:.3f} s | {r.get('leaf', 'discard')} "
            f"| {r['visits']['median']:.0f} "
            f"| {r['leaves']['median']:.0f} / {r['leaves']['p95']:.0f} | {r['q_nodes']['median']:.0f} "
            f"| ≤ {r['forwards_max']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--configs", default=DEFAULT_CONFIGS)
    parser.add_argument("--one", default="", help="measure one configuration in this process (JSON out)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one, args.positions, args.seed)))
        return
    results = []
    for config in args.configs.split(","):
        done = subprocess.run(
            [sys.executable, __file__, "--one", config,
             "--positions", str(args.positions), "--seed", str(args.seed)],
            check=True, capture_output=True, text=True,
        )
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(table(results[-1:]).splitlines()[-1], flush=True)
    print(table(results))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
