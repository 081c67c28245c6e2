"""Dou Dizhu agents and their registry (``paiju ddz play --agents random,random,random``).

Every agent follows :class:`paiju.core.protocol.Agent`: it sees only its
:class:`~paiju.doudizhu.game.DouDizhuObservation` and the legal actions. Other modules of
this package register their agents (greedy, rule-based, search, policy networks) in
:data:`REGISTRY`; this module registers the uniform random agent, which picks among the
duplicate-free legal moves (pass included when following).
"""

from __future__ import annotations

from paiju.core.agents import AgentRegistry, UniformRandomAgent
from paiju.core.protocol import Agent
from paiju.core.rng import SeedLike

REGISTRY = AgentRegistry("doudizhu")
"""All Dou Dizhu agents by name; ``REGISTRY.make("random", seed=1)`` builds one."""


def _random(seed: SeedLike = None) -> UniformRandomAgent:
    return UniformRandomAgent(seed, name="random")


REGISTRY.register("random", _random, {}, "uniform over the legal moves (duplicate-free, pass included)")

# --- other agents (greedy, rule, search, policy...) are registered by their own modules here ---


def _greedy(seed: SeedLike = None) -> Agent:
    from paiju.doudizhu.agents.greedy import GreedyAgent

    return GreedyAgent(seed)


def _rule(seed: SeedLike = None) -> Agent:
    from paiju.doudizhu.agents.rule import RuleAgent

    return RuleAgent(seed)


def _search(
    seed: SeedLike = None, budget: int = 120, width: int = 6, time: float = 0.0,
    wings: str = "game", scoring: str = "game",
) -> Agent:
    from paiju.doudizhu.agents.search import SearchAgent

    return SearchAgent(seed, budget=budget, width=width, time_limit=time, wings=wings, scoring=scoring)


def _rlcard_rule(seed: SeedLike = None) -> Agent:
    from paiju.doudizhu.agents.rlcard_anchor import RLCardRuleAgent

    return RLCardRuleAgent(seed)


REGISTRY.register("greedy", _greedy, {}, "sheds the most cards on a lead, follows cheapest of the same type")
REGISTRY.register("rule", _rule, {}, "plays from the exact fewest-plays split; farmers cooperate")
REGISTRY.register(
    "search", _search,
    {"budget": 120, "width": 6, "time": 0.0, "wings": "game", "scoring": "game"},
    "determinized rollouts: budget = rollouts per decision, width = candidate moves, "
    "time = seconds cap (0 = none); the sampled deals follow the game's rules (wings=/scoring= "
    "only check them: naming one the game does not play is an error)",
    limits={"budget": (1, 5000), "width": (1, 64), "time": (0.0, 60.0)},
    choices={"wings": ("game", "douzero", "rlcard"), "scoring": ("game", "competition", "casual")},
)
REGISTRY.register(
    "rlcard-rule", _rlcard_rule, {},
    "RLCard's doudizhu-rule-v1 through an adapter (external anchor; needs rlcard)",
)

__all__ = ["REGISTRY"]


# --- the supervised policy network: paiju/doudizhu/agents/policy.py -----------------------------
def _policy(seed: SeedLike = None, model: str = "large", temperature: float = 0.0, threads: int = 1) -> Agent:
    from paiju.doudizhu.agents.policy import make_policy_agent

    return make_policy_agent(seed, model=model, temperature=temperature, threads=threads)


REGISTRY.register(
    "policy", _policy, {"model": "large", "temperature": 0.0, "threads": 1},
    "supervised network imitating the rule agent: model = small | large (shipped) or a .pt path, "
    "temperature = 0 plays the top-scored move (>0 samples), threads = torch threads (0 = default)",
    limits={"temperature": (0.0, 100.0), "threads": (0, 64)},
)
