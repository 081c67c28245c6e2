"""The recorded games under ``<data>/records``: the list, and one game move by move."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi import Path as PathParam
from starlette.concurrency import run_in_threadpool

from paiju.core.errors import NotFoundError
from paiju.web import analysis
from paiju.web.errors import blame, blamed
from paiju.web.limits import MAX_INDEX
from paiju.web.state import Web

RUN_ID = re.compile(r"[A-Za-z0-9-]{1,64}")
"""The shape of a run id, checked before it names a folder."""

router = APIRouter()


@router.get("/api/records")
async def records(
    web: Web,
    game: Literal["doudizhu", "mahjong", "yuxi", "kuhn_poker", "tictactoe", "connect_four", "gomoku"]
    | None = None,
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=MAX_INDEX),
) -> dict[str, Any]:
    return await run_in_threadpool(analysis.list_records, web.data_dir / "records", game, limit, offset)


@router.get("/api/records/{run_id}/{game_index}")
async def record(
    web: Web, run_id: str, game_index: Annotated[int, PathParam(ge=0, le=MAX_INDEX)]
) -> dict[str, Any]:
    if not RUN_ID.fullmatch(run_id):
        raise blamed(NotFoundError(f"no run {run_id!r}"), "path.run_id")
    with blame("path.run_id"):
        return await run_in_threadpool(analysis.record_detail, web.data_dir / "records", run_id, game_index)
