"""Train the ``xgb`` Dou Dizhu agent: XGBoost ranking of the legal moves (one readable file).

CleanRL style (``docs/design.md`` §14): a ``@dataclass`` of arguments with a help text per
field, a seeding block, and the whole run below in plain sight; the library does the
game-specific work (records, replay and encoding are :mod:`paiju.doudizhu.train_policy`'s,
the features :mod:`paiju.doudizhu.agents.xgb`'s).

1. reads game records (``paiju ddz selfplay``), replays each game and keeps every decision of
   the seats played by ``--teacher`` (``search`` by default) that had more than one legal move;
   games are split train / validation *by game*;
2. one row per legal move (:func:`~paiju.doudizhu.agents.xgb.candidate_features`), one query
   group per decision, label 1 for the teacher's move and 0 for the others;
3. ``xgboost.train`` with a ranking objective (``rank:pairwise`` by default), histogram trees,
   NDCG@1 on both sets per round (with one relevant move, NDCG@1 is the top-1 agreement);
4. every ``--checkpoint-every`` rounds the booster is saved to ``<out stem>.ckpt.json``; a
   rerun with the same arguments continues from it (and gives the model an uninterrupted run
   gives: the trees are deterministic, no subsampling);
5. writes the model (XGBoost JSON with the paiju header), ``<stem>.config.json`` (arguments +
   the exact command), ``<stem>.metrics.json`` (data sizes, per-round NDCG@1, top-1
   agreement, feature importance) and ``<stem>.curve.png``.

The shipped model and its command: ``docs/results/ddz-xgb.md``.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paiju.core.errors import ConfigError
from paiju.doudizhu.agents.xgb import FEATURE_NAMES, check_header, decision_features, model_header
from paiju.doudizhu.encoding import ENCODING_VERSION
from paiju.doudizhu.train_policy import (
    Item,
    check_data_args,
    dataclass_args,
    encode_all,
    records_provenance,
    split_by_game,
    teacher_choices,
    teacher_games,
)

RankExample = tuple[np.ndarray, int]
"""One decision: its candidate rows and the index of the teacher's move."""


def rank_examples(items: list[Item]) -> list[RankExample]:
    """The rows and the teacher's move of every real choice of the teacher (top-level, so
    worker processes can run it)."""
    return [(decision_features(obs, legal), target) for obs, legal, target in teacher_choices(items)]


@dataclass
class Args:
    records: list[str] = field(default_factory=list, metadata={"help": "record directories or files"})
    out: str = field(default="ddz-xgb.json", metadata={"help": "model path (.json)"})
    teacher: str = field(default="search", metadata={"help": "learn the moves of seats played by this spec"})
    games: int = field(default=1000, metadata={"help": "use the first N teacher games (by game index)"})
    val_fraction: float = field(default=0.1, metadata={"help": "share of games held out for validation"})
    rounds: int = field(default=300, metadata={"help": "boosting rounds (trees)"})
    max_depth: int = field(default=6, metadata={"help": "depth of each tree"})
    eta: float = field(default=0.1, metadata={"help": "learning rate"})
    min_child_weight: float = field(default=1.0, metadata={"help": "least hessian in a leaf"})
    objective: str = field(default="rank:pairwise", metadata={"help": "rank:pairwise | rank:ndcg | rank:map"})
    seed: int = field(default=0, metadata={"help": "seed of the split and of XGBoost"})
    threads: int = field(default=2, metadata={"help": "XGBoost threads"})
    workers: int = field(default=1, metadata={"help": "processes that replay and encode the games"})
    checkpoint_every: int = field(default=25, metadata={"help": "rounds between checkpoints (0 = none)"})
    stop_after: int = field(
        default=0, metadata={"help": "stop this sitting after N new rounds, checkpointed (0 = to the end)"}
    )

    def __post_init__(self) -> None:
        check_data_args(self.records, self.games, self.val_fraction)
        for name in ("rounds", "max_depth", "threads", "workers"):
            if getattr(self, name) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} must be positive, got {getattr(self, name)}")
        if not 0.0 < self.eta <= 1.0:
            raise ConfigError(f"--eta must be in (0, 1], got {self.eta}")
        if self.objective not in ("rank:pairwise", "rank:ndcg", "rank:map"):
            raise ConfigError(f"--objective {self.objective!r}: use rank:pairwise, rank:ndcg or rank:map")
        if self.checkpoint_every < 0 or self.stop_after < 0:
            raise ConfigError("--checkpoint-every and --stop-after must be >= 0")
        if not self.out.endswith(".json"):
            raise ConfigError(f"--out {self.out!r}: a model path must end in .json")

    def identity(self) -> dict[str, Any]:
        """What a checkpoint must match to be continued (everything but speed settings)."""
        d = dataclasses.asdict(self)
        for k in ("threads", "workers", "checkpoint_every", "stop_after"):
            d.pop(k)
        return d


