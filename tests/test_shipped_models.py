"""The project's limits on shipped models: each checkpoint under 5 MB, all of them under 30 MB."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "paiju"
EACH, ALL = 5_000_000, 30_000_000


def shipped_model_files() -> list[Path]:
    """Every checkpoint in the package: ``*.pt`` anywhere, and every data file of a ``models``
    folder (XGBoost's JSON models, configs, metrics, curves)."""
    out = set(PACKAGE.rglob("*.pt"))
    for folder in PACKAGE.rglob("models"):
        if folder.is_dir():
            out.update(p for p in folder.iterdir() if p.is_file() and p.suffix not in (".py", ".pyc"))
    return sorted(out)


def test_each_checkpoint_is_under_5_mb_and_all_under_30_mb() -> None:
    files = shipped_model_files()
    assert any(p.suffix == ".pt" for p in files)  # the scan finds the shipped networks
    too_big = [f"{p.relative_to(PACKAGE)}: {p.stat().st_size:,} bytes"
               for p in files if p.stat().st_size >= EACH]
    assert not too_big
    assert sum(p.stat().st_size for p in files) < ALL
