"""MCTS and board-game speed against OpenSpiel, as ratios measured in one process.

1. MCTS simulations per second on connect four from the initial position: paiju's
   ``MCTS`` (UCT, one uniform random rollout per leaf, solver on, no tree reuse) vs
   OpenSpiel's Python ``MCTSBot`` with ``RandomRolloutEvaluator(n_rollouts=1)`` (solver
   on) driving the C++ ``connect_four``; the same exploration constant and number of
   simulations. Rounds alternate between the two so machine load hits both alike. The
   target is ours >= 3x OpenSpiel's Python bot. Also with our rollouts through the public
   API instead of the connect-four fast path, and on tic-tac-toe, for reference.
2. Random games per second, tic-tac-toe and connect four: paiju through the public API
   (``legal_actions`` + ``apply``, the path an arbitrary agent takes), paiju's connect-four
   rollout fast path (``playout_returns``, the path MCTS rollouts take), and pyspiel's C++
   games driven from Python the same way (``legal_actions`` + ``apply_action``). All pick
   moves with the same kind of generator (a seeded ``random.Random``).

Usage: ``.venv/bin/python benchmarks/mcts.py [--simulations N] [--rounds R] [--games G]``.
Prints per-side medians over R rounds and the ratio of medians; quote the ratios (the
development machine is shared, absolute rates move with its load).
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import time
from collections.abc import Callable

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as os_mcts

from paiju.algorithms.mcts import MCTS, RandomRolloutEvaluator
from paiju.core.protocol import Game
from paiju.games.connect_four import ConnectFour
from paiju.games.tictactoe import TicTacToe


def _rate(work: Callable[[], int]) -> float:
    """Units of work per second for one call of ``work`` (which returns how many units it did)."""
    start = time.perf_counter()
    units = work()
    return units / (time.perf_counter() - start)


def mcts_rates(
    ours_game: Game, spiel_name: str, simulations: int, rounds: int, c: float, fast_path: bool = True
) -> tuple[list[float], list[float]]:
    """Simulations/s of each side over ``rounds`` alternating rounds (one search from the start).

    ``fast_path=False`` makes our rollouts go through the public API (``random_playout``)
    instead of the game's ``playout_returns``, to show what the fast path is worth.
    """
    spiel_game = pyspiel.load_game(spiel_name)
    ours_rates: list[float] = []
    theirs_rates: list[float] = []
    for r in range(rounds):
        search = MCTS(
            ours_game,
            c=c,
            simulations=simulations,
            solve=True,
            reuse_tree=False,
            seed=r,
            evaluator=RandomRolloutEvaluator(seed=r, fast_path=fast_path),
        )
        bot = os_mcts.MCTSBot(
            spiel_game,
            uct_c=c,
            max_simulations=simulations,
            evaluator=os_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(r)),
            solve=True,
            random_state=np.random.RandomState(r + 1000),
        )

        def ours(search: MCTS = search) -> int:
            return search.search(ours_game.new_initial_state()).simulations

        def theirs(bot: os_mcts.MCTSBot = bot) -> int:
            return int(bot.mcts_search(spiel_game.new_initial_state()).explore_count)

        first, second = (ours, theirs) if r % 2 == 0 else (theirs, ours)
        a, b = _rate(first), _rate(second)
        ours_rates.append(a if r % 2 == 0 else b)
        theirs_rates.append(b if r % 2 == 0 else a)
    return ours_rates, theirs_rates


def ours_random_games(game: Game, n: int, seed: int) -> int:
    rnd = random.Random(seed)
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[int(rnd.random() * len(legal))])
        state.returns()
    return n


def ours_fast_playouts(game: ConnectFour, n: int, seed: int) -> int:
    rnd = random.Random(seed)
    start = game.new_initial_state()
    for _ in range(n):
        start.playout_returns(rnd)
    return n


def spiel_random_games(name: str, n: int, seed: int) -> int:
    game = pyspiel.load_game(name)
    rnd = random.Random(seed)
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rnd.random() * len(legal))])
        state.returns()
    return n


def _report(label: str, ours: list[float], theirs: list[float], unit: str) -> float:
    mo, mt = statistics.median(ours), statistics.median(theirs)
    ratio = mo / mt
    per_round = statistics.median(a / b for a, b in zip(ours, theirs, strict=True))
    print(
        f"{label:<44} paiju {mo:>10,.0f} {unit}   openspiel {mt:>10,.0f} {unit}   "
        f"ratio {ratio:5.2f}x (median of per-round ratios {per_round:.2f}x, {len(ours)} rounds)"
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, default=2000, help="simulations per search")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds per comparison")
    parser.add_argument("--games", type=int, default=2000, help="random games per round")
    parser.add_argument("--c", type=float, default=2.0, help="UCT exploration constant (both sides)")
    args = parser.parse_args()

    print(
        f"MCTS, one search from the initial position, {args.simulations} simulations, "
        f"UCT c={args.c}, 1 random rollout per leaf, solver on"
    )
    c4_ratio = _report(
        "connect four MCTS simulations/s",
        *mcts_rates(ConnectFour(), "connect_four", args.simulations, args.rounds, args.c),
        "sims/s",
    )
    _report(
        "connect four MCTS, rollouts via public API",
        *mcts_rates(ConnectFour(), "connect_four", args.simulations, args.rounds, args.c, fast_path=False),
        "sims/s",
    )
    _report(
        "tic-tac-toe MCTS simulations/s",
        *mcts_rates(TicTacToe(), "tic_tac_toe", args.simulations, args.rounds, args.c),
        "sims/s",
    )
    print(f"target: connect four ratio >= 3x -> {'met' if c4_ratio >= 3 else 'NOT met'}")

    print(f"\nrandom games, {args.games} per round")
    for label, ours_fn, spiel_name in (
        (
            "tic-tac-toe games/s (public API)",
            lambda s: ours_random_games(TicTacToe(), args.games, s),
            "tic_tac_toe",
        ),
        (
            "connect four games/s (public API)",
            lambda s: ours_random_games(ConnectFour(), args.games, s),
            "connect_four",
        ),
        (
            "connect four games/s (playout_returns)",
            lambda s: ours_fast_playouts(ConnectFour(), args.games, s),
            "connect_four",
        ),
    ):
        ours_rates, theirs_rates = [], []
        for r in range(args.rounds):
            ours = functools.partial(ours_fn, r)
            theirs = functools.partial(spiel_random_games, spiel_name, args.games, r)
            if r % 2 == 0:
                ours_rates.append(_rate(ours))
                theirs_rates.append(_rate(theirs))
            else:
                theirs_rates.append(_rate(theirs))
                ours_rates.append(_rate(ours))
        _report(label, ours_rates, theirs_rates, "games/s")


if __name__ == "__main__":
    main()
