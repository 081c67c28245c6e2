"""Validation by simulated tournaments (``docs/dih.md`` §7): Algorithm 1, rank points, P1/P2."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paiju.core.errors import ConfigError
from paiju.tournament.distributions import ScoreDistribution
from paiju.tournament.selection import DealPool
from paiju.tournament.validate import (
    ability_buckets,
    algorithm1,
    distinguishable,
    draw_players,
    rank_points,
    run_setting,
    scoring_rates,
    tournament_outcomes,
)


def test_rank_points_hand_checked_with_ties() -> None:
    # Scores 5, 3, 5, 1: the two 5s share rank 1, the 3 is rank 3, the 1 rank 4 (n = 4).
    scores = np.array([[5.0], [3.0], [5.0], [1.0]])
    assert rank_points(scores)[:, 0].tolist() == [8, 4, 8, 2]
    # All tied: everybody rank 1 -> 2n points; all distinct -> 2n, 2n-2, ...
    assert rank_points(np.zeros((3, 1)))[:, 0].tolist() == [6, 6, 6]
    assert rank_points(np.array([[1.0], [3.0], [2.0]]))[:, 0].tolist() == [2, 6, 4]
    # Rounds are ranked independently; a batch axis in front is kept.
    two = np.array([[[1.0, 2.0], [1.0, 1.0]]])  # one tournament, players x rounds
    assert rank_points(two).tolist() == [[[4, 4], [4, 2]]]


def test_rank_points_against_a_loop() -> None:
    rng = np.random.default_rng(3)
    s = rng.integers(-2, 3, size=(7, 4)).astype(float)
    got = rank_points(s)
    for t in range(4):
        for p in range(7):
            rank = 1 + sum(s[q, t] > s[p, t] for q in range(7))
            assert got[p, t] == 2 * (7 - rank + 1)


def test_distinguishable() -> None:
    assert distinguishable(np.array([10, 8, 8, 3]), 1)
    assert not distinguishable(np.array([10, 8, 8, 3]), 2)  # 2nd place shared
    assert distinguishable(np.array([10, 9, 8, 8]), 2)  # r = 2 needs 1st > 2nd > 3rd
    assert not distinguishable(np.array([10, 9, 8, 8]), 3)  # 3rd tied with 4th: not unique
    assert not distinguishable(np.array([10, 10, 3]), 1)
    assert distinguishable(np.array([1, 2, 3]), 3)  # r = n: all different
    assert not distinguishable(np.array([1, 1, 3]), 3)
    batch = np.array([[3, 2, 1], [3, 3, 1]])
    assert distinguishable(batch, 1).tolist() == [True, False]
    with pytest.raises(ConfigError):
        distinguishable(np.array([1, 2]), 3)


def test_scoring_rates_and_buckets() -> None:
    rates = scoring_rates(np.array([0.0, 1.0, 2.0, 9.0, 10.0]))
    assert rates.tolist() == [0.0, 0.1, 0.2, 0.9, 1.0]
    assert ability_buckets(rates, 2).tolist() == [0, 0, 0, 1, 1]
    assert ability_buckets(rates, 5).tolist() == [0, 0, 1, 4, 4]  # 1.0 falls in the last interval
    assert scoring_rates(np.array([4.0, 4.0])).tolist() == [0.0, 0.0]
    with pytest.raises(ConfigError):
        ability_buckets(np.array([1.5]), 3)


def test_algorithm1_one_player_per_bucket_uniform_within() -> None:
    # Totals over both deals: 0, 1, 2, 9, 10 -> buckets (w = 2) {0, 1, 2} and {3, 4}.
    matrix = np.array([[0, 0], [1, 0], [1, 1], [5, 4], [5, 5]], dtype=float)
    rng = np.random.default_rng(0)
    counts = np.zeros(5)
    for _ in range(3000):
        chosen = algorithm1(matrix, [0, 1], 2, rng)
        assert chosen.size == 2
        assert chosen[0] in (0, 1, 2) and chosen[1] in (3, 4)
        counts[chosen] += 1
    # Uniform inside each bucket: 1000 each for the first three, 1500 for the last two.
    assert np.all(np.abs(counts[:3] - 1000) < 4 * math.sqrt(3000 * (1 / 3) * (2 / 3)))
    assert np.all(np.abs(counts[3:] - 1500) < 4 * math.sqrt(3000 * 0.25))
    # Ability over deal 0 only: totals 0, 1, 1, 5, 5 -> w = 5 buckets 0, 1, 1, 4, 4.
    for _ in range(50):
        chosen = algorithm1(matrix, [0], 5, rng)
        assert chosen[0] == 0 and chosen[1] in (1, 2) and chosen[2] in (3, 4) and chosen.size == 3


def test_draw_players_fills_empty_buckets_with_distinct_players() -> None:
    matrix = np.array([[0, 0], [1, 0], [1, 1], [5, 4], [5, 5]], dtype=float)
    rng = np.random.default_rng(1)
    for _ in range(100):
        players, filled = draw_players(matrix, 5, 0, rng)
        assert sorted(players.tolist()) == [0, 1, 2, 3, 4]
        assert filled == 2  # buckets 0, 1, 4 of 5 are the only non-empty ones
    with pytest.raises(ConfigError, match="only 5 combinations"):
        draw_players(matrix, 6, 0, rng)


def _synthetic(n_comb: int = 40, n_spread: int = 2, n_flat: int = 18) -> tuple[np.ndarray, DealPool]:
    """Spread deals: combination c scores c (all different); flat deals: everyone scores 1."""
    cols = [np.arange(n_comb, dtype=float)] * n_spread + [np.ones(n_comb)] * n_flat
    matrix = np.stack(cols, axis=1)
    laws = [
        (f"deal{i}", ScoreDistribution.empirical(int(v) for v in matrix[:, i]))
        for i in range(matrix.shape[1])
    ]
    return matrix, DealPool.from_distributions(laws)


def test_p1_p2_on_a_case_with_a_known_answer() -> None:
    # A tournament is distinguishable iff at least one spread deal is among its m deals
    # (totals are then that deal's distinct rank points plus a constant); flat deals never
    # separate anyone. Random deals: P1 = 1 - C(18, 2)/C(20, 2); DIH picks the two spread
    # deals (a point mass has DIH 0), so P2 = 1.
    matrix, pool = _synthetic()
    res = run_setting(matrix, pool, players=10, rounds=2, top=1, tournaments=1500, seed=5)
    exact = 1 - math.comb(18, 2) / math.comb(20, 2)
    sigma = math.sqrt(exact * (1 - exact) / 1500)
    assert abs(res.p1.value - exact) < 4 * sigma
    assert res.p1.low < exact < res.p1.high or abs(res.p1.value - exact) < 4 * sigma
    for method in ("paper", "joint"):
        assert sorted(res.selected[method]) == [0, 1]
        assert res.p2[method].value == 1.0
        g = res.gain[method]
        assert g.value == pytest.approx((1 - res.p1.value) / res.p1.value)
        assert g.low <= g.value <= g.high
        assert g.low <= (1 - exact) / exact <= g.high


def test_flat_pool_is_never_distinguishable_and_gain_is_undefined() -> None:
    matrix, pool = _synthetic(n_spread=0, n_flat=6)
    res = run_setting(matrix, pool, players=5, rounds=2, top=1, tournaments=50, seed=1, methods=("paper",))
    assert res.p1.value == 0.0 and res.p2["paper"].value == 0.0
    assert math.isnan(res.gain["paper"].value)


def test_tournament_outcomes_by_hand() -> None:
    matrix = np.array([[1, 0], [0, 0], [2, 0]], dtype=float)  # deal 1: all tie
    players = np.array([[0, 1, 2], [0, 1, 1]])[:1]
    assert tournament_outcomes(matrix, players, np.array([0, 1]), 1).tolist() == [True]
    assert tournament_outcomes(matrix, players, np.array([1]), 1).tolist() == [False]
    # Deal 0 gives points 4, 2, 6; deal 1 gives 6, 6, 6: totals 10, 8, 12: all unique.
    assert tournament_outcomes(matrix, players, np.array([0, 1]), 2).tolist() == [True]


def test_run_setting_rejects_bad_settings() -> None:
    matrix, pool = _synthetic()
    with pytest.raises(ConfigError, match="unique awards"):
        run_setting(matrix, pool, players=3, rounds=2, top=3, tournaments=5, seed=0)
    with pytest.raises(ConfigError, match="unknown selection"):
        run_setting(matrix, pool, players=5, rounds=2, top=1, tournaments=5, seed=0, methods=("best",))
    with pytest.raises(ConfigError, match="rounds"):
        run_setting(matrix, pool, players=5, rounds=30, top=1, tournaments=5, seed=0)


def test_run_setting_is_seeded() -> None:
    matrix = np.random.default_rng(2).integers(-2, 3, size=(30, 25)).astype(float)
    laws = [(f"d{i}", ScoreDistribution.empirical(int(v) for v in matrix[:, i])) for i in range(25)]
    pool = DealPool.from_distributions(laws)
    a = run_setting(matrix, pool, 8, 3, 1, 200, seed=4, ability_deals=10)
    b = run_setting(matrix, pool, 8, 3, 1, 200, seed=4, ability_deals=10)
    assert a == b
    # joint's set DIH is never below the paper's set's (selection module's guarantee)
    assert a.set_dih["joint"] >= a.set_dih["paper"] - 1e-12


def test_holdout_split_by_landlord() -> None:
    from paiju.tournament.population import Population
    from paiju.tournament.validate import split_population

    pop = Population(("rule", "greedy", "random"), ("random", "greedy"), ("random",))
    laws, players = split_population(pop, True)
    # Combinations are landlord-major, 2 per landlord: rule -> 0, 1; greedy -> 2, 3; random -> 4, 5.
    assert laws == {0, 1, 4, 5} and players == {2, 3}
    assert split_population(pop, False) == (set(range(6)), set(range(6)))
    with pytest.raises(ConfigError, match="two landlord"):
        split_population(Population(("rule",), ("random",), ("random",)), True)
