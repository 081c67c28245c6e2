"""A qualifying stage into a final (format ``final_after``, ``final_players``, ``carry_over``),
worked out by hand on nine players: who goes to the final, that the final seats only them, and
the standings and places under each ``carry_over``.

Nine players 01..09 (rated 2000 down by 10), three rounds of one board, casual scoring, round 1
seeded by rating, ``final_after=2``, ``final_players=6``, ``top=2``. With three tables each
hand of a board has three holders; matchpoints: 2 per holder beaten, 1 per tie. Seat scores:
the landlord (hand A) s, each farmer -s/2.

Round 1 (by rating; seating asserted): table 1 = A 01, B 04, C 07; table 2 = A 02, B 05, C 08;
table 3 = A 03, B 06, C 09. Results +1 | -1 | -1:
    A 01 +1, 02 -1, 03 -1          -> 01 4, 02 1, 03 1
    B 04 -0.5, 05 +0.5, 06 +0.5    -> 04 0, 05 3, 06 3   (C likewise: 07 0, 08 3, 09 3)
Round 2 (Swiss on 01 4; 05 06 08 09 3; 02 03 1; 04 07 0): table 1 = A 05, B 01, C 06;
table 2 = A 08, B 09, C 07; table 3 = A 04, B 02, C 03. Results +2 (spring) | -1 | +1:
    A 05 +2, 08 -1, 04 +1          -> 05 4, 04 2, 08 0
    B 01 -1, 09 +0.5, 02 -0.5      -> 09 4, 02 2, 01 0   (C likewise: 07 4, 03 2, 06 0)

Qualifying totals: 05 7, 09 7, 01 4, 07 4, 02 3, 03 3, 06 3, 08 3, 04 2. Opponents (their
totals, once per round together): 05 3+3 + 4+3 = 13, 09 3+3 + 3+4 = 13, 01 2+4 + 7+3 = 16,
07 4+2 + 3+7 = 16, 06 3+7 + 4+7 = 21, 08 3+7 + 7+4 = 21, 02 7+3 + 3+2 = 15, 03 3+7 + 3+2 = 15.
Hand A's points: 05 4, 01 4, 02 1, 03 1, 04 2, the others 0. So the qualifying order is
05, 09 (landlord), 01, 07 (landlord), then the four on 3: 06 and 08 (opponents 21) before 02
and 03 (15), each pair tied on every tie-break but the lot, then 04. **The cut** (6 of 9)
falls inside the four on 3: 06 and 08 go to the final on the opponents' tie-break.

Round 3, the final (Swiss on what each finalist carries in), results -1 | +2 (spring):

none (everyone starts at 0): table 1 = A 06, B 07, C 05; table 2 = A 09, B 08, C 01.
    A 06 -1 < 09 +2 -> 09 2, 06 0; B 07 +0.5 > 08 -1 -> 07 2; C 05 +0.5 > 01 -1 -> 05 2.
    Totals 05 2, 07 2, 09 2, 06 0, 08 0, 01 0. Final opponents: 05 and 07 sat with each other
    and 06: 2 each; 09 with 01, 08: 0; 06 with 05, 07: 4; 08 and 01 with each other and 09: 2.
    Order: 05, 07 (lot), 09 (opponents); 06, 08 (opponents), 01 (lot).
half (05 09 3.5, 01 07 2, 06 08 1.5) and full (05 09 7, 01 07 4, 06 08 3): table 1 = A 09,
B 05, C 01; table 2 = A 07, B 08, C 06.
    A 09 -1 < 07 +2 -> 07 2, 09 0; B 05 +0.5 > 08 -1 -> 05 2; C 01 +0.5 > 06 -1 -> 01 2.
    half: 05 5.5, 01 4, 07 4, 09 3.5, 08 1.5, 06 1.5; full: 05 9, 09 7, 01 6, 07 6, 08 3,
    06 3. 01 before 07 on the final's opponents (01 sat with 05 and 09, 07 with 06 and 08);
    08 and 06 sat together and with 07: tied on every tie-break but the lot.

The non-finalists follow in their qualifying order, placed from 7: 03, 02 (both on 3: place 7
shared), 04 (place 9).
"""

from __future__ import annotations

import pytest
from director_helpers import MakeEvent, holders_of, tables_of

