"""The web app's cost limits, and running analyses so that they stop when they should.

Every request parameter that scales the cost of a request has a maximum here
(:class:`WebLimits`; documented in ``docs/web.md``, "Limits"). The maxima are pydantic
``Field`` bounds of the request bodies built by :func:`analysis_bodies`, so a request over
one is refused where it enters, with a 422 naming the field and the limit, and the OpenAPI
schema states them. The defaults keep the most expensive accepted request to a few seconds
of CPU on a 2-core machine (measured: ``docs/web.md``); ``create_app(limits=...)`` lowers
them (the tests do).

Costs that depend on the *content* of a request rather than on one field (the lattice of a
tournament total, the size and score span of a deal pool) are checked before the work starts
(:meth:`WebLimits.check_total_cells`, :meth:`WebLimits.check_pool`), with the same kind of
error.

An analysis then runs in a worker thread under a :class:`~paiju.core.deadline.CancelToken`
(:class:`AnalysisRunner`): at most ``analysis_workers`` at a time (the others wait, at most
``analysis_queue_s``, then get a 503), each stopped at ``analysis_time_limit_s`` (a 503), or
as soon as its client disconnects, or when the server stops.
"""

# No ``from __future__ import annotations`` here: the request bodies below are classes built
# per app, and FastAPI reads a body's type from its endpoint's evaluated annotation.

import asyncio
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Annotated, Any, Protocol, TypeVar

import anyio
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from paiju.core import deadline
from paiju.core.errors import ConfigError, WorkCancelled
from paiju.web.errors import blamed

T = TypeVar("T")

MAX_INDEX = 1_000_000_000
"""Largest ply, record index or page offset a request may name (far above any real game)."""


@dataclass(frozen=True)
class WebLimits:
    """Maxima of the cost parameters of the web API (see the module docstring)."""

    dih_players: int = 100_000
    """``/api/dih/value`` players (the cost grows only with its logarithm)."""
    dih_rounds: int = 200
    """``/api/dih/value`` rounds."""
    dih_top: int = 1_000
    """``/api/dih/value`` top places (the cost is linear in it)."""
    dih_dists: int = 200
    """``/api/dih/value``: distributions given (one, or one per round)."""
    dih_dist_chars: int = 2_000
    """``/api/dih/value``: characters of one distribution."""
    dih_total_cells: int = 30_000
    """``/api/dih/value``: lattice cells of a player's total (rounds x score span)."""
    select_players: int = 100_000
    """``/api/dih/select`` players."""
    select_rounds: int = 18
    """``/api/dih/select`` rounds (the joint search grows with their square)."""
    select_top: int = 6
    """``/api/dih/select`` top places."""
    select_beam: int = 8
    """``/api/dih/select`` beam width of the joint search."""
    select_pool_deals: int = 300
    """``/api/dih/select``: deals of the pool searched (custom, file and records pools)."""
    select_score_span: int = 12
    """``/api/dih/select``: highest minus lowest score of the pool's deals."""
    pool_text_chars: int = 100_000
    """``/api/dih/select``: characters of a typed-in (custom) pool."""
    min_plays: int = 1_000_000
    """``/api/dih/select``: the plays filter (no cost; bounded to keep the schema finite)."""
    analysis_time_limit_s: float = 10.0
    """Wall-clock limit of one analysis: the hard cap (the joint search's swap sweeps depend on
    the pool, so no field bound alone caps its time)."""
    analysis_workers: int = 2
    """Analyses computed at the same time; further ones wait for a free slot."""
    analysis_queue_s: float = 10.0
    """Longest wait for a free analysis slot before the request gets a 503."""

    def __post_init__(self) -> None:
        for key, value in asdict(self).items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ConfigError(f"web limit {key}={value!r} must be a positive number")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def check_total_cells(self, laws: list[Any], field: str = "dists") -> None:
        """Refuse a total whose lattice (sum of the rounds' score spans, plus one) is too big."""
        cells = 1 + sum(law.scores[-1] - law.scores[0] for law in laws)
        if cells > self.dih_total_cells:
            raise blamed(
                ConfigError(
                    f"the totals of these {len(laws)} rounds span {cells} points, above the maximum "
                    f"{self.dih_total_cells} of the web app (fewer rounds or narrower distributions)"
                ),
                field,
            )

    def check_pool(self, pool: Any, field: str = "pool") -> None:
        """Refuse a deal pool with too many deals or too wide a score span for the joint search."""
        if len(pool) > self.select_pool_deals:
            raise blamed(
                ConfigError(
                    f"the pool has {len(pool)} deals, above the maximum {self.select_pool_deals} "
                    "of the web app (use `paiju dih select` for bigger pools)"
                ),
                field,
            )
        span = pool.matrix.shape[1] - 1
        if span > self.select_score_span:
            raise blamed(
                ConfigError(
                    f"the pool's scores span {span} points, above the maximum {self.select_score_span} "
                    "of the web app (use `paiju dih select` for such pools)"
                ),
                field,
            )


class _Body(BaseModel):
    # strict: JSON true/false are not integers and "3" is not a number (as the app's other bodies)
    model_config = ConfigDict(extra="forbid", strict=True)


