"""The organiser's pages' API (``paiju.web.routes.tournament``) on a real event file.

Each endpoint against the library's own view of the same file: the event, a round's
pairings, a table's boards, the players' entry and confirmation with the table's PIN (wrong
PINs, players of other tables, impossible results and double entries refused naming the
field; repeated wrong PINs slowed down), the standings, and the director's pages behind the
token (release, corrections, adjustments, the log). No response ever holds the cards of a
board its tables have not all played, nor a PIN outside the director's view. The CLI and the
web app enter results on the same file at the same time, and the app holds the file open
only while it answers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import make_client

from paiju.tournament.director.adjustments import penalise
from paiju.tournament.director.boards import Board
from paiju.tournament.director.entry import ResultLine, enter_results
from paiju.tournament.director.formats import EventFormat
from paiju.tournament.director.rounds import choose_boards, pair_round, release
from paiju.tournament.director.seating import RoundTables
from paiju.tournament.director.standings import compute_standings
from paiju.tournament.director.store import EventStore

TOKEN = "director-secret-token"
DIRECTOR = {"X-Director-Token": TOKEN}
PLAYERS = 9  # three tables


def _create(path: Path) -> None:
    """Nine players seeded by rating; round 1 released; round 2 paired with its boards, secret."""
    rows = [
        {"code": f"{i:02d}", "name": f"Player {i}", "club": "", "rating": 2000.0 - 10 * i}
        for i in range(1, PLAYERS + 1)
    ]
    fmt = EventFormat(rounds=3, first_round="rating")
    with EventStore.create(path, "Web club night", fmt, "desk", rows) as store:
        pair_round(store, 1, 1, "desk")
        choose_boards(store, 1, 1, "desk", select="random", pool=None)
        release(store, 1, "desk")
        pair_round(store, 2, 2, "desk")
        choose_boards(store, 2, 2, "desk", select="random", pool=None)


@pytest.fixture
def event_path(tmp_path: Path) -> Path:
    path = tmp_path / "club.db"
    _create(path)
    return path


@pytest.fixture
def api(app_factory: Any, event_path: Path) -> Iterator[Any]:
    with make_client(app_factory(event=event_path, director_token=TOKEN)) as c:
        yield c


def seating(path: Path, round_no: int) -> dict[int, list[str]]:
    """Table -> its players' ids by seat, read from the file."""
    with EventStore.open(path) as store:
        code = {p.id: p.code for p in store.players()}
        out: dict[int, list[str]] = {}
        for seat in store.seats(round_no):
            assert seat.player_id is not None
            out.setdefault(seat.table_no, []).append(code[seat.player_id])
    return out


def pins(path: Path, round_no: int) -> dict[int, str]:
    with EventStore.open(path) as store:
        return store.pins(round_no)


def boards(path: Path, round_no: int) -> list[Board]:
    with EventStore.open(path) as store:
        return [Board.parse(b.record) for b in store.boards(round_no)]


def first_board(path: Path, round_no: int, table_no: int) -> int:
    """The board the table plays first (stage 0)."""
    with EventStore.open(path) as store:
        return next(st.board for st in store.movement(round_no) if st.table_no == table_no and st.stage == 0)


def hand_strings(board: Board) -> list[str]:
    return [str(h) for h in board.hands]


def bombs_held(board: Board) -> int:
    """Bombs and rockets the board's hands hold, counted from the cards' notation (hand A with
    the bottom cards): four of a rank, and both jokers in one hand."""
    total = 0
    for i, hand in enumerate(board.hands):
        cards = str(hand) + (str(board.bottom) if i == 0 else "")
        total += sum(cards.count(rank) == 4 for rank in "3456789TJQKA2")
        total += "X" in cards and "D" in cards
    return total


def entry(board: int, player: str, pin: str, **result: Any) -> dict[str, Any]:
    return {"board": board, "player": player, "pin": pin, "bombs": 0, "result": "won", **result}


def refused(response: Any, status: int, field: str | None) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["field"] == field, body
    return str(body["error"])


# ---- no event served -----------------------------------------------------------------------------
def test_without_an_event_every_route_says_how_to_serve_one(client: Any) -> None:
    for path in ("/api/tournament", "/api/tournament/standings", "/api/tournament/rounds/1"):
        assert "paiju serve --event" in refused(client.get(path), 404, None)
    assert client.get("/api/tournament/director/rounds/1", headers=DIRECTOR).status_code == 404
    for page in ("/tournament", "/tournament/round", "/tournament/table", "/tournament/standings"):
        r = client.get(page)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")


