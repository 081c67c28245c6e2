"""`paiju <name> ...` builds only the sub-app it names: the same commands as the whole app;
`paiju --help` builds only the listing (names and help texts): the same help as the whole app."""

from __future__ import annotations

import contextlib
import inspect
import io
from typing import Any

import pytest
import typer.main

from paiju.cli.main import COMMANDS, GROUPS, app, build_app, listing_app


def _shape(command: Any) -> Any:
    """A command tree as nested names, options and help texts (what a user can type)."""
    params = sorted((tuple(p.opts), p.required, getattr(p, "help", None)) for p in command.params)
    subs = getattr(command, "commands", {})
    return (command.help, params, {name: _shape(sub) for name, sub in sorted(subs.items())})


def test_every_name_of_the_whole_app_is_known_to_the_lazy_builder() -> None:
    full = typer.main.get_command(app)
    assert set(full.commands) == set(GROUPS) | set(COMMANDS)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", [*GROUPS, *COMMANDS])
def test_a_partial_app_holds_the_same_command_as_the_whole_one(name: str) -> None:
    full = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    partial = typer.main.get_command(build_app(name))
    assert set(partial.commands) == {name}  # type: ignore[attr-defined]
    assert _shape(partial.commands[name]) == _shape(full)  # type: ignore[attr-defined]


def _output(command: Any, args: list[str]) -> tuple[str, str]:
    """What ``paiju ARGS`` prints through ``command``: stdout with its help, or the error."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            command.main(args=args, prog_name="paiju", standalone_mode=False)
        except typer.TyperException as err:  # Click's usage errors, as main.run sees them
            return out.getvalue(), f"{type(err).__name__}: {err.format_message()}"
    return out.getvalue(), ""


@pytest.mark.parametrize("args", [["--help"], [], ["no-such-command"], ["--no-such-option"]])
def test_the_listing_prints_what_the_whole_app_prints(args: list[str]) -> None:
    listed = _output(typer.main.get_command(listing_app()), args)
    assert listed == _output(typer.main.get_command(app), args)
    assert listed != ("", "")


def test_the_listing_summaries_are_the_commands_first_docstring_lines() -> None:
    full = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    for name, (_, summary) in COMMANDS.items():
        assert summary == inspect.cleandoc(full[name].callback.__doc__).split("\n\n")[0]
