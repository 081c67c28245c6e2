"""Does a mahjong Q-network rank discards like the search it learned behind?

Plays ``--hands`` seeded hands with four seats of the training behaviour (the default
``expectimax:depth=1`` of ``paiju mahjong train-dqn``, no exploration) and, at every discard
decision, asks each model for its Q-values over the legal discards. Reports per model:

* **agreement**: the share of decisions where the network's best legal discard is the
  search's discard, next to the share a uniformly random legal discard would reach
  (the mean of 1 / legal kinds);
* **mean rank** of the search's discard in the network's order (0 = its best), next to the
  random order's mean rank ((legal kinds - 1) / 2);
* **spread**: the mean over decisions of max Q - min Q over the legal discards.

The hands are held out: training hands are ``derive_seed(seed, 1, i)`` of the run's seed,
these are played from ``--seed`` through the same task but a different index range.

Usage::

    .venv/bin/python benchmarks/mj_dqn_agreement.py runs/mj-ddqn/evals/step-000500000.pt --hands 8
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paiju.algorithms.dqn import load_model
from paiju.mahjong.train_dqn import HandExperience, HandTask, TrainConfig, play_hand


def agreement(models: list[Path], hands: int, seed: int, behaviour_depth: int = 1) -> dict[str, Any]:
    spec = TrainConfig(out="unused", behaviour_depth=behaviour_depth).behaviour_spec()
    plays_by_features: dict[str, list[HandExperience]] = {}
    out: dict[str, Any] = {"behaviour": str(spec), "hands": hands, "seed": seed, "models": {}}
    for path in models:
        net, meta = load_model(path)
        version = meta["features"]  # the same hands and decisions, in the model's feature set
        if version not in plays_by_features:
            plays_by_features[version] = [
                play_hand(HandTask(10_000_000 + i, seed + i, spec, features=version)) for i in range(hands)
            ]
        plays = plays_by_features[version]
        agree, ranks, legal_kinds, spreads = 0, [], [], []
        for exp in plays:
            with torch.no_grad():
                q = net(torch.as_tensor(exp.obs.astype(np.float32))).numpy()
            for j, action in enumerate(exp.action):
                legal = np.flatnonzero(exp.mask[j])
                order = legal[np.argsort(-q[j][legal], kind="stable")]
                agree += int(order[0] == action)
                ranks.append(int(np.flatnonzero(order == action)[0]))
                legal_kinds.append(len(legal))
                spreads.append(float(q[j][legal].max() - q[j][legal].min()))
        n = len(ranks)
        out["models"][str(path)] = {
            "decisions": n,
            "agreement": agree / n,
            "random_agreement": float(np.mean([1 / k for k in legal_kinds])),
            "mean_rank": float(np.mean(ranks)),
            "random_mean_rank": float(np.mean([(k - 1) / 2 for k in legal_kinds])),
            "q_spread": float(np.mean(spreads)),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--hands", type=int, default=8)
    parser.add_argument("--seed", type=int, default=424242)
    parser.add_argument("--behaviour-depth", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(json.dumps(agreement(args.models, args.hands, args.seed, args.behaviour_depth), indent=2))


if __name__ == "__main__":
    main()
