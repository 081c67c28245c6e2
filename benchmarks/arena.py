"""Arena and records costs, as ratios measured in one process.

1. Kuhn poker engine vs OpenSpiel's C++ ``kuhn_poker`` (random playouts, same action choices).
2. Arena overhead: ``run_games`` (fresh seeded agents per game, notation, timing, rows) and
   ``run_games`` with Parquet records vs the bare ``play_game`` loop, per game, on Kuhn poker
   (a game so cheap that only the overhead shows) and on Dou Dizhu with random agents.
3. ``--workers 2`` vs ``--workers 1`` wall time (process start-up included).

Usage: ``.venv/bin/python benchmarks/arena.py [--games N] [--repeats R]``. Prints medians of R
repeats and the ratios; quote the ratios (the machine is shared).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from collections.abc import Callable

import pyspiel

from paiju.core.agents import random_agents
from paiju.core.arena import run_games
from paiju.core.protocol import play_game
from paiju.core.registry import load_game
from paiju.core.rng import as_generator
from paiju.games.kuhn_poker import KuhnPokerGame


def _median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def kuhn_playouts(n: int, seed: int) -> None:
    rng = as_generator(seed)
    game = KuhnPokerGame()
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_chance(rng)
            else:
                legal = state.legal_actions()
                state.apply(legal[int(rng.integers(len(legal)))])
        state.returns()


def openspiel_playouts(n: int, seed: int) -> None:
    rng = as_generator(seed)
    game = pyspiel.load_game("kuhn_poker")
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
        state.returns()


def bare_games(n: int, seed: int) -> None:
    game = KuhnPokerGame()
    agents = random_agents(2, seed)
    for i in range(n):
        play_game(game, agents, seed + i)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n, r = args.games, args.repeats

    ours = _median_time(lambda: kuhn_playouts(n, 1), r)
    peer = _median_time(lambda: openspiel_playouts(n, 1), r)
    print(f"[1] Kuhn random playouts, {n} games, median of {r}:")
    print(f"    paiju {ours / n * 1e6:.1f} us/game, OpenSpiel (C++) {peer / n * 1e6:.1f} us/game, "
          f"ratio paiju/OpenSpiel = {ours / peer:.2f}")

    bare = _median_time(lambda: bare_games(n, 1), r)
    arena = _median_time(lambda: run_games("kuhn_poker", ["random", "random"], n, seed=1, keep_rows=False), r)

    def recorded() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            run_games("kuhn_poker", ["random", "random"], n, seed=1, out_dir=tmp)

    rec = _median_time(recorded, r)
    print(f"[2] per game, {n} Kuhn games, median of {r}: bare play_game {bare / n * 1e6:.1f} us, "
          f"run_games {arena / n * 1e6:.1f} us (x{arena / bare:.2f}), "
          f"with Parquet records {rec / n * 1e6:.1f} us (x{rec / bare:.2f})")

    m = max(20, n // 50)
    ddz = load_game("doudizhu")

    def ddz_bare() -> None:
        agents = random_agents(3, 1)
        for i in range(m):
            play_game(ddz, agents, i)

    ddz_plain = _median_time(ddz_bare, r)
    ddz_arena = _median_time(
        lambda: run_games("doudizhu", ["random", "random"], m, seed=1, fmt="duplicate", keep_rows=False), r
    )
    print(f"[2b] per game, {m} Dou Dizhu random games, median of {r}: "
          f"bare play_game {ddz_plain / m * 1e3:.2f} ms, "
          f"run_games duplicate {ddz_arena / m * 1e3:.2f} ms (x{ddz_arena / ddz_plain:.2f})")

    big = 2 * n
    usage = []
    for workers in (1, 2):
        before_self = resource.getrusage(resource.RUSAGE_SELF)
        before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        run_games("kuhn_poker", ["random", "random"], big, seed=1, workers=workers, keep_rows=False)
        wall = time.perf_counter() - start
        cpu = sum(
            getattr(after, f) - getattr(before, f)
            for after, before in (
                (resource.getrusage(resource.RUSAGE_SELF), before_self),
                (resource.getrusage(resource.RUSAGE_CHILDREN), before_children),
            )
            for f in ("ru_utime", "ru_stime")
        )
        usage.append((wall, cpu))
    (w1, c1), (w2, c2) = usage
    print(f"[3] {big} Kuhn games: workers=1 {w1:.2f} s wall / {c1:.2f} s CPU; workers=2 {w2:.2f} s wall / "
          f"{c2:.2f} s CPU (process start-up included)")
    print(f"    wall speed-up x{w1 / w2:.2f}, CPU ratio workers=2/workers=1 x{c2 / c1:.2f}")


if __name__ == "__main__":
    main()
