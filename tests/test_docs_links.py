"""Every relative link of the README and the docs resolves, and the results page stays a summary.

A link is ``[text](target)`` or ``![alt](target)`` outside code; its target, taken relative
to the page, must be a file or folder of the repository, and an ``#anchor`` must name a
heading of the page it points to (GitHub's anchors: the heading's text in lower case, code
marks and punctuation dropped, spaces as hyphens). Links to other sites are not followed.

``docs/RESULTS.md`` is the short page of headline figures; the detail lives in the notes of
``docs/results/``. The page must link every note (so none is orphaned) and stay short (it
once grew to 4,850 lines by concatenating the notes).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS_PAGE_MAX_LINES = 200

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def pages(root: Path) -> list[Path]:
    """The README and every Markdown page under ``docs/``."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` outside fenced code, with inline code spans blanked."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, CODE_SPAN.sub("", line)))
    return out


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays
    text = text.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor of a page's headings (a repeated heading gets ``-1``, ``-2``, ...)."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(page.read_text(encoding="utf-8")):
        m = HEADING.match(line)
        if not m:
            continue
        base = anchor(m.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path, root: Path) -> list[str]:
    """``page:line: target (why)`` for every relative link of ``page`` that does not resolve."""
    problems = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        for m in LINK.finditer(line):
            target = m.group(1)
            if EXTERNAL.match(target):
                continue
            path_part, _, fragment = target.partition("#")
            where = f"{page.relative_to(root)}:{number}: {target}"
            dest = (page.parent / path_part).resolve() if path_part else page
            if not dest.exists():
                problems.append(f"{where} (no such file)")
            elif not dest.resolve().is_relative_to(root):
                problems.append(f"{where} (outside the repository)")
            elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                problems.append(f"{where} (no heading with that anchor)")
    return problems


def test_every_relative_link_resolves() -> None:
    problems = [p for page in pages(ROOT) for p in broken_links(page, ROOT)]
    assert not problems, "\n".join(problems)


def test_the_results_page_links_every_note_and_stays_short() -> None:
    page = ROOT / "docs" / "RESULTS.md"
    text = page.read_text(encoding="utf-8")
    linked = {
        (page.parent / m.group(1).partition("#")[0]).resolve()
        for _, line in prose_lines(text)
        for m in LINK.finditer(line)
    }
    notes = sorted((ROOT / "docs" / "results").glob("*.md"))
    assert notes, "no notes in docs/results"
    orphans = [note.name for note in notes if note.resolve() not in linked]
    assert not orphans, f"docs/RESULTS.md does not link these notes: {orphans}"
    lines = len(text.splitlines())
    assert lines <= RESULTS_PAGE_MAX_LINES, (
        f"docs/RESULTS.md has {lines} lines: put the detail in a note of docs/results/"
    )


def test_anchor_follows_githubs_rule() -> None:
    assert anchor("13. Search as small, composable parts") == "13-search-as-small-composable-parts"
    assert anchor("Tags") == "tags"
    assert anchor("The `policy` agent (`policy:model=small`)") == "the-policy-agent-policymodelsmall"
    assert anchor("5.1 First go-around wins") == "51-first-go-around-wins"
    assert anchor("Flushes 混一色") == "flushes-混一色"


def test_the_check_catches_broken_links_and_anchors(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    docs = root / "docs"
    (docs / "results").mkdir(parents=True)
    (docs / "rules.md").write_text("# Rules\n\n## 1. Tiles\n\n## Tiles\n\n## Tiles\n", encoding="utf-8")
    (docs / "results" / "speed.png").write_bytes(b"")
    page = docs / "guide.md"
    page.write_text(
        "\n".join(
            [
                "# Guide",
                "[rules](rules.md), [tiles](rules.md#1-tiles), [again](rules.md#tiles-1),",
                "![plot](results/speed.png), [site](https://example.org/x.md), [here](#guide)",
                "`[in code](gone.md)`",
                "```",
                "[in a fence](gone.md)",
                "```",
                "[gone](gone.md) [bad anchor](rules.md#2-deal) [own](#nowhere)",
                "[escape](../../outside.md)",
            ]
        ),
        encoding="utf-8",
    )
    (tmp_path / "outside.md").write_text("# Outside\n", encoding="utf-8")
    problems = broken_links(page, root)
    assert [p.split(": ", 1)[1] for p in problems] == [
        "gone.md (no such file)",
        "rules.md#2-deal (no heading with that anchor)",
        "#nowhere (no heading with that anchor)",
        "../../outside.md (outside the repository)",
    ]
    assert all(p.startswith(f"{Path('docs', 'guide.md')}:8: ") for p in problems[:3])
