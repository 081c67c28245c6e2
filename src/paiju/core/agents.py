"""Agent specifications (``"search:budget=200"``) and per-game agent registries.

The CLI, the web app and the arena name agents by strings; a registry validates the name
and every parameter (known key, right type, inside its range or among its choices) and builds
a seeded agent. Errors are :class:`ConfigError` naming the spec, the bad part and what is
allowed.

Every numeric parameter is registered with a range. The maximum of a parameter that scales
the cost of a decision (rollout budgets, simulations, search widths and depths, seconds) is
the documented cost limit of that agent wherever a spec enters paiju (``paiju ... --help``
and the web app's ``/api/agents`` list them); a registration without a range for a numeric
parameter is refused, so no agent can be added with an unbounded one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
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


Bounds = tuple[float, float]
"""Inclusive ``(minimum, maximum)`` of a numeric agent parameter."""


def _format_number(x: float) -> str:
    # whole numbers without ".0", but 1e308 as itself, not its 309 digits
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else repr(x)


def parameter_text(p: dict[str, Any]) -> str:
    """``name=default [min..max]`` or ``name=default (a|b)``: a parameter of
    :meth:`AgentRegistry.catalogue` as the help and ``paiju agents`` write it."""
    if "min" in p:
        return f"{p['name']}={p['default']} [{p['min']}..{p['max']}]"
    if "choices" in p:
        return f"{p['name']}={p['default']} ({'|'.join(p['choices'])})"
    return f"{p['name']}={p['default']}"


_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _convert(spec: str, key: str, value: str, default: Any) -> Any:
    kind = type(default)
    try:
        if kind is bool:
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        # plain ASCII decimals only: Python's int() and float() also take "1_0" and other
        # scripts' digits ("٣"), which no one means in a spec
        if kind is int:
            if not _INT.fullmatch(value):
                raise ValueError(value)
            return int(value)
        if kind is float:
            if not _FLOAT.fullmatch(value):
                raise ValueError(value)
            number = float(value)
            if number != number or number in (float("inf"), float("-inf")):
                raise ValueError(value)
            return number
        return value
    except ValueError:
        raise ConfigError(
            f"agent spec {spec!r}: parameter {key}={value!r} is not a valid {kind.__name__}"
        ) from None


def keyword_defaults(factory: Callable[..., Any], *names: str) -> dict[str, Any]:
    """The defaults of ``factory``'s parameters ``names``, in that order.

    A registry passes this as an agent's documented defaults, so they are the agent class's own
    signature rather than a copy of it (``docs/design.md``, "One source per fact"). Raises
    ``ValueError`` for a name the signature lacks or gives no default.
    """
    import inspect  # only registries of already-imported agent classes need it

    params = inspect.signature(factory).parameters
    missing = [n for n in names if n not in params or params[n].default is inspect.Parameter.empty]
    if missing:
        raise ValueError(f"{factory.__qualname__} has no default for the parameters {missing}")
    return {n: params[n].default for n in names}


@dataclass
class AgentRegistry:
    """Named agent factories of one game, each with its parameters and their defaults."""

    game_name: str
    _factories: dict[str, tuple[Callable[..., Agent], dict[str, Any], str]] = field(default_factory=dict)
    _limits: dict[str, dict[str, Bounds]] = field(default_factory=dict)
    _choices: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    _process_wide: dict[str, dict[str, str]] = field(default_factory=dict)
    _file_params: dict[str, frozenset[str]] = field(default_factory=dict)
    _revisions: dict[str, int] = field(default_factory=dict)
    _superseded: dict[str, str] = field(default_factory=dict)
    _removed: dict[str, dict[str, str]] = field(default_factory=dict)
    _earlier: dict[str, str] = field(default_factory=dict)

    def register(
        self,
        name: str,
        factory: Callable[..., Agent],
        defaults: dict[str, Any] | None = None,
        doc: str = "",
        *,
        limits: dict[str, Bounds] | None = None,
        choices: dict[str, tuple[str, ...]] | None = None,
        process_wide: dict[str, str] | None = None,
        file_params: tuple[str, ...] = (),
        revision: int = 1,
        superseded_by: str | None = None,
        removed: dict[str, str] | None = None,
        was: str | None = None,
    ) -> None:
        """``factory(seed=..., **params)`` builds the agent; ``defaults`` fixes keys and types.

        ``limits`` gives the inclusive range of every numeric (int or float) parameter and is
        required for each of them; ``choices`` optionally closes a string parameter to a set.
        ``process_wide`` names the parameters that change the whole process, not only this
        agent (with what they change), and ``file_params`` those whose value may be a file to
        load: a shared host refuses both from its clients (:meth:`check_shared`).

        Names (``docs/design.md``, "One name per idea"): a name is one algorithm whose
        parameters all apply. When a name comes to mean another agent, its ``revision`` goes
        up (an arena run recorded under the old meaning is then not resumed under the new
        one) and the old agent stays registered under a versioned name with
        ``superseded_by`` saying what replaces it, so old command lines still build it.
        ``removed`` maps a parameter the name no longer takes to what to write instead, and
        ``was`` names the agent whose first meaning this versioned one keeps, so a spec
        recorded before the change resolves to it (:meth:`recorded`).
        """
        defaults = dict(defaults or {})
        limits = dict(limits or {})
        for key, value in defaults.items():
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            if numeric and key not in limits:
                raise ValueError(f"{self.game_name} agent {name!r}: numeric parameter {key!r} has no range")
            if numeric and not limits[key][0] <= value <= limits[key][1]:
                raise ValueError(f"{self.game_name} agent {name!r}: default {key}={value} outside its range")
        declared = set(limits) | set(choices or {}) | set(process_wide or {}) | set(file_params)
        unknown = declared - set(defaults)
        if unknown:
            raise ValueError(
                f"{self.game_name} agent {name!r}: limits for unknown parameters {sorted(unknown)}"
            )
        self._factories[name] = (factory, defaults, doc)
        self._limits[name] = limits
        self._choices[name] = dict(choices or {})
        self._process_wide[name] = dict(process_wide or {})
        self._file_params[name] = frozenset(file_params)
        self._revisions[name] = revision
        if superseded_by is not None:
            self._superseded[name] = superseded_by
        self._removed[name] = dict(removed or {})
        if was is not None:
            self._earlier[was] = name

    def check_shared(self, spec: AgentSpec, text: str) -> None:
        """Refuse what a client of a shared host (the web app) may not set in spec ``text``: a
        process-wide parameter, or a file path where a file parameter takes a shipped name."""
        for key, value in spec.params.items():
            why = self._process_wide[spec.name].get(key)
            if why is not None:
                raise ConfigError(f"agent spec {text!r}: {key} is the server's setting (it {why})")
            if key in self._file_params[spec.name]:
                name = str(value)
                if Path(name).name != name or name.endswith(".pt"):
                    raise ConfigError(
                        f"agent spec {text!r}: {key}={name!r}: file paths are refused; name a shipped {key}"
                    )

    def limits(self, name: str) -> dict[str, Bounds]:
        """The inclusive range of each numeric parameter of agent ``name``."""
        return dict(self._limits[name])

    def choices(self, name: str) -> dict[str, tuple[str, ...]]:
        """The allowed values of each closed string parameter of agent ``name``."""
        return dict(self._choices[name])

    def recorded(self, text: str) -> AgentSpec:
        """Resolve a spec written before any name changed meaning (data, models and records
        that do not say which names they used): a name whose first meaning is now kept under
        a versioned name resolves to that one (``expectimax`` -> ``expectimax-v1``)."""
        name, _ = parse_agent_spec(text)
        earlier = self._earlier.get(name)
        if earlier is None:
            return self.resolve(text)
        _, sep, rest = text.strip().partition(":")
        return self.resolve(earlier + sep + rest)

    def revision(self, name: str) -> int:
        """How many meanings agent ``name`` has had (1: the first)."""
        return self._revisions[name]

    def catalogue(self) -> list[dict[str, Any]]:
        """Every agent (``paiju agents``): its name, what it does, and each parameter's default
        with its range (``min``, ``max``) or its choices; a superseded agent says what
        replaces it (``superseded_by``)."""
        out = []
        for agent in self.names():
            _, defaults, doc = self._factories[agent]
            params: list[dict[str, Any]] = []
            for key, value in defaults.items():
                p: dict[str, Any] = {"name": key, "default": value}
                if key in self._limits[agent]:
                    lo, hi = self._limits[agent][key]
                    p |= {"min": _format_number(lo), "max": _format_number(hi)}
                elif key in self._choices[agent]:
                    p["choices"] = list(self._choices[agent][key])
                params.append(p)
            entry: dict[str, Any] = {"name": agent, "description": doc, "parameters": params}
            if agent in self._superseded:
                entry["superseded_by"] = self._superseded[agent]
            out.append(entry)
        return out

    def help_text(self) -> str:
        """One line per agent: its parameters with their defaults and ranges."""
        lines = []
        for entry in self.catalogue():
            parts = [parameter_text(p) for p in entry["parameters"]]
            lines.append(entry["name"] + (": " + ", ".join(parts) if parts else ""))
        return "; ".join(lines)

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
                instead = self._removed[name].get(key)
                if instead is not None:
                    raise ConfigError(f"agent spec {text!r}: {name} no longer takes {key}: {instead}")
                allowed = ", ".join(sorted(defaults)) or "none"
                raise ConfigError(f"agent spec {text!r}: unknown parameter {key!r} (allowed: {allowed})")
            params[key] = self._check(text, name, key, _convert(text, key, value, defaults[key]))
        return AgentSpec(name, params)

    def _check(self, text: str, name: str, key: str, value: Any) -> Any:
        bounds = self._limits[name].get(key)
        if bounds is not None and not bounds[0] <= value <= bounds[1]:
            lo, hi = (_format_number(b) for b in bounds)
            side = f"above the maximum {hi}" if value > bounds[1] else f"below the minimum {lo}"
            raise ConfigError(
                f"agent spec {text!r}: {key}={_format_number(value)} is {side} (allowed {lo}..{hi})"
            )
        allowed = self._choices[name].get(key)
        if allowed is not None and value not in allowed:
            raise ConfigError(f"agent spec {text!r}: {key}={value!r} is not one of {', '.join(allowed)}")
        return value

    def make(self, text: str | AgentSpec, seed: SeedLike = None) -> Agent:
        """Build a seeded agent from a spec string (validated) or a resolved spec."""
        spec = self.resolve(text) if isinstance(text, str) else text
        if spec.name not in self._factories:
            raise ConfigError(
                f"unknown {self.game_name} agent {spec.name!r}; available: {', '.join(self.names())}"
            )
        factory, defaults, _ = self._factories[spec.name]
        for key, value in spec.params.items():
            if key in defaults:
                self._check(str(spec), spec.name, key, value)
        agent = factory(seed=seed, **{**defaults, **spec.params})
        return agent


def check_can_play(agents: Iterable[Any], game: Any) -> None:
    """Ask each agent that can play only some games whether it can play ``game``: an agent
    with a ``check_game(game)`` method (yuxi's ``az``: one model per board) raises ConfigError
    naming what it lacks. Called before the first move, so a game is never cut off by it."""
    for agent in agents:
        check = getattr(agent, "check_game", None)
        if check is not None:
            check(game)


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
