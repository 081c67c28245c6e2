"""What the web app's routes share: :class:`WebState`, one per app, at ``app.state.web``.

Routes reach it through the :data:`Web` dependency (``web: Web`` as an endpoint parameter),
so a router holds no state of its own and two apps in one process never share games.
"""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request

from paiju.web.event import ServedEvent
from paiju.web.limits import AnalysisRunner, WebLimits
from paiju.web.sessions import AIRunner
from paiju.web.store import GameStore


class WebState:
    """Everything the routes share: the store, the AI runner, per-game locks, folders."""

    def __init__(
        self,
        data_dir: Path,
        report_dirs: list[Path],
        ai_time_limit: float,
        ai_workers: int,
        limits: WebLimits | None = None,
        event: ServedEvent | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.report_dirs = report_dirs
        self.limits = limits if limits is not None else WebLimits()
        self.store = GameStore(data_dir)
        self.runner = AIRunner(ai_time_limit, ai_workers)
        self.analyses = AnalysisRunner(self.limits)
        self.event = event
        """The tournament event served (``paiju serve --event``), if any."""
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


async def web_state(request: Request) -> WebState:
    """The :class:`WebState` of the app serving ``request`` (a coroutine: no worker thread)."""
    state: WebState = request.app.state.web
    return state


Web = Annotated[WebState, Depends(web_state)]
"""An endpoint parameter ``web: Web`` receives its app's :class:`WebState`."""
