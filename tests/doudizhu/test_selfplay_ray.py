"""Self-play on a local 2-CPU Ray instance records exactly the games of a local run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paiju.core.records import read_records
from paiju.doudizhu.selfplay import selfplay

ray = pytest.importorskip("ray")


@pytest.mark.timeout(120)
def test_ray_run_equals_local_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    lineup = ["greedy", "random", "random"]
    selfplay(lineup, 8, tmp_path / "local", seed=5, batch_size=2)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        result = selfplay(lineup, 8, tmp_path / "ray", seed=5, batch_size=2, workers=2, use_ray=True)
    finally:
        ray.shutdown()
    assert result.backend == "ray" and result.run.played == 8
    local, remote = (
        sorted(read_records(tmp_path / d).drop_columns(["move_ms"]).to_pylist(), key=lambda r: r["seed"])
        for d in ("local", "ray")
    )
    assert remote == local and sorted(r["game_index"] for r in remote) == list(range(8))
    assert os.environ.get("RAY_ADDRESS") is None
