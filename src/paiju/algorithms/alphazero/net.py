"""The AlphaZero network: a CNN/ResNet trunk on board planes, an MLP on a vector, three heads.

Game-agnostic (it imports no game): the game supplies an encoder (:class:`Encoder`) that
turns a state into ``(planes, vector)`` and its legal moves into head indices. The policy is
the yuxi talk's two-step output, general enough for one-step games too:

* a *first* head over ``first_size`` choices (yuxi: the card id, 0 = end turn; connect four:
  the column);
* an optional *second* head over ``second_size`` choices (yuxi: the position), computed from
  the penultimate layer concatenated with the chosen first index (one-hot), so the position
  depends on the card. ``Linear([h; onehot(c)]) = W_h h + W_c[:, c]``, which is how it is
  computed: the position logits of every card come out of one batched product, shape
  ``(B, first_size, second_size)``;
* a *value* head: ``num_players`` values in [-1, 1], rotated so index 0 is the encoded
  (perspective) seat, index 1 the next seat, and so on. With ``value_skip`` the value's
  pre-activation also gets a linear term of each input plane's sum over the board and of the
  vector (a "wide and deep" value): a linear fit on exactly those inputs predicted yuxi's
  outcomes on unseen games better than the deep head alone (docs/results/alphazero.md).

A move is a pair ``(first, second)`` with ``second = -1`` when it has no second step; its
probability is ``P(first) * P(second | first)``, each softmax taken over the legal entries
only (masked logits), so the priors over the legal moves sum to 1 and an illegal move gets
exactly 0 (:func:`legal_priors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np
import torch
from torch import nn

from paiju.core.errors import ConfigError
from paiju.core.protocol import Action, State


class Encoder(Protocol):
    """What a game gives the AlphaZero code: its network input and its policy-head indices.

    Attributes:
        plane_shape: ``(C, H, W)`` of the board planes.
        vector_size: length of the vector input.
        first_size: choices of the first policy head.
        second_size: choices of the second head (0: a one-step policy).
    """

    plane_shape: tuple[int, int, int]
    vector_size: int
    first_size: int
    second_size: int

    def perspective(self, state: State) -> int:
        """The seat whose information state ``encode`` describes (value index 0)."""
        ...

    def encode(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """``(planes float32 plane_shape, vector float32 (vector_size,))`` from the
        perspective seat's observation only (never hidden cards)."""
        ...

    def policy_indices(self, state: State, legal: Sequence[Action]) -> list[tuple[int, int]] | None:
        """``(first, second)`` per legal move (``second = -1``: no second step), one distinct
        pair per move; None when no head covers this decision (it is then decided by the
        value head over its outcomes)."""
        ...


