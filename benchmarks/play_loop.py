"""What the one game loop costs: ``play_game`` against the shortest possible loop, per game.

``play_game`` (``docs/design.md`` §19) keeps each move's player and decision time, checks
the move limit and names the agent of an illegal move. The reference here is the loop the
project had before: chance drawn from the seed, each decision by the seated agent through the
checked ``State.apply``, nothing kept but the actions. Both play the same seeded games with
uniform random agents, interleaved, in one process; the ratio is what a user meets per game.

Usage: ``.venv/bin/python benchmarks/play_loop.py [--repeats 5] [--kuhn 5000] [--ddz 200]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from paiju.core.agents import random_agents
from paiju.core.protocol import Game, play_game
from paiju.core.rng import as_generator
from paiju.doudizhu.game import DouDizhuGame
from paiju.games.kuhn_poker import KuhnPokerGame


def bare_loop(game: Game, agents: Sequence[Any], seed: int) -> list[Any]:
    """The reference: the shortest loop that plays a game by the protocol."""
    gen = as_generator(seed)
    state = game.new_initial_state()
    history = []
    while not state.is_terminal():
        if state.is_chance_node():
            history.append(state.apply_chance(gen))
            continue
        player = state.current_player()
        action = agents[player].act(state.observation(player), state.legal_actions())
        state.apply(action)
        history.append(action)
    return history


def per_game_us(play: Callable[[Game, Sequence[Any], int], Any], game: Game, n: int) -> float:
    start = time.perf_counter()
    for seed in range(n):
        play(game, random_agents(game.info.num_players, seed), seed)
    return (time.perf_counter() - start) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--kuhn", type=int, default=5000, help="Kuhn poker games per repeat")
    parser.add_argument("--ddz", type=int, default=200, help="Dou Dizhu games per repeat")
    args = parser.parse_args()
    cases: list[tuple[str, Game, int]] = [
        ("Kuhn poker", KuhnPokerGame(), args.kuhn), ("Dou Dizhu", DouDizhuGame(), args.ddz)
    ]
    for name, game, n in cases:
        # the same games: the loops must agree move for move
        assert all(bare_loop(game, random_agents(game.info.num_players, s), s)
                   == play_game(game, random_agents(game.info.num_players, s), s).actions for s in range(20))
        bare, ours = [], []
        for _ in range(args.repeats):
            bare.append(per_game_us(bare_loop, game, n))
            ours.append(per_game_us(lambda g, a, s: play_game(g, a, s), game, n))
        ratio = statistics.median(b / a for a, b in zip(bare, ours, strict=True))
        print(f"{name}: {n} games x {args.repeats} repeats; bare loop {statistics.median(bare):.1f} us/game, "
              f"play_game {statistics.median(ours):.1f} us/game, play_game / bare = {ratio:.3f}")


if __name__ == "__main__":
    main()
