"""Mahjong agents by name: ``random``, ``greedy``, ``expectimax`` (the strongest search),
``expectimax-shanten`` (the paper's), ``dqn``, ``ddqn``, ``expectimax-dqn``, ``expectimax-ddqn``,
``expectimax-distill``, ``supervised:model=PATH``; ``expectimax-v1`` is the superseded spec.

``REGISTRY`` is what the CLI and the arena use (``paiju.core.registry`` points at it); each
factory takes the seed and the spec's parameters. The search parts the Double DQN plugs into
(:class:`OrderingFunction`, :class:`LeafValueEvaluator` and its :class:`LeafState`; the old
agent's per-chance-node :class:`LeafEvaluator`) are re-exported here.
"""

from __future__ import annotations

from typing import Any

from paiju.core.agents import AgentRegistry, UniformRandomAgent, keyword_defaults
from paiju.core.errors import ConfigError
from paiju.core.rng import SeedLike
from paiju.mahjong.agents._hand import danger, distance, draws_left
from paiju.mahjong.agents.expectimax import (
    ExpectimaxAgent,
    ExpectimaxSearch,
    LeafBatch,
    LeafEvaluator,
    OrderingFunction,
    SearchContext,
    SearchNode,
    ShantenOrdering,
    WinningSpeedEvaluator,
)
from paiju.mahjong.agents.greedy import GreedyAgent, rank_discards
from paiju.mahjong.agents.value import (
    DEAL_IN_TAI,
    RATE_MODES,
    READS,
    RON_MODES,
    RON_RATE,
    SAVED_LOSS,
    WAIT_SCALE,
    HandValueEvaluator,
    LeafState,
    LeafValueEvaluator,
    ValueExpectimaxAgent,
    ValueSearch,
)


def make_expectimax(
    seed: SeedLike = None,
    depth: int = 2,
    alpha: float = 0.6,
    claim_depth: int = 1,
    prune: str = "tiles",
    defence: bool = True,
    deal_in_tai: float = DEAL_IN_TAI,
    wait_scale: float = WAIT_SCALE,
    ron_rate: float = RON_RATE,
    reads: str = "fitted",
    saved_loss: float = SAVED_LOSS,
    ron: str = "classes",
    rates: str = "first",
) -> ValueExpectimaxAgent:
    """``expectimax``: the strongest search, the value Expectimax (:class:`ValueExpectimaxAgent`)
    with the ron model by winner classes (docs/mahjong-agents.md; it was
    ``expectimax:leaf=value,ron=classes`` before the names were settled)."""
    return ValueExpectimaxAgent(
        seed, depth=depth, alpha=alpha, claim_depth=claim_depth, prune=prune, defence=defence,
        deal_in_tai=deal_in_tai, wait_scale=wait_scale, ron_rate=ron_rate, reads=reads, saved_loss=saved_loss,
        ron=ron, rates=rates,
    )


def make_expectimax_v1(
    seed: SeedLike = None,
    depth: int = 2,
    alpha: float = 0.6,
    claim_depth: int = 1,
    leaf: str = "shanten",
    prune: str = "tiles",
    defence: bool = True,
    deal_in_tai: float = DEAL_IN_TAI,
    wait_scale: float = WAIT_SCALE,
    ron_rate: float = RON_RATE,
    reads: str = "fitted",
    saved_loss: float = SAVED_LOSS,
    ron: str = "flat",
    rates: str = "first",
) -> ExpectimaxAgent:
    """``expectimax-v1``: what ``expectimax`` meant until the names were settled, kept so that
    old command lines and records build the same agent. ``leaf=shanten`` (its default) is
    today's ``expectimax-shanten``, ``leaf=value`` today's ``expectimax`` with ``ron=flat``
    by default; ``prune`` and the rest belong to ``leaf=value``, and giving one with
    ``leaf=shanten`` is an error.
    """
    if leaf == "shanten":
        given = {
            name: value for name, value, default in (
                ("prune", prune, "tiles"), ("defence", defence, True),
                ("deal_in_tai", deal_in_tai, DEAL_IN_TAI), ("wait_scale", wait_scale, WAIT_SCALE),
                ("ron_rate", ron_rate, RON_RATE),
                ("reads", reads, "fitted"),
                ("saved_loss", saved_loss, SAVED_LOSS), ("ron", ron, "flat"), ("rates", rates, "first"),
            ) if value != default
        }
        if given:
            raise ConfigError(
                f"expectimax-v1: {', '.join(sorted(given))} "
                f"{'only applies' if len(given) == 1 else 'only apply'} to leaf=value "
                "(the default leaf is shanten)"
            )
        return ExpectimaxAgent(seed, depth=depth, alpha=alpha, claim_depth=claim_depth)
    return make_expectimax(
        seed, depth=depth, alpha=alpha, claim_depth=claim_depth, prune=prune, defence=defence,
        deal_in_tai=deal_in_tai, wait_scale=wait_scale, ron_rate=ron_rate, reads=reads, saved_loss=saved_loss,
        ron=ron, rates=rates,
    )


