"""The ladder benchmark script end to end on a tiny ladder: report, resume, replay check."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _ladder():
    spec = importlib.util.spec_from_file_location("ddz_ladder", ROOT / "benchmarks" / "ddz_ladder.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tiny_ladder_reports_resumes_and_replays(tmp_path: Path) -> None:
    ladder = _ladder()
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
