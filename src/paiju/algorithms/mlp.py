"""A small PyTorch MLP whose output starts at zero, for networks that learn a residual.

A network that learns a correction on top of an analytic or fitted model (the mahjong table
reader on the fitted defence models, the distilled search's value head on the search's own
leaf) should play exactly as that model before any training: its last layer starts at zero,
so the correction does too (tests check an untrained network against the model it corrects).
"""

from __future__ import annotations

from collections.abc import Sequence

from torch import nn


def zero_output_mlp(width: int, hidden: Sequence[int]) -> nn.Sequential:
    """Linear + ReLU layers of ``hidden`` widths from ``width`` inputs, then one output that
    starts at zero (its weights and bias are zero)."""
    layers: list[nn.Module] = []
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    last = nn.Linear(width, 1)
    nn.init.zeros_(last.weight)
    nn.init.zeros_(last.bias)
    return nn.Sequential(*layers, last)
