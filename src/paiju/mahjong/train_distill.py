"""Train the distilled network (:mod:`paiju.mahjong.distill`) on search-labelled data.

    paiju mahjong train-distill --data runs/mj-search-3584 --out runs/mj-distill

One file, top to bottom (CleanRL's shape): the config; the samples; the split; the training
loop; the report. Every decision of the data is read through DuckDB
(:func:`paiju.mahjong.search_data.connect`) and its position rebuilt by replaying the hand
(:func:`paiju.mahjong.search_data.replay`).

**The targets are the teacher's own values.** On a turn the teacher valued every discard it
expanded (``options`` / ``values``). Each value is *charged* with the discard's deal-in risk
(:func:`paiju.mahjong.agents.value.charge_deal_in`: ``(1 - p) * tree - cost``, with ``p`` and
``cost`` from :func:`~paiju.mahjong.agents.value.deal_in_risk` of the teacher's settings).

* The **advantage head** learns each option's advantage over the action played, the target
  of :func:`paiju.mahjong.search_data.advantages`: its score of option ``k`` less its score of
  the action is regressed on ``v(k) - v(action)``. It learns twice from each decision: with
  the risk as input and the charged values (the root, as the teacher plays), and with zero
  risk and the uncharged tree values (inside the tree, where nothing is charged). A decision
  counts when the action played is an evaluated discard (not a kong, not a discard the
  teacher pruned).
* The **value head** learns the uncharged tree value of each evaluated discard, recovered
  from the stored value by undoing the charge: ``tree = (v + cost) / (1 - p)`` (the risk
  recomputed from the replayed observation; ``tests/mahjong/test_mj_distill.py`` checks it
  against the teacher's tree run again without its defence). The sample is the 3k+1 hand
  after the discard with the decision's own draws left: a leaf one layer before the
  teacher's leaves.

The split is by hand index: the last ``test`` share of the hands is the test set of the
report, the ``validation`` share before it picks the epoch whose weights are kept (the
untrained network, epoch -1, included). Adam; a checkpoint after every epoch, so an
interrupted run, resumed, gives the uninterrupted run's weights (tested). The run folder is
:mod:`paiju.core.run_folder`'s: ``config.json``, ``checkpoint.pt``, ``model.pt`` (the kept
weights, what ``expectimax-distill:model=`` loads), ``metrics.jsonl`` (one line an epoch),
``metrics.json`` (the report), ``curve.png``; beside them ``samples.npz``, the replayed
samples, built once.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paiju.core import run_folder
from paiju.core.errors import ConfigError
from paiju.core.rng import derive_seed
from paiju.core.run_folder import RunFolder
from paiju.mahjong import distill as D
from paiju.mahjong import search_data as S
from paiju.mahjong.agents import draws_left
from paiju.mahjong.agents.value import LeafState, ValueExpectimaxAgent
from paiju.mahjong.game import Phase
from paiju.mahjong.tiles import NUM_KINDS


@dataclass(frozen=True)
class DistillConfig:
    """A training run; each field's metadata gives its ``paiju mahjong train-distill`` option."""

    data: str
    """A finished search-data folder (``paiju mahjong search-data``)."""
    out: str
    """The run folder (resumes)."""
    value_hidden: tuple[int, ...] = field(
        default=(128, 64), metadata={"help": "The value head's hidden widths, comma-separated.", "min": 1,
                                     "max": 4096})
    order_hidden: tuple[int, ...] = field(
        default=(64, 64), metadata={"help": "The advantage head's hidden widths, comma-separated.", "min": 1,
                                    "max": 4096})
    residual: bool = field(default=True, metadata={
        "help": "The value head learns a correction to the teacher's analytic leaf (starts as that leaf)."})
    init: str = field(default="", metadata={
        "help": "A distilled model whose weights start the run (the same widths; expert iteration's "
                "previous round); empty: new weights."})
    epochs: int = field(default=10, metadata={"min": 1, "max": 10_000})
    batch: int = field(default=256, metadata={
        "help": "Decisions per step (the value head takes all their evaluated discards).", "min": 1,
        "max": 65_536})
    lr: float = field(default=1e-3, metadata={"min": 1e-7, "max": 1.0})
    weight_decay: float = field(default=1e-5, metadata={"min": 0.0, "max": 1.0})
    validation: float = field(default=0.1, metadata={
        "help": "Share of the hands (before the test hands) that picks the epoch kept.", "min": 0.0,
        "max": 1.0})
    test: float = field(default=0.1, metadata={
        "help": "Share of the hands (the last ones) the report is measured on.", "min": 0.0, "max": 1.0})
    hands: int = field(default=0, metadata={"help": "Read only the data's first hands (0: all).", "min": 0,
                                            "max": 100_000_000})
    seed: int = field(default=0, metadata={"short": "-s"})
    threads: int = field(default=1, metadata={"help": "Torch threads."})


