"""AlphaZero training, CleanRL style: one config dataclass, one loop that reads top to bottom.

Game-agnostic: the game comes in as a setup (``setup(seed) -> (game, encoder)``, see
:mod:`paiju.algorithms.alphazero.selfplay`). The network starts fresh, or with ``init`` from
another model's, which the game's encoder maps onto this run's network (:func:`init_weights`;
yuxi: a model of another card table, its card rows matched by key). With ``init_data`` (a
teacher-data folder, :mod:`paiju.algorithms.alphazero.teacher`) the network first learns from
a search teacher's games, expert iteration's start: ``init_epochs`` passes over them
(minibatches drawn from ``derive_seed(seed, PRETRAIN, epoch)``), the share ``init_held_out``
of their games held out and scored after each pass; the model so far is
``snapshots/model-pretrained.pt``. Then each **iteration**:

1. *self-play*: ``games_per_iteration`` games of the current network against itself, cut
   into tasks for the project's one runner (:func:`paiju.core.runner.run_tasks`: in this
   process, local processes or Ray). Game ``g`` of iteration ``i`` has the seed
   ``derive_seed(seed, i, g)`` and each game runs on one torch thread, so its samples do not
   depend on where it ran; they are written to ``samples/iter-NNNN.npz`` (atomically);
2. *learning*: ``steps_per_iteration`` minibatch steps (Adam) on the samples of the last
   ``window`` iterations (the replay buffer), minibatches drawn from
   ``derive_seed(seed, 1, i)``. Loss = value MSE against the value target (every seat's
   final return, rotated to the encoded seat, by default; ``value_target``,
   :mod:`paiju.algorithms.alphazero.targets`) + policy cross-entropy against the search's
   policy (the visit distribution, or the improved policy under Gumbel root selection; the
   two-step heads' masked log-probabilities);
3. *checkpoint*: weights, optimiser state and metrics to ``checkpoint.pt`` (atomically), the
   playable model to ``model.pt`` (with the game's metadata, the config and the metrics),
   a snapshot for the ladder every ``snapshot_every`` iterations, a metrics line to
   ``metrics.jsonl`` and the learning curve to ``curve.png``.

``out_dir`` is a run folder (:mod:`paiju.core.run_folder`): ``config.json``, ``checkpoint.pt``,
``model.pt``, ``metrics.jsonl``, ``metrics.json`` (the last iteration's figures) and
``curve.png``; beside them ``samples/`` (each iteration's self-play) and ``snapshots/``.

**Resume**: ``train(..., resume=True)`` reloads the checkpoint (refused if the config, but
for ``iterations``, or the game differs) and continues with the next pass over the teacher
data or the next iteration (reusing its samples file if that iteration's self-play had
finished). ``init`` is part of the config, hence of the run's identity, and is applied at the
start only: a resume's weights are its checkpoint's. Since the samples, the minibatches and
the network's initialisation are all derived from the seed and the iteration, a run stopped
and resumed ends with exactly the weights of an uninterrupted one (tested), whatever the
number of workers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from paiju.algorithms.alphazero.checkpoint import load_checkpoint, save_checkpoint
from paiju.algorithms.alphazero.net import AZNet, NetConfig
from paiju.algorithms.alphazero.selfplay import (
    GameSamples,
    SampleArrays,
    SearchSettings,
    SelfPlayTask,
    Setup,
    heuristic_of,
    selfplay_task,
    weights_bytes,
)
from paiju.algorithms.alphazero.targets import ValueTarget, value_targets
from paiju.algorithms.alphazero.teacher import TeacherData, read_teacher_data, split_by_game
from paiju.core.errors import ConfigError
from paiju.core.rng import derive_seed
from paiju.core.run_folder import RunFolder, identity, json_data
from paiju.core.runner import Backend, Progress, run_tasks

CHECKPOINT_FORMAT = "paiju-az-train-1"
MASKED = -1e9
"""Logit given to illegal entries (not -inf: a row with no legal entry must stay finite)."""
PRETRAIN = 1_000_000
"""The ``derive_seed`` key of the pretraining's draws (above every iteration number, so no
self-play game's seed ``derive_seed(seed, i, g)`` is one of them)."""


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a training run (saved with it; a resume must match all but
    :data:`MAY_CHANGE`). Each field's metadata gives its option of ``paiju az train`` and
    ``paiju yuxi train-az`` (:mod:`paiju.cli.config_options`)."""

    seed: int = field(default=0, metadata={"help": "Seed of the run."})
    iterations: int = field(default=40, metadata={"help": "Iterations to reach.", "min": 1, "max": 100_000})
    games_per_iteration: int = field(
        default=32, metadata={"flag": "--games", "help": "Self-play games per iteration.", "min": 1,
                              "max": 10_000}
    )
    search: SearchSettings = field(default_factory=SearchSettings)
    # network (input and head sizes come from the game's encoder)
    channels: int = field(default=32, metadata={"help": "Conv channels.", "min": 1, "max": 256})
    blocks: int = field(default=2, metadata={"help": "Residual blocks.", "min": 0, "max": 20})
    hidden: int = field(default=256, metadata={"help": "Penultimate layer width.", "min": 1, "max": 2048})
    value_skip: bool = field(default=False, metadata={
        "help": "Add a linear term of the plane sums and the vector to the value head (docs/alphazero.md)."})
    """The value's linear term of the plane sums and the vector (:class:`NetConfig`)."""
    # learning
    window: int = field(default=6, metadata={"help": "Iterations of samples replayed.", "min": 1,
                                             "max": 1000})
    """Iterations of samples in the replay buffer."""
    steps_per_iteration: int = field(
        default=60, metadata={"flag": "--steps", "help": "Learner steps per iteration.", "min": 1,
                              "max": 100_000}
    )
    batch_size: int = field(default=256, metadata={"help": "Minibatch size.", "min": 1, "max": 8192})
    lr: float = field(default=1e-3, metadata={"help": "Adam learning rate.", "min": 1e-6, "max": 1.0})
    weight_decay: float = field(default=1e-4, metadata={"help": "Adam weight decay.", "min": 0.0,
                                                        "max": 1.0})
    value_weight: float = field(
        default=1.0,
        metadata={"help": "Weight of the value loss beside the policy's.", "min": 0.0, "max": 100.0},
    )
    root_value_weight: float = field(default=0.0, metadata={
        "help": "Weight of the search's root value in the value target, the rest the game's outcome; 0: the "
                "outcome alone.", "min": 0.0, "max": 1.0})
    """Weight of the search's root value in the value target: ``(1 - w) x`` the final return
    ``+ w x`` the root value (where a sample has one); 0: the final return alone. The
    ``value_target`` ``mix:(1 - w)``, kept for the runs recorded with it."""
    value_target: str = field(default="outcome", metadata={
        "help": "What the value head learns: outcome (the game's result), root (the search's root value), "
                "rollouts (the mean of the recorded random rollouts) or mix:λ (λ x outcome + (1 - λ) x "
                "root)."})
    """The value target (:mod:`paiju.algorithms.alphazero.targets`), for the teacher's games and
    self-play's alike; ``outcome`` (the default) is AlphaZero's."""
    init: str = field(default="", metadata={
        "help": "A model file (model.pt) whose network the run starts from instead of a fresh one; yuxi "
                "maps its card rows to the card table (docs/alphazero.md). Empty: a fresh network."})
    """A model whose network the run starts from (empty: a fresh network), applied at the
    run's start only: a resume continues from its checkpoint (:func:`init_weights`)."""
    init_data: str = field(default="", metadata={
        "help": "A teacher-data folder (paiju az teacher-data) the network learns from before self-play "
                "(expert iteration); empty: self-play from a fresh network."})
    """A finished teacher-data folder to pretrain on (empty: none)."""
    init_epochs: int = field(default=1, metadata={
        "help": "Passes over the teacher data (--init-data) before self-play.", "min": 1, "max": 1000})
    init_held_out: float = field(default=0.1, metadata={
        "help": "Share of the teacher's games held out of the pretraining and scored after each pass.",
        "min": 0.0, "max": 0.9})
    """Share of the teacher data's games kept out of the pretraining, its held-out measure."""
    threads: int = field(default=1, metadata={"help": "Torch threads of the learner."})
    """torch threads of the learner (self-play games always run on one)."""
    snapshot_every: int = field(
        default=5, metadata={"help": "Iterations between the model's snapshots.", "min": 1, "max": 100_000}
    )
    """Keep a copy of the model every this many iterations (for the ladder)."""

    def __post_init__(self) -> None:
        for name in (
            "iterations",
            "games_per_iteration",
            "window",
            "steps_per_iteration",
            "batch_size",
            "threads",
            "snapshot_every",
            "channels",
            "hidden",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"AlphaZero training: {name}={getattr(self, name)} must be >= 1")
        if self.blocks < 0 or not self.lr > 0 or self.weight_decay < 0 or self.value_weight < 0:
            raise ConfigError(
                f"AlphaZero training: blocks={self.blocks} must be >= 0, lr={self.lr} > 0, "
                f"weight_decay={self.weight_decay} >= 0, value_weight={self.value_weight} >= 0"
            )
        if not 0 <= self.root_value_weight <= 1:
            raise ConfigError(
                f"AlphaZero training: root_value_weight={self.root_value_weight} must be in [0, 1]"
            )
        target = ValueTarget.parse(self.value_target)
        if self.root_value_weight and target.weight:
            raise ConfigError(
                f"AlphaZero training: root_value_weight={self.root_value_weight} and value_target="
                f"{self.value_target} both set the value target; give value_target alone "
                f"(root_value_weight w is mix:(1 - w))"
            )
        if target.reads == "rollouts" and not self.search.rollouts:
            raise ConfigError(
                "AlphaZero training: value_target=rollouts needs self-play's rollouts (--rollouts R > 0)"
            )
        if self.init_epochs < 1 or not 0 <= self.init_held_out <= 0.9:
            raise ConfigError(
                f"AlphaZero training: init_epochs={self.init_epochs} must be >= 1, "
                f"init_held_out={self.init_held_out} in [0, 0.9]"
            )

    @property
    def target(self) -> ValueTarget:
        """The value target of the samples learned from."""
        if self.root_value_weight:
            return ValueTarget.root_weight(self.root_value_weight)
        return ValueTarget.parse(self.value_target)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise ConfigError(f"AlphaZero training config: unknown fields {', '.join(unknown)}")
        values = dict(raw)
        if isinstance(values.get("search"), dict):
            values["search"] = SearchSettings(**values["search"])
        return cls(**values)


