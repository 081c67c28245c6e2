"""Cooperative deadlines and cancellation for long computations (searches, DIH analyses).

Why cooperative: a Python thread cannot be stopped from outside, and a search abandoned after
its time limit would keep a worker busy until it finished by itself. So the work runs under a
:class:`CancelToken` (a deadline and a cancel flag, installed for the current thread or task
by :func:`scope`), and every search and analysis loop calls :func:`check` every few
iterations; ``check`` raises :class:`~paiju.core.errors.DeadlineExceeded` once the deadline
has passed and :class:`~paiju.core.errors.WorkCancelled` once the token was cancelled (a
client went away, the server is stopping), so the worker is free again within one check
interval.

With no token installed ``check`` is one context-variable read and a ``None`` test: it
touches no clock and no random generator, so results without a deadline are exactly what
they were without this module (seeded games and replays depend on it).

The token lives in a :class:`contextvars.ContextVar`, so each thread (and each asyncio task)
sees its own; work handed to another thread must be wrapped with :func:`run` there.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from paiju.core.errors import DeadlineExceeded, WorkCancelled

P = ParamSpec("P")
T = TypeVar("T")


class CancelToken:
    """A deadline (``seconds`` from now; None for none) and a cancel flag for one piece of work.

    Thread-safe in the way that matters: :meth:`cancel` may be called from any thread, and
    the worker sees it at its next :meth:`check`.
    """

    __slots__ = ("_deadline", "_reason", "seconds", "what")

    def __init__(self, seconds: float | None = None, *, what: str = "the computation") -> None:
        if seconds is not None and not seconds > 0:
            raise ValueError(f"a deadline must be a positive number of seconds, got {seconds!r}")
        self.seconds = seconds
        self.what = what
        self._deadline = None if seconds is None else time.monotonic() + seconds
        self._reason: str | None = None

    def cancel(self, reason: str = "cancelled") -> None:
        """Ask the work to stop; the first reason given is the one reported."""
        if self._reason is None:
            self._reason = reason

    @property
    def cancelled(self) -> bool:
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        return self._reason

    def expired(self) -> bool:
        return self._deadline is not None and time.monotonic() >= self._deadline

    def remaining(self) -> float | None:
        """Seconds left before the deadline (0 when past it), or None without a deadline."""
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def check(self) -> None:
        """Raise if the work should stop (cancelled, or past the deadline)."""
        if self._reason is not None:
            raise WorkCancelled(f"{self.what} was stopped: {self._reason}")
        if self._deadline is not None and time.monotonic() >= self._deadline:
            raise DeadlineExceeded(f"{self.what} ran past its time limit of {self.seconds:g} s")


_current: ContextVar[CancelToken | None] = ContextVar("paiju_cancel_token", default=None)


def current() -> CancelToken | None:
    """The token of the work running in this thread or task, if any."""
    return _current.get()


def check() -> None:
    """Raise if the current work should stop; a no-op when no token is installed.

    Called inside search and analysis loops (every few iterations on hot paths).
    """
    token = _current.get()
    if token is not None:
        token.check()


@contextmanager
def scope(token: CancelToken | None) -> Iterator[CancelToken | None]:
    """Install ``token`` for the code in the ``with`` block (None: run without one)."""
    reset = _current.set(token)
    try:
        yield token
    finally:
        _current.reset(reset)


def run(token: CancelToken | None, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` under ``token`` (what a worker thread runs)."""
    with scope(token):
        return fn(*args, **kwargs)


class TokenGroup:
    """The tokens of the work in flight, so a server can stop all of it at once (shutdown).

    After :meth:`close` every new token is born cancelled: work that starts while the server
    is stopping ends at its first check.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._tokens: set[CancelToken] = set()
        self._closed: str | None = None

    def new(self, seconds: float | None = None, *, what: str = "the computation") -> CancelToken:
        token = CancelToken(seconds, what=what)
        with self._lock:
            if self._closed is not None:
                token.cancel(self._closed)
            self._tokens.add(token)
        return token

    def discard(self, token: CancelToken) -> None:
        with self._lock:
            self._tokens.discard(token)

    @contextmanager
    def track(self, seconds: float | None = None, *, what: str = "the computation") -> Iterator[CancelToken]:
        """A new token for the ``with`` block, forgotten when the block ends."""
        token = self.new(seconds, what=what)
        try:
            yield token
        finally:
            self.discard(token)

    def cancel_all(self, reason: str) -> int:
        """Cancel every token in flight; returns how many there were."""
        with self._lock:
            tokens = list(self._tokens)
        for token in tokens:
            token.cancel(reason)
        return len(tokens)

    def close(self, reason: str) -> int:
        """Cancel everything in flight and everything started from now on."""
        with self._lock:
            if self._closed is None:
                self._closed = reason
        return self.cancel_all(reason)

    @property
    def closed(self) -> bool:
        return self._closed is not None

    def __len__(self) -> int:
        with self._lock:
            return len(self._tokens)


__all__ = ["CancelToken", "TokenGroup", "check", "current", "run", "scope"]
