"""benchmarks/az_value_fit.py: a run's snapshots scored on held-out games, and the refit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from paiju.algorithms.alphazero.selfplay import SampleArrays, SearchSettings
from paiju.algorithms.alphazero.train import TrainConfig, train
from paiju.games.grid_encoding import connect_four_setup


def test_snapshots_are_scored_on_the_next_iterations_games_as_training_recorded(
    tmp_path: Path, benchmark_module: Callable[[str], ModuleType]
) -> None:
    config = TrainConfig(seed=4, iterations=4, games_per_iteration=3,
                         search=SearchSettings(simulations=6, batch=2), channels=4, blocks=1, hidden=16,
                         steps_per_iteration=4, batch_size=16, window=2, snapshot_every=1)
    metrics = train(config, connect_four_setup, tmp_path)
    bench = benchmark_module("az_value_fit")
    rows = bench.value_fit(tmp_path)
    # snapshots 0..2 have a next iteration; 3 is the last
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    for r in rows:
        # the training loop scored iteration n + 1's games with the net of iteration n, too
        assert r["value_new"] == pytest.approx(metrics[r["iteration"] + 1]["value_loss_new"], rel=1e-5)
        assert r["policy_new"] == pytest.approx(metrics[r["iteration"] + 1]["policy_loss_new"], rel=1e-5)
        assert r["value_zero"] <= 1.0 and np.isfinite(r["value_window"])
    curve = bench.refit(tmp_path, 3, 1, steps=20, seed=0)
    assert [c["step"] for c in curve] == list(range(2, 21, 2))
    assert all(np.isfinite(c["value_held"]) and np.isfinite(c["policy_held"]) for c in curve)


def test_the_linear_reference_recovers_a_value_that_is_linear_in_the_plane_sums(
    benchmark_module: Callable[[str], ModuleType]
) -> None:
    bench = benchmark_module("az_value_fit")
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, size=(200, 3, 2, 2)).astype(np.float16)
    vector = rng.random((200, 4)).astype(np.float16)
    own = (planes.astype(np.float32).sum(axis=(2, 3)) @ [0.1, -0.2, 0.05] + vector.astype(np.float32) @
           [0.1, 0.0, -0.1, 0.05]) - 0.1
    values = np.stack([own, -own], axis=1).astype(np.float32)
    empty = np.zeros(0, dtype=np.int32)
    replay = SampleArrays(planes, vector, values, np.zeros(201, dtype=np.int64), empty, empty,
                          np.zeros(0, dtype=np.float32), np.full_like(values, np.nan))
    assert bench.linear_fit(replay, replay) == pytest.approx(0.0, abs=1e-6)
    # outcomes unrelated to the inputs: no better than their spread
    noise = replace(replay, values=np.stack([s := rng.choice([-1.0, 1.0], 200), -s], 1).astype(np.float32))
    assert bench.linear_fit(noise, replace(noise, planes=noise.planes[::-1].copy())) > 0.5


def test_value_targets_are_compared_on_held_out_games_with_paired_intervals(
    tmp_path: Path, benchmark_module: Callable[[str], ModuleType]
) -> None:
    from paiju.algorithms.alphazero.teacher import RegistryTeacher, TeacherDataConfig, generate
    from paiju.games import agent_registry

    teacher = RegistryTeacher(agent_registry, "mcts:simulations=20")
    generate(TeacherDataConfig(games=6, teacher=teacher.spec, rollouts=2), connect_four_setup, teacher,
             tmp_path, game_id={"game": "connect_four"})
    bench = benchmark_module("az_value_fit")
    result = bench.compare_targets(tmp_path, "connect_four", ["outcome", "root", "mix:0.5"], epochs=2,
                                   held_out=0.34, seed=0, sizes={"channels": 4, "blocks": 1, "hidden": 16},
                                   resamples=50)
    rows = result["rows"]
    assert result["held_games"] == 2 and result["learn_samples"] + result["held_samples"] > 0
    assert {"outcome", "root", "mix:0.5", "predict 0 (a draw)", "linear fit on the outcomes"} <= set(rows)
    assert rows["outcome"]["diff"] == 0.0 and rows["outcome"]["diff_ci"] == [0.0, 0.0]
    for name, r in rows.items():
        assert r["ci"][0] <= r["mse"] + 1e-9 and r["mse"] <= r["ci"][1] + 1e-9, name
    # a network's row is its last pass's held-out figure, as the trainer records it
    for name in ("outcome", "root", "mix:0.5"):
        assert rows[name]["mse"] == pytest.approx(result["curves"][name][-1]["value_held"], rel=1e-4)
    # connect four's outcomes are +-1 or 0: predicting a draw scores the share of decided games
    assert 0.0 <= rows["predict 0 (a draw)"]["mse"] <= 1.0


def test_the_bootstrap_resamples_whole_games(benchmark_module: Callable[[str], ModuleType]) -> None:
    bench = benchmark_module("az_value_fit")
    # two games: every sample of game 0 has error 0, of game 1 error 1 (three samples to one)
    games = np.array([0, 0, 0, 1])
    errors = {"a": np.array([0.0, 0.0, 0.0, 1.0]), "b": np.array([1.0, 1.0, 1.0, 1.0])}
    rows = bench._bootstrap(errors, games, 2000, 0, against="b")
    assert rows["a"]["mse"] == 0.25 and rows["b"]["ci"] == [1.0, 1.0]
    # resampled games give 0 (game 0 twice), 0.25 (each once) or 1 (game 1 twice), never a mix of samples
    assert rows["a"]["ci"] == [0.0, 1.0] and rows["a"]["diff"] == -0.75
