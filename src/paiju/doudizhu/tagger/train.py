"""Train the BiLSTM-CRF hand tagger: one file, one dataclass config (CleanRL style).

    paiju ddz tagger-train --data runs/tagger.parquet --out runs/tagger --epochs 20

Seeded: the initial weights come from ``seed``, epoch ``e``'s shuffle and dropout from
``derive_seed(seed, e)``, so the run is a pure function of the config and the data.
Resumable: after every epoch ``OUT/checkpoint.pt`` holds weights, optimizer state and the
metrics so far; rerunning the same command continues after the last finished epoch and ends
with the same weights as an uninterrupted run (tested). ``OUT`` is a run folder
(:mod:`paiju.core.run_folder`): ``config.json``, ``checkpoint.pt``, ``metrics.jsonl`` (one
line per epoch: training loss, validation per-card accuracy, exact match, repair rate),
``curve.png`` (the learning curve), the chosen model — the epoch with the best validation
per-card accuracy — as ``model.pt``, and ``metrics.json`` (its held-out test metrics against
the three baselines, per data source). The shipped tagger is ``model.pt`` copied to
``paiju/doudizhu/models/tagger.pt``, beside ``tagger.config.json``, ``tagger.metrics.json``
and ``tagger.curve.png``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np
import torch

from paiju.core.errors import ConfigError
from paiju.core.rng import derive_seed
from paiju.core.run_folder import RunFolder
from paiju.core.run_folder import command_line as config_command_line
from paiju.doudizhu.tagger.data import read_dataset
from paiju.doudizhu.tagger.evaluate import evaluate_rows, score
from paiju.doudizhu.tagger.model import (
    HandTagger,
    ModelConfig,
    batch_tensors,
    canonical_to_input,
    check_prior,
    load_model,
    save_model,
    tag_rows,
)


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on (apart from :data:`MAY_CHANGE`, the identity a
    resume checks); each field's metadata gives its ``paiju ddz tagger-train`` option."""

    data: str
    out: str
    epochs: int = field(default=20, metadata={"min": 1, "max": 1000})
    batch_size: int = field(default=128, metadata={"min": 1, "max": 65536})
    lr: float = field(default=3e-3, metadata={"min": 1e-6, "max": 1.0})
    embedding: int = field(default=32, metadata={"min": 1, "max": 1024})
    hidden: int = field(default=64, metadata={"min": 1, "max": 1024})
    layers: int = field(default=1, metadata={"min": 1, "max": 4})
    dropout: float = field(default=0.1, metadata={"min": 0.0, "max": 0.9})
    seed: int = field(default=0,
                      metadata={"short": "-s", "help": "Seed of the training (initial weights, batches)."})
    train_limit: int = field(
        default=0, metadata={"help": "Use N training hands (0 = all), a fixed random subset.", "min": 0}
    )
    """Use only N training hands (0 = all), the first N in deal-hash order — a fixed random
    subset with every source in proportion: the learning curve against data size."""
    threads: int = 1
    progress: bool = True
    prior: str = field(default="none", metadata={
        "help": "none (the paper's network: cards only) or exact_plays (each card's label in the exact "
                "fewest-plays split is an input too)."})
    """``exact_plays``: the network also reads each card's label in the exact fewest-plays split."""
    by_source: str = field(default="", metadata={
        "help": "Read each hand's data source as an input (one model, every source's style); the value "
                "is the source hands are tagged as by default, e.g. search. Empty: one style for all "
                "(the paper)."})
    """Empty: one style for all rows (the paper). Else the network reads each row's data source
    (the sources of the training rows) and this is the source it tags as by default."""

    def model_config(self, sources: tuple[str, ...] = ()) -> ModelConfig:
        return ModelConfig(self.embedding, self.hidden, self.layers, self.dropout, self.prior,
                           sources, self.by_source)


RUN_FORMAT = "paiju-tagger-run-1"
MAY_CHANGE = ("out", "epochs", "progress")
"""The fields a resumed run may change; the others are its identity."""


def run_folder(config: TrainConfig) -> RunFolder:
    """The run's folder (:mod:`paiju.core.run_folder`)."""
    return RunFolder(config.out, "tagger-train", config, may_change=MAY_CHANGE)


def command_line(config: TrainConfig) -> str:
    """The ``paiju ddz tagger-train`` command of ``config`` (options that differ from the defaults)."""
    words = ["paiju", "ddz", "tagger-train", "--data", config.data, "--out", config.out]
    return config_command_line(words, config, skip=("data", "out", "progress"))


def _check(config: TrainConfig) -> None:
    for name in ("epochs", "batch_size", "embedding", "hidden", "layers", "threads"):
        if getattr(config, name) < 1:
            raise ConfigError(f"tagger-train {name} must be at least 1, got {getattr(config, name)}")
    if not config.lr > 0:
        raise ConfigError(f"tagger-train lr must be > 0, got {config.lr}")
    if not 0 <= config.dropout < 1:
        raise ConfigError(f"tagger-train dropout must be in [0, 1), got {config.dropout}")
    check_prior(config.prior)
    if config.train_limit < 0:
        raise ConfigError(f"tagger-train train_limit must be >= 0 (0 = all), got {config.train_limit}")


Tensors = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]


def _tensors(rows: list[dict[str, Any]], config: ModelConfig) -> Tensors:
    """Inputs, mask, labels and (for a model that reads sources) each row's source index."""
    x, mask = batch_tensors([r["hand"] for r in rows], config.prior)
    y = torch.zeros(mask.shape, dtype=torch.long)
    for i, r in enumerate(rows):
        labels = canonical_to_input(r["tags"])
        y[i, : len(labels)] = torch.tensor(labels, dtype=torch.long)
    sources = None
    if config.sources:
        sources = torch.tensor([config.source_index(r["source"]) for r in rows], dtype=torch.long)
    return x, mask, y, sources


