"""Standings against a six-player event worked out by hand (director_helpers.six_player_event:
two tables, two boards a round, two rounds), under matchpoints and rank points: totals, ranks,
places with ties, the tie-breaks that decided, the per-board sheets, pending results, byes.

With two tables each hand of a board has two holders. Matchpoints: the better seat score
scores 2, the worse 0, a tie 1 each. Rank points, R = 2 (n - place + 1) with n = 2: the
better scores 4, the worse 2, a tie 4 each (both share place 1).

Seat scores (landlord s, farmers -s/2), table 1 | table 2, and points as holder: MP / RP:

round 1, board 1 (+2 | +1): A 01 +2 > 06 +1     -> 01 2/4, 06 0/2
                            B 03 -1 < 02 -0.5   -> 02 2/4, 03 0/2
                            C 05 -1 < 04 -0.5   -> 04 2/4, 05 0/2
round 1, board 2 (-1 | -1): every hand ties     -> 01 02 03 04 05 06 1/4 each
round 2, board 3 (-2 | +1): A 04 -2 < 03 +1     -> 03 2/4, 04 0/2
                            B 01 +1 > 05 -0.5   -> 01 2/4, 05 0/2
                            C 02 +1 > 06 -0.5   -> 02 2/4, 06 0/2
round 2, board 4 (+1 | +2): A 02 +1 < 05 +2     -> 05 2/4, 02 0/2
                            B 04 -0.5 > 06 -1   -> 04 2/4, 06 0/2
                            C 01 -0.5 > 03 -1   -> 01 2/4, 03 0/2

Totals after round 1, MP (RP): 01 3 (8), 02 3 (8), 04 3 (8), 03 1 (6), 05 1 (6), 06 1 (6).
After round 2, MP: 01 7, 02 5, 04 5, 03 3, 05 3, 06 1; RP: 01 16, 02 14, 04 14, 03 12, 05 12,
06 10.
"""

from __future__ import annotations

import pytest
from director_helpers import MakeEvent, holders_of, six_player_event, tables_of

from paiju.core.errors import ConfigError
from paiju.tournament.director.entry import ResultLine, confirm_result, enter_results
from paiju.tournament.director.players import Entry, add_late_entry, withdraw
from paiju.tournament.director.rounds import choose_boards, pair_round, release
from paiju.tournament.director.seating import RoundTables
from paiju.tournament.director.standings import compute_standings, round_sheets, totals_before
from paiju.tournament.director.store import EventStore


