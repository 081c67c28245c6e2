"""The ladder benchmark script end to end on a tiny ladder: report, resume, replay check."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def test_tiny_ladder_reports_resumes_and_replays(
    tmp_path: Path, benchmark_module: Callable[[str], ModuleType]
) -> None:
    ladder = benchmark_module("ddz_ladder")
    out, report = tmp_path / "records", tmp_path / "report.json"
    args = [
        "--rungs", "random,greedy", "--anchor", "", "--deals", "6", "--workers", "1",
        "--out", str(out), "--json", str(report), "--verify", "3",
    ]
    assert ladder.main(args) == 0
    first = json.loads(report.read_text())
    [pairing] = first["pairings"]
    assert pairing["pairing"] == "greedy vs random"
    assert pairing["games"] == 12 and pairing["deals"] == 6 and pairing["format"] == "duplicate"
    files = sorted(p.name for p in (out / "greedy_vs_random").glob("*.parquet"))
    assert files, "the pairing's games are recorded under --out"
    replayed = first["replayed"]["greedy vs random"]
    assert replayed["identical"] == 3 and replayed["differ"] == [] and len(replayed["games"]) == 3
    assert all(0 <= g < 12 for g in replayed["games"])

    # Rerunning the same command plays nothing new and reports the same numbers.
    assert ladder.main(args) == 0
    assert sorted(p.name for p in (out / "greedy_vs_random").glob("*.parquet")) == files
    assert json.loads(report.read_text()) == first
