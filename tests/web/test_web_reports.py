"""Where the Reports page's reports come from, ``paiju serve --reports``, and the pages'
advice to users.

By default the page reads the ``docs/results`` of the source checkout paiju runs from
(found from the package's own location, so a server started in any folder shows them) and
``<data>/reports``; an installed package has no checkout, and the page then says how to
name a folder. These tests start the app from an unrelated current folder.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from web_helpers import make_client

from paiju.web import analysis

REPO = Path(__file__).resolve().parents[2]
STATIC = REPO / "src" / "paiju" / "web" / "static"
RESULTS = REPO / "docs" / "results"


def test_the_default_reports_are_the_checkouts_results(tmp_path: Path) -> None:
    assert analysis.checkout_reports() == RESULTS
    assert (RESULTS / "ddz-ladder.png").is_file()
    assert analysis.default_report_dirs(tmp_path) == [RESULTS, tmp_path / "reports"]
    # nothing in the package stands in for the docs folder (it was a symbolic link)
    assert not (REPO / "src" / "paiju" / "web" / "reports").exists()


def test_an_installed_package_has_no_default_reports(tmp_path: Path) -> None:
    def package(root: Path) -> Path:
        (root / "paiju").mkdir(parents=True)
        return root / "paiju"

    installed = package(tmp_path / "venv" / "lib" / "python3.11" / "site-packages")
    (tmp_path / "venv" / "docs" / "results").mkdir(parents=True)  # not a checkout's layout
    assert analysis.checkout_reports(installed) is None
    clone = package(tmp_path / "clone" / "src")
    assert analysis.checkout_reports(clone) is None  # a checkout without results
    (tmp_path / "clone" / "docs" / "results").mkdir(parents=True)
    assert analysis.checkout_reports(clone) == tmp_path / "clone" / "docs" / "results"


def test_an_installed_package_reports_only_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paiju.web.app import create_app

    monkeypatch.setattr(analysis, "checkout_reports", lambda: None)  # as from site-packages
    monkeypatch.chdir(tmp_path)
    with make_client(create_app(tmp_path / "data")) as c:
        r = c.get("/api/reports").json()
        assert r["roots"] == [str(tmp_path / "data" / "reports")] and r["present"] == [False]
        assert not any(r[s] for s in ("ladder", "validation", "balance", "models", "engineering"))
    # the page then says how to name a folder
    page = (STATIC / "reports.html").read_text(encoding="utf-8")
    assert 'id="empty" hidden' in page and "paiju serve --reports DIR" in page


def test_app_started_elsewhere_shows_the_checkouts_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paiju.web.app import create_app

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no docs/ here
    with make_client(create_app(tmp_path / "data")) as c:
        r = c.get("/api/reports").json()
        assert r["roots"][0] == str(RESULTS) and r["present"][0]
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
        assert got.content == (RESULTS / "ddz-ladder.png").read_bytes()


def test_report_image_urls_survive_odd_file_names(app_factory: Any, tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    (reports / "balance a&b #1.png").write_bytes(png)
    with make_client(app_factory()) as c:
        item = c.get("/api/reports").json()["balance"][0]
        got = c.get(item["url"])
        assert got.status_code == 200 and got.content == png


def test_serve_reports_option_replaces_the_checkouts_folder(
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
    assert served[-1].state.web.report_dirs == [RESULTS, data / "reports"]
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
