"""benchmarks/mahjong_expectimax.py's ``speed``: the offence alone, against drawn-tile throwers."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType


def test_speed_pairs_agents_on_the_same_walls(benchmark_module: Callable[[str], ModuleType]) -> None:
    bench = benchmark_module("mahjong_expectimax")
    out = bench.speed(["greedy", "greedy@greedy", "random"], hands=8, seed=3)
    agents = out["agents"]
    # the same play on the same walls: every difference is exactly zero
    assert all(agents["greedy@greedy"][f"{n}_minus_reference"] == [0.0, 0.0, 0.0]
               for n in ("win_rate", "turns_to_ready", "points"))
    greedy, rand = agents["greedy"], agents["random"]
    # nobody else may win, so seat 0 never pays; it wins only by playing toward a hand
    assert greedy["points"] >= 0 and rand["points"] >= 0
    assert greedy["win_rate"] > rand["win_rate"] and greedy["turns_to_ready"] < rand["turns_to_ready"]
    assert 0 < greedy["turns_to_ready"] <= bench.NOT_READY
