"""Every command line shown as an example in a `paiju ... --help` runs and succeeds.

An example is a help paragraph that is a `paiju ...` command line, or the text after
"Example:" up to the end of its paragraph. (`paiju mahjong score --help` showed 14 concealed
tiles with one meld, which the command refuses.)
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer.main

from paiju.cli.main import app, run

SHORTER = {"-n 400": "-n 2"}
"""Examples that play long matches run here with fewer games (the other arguments as shown)."""


def _examples() -> list[tuple[str, str]]:
    """(command path, example command line) for every example in every command's help."""
    found: list[tuple[str, str]] = []
    root = typer.main.get_command(app)
    names = set(getattr(root, "commands", {}))

    def walk(command: object, path: tuple[str, ...]) -> None:
        text = getattr(command, "help", None) or ""
        for paragraph in re.split(r"\n\s*\n", text):
            flat = " ".join(paragraph.split())
            if flat.startswith("paiju ") and flat.split()[1] in names:  # not "paiju (牌局): ..."
                found.append((" ".join(path), flat))
            elif "Example: paiju " in flat:
                found.append((" ".join(path), flat.split("Example: ", 1)[1].rstrip(".")))
        for name, sub in (getattr(command, "commands", None) or {}).items():
            walk(sub, (*path, name))

    walk(root, ("paiju",))
    return found


EXAMPLES = _examples()


def test_the_help_examples_are_found() -> None:
    where = {path for path, _ in EXAMPLES}
    assert {"paiju mahjong score", "paiju arena"} <= where, EXAMPLES


@pytest.mark.parametrize(("path", "line"), EXAMPLES, ids=[p for p, _ in EXAMPLES])
def test_every_help_example_runs_and_succeeds(
    path: str, line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for long, short in SHORTER.items():
        line = line.replace(long, short)
    argv = shlex.split(line)
    assert argv[0] == "paiju" and " ".join(argv[: len(path.split())]) == path
    monkeypatch.chdir(tmp_path)  # an example that writes files writes them here
    code = run(argv[1:])
    out, err = capsys.readouterr()
    assert code == 0, f"{line}: exit {code}: {err}"
    assert out.strip() and "error" not in err
