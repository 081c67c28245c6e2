"""No import circle among yuxi's modules (issue 44 item 1), counting what lint-imports does not:
imports under ``if TYPE_CHECKING:`` (pyproject's [tool.importlinter] leaves them out of every
contract) as well as imports inside functions. The engine's parts (card types, the position,
effects, events, cards, invariants, rendering, the oracle's checks) act on
``paiju.yuxi.position.Position``; the game module runs them and none of them imports it
(docs/design.md §21)."""

from __future__ import annotations

from collections.abc import Mapping, Set
from pathlib import Path

import grimp  # import-linter's import graph (a dev dependency)
import pytest


def package_imports(package: str, within: str) -> dict[str, set[str]]:
    """Each module of ``within`` (a package inside ``package``) -> the modules of ``within`` it
    imports anywhere in its text: at the top, inside functions, under TYPE_CHECKING."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)
    mods = {m for m in graph.modules if m == within or m.startswith(within + ".")}
    return {m: graph.find_modules_directly_imported_by(m) & mods for m in mods}


def circles(imports: Mapping[str, Set[str]]) -> list[list[str]]:
    """The import circles: each set of modules that import one another, directly or through
    each other (a strongly connected component of two or more, or a module importing itself),
    as sorted names."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(m: str) -> None:
        order[m] = low[m] = len(order)
        stack.append(m)
        for t in imports.get(m, ()):
            if t not in order:
                visit(t)
                low[m] = min(low[m], low[t])
            elif t in stack:
                low[m] = min(low[m], order[t])
        if low[m] == order[m]:
            part = stack[stack.index(m) :]
            del stack[stack.index(m) :]
            if len(part) > 1 or m in imports.get(m, ()):
                found.append(sorted(part))

    for m in sorted(imports):
        if m not in order:
            visit(m)
    return sorted(found)


@pytest.fixture(scope="module")
def yuxi_imports() -> dict[str, set[str]]:
    return package_imports("paiju", "paiju.yuxi")


def test_no_import_circle_among_yuxi_modules(yuxi_imports: dict[str, set[str]]) -> None:
    found = circles(yuxi_imports)
    edges = [f"{m} -> {t}" for part in found for m in part for t in sorted(yuxi_imports[m]) if t in part]
    assert found == [], "import circle(s) in paiju.yuxi:\n" + "\n".join(edges)


def reachable(imports: Mapping[str, Set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through other modules."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for t in imports[todo.pop()] - seen:
            seen.add(t)
            todo.append(t)
    return seen


# the game imports each of them (it runs them), so one reaching the game would be a circle;
# checked one by one so that a failure names the part
@pytest.mark.parametrize(
    "part", ["card_types", "position", "effects", "events", "cards", "invariants", "render", "oracle.check"]
)
def test_an_engine_part_never_imports_the_game(yuxi_imports: dict[str, set[str]], part: str) -> None:
    assert "paiju.yuxi.game" not in reachable(yuxi_imports, f"paiju.yuxi.{part}")


def test_the_check_sees_type_checking_and_function_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a package whose only circle closes through a TYPE_CHECKING import and an import inside a
    # function: the check must find it (lint-imports, as configured, would not)
    pkg = tmp_path / "circle_demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from circle_demo import b\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from circle_demo.c import C\n"
    )
    (pkg / "c.py").write_text("class C:\n    def run(self) -> None:\n        from circle_demo import a\n")
    (pkg / "d.py").write_text("from circle_demo import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    imports = package_imports("circle_demo", "circle_demo")
    assert circles(imports) == [["circle_demo.a", "circle_demo.b", "circle_demo.c"]]
    assert circles({"x": {"x"}, "y": {"x"}}) == [["x"]]  # a module importing itself
