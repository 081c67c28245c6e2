"""Double DQN fine-tuning of the distilled network on search-labelled data (the paper's
algorithm on the learned start, docs/mahjong-training.md §6).

    paiju mahjong finetune-dqn --data runs/mj-search-3584 --out runs/mj-ddqn-ft

One file, top to bottom (CleanRL's shape): the config; the transitions; the losses; the
training loop; the report.

**The Q-function is the distilled network's.** A discard ``a`` of a turn ``s`` leaves a 3k+1
hand waiting for its draw, which the value head values (:mod:`paiju.mahjong.distill`): ``V``,
in points, given that the discard did not deal in. The discard's Q-value is that value charged
with the discard's deal-in risk as the teacher charges its root (``(1 - p) * V - cost``, the
risk stored with the samples): ``Q(s, a) = (1 - p_a) V(s - a) - cost_a``. So the fine-tuned
network stays what the Expectimax reads: its leaves are ``V`` and its root ranks by ``Q``.

**Transitions, offline.** Every turn of the data whose discard was evaluated and did not deal
in is a transition ``(s, a)`` to the same seat's next turn ``s'`` of the hand. Its target is
``Q_target(s', argmax_a' Q(s', a'))`` (Double DQN: the online network picks, the target
network values; ``algorithm=dqn``: ``max_a' Q_target(s', a')``) over the discards evaluated at
``s'``, or the seat's points for the hand when the hand ended before its next turn (a win, a
payment, a drawn hand). A discard that dealt in is no transition: its loss is the risk's part of
``Q``, which is the teacher's, and ``V`` is the value given no deal-in.

**The reward is the hand's result alone, undiscounted** (``gamma = 1``), so ``V`` stays the
expected points of the hand, the unit of the search's leaves. The paper adds ``0.1 *
V_expectimax`` at every step; written as a difference of potentials (``Phi(s') - Phi(s)``,
Ng et al. 1999) such shaping leaves the best policy unchanged but shifts every Q-value of a
state by ``-Phi(s)``, and the leaves of one search come from different states, so their
values would no longer compare. It is left out.

**A large-margin term keeps untaken discards from running away** (DQfD, Hester et al. 2018):
``max_a [Q(s, a) + margin * (a != a_E)] - Q(s, a_E)`` on every turn, ``a_E`` the teacher
search's discard, weighted by ``margin_weight``. Offline, a discard the data never played has
no target of its own; this term keeps it below the search's choice unless the evidence says
otherwise.

The split is train-distill's (by hand; the last ``test`` share reports). The report gives,
before fine-tuning and after each epoch, on the validation and test hands: the Bellman
residual, the error of each played discard's Q against the points the seat then made (a
measure no target is, fitted or bootstrapped), and how often the best discard by ``Q`` is the
teacher's. A checkpoint after every epoch (networks, optimiser, step), so a resumed run ends
with the uninterrupted run's weights (tested). The last epoch is kept: the model is a
distilled-model file, which ``expectimax-distill:model=PATH`` and the Q-network agents load.
"""

from __future__ import annotations

import copy
import json
import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from paiju.core import run_folder
from paiju.core.errors import ConfigError
from paiju.core.rng import derive_seed
from paiju.core.run_folder import RunFolder
from paiju.mahjong import distill as D
from paiju.mahjong import search_data as S
from paiju.mahjong import train_distill as T
from paiju.mahjong.tiles import NUM_KINDS

ALGORITHMS = ("ddqn", "dqn")
NONE = -1
"""No row / no value sample."""


