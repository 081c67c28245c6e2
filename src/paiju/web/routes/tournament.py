"""The organiser's pages of a duplicate Dou Dizhu event (issue 48 item 7; ``docs/tournament.md``).

The event comes from the CLI (`paiju tournament new`, `pair`, `boards`) and is served with
``paiju serve --event EVENT.db`` (:class:`~paiju.web.event.ServedEvent`); without one every
route here is a 404 saying so. What the routes show and change goes through the director's
library (:mod:`paiju.tournament.director`), on the same file as the CLI at the same time:

* for everyone: the event, a round's pairings and boards (never a board's cards before
  every table has played it), a table's boards and results, the standings (the hall's screen
  polls them);
* at a table: a player enters a board's result with their player id and the table's PIN,
  and another player of the table confirms it with theirs (wrong PINs are slowed down per
  table: a 429 with ``Retry-After``, :class:`~paiju.web.event.PinGuard`);
* for the director (the ``X-Director-Token`` header, printed by ``paiju serve``; a 403
  without it): the tables' PINs, releasing a round, corrections, adjustments, the audit log.

Every refusal is the app's JSON error body naming the field: a body field (``bombs``,
``pin``, ``player``, ...), ``path.round_no`` / ``path.table_no`` for a round or table that is
not there (404) or not open for entry (422), as the library's
:class:`~paiju.tournament.director.results.EntryError` names it. Every string and number of
a request is bounded (:mod:`paiju.web.limits`' rule: a maximum for whatever a request sends).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Final, Literal, TypeVar

from fastapi import APIRouter, Depends, Header, Query
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from paiju.core.errors import ConfigError, NotFoundError, PaijuError
from paiju.doudizhu.scoring import MAX_BOMBS
from paiju.tournament.director import adjustments as adjust
from paiju.tournament.director.csvfile import MAX_TEXT
from paiju.tournament.director.entry import confirm_result, correct_result, submit_result
from paiju.tournament.director.formats import HANDS, MAX_BOARDS_PER_ROUND, MAX_ROUNDS
from paiju.tournament.director.players import MAX_PLAYERS
from paiju.tournament.director.results import MAX_BID, EntryError, Spring, TableResult
from paiju.tournament.director.rounds import release
from paiju.tournament.director.seating import RoundTables, round_tables
from paiju.tournament.director.standings import compute_standings
from paiju.tournament.director.store import EventStore
from paiju.web import event as views
from paiju.web.errors import ErrorBody, Forbidden, blamed, error_response
from paiju.web.event import ServedEvent
from paiju.web.routes.pages import STATIC_DIR
from paiju.web.state import Web

T = TypeVar("T")

MAX_BOARD: Final = MAX_ROUNDS * MAX_BOARDS_PER_ROUND
MAX_TABLE: Final = MAX_PLAYERS
MAX_DOUBLINGS: Final = 10
"""Doublings a form may send: the scoring rules have none, and the library says so by name."""
MAX_PIN: Final = 16
MAX_POINTS: Final = 1_000_000.0
MAX_ADJUSTMENT_ID: Final = 1_000_000_000
DIRECTOR: Final = "director (web)"
"""Who a director's change is logged as when the form names nobody."""
TOKEN_FIELD: Final = "header.x-director-token"

PAGES: Final = {
    "/tournament": "tournament.html",
    "/tournament/round": "tournament-round.html",
    "/tournament/table": "tournament-table.html",
    "/tournament/standings": "tournament-standings.html",
    "/tournament/director": "tournament-director.html",
}

Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
Said = Annotated[str, Field(min_length=1, max_length=MAX_TEXT, pattern=r"\S")]
"""Free text that must say something (a reason, who makes a change)."""
RoundNo = Annotated[int, PathParam(ge=1, le=MAX_ROUNDS)]
TableNo = Annotated[int, PathParam(ge=1, le=MAX_TABLE)]
DirectorToken = Annotated[
    str | None, Header(max_length=200, description="the director's token that `paiju serve` prints")
]


# ---- request bodies -------------------------------------------------------------------------------
class _Body(BaseModel):
    # strict: JSON true/false are not integers and "3" is not a number (as the app's other bodies)
    model_config = ConfigDict(extra="forbid", strict=True)


class ResultFields(_Body):
    """A board's result as the slip gives it (the library checks it against the board)."""

    board: int = Field(ge=1, le=MAX_BOARD)
    declarer: Literal["A", "B", "C"] = Field("A", description="the landlord's hand (A without bidding)")
    bid: int | None = Field(None, ge=1, le=MAX_BID, description="the winning bid, with bidding only")
    doublings: int = Field(0, ge=0, le=MAX_DOUBLINGS)
    bombs: int = Field(ge=0, le=MAX_BOMBS, description="bombs and rockets played, by anyone")
    spring: Spring = "none"
    result: Literal["won", "lost"] = Field(description="the landlord's")

    def table_result(self) -> TableResult:
        return TableResult(
            landlord_hand=HANDS.index(self.declarer),
            landlord_won=self.result == "won",
            bombs=self.bombs,
            bid=self.bid,
            doublings=self.doublings,
            spring=self.spring,
        )