Replay = SampleArrays
"""The samples of the last iterations, concatenated (what minibatches are drawn from)."""


def train(
    config: TrainConfig,
    setup: Setup,
    out_dir: str | Path,
    *,
    resume: bool = False,
    backend: Backend | None = None,
    progress: Progress = False,
    meta: dict[str, Any] | None = None,
    game_id: dict[str, Any] | None = None,
    on_iteration: Callable[[dict[str, Any]], None] | None = None,
    on_epoch: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Train (or resume training) into ``out_dir``; returns the metrics of every iteration.

    ``game_id`` (plain data) says what ``setup`` plays (yuxi: the rooms and the card table's
    hash); it is saved with the checkpoint and a resume with another one is refused (and so
    is teacher data of another game, or an ``init`` model of another game). ``meta`` (plain
    data) goes into every model file written, with ``game_id`` (e.g. the command line) and
    what the encoder's optional ``model_meta()`` gives (yuxi: the card keys). ``on_iteration``
    and ``on_epoch`` get each iteration's and each pass over the teacher data's metrics once
    they are saved.
    """
    game_id = dict(game_id or {})
    out = Path(out_dir)
    backend = backend or Backend()
    game, encoder = setup(derive_seed(config.seed, 0))
    meta_hook = getattr(encoder, "model_meta", None)  # what the game's models record (yuxi: card keys)
    meta = {**(meta_hook() if meta_hook is not None else {}), **(meta or {})}
    heuristic_of(setup, game, config.search)  # a mix the setup cannot serve fails now, not in a worker
    net_config = NetConfig.for_encoder(
        encoder,
        num_players=game.info.num_players,
        channels=config.channels,
        blocks=config.blocks,
        hidden=config.hidden,
        value_skip=config.value_skip,
    )

    # ---- the network and optimiser: fresh, or from the checkpoint ------------------------------
    folder = run_folder(config, out, game_id)
    folder.check_start(resume=resume)
    torch.manual_seed(derive_seed(config.seed, 2) % 2**63)
    net = AZNet(net_config)
    optimiser = torch.optim.Adam(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    metrics: list[dict[str, Any]] = []
    pretrained: list[dict[str, Any]] = []  # the metrics of each pass over the teacher data
    start = 0
    if resume:
        payload = folder.load_checkpoint(CHECKPOINT_FORMAT, legacy_identity=_legacy_identity)
        net.load_state_dict(payload["net"])
        optimiser.load_state_dict(payload["optimiser"])
        metrics = list(payload["metrics"])
        pretrained = list(payload.get("pretrain", []))
        start = int(payload["iteration"]) + 1
    elif config.init:  # the start only: a resumed run's weights are its checkpoint's
        net.load_state_dict(init_weights(config.init, encoder, net_config, game_id))
    teacher = None
    if config.init_data and start == 0 and len(pretrained) < config.init_epochs:
        teacher = teacher_data_for(config, game_id, net_config)  # refused before anything is written
    out.mkdir(parents=True, exist_ok=True)
    if (metrics or pretrained) and not folder.model_file.exists():
        # a run folder kept without its model (training/ keeps only the checkpoint): write the
        # last iteration's model first, so a resume with no iteration left still gives it
        last = (metrics or pretrained)[-1]
        save_checkpoint(folder.model_file, net, _model_meta(config, meta, game_id, last))
    folder.write_config(str((meta or {}).get("command", "")))

    def save(iteration: int) -> None:
        folder.save_checkpoint(
            CHECKPOINT_FORMAT,
            {
                "config": config.to_dict(),
                "game": game_id,
                "iteration": iteration,
                "net": net.state_dict(),
                "optimiser": optimiser.state_dict(),
                "metrics": metrics,
                "pretrain": pretrained,
            },
        )
        folder.write_metrics(pretrained + metrics)  # rewritten whole: a resumed run never repeats a line

    # ---- 0. learning from a search teacher's games (expert iteration's start) --------------------
    if teacher is not None:
        learn, held = split_by_game(teacher, config.init_held_out, derive_seed(config.seed, PRETRAIN))
        learn = value_targets(learn, config.target)
        for epoch in range(len(pretrained), config.init_epochs):
            torch.set_num_threads(config.threads)
            t0 = time.perf_counter()
            rng = np.random.default_rng(derive_seed(config.seed, PRETRAIN, epoch))
            losses = learn_epoch(net, optimiser, learn, rng, config.batch_size, config.value_weight)
            row: dict[str, Any] = {
                "epoch": epoch, "samples": len(learn), "value_loss": float(np.mean([v for v, _ in losses])),
                "policy_loss": float(np.mean([p for _, p in losses])),
                "learn_s": round(time.perf_counter() - t0, 2),
            }
            if held is not None:  # against the outcomes, whatever the target, so targets compare
                row["value_loss_held"], row["policy_loss_held"] = held_out_losses(net, held)
            pretrained.append(row)
            save(-1)
            model_meta = _model_meta(config, meta, game_id, row)
            save_checkpoint(folder.model_file, net, model_meta)
            save_checkpoint(out / "snapshots" / "model-pretrained.pt", net, model_meta)
            if on_epoch is not None:
                on_epoch(row)

    for iteration in range(start, config.iterations):
        # ---- 1. self-play ------------------------------------------------------------------------
        t0 = time.perf_counter()
        samples_file = samples_path(out, iteration)
        played = None
        if not samples_file.exists():
            played = self_play(config, setup, net, net_config, iteration, backend, progress)
            save_samples(samples_file, played)
        t1 = time.perf_counter()

        # ---- 2. learning on the replay window -------------------------------------------------------
        torch.set_num_threads(config.threads)
        replay = value_targets(load_replay(
            [
                samples_path(out, i)
                for i in range(max(0, iteration - config.window + 1), iteration + 1)
            ]
        ), config.target)
        # the new games' losses before learning on them: a held-out measure (the training
        # losses below are on samples the net has been fitted to, and flatter the value head);
        # against the final returns, whatever the value target, so runs compare
        fresh = held_out_losses(net, load_replay([samples_file]))
        rng = np.random.default_rng(derive_seed(config.seed, 1, iteration))
        net.train()
        losses = [
            learn_step(
                net,
                optimiser,
                replay,
                rng.choice(len(replay), size=min(config.batch_size, len(replay)), replace=False),
                config.value_weight,
            )
            for _ in range(config.steps_per_iteration)
        ]
        net.eval()
        t2 = time.perf_counter()

        # ---- 3. metrics and checkpoint --------------------------------------------------------------
        row = iteration_metrics(iteration, played, samples_file, losses, len(replay), t1 - t0, t2 - t1)
        row["value_loss_new"], row["policy_loss_new"] = fresh
        metrics.append(row)
        save(iteration)
        model_meta = _model_meta(config, meta, game_id, row)
        save_checkpoint(folder.model_file, net, model_meta)
        if (iteration + 1) % config.snapshot_every == 0:
            save_checkpoint(out / "snapshots" / f"model-iter-{iteration:04d}.pt", net, model_meta)
        folder.plot_curve(CURVE, x="iteration")
        if on_iteration is not None:
            on_iteration(row)
    summary = {"game": game_id, "iterations": len(metrics), "last": metrics[-1] if metrics else None,
               "model": str(folder.model_file)}
    folder.write_summary({**summary, "pretrain": pretrained[-1]} if pretrained else summary)
    return metrics


def _model_meta(
    config: TrainConfig, meta: dict[str, Any] | None, game_id: dict[str, Any], row: dict[str, Any]
) -> dict[str, Any]:
    """What a model file of the run carries: ``meta``, the game, the settings, its iteration's
    metrics (a pretrained model's: iteration -1 and its pass's metrics)."""
    return {**(meta or {}), **game_id, "train_config": config.to_dict(),
            "iteration": row.get("iteration", -1), "metrics": row}


ENCODER_SIZES = ("plane_shape", "vector_size", "first_size", "second_size")
"""The :class:`NetConfig` fields the game's encoder sets: the inputs and heads."""
LAYERS = tuple(f.name for f in fields(NetConfig) if f.name not in ENCODER_SIZES)
"""The network sizes a run started from a model (``init``) must share with it: every
:class:`NetConfig` field but the inputs and heads, which are the game's (:func:`init_weights`);
derived, so a layer size added to NetConfig is checked without being listed here."""


def init_weights(
    path: str, encoder: Any, net_config: NetConfig, game_id: dict[str, Any]
) -> dict[str, torch.Tensor]:
    """The weights a run with ``init=path`` starts from: the model's network, mapped onto the
    run's network ``net_config`` by the game.

    The model must be of the run's game (its metadata's ``game``, where both name one) and have
    the run's layer sizes (:data:`LAYERS`). Its inputs and heads are the game's business: an
    encoder with ``adapt_weights(weights, old, meta, new, name)`` maps them (yuxi: the card
    rows by card key, :mod:`paiju.yuxi.adapt`); without it they must have the same shapes
    and the weights are copied as they are (:func:`same_shapes`).

    Raises:
        ConfigError: no model file, a model of another game, of other sizes, one the game
            cannot map, or a mapping that does not fit the run's network (the weight named).
        CorruptRecordError: not a readable model file.
    """
    name = f"--init {path}"
    old_net, meta = load_checkpoint(path, "--init")
    theirs, ours = meta.get("game"), game_id.get("game")
    if theirs is not None and ours is not None and theirs != ours:
        raise ConfigError(f"{name}: a model of {theirs}, and this run trains {ours}")
    old = old_net.config
    differ = [f"{k}={getattr(old, k)} there, {getattr(net_config, k)} here" for k in LAYERS
              if getattr(old, k) != getattr(net_config, k)]
    if differ:
        raise ConfigError(f"{name}: a network of other sizes ({'; '.join(differ)}); give the run the "
                          "model's (--channels, --blocks, --hidden, --value-skip)")
    adapt = getattr(encoder, "adapt_weights", same_shapes)
    weights: dict[str, torch.Tensor] = adapt(old_net.state_dict(), old, meta, net_config, name)
    _check_fits(weights, net_config, name)
    return weights


def _check_fits(weights: dict[str, torch.Tensor], net_config: NetConfig, name: str) -> None:
    """Refuse mapped ``weights`` that do not fit the network ``net_config`` (a game's mapping
    gone wrong), naming the weight, rather than let ``load_state_dict`` raise torch's error."""
    with torch.device("meta"):  # the shapes alone: nothing allocated or drawn
        wanted = {k: tuple(v.shape) for k, v in AZNet(net_config).state_dict().items()}
    got = {k: tuple(v.shape) for k, v in weights.items()}
    wrong = [f"{k} is {got[k]}, the network's {wanted[k]}"
             for k in wanted if k in got and got[k] != wanted[k]]
    wrong += [f"{k} is missing" for k in wanted if k not in got]
    wrong += [f"{k} is not the network's" for k in got if k not in wanted]
    if wrong:
        raise ConfigError(f"{name}: the game's mapping of its weights does not fit this run's network "
                          f"({'; '.join(wrong)})")


def same_shapes(
    weights: dict[str, torch.Tensor], old: NetConfig, meta: dict[str, Any], new: NetConfig, name: str
) -> dict[str, torch.Tensor]:
    """The default of :func:`init_weights` (a game whose encoder maps nothing): the model's
    inputs and heads must be the run's, and its weights are copied as they are."""
    shapes = [(tuple(c.plane_shape), c.vector_size, c.first_size, c.second_size) for c in (old, new)]
    if shapes[0] != shapes[1]:
        raise ConfigError(f"{name}: its inputs and heads (planes, vector, first head, second head) are "
                          f"{shapes[0]}, this game's are {shapes[1]}")
    return weights


def teacher_data_for(config: TrainConfig, game_id: dict[str, Any], net_config: NetConfig) -> TeacherData:
    """The run's teacher data (``config.init_data``), checked against the run: the same game and
    inputs, and the rollouts its value target reads.

    Raises:
        ConfigError: not a finished teacher-data folder, or data of another game, input or target.
    """
    data = read_teacher_data(config.init_data)
    theirs = data.summary.get("game", {})
    if theirs != json_data(game_id):
        raise ConfigError(
            f"--init-data {config.init_data}: teacher data of {theirs}, this run trains {game_id}"
        )
    shape = (tuple(data.samples.planes.shape[1:]), data.samples.vector.shape[1], data.samples.values.shape[1])
    wanted = (tuple(net_config.plane_shape), net_config.vector_size, net_config.num_players)
    if shape != wanted:
        raise ConfigError(f"--init-data {config.init_data}: inputs (planes, vector, seats) {shape}, "
                          f"this game's encoder gives {wanted}")
    if config.target.reads == "rollouts" and not data.summary.get("rollouts"):
        raise ConfigError(f"--init-data {config.init_data}: value_target=rollouts, and the teacher data "
                          "has no rollouts (paiju az teacher-data --rollouts R)")
    return data


MAY_CHANGE = ("iterations",)
"""What a resume may change: the run's length (it may be extended); the rest and the game are
its identity."""


def run_folder(config: TrainConfig, out: str | Path, game_id: dict[str, Any]) -> RunFolder:
    """The folder of a run of ``config`` on the game ``game_id`` (:mod:`paiju.core.run_folder`)."""
    return RunFolder(out, "AlphaZero training", config, may_change=MAY_CHANGE,
                     extra_identity={"game": game_id})


def _legacy_identity(payload: dict[str, Any]) -> dict[str, Any]:
    """The identity of a checkpoint written before the run folder: its config and game."""
    return {**identity(TrainConfig.from_dict(payload["config"]), MAY_CHANGE), "game": payload.get("game", {})}


# ---- the steps ------------------------------------------------------------------------------------
def self_play(
    config: TrainConfig,
    setup: Setup,
    net: AZNet,
    net_config: NetConfig,
    iteration: int,
    backend: Backend,
    progress: Progress,
) -> list[GameSamples]:
    """The iteration's games, in game order (tasks of a few games each, for the runner)."""
    seeds = [derive_seed(config.seed, iteration, g) for g in range(config.games_per_iteration)]
    per_task = (
        max(1, -(-len(seeds) // (4 * backend.workers))) if backend.workers > 1 or backend.ray else len(seeds)
    )
    weights = weights_bytes(net)
    tasks = [
        SelfPlayTask(setup, net_config.to_dict(), weights, config.search, tuple(seeds[i : i + per_task]))
        for i in range(0, len(seeds), per_task)
    ]
    results: dict[int, list[GameSamples]] = {}
    run_tasks(
        selfplay_task,
        tasks,
        results.__setitem__,
        backend=backend,
        progress=progress,
        size=lambda t: len(t.seeds),
        label=f"self-play {iteration + 1}/{config.iterations}",
    )
    return [g for i in range(len(tasks)) for g in results[i]]


def learn_step(
    net: AZNet, optimiser: torch.optim.Optimizer, replay: Replay, index: np.ndarray, value_weight: float
) -> tuple[float, float]:
    """One Adam step on the samples ``index``; returns (value loss, policy loss)."""
    planes = torch.from_numpy(replay.planes[index].astype(np.float32))
    vector = torch.from_numpy(replay.vector[index].astype(np.float32))
    target_value = torch.from_numpy(replay.values[index])
    out = net(planes, vector)
    value_loss = F.mse_loss(out.value, target_value)
    policy_loss = policy_cross_entropy(out.first, out.second, replay, index)
    loss = value_weight * value_loss + policy_loss
    optimiser.zero_grad()
    torch.autograd.backward(loss)  # typed, unlike Tensor.backward
    optimiser.step()
    return float(value_loss.detach()), float(policy_loss.detach())


def learn_epoch(
    net: AZNet, optimiser: torch.optim.Optimizer, samples: Replay, rng: np.random.Generator, batch_size: int,
    value_weight: float,
) -> list[tuple[float, float]]:
    """One pass over ``samples`` in minibatches of ``batch_size`` (the last one smaller), in an
    order drawn from ``rng``; returns each step's (value loss, policy loss)."""
    order = rng.permutation(len(samples))
    net.train()
    losses = [learn_step(net, optimiser, samples, order[s : s + batch_size], value_weight)
              for s in range(0, len(order), batch_size)]
    net.eval()
    return losses


def held_out_losses(net: AZNet, replay: Replay, batch: int = 1024) -> tuple[float, float]:
    """(value MSE, policy cross-entropy) of ``net`` on every sample of ``replay``, no learning."""
    was_training = net.training
    net.eval()
    value_sum, policy_sum, value_n, policy_n = 0.0, 0.0, 0, 0
    with torch.no_grad():
        for start in range(0, len(replay), batch):
            index = np.arange(start, min(start + batch, len(replay)))
            out = net(torch.from_numpy(replay.planes[index].astype(np.float32)),
                      torch.from_numpy(replay.vector[index].astype(np.float32)))
            value_sum += float(F.mse_loss(out.value, torch.from_numpy(replay.values[index]))) * len(index)
            value_n += len(index)
            with_policy = int((replay.offsets[index + 1] > replay.offsets[index]).sum())
            if with_policy:
                policy_sum += float(policy_cross_entropy(out.first, out.second, replay, index)) * with_policy
                policy_n += with_policy
    net.train(was_training)
    return value_sum / max(value_n, 1), policy_sum / max(policy_n, 1)


def policy_cross_entropy(
    first: torch.Tensor, second: torch.Tensor | None, replay: Replay, index: np.ndarray
) -> torch.Tensor:
    """Mean over the samples with a policy target of ``-sum_m pi(m) log p(m)``, ``p`` the
    net's two-step probability with both softmaxes over the legal entries only (the move's
    ``(first, second)`` pairs of the sample)."""
    starts, ends = replay.offsets[index], replay.offsets[index + 1]
    counts = ends - starts
    if not counts.sum():
        return first.sum() * 0.0
    rows = np.repeat(np.arange(len(index)), counts)
    entries = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends, strict=True)])
    f = torch.from_numpy(replay.policy_first[entries].astype(np.int64))
    s = torch.from_numpy(replay.policy_second[entries].astype(np.int64))
    p = torch.from_numpy(replay.policy_prob[entries])
    r = torch.from_numpy(rows)
    mask = torch.zeros_like(first, dtype=torch.bool)
    mask[r, f] = True
    log_first = torch.log_softmax(first.masked_fill(~mask, MASKED), dim=1)[r, f]
    log_second = torch.zeros_like(log_first)
    stepped = s >= 0
    if second is not None and bool(stepped.any()):
        mask2 = torch.zeros_like(second, dtype=torch.bool)
        mask2[r[stepped], f[stepped], s[stepped]] = True
        lp2 = torch.log_softmax(second.masked_fill(~mask2, MASKED), dim=2)
        log_second = torch.where(stepped, lp2[r, f, s.clamp(min=0)], log_second)
    return -(p * (log_first + log_second)).sum() / float((counts > 0).sum())


