"""The rule for `type: ignore` in src/ (docs/design.md §17): at most 10, each naming the error
code it silences and saying why on its own line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "paiju"
MAX_IGNORES = 10
# `# type: ignore[code, ...]  # the reason`: codes in brackets, then a comment with some words
WELL_FORMED = re.compile(r"#\s*type:\s*ignore\[[a-z-]+(,\s*[a-z-]+)*\]\s+#\s*\S.{4,}")
IGNORE = re.compile(r"#\s*type:\s*ignore")


def _ignores(root: Path) -> list[tuple[str, int, str]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if IGNORE.search(line):
                found.append((str(path.relative_to(root.parent.parent)), number, line.strip()))
    return found


def test_few_type_ignores_each_with_code_and_reason() -> None:
    found = _ignores(SRC)
    assert len(found) <= MAX_IGNORES, f"{len(found)} `type: ignore` in src/ (at most {MAX_IGNORES}): {found}"
    bad = [(f, n, line) for f, n, line in found if not WELL_FORMED.search(line)]
    assert not bad, f"`type: ignore` without its error code and a reason on the line: {bad}"


@pytest.mark.parametrize(
    ("line", "ok"),
    [
        ("x = f()  # type: ignore[arg-type]  # numpy's stubs miss the int64 overload", True),
        ("x = f()  # type: ignore[attr-defined, call-overload]  # set by the decorator", True),
        ("x = f()  # type: ignore[arg-type]", False),  # no reason
        ("x = f()  # type: ignore  # the stubs are wrong", False),  # no error code
        ("x = f()  # type: ignore[arg-type]  # ok", False),  # not a reason
    ],
)
def test_the_rule_tells_good_from_bad(line: str, ok: bool, tmp_path: Path) -> None:
    package = tmp_path / "src" / "paiju"
    package.mkdir(parents=True)
    (package / "m.py").write_text(line + "\n", encoding="utf-8")
    (found,) = _ignores(package)
    assert bool(WELL_FORMED.search(found[2])) is ok
