"""Train the BiLSTM-CRF hand tagger: one file, one dataclass config (CleanRL style).

    paiju ddz tagger-train --data runs/tagger.parquet --out runs/tagger --epochs 20

Seeded: the initial weights come from ``seed``, epoch ``e``'s shuffle and dropout from
``derive_seed(seed, e)``, so the run is a pure function of the config and the data.
Resumable: after every epoch ``OUT/last.pt`` holds weights, optimizer state and the metrics
so far; rerunning the same command continues after the last finished epoch and ends with the
same weights as an uninterrupted run (tested). Outputs in ``OUT``: ``metrics.json`` (one
entry per epoch: training loss, validation per-card accuracy, exact match, repair rate),
``curve.png`` (the learning curve), and the chosen model — the epoch with the best validation
per-card accuracy — as ``tagger.pt`` with ``tagger.config.json`` and ``tagger.metrics.json``
(its held-out test metrics against the three baselines, per data source).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paiju.core.errors import ConfigError
from paiju.core.rng import derive_seed
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
    """Everything a training run depends on (``epochs`` and ``progress`` aside, it is the
    identity a resume checks)."""

    data: str
    out: str
    epochs: int = 20
    batch_size: int = 128
    lr: float = 3e-3
    embedding: int = 32
    hidden: int = 64
    layers: int = 1
    dropout: float = 0.1
    seed: int = 0
    train_limit: int = 0
    """Use only N training hands (0 = all), the first N in deal-hash order — a fixed random
    subset with every source in proportion: the learning curve against data size."""
    threads: int = 1
    progress: bool = True
    prior: str = "none"
    """``exact_plays``: the network also reads each card's label in the exact fewest-plays split."""
    by_source: str = ""
    """Empty: one style for all rows (the paper). Else the network reads each row's data source
    (the sources of the training rows) and this is the source it tags as by default."""

    def model_config(self, sources: tuple[str, ...] = ()) -> ModelConfig:
        return ModelConfig(self.embedding, self.hidden, self.layers, self.dropout, self.prior,
                           sources, self.by_source)

    def identity(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k not in ("epochs", "progress", "out")}
        for name, default in (("prior", "none"), ("by_source", "")):
            if d[name] == default:  # runs saved before the option resume
                del d[name]
        return d


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
    """Load ``OUT/last.pt`` if there; the epochs done, their metrics and the best accuracy."""
    last = Path(config.out) / "last.pt"
    if not last.is_file():
        return 0, [], -1.0
    state = torch.load(last, map_location="cpu", weights_only=False)
    if state["identity"] != config.identity():
        raise ConfigError(
            f"{config.out} holds a run with another config ({state['identity']}); "
            f"use another --out or the same options ({config.identity()})"
        )
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


def plot_curve(history: list[dict[str, Any]], path: Path) -> None:
    """Learning curve: training loss and validation per-card accuracy per epoch."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    epochs = [h["epoch"] for h in history]
    ax1.plot(epochs, [h["train_loss"] for h in history], marker="o")
    ax1.set(xlabel="epoch", ylabel="training NLL per hand", title="loss")
    ax2.plot(epochs, [h["validation"]["per_card"] for h in history], marker="o")
    ax2.set(xlabel="epoch", ylabel="per-card accuracy", title="validation")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _finish(config: TrainConfig, out: Path, history: list[dict[str, Any]],
            test_rows: list[dict[str, Any]]) -> dict[str, Any]:
    best = load_model(out / "best.pt")
    metrics: dict[str, Any] = {"epochs": history, "best_epoch": max(history, key=_val_acc)["epoch"]}
    if test_rows:
        tagged = tag_rows(best, test_rows)
        metrics["test"] = evaluate_rows(test_rows, [t.tags for t in tagged], [t.repaired for t in tagged])
    save_model(best, out / "tagger.pt", {"train_config": asdict(config)})
    (out / "tagger.config.json").write_text(json.dumps(asdict(config), indent=2) + "\n")
    (out / "tagger.metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics


def _val_acc(entry: dict[str, Any]) -> float:
    return float(entry["validation"]["per_card"])


def train(config: TrainConfig) -> dict[str, Any]:
    """Run (or resume) training; returns the metrics written to ``tagger.metrics.json``."""
    _check(config)
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
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    sources = tuple(sorted({r["source"] for r in train_rows})) if config.by_source else ()
    model_config = config.model_config(sources)
    for r in val_rows + test_rows:
        model_config.source_index(r["source"] if sources else None)  # unknown sources fail here
    torch.manual_seed(config.seed)
    model = HandTagger(model_config)
    optim = torch.optim.Adam(model.parameters(), lr=config.lr)
    done, history, best = _resume(config, model, optim)
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
                save_model(model, out / "best.pt")
            _save_last(out, config, model, optim, epoch + 1, history, best)
            (out / "metrics.json").write_text(json.dumps(history, indent=2) + "\n")
            plot_curve(history, out / "curve.png")
    finally:
        if progress:
            progress.stop()
    return _finish(config, out, history, test_rows)


def _save_last(out: Path, config: TrainConfig, model: HandTagger, optim: torch.optim.Optimizer,
               epoch: int, history: list[dict[str, Any]], best: float) -> None:
    tmp = out / ".last.pt.tmp"
    torch.save({"identity": config.identity(), "model": model.state_dict(), "optim": optim.state_dict(),
                "epoch": epoch, "history": history, "best": best}, tmp)
    os.replace(tmp, out / "last.pt")  # atomic: a kill mid-write leaves the previous epoch


def _progress() -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
    )
    progress.start()
    return progress


CONFIG_FIELDS = tuple(f.name for f in fields(TrainConfig))

__all__ = ["CONFIG_FIELDS", "TrainConfig", "plot_curve", "train", "validation_metrics"]
