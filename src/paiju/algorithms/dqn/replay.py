"""A uniform replay buffer of transitions with legal-action masks, sampled from a seeded RNG.

A transition is ``(obs, action, reward, next_obs, done, next_mask)``: ``next_mask`` marks the
legal actions at ``next_obs`` (the Q-target maximises over those only); at a terminal
transition (``done``) ``next_obs`` and ``next_mask`` are ignored. Observations are stored as
given (dtype and shape fixed at construction): a game may store a compact form and let the
learner expand it (``input_transform``). The buffer is a ring: once full, the oldest
transition is overwritten. Its whole state -- contents, write position and the sampling
RNG -- goes into a checkpoint (:meth:`ReplayBuffer.state_dict`), so a resumed run samples
exactly what an uninterrupted one would.

Optionally (``action_values=True``) a transition also carries a target value for any of the
actions at ``obs`` -- e.g. what a search found each legal action worth -- NaN where there is
none; the learner's advantage loss reads it (:func:`paiju.algorithms.dqn.advantage_loss`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from paiju.core.errors import ConfigError
from paiju.core.rng import SeedLike, as_generator


@dataclass(frozen=True)
class Batch:
    """A batch of transitions as tensors (first axis = transition)."""

    obs: torch.Tensor
    action: torch.Tensor
    """int64 (B,)."""
    reward: torch.Tensor
    """float32 (B,)."""
    next_obs: torch.Tensor
    done: torch.Tensor
    """bool (B,)."""
    next_mask: torch.Tensor
    """bool (B, num_actions)."""
    action_values: torch.Tensor | None = None
    """float32 (B, num_actions), NaN where an action has no target value; None when the
    buffer keeps none."""

    @classmethod
    def from_arrays(
        cls,
        obs: np.ndarray,
        action: np.ndarray,
        reward: np.ndarray,
        next_obs: np.ndarray,
        done: np.ndarray,
        next_mask: np.ndarray,
        action_values: np.ndarray | None = None,
    ) -> Batch:
        return cls(
            obs=torch.as_tensor(np.asarray(obs, dtype=np.float32)),
            action=torch.as_tensor(np.asarray(action, dtype=np.int64)),
            reward=torch.as_tensor(np.asarray(reward, dtype=np.float32)),
            next_obs=torch.as_tensor(np.asarray(next_obs, dtype=np.float32)),
            done=torch.as_tensor(np.asarray(done, dtype=np.bool_)),
            next_mask=torch.as_tensor(np.asarray(next_mask, dtype=np.bool_)),
            action_values=None if action_values is None
            else torch.as_tensor(np.asarray(action_values, dtype=np.float32)),
        )


class ReplayBuffer:
    """Ring buffer of ``capacity`` transitions; :meth:`sample` draws uniformly with replacement."""

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple[int, ...],
        num_actions: int,
        seed: SeedLike = None,
        obs_dtype: np.dtype[Any] | type = np.float32,
        action_values: bool = False,
    ) -> None:
        if capacity < 1:
            raise ConfigError(f"replay buffer capacity={capacity} must be >= 1")
        if num_actions < 1:
            raise ConfigError(f"replay buffer num_actions={num_actions} must be >= 1")
        self.capacity = capacity
        self.obs_shape = tuple(obs_shape)
        self.num_actions = num_actions
        self.obs = np.zeros((capacity, *self.obs_shape), dtype=obs_dtype)
        self.next_obs = np.zeros_like(self.obs)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.done = np.zeros(capacity, dtype=np.bool_)
        self.next_mask = np.zeros((capacity, num_actions), dtype=np.bool_)
        self.action_values = (np.full((capacity, num_actions), np.nan, dtype=np.float32)
                              if action_values else None)
        self.size = 0
        self.position = 0
        self.rng = as_generator(seed)

    def __len__(self) -> int:
        return self.size

    def add(
        self,
        obs: np.ndarray,
        action: int,
        reward: float,
        next_obs: np.ndarray | None,
        done: bool,
        next_mask: np.ndarray | None,
        action_values: np.ndarray | None = None,
    ) -> None:
        """Store one transition (``next_obs`` / ``next_mask`` may be None when ``done``;
        ``action_values`` only in a buffer that keeps them, None = no action valued)."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} outside 0..{self.num_actions - 1}")
        if not done and (next_obs is None or next_mask is None or not np.any(next_mask)):
            raise ValueError("a non-terminal transition needs next_obs and a next_mask with a legal action")
        i = self.position
        self.obs[i] = obs
        self.action[i] = action
        self.reward[i] = reward
        self.done[i] = done
        self.next_obs[i] = 0 if next_obs is None else next_obs
        self.next_mask[i] = False if next_mask is None else next_mask
        if self.action_values is not None:
            self.action_values[i] = np.nan if action_values is None else action_values
        elif action_values is not None:
            raise ValueError("this replay buffer keeps no action values (build it with action_values=True)")
        self.position = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def sampling_state(self) -> dict[str, Any]:
        """Size, write position and the sampling RNG, without the contents: with
        :meth:`refill` a compact checkpoint for a caller that can reproduce the transitions."""
        return {"size": self.size, "position": self.position, "rng": self.rng.bit_generator.state}

    def refill(self, added: int, rows: tuple[np.ndarray, ...], sampling: dict[str, Any]) -> None:
        """Rebuild the buffer of a run that made ``added`` adds from its last ``min(added,
        capacity)`` transitions ``rows`` = (obs, action, reward, next_obs, done, next_mask[,
        action_values]), oldest first, and its :meth:`sampling_state`: every slot ends as those adds left it.

        Raises:
            ValueError: the rows are not the number of transitions the buffer held, or the
                result does not match the saved size and position.
        """
        obs, action, reward, next_obs, done, next_mask = rows[:6]
        values = rows[6] if len(rows) > 6 else None
        n = len(action)
        if n != min(added, self.capacity):
            raise ValueError(f"refill: {n} transitions for a buffer that held {min(added, self.capacity)}")
        self.position, self.size = (added - n) % self.capacity, min(added - n, self.capacity)
        for i in range(n):
            self.add(obs[i], int(action[i]), float(reward[i]), next_obs[i], bool(done[i]), next_mask[i],
                     None if values is None else values[i])
        if (self.size, self.position) != (int(sampling["size"]), int(sampling["position"])):
            raise ValueError(
                f"refill: size and position ({self.size}, {self.position}) differ from the saved "
                f"({sampling['size']}, {sampling['position']})"
            )
        self.rng.bit_generator.state = sampling["rng"]

    def sample_indices(self, batch_size: int) -> np.ndarray:
        if self.size == 0:
            raise ValueError("cannot sample from an empty replay buffer")
        return self.rng.integers(0, self.size, size=batch_size)

    def sample(self, batch_size: int) -> Batch:
        idx = self.sample_indices(batch_size)
        return Batch.from_arrays(
            self.obs[idx],
            self.action[idx],
            self.reward[idx],
            self.next_obs[idx],
            self.done[idx],
            self.next_mask[idx],
            None if self.action_values is None else self.action_values[idx],
        )

    def state_dict(self) -> dict[str, Any]:
        """Contents (the filled part), position and the sampling RNG's state: plain tensors and data."""
        n = self.size
        return {
            "capacity": self.capacity,
            "obs_shape": list(self.obs_shape),
            "num_actions": self.num_actions,
            "size": n,
            "position": self.position,
            "rng": self.rng.bit_generator.state,
            "obs": torch.from_numpy(self.obs[:n].copy()),
            "next_obs": torch.from_numpy(self.next_obs[:n].copy()),
            "action": torch.from_numpy(self.action[:n].copy()),
            "reward": torch.from_numpy(self.reward[:n].copy()),
            "done": torch.from_numpy(self.done[:n].copy()),
            "next_mask": torch.from_numpy(self.next_mask[:n].copy()),
            "action_values": None if self.action_values is None
            else torch.from_numpy(self.action_values[:n].copy()),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        shape = (int(state["capacity"]), tuple(int(x) for x in state["obs_shape"]), int(state["num_actions"]))
        if shape != (self.capacity, self.obs_shape, self.num_actions):
            raise ConfigError(
                f"replay buffer checkpoint is (capacity, obs_shape, num_actions) = {shape}, "
                f"this buffer {(self.capacity, self.obs_shape, self.num_actions)}"
            )
        n = int(state["size"])
        self.size = n
        self.position = int(state["position"])
        for name in ("obs", "next_obs", "action", "reward", "done", "next_mask"):
            getattr(self, name)[:n] = state[name].numpy()
        saved = state.get("action_values")
        if (saved is None) != (self.action_values is None):
            keeps = "keeps" if saved is not None else "keeps no"
            raise ConfigError(f"replay buffer checkpoint {keeps} action values, this buffer the opposite")
        if self.action_values is not None and saved is not None:
            self.action_values[:n] = saved.numpy()
        self.rng.bit_generator.state = state["rng"]
