"""How well an AlphaZero run's value head fits games it has not seen, snapshot by snapshot.

For each snapshot ``snapshots/model-iter-N.pt`` of a run folder whose next iteration's
samples (``samples/iter-(N+1).npz``) are there, the value MSE and policy cross-entropy of
that network on

* ``new``: the next iteration's games, played after the snapshot and never learned from
  (held out; the training metrics' ``value_loss_new`` is the same figure, recorded by runs
  begun after it was added);
* ``window``: the samples the snapshot had been fitted to (its replay window);
* ``zero``: for scale, the MSE of predicting 0 for every value target on the new games.

A value head that overfits its window shows a ``window`` loss well under ``new``. Usage:
``.venv/bin/python benchmarks/az_value_fit.py RUN [--json OUT]`` (``RUN`` as written by
``paiju yuxi train-az`` / ``paiju az train``: samples of every iteration are kept there).

``--refit K --held H``: whether more data fits better. A fresh network of the run's size
(seeded) learns from the samples of iterations ``0..K-1`` with the run's learning settings
(minibatch, learning rate, weight decay, value weight; ``--weight-decay`` overrides) for
``--steps`` Adam steps, and is scored every tenth of them on iterations ``K..K+H-1``, held
out: the held-out value MSE as a function of the passes over the data. For scale it also
fits, by least squares on the same samples, a linear value of each input plane's sum over
the board and the vector (``linear``), scored on the same held-out games.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paiju.algorithms.alphazero.checkpoint import load_checkpoint
from paiju.algorithms.alphazero.train import held_out_losses, load_replay, samples_path, value_targets
from paiju.core.run_folder import read_config


def value_fit(run: Path) -> list[dict[str, Any]]:
    """One row per snapshot with a next iteration's samples (see the module docstring)."""
    window = int(read_config(run)["config"]["window"])  # a run of any date (run_folder's fallback)
    rows = []
    for snap in sorted((run / "snapshots").glob("model-iter-*.pt")):
        found = re.search(r"(\d+)", snap.stem)
        assert found is not None
        n = int(found.group(1))
        nxt = samples_path(run, n + 1)
        seen = [samples_path(run, i) for i in range(max(0, n - window + 1), n + 1)]
        if not nxt.exists() or not all(p.exists() for p in seen):
            continue
        net, _ = load_checkpoint(snap)
        new = load_replay([nxt])
        v_new, p_new = held_out_losses(net, new)
        v_win, p_win = held_out_losses(net, load_replay(seen))
        rows.append({"iteration": n, "value_new": v_new, "value_window": v_win,
                     "value_zero": float(np.mean(new.values.astype(np.float64) ** 2)),
                     "policy_new": p_new, "policy_window": p_win, "new_samples": len(new)})
    return rows


def linear_fit(train: Any, held: Any) -> float:
    """Held-out value MSE of a least-squares fit on the plane sums and the vector (clipped to
    the returns' range [-1, 1])."""
    def features(r: Any) -> np.ndarray:
        sums = r.planes.astype(np.float32).sum(axis=(2, 3))
        return np.concatenate([np.ones((len(r), 1)), sums, r.vector.astype(np.float32)], axis=1)

    x, y = features(train), train.values[:, 0].astype(np.float64)
    w, *_ = np.linalg.lstsq(x, y, rcond=None)
    pred = np.clip(features(held) @ w, -1, 1)
    return float(np.mean((pred - held.values[:, 0]) ** 2))