def validation_metrics(model: HandTagger, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-card accuracy, exact match and repair rate of ``model`` on ``rows``."""
    tagged = tag_rows(model, rows)
    return score([r["hand"] for r in rows], [t.tags for t in tagged], [r["tags"] for r in rows],
                 [t.repaired for t in tagged])


def _resume(
    config: TrainConfig, model: HandTagger, optim: torch.optim.Optimizer
) -> tuple[int, list[dict[str, Any]], float]:
    """Load the run's checkpoint if there; the epochs done, their metrics and the best accuracy."""
    folder = run_folder(config)
    if not folder.has_checkpoint():
        return 0, [], -1.0
    state = folder.load_checkpoint(RUN_FORMAT)
    model.load_state_dict(state["model"])
    optim.load_state_dict(state["optim"])
    return int(state["epoch"]), list(state["history"]), float(state["best"])


def _epoch(config: TrainConfig, model: HandTagger, optim: torch.optim.Optimizer, epoch: int,
           data: Tensors, progress: Any) -> float:
    x, mask, y, sources = data
    torch.manual_seed(derive_seed(config.seed, epoch, 1))  # dropout
    order = np.random.default_rng(derive_seed(config.seed, epoch)).permutation(len(x))
    model.train()
    total, batches = 0.0, 0
    task = progress.add_task(f"epoch {epoch + 1}/{config.epochs}", total=len(order)) if progress else None
    for start in range(0, len(order), config.batch_size):
        idx = torch.from_numpy(order[start : start + config.batch_size])
        optim.zero_grad()
        loss = model.nll(x[idx], y[idx], mask[idx], None if sources is None else sources[idx])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optim.step()
        total += float(loss.detach())
        batches += 1
        if progress:
            label = f"epoch {epoch + 1}/{config.epochs} loss {total / batches:.3f}"
            progress.update(task, advance=len(idx), description=label)
    return total / max(1, batches)


CURVE = {"loss": ["train_loss"], "validation per-card accuracy": ["validation.per_card"]}
"""The panels of ``curve.png``: training NLL per hand and validation per-card accuracy per epoch."""


def _finish(
    config: TrainConfig, history: list[dict[str, Any]], test_rows: list[dict[str, Any]]
) -> dict[str, Any]:
    folder = run_folder(config)
    best = load_model(folder.model_file)
    metrics: dict[str, Any] = {"epochs": history, "best_epoch": max(history, key=_val_acc)["epoch"]}
    if test_rows:
        tagged = tag_rows(best, test_rows)
        metrics["test"] = evaluate_rows(test_rows, [t.tags for t in tagged], [t.repaired for t in tagged])
    save_model(best, folder.model_file, {"train_config": asdict(config)})
    folder.write_summary(metrics)
    return metrics


def _val_acc(entry: dict[str, Any]) -> float:
    return float(entry["validation"]["per_card"])


def train(config: TrainConfig) -> dict[str, Any]:
    """Run (or, rerun on its folder, resume) training; returns the metrics written to ``metrics.json``."""
    _check(config)
    folder = run_folder(config)
    folder.check_start(resume=folder.has_checkpoint())
    torch.set_num_threads(config.threads)
    train_rows = read_dataset(config.data, "train")
    if config.train_limit:
        by_hash = sorted(train_rows, key=lambda r: (r["deal_id"], r["run_id"], r["game_index"]))
        train_rows = by_hash[: config.train_limit]
    val_rows = read_dataset(config.data, "validation")
    test_rows = read_dataset(config.data, "test")
    if not train_rows or not val_rows:
        raise ConfigError(
            f"{config.data}: needs train and validation rows (has {len(train_rows)} and {len(val_rows)})"
        )
    sources = tuple(sorted({r["source"] for r in train_rows})) if config.by_source else ()
    model_config = config.model_config(sources)
    for r in val_rows + test_rows:
        model_config.source_index(r["source"] if sources else None)  # unknown sources fail here
    torch.manual_seed(config.seed)
    model = HandTagger(model_config)
    optim = torch.optim.Adam(model.parameters(), lr=config.lr)
    done, history, best = _resume(config, model, optim)
    folder.write_config(command_line(config))
    folder.write_metrics(history)
    data = _tensors(train_rows, model_config)
    progress = _progress() if config.progress else None
    try:
        for epoch in range(done, config.epochs):
            loss = _epoch(config, model, optim, epoch, data, progress)
            entry = {"epoch": epoch + 1, "train_loss": loss, "train_hands": len(train_rows),
                     "validation": validation_metrics(model, val_rows)}
            history.append(entry)
            if _val_acc(entry) > best:
                best = _val_acc(entry)
                save_model(model, folder.model_file)  # the best epoch so far: the model that ships
            folder.save_checkpoint(RUN_FORMAT, {"model": model.state_dict(), "optim": optim.state_dict(),
                                                "epoch": epoch + 1, "history": history, "best": best})
            folder.append_metrics(entry)
            folder.plot_curve(CURVE, x="epoch")
    finally:
        if progress:
            progress.stop()
    return _finish(config, history, test_rows)


def _progress() -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
    )
    progress.start()
    return progress


CONFIG_FIELDS = tuple(f.name for f in fields(TrainConfig))

__all__ = [
    "CONFIG_FIELDS", "MAY_CHANGE", "TrainConfig", "command_line", "run_folder", "train", "validation_metrics",
]