REGISTRY = AgentRegistry("mahjong")
AGENT_NAMES = 2
"""The revision of the mahjong agent names (``expectimax`` became the value search): data and
models written since say so; earlier ones are read through ``REGISTRY.recorded``."""
REGISTRY.register(
    "random",
    lambda seed=None: UniformRandomAgent(seed, name="random"),
    {},
    "uniform over the legal actions (claims and passes included)",
)
# The spec parameters are the classes' keyword parameters, passed through; their defaults are
# read from the classes' signatures (one source: the class).
REGISTRY.register(
    "greedy",
    GreedyAgent,
    keyword_defaults(GreedyAgent, "defence"),
    "lowest shanten, then most effective tiles; folds against a ready-looking opponent",
)
_VALUE_LIMITS = {
    "depth": (1, 3), "alpha": (0.01, 1.0), "claim_depth": (1, 3),
    "deal_in_tai": (0.0, 30.0), "wait_scale": (0.0, 0.5), "ron_rate": (0.0, 3.0),
    "saved_loss": (0.0, 20000.0),
}
_VALUE_CHOICES: dict[str, tuple[str, ...]] = {
    "prune": ("tiles", "kinds"), "reads": READS, "ron": RON_MODES, "rates": RATE_MODES,
}
REGISTRY.register(
    "expectimax",
    make_expectimax,
    keyword_defaults(
        make_expectimax, "depth", "alpha", "claim_depth", "prune", "defence",
        "deal_in_tai", "wait_scale", "ron_rate", "reads", "saved_loss", "ron", "rates",
    ),
    "the strongest search: Expectimax over own discards/draws, leaves valued as win probability x "
    "payment, discard wins, defence against the opponents' waits (reads), top ceil(alpha*tiles) "
    "discards; ron=classes: who deals in by the winner's class",
    limits=_VALUE_LIMITS,
    choices=_VALUE_CHOICES,
    revision=2,
    removed={"leaf": "expectimax is the value search (the old leaf=value, with ron=classes by default); "
             "leaf=shanten is expectimax-shanten; the old spec as it was: expectimax-v1:leaf=..."},
)
REGISTRY.register(
    "expectimax-shanten",
    ExpectimaxAgent,
    keyword_defaults(ExpectimaxAgent, "depth", "alpha", "claim_depth"),
    "the paper's Expectimax over own discards/draws: shanten-speed leaves (the probability of "
    "winning by the wall's end from the shanten), top ceil(alpha*kinds) discards",
    limits={"depth": (1, 3), "alpha": (0.01, 1.0), "claim_depth": (1, 3)},
)
REGISTRY.register(
    "expectimax-v1",
    make_expectimax_v1,
    keyword_defaults(
        make_expectimax_v1, "depth", "alpha", "claim_depth", "leaf", "prune", "defence",
        "deal_in_tai", "wait_scale", "ron_rate", "reads", "saved_loss", "ron", "rates",
    ),
    "expectimax until its name was settled: the shanten leaf by default, the value leaf "
    "on request",
    limits=_VALUE_LIMITS,
    choices={"leaf": ("value", "shanten"), **_VALUE_CHOICES},
    superseded_by="expectimax (leaf=value) and expectimax-shanten (leaf=shanten)",
    was="expectimax",
)


def _q_agent(name: str) -> Any:
    """Factory of a Q-network agent; torch is imported only when one is built."""

    def make(seed: SeedLike = None, **params: Any) -> Any:
        from paiju.mahjong.agents.dqn import DQNAgent

        return DQNAgent(seed, name=name, **params)

    return make


for _name, _what in (("dqn", "DQN"), ("ddqn", "Double DQN")):
    REGISTRY.register(
        _name,
        _q_agent(_name),
        {"model": "", "threads": 1, "defence": True},
        f"{_what} Q-network picks the discard (model = a .pt path; empty: the shipped "
        f"mj-{_name}.pt); wins, kongs and claims by the greedy rule; threads = torch threads (0 = default)",
        limits={"threads": (0, 64)},
        process_wide={"threads": "sets torch's thread count for the whole process"},
        file_params=("model",),
    )



def _supervised_agent(seed: SeedLike = None, model: str = "", **params: Any) -> Any:
    """A supervised discard model (``paiju mahjong train-supervised``) played like a Q-network:
    the discard by its highest legal score. ``model`` is a file, or the name of a shipped model
    (``resnet`` plays ``paiju/mahjong/models/mj-sup-resnet.pt``); the default is the ResNet, the
    strongest of the six in Table 4 (docs/results/mahjong-dqn.md)."""
    from paiju.mahjong.agents.dqn import MODEL_DIR, DQNAgent, model_file_exists
    from paiju.mahjong.model_files import SUPERVISED_MODELS as MODELS
    from paiju.mahjong.model_files import supervised_model_file as model_file

    if model in MODELS:
        model = str(model_file(MODEL_DIR, model))
    elif not model_file_exists(model):
        raise ConfigError(
            f"supervised: model={model!r} is neither a shipped model ({', '.join(MODELS)}) "
            "nor a file (a model written by paiju mahjong train-supervised)"
        )
    return DQNAgent(seed, name="supervised", model=model, **params)


