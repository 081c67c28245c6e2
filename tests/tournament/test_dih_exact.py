"""Exact DIH against brute-force enumeration, Monte-Carlo sampling, the paper's nested sum
and closed forms; edge cases and numerical extremes."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.core.errors import ConfigError
from paiju.core.rng import as_generator
from paiju.tournament.dih import (
    dih,
    dih_matrix,
    dih_of_rounds,
    dih_of_total,
    unique_awards_matrix,
    unique_awards_of_total,
    unique_awards_profile,
)
from paiju.tournament.distributions import ScoreDistribution, TotalDistribution, repeated_total
from paiju.tournament.reference import nested_sum_dih, nested_sum_unique_awards

# ---------------------------------------------------------------------------------------
# Brute force: exact rationals, no convolution or order-statistics code of ours involved.

Law = dict[int, Fraction]


def brute_total(rounds: list[Law]) -> Law:
    """Law of a player's total by enumerating every sequence of round scores."""
    out: Law = {}
    for seq in itertools.product(*(list(r.items()) for r in rounds)):
        total = sum(s for s, _ in seq)
        out[total] = out.get(total, Fraction(0)) + math.prod((p for _, p in seq), start=Fraction(1))
    return out


def brute_top_distinct(total: Law, players: int, top: int) -> Fraction:
    """P(the ``top`` highest of ``players`` i.i.d. totals are pairwise distinct), by enumeration."""
    items = [(v, p) for v, p in total.items() if p > 0]
    acc = Fraction(0)
    for combo in itertools.product(items, repeat=players):
        xs = sorted((v for v, _ in combo), reverse=True)
        if all(xs[i] > xs[i + 1] for i in range(top - 1)):
            acc += math.prod((p for _, p in combo), start=Fraction(1))
    return acc


def brute_flat(rounds: list[Law], players: int, top: int) -> Fraction:
    """Enumerate every score of every player in every round (the whole tournament)."""
    per_round = [list(r.items()) for r in rounds]
    acc = Fraction(0)
    for outcome in itertools.product(*(per_round * players)):
        m = len(rounds)
        totals = sorted(
            (sum(s for s, _ in outcome[i * m : (i + 1) * m]) for i in range(players)), reverse=True
        )
        if all(totals[i] > totals[i + 1] for i in range(top - 1)):
            acc += math.prod((p for _, p in outcome), start=Fraction(1))
    return acc


def to_dist(law: Law) -> ScoreDistribution:
    return ScoreDistribution(tuple(law), tuple(float(p) for p in law.values()))


def frac_law(pairs: dict[int, int]) -> Law:
    """A law from integer weights (exact)."""
    total = sum(pairs.values())
    return {s: Fraction(w, total) for s, w in pairs.items()}


# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("law", "players", "rounds", "top"),
    [
        ({-1: 3, 1: 2}, 3, 2, 2),
        ({-1: 3, 1: 2}, 3, 2, 3),
        ({-2: 1, 0: 2, 3: 1}, 3, 2, 2),
        ({-2: 1, 0: 2, 3: 1}, 2, 3, 2),
        ({-1: 1, 1: 1, 2: 1}, 3, 2, 3),
    ],
)
def test_matches_whole_tournament_enumeration(
    law: dict[int, int], players: int, rounds: int, top: int
) -> None:
    exact = brute_flat([frac_law(law)] * rounds, players, top)
    assert dih(to_dist(frac_law(law)), players, rounds, top) == pytest.approx(float(exact), abs=1e-13)


def test_matches_enumeration_with_different_rounds() -> None:
    rounds = [frac_law({-1: 1, 1: 1}), frac_law({0: 1, 2: 3}), frac_law({-3: 2, 1: 1, 4: 1})]
    exact = brute_flat(rounds, 2, 2)
    assert dih_of_rounds([to_dist(r) for r in rounds], 2, 2) == pytest.approx(float(exact), abs=1e-13)
    exact3 = brute_top_distinct(brute_total(rounds), 4, 3)
    assert dih_of_rounds([to_dist(r) for r in rounds], 4, 3) == pytest.approx(float(exact3), abs=1e-13)


