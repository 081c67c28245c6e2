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

``--teacher-data DATA -g GAME --targets outcome,root,rollouts,mix:0.5``: which value target
generalises (issue 46 item 2). A teacher-data folder (``paiju az teacher-data``) is split by
game (``--held-out`` of its games, never single positions: a game's positions share its
outcome); for each target the same fresh network (the trainer's size, ``--size`` overrides;
seeded alike) learns from the other games for ``--epochs`` passes in the same minibatch order
(the trainer's pretraining, :func:`paiju.algorithms.alphazero.train.learn_epoch`), and is scored
after each pass on the held-out games' **outcomes**, whatever it learned from: value MSE over
the seats, as ``value_loss_held``. Beside them, for scale: predicting a draw (0), the linear fit
on the outcomes, and the teacher's own root values and rollout means read as predictions. 95%
intervals by bootstrap over the held-out games (``--bootstrap`` resamples; the same resamples
for every row, so the differences to ``outcome`` are paired). Results:
``docs/results/az-targets.md``.
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
from paiju.algorithms.alphazero.targets import value_targets
from paiju.algorithms.alphazero.train import held_out_losses, load_replay, samples_path
from paiju.core.run_folder import read_config

TARGETS = "outcome,root,rollouts,mix:0.5"
"""The targets ``--teacher-data`` compares by default."""


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
    pred = np.clip(_linear_prediction(train, held), -1, 1)
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


def _errors(pred: np.ndarray, outcome: np.ndarray) -> np.ndarray:
    """Each sample's squared error against its outcome, averaged over the seats."""
    return np.asarray(np.mean((np.asarray(pred, dtype=np.float64) - outcome) ** 2, axis=1))


def _net_values(net: Any, samples: Any, batch: int = 4096) -> np.ndarray:
    with torch.no_grad():
        return np.concatenate([
            net(torch.from_numpy(samples.planes[i:i + batch].astype(np.float32)),
                torch.from_numpy(samples.vector[i:i + batch].astype(np.float32))).value.numpy()
            for i in range(0, len(samples), batch)])


def _bootstrap(errors: dict[str, np.ndarray], games: np.ndarray, resamples: int, seed: int,
               against: str) -> dict[str, dict[str, Any]]:
    """Each row's MSE with a 95% interval over games resampled with replacement, and its
    difference to the row ``against`` on the same resamples."""
    ids, group = np.unique(games, return_inverse=True)
    counts = np.bincount(group, minlength=len(ids)).astype(np.float64)
    picks = np.random.default_rng(seed).multinomial(len(ids), np.full(len(ids), 1 / len(ids)), size=resamples)
    weights = picks.astype(np.float64)
    per_game = {k: np.bincount(group, weights=e, minlength=len(ids)) for k, e in errors.items()}
    boot = {k: (weights @ v) / (weights @ counts) for k, v in per_game.items()}
    out = {}
    for k, e in errors.items():
        diff = boot[k] - boot[against]
        out[k] = {"mse": float(e.mean()), "ci": [float(x) for x in np.percentile(boot[k], [2.5, 97.5])],
                  "diff": float(e.mean() - errors[against].mean()),
                  "diff_ci": [float(x) for x in np.percentile(diff, [2.5, 97.5])]}
    return out


def compare_targets(data_dir: Path, game: str, targets: list[str], epochs: int, held_out: float, seed: int,
                    sizes: dict[str, Any] | None = None, resamples: int = 1000,
                    weight_decay: float | None = None) -> dict[str, Any]:
    """The ``--teacher-data`` comparison (see the module docstring)."""
    from paiju.algorithms.alphazero import AZNet, NetConfig
    from paiju.algorithms.alphazero.targets import ValueTarget
    from paiju.algorithms.alphazero.teacher import held_out_games, read_teacher_data
    from paiju.algorithms.alphazero.train import TrainConfig, learn_epoch
    from paiju.games.grid_encoding import board_setup

    config = TrainConfig()
    data = read_teacher_data(data_dir)
    # drawn once: the split (split_by_game's, as the trainer makes it) and the games to resample
    held_mask = held_out_games(data, held_out, seed)
    if not held_mask.any():
        raise SystemExit(f"--held-out {held_out} holds out no game: nothing to score on")
    learn, held = data.samples.take(np.flatnonzero(~held_mask)), data.samples.take(np.flatnonzero(held_mask))
    outcome = held.values.astype(np.float64)
    _game, encoder = board_setup(game, {}, 0)
    shape = NetConfig.for_encoder(encoder, num_players=outcome.shape[1], channels=config.channels,
                                  blocks=config.blocks, hidden=config.hidden)
    shape = dataclasses.replace(shape, **(sizes or {}))
    errors: dict[str, np.ndarray] = {
        "predict 0 (a draw)": _errors(np.zeros_like(outcome), outcome),
        "the teacher's root value": _errors(held.root_values, outcome),
    }
    if np.isfinite(held.rollout_values).all():
        errors["the teacher data's rollout mean"] = _errors(held.rollout_values, outcome)
    curves: dict[str, list[dict[str, float]]] = {}
    for name in targets:
        target = ValueTarget.parse(name)
        torch.manual_seed(seed)
        net = AZNet(shape)
        opt = torch.optim.Adam(net.parameters(), lr=config.lr,
                               weight_decay=config.weight_decay if weight_decay is None else weight_decay)
        train = value_targets(learn, target)
        curves[name] = []
        for epoch in range(epochs):
            learn_epoch(net, opt, train, np.random.default_rng([seed, epoch]), config.batch_size,
                        config.value_weight)
            v, p = held_out_losses(net, held)
            curves[name].append({"epoch": epoch + 1, "value_held": v, "policy_held": p})
        errors[name] = _errors(_net_values(net, held), outcome)
    # the linear fit predicts the mover's value; the other seat's is its negation (two players, zero sum)
    own = np.clip(_linear_prediction(learn, held), -1, 1)
    errors["linear fit on the outcomes"] = _errors(np.stack([own, -own], axis=1), outcome)
    rows = _bootstrap(errors, data.games[held_mask], resamples, seed, against=targets[0])
    return {"data": str(data_dir), "teacher": data.summary["teacher"], "games": len(np.unique(data.games)),
            "held_games": len(np.unique(data.games[held_mask])), "held_samples": len(held),
            "learn_samples": len(learn), "epochs": epochs, "seed": seed, "network": shape.to_dict(),
            "rows": rows, "curves": curves, "targets": targets}


def _linear_prediction(train: Any, held: Any) -> np.ndarray:
    """The mover's value on ``held`` by least squares on ``train``'s plane sums and vector
    (what :func:`linear_fit` scores)."""
    def features(r: Any) -> np.ndarray:
        sums = r.planes.astype(np.float32).sum(axis=(2, 3))
        return np.concatenate([np.ones((len(r), 1)), sums, r.vector.astype(np.float32)], axis=1)

    w, *_ = np.linalg.lstsq(features(train), train.values[:, 0].astype(np.float64), rcond=None)
    return np.asarray(features(held) @ w)


def _print_targets(result: dict[str, Any]) -> None:
    against = result["targets"][0]
    print(f"{result['data']} ({result['teacher']}): {result['learn_samples']} samples learned from, "
          f"{result['held_samples']} held out ({result['held_games']} of {result['games']} games); "
          f"{result['epochs']} passes, seed {result['seed']}")
    print(f"| predictor | held-out value MSE | 95% interval | minus {against} | 95% interval |")
    print("|---|---:|---|---:|---|")
    for name, r in result["rows"].items():
        label = f"network, target `{name}`" if name in result["curves"] else name
        print(f"| {label} | {r['mse']:.4f} | [{r['ci'][0]:.4f}, {r['ci'][1]:.4f}] | {r['diff']:+.4f} "
              f"| [{r['diff_ci'][0]:+.4f}, {r['diff_ci'][1]:+.4f}] |")
    print()
    names = list(result["curves"])
    print("| pass | " + " | ".join(f"`{n}` value | `{n}` policy" for n in names) + " |")
    print("|---:|" + "---:|---:|" * len(names))
    for e in range(result["epochs"]):
        cells = [f"{result['curves'][n][e]['value_held']:.4f} | {result['curves'][n][e]['policy_held']:.3f}"
                 for n in names]
        print(f"| {e + 1} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", type=Path, nargs="?")
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
    parser.add_argument("--teacher-data", type=Path, default=None, metavar="DATA",
                        help="compare value targets on a teacher-data folder (no RUN)")
    parser.add_argument("-g", "--game", default="connect_four", help="the teacher data's game")
    parser.add_argument("--targets", default=TARGETS,
                        help="comma-separated value targets, the first the reference")
    parser.add_argument("--epochs", type=int, default=4, help="passes over the teacher data")
    parser.add_argument("--held-out", type=float, default=0.2, help="share of the teacher's games held out")
    parser.add_argument("--bootstrap", type=int, default=1000, help="resamples of the held-out games")
    args = parser.parse_args()
    sizes: dict[str, Any] = {k: int(v) for k, v in (item.split("=", 1) for item in args.size)}
    if "value_skip" in sizes:
        sizes["value_skip"] = bool(sizes["value_skip"])
    torch.set_num_threads(1)
    if args.teacher_data is not None:
        result = compare_targets(args.teacher_data, args.game, args.targets.split(","), args.epochs,
                                 args.held_out, args.seed, sizes, args.bootstrap, args.weight_decay)
        _print_targets(result)
        if args.json:
            args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        return
    if args.run is None:
        parser.error("give a RUN, or --teacher-data DATA")
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
