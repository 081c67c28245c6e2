"""Gumbel root selection's arithmetic against hand-checked values and an explicit sequential halving.

The search-level checks (the policy-improvement property by sampling, tic-tac-toe against
brute force) are in ``test_algorithms_mcts.py`` beside the tic-tac-toe oracle.
"""

from __future__ import annotations

import math

import pytest

from paiju.algorithms import gumbel


def test_considered_visits_hand_checked() -> None:
    # 4 moves, 8 simulations, 2 phases: one visit each, then two more each for the best two
    assert gumbel.considered_visits(4, 8) == (0, 0, 0, 0, 1, 1, 2, 2)
    assert gumbel.considered_visits(1, 5) == (0, 1, 2, 3, 4)
    assert gumbel.considered_visits(2, 3) == (0, 0, 1)
    assert gumbel.considered_visits(16, 0) == ()
    with pytest.raises(ValueError, match="considered=0"):
        gumbel.considered_visits(0, 4)


def _explicit_halving(moves: int, simulations: int) -> list[int]:
    """Visits per rank (best first) of sequential halving written phase by phase."""
    phases = max(1, math.ceil(math.log2(moves)))
    visits = [0] * moves
    in_play, used = moves, 0
    while used < simulations:
        extra = max(1, simulations // (phases * in_play)) if moves > 1 else simulations
        for _ in range(extra):
            for rank in range(in_play):
                if used == simulations:
                    return visits
                visits[rank] += 1
                used += 1
        in_play = max(2, in_play // 2) if moves > 1 else 1
    return visits


@pytest.mark.parametrize("moves", [1, 2, 3, 4, 5, 7, 8, 9, 16])
def test_visit_targets_drive_a_sequential_halving(moves: int) -> None:
    """Following the targets (visit a move whose count equals the target, best score first)
    always finds a move, spends every simulation, and gives each rank the visits of an
    explicit phase-by-phase halving."""
    scores = [float(moves - r) for r in range(moves)]  # rank 0 best
    draws = [0.0] * moves
    for simulations in range(0, 130, 7):
        visits = [0] * moves
        for target in gumbel.considered_visits(moves, simulations):
            i = gumbel.choose(draws, scores, [0.0] * moves, visits, target)
            visits[i] += 1
        assert sum(visits) == simulations
        assert visits == _explicit_halving(moves, simulations), (moves, simulations)
        assert visits == sorted(visits, reverse=True)


def test_completed_values_hand_checked() -> None:
    values = [0.5, 0.0, 0.2]
    visits = [2, 0, 1]
    priors = [0.5, 0.3, 0.2]
    # searched = (0.5*0.5 + 0.2*0.2) / 0.7; mixed = (0.1 + 3 * searched) / 4
    mixed = (0.1 + 3 * (0.29 / 0.7)) / 4
    assert gumbel.completed_values(values, visits, priors, 0.1) == pytest.approx([0.5, mixed, 0.2])
    # nothing visited: the root's own value for every move
    assert gumbel.completed_values(values, [0, 0, 0], priors, -0.3) == [-0.3, -0.3, -0.3]


def test_sigma_rescales_and_grows_with_visits() -> None:
    assert gumbel.sigma([0.0, 1.0, 0.5], [3, 1, 0]) == pytest.approx([0.0, 5.3, 2.65])
    assert gumbel.sigma([0.2, 0.2], [0, 0]) == pytest.approx([2.5, 2.5])


def test_improved_policy_and_logits() -> None:
    assert gumbel.improved_policy([0.0, 0.0], [0.0, math.log(3)]) == pytest.approx([0.25, 0.75])
    assert gumbel.logits([0.5, 0.25, 0.0]) == pytest.approx([0.0, math.log(0.5), math.log(1e-12 / 0.5)])


def test_considered_gumbels_keep_the_top_k_by_draw_plus_logit() -> None:
    kept = gumbel.considered_gumbels([0.1, 2.0, -1.0, 0.5], [0.0, -3.0, 0.0, 0.0], 2)
    # scores 0.1, -1.0, -1.0, 0.5: moves 0 and 3
    assert kept == [0.1, -math.inf, -math.inf, 0.5]
    with pytest.raises(ValueError, match="no considered move has 1 visits"):
        gumbel.choose(kept, [0.0] * 4, [0.0] * 4, [0, 1, 1, 0], 1)