# ---- samples -----------------------------------------------------------------------------------
@dataclass
class Samples:
    """The data's turn decisions (one row each) and their evaluated discards (one value sample each)."""

    hand: np.ndarray  # (R, 34) int8: the 3k+2 hand
    unseen: np.ndarray  # (R, 34) int8
    melds: np.ndarray  # (R, 34) int8
    n_melds: np.ndarray  # (R,) float32
    exposed: np.ndarray  # (R,) float32
    draws: np.ndarray  # (R,) float32: own draws left
    table: np.ndarray  # (R, TABLE) int64
    shanten_after: np.ndarray  # (R, 34) int8
    risk: np.ndarray  # (R, 2, 34) float32: the teacher's deal-in chance and cost
    charged: np.ndarray  # (R, 34) float32: the stored values; NaN where not evaluated
    tree: np.ndarray  # (R, 34) float32: the uncharged tree values; NaN where not evaluated
    action: np.ndarray  # (R,) int16: the action played
    teacher_action: np.ndarray  # (R,) int16
    hand_index: np.ndarray  # (R,) int64: the data's hand
    move: np.ndarray  # (R,) int32: the decision's move in the hand (replay() rebuilds its position)
    seat: np.ndarray  # (R,) int8: the acting seat
    score: np.ndarray  # (R,) float32: the acting seat's points for the hand (its return)
    dealt_in: np.ndarray  # (R,) bool: the action played is a discard an opponent won on
    player: np.ndarray  # (R,) str: who played
    leaf_row: np.ndarray  # (V,) int64: the row of each value sample
    leaf_kind: np.ndarray  # (V,) int8: its discard
    leaf_shanten: np.ndarray  # (V,) int8: the shanten of the hand after it
    leaf_analytic: np.ndarray  # (V,) float32: the teacher's analytic leaf of that hand, points

    def rows(self) -> int:
        return len(self.hand)

    def row_position(self, rows: np.ndarray) -> D.Position:
        return D.Position(self.hand[rows].astype(np.int64), self.unseen[rows].astype(np.int64),
                          self.melds[rows].astype(np.int64), self.n_melds[rows], self.exposed[rows],
                          self.draws[rows], self.table[rows])

    def order_inputs(self, rows: np.ndarray, charged: bool) -> np.ndarray:
        """The advantage head's inputs of ``rows``: with the risk (``charged``) or without."""
        risk = self.risk[rows] if charged else np.zeros((len(rows), 2, NUM_KINDS), np.float32)
        return D.order_inputs(self.row_position(rows), self.shanten_after[rows].astype(np.int64), risk)

    def value_inputs(self, leaves: np.ndarray, residual: bool) -> np.ndarray:
        """The value head's inputs of value samples ``leaves``: the row's hand less the discard."""
        rows = self.leaf_row[leaves]
        p = self.row_position(rows)
        hand = p.hand.copy()
        hand[np.arange(len(leaves)), self.leaf_kind[leaves]] -= 1
        analytic = self.leaf_analytic[leaves] if residual else np.zeros(len(leaves), np.float32)
        return D.value_inputs(p._replace(hand=hand), self.leaf_shanten[leaves].astype(np.int64), analytic)

    def leaf_target(self, leaves: np.ndarray) -> np.ndarray:
        return self.tree[self.leaf_row[leaves], self.leaf_kind[leaves]]


