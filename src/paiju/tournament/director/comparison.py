"""Comparing a board's results among the players who held the same hand of it, and the running
totals that Swiss pairing reads.

A table result is the landlord's score ``s``; the landlord's hand scores ``s`` and each
farmer's ``-s/2`` (``paiju.doudizhu.scoring.seat_returns``). Each holder of a hand of a board
is then scored against the others of its comparison group
(:func:`paiju.tournament.director.movement.comparison_groups`) by the event's comparison:

* ``matchpoints``: 2 for each holder beaten, 1 for each tie;
* ``rank-points`` (the paper's): the n holders are ranked, ties sharing the better place,
  and place p scores R = 2 (n - p + 1).

A bye scores, for each board it misses, the player's own average per board played
(``own-average``) or the field's average per board of that round (``field-average``).
Adjustments with points (``adjustments`` rows naming a player) are added to the total.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from paiju.doudizhu.scoring import seat_returns
from paiju.tournament.director.formats import Comparison, EventFormat
from paiju.tournament.director.movement import Holding, holdings
from paiju.tournament.director.store import EventStore


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


def board_points(fmt: EventFormat, held: list[Holding], results: list[dict[str, Any]]) -> dict[int, float]:
    """Each player's comparison points over the boards of ``held`` that have a result."""
    score_at: dict[tuple[int, int], list[float]] = {}
    for r in results:
        score_at[(r["board"], r["table_no"])] = seat_returns(r["landlord_hand"], float(r["landlord_score"]))
    groups: dict[tuple[int, int], dict[int, float]] = defaultdict(dict)
    for h in held:
        if h.player_id is not None and (h.board, h.table_no) in score_at:
            groups[(h.board, h.hand)][h.player_id] = score_at[(h.board, h.table_no)][h.hand]
    points: dict[int, float] = defaultdict(float)
    for scores in groups.values():
        for player, value in compare(fmt.comparison, scores).items():
            points[player] += value
    return dict(points)


def totals_before(store: EventStore, round_no: int) -> dict[int, float]:
    """Every player's total over the rounds before ``round_no``: comparison points, bye
    scores and adjustments (0 for a player with none)."""
    fmt = store.event().format
    totals: dict[int, float] = {p.id: 0.0 for p in store.players()}
    played_points: dict[int, float] = defaultdict(float)
    boards_played: dict[int, int] = defaultdict(int)
    field_average: dict[int, float] = {}
    for info in store.rounds():
        if info.number >= round_no:
            break
        held = holdings(store.seats(info.number), store.movement(info.number))
        points = board_points(fmt, held, store.results(info.number))
        for player, value in points.items():
            totals[player] += value
            played_points[player] += value
        for h in held:
            if h.player_id is not None:
                boards_played[h.player_id] += 1
        real = sum(h.player_id is not None for h in held)
        field_average[info.number] = sum(points.values()) / real if real else 0.0
    for bye_round, player in store.byes():
        if bye_round >= round_no:
            continue
        if fmt.bye_score == "own-average":
            played = boards_played[player]
            per_board = played_points[player] / played if played else 0.0
        else:
            per_board = field_average.get(bye_round, 0.0)
        totals[player] += per_board * fmt.boards_per_round
    for adj in store.adjustments():
        if adj["round"] < round_no and adj["player_id"] is not None and adj["points"] is not None:
            totals[adj["player_id"]] += adj["points"]
    return totals