from paiju.core.errors import ConfigError
from paiju.tournament.director import rounds, standings
from paiju.tournament.director.entry import ResultLine, correct_result, enter_results
from paiju.tournament.director.players import Entry, add_late_entry, withdraw
from paiju.tournament.director.results import TableResult
from paiju.tournament.director.rounds import choose_boards, pair_round, release
from paiju.tournament.director.standings import Standings, compute_standings, finalists
from paiju.tournament.director.store import EventStore

NINE_FORMAT = {
    "rounds": 3,
    "boards_per_round": 1,
    "scoring": "casual",
    "first_round": "rating",
    "final_after": 2,
    "final_players": 6,
    "top": 2,
}
# (table, landlord won, spring) per round, as worked out in the module docstring
RESULTS = {
    1: [(1, True, "none"), (2, False, "none"), (3, False, "none")],
    2: [(1, True, "spring"), (2, False, "none"), (3, True, "none")],
    3: [(1, False, "none"), (2, True, "spring")],
}


def play(store: EventStore, round_no: int, *, enter: bool = True) -> None:
    """Pair, choose the boards of and release round ``round_no``; enter its results."""
    pair_round(store, round_no, round_no, "desk")
    choose_boards(store, round_no, round_no, "desk", select="random", pool=None)
    release(store, round_no, "desk")
    if enter:
        lines = [
            ResultLine(i + 2, table, round_no, won, spring=spring)
            for i, (table, won, spring) in enumerate(RESULTS[round_no])
        ]
        enter_results(store, round_no, lines, "desk")


def qualified(make_event: MakeEvent, carry_over: str = "none", **fmt: object) -> EventStore:
    store = make_event(players=9, **{**NINE_FORMAT, "carry_over": carry_over, **fmt})
    play(store, 1)
    play(store, 2)
    return store


def summary(table: Standings) -> list[tuple[int, int, str, float, str | None]]:
    return [(r.rank, r.place, r.player.code, r.total, r.decided_by) for r in table.rows]


def codes(store: EventStore, ids: list[int]) -> list[str]:
    code = {p.id: p.code for p in store.players()}
    return [code[i] for i in ids]


QUALIFYING = [
    (1, 1, "05", 7.0, None),
    (2, 1, "09", 7.0, "landlord"),
    (3, 3, "01", 4.0, None),
    (4, 3, "07", 4.0, "landlord"),
    (5, 5, "08", 3.0, None),
    (6, 5, "06", 3.0, "lot"),
    (7, 5, "03", 3.0, "opponents"),
    (8, 5, "02", 3.0, "lot"),
    (9, 9, "04", 2.0, None),
]
NON_FINALISTS = [(7, 7, "03", 3.0, None), (8, 7, "02", 3.0, "lot"), (9, 9, "04", 2.0, None)]


def test_the_qualifying_stage_and_the_cut(make_event: MakeEvent) -> None:
    store = qualified(make_event)
    assert tables_of(store, 1) == {1: ["01", "04", "07"], 2: ["02", "05", "08"], 3: ["03", "06", "09"]}
    assert holders_of(store, 2) == {
        (2, 1): ["05", "01", "06"],
        (2, 2): ["08", "09", "07"],
        (2, 3): ["04", "02", "03"],
    }
    table = compute_standings(store)
    assert summary(table) == QUALIFYING
    breaks = {r.player.code: r.tie_breaks for r in table.rows}
    assert {c: breaks[c]["opponents"] for c in ("06", "08", "02", "03")} == {
        "06": 21,
        "08": 21,
        "02": 15,
        "03": 15,
    }
    # the lot: the lower wins
    assert breaks["08"]["lot"] < breaks["06"]["lot"] and breaks["03"]["lot"] < breaks["02"]["lot"]
    assert all(r.stage is None and r.carried == 0 for r in table.rows)  # no final yet
    # the top 6 on the tie-breaks: 06 and 08 in, 02 and 03 (on the same total) out
    assert codes(store, finalists(store)) == ["05", "09", "01", "07", "08", "06"]
    assert store.round(2).pairing_report["stage"] == "qualifying"


