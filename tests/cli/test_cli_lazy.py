"""`paiju <name> ...` builds only the sub-app it names: the same commands as the whole app."""

from __future__ import annotations

from typing import Any

import pytest
import typer.main

from paiju.cli.main import COMMANDS, GROUPS, app, build_app


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