@dataclass(frozen=True)
class NetConfig:
    """Sizes of an :class:`AZNet` (the input and head sizes come from the encoder)."""

    plane_shape: tuple[int, int, int]
    vector_size: int
    first_size: int
    second_size: int
    num_players: int = 2
    channels: int = 32
    blocks: int = 2
    vector_hidden: int = 128
    hidden: int = 256
    second_hidden: int = 64
    value_hidden: int = 64
    value_skip: bool = False
    """Add the linear term of the plane sums and the vector to the value (module docstring)."""

    def __post_init__(self) -> None:
        for name in ("vector_size", "first_size", "num_players", "channels", "hidden"):
            if getattr(self, name) < 1:
                raise ConfigError(f"AlphaZero net: {name}={getattr(self, name)} must be >= 1")
        for name in ("second_size", "blocks"):
            if getattr(self, name) < 0:
                raise ConfigError(f"AlphaZero net: {name}={getattr(self, name)} must be >= 0")
        if len(self.plane_shape) != 3 or min(self.plane_shape) < 1:
            raise ConfigError(f"AlphaZero net: plane_shape={self.plane_shape} must be (C, H, W), all >= 1")

    @classmethod
    def for_encoder(cls, encoder: Encoder, num_players: int = 2, **sizes: Any) -> NetConfig:
        """A config whose inputs and heads match ``encoder``; ``sizes`` sets the layer widths."""
        c, h, w = encoder.plane_shape
        return cls(
            plane_shape=(int(c), int(h), int(w)),
            vector_size=encoder.vector_size,
            first_size=encoder.first_size,
            second_size=encoder.second_size,
            num_players=num_players,
            **sizes,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _ResBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


@dataclass
class NetOutput:
    """Raw outputs for a batch of ``B``: logits, unmasked, and values.

    Attributes:
        first: ``(B, first_size)`` logits of the first head.
        second: ``(B, first_size, second_size)`` logits of the second head given each first
            choice (None for a one-step policy).
        value: ``(B, num_players)`` in [-1, 1], index 0 = the perspective seat.
    """

    first: torch.Tensor
    second: torch.Tensor | None
    value: torch.Tensor


class AZNet(nn.Module):
    """Trunk (conv + residual blocks on the planes, MLP on the vector), concatenated, and the
    first / second / value heads of the module docstring."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        c_in, h, w = config.plane_shape
        ch = config.channels
        self.stem = nn.Sequential(
            nn.Conv2d(c_in, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU()
        )
        self.blocks = nn.Sequential(*(_ResBlock(ch) for _ in range(config.blocks)))
        self.vector_mlp = nn.Sequential(
            nn.Linear(config.vector_size, config.vector_hidden),
            nn.ReLU(),
            nn.Linear(config.vector_hidden, config.vector_hidden),
            nn.ReLU(),
        )
        self.penultimate = nn.Sequential(
            nn.Linear(ch * h * w + config.vector_hidden, config.hidden), nn.ReLU()
        )
        self.first_head = nn.Linear(config.hidden, config.first_size)
        self.second_hidden: nn.Linear | None = None
        self.second_choice: nn.Embedding | None = None
        self.second_out: nn.Linear | None = None
        if config.second_size:
            # Linear on [penultimate; onehot(first)] split into its two blocks of weights
            self.second_hidden = nn.Linear(config.hidden, config.second_hidden)
            self.second_choice = nn.Embedding(config.first_size, config.second_hidden)
            self.second_out = nn.Linear(config.second_hidden, config.second_size)
        # the tanh is applied in forward (it has no weights: the state dict's keys are as before)
        self.value_head = nn.Sequential(
            nn.Linear(config.hidden, config.value_hidden),
            nn.ReLU(),
            nn.Linear(config.value_hidden, config.num_players),
        )
        self.value_skip: nn.Linear | None = (
            nn.Linear(c_in + config.vector_size, config.num_players) if config.value_skip else None
        )

    def forward(self, planes: torch.Tensor, vector: torch.Tensor) -> NetOutput:
        x = self.blocks(self.stem(planes)).flatten(1)
        h = self.penultimate(torch.cat([x, self.vector_mlp(vector)], dim=1))
        second = None
        if self.second_hidden is not None and self.second_choice is not None and self.second_out is not None:
            # (B, 1, H2) + (1, F, H2): the hidden layer of the second head for every first choice
            z = torch.relu(self.second_hidden(h).unsqueeze(1) + self.second_choice.weight.unsqueeze(0))
            second = self.second_out(z)
        value = self.value_head(h)
        if self.value_skip is not None:
            value = value + self.value_skip(torch.cat([planes.sum(dim=(2, 3)), vector], dim=1))
        return NetOutput(first=self.first_head(h), second=second, value=torch.tanh(value))


def legal_priors(
    first_logits: np.ndarray, second_logits: np.ndarray | None, indices: Sequence[tuple[int, int]]
) -> np.ndarray:
    """Priors of the moves ``indices`` (one ``(first, second)`` pair each) for one position.

    The first head's softmax runs over the first choices that appear in ``indices`` (the legal
    mask), the second head's, for each such first choice, over the second choices paired
    with it; a move's prior is their product. The result sums to 1 over ``indices``.
    """
    if second_logits is None:
        # one-step policies (connect four, gomoku): a softmax over the legal entries. A search
        # prices every position it expands here, so the general path's grouping (about 40 us a
        # position) would cost more than the network's share of a small board's call
        heads = [f for f, _ in indices]
        if all(s < 0 for _, s in indices) and len(set(heads)) == len(heads):
            z = first_logits[heads].astype(np.float64)
            e = np.exp(z - z.max())
            return np.asarray(e / e.sum(), dtype=np.float64)
    pairs = np.asarray(indices, dtype=np.int64).reshape(-1, 2)
    firsts, seconds = pairs[:, 0], pairs[:, 1]
    legal_first, group = np.unique(firsts, return_inverse=True)
    z = first_logits[legal_first].astype(np.float64)
    p_first = np.exp(z - z.max())
    p_first /= p_first.sum()
    out = p_first[group]
    stepped = seconds >= 0
    if stepped.any():
        if second_logits is None:
            raise ValueError(f"policy indices have a second step but the net has no second head: {indices}")
        g = group[stepped]
        zs = second_logits[firsts[stepped], seconds[stepped]].astype(np.float64)
        top = np.full(len(legal_first), -np.inf)
        np.maximum.at(top, g, zs)
        e = np.exp(zs - top[g])
        out[stepped] *= e / np.bincount(g, weights=e, minlength=len(legal_first))[g]
    counts = np.bincount(group, minlength=len(legal_first))
    mixed = np.bincount(group, weights=stepped.astype(np.float64), minlength=len(legal_first))
    if ((mixed > 0) & ((mixed < counts) | (counts == 0))).any():
        raise ValueError(f"policy indices pair a first choice both with and without a second step: {indices}")
    return np.asarray(out, dtype=np.float64)


def count_parameters(net: nn.Module) -> int:
    return sum(int(p.numel()) for p in net.parameters())
