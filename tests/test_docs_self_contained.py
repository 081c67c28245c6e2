"""The repository stands on its own: code and docs cite ``docs/``, never specification files
that are not in the repository, and every ``docs/`` page and numbered section they cite exists.

The patterns below are written so that this file's own text does not match them (``[/]``,
``\\.``), so the scan covers this file too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED_DIRS = ("src", "tests", "docs", "benchmarks", "scripts")
SCANNED_FILES = ("README.md",)
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".html", ".js", ".css", ".cfg", ".ini", ".yaml", ".yml"}

EXTERNAL_CITATIONS: dict[str, re.Pattern[str]] = {
    "the external spec folder": re.compile(r"shared[/]spec"),
    "the external style guide": re.compile(r"\bSTYLE\.md"),
    "the external mahjong rules file": re.compile(r"RULES-\s*mahjong\.md"),
    "a bare spec section": re.compile(r"\bspec\s+§"),
    "a spec file by name": re.compile(r"\bspec\s+[`'\"]*[\w-]+\.md"),
}

# "docs/mahjong-rules.md`` §5", "docs/dih.md §6 (b)", "docs/mahjong-rules.md`` T1"
DOCS_SECTION = re.compile(r"\bdocs/([\w-]+(?:/[\w-]+)*\.md)`*\s*\(?(§|T)(\d+)")
# inside docs/: "[mahjong.md](mahjong.md) §3"
LINK_SECTION = re.compile(r"\]\(([\w./-]+\.md)\)\s*(§|T)(\d+)")
DOCS_PATH = re.compile(r"\bdocs/([\w-]+(?:/[\w-]+)*\.md)\b")


def text_files(root: Path) -> list[Path]:
    """The top-level README and every text file under the scanned folders (links not followed)."""
    found = [root / name for name in SCANNED_FILES if (root / name).is_file()]
    for top in SCANNED_DIRS:
        for folder, dirs, files in os.walk(root / top):
            dirs[:] = [d for d in dirs if d != "__pycache__" and not d.endswith(".egg-info")]
            found.extend(Path(folder) / f for f in files if Path(f).suffix in TEXT_SUFFIXES)
    return sorted(found)


def external_citations(path: Path) -> list[str]:
    """``path:line: what`` for every citation of a specification file outside the repository."""
    text = path.read_text(encoding="utf-8", errors="replace")
    hits = []
    for what, pattern in EXTERNAL_CITATIONS.items():
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            hits.append(f"{path}:{line}: cites {what}: {m.group(0)!r}")
    return hits


def has_section(page: Path, kind: str, number: str) -> bool:
    """Whether a docs page has a heading numbered ``number`` (``## 5. ...``) or ``T<number>``."""
    label = f"T{number}" if kind == "T" else number
    heading = re.compile(rf"^#+\s*(?:§\s*)?{re.escape(label)}\.(?!\d)", re.MULTILINE)
    return bool(heading.search(page.read_text(encoding="utf-8")))


def broken_docs_references(path: Path, root: Path) -> list[str]:
    """``path:line: what`` for every cited docs page, or numbered section of one, that does not exist."""
    text = path.read_text(encoding="utf-8", errors="replace")
    problems = []

    def where(pos: int) -> str:
        return f"{path}:{text.count(chr(10), 0, pos) + 1}"

    for m in DOCS_PATH.finditer(text):
        if not (root / "docs" / m.group(1)).is_file():
            problems.append(f"{where(m.start())}: no page docs/{m.group(1)}")
    cited = [(root / "docs" / m.group(1), m) for m in DOCS_SECTION.finditer(text)]
    if path.suffix == ".md":
        cited += [((path.parent / m.group(1)).resolve(), m) for m in LINK_SECTION.finditer(text)]
    for page, m in cited:
        if page.is_file() and not has_section(page, m.group(2), m.group(3)):
            problems.append(f"{where(m.start())}: {page.name} has no section {m.group(2)}{m.group(3)}")
    return problems


def test_no_file_cites_a_specification_outside_the_repository() -> None:
    hits = [hit for f in text_files(ROOT) for hit in external_citations(f)]
    assert not hits, "cite the docs/ page instead:\n" + "\n".join(hits)


def test_every_cited_docs_page_and_section_exists() -> None:
    problems = [p for f in text_files(ROOT) for p in broken_docs_references(f, ROOT)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "planted",
    [
        "# rules: see ../shared/" + "spec/mahjong.md\n",
        '"""Move generation (STYLE' + '.md guideline 8)."""\n',
        "A winning hand is 5 sets + 1 pair (RULES-" + "mahjong.md §5).\n",
        "Regular shape only: RULES-\nmahjong.md §5 has no seven pairs.\n",
        "# the deal algorithm of spec " + "§2\n",
        "Validation (spec ``dih" + ".md`` §4).\n",
    ],
)
def test_the_scan_catches_a_planted_citation(tmp_path: Path, planted: str) -> None:
    (tmp_path / "src").mkdir()
    bad = tmp_path / "src" / "planted.py"
    bad.write_text(f"x = 1\n{planted}", encoding="utf-8")
    clean = '"""Rules: ``docs/mahjong-rules.md`` §5."""\n'
    (tmp_path / "src" / "clean.py").write_text(clean, encoding="utf-8")
    hits = [hit for f in text_files(tmp_path) for hit in external_citations(f)]
    assert len(hits) == 1 and hits[0].startswith(f"{bad}:2: "), hits


def test_the_reference_check_catches_missing_pages_and_sections(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rules.md").write_text("# Rules\n\n## 1. Tiles\n\n## T1. Tai table\n", encoding="utf-8")
    good = tmp_path / "good.py"
    # "docs" + "/..." keeps these citations of pages that do not exist out of the repository scan
    good.write_text("# docs" + "/rules.md §1, ``docs" + "/rules.md`` T1\n", encoding="utf-8")
    assert broken_docs_references(good, tmp_path) == []
    bad = tmp_path / "bad.py"
    bad.write_text(
        "# docs" + "/rules.md §2\n# ``docs" + "/gone.md``\n# docs" + "/rules.md T3\n", encoding="utf-8"
    )
    problems = broken_docs_references(bad, tmp_path)
    assert [p.split(": ", 1)[1] for p in problems] == [
        "no page docs" + "/gone.md",
        "rules.md has no section §2",
        "rules.md has no section T3",
    ]
    page = docs / "guide.md"
    page.write_text("See [rules](rules.md) §1 and [rules](rules.md) §4.\n", encoding="utf-8")
    problems = broken_docs_references(page, tmp_path)
    assert [p.split(": ", 1)[1] for p in problems] == ["rules.md has no section §4"]
