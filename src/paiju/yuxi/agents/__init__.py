"""Agents for yuxi and their registry (``paiju yuxi play --agents random,greedy,mcts:simulations=200``).

* ``random``: uniform over the legal actions;
* ``greedy``: the one-ply heuristic of :mod:`paiju.yuxi.agents.greedy`;
* ``mcts:simulations=N,seconds=S,c=C,reuse=B,eval=rollout|heuristic``: determinized UCT, the
  game-agnostic :class:`paiju.algorithms.mcts.MCTSAgent` (:mod:`paiju.yuxi.agents.search`),
  with random playouts or the heuristic leaf value;
* ``az:model=PATH,simulations=N,c=C,batch=B``: AlphaZero, network-guided PUCT from a checkpoint
  (:mod:`paiju.yuxi.agents.az`; without ``model`` the shipped model of the room's board,
  docs/alphazero.md);
* ``az-policy:model=PATH,temperature=T``: the same network alone, no search (the talk's online
  AI): its policy picks the plays, its value head the swap.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from paiju.core.agents import AgentRegistry, UniformRandomAgent, check_can_play, keyword_defaults
from paiju.core.protocol import Agent
from paiju.core.rng import SeedLike
from paiju.yuxi.agents.greedy import GreedyAgent, game_for, position_value, searching_with
from paiju.yuxi.agents.search import EVALS, HeuristicEvaluator, YuxiMCTSAgent
from paiju.yuxi.game import YuxiConfig

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



def _az(seed: SeedLike = None, **params: Any) -> Agent:
    """The AlphaZero agent; torch is imported only when one is built."""
    from paiju.yuxi.agents.az import YuxiAZAgent

    return YuxiAZAgent(seed, **params)


REGISTRY.register(
    "az",
    _az,
    {"model": "", "simulations": 200, "c": 2.0, "batch": 8, "mix": 0.0},
    "AlphaZero: determinized PUCT guided by a policy/value network, the swap by the value head "
    "(model = a checkpoint path; empty: the shipped model of the room's board, if it has one; "
    "mix = weight of the heuristic leaf value mixed with the network's, 0: none)",
    limits={"simulations": (1, 20000), "c": (0.0, 100.0), "batch": (1, 256), "mix": (0.0, 1.0)},
    file_params=("model",),
)


def _az_policy(seed: SeedLike = None, **params: Any) -> Agent:
    """The AlphaZero network without search; torch is imported only when one is built."""
    from paiju.yuxi.agents.az import YuxiPolicyAgent

    return YuxiPolicyAgent(seed, **params)


REGISTRY.register(
    "az-policy",
    _az_policy,
    {"model": "", "temperature": 0.0},
    "the AlphaZero network alone, no search (the talk's online AI): its policy picks each play "
    "(temperature 0: the most probable move; > 0: drawn from the priors raised to 1/temperature), "
    "its value head the swap (model as for az)",
    limits={"temperature": (0.0, 100.0)},
    file_params=("model",),
)


def check_specs(
    specs: Iterable[str], boards: Iterable[str], cards_file: str | None = None, decks_file: str | None = None
) -> None:
    """Build each agent spec once and ask it whether it can play on every board of ``boards``
    with this card table (``az``: a model for each board and the table). A bad spec, a missing
    model file or a board without a model is a ConfigError here, before a match's first game."""
    agents = [REGISTRY.make(spec, seed=0) for spec in specs]
    for board in boards:
        room = YuxiConfig(board=board, cards_file=cards_file, decks_file=decks_file)
        check_can_play(agents, game_for(room))


__all__ = [
    "REGISTRY",
    "GreedyAgent",
    "HeuristicEvaluator",
    "YuxiMCTSAgent",
    "check_specs",
    "game_for",
    "position_value",
    "searching_with",
]
