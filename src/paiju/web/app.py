"""The paiju web app (FastAPI): play against the AIs and look at the analyses.

Robustness rules, and where each is enforced:

* **Validated input.** Every request body is a strict pydantic model with bounds and
  ``extra="forbid"`` (``true`` is not an integer, ``"3"`` is not a seat); every error is a
  JSON body ``{"error": ..., "field": ..., "type": ...}`` (:class:`~paiju.web.errors.ErrorBody`,
  declared in the OpenAPI schema) whose ``field`` names the request field at fault. Engine
  errors keep their meaning (:mod:`paiju.web.errors`): an illegal move (``IllegalMoveError``)
  is a 409, bad notation or configuration (``InvalidNotationError``, ``AmbiguousMoveError``,
  ``ConfigError``) a 422, an unknown game, run or report (``NotFoundError``) a 404. The
  engines check a move before changing anything, so a refused move never corrupts a game.
* **The connection survives an error.** An unexpected exception is logged and answered
  with a 500 JSON body by :class:`~paiju.web.errors.ContainErrors` without re-raising it:
  Starlette re-raises after its own 500, and uvicorn then drops the keep-alive connection.
* **Isolation.** A ``paiju_session`` cookie (128 random bits, HttpOnly, SameSite=Lax) is
  set on the first request; games are stored with the token and are invisible to others.
* **Never blocking the event loop.** Engine and AI work runs in worker threads
  (``run_in_threadpool``), and each AI decision has a time limit (``ai_time_limit``): an AI
  that overruns it is replaced for that move by the game's fast heuristic agent, and the
  transcript says so. Moves on one game are serialised by a per-game lock.
* **Nothing runs unbounded** (``docs/web.md``). Every cost parameter has a maximum
  (:class:`~paiju.web.limits.WebLimits`, the DIH bodies' bounds); time limits stop the work
  itself (a deadline checked in every search and analysis loop, :mod:`paiju.core.deadline`),
  analyses stop when their client disconnects, and
  :meth:`~paiju.web.state.WebState.stop_work` cancels everything when the server stops
  (:mod:`paiju.web.server`).
* **Routes** live in :mod:`paiju.web.routes`, one router per area; this module only
  assembles the app: its state, middleware, error handlers and routers (``docs/web.md``,
  "Code layout").
* **Restarts.** Games are stored (SQLite, :mod:`paiju.web.store`) as seed + move tokens
  after every move and replayed on first access after a restart.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.staticfiles import StaticFiles

from paiju.web import analysis
from paiju.web.errors import ERROR_RESPONSES, ContainErrors, install_error_handlers
from paiju.web.event import ServedEvent
from paiju.web.limits import KeepRawReceive, WebLimits
from paiju.web.routes import api_routers, pages
from paiju.web.sessions import SESSION_KINDS
from paiju.web.state import WebState
from paiju.web.store import new_token

_log = logging.getLogger(__name__)
COOKIE = "paiju_session"


def create_app(
    data_dir: str | Path = "data",
    *,
    report_dirs: list[str | Path] | None = None,
    ai_time_limit: float = 10.0,
    ai_workers: int = 4,
    limits: WebLimits | None = None,
    event: str | Path | None = None,
    director_token: str | None = None,
) -> FastAPI:
    """The web app over ``data_dir`` (games, records, pools); reports from ``report_dirs``
    (default: :func:`analysis.default_report_dirs`, the checkout's results whatever the
    current folder, and ``<data_dir>/reports``); the organiser's pages of the tournament ``event``
    file, if given, with the director's pages behind ``director_token`` (default: a new random
    one, ``app.state.web.event.director_token``)."""
    data = Path(data_dir)
    reports = (
        [Path(p) for p in report_dirs]
        if report_dirs is not None
        else analysis.default_report_dirs(data)
    )
    served = None if event is None else ServedEvent.open(event, director_token)
    web = WebState(data, reports, ai_time_limit, ai_workers, limits, served)

    app = FastAPI(title="paiju", version="0.1.0", lifespan=_lifespan, responses=ERROR_RESPONSES)
    app.state.web = web
    app.middleware("http")(session_cookie)
    install_error_handlers(app)
    # outermost of the app's own layers, so it also sees what the session middleware raises
    app.add_middleware(ContainErrors)
    app.add_middleware(KeepRawReceive)  # outside the session middleware: sees clients disconnect

    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=pages.STATIC_DIR), name="static")
    for router in api_routers(web.limits):
        app.include_router(router)
    return app


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    # load the engines and build the shanten tables in a worker thread at start-up, so the
    # first player does not wait for them (requests arriving meanwhile simply queue on them)
    warm = asyncio.get_running_loop().run_in_executor(None, _warm_up)
    yield
    await warm
    app.state.web.close()


async def session_cookie(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    """Give every request its session token (``request.state.session``), from the cookie or new."""
    token = request.cookies.get(COOKIE)
    fresh = (
        token is None
        or not (16 <= len(token) <= 64)
        or not token.replace("-", "").replace("_", "").isalnum()
    )
    if fresh or token is None:  # (token is None already makes it fresh)
        token = new_token()
    request.state.session = token
    response = await call_next(request)
    if fresh:
        response.set_cookie(COOKIE, token, httponly=True, samesite="lax", max_age=60 * 60 * 24 * 365)
    return response


def _warm_up() -> None:
    """Load what each game's first request would wait for (its session's ``warm_up``: the
    engine, the agents, a game's own slow parts such as the Dou Dizhu tagger).

    A game that fails to load is logged and skipped: its own requests then report the error,
    and the other games keep working."""
    for kind, cls in SESSION_KINDS.items():
        try:
            cls.warm_up()
        except Exception:
            _log.exception("paiju web: could not load %s at start-up", kind)


__all__ = ["create_app"]