def iteration_metrics(
    iteration: int,
    played: list[GameSamples] | None,
    samples_file: Path,
    losses: list[tuple[float, float]],
    replay_size: int,
    selfplay_s: float,
    learn_s: float,
) -> dict[str, Any]:
    if played is None:  # the samples were made before an interruption: read their summary back
        with np.load(samples_file) as data:
            returns, decisions, n = data["returns"], data["decisions"], len(data["values"])
            simulations = int(data["simulations"].sum()) if "simulations" in data.files else None
    else:
        returns = np.array([g.returns for g in played])
        decisions = np.array([g.decisions for g in played])
        n = sum(len(g) for g in played)
        simulations = sum(g.simulations for g in played)
    return {
        "iteration": iteration,
        "games": len(returns),
        "samples": n,
        "replay": replay_size,
        "value_loss": float(np.mean([v for v, _ in losses])),
        "policy_loss": float(np.mean([p for _, p in losses])),
        "seat0_win_rate": float(np.mean(returns[:, 0] > returns[:, 1])) if len(returns) else 0.0,
        "moves_per_game": float(np.mean(decisions)) if len(decisions) else 0.0,
        "selfplay_s": round(selfplay_s, 2),
        "learn_s": round(learn_s, 2),
        **({} if simulations is None else {"simulations": simulations}),
    }


