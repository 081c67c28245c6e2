"""The ``policy`` Dou Dizhu agent: a small supervised network that scores every legal move.

Why: the deal-selection paper's players were policy networks trained on game logs; this is
ours, trained by imitation on recorded games (``python -m paiju.doudizhu.train_policy``).
Design (DouZero-like, cheap on CPU): a decision is encoded once by
:mod:`paiju.doudizhu.encoding` (what the player sees + one compact row per legal move);
:class:`PolicyNet` scores each *(observation, move)* pair with an MLP and the agent plays the
highest score (or samples ``softmax(score / temperature)`` with its seeded generator).
Training minimises the cross-entropy of that softmax over the legal moves against the move
the teacher played.

Checkpoints are ``torch.save`` dictionaries (:func:`save_checkpoint`) holding the
architecture, the encoding version and the weights; the shipped ones live in
``paiju/doudizhu/models`` and are read through :mod:`importlib.resources` (never
downloaded). A checkpoint that cannot be read, or does not match this code (format, encoding
version, architecture, tensor shapes), raises :class:`~paiju.core.errors.CorruptRecordError`
naming the file and the problem.

Bidding (games with bidding) uses the rule agent's hand-strength bid
(:func:`paiju.doudizhu.agents.rule.bid_for`); the network plays the cards.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO, Final

import numpy as np
import torch
from torch import nn

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import Action
from paiju.core.rng import SeedLike, as_generator
from paiju.doudizhu.agents import POLICY_DEFAULTS
from paiju.doudizhu.cards import MAX_COUNT, NUM_RANKS
from paiju.doudizhu.encoding import (
    CARD_BITS,
    ENCODING_VERSION,
    MAX_HAND,
    MAX_PLAYS_FEATURE,
    NUM_TYPES,
    STATE_SIZE,
    Decision,
    encode_decision,
)
from paiju.doudizhu.game import are_moves

CHECKPOINT_FORMAT: Final = "paiju.doudizhu.policy"
SHIPPED: Final = ("small", "large")
"""Names of the shipped checkpoints (``policy:model=small``); files ``ddz-policy-<name>.pt``."""
MAX_LENGTH: Final = 12
"""Longest chain body (a solo chain 3..A)."""

_RANK_OF_BIT: Final = [r for r in range(NUM_RANKS) for _ in range(MAX_COUNT[r])]
_K_OF_BIT: Final = [k for r in range(NUM_RANKS) for k in range(1, MAX_COUNT[r] + 1)]
MOVE_FEATURES: Final = (
    CARD_BITS + NUM_TYPES + NUM_RANKS + MAX_LENGTH + 1 + CARD_BITS + MAX_HAND + 1 + MAX_PLAYS_FEATURE + 1
)
"""Per-move input width: its cards, type, rank, length, the hand after it (cards, size, plays)."""
HAND_FEATURES: Final = CARD_BITS


@dataclass(frozen=True)
class Arch:
    """The network's shape (stored in every checkpoint)."""

    hidden: int = 128
    layers: int = 2
    """Hidden layers (>= 1), each ``hidden`` wide."""

    def __post_init__(self) -> None:
        if not (isinstance(self.hidden, int) and 1 <= self.hidden <= 4096):
            raise ConfigError(f"hidden width must be an integer in 1..4096, got {self.hidden!r}")
        if not (isinstance(self.layers, int) and 1 <= self.layers <= 8):
            raise ConfigError(f"layers must be an integer in 1..8, got {self.layers!r}")


