"""Q-networks over a fixed action set: a residual CNN on planes, or an MLP on a vector.

Game-agnostic (it imports no game): the game gives the input shape and the number of
actions (mahjong: the 19×19 feature planes or the flat features, 34 discard kinds). Both
kinds are a *trunk* (features -> hidden vector) and a linear *head* (hidden -> one value per
action), so the same trunk serves a Q-network (values, trained on TD targets) and a
supervised model (logits, trained with cross-entropy on a teacher's moves).

ResNet layout (``kind="resnet"``): a 3×3 stem convolution to ``channels``, ``blocks``
residual blocks of two 3×3 convolutions (optional batch norm), a 1×1 convolution to
``head_channels``, then the linear head over the flattened cells; ``2 * blocks + 2`` weight
layers in all (the 1×1 reduction counted with the head), so :meth:`QNetConfig.paper`
(9 blocks of 64 channels) has the paper's 20. For the supervised baselines: ``cnn`` is the
same layout with plain blocks (no skip connections) and ``densenet`` a stem, ``blocks`` dense
3×3 layers adding ``growth`` channels each, and the 1×1 reduction.
Illegal actions are masked by the caller's boolean mask (:func:`masked_argmax`,
:func:`masked_max`): a masked action is never picked, whatever its value.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import nn

from paiju.core.errors import ConfigError

KINDS = ("resnet", "mlp", "cnn", "densenet")
PLANE_KINDS = ("resnet", "cnn", "densenet")
"""The kinds that take planes ``(C, H, W)``; ``mlp`` takes a vector."""


@dataclass(frozen=True)
class QNetConfig:
    """Shape of a :class:`QNetwork`.

    Attributes:
        input_shape: ``(C, H, W)`` for ``resnet`` / ``cnn`` / ``densenet``, ``(features,)`` for ``mlp``.
        num_actions: outputs, one per action.
        kind: ``resnet`` (convolutional, residual), ``cnn`` (the same layers without the skip
            connections), ``densenet`` (each 3×3 layer sees the concatenation of all earlier
            ones) or ``mlp``.
        channels: ResNet / CNN width; a DenseNet's stem width.
        blocks: residual blocks (two convolutions each); a CNN's pairs of plain convolutions;
            a DenseNet's dense layers.
        growth: channels each DenseNet layer adds.
        head_channels: 1×1 convolution channels before the linear head (keeps the head small).
        batch_norm: batch norm after each convolution (off by default: a Q-target network
            and single-position inference then need no batch statistics).
        hidden: MLP hidden widths; ``()`` is a linear model.
    """

    input_shape: tuple[int, ...]
    num_actions: int
    kind: str = "resnet"
    channels: int = 32
    blocks: int = 4
    head_channels: int = 4
    batch_norm: bool = False
    hidden: tuple[int, ...] = (256, 256)
    growth: int = 16

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"Q-network kind={self.kind!r}: must be one of {', '.join(KINDS)}")
        want = 3 if self.kind in PLANE_KINDS else 1
        if len(self.input_shape) != want or min(self.input_shape, default=0) < 1:
            raise ConfigError(
                f"Q-network input_shape={self.input_shape}: a {self.kind} takes {want} positive sizes"
            )
        for name in ("num_actions", "channels", "head_channels", "growth"):
            if getattr(self, name) < 1:
                raise ConfigError(f"Q-network {name}={getattr(self, name)} must be >= 1")
        if self.blocks < 0:
            raise ConfigError(f"Q-network blocks={self.blocks} must be >= 0")
        if any(h < 1 for h in self.hidden):
            raise ConfigError(f"Q-network hidden={self.hidden}: every width must be >= 1")

    @classmethod
    def paper(cls, input_shape: tuple[int, ...], num_actions: int) -> QNetConfig:
        """The paper's 20-layer ResNet (9 blocks of 64 channels)."""
        return cls(input_shape=input_shape, num_actions=num_actions, channels=64, blocks=9)

    @property
    def layers(self) -> int:
        """Weight layers: the stem, two per block and the head (its 1×1 reduction counted with it)."""
        if self.kind in ("resnet", "cnn"):
            return 2 * self.blocks + 2
        if self.kind == "densenet":
            return self.blocks + 2
        return len(self.hidden) + 1

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["input_shape"] = list(self.input_shape)
        d["hidden"] = list(self.hidden)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QNetConfig:
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"Q-network config: unknown field(s) {unknown}")
        fields = dict(data)
        fields["input_shape"] = tuple(int(x) for x in fields.get("input_shape", ()))
        if "hidden" in fields:
            fields["hidden"] = tuple(int(x) for x in fields["hidden"])
        return cls(**fields)


class ResidualBlock(nn.Module):
    """Two 3×3 convolutions and a skip connection."""

    def __init__(self, channels: int, batch_norm: bool) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=not batch_norm)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=not batch_norm)
        self.norm1: nn.Module = nn.BatchNorm2d(channels) if batch_norm else nn.Identity()
        self.norm2: nn.Module = nn.BatchNorm2d(channels) if batch_norm else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.norm1(self.conv1(x)))
        return torch.relu(x + self.norm2(self.conv2(y)))


