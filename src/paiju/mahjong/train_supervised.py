"""Supervised discard models for Taiwan mahjong (the paper's baselines): one file, one dataclass.

    paiju mahjong train-supervised --data mj-discards.parquet --model resnet --out runs/mj-sup-resnet

The data are an expert's discard decisions (:mod:`paiju.mahjong.discard_data`); a model
predicts the expert's discard from the acting seat's features (``docs/mahjong-training.md`` §2):

* ``linear``: softmax regression on the flat features (a linear layer, cross-entropy);
* ``svm``: the same linear scores trained with a multiclass hinge loss
  (``torch.nn.MultiMarginLoss``, Crammer-Singer style, in PyTorch: scikit-learn is not a
  dependency here);
* ``mlp``: a fully connected network on the flat features;
* ``cnn`` / ``densenet`` / ``resnet``: the convolutional trunks of
  :mod:`paiju.algorithms.dqn.net` on the 19×19 planes.

Every model outputs 34 scores, one per discard kind; kinds the seat does not hold are masked
(set to :data:`MASKED`) before the loss and before the argmax, so an illegal discard is never
predicted. The model file is a :func:`paiju.algorithms.dqn.save_model` network like the DQN's,
so the ``dqn:model=PATH`` agent -- or ``supervised:model=PATH``, the same agent under its own
name -- plays from it: the discard by the highest legal score, wins, kongs and claims by the
greedy rule.

**A value model** (``--target score``, added 2026-12-03): the same networks with one output,
regressed (mean squared error) on the acting seat's points for the whole hand divided by
``score_scale`` -- a Monte Carlo estimate of the expert's own expected score from the
position, the value of a search leaf (``expectimax-ddqn:value_model=PATH``, ``leaf=draw``).
Shipped, its file is ``mj-value-{model}.pt``; the metrics are the loss, the correlation of the
prediction with the points and the loss of predicting the training mean (the floor a model
must beat). ``--features shape`` gives a flat model the hand-shape block of
:data:`paiju.mahjong.features.SHAPE_VERSION`, for either target.

Splits are by hand (no hand contributes to two of them): the data's distinct hand ids are
shuffled from ``derive_seed(seed, SPLIT)`` and cut into test, validation and training hands.
Epoch ``e`` visits the training rows in the order drawn from ``derive_seed(seed, EPOCH, e)``,
so the batches do not depend on any RNG state; the weights start from ``derive_seed(seed, INIT)``.

Resumable per epoch: ``OUT/checkpoint.pt`` (atomically replaced after every epoch) holds the
network, the optimizer, torch's RNG, the epoch and the metrics; ``--resume`` continues from it
and ends with bitwise the same weights as an uninterrupted run (tested). ``OUT`` is a run
folder (:mod:`paiju.core.run_folder`): ``metrics.jsonl`` (one line per epoch: training loss
and accuracy, validation loss and accuracy), ``curve.png``, ``config.json``, ``metrics.json``
(the summary: test accuracy = top-1 agreement with the expert on held-out hands) and the
model ``model.pt``, shipped as ``mj-sup-{model}.pt`` (:mod:`paiju.mahjong.model_files`).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.rng import derive_seed
from paiju.core.run_folder import RunFolder
from paiju.core.run_folder import command_line as config_command_line
from paiju.core.runner import Progress, progress_reporter
from paiju.mahjong import features as F
from paiju.mahjong.discard_data import DiscardData, load_data
from paiju.mahjong.model_files import SUPERVISED_MODELS as MODELS  # shared with the agent registry
from paiju.mahjong.tiles import NUM_KINDS

if TYPE_CHECKING:
    import torch

    from paiju.algorithms.dqn import QNetConfig, QNetwork

RUN_FORMAT = "paiju-mj-supervised-run-1"
FLAT_MODELS = ("linear", "svm", "mlp")
TARGETS = ("discard", "score")
"""What a model learns: the expert's discard (34 scores) or the hand's points (one value)."""
MASKED = -1e9
"""The score of a discard the seat cannot make (finite: the hinge loss of such a class is 0)."""
# derive_seed keys
SPLIT, EPOCH, INIT = 1, 2, 3


# =============================================================================================
# 1. The configuration
# =============================================================================================
@dataclass(frozen=True)
class SupervisedConfig:
    """A training run. Apart from :data:`MAY_CHANGE` it is the run's identity, checked when a
    run is resumed. Each field's metadata gives its ``paiju mahjong train-supervised`` option
    (:mod:`paiju.cli.config_options`)."""

    data: str
    """The discard-data Parquet file."""
    out: str
    """Run folder."""
    model: str = field(default="mlp", metadata={"short": "-m",
                                                "help": "linear, svm, mlp, cnn, densenet or resnet."})
    seed: int = field(default=0, metadata={"short": "-s"})
    epochs: int = field(default=10, metadata={"min": 1, "max": 100_000})
    batch_size: int = field(default=256, metadata={"flag": "--batch", "min": 1, "max": 65_536})
    lr: float = field(default=1e-3, metadata={"min": 1e-7, "max": 1.0})
    weight_decay: float = field(default=0.0, metadata={"min": 0.0, "max": 1.0})
    hidden: tuple[int, ...] = field(
        default=(256, 256), metadata={"help": "MLP hidden widths, comma-separated.", "min": 1, "max": 4096}
    )
    channels: int = field(default=32, metadata={"help": "CNN / ResNet width, DenseNet stem.", "min": 1,
                                                "max": 256})
    """CNN / ResNet width, DenseNet stem width."""
    blocks: int = field(
        default=2, metadata={"help": "ResNet blocks, CNN pairs of convolutions, DenseNet layers.", "min": 0,
                             "max": 20}
    )
    growth: int = field(default=16, metadata={"help": "DenseNet growth per layer.", "min": 1, "max": 256})
    """DenseNet growth (channels each layer adds)."""
    validation: float = field(default=0.1, metadata={"help": "Share of hands for validation.", "min": 0.0,
                                                     "max": 1.0})
    """Share of the hands held out for validation (per epoch)."""
    test: float = field(default=0.1, metadata={"help": "Share of hands for the test.", "min": 0.0,
                                               "max": 1.0})
    """Share of the hands held out for the final accuracy."""
    threads: int = 1
    curve: bool = field(default=True, metadata={"help": "Redraw curve.png after every epoch."})
    target: str = field(
        default="discard",
        metadata={"help": "discard: the expert's discard; score: the hand's points (a value model)."},
    )
    """:data:`TARGETS`: the expert's discard, or (a value model) the hand's points."""
    features: str = field(default="base", metadata={"help": "base, or shape (the hand-shape block; flat "
                                                            "models only)."})
    """A :data:`paiju.mahjong.features.FEATURE_SETS` key; ``shape`` for flat models only."""
    score_scale: float = field(
        default=1000.0,
        metadata={"help": "Points per unit of a value model's output.", "min": 1.0, "max": 1e6},
    )
    """Points per unit of a value model's output (``target=score``)."""

    def feature_version(self) -> str:
        """The feature set's version string (as ``TrainConfig.feature_version`` of train-dqn)."""
        return F.FEATURE_SETS[self.features]