class PolicyNet(nn.Module):
    """Scores (observation, move) pairs; a softmax over a decision's moves is the policy.

    The first layer is split in a state part (computed once per decision) and a move part
    (once per candidate), which equals one linear layer over the concatenation but costs far
    less when a decision has hundreds of candidates.
    """

    rank_of_bit: torch.Tensor
    k_of_bit: torch.Tensor

    def __init__(self, arch: Arch) -> None:
        super().__init__()
        self.arch = arch
        h = arch.hidden
        self.state_in = nn.Linear(STATE_SIZE + HAND_FEATURES, h)
        self.move_in = nn.Linear(MOVE_FEATURES, h, bias=False)
        body: list[nn.Module] = []
        for _ in range(arch.layers - 1):
            body += [nn.Linear(h, h), nn.ReLU()]
        self.body = nn.Sequential(*body)
        self.out = nn.Linear(h, 1)
        # buffers, declared above for the type checker (nn.Module serves them from __getattr__)
        self.register_buffer("rank_of_bit", torch.tensor(_RANK_OF_BIT), persistent=False)
        self.register_buffer("k_of_bit", torch.tensor(_K_OF_BIT, dtype=torch.int16), persistent=False)

    def _bits(self, counts: torch.Tensor) -> torch.Tensor:
        """(N, 15) rank counts -> (N, 54) "at least k of rank r" floats."""
        return (counts.to(torch.int16)[:, self.rank_of_bit] >= self.k_of_bit).float()

    def forward(
        self,
        state: torch.Tensor,
        hand: torch.Tensor,
        moves: torch.Tensor,
        move_type: torch.Tensor,
        move_rank: torch.Tensor,
        move_length: torch.Tensor,
        plays_after: torch.Tensor,
        segment: torch.Tensor,
    ) -> torch.Tensor:
        """Logits, one per candidate row; ``segment[i]`` is the decision (row of ``state``)
        candidate ``i`` belongs to. Inputs are the integer arrays of :class:`Decision`."""
        s = self.state_in(torch.cat([state.float(), self._bits(hand)], dim=1))
        after = hand[segment].to(torch.int16) - moves.to(torch.int16)
        left = after.sum(dim=1).clamp(0, MAX_HAND).long()
        m = torch.cat(
            [
                self._bits(moves),
                nn.functional.one_hot(move_type.long(), NUM_TYPES).float(),
                nn.functional.one_hot(move_rank.long(), NUM_RANKS).float(),
                nn.functional.one_hot(move_length.long().clamp(0, MAX_LENGTH), MAX_LENGTH + 1).float(),
                self._bits(after),
                nn.functional.one_hot(left, MAX_HAND + 1).float(),
                nn.functional.one_hot(plays_after.long(), MAX_PLAYS_FEATURE + 1).float(),
            ],
            dim=1,
        )
        x = torch.relu(s[segment] + self.move_in(m))
        return self.out(self.body(x)).squeeze(1)


def decision_tensors(decisions: Sequence[Decision]) -> dict[str, torch.Tensor]:
    """Stack encoded decisions into the network's inputs (``segment`` links rows to decisions)."""
    sizes = [len(d.move_type) for d in decisions]
    return {
        "state": torch.from_numpy(np.stack([d.state for d in decisions])),
        "hand": torch.from_numpy(np.stack([d.hand for d in decisions])),
        "moves": torch.from_numpy(np.concatenate([d.moves for d in decisions])),
        "move_type": torch.from_numpy(np.concatenate([d.move_type for d in decisions])),
        "move_rank": torch.from_numpy(np.concatenate([d.move_rank for d in decisions])),
        "move_length": torch.from_numpy(np.concatenate([d.move_length for d in decisions])),
        "plays_after": torch.from_numpy(np.concatenate([d.plays_after for d in decisions])),
        "segment": torch.repeat_interleave(torch.arange(len(decisions)), torch.tensor(sizes)),
    }


def segment_log_softmax(logits: torch.Tensor, segment: torch.Tensor, n: int) -> torch.Tensor:
    """Log-softmax of ``logits`` within each segment (decision) ``0..n-1``."""
    top = torch.full((n,), -torch.inf, dtype=logits.dtype).scatter_reduce(
        0, segment, logits, reduce="amax", include_self=True
    )
    shifted = logits - top[segment]
    total = torch.zeros(n, dtype=logits.dtype).index_add(0, segment, shifted.exp())
    return shifted - total.log()[segment]


