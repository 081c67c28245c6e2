"""The director's adjustments on the hand-computed six-player event (test_standings has the
board-by-board points): each logged with who and why, each changing the standings as
docs/tournament.md says. Matchpoints after round 2: 01 7, 02 5, 04 5, 03 3, 05 3, 06 1.
"""

from __future__ import annotations

import re

import pytest
from director_helpers import MakeEvent, six_player_event

from paiju.core.errors import NotFoundError
from paiju.tournament.director.adjustments import (
    adjust_player_points,
    adjust_table_score,
    adjustments,
    cancel_adjustment,
    foul_board,
    penalise,
)
from paiju.tournament.director.results import EntryError
from paiju.tournament.director.standings import compute_standings
from paiju.tournament.director.store import EventStore


def _totals(store: EventStore) -> dict[str, float]:
    return {r.player.code: r.total for r in compute_standings(store).rows}


BEFORE = {"01": 7.0, "02": 5.0, "04": 5.0, "03": 3.0, "05": 3.0, "06": 1.0}


def test_a_fouled_table_is_left_out_and_its_players_score_the_average(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    made = foul_board(store, 2, 3, "chief", "table 1 played board 3 with two hands swapped", table_no=1)
    assert (made.kind, made.board, made.table_no, made.made_by) == ("fouled", 3, 1, "chief")
    # board 3 was: A 04 0 | 03 2, B 01 2 | 05 0, C 02 2 | 06 0. Without table 1 each hand has
    # one holder (table 2's), who beats nobody: 0; table 1's players score that average, 0.
    # So 03, 01 and 02 lose the 2 they had.
    assert _totals(store) == {**BEFORE, "03": 1.0, "01": 5.0, "02": 3.0}
    sheet = next(s for s in compute_standings(store).sheets if s.board == 3)
    assert [t.status for t in sheet.tables] == ["fouled", "confirmed"]
    assert [h.points for h in sheet.tables[0].hands] == [0.0, 0.0, 0.0]
    with pytest.raises(EntryError, match="already: fouled round 2, board 3 at table 1"):
        foul_board(store, 2, 3, "chief", "again", table_no=1)
    last = store.audit_log()[-1]
    assert last.who == "chief" and last.entity == "adjustments"
    assert last.action == "fouled round 2, board 3 at table 1: table 1 played board 3 with two hands swapped"
    assert last.after is not None and last.after["reason"] == "table 1 played board 3 with two hands swapped"


def test_a_board_fouled_everywhere_is_void(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    foul_board(store, 1, 1, "chief", "every copy of board 1 was misdealt")
    # board 1 gave 01, 02 and 04 their 2 each: nobody scores on it now
    assert _totals(store) == {**BEFORE, "01": 5.0, "02": 3.0, "04": 3.0}


def test_an_adjusted_table_score_is_compared_as_if_played(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    adjust_table_score(store, 2, 3, 1, 1.0, "chief", "a revoke: the landlord would have won")
    # board 3, table 1 now +1 like table 2: every hand ties, 1 each (was 04 0, 03 2, 01 2,
    # 05 0, 02 2, 06 0)
    assert _totals(store) == {"01": 6.0, "02": 4.0, "04": 6.0, "03": 2.0, "05": 4.0, "06": 2.0}
    with pytest.raises(EntryError, match="field 'score': 0"):
        adjust_table_score(store, 2, 3, 2, 0.0, "chief", "x")
    with pytest.raises(EntryError, match=re.escape("already: adjusted score 1 for the landlord, round 2")):
        adjust_table_score(store, 2, 3, 1, -1.0, "chief", "x")


def test_adjusted_points_replace_a_players_comparison(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    adjust_player_points(store, 2, 4, "06", 1.0, "chief", "average for the slow play of the opponents")
    assert _totals(store) == {**BEFORE, "06": 2.0}  # 06 had 0 on board 4
    with pytest.raises(EntryError, match=re.escape("0..2 (matchpoints among 2)")):
        adjust_player_points(store, 2, 4, "05", 3.0, "chief", "x")
    with pytest.raises(EntryError, match="already: adjusted points 1, round 2, board 4"):
        adjust_player_points(store, 2, 4, "06", 2.0, "chief", "x")


def test_a_penalty_is_taken_off_and_can_make_the_top_unique(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    assert compute_standings(store).top_unique is False  # 7, 5, 5, 3
    made = penalise(store, 2, "04", 1.0, "chief", "late twice")
    table = compute_standings(store)
    assert [(r.player.code, r.total) for r in table.rows][:4] == [
        ("01", 7.0),
        ("02", 5.0),
        ("04", 4.0),
        ("05", 3.0),
    ]
    assert table.top_unique is True  # 7, 5, 4, 3 differ
    assert next(r for r in table.rows if r.player.code == "04").penalties == 1.0
    assert compute_standings(store, 1).top_unique is False  # a round-2 penalty is not in round 1
    with pytest.raises(EntryError, match="a penalty takes off more than 0 points"):
        penalise(store, 2, "04", -1.0, "chief", "x")
    with pytest.raises(EntryError, match="an adjustment needs a reason"):
        penalise(store, 2, "04", 1.0, "chief", "  ")
    cancel_adjustment(store, made.id, "chief", "the appeal succeeded")
    assert _totals(store) == BEFORE and adjustments(store) == []
    last = store.audit_log()[-1]
    assert last.action == "cancel adjustment 1 (penalty of 1 in round 2): the appeal succeeded"
    assert last.before is not None and last.after is None
    with pytest.raises(NotFoundError, match="no adjustment 1"):
        cancel_adjustment(store, made.id, "chief", "again")


def test_adjustments_name_what_they_adjust(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    with pytest.raises(EntryError, match="board 9 is not a board of round 2"):
        foul_board(store, 2, 9, "chief", "x")
    with pytest.raises(EntryError, match="round 2 has tables 1-2, not 4"):
        adjust_table_score(store, 2, 3, 4, 1.0, "chief", "x")
    with pytest.raises(EntryError, match="no player with id 'zz'"):
        penalise(store, 2, "zz", 1.0, "chief", "x")
    with pytest.raises(EntryError, match="round 3 is not paired yet"):
        penalise(store, 3, "01", 1.0, "chief", "x")
