"""The web app's routes, one :class:`fastapi.APIRouter` per area (``docs/web.md``, "Code layout").

:func:`paiju.web.app.create_app` includes the pages (:mod:`.pages`, outside the schema) and
then the API routers in the order of :func:`api_routers`, which is the order of the paths in
the OpenAPI schema. Routers hold no state: an endpoint gets its app's
:class:`~paiju.web.state.WebState` through the :data:`~paiju.web.state.Web` dependency.
"""

from __future__ import annotations

from fastapi import APIRouter

from paiju.web.limits import WebLimits
from paiju.web.routes import dih, games, health, options, records, reports, tournament


def api_routers(limits: WebLimits) -> list[APIRouter]:
    """The API routers of an app under ``limits`` (the DIH bodies carry the limits: built per app)."""
    return [
        health.router,
        options.router,
        games.router,
        dih.build_router(limits),
        reports.router,
        records.router,
        tournament.router,
    ]


__all__ = ["api_routers"]
