"""Are a mahjong network's values the points a position is worth? (the leaves of a combined search)

Plays ``--hands`` hands of four seats of ``--agent`` (default the Table 4 baseline
``expectimax``) on walls ``new_hand(seed=SEED + i)`` -- not the walls of ``discard-data`` jobs,
whose hands come from ``derive_seed`` -- and at every own-turn discard asks each model for
its value of the position, in points (× its ``score_scale``): a value model's output
(``train-supervised --target score``), a Q-network's max Q over the held kinds. The target is
the acting seat's points for the hand (the Monte Carlo return of the agent's own play).
Reports per model: mean value and its bias against the mean return, the correlation with the
return, the mean squared error next to the return's variance (the error of predicting the
mean), and the correlation by tiles left in the wall.

Usage::

    .venv/bin/python benchmarks/mj_value_calibration.py runs/mj-value-mlp/mj-value-mlp.pt \\
        src/paiju/mahjong/models/mj-ddqn.pt --hands 200 --seed 10000
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paiju.mahjong.agents import REGISTRY
from paiju.mahjong.agents.dqn import QModel
from paiju.mahjong.game import MahjongGame, MahjongObservation, Phase
from paiju.mahjong.tiles import NUM_KINDS

PHASES = ((0, 20), (20, 40), (40, 200))
"""Tiles left in the wall: late, middle, early."""


def position_value(model: QModel, obs: MahjongObservation) -> float:
    q = model.q_values([obs])[0].numpy()
    if model.state_value:
        return model.score_scale * float(q[0])
    return model.score_scale * max(float(q[k]) for k in range(NUM_KINDS) if obs.hand[k])


def calibration(paths: list[Path], hands: int, seed: int, agent: str) -> dict[str, Any]:
    torch.set_num_threads(1)
    models = {str(p): QModel.load(p) for p in paths}
    game = MahjongGame()
    values: dict[str, list[float]] = {m: [] for m in models}
    returns: list[float] = []
    live: list[int] = []
    for h in range(hands):
        state = game.new_hand(seed=seed + h)
        seats = [REGISTRY.make(agent, seed=seed + h) for _ in range(4)]
        pending: list[int] = []
        while not state.is_terminal():
            p = state.current_player()
            obs, legal = state.observation(p), state.legal_actions()
            action = seats[p].act(obs, legal)
            if obs.phase == Phase.TURN and action < NUM_KINDS:
                for m, model in models.items():
                    values[m].append(position_value(model, obs))
                pending.append(p)
                live.append(obs.live_tiles)
            state.apply(action)
        points = state.returns()
        returns.extend(float(points[p]) for p in pending)
    y, wall = np.asarray(returns), np.asarray(live)
    out: dict[str, Any] = {"agent": agent, "hands": hands, "seed": seed, "positions": len(y),
                           "mean_return": float(y.mean()), "return_variance": float(y.var()), "models": {}}
    for m, v in values.items():
        x = np.asarray(v)
        by_phase = {}
        for lo, hi in PHASES:
            sel = (wall >= lo) & (wall < hi)
            if sel.sum() > 2:
                r = float(np.corrcoef(x[sel], y[sel])[0, 1])
                by_phase[f"{lo}-{hi}"] = {"positions": int(sel.sum()), "correlation": r}
        out["models"][m] = {
            "kind": "value model" if models[m].state_value else "Q-network (max Q)",
            "mean": float(x.mean()), "bias": float(x.mean() - y.mean()),
            "correlation": float(np.corrcoef(x, y)[0, 1]), "mse": float(np.mean((x - y) ** 2)),
            "by_tiles_left": by_phase,
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", type=Path)
    ap.add_argument("--hands", type=int, default=100)
    ap.add_argument("--seed", type=int, default=10_000)
    ap.add_argument("--agent", default="expectimax-shanten")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    result = calibration(args.models, args.hands, args.seed, args.agent)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