class ResNetTrunk(nn.Module):
    """Planes ``(B, C, H, W)`` -> hidden vector ``(B, head_channels * H * W)``."""

    def __init__(self, config: QNetConfig) -> None:
        super().__init__()
        c, h, w = config.input_shape
        bn = config.batch_norm
        self.stem = nn.Sequential(
            nn.Conv2d(c, config.channels, 3, padding=1, bias=not bn),
            nn.BatchNorm2d(config.channels) if bn else nn.Identity(),
            nn.ReLU(),
        )
        self.blocks = nn.Sequential(*(ResidualBlock(config.channels, bn) for _ in range(config.blocks)))
        self.reduce = nn.Sequential(nn.Conv2d(config.channels, config.head_channels, 1), nn.ReLU())
        self.out_features = config.head_channels * h * w

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = self.reduce(self.blocks(self.stem(x)))
        return y.flatten(1)


class PlainBlock(nn.Module):
    """Two 3×3 convolutions, no skip connection (the plain CNN's block)."""

    def __init__(self, channels: int, batch_norm: bool) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Conv2d(channels, channels, 3, padding=1, bias=not batch_norm),
            nn.BatchNorm2d(channels) if batch_norm else nn.Identity(), nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1, bias=not batch_norm),
            nn.BatchNorm2d(channels) if batch_norm else nn.Identity(), nn.ReLU(),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = self.layers(x)
        return y


class ConvTrunk(ResNetTrunk):
    """The ResNet trunk with plain blocks: the paper's CNN baseline at the same depth."""

    def __init__(self, config: QNetConfig) -> None:
        super().__init__(config)
        bn = config.batch_norm
        self.blocks = nn.Sequential(*(PlainBlock(config.channels, bn) for _ in range(config.blocks)))


class DenseTrunk(nn.Module):
    """A DenseNet trunk: a 3×3 stem, ``blocks`` 3×3 layers each adding ``growth`` channels
    computed from all the channels before it, a 1×1 reduction; ``(B, head_channels * H * W)``."""

    def __init__(self, config: QNetConfig) -> None:
        super().__init__()
        c, h, w = config.input_shape
        bn = config.batch_norm
        self.stem = nn.Sequential(nn.Conv2d(c, config.channels, 3, padding=1), nn.ReLU())
        width = config.channels
        layers: list[nn.Module] = []
        for _ in range(config.blocks):
            layers.append(nn.Sequential(
                nn.BatchNorm2d(width) if bn else nn.Identity(),
                nn.Conv2d(width, config.growth, 3, padding=1), nn.ReLU(),
            ))
            width += config.growth
        self.layers = nn.ModuleList(layers)
        self.reduce = nn.Sequential(nn.Conv2d(width, config.head_channels, 1), nn.ReLU())
        self.out_features = config.head_channels * h * w

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.stem(x)
        for layer in self.layers:
            y = torch.cat([y, layer(y)], dim=1)
        out: torch.Tensor = self.reduce(y)
        return out.flatten(1)


class MLPTrunk(nn.Module):
    """Vector ``(B, F)`` -> hidden vector ``(B, hidden[-1])`` (the input itself when no layers)."""

    def __init__(self, config: QNetConfig) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = config.input_shape[0]
        for h in config.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.layers = nn.Sequential(*layers)
        self.out_features = width

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = self.layers(x.flatten(1))
        return y


def build_trunk(config: QNetConfig) -> ResNetTrunk | DenseTrunk | MLPTrunk:
    """The trunk of ``config`` (``out_features`` says its output width)."""
    if config.kind == "resnet":
        return ResNetTrunk(config)
    if config.kind == "cnn":
        return ConvTrunk(config)
    if config.kind == "densenet":
        return DenseTrunk(config)
    return MLPTrunk(config)


class QNetwork(nn.Module):
    """Trunk + linear head: ``(B, *input_shape)`` -> ``(B, num_actions)`` values (or logits)."""

    def __init__(self, config: QNetConfig) -> None:
        super().__init__()
        self.config = config
        self.trunk = build_trunk(config)
        self.head = nn.Linear(self.trunk.out_features, config.num_actions)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if tuple(x.shape[1:]) != self.config.input_shape:
            raise ValueError(f"Q-network input {tuple(x.shape)}: expected (B, {self.config.input_shape})")
        out: torch.Tensor = self.head(self.trunk(x))
        return out


def _check_mask(q: torch.Tensor, mask: torch.Tensor) -> None:
    if mask.shape != q.shape or mask.dtype != torch.bool:
        got = f"{mask.dtype} {tuple(mask.shape)}"
        raise ValueError(f"action mask must be bool of shape {tuple(q.shape)}, got {got}")
    if not bool(mask.any(dim=1).all()):
        raise ValueError("action mask: a row has no legal action")


def masked_values(q: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``q`` with illegal entries at -inf (every row must have a legal action)."""
    _check_mask(q, mask)
    return q.masked_fill(~mask, float("-inf"))


def masked_argmax(q: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per row the legal action of highest value (ties: the lowest index)."""
    return masked_values(q, mask).argmax(dim=1)


def masked_max(q: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per row the highest value over the legal actions."""
    return masked_values(q, mask).amax(dim=1)


def count_parameters(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())
