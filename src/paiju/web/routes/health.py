"""``GET /api/health``: the server is up, and what its workers are doing."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from paiju.web.sessions import SESSION_KINDS
from paiju.web.state import Web

router = APIRouter()


@router.get("/api/health")
def health(web: Web) -> dict[str, Any]:
    return {
        "ok": True,
        "games": sorted(SESSION_KINDS),
        "ai_time_limit_s": web.runner.time_limit_s,
        # what the workers are doing: all idle again after a flood of expensive requests
        "ai": web.runner.status(),
        "analysis": web.analyses.status(),
        "limits": web.limits.as_dict(),
    }
