"""Agents for yuxi and their registry (``paiju yuxi play --agents random,greedy,mcts:simulations=200``).

* ``random``: uniform over the legal actions;
* ``greedy``: the one-ply heuristic of :mod:`paiju.yuxi.agents.greedy`;
* ``mcts:simulations=N,seconds=S,c=C,reuse=B,eval=rollout|heuristic``: determinized UCT, the
  game-agnostic :class:`paiju.algorithms.mcts.MCTSAgent` (:mod:`paiju.yuxi.agents.search`),
  with random playouts or the heuristic leaf value.
"""

from __future__ import annotations

from paiju.core.agents import AgentRegistry, UniformRandomAgent, keyword_defaults
from paiju.yuxi.agents.greedy import GreedyAgent, game_for, position_value
from paiju.yuxi.agents.search import EVALS, HeuristicEvaluator, YuxiMCTSAgent

REGISTRY = AgentRegistry("yuxi")


REGISTRY.register("random", lambda seed=None: UniformRandomAgent(seed), {}, "uniform over the legal actions")
REGISTRY.register(
    "greedy", lambda seed=None: GreedyAgent(seed), {}, "one-ply heuristic (points, armour, coins, hand)"
)
# the spec parameters are YuxiMCTSAgent's keyword parameters, passed through; their defaults
# are read from its signature (one source: the class)
REGISTRY.register(
    "mcts",
    YuxiMCTSAgent,
    keyword_defaults(YuxiMCTSAgent, "simulations", "seconds", "c", "reuse", "eval"),
    "determinized UCT (paiju.algorithms.mcts); eval=rollout (random playouts) or heuristic "
    "(the greedy position value at the leaves); seconds=0: no time limit",
    limits={"simulations": (0, 20000), "seconds": (0.0, 60.0), "c": (0.0, 100.0)},
    choices={"eval": EVALS},
)

__all__ = ["REGISTRY", "GreedyAgent", "HeuristicEvaluator", "YuxiMCTSAgent", "game_for", "position_value"]
