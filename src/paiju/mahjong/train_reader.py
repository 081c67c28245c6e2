"""Train the table reader (``paiju.mahjong.reader``) on search-labelled data's oracle labels.

    paiju mahjong train-reader --data runs/mj-search --out runs/mj-reader --leave-out greedy

One file, top to bottom (CleanRL's shape): the config; the samples (each labelled decision of
the data, replayed, and each of the acting seat's three opponents: the reader's input, his
readiness and his waits, his player type); the split (the last ``validation`` share of the
hands is held out, and every sample whose *opponent* is of the ``leave_out`` type is kept
out of training: the gate is read on opponents the reader never saw); the training loop
(binary cross-entropy on readiness and the 34 waits, Adam, a checkpoint after every epoch, so
an interrupted run rerun gives the uninterrupted run's weights; the weights kept are the
epoch's with the lowest deal-in log-loss on the held-out hands' opponents of the *seen*
types, or none: the reader starts as the fitted models); the report.

``OUT`` is a run folder (:mod:`paiju.core.run_folder`): ``config.json``, ``checkpoint.pt``,
``metrics.jsonl`` (one line per epoch), ``curve.png``, ``metrics.json`` (the report) and the
reader ``model.pt`` (:meth:`paiju.mahjong.reader.NetworkReader.load`); beside them
``samples.npz``, the replayed samples, built once.

The gate (docs/results/mahjong-reader.md): the held-out **deal-in log-loss** -- per turn
decision, opponent and kind held by the acting seat, the chance that the kind is one of the
opponent's waits -- on the left-out type, beside a constant and the fitted models of
:mod:`paiju.mahjong.agents.defence` on the same samples. With ``leave_out = greedy`` it is
also read on ``benchmarks/mahjong_oracle_defence.py reads-ceiling``'s own held-out hands
(greedy self-play, hands 1,600-1,999 of seed 60,000), where the fitted models score 0.0375,
boosted trees 0.0363, a constant 0.0481.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from paiju.core.errors import ConfigError
from paiju.core.rng import derive_seed
from paiju.core.run_folder import RunFolder
from paiju.core.run_folder import command_line as config_command_line
from paiju.core.torch_files import save_payload
from paiju.mahjong import search_data as S
from paiju.mahjong.agents import REGISTRY
from paiju.mahjong.agents.defence import probability_log_loss
from paiju.mahjong.agents.greedy import greedy_turns
from paiju.mahjong.game import Phase
from paiju.mahjong.reader import FITTED_CHANNEL, INPUT_SIZE, READER_VERSION, build_net, table_features
from paiju.mahjong.scoring import waits
from paiju.mahjong.tiles import NUM_KINDS

FITTED = FITTED_CHANNEL * NUM_KINDS
"""Offset of the fitted models' deal-in chances in a reader input."""


@dataclass(frozen=True)
class ReaderConfig:
    """A reader run; each field's metadata gives its ``paiju mahjong train-reader`` option."""

    data: str
    """A finished search-data folder (``paiju mahjong search-data``)."""
    out: str
    leave_out: str = field(default="greedy",
                           metadata={"help": "Opponent type kept out of training (the gate's)."})
    """Opponents of this player type are kept out of training (the gate is read on them)."""
    hidden: tuple[int, ...] = field(
        default=(256, 256), metadata={"help": "Hidden widths, comma-separated.", "min": 1, "max": 4096}
    )
    """The shared per-kind network's widths (the command's default, which made the runs of
    docs/results/mahjong-reader.md)."""
    epochs: int = field(default=20, metadata={"min": 1, "max": 10_000})
    batch: int = field(default=512, metadata={"min": 1, "max": 65_536})
    lr: float = field(default=1e-3, metadata={"min": 1e-7, "max": 1.0})
    weight_decay: float = field(default=1e-5, metadata={"min": 0.0, "max": 1.0})
    validation: float = field(default=0.15, metadata={"help": "Share of the hands held out (the last).",
                                                      "min": 0.0, "max": 1.0})
    """Share of the data's hands held out (the last ones)."""
    seed: int = field(default=0, metadata={"short": "-s"})
    threads: int = 1
    greedy_test_hands: int = field(default=400, metadata={"help": "reads-ceiling's held-out hands (0: none).",
                                                          "min": 0, "max": 100_000})
    """reads-ceiling's held-out hands: greedy self-play hands 1,600-1,999 of seed 60,000."""
    greedy_test_seed: int = field(default=61_600, metadata={"min": 0, "max": 2**63 - 1})


RUN_FORMAT = "paiju-mj-reader-run-1"
MAY_CHANGE = ("out", "epochs", "threads")
"""The fields a resumed run may change; the others are its identity."""


def run_folder(cfg: ReaderConfig) -> RunFolder:
    """The run's folder (:mod:`paiju.core.run_folder`)."""
    return RunFolder(cfg.out, "train-reader", cfg, may_change=MAY_CHANGE)


