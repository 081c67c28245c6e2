"""How much of a yuxi match can play win? An oracle that sees the hidden cards, against an agent.

Usage::

    .venv/bin/python benchmarks/yuxi_oracle.py [--opponent "mcts:eval=heuristic,simulations=200"] \\
        [--boards 3x3] [--pairs 24] [--seed 31] [--simulations 200] [--out FILE.json]

The oracle is the heuristic-leaf MCTS (``mcts:eval=heuristic``, c = 1.4) searching the **true
state** (``MCTS(sees_hidden=True)``): it sees the opponent's hand and both decks' contents;
only the cards still to be drawn are chance to it. It is never a fair player. It plays
``--pairs`` seat-swapped pairs against ``--opponent`` on the rooms, deals and chance of
``paiju yuxi match ORACLE OPPONENT --pairs N --seed S`` (``paiju.yuxi.matches.play_pair``),
die off, decks drawn per pair.

What it bounds: against the issue 17 target's opponent the question is whether a score of
0.65 is within reach of any player on these card tables. The oracle is not the best player
possible (its search is the opponent's, with the hidden cards shown), so its score is a
measurement, not a proof; the share of pairs it still splits says how often the deal
decided against full knowledge of the hands.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from paiju.algorithms.mcts import MCTS
from paiju.core.protocol import Action, State
from paiju.yuxi.agents import REGISTRY
from paiju.yuxi.agents.greedy import game_for
from paiju.yuxi.agents.search import HeuristicEvaluator
from paiju.yuxi.matches import MatchResult, PairRow, play_pair
from paiju.yuxi.rooms import YuxiRooms


class Oracle:
    """Heuristic-leaf MCTS on the true state, which ``see`` hands it before each of its moves."""

    def __init__(self, simulations: int, seed: int) -> None:
        self.simulations, self.seed = simulations, seed
        self.name = f"oracle(simulations={simulations})"
        self.state: State | None = None
        self._search: MCTS | None = None

    def see(self, state: State, player: int) -> None:
        self.state = state

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        assert self.state is not None
        if self._search is None:
            self._search = MCTS(game_for(observation.config), evaluator=HeuristicEvaluator(), c=1.4,
                                simulations=self.simulations, sees_hidden=True, reuse_tree=False,
                                seed=self.seed)
        action = self._search.search(self.state).action
        assert action in legal_actions
        return action


def play_oracle_pair(opponent: str, rooms: YuxiRooms, seed: int, pair: int, simulations: int) -> PairRow:
    """The oracle (as A) against ``opponent`` on pair ``pair`` of a match of ``seed``."""
    oracles: list[Oracle] = []

    def make_oracle(agent_seed: int) -> Oracle:
        oracles.append(Oracle(simulations, agent_seed))
        return oracles[-1]

    def make_opponent(agent_seed: int) -> Any:
        return REGISTRY.make(opponent, seed=agent_seed)

    def show_state(state: State, player: int) -> None:  # the game being played has the newest oracle
        oracles[-1].see(state, player)

    return play_pair(make_oracle, make_opponent, rooms, seed, pair, before_move=show_state)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="mcts:eval=heuristic,simulations=200")
    parser.add_argument("--boards", default="3x3")
    parser.add_argument("--pairs", type=int, default=24)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--simulations", type=int, default=200, help="the oracle's search budget")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rooms = YuxiRooms(boards=tuple(b.strip() for b in args.boards.split(",")))
    rows = []
    start = time.perf_counter()
    for p in range(args.pairs):
        row = play_oracle_pair(args.opponent, rooms, args.seed, p, args.simulations)
        rows.append(row)
        print(f"pair {p + 1}/{args.pairs}: {row}", file=sys.stderr, flush=True)
    match = MatchResult(f"oracle(simulations={args.simulations})", args.opponent, rows)
    result = {**match.to_dict(), "seed": args.seed, "boards": list(rooms.boards),
              "seconds": round(time.perf_counter() - start, 1)}
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