def check_config(cfg: SupervisedConfig) -> None:
    """Refuse a bad configuration with a :class:`ConfigError` naming the field, before any work."""
    if cfg.model not in MODELS:
        raise ConfigError(f"train-supervised model={cfg.model!r}: must be one of {', '.join(MODELS)}")
    for name in ("epochs", "batch_size", "channels", "growth", "threads"):
        if getattr(cfg, name) < 1:
            raise ConfigError(f"train-supervised {name}={getattr(cfg, name)} must be at least 1")
    for name in ("blocks", "seed"):
        if getattr(cfg, name) < 0:
            raise ConfigError(f"train-supervised {name}={getattr(cfg, name)} must be >= 0")
    if any(h < 1 for h in cfg.hidden):
        raise ConfigError(f"train-supervised hidden={cfg.hidden}: every width must be >= 1")
    if cfg.lr <= 0 or cfg.weight_decay < 0:
        raise ConfigError(
            f"train-supervised lr={cfg.lr} must be > 0 and weight_decay={cfg.weight_decay} >= 0"
        )
    if cfg.target not in TARGETS:
        raise ConfigError(f"train-supervised target={cfg.target!r}: must be one of {', '.join(TARGETS)}")
    if cfg.features not in F.FEATURE_SETS:
        raise ConfigError(f"train-supervised features={cfg.features!r}: must be one of "
                          f"{', '.join(F.FEATURE_SETS)}")
    if cfg.features != "base" and cfg.model not in FLAT_MODELS:
        raise ConfigError(f"train-supervised features={cfg.features!r} is for the flat models "
                          f"({', '.join(FLAT_MODELS)}), not {cfg.model!r}")
    if cfg.target == "score" and cfg.model == "svm":
        raise ConfigError("train-supervised target=score: svm is a discard classifier (use linear or mlp)")
    if not cfg.score_scale > 0:
        raise ConfigError(f"train-supervised score_scale={cfg.score_scale} must be > 0")
    if not (0 < cfg.validation < 1 and 0 < cfg.test < 1 and cfg.validation + cfg.test < 1):
        raise ConfigError(f"train-supervised validation={cfg.validation} and test={cfg.test} must be in "
                          "(0, 1) with a sum below 1")