def test_an_event_that_is_no_event_is_refused_at_start(app_factory: Any, tmp_path: Path) -> None:
    from paiju.core.errors import CorruptRecordError, NotFoundError

    junk = tmp_path / "junk.db"
    junk.write_text("not an event")
    with pytest.raises(CorruptRecordError, match="not a paiju event file"):
        app_factory(event=junk)
    with pytest.raises(NotFoundError):
        app_factory(event=tmp_path / "missing.db")


# ---- what everyone sees --------------------------------------------------------------------------
def test_the_event_lists_its_players_and_rounds(api: Any, event_path: Path) -> None:
    ev = api.get("/api/tournament").json()
    assert ev["name"] == "Web club night"
    assert [p["id"] for p in ev["players"]] == [f"{i:02d}" for i in range(1, PLAYERS + 1)]
    assert ev["format"]["rounds"] == 3 and ev["current_round"] == 1
    assert [(r["round"], r["tables"], r["boards"], r["released"]) for r in ev["rounds"]] == [
        (1, 3, [1, 2, 3], True),
        (2, 3, [4, 5, 6], False),
    ]


def test_a_round_shows_its_tables_and_who_holds_which_hand(api: Any, event_path: Path) -> None:
    r = api.get("/api/tournament/rounds/1").json()
    seated = seating(event_path, 1)
    assert {t["table"]: [p["id"] for p in t["players"]] for t in r["tables"]} == seated
    with EventStore.open(event_path) as store:
        stages = store.movement(1)
    for t in r["tables"]:
        for p in t["players"]:
            for held in p["hands"]:
                stage = next(st for st in stages if st.table_no == t["table"] and st.board == held["board"])
                assert "ABC"[stage.holders.index(p["seat"] - 1)] == held["hand"]
    assert r["copies"] == 1  # three tables, three boards: one copy of each
    assert [b["board"] for b in r["boards"]] == [1, 2, 3]
    assert [b["check"] for b in r["boards"]] == [b.check for b in boards(event_path, 1)]


def test_a_table_shows_its_boards_in_the_order_it_plays_them(api: Any, event_path: Path) -> None:
    view = api.get("/api/tournament/rounds/1/tables/2").json()
    assert [p["id"] for p in view["players"]] == seating(event_path, 1)[2]
    with EventStore.open(event_path) as store:
        own = sorted((st for st in store.movement(1) if st.table_no == 2), key=lambda st: st.stage)
    assert [b["board"] for b in view["boards"]] == [st.board for st in own]
    players = seating(event_path, 1)[2]
    for b, st in zip(view["boards"], own, strict=True):
        assert b["holders"] == {"ABC"[h]: players[p] for h, p in enumerate(st.holders)}
        assert b["status"] == "missing" and b["result"] is None


