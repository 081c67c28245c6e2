"""DQN and Double DQN: online and target networks, TD targets with legal masks, checkpoints.

Targets (``done`` zeroes the bootstrap; the max and the argmax run over the legal actions
at ``s'`` only, ``next_mask``):

* DQN: ``y = r + gamma * max_a' Q_target(s', a')``
* Double DQN (van Hasselt et al. 2016): ``y = r + gamma * Q_target(s', argmax_a' Q_online(s', a'))``
  -- the online network picks, the target network values, which removes the max's
  overestimation bias.

The loss is the mean squared error between ``Q_online(s, a)`` and ``y`` (no gradient through
``y``); the target network is a copy of the online one, refreshed every
``target_sync_every`` training steps.

With ``advantage_weight`` w > 0 the buffer also keeps, per transition, a target value for
any of the actions at ``s`` (NaN where there is none: e.g. what a search found every legal
action worth), and the loss adds w times the **advantage loss** (:func:`advantage_loss`): over
the valued actions of each transition, the squared error between the Q-values and the
targets, both centred on their mean over those actions. It teaches the ranking of actions
that were not taken, while the TD term alone sets the level. A *training checkpoint* (:meth:`DQNLearner.save`)
holds both networks, the optimizer, the step count and (optionally) the replay buffer with
its RNG state, so a run resumed from it equals the uninterrupted run; a *model file*
(:func:`save_model`) holds only the online network and metadata, for play.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from paiju.algorithms.dqn.net import QNetConfig, QNetwork, masked_argmax, masked_values
from paiju.algorithms.dqn.replay import Batch, ReplayBuffer
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.torch_files import load_payload, save_payload

TRAIN_FORMAT = "paiju-dqn-train-1"
MODEL_FORMAT = "paiju-dqn-model-1"

InputTransform = Callable[[torch.Tensor], torch.Tensor]
"""Stored observations -> network input (e.g. flat features -> planes); identity by default."""


@dataclass(frozen=True)
class DQNConfig:
    """Learning settings.

    Attributes:
        double: Double DQN targets (True) or plain DQN (False).
        gamma: discount per transition.
        lr: Adam learning rate.
        batch_size: transitions per training step.
        target_sync_every: training steps between copies of the online network to the target.
        grad_clip: gradient-norm clip (None: no clipping).
        buffer_capacity: replay buffer size.
        seed: network initialisation and buffer sampling.
        threads: ``torch.set_num_threads`` for the process, set when the learner is built
            (1 by default: actors run in parallel processes, one core each); None leaves it.
        advantage_weight: weight of the advantage loss (0: none, the plain (Double) DQN; the
            buffer then keeps no action values).
    """

    double: bool = True
    gamma: float = 0.99
    lr: float = 1e-3
    batch_size: int = 64
    target_sync_every: int = 500
    grad_clip: float | None = 10.0
    buffer_capacity: int = 50_000
    seed: int = 0
    threads: int | None = 1
    advantage_weight: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.gamma <= 1.0:
            raise ConfigError(f"DQN gamma={self.gamma} must be in [0, 1]")
        if self.lr <= 0:
            raise ConfigError(f"DQN lr={self.lr} must be > 0")
        for name in ("batch_size", "target_sync_every", "buffer_capacity"):
            if getattr(self, name) < 1:
                raise ConfigError(f"DQN {name}={getattr(self, name)} must be >= 1")
        if self.grad_clip is not None and self.grad_clip <= 0:
            raise ConfigError(f"DQN grad_clip={self.grad_clip} must be > 0 (or None)")
        if self.threads is not None and self.threads < 1:
            raise ConfigError(f"DQN threads={self.threads} must be >= 1 (or None)")
        if not self.advantage_weight >= 0:
            raise ConfigError(f"DQN advantage_weight={self.advantage_weight} must be >= 0")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def seeded_network(config: QNetConfig, seed: int) -> QNetwork:
    """A freshly initialised network, its weights a function of ``seed`` only (the global torch
    RNG is left as it was)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return QNetwork(config)


