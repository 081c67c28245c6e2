"""The HTML pages (``static/``, no build step): one fixed file per path, outside the schema."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC_DIR = Path(__file__).parent.parent / "static"
"""The front end's files; :func:`paiju.web.app.create_app` mounts them at ``/static``."""
PAGES = {
    "/": "index.html",
    "/ddz": "ddz.html",
    "/mahjong": "mahjong.html",
    "/yuxi": "yuxi.html",
    "/dih": "dih.html",
    "/reports": "reports.html",
    "/records": "records.html",
}


def _page(path: Path) -> Callable[[], FileResponse]:
    """A handler serving one fixed HTML file (no parameters: nothing in the request picks the file)."""

    def page() -> FileResponse:
        return FileResponse(path, media_type="text/html")

    return page


router = APIRouter()
for _route, _filename in PAGES.items():
    router.add_api_route(_route, _page(STATIC_DIR / _filename), methods=["GET"], include_in_schema=False)