# ---- checkpoints ------------------------------------------------------------------------------
def save_checkpoint(
    path: str | os.PathLike[str] | BinaryIO, net: PolicyNet, meta: dict[str, Any] | None = None
) -> None:
    """Write ``net`` (weights, architecture, encoding version, optional ``meta``) to ``path``
    (a file name or a binary file object)."""
    payload = {
        "format": CHECKPOINT_FORMAT,
        "encoding_version": ENCODING_VERSION,
        "arch": {"hidden": net.arch.hidden, "layers": net.arch.layers},
        "state_dict": {k: v.detach().clone() for k, v in net.state_dict().items()},
        "meta": dict(meta or {}),
    }
    torch.save(payload, path if hasattr(path, "write") else Path(path))


def load_checkpoint(source: str | os.PathLike[str] | bytes, name: str | None = None) -> PolicyNet:
    """A :class:`PolicyNet` from a checkpoint file (or its bytes; ``name`` labels errors).

    Raises :class:`CorruptRecordError` naming the file and the problem for anything that is
    not a complete checkpoint of this format, encoding version and architecture.
    """
    label = name or str(source if not isinstance(source, bytes) else "<checkpoint bytes>")
    try:
        handle: Any = io.BytesIO(source) if isinstance(source, bytes) else Path(source)
        payload = torch.load(handle, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise CorruptRecordError(f"{label}: no such checkpoint file") from None
    except IsADirectoryError:
        raise CorruptRecordError(f"{label}: is a directory, not a checkpoint file") from None
    except Exception as err:  # torch raises many types for a foreign file (a text file: KeyError)
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        first = f"{type(err).__name__} {first}" if isinstance(err, KeyError) else first
        raise CorruptRecordError(f"{label}: not a readable PyTorch checkpoint ({first})") from None
    if not isinstance(payload, dict):
        raise CorruptRecordError(f"{label}: checkpoint holds a {type(payload).__name__}, not a dictionary")
    if payload.get("format") != CHECKPOINT_FORMAT:
        raise CorruptRecordError(
            f"{label}: not a Dou Dizhu policy checkpoint (format {payload.get('format')!r}, "
            f"expected {CHECKPOINT_FORMAT!r})"
        )
    if payload.get("encoding_version") != ENCODING_VERSION:
        raise CorruptRecordError(
            f"{label}: trained on encoding version {payload.get('encoding_version')!r}, this code "
            f"encodes version {ENCODING_VERSION}; retrain it with python -m paiju.doudizhu.train_policy"
        )
    arch_raw = payload.get("arch")
    if not isinstance(arch_raw, dict) or set(arch_raw) != {"hidden", "layers"}:
        raise CorruptRecordError(f"{label}: bad architecture entry {arch_raw!r} (want hidden, layers)")
    try:
        arch = Arch(**arch_raw)
    except ConfigError as err:
        raise CorruptRecordError(f"{label}: bad architecture: {err}") from None
    net = PolicyNet(arch)
    weights = payload.get("state_dict")
    if not isinstance(weights, dict):
        raise CorruptRecordError(f"{label}: no 'state_dict' of weights")
    try:
        net.load_state_dict(weights, strict=True)
    except RuntimeError as err:
        detail = " ".join(str(err).split())
        raise CorruptRecordError(
            f"{label}: weights do not match the architecture {arch_raw}: {detail}"
        ) from None
    for key, tensor in weights.items():
        if not torch.isfinite(tensor).all():
            raise CorruptRecordError(f"{label}: weight {key!r} holds NaN or infinite values")
    net.eval()
    return net


def shipped_checkpoint_bytes(model: str) -> tuple[bytes, str]:
    """The bytes of a shipped checkpoint (package data) and its resource name."""
    if model not in SHIPPED:
        raise ConfigError(
            f"unknown policy model {model!r}: use one of {', '.join(SHIPPED)} or a path to a .pt checkpoint"
        )
    resource = resources.files("paiju.doudizhu.models").joinpath(f"ddz-policy-{model}.pt")
    label = f"paiju/doudizhu/models/ddz-policy-{model}.pt"
    try:
        return resource.read_bytes(), label
    except FileNotFoundError:
        raise CorruptRecordError(f"{label}: shipped checkpoint is missing from the package") from None


_NETS: dict[tuple[str, float], PolicyNet] = {}


def load_model(model: str) -> PolicyNet:
    """A shipped model by name (``small``/``large``) or a checkpoint path; cached per process.

    Arena matches build a fresh agent for every game, so the network is read once and shared
    (it is never trained through the agent, so sharing is safe).
    """
    if model in SHIPPED:
        key = (model, 0.0)
        if key not in _NETS:
            data, label = shipped_checkpoint_bytes(model)
            _NETS[key] = load_checkpoint(data, name=label)
        return _NETS[key]
    try:
        path = Path(model).expanduser()
    except RuntimeError:  # "~name/..." for a user this system does not have
        raise ConfigError(f"policy model {model!r}: no home folder for {model.split('/')[0]!r}") from None
    if not path.suffix and not path.exists():
        raise ConfigError(
            f"unknown policy model {model!r}: use one of {', '.join(SHIPPED)} or a path to a .pt checkpoint"
        )
    try:
        stamp = path.stat().st_mtime
    except OSError:
        raise CorruptRecordError(f"{path}: no such checkpoint file") from None
    key = (str(path.resolve()), stamp)
    if key not in _NETS:
        _NETS[key] = load_checkpoint(path)
    return _NETS[key]


# ---- the agent --------------------------------------------------------------------------------
class PolicyAgent:
    """Plays the move the network scores highest (``temperature > 0``: samples instead)."""

    def __init__(
        self, net: PolicyNet, seed: SeedLike = None, temperature: float = 0.0, name: str = "policy"
    ) -> None:
        if not temperature >= 0.0:
            raise ConfigError(f"policy temperature must be >= 0, got {temperature!r}")
        self.name = name
        self.net = net
        self.temperature = float(temperature)
        self._rng = as_generator(seed)

    def scores(self, observation: Any, legal_actions: Sequence[Action]) -> np.ndarray:
        """The network's score of every legal move (play phase), in the given order."""
        if not are_moves(legal_actions):
            raise ValueError(f"policy agent: it scores moves of the play phase, not {legal_actions[0]!r}")
        inputs = decision_tensors([encode_decision(observation, legal_actions)])
        with torch.inference_mode():
            return self.net(**inputs).numpy().astype(np.float64)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("policy agent asked to act with no legal actions")
        if observation.phase == "bidding":
            from paiju.doudizhu.agents.rule import bid_for

            return bid_for(observation.hand, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        scores = self.scores(observation, legal_actions)
        if self.temperature == 0.0:
            return legal_actions[int(np.argmax(scores))]
        z = (scores - scores.max()) / self.temperature
        p = np.exp(z)
        p /= p.sum()
        return legal_actions[int(self._rng.choice(len(p), p=p))]


def make_policy_agent(
    seed: SeedLike = None,
    model: str = POLICY_DEFAULTS["model"],
    temperature: float = POLICY_DEFAULTS["temperature"],
    threads: int = POLICY_DEFAULTS["threads"],
) -> PolicyAgent:
    """Registry factory: ``policy:model=small|large|PATH,temperature=T,threads=N``.

    ``threads`` sets torch's intra-op threads for this process (1 by default: the network is
    tiny and extra threads only add overhead when games run in parallel processes; 0 leaves
    torch's setting alone).
    """
    if threads < 0:
        raise ConfigError(f"policy threads must be >= 0, got {threads}")
    if threads:
        torch.set_num_threads(threads)
    return PolicyAgent(load_model(model), seed=seed, temperature=temperature, name="policy")


__all__ = [
    "SHIPPED",
    "Arch",
    "PolicyAgent",
    "PolicyNet",
    "decision_tensors",
    "load_checkpoint",
    "load_model",
    "make_policy_agent",
    "save_checkpoint",
    "segment_log_softmax",
]