def net_config(cfg: SupervisedConfig) -> QNetConfig:
    """The network of ``cfg.model`` (34 outputs; a value model one)."""
    from paiju.algorithms.dqn import QNetConfig

    outputs = NUM_KINDS if cfg.target == "discard" else 1
    flat = (F.flat_size(cfg.feature_version()),)
    if cfg.model in ("linear", "svm"):
        return QNetConfig(input_shape=flat, num_actions=outputs, kind="mlp", hidden=())
    if cfg.model == "mlp":
        return QNetConfig(input_shape=flat, num_actions=outputs, kind="mlp", hidden=cfg.hidden)
    return QNetConfig(input_shape=F.PLANE_SHAPE, num_actions=outputs, kind=cfg.model,
                      channels=cfg.channels, blocks=cfg.blocks, growth=cfg.growth)


# =============================================================================================
# 2. Data: splits by hand, batches
# =============================================================================================
@dataclass
class Splits:
    """Row indices of the training, validation and test hands."""

    train: np.ndarray
    validation: np.ndarray
    test: np.ndarray
    hands: dict[str, int] = field(default_factory=dict)


def split_by_hand(hand: np.ndarray, cfg: SupervisedConfig) -> Splits:
    """Cut the distinct hands (seeded shuffle) into test, validation and training hands."""
    ids = np.unique(hand)
    if len(ids) < 3:
        raise ConfigError(f"train-supervised: the data hold {len(ids)} hand(s); at least 3 are needed "
                          "(training, validation and test are split by hand)")
    order = np.random.default_rng(derive_seed(cfg.seed, SPLIT)).permutation(ids)
    n_test = max(1, round(cfg.test * len(ids)))
    n_val = max(1, round(cfg.validation * len(ids)))
    n_test = min(n_test, len(ids) - 2)
    n_val = min(n_val, len(ids) - n_test - 1)
    test, val, train = order[:n_test], order[n_test : n_test + n_val], order[n_test + n_val :]

    def rows(chosen: np.ndarray) -> np.ndarray:
        return np.flatnonzero(np.isin(hand, chosen))

    return Splits(rows(train), rows(val), rows(test), {"train": len(train), "validation": len(val),
                                                       "test": len(test)})


def model_input(cfg: SupervisedConfig, flat: np.ndarray) -> torch.Tensor:
    """The network's input of flat feature rows: themselves, or the planes rebuilt from them."""
    import torch

    x = flat if cfg.model in FLAT_MODELS else F.planes_from_flat(flat)
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))


