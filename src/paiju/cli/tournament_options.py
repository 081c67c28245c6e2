"""What every `paiju tournament` command shares: the event argument, the round, who makes a
change (for the audit log), ``--json`` and opening the event file (a named choice is checked by
:func:`paiju.tournament.director.formats.choose`).
The commands live in :mod:`paiju.cli.tournament` (the event, players, rounds, boards, sheets)
and :mod:`paiju.cli.tournament_results` (score entry, adjustments, standings)."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from paiju.cli import options as opt
from paiju.cli.validate import input_file
from paiju.tournament.director.formats import MAX_ROUNDS

if TYPE_CHECKING:  # the store (sqlite3) is imported when a command runs, not for --help
    from paiju.tournament.director.store import EventStore

EventArg = Annotated[Path, typer.Argument(parser=input_file, help="The event file.", show_default=False)]
RoundOpt = Annotated[int, typer.Option("--round", "-r", min=1, max=MAX_ROUNDS, help="The round.")]
ByOpt = Annotated[
    str | None,
    typer.Option("--by", help="Who makes the change, for the audit log (default: the login name)."),
]
JsonOpt = Annotated[bool, opt.json_flag("Print one JSON object instead of text.")]


def changed_by(by: str | None) -> str:
    """Who makes a change: ``--by``, else the login name."""
    if by is not None:
        return by
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        return "director"


def open_event(event: Path) -> EventStore:
    from paiju.tournament.director.store import EventStore

    return EventStore.open(event)