def _row_samples(teacher: ValueExpectimaxAgent, obs: Any, row: dict[str, Any]) -> dict[str, Any] | None:
    """One turn decision's row arrays and value samples; None when no discard was evaluated."""
    kinds = [a for a in row["options"] if a < NUM_KINDS]
    if not kinds:
        return None
    by = dict(zip(row["options"], row["values"], strict=True))
    risk = D.risk_array(teacher.risk(obs))
    charged = np.full(NUM_KINDS, np.nan, np.float32)
    tree = np.full(NUM_KINDS, np.nan, np.float32)
    for k in kinds:
        p, cost = risk[0, k], risk[1, k]
        if p >= 1:
            raise ValueError(f"hand {row['hand']} move {row['move']}: a certain deal-in on {k} "
                             "cannot be uncharged")
        charged[k] = by[k]
        tree[k] = (by[k] + cost) / (1 - p)  # charge_deal_in undone (the root's: p0 = c0 = 0)
    melds = tuple(obs.melds[obs.player])
    unseen = tuple(obs.unseen_counts())
    action = row["action"]
    # every player takes a win, so a discard deals in exactly when an opponent waits on it unlocked
    dealt_in = action < NUM_KINDS and any(
        w and not lock for w, lock in zip(row["opp_waits"][action::NUM_KINDS],
                                          row["opp_locks"][action::NUM_KINDS], strict=True))
    n = draws_left(obs)
    leaves = []
    for k in kinds:
        after = list(obs.hand)
        after[k] -= 1
        leaves.append(LeafState(tuple(after), melds, unseen, n, (k,), ()))
    counts, n_melds, exposed = D.meld_numbers(melds)
    return {
        "hand": obs.hand, "unseen": unseen, "melds": counts, "n_melds": n_melds, "exposed": exposed,
        "draws": n, "table": D.table_numbers(obs), "shanten_after": D.shanten_after(obs.hand), "risk": risk,
        "charged": charged, "tree": tree, "action": action, "teacher_action": row["teacher_action"],
        "seat": row["seat"], "score": row["score"], "dealt_in": dealt_in,
        "leaf_kind": kinds, "leaf_shanten": [D.leaf_shanten(lf.hand) for lf in leaves],
        "leaf_analytic": np.asarray(teacher.leaf_evaluator.evaluate(obs, leaves), np.float32),
    }


def data_samples(folder: str | Path, hands: int = 0) -> Samples:
    """Every turn decision of a search-data folder (its first ``hands`` hands; 0: all), replayed."""
    summary = S.read_summary(folder)
    # the teacher's settings and analytic leaf (a distilled teacher's are its model's teacher's)
    teacher = D.teacher_agent(D.base_search(summary["teacher"]))
    con = S.connect(folder)
    limit = f"WHERE hand < {int(hands)}" if hands > 0 else ""
    hand_rows = con.execute(f"SELECT hand, wall, actions FROM hands {limit} ORDER BY hand").fetchall()
    where = f"phase = {int(Phase.TURN)}" + (f" AND hand < {int(hands)}" if hands > 0 else "")
    decisions = con.execute(
        f"SELECT hand, move, seat, player, options, \"values\", action, teacher_action, score, opp_waits, "
        f"opp_locks FROM decisions WHERE {where} ORDER BY hand, move").fetchall()
    names = ("hand", "move", "seat", "player", "options", "values", "action", "teacher_action", "score",
             "opp_waits", "opp_locks")
    by_hand: dict[int, dict[int, dict[str, Any]]] = {}
    for d in decisions:
        r = dict(zip(names, d, strict=True))
        by_hand.setdefault(r["hand"], {})[r["move"]] = r
    cols: dict[str, list[Any]] = {}
    leaf_row: list[int] = []
    for h, wall, actions in hand_rows:
        todo = by_hand.get(h, {})
        for move, state in S.replay(wall, actions):
            row = todo.get(move)
            if row is None:
                continue
            got = _row_samples(teacher, state.observation(row["seat"]), row)
            if got is None:
                continue
            leaf_row += [len(cols.get("hand", []))] * len(got["leaf_kind"])
            player = summary["renamed"].get(row["player"], row["player"])  # today's name
            got["hand_index"], got["move"], got["player"] = h, move, player
            for key, value in got.items():
                cols.setdefault(key, []).append(value)
    if not cols:
        raise ConfigError(f"search data {str(folder)!r} holds no turn decision with an evaluated discard")
    flat = ("leaf_kind", "leaf_shanten", "leaf_analytic")
    types = {"hand": np.int8, "unseen": np.int8, "melds": np.int8, "n_melds": np.float32,
             "exposed": np.float32, "draws": np.float32, "table": np.int64, "shanten_after": np.int8,
             "risk": np.float32,
             "charged": np.float32, "tree": np.float32, "action": np.int16, "teacher_action": np.int16,
             "hand_index": np.int64, "move": np.int32, "seat": np.int8, "score": np.float32,
             "dealt_in": np.bool_, "player": np.str_, "leaf_kind": np.int8,
             "leaf_shanten": np.int8, "leaf_analytic": np.float32}
    arrays: dict[str, np.ndarray] = {
        k: np.asarray(np.concatenate(v) if k in flat else v, dtype=types[k]) for k, v in cols.items()}
    return Samples(**arrays, leaf_row=np.asarray(leaf_row, np.int64))