@st.composite
def small_cases(draw: st.DrawFn) -> tuple[list[Law], int, int]:
    rounds = draw(st.integers(1, 3))
    same = draw(st.booleans())
    laws: list[Law] = []
    for _ in range(1 if same else rounds):
        scores = draw(st.lists(st.integers(-4, 4), min_size=1, max_size=3, unique=True))
        weights = draw(st.lists(st.integers(0, 5), min_size=len(scores), max_size=len(scores)))
        if sum(weights) == 0:
            weights[0] = 1
        laws.append(frac_law(dict(zip(scores, weights, strict=True))))
    if same:
        laws = laws * rounds
    total = brute_total(laws)
    support = sum(1 for p in total.values() if p > 0)
    max_players = max(n for n in range(1, 6) if support**n <= 4000)
    players = draw(st.integers(1, max_players))
    top = draw(st.integers(1, players))
    return laws, players, top


@settings(max_examples=60, deadline=None)
@given(small_cases())
def test_random_small_cases_match_enumeration(case: tuple[list[Law], int, int]) -> None:
    laws, players, top = case
    exact = float(brute_top_distinct(brute_total(laws), players, top))
    dists = [to_dist(law) for law in laws]
    assert dih_of_rounds(dists, players, top) == pytest.approx(exact, abs=1e-12)
    if all(law == laws[0] for law in laws):
        assert dih(dists[0], players, len(laws), top) == pytest.approx(exact, abs=1e-12)


def test_unique_awards_matches_enumeration() -> None:
    law = frac_law({-2: 1, -1: 3, 1: 2, 3: 1})
    total_exact = brute_total([law, law])
    total = repeated_total(to_dist(law), 2)
    items = [(v, p) for v, p in total_exact.items() if p > 0]
    for k in range(0, 5):
        acc = Fraction(0)
        for combo in itertools.product(items, repeat=4):
            xs = [*sorted((v for v, _ in combo), reverse=True), -math.inf]
            if all(xs[i] > xs[i + 1] for i in range(k)):
                acc += math.prod((p for _, p in combo), start=Fraction(1))
        assert unique_awards_of_total(total, 4, k) == pytest.approx(float(acc), abs=1e-13)
    profile = unique_awards_profile(total, 4, 4)
    assert profile[0] == 1.0
    for top in range(1, 5):  # DIH(r) = U(r - 1)
        assert dih_of_total(total, 4, top) == pytest.approx(profile[top - 1], abs=1e-15)


def test_paper_worked_example_by_hand() -> None:
    # n = 9, m = 2, r = 2, D = (-2:0, -1:0.6, 1:0.4, 2:0). Totals -2, 0, 2 with 0.36, 0.48, 0.16.
    # DIH(2) = P(the maximum is unique) = 9 p(v) F(<v)^8 summed over v.
    d = ScoreDistribution.parse("-2:0,-1:0.6,1:0.4,2:0")
    total = repeated_total(d, 2)
    assert total.as_dict() == pytest.approx({-2: 0.36, 0: 0.48, 2: 0.16})
    expected = 9 * 0.16 * 0.84**8 + 9 * 0.48 * 0.36**8
    assert dih(d, 9, 2, 2) == pytest.approx(expected, rel=1e-13)
    assert dih(d, 9, 2, 2) < 0.5  # the paper: a low DIH, the deal is rejected


def test_agrees_with_papers_nested_sum() -> None:
    rng = as_generator(11)
    scores = (-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6)
    for _ in range(4):
        d = ScoreDistribution(scores, tuple(rng.dirichlet(np.ones(12))))
        for players, rounds in ((12, 3), (30, 4)):
            total = repeated_total(d, rounds)
            for top in (1, 2, 3, 4):
                ours = dih_of_total(total, players, top)
                assert nested_sum_dih(total, players, top) == pytest.approx(ours, rel=1e-10, abs=1e-14)
                assert nested_sum_unique_awards(total, players, top) == pytest.approx(
                    unique_awards_of_total(total, players, top), rel=1e-10, abs=1e-14
                )