def refit(run: Path, train_iters: int, held_iters: int, steps: int, seed: int,
          weight_decay: float | None = None, sizes: dict[str, Any] | None = None,
          zero_vector: bool = False, root_value_weight: float = 0.0) -> list[dict[str, Any]]:
    """The ``--refit`` curve (see the module docstring): one row per tenth of ``steps``;
    ``sizes`` overrides the network's widths (``hidden=64``), ``zero_vector`` blanks the
    vector input (card counts) in training and scoring alike, ``root_value_weight`` mixes the
    training targets with the root values (scored against the outcomes all the same)."""
    from paiju.algorithms.alphazero import AZNet
    from paiju.algorithms.alphazero.train import TrainConfig, learn_step

    config = TrainConfig.from_dict(read_config(run)["config"])
    snaps = sorted((run / "snapshots").glob("model-iter-*.pt"))
    if not snaps:
        raise SystemExit(f"{run}: no snapshot to read the network's size from")
    shape, _ = load_checkpoint(snaps[0])
    torch.manual_seed(seed)
    net = AZNet(dataclasses.replace(shape.config, **(sizes or {})))
    outcomes = load_replay([samples_path(run, i) for i in range(train_iters)])
    held = load_replay([samples_path(run, i) for i in range(train_iters, train_iters + held_iters)])
    if zero_vector:
        outcomes = dataclasses.replace(outcomes, vector=np.zeros_like(outcomes.vector))
        held = dataclasses.replace(held, vector=np.zeros_like(held.vector))
    # the two references for scale, computed once
    linear = linear_fit(outcomes, held)
    zero = float(np.mean(held.values.astype(np.float64) ** 2))
    train = value_targets(outcomes, root_value_weight)
    opt = torch.optim.Adam(net.parameters(), lr=config.lr,
                           weight_decay=config.weight_decay if weight_decay is None else weight_decay)
    rng = np.random.default_rng(seed)
    rows = []
    for step in range(1, steps + 1):
        net.train()
        learn_step(net, opt, train, rng.choice(len(train), size=min(config.batch_size, len(train)),
                                               replace=False), config.value_weight)
        if step % max(1, steps // 10) == 0 or step == steps:
            v, p = held_out_losses(net, held)
            rows.append({"step": step, "passes": step * config.batch_size / len(train),
                         "value_held": v, "policy_held": p, "train_samples": len(train),
                         "value_zero": zero, "value_linear": linear})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--refit", type=int, default=0, metavar="K")
    parser.add_argument("--held", type=int, default=2, metavar="H")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--weight-decay", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", action="append", default=[], metavar="NAME=N",
                        help="a network width for --refit (hidden=64, channels=16, ...)")
    parser.add_argument("--zero-vector", action="store_true", help="--refit without the vector input")
    parser.add_argument("--root-value-weight", type=float, default=0.0,
                        help="--refit on targets mixed with the root values")
    args = parser.parse_args()
    sizes: dict[str, Any] = {k: int(v) for k, v in (item.split("=", 1) for item in args.size)}
    if "value_skip" in sizes:
        sizes["value_skip"] = bool(sizes["value_skip"])
    torch.set_num_threads(1)
    if args.refit:
        curve = refit(args.run, args.refit, args.held, args.steps, args.seed, args.weight_decay, sizes,
                      args.zero_vector, args.root_value_weight)
        print(f"fresh net on iterations 0..{args.refit - 1} ({curve[0]['train_samples']} samples), "
              f"scored on {args.refit}..{args.refit + args.held - 1}; "
              f"predicting 0: {curve[0]['value_zero']:.3f}; linear fit: {curve[0]['value_linear']:.3f} "
              "(own seat's value)")
        print("| step | passes over the data | value MSE, held out | policy CE, held out |")
        print("|---:|---:|---:|---:|")
        for r in curve:
            print(f"| {r['step']} | {r['passes']:.1f} | {r['value_held']:.3f} | {r['policy_held']:.3f} |")
        if args.json:
            args.json.write_text(json.dumps(curve, indent=1) + "\n", encoding="utf-8")
        return
    rows = value_fit(args.run)
    print("| snapshot | value MSE, new games | value MSE, its window | predict 0 "
          "| policy CE, new | policy CE, window |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['iteration']} | {r['value_new']:.3f} | {r['value_window']:.3f} | {r['value_zero']:.3f} "
              f"| {r['policy_new']:.3f} | {r['policy_window']:.3f} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