# ---- the split ---------------------------------------------------------------------------------
@dataclass
class Split:
    """Row indices of each part, and each row's value samples (``leaf_start[r]`` to ``[r + 1]``)."""

    fit: np.ndarray
    validation: np.ndarray
    test: np.ndarray
    leaf_start: np.ndarray


def split(s: Samples, validation: float, test: float) -> Split:
    """By hand index: the last ``test`` share of the hands, the ``validation`` share before it."""
    hands = np.unique(s.hand_index)
    n = len(hands)
    n_test = max(1, round(n * test))
    n_val = max(1, round(n * validation))
    if n_test + n_val >= n:
        raise ConfigError(f"train-distill: {n} hands cannot be split into fit, {n_val} validation and "
                          f"{n_test} test hands")
    val_from, test_from = hands[n - n_test - n_val], hands[n - n_test]
    rows = np.arange(s.rows())
    start = np.searchsorted(s.leaf_row, np.arange(s.rows() + 1))
    return Split(rows[s.hand_index < val_from], rows[(s.hand_index >= val_from) & (s.hand_index < test_from)],
                 rows[s.hand_index >= test_from], start)


def leaves_of(sp: Split, rows: np.ndarray) -> np.ndarray:
    """The value samples of ``rows``."""
    return np.concatenate([np.arange(sp.leaf_start[r], sp.leaf_start[r + 1]) for r in rows])


def advantage_rows(s: Samples, rows: np.ndarray) -> np.ndarray:
    """The rows whose action played is an evaluated discard (the advantage head's)."""
    a = s.action[rows].astype(np.int64)
    ok = a < NUM_KINDS
    ok[ok] = ~np.isnan(s.charged[rows[ok], a[ok]])
    return rows[ok]


# ---- losses and measures -----------------------------------------------------------------------
def advantage_errors(scores: torch.Tensor, values: np.ndarray, action: np.ndarray) -> torch.Tensor:
    """Per evaluated option other than the action played, (score advantage - value advantage)
    / SCALE: ``scores`` (B, 34) and ``values`` (B, 34, NaN = not evaluated) in points."""
    t = torch.from_numpy(np.nan_to_num(values, nan=0.0).astype(np.float32)) / D.SCALE
    mask = torch.from_numpy(~np.isnan(values))
    idx = torch.from_numpy(action.astype(np.int64))[:, None]
    mask[torch.arange(len(action)), idx[:, 0]] = False
    s = scores / D.SCALE
    err = (s - s.gather(1, idx)) - (t - t.gather(1, idx))
    return err[mask]


def keep_count(hand: np.ndarray, alpha: float) -> np.ndarray:
    """Per 3k+2 hand, the paper's k as the search computes it
    (:meth:`~paiju.mahjong.agents.value.ValueSearch.keep`): min(ceil(alpha * tiles), distinct kinds)."""
    tiles = hand.sum(axis=1)
    return np.minimum(np.maximum(1, np.ceil(alpha * tiles)), (hand > 0).sum(axis=1)).astype(np.int64)


