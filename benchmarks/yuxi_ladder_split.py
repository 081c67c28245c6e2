"""How often the deal decided: the split pairs of a yuxi ladder, pooled by kind of matchup.

Usage::

    .venv/bin/python benchmarks/yuxi_ladder_split.py docs/results/yuxi/ladder-3x3/ladder.json [...]

A pair splits when each side won the game of one seat (``MatchResult.split``). For each
``ladder.json`` written by ``paiju yuxi ladder --out-dir``, the split pairs of its matchups are
pooled three ways: two agents other than ``random`` and ``greedy`` (the searching agents),
``greedy`` against one of them, and ``random`` against anyone; with 95% Wilson intervals.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from paiju.core.stats import Estimate, proportion_ci

BASELINES = ("random", "greedy")


def pooled(matches: list[dict[str, Any]], keep: Callable[[str, str], bool]) -> Estimate:
    """The split share over every pair of the matchups ``keep(a, b)`` selects."""
    chosen = [m for m in matches if keep(m["a"], m["b"])]
    # a match's JSON keeps its split share and its pair count: the count is their product
    split = sum(round(m["split"]["value"] * m["split"]["n"]) for m in chosen)
    return proportion_ci(split, sum(m["split"]["n"] for m in chosen))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ladders", type=Path, nargs="+", help="ladder.json files")
    args = parser.parse_args()
    rows: dict[str, Callable[[str, str], bool]] = {
        "two agents other than random and greedy": lambda a, b: a not in BASELINES and b not in BASELINES,
        "greedy against one of them": lambda a, b: "greedy" in (a, b) and "random" not in (a, b),
        "random against anyone": lambda a, b: "random" in (a, b),
    }
    for path in args.ladders:
        matches = json.loads(path.read_text(encoding="utf-8"))["matches"]
        print(path)
        for name, keep in rows.items():
            e = pooled(matches, keep)
            print(f"  {name}: {e.value:.3f} ± {e.half_width:.3f} ({e.n} pairs)")


if __name__ == "__main__":
    main()
