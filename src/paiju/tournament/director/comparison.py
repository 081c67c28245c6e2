"""Comparing a board's results among the players who held the same hand of it.

A table result is the landlord's score ``s``; the landlord's hand scores ``s`` and each
farmer's ``-s/2`` (``paiju.doudizhu.scoring.seat_returns``). Each holder of a hand of a board
is then scored against the others of its comparison group (everyone who held that hand of
that board in the round, sitters left out: :mod:`paiju.tournament.director.movement`) by the
event's comparison:

* ``matchpoints``: 2 for each holder beaten, 1 for each tie;
* ``rank-points`` (the paper's): the n holders are ranked, ties sharing the better place,
  and place p scores R = 2 (n - p + 1).

The standings (:mod:`paiju.tournament.director.standings`) apply it board by board, with
byes, the director's adjustments and the totals Swiss pairing reads.
"""

from __future__ import annotations

from collections.abc import Mapping

from paiju.tournament.director.formats import Comparison


def matchpoints(scores: Mapping[int, float]) -> dict[int, float]:
    """2 per other holder beaten, 1 per tie."""
    return {
        p: float(sum(2 if s > t else 1 if s == t else 0 for q, t in scores.items() if q != p))
        for p, s in scores.items()
    }


def rank_points(scores: Mapping[int, float]) -> dict[int, float]:
    """R = 2 (n - place + 1), place = 1 + the number of holders who scored more."""
    n = len(scores)
    return {p: float(2 * (n - (1 + sum(t > s for t in scores.values())) + 1)) for p, s in scores.items()}


def compare(method: Comparison, scores: Mapping[int, float]) -> dict[int, float]:
    return matchpoints(scores) if method == "matchpoints" else rank_points(scores)


def top_points(method: Comparison, holders: int) -> float:
    """The most a holder can score among ``holders``: beating every other one (matchpoints
    2 (n - 1)), or place 1 (rank points 2 n)."""
    return float(2 * (holders - 1)) if method == "matchpoints" else float(2 * holders)
