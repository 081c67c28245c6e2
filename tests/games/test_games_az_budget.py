"""benchmarks/az_budget.py: distinct legal openings from the seed, both seatings of each, and
the score from the first spec's side."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from paiju.core.errors import ConfigError
from paiju.games.connect_four import ConnectFour


@pytest.fixture
def bench(benchmark_module: Callable[[str], ModuleType]) -> ModuleType:
    return benchmark_module("az_budget")


def test_openings_are_distinct_legal_open_and_reproducible(bench: ModuleType) -> None:
    found = bench.openings("connect_four", 30, 3, seed=7)
    assert len(set(found)) == 30 and all(len(o) == 3 for o in found)
    for opening in found:
        state = ConnectFour().new_initial_state()
        for move in opening:
            assert move in state.legal_actions()
            state.apply(move)
        assert not state.is_terminal()
    assert bench.openings("connect_four", 30, 3, seed=7) == found
    assert bench.openings("connect_four", 30, 3, seed=8) != found
    with pytest.raises(ConfigError, match="distinct openings"):
        bench.openings("connect_four", 8, 1, seed=0)  # connect four has 7 first moves


def test_a_search_beats_random_from_each_side_and_the_score_is_the_first_specs(bench: ModuleType) -> None:
    strong = bench.run("connect_four", "mcts:simulations=300", "random", 3, 2, seed=1, workers=1)
    weak = bench.run("connect_four", "random", "mcts:simulations=300", 3, 2, seed=1, workers=1)
    assert strong["wins_draws_losses"][0] >= 5 and strong["pair_score"]["value"] >= 0.8
    assert weak["pair_score"]["value"] <= 0.2
    assert sum(strong["wins_draws_losses"]) == 6 and len(strong["pairs"]) == 3
    # the same openings for both runs: they come from the seed alone
    assert [p["opening"] for p in strong["pairs"]] == [p["opening"] for p in weak["pairs"]]
    assert bench.run("connect_four", "mcts:simulations=300", "random", 3, 2, seed=1, workers=1) == strong