def masked_scores(scores: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """``scores`` with the discards not in hand at :data:`MASKED`."""
    return scores.masked_fill(~legal, MASKED)


def loss_fn(
    cfg: SupervisedConfig, scores: torch.Tensor, legal: torch.Tensor, target: torch.Tensor
) -> torch.Tensor:
    """Cross-entropy of the masked softmax, or (``svm``) the multiclass hinge loss of the masked
    scores; a value model: the squared error of its output against ``target`` (points / scale)."""
    from torch.nn import functional as nnf

    if cfg.target == "score":
        return nnf.mse_loss(scores[:, 0], target)
    masked = masked_scores(scores, legal)
    if cfg.model == "svm":
        return nnf.multi_margin_loss(masked, target)
    return nnf.cross_entropy(masked, target)


def targets(cfg: SupervisedConfig, data: DiscardData, rows: np.ndarray) -> torch.Tensor:
    """What the rows teach: the expert's discards, or (a value model) the points / ``score_scale``."""
    import torch

    if cfg.target == "score":
        return torch.from_numpy((data.score[rows] / cfg.score_scale).astype(np.float32))
    return torch.from_numpy(data.discard[rows])


def predict(cfg: SupervisedConfig, net: QNetwork, data: DiscardData, rows: np.ndarray,
            batch: int = 1024) -> tuple[np.ndarray, float]:
    """The predicted (legal) discard of every row -- a value model: its points -- and the mean
    loss over them."""
    import torch

    net.eval()
    picks, total = [], 0.0
    with torch.no_grad():
        for i in range(0, len(rows), batch):
            r = rows[i : i + batch]
            legal = torch.from_numpy(data.legal[r])
            scores = net(model_input(cfg, data.features[r]))
            total += float(loss_fn(cfg, scores, legal, targets(cfg, data, r))) * len(r)
            if cfg.target == "score":
                picks.append(scores[:, 0].numpy().astype(np.float64) * cfg.score_scale)
            else:
                picks.append(masked_scores(scores, legal).argmax(dim=1).numpy())
    pred = np.concatenate(picks) if picks else np.zeros(0, dtype=np.int64)
    return pred, total / max(len(rows), 1)


def accuracy(data: DiscardData, rows: np.ndarray, pred: np.ndarray) -> float | None:
    return float(np.mean(pred == data.discard[rows])) if len(rows) else None


def correlation(data: DiscardData, rows: np.ndarray, pred: np.ndarray) -> float | None:
    """Pearson correlation of a value model's points with the hands' points (None: undefined)."""
    if len(rows) < 2 or np.std(pred) == 0 or np.std(data.score[rows]) == 0:
        return None
    return float(np.corrcoef(pred, data.score[rows])[0, 1])


def mean_loss(cfg: SupervisedConfig, data: DiscardData, fit: np.ndarray, rows: np.ndarray) -> float | None:
    """A value model's floor: the loss on ``rows`` of predicting the mean target of ``fit``."""
    if not len(rows) or not len(fit):
        return None
    y = data.score / cfg.score_scale
    return float(np.mean((y[rows] - y[fit].mean()) ** 2))


def chance_accuracy(data: DiscardData, rows: np.ndarray) -> float | None:
    """Expected top-1 agreement of a uniformly random legal discard (the floor to compare with)."""
    return float(np.mean(1.0 / data.legal[rows].sum(axis=1))) if len(rows) else None


# =============================================================================================
# 3. Checkpoints
# =============================================================================================
@dataclass
class RunState:
    epoch: int = 0
    """Epochs finished."""
    metrics: list[dict[str, Any]] = field(default_factory=list)


MAY_CHANGE = ("out", "epochs", "threads", "curve")
"""The fields a resumed run may change; the others are its identity."""


def run_folder(cfg: SupervisedConfig) -> RunFolder:
    """The run's folder (:mod:`paiju.core.run_folder`)."""
    return RunFolder(cfg.out, "train-supervised", cfg, may_change=MAY_CHANGE)


def save_checkpoint(cfg: SupervisedConfig, net: QNetwork, optimizer: Any, run: RunState) -> None:
    import torch

    run_folder(cfg).save_checkpoint(RUN_FORMAT, {
        "net": net.state_dict(), "optimizer": optimizer.state_dict(), "torch_rng": torch.get_rng_state(),
        "run": asdict(run),
    })


def load_checkpoint(cfg: SupervisedConfig, net: QNetwork, optimizer: Any) -> RunState:
    import torch

    folder = run_folder(cfg)
    state = folder.load_checkpoint(RUN_FORMAT)
    try:
        net.load_state_dict(state["net"])
        optimizer.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["torch_rng"])
        return RunState(**state["run"])
    except (KeyError, TypeError, RuntimeError, ValueError) as err:
        where = folder.checkpoint_file
        raise CorruptRecordError(f"{where}: not a train-supervised checkpoint ({err})") from None