class TableEntry(ResultFields):
    player: Text = Field(description="your player id")
    pin: str = Field(min_length=1, max_length=MAX_PIN, description="the table's PIN (on its slips)")


class TableConfirmation(_Body):
    board: int = Field(ge=1, le=MAX_BOARD)
    player: Text = Field(description="your player id: another player of the table than who entered it")
    pin: str = Field(min_length=1, max_length=MAX_PIN)


class DirectorChange(_Body):
    by: Said = Field(DIRECTOR, description="who makes the change, for the audit log")


class Correction(ResultFields):
    table: int = Field(ge=1, le=MAX_TABLE)
    reason: Said
    by: Said = DIRECTOR


class AdjustmentBody(_Body):
    """``fouled`` (board, optional table), ``score`` (a table's landlord score: board, table,
    points), ``points`` (a player's comparison points: board, player, points), ``penalty``
    (player, points taken off)."""

    kind: Literal["fouled", "score", "points", "penalty"]
    round: int = Field(ge=1, le=MAX_ROUNDS)
    board: int | None = Field(None, ge=1, le=MAX_BOARD)
    table: int | None = Field(None, ge=1, le=MAX_TABLE)
    player: Text | None = None
    points: float | None = Field(None, ge=-MAX_POINTS, le=MAX_POINTS, allow_inf_nan=False)
    reason: Said
    by: Said = DIRECTOR


class Cancellation(_Body):
    reason: Said
    by: Said = DIRECTOR


NEEDS: Final[dict[str, tuple[str, ...]]] = {
    "fouled": ("board",),
    "score": ("board", "table", "points"),
    "points": ("board", "player", "points"),
    "penalty": ("player", "points"),
}
TAKES: Final[dict[str, tuple[str, ...]]] = {**NEEDS, "fouled": ("board", "table")}
"""The fields each kind of adjustment needs, and those it takes."""


# ---- helpers --------------------------------------------------------------------------------------
def _served(web: Web) -> ServedEvent:
    if web.event is None:
        raise NotFoundError("no event is served here: start the server with paiju serve --event EVENT.db")
    return web.event


PATH_FIELDS: Final = {"round": "path.round_no", "table": "path.table_no"}
"""The library's fields that a route takes from its path."""


def _locate(store: EventStore, round_no: int) -> None:
    """A 404 naming the path's field for a round not paired."""
    if round_no not in {r.number for r in store.rounds()}:
        # (the library's message names the file: the server's paths are not the page's business)
        raise blamed(NotFoundError(f"round {round_no} is not paired yet"), "path.round_no")


def _locate_table(store: EventStore, round_no: int, table_no: int) -> RoundTables:
    """The round's tables, read once for the caller to reuse; a 404 naming the path's field for
    a round not paired or a table it does not have."""
    _locate(store, round_no)
    tables = round_tables(store, round_no)
    if table_no not in tables.tables:
        raise blamed(
            NotFoundError(f"round {round_no} has tables 1-{max(tables.tables)}, not {table_no}"),
            "path.table_no",
        )
    return tables


async def _work(event: ServedEvent, fn: Callable[[EventStore], T], fields: dict[str, str] | None = None) -> T:
    """``fn`` on the event file, opened for this request only, in a worker thread; a library
    error's field renamed by ``fields`` (the library's name -> the request's)."""

    def run() -> T:
        with event.store() as store:
            try:
                return fn(store)
            except PaijuError as err:
                if fields and err.field in fields:
                    err.field = fields[err.field]
                raise

    return await run_in_threadpool(run)


class DirectorOnly(Forbidden):
    """A director's route without the director's token (a 403)."""


class PinsLocked(PaijuError):
    """Too many wrong PINs at a table: its entry waits (:class:`~paiju.web.event.PinGuard`)."""


def _director_only(web: Web, x_director_token: DirectorToken = None) -> None:
    """Every director's route first: the event served (a 404 without one) and the director's token."""
    event = _served(web)
    if not event.is_director(x_director_token):
        why = "the director's pages need the director's token (paiju serve prints their address)"
        raise blamed(DirectorOnly(why if x_director_token is None else "wrong director's token"), TOKEN_FIELD)