ALPHAS = (0.2, 0.3, 0.4, 0.6)
"""The pruning shares at which the report counts how often the teacher's discard survives."""


def measures(net: D.DistillNet, s: Samples, sp: Split, rows: np.ndarray) -> dict[str, Any]:
    """Held-out measures of ``net`` on ``rows``: value and advantage errors (points) beside
    their baselines, the teacher's action's agreement and the pruning's recall."""
    out: dict[str, Any] = {"decisions": len(rows)}
    leaves = leaves_of(sp, rows)
    with torch.no_grad():
        target = s.leaf_target(leaves).astype(float)
        pred = net.values(torch.from_numpy(s.value_inputs(leaves, net.residual))).numpy().astype(float)
        analytic = s.leaf_analytic[leaves].astype(float)
        out["value"] = {
            "samples": len(leaves), "rmse": _rms(pred - target),
            "analytic_leaf_rmse": _rms(analytic - target),
            "mean_rmse": _rms(target - target.mean()),
        }
        adv = advantage_rows(s, rows)
        action = s.action[adv].astype(np.int64)
        for name, charged, values in (("advantage_root", True, s.charged[adv]),
                                      ("advantage_in_tree", False, s.tree[adv])):
            scores = net.scores(torch.from_numpy(s.order_inputs(adv, charged)))
            err = advantage_errors(scores, values, action).numpy() * D.SCALE
            zero = advantage_errors(torch.zeros_like(scores), values, action).numpy() * D.SCALE
            out[name] = {"decisions": len(adv), "options": len(err), "rmse": _rms(err),
                         "zero_rmse": _rms(zero)}
        ranking = net.scores(torch.from_numpy(s.order_inputs(rows, True))).numpy()
    out["agreement"] = _agreement(s, sp, rows, ranking)
    return out


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if len(x) else math.nan


def _agreement(s: Samples, sp: Split, rows: np.ndarray, scores: np.ndarray) -> dict[str, Any]:
    """Among the decisions where the teacher discarded: how often the head's best discard (of
    those the teacher evaluated) is the teacher's, and how often the teacher's discard is among
    the ``k`` the head keeps at each of :data:`ALPHAS` or is the safest (the agent expands it
    always). The same for the teacher's analytic leaf one layer up (each discard's 3k+1 hand,
    charged with its risk: a depth-0 teacher) as the ordering; its ``k`` best are taken among
    the discards the teacher evaluated, the others ranked last."""
    leaves = leaves_of(sp, rows)
    at = np.repeat(np.arange(len(rows)), np.diff(sp.leaf_start)[rows])
    kind = s.leaf_kind[leaves].astype(np.int64)
    p, cost = s.risk[rows[at], 0, kind], s.risk[rows[at], 1, kind]
    analytic = np.full((len(rows), NUM_KINDS), -1e12)
    analytic[at, kind] = (1 - p) * s.leaf_analytic[leaves] - cost
    t = s.teacher_action[rows].astype(np.int64)
    ok = t < NUM_KINDS
    rows, t = rows[ok], t[ok]
    if not len(t):
        return {"decisions": 0}
    held = s.hand[rows] > 0
    evaluated = ~np.isnan(s.charged[rows])
    safest = np.where(held, s.risk[rows, 1], np.inf).argmin(axis=1)
    out: dict[str, Any] = {"decisions": len(rows)}
    for name, by in (("network", scores[ok]), ("analytic_leaf", analytic[ok])):
        ranked = np.argsort(-np.where(held, by, -np.inf), axis=1, kind="stable")
        rank_of_teacher = (ranked == t[:, None]).argmax(axis=1)
        kept = {str(a): float(np.mean((rank_of_teacher < keep_count(s.hand[rows].astype(np.int64), a))
                                      | (safest == t))) for a in ALPHAS}
        best = np.where(evaluated, by, -np.inf).argmax(axis=1)
        out[name] = {"top1": float(np.mean(best == t)), "teacher_kept_by_alpha": kept}
    return out