@pytest.mark.parametrize(
    ("carry_over", "tables", "final", "top_unique"),
    [
        (
            "none",
            {1: ["06", "07", "05"], 2: ["09", "08", "01"]},
            [
                (1, 1, "05", 2.0, None),
                (2, 1, "07", 2.0, "lot"),
                (3, 1, "09", 2.0, "opponents"),
                (4, 4, "06", 0.0, None),
                (5, 4, "08", 0.0, "opponents"),
                (6, 4, "01", 0.0, "lot"),
            ],
            False,
        ),
        (
            "half",
            {1: ["09", "05", "01"], 2: ["07", "08", "06"]},
            [
                (1, 1, "05", 5.5, None),
                (2, 2, "01", 4.0, None),
                (3, 2, "07", 4.0, "opponents"),
                (4, 4, "09", 3.5, None),
                (5, 5, "08", 1.5, None),
                (6, 5, "06", 1.5, "lot"),
            ],
            False,  # top 2: 5.5, 4, 4
        ),
        (
            "full",
            {1: ["09", "05", "01"], 2: ["07", "08", "06"]},
            [
                (1, 1, "05", 9.0, None),
                (2, 2, "09", 7.0, None),
                (3, 3, "01", 6.0, None),
                (4, 3, "07", 6.0, "opponents"),
                (5, 5, "08", 3.0, None),
                (6, 5, "06", 3.0, "lot"),
            ],
            True,  # top 2: 9, 7, 6 (the qualifying 7, 7 would not be)
        ),
    ],
)
def test_the_final_and_its_standings(
    make_event: MakeEvent,
    carry_over: str,
    tables: dict[int, list[str]],
    final: list[tuple[int, int, str, float, str | None]],
    top_unique: bool,
) -> None:
    store = qualified(make_event, carry_over)
    play(store, 3)
    # round 3's tables hold the six finalists only; hands A, B, C at each
    assert {t: h for (_, t), h in holders_of(store, 3).items()} == tables
    report = store.round(3).pairing_report
    assert report["stage"] == "final" and report["byes"] == []
    carried = {"none": 0.0, "half": 0.5, "full": 1.0}[carry_over]
    assert report["totals"] == {str(i): carried * t for i, t in _qualifying_totals(store).items()}
    table = compute_standings(store)
    assert summary(table) == final + NON_FINALISTS
    assert [r.stage for r in table.rows] == ["final"] * 6 + ["qualifying"] * 3
    assert table.top_unique is top_unique
    for row in table.rows[:6]:
        # the total is the final's points plus what was carried in
        assert row.carried == carried * dict(q[2:4] for q in QUALIFYING)[row.player.code]
        assert row.total == row.board_points + row.carried and row.boards == 1
    assert [(r.board_points, r.boards, r.carried) for r in table.rows[6:]] == [
        (3.0, 2, 0.0),
        (3.0, 2, 0.0),
        (2.0, 2, 0.0),
    ]
    # each hand of the final's board was compared between its two finalist holders only
    (sheet,) = [s for s in table.sheets if s.round == 3]
    assert sorted(h.points for t in sheet.tables for h in t.hands) == [0.0, 0.0, 0.0, 2.0, 2.0, 2.0]
    # the standings after round 2 are still the qualifying ones
    assert summary(compute_standings(store, 2)) == QUALIFYING


def _qualifying_totals(store: EventStore) -> dict[int, float]:
    chosen = set(finalists(store))
    return {r.player.id: r.total for r in compute_standings(store, 2).rows if r.player.id in chosen}


def test_the_final_waits_for_every_qualifying_result(make_event: MakeEvent) -> None:
    store = make_event(players=9, **NINE_FORMAT)
    play(store, 1)
    pair_round(store, 2, 2, "desk")
    choose_boards(store, 2, 2, "desk", select="random", pool=None)
    with pytest.raises(ConfigError, match="the final's cut needs round 2 released"):
        pair_round(store, 3, 3, "desk")
    release(store, 2, "desk")
    enter_results(store, 2, [ResultLine(2, 1, 2, True, spring="spring")], "desk")
    with pytest.raises(ConfigError, match="0 pending, 2 missing"):
        pair_round(store, 3, 3, "desk")


@pytest.mark.parametrize("round_no", [3, 4])
def test_pairing_a_final_round_computes_the_standings_once(
    make_event: MakeEvent, monkeypatch: pytest.MonkeyPatch, round_no: int
) -> None:
    """The cut's check, the cut and the totals Swiss pairs on read one computation of the
    standings after the round before (the final's first round computed them three times)."""
    store = qualified(make_event, "half", rounds=4)
    if round_no == 4:
        play(store, 3)
    calls: list[int | None] = []

    def counted(store: EventStore, after_round: int | None = None) -> Standings:
        calls.append(after_round)
        return compute_standings(store, after_round)

    monkeypatch.setattr(standings, "compute_standings", counted)
    monkeypatch.setattr(rounds, "compute_standings", counted)
    pair_round(store, round_no, round_no, "desk")
    assert calls == [round_no - 1]


