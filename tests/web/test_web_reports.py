"""The reports the web app ships, ``paiju serve --reports``, and the pages' advice to users.

The Reports page reads ``docs/results`` through ``src/paiju/web/reports`` (a symbolic link,
so the files are package data), so a server started outside the repository still shows them;
these tests start the app from an unrelated current folder.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from web_helpers import make_client

from paiju.web.analysis import PACKAGED_REPORTS

REPO = Path(__file__).resolve().parents[2]
STATIC = REPO / "src" / "paiju" / "web" / "static"


def test_packaged_reports_are_docs_results() -> None:
    # one copy of each report: the package folder is the docs folder
    assert PACKAGED_REPORTS.is_symlink()
    assert PACKAGED_REPORTS.resolve() == (REPO / "docs" / "results").resolve()
    assert (PACKAGED_REPORTS / "ddz-ladder.png").is_file()


def test_app_started_elsewhere_shows_the_packaged_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paiju.web.app import create_app

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no docs/ here
    with make_client(create_app(tmp_path / "data")) as c:
        r = c.get("/api/reports").json()
        assert r["roots"][0] == str(PACKAGED_REPORTS) and r["present"][0]
        assert r["roots"][1] == str(tmp_path / "data" / "reports")
        sections = ("ladder", "validation", "balance", "models", "engineering")
        paths = {section: {i["path"] for i in r[section]} for section in sections}
        assert {"ddz-agents.md", "ddz-ladder.png"} <= paths["ladder"]
        validation = {"dih-validation.md", "dih-validation.png", "dih-validation-holdout.png"}
        assert validation <= paths["validation"]
        assert "yuxi/greedy_first_player.png" in paths["balance"] and "yuxi.md" in paths["balance"]
        # the benchmark notes are not among the analyses (the page links them)
        assert {"ddz-engine.md", "arena.md", "web.md"} <= paths["engineering"]
        assert not paths["engineering"] & (paths["ladder"] | paths["validation"] | paths["balance"])
        ladder_doc = next(i for i in r["ladder"] if i["path"] == "ddz-agents.md")
        assert ladder_doc["title"].startswith("Dou Dizhu agents") and "<table>" in ladder_doc["html"]
        plot = next(i for i in r["ladder"] if i["path"] == "ddz-ladder.png")
        got = c.get(plot["url"])
        assert got.status_code == 200 and got.headers["content-type"] == "image/png"
        assert got.content == (REPO / "docs" / "results" / "ddz-ladder.png").read_bytes()


def test_report_image_urls_survive_odd_file_names(app_factory: Any, tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    (reports / "balance a&b #1.png").write_bytes(png)
    with make_client(app_factory()) as c:
        item = c.get("/api/reports").json()["balance"][0]
        got = c.get(item["url"])
        assert got.status_code == 200 and got.content == png


def test_serve_reports_option_replaces_the_packaged_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from paiju.cli.main import app as cli
    from paiju.web import server

    served: list[Any] = []
    monkeypatch.setattr(server, "serve_app", lambda app, *args, **kw: served.append(app))
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    mine.mkdir()
    theirs.mkdir()
    from typer.testing import CliRunner

    runner = CliRunner()
    data = tmp_path / "data"
    both = ["--reports", str(mine), "--reports", str(theirs)]
    result = runner.invoke(cli, ["serve", "--data", str(data), *both])
    assert result.exit_code == 0, result.output
    assert served[-1].state.web.report_dirs == [mine, theirs, data / "reports"]
    result = runner.invoke(cli, ["serve", "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert served[-1].state.web.report_dirs == [PACKAGED_REPORTS, data / "reports"]
    # through the console script's entry: one line naming the folder, whatever the terminal width
    from paiju.cli.main import run

    assert run(["serve", "--data", str(data), "--reports", str(tmp_path / "absent")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "absent" in err[0], err


def test_records_page_suggests_a_real_arena_command() -> None:
    import typer

    from paiju.cli.main import app as cli

    text = (STATIC / "records.js").read_text(encoding="utf-8")
    suggested = re.search(r"paiju arena ([^`]*?)\$\{", text)
    assert suggested, "records.js no longer suggests a `paiju arena` command"
    words = shlex.split(suggested.group(1))
    command = typer.main.get_command(cli)
    arena = command.commands["arena"]  # type: ignore[attr-defined]
    known = {opt for param in arena.params for opt in param.opts}
    used = [w for w in words if w.startswith("--")]
    assert used and set(used) <= known, (used, sorted(known))
    assert "--record" in used  # the option that writes records the page reads
