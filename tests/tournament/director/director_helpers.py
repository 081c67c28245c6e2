"""Helpers of the director's tests: a small field of players, the event fixture's type, and the
hand-computed six-player event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from paiju.tournament.director.entry import ResultLine, confirm_result, enter_results, submit_result
from paiju.tournament.director.players import Entry
from paiju.tournament.director.results import TableResult
from paiju.tournament.director.rounds import choose_boards, pair_round, release
from paiju.tournament.director.store import EventStore

MakeEvent = Callable[..., EventStore]
"""``make_event(players=9, clubs=0, name="event.db", **format_fields)``: a new event file."""


def entries(count: int, clubs: int = 0) -> list[Entry]:
    """Players 01.. named P01.., rated 2000 down by 10, in ``clubs`` clubs round robin (0: none)."""
    return [
        Entry(f"{i:02d}", f"P{i:02d}", f"C{i % clubs}" if clubs else "", 2000.0 - 10 * i)
        for i in range(1, count + 1)
    ]


SIX_FORMAT: Final = {
    "rounds": 3,
    "boards_per_round": 2,
    "scoring": "casual",  # spring and anti-spring double: scores of +-1 and +-2 on any board
    "first_round": "rating",
}
"""The hand-computed six-player event's format (see :func:`six_player_event`)."""


def six_player_event(
    make_event: MakeEvent, comparison: str = "matchpoints", *, confirmed: bool = True
) -> EventStore:
    """Six players, two tables, two boards a round, two rounds played; hand A is the landlord.

    Round 1 (seeded by rating; seating asserted by the tests): table 1 = 01, 03, 05 and
    table 2 = 02, 04, 06. Board 1: A 01|06, B 03|02, C 05|04 (table 1's holder | table 2's);
    board 2: A 05|02, B 01|04, C 03|06. Results (landlord's score, table 1 | table 2):
    board 1 +2 (spring) | +1, board 2 -1 | -1.

    Round 2 (Swiss): table 1 = 01, 02, 04 and table 2 = 03, 05, 06. Board 3: A 04|03,
    B 01|05, C 02|06; board 4: A 02|05, B 04|06, C 01|03. Results: board 3 -2 (anti-spring) |
    +1, board 4 +1 | +2 (spring). Board 4 at table 2 is entered by player 05 at the table;
    with ``confirmed`` player 06 confirms it, without it stays pending.
    """
    store = make_event(players=6, comparison=comparison, **SIX_FORMAT)
    pair_round(store, 1, 1, "desk")
    choose_boards(store, 1, 1, "desk", select="random", pool=None)
    release(store, 1, "desk")
    enter_results(
        store,
        1,
        [
            ResultLine(2, 1, 1, True, spring="spring"),
            ResultLine(3, 2, 1, True),
            ResultLine(4, 1, 2, False),
            ResultLine(5, 2, 2, False),
        ],
        "desk",
    )
    pair_round(store, 2, 2, "desk")
    choose_boards(store, 2, 2, "desk", select="random", pool=None)
    release(store, 2, "desk")
    enter_results(
        store,
        2,
        [
            ResultLine(2, 1, 3, False, spring="anti-spring"),
            ResultLine(3, 2, 3, True),
            ResultLine(4, 1, 4, True),
        ],
        "desk",
    )
    pin = store.pins(2)[2]
    submit_result(store, 2, 2, 4, TableResult(0, True, spring="spring"), player="05", pin=pin)
    if confirmed:
        confirm_result(store, 2, 2, 4, player="06", pin=pin)
    return store


def tables_of(store: EventStore, round_no: int) -> dict[int, list[str]]:
    """Table -> its players' ids, by position."""
    code = {p.id: p.code for p in store.players()}
    out: dict[int, list[str]] = {}
    for seat in store.seats(round_no):
        out.setdefault(seat.table_no, []).append("sitter" if seat.player_id is None else code[seat.player_id])
    return out


def holders_of(store: EventStore, round_no: int) -> dict[tuple[int, int], list[str]]:
    """(board, table) -> the ids holding hands A, B, C there."""
    tables = tables_of(store, round_no)
    return {
        (st.board, st.table_no): [tables[st.table_no][p] for p in st.holders]
        for st in store.movement(round_no)
    }
