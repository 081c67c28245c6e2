"""Fixtures shared by every test folder."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def benchmark_module() -> Callable[[str], ModuleType]:
    """``benchmark_module("az_value_fit")``: a script of ``benchmarks/`` imported as a module
    (the scripts are not a package; their tests call their functions)."""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # as an import would: dataclasses look their module up there
        spec.loader.exec_module(module)
        return module

    return load