def _locked(event: ServedEvent, round_no: int, table_no: int) -> JSONResponse | None:
    """The 429 of a table whose entry waits after wrong PINs (None: it may try)."""
    wait = event.pins.wait_s(round_no, table_no)
    if wait <= 0:
        return None
    seconds = int(wait) + 1
    why = (
        f"round {round_no}, table {table_no}: too many wrong PINs; try again in {seconds} s "
        "(or ask the director)"
    )
    response = error_response(429, blamed(PinsLocked(why), "pin"))
    response.headers["Retry-After"] = str(seconds)
    return response


async def _at_table(
    event: ServedEvent, round_no: int, table_no: int, fn: Callable[[EventStore], Any]
) -> dict[str, Any] | JSONResponse:
    """A player's entry or confirmation at a table, with its PIN counted by the guard (the
    table's attempts one at a time, so that a burst of guesses is counted guess by guess)."""

    def run(store: EventStore) -> Any:
        _locate_table(store, round_no, table_no)
        return fn(store)

    async with event.pins.turn(round_no, table_no):
        refused = _locked(event, round_no, table_no)
        if refused is not None:
            return refused
        try:
            stored = await _work(event, run, PATH_FIELDS)
        except EntryError as err:
            if err.field == "pin":
                event.pins.wrong(round_no, table_no)
            raise
        event.pins.right(round_no, table_no)
    out: dict[str, Any] = stored.as_dict()
    return out


def _adjust(store: EventStore, body: AdjustmentBody) -> adjust.Adjustment:
    for name in NEEDS[body.kind]:
        if getattr(body, name) is None:
            raise blamed(ConfigError(f"{name}: a {body.kind} adjustment needs it"), name)
    for name in ("board", "table", "player", "points"):
        if name not in TAKES[body.kind] and getattr(body, name) is not None:
            raise blamed(ConfigError(f"{name}: a {body.kind} adjustment takes none"), name)
    board, player, points = body.board or 0, body.player or "", body.points or 0.0
    if body.kind == "fouled":
        return adjust.foul_board(store, body.round, board, body.by, body.reason, table_no=body.table)
    if body.kind == "score":
        return adjust.adjust_table_score(
            store, body.round, board, body.table or 0, points, body.by, body.reason
        )
    if body.kind == "points":
        return adjust.adjust_player_points(store, body.round, board, player, points, body.by, body.reason)
    return adjust.penalise(store, body.round, player, points, body.by, body.reason)


# ---- the routes ---------------------------------------------------------------------------------
LOCKED_RESPONSE: Final[dict[int | str, dict[str, Any]]] = {
    429: {"model": ErrorBody, "description": "too many wrong PINs at this table: wait (Retry-After)"}
}
DIRECTOR_RESPONSE: Final[dict[int | str, dict[str, Any]]] = {
    403: {"model": ErrorBody, "description": "no director's token, or a wrong one"}
}

router = APIRouter()
director = APIRouter(
    prefix="/api/tournament/director",
    dependencies=[Depends(_director_only)],
    responses=DIRECTOR_RESPONSE,
)
"""The director's routes: each checks the token once, before anything else (``_director_only``)."""


def _page(filename: str) -> Callable[[], FileResponse]:
    path = STATIC_DIR / filename

    def page() -> FileResponse:
        return FileResponse(path, media_type="text/html")

    return page


for _route, _filename in PAGES.items():
    router.add_api_route(_route, _page(_filename), methods=["GET"], include_in_schema=False)


@router.get("/api/tournament")
async def event(web: Web) -> dict[str, Any]:
    """The event: its name, format, players and rounds."""
    return await _work(_served(web), views.event_view)


@router.get("/api/tournament/standings")
async def standings(
    web: Web,
    round_no: int | None = Query(None, alias="round", ge=1, le=MAX_ROUNDS, description="after this round"),
    boards: bool = Query(False, description="with each board's result sheet"),
) -> dict[str, Any]:
    """The standings after a round (default: the latest released): what the hall's screen polls."""

    def run(store: EventStore) -> dict[str, Any]:
        try:
            return compute_standings(store, round_no).as_dict(sheets=boards)
        except ConfigError as err:
            raise blamed(err, "query.round") from None

    return await _work(_served(web), run)


@router.get("/api/tournament/rounds/{round_no}")
async def round_pairings(web: Web, round_no: RoundNo) -> dict[str, Any]:
    """A round's tables, byes and boards (never a board's cards before every table has played it)."""

    def run(store: EventStore) -> dict[str, Any]:
        _locate(store, round_no)
        return views.round_view(store, round_no)

    return await _work(_served(web), run, PATH_FIELDS)


@router.get("/api/tournament/rounds/{round_no}/tables/{table_no}")
async def table(web: Web, round_no: RoundNo, table_no: TableNo) -> dict[str, Any]:
    """A table's players and boards, in the order it plays them, with what is entered."""

    def run(store: EventStore) -> dict[str, Any]:
        return views.table_view(store, _locate_table(store, round_no, table_no), table_no)

    return await _work(_served(web), run, PATH_FIELDS)


