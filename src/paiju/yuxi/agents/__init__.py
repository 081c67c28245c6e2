"""Agents for yuxi and their registry (``paiju yuxi play --agents random,greedy,mcts:simulations=200``).

* ``random``: uniform over the legal actions;
* ``greedy``: the one-ply heuristic of :mod:`paiju.yuxi.agents.greedy`;
* ``mcts:simulations=N,seconds=S,c=C,reuse=B,eval=rollout|heuristic``: determinized UCT, the
  game-agnostic :class:`paiju.algorithms.mcts.MCTSAgent` (:mod:`paiju.yuxi.agents.search`),
  with random playouts or the heuristic leaf value.
"""

from __future__ import annotations

from paiju.core.agents import AgentRegistry, UniformRandomAgent
from paiju.core.rng import SeedLike
from paiju.yuxi.agents.greedy import GreedyAgent, game_for, position_value
from paiju.yuxi.agents.search import HeuristicEvaluator, YuxiMCTSAgent

REGISTRY = AgentRegistry("yuxi")


def _mcts(
    seed: SeedLike = None,
    simulations: int = 200,
    seconds: float = 0.0,
    c: float = 1.4,
    reuse: bool = True,
    eval: str = "rollout",
) -> YuxiMCTSAgent:
    return YuxiMCTSAgent(seed, simulations=simulations, seconds=seconds, c=c, reuse=reuse, eval=eval)


REGISTRY.register("random", lambda seed=None: UniformRandomAgent(seed), {}, "uniform over the legal actions")
REGISTRY.register(
    "greedy", lambda seed=None: GreedyAgent(seed), {}, "one-ply heuristic (points, armour, coins, hand)"
)
REGISTRY.register(
    "mcts",
    _mcts,
    {"simulations": 200, "seconds": 0.0, "c": 1.4, "reuse": True, "eval": "rollout"},
    "determinized UCT (paiju.algorithms.mcts); eval=rollout (random playouts) or heuristic "
    "(the greedy position value at the leaves); seconds=0: no time limit",
    limits={"simulations": (0, 20000), "seconds": (0.0, 60.0), "c": (0.0, 100.0)},
    choices={"eval": ("rollout", "heuristic")},
)

__all__ = ["REGISTRY", "GreedyAgent", "HeuristicEvaluator", "YuxiMCTSAgent", "game_for", "position_value"]