# ---- samples --------------------------------------------------------------------------------
@dataclass
class Samples:
    x: np.ndarray  # (n, INPUT_SIZE) float32
    ready: np.ndarray  # (n,) float32
    waits: np.ndarray  # (n, 34) float32
    held: np.ndarray  # (n, 34) bool: the acting seat's concealed kinds on a turn (the gate's samples)
    hand: np.ndarray  # (n,) int64
    opponent: np.ndarray  # (n,) str: the opponent's player type

    def take(self, mask: np.ndarray) -> Samples:
        return Samples(self.x[mask], self.ready[mask], self.waits[mask], self.held[mask], self.hand[mask],
                       self.opponent[mask])


def data_samples(folder: str | Path) -> Samples:
    """Every labelled decision of a search-data folder, replayed, per opponent."""
    renamed = S.read_summary(folder)["renamed"]
    hands = pq.read_table(Path(folder) / "hands.parquet").to_pylist()
    rows = pq.read_table(Path(folder) / "decisions.parquet",
                         columns=["hand", "move", "seat", "phase", "opp_ready", "opp_waits"]).to_pylist()
    by_hand: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        by_hand.setdefault(r["hand"], []).append(r)
    xs, ready, wait_rows, held, hand_of, opponent = [], [], [], [], [], []
    for h in hands:
        todo = {r["move"]: r for r in by_hand.get(h["hand"], [])}
        for move, state in S.replay(h["wall"], h["actions"]):
            row = todo.get(move)
            if row is None:
                continue
            obs = state.observation(row["seat"])
            seats, x = table_features(obs)
            turn = row["phase"] == Phase.TURN
            for i, o in enumerate(seats):
                xs.append(x[i])
                ready.append(float(row["opp_ready"][i]))
                wait_rows.append(row["opp_waits"][i * NUM_KINDS:(i + 1) * NUM_KINDS])
                held.append([turn and c > 0 for c in obs.hand])
                hand_of.append(h["hand"])
                player = h["players"][o]
                opponent.append(renamed.get(player, player))
    return Samples(np.asarray(xs, np.float32), np.asarray(ready, np.float32),
                   np.asarray(wait_rows, np.float32), np.asarray(held, bool), np.asarray(hand_of, np.int64),
                   np.asarray(opponent))


def greedy_test_samples(hands: int, seed: int) -> Samples:
    """reads-ceiling's samples: greedy self-play turns, every opponent, waits as it counts them."""
    xs, ready, wait_rows, held, hand_of = [], [], [], [], []
    for h, state, obs in greedy_turns(hands, seed):
        seats, x = table_features(obs)
        for i, o in enumerate(seats):
            hand = list(state.hands[o])
            w = set(waits(hand)) if sum(hand) % 3 == 1 else set()
            xs.append(x[i])
            ready.append(float(bool(w)))
            wait_rows.append([float(k in w) for k in range(NUM_KINDS)])
            held.append([c > 0 for c in obs.hand])
            hand_of.append(h)
    n = len(xs)
    return Samples(np.asarray(xs, np.float32), np.asarray(ready, np.float32),
                   np.asarray(wait_rows, np.float32), np.asarray(held, bool), np.asarray(hand_of, np.int64),
                   np.asarray(["greedy"] * n))


# ---- the gate's measure -----------------------------------------------------------------------
def deal_in_log_loss(p_waits: np.ndarray, s: Samples, constant: float) -> dict[str, Any]:
    """The held-out deal-in log-loss of the reader's chances ``p_waits`` (n, 34), of the fitted
    models (read from the inputs) and of ``constant``, over the held kinds of turn samples."""
    y = s.waits[s.held]
    if not len(y):  # no turn of this type among the held-out hands
        return {"samples": 0, "reader": None, "fitted_models": None, "constant": None}
    return {
        "samples": int(s.held.sum()),
        "reader": probability_log_loss(p_waits[s.held], y),
        "fitted_models": probability_log_loss(s.x[:, FITTED:FITTED + NUM_KINDS][s.held], y),
        "constant": probability_log_loss(np.full(len(y), constant), y),
    }


