"""yuxi engine speed and search strength, per board size.

    .venv/bin/python benchmarks/yuxi.py                 # the figures of docs/results/yuxi.md
    .venv/bin/python benchmarks/yuxi.py --quick         # a smoke run
    .venv/bin/python benchmarks/yuxi.py --workers 8     # the strength part on 8 processes

1. ``clone`` + ``apply`` per second: positions sampled from random games, one random legal
   action applied to a fresh clone each time (the inner loop of every search);
2. random games per second (uniform random agents, chance included), with and without the
   invariant checker (its cost);
3. sample_state per second (one determinization, the first step of every MCTS simulation);
4. strength: MCTS (determinized UCT, N simulations; the game-agnostic
   ``paiju.algorithms.mcts``) with random playouts and with the heuristic leaf value,
   against random and against greedy, seats alternating, with 95% Wilson intervals per
   repeat, and the median over repeats.

yuxi is our own game, so no peer engine exists: the rates are absolute (on the machine that
ran them) and reported as medians over repeats. Everything is seeded.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from typing import Any

import numpy as np

from paiju.cli.common import split_agents
from paiju.core.agents import random_agents
from paiju.core.protocol import play_game
from paiju.core.rng import derive_seed
from paiju.core.runner import Backend, run_tasks
from paiju.core.stats import proportion_ci
from paiju.yuxi.agents import REGISTRY
from paiju.yuxi.board import BOARDS
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiState

DECKS = ("tide_guild", "storm_iron")
"""Decks of the speed figures (the strength games draw both decks per game)."""


def sample_positions(game: YuxiGame, count: int, seed: int) -> list[YuxiState]:
    """Decision positions met in random games (several per game, all phases of the game)."""
    rng = np.random.default_rng(seed)
    out: list[YuxiState] = []
    g = 0
    while len(out) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_chance(rng)
                continue
            if rng.random() < 0.3:
                out.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        g += 1
    return out[:count]


def clone_apply_rate(game: YuxiGame, seconds: float, seed: int) -> float:
    positions = sample_positions(game, 200, seed)
    rng = np.random.default_rng(seed + 1)
    moves = [(p, p.legal_actions()) for p in positions]
    picks = [(p, legal[int(rng.integers(len(legal)))]) for p, legal in moves]
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for p, a in picks:
            c = p.clone()
            c.apply(a)
        n += len(picks)
    return n / (time.perf_counter() - start)


def games_rate(game: YuxiGame, seconds: float, seed: int) -> float:
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        play_game(game, random_agents(2, seed + n), seed + n)
        n += 1
    return n / (time.perf_counter() - start)


def sample_state_rate(game: YuxiGame, seconds: float, seed: int) -> float:
    positions = sample_positions(game, 100, seed)
    obs = [p.observation(p.current_player()) for p in positions]
    rng = np.random.default_rng(seed)
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for o in obs:
            game.sample_state(o, rng)
        n += len(obs)
    return n / (time.perf_counter() - start)


def _one_game(args: tuple[str, str, str, int, int]) -> tuple[float, float]:
    """(hero's points, seconds) of one game with the hero in ``seat``; the decks and the
    chance seed come from ``seed``, shared by the two games of a pair (seats swapped)."""
    board, hero, villain, seed, seat = args
    names = list(YuxiConfig().table().decks)
    pick = np.random.default_rng(seed).integers(len(names), size=2)
    game = YuxiGame(YuxiConfig(board=board, decks=(names[int(pick[0])], names[int(pick[1])])))
    specs = [villain, villain]
    specs[seat] = hero
    agents = [REGISTRY.make(s, derive_seed(seed, 50 + k)) for k, s in enumerate(specs)]
    start = time.perf_counter()
    state = play_game(game, agents, seed).state
    r = state.returns()[seat]
    return (1.0 if r > 0 else 0.5 if r == 0 else 0.0), time.perf_counter() - start


def strength(
    board: str,
    hero: str,
    villain: str,
    games: int,
    repeats: int,
    base_seed: int,
    backend: Backend,
) -> dict[str, Any]:
    per_repeat = []
    seconds = []
    for rep in range(repeats):
        jobs = [
            (board, hero, villain, int(derive_seed(base_seed, rep, i // 2) % 2**31), i % 2)
            for i in range(games)
        ]
        done: dict[int, tuple[float, float]] = {}
        run_tasks(_one_game, jobs, done.__setitem__, backend=backend)
        results = [done[i] for i in range(len(jobs))]
        est = proportion_ci(sum(p for p, _ in results), games)
        per_repeat.append(est.as_dict())
        seconds.extend(s for _, s in results)
    values = [r["value"] for r in per_repeat]
    return {
        "board": board,
        "hero": hero,
        "villain": villain,
        "games_per_repeat": games,
        "repeats": repeats,
        "median_win_rate": statistics.median(values),
        "per_repeat": per_repeat,
        "median_seconds_per_game": statistics.median(seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for a smoke test")
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--games", type=int, default=20, help="strength games per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0, help="timing window per speed figure")
    parser.add_argument("--boards", default=",".join(BOARDS))
    parser.add_argument("--workers", type=int, default=1, help="processes for the strength games")
    parser.add_argument("--skip-strength", action="store_true")
    parser.add_argument(
        "--heroes",
        default="",
        help="comma-separated agent specs to measure (default: both MCTS variants and greedy)",
    )
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args()
    if args.quick:
        args.simulations, args.games, args.repeats, args.seconds = 8, 2, 1, 0.3
    boards = [b.strip() for b in args.boards.split(",")]
    results: dict[str, Any] = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "speed": [],
        "strength": [],
    }
    print(f"# yuxi benchmark ({platform.platform()}, Python {platform.python_version()})\n")
    print(
        "| board | clone+apply /s (median of 3) | random games /s | with checker /s | checker cost | "
        "sample_state /s |"
    )
    print("|---|---|---|---|---|---|")
    for board in boards:
        game = YuxiGame(YuxiConfig(board=board, decks=DECKS))
        checked = YuxiGame(YuxiConfig(board=board, decks=DECKS), check_invariants=True)
        ca = statistics.median(clone_apply_rate(game, args.seconds, s) for s in range(3))
        gr = statistics.median(games_rate(game, args.seconds, 1000 * s) for s in range(3))
        gc = statistics.median(games_rate(checked, args.seconds, 1000 * s) for s in range(3))
        ss = statistics.median(sample_state_rate(game, args.seconds, s) for s in range(3))
        results["speed"].append(
            {
                "board": board,
                "clone_apply_per_s": ca,
                "random_games_per_s": gr,
                "checked_games_per_s": gc,
                "sample_state_per_s": ss,
            }
        )
        print(f"| {board} | {ca:,.0f} | {gr:,.1f} | {gc:,.1f} | ×{gr / gc:.2f} | {ss:,.0f} |")
    if not args.skip_strength:
        heroes = (
            split_agents(args.heroes)
            if args.heroes
            else [
                f"mcts:simulations={args.simulations}",
                f"mcts:simulations={args.simulations},eval=heuristic",
                "greedy",
            ]
        )
        print(
            f"\nAgents vs baselines; decks drawn per game, seats alternate; "
            f"{args.games} games per repeat, {args.repeats} repeats\n"
        )
        print("| board | agent | opponent | median win rate | per-repeat rates [95% CI] | median s/game |")
        print("|---|---|---|---|---|---|")
        backend = Backend(workers=args.workers)
        for hero in heroes:
            for board in boards:
                for villain in ("random", "greedy"):
                    if villain == hero:
                        continue
                    r = strength(board, hero, villain, args.games, args.repeats, 7, backend)
                    results["strength"].append(r)
                    reps = "; ".join(
                        f"{e['value']:.2f} [{e['low']:.2f}, {e['high']:.2f}]" for e in r["per_repeat"]
                    )
                    print(
                        f"| {board} | {hero} | {villain} | {r['median_win_rate']:.3f} | {reps} | "
                        f"{r['median_seconds_per_game']:.2f} |",
                        flush=True,
                    )
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=2)


if __name__ == "__main__":
    main()