def test_the_six_player_event_seats_as_worked_out(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    assert tables_of(store, 1) == {1: ["01", "03", "05"], 2: ["02", "04", "06"]}
    assert tables_of(store, 2) == {1: ["01", "02", "04"], 2: ["03", "05", "06"]}
    assert holders_of(store, 1) == {
        (1, 1): ["01", "03", "05"],
        (1, 2): ["06", "02", "04"],
        (2, 1): ["05", "01", "03"],
        (2, 2): ["02", "04", "06"],
    }
    assert holders_of(store, 2) == {
        (3, 1): ["04", "01", "02"],
        (3, 2): ["03", "05", "06"],
        (4, 1): ["02", "04", "01"],
        (4, 2): ["05", "06", "03"],
    }


def _summary(store: EventStore, after: int | None = None) -> list[tuple[int, int, str, float, str | None]]:
    table = compute_standings(store, after)
    return [(r.rank, r.place, r.player.code, r.total, r.decided_by) for r in table.rows]


def test_matchpoint_standings_after_each_round(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    # after round 1 everyone's opponents: 01 sat with 03, 05 (1 + 1 = 2); 02 with 04, 06
    # (3 + 1 = 4); 04 with 02, 06 (4); 03 with 01, 05 (3 + 1 = 4); 05 with 01, 03 (4); 06 with
    # 02, 04 (3 + 3 = 6). Points holding hand A: 02 1 (board 2), 05 1 (board 2), others 0.
    # On 3: 02 and 04 (opponents 4) before 01 (2), and 02 before 04 on the landlord's points.
    # On 1: 06 (opponents 6), then 05 before 03 on the landlord's points.
    assert _summary(store, 1) == [
        (1, 1, "02", 3.0, None),
        (2, 1, "04", 3.0, "landlord"),
        (3, 1, "01", 3.0, "opponents"),
        (4, 4, "06", 1.0, None),
        (5, 4, "05", 1.0, "opponents"),
        (6, 4, "03", 1.0, "landlord"),
    ]
    # after round 2: 02 and 04 both sat with 06 (1) and the other (5), then with 01 (7) and
    # the other (5): opponents 18 each; the landlord's points: 02 1 + 0, 04 0 -> 02 first.
    # 03 and 05: opponents 7 + 3 + 3 + 1 = 14 each; the landlord's: 03 2 (board 3), 05 1 + 2.
    assert _summary(store) == [
        (1, 1, "01", 7.0, None),
        (2, 2, "02", 5.0, None),
        (3, 2, "04", 5.0, "landlord"),
        (4, 4, "05", 3.0, None),
        (5, 4, "03", 3.0, "landlord"),
        (6, 6, "06", 1.0, None),
    ]
    table = compute_standings(store)
    breaks = {r.player.code: r.tie_breaks for r in table.rows}
    assert {c: (b["opponents"], b["landlord"]) for c, b in breaks.items()} == {
        "01": (3 + 3 + 5 + 5, 2.0),  # round 1: 03, 05 (3 each); round 2: 02, 04 (5 each)
        "02": (18.0, 1.0),
        "04": (18.0, 0.0),
        "03": (14.0, 2.0),
        "05": (14.0, 3.0),
        "06": (5 + 5 + 3 + 3, 0.0),
    }
    # the top 3 are unique when the 4 highest totals differ: 7, 5, 5, 3 do not
    assert table.after_round == 2 and table.top_unique is False
    assert table.pending == 0 and table.missing == 0
    assert totals_before(store, 3) == {p.id: t for p, t in ((r.player, r.total) for r in table.rows)}


def test_rank_point_standings(make_event: MakeEvent) -> None:
    store = six_player_event(make_event, "rank-points")
    # round 1's tied board gives 4 to everyone (both holders share place 1)
    assert [(r.player.code, r.total) for r in compute_standings(store, 1).rows] == [
        ("02", 8.0),
        ("04", 8.0),
        ("01", 8.0),
        ("06", 6.0),
        ("05", 6.0),
        ("03", 6.0),
    ]
    # opponents: 02 and 04: 10 + 14 + 16 + 14 = 54 each; 03 and 05: 16 + 12 + 12 + 10 = 50
    # each; the landlord's: 02 4 + 2, 04 2; 03 4, 05 4 + 4
    assert _summary(store) == [
        (1, 1, "01", 16.0, None),
        (2, 2, "02", 14.0, None),
        (3, 2, "04", 14.0, "landlord"),
        (4, 4, "05", 12.0, None),
        (5, 4, "03", 12.0, "landlord"),
        (6, 6, "06", 10.0, None),
    ]
    breaks = {r.player.code: r.tie_breaks for r in compute_standings(store).rows}
    assert (breaks["02"]["opponents"], breaks["04"]["opponents"]) == (54.0, 54.0)
    assert (breaks["03"]["landlord"], breaks["05"]["landlord"]) == (4.0, 8.0)


def test_a_pending_result_counts_nothing_until_confirmed(make_event: MakeEvent) -> None:
    store = six_player_event(make_event, confirmed=False)
    table = compute_standings(store)
    assert table.pending == 1
    # board 4 is compared at table 1 alone: each holder beats nobody (0); so 05 lacks its
    # 2 and 04 and 01 theirs (their table-2 rivals have no counted result)
    assert {r.player.code: r.total for r in table.rows} == {
        "01": 5.0,
        "02": 5.0,
        "03": 3.0,
        "04": 3.0,
        "05": 1.0,
        "06": 1.0,
    }
    sheet = next(s for s in table.sheets if s.board == 4)
    assert [(t.table_no, t.status, t.landlord_score) for t in sheet.tables] == [
        (1, "confirmed", 1.0),
        (2, "pending", None),
    ]
    confirm_result(store, 2, 2, 4, player="06", pin=store.pins(2)[2])
    assert compute_standings(store).pending == 0
    assert compute_standings(store).rows[0].total == 7.0


def test_the_per_board_sheet(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    sheet = next(s for s in compute_standings(store).sheets if s.board == 3)
    assert sheet.round == 2 and sheet.check == store.boards(2)[0].checksum
    t1, t2 = sheet.tables
    assert (t1.status, t1.landlord_hand, t1.landlord_score) == ("confirmed", 0, -2.0)
    assert t1.result is not None and t1.result.result.spring == "anti-spring"
    assert [(h.seat_score, h.points) for h in t1.hands] == [(-2.0, 0.0), (1.0, 2.0), (1.0, 2.0)]
    assert [(h.seat_score, h.points) for h in t2.hands] == [(1.0, 2.0), (-0.5, 0.0), (-0.5, 0.0)]


def test_a_rounds_sheets_from_tables_already_read_are_the_same(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    tables = RoundTables.load(store, 2)
    assert round_sheets(store, 2, tables=tables) == round_sheets(store, 2)
    with pytest.raises(ValueError, match="round 1 given the tables of round 2"):
        round_sheets(store, 1, tables=tables)


def test_a_missing_result_is_counted_as_missing_and_scores_nothing(make_event: MakeEvent) -> None:
    store = make_event(players=6, boards_per_round=2, first_round="rating")
    pair_round(store, 1, 1, "desk")
    choose_boards(store, 1, 1, "desk", select="random", pool=None)
    assert compute_standings(store).after_round == 0  # nothing released yet
    release(store, 1, "desk")
    enter_results(store, 1, [ResultLine(2, 1, 1, True)], "desk")
    table = compute_standings(store)
    assert (table.after_round, table.missing, table.pending) == (1, 3, 0)
    # board 1's hands are compared at table 1 only: nobody beats anybody
    assert {r.total for r in table.rows} == {0.0}
    with pytest.raises(ConfigError, match="the event has 1 paired round"):
        compute_standings(store, 2)


def test_a_bye_scores_the_players_own_average(make_event: MakeEvent) -> None:
    # seven players: two tables and one bye a round
    store = make_event(players=7, boards_per_round=1, rounds=3, first_round="rating")
    pair_round(store, 1, 1, "desk")
    (bye,) = [p for _, p in store.byes(1)]
    choose_boards(store, 1, 1, "desk", select="random", pool=None)
    release(store, 1, "desk")
    enter_results(store, 1, [ResultLine(2, 1, 1, True), ResultLine(3, 2, 1, False)], "desk")
    pair_round(store, 2, 2, "desk")
    choose_boards(store, 2, 2, "desk", select="random", pool=None)
    release(store, 2, "desk")
    # round 2: the landlord wins 1 at the bye player's table if they hold hand A, else loses 1;
    # the other table the opposite: the bye player's hand scores better than its rival (2)
    code = next(p.code for p in store.players() if p.id == bye)
    (table_no, hand), *_ = [(t, h.index(code)) for (_, t), h in holders_of(store, 2).items() if code in h]
    wins = {table_no: hand == 0, 3 - table_no: hand != 0}
    enter_results(store, 2, [ResultLine(2, 1, 2, wins[1]), ResultLine(3, 2, 2, wins[2])], "desk")
    row = next(r for r in compute_standings(store).rows if r.player.id == bye)
    # the bye of round 1 (one board a round) scores its own average per board played: 2
    assert (row.boards, row.board_points, row.bye_points, row.total) == (1, 2.0, 2.0, 4.0)


def test_who_is_ranked_after_withdrawals_and_late_entries(make_event: MakeEvent) -> None:
    store = make_event(players=7, boards_per_round=1, rounds=3, first_round="rating")
    withdraw(store, "07", "desk")  # before round 1: never plays, never ranked
    pair_round(store, 1, 1, "desk")
    choose_boards(store, 1, 1, "desk", select="random", pool=None)
    release(store, 1, "desk")
    enter_results(store, 1, [ResultLine(2, 1, 1, True), ResultLine(3, 2, 1, False)], "desk")
    withdraw(store, "01", "desk")  # after round 1: keeps what it scored
    add_late_entry(store, Entry("L", "Late"), "desk")  # from round 2: not ranked after round 1
    ranked = {r.player.code for r in compute_standings(store).rows}
    assert ranked == {"01", "02", "03", "04", "05", "06"}