@router.post(
    "/api/tournament/rounds/{round_no}/tables/{table_no}/results",
    response_model=None,
    responses=LOCKED_RESPONSE,
)
async def enter(
    web: Web, round_no: RoundNo, table_no: TableNo, body: TableEntry
) -> dict[str, Any] | JSONResponse:
    """A player of the table enters a board's result with the table's PIN: pending until
    another player of the table confirms it (an entry of a pending board replaces it)."""
    return await _at_table(
        _served(web),
        round_no,
        table_no,
        lambda store: submit_result(
            store, round_no, table_no, body.board, body.table_result(), player=body.player, pin=body.pin
        ),
    )


@router.post(
    "/api/tournament/rounds/{round_no}/tables/{table_no}/confirm",
    response_model=None,
    responses=LOCKED_RESPONSE,
)
async def confirm(
    web: Web, round_no: RoundNo, table_no: TableNo, body: TableConfirmation
) -> dict[str, Any] | JSONResponse:
    """Another player of the table confirms a board's pending result with the table's PIN."""
    return await _at_table(
        _served(web),
        round_no,
        table_no,
        lambda store: confirm_result(store, round_no, table_no, body.board, player=body.player, pin=body.pin),
    )


# ---- the director's routes (the token checked by the router: ``_director_only``) ----------------
@director.get("/rounds/{round_no}")
async def director_round(web: Web, round_no: RoundNo) -> dict[str, Any]:
    """The director's view of a round: the tables' PINs, every result, the adjustments."""

    def run(store: EventStore) -> dict[str, Any]:
        _locate(store, round_no)
        return views.director_round_view(store, round_no, DIRECTOR)

    return await _work(_served(web), run, PATH_FIELDS)


@director.post("/rounds/{round_no}/release")
async def release_round(web: Web, round_no: RoundNo, body: DirectorChange | None = None) -> dict[str, Any]:
    """Release a round: open it for entry and issue its tables' PINs."""
    who = DIRECTOR if body is None else body.by

    def run(store: EventStore) -> dict[str, Any]:
        _locate(store, round_no)
        try:
            info = release(store, round_no, who)
        except ConfigError as err:  # no boards yet, or released already: about this round
            raise blamed(err, "path.round_no") from None
        return {"round": round_no, "released_at": info.released_at}

    return await _work(_served(web), run, PATH_FIELDS)


@director.post("/rounds/{round_no}/corrections")
async def correct(web: Web, round_no: RoundNo, body: Correction) -> dict[str, Any]:
    """The director replaces a table's entered result (pending or confirmed), with a reason."""

    def run(store: EventStore) -> dict[str, Any]:
        _locate(store, round_no)
        stored = correct_result(
            store, round_no, body.table, body.board, body.table_result(), body.by, body.reason
        )
        return stored.as_dict()

    return await _work(_served(web), run, {"round": "path.round_no"})


@director.get("/adjustments")
async def list_adjustments(web: Web) -> dict[str, Any]:
    """Every adjustment in force, in the order made."""
    return await _work(_served(web), lambda store: {"adjustments": views.adjustment_views(store)})


@director.post("/adjustments")
async def make_adjustment(web: Web, body: AdjustmentBody) -> dict[str, Any]:
    """A fouled board, an adjusted table score or player's points, or a penalty, with a reason."""

    def run(store: EventStore) -> dict[str, Any]:
        made = _adjust(store, body)
        return views.adjustment_view(made, {p.id: p for p in store.players()})

    # the library's "score" of a table is this body's points
    return await _work(_served(web), run, {"score": "points"})


@director.post("/adjustments/{adjustment_id}/cancel")
async def cancel_adjustment(
    web: Web, adjustment_id: Annotated[int, PathParam(ge=1, le=MAX_ADJUSTMENT_ID)], body: Cancellation
) -> dict[str, Any]:
    """Withdraw an adjustment (the audit log keeps it, with the reason)."""

    def run(store: EventStore) -> dict[str, Any]:
        players = {p.id: p for p in store.players()}
        try:
            gone = adjust.cancel_adjustment(store, adjustment_id, body.by, body.reason)
        except NotFoundError as err:
            raise blamed(err, "path.adjustment_id") from None
        return views.adjustment_view(gone, players)

    return await _work(_served(web), run)


@director.get("/log")
async def audit_log(web: Web, limit: int = Query(views.LOG_ENTRIES, ge=1, le=500)) -> dict[str, Any]:
    """The newest changes of the audit log: when, who, what."""
    return await _work(_served(web), lambda store: {"log": views.log_view(store, limit)})


# (after its routes: a router's routes are copied when it is included)
router.include_router(director)
