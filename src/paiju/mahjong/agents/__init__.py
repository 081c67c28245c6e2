"""Mahjong agents by name: ``random``, ``greedy``, ``expectimax:depth=2,alpha=0.6``.

``REGISTRY`` is what the CLI and the arena use (``paiju.core.registry`` points at it); each
factory takes the seed and the spec's parameters. The search parts the Double DQN plugs into
(:class:`OrderingFunction`, :class:`LeafEvaluator`) are re-exported here.
"""

from __future__ import annotations

from paiju.core.agents import AgentRegistry, UniformRandomAgent, keyword_defaults
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

REGISTRY = AgentRegistry("mahjong")
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
REGISTRY.register(
    "expectimax",
    ExpectimaxAgent,
    keyword_defaults(ExpectimaxAgent, "depth", "alpha", "claim_depth"),
    "Expectimax over own draws/discards (depth layers, top ceil(alpha*n) discards), hand-made leaves",
    limits={"depth": (1, 3), "alpha": (0.01, 1.0), "claim_depth": (1, 3)},
)

__all__ = [
    "REGISTRY",
    "ExpectimaxAgent",
    "ExpectimaxSearch",
    "GreedyAgent",
    "LeafBatch",
    "LeafEvaluator",
    "OrderingFunction",
    "SearchContext",
    "SearchNode",
    "ShantenOrdering",
    "WinningSpeedEvaluator",
    "rank_discards",
]