REGISTRY.register(
    "supervised",
    _supervised_agent,
    {"model": "resnet", "threads": 1, "defence": True},
    "a supervised discard model (model = a shipped one: linear / svm / mlp / cnn / densenet / resnet, "
    "or the .pt of paiju mahjong train-supervised) picks the discard by its highest legal score; "
    "wins, kongs and claims by the greedy rule; threads = torch threads (0 = default)",
    limits={"threads": (0, 64)},
    process_wide={"threads": "sets torch's thread count for the whole process"},
    file_params=("model",),
)

COMBINED_LEAVES = ("discard", "draw")
"""Where a combined Expectimax's leaves are (``paiju.mahjong.agents.combined``): just after the
last discard (the default, the first version) or after each discard's draw."""


def _combined_agent(network: str) -> Any:
    """Factory of a combined Expectimax + Q-network agent; torch is imported only when one is built."""

    def make(seed: SeedLike = None, **params: Any) -> Any:
        from paiju.mahjong.agents.combined import CombinedAgent

        return CombinedAgent(seed, network=network, **params)

    return make


for _name, _what in (("dqn", "DQN"), ("ddqn", "Double DQN")):
    REGISTRY.register(
        f"expectimax-{_name}",
        _combined_agent(_name),
        {"model": "", "alpha": 0.6, "depth": 2, "threads": 1, "defence": True, "ron_rate": 0.6,
         "leaf": "discard", "value_model": "", "deal_in": False},
        f"Expectimax over own discards/draws expanding the top ceil(alpha*tiles) discards by the "
        f"{_what} Q-network, leaves valued by max Q (model = a .pt path; empty: the shipped "
        f"mj-{_name}.pt); leaf=discard (default): the first version's leaves after the discard; "
        f"leaf=draw: leaves after each discard's draw, in points; value_model = a .pt whose Q values the "
        f"leaves at the discard model ranks first (empty: model's own max Q); deal_in = charge each "
        f"root discard its deal-in chance and cost (in points: for leaf=draw); "
        f"wins, kongs and claims by the greedy rule",
        limits={"alpha": (0.01, 1.0), "depth": (1, 3), "threads": (0, 64), "ron_rate": (0.0, 3.0)},
        choices={"leaf": COMBINED_LEAVES},
        process_wide={"threads": "sets torch's thread count for the whole process"},
        file_params=("model", "value_model"),
    )

DISTILL = "expectimax-distill"
"""The distilled search's name (:mod:`paiju.mahjong.distill`)."""
DISTILL_DEFAULTS: dict[str, Any] = {
    "model": "", "depth": 2, "alpha": 0.6, "claim_depth": 1, "order": "distill", "leaf": "distill",
    "threads": 1,
}
"""``expectimax-distill``'s parameters (:func:`paiju.mahjong.distill.make_agent` takes its defaults
from here: naming the agent must not import torch)."""
DISTILL_CHOICES: dict[str, tuple[str, ...]] = {"order": ("distill", "shanten"), "leaf": ("distill", "value")}
"""``order=``: the distilled advantage head prunes the tree, or the teacher's shanten ordering;
``leaf=``: the distilled value head values the leaves, or the teacher's analytic leaf."""


def _distill_agent(seed: SeedLike = None, **params: Any) -> Any:
    """Factory of ``expectimax-distill``; torch is imported only when one is built."""
    from paiju.mahjong.distill import make_agent

    return make_agent(seed, **params)


REGISTRY.register(
    DISTILL,
    _distill_agent,
    DISTILL_DEFAULTS,
    "the value Expectimax with its teacher's settings (expectimax), pruned "
    "by a network distilled from it (order=distill: the top min(ceil(alpha*tiles), kinds) discards by "
    "its advantage head) and its leaves valued by the network's value head (leaf=distill); model = a "
    ".pt of paiju mahjong train-distill (empty: the shipped mj-distill.pt); order=shanten or "
    "leaf=value puts the teacher's part back; threads = torch threads (0 = default)",
    limits={"depth": (1, 3), "alpha": (0.01, 1.0), "claim_depth": (1, 3), "threads": (0, 64)},
    choices=DISTILL_CHOICES,
    process_wide={"threads": "sets torch's thread count for the whole process"},
    file_params=("model",),
)

__all__ = [
    "AGENT_NAMES",
    "DISTILL",
    "REGISTRY",
    "ExpectimaxAgent",
    "ExpectimaxSearch",
    "GreedyAgent",
    "HandValueEvaluator",
    "LeafBatch",
    "LeafEvaluator",
    "LeafState",
    "LeafValueEvaluator",
    "OrderingFunction",
    "SearchContext",
    "SearchNode",
    "ShantenOrdering",
    "ValueExpectimaxAgent",
    "ValueSearch",
    "WinningSpeedEvaluator",
    "danger",
    "distance",
    "draws_left",
    "make_expectimax",
    "make_expectimax_v1",
    "rank_discards",
]