def test_a_table_is_drawn_from_one_reading_of_its_round(
    api: Any, event_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's view reads the round's tables and its results once each (its statuses and
    entered results come from the same sheets, so they cannot disagree)."""
    first, _, _ = seating(event_path, 1)[1]
    board = first_board(event_path, 1, 1)
    url = "/api/tournament/rounds/1/tables/1"
    assert api.post(f"{url}/results", json=entry(board, first, pins(event_path, 1)[1])).status_code == 200
    reads: Counter[str] = Counter()
    load, results = RoundTables.load, EventStore.results

    def counted_load(cls: type[RoundTables], store: EventStore, round_no: int) -> RoundTables:
        reads["tables"] += 1
        return load(store, round_no)

    def counted_results(store: EventStore, round_no: int | None = None) -> Any:
        reads["results"] += 1
        return results(store, round_no)

    monkeypatch.setattr(RoundTables, "load", classmethod(counted_load))
    monkeypatch.setattr(EventStore, "results", counted_results)
    view = api.get(url).json()
    assert reads == {"tables": 1, "results": 1}
    shown = next(b for b in view["boards"] if b["board"] == board)
    assert shown["status"] == "pending" and shown["result"]["entered_by"] == f"player {first}"
    others = [b for b in view["boards"] if b["board"] != board]
    assert others and all(b["status"] == "missing" and b["result"] is None for b in others)


def test_an_unknown_round_or_table_is_a_404_naming_the_path(api: Any) -> None:
    assert "round 3 is not paired yet" in refused(api.get("/api/tournament/rounds/3"), 404, "path.round_no")
    refused(api.get("/api/tournament/rounds/1/tables/4"), 404, "path.table_no")
    body = entry(1, "01", "0000")
    refused(api.post("/api/tournament/rounds/1/tables/9/results", json=body), 404, "path.table_no")
    refused(api.post("/api/tournament/rounds/7/tables/1/results", json=body), 404, "path.round_no")
    # out of every event's range: refused by the request's bounds
    refused(api.get("/api/tournament/rounds/0"), 422, "path.round_no")


# ---- score entry at the table --------------------------------------------------------------------
def test_a_player_enters_and_another_confirms(api: Any, event_path: Path) -> None:
    first, second, third = seating(event_path, 1)[1]
    pin = pins(event_path, 1)[1]
    board = first_board(event_path, 1, 1)
    url = "/api/tournament/rounds/1/tables/1"
    pending = api.post(f"{url}/results", json=entry(board, first, pin, bombs=0, result="lost"))
    assert pending.status_code == 200, pending.text
    assert pending.json()["status"] == "pending" and pending.json()["entered_by"] == f"player {first}"
    assert pending.json()["landlord_score"] == -1.0  # competition: the landlord loses 1, no bomb
    # pending results count nothing yet
    assert api.get("/api/tournament/standings").json()["pending"] == 1
    # the player who entered it cannot confirm it
    why = refused(
        api.post(f"{url}/confirm", json={"board": board, "player": first, "pin": pin}), 422, "player"
    )
    assert "another player of the table confirms it" in why
    done = api.post(f"{url}/confirm", json={"board": board, "player": third, "pin": pin})
    assert done.status_code == 200 and done.json()["confirmed_by"] == f"player {third}"
    assert api.get(url).json()["boards"][0]["status"] == "confirmed"
    with EventStore.open(event_path) as store:
        (row,) = store.results(1)
        assert (row["table_no"], row["board"], row["landlord_won"], row["confirmed_by"]) == (
            1,
            board,
            0,
            f"player {third}",
        )
        actions = [e.action for e in store.audit_log() if e.who.startswith("player ")]
    assert actions == [f"enter round 1, table 1, board {board}", f"confirm round 1, table 1, board {board}"]
    # confirmed: changed only by the director now
    again = api.post(f"{url}/results", json=entry(board, second, pin))
    assert "already confirmed" in refused(again, 422, "board")


def test_a_player_who_disagrees_enters_their_own_version(api: Any, event_path: Path) -> None:
    first, second, _ = seating(event_path, 1)[1]
    pin = pins(event_path, 1)[1]
    board = first_board(event_path, 1, 1)
    url = "/api/tournament/rounds/1/tables/1"
    api.post(f"{url}/results", json=entry(board, first, pin, result="won"))
    mine = api.post(f"{url}/results", json=entry(board, second, pin, result="lost")).json()
    assert (mine["status"], mine["result"], mine["entered_by"]) == ("pending", "lost", f"player {second}")
    # now the first player may confirm the second's version
    done = api.post(f"{url}/confirm", json={"board": board, "player": first, "pin": pin}).json()
    assert done["status"] == "confirmed" and done["result"] == "lost"


def test_wrong_pins_players_and_boards_are_refused_naming_the_field(api: Any, event_path: Path) -> None:
    seated = seating(event_path, 1)
    table_pins = pins(event_path, 1)
    board = first_board(event_path, 1, 1)
    url = "/api/tournament/rounds/1/tables/1/results"
    player = seated[1][0]
    wrong = next(p for p in ("0000", "1111") if p != table_pins[1])
    assert "wrong PIN" in refused(api.post(url, json=entry(board, player, wrong)), 422, "pin")
    # another table's PIN is a wrong PIN here
    if table_pins[2] != table_pins[1]:
        refused(api.post(url, json=entry(board, player, table_pins[2])), 422, "pin")
    # a player of another table, with this table's PIN
    elsewhere = seated[2][0]
    why = refused(api.post(url, json=entry(board, elsewhere, table_pins[1])), 422, "player")
    assert "sits at table 2 in round 1, not at table 1" in why
    refused(api.post(url, json=entry(board, "nobody", table_pins[1])), 422, "player")
    refused(api.post(url, json=entry(board, "   ", table_pins[1])), 422, "player")
    # a board of another round
    assert "not a board of round 1" in refused(
        api.post(url, json=entry(4, player, table_pins[1])), 422, "board"
    )
    # a round not released: its boards are secret and nothing is entered
    refused(
        api.post("/api/tournament/rounds/2/tables/1/results", json=entry(4, player, "0000")),
        422,
        "path.round_no",
    )
    assert api.get("/api/tournament/standings").json()["pending"] == 0


def test_a_result_the_board_cannot_produce_is_refused_naming_the_field(api: Any, event_path: Path) -> None:
    player = seating(event_path, 1)[1][0]
    pin = pins(event_path, 1)[1]
    number = first_board(event_path, 1, 1)
    board = next(b for b in boards(event_path, 1) if b.number == number)
    url = "/api/tournament/rounds/1/tables/1/results"
    too_many = bombs_held(board) + 1
    why = refused(api.post(url, json=entry(number, player, pin, bombs=too_many)), 422, "bombs")
    assert f"hold at most {too_many - 1}" in why
    refused(api.post(url, json=entry(number, player, pin, spring="spring", result="lost")), 422, "spring")
    refused(api.post(url, json=entry(number, player, pin, spring="anti-spring", result="won")), 422, "spring")
    refused(api.post(url, json=entry(number, player, pin, doublings=1)), 422, "doublings")
    refused(
        api.post(url, json=entry(number, player, pin, declarer="B")), 422, "declarer"
    )  # hand A is landlord
    refused(api.post(url, json=entry(number, player, pin, bid=2)), 422, "bid")  # no bidding here
    # the request's own bounds
    refused(api.post(url, json=entry(number, player, pin, bombs=99)), 422, "bombs")
    refused(api.post(url, json=entry(number, player, "1" * 17)), 422, "pin")
    refused(api.post(url, json=entry(number, "x" * 201, pin)), 422, "player")
    refused(api.post(url, json=entry(number, player, pin, result="draw")), 422, "result")
    refused(api.post(url, json=entry(number, player, pin, bombs="0")), 422, "bombs")  # strict: no strings
    refused(api.post(url, json={**entry(number, player, pin), "score": 3}), 422, "score")  # unknown field
    with EventStore.open(event_path) as store:
        assert store.results() == []  # nothing half-written


def test_a_board_the_director_entered_is_not_entered_again_at_the_table(api: Any, event_path: Path) -> None:
    board = first_board(event_path, 1, 1)
    with EventStore.open(event_path) as store:
        enter_results(store, 1, [ResultLine(2, 1, board, True)], "desk")
    player = seating(event_path, 1)[1][0]
    why = refused(
        api.post(
            "/api/tournament/rounds/1/tables/1/results", json=entry(board, player, pins(event_path, 1)[1])
        ),
        422,
        "board",
    )
    assert "already confirmed" in why and "desk" in why


def test_repeated_wrong_pins_slow_the_table_down(app_factory: Any, event_path: Path) -> None:
    app = app_factory(event=event_path, director_token=TOKEN)
    guard = app.state.web.event.pins
    now = [1000.0]
    guard.clock = lambda: now[0]
    player = seating(event_path, 1)[1][0]
    right = pins(event_path, 1)[1]
    wrong = "0000" if right != "0000" else "1111"
    board = first_board(event_path, 1, 1)
    url = "/api/tournament/rounds/1/tables/1/results"
    with make_client(app) as api:
        for _ in range(guard.FREE_TRIES):
            refused(api.post(url, json=entry(board, player, wrong)), 422, "pin")
        refused(api.post(url, json=entry(board, player, wrong)), 422, "pin")  # this one locks the table
        locked = api.post(url, json=entry(board, player, right))  # even the right PIN waits
        assert "too many wrong PINs" in refused(locked, 429, "pin")
        assert locked.headers["Retry-After"] == str(int(guard.FIRST_WAIT_S) + 1)
        # another table is not slowed down
        other = seating(event_path, 1)[2][0]
        ok = api.post(
            "/api/tournament/rounds/1/tables/2/results",
            json=entry(first_board(event_path, 1, 2), other, pins(event_path, 1)[2]),
        )
        assert ok.status_code == 200, ok.text
        now[0] += guard.FIRST_WAIT_S + 0.1
        refused(api.post(url, json=entry(board, player, wrong)), 422, "pin")  # a wrong one: twice as long
        now[0] += guard.FIRST_WAIT_S + 0.1
        assert api.post(url, json=entry(board, player, right)).status_code == 429
        now[0] += guard.FIRST_WAIT_S
        assert api.post(url, json=entry(board, player, right)).status_code == 200
        # the right PIN starts the count again
        refused(api.post(url, json=entry(board, player, wrong)), 422, "pin")
        assert guard.wait_s(1, 1) == 0


def test_a_burst_of_guessed_pins_is_counted_guess_by_guess(app_factory: Any, event_path: Path) -> None:
    import asyncio

    import httpx

    app = app_factory(event=event_path, director_token=TOKEN)
    guard = app.state.web.event.pins
    player = seating(event_path, 1)[1][0]
    right = pins(event_path, 1)[1]
    guesses = [f"{n:04d}" for n in range(40) if f"{n:04d}" != right][:20]
    board = first_board(event_path, 1, 1)

    async def burst() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            url = "/api/tournament/rounds/1/tables/1/results"
            answers = await asyncio.gather(*(c.post(url, json=entry(board, player, g)) for g in guesses))
        return [a.status_code for a in answers]

    codes = asyncio.run(burst())
    # the free tries and the one that locks the table were tried; the rest waited their turn
    # and found the table locked
    assert sorted(codes) == [422] * (guard.FREE_TRIES + 1) + [429] * (len(guesses) - guard.FREE_TRIES - 1)


# ---- standings -----------------------------------------------------------------------------------
def test_the_standings_are_the_librarys(api: Any, event_path: Path) -> None:
    board = first_board(event_path, 1, 1)
    with EventStore.open(event_path) as store:
        enter_results(store, 1, [ResultLine(2, 1, board, True, bombs=0)], "desk")
        expected = compute_standings(store).as_dict(sheets=False)
        after_two = compute_standings(store, 2).as_dict()
    assert api.get("/api/tournament/standings").json() == expected
    assert api.get("/api/tournament/standings?round=2&boards=true").json() == after_two
    refused(api.get("/api/tournament/standings?round=3"), 422, "query.round")
    refused(api.get("/api/tournament/standings?round=99"), 422, "query.round")


# ---- secrets: cards and PINs ---------------------------------------------------------------------
def everything(api: Any) -> str:
    """Every GET answer of the API, as one text."""
    paths = [
        "/api/tournament",
        "/api/tournament/standings?boards=true",
        "/api/tournament/standings?round=2&boards=true",
    ]
    for round_no in (1, 2):
        paths.append(f"/api/tournament/rounds/{round_no}")
        paths += [f"/api/tournament/rounds/{round_no}/tables/{t}" for t in (1, 2, 3)]
    texts = [api.get(p).text for p in paths]
    for path in ("/api/tournament/director/rounds/1", "/api/tournament/director/rounds/2"):
        texts.append(api.get(path, headers=DIRECTOR).text)
    texts.append(api.get("/api/tournament/director/adjustments", headers=DIRECTOR).text)
    texts.append(api.get("/api/tournament/director/log?limit=500", headers=DIRECTOR).text)
    return "\n".join(texts)


def test_no_answer_holds_an_unreleased_boards_cards(api: Any, event_path: Path) -> None:
    secret = boards(event_path, 2)
    played = boards(event_path, 1)
    text = everything(api)
    for board in secret + played:  # nobody has finished a board of round 1 either
        for hand in hand_strings(board):
            assert hand not in text
    # once every table has a result on board 1, its cards show; round 2's still never
    seated, table_pins = seating(event_path, 1), pins(event_path, 1)
    for t in (1, 2, 3):
        url = f"/api/tournament/rounds/1/tables/{t}"
        assert api.post(f"{url}/results", json=entry(1, seated[t][0], table_pins[t])).status_code == 200
        if t < 3:
            assert api.post(
                f"{url}/confirm", json={"board": 1, "player": seated[t][1], "pin": table_pins[t]}
            ).is_success
    shown = api.get("/api/tournament/rounds/1").json()["boards"]
    assert shown[0]["cards"] is None  # table 3's is still pending
    api.post(
        "/api/tournament/rounds/1/tables/3/confirm",
        json={"board": 1, "player": seated[3][1], "pin": table_pins[3]},
    )
    shown = api.get("/api/tournament/rounds/1").json()["boards"]
    assert shown[0]["cards"] == {
        **dict(zip("ABC", hand_strings(played[0]), strict=True)),
        "bottom": str(played[0].bottom),
    }
    assert shown[1]["cards"] is None and shown[2]["cards"] is None
    text = everything(api)
    for board in secret:
        for hand in hand_strings(board):
            assert hand not in text
    # the PINs: in the director's view only
    public = "\n".join(
        api.get(p).text
        for p in ("/api/tournament", "/api/tournament/rounds/1", "/api/tournament/rounds/1/tables/1")
    )
    director = api.get("/api/tournament/director/rounds/1", headers=DIRECTOR).json()
    assert director["pins"] == {str(t): p for t, p in table_pins.items()}
    for pin in table_pins.values():
        assert f'"{pin}"' not in public


# ---- the director --------------------------------------------------------------------------------
DIRECTOR_PREFIX = "/api/tournament/director"
TOKEN_FIELD = "header.x-director-token"


def _director_routes() -> list[tuple[str, str]]:
    """(method, path) of every route of the app under the director's prefix, as its OpenAPI
    schema lists them (a route added there without the token's check is caught below)."""
    from paiju.web.app import create_app

    with tempfile.TemporaryDirectory() as root:
        app = create_app(Path(root) / "data", report_dirs=[])
        try:
            paths: dict[str, dict[str, Any]] = app.openapi()["paths"]
        finally:
            app.state.web.close()
    return sorted((m.upper(), p) for p, ops in paths.items() if p.startswith(DIRECTOR_PREFIX) for m in ops)


DIRECTOR_ROUTES = _director_routes()
Call = tuple[str, dict[str, Any] | None]


def _correction(path: Path) -> Call:
    board = first_board(path, 1, 1)
    with EventStore.open(path) as store:  # a correction needs a result to correct
        enter_results(store, 1, [ResultLine(2, 1, board, True)], "desk")
    body = {"table": 1, "board": board, "bombs": 0, "result": "lost", "reason": "slip misread"}
    return f"{DIRECTOR_PREFIX}/rounds/1/corrections", body


def _cancellation(path: Path) -> Call:
    with EventStore.open(path) as store:  # a cancellation needs an adjustment to withdraw
        made = penalise(store, 1, "01", 1.0, "desk", "late")
    return f"{DIRECTOR_PREFIX}/adjustments/{made.id}/cancel", {"reason": "he was on time"}


DIRECTOR_CALLS: dict[tuple[str, str], Callable[[Path], Call]] = {
    ("GET", f"{DIRECTOR_PREFIX}/rounds/{{round_no}}"): lambda _: (f"{DIRECTOR_PREFIX}/rounds/1", None),
    ("POST", f"{DIRECTOR_PREFIX}/rounds/{{round_no}}/release"): lambda _: (
        f"{DIRECTOR_PREFIX}/rounds/2/release",
        {},
    ),
    ("POST", f"{DIRECTOR_PREFIX}/rounds/{{round_no}}/corrections"): _correction,
    ("GET", f"{DIRECTOR_PREFIX}/adjustments"): lambda _: (f"{DIRECTOR_PREFIX}/adjustments", None),
    ("POST", f"{DIRECTOR_PREFIX}/adjustments"): lambda _: (
        f"{DIRECTOR_PREFIX}/adjustments",
        {"kind": "penalty", "round": 1, "player": "01", "points": 1, "reason": "late"},
    ),
    ("POST", f"{DIRECTOR_PREFIX}/adjustments/{{adjustment_id}}/cancel"): _cancellation,
    ("GET", f"{DIRECTOR_PREFIX}/log"): lambda _: (f"{DIRECTOR_PREFIX}/log", None),
}
"""A minimal valid call of each director's route (the file prepared for it): the director's
token is all it lacks."""


def test_every_directors_route_has_a_call() -> None:
    assert sorted(DIRECTOR_CALLS) == DIRECTOR_ROUTES


@pytest.mark.parametrize(("method", "route"), DIRECTOR_ROUTES)
def test_the_directors_routes_need_the_token(api: Any, event_path: Path, method: str, route: str) -> None:
    assert (method, route) in DIRECTOR_CALLS, f"{method} {route}: give it a call in DIRECTOR_CALLS"
    url, body = DIRECTOR_CALLS[(method, route)](event_path)
    kwargs: dict[str, Any] = {} if body is None else {"json": body}
    with EventStore.open(event_path) as store:
        logged = len(store.audit_log())
    refused(api.request(method, url, **kwargs), 403, TOKEN_FIELD)
    wrong = api.request(method, url, headers={"X-Director-Token": "guess"}, **kwargs)
    assert "wrong director's token" in refused(wrong, 403, TOKEN_FIELD)
    non_ascii = api.request(method, url, headers={"X-Director-Token": "é".encode()}, **kwargs)
    assert non_ascii.status_code == 403
    with EventStore.open(event_path) as store:
        assert len(store.audit_log()) == logged  # refused: nothing changed
    # the same call with the token is answered: the refusals were the token's
    done = api.request(method, url, headers=DIRECTOR, **kwargs)
    assert done.status_code == 200, done.text


def test_the_director_releases_a_round(api: Any, event_path: Path) -> None:
    url = "/api/tournament/director/rounds/2/release"
    before = api.get("/api/tournament/director/rounds/2", headers=DIRECTOR).json()
    assert before["released_at"] is None and before["pins"] == {}
    done = api.post(url, json={"by": "Chief"}, headers=DIRECTOR)
    assert done.status_code == 200 and done.json()["released_at"]
    view = api.get("/api/tournament/director/rounds/2", headers=DIRECTOR).json()
    assert view["pins"] == {str(t): p for t, p in pins(event_path, 2).items()} and len(view["pins"]) == 3
    assert "was released at" in refused(api.post(url, headers=DIRECTOR), 422, "path.round_no")
    with EventStore.open(event_path) as store:
        assert store.audit_log()[-1].who == "Chief"
    refused(api.post("/api/tournament/director/rounds/5/release", headers=DIRECTOR), 404, "path.round_no")


def test_the_director_corrects_a_result_with_a_reason(api: Any, event_path: Path) -> None:
    board = first_board(event_path, 1, 1)
    url = "/api/tournament/director/rounds/1/corrections"
    fix = {"table": 1, "board": board, "bombs": 0, "result": "lost", "reason": "slip misread"}
    assert "no result to correct" in refused(api.post(url, json=fix, headers=DIRECTOR), 422, "board")
    with EventStore.open(event_path) as store:
        enter_results(store, 1, [ResultLine(2, 1, board, True)], "desk")
    refused(api.post(url, json={**fix, "reason": "  "}, headers=DIRECTOR), 422, "reason")
    refused(api.post(url, json={**fix, "table": 7}, headers=DIRECTOR), 422, "table")
    done = api.post(url, json={**fix, "by": "Chief"}, headers=DIRECTOR)
    assert done.status_code == 200, done.text
    assert (done.json()["result"], done.json()["confirmed_by"]) == ("lost", "Chief")
    with EventStore.open(event_path) as store:
        last = store.audit_log()[-1]
    assert last.action.endswith("slip misread") and last.before is not None and last.after is not None
    assert (last.before["landlord_won"], last.after["landlord_won"]) == (1, 0)


def test_the_director_adjusts_and_withdraws_an_adjustment(api: Any, event_path: Path) -> None:
    url = "/api/tournament/director/adjustments"
    player = seating(event_path, 1)[1][0]
    refused(
        api.post(
            url, json={"kind": "score", "round": 1, "board": 1, "points": 2, "reason": "x"}, headers=DIRECTOR
        ),
        422,
        "table",
    )
    refused(
        api.post(
            url,
            json={"kind": "penalty", "round": 1, "player": player, "board": 1, "points": 1, "reason": "x"},
            headers=DIRECTOR,
        ),
        422,
        "board",
    )
    refused(
        api.post(
            url,
            json={"kind": "score", "round": 1, "board": 1, "table": 1, "points": 0, "reason": "x"},
            headers=DIRECTOR,
        ),
        422,
        "points",
    )
    refused(
        api.post(url, json={"kind": "fouled", "round": 1, "board": 9, "reason": "x"}, headers=DIRECTOR),
        422,
        "board",
    )
    refused(
        api.post(
            url,
            json={"kind": "penalty", "round": 1, "player": player, "points": 2, "reason": ""},
            headers=DIRECTOR,
        ),
        422,
        "reason",
    )
    penalty = api.post(
        url,
        json={"kind": "penalty", "round": 1, "player": player, "points": 2, "reason": "slow play"},
        headers=DIRECTOR,
    )
    assert penalty.status_code == 200, penalty.text
    assert (penalty.json()["player"], penalty.json()["points"], penalty.json()["made_by"]) == (
        player,
        2.0,
        "director (web)",
    )
    fouled = api.post(
        url,
        json={"kind": "fouled", "round": 1, "board": 1, "table": 2, "reason": "wrong cards"},
        headers=DIRECTOR,
    )
    assert fouled.status_code == 200
    listed = api.get(url, headers=DIRECTOR).json()["adjustments"]
    assert [a["kind"] for a in listed] == ["penalty", "fouled"]
    standing = {r["id"]: r for r in api.get("/api/tournament/standings").json()["standings"]}
    assert standing[player]["penalties"] == 2.0 and standing[player]["total"] == -2.0
    sheet = api.get("/api/tournament/standings?boards=true").json()["boards"][0]
    assert {t["table"]: t["status"] for t in sheet["tables"]}[2] == "fouled"
    cancel = f"{url}/{penalty.json()['id']}/cancel"
    refused(api.post(cancel, json={"reason": " "}, headers=DIRECTOR), 422, "reason")
    assert api.post(cancel, json={"reason": "appeal upheld"}, headers=DIRECTOR).status_code == 200
    refused(api.post(cancel, json={"reason": "again"}, headers=DIRECTOR), 404, "path.adjustment_id")
    assert [a["kind"] for a in api.get(url, headers=DIRECTOR).json()["adjustments"]] == ["fouled"]
    log = api.get("/api/tournament/director/log?limit=2", headers=DIRECTOR).json()["log"]
    assert log[0]["action"].startswith("cancel adjustment") and log[0]["action"].endswith("appeal upheld")
    assert set(log[0]) == {"at", "who", "action", "rows"}  # the rows themselves stay in the file
    assert log[1]["action"].startswith("fouled round 1, board 1 at table 2") and log[1]["rows"] == 1
    # one change, however many rows it wrote: the release of round 2 (a row per table's PIN)
    api.post("/api/tournament/director/rounds/2/release", headers=DIRECTOR)
    (released,) = api.get("/api/tournament/director/log?limit=1", headers=DIRECTOR).json()["log"]
    assert (released["action"], released["rows"]) == ("release round 2", 1 + 3)


# ---- the same file as the CLI, at the same time --------------------------------------------------
CLI_ENTERING = """
    import sys, time
    from paiju.tournament.director import store as st

    real_insert = st.Writer.insert
    rows = 0

    def insert(self, table, row):  # slow rows: the web's entry comes in during the transaction
        global rows
        rowid = real_insert(self, table, row)
        if table == "results":
            rows += 1
            if rows == 1:
                print("in transaction", flush=True)
            time.sleep(0.5)
        return rowid

    st.Writer.insert = insert
    from paiju.cli.main import run
    sys.exit(run(["tournament", "enter", sys.argv[1], "--round", "1", "--file", sys.argv[2], "--by", "desk"]))
"""


def test_the_cli_and_the_web_enter_results_on_the_same_file_at_once(
    api: Any, event_path: Path, tmp_path: Path
) -> None:
    with EventStore.open(event_path) as store:
        own = {t: sorted(st.board for st in store.movement(1) if st.table_no == t) for t in (1, 2)}
    csv = tmp_path / "table1.csv"
    csv.write_text("table,board,bombs,result\n" + "".join(f"1,{b},0,won\n" for b in own[1]))
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(CLI_ENTERING), str(event_path), str(csv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "in transaction"
        # the CLI holds its write transaction (three slow rows): the web's entry waits its turn
        started = time.monotonic()
        seated, pin = seating(event_path, 1)[2], pins(event_path, 1)[2]
        url = "/api/tournament/rounds/1/tables/2"
        for board in own[2]:
            assert (
                api.post(f"{url}/results", json=entry(board, seated[0], pin, result="lost")).status_code
                == 200
            )
            assert (
                api.post(f"{url}/confirm", json={"board": board, "player": seated[1], "pin": pin}).status_code
                == 200
            )
        waited = time.monotonic() - started
        _, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert waited >= 0.5  # the first web write waited for the CLI's commit, and then went in
    standings = api.get("/api/tournament/standings?boards=true").json()
    assert standings["pending"] == 0
    statuses = {(s["board"], t["table"]): t["status"] for s in standings["boards"] for t in s["tables"]}
    for t in (1, 2):
        assert all(statuses[(b, t)] == "confirmed" for b in own[t])
    with EventStore.open(event_path) as store:
        by = {(r["table_no"], r["board"]): r["entered_by"] for r in store.results(1)}
        assert store.integrity_problems() == []
    assert {by[(1, b)] for b in own[1]} == {"desk"}
    assert {by[(2, b)] for b in own[2]} == {f"player {seated[0]}"}
    # table 1's landlords won every board and table 2's lost: on each board, hand A at table 1
    # beat hand A at table 2, and table 2's farmers beat table 1's
    for sheet in standings["boards"]:
        hands = {t["table"]: t["hands"] for t in sheet["tables"]}
        assert hands[1]["A"]["points"] == 2 and hands[2]["A"]["points"] == 0
        assert hands[1]["B"]["points"] == 0 and hands[2]["B"]["points"] == 2


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to list open files")
def test_the_app_holds_the_event_file_open_only_while_it_answers(api: Any, event_path: Path) -> None:
    def open_on_event() -> list[str]:
        found = []
        for fd in os.listdir("/proc/self/fd"):
            try:
                target = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if target.startswith(str(event_path)):
                found.append(target)
        return found

    assert open_on_event() == []
    player, pin = seating(event_path, 1)[1][0], pins(event_path, 1)[1]
    api.get("/api/tournament/rounds/1")
    api.post(
        "/api/tournament/rounds/1/tables/1/results", json=entry(first_board(event_path, 1, 1), player, pin)
    )
    api.get("/api/tournament/standings")
    api.get("/api/tournament/director/rounds/1", headers=DIRECTOR)
    assert open_on_event() == []


# ---- paiju serve --event -------------------------------------------------------------------------
def test_serve_refuses_a_file_that_is_no_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from paiju.cli.main import run

    junk = tmp_path / "junk.db"
    junk.write_text("hello")
    for path, message in ((junk, "is not a paiju event file"), (tmp_path / "none.db", "does not exist")):
        code = run(["serve", "--data", str(tmp_path / "data"), "--event", str(path)])
        err = capsys.readouterr().err
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
