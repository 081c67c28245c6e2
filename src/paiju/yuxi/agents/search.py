"""Search agents for yuxi: the game-agnostic MCTS (``paiju.algorithms.mcts``) on a yuxi room.

The core agent registry builds agents from a spec string and a seed only, but a search
needs the game; a yuxi observation carries its room (:class:`~paiju.yuxi.game.YuxiConfig`),
so :class:`YuxiMCTSAgent` builds the game-agnostic ``MCTSAgent`` for the room of the first
observation it sees (one per room, each seeded from the agent's own generator).

Two leaf evaluations:

* ``eval="rollout"`` (default): MCTS's uniform random playouts to the end;
* ``eval="heuristic"``: no playout; :class:`HeuristicEvaluator` squashes the greedy agent's
  position value into a per-seat value in [-1, 1] (about 20x cheaper per simulation than a
  playout, and a far better signal than random play, whose early passes end games at random).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from paiju.core.errors import ConfigError
from paiju.core.protocol import Action, State
from paiju.core.rng import SeedLike, as_generator
from paiju.yuxi.agents.greedy import game_for, position_value
from paiju.yuxi.game import YuxiConfig, YuxiObservation, YuxiState

EVALS = ("rollout", "heuristic")


class HeuristicEvaluator:
    """Leaf values from :func:`~paiju.yuxi.agents.greedy.position_value`.

    Seat 0's value is ``tanh(x / scale)`` with ``x`` half the difference of the two seats'
    position values (their board, armour, coin and hazard terms, and each seat's own hand
    potential), plus 3.5 (the die's mean) for seat 0 while the die bonus is still to come;
    seat 1's value is its negative. Priors are uniform over the legal moves. Inside a
    determinized search the opponent's hand it reads is a sampled one.
    """

    def __init__(self, scale: float = 4.0) -> None:
        if not scale > 0:
            raise ConfigError(f"heuristic evaluator: scale={scale!r} must be > 0")
        self.scale = scale

    def evaluate(self, state: State) -> list[float]:
        assert isinstance(state, YuxiState)
        if state.is_terminal():
            return list(state.returns())
        x = 0.5 * (position_value(state, 0) - position_value(state, 1))
        if state.game.config.die_bonus and not state.bonus:
            x += 3.5
        v = math.tanh(x / self.scale)
        return [v, -v]

    def prior(self, state: State) -> list[tuple[Action, float]]:
        legal = state.legal_actions()
        p = 1.0 / len(legal)
        return [(a, p) for a in legal]


class YuxiMCTSAgent:
    """Determinized UCT (``MCTSAgent``) for whichever room it is seated in."""

    def __init__(
        self,
        seed: SeedLike = None,
        *,
        simulations: int = 200,
        seconds: float = 0.0,
        c: float = 1.4,
        reuse: bool = True,
        eval: str = "rollout",
        name: str | None = None,
    ) -> None:
        if simulations < 0 or seconds < 0 or (simulations == 0 and seconds == 0):
            raise ConfigError(
                f"yuxi mcts: simulations={simulations} and seconds={seconds} must be >= 0, one of them > 0"
            )
        if eval not in EVALS:
            raise ConfigError(f"yuxi mcts: eval={eval!r} is unknown; use one of {', '.join(EVALS)}")
        self._rng = as_generator(seed)
        self._eval = eval
        # the search budget and constants of every per-config MCTSAgent this agent builds
        self._simulations = simulations or None
        self._seconds = seconds or None
        self._c = c
        self._reuse = reuse
        self._agents: dict[YuxiConfig, Any] = {}
        budget = f"simulations={simulations}" if simulations else f"seconds={seconds:g}"
        self.name = name or f"mcts({budget}{',eval=heuristic' if eval == 'heuristic' else ''})"

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not isinstance(observation, YuxiObservation):
            raise TypeError(f"the yuxi MCTS agent needs a YuxiObservation, got {type(observation).__name__}")
        if len(legal_actions) == 1:
            return legal_actions[0]
        agent = self._agents.get(observation.config)
        if agent is None:
            from paiju.algorithms.mcts import MCTSAgent

            evaluator = HeuristicEvaluator() if self._eval == "heuristic" else None
            agent = MCTSAgent(
                game_for(observation.config),
                seed=int(self._rng.integers(2**63)),
                evaluator=evaluator,
                simulations=self._simulations,
                seconds=self._seconds,
                c=self._c,
                reuse_tree=self._reuse,
            )
            self._agents[observation.config] = agent
        return agent.act(observation, legal_actions)
