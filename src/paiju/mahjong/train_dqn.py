"""Train the mahjong DQN / Double DQN behind the Expectimax: one file, one dataclass (CleanRL style).

    paiju mahjong train-dqn --out runs/mj-ddqn --steps 200000 --workers 2

The paper's training (``docs/mahjong-training.md`` §1): four seats play Taiwan mahjong hands, every
seat acting with **the Expectimax's recommended move** (the exploration); each discard
decision of a seat is a transition ``(features of its observation, discard kind, reward,
features of the same seat's next discard decision, that decision's legal discards, done)``.
The reward of a step is ``shaping * V / score_scale`` -- ``V`` the search's value (points) of
the discard it chose, ``shaping`` 0.1 as in the paper -- and the seat's last discard of the
hand also gets the hand's final result, ``points / score_scale`` (``score_scale`` 1000 = the
paper's base payment, so a 0-tai win from one payer is +1). Claims, kongs and wins are not
transitions: they follow the search (and at play time the ``dqn`` agent's greedy rule).

A *step* is one transition. Every ``train_every`` steps after ``learning_starts`` the
learner (:class:`paiju.algorithms.dqn.DQNLearner`, Double DQN targets unless
``algorithm="dqn"``) takes one gradient step on a batch sampled from the replay buffer.

Seeded lock-step actors: hand ``i`` is played from ``derive_seed(seed, HAND, i)`` with
agents seeded from it, by :func:`play_hand`, a task of the project's runner
(:func:`paiju.core.runner.run_tasks`, ``Backend(workers=N)``). Hands come back in any order
and are consumed in index order, so the transitions -- hence the weights -- do not depend on
the number of workers (the behaviour is the search, which does not read the network).

Resumable: every ``checkpoint_every`` steps ``OUT/checkpoint.pt`` (atomically replaced)
holds both networks, the optimizer, the replay buffer with its sampling RNG, torch's RNG,
the step counter, the position (hand index and transitions of it consumed) and the metrics
so far; ``--resume`` continues from it and ends with the same weights as an uninterrupted
run (tested with one and two workers). ``total_steps`` may be raised on resume.

The run folder (:mod:`paiju.core.run_folder`'s layout) ``OUT``: ``config.json``,
``checkpoint.pt``, ``metrics.jsonl`` (one JSON line per ``log_every`` steps -- loss, mean Q,
episode returns -- and per evaluation -- win rate of the network against the search),
``curve.png``, ``metrics.json`` (the summary) and the final model ``model.pt``
(:func:`paiju.algorithms.dqn.save_model` with the feature version, the config, the metrics
and the command line), which the ``dqn`` / ``ddqn`` agents load with ``model=PATH`` (shipped
as ``mj-{algorithm}.pt``); and ``evals/step-*.pt``, the network at each evaluation.

torch is imported only by the learner's functions: actor processes start without it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from paiju.core.agents import AgentSpec
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import play_game
from paiju.core.rng import derive_seed
from paiju.core.run_folder import RunFolder
from paiju.core.run_folder import command_line as config_command_line
from paiju.core.runner import Backend, Progress, progress_reporter, run_tasks
from paiju.mahjong import features as F
from paiju.mahjong.agents import REGISTRY, ExpectimaxAgent
from paiju.mahjong.game import NUM_PLAYERS, MahjongGame, MahjongObservation, Phase
from paiju.mahjong.tiles import NUM_KINDS

if TYPE_CHECKING:
    from paiju.algorithms.dqn import DQNLearner

RUN_FORMAT = "paiju-mj-dqn-run-1"
ALGORITHMS = ("dqn", "ddqn")
TRUNKS = ("resnet", "mlp")
# derive_seed keys: hand i of a run is derive_seed(seed, HAND, i); evaluation wall j EVAL
HAND, EVAL, SEAT, WALL, EXPLORE = 1, 2, 3, 4, 5


# =============================================================================================
# 1. The configuration
# =============================================================================================
@dataclass(frozen=True)
class TrainConfig:
    """Everything a run depends on. Apart from :data:`MAY_CHANGE` it is the run's identity,
    checked when a run is resumed. Each field's metadata gives its ``paiju mahjong train-dqn``
    option (:mod:`paiju.cli.config_options`): flag, help, range."""

    out: str
    """Run folder."""
    seed: int = field(default=0, metadata={"short": "-s"})
    algorithm: str = field(default="ddqn", metadata={"help": "ddqn (Double DQN targets) or dqn."})
    trunk: str = field(default="mlp", metadata={"help": "mlp (flat features) or resnet (19x19 planes)."})
    """``mlp`` on the flat features (the default: the combined agents' leaf model,
    docs/mahjong-agents.md §6, and 20x faster to train here) or ``resnet`` on the 19x19
    planes (the paper's)."""
    channels: int = field(default=32, metadata={"help": "ResNet width.", "min": 1, "max": 256})
    blocks: int = field(
        default=4, metadata={"help": "ResNet residual blocks (paper: 9).", "min": 0, "max": 20}
    )
    """ResNet residual blocks (2 * blocks + 2 layers; the paper's 20 layers: 9 blocks of 64)."""
    hidden: tuple[int, ...] = field(
        default=(256, 256), metadata={"help": "MLP hidden widths, comma-separated.", "min": 1, "max": 4096}
    )
    features: str = field(
        default="base",
        metadata={"help": "MLP inputs: base (the paper's) or shape (plus shanten and effective tiles)."},
    )
    """The MLP's inputs: ``base`` (the paper's Table 1, flat) or ``shape`` (plus what each
    discard does to the shanten and the effective tiles: ``paiju.mahjong.features.shape_features``)."""
    total_steps: int = field(
        default=100_000,
        metadata={"flag": "--steps", "help": "Transitions to learn from.", "min": 1, "max": 100_000_000},
    )
    """Transitions (discard decisions) to learn from."""
    learning_starts: int = field(
        default=2_000, metadata={"help": "Transitions before the first gradient step.", "min": 0,
                                 "max": 100_000_000}
    )
    buffer_size: int = field(
        default=20_000, metadata={"flag": "--buffer", "help": "Replay buffer capacity.", "min": 1,
                                  "max": 2_000_000}
    )
    """Replay buffer capacity (flat float16 features: 7.5 KB a transition)."""
    batch_size: int = field(default=64, metadata={"flag": "--batch", "min": 1, "max": 65_536})
    lr: float = field(default=2.5e-4, metadata={"min": 1e-7, "max": 1.0})
    gamma: float = field(default=0.99, metadata={"min": 0.0, "max": 1.0})
    target_sync_every: int = field(
        default=1_000, metadata={"flag": "--target-sync", "help": "Gradient steps between target syncs.",
                                 "min": 1, "max": 10_000_000}
    )
    """Gradient steps between copies of the online network into the target network."""
    train_every: int = field(
        default=4, metadata={"help": "Transitions per gradient step.", "min": 1, "max": 10_000}
    )
    grad_clip: float = field(default=10.0, metadata={"help": "Gradient norm clip.", "min": 1e-6, "max": 1e6})
    shaping: float = field(
        default=0.1, metadata={"help": "Weight of the search's value.", "min": 0.0, "max": 10.0}
    )
    """Weight of the search's value of the chosen discard in each step's reward (the paper: 0.1)."""
    score_scale: float = field(
        default=1000.0, metadata={"help": "Points per unit of reward.", "min": 1.0, "max": 1e6}
    )
    """Points per unit of reward (1000 = the paper's base payment)."""
    search_advantages: float = field(
        default=0.0, metadata={"help": "Weight of the rank loss on every searched discard (0: off).",
                               "min": 0.0, "max": 100.0}
    )
    """Weight of the advantage loss (``paiju.algorithms.dqn.advantage_loss``): every discard the
    search valued at a decision, not only the one played, teaches the network its rank --
    its target is ``V / score_scale``, in the final score's units (until 2026-12-03 it was
    ``shaping * V / score_scale``: the same for the shipped runs, which have shaping 1.0).
    0: the paper's plain (Double) DQN; docs/mahjong-training.md §1."""
    behaviour: str = field(
        default="expectimax-shanten",
        metadata={"help": "The search the seats act with (an expectimax agent spec, no depth)."},
    )
    """The search every seat acts with (an Expectimax agent spec, without ``depth``)."""
    behaviour_depth: int = field(
        default=1, metadata={"help": "Its depth while training.", "min": 1, "max": 3}
    )
    """Its depth: 1 while training (cheap: see docs/mahjong-training.md §1), 2 at play time."""
    epsilon: float = field(
        default=0.0, metadata={"help": "Share of random discards (0: only the search's).", "min": 0.0,
                               "max": 1.0}
    )
    """Share of discards played uniformly at random instead of the search's (0: the paper,
    whose only exploration is the search); the step's shaping is the search's value of the
    discard played (:func:`explored_value`)."""
    hands_per_round: int = field(
        default=64, metadata={"help": "Hands per runner call.", "min": 1, "max": 100_000}
    )
    """Hands given to the runner at a time (a worker pool per round)."""
    workers: int = field(default=1, metadata={"help": "Actor processes (results identical to 1)."})
    """Actor processes (1: in this process); the result does not depend on it."""
    checkpoint_every: int = field(default=5_000, metadata={"min": 1, "max": 100_000_000})
    log_every: int = field(default=1_000, metadata={"min": 1, "max": 100_000_000})
    eval_every: int = field(default=20_000, metadata={"help": "0: no evaluation.", "min": 0,
                                                      "max": 100_000_000})
    """Steps between evaluations against the behaviour search (0: none)."""
    eval_hands: int = field(
        default=32, metadata={"help": "Walls per evaluation (x2 seatings).", "min": 0, "max": 100_000}
    )
    """Walls per evaluation, each played twice (network in seats 0 and 2, then 1 and 3)."""
    threads: int = field(default=1, metadata={"help": "Torch threads of the learner."})
    curve: bool = field(default=True, metadata={"help": "Redraw curve.png at every checkpoint."})
    """Redraw ``curve.png`` at every checkpoint (a second of matplotlib each)."""
    compact: bool = field(
        default=False, metadata={"help": "Checkpoints without the replay buffer (rebuilt on resume)."}
    )
    """Checkpoints without the replay buffer's contents (a few MB instead of 7.5 KB a
    transition): a resume rebuilds them by replaying the hands that filled the buffer. The
    behaviour is the search, which does not read the network, so the same transitions come
    back; the result is the same as with a full checkpoint."""

    def feature_version(self) -> str:
        """The feature set's version string (what the buffer holds and the model records)."""
        return F.FEATURE_SETS[self.features]

    def hand_task(self, index: int) -> HandTask:
        """Hand ``index`` of the run, as an actor plays it."""
        return HandTask(index, derive_seed(self.seed, HAND, index), self.behaviour_spec(), self.epsilon,
                        self.feature_version())

    def behaviour_spec(self) -> AgentSpec:
        """The behaviour agent's spec with the training depth."""
        spec = REGISTRY.resolve(self.behaviour)
        return AgentSpec(spec.name, {**spec.params, "depth": self.behaviour_depth})


MAY_CHANGE = ("out", "total_steps", "workers", "curve", "compact")
"""The fields a resumed run may change (its length, its speed, its drawings); the others are its identity."""


def run_folder(cfg: TrainConfig) -> RunFolder:
    """The run's folder (:mod:`paiju.core.run_folder`)."""
    return RunFolder(cfg.out, "train-dqn", cfg, may_change=MAY_CHANGE)


_POSITIVE = ("total_steps", "buffer_size", "batch_size", "target_sync_every", "train_every",
             "hands_per_round", "workers", "checkpoint_every", "log_every", "threads", "channels")


def check_config(cfg: TrainConfig) -> None:
    """Refuse a bad configuration with a :class:`ConfigError` naming the field, before any work."""
    for name in _POSITIVE:
        if getattr(cfg, name) < 1:
            raise ConfigError(f"train-dqn {name}={getattr(cfg, name)} must be at least 1")
    for name in ("learning_starts", "blocks", "eval_every", "eval_hands", "seed"):
        if getattr(cfg, name) < 0:
            raise ConfigError(f"train-dqn {name}={getattr(cfg, name)} must be >= 0")
    if cfg.algorithm not in ALGORITHMS:
        raise ConfigError(f"train-dqn algorithm={cfg.algorithm!r}: must be one of {', '.join(ALGORITHMS)}")
    if cfg.trunk not in TRUNKS:
        raise ConfigError(f"train-dqn trunk={cfg.trunk!r}: must be one of {', '.join(TRUNKS)}")
    if cfg.features not in F.FEATURE_SETS:
        raise ConfigError(f"train-dqn features={cfg.features!r}: must be one of {', '.join(F.FEATURE_SETS)}")
    if cfg.features != "base" and cfg.trunk != "mlp":
        raise ConfigError(
            f"train-dqn features={cfg.features!r} is for the mlp trunk (the ResNet takes the planes)"
        )
    if any(h < 1 for h in cfg.hidden):
        raise ConfigError(f"train-dqn hidden={cfg.hidden}: every width must be >= 1")
    if not 0 <= cfg.gamma <= 1 or cfg.lr <= 0 or cfg.grad_clip <= 0 or cfg.score_scale <= 0:
        raise ConfigError(
            f"train-dqn gamma={cfg.gamma} must be in [0, 1], lr={cfg.lr}, grad_clip={cfg.grad_clip} "
            f"and score_scale={cfg.score_scale} > 0"
        )
    if cfg.shaping < 0 or cfg.search_advantages < 0:
        raise ConfigError(
            f"train-dqn shaping={cfg.shaping} and search_advantages={cfg.search_advantages} must be >= 0"
        )
    if not 0 <= cfg.epsilon <= 1:
        raise ConfigError(f"train-dqn epsilon={cfg.epsilon} must be in [0, 1]")
    if "depth" in REGISTRY.resolve(cfg.behaviour).params:
        raise ConfigError(f"train-dqn behaviour {cfg.behaviour!r}: give its depth with --behaviour-depth")
    if not REGISTRY.limits(REGISTRY.resolve(cfg.behaviour).name).get("depth"):
        raise ConfigError(f"train-dqn behaviour {cfg.behaviour!r} is not an Expectimax (it has no depth)")
    behaviour_agent(cfg.behaviour_spec(), 0)  # its parameters and ranges, checked by building one


def behaviour_agent(spec: AgentSpec, seed: int) -> ExpectimaxAgent:
    """A seat's search: the registry's agent of ``spec``, which must say what its move is worth."""
    agent = REGISTRY.make(spec, seed=seed)
    if not isinstance(agent, ExpectimaxAgent):
        raise ConfigError(f"train-dqn behaviour {spec}: not an Expectimax agent (no recommended move value)")
    return agent


# =============================================================================================
# 2. The actors: one hand of four searching seats, every discard recorded
# =============================================================================================
@dataclass(frozen=True)
class HandTask:
    """Hand ``index`` of a run: what a worker needs to play it (picklable)."""

    index: int
    seed: int
    behaviour: AgentSpec
    epsilon: float = 0.0
    features: str = F.FEATURES_VERSION
    """The feature set recorded (:data:`paiju.mahjong.features.FEATURE_SETS`)."""


@dataclass
class HandExperience:
    """The discard decisions of one hand, in the order they were made (one row each)."""

    index: int
    seat: np.ndarray
    """int64 (n,): the deciding seat."""
    obs: np.ndarray
    """float16 (n, flat size of the run's feature set): the flat features of its observation."""
    mask: np.ndarray
    """bool (n, 34): its legal discards."""
    action: np.ndarray
    """int64 (n,): the discard kind the search chose."""
    value: np.ndarray
    """float64 (n,): the search's value of that discard, in points (0 when it gave none)."""
    returns: np.ndarray
    """float64 (4,): the hand's points per seat."""
    search_seconds: float = 0.0
    winners: tuple[int, ...] = ()
    discard_values: np.ndarray | None = None
    """float64 (n, 34): the search's value (points) of every discard it valued at the decision,
    NaN for the others (pruned or not in hand); None: not recorded (all NaN)."""


class _HandLog:
    def __init__(self) -> None:
        self.rows: list[tuple[int, np.ndarray, np.ndarray, int, float, np.ndarray]] = []
        self.seconds = 0.0


class _RecordingSeat:
    """A seat of a training hand: plays the search's move and records each discard decision."""

    def __init__(self, search: ExpectimaxAgent, seat: int, log: _HandLog, epsilon: float = 0.0,
                 seed: int = 0, features: str = F.FEATURES_VERSION) -> None:
        self.name = f"train-dqn:{search.name}"
        self.search, self.seat, self.log = search, seat, log
        self.epsilon, self.rng = epsilon, np.random.default_rng(seed)
        self.features = features

    def act(self, observation: Any, legal_actions: Sequence[int]) -> int:
        obs: MahjongObservation = observation
        start = time.perf_counter()
        action, value = self.search.recommend(obs, legal_actions)
        self.log.seconds += time.perf_counter() - start
        if obs.phase == Phase.TURN and action < NUM_KINDS:
            discards = [a for a in legal_actions if a < NUM_KINDS]
            if self.epsilon and self.rng.random() < self.epsilon:  # drawn only then: eps=0 draws nothing
                action = int(discards[int(self.rng.integers(len(discards)))])
                value = explored_value(self.search.last_values, action, value)
            mask = np.zeros(NUM_KINDS, dtype=np.bool_)
            mask[discards] = True
            features = F.encode_flat(obs, self.features).astype(np.float16)
            valued = np.full(NUM_KINDS, np.nan)
            for kind, v in self.search.last_values.items():
                if kind < NUM_KINDS:
                    valued[kind] = v
            self.log.rows.append((self.seat, features, mask, action, value or 0.0, valued))
        return action


def explored_value(values: dict[int, float], action: int, recommended: float | None) -> float | None:
    """The shaping value of a discard played instead of the search's move: the search's own
    value of it, or, when the search pruned it, the lowest value it gave a discard (it kept
    those it judged best, so a pruned discard is no better). Only with nothing valued does
    the recommended move's value stand."""
    if action in values:
        return values[action]
    valued = [v for a, v in values.items() if a < NUM_KINDS]
    return min(valued) if valued else recommended


def play_hand(task: HandTask) -> HandExperience:
    """Play hand ``task.index`` with four seats of the behaviour search (a runner task)."""
    log = _HandLog()
    seats = [_RecordingSeat(behaviour_agent(task.behaviour, derive_seed(task.seed, SEAT, s)), s, log,
                            task.epsilon, derive_seed(task.seed, EXPLORE, s), task.features)
             for s in range(NUM_PLAYERS)]
    played = play_game(MahjongGame(), seats, derive_seed(task.seed, WALL))
    rows = log.rows
    result = getattr(played.state, "last_result", None)
    return HandExperience(
        index=task.index,
        seat=np.asarray([r[0] for r in rows], dtype=np.int64),
        obs=np.stack([r[1] for r in rows]) if rows else np.zeros((0, F.flat_size(task.features)), np.float16),
        mask=np.stack([r[2] for r in rows]) if rows else np.zeros((0, NUM_KINDS), np.bool_),
        action=np.asarray([r[3] for r in rows], dtype=np.int64),
        value=np.asarray([r[4] for r in rows], dtype=np.float64),
        returns=np.asarray(played.state.returns(), dtype=np.float64),
        search_seconds=log.seconds,
        winners=tuple(result.winners) if result is not None else (),
        discard_values=np.stack([r[5] for r in rows]) if rows else np.zeros((0, NUM_KINDS)),
    )


class Transitions(NamedTuple):
    """A hand's transitions, in decision order (what goes into the replay buffer)."""

    obs: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    next_obs: np.ndarray
    done: np.ndarray
    next_mask: np.ndarray
    action_values: np.ndarray
    """float32 (n, 34): ``V / score_scale`` of every discard the search valued, NaN elsewhere
    (the advantage loss's targets; not scaled by the shaping)."""
    seat: np.ndarray


BUFFER_COLUMNS = ("obs", "action", "reward", "next_obs", "done", "next_mask", "action_values")
"""The :class:`Transitions` columns in :meth:`ReplayBuffer.add`'s order."""


def hand_transitions(exp: HandExperience, shaping: float, score_scale: float) -> Transitions:
    """Each decision's transition: the next state is the same seat's next discard decision;
    its last decision is terminal and also gets the hand's points."""
    n = len(exp.action)
    following = np.full(n, -1, dtype=np.int64)
    later: dict[int, int] = {}
    for i in range(n - 1, -1, -1):
        following[i] = later.get(int(exp.seat[i]), -1)
        later[int(exp.seat[i])] = i
    done = following < 0
    nxt = np.maximum(following, 0)
    reward = shaping * exp.value / score_scale + np.where(done, exp.returns[exp.seat] / score_scale, 0.0)
    next_obs = np.where(done[:, None], np.float16(0), exp.obs[nxt]) if n else exp.obs
    next_mask = np.where(done[:, None], False, exp.mask[nxt]) if n else exp.mask
    values = exp.discard_values if exp.discard_values is not None else np.full((n, NUM_KINDS), np.nan)
    # in the final score's units whatever the shaping: the advantage loss teaches the search's
    # ranking even with no shaped reward (shaping 0: Q is the hand's expected score alone)
    action_values = (values / score_scale).astype(np.float32)
    return Transitions(exp.obs, exp.action, reward.astype(np.float32), next_obs, done, next_mask,
                       action_values, exp.seat)


# =============================================================================================
# 3. Evaluation: the network's greedy discards against the behaviour search, 2 vs 2
# =============================================================================================
@dataclass(frozen=True)
class EvalTask:
    index: int
    seed: int
    network: AgentSpec
    behaviour: AgentSpec


def play_eval_wall(task: EvalTask) -> tuple[int, int, float]:
    """One wall played twice (network in seats 0, 2 then 1, 3): (network wins, network
    seat-hands, network points)."""
    wins, seats_played, points = 0, 0, 0.0
    for first in (0, 1):
        net_seats = (first, first + 2)
        agents = [REGISTRY.make(task.network if s in net_seats else task.behaviour,
                                seed=derive_seed(task.seed, SEAT, s)) for s in range(NUM_PLAYERS)]
        played = play_game(MahjongGame(), agents, derive_seed(task.seed, WALL))
        result = getattr(played.state, "last_result", None)
        winners = tuple(result.winners) if result is not None else ()
        returns = played.state.returns()
        wins += sum(1 for s in net_seats if s in winners)
        seats_played += len(net_seats)
        points += sum(returns[s] for s in net_seats)
    return wins, seats_played, points


# =============================================================================================
# 4. The learner (torch from here on)
# =============================================================================================
def build_learner(cfg: TrainConfig) -> DQNLearner:
    """The (Double) DQN learner of ``cfg``: the network on the planes (ResNet) or the flat
    features (MLP); the buffer stores the flat float16 features either way."""
    import torch

    from paiju.algorithms.dqn import DQNConfig, DQNLearner, QNetConfig

    flat = F.flat_size(cfg.feature_version())
    if cfg.trunk == "resnet":
        net = QNetConfig(input_shape=F.PLANE_SHAPE, num_actions=NUM_KINDS, channels=cfg.channels,
                         blocks=cfg.blocks)

        def to_planes(x: torch.Tensor) -> torch.Tensor:
            return torch.from_numpy(F.planes_from_flat(x.numpy()))

        transform: Callable[[torch.Tensor], torch.Tensor] | None = to_planes
    else:
        net = QNetConfig(input_shape=(flat,), num_actions=NUM_KINDS, kind="mlp", hidden=cfg.hidden)
        transform = None
    dqn = DQNConfig(
        double=cfg.algorithm == "ddqn", gamma=cfg.gamma, lr=cfg.lr, batch_size=cfg.batch_size,
        target_sync_every=cfg.target_sync_every, grad_clip=cfg.grad_clip,
        buffer_capacity=cfg.buffer_size, seed=derive_seed(cfg.seed, 0), threads=cfg.threads,
        advantage_weight=cfg.search_advantages,
    )
    return DQNLearner(net, dqn, obs_shape=(flat,), obs_dtype=np.float16, transform=transform)


PROBE = 256
"""Mean Q is measured on the buffer's first PROBE transitions (no sampling: the buffer's RNG
belongs to training)."""


def mean_q(learner: DQNLearner) -> float | None:
    n = min(PROBE, len(learner.buffer))
    if n == 0:
        return None
    learner.online.eval()
    q = learner.q_values(learner.buffer.obs[:n])
    taken = q.gather(1, q.new_tensor(learner.buffer.action[:n]).long()[:, None])
    return float(taken.mean().item())


# =============================================================================================
# 5. The run: position, metrics, checkpoints
# =============================================================================================
def _new_tally() -> dict[str, float]:
    return {"loss": 0.0, "losses": 0, "episodes": 0, "return": 0.0, "shaped": 0.0, "hands": 0, "won": 0,
            "winners": 0, "winner_return": 0.0,
            "search_s": 0.0, "searched": 0, "wall_s": 0.0}


@dataclass
class RunState:
    """Where a run is: saved in every checkpoint."""

    step: int = 0
    hand: int = 0
    """The next hand to consume."""
    consumed: int = 0
    """Transitions of that hand already consumed (a checkpoint may fall inside a hand)."""
    hands_done: int = 0
    metrics: list[dict[str, Any]] = field(default_factory=list)
    tally: dict[str, float] = field(default_factory=_new_tally)
    """Sums since the latest metrics line."""


def save_checkpoint(cfg: TrainConfig, learner: DQNLearner, run: RunState) -> None:
    import torch

    run_folder(cfg).save_checkpoint(RUN_FORMAT, {
        "learner": learner.state_dict(include_buffer=not cfg.compact),
        "buffer_sampling": learner.buffer.sampling_state() if cfg.compact else None,
        "torch_rng": torch.get_rng_state(), "run": asdict(run),
    })


def load_checkpoint(cfg: TrainConfig, learner: DQNLearner) -> RunState:
    import torch

    folder = run_folder(cfg)
    state = folder.load_checkpoint(RUN_FORMAT)
    try:
        learner.load_state_dict(state["learner"])
        torch.set_rng_state(state["torch_rng"])
        run = RunState(**state["run"])
    except (KeyError, TypeError, RuntimeError) as err:
        raise CorruptRecordError(f"{folder.checkpoint_file}: not a train-dqn checkpoint ({err})") from None
    if state["learner"].get("buffer") is None:
        sampling = state.get("buffer_sampling")
        if sampling is None:
            raise CorruptRecordError(
                f"{folder.checkpoint_file}: holds neither the replay buffer nor its sampling state"
            )
        refill_buffer(cfg, learner, run, sampling)
    return run


def _play_all(tasks: list[HandTask], workers: int) -> list[HandExperience]:
    done: list[HandExperience] = []
    run_tasks(play_hand, tasks, lambda _, exp: done.append(exp), backend=Backend(workers=workers))
    return done


def refill_buffer(cfg: TrainConfig, learner: DQNLearner, run: RunState, sampling: dict[str, Any]) -> None:
    """Rebuild the replay buffer of a compact checkpoint: replay the hands before ``run``'s
    position, newest first, until they hold the buffer's last ``min(step, buffer_size)``
    transitions (the part of the current hand already consumed included)."""
    need = min(run.step, cfg.buffer_size)
    parts: list[Transitions] = []  # newest hand first
    got, hand = 0, run.hand
    while got < need and hand >= 0:
        first = max(0, hand - cfg.hands_per_round + 1)
        tasks = [cfg.hand_task(i) for i in range(first, hand + 1)]
        played = {exp.index: exp for exp in _play_all(tasks, cfg.workers)}
        for i in range(hand, first - 1, -1):
            tr = hand_transitions(played[i], cfg.shaping, cfg.score_scale)
            if i == run.hand:
                tr = Transitions(*(a[:run.consumed] for a in tr))
            parts.append(tr)
            got += len(tr.action)
            if got >= need:
                break
        hand = first - 1
    names = BUFFER_COLUMNS if cfg.search_advantages > 0 else BUFFER_COLUMNS[:6]
    if need == 0:
        learner.buffer.refill(run.step, tuple(np.zeros(0) for _ in names), sampling)
        return
    ordered = parts[::-1]
    columns = [np.concatenate([getattr(t, name) for t in ordered]) for name in names]
    learner.buffer.refill(run.step, tuple(c[len(c) - need:] for c in columns), sampling)


def _log_line(cfg: TrainConfig, learner: DQNLearner, run: RunState) -> dict[str, Any]:
    t = run.tally
    episodes = int(t["episodes"])

    def per_episode(key: str) -> float | None:
        return t[key] / episodes if episodes else None

    line = {
        "kind": "train", "step": run.step, "hands": run.hands_done, "train_steps": learner.steps,
        "loss": t["loss"] / t["losses"] if t["losses"] else None, "q_mean": mean_q(learner),
        "episodes": episodes, "episode_return": per_episode("return"),
        "shaping_return": per_episode("shaped"),
        # the hand's points sum to zero over the seats: the winners' returns show them
        "hands_won": t["won"] / t["hands"] if t["hands"] else None,
        "winner_return": t["winner_return"] / t["winners"] if t["winners"] else None,
        "buffer": len(learner.buffer),
        "timing": {
            "steps_per_s": cfg.log_every / t["wall_s"] if t["wall_s"] > 0 else None,
            "search_ms_per_step": 1000 * t["search_s"] / t["searched"] if t["searched"] else None,
        },
    }
    run.tally = _new_tally()
    return line


def _evaluate(cfg: TrainConfig, learner: DQNLearner, run: RunState) -> dict[str, Any]:
    from paiju.algorithms.dqn import save_model

    path = Path(cfg.out) / "evals" / f"step-{run.step:09d}.pt"
    save_model(path, learner.online, model_meta(cfg, run))
    network = AgentSpec(cfg.algorithm, {"model": str(path), "threads": cfg.threads})
    tasks = [EvalTask(j, derive_seed(cfg.seed, EVAL, j), network, cfg.behaviour_spec())
             for j in range(cfg.eval_hands)]
    totals = [0, 0, 0.0]

    def add(_: int, result: tuple[int, int, float]) -> None:
        for i, v in enumerate(result):
            totals[i] += v

    run_tasks(play_eval_wall, tasks, add, backend=Backend(workers=cfg.workers))
    return {"kind": "eval", "step": run.step, "seat_hands": int(totals[1]),
            "win_rate": totals[0] / totals[1], "points_per_hand": totals[2] / totals[1],
            "against": str(cfg.behaviour_spec())}


def model_meta(cfg: TrainConfig, run: RunState) -> dict[str, Any]:
    return {"features": cfg.feature_version(), "algorithm": cfg.algorithm, "config": asdict(cfg),
            "steps": run.step, "hands": run.hands_done, "command": command_line(cfg),
            "metrics": [m for m in run.metrics if m["kind"] == "eval"]
            + [m for m in run.metrics if m["kind"] == "train"][-1:]}


def _record_hand(run: RunState, exp: HandExperience, tr: Transitions, score_scale: float) -> None:
    t = run.tally
    for s in np.unique(exp.seat):
        rows = exp.seat == s
        t["episodes"] += 1
        t["return"] += float(tr.reward[rows].sum())
        t["shaped"] += float(tr.reward[rows].sum() - exp.returns[s] / score_scale)
        if s in exp.winners:
            t["winners"] += 1
            t["winner_return"] += float(tr.reward[rows].sum())
    t["hands"] += 1
    t["won"] += bool(exp.winners)
    t["search_s"] += exp.search_seconds
    t["searched"] += len(exp.action)
    run.hands_done += 1


# =============================================================================================
# 6. The loop
# =============================================================================================
class Trainer:
    """One run: consumes hands in index order, one transition at a time."""

    def __init__(self, cfg: TrainConfig, learner: DQNLearner, run: RunState,
                 report: Callable[[int, int], None] | None) -> None:
        self.cfg, self.learner, self.run, self.report = cfg, learner, run, report
        self.folder = run_folder(cfg)
        self.waiting: dict[int, HandExperience] = {}
        self.clock = time.perf_counter()

    @property
    def finished(self) -> bool:
        return self.run.step >= self.cfg.total_steps

    def take(self, _: int, exp: HandExperience) -> None:
        """Runner callback: keep ``exp`` until every earlier hand is consumed."""
        self.waiting[exp.index] = exp
        while not self.finished and self.run.hand in self.waiting:
            self.consume(self.waiting.pop(self.run.hand))

    def consume(self, exp: HandExperience) -> None:
        cfg, run = self.cfg, self.run
        tr = hand_transitions(exp, cfg.shaping, cfg.score_scale)
        n = len(tr.action)
        if n == 0:  # nobody discarded (a win on the first draw): nothing to learn
            run.hand += 1
        for i in range(run.consumed, n):
            if self.finished:
                return
            self.learner.buffer.add(tr.obs[i], int(tr.action[i]), float(tr.reward[i]), tr.next_obs[i],
                                    bool(tr.done[i]), tr.next_mask[i],
                                    tr.action_values[i] if cfg.search_advantages > 0 else None)
            run.step += 1
            run.consumed = i + 1
            if run.consumed == n:
                _record_hand(run, exp, tr, cfg.score_scale)
                run.hand, run.consumed = run.hand + 1, 0
            self.after_step()

    def after_step(self) -> None:
        cfg, run, learner = self.cfg, self.run, self.learner
        if run.step >= cfg.learning_starts and run.step % cfg.train_every == 0:
            run.tally["loss"] += learner.train_step()
            run.tally["losses"] += 1
        if run.step % cfg.log_every == 0:
            now = time.perf_counter()
            run.tally["wall_s"] += now - self.clock
            self.clock = now
            self.log(_log_line(cfg, learner, run))
        if cfg.eval_every and cfg.eval_hands and run.step % cfg.eval_every == 0:
            self.log(_evaluate(cfg, learner, run))
        if run.step % cfg.checkpoint_every == 0:
            save_checkpoint(cfg, learner, run)
            if cfg.curve:
                plot_curve(cfg)
        if self.report is not None:
            self.report(run.step, cfg.total_steps)

    def log(self, line: dict[str, Any]) -> None:
        self.run.metrics.append(line)
        self.folder.append_metrics(line)


def train(cfg: TrainConfig, *, resume: bool = False, progress: Progress = False) -> dict[str, Any]:
    """Run (or with ``resume`` continue) training; returns the summary (also the model's meta)."""
    check_config(cfg)
    folder = run_folder(cfg)
    folder.check_start(resume=resume)
    learner = build_learner(cfg)
    run = load_checkpoint(cfg, learner) if resume else RunState()
    folder.write_config(command_line(cfg))
    # the metrics file is the checkpoint's: lines written after it (an interrupted run) go
    folder.write_metrics(run.metrics)
    with progress_reporter(progress, cfg.total_steps, run.step, "steps") as report:
        trainer = Trainer(cfg, learner, run, report)
        while not trainer.finished:
            first = run.hand
            tasks = [cfg.hand_task(i) for i in range(first, first + cfg.hands_per_round)]
            run_tasks(play_hand, tasks, trainer.take, backend=Backend(workers=cfg.workers))
    return _finish(cfg, learner, run)


def _finish(cfg: TrainConfig, learner: DQNLearner, run: RunState) -> dict[str, Any]:
    from paiju.algorithms.dqn import save_model

    folder = run_folder(cfg)
    save_checkpoint(cfg, learner, run)
    if cfg.curve:
        plot_curve(cfg)
    meta = model_meta(cfg, run)
    path = save_model(folder.model_file, learner.online, meta)
    summary = {**meta, "model": str(path)}
    folder.write_summary(summary)
    return summary


# =============================================================================================
# 7. Learning curve and the command line that reproduces a run
# =============================================================================================
CURVE = {"TD loss (MSE)": ["loss"], "mean Q(s, a)": ["q_mean"], "winners' return": ["winner_return"],
         "win rate vs the search": ["win_rate"]}
"""The panels of ``curve.png``: the training lines' loss, mean Q and winners' return, the
evaluations' win rate."""


def plot_curve(cfg: TrainConfig) -> None:
    """``curve.png`` of the run, from its ``metrics.jsonl``."""
    run_folder(cfg).plot_curve(CURVE, x="step")


def command_line(cfg: TrainConfig) -> str:
    """The ``paiju mahjong train-dqn`` command of ``cfg`` (options that differ from the
    defaults; ``compact`` and ``curve`` left out: the same run either way)."""
    words = ["paiju", "mahjong", "train-dqn", "--out", cfg.out]
    return config_command_line(words, cfg, skip=("out", "compact", "curve"))


CONFIG_FIELDS = tuple(f.name for f in fields(TrainConfig))

__all__ = [
    "CONFIG_FIELDS",
    "MAY_CHANGE",
    "EvalTask",
    "HandExperience",
    "HandTask",
    "RunState",
    "TrainConfig",
    "Transitions",
    "build_learner",
    "check_config",
    "command_line",
    "hand_transitions",
    "play_eval_wall",
    "play_hand",
    "plot_curve",
    "run_folder",
    "train",
]
