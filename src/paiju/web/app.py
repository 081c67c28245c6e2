"""The paiju web app (FastAPI): play against the AIs and look at the analyses.

Robustness rules, and where each is enforced:

* **Validated input.** Every request body is a strict pydantic model with bounds and
  ``extra="forbid"`` (``true`` is not an integer, ``"3"`` is not a seat); every error is a
  JSON body ``{"error": ..., "field": ..., "type": ...}`` (:class:`ErrorBody`, declared in
  the OpenAPI schema) whose ``field`` names the request field at fault. Engine errors keep
  their meaning: an illegal move (``IllegalMoveError``) is a 409, bad notation or
  configuration (``InvalidNotationError``, ``AmbiguousMoveError``, ``ConfigError``) a 422,
  an unknown game, run or report (``NotFoundError``) a 404. The engines check a move before
  changing anything, so a refused move never corrupts a game.
* **The connection survives an error.** An unexpected exception is logged and answered
  with a 500 JSON body by :class:`ContainErrors` without re-raising it: Starlette re-raises
  after its own 500, and uvicorn then drops the keep-alive connection.
* **Isolation.** A ``paiju_session`` cookie (128 random bits, HttpOnly, SameSite=Lax) is
  set on the first request; games are stored with the token and are invisible to others.
* **Never blocking the event loop.** Engine and AI work runs in worker threads
  (``run_in_threadpool``), and each AI decision has a time limit (``ai_time_limit``): an AI
  that overruns it is replaced for that move by the game's fast heuristic agent, and the
  transcript says so. Moves on one game are serialised by a per-game lock.
* **Nothing runs unbounded** (``docs/web.md``). Every cost parameter has a maximum
  (:class:`~paiju.web.limits.WebLimits`, the DIH bodies' bounds); time limits stop the work
  itself (a deadline checked in every search and analysis loop, :mod:`paiju.core.deadline`),
  analyses stop when their client disconnects, and :meth:`WebState.stop_work` cancels
  everything when the server stops (:mod:`paiju.web.server`).
* **Restarts.** Games are stored (SQLite, :mod:`paiju.web.store`) as seed + move tokens
  after every move and replayed on first access after a restart.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paiju.core.errors import (
    CorruptRecordError,
    IllegalMoveError,
    InvalidNotationError,
    NotFoundError,
    PaijuError,
    WorkCancelled,
)
from paiju.web import analysis
from paiju.web.limits import AnalysisRunner, KeepRawReceive, WebLimits, analysis_bodies, body_type
from paiju.web.sessions import MAX_SEED, SESSION_KINDS, AIRunner, GameSession
from paiju.web.store import GameStore, new_token

_log = logging.getLogger(__name__)
STATIC_DIR = Path(__file__).parent / "static"
COOKIE = "paiju_session"
PAGES = {
    "/": "index.html",
    "/ddz": "ddz.html",
    "/mahjong": "mahjong.html",
    "/yuxi": "yuxi.html",
    "/dih": "dih.html",
    "/reports": "reports.html",
    "/records": "records.html",
}
AgentSpec = Annotated[str, Field(min_length=1, max_length=200)]
Seed = Annotated[int | None, Field(default=None, ge=0, le=MAX_SEED)]
MAX_INDEX = 1_000_000_000
"""Largest ply, record index or page offset a request may name (far above any real game)."""


# ---- the error body -------------------------------------------------------------------------------
class ErrorBody(BaseModel):
    """What every refused request gets (the OpenAPI schema declares it for every 4xx)."""

    error: str = Field(description="what is wrong, in words")
    field: str | None = Field(
        description="the request field at fault: a body field ('seed', 'agents.1'), "
        "'query.<name>', 'path.<name>', or 'body' for the body as a whole; null if none is"
    )
    type: str = Field(description="the kind of error (ValidationError, IllegalMoveError, ...)")
    problems: list[str] | None = Field(None, description="every validation problem, when there are several")


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "a body that cannot be read (not UTF-8 JSON)"},
    404: {"model": ErrorBody, "description": "no such game, run, report or game kind"},
    409: {"model": ErrorBody, "description": "an illegal or stale move"},
    422: {"model": ErrorBody, "description": "a malformed request: the field and why"},
    503: {"model": ErrorBody, "description": "busy: no worker free in time, or the work ran out of time"},
}


# ---- request bodies -------------------------------------------------------------------------------
class _Body(BaseModel):
    # strict: JSON true/false are not integers and "3" is not a number (lax mode coerces both)
    model_config = ConfigDict(extra="forbid", strict=True)


class NewDouDizhu(_Body):
    seat: int = Field(0, ge=0, le=2, description="your seat (0 is the landlord unless bidding)")
    agents: list[AgentSpec] = Field(
        default_factory=lambda: ["rule", "rule"],
        min_length=2,
        max_length=2,
        description="the two AIs, in seat order of the seats you do not take",
    )
    scoring: Literal["competition", "casual"] = "competition"
    bidding: bool = False
    seed: Seed = None


class NewMahjong(_Body):
    seat: int = Field(0, ge=0, le=3, description="your seat (0 is the dealer)")
    agents: list[AgentSpec] = Field(
        default_factory=lambda: ["greedy"] * 3,
        min_length=3,
        max_length=3,
        description="the three AIs, in seat order of the seats you do not take",
    )
    seed: Seed = None


class NewYuxi(_Body):
    seat: int = Field(0, ge=0, le=1, description="0 moves first")
    agent: AgentSpec = "greedy"
    board: Literal["3x3", "4x4", "6x4"] = "4x4"
    decks: list[Annotated[str, Field(min_length=1, max_length=60)]] | None = Field(
        None, min_length=2, max_length=2, description="your deck and the AI's deck (seat order)"
    )
    die_bonus: bool = True
    swaps: bool = True
    seed: Seed = None


class MoveBody(_Body):
    move: Annotated[str, Field(max_length=80)] | None = None
    type: Annotated[str, Field(max_length=40)] | None = None
    action: int | None = Field(None, ge=0, le=100_000)
    ply: int | None = Field(
        None, ge=0, le=MAX_INDEX, description="the ply the move was made for (stale moves get 409)"
    )


# The DIH bodies carry the app's cost limits, so they are built per app: limits.analysis_bodies.


# ---- the app -----------------------------------------------------------------------------------------
class WebState:
    """Everything the routes share: the store, the AI runner, per-game locks, folders."""

    def __init__(
        self,
        data_dir: Path,
        report_dirs: list[Path],
        ai_time_limit: float,
        ai_workers: int,
        limits: WebLimits | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.report_dirs = report_dirs
        self.limits = limits if limits is not None else WebLimits()
        self.store = GameStore(data_dir)
        self.runner = AIRunner(ai_time_limit, ai_workers)
        self.analyses = AnalysisRunner(self.limits)
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    def stop_work(self, reason: str = "the server is stopping") -> None:
        """Cancel every AI decision and analysis in flight, and every one started from now on."""
        self.runner.shutdown(reason)
        self.analyses.close(reason)

    def close(self) -> None:
        self.stop_work()
        self.store.close()


def create_app(
    data_dir: str | Path = "data",
    *,
    report_dirs: list[str | Path] | None = None,
    ai_time_limit: float = 10.0,
    ai_workers: int = 4,
    limits: WebLimits | None = None,
) -> FastAPI:
    """The web app over ``data_dir`` (games, records, pools); reports from ``report_dirs``
    (default: the reports packaged with paiju, whatever the current folder, and
    ``<data_dir>/reports``)."""
    data = Path(data_dir)
    reports = (
        [Path(p) for p in report_dirs]
        if report_dirs is not None
        else [analysis.PACKAGED_REPORTS, data / "reports"]
    )
    web = WebState(data, reports, ai_time_limit, ai_workers, limits)
    DihValueBody, DihSelectBody = analysis_bodies(web.limits)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # load the engines and build the shanten tables in a worker thread at start-up, so the
        # first player does not wait for them (requests arriving meanwhile simply queue on them)
        warm = asyncio.get_running_loop().run_in_executor(None, _warm_up)
        yield
        await warm
        web.close()

    app = FastAPI(title="paiju", version="0.1.0", lifespan=lifespan, responses=ERROR_RESPONSES)
    app.state.web = web

    # ---- sessions and errors ------------------------------------------------------------------------
    @app.middleware("http")
    async def session_cookie(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        token = request.cookies.get(COOKIE)
        fresh = (
            token is None
            or not (16 <= len(token) <= 64)
            or not token.replace("-", "").replace("_", "").isalnum()
        )
        if fresh:
            token = new_token()
        request.state.session = token
        response = await call_next(request)
        if fresh:
            response.set_cookie(COOKIE, token, httponly=True, samesite="lax", max_age=60 * 60 * 24 * 365)
        return response

    def error(status: int, exc: Exception) -> JSONResponse:
        return JSONResponse(
            {"error": str(exc), "field": getattr(exc, "field", None), "type": type(exc).__name__},
            status_code=status,
        )

    @app.exception_handler(IllegalMoveError)
    async def illegal(request: Request, exc: IllegalMoveError) -> JSONResponse:
        return error(409, exc)

    @app.exception_handler(WorkCancelled)
    async def stopped(request: Request, exc: WorkCancelled) -> JSONResponse:
        # over the analysis time limit, no free analysis slot, or the server is stopping:
        # nothing wrong with the request itself, so a 503 the client may retry
        response = error(503, exc)
        response.headers["Retry-After"] = "5"
        return response

    @app.exception_handler(PaijuError)
    async def bad_input(request: Request, exc: PaijuError) -> JSONResponse:
        if isinstance(exc, NotFoundError):
            return error(404, exc)
        if isinstance(exc, CorruptRecordError):
            # a damaged file on the server, not the client's input: logged, still a JSON body
            _log.error("paiju web: %s", exc)
            return error(500, exc)
        return error(422, exc)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems, fields = [], []
        for e in exc.errors():
            if e.get("type") == "json_invalid":
                where = "body"  # its loc is ("body", <character offset>)
            else:
                where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
            fields.append(where)
            problems.append(f"{where}: {e.get('msg')}")
        return JSONResponse(
            {
                "error": "invalid request: " + "; ".join(problems),
                "field": fields[0] if fields else None,
                "type": "ValidationError",
                "problems": problems,
            },
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)  # FastAPI's and Starlette's own (404, 405, bad bodies)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # a 400 is a body that cannot be read at all (not UTF-8, not a form): the body is at fault
        field = "body" if exc.status_code == 400 else None
        return JSONResponse(
            {"error": str(exc.detail), "field": field, "type": "HTTPError"},
            status_code=exc.status_code,
            headers=exc.headers,
        )

    # outermost of the app's own layers, so it also sees what the session middleware raises
    app.add_middleware(ContainErrors)
    app.add_middleware(KeepRawReceive)  # outside the session middleware: sees clients disconnect

    # ---- pages --------------------------------------------------------------------------------------
    for route, filename in PAGES.items():
        app.add_api_route(route, _page(STATIC_DIR / filename), methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    # ---- games --------------------------------------------------------------------------------------
    @app.get("/api/health")
    def health() -> dict[str, Any]:
        return {
            "ok": True,
            "games": sorted(SESSION_KINDS),
            "ai_time_limit_s": web.runner.time_limit_s,
            # what the workers are doing: all idle again after a flood of expensive requests
            "ai": web.runner.status(),
            "analysis": web.analyses.status(),
            "limits": web.limits.as_dict(),
        }

    @app.get("/api/agents/{kind}")
    def agents(kind: str) -> dict[str, Any]:
        cls = _kind(kind)
        registry = cls.load_registry()
        return {
            "game": kind,
            "fallback": cls.fallback_spec,
            "agents": [
                {
                    "name": name,
                    "defaults": defaults,
                    "doc": doc,
                    # the inclusive range of every numeric parameter (its cost limit) and the
                    # allowed values of closed string parameters
                    "limits": {key: list(bounds) for key, bounds in registry.limits(name).items()},
                    "choices": {key: list(values) for key, values in registry.choices(name).items()},
                }
                for name, (defaults, doc) in registry.describe().items()
            ],
        }

    @app.get("/api/yuxi/options")
    def yuxi_options() -> dict[str, Any]:
        from paiju.yuxi.board import BOARDS
        from paiju.yuxi.cards import load_card_table

        table = load_card_table()
        return {
            "boards": [
                {"name": b.name, "hand_size": b.hand_size, "min_deck": b.min_deck} for b in BOARDS.values()
            ],
            "decks": [{"name": name, "size": deck.size} for name, deck in table.decks.items()],
        }

    async def start(
        request: Request, kind: str, params: dict[str, Any], seed: int | None, agents_field: str = "agents"
    ) -> dict[str, Any]:
        cls = SESSION_KINDS[kind]
        specs = params["agents"]
        with blame(agents_field):
            await run_in_threadpool(cls.validate_specs, specs)
        game_seed = seed if seed is not None else secrets.randbits(63)
        game_id = uuid.uuid4().hex

        def work() -> dict[str, Any]:
            game = cls(game_id, params, game_seed)
            web.store.create(request.state.session, game)
            try:
                game.run_ai(web.runner)
            finally:
                web.store.save(game)
            return game.view()

        async with web.lock(game_id):
            return await run_in_threadpool(work)

    @app.post("/api/games/doudizhu", status_code=201)
    async def new_doudizhu(request: Request, body: NewDouDizhu) -> dict[str, Any]:
        agents: list[str | None] = list(body.agents)
        agents.insert(body.seat, None)
        params = {"seat": body.seat, "agents": agents, "scoring": body.scoring, "bidding": body.bidding}
        return await start(request, "doudizhu", params, body.seed)

    @app.post("/api/games/mahjong", status_code=201)
    async def new_mahjong(request: Request, body: NewMahjong) -> dict[str, Any]:
        agents: list[str | None] = list(body.agents)
        agents.insert(body.seat, None)
        return await start(request, "mahjong", {"seat": body.seat, "agents": agents}, body.seed)

    @app.post("/api/games/yuxi", status_code=201)
    async def new_yuxi(request: Request, body: NewYuxi) -> dict[str, Any]:
        agents: list[str | None] = [body.agent]
        agents.insert(body.seat, None)
        params: dict[str, Any] = {
            "seat": body.seat,
            "agents": agents,
            "board": body.board,
            "die_bonus": body.die_bonus,
            "swaps": body.swaps,
        }
        if body.decks is not None:
            decks = list(body.decks) if body.seat == 0 else [body.decks[1], body.decks[0]]
            params["decks"] = decks
        # check the options (deck names, deck sizes for the board) before storing anything
        with blame("decks"):
            await run_in_threadpool(SESSION_KINDS["yuxi"].build_game, params)
        return await start(request, "yuxi", params, body.seed, agents_field="agent")

    @app.get("/api/games")
    def my_games(request: Request, limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
        return {"games": web.store.list(request.state.session, limit)}

    async def load(request: Request, game_id: str) -> GameSession:
        # the id's shape is checked before any lookup: no odd bytes reach the store
        if not GAME_ID.fullmatch(game_id):
            raise blamed(NotFoundError(f"no game {game_id!r}"), "path.game_id")
        game = await run_in_threadpool(web.store.get, request.state.session, game_id)
        if game is None:
            raise blamed(NotFoundError(f"no game {game_id!r} in this session"), "path.game_id")
        return game

    @app.get("/api/games/{game_id}")
    async def get_game(request: Request, game_id: str) -> dict[str, Any]:
        async with web.lock(game_id):
            game = await load(request, game_id)
            return await run_in_threadpool(game.view)

    @app.get("/api/games/{game_id}/hint")
    async def get_hint(request: Request, game_id: str) -> dict[str, Any]:
        async with web.lock(game_id):
            game = await load(request, game_id)
            return await run_in_threadpool(game.hint)

    @app.post("/api/games/{game_id}/move")
    async def move(request: Request, game_id: str, body: MoveBody) -> dict[str, Any]:
        if body.move is None and body.action is None:
            raise InvalidNotationError("give 'move' (notation) or 'action' (an id from the legal list)")
        async with web.lock(game_id):
            game = await load(request, game_id)

            def work() -> dict[str, Any]:
                with blame("move"):
                    game.play_human(body.model_dump(exclude={"ply"}), body.ply)
                try:
                    game.run_ai(web.runner)
                finally:
                    web.store.save(game)
                return game.view()

            return await run_in_threadpool(work)

    # ---- analysis -----------------------------------------------------------------------------------
    @app.post("/api/dih/value")
    @body_type(DihValueBody)
    async def dih_value(request: Request, body: DihValueBody) -> dict[str, Any]:
        check_top_field(body.players, body.top)
        with blame("dists"):
            return await web.analyses.run(
                request,
                "the DIH computation",
                analysis.dih_value,
                body.dists,
                body.players,
                body.rounds,
                body.top,
                web.limits.check_total_cells,
            )

    @app.get("/api/dih/pools")
    def dih_pools() -> dict[str, Any]:
        return {"pools": analysis.list_pools(web.data_dir)}

    @app.post("/api/dih/select")
    @body_type(DihSelectBody)
    async def dih_select(request: Request, body: DihSelectBody) -> dict[str, Any]:
        check_top_field(body.players, body.top)

        def work() -> dict[str, Any]:
            pool_field = "pool_text" if body.pool == "custom" else "pool"
            with blame(pool_field):
                pool = analysis.load_pool(body.pool, web.data_dir, body.min_plays, body.pool_text)
            web.limits.check_pool(pool, pool_field)
            with blame("rounds"):  # what is left to go wrong: fewer deals than rounds
                out = analysis.select_deals(pool, body.players, body.rounds, body.top, body.joint, body.beam)
            out["pool"] = body.pool
            return out

        return await web.analyses.run(request, "the deal selection", work)

    @app.get("/api/reports")
    async def reports() -> dict[str, Any]:
        return await run_in_threadpool(analysis.list_reports, web.report_dirs)

    @app.get(
        "/api/reports/file",
        response_class=FileResponse,
        responses={
            200: {
                "description": "the image",
                "content": {media: {"schema": {"type": "string", "format": "binary"}}
                            for media in analysis.IMAGE_TYPES.values()},
            }
        },
    )
    def report_file(
        root: int = Query(ge=0, le=100, examples=[0]),
        path: str = Query(min_length=1, max_length=500, examples=["ddz-ladder.png"]),
    ) -> FileResponse:
        with blame("query.path"):
            found, media = analysis.report_file(web.report_dirs, root, path)
        return FileResponse(found, media_type=media)

    @app.get("/api/records")
    async def records(
        game: Literal["doudizhu", "mahjong", "yuxi", "kuhn_poker", "tictactoe", "connect_four", "gomoku"]
        | None = None,
        limit: int = Query(50, ge=1, le=500),
        offset: int = Query(0, ge=0, le=MAX_INDEX),
    ) -> dict[str, Any]:
        return await run_in_threadpool(analysis.list_records, web.data_dir / "records", game, limit, offset)

    @app.get("/api/records/{run_id}/{game_index}")
    async def record(
        run_id: str, game_index: Annotated[int, PathParam(ge=0, le=MAX_INDEX)]
    ) -> dict[str, Any]:
        if not RUN_ID.fullmatch(run_id):
            raise blamed(NotFoundError(f"no run {run_id!r}"), "path.run_id")
        with blame("path.run_id"):
            return await run_in_threadpool(
                analysis.record_detail, web.data_dir / "records", run_id, game_index
            )

    return app


def _warm_up() -> None:
    """Import every game's engine and agents and build the mahjong shanten tables.

    A game that fails to load is logged and skipped: its own requests then report the error,
    and the other games keep working."""
    for kind, cls in SESSION_KINDS.items():
        try:
            cls.load_registry()
            cls.build_game({"seat": 0, "agents": []})
            if kind == "mahjong":
                from paiju.mahjong.shanten import warm_up

                warm_up()
        except Exception:
            _log.exception("paiju web: could not load %s at start-up", kind)


def _page(path: Path) -> Callable[[], FileResponse]:
    """A handler serving one fixed HTML file (no parameters: nothing in the request picks the file)."""

    def page() -> FileResponse:
        return FileResponse(path, media_type="text/html")

    return page


def _kind(kind: str) -> type[GameSession]:
    try:
        return SESSION_KINDS[kind]
    except KeyError:
        raise blamed(
            NotFoundError(f"unknown game {kind!r}; games: {', '.join(SESSION_KINDS)}"), "path.kind"
        ) from None


GAME_ID = re.compile(r"[0-9a-f]{8,64}")
RUN_ID = re.compile(r"[A-Za-z0-9-]{1,64}")


def blamed(err: PaijuError, field: str) -> PaijuError:
    """``err`` naming the request field at fault (the error body's ``field``)."""
    if getattr(err, "field", None) is None:
        err.field = field  # type: ignore[attr-defined]
    return err


@contextmanager
def blame(field: str) -> Iterator[None]:
    """Engine errors raised while handling one request field name that field."""
    try:
        yield
    except PaijuError as err:
        raise blamed(err, field) from None


def check_top_field(players: int, top: int) -> None:
    from paiju.tournament.dih import check_top

    with blame("top"):
        check_top(players, top)


class ContainErrors:
    """Answers an unexpected exception with a logged 500 JSON body and does not re-raise it.

    Starlette's outermost layer re-raises after sending its 500 (so that servers can log it),
    and uvicorn then closes the connection: the client's next request on the same keep-alive
    connection was reset. Stopping the exception here keeps the connection usable."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            _log.exception("paiju web: %s %s failed", scope.get("method"), scope.get("path"))
            if started:
                raise  # half a response is out: the connection cannot carry another one anyway
            body = {"error": f"internal error ({type(exc).__name__})", "field": None, "type": "InternalError"}
            await JSONResponse(body, status_code=500)(scope, receive, send)


__all__ = ["create_app"]
