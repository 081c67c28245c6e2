"""The import layers of docs/design.md §21: `lint-imports` keeps every contract of
pyproject.toml's [tool.importlinter] (the package layers, the untangled circles, the yuxi
rules oracle apart from the engine). The one place the test suite runs import-linter."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def test_lint_imports_keeps_every_layer_contract() -> None:
    exe = Path(sys.executable).with_name("lint-imports")
    cmd = str(exe) if exe.exists() else shutil.which("lint-imports")
    assert cmd, "import-linter is a dev dependency (pip install -e '.[dev]')"
    out = subprocess.run([cmd], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{len(_contracts())} kept, 0 broken" in out.stdout, out.stdout


def test_the_package_layers_name_every_subpackage() -> None:
    # exhaustive: a new subpackage of paiju breaks the contract until it is given a layer
    layers = [c for c in _contracts() if c["type"] == "layers" and c.get("containers") == ["paiju"]]
    assert len(layers) == 1 and layers[0].get("exhaustive") is True
    named = {name.strip() for layer in layers[0]["layers"] for name in layer.split("|")}
    packages = {p.parent.name for p in (ROOT / "src/paiju").glob("*/__init__.py")}
    assert named == packages
