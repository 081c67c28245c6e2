"""Every command's `--help` reads at 80 columns (issue 44): no line wider than the terminal,
a description column wide enough to read, and no range or type broken across two lines."""

from __future__ import annotations

from typing import Any

import pytest
import typer.main
from rich.cells import cell_len

from paiju.cli.main import app, run
from paiju.cli.validate import LimitsHelpCommand

WIDTH = 80
MIN_DESCRIPTION = 30
"""Columns the narrowest description column may have (Typer's own layout gave 19)."""


def _commands() -> dict[str, object]:
    found: dict[str, object] = {}

    def walk(command: object, prefix: tuple[str, ...]) -> None:
        subs = getattr(command, "commands", None)
        if subs is None:
            found[" ".join(prefix)] = command
            return
        for name, sub in subs.items():
            walk(sub, (*prefix, name))

    walk(typer.main.get_command(app), ())
    return found


COMMANDS = _commands()


def _help(path: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    assert run([*path.split(), "--help"]) == 0
    return capsys.readouterr().out.splitlines()


def _row(lines: list[str], flag: str) -> int:
    """The index of the first line of the option table's row of ``flag``."""
    for i, line in enumerate(lines):
        cells = line.strip("│ ").split()
        if line.startswith("│") and flag in cells[:3]:  # inside a panel, not the docstring
            return i
    raise AssertionError(f"no row for {flag}")


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_help_fits_80_columns(
    path: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    command: Any = COMMANDS[path]
    assert isinstance(command, LimitsHelpCommand), path  # the class that lays the help out
    lines = _help(path, capsys, monkeypatch)
    assert max(cell_len(line) for line in lines) <= WIDTH, path
    text = "\n".join(lines)
    params: list[Any] = command.params  # Typer's options: help, ranges, display types
    for param in params:
        if param.param_type_name != "option" or not param.help:
            continue
        row = _row(lines, param.opts[0])
        first_word = param.help.split()[0].replace("\\", "")
        line = lines[row]
        start = cell_len(line[: line.index(first_word, line.index(param.opts[0]) + len(param.opts[0]))])
        assert WIDTH - 2 - start >= MIN_DESCRIPTION, (path, param.opts[0], line)
        limits = param._get_number_range_help_str()
        if limits:  # the range whole on one line, in the description column
            assert f"[{limits}]" in text, (path, param.opts[0])
            assert any(f"[{limits}]" in x and x.index(f"[{limits}]") >= line.index(first_word)
                       for x in lines[row:]), (path, param.opts[0])
        kind = param.metavar or param.display_type(None)
        if kind and not param.is_flag:  # the type shown whole, without the range
            shown = kind.replace(" range>", ">").replace("<list[", "<").replace("]>", ">")
            assert shown in line, (path, param.opts[0], line)