# ---- training ---------------------------------------------------------------------------------
def train(cfg: ReaderConfig) -> dict[str, Any]:
    import torch

    if not 0 < cfg.validation < 1 or cfg.epochs < 1 or cfg.batch < 1:
        raise ConfigError("train-reader: validation must be in (0, 1), epochs and batch at least 1")
    S.read_summary(cfg.data)  # a finished search-data folder, checked before anything is written
    torch.set_num_threads(cfg.threads)
    folder = run_folder(cfg)
    # rerun to resume; a resume of another configuration is refused before anything is written
    state = folder.load_checkpoint(RUN_FORMAT) if folder.has_checkpoint() else None
    out = folder.path
    out.mkdir(parents=True, exist_ok=True)

    # the samples, built once and kept (replaying the data is the slow part)
    cache = out / "samples.npz"
    if cache.is_file():
        z = np.load(cache, allow_pickle=False)
        samples = Samples(z["x"], z["ready"], z["waits"], z["held"], z["hand"], z["opponent"])
    else:
        samples = data_samples(cfg.data)
        np.savez(cache, **asdict(samples))
    types = sorted(set(samples.opponent.tolist()))
    leave_out = str(REGISTRY.resolve(cfg.leave_out))  # the data names players by canonical spec
    if leave_out not in types:
        raise ConfigError(f"train-reader: leave_out={cfg.leave_out!r} is none of the data's players {types}")
    hand_ids = np.unique(samples.hand)
    cut = hand_ids[int(len(hand_ids) * (1 - cfg.validation))]
    seen = samples.opponent != leave_out
    fit = samples.take((samples.hand < cut) & seen)
    held_out = samples.take(samples.hand >= cut)
    constant = float(fit.waits[fit.held].mean())

    torch.manual_seed(cfg.seed)
    net = build_net(cfg.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    bce = torch.nn.BCEWithLogitsLoss()
    start, metrics = 0, []
    # the held-out samples per opponent type, taken once; early stopping reads those of the
    # *seen* types, never the left-out one
    masks = {t: held_out.opponent == t for t in types}
    parts = {t: held_out.take(m) for t, m in masks.items()}
    seen_mask = held_out.opponent != leave_out
    val = held_out.take(seen_mask)
    best: dict[str, Any] = {"epoch": -1, "net": {k: v.clone() for k, v in net.state_dict().items()}}
    if state is not None:
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        start, metrics = int(state["epoch"]) + 1, json.loads(state["metrics"])
        best = {"epoch": int(state["best_epoch"]), "net": state["best_net"]}
    words = ["paiju", "mahjong", "train-reader", "--data", cfg.data, "--out", cfg.out]
    folder.write_config(config_command_line(words, cfg, skip=("data", "out")))
    folder.write_metrics(metrics)
    x = torch.from_numpy(fit.x)
    y = torch.from_numpy(np.concatenate([fit.ready[:, None], fit.waits], axis=1))

    def predict(s: Samples) -> np.ndarray:
        net.eval()
        with torch.no_grad():
            p = torch.sigmoid(net(torch.from_numpy(s.x))).numpy()
        net.train()
        return p

    def by_opponent(p: np.ndarray) -> dict[str, dict[str, Any]]:
        """The deal-in log-loss of the held-out predictions ``p`` per opponent type."""
        return {t: deal_in_log_loss(p[m, 1:], parts[t], constant) for t, m in masks.items()}

    def val_loss(p: np.ndarray) -> float:
        return float(deal_in_log_loss(p[seen_mask, 1:], val, constant)["reader"])

    start_loss = val_loss(predict(held_out)) if start == 0 else metrics[0]["start_validation_loss"]
    for epoch in range(start, cfg.epochs):
        clock = time.process_time()
        order = torch.randperm(len(x), generator=torch.Generator().manual_seed(derive_seed(cfg.seed, epoch)))
        total = 0.0
        for i in range(0, len(order), cfg.batch):
            idx = order[i:i + cfg.batch]
            loss = bce(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        p = predict(held_out)  # one pass serves the per-type figures and early stopping
        by_type = {t: row["reader"] for t, row in by_opponent(p).items()}
        loss_now = val_loss(p)
        metrics.append({"epoch": epoch, "train_loss": total / len(order), "validation_loss": loss_now,
                        "start_validation_loss": start_loss,
                        "held_out_deal_in_log_loss": by_type, "cpu_s": time.process_time() - clock})
        if loss_now < min([start_loss] + [m["validation_loss"] for m in metrics[:-1]]):
            best = {"epoch": epoch, "net": {k: v.clone() for k, v in net.state_dict().items()}}
        folder.save_checkpoint(RUN_FORMAT, {"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                                            "best_epoch": best["epoch"], "best_net": best["net"],
                                            "metrics": json.dumps(metrics)})
        folder.append_metrics(metrics[-1])
        folder.plot_curve(CURVE, x="epoch")

    # the report, with the best epoch's weights (-1: none beat the fitted models it starts from):
    # per opponent type on the held-out hands, and reads-ceiling's greedy hands
    net.load_state_dict(best["net"])
    p = predict(held_out)
    report: dict[str, Any] = {
        "config": asdict(cfg), "samples": {"fit": len(fit.x), "held_out": len(held_out.x)},
        "constant": constant, "best_epoch": best["epoch"], "epochs": metrics,
        "held_out_by_opponent": by_opponent(p),
    }
    if leave_out == "greedy" and cfg.greedy_test_hands > 0:
        g = greedy_test_samples(cfg.greedy_test_hands, cfg.greedy_test_seed)
        report["reads_ceiling_hands"] = deal_in_log_loss(predict(g)[:, 1:], g, constant)
    save_payload(folder.model_file, {"format": READER_VERSION, "hidden": list(cfg.hidden),
                                     "inputs": INPUT_SIZE, "state_dict": net.state_dict()})
    folder.write_summary(report)
    return report


CURVE = {"training loss (BCE)": ["train_loss"],
         "held-out deal-in log-loss, seen types": ["validation_loss", "start_validation_loss"]}
"""The panels of ``curve.png`` (the start's loss: the fitted models' own, where the reader starts)."""


__all__ = ["ReaderConfig", "Samples", "data_samples", "deal_in_log_loss", "greedy_test_samples", "train"]