def _monte_carlo(rounds: list[ScoreDistribution], players: int, top: int, samples: int, seed: int) -> float:
    rng = as_generator(seed)
    totals = np.zeros((samples, players), dtype=np.int64)
    for d in rounds:
        totals += rng.choice(np.array(d.scores), size=(samples, players), p=np.array(d.probabilities))
    best = -np.sort(-totals, axis=1)[:, :top]
    return float(np.mean(np.all(best[:, :-1] > best[:, 1:], axis=1)))


@pytest.mark.parametrize(
    ("seed", "players", "rounds", "top", "different"),
    [
        (1, 20, 5, 2, False),
        (2, 20, 5, 3, True),
        (3, 50, 8, 4, False),
        (4, 10, 3, 5, True),
        (5, 108, 18, 4, True),
    ],
)
def test_agrees_with_monte_carlo(seed: int, players: int, rounds: int, top: int, different: bool) -> None:
    rng = as_generator(seed)
    scores = (-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6)
    weights = np.array([1 / abs(s) ** 2 for s in scores])
    laws = [
        ScoreDistribution(scores, tuple(rng.dirichlet(weights * 20)))
        for _ in range(rounds if different else 1)
    ]
    if not different:
        laws = laws * rounds
    samples = 20_000
    exact = dih_of_rounds(laws, players, top)
    estimate = _monte_carlo(laws, players, top, samples, seed + 100)
    sigma = math.sqrt(max(exact * (1 - exact), 1e-4) / samples)
    assert abs(estimate - exact) < 4.5 * sigma, (exact, estimate)


# ---------------------------------------------------------------------------------------
# Edge cases


def test_top_one_is_certain() -> None:
    d = ScoreDistribution.parse("-1:0.3,2:0.7")
    assert dih(d, 5, 3, 1) == 1.0
    assert dih(d, 1, 1, 1) == 1.0


def test_top_equals_players_is_all_distinct() -> None:
    # Uniform on K values: P(all n distinct) = K (K-1) ... (K-n+1) / K^n (birthday problem).
    k = 1000
    total = TotalDistribution(0, 1, np.full(k, 1 / k))
    for n in (2, 5, 50):
        expected = math.prod(1 - i / k for i in range(n))
        assert dih_of_total(total, n, n) == pytest.approx(expected, rel=1e-12)


def test_point_masses() -> None:
    point = ScoreDistribution.point_mass(3)
    assert dih(point, 4, 5, 2) == 0.0
    assert dih(point, 4, 5, 1) == 1.0
    assert dih(point, 1, 5, 1) == 1.0
    # A point-mass round only shifts every total: it changes nothing.
    coin = ScoreDistribution.parse("-1:0.5,1:0.5")
    assert dih_of_rounds([coin, point, coin], 6, 3) == pytest.approx(dih(coin, 6, 2, 3), rel=1e-14)


def test_zero_probability_scores_change_nothing() -> None:
    with_zeros = ScoreDistribution.parse("-6:0,-1:0.55,1:0.3,2:0.15,6:0")
    without = ScoreDistribution.parse("-1:0.55,1:0.3,2:0.15")
    for players, rounds, top in ((10, 3, 2), (7, 4, 4)):
        assert dih(with_zeros, players, rounds, top) == pytest.approx(
            dih(without, players, rounds, top), rel=1e-14
        )
    total = repeated_total(with_zeros, 3)
    assert total.values[0] == -3 and total.values[-1] == 6  # zero-probability extremes trimmed


def test_scale_of_scores_does_not_matter() -> None:
    # Only equality of totals counts, so {-1, 1} and {-2, 2} (and a shift) have the same DIH.
    a = ScoreDistribution.parse("-1:0.4,1:0.6")
    b = ScoreDistribution.parse("-5:0.4,3:0.6")
    assert dih(a, 12, 7, 3) == pytest.approx(dih(b, 12, 7, 3), rel=1e-14)


@pytest.mark.parametrize(
    ("players", "rounds", "top"), [(0, 1, 1), (3, 0, 1), (3, 1, 0), (2, 1, 3), (2.5, 1, 1), (True, 1, 1)]
)
def test_bad_sizes_are_config_errors(players: object, rounds: object, top: object) -> None:
    d = ScoreDistribution.parse("0:0.5,1:0.5")
    with pytest.raises(ConfigError):
        dih(d, players, rounds, top)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# Numerics


