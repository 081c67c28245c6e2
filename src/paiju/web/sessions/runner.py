"""How the web app runs an AI's move: off the request thread, under a time limit that stops it.

A session (:mod:`paiju.web.sessions.base`) hands each AI decision to the one
:class:`AIRunner` the app shares; the runner answers the agent's action, or None and why
(over the limit, stopped, failed), and the session then lets the game's fallback move.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from paiju.core import deadline
from paiju.core.errors import ConfigError, DeadlineExceeded, WorkCancelled
from paiju.core.protocol import ActionT, Agent


@dataclass
class AIRunner:
    """Runs AI decisions in a thread pool, each with a time limit that really stops it.

    Why threads: ``act`` is plain Python over an observation; running it off the event loop
    keeps the server responsive. Each decision runs under a
    :class:`~paiju.core.deadline.CancelToken` whose deadline is ``time_limit_s`` after it was
    submitted (time spent queued counts), and every search loop checks it, so a decision over
    the limit stops within one check interval and its worker is free again; the caller stops
    waiting at the limit and the seat's *fallback* agent (the game's fast heuristic) moves
    instead, in the caller's thread. The overrunning agent object is then retired and rebuilt
    (its search stopped half-way). :meth:`shutdown` cancels every decision in flight.

    Agents without a search (``inline=True``: random, greedy, rule) are as fast as the
    fallback itself, so they run in the caller's thread: a flood of expensive searches filling
    the pool never delays them.
    """

    time_limit_s: float = 10.0
    workers: int = 4
    request_budget_s: float | None = None
    """AI thinking time of one request (one human move, or a new game), all its decisions
    together (default: 3 x ``time_limit_s``); past it the fallback plays the rest at once, so a
    mahjong turn with many AI claim decisions cannot hold a request for minutes."""
    _pool: ThreadPoolExecutor = field(init=False, repr=False)
    _tokens: deadline.TokenGroup = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False)
    _pending: int = field(init=False, default=0)
    _busy: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        if not self.time_limit_s > 0:
            raise ConfigError(f"AI time limit must be positive, got {self.time_limit_s}")
        if self.workers < 1:
            raise ConfigError(f"AI workers must be at least 1, got {self.workers}")
        if self.request_budget_s is None:
            self.request_budget_s = 3 * self.time_limit_s
        if not self.request_budget_s > 0:
            raise ConfigError(f"AI request budget must be positive, got {self.request_budget_s}")
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="paiju-ai")
        self._tokens = deadline.TokenGroup()
        self._lock = threading.Lock()

    def decide(
        self,
        agent: Agent[ActionT],
        observation: Any,
        legal: Sequence[ActionT],
        *,
        inline: bool = False,
        seconds: float | None = None,
    ) -> tuple[ActionT | None, str]:
        """The agent's action, or None and why not (over the time limit, stopped, or it failed).

        ``seconds`` (at most ``time_limit_s``) shortens the limit: what is left of the request's
        budget."""
        limit = self.time_limit_s if seconds is None else min(self.time_limit_s, seconds)
        if self._tokens.closed:
            return None, "the server is stopping"
        if inline:
            try:
                return agent.act(observation, legal), ""
            except Exception as err:  # a failing AI must not stop the game: its fallback moves
                return None, f"AI error {type(err).__name__}: {err}"
        if not limit > 0:
            return None, f"this request's AI time budget of {self.request_budget_s:g}s is used up"
        with self._tokens.track(limit, what="the AI's decision") as token:
            try:
                future = self._submit(token, agent, observation, legal)
            except RuntimeError:  # the pool is shut down: the server is stopping
                return None, "the server is stopping"
            try:
                return future.result(timeout=limit), ""
            except (FutureTimeout, DeadlineExceeded):
                why = f"time limit {self.time_limit_s:g}s" if limit == self.time_limit_s else (
                    f"this request's AI time budget of {self.request_budget_s:g}s is used up"
                )
                token.cancel(why)  # the search stops at its next check
                future.cancel()  # still queued behind other slow decisions: never start it
                return None, why
            except WorkCancelled:
                return None, token.reason or "stopped"
            except Exception as err:  # a failing AI must not stop the game: its fallback moves
                return None, f"AI error {type(err).__name__}: {err}"

    def _submit(
        self,
        token: deadline.CancelToken,
        agent: Agent[ActionT],
        observation: Any,
        legal: Sequence[ActionT],
    ) -> Future[ActionT]:
        def work() -> ActionT:
            with self._lock:
                self._busy += 1
            try:
                return deadline.run(token, agent.act, observation, legal)
            finally:
                with self._lock:
                    self._busy -= 1

        def finished(_: Future[ActionT]) -> None:  # also called when a queued decision is cancelled
            with self._lock:
                self._pending -= 1

        with self._lock:
            self._pending += 1
        try:
            future = self._pool.submit(work)
        except RuntimeError:
            with self._lock:
                self._pending -= 1
            raise
        future.add_done_callback(finished)
        return future

    def status(self) -> dict[str, int]:
        """Workers, decisions computing now, decisions waiting for a worker."""
        with self._lock:
            return {"workers": self.workers, "busy": self._busy, "queued": self._pending - self._busy}

    def shutdown(self, reason: str = "the server is stopping") -> None:
        """Stop every decision in flight (they end at their next check) and refuse new ones."""
        self._tokens.close(reason)
        self._pool.shutdown(wait=False, cancel_futures=True)

