"""The paiju web app (FastAPI): play against the AIs and look at the analyses.

Robustness rules, and where each is enforced:

* **Validated input.** Every request body is a pydantic model with bounds and
  ``extra="forbid"``; a bad body is a 422 JSON ``{"error": ...}`` naming the field. Engine
  errors keep their meaning: an illegal move (``IllegalMoveError``) is a 409, bad notation
  or configuration (``InvalidNotationError``, ``AmbiguousMoveError``, ``ConfigError``) a 422,
  an unknown game a 404. The engines check a move before changing anything, so a refused
  move never corrupts a game.
* **Isolation.** A ``paiju_session`` cookie (128 random bits, HttpOnly, SameSite=Lax) is
  set on the first request; games are stored with the token and are invisible to others.
* **Never blocking the event loop.** Engine and AI work runs in worker threads
  (``run_in_threadpool``), and each AI decision has a time limit (``ai_time_limit``): an AI
  that overruns it is replaced for that move by the game's fast heuristic agent, and the
  transcript says so. Moves on one game are serialised by a per-game lock.
* **Restarts.** Games are stored (SQLite, :mod:`paiju.web.store`) as seed + move tokens
  after every move and replayed on first access after a restart.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, HTTPException, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from paiju.core.errors import (
    ConfigError,
    CorruptRecordError,
    IllegalMoveError,
    InvalidNotationError,
    PaijuError,
)
from paiju.web import analysis
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


# ---- request bodies -------------------------------------------------------------------------------
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


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
    ply: int | None = Field(None, ge=0, description="the ply the move was made for (stale moves get 409)")


class DihValueBody(_Body):
    dists: list[Annotated[str, Field(min_length=1, max_length=2000)]] = Field(min_length=1, max_length=200)
    players: int = Field(ge=1, le=100_000)
    rounds: int = Field(ge=1, le=200)
    top: int = Field(ge=1, le=100_000)


class DihSelectBody(_Body):
    pool: Annotated[str, Field(min_length=1, max_length=200)] = "synthetic"
    pool_text: Annotated[str, Field(max_length=200_000)] | None = None
    players: int = Field(ge=1, le=100_000)
    rounds: int = Field(ge=1, le=60)
    top: int = Field(ge=1, le=100_000)
    joint: bool = False
    beam: int = Field(4, ge=1, le=16)
    min_plays: int = Field(50, ge=1, le=1_000_000)


# ---- the app -----------------------------------------------------------------------------------------
class WebState:
    """Everything the routes share: the store, the AI runner, per-game locks, folders."""

    def __init__(
        self, data_dir: Path, report_dirs: list[Path], ai_time_limit: float, ai_workers: int
    ) -> None:
        self.data_dir = data_dir
        self.report_dirs = report_dirs
        self.store = GameStore(data_dir)
        self.runner = AIRunner(ai_time_limit, ai_workers)
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    def close(self) -> None:
        self.runner.shutdown()
        self.store.close()


def create_app(
    data_dir: str | Path = "data",
    *,
    report_dirs: list[str | Path] | None = None,
    ai_time_limit: float = 10.0,
    ai_workers: int = 4,
) -> FastAPI:
    """The web app over ``data_dir`` (games, records, pools); reports from ``report_dirs``
    (default: ``docs/results`` of the current folder and ``<data_dir>/reports``)."""
    data = Path(data_dir)
    reports = (
        [Path(p) for p in report_dirs]
        if report_dirs is not None
        else [Path("docs/results"), data / "reports"]
    )
    web = WebState(data, reports, ai_time_limit, ai_workers)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # load the engines and build the shanten tables in a worker thread at start-up, so the
        # first player does not wait for them (requests arriving meanwhile simply queue on them)
        warm = asyncio.get_running_loop().run_in_executor(None, _warm_up)
        yield
        await warm
        web.close()

    app = FastAPI(title="paiju", version="0.1.0", lifespan=lifespan)
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
        return JSONResponse({"error": str(exc), "type": type(exc).__name__}, status_code=status)

    @app.exception_handler(IllegalMoveError)
    async def illegal(request: Request, exc: IllegalMoveError) -> JSONResponse:
        return error(409, exc)

    @app.exception_handler(PaijuError)
    async def bad_input(request: Request, exc: PaijuError) -> JSONResponse:
        if isinstance(exc, CorruptRecordError):
            return error(500, exc)
        return error(422, exc)

    @app.exception_handler(LookupError)
    async def not_found(request: Request, exc: LookupError) -> JSONResponse:
        return error(404, exc)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for e in exc.errors():
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
            problems.append(f"{where}: {e.get('msg')}")
        return JSONResponse(
            {
                "error": "invalid request: " + "; ".join(problems),
                "type": "ValidationError",
                "problems": problems,
            },
            status_code=422,
        )

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail), "type": "HTTPError"}, status_code=exc.status_code)

    # ---- pages --------------------------------------------------------------------------------------
    for route, filename in PAGES.items():
        app.add_api_route(route, _page(STATIC_DIR / filename), methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    # ---- games --------------------------------------------------------------------------------------
    @app.get("/api/health")
    def health() -> dict[str, Any]:
        return {"ok": True, "games": sorted(SESSION_KINDS), "ai_time_limit_s": web.runner.time_limit_s}

    @app.get("/api/agents/{kind}")
    def agents(kind: str) -> dict[str, Any]:
        cls = _kind(kind)
        registry = cls.load_registry()
        return {
            "game": kind,
            "fallback": cls.fallback_spec,
            "agents": [
                {"name": name, "defaults": defaults, "doc": doc}
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

    async def start(request: Request, kind: str, params: dict[str, Any], seed: int | None) -> dict[str, Any]:
        cls = SESSION_KINDS[kind]
        specs = params["agents"]
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
        await run_in_threadpool(SESSION_KINDS["yuxi"].build_game, params)
        return await start(request, "yuxi", params, body.seed)

    @app.get("/api/games")
    def my_games(request: Request, limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
        return {"games": web.store.list(request.state.session, limit)}

    async def load(request: Request, game_id: str) -> GameSession:
        if not (8 <= len(game_id) <= 64 and game_id.isalnum()):
            raise LookupError(f"no game {game_id!r}")
        game = await run_in_threadpool(web.store.get, request.state.session, game_id)
        if game is None:
            raise LookupError(f"no game {game_id!r} in this session")
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
                game.play_human(body.model_dump(exclude={"ply"}), body.ply)
                try:
                    game.run_ai(web.runner)
                finally:
                    web.store.save(game)
                return game.view()

            return await run_in_threadpool(work)

    # ---- analysis -----------------------------------------------------------------------------------
    @app.post("/api/dih/value")
    async def dih_value(body: DihValueBody) -> dict[str, Any]:
        return await run_in_threadpool(analysis.dih_value, body.dists, body.players, body.rounds, body.top)

    @app.get("/api/dih/pools")
    def dih_pools() -> dict[str, Any]:
        return {"pools": analysis.list_pools(web.data_dir)}

    @app.post("/api/dih/select")
    async def dih_select(body: DihSelectBody) -> dict[str, Any]:
        def work() -> dict[str, Any]:
            pool = analysis.load_pool(body.pool, web.data_dir, body.min_plays, body.pool_text)
            out = analysis.select_deals(pool, body.players, body.rounds, body.top, body.joint, body.beam)
            out["pool"] = body.pool
            return out

        return await run_in_threadpool(work)

    @app.get("/api/reports")
    async def reports() -> dict[str, Any]:
        return await run_in_threadpool(analysis.list_reports, web.report_dirs)

    @app.get("/api/reports/file")
    def report_file(
        root: int = Query(ge=0, le=100), path: str = Query(min_length=1, max_length=500)
    ) -> FileResponse:
        try:
            found, media = analysis.report_file(web.report_dirs, root, path)
        except ConfigError as err:
            raise LookupError(str(err)) from None
        return FileResponse(found, media_type=media)

    @app.get("/api/records")
    async def records(
        game: Literal["doudizhu", "mahjong", "yuxi", "kuhn_poker", "tictactoe", "connect_four", "gomoku"]
        | None = None,
        limit: int = Query(50, ge=1, le=500),
        offset: int = Query(0, ge=0),
    ) -> dict[str, Any]:
        return await run_in_threadpool(analysis.list_records, web.data_dir / "records", game, limit, offset)

    @app.get("/api/records/{run_id}/{game_index}")
    async def record(run_id: str, game_index: int) -> dict[str, Any]:
        if not (1 <= len(run_id) <= 64 and run_id.replace("-", "").isalnum()):
            raise LookupError(f"no run {run_id!r}")
        return await run_in_threadpool(analysis.record_detail, web.data_dir / "records", run_id, game_index)

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
        raise LookupError(f"unknown game {kind!r}; games: {', '.join(SESSION_KINDS)}") from None


__all__ = ["create_app"]
