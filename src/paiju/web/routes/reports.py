"""The generated reports: the list (Markdown rendered, grouped by analysis) and their images."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from paiju.web import analysis
from paiju.web.errors import blame
from paiju.web.state import Web

router = APIRouter()


@router.get("/api/reports")
async def reports(web: Web) -> dict[str, Any]:
    return await run_in_threadpool(analysis.list_reports, web.report_dirs)


@router.get(
    "/api/reports/file",
    response_class=FileResponse,
    responses={
        200: {
            "description": "the image",
            "content": {
                media: {"schema": {"type": "string", "format": "binary"}}
                for media in analysis.IMAGE_TYPES.values()
            },
        }
    },
)
def report_file(
    web: Web,
    root: int = Query(ge=0, le=100, examples=[0]),
    path: str = Query(min_length=1, max_length=500, examples=["ddz-ladder.png"]),
) -> FileResponse:
    with blame("query.path"):
        found, media = analysis.report_file(web.report_dirs, root, path)
    return FileResponse(found, media_type=media)
