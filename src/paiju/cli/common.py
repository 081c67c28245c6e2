"""Helpers shared by every CLI sub-app: console, JSON output, agent-spec lists, errors."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def print_json(obj: Any) -> None:
    """Machine-readable output: plain JSON on stdout, nothing else."""
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n")


def split_agents(text: str, expected: int | None = None) -> list[str]:
    """``"rule,search:budget=200,random"`` -> specs (commas inside ``k=v,k=v`` lists kept).

    A new spec starts at a comma followed by a name that has no ``=``.
    """
    from paiju.core.errors import ConfigError

    parts: list[str] = []
    for chunk in text.split(","):
        chunk = chunk.strip()
        if parts and "=" in chunk and ":" not in chunk:
            parts[-1] += "," + chunk
        else:
            parts.append(chunk)
    if expected is not None and len(parts) != expected:
        raise ConfigError(f"--agents {text!r}: expected {expected} agents, got {len(parts)}")
    return parts
