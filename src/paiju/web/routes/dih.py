"""Deal selection by DIH: a tournament's DIH from score laws, the deal pools, the selection.

The two request bodies carry the app's cost limits (:func:`paiju.web.limits.analysis_bodies`),
so this router is built per app (:func:`build_router`); the analyses run under the app's
:class:`~paiju.web.limits.AnalysisRunner` (bounded, timed, stopped when the client goes).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from paiju.web import analysis
from paiju.web.errors import blame
from paiju.web.limits import DihSelectFields, DihValueFields, WebLimits, analysis_bodies, body_type
from paiju.web.state import Web


def check_top_field(players: int, top: int) -> None:
    """Refuse more top places than players, naming the field ``top``."""
    from paiju.tournament.dih import check_top

    with blame("top"):
        check_top(players, top)


def build_router(limits: WebLimits) -> APIRouter:
    """The DIH routes, their bodies bounded by ``limits``."""
    DihValueBody, DihSelectBody = analysis_bodies(limits)
    router = APIRouter()

    @router.post("/api/dih/value")
    @body_type(DihValueBody)
    async def dih_value(web: Web, request: Request, body: DihValueFields) -> dict[str, Any]:
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

    @router.get("/api/dih/pools")
    def dih_pools(web: Web) -> dict[str, Any]:
        return {"pools": analysis.list_pools(web.data_dir)}

    @router.post("/api/dih/select")
    @body_type(DihSelectBody)
    async def dih_select(web: Web, request: Request, body: DihSelectFields) -> dict[str, Any]:
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

    return router
