"""Serving the web app on uvicorn so that it stops within seconds, even with work in flight.

On SIGINT/SIGTERM uvicorn stops accepting connections and waits for the requests in flight;
an AI search or an analysis could keep such a request (and the worker thread under it) busy
for many seconds more. So the signal also cancels every computation in flight
(:meth:`paiju.web.state.WebState.stop_work`: their tokens, :mod:`paiju.core.deadline`): a
cancelled AI decision is replaced by the game's fallback agent and the game is saved as
usual, so unfinished games are restored on the next start; a cancelled analysis gets a 503.
Requests still running after ``grace_s`` are cancelled by uvicorn
(``timeout_graceful_shutdown``).
"""

from __future__ import annotations

import threading
from types import FrameType
from typing import Any

import uvicorn

GRACE_S = 2  # whole seconds: uvicorn types the timeout as an int
"""Seconds uvicorn waits for requests in flight once told to stop (then cancels them)."""


class PaijuServer(uvicorn.Server):
    """uvicorn's server, cancelling the app's work in flight as soon as it is told to stop."""

    def __init__(self, config: uvicorn.Config, web: Any) -> None:
        super().__init__(config)
        self._web = web

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        # a signal handler interrupts the event loop's thread, which may hold a lock that
        # stop_work takes: cancel from another thread instead
        threading.Thread(target=self._web.stop_work, name="paiju-stop", daemon=True).start()
        super().handle_exit(sig, frame)


def serve_app(app: Any, host: str, port: int, *, grace_s: int = GRACE_S) -> None:
    """Run ``app`` (from :func:`paiju.web.app.create_app`) until SIGINT/SIGTERM."""
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=grace_s
    )
    PaijuServer(config, app.state.web).run()


__all__ = ["GRACE_S", "PaijuServer", "serve_app"]
