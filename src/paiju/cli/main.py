"""Entry point of the ``paiju`` console script.

Bad input anywhere ends with exit code 2 and one line on stderr naming the problem, never a
traceback or a box: a :class:`paiju.core.errors.PaijuError` from a command, a value refused
by :mod:`paiju.cli.validate` while the command line is parsed, and Typer's own usage errors
(a missing argument, an unknown option, a value that is not a number).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer
import typer.main

from paiju.cli import arena, ddz, demo, dih, mahjong, serve, yuxi
from paiju.cli.validate import LimitsHelpCommand
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
app.command(name="arena", cls=LimitsHelpCommand)(arena.arena)
app.command(name="demo", cls=LimitsHelpCommand)(demo.demo)
app.command(name="serve")(serve.serve)


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def run(argv: Sequence[str] | None = None) -> int:
    """Run ``paiju`` with ``argv`` (default: the process arguments); the exit code.

    Click's standalone mode would print usage errors as a multi-line box; running it with
    ``standalone_mode=False`` hands them to us to print as one line.
    """
    command = typer.main.get_command(app)
    try:
        result = command.main(args=argv, prog_name="paiju", standalone_mode=False)
    except PaijuError as err:
        print(f"error: {_one_line(str(err))}", file=sys.stderr)
        return 2
    except typer.Abort:
        print("error: aborted", file=sys.stderr)
        return 1
    except typer.TyperException as err:  # Click's usage errors (Typer vendors Click)
        # `paiju` or `paiju ddz` alone: the help was printed when the error was made
        if type(err).__name__ == "NoArgsIsHelpError":
            return 2
        ctx = getattr(err, "ctx", None)
        where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        print(f"error: {_one_line(err.format_message())}{where}", file=sys.stderr)
        return int(getattr(err, "exit_code", 2))
    return result if isinstance(result, int) else 0


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
