"""`paiju serve`: the web app (play against the AIs, look at the analyses) on uvicorn."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from paiju.cli.common import console
from paiju.core.errors import ConfigError


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = 8000,
    data: Annotated[
        Path, typer.Option("--data", help="Folder for games in progress, game records and deal pools.")
    ] = Path("data"),
    ai_time_limit: Annotated[
        float,
        typer.Option("--ai-time-limit", help="Seconds an AI may think per move before its fallback moves."),
    ] = 10.0,
) -> None:
    """Start the web app: Dou Dizhu, mahjong and yuxi against the AIs; DIH, reports, records."""
    import uvicorn

    from paiju.web.app import create_app

    if not 0 < port < 65536:
        raise ConfigError(f"port must be 1..65535, not {port}")
    if data.exists() and not data.is_dir():
        raise ConfigError(f"--data {data} is a file, not a folder")
    app = create_app(data, ai_time_limit=ai_time_limit)
    shown = f"[{host}]" if ":" in host else host
    console.print(f"paiju web app on http://{shown}:{port}/  (data in {data.resolve()}; Ctrl-C stops it)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
