"""Agent specifications (``"search:budget=200"``) and per-game agent registries.

The CLI and the arena name agents by strings; a registry validates the name and every
parameter (known key, right type) and builds a seeded agent. Errors are
:class:`ConfigError` naming the spec, the bad part and what is allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paiju.core.errors import ConfigError
from paiju.core.protocol import Action, Agent
from paiju.core.rng import SeedLike, as_generator


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent specification: a name and its parameters (as typed values)."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))


def parse_agent_spec(text: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:k=v,k2=v2"`` into the name and raw string parameters."""
    text = text.strip()
    if not text:
        raise ConfigError("empty agent specification")
    name, _, rest = text.partition(":")
    raw: dict[str, str] = {}
    if rest:
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            if not eq or not key.strip() or not value.strip():
                raise ConfigError(f"agent spec {text!r}: parameter {part!r} is not key=value")
            if key.strip() in raw:
                raise ConfigError(f"agent spec {text!r}: parameter {key.strip()!r} given twice")
            raw[key.strip()] = value.strip()
    return name.strip(), raw


def _convert(spec: str, key: str, value: str, default: Any) -> Any:
    kind = type(default)
    try:
        if kind is bool:
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if kind is int:
            return int(value)
        if kind is float:
            return float(value)
        return value
    except ValueError:
        raise ConfigError(
            f"agent spec {spec!r}: parameter {key}={value!r} is not a valid {kind.__name__}"
        ) from None


@dataclass
class AgentRegistry:
    """Named agent factories of one game, each with its parameters and their defaults."""

    game_name: str
    _factories: dict[str, tuple[Callable[..., Agent], dict[str, Any], str]] = field(default_factory=dict)

    def register(
        self, name: str, factory: Callable[..., Agent], defaults: dict[str, Any] | None = None, doc: str = ""
    ) -> None:
        """``factory(seed=..., **params)`` builds the agent; ``defaults`` fixes keys and types."""
        self._factories[name] = (factory, dict(defaults or {}), doc)

    def names(self) -> list[str]:
        return sorted(self._factories)

    def describe(self) -> dict[str, tuple[dict[str, Any], str]]:
        return {n: (d, doc) for n, (_, d, doc) in sorted(self._factories.items())}

    def resolve(self, text: str) -> AgentSpec:
        """Validate a spec string into an :class:`AgentSpec` with typed parameters."""
        name, raw = parse_agent_spec(text)
        if name not in self._factories:
            raise ConfigError(
                f"unknown {self.game_name} agent {name!r} in {text!r}; available: {', '.join(self.names())}"
            )
        _, defaults, _ = self._factories[name]
        params: dict[str, Any] = {}
        for key, value in raw.items():
            if key not in defaults:
                allowed = ", ".join(sorted(defaults)) or "none"
                raise ConfigError(f"agent spec {text!r}: unknown parameter {key!r} (allowed: {allowed})")
            params[key] = _convert(text, key, value, defaults[key])
        return AgentSpec(name, params)

    def make(self, text: str | AgentSpec, seed: SeedLike = None) -> Agent:
        """Build a seeded agent from a spec string (validated) or a resolved spec."""
        spec = self.resolve(text) if isinstance(text, str) else text
        factory, defaults, _ = self._factories[spec.name]
        agent = factory(seed=seed, **{**defaults, **spec.params})
        return agent


class UniformRandomAgent:
    """Picks uniformly among the legal actions with its own seeded generator."""

    def __init__(self, seed: SeedLike = None, name: str = "random") -> None:
        self.name = name
        self._rng = as_generator(seed)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("random agent asked to act with no legal actions")
        return legal_actions[int(self._rng.integers(len(legal_actions)))]


def random_agents(n: int, seed: int) -> list[UniformRandomAgent]:
    """``n`` independent uniform random agents seeded from ``seed``."""
    seeds = np.random.SeedSequence(seed).spawn(n)
    return [UniformRandomAgent(np.random.default_rng(s)) for s in seeds]
