"""Value targets: what the value head learns to predict at a position (issue 46 item 2).

One game's outcome is a thin, noisy signal for each of its positions, and a network fitted
to a few thousand outcomes learns those games rather than the game
(``docs/results/alphazero.md``). A target can instead say what a search or random play
found at the position itself:

* ``outcome``: the game's final returns (AlphaZero's target, the default);
* ``root``: the search's root value at the position (its moves' mean returns weighted by
  their visits);
* ``rollouts``: the mean return of the random rollouts played from the position (recorded
  only when asked for: the teacher data's and self-play's ``rollouts``);
* ``mix:λ``: ``λ x`` the outcome ``+ (1 - λ) x`` the root value.

All are the returns of every seat rotated to the encoded seat, as the value head outputs
them. A sample without the value a target reads (no search at the position, or no
rollouts played) keeps its outcome. ``benchmarks/az_value_fit.py --teacher-data`` compares
the targets on held-out games (``docs/results/az-targets.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from paiju.core.errors import ConfigError

if TYPE_CHECKING:
    from paiju.algorithms.alphazero.selfplay import SampleArrays

VALUE_TARGETS = ("outcome", "root", "rollouts", "mix:λ")
"""The value targets by name (``λ`` a number in [0, 1])."""
SOURCES = ("root", "rollouts")
"""What a target may mix with the outcome: a sample's ``root_values`` or ``rollout_values``."""


@dataclass(frozen=True)
class ValueTarget:
    """``outcome x`` the final returns ``+ weight x`` the sample's ``source`` values."""

    outcome: float
    weight: float
    source: str = "root"

    @classmethod
    def parse(cls, text: str) -> ValueTarget:
        """A target by name: ``outcome``, ``root``, ``rollouts`` or ``mix:λ``.

        Raises:
            ConfigError: another name, or a ``λ`` outside [0, 1].
        """
        name, colon, rest = text.strip().partition(":")
        if not colon and name == "outcome":
            return cls(1.0, 0.0)
        if not colon and name in SOURCES:
            return cls(0.0, 1.0, name)
        if colon and name == "mix":
            try:
                share = float(rest)
            except ValueError:
                share = float("nan")
            if 0.0 <= share <= 1.0:
                return cls(share, 1.0 - share)
        names = f"{', '.join(VALUE_TARGETS[:-1])} or {VALUE_TARGETS[-1]}"
        raise ConfigError(
            f"value target {text!r}: use {names} with λ in [0, 1] "
            "(λ x the outcome + (1 - λ) x the root value)"
        )

    @classmethod
    def root_weight(cls, weight: float) -> ValueTarget:
        """``(1 - weight) x`` the outcome ``+ weight x`` the root value: what the trainer's
        ``root_value_weight`` (the option the runs before named targets used) asks for."""
        return cls(1 - weight, weight)

    def __str__(self) -> str:
        if not self.weight:
            return "outcome"
        if not self.outcome:
            return self.source
        return f"mix:{self.outcome:g}" if self.source == "root" else f"{self!r}"

    @property
    def reads(self) -> str | None:
        """The sample values the target reads beside the outcome (None: the outcome alone)."""
        return self.source if self.weight else None


def value_targets(samples: SampleArrays, target: ValueTarget | float) -> SampleArrays:
    """``samples`` with their ``values`` replaced by ``target``'s (see the module's text); a
    number is a root-value weight (:meth:`ValueTarget.root_weight`). Unchanged for the
    outcome, and sample by sample where the value the target reads is missing."""
    if not isinstance(target, ValueTarget):
        target = ValueTarget.root_weight(float(target))
    if not target.weight:
        return samples
    other = samples.root_values if target.source == "root" else samples.rollout_values
    has = np.isfinite(other)
    mixed = np.where(has, target.outcome * samples.values + target.weight * other,
                     samples.values).astype(np.float32)
    return replace(samples, values=mixed)


__all__ = ["SOURCES", "VALUE_TARGETS", "ValueTarget", "value_targets"]