# =============================================================================================
# 4. The loop
# =============================================================================================
def build(cfg: SupervisedConfig) -> tuple[QNetwork, Any]:
    """The seeded network and its optimizer."""
    import torch

    from paiju.algorithms.dqn import QNetwork

    torch.manual_seed(derive_seed(cfg.seed, INIT))
    net = QNetwork(net_config(cfg))
    return net, torch.optim.Adam(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)


def train_epoch(cfg: SupervisedConfig, net: QNetwork, optimizer: Any, data: DiscardData, rows: np.ndarray,
                epoch: int, report: Any = None) -> tuple[float, float]:
    """One pass over the training rows in the epoch's seeded order: mean loss and accuracy
    (0 for a value model)."""
    import torch

    net.train()
    order = rows[np.random.default_rng(derive_seed(cfg.seed, EPOCH, epoch)).permutation(len(rows))]
    loss_sum, right = 0.0, 0
    for i in range(0, len(order), cfg.batch_size):
        r = order[i : i + cfg.batch_size]
        legal, target = torch.from_numpy(data.legal[r]), targets(cfg, data, r)
        scores = net(model_input(cfg, data.features[r]))
        loss = loss_fn(cfg, scores, legal, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss_sum += float(loss.detach()) * len(r)
        if cfg.target == "discard":
            right += int((masked_scores(scores.detach(), legal).argmax(dim=1) == target).sum())
        if report is not None:
            report(i + len(r))
    return loss_sum / max(len(order), 1), right / max(len(order), 1)


def _epoch_line(cfg: SupervisedConfig, net: QNetwork, data: DiscardData, splits: Splits, epoch: int,
                train_loss: float, train_acc: float, seconds: float) -> dict[str, Any]:
    pred, val_loss = predict(cfg, net, data, splits.validation)
    if cfg.target == "score":
        return {"epoch": epoch + 1, "train_loss": train_loss, "validation_loss": val_loss,
                "validation_correlation": correlation(data, splits.validation, pred),
                "validation_mean_loss": mean_loss(cfg, data, splits.train, splits.validation),
                "seconds": seconds}
    return {"epoch": epoch + 1, "train_loss": train_loss, "train_accuracy": train_acc,
            "validation_loss": val_loss, "validation_accuracy": accuracy(data, splits.validation, pred),
            "seconds": seconds}


def _prepare(cfg: SupervisedConfig, resume: bool) -> DiscardData:
    check_config(cfg)
    run_folder(cfg).check_start(resume=resume)
    data = load_data(cfg.data)
    if len(data) == 0:
        raise ConfigError(f"train-supervised: {cfg.data} holds no discard decisions")
    if cfg.features != "base":  # the flat models' input, computed once for every epoch
        data = dataclasses.replace(data, features=F.flat_in_version(data.features, cfg.feature_version()))
    return data


def train(cfg: SupervisedConfig, *, resume: bool = False, progress: Progress = False) -> dict[str, Any]:
    """Train (or with ``resume`` continue) a run; returns the summary (also the model's meta)."""
    import torch

    data = _prepare(cfg, resume)
    splits = split_by_hand(data.hand, cfg)
    torch.set_num_threads(cfg.threads)
    net, optimizer = build(cfg)
    run = load_checkpoint(cfg, net, optimizer) if resume else RunState()
    folder = run_folder(cfg)
    folder.write_config(command_line(cfg))
    folder.write_metrics(run.metrics)
    per_epoch = len(splits.train)
    with progress_reporter(progress, cfg.epochs * per_epoch, run.epoch * per_epoch, "rows") as report:
        while run.epoch < cfg.epochs:
            base = run.epoch * per_epoch

            def step(done: int, base: int = base) -> None:
                if report is not None:
                    report(base + done, cfg.epochs * per_epoch)

            clock = time.perf_counter()
            loss, acc = train_epoch(cfg, net, optimizer, data, splits.train, run.epoch, step)
            line = _epoch_line(cfg, net, data, splits, run.epoch, loss, acc, time.perf_counter() - clock)
            run.metrics.append(line)
            run.epoch += 1
            folder.append_metrics(line)
            save_checkpoint(cfg, net, optimizer, run)
            if cfg.curve:
                plot_curve(cfg)
    return _finish(cfg, net, data, splits, run)


def _finish(
    cfg: SupervisedConfig, net: QNetwork, data: DiscardData, splits: Splits, run: RunState
) -> dict[str, Any]:
    from paiju.algorithms.dqn import count_parameters, save_model

    pred, test_loss = predict(cfg, net, data, splits.test)
    if cfg.target == "score":
        quality = {"test_correlation": correlation(data, splits.test, pred),
                   "test_mean_loss": mean_loss(cfg, data, splits.train, splits.test)}
    else:
        quality = {"test_accuracy": accuracy(data, splits.test, pred),
                   "test_chance_accuracy": chance_accuracy(data, splits.test)}
    summary = {
        "features": cfg.feature_version(), "model": cfg.model, "target": cfg.target, "config": asdict(cfg),
        "epochs": run.epoch, "command": command_line(cfg),
        "data": {"file": cfg.data, "rows": len(data), "agent": data.meta.get("agent"), "hands": splits.hands,
                 "test_rows": len(splits.test)},
        "parameters": count_parameters(net), "test_loss": test_loss, **quality, "metrics": run.metrics,
    }
    folder = run_folder(cfg)
    path = save_model(folder.model_file, net.eval(), summary)
    summary["model_file"] = str(path)
    folder.write_summary(summary)
    return summary


# =============================================================================================
# 5. Learning curve and the command line that reproduces a run
# =============================================================================================
def plot_curve(cfg: SupervisedConfig) -> None:
    """``curve.png`` of the run from its ``metrics.jsonl``: training / validation loss and
    accuracy per epoch (a value model: loss with the mean's floor, and the validation
    correlation)."""
    if cfg.target == "score":
        losses = ["train_loss", "validation_loss", "validation_mean_loss"]
        panels = {f"{cfg.model} value: squared error": losses,
                  "validation correlation with the points": ["validation_correlation"]}
    else:
        panels = {f"{cfg.model} loss": ["train_loss", "validation_loss"],
                  f"{cfg.model} top-1 agreement": ["train_accuracy", "validation_accuracy"]}
    run_folder(cfg).plot_curve(panels, x="epoch")


def command_line(cfg: SupervisedConfig) -> str:
    """The ``paiju mahjong train-supervised`` command of ``cfg`` (options that differ from the defaults)."""
    words = ["paiju", "mahjong", "train-supervised", "--data", cfg.data, "--model", cfg.model,
             "--out", cfg.out]
    return config_command_line(words, cfg, skip=("data", "model", "out", "curve"))


__all__ = [
    "MASKED",
    "MAY_CHANGE",
    "MODELS",
    "TARGETS",
    "RunState",
    "Splits",
    "SupervisedConfig",
    "accuracy",
    "build",
    "chance_accuracy",
    "check_config",
    "command_line",
    "correlation",
    "loss_fn",
    "masked_scores",
    "mean_loss",
    "net_config",
    "plot_curve",
    "predict",
    "run_folder",
    "split_by_hand",
    "targets",
    "train",
    "train_epoch",
]