def test_a_withdrawal_before_the_final_is_replaced_and_one_during_it_is_not(make_event: MakeEvent) -> None:
    store = qualified(make_event, rounds=4)
    withdraw(store, "05", "desk")  # before the final is paired: the next in line, 03, goes
    add_late_entry(store, Entry("10", "Late"), "desk")  # from round 3: qualified for nothing
    assert codes(store, finalists(store)) == ["09", "01", "07", "08", "06", "03"]
    play(store, 3, enter=False)
    assert sorted(c for t in tables_of(store, 3).values() for c in t) == ["01", "03", "06", "07", "08", "09"]
    withdraw(store, "09", "desk")  # during the final: not replaced; five play, two have a bye
    result = pair_round(store, 4, 4, "desk")
    seated = [c for t in tables_of(store, 4).values() for c in t]
    assert len(seated) == 3 and len(result.byes) == 2
    assert sorted(seated + codes(store, result.byes)) == ["01", "03", "06", "07", "08"]
    table = compute_standings(store, 3)
    # the six who played the final first (09 among them: it withdrew after round 3), then
    # 05 on its qualifying 7 (placed 7), 02 (3) and 04 (2); the late entry played nothing
    assert [r.player.code for r in table.rows[6:]] == ["05", "02", "04"]
    assert [r.place for r in table.rows[6:]] == [7, 8, 9]
    assert {r.player.code for r in table.rows[:6]} == {"01", "03", "06", "07", "08", "09"}


def test_a_final_field_not_a_multiple_of_three_takes_sitters(make_event: MakeEvent) -> None:
    store = qualified(make_event, final_players=4, odd_field="sitter")
    play(store, 3, enter=False)
    tables = tables_of(store, 3)
    assert sorted(c for t in tables.values() for c in t) == ["01", "05", "07", "09", "sitter", "sitter"]
    assert all(t.count("sitter") == 1 for t in tables.values())


def test_the_cut_is_fixed_once_the_final_is_paired(make_event: MakeEvent) -> None:
    store = qualified(make_event, "full")
    play(store, 3)
    assert store.round(3).pairing_report["finalists"] == finalists(store)
    # round 2, table 3 (A 04, B 02, C 03) corrected from +1 to an anti-spring -2: board 2's
    # hand A: 05 +2, 08 -1, 04 -2 -> 4, 2, 0; hands B and C: table 3 +1, table 2 +0.5, table 1
    # -1 -> 02 and 03 4, 09 and 07 2, 01 and 06 0. Qualifying totals: 05 7; 02, 03, 08, 09 5;
    # 01 4; 06 3; 07 2; 04 0. 02 and 03 now stand above 06 and 07, but the final was paired
    # on the cut as it was, and stays so
    correct_result(store, 2, 3, 2, TableResult(0, False, spring="anti-spring"), "chief", "slip misread")
    assert {r.player.code: r.total for r in compute_standings(store, 2).rows}["02"] == 5.0
    assert codes(store, finalists(store)) == ["05", "09", "01", "07", "08", "06"]
    # the final, full carry-over of the corrected totals, plus round 3 (07, 05, 01 2 each):
    # 05 9, 01 6, 09 5, 08 5, 07 4, 06 3; 09 before 08 on the final's opponents (05 and 01:
    # 15; 08's 07 and 06: 7). Then 02 and 03 on 5 (02's qualifying opponents 7 + 5 + 5 + 0 =
    # 17, 03's 3 + 5 + 5 + 0 = 13), and 04
    table = compute_standings(store)
    assert summary(table) == [
        (1, 1, "05", 9.0, None),
        (2, 2, "01", 6.0, None),
        (3, 3, "09", 5.0, None),
        (4, 3, "08", 5.0, "opponents"),
        (5, 5, "07", 4.0, None),
        (6, 6, "06", 3.0, None),
        (7, 7, "02", 5.0, None),
        (8, 7, "03", 5.0, "opponents"),
        (9, 9, "04", 0.0, None),
    ]