# ---- training ------------------------------------------------------------------------------------
def check_config(cfg: DistillConfig) -> None:
    if cfg.epochs < 1 or cfg.batch < 1 or cfg.hands < 0 or cfg.threads < 0:
        raise ConfigError("train-distill: epochs and batch must be at least 1, hands and threads at least 0")
    check_shares("train-distill", cfg.validation, cfg.test)
    if not cfg.value_hidden or not cfg.order_hidden or min(cfg.value_hidden + cfg.order_hidden) < 1:
        raise ConfigError("train-distill: every hidden width must be at least 1")


def check_shares(prog: str, validation: float, test: float) -> None:
    """Refuse held-out shares of the hands that are not in (0, 1) or leave none to fit on."""
    if not (0 < validation < 1 and 0 < test < 1 and validation + test < 1):
        raise ConfigError(f"{prog}: validation={validation} and test={test} must be shares in (0, 1) "
                          "leaving hands to fit on")


SAMPLES_FORMAT = "mj-distill-samples-2"
"""Changes whenever :class:`Samples` or how they are built does (a kept file is then rebuilt)."""


def load_samples(data: str, hands: int, out: Path, job: dict[str, Any]) -> Samples:
    """The samples of the first ``hands`` hands of ``data`` (0: all; the job ``job``), replayed
    once and kept in ``out/samples.npz`` with what they were built from (another source
    rebuilds them)."""
    cache = out / "samples.npz"
    source = json.dumps({"format": SAMPLES_FORMAT, "data": data, "hands": hands, "job": job}, sort_keys=True)
    if cache.is_file():
        with np.load(cache, allow_pickle=False) as z:
            if "source" in z.files and str(z["source"]) == source:
                return Samples(**{f.name: z[f.name] for f in fields(Samples)})
    samples = data_samples(data, hands)
    tmp = out / "samples.tmp.npz"
    np.savez(tmp, source=np.asarray(source), **asdict(samples))
    tmp.replace(cache)
    return samples


