"""Shared fixtures of the web tests: an app over a temporary data folder, a live server, Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import CHROMIUM, CHROMIUM_ARGS, LiveServer, make_client, new_page


@pytest.fixture
def app_factory(tmp_path: Path) -> Any:
    """Build apps over one temporary data folder (a second app = the server after a restart)."""
    from paiju.web.app import create_app

    def build(**kwargs: Any) -> Any:
        kwargs.setdefault("report_dirs", [tmp_path / "reports"])
        return create_app(tmp_path / "data", **kwargs)

    return build


@pytest.fixture
def extra_agent(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Register a test agent for one test: ``extra_agent(kind, name, factory, defaults, doc, limits)``.

    The game's registry is replaced by a copy holding the extra agent, so the shipped registry
    is never changed."""
    import copy
    import importlib

    from paiju.core.registry import get_entry

    def add(
        kind: str,
        name: str,
        factory: Any,
        defaults: dict[str, Any] | None = None,
        doc: str = "",
        limits: dict[str, tuple[float, float]] | None = None,
    ) -> None:
        module_name, _, attr = get_entry(kind).agents_path.partition(":")
        module = importlib.import_module(module_name)
        registry = copy.deepcopy(getattr(module, attr))
        registry.register(name, factory, defaults, doc, limits=limits)
        monkeypatch.setattr(module, attr, registry)

    return add


@pytest.fixture
def client(app_factory: Any) -> Iterator[Any]:
    with make_client(app_factory()) as c:
        yield c


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    from paiju.web.app import create_app

    root = tmp_path_factory.mktemp("web-live")
    app = create_app(root / "data", report_dirs=[root / "reports"], ai_time_limit=10.0)
    with LiveServer(app) as server:
        server.data_dir = root / "data"
        server.reports_dir = root / "reports"
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is absent: install Debian's chromium (scripts/ensure_chromium.sh)")
    from playwright.sync_api import sync_playwright

    # Playwright refuses --user-data-dir in launch(); it gives every launch a fresh temporary
    # profile of its own (and every test below gets a fresh context: its own cookies).
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with new_page(browser, viewport={"width": 1280, "height": 900}) as pg:
        yield pg