@dataclass(frozen=True)
class FineTuneConfig:
    """A fine-tuning run; each field's metadata gives its ``paiju mahjong finetune-dqn`` option."""

    data: str
    """A finished search-data folder (``paiju mahjong search-data``)."""
    out: str
    """The run folder (resumes)."""
    init: str = field(default="", metadata={
        "help": "The distilled model the run starts from (a file or a shipped name such as distill-exit-1); "
                "empty: the shipped mj-distill.pt."})
    algorithm: str = field(default="ddqn", metadata={
        "help": "ddqn (the online network picks the next discard, the target network values it) or dqn."})
    margin: float = field(default=100.0, metadata={
        "help": "Points by which the teacher's discard must beat every other (large-margin term).",
        "min": 0.0, "max": 100_000.0})
    margin_weight: float = field(default=1.0, metadata={
        "help": "Weight of the large-margin term beside the TD loss (0: none).", "min": 0.0, "max": 1000.0})
    target_every: int = field(default=200, metadata={
        "help": "Gradient steps between copies of the online network into the target network.",
        "min": 1, "max": 10_000_000})
    epochs: int = field(default=4, metadata={"min": 1, "max": 10_000})
    batch: int = field(default=256, metadata={"help": "Transitions per step.", "min": 1, "max": 65_536})
    lr: float = field(default=1e-4, metadata={"min": 1e-7, "max": 1.0})
    weight_decay: float = field(default=1e-5, metadata={"min": 0.0, "max": 1.0})
    validation: float = field(default=0.1, metadata={
        "help": "Share of the hands (before the test hands) measured after each epoch.", "min": 0.0,
        "max": 1.0})
    test: float = field(default=0.1, metadata={
        "help": "Share of the hands (the last ones) the report is measured on.", "min": 0.0, "max": 1.0})
    hands: int = field(default=0, metadata={"help": "Read only the data's first hands (0: all).", "min": 0,
                                            "max": 100_000_000})
    seed: int = field(default=0, metadata={"short": "-s"})
    threads: int = field(default=1, metadata={"help": "Torch threads."})


def check_config(cfg: FineTuneConfig) -> None:
    if cfg.algorithm not in ALGORITHMS:
        raise ConfigError(f"finetune-dqn: algorithm={cfg.algorithm!r} must be one of {', '.join(ALGORITHMS)}")
    if cfg.epochs < 1 or cfg.batch < 1 or cfg.target_every < 1 or cfg.hands < 0 or cfg.threads < 0:
        raise ConfigError("finetune-dqn: epochs, batch and target_every must be at least 1, hands and "
                          "threads at least 0")
    if cfg.margin < 0 or cfg.margin_weight < 0:
        raise ConfigError(f"finetune-dqn: margin={cfg.margin} and margin_weight={cfg.margin_weight} must be "
                          ">= 0")
    T.check_shares("finetune-dqn", cfg.validation, cfg.test)


# ---- transitions -------------------------------------------------------------------------------
@dataclass
class Transitions:
    """Per row of the samples: the value sample of the discard played (``NONE``: not an
    evaluated discard), of the teacher's, and the same seat's next turn in the hand (``NONE``:
    the hand ended first)."""

    played: np.ndarray  # (R,) int64
    teacher: np.ndarray  # (R,) int64
    next_row: np.ndarray  # (R,) int64

    def learns(self, s: T.Samples, rows: np.ndarray) -> np.ndarray:
        """The rows that are transitions: an evaluated discard played that did not deal in."""
        return rows[(self.played[rows] != NONE) & ~s.dealt_in[rows]]


def transitions(s: T.Samples, sp: T.Split) -> Transitions:
    rows = s.rows()
    played = np.full(rows, NONE, np.int64)
    teacher = np.full(rows, NONE, np.int64)
    for r in range(rows):
        for leaf in range(sp.leaf_start[r], sp.leaf_start[r + 1]):
            kind = s.leaf_kind[leaf]
            if kind == s.action[r]:
                played[r] = leaf
            if kind == s.teacher_action[r]:
                teacher[r] = leaf
    next_row = np.full(rows, NONE, np.int64)
    last: dict[tuple[int, int], int] = {}
    order = np.lexsort((s.move, s.hand_index))  # the rows in play order (they are stored so)
    for r in order[::-1]:
        key = (int(s.hand_index[r]), int(s.seat[r]))
        next_row[r] = last.get(key, NONE)
        last[key] = int(r)
    return Transitions(played, teacher, next_row)


# ---- Q-values ----------------------------------------------------------------------------------
def leaf_values(net: D.DistillNet, s: T.Samples, leaves: np.ndarray) -> torch.Tensor:
    """``V`` of value samples ``leaves``, in points."""
    return net.values(torch.from_numpy(s.value_inputs(leaves, net.residual)))


def q_table(s: T.Samples, sp: T.Split, rows: np.ndarray, values: torch.Tensor) -> torch.Tensor:
    """(len(rows), 34) Q-values in points, ``-inf`` where a discard was not evaluated, from
    ``values``: ``V`` of ``T.leaves_of(sp, rows)`` in that order."""
    leaves = T.leaves_of(sp, rows)
    at = torch.from_numpy(np.repeat(np.arange(len(rows)), np.diff(sp.leaf_start)[rows]))
    kind = torch.from_numpy(s.leaf_kind[leaves].astype(np.int64))
    risk = torch.from_numpy(s.risk[s.leaf_row[leaves]])  # (V, 2, 34)
    p = risk[torch.arange(len(leaves)), 0, kind]
    cost = risk[torch.arange(len(leaves)), 1, kind]
    q = torch.full((len(rows), NUM_KINDS), -math.inf)
    return q.index_put((at, kind), (1 - p) * values - cost)