def dqn_targets(
    batch: Batch,
    online: nn.Module,
    target: nn.Module,
    gamma: float,
    double: bool,
    transform: InputTransform | None = None,
) -> torch.Tensor:
    """The TD target ``y`` of every transition (no gradient)."""
    with torch.no_grad():
        done = batch.done
        # a terminal s' has no legal action: give it a dummy mask, its bootstrap is zeroed anyway
        mask = batch.next_mask | done[:, None]
        x = batch.next_obs if transform is None else transform(batch.next_obs)
        q_target = target(x)
        if double:
            choice = masked_argmax(online(x), mask)
            bootstrap = q_target.gather(1, choice[:, None]).squeeze(1)
        else:
            bootstrap = masked_values(q_target, mask).amax(dim=1)
        bootstrap = torch.where(done, torch.zeros_like(bootstrap), bootstrap)
        return batch.reward + gamma * bootstrap


def advantage_loss(q: torch.Tensor, action_values: torch.Tensor) -> torch.Tensor:
    """Mean over transitions with at least two valued actions (``action_values`` not NaN) of
    the mean over those actions of ``((q_a - mean q) - (v_a - mean v))**2``, the means over
    the transition's valued actions; 0 when no transition has two."""
    valued = ~torch.isnan(action_values)
    count = valued.sum(dim=1)
    values = torch.where(valued, action_values, torch.zeros_like(action_values))
    weights = valued.to(q.dtype)
    safe = count.clamp(min=1).to(q.dtype)
    q_centred = q - (q * weights).sum(dim=1, keepdim=True) / safe[:, None]
    v_centred = values - values.sum(dim=1, keepdim=True) / safe[:, None]
    per = (((q_centred - v_centred) ** 2) * weights).sum(dim=1) / safe
    used = count >= 2
    if not bool(used.any()):
        return q.new_zeros(())
    return per[used].mean()


