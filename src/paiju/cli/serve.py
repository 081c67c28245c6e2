"""`paiju serve`: the web app (play against the AIs, look at the analyses) on uvicorn."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from paiju.cli.common import console
from paiju.cli.validate import input_dir, input_file, listen_address, output_dir
from paiju.core.errors import ConfigError


def serve(
    host: Annotated[
        str, typer.Option("--host", parser=listen_address, help="Address to listen on (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8000,
    data: Annotated[
        Path,
        typer.Option(
            "--data", parser=output_dir, help="Folder for games in progress, game records and deal pools."
        ),
    ] = Path("data"),
    ai_time_limit: Annotated[
        float,
        typer.Option(
            "--ai-time-limit",
            min=0.1,
            max=3600.0,
            help="Seconds an AI may think per move before its fallback moves.",
        ),
    ] = 10.0,
    reports: Annotated[
        list[Path] | None,
        typer.Option(
            "--reports",
            parser=input_dir,
            help="A folder of reports (Markdown, PNG) for the Reports page, repeatable; it replaces "
            "docs/results of the source checkout paiju runs from (the default there). "
            "<data>/reports is always read too.",
        ),
    ] = None,
    event: Annotated[
        Path | None,
        typer.Option(
            "--event",
            parser=input_file,
            help="A tournament's event file (paiju tournament new): serve its organiser's pages too.",
        ),
    ] = None,
) -> None:
    """Start the web app: Dou Dizhu, mahjong and yuxi against the AIs; DIH, reports, records."""
    from paiju.web.app import create_app
    from paiju.web.server import serve_app

    if not 0 < port < 65536:
        raise ConfigError(f"port must be 1..65535, not {port}")
    if data.exists() and not data.is_dir():
        raise ConfigError(f"--data {data} is a file, not a folder")
    report_dirs: list[str | Path] | None = None if not reports else [*reports, data / "reports"]
    app = create_app(data, report_dirs=report_dirs, ai_time_limit=ai_time_limit, event=event)
    shown = f"[{host}]" if ":" in host else host
    console.print(f"paiju web app on http://{shown}:{port}/  (data in {data.resolve()}; Ctrl-C stops it)")
    if event is not None:  # the token is new at every start: only this console knows it
        pages = f"http://{shown}:{port}/tournament"
        token = app.state.web.event.director_token
        console.print(f"event {event}: {pages}", soft_wrap=True)
        console.print(f"the director's pages: {pages}/director#token={token}", soft_wrap=True)
    serve_app(app, host, port)  # stops within seconds on SIGINT/SIGTERM, cancelling work in flight