def parse_args(argv: list[str] | None = None) -> Args:
    return dataclass_args(Args, argv, "python -m paiju.doudizhu.train_xgb", __doc__)


def rank_matrix(examples: list[RankExample]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of every decision's candidates, their labels (1 = the teacher's move) and the
    decision index of each row (XGBoost's query id; rows of a decision are contiguous)."""
    if not examples:
        return np.zeros((0, len(FEATURE_NAMES)), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
    rows, labels, qid = [], [], []
    for k, (x, target) in enumerate(examples):
        y = np.zeros(len(x), dtype=np.float32)
        y[target] = 1.0
        rows.append(x)
        labels.append(y)
        qid.append(np.full(len(x), k, dtype=np.int64))
    return np.concatenate(rows), np.concatenate(labels), np.concatenate(qid)


def top1_agreement(scores: np.ndarray, labels: np.ndarray, qid: np.ndarray) -> float:
    """Share of decisions whose top-scored move (first on ties) is the teacher's."""
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    ends = np.r_[starts[1:], len(qid)]
    hits = sum(labels[s + int(np.argmax(scores[s:e]))] == 1.0 for s, e in zip(starts, ends, strict=True))
    return hits / max(1, len(starts))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    import xgboost as xgb

    args = parse_args(argv)
    command = "python -m paiju.doudizhu.train_xgb " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    out = Path(args.out)
    stem = out.with_suffix("")
    ckpt = Path(f"{stem}.ckpt.json")
    t0 = time.perf_counter()

    # seeding: the split here, XGBoost's own seed below
    rng = np.random.default_rng(args.seed)
    items = teacher_games(args.records, args.teacher, args.games)
    train_games, val_games = split_by_game(len(items), args.val_fraction, rng)
    train = encode_all([items[i] for i in train_games], args.workers, rank_examples)
    val = encode_all([items[i] for i in val_games], args.workers, rank_examples)
    if not train:
        raise ConfigError("no training decisions: the teacher never had a choice in these games")
    x_tr, y_tr, q_tr = rank_matrix(train)
    x_va, y_va, q_va = rank_matrix(val)
    t_data = time.perf_counter() - t0
    print(f"{len(train_games)} train games -> {len(train)} decisions ({len(x_tr)} rows); {len(val_games)} "
          f"validation games -> {len(val)} decisions; encoded in {t_data:.1f}s", flush=True)
    names = list(FEATURE_NAMES)
    dtrain = xgb.DMatrix(x_tr, label=y_tr, qid=q_tr, feature_names=names)
    dval = xgb.DMatrix(x_va, label=y_va, qid=q_va, feature_names=names)
    params = {
        "objective": args.objective, "eval_metric": "ndcg@1", "tree_method": "hist",
        "max_depth": args.max_depth, "eta": args.eta, "min_child_weight": args.min_child_weight,
        "seed": args.seed, "nthread": args.threads,
    }

    # resume: a checkpoint of the same run (same identity) is continued
    booster = None
    history: dict[str, list[float]] = {"train": [], "val": []}
    if ckpt.exists():
        booster = xgb.Booster()
        booster.load_model(bytearray(ckpt.read_bytes()))
        saved = json.loads(booster.attr("paiju_run") or "{}")
        if saved.get("identity") != args.identity():
            raise ConfigError(f"{ckpt}: a checkpoint of another run; delete it or use another --out")
        history = saved["history"]
        print(f"resuming from {ckpt} at round {booster.num_boosted_rounds()}", flush=True)
    done = 0 if booster is None else booster.num_boosted_rounds()

    class Checkpoint(xgb.callback.TrainingCallback):
        """Keeps the per-round metrics, saves the booster every ``checkpoint_every`` rounds and
        stops the sitting after ``stop_after`` new rounds."""

        def after_iteration(self, model: Any, epoch: int, evals_log: dict[str, Any]) -> bool:
            for side in ("train", "val"):
                history[side].append(float(evals_log[side]["ndcg@1"][-1]))
            rounds = model.num_boosted_rounds()
            stop = bool(args.stop_after) and rounds - done >= args.stop_after
            every = bool(args.checkpoint_every) and rounds % args.checkpoint_every == 0
            if rounds < args.rounds and (stop or every):
                model.set_attr(paiju_run=json.dumps({"identity": args.identity(), "history": history}))
                ckpt.parent.mkdir(parents=True, exist_ok=True)
                tmp = ckpt.with_suffix(".tmp.json")  # the extension picks XGBoost's JSON format
                model.save_model(str(tmp))
                tmp.replace(ckpt)
                print(f"round {rounds}: train ndcg@1 {history['train'][-1]:.4f}, "
                      f"val {history['val'][-1]:.4f} (checkpoint)", flush=True)
            return stop

    if done < args.rounds:
        booster = xgb.train(
            params, dtrain, num_boost_round=args.rounds - done, evals=[(dtrain, "train"), (dval, "val")],
            xgb_model=booster, callbacks=[Checkpoint()], verbose_eval=False,
        )
    assert booster is not None
    if booster.num_boosted_rounds() < args.rounds:
        print(f"stopped at round {booster.num_boosted_rounds()}; rerun the command to continue", flush=True)
        return {"stopped_at": booster.num_boosted_rounds()}
    t_train = time.perf_counter() - t0 - t_data

    val_scores = booster.predict(dval)
    train_scores = booster.predict(dtrain)
    gain = {k: v for k, v in booster.get_score(importance_type="gain").items() if isinstance(v, float)}
    booster.set_attr(paiju_run=None)
    booster.set_attr(paiju=json.dumps(model_header()))
    out.parent.mkdir(parents=True, exist_ok=True)
    booster.save_model(str(out))
    check = xgb.Booster()
    check.load_model(bytearray(out.read_bytes()))
    check_header(check, str(out))
    result = {
        "teacher": args.teacher,
        "train_games": len(train_games), "val_games": len(val_games),
        "train_decisions": len(train), "val_decisions": len(val),
        "train_rows": len(x_tr), "val_rows": len(x_va),
        "rounds": booster.num_boosted_rounds(),
        "model_bytes": out.stat().st_size,
        "encode_seconds": round(t_data, 1), "train_seconds": round(t_train, 1),
        "train/top1": top1_agreement(train_scores, y_tr, q_tr),
        "val/top1": top1_agreement(val_scores, y_va, q_va),
        "ndcg@1": history,
        "gain_top20": dict(sorted(gain.items(), key=lambda kv: -kv[1])[:20]),
    }
    config = {"command": command, "args": dataclasses.asdict(args), "params": params,
              "encoding_version": ENCODING_VERSION, "xgboost": xgb.__version__,
              "records": records_provenance(args.records)}
    Path(f"{stem}.config.json").write_text(json.dumps(config, indent=2) + "\n")
    Path(f"{stem}.metrics.json").write_text(json.dumps(result, indent=2) + "\n")
    _plot(history, Path(f"{stem}.curve.png"))
    ckpt.unlink(missing_ok=True)
    print(f"wrote {out} ({result['model_bytes']} bytes); validation top-1 agreement {result['val/top1']:.3f}",
          flush=True)
    return result


def _plot(history: dict[str, list[float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for side, values in history.items():
        ax.plot(range(1, len(values) + 1), values, label=side)
    ax.set_xlabel("boosting round")
    ax.set_ylabel("NDCG@1 = top-1 agreement")
    ax.set_title("xgb: agreement with the teacher's move")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    from paiju.core.errors import PaijuError

    try:
        main()
    except PaijuError as err:  # bad arguments or data: one line, no traceback
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