class DQNLearner:
    """Online and target Q-networks, the optimizer and the replay buffer of one learner."""

    def __init__(
        self,
        net_config: QNetConfig,
        config: DQNConfig | None = None,
        *,
        obs_shape: tuple[int, ...] | None = None,
        obs_dtype: np.dtype[Any] | type = np.float32,
        transform: InputTransform | None = None,
    ) -> None:
        """``obs_shape`` / ``obs_dtype``: how the buffer stores observations (default: the
        network input); ``transform`` turns stored observations into network input."""
        self.config = config or DQNConfig()
        self.net_config = net_config
        if self.config.threads is not None:
            torch.set_num_threads(self.config.threads)
        self.online = seeded_network(net_config, self.config.seed)
        self.target = copy.deepcopy(self.online)
        self.target.requires_grad_(False)
        self.optimizer = torch.optim.Adam(self.online.parameters(), lr=self.config.lr)
        self.transform = transform
        self.buffer = ReplayBuffer(
            self.config.buffer_capacity,
            obs_shape or net_config.input_shape,
            net_config.num_actions,
            seed=self.config.seed,
            obs_dtype=obs_dtype,
            action_values=self.config.advantage_weight > 0,
        )
        self.steps = 0

    def _input(self, obs: torch.Tensor) -> torch.Tensor:
        return obs if self.transform is None else self.transform(obs)

    def q_values(self, obs: np.ndarray | torch.Tensor) -> torch.Tensor:
        """Online Q-values of a batch of stored-form observations (no gradient)."""
        with torch.no_grad():
            q: torch.Tensor = self.online(self._input(torch.as_tensor(np.asarray(obs, dtype=np.float32))))
        return q

    def greedy(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The legal action of highest online Q per observation."""
        q = self.q_values(obs)
        return masked_argmax(q, torch.as_tensor(np.asarray(mask, dtype=np.bool_))).numpy()

    def targets(self, batch: Batch) -> torch.Tensor:
        cfg = self.config
        return dqn_targets(batch, self.online, self.target, cfg.gamma, cfg.double, self.transform)

    def loss(self, batch: Batch) -> torch.Tensor:
        """MSE of ``Q_online(s, a)`` against the TD targets (plus the weighted advantage loss)."""
        y = self.targets(batch)
        q_all = self.online(self._input(batch.obs))
        q = q_all.gather(1, batch.action[:, None]).squeeze(1)
        loss = torch.mean((q - y) ** 2)
        w = self.config.advantage_weight
        if w > 0:
            if batch.action_values is None:
                raise ValueError("advantage_weight > 0 needs batches with action values")
            loss = loss + w * advantage_loss(q_all, batch.action_values)
        return loss

    def train_step(self, batch: Batch | None = None) -> float:
        """One gradient step on ``batch`` (default: a sample of the buffer); returns the loss."""
        if batch is None:
            batch = self.buffer.sample(self.config.batch_size)
        self.online.train()
        loss = self.loss(batch)
        self.optimizer.zero_grad(set_to_none=True)
        torch.autograd.backward(loss)
        if self.config.grad_clip is not None:
            nn.utils.clip_grad_norm_(self.online.parameters(), self.config.grad_clip)
        self.optimizer.step()
        self.steps += 1
        if self.steps % self.config.target_sync_every == 0:
            self.sync_target()
        return float(loss.item())

    def sync_target(self) -> None:
        self.target.load_state_dict(self.online.state_dict())

    # ---- checkpoints ----------------------------------------------------------------------
    def state_dict(self, include_buffer: bool = True) -> dict[str, Any]:
        return {
            "format": TRAIN_FORMAT,
            "net_config": self.net_config.to_dict(),
            "config": self.config.to_dict(),
            "online": self.online.state_dict(),
            "target": self.target.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "steps": self.steps,
            "buffer": self.buffer.state_dict() if include_buffer else None,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("format") != TRAIN_FORMAT:
            raise CorruptRecordError(f"not a DQN training checkpoint (format {state.get('format')!r})")
        if QNetConfig.from_dict(state["net_config"]) != self.net_config:
            raise ConfigError("DQN checkpoint: its network config differs from this learner's")
        self.online.load_state_dict(state["online"])
        self.target.load_state_dict(state["target"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.steps = int(state["steps"])
        if state.get("buffer") is not None:
            self.buffer.load_state_dict(state["buffer"])

    def save(self, path: str | Path, include_buffer: bool = True) -> Path:
        """Write a training checkpoint (atomically: a crash mid-write leaves the old one)."""
        return save_payload(path, self.state_dict(include_buffer))

    @classmethod
    def resume(
        cls,
        path: str | Path,
        *,
        obs_dtype: np.dtype[Any] | type = np.float32,
        transform: InputTransform | None = None,
        obs_shape: tuple[int, ...] | None = None,
    ) -> DQNLearner:
        """A learner restored from a training checkpoint (config, networks, optimizer, buffer)."""
        state = _load(path, "DQN training checkpoint")
        if state.get("format") != TRAIN_FORMAT:
            raise CorruptRecordError(f"{str(path)!r} is not a DQN training checkpoint")
        learner = cls(
            QNetConfig.from_dict(state["net_config"]),
            DQNConfig(**state["config"]),
            obs_shape=obs_shape,
            obs_dtype=obs_dtype,
            transform=transform,
        )
        learner.load_state_dict(state)
        return learner


def _load(path: str | Path, what: str) -> dict[str, Any]:
    return load_payload(path, what)


def save_model(path: str | Path, net: QNetwork, meta: dict[str, Any] | None = None) -> Path:
    """Write the network for play: config, weights and ``meta`` (plain data: how it was made)."""
    payload = {
        "format": MODEL_FORMAT,
        "net_config": net.config.to_dict(),
        "state_dict": net.state_dict(),
        "meta": dict(meta or {}),
    }
    return save_payload(path, payload)


def load_model(path: str | Path) -> tuple[QNetwork, dict[str, Any]]:
    """The network (eval mode) and metadata of a model file.

    Raises:
        ConfigError: no file at ``path``.
        CorruptRecordError: not a readable paiju DQN model.
    """
    state = _load(path, "DQN model")
    if state.get("format") != MODEL_FORMAT:
        found = state.get("format")
        raise CorruptRecordError(f"DQN model {str(path)!r}: format {found!r}, expected {MODEL_FORMAT}")
    try:
        net = QNetwork(QNetConfig.from_dict(state["net_config"]))
        net.load_state_dict(state["state_dict"])
    except (KeyError, RuntimeError, TypeError) as err:
        raise CorruptRecordError(f"DQN model {str(path)!r} does not match its config: {err}") from None
    net.eval()
    return net, dict(state.get("meta", {}))
