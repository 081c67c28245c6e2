"""docs/mahjong-score.md's examples are tests: each `$ paiju ...` command shown there is run,
and its output must be the output shown under it (the figures had drifted from the command's)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from paiju.cli import common
from paiju.cli.main import run

DOC = Path(__file__).resolve().parents[2] / "docs" / "mahjong-score.md"
WIDTH = 100
"""Terminal width the shown tables were printed at."""


def _examples() -> list[tuple[str, str]]:
    """(command line, output shown) for every `$ paiju` line of the page's code blocks."""
    found: list[tuple[str, str]] = []
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.M | re.S):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ paiju "):
                i += 1
                continue
            command = lines[i][2:]
            while command.endswith("\\"):  # a command continued on the next line
                i += 1
                command = command[:-1] + lines[i].strip()
            i += 1
            start = i
            while i < len(lines) and not lines[i].startswith("$ "):
                i += 1
            found.append((command, "\n".join(lines[start:i])))
    return found


EXAMPLES = _examples()


def test_the_page_shows_score_and_advise_examples() -> None:
    commands = [c.split()[2] for c, _ in EXAMPLES]
    assert commands.count("score") >= 4 and commands.count("advise") >= 2


@pytest.mark.parametrize(("command", "shown"), EXAMPLES, ids=[c[:60] for c, _ in EXAMPLES])
def test_each_example_prints_what_the_page_shows(
    command: str, shown: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(common.console, "width", WIDTH)
    argv = shlex.split(command, comments=True)
    assert run(argv[1:]) == 0
    out = capsys.readouterr().out
    assert [ln.rstrip() for ln in out.rstrip("\n").splitlines()] == shown.splitlines()
