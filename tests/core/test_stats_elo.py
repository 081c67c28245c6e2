"""Elo ratings by Bradley-Terry maximum likelihood (paiju.core.stats.elo_ratings)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paiju.core.stats import elo_ratings


def test_two_players_give_the_logit_of_the_score() -> None:
    # 30 of 40 games: the maximum-likelihood difference is 400 * log10(30 / 10)
    (a, b) = elo_ratings([(1, 0, 30.0, 40.0)], players=2, anchor=0)
    assert a.value == 0.0
    assert b.value == pytest.approx(400 * math.log10(3.0), abs=0.5)
    # the interval from the Fisher information n p (1 - p) = 40 * 0.75 * 0.25
    se = 1 / math.sqrt(40 * 0.75 * 0.25) * 400 / math.log(10)
    assert b.high - b.value == pytest.approx(1.959964 * se, rel=1e-3)
    assert b.n == 40


def test_ratings_of_simulated_players_are_recovered() -> None:
    true = [0.0, 100.0, 250.0, -150.0]
    rng = np.random.default_rng(3)
    results = []
    for i in range(4):
        for j in range(i + 1, 4):
            p = 1 / (1 + 10 ** ((true[j] - true[i]) / 400))
            n = 400
            results.append((i, j, float(rng.binomial(n, p)), float(n)))
    ratings = elo_ratings(results, players=4, anchor=0)
    for r, t in zip(ratings[1:], true[1:], strict=True):
        assert r.low <= t <= r.high
        assert abs(r.value - t) < 60


def test_draws_count_half_and_an_unbeaten_player_is_clipped() -> None:
    (_, even) = elo_ratings([(0, 1, 5.0, 10.0)], players=2)
    assert even.value == pytest.approx(0.0, abs=1e-3)
    (_, top) = elo_ratings([(1, 0, 10.0, 10.0)], players=2)
    assert top.value == pytest.approx(1500.0) and top.high == math.inf
