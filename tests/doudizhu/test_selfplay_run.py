"""``paiju ddz selfplay``: resume without loss or duplication, worker-count independence, CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from paiju.cli.ddz import app
from paiju.core.errors import ConfigError
from paiju.core.records import RecordWriter, read_records
from paiju.doudizhu.game import GameRecord
from paiju.doudizhu.selfplay import selfplay

LINEUP = ["greedy", "random", "greedy"]


def _rows(out: Path) -> list[dict[str, Any]]:
    """Every recorded game, decision times dropped (the only column that may differ)."""
    rows = read_records(out).to_pylist()
    for row in rows:
        row.pop("move_ms")
    return sorted(rows, key=lambda r: r["game_index"])


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("whole")
    result = selfplay(LINEUP, 24, out, seed=3, batch_size=4)
    assert result.run.played == 24 and result.run.skipped == 0 and result.games_per_second > 0
    return _rows(out)


def test_records_are_complete_replayable_games_in_seat_order(uninterrupted: list[dict[str, Any]]) -> None:
    assert [r["game_index"] for r in uninterrupted] == list(range(24))
    assert len({r["deal"] for r in uninterrupted}) == 24  # a fresh deal per game
    for row in uninterrupted:
        assert row["agents"] == LINEUP and row["seat_agents"] == [0, 1, 2]
        assert row["arena_format"] == "fixed"
        state = GameRecord.from_dict(json.loads(row["extra"])["record"]).replay()
        assert state.is_terminal() and state.returns() == row["returns"]


def test_interrupted_then_resumed_equals_uninterrupted(
    tmp_path: Path, uninterrupted: list[dict[str, Any]]
) -> None:
    out = tmp_path / "cut"
    batches = 0

    def stop_after_two_batches(done: int, total: int) -> None:
        nonlocal batches
        batches += 1
        if batches == 2:
            raise KeyboardInterrupt  # as if the user pressed Ctrl-C mid-run

    with pytest.raises(KeyboardInterrupt):
        selfplay(LINEUP, 24, out, seed=3, batch_size=4, progress=stop_after_two_batches)
    assert len(_rows(out)) == 8
    # a batch cut off mid-write leaves only a temporary file, which the resume discards
    (out / ".tmp-deadbeef.parquet").write_bytes(b"half a parquet file")
    resumed = selfplay(LINEUP, 24, out, seed=3, batch_size=4)
    assert (resumed.run.played, resumed.run.skipped) == (16, 8)
    assert _rows(out) == uninterrupted
    with RecordWriter(out, resumed.run.run_config) as writer:  # validates: no index twice
        assert writer.done_indices() == set(range(24))
    again = selfplay(LINEUP, 24, out, seed=3, batch_size=4)
    assert again.run.played == 0 and _rows(out) == uninterrupted


def test_two_worker_processes_record_the_same_games_as_one(
    tmp_path: Path, uninterrupted: list[dict[str, Any]]
) -> None:
    result = selfplay(LINEUP, 24, tmp_path, seed=3, workers=2, batch_size=4)
    assert result.backend == "processes" and result.run.played == 24
    assert _rows(tmp_path) == uninterrupted


def test_another_seed_or_line_up_is_refused_in_the_same_directory(tmp_path: Path) -> None:
    selfplay(LINEUP, 2, tmp_path, seed=3)
    with pytest.raises(ConfigError, match="resume with the same arguments"):
        selfplay(LINEUP, 2, tmp_path, seed=4)
    with pytest.raises(ConfigError, match="needs 3 agents"):
        selfplay(["random", "random"], 2, tmp_path / "x")
    with pytest.raises(ConfigError, match="unknown doudizhu agent"):
        selfplay(["random", "nobody", "random"], 2, tmp_path / "y")


def test_selfplay_command_resumes_and_reports_throughput(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "cli"
    args = ["selfplay", "--agents", "policy:model=small,random,greedy", "--out", str(out), "--seed", "1"]
    first = runner.invoke(app, [*args, "--games", "4", "--json"])
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout)
    assert summary["played"] == 4 and summary["skipped"] == 0 and summary["games_per_second"] > 0
    assert summary["agents"] == ["policy:model=small", "random", "greedy"]
    second = runner.invoke(app, [*args, "--games", "6"])
    assert second.exit_code == 0, second.output
    assert "2 games played, 4 already recorded" in second.stdout
    rows = _rows(out)
    assert [r["game_index"] for r in rows] == list(range(6))
    bad = runner.invoke(app, ["selfplay", "--agents", "random,random", "--games", "2", "--out", str(out)])
    assert isinstance(bad.exception, ConfigError)
