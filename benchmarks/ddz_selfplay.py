"""Random self-play speed: our engine vs DouZero's ``GameEnv`` vs RLCard's ``doudizhu`` env.

Whole games between uniformly random players, on the same fixed-seed deals for ours and
DouZero (RLCard deals its own cards from its seed). Each engine plays its full per-step
path:

* ours: ``paiju.core.protocol.play_game`` (observation for the player to act, legal moves,
  ``apply`` with its legality check) with ``UniformRandomAgent``s; also the bare engine loop
  (legal moves + apply, no observation) that search rollouts use;
* DouZero: ``GameEnv.step`` (its legal moves, info set deep copy, agent call);
* RLCard: ``Env.step`` (its legal moves and observation encoding).

The engines alternate in every repeat; we quote medians of games/s and the median of the
per-repeat ratios. Target: ours >= 10x DouZero's GameEnv. Usage:
``.venv/bin/python benchmarks/ddz_selfplay.py [--games N] [--repeats R] [--seed S]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from paiju.core.agents import random_agents
from paiju.core.protocol import play_game
from paiju.doudizhu.cards import Deal
from paiju.doudizhu.game import DouDizhuGame
from paiju.doudizhu.peers import to_douzero


def ours_full(deals: list[Deal], seed: int) -> Callable[[], None]:
    game = DouDizhuGame()

    class _Fixed:
        """Game wrapper whose chance node deals a prepared deal (same deals as DouZero)."""

        def __init__(self) -> None:
            self.info = game.info
            self.deal = deals[0]

        def new_initial_state(self) -> Any:
            return game.new_state_from_deal(self.deal)

        def sample_state(self, observation: Any, rng: np.random.Generator) -> Any:
            return game.sample_state(observation, rng)

    fixed = _Fixed()

    def run() -> None:
        for i, deal in enumerate(deals):
            fixed.deal = deal
            play_game(fixed, random_agents(3, seed + i), seed + i)

    return run


def ours_bare(deals: list[Deal], seed: int) -> Callable[[], None]:
    game = DouDizhuGame()

    def run() -> None:
        rng = np.random.default_rng(seed)
        for deal in deals:
            state = game.new_state_from_deal(deal)
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply(legal[int(rng.integers(len(legal)))])

    return run


def douzero_games(deals: list[Deal], seed: int) -> Callable[[], None]:
    from douzero.env.game import GameEnv

    class RandomAgent:
        def __init__(self, rng: np.random.Generator) -> None:
            self.rng = rng

        def act(self, infoset: Any) -> Any:
            legal = infoset.legal_actions
            return legal[int(self.rng.integers(len(legal)))]

    data = [
        {
            "landlord": to_douzero(d.hands[0].counts),
            "landlord_down": to_douzero(d.hands[1].counts),  # farmer 1 plays after the landlord
            "landlord_up": to_douzero(d.hands[2].counts),
            "three_landlord_cards": to_douzero(d.kitty.counts if d.kitty else (0,) * 15),
        }
        for d in deals
    ]

    def run() -> None:
        rng = np.random.default_rng(seed)
        agent = RandomAgent(rng)
        env = GameEnv({"landlord": agent, "landlord_up": agent, "landlord_down": agent})
        for d in data:
            env.reset()
            env.card_play_init({k: list(v) for k, v in d.items()})
            while not env.game_over:
                env.step()

    return run


def rlcard_games(n: int, seed: int) -> Callable[[], None]:
    import rlcard

    def run() -> None:
        rng = np.random.default_rng(seed)
        env = rlcard.make("doudizhu", config={"seed": seed})
        for _ in range(n):
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"].keys())
                state, _ = env.step(legal[int(rng.integers(len(legal)))])

    return run


def timed(run: Callable[[], None]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    deals = [Deal.random(rng) for _ in range(args.games)]
    runners = {
        "ours (play_game: observations + legality checks)": ours_full(deals, args.seed),
        "ours (bare engine loop)": ours_bare(deals, args.seed),
        "DouZero GameEnv": douzero_games(deals, args.seed),
        "RLCard env": rlcard_games(args.games, args.seed),
    }
    cold = timed(runners["ours (play_game: observations + legality checks)"])
    times: dict[str, list[float]] = {k: [] for k in runners}
    for _ in range(args.repeats):
        for name, run in runners.items():
            times[name].append(timed(run))
    n = args.games
    print(f"{n} random games per engine, {args.repeats} repeats (medians); shared 2-core dev VM")
    for name, ts in times.items():
        print(f"  {name:<50} {n / statistics.median(ts):>9,.1f} games/s")
    print(f"  {'ours (play_game), cold first pass':<50} {n / cold:>9,.1f} games/s")
    ours_key = "ours (play_game: observations + legality checks)"
    for name in ("DouZero GameEnv", "RLCard env"):
        for mine in (ours_key, "ours (bare engine loop)"):
            ratio = statistics.median(t / o for t, o in zip(times[name], times[mine], strict=True))
            print(f"  ratio {mine.split(' (')[1].rstrip(')')} vs {name}: {ratio:.1f}x")
    ratio = statistics.median(t / o for t, o in zip(times["DouZero GameEnv"], times[ours_key], strict=True))
    print(f"target ours >= 10x DouZero GameEnv: {'meets' if ratio >= 10 else 'MISSES'} ({ratio:.1f}x)")


if __name__ == "__main__":
    main()