class DihValueFields(Protocol):
    """The fields of the ``/api/dih/value`` body, whatever the app's limits (the endpoint's
    type; the model that FastAPI validates with is built per app by :func:`analysis_bodies`)."""

    dists: list[str]
    players: int
    rounds: int
    top: int


class DihSelectFields(Protocol):
    """The fields of the ``/api/dih/select`` body (see :class:`DihValueFields`)."""

    pool: str
    pool_text: str | None
    players: int
    rounds: int
    top: int
    joint: bool
    beam: int
    min_plays: int


def analysis_bodies(limits: WebLimits) -> tuple[type[BaseModel], type[BaseModel]]:
    """The request bodies of ``/api/dih/value`` and ``/api/dih/select`` under ``limits``."""
    lim = limits

    class DihValueBody(_Body):
        dists: list[Annotated[str, Field(min_length=1, max_length=lim.dih_dist_chars)]] = Field(
            min_length=1,
            max_length=lim.dih_dists,
            description="one score law 'score:prob,...' for every round, or one per round",
        )
        players: int = Field(ge=1, le=lim.dih_players)
        rounds: int = Field(ge=1, le=lim.dih_rounds)
        top: int = Field(ge=1, le=lim.dih_top)

    class DihSelectBody(_Body):
        pool: Annotated[str, Field(min_length=1, max_length=200)] = "synthetic"
        pool_text: Annotated[str, Field(max_length=lim.pool_text_chars)] | None = None
        players: int = Field(ge=1, le=lim.select_players)
        rounds: int = Field(ge=1, le=lim.select_rounds)
        top: int = Field(ge=1, le=lim.select_top)
        joint: bool = False
        beam: int = Field(min(4, lim.select_beam), ge=1, le=lim.select_beam)
        min_plays: int = Field(min(50, lim.min_plays), ge=1, le=lim.min_plays)

    return DihValueBody, DihSelectBody


def body_type(model: type[BaseModel]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give an endpoint's ``body`` parameter the per-app ``model`` (see the top of this file)."""

    def apply(endpoint: Callable[..., Any]) -> Callable[..., Any]:
        endpoint.__annotations__["body"] = model
        return endpoint

    return apply


RAW_RECEIVE = "paiju.raw_receive"


class KeepRawReceive:
    """Keeps the server's own ``receive`` in the request scope, for :func:`client_disconnected`.

    Why: behind Starlette's ``BaseHTTPMiddleware`` (the app's session-cookie middleware),
    ``Request.is_disconnected()`` never sees the client go away; the server's ``receive``
    does. Must be added outside that middleware (``app.add_middleware`` adds outermost)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope[RAW_RECEIVE] = receive
        await self.app(scope, receive, send)


async def client_disconnected(request: Request) -> bool:
    """Whether the client of ``request`` has gone (call only once its body has been read)."""
    raw = request.scope.get(RAW_RECEIVE)
    if raw is None:
        return await request.is_disconnected()
    message: dict[str, Any] = {}
    with anyio.CancelScope() as scope:  # look, do not wait: only a message already there counts
        scope.cancel()
        message = dict(await raw())
    return message.get("type") == "http.disconnect"


class AnalysisRunner:
    """Runs analyses in worker threads: bounded in number and time, cancelled when unwanted."""

    POLL_S = 0.2
    """How often a running analysis looks whether its client is still there."""

    def __init__(self, limits: WebLimits) -> None:
        self.limits = limits
        self.tokens = deadline.TokenGroup()
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.waiting = 0

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:  # a new event loop (a test's new client)
            self._slots, self._loop = asyncio.Semaphore(self.limits.analysis_workers), loop
        return self._slots

    @property
    def running(self) -> int:
        return len(self.tokens)

    def status(self) -> dict[str, int]:
        return {"workers": self.limits.analysis_workers, "busy": self.running, "queued": self.waiting}

    async def run(self, request: Request | None, what: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker thread under a deadline; raises WorkCancelled when stopped."""
        slots = self._semaphore()
        self.waiting += 1
        try:
            await asyncio.wait_for(slots.acquire(), timeout=self.limits.analysis_queue_s)
        except TimeoutError:
            raise WorkCancelled(
                f"the server is busy: {self.running} analyses are running and {self.waiting - 1} more "
                "are waiting; retry in a few seconds"
            ) from None
        finally:
            self.waiting -= 1
        try:
            with self.tokens.track(self.limits.analysis_time_limit_s, what=what) as token:
                task = asyncio.ensure_future(run_in_threadpool(deadline.run, token, fn, *args))
                try:
                    while True:
                        done, _ = await asyncio.wait({task}, timeout=self.POLL_S)
                        if done:
                            return task.result()
                        if request is not None and await client_disconnected(request):
                            token.cancel("its client disconnected")
                finally:
                    # the request itself was cancelled (server shutdown): stop the thread too,
                    # and keep the slot until it has stopped
                    if not task.done():
                        token.cancel("the request was cancelled")
                        await asyncio.wait({task})
        finally:
            slots.release()

    def close(self, reason: str) -> None:
        self.tokens.close(reason)


__all__ = [
    "AnalysisRunner",
    "KeepRawReceive",
    "WebLimits",
    "analysis_bodies",
    "body_type",
    "client_disconnected",
]
