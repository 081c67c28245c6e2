"""Dou Dizhu agents and their registry (``paiju ddz play --agents random,random,random``).

Every agent follows :class:`paiju.core.protocol.Agent`: it sees only its
:class:`~paiju.doudizhu.game.DouDizhuObservation` and the legal actions. Other modules of
this package register their agents (greedy, rule-based, search, policy networks) in
:data:`REGISTRY`; this module registers the uniform random agent, which picks among the
duplicate-free legal moves (pass included when following).
"""

from __future__ import annotations

from typing import Any, Final, TypedDict

from paiju.core.agents import AgentRegistry, UniformRandomAgent
from paiju.core.protocol import Agent
from paiju.core.rng import SeedLike
from paiju.doudizhu.scoring import SCORING_RULES

REGISTRY = AgentRegistry("doudizhu")
"""All Dou Dizhu agents by name; ``REGISTRY.make("random", seed=1)`` builds one."""


def _random(seed: SeedLike = None) -> UniformRandomAgent:
    return UniformRandomAgent(seed, name="random")


REGISTRY.register("random", _random, {}, "uniform over the legal moves (duplicate-free, pass included)")

# --- other agents (greedy, rule, search, policy...) are registered by their own modules here ---


def _greedy(seed: SeedLike = None) -> Agent:
    from paiju.doudizhu.agents.greedy import GreedyAgent

    return GreedyAgent(seed)


RULE_SPLITS: Final = ("exact", "tagger")
"""The splits ``rule:split=`` leads from: the exact fewest-plays split (default), or the learned one."""


def _rule(seed: SeedLike = None, split: str = RULE_SPLITS[0]) -> Agent:
    from paiju.doudizhu.agents.rule import RuleAgent

    return RuleAgent(seed, split=split)


class SearchParams(TypedDict):
    """The ``search`` agent's spec parameters (``search:budget=200,width=8``)."""

    budget: int
    width: int
    time: float
    wings: str
    scoring: str
    leads: str


FOLLOW_GAME: Final = "game"
"""Default of ``search:wings=``/``scoring=``: play by the game's rules (naming a rule only checks it)."""
SEARCH_DEFAULTS: Final[SearchParams] = {
    "budget": 120,
    "width": 6,
    "time": 0.0,
    "wings": FOLLOW_GAME,
    "scoring": FOLLOW_GAME,
    "leads": "split",
}
"""The ``search`` agent's defaults: the registry documents them and ``SearchAgent``'s signature
uses them (kept here so that the registry needs no import of the search module)."""
SEARCH_CHOICES: Final = {
    "wings": (FOLLOW_GAME, "douzero", "rlcard"),
    "scoring": (FOLLOW_GAME, *SCORING_RULES),
    "leads": ("split", "all"),
}
"""The values ``search:wings=``/``scoring=`` accept (``SearchAgent`` checks the same)."""


def _search(seed: SeedLike = None, *, time: float, **params: Any) -> Agent:
    from paiju.doudizhu.agents.search import SearchAgent

    # the spec's ``time`` is the class's ``time_limit`` (search.py uses the ``time`` module)
    return SearchAgent(seed, time_limit=time, **params)


def _rlcard_rule(seed: SeedLike = None) -> Agent:
    from paiju.doudizhu.agents.rlcard_anchor import RLCardRuleAgent

    return RLCardRuleAgent(seed)


REGISTRY.register("greedy", _greedy, {}, "sheds the most cards on a lead, follows cheapest of the same type")
REGISTRY.register(
    "rule", _rule, {"split": RULE_SPLITS[0]},
    "plays from a split, farmers cooperate: split = exact (the fewest-plays split) or tagger "
    "(the shipped learned split leads, kickers attached by the same rule; needs torch)",
    choices={"split": RULE_SPLITS},
)
REGISTRY.register(
    "search", _search,
    dict(SEARCH_DEFAULTS),
    "determinized rollouts: budget = rollouts per decision, width = candidate moves, "
    "time = seconds cap (0 = none); leads = split (lead candidates from the exact split, "
    "capped by width) or all (every legal lead is searched: play not derived from a split); "
    "the sampled deals follow the game's rules (wings=/scoring= "
    "only check them: naming one the game does not play is an error)",
    limits={"budget": (1, 5000), "width": (1, 64), "time": (0.0, 60.0)},
    choices=SEARCH_CHOICES,
)
REGISTRY.register(
    "rlcard-rule", _rlcard_rule, {},
    "RLCard's doudizhu-rule-v1 through an adapter (external anchor; needs rlcard)",
)

__all__ = [
    "FOLLOW_GAME",
    "POLICY_DEFAULTS",
    "REGISTRY",
    "RULE_SPLITS",
    "SEARCH_CHOICES",
    "SEARCH_DEFAULTS",
    "XGB_DEFAULTS",
    "PolicyParams",
    "SearchParams",
]


# --- the supervised policy network: paiju/doudizhu/agents/policy.py -----------------------------
class PolicyParams(TypedDict):
    """The ``policy`` agent's spec parameters (``policy:model=small,temperature=0.5``)."""

    model: str
    temperature: float
    threads: int


POLICY_DEFAULTS: Final[PolicyParams] = {"model": "large", "temperature": 0.0, "threads": 1}
"""The ``policy`` agent's defaults: the registry documents them and ``make_policy_agent``'s
signature uses them (the registry imports no torch)."""


def _policy(seed: SeedLike = None, **params: Any) -> Agent:
    from paiju.doudizhu.agents.policy import make_policy_agent

    return make_policy_agent(seed, **params)


REGISTRY.register(
    "policy", _policy, dict(POLICY_DEFAULTS),
    "supervised network imitating the rule agent: model = small | large (shipped) or a .pt path, "
    "temperature = 0 plays the top-scored move (>0 samples), threads = torch threads (0 = default)",
    limits={"temperature": (0.0, 100.0), "threads": (0, 64)},
    process_wide={"threads": "sets torch's thread count for the whole process"},
    file_params=("model",),
)


# --- the gradient-boosted play AI: paiju/doudizhu/agents/xgb.py ----------------------------------
XGB_DEFAULTS: Final = {"model": "search"}
"""The ``xgb`` agent's defaults (the registry imports no xgboost)."""


def _xgb(seed: SeedLike = None, **params: Any) -> Agent:
    from paiju.doudizhu.agents.xgb import make_xgb_agent

    return make_xgb_agent(seed, **params)


REGISTRY.register(
    "xgb", _xgb, dict(XGB_DEFAULTS),
    "gradient-boosted trees ranking the legal moves, trained on search self-play: "
    "model = search (shipped) or a .json model path",
    file_params=("model",),
)
