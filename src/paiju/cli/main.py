"""Entry point of the ``paiju`` console script.

Bad input anywhere (a :class:`paiju.core.errors.PaijuError`) ends with exit code 2 and one
line on stderr naming the problem, never a traceback.
"""

from __future__ import annotations

import sys

import typer

from paiju.cli import arena, ddz, demo, dih, mahjong, serve, yuxi
from paiju.core.errors import PaijuError

app = typer.Typer(
    name="paiju",
    help="paiju (牌局): AI toolkit for Dou Dizhu, Taiwan 16-tile mahjong and the yuxi card-battle game.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(ddz.app, name="ddz", help="Dou Dizhu: moves, deals, games, hand splitting, self-play.")
app.add_typer(mahjong.app, name="mahjong", help="Taiwan 16-tile mahjong: shanten, games, arena.")
app.add_typer(yuxi.app, name="yuxi", help="yuxi card-battle game: play, audit, balance.")
app.add_typer(dih.app, name="dih", help="Deal selection for Dou Dizhu tournaments (DIH).")
app.command(name="arena")(arena.arena)
app.command(name="demo")(demo.demo)
app.command(name="serve")(serve.serve)


def main() -> None:
    try:
        app()
    except PaijuError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
