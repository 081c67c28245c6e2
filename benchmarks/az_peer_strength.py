"""Strength per training hour: paiju's AlphaZero against OpenSpiel's on connect four.

Usage (the interpreter of the separate environment of ``benchmarks/az_peer_openspiel.py``,
with torch added, and paiju's sources on the path; never part of ``make test``)::

    PYTHONPATH=src /tmp/jaxenv/bin/python benchmarks/az_peer_strength.py \\
        --openspiel-run runs/os-az-c4 --openspiel-step 5 [--openspiel-step 0 ...] \\
        --paiju-model training/az-c4/model.pt [--paiju-model MODEL ...] [--games 40] [--simulations 50] \\
        [--opponent-simulations 200] [--seed 0] [--out docs/results/az-peer-strength.json]

Each trained agent plays ``--games`` games (colours alternating) against **one common
opponent in the same process**: OpenSpiel's own pure MCTS (``mcts.MCTSBot``, UCT c = 2,
one random rollout a leaf, the solver on), ``--opponent-simulations`` a move. The agents:

* OpenSpiel's model after ``--openspiel-step`` learner steps of a run of its example
  ``open_spiel.python.examples.alpha_zero`` (``--path`` = ``--openspiel-run``), searched by its
  own ``MCTSBot`` with its ``AlphaZeroEvaluator`` (PUCT with the run's ``uct_c``, no noise),
  ``--simulations`` a move, the most visited move played;
* each paiju model as ``az:model=PATH,simulations=N`` (paiju's connect four keeps a copy of
  the game in step: both number the columns 0..6, as the differential tests check).

Both searches take the best move (no temperature), so a pair of games differs by the colours
and by the random rollouts. The score counts a draw half; 95% Wilson intervals.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np


def openspiel_bot(run: Path, step: int, simulations: int, seed: int) -> Any:
    import pyspiel
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.algorithms.alpha_zero import alpha_zero, utils
    from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib

    raw = json.loads((run / "config.json").read_text())
    raw["path"] = str(run.resolve())
    config = alpha_zero.Config(**raw)
    model = utils.api_selector(config.nn_api_version).Model.build_model(
        config.nn_model, config.observation_shape, config.output_size, config.nn_width, config.nn_depth,
        config.weight_decay, config.learning_rate, config.path,
        decouple_weight_decay=config.decouple_weight_decay,
    )
    model.load_checkpoint(step)
    game = pyspiel.load_game(config.game)
    return mcts.MCTSBot(
        game, config.uct_c, simulations, evaluator_lib.AlphaZeroEvaluator(game, model), solve=False,
        child_selection_fn=mcts.SearchNode.puct_value, random_state=np.random.RandomState(seed),
        dont_return_chance_node=True,
    )


class PaijuBot:
    """A paiju agent behind OpenSpiel's bot calls: it plays on its own copy of the game."""

    def __init__(self, spec: str, seed: int) -> None:
        from paiju.core.registry import load_agents, load_game

        self.game = load_game("connect_four")
        self.agent = load_agents("connect_four", self.game).make(spec, seed=seed)

    def step(self, state: Any) -> int:
        mirror = self.game.new_initial_state()
        for action in state.history():
            mirror.apply(int(action))
        return int(self.agent.act(mirror.observation(mirror.current_player()), mirror.legal_actions()))


def play(agent: Any, opponent: Any, agent_seat: int) -> tuple[float, int, float]:
    """The agent's score (win 1, draw 0.5), the game's length and the agent's seconds per move."""
    import pyspiel

    state = pyspiel.load_game("connect_four").new_initial_state()
    spent, moves = 0.0, 0
    while not state.is_terminal():
        bot = agent if state.current_player() == agent_seat else opponent
        start = time.perf_counter()
        action = bot.step(state)
        if bot is agent:
            spent += time.perf_counter() - start
            moves += 1
        state.apply_action(action)
    returns = state.returns()
    return (returns[agent_seat] + 1) / 2, len(state.history()), spent / max(moves, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openspiel-run", type=Path, required=True)
    parser.add_argument("--openspiel-step", type=int, action="append", required=True,
                        help="its checkpoint-STEP (repeat for several)")
    parser.add_argument("--paiju-model", type=Path, action="append", required=True)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--simulations", type=int, default=50, help="of both AlphaZero searches")
    parser.add_argument("--opponent-simulations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    import pyspiel
    from open_spiel.python.algorithms import mcts

    from paiju.core.stats import proportion_ci

    game = pyspiel.load_game("connect_four")
    agents: dict[str, Any] = {
        f"openspiel step {step}": openspiel_bot(args.openspiel_run, step, args.simulations, args.seed)
        for step in args.openspiel_step
    }
    for path in args.paiju_model:
        agents[f"paiju {path}"] = PaijuBot(f"az:model={path},simulations={args.simulations}", args.seed)
    rows = []
    for name, agent in agents.items():
        rng = np.random.RandomState(args.seed)  # the same opponent stream for every agent
        opponent = mcts.MCTSBot(game, 2.0, args.opponent_simulations,
                                mcts.RandomRolloutEvaluator(1, rng), solve=True, random_state=rng)
        scores, lengths, seconds = [], [], []
        for g in range(args.games):
            score, length, per_move = play(agent, opponent, g % 2)
            scores.append(score)
            lengths.append(length)
            seconds.append(per_move)
            print(f"{name}: game {g + 1}/{args.games} score {score}", file=sys.stderr, flush=True)
        wins = sum(s == 1 for s in scores)
        draws = sum(s == 0.5 for s in scores)
        e = proportion_ci(sum(scores), len(scores))
        rows.append({
            "agent": name, "games": len(scores), "score": sum(scores) / len(scores),
            "interval": [e.low, e.high], "wins": wins, "draws": draws, "losses": len(scores) - wins - draws,
            "as_first": float(np.mean(scores[0::2])), "as_second": float(np.mean(scores[1::2])),
            "mean_length": float(np.mean(lengths)), "seconds_per_move": float(np.median(seconds)),
        })
    result = {"simulations": args.simulations, "opponent_simulations": args.opponent_simulations,
              "seed": args.seed, "rows": rows}
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
