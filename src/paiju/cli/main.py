"""Entry point of the ``paiju`` console script.

Bad input anywhere ends with exit code 2 and one line on stderr naming the problem, never a
traceback or a box: a :class:`paiju.core.errors.PaijuError` from a command, a value refused
by :mod:`paiju.cli.validate` while the command line is parsed, and Typer's own usage errors
(a missing argument, an unknown option, a value that is not a number).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any

import typer
import typer.main

from paiju.cli.validate import LimitsHelpCommand
from paiju.core.errors import PaijuError

# What `paiju` is made of, by name. Building every sub-app for every call (importing its
# module and letting Typer read each command's signature) is a third of a one-hand command's
# start-up, so `run` builds only the sub-app the command line names (`paiju ddz moves ...`
# builds `ddz`), and for `paiju --help` (or a name it does not know) only the listing: every
# name with its help text, no sub-app module imported (`listing_app`).
GROUPS: dict[str, tuple[str, str]] = {
    "ddz": ("paiju.cli.ddz", "Dou Dizhu: moves, deals, games, hand splitting, self-play, the tagger."),
    "mahjong": (
        "paiju.cli.mahjong", "Taiwan 16-tile mahjong: shanten, score, advise, games, training, bot, referee."
    ),
    "yuxi": ("paiju.cli.yuxi", "yuxi card-battle game: play, audit, balance, match, train-az."),
    "az": (
        "paiju.cli.az",
        "AlphaZero: train on connect four or gomoku; paiju yuxi train-az is the same trainer for yuxi.",
    ),
    "dih": ("paiju.cli.dih", "Deal selection for Dou Dizhu tournaments (DIH)."),
    "tournament": (
        "paiju.cli.tournament",
        "Run a duplicate Dou Dizhu event: players, pairings, boards, sheets, results, standings.",
    ),
    "records": ("paiju.cli.records", "Game records: list, show, replay, import, export."),
    "botzone": ("paiju.cli.botzone", "Botzone Dou Dizhu bots: play the protocol, judge bots locally."),
}
COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module holding a function of that name, the first line of its docstring for the
    # listing; tests/cli/test_cli_lazy.py keeps them equal)
    "arena": (
        "paiju.cli.arena",
        "Play matches between agents with seat rotation; WP and ADP per role with 95% intervals.",
    ),
    "agents": (
        "paiju.cli.agents",
        "List each game's agents: name, what it does, its parameters with defaults and ranges.",
    ),
    "demo": (
        "paiju.cli.demo",
        "A short tour: a Dou Dizhu deal, its legal opening moves, splits, a full game between "
        "shipped agents.",
    ),
    "serve": (
        "paiju.cli.serve",
        "Start the web app: Dou Dizhu, mahjong and yuxi against the AIs; DIH, reports, records.",
    ),
}


def _root() -> typer.Typer:
    app = typer.Typer(
        name="paiju",
        help="paiju (牌局): AI toolkit for Dou Dizhu, Taiwan 16-tile mahjong and the yuxi card-battle game.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )

    @app.callback()
    def _group() -> None:
        # a callback keeps `paiju` a group when only one command is built (Typer would
        # otherwise run a lone command without its name)
        pass

    return app


def _placeholder() -> None:
    """Never run: the listing only names the commands."""


def listing_app() -> typer.Typer:
    """The ``paiju`` app as ``paiju --help`` shows it: every group and command by name and help
    text, none of their modules imported (each would import its own dependencies and make
    Typer read every command's signature). Enough for the help, a bad option and an unknown
    name; a command line naming a group or command gets the real one from :func:`build_app`.
    """
    app = _root()
    for name, (_, text) in GROUPS.items():
        app.add_typer(typer.Typer(), name=name, help=text)
    for name, (_, summary) in COMMANDS.items():
        app.command(name=name, help=summary)(_placeholder)
    return app


def build_app(only: str | None = None) -> typer.Typer:
    """The ``paiju`` app with every sub-app, or only the group or command ``only``."""
    app = _root()
    for name, (module, text) in GROUPS.items():
        if only in (None, name):
            app.add_typer(importlib.import_module(module).app, name=name, help=text)
    for name, (module, _) in COMMANDS.items():
        if only in (None, name):
            # every command's help reads at 80 columns (LimitsHelpCommand), as the groups' do
            app.command(name=name, cls=LimitsHelpCommand)(getattr(importlib.import_module(module), name))
    return app


_FULL: list[typer.Typer] = []


def __getattr__(name: str) -> Any:
    # `from paiju.cli.main import app`: the whole app, built on first use
    if name == "app":
        if not _FULL:
            _FULL.append(build_app())
        return _FULL[0]
    raise AttributeError(f"module 'paiju.cli.main' has no attribute {name!r}")


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


INTERRUPTED = 130
"""Typer's exit code for Ctrl-C (128 + SIGINT), which it returns instead of raising."""


def run(argv: Sequence[str] | None = None) -> int:
    """Run ``paiju`` with ``argv`` (default: the process arguments); the exit code.

    Click's standalone mode would print usage errors as a multi-line box; running it with
    ``standalone_mode=False`` hands them to us to print as one line.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    first = args[0] if args else None
    only = first if first in GROUPS or first in COMMANDS else None
    command = typer.main.get_command(build_app(only) if only else listing_app())
    try:
        result = command.main(args=args, prog_name="paiju", standalone_mode=False)
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
    if result == INTERRUPTED:
        print("interrupted: finished work is kept (recorded runs resume when rerun)", file=sys.stderr)
    return result if isinstance(result, int) else 0


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
