"""Mahjong engine speed: random hands, clone, observation and determinization, against RLCard.

The peer is RLCard's mahjong game (``rlcard.games.mahjong``), run in the same process: a
13-tile Chinese ruleset without dealer/flowers/scoring, the nearest packaged engine with
chow / pung / kong claims. Rules differ, so the ratio is an order-of-magnitude comparison,
not a like-for-like race. RLCard's only way to copy a game (its ``step_back`` snapshots) is
``deepcopy``, so clone is compared with ``copy.deepcopy`` of its game.

Usage: ``.venv/bin/python benchmarks/mahjong_engine.py [--hands 200] [--repeats 5]``.
Prints medians over the repeats and ours/peer ratios.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections.abc import Callable

import numpy as np

from paiju.core.rng import as_generator
from paiju.mahjong.game import MahjongGame


def timed(fn: Callable[[], int], repeats: int) -> float:
    """Median seconds per unit of work (fn returns how many units it did)."""
    per_unit = []
    for _ in range(repeats):
        t = time.perf_counter()
        n = fn()
        per_unit.append((time.perf_counter() - t) / n)
    return statistics.median(per_unit)


def ours_hand_checked(n: int, seed: int) -> Callable[[], int]:
    game = MahjongGame()

    def run() -> int:
        rng = as_generator(seed)
        for _ in range(n):
            s = game.new_initial_state()
            s.apply_chance(rng)
            while not s.is_terminal():
                legal = s.legal_actions()
                s.apply(legal[int(rng.integers(len(legal)))])
        return n

    return run


def ours_hand_fast(n: int, seed: int) -> Callable[[], int]:
    game = MahjongGame()

    def run() -> int:
        rng = as_generator(seed)
        for _ in range(n):
            game.new_initial_state().random_playout(rng)
        return n

    return run


def mid_hand_state(seed: int):  # type: ignore[no-untyped-def]
    s = MahjongGame().new_hand(seed=seed)
    rng = as_generator(seed)
    for _ in range(60):
        legal = s.legal_actions()
        s.apply(legal[int(rng.integers(len(legal)))])
        if s.is_terminal():
            break
    return s


def peer_hand(n: int, seed: int) -> Callable[[], int]:
    from rlcard.games.mahjong.game import MahjongGame as PeerGame

    game = PeerGame()
    game.np_random = np.random.RandomState(seed)
    pick = np.random.RandomState(seed + 1)

    def run() -> int:
        for _ in range(n):
            game.init_game()
            while not game.is_over():
                state = game.get_state(game.get_player_id())
                legal = game.get_legal_actions(state)
                game.step(legal[pick.randint(len(legal))])
        return n

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    n, r = args.hands, args.repeats

    rows: list[tuple[str, float, float | None]] = []
    checked = timed(ours_hand_checked(n, 1), r)
    fast = timed(ours_hand_fast(n, 1), r)
    try:
        peer = timed(peer_hand(max(n // 4, 10), 1), r)
    except ImportError:
        peer = None
    rows.append(("random hand, validated apply()", checked, peer))
    rows.append(("random hand, random_playout()", fast, peer))

    s = mid_hand_state(3)
    clone = timed(lambda: sum(1 for _ in range(2000) if s.clone() is not None), r)
    try:
        from rlcard.games.mahjong.game import MahjongGame as PeerGame

        pg = PeerGame()
        pg.np_random = np.random.RandomState(0)
        pg.init_game()
        peer_clone = timed(lambda: sum(1 for _ in range(50) if copy.deepcopy(pg) is not None), r)
    except ImportError:
        peer_clone = None
    rows.append(("clone a mid-hand state", clone, peer_clone))
    obs = timed(lambda: sum(1 for _ in range(2000) if s.observation(1) is not None), r)
    rows.append(("observation(player)", obs, None))
    o = s.observation(1)
    rng = as_generator(0)
    resample = timed(lambda: sum(1 for _ in range(300) if s.game.sample_state(o, rng) is not None), r)
    rows.append(("sample_state(observation)", resample, None))

    print(f"mahjong engine, {n} hands x {r} repeats (medians); peer = RLCard mahjong (13-tile rules)")
    print(f"{'operation':34} {'ours':>12} {'peer':>12} {'peer/ours':>10}")
    for name, ours_t, peer_t in rows:
        peer_s = f"{peer_t * 1e6:10.1f}us" if peer_t is not None else f"{'-':>12}"
        ratio = f"{peer_t / ours_t:9.1f}x" if peer_t is not None else f"{'-':>10}"
        print(f"{name:34} {ours_t * 1e6:10.1f}us {peer_s} {ratio}")


if __name__ == "__main__":
    main()