# ---- files ----------------------------------------------------------------------------------------
_SAMPLE_FIELDS = ("planes", "vector", "values", "policy_first", "policy_second", "policy_prob", "root_values",
                  "rollout_values")


def save_samples(path: Path, played: list[GameSamples]) -> None:
    """The iteration's samples in one compressed file, written atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = [g for g in played if len(g)]
    arrays: dict[str, Any] = {name: np.zeros(0) for name in _SAMPLE_FIELDS}
    arrays["offsets"] = np.zeros(1, dtype=np.int64)
    if kept:
        joined = SampleArrays.concat(kept)
        arrays = {name: getattr(joined, name) for name in (*_SAMPLE_FIELDS, "offsets")}
    arrays["returns"] = np.array([g.returns for g in played], dtype=np.float32)
    arrays["decisions"] = np.array([g.decisions for g in played], dtype=np.int64)
    arrays["simulations"] = np.array([g.simulations for g in played], dtype=np.int64)
    tmp = path.with_name(f".tmp-{path.name}")
    with tmp.open("wb") as f:
        np.savez_compressed(f, allow_pickle=False, **arrays)
    tmp.replace(path)


def samples_path(run: Path, iteration: int) -> Path:
    """Where a run folder keeps the self-play samples of ``iteration``."""
    return run / "samples" / f"iter-{iteration:04d}.npz"


def load_replay(paths: list[Path]) -> Replay:
    parts = []
    for path in paths:
        with np.load(path) as data:
            part = {name: data[name] for name in (*_SAMPLE_FIELDS, "offsets") if name in data}
        # samples stored before root values were kept have none (NaN: the outcome alone); those
        # stored before rollouts lack them too, which SampleArrays fills with NaN itself
        part.setdefault("root_values", np.full(np.shape(part["values"]), np.nan, dtype=np.float32))
        parts.append(part)
    parts = [p for p in parts if len(p["values"])]
    if not parts:
        raise ConfigError("AlphaZero training: self-play produced no samples (every decision was forced?)")
    return SampleArrays.concat([Replay(**p) for p in parts])


CURVE = {"training loss": ["value_loss", "policy_loss", "value_loss_new"],
         "seat 0 win rate in self-play": ["seat0_win_rate"]}
"""The panels of ``curve.png``: the value (MSE) and policy (cross-entropy) losses, the value
loss on each iteration's new games before learning on them (held out; runs begun before it
lack it), and seat 0's self-play win rate."""
