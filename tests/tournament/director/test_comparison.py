"""Comparing a board among the holders of one hand: matchpoints and the paper's rank points,
worked out by hand."""

from __future__ import annotations

from paiju.tournament.director.comparison import compare, matchpoints, rank_points


def test_matchpoints_two_per_holder_beaten_one_per_tie() -> None:
    # scores 3, 1, 1, -2: the 3 beats three (6); each 1 beats one and ties one (3); -2 nothing
    assert matchpoints({1: 3, 2: 1, 3: 1, 4: -2}) == {1: 6.0, 2: 3.0, 3: 3.0, 4: 0.0}


def test_rank_points_share_the_better_place() -> None:
    # the paper: places 1, 2, 2, 4 of n = 4 -> R = 2 (4 - place + 1) = 8, 6, 6, 2
    assert rank_points({1: 3, 2: 1, 3: 1, 4: -2}) == {1: 8.0, 2: 6.0, 3: 6.0, 4: 2.0}
    assert compare("rank-points", {7: 0.0}) == {7: 2.0}
    assert compare("matchpoints", {7: 0.0, 8: 0.0}) == {7: 1.0, 8: 1.0}
