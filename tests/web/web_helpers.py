"""Helpers of the web tests: a test client, a live uvicorn server, screenshots (used by conftest.py)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


def make_client(app: Any) -> Any:
    """A FastAPI TestClient (its deprecation warning about the HTTP client is not ours)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

        return TestClient(app)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """uvicorn serving the app in a background thread on a free loopback port."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.data_dir: Path | None = None
        self.reports_dir: Path | None = None

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/web/ (git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@contextlib.contextmanager
def new_page(browser: Any, **context: Any) -> Iterator[Any]:
    """A page in a fresh browser context (``viewport``, ``is_mobile``, ...), closed afterwards."""
    ctx = browser.new_context(**context)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    try:
        yield pg
    finally:
        ctx.close()
