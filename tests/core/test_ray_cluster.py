"""The runner on a multi-node Ray cluster started on this machine (``ray.cluster_utils``):
tasks spread over the nodes, the records equal a local run's, and a node killed mid-run
loses no game and duplicates none (Ray re-runs the tasks it held; the driver records each
task's games once). docs/ray-cluster.md is the recipe for a real cluster."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paiju.core.records import read_records
from paiju.core.runner import Backend, run_tasks
from paiju.doudizhu.selfplay import selfplay

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

LINEUP = ["greedy", "random", "random"]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A head that runs no tasks (0 CPUs) and two worker nodes of one CPU each."""
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    c = cluster_utils.Cluster(
        initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False}
    )
    c.workers = [c.add_node(num_cpus=1) for _ in range(2)]
    c.wait_for_nodes()
    ray.init(address=c.address, log_to_driver=False)
    try:
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


def _games(out: Path) -> list[dict[str, Any]]:
    rows = read_records(out).drop_columns(["move_ms"]).to_pylist()
    return sorted(rows, key=lambda r: r["game_index"])


def test_tasks_run_on_both_nodes_and_the_records_equal_a_local_run(cluster: Any, tmp_path: Path) -> None:
    def node_of(task: int) -> str:  # a closure: Ray ships it by value
        time.sleep(0.3)  # long enough that one node cannot take every task
        return str(ray.get_runtime_context().get_node_id())

    nodes: dict[int, str] = {}
    run_tasks(node_of, list(range(8)), nodes.__setitem__, backend=Backend(workers=2, ray=True))
    head = cluster.head_node.node_id
    assert sorted(nodes) == list(range(8)) and head not in nodes.values()
    assert set(nodes.values()) == {n.node_id for n in cluster.workers}

    result = selfplay(LINEUP, 12, tmp_path / "ray", seed=7, batch_size=2, workers=2, use_ray=True)
    assert result.backend == "ray" and result.run.played == 12
    local = selfplay(LINEUP, 12, tmp_path / "local", seed=7, batch_size=2)
    assert local.run.played == 12
    assert _games(tmp_path / "ray") == _games(tmp_path / "local")


def test_a_node_killed_mid_run_loses_and_duplicates_no_game(cluster: Any, tmp_path: Path) -> None:
    killed: list[int] = []

    def kill_a_node(done: int, total: int) -> None:
        # after the first finished task, with the next ones in flight on both nodes
        if done and not killed:
            cluster.remove_node(cluster.workers[1], allow_graceful=False)
            killed.append(done)

    result = selfplay(
        LINEUP, 24, tmp_path / "ray", seed=9, batch_size=2, workers=2, use_ray=True, progress=kill_a_node
    )
    assert killed and killed[0] < 24  # the node died while games were still to play
    assert result.run.played == 24
    games = _games(tmp_path / "ray")
    assert [g["game_index"] for g in games] == list(range(24))  # every game once
    selfplay(LINEUP, 24, tmp_path / "local", seed=9, batch_size=2)
    assert games == _games(tmp_path / "local")  # and each as a local run plays it