def _loss(net: D.DistillNet, s: Samples, sp: Split, rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """The value head's and the advantage head's mean squared errors (kilo-points²) on ``rows``."""
    leaves = leaves_of(sp, rows)
    pred = net.values(torch.from_numpy(s.value_inputs(leaves, net.residual)))
    value = (((pred - torch.from_numpy(s.leaf_target(leaves))) / D.SCALE) ** 2).mean()
    adv = advantage_rows(s, rows)
    action = s.action[adv].astype(np.int64)
    errors = [advantage_errors(net.scores(torch.from_numpy(s.order_inputs(adv, charged))), values, action)
              for charged, values in ((True, s.charged[adv]), (False, s.tree[adv]))]
    both = torch.cat(errors)
    return value, (both**2).mean() if len(both) else value.new_zeros(())


def train(cfg: DistillConfig) -> dict[str, Any]:
    """Train the run ``cfg.out``, or resume it where its checkpoint stands (a run of another
    configuration is refused); returns the report (also ``metrics.json``)."""
    check_config(cfg)
    summary = S.read_summary(cfg.data)  # a finished search-data folder, checked before anything is written
    start_from = _init_net(cfg)
    torch.set_num_threads(cfg.threads or torch.get_num_threads())
    job = {k: summary[k] for k in ("format", "teacher", "players", "seed", "hands")}
    run = RunFolder(cfg.out, "train-distill", cfg, may_change=("epochs", "threads", "out"),
                    extra_identity={"data_job": job})
    state = run.load_checkpoint(CHECKPOINT_FORMAT) if run.has_checkpoint() else None
    run.path.mkdir(parents=True, exist_ok=True)
    run.write_config(command_line(cfg), data_job=job)
    s = load_samples(cfg.data, cfg.hands, run.path, job)
    sp = split(s, cfg.validation, cfg.test)

    torch.manual_seed(cfg.seed)
    net = D.DistillNet(cfg.value_hidden, cfg.order_hidden, cfg.residual)
    if start_from is not None:
        net.load_state_dict(start_from.state_dict())
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)

    def validation_loss() -> float:
        net.eval()
        with torch.no_grad():
            value, adv = _loss(net, s, sp, sp.validation)
        net.train()
        return float(value + adv)

    metrics: list[dict[str, Any]] = []
    start = 0
    if state is None:  # the untrained network (epoch -1) is a candidate too
        best: dict[str, Any] = {"epoch": -1, "loss": validation_loss(), "net": _copy(net)}
    else:
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        start, metrics = int(state["epoch"]) + 1, json.loads(state["metrics"])
        best = {"epoch": int(state["best_epoch"]), "loss": float(state["best_loss"]),
                "net": state["best_net"]}
    for epoch in range(start, cfg.epochs):
        clock = time.process_time()
        rng = np.random.default_rng(derive_seed(cfg.seed, epoch))
        order = sp.fit[rng.permutation(len(sp.fit))]
        totals = np.zeros(2)
        for i in range(0, len(order), cfg.batch):
            rows = order[i:i + cfg.batch]
            value, adv = _loss(net, s, sp, rows)
            opt.zero_grad()
            (value + adv).backward()
            opt.step()
            totals += [float(value.detach()) * len(rows), float(adv.detach()) * len(rows)]
        loss_now = validation_loss()
        metrics.append({"epoch": epoch, "train_loss": float(totals.sum() / len(order)),
                        "train_value_loss": float(totals[0] / len(order)),
                        "train_advantage_loss": float(totals[1] / len(order)),
                        "validation_loss": loss_now, "cpu_s": time.process_time() - clock})
        if loss_now < best["loss"]:
            best = {"epoch": epoch, "loss": loss_now, "net": _copy(net)}
        run.save_checkpoint(CHECKPOINT_FORMAT, {
            "net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "best_epoch": best["epoch"],
            "best_loss": best["loss"], "best_net": best["net"], "metrics": json.dumps(metrics)})
        run.write_metrics(metrics)

    net.load_state_dict(best["net"])
    net.eval()
    report: dict[str, Any] = {
        "config": asdict(cfg), "command": command_line(cfg), "teacher": summary["teacher"],
        "samples": {"decisions": s.rows(), "value_samples": len(s.leaf_row), "fit": len(sp.fit),
                    "validation": len(sp.validation), "test": len(sp.test)},
        "parameters": sum(p.numel() for p in net.parameters()), "best_epoch": best["epoch"],
        "epochs": metrics,
        "test": measures(net, s, sp, sp.test),
        "test_by_player": {str(p): measures(net, s, sp, sp.test[s.player[sp.test] == p])
                           for p in sorted(set(s.player[sp.test].tolist()))},
    }
    D.save_model(run.model_file, D.DistillModel(net, D.base_search(summary["teacher"])))
    run.write_summary(report)
    run.plot_curve({"value + advantage MSE (kilo-points²)": ("train_loss", "validation_loss"),
                    "training, by head": ("train_value_loss", "train_advantage_loss")}, x="epoch")
    return report


def _init_net(cfg: DistillConfig) -> D.DistillNet | None:
    """The network of ``cfg.init`` (None without), refused unless its shape is the config's."""
    if not cfg.init:
        return None
    net = D.load_model(cfg.init).net
    have = (tuple(net.value_hidden), tuple(net.order_hidden), net.residual)
    want = (tuple(cfg.value_hidden), tuple(cfg.order_hidden), cfg.residual)
    if have != want:
        raise ConfigError(f"train-distill: init {cfg.init!r} has value widths {have[0]}, order widths "
                          f"{have[1]} and residual={have[2]}; the config asks {want[0]}, {want[1]} and "
                          f"residual={want[2]}")
    return net


def _copy(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in net.state_dict().items()}


# ---- the command ---------------------------------------------------------------------------------
PROG = "paiju mahjong train-distill"
CHECKPOINT_FORMAT = "mj-distill-checkpoint-1"


def command_line(cfg: DistillConfig) -> str:
    """The command that runs ``cfg`` (the options that differ from the defaults)."""
    words = [*PROG.split(), "--data", cfg.data, "--out", cfg.out]
    return run_folder.command_line(words, cfg, ("data", "out"))


__all__ = [
    "ALPHAS",
    "DistillConfig",
    "Samples",
    "Split",
    "advantage_errors",
    "advantage_rows",
    "check_shares",
    "command_line",
    "data_samples",
    "keep_count",
    "leaves_of",
    "load_samples",
    "measures",
    "split",
    "train",
]