def test_log_space_and_linear_recursions_agree() -> None:
    rng = as_generator(5)
    probs = rng.dirichlet(np.full(60, 0.3), size=20)
    for players, places in ((10, 3), (108, 7), (40, 40)):
        lin = unique_awards_matrix(probs, players, places, log_space=False)
        log = unique_awards_matrix(probs, players, places, log_space=True)
        np.testing.assert_allclose(lin, log, rtol=1e-11, atol=1e-300)


def test_huge_factorials_use_log_space() -> None:
    # n^k far beyond float64 (199 * ln 200 > 1000): birthday problem, closed form.
    k = 10_000
    total = TotalDistribution(0, 1, np.full(k, 1 / k))
    expected = math.prod(1 - i / k for i in range(200))
    assert dih_of_total(total, 200, 200) == pytest.approx(expected, rel=1e-10)
    assert dih_of_total(total, 5000, 2) == pytest.approx(
        5000 * sum((i / k) ** 4999 / k for i in range(k)), rel=1e-10
    )


def test_rare_top_value_with_enormous_field() -> None:
    # Two values, the top one with probability eps: P(unique max) = n eps (1 - eps)^(n - 1).
    # With eps = 1e-15 and n = 1e13 the answer needs log1p of the tail (1 - eps rounds badly).
    eps = 1e-15
    total = TotalDistribution(0, 1, np.array([1 - eps, eps]))
    n = 10**13
    expected = n * eps * math.exp((n - 1) * math.log1p(-eps))
    assert dih_of_total(total, n, 2) == pytest.approx(expected, rel=1e-9)


def test_probabilities_near_one_and_zero_stay_in_range() -> None:
    rng = as_generator(9)
    for _ in range(20):
        probs = rng.dirichlet(np.full(30, 0.05), size=1)
        for players, top in ((2, 2), (1000, 3), (10**6, 2), (30, 30)):
            v = dih_matrix(probs, players, top)[0]
            assert 0.0 <= v <= 1.0 and math.isfinite(v)
    # many rounds, few players: DIH close to 1, and its complement is still resolved
    d = ScoreDistribution.parse("-3:0.25,-1:0.25,1:0.25,3:0.25")
    v = dih(d, 2, 400, 2)
    total = repeated_total(d, 400)
    p = np.asarray(total.probabilities)
    assert 1 - v == pytest.approx(float(np.sum(p * p)), rel=1e-9)  # P(tie of two players)


# ---------------------------------------------------------------------------------------
# Long differential runs (make test-slow)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(small_cases())
def test_many_small_cases_match_enumeration(case: tuple[list[Law], int, int]) -> None:
    laws, players, top = case
    exact = float(brute_top_distinct(brute_total(laws), players, top))
    assert dih_of_rounds([to_dist(law) for law in laws], players, top) == pytest.approx(exact, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_monte_carlo_many_random_settings(seed: int) -> None:
    rng = as_generator(1000 + seed)
    players = int(rng.integers(2, 120))
    rounds = int(rng.integers(1, 20))
    top = int(rng.integers(1, min(players, 8) + 1))
    support = np.sort(rng.choice(np.arange(-6, 7), size=int(rng.integers(2, 9)), replace=False))
    laws = [
        ScoreDistribution(tuple(int(s) for s in support), tuple(rng.dirichlet(np.ones(support.size))))
        for _ in range(rounds)
    ]
    samples = 100_000
    exact = dih_of_rounds(laws, players, top)
    estimate = _monte_carlo(laws, players, top, samples, seed)
    sigma = math.sqrt(max(exact * (1 - exact), 1e-5) / samples)
    assert abs(estimate - exact) < 4.5 * sigma, (players, rounds, top, exact, estimate)


@pytest.mark.slow
def test_nested_sum_agrees_at_ccpc_scale() -> None:
    rng = as_generator(77)
    scores = (-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6)
    for _ in range(3):
        total = repeated_total(ScoreDistribution(scores, tuple(rng.dirichlet(np.ones(12)))), 18)
        for top in (2, 3):
            assert nested_sum_dih(total, 108, top) == pytest.approx(dih_of_total(total, 108, top), rel=1e-10)
