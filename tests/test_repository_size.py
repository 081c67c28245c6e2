"""The repository's size policy for training runs (training/README.md): closed runs keep their
configuration, metrics and command, not their resume state; an open run's resume state is at
most 10 MB; everything under training/ at most 12 MB."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRAINING = ROOT / "training"
RUN_MAX, ALL_MAX = 10_000_000, 12_000_000
RESUME_STATE = ("checkpoint.pt", "samples", "snapshots", "replay")


def tracked_files(folder: Path) -> list[Path]:
    """The files git tracks under ``folder`` (every file there when this is no git checkout)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", str(folder.relative_to(ROOT))], cwd=ROOT,
                             capture_output=True, check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return [p for p in folder.rglob("*") if p.is_file()]
    return [ROOT / name for name in out.split("\0") if name]


def open_runs() -> set[str]:
    """The runs training/README.md names as open ("**Open runs: a, b**" or "none")."""
    text = (TRAINING / "README.md").read_text(encoding="utf-8")
    found = re.search(r"\*\*Open runs: ([^*]+)\*\*", text)
    assert found, "training/README.md must say which runs are open"
    names = found.group(1).strip()
    return set() if names == "none" else {n.strip().strip("`") for n in names.split(",")}


def test_training_stays_within_its_budget() -> None:
    files = tracked_files(TRAINING)
    assert files, "training/ is tracked"
    assert sum(p.stat().st_size for p in files if p.exists()) <= ALL_MAX


def test_only_open_runs_keep_resume_state_and_within_10_mb() -> None:
    runs = {p.relative_to(TRAINING).parts[0] for p in tracked_files(TRAINING) if p.parent != TRAINING}
    opened = open_runs()
    assert opened <= runs, f"open runs with no folder: {opened - runs}"
    for run in sorted(runs):
        files = [p for p in tracked_files(TRAINING / run) if p.exists()]
        resume = [p for p in files if set(p.relative_to(TRAINING / run).parts) & set(RESUME_STATE)]
        if run not in opened:
            assert not resume, f"training/{run} is closed but keeps resume state: {resume[:3]}"
        assert sum(p.stat().st_size for p in files) <= RUN_MAX, run
        names = {p.name for p in files}
        assert any(n.endswith("config.json") for n in names), f"training/{run} has no configuration"
        assert any("metrics" in n for n in names), f"training/{run} has no metrics"