def td_targets(online: D.DistillNet, target: D.DistillNet, s: T.Samples, sp: T.Split, tr: Transitions,
               rows: np.ndarray, double: bool) -> torch.Tensor:
    """The target of each transition of ``rows``, points (no gradient)."""
    y = torch.from_numpy(s.score[rows].astype(np.float32))
    nxt = tr.next_row[rows]
    cont = np.flatnonzero(nxt != NONE)
    if not len(cont):
        return y
    after = nxt[cont]
    leaves = T.leaves_of(sp, after)
    with torch.no_grad():
        q_target = q_table(s, sp, after, leaf_values(target, s, leaves))
        if double:
            pick = q_table(s, sp, after, leaf_values(online, s, leaves)).argmax(dim=1)
            best = q_target.gather(1, pick[:, None]).squeeze(1)
        else:
            best = q_target.max(dim=1).values
    y[torch.from_numpy(cont)] = best
    return y


def losses(online: D.DistillNet, target: D.DistillNet, s: T.Samples, sp: T.Split, tr: Transitions,
           rows: np.ndarray, cfg: FineTuneConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """The TD loss (Huber, kilo-points) on the transitions of ``rows`` and the large-margin
    loss (kilo-points) on the rows whose teacher discarded an evaluated discard. The online
    network values the rows' value samples once, for both."""
    leaves = T.leaves_of(sp, rows)
    values = leaf_values(online, s, leaves)
    at = {int(leaf): i for i, leaf in enumerate(leaves)}
    learn = tr.learns(s, rows)
    td = torch.zeros(())
    if len(learn):
        v = values[torch.tensor([at[int(leaf)] for leaf in tr.played[learn]], dtype=torch.long)]
        y = td_targets(online, target, s, sp, tr, learn, cfg.algorithm == "ddqn")
        td = F.smooth_l1_loss(v / D.SCALE, y / D.SCALE)
    margin = torch.zeros(())
    taught = np.flatnonzero(tr.teacher[rows] != NONE)
    if cfg.margin_weight > 0 and len(taught):
        q = q_table(s, sp, rows, values)[torch.from_numpy(taught)] / D.SCALE
        t = torch.from_numpy(s.teacher_action[rows[taught]].astype(np.int64))[:, None]
        bonus = torch.full_like(q, cfg.margin / D.SCALE).scatter(1, t, 0.0)
        margin = ((q + bonus).max(dim=1).values - q.gather(1, t).squeeze(1)).mean()
    return td, margin


# ---- measures ----------------------------------------------------------------------------------
def measures(net: D.DistillNet, s: T.Samples, sp: T.Split, tr: Transitions, rows: np.ndarray,
             double: bool) -> dict[str, Any]:
    """``net`` on ``rows``: its Bellman residual (itself as the target network), each played
    discard's Q against the points the seat made, and the teacher's discard's agreement."""
    out: dict[str, Any] = {"decisions": len(rows)}
    with torch.no_grad():
        learn = tr.learns(s, rows)
        v = leaf_values(net, s, tr.played[learn])
        y = td_targets(net, net, s, sp, tr, learn, double)
        out["bellman_rmse"] = _rms((v - y).numpy())
        played = rows[tr.played[rows] != NONE]
        q = q_table(s, sp, played, leaf_values(net, s, T.leaves_of(sp, played)))
        q_played = q.gather(1, torch.from_numpy(s.action[played].astype(np.int64))[:, None]).squeeze(1)
        score = s.score[played].astype(float)
        out["outcome"] = {"decisions": len(played), "rmse": _rms(q_played.numpy() - score),
                          "mean_q": float(q_played.mean()) if len(played) else math.nan,
                          "mean_points": float(score.mean()) if len(played) else math.nan,
                          "mean_rmse": _rms(score - score.mean())}
        taught = rows[tr.teacher[rows] != NONE]
        q = q_table(s, sp, taught, leaf_values(net, s, T.leaves_of(sp, taught)))
        agree = q.argmax(dim=1).numpy() == s.teacher_action[taught]
        out["top1"] = float(agree.mean()) if len(taught) else math.nan
    return out


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if len(x) else math.nan


# ---- training ----------------------------------------------------------------------------------
PROG = "paiju mahjong finetune-dqn"
CHECKPOINT_FORMAT = "mj-finetune-dqn-checkpoint-1"


def command_line(cfg: FineTuneConfig) -> str:
    """The command that runs ``cfg`` (the options that differ from the defaults)."""
    words = [*PROG.split(), "--data", cfg.data, "--out", cfg.out]
    return run_folder.command_line(words, cfg, ("data", "out"))


def train(cfg: FineTuneConfig) -> dict[str, Any]:
    """Fine-tune into ``cfg.out``, or resume it where its checkpoint stands (a run of another
    configuration is refused); returns the report (also ``metrics.json``)."""
    check_config(cfg)
    summary = S.read_summary(cfg.data)  # a finished search-data folder, checked before anything is written
    start = D.load_model(cfg.init)
    torch.set_num_threads(cfg.threads or torch.get_num_threads())
    job = {k: summary[k] for k in ("format", "teacher", "players", "seed", "hands")}
    run = RunFolder(cfg.out, "finetune-dqn", cfg, may_change=("epochs", "threads", "out"),
                    extra_identity={"data_job": job})
    state = run.load_checkpoint(CHECKPOINT_FORMAT) if run.has_checkpoint() else None
    run.path.mkdir(parents=True, exist_ok=True)
    run.write_config(command_line(cfg), data_job=job, init_teacher=start.teacher)
    s = T.load_samples(cfg.data, cfg.hands, run.path, job)
    sp = T.split(s, cfg.validation, cfg.test)
    tr = transitions(s, sp)
    double = cfg.algorithm == "ddqn"

    online = copy.deepcopy(start.net).train()
    target = copy.deepcopy(start.net).eval()
    opt = torch.optim.Adam(online.value.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    metrics: list[dict[str, Any]]
    if state is None:
        metrics = [{"epoch": -1, "validation": measures(start.net, s, sp, tr, sp.validation, double)}]
        step, first = 0, 0
    else:
        online.load_state_dict(state["online"])
        target.load_state_dict(state["target"])
        opt.load_state_dict(state["opt"])
        step, first, metrics = int(state["step"]), int(state["epoch"]) + 1, json.loads(state["metrics"])
    for epoch in range(first, cfg.epochs):
        clock = time.process_time()
        rng = np.random.default_rng(derive_seed(cfg.seed, epoch))
        order = sp.fit[rng.permutation(len(sp.fit))]
        totals = np.zeros(2)
        for i in range(0, len(order), cfg.batch):
            rows = order[i:i + cfg.batch]
            td, margin = losses(online, target, s, sp, tr, rows, cfg)
            opt.zero_grad()
            (td + cfg.margin_weight * margin).backward()
            opt.step()
            step += 1
            if step % cfg.target_every == 0:
                target.load_state_dict(online.state_dict())
            totals += [float(td.detach()) * len(rows), float(margin.detach()) * len(rows)]
        online.eval()
        metrics.append({"epoch": epoch, "step": step, "train_td_loss": float(totals[0] / len(order)),
                        "train_margin_loss": float(totals[1] / len(order)),
                        "validation": measures(online, s, sp, tr, sp.validation, double),
                        "cpu_s": time.process_time() - clock})
        online.train()
        run.save_checkpoint(CHECKPOINT_FORMAT, {
            "online": online.state_dict(), "target": target.state_dict(), "opt": opt.state_dict(),
            "epoch": epoch, "step": step, "metrics": json.dumps(metrics)})
        run.write_metrics(metrics)

    online.eval()
    report: dict[str, Any] = {
        "config": asdict(cfg), "command": command_line(cfg), "data_teacher": summary["teacher"],
        "init_teacher": start.teacher,
        "samples": {"decisions": s.rows(), "transitions": len(tr.learns(s, np.arange(s.rows()))),
                    "fit": len(sp.fit), "validation": len(sp.validation), "test": len(sp.test)},
        "epochs": metrics,
        "test_start": measures(start.net, s, sp, tr, sp.test, double),
        "test": measures(online, s, sp, tr, sp.test, double),
    }
    D.save_model(run.model_file, D.DistillModel(online, start.teacher))
    run.write_summary(report)
    run.plot_curve({"training loss (kilo-points)": ("train_td_loss", "train_margin_loss"),
                    "validation: played Q against the points (points)": ("validation.outcome.rmse",),
                    "validation: Bellman residual (points)": ("validation.bellman_rmse",)}, x="epoch")
    return report


__all__ = [
    "ALGORITHMS",
    "FineTuneConfig",
    "Transitions",
    "command_line",
    "losses",
    "measures",
    "q_table",
    "td_targets",
    "train",
    "transitions",
]
