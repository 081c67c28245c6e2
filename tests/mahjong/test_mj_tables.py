"""Table 4 and the alpha sweep (issue 18, items 7-8): pairing by wall, rows, resume, outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paiju.algorithms.dqn import QNetConfig, save_model, seeded_network
from paiju.core.errors import ConfigError
from paiju.core.records import read_records
from paiju.mahjong import features as F
from paiju.mahjong.agents.match import paired_by_wall, rows_paired
from paiju.mahjong.tables import TABLE4, TableConfig, model_path, run_table, sweep_rows, table4_rows
from paiju.mahjong.tiles import NUM_KINDS


def _row(wall: int, seat_agents: list[int], returns: list[float], run: str = "r") -> dict[str, Any]:
    return {"arena_format": "2v2-all", "run_id": run, "deal_index": wall,
            "agents": ["A" if a == 0 else "B" for a in seat_agents],
            "seat_agents": seat_agents, "returns": returns,
            "moves": ["wall x", "discard 1m", "pass", "discard 2m"], "move_players": [-1, 0, 1, 1],
            "move_ms": [0.0, 10.0, 1.0, 30.0]}


SEATINGS = [[0, 0, 1, 1], [0, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 1, 0], [1, 1, 0, 0]]


def test_pairing_by_wall_matches_a_hand_count() -> None:
    # wall 0: seat 0 wins 3000 from seat 1 in every seating; wall 1: seat 2 wins 1500 from seat 3
    rows = [_row(0, s, [3000.0, -3000.0, 0.0, 0.0]) for s in SEATINGS]
    rows += [_row(1, s, [0.0, 0.0, 1500.0, -1500.0]) for s in SEATINGS]
    rows += [_row(2, SEATINGS[0], [1000.0, 0, 0, -1000.0])]  # incomplete wall: left out
    p = paired_by_wall(rows)
    assert p.agents == ("A", "B") and p.walls == 2 and p.hands == 12
    # wall 0: A holds seat 0 in 3 of the 6 seatings -> 3 wins of its 12 seat-hands; B likewise
    assert p.win_rate_a.value == pytest.approx(3 / 12) and p.win_rate_b.value == pytest.approx(3 / 12)
    # points: A sits in seat 0 three times (+3000) and seat 1 three times (-3000): mean 0
    assert p.score_a.value == pytest.approx(0.0) and p.score_diff.value == pytest.approx(0.0)
    # decision times: only discards; seat 1's discard (30 ms) belongs to the agent in seat 1
    a_ms = p.decision_ms[0]
    assert a_ms["n"] == 12  # one discard per hand for each agent over 12 hands
    assert p.decision_ms[1]["n"] == 12


def test_pairing_a_one_sided_wall() -> None:
    # in every seating A's first seat wins 3000 from B's first seat
    rows = []
    for s in SEATINGS:
        returns = [0.0] * 4
        returns[s.index(0)], returns[s.index(1)] = 3000.0, -3000.0
        rows.append(_row(0, s, returns))
    p = paired_by_wall(rows)
    assert p.win_rate_a.value == pytest.approx(6 / 12) and p.win_rate_b.value == 0.0
    assert p.win_rate_diff.value == pytest.approx(0.5)
    assert p.score_a.value == pytest.approx(1500.0) and p.score_diff.value == pytest.approx(3000.0)
    # seat 0 discards in 10 ms, seat 1 in 30 ms: A holds seat 0 in 3 seatings, seat 1 in 3
    assert p.decision_ms[0] == {"n": 6, "median_ms": 30.0, "p95_ms": 30.0}


def test_pairing_refuses_other_formats_and_mixed_runs() -> None:
    with pytest.raises(ValueError, match="no 2v2-all"):
        paired_by_wall([{**_row(0, SEATINGS[0], [0, 0, 0, 0]), "arena_format": "2v2"}])
    with pytest.raises(ValueError, match="more than one"):
        paired_by_wall([_row(0, SEATINGS[0], [0, 0, 0, 0]), _row(0, SEATINGS[1], [0, 0, 0, 0], run="s")])


def _model(path: Path, seed: int) -> Path:
    net = seeded_network(QNetConfig((F.FLAT_SIZE,), NUM_KINDS, kind="mlp", hidden=(16,)), seed)
    return save_model(path, net, {"features": F.FEATURES_VERSION})


def test_table4_rows_name_every_missing_model(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"mj-sup-mlp\.pt.*mj-ddqn\.pt"):
        table4_rows(tmp_path, ["mlp", "ddqn", "expectimax-ddqn", "expectimax"])
    with pytest.raises(ConfigError, match="unknown algorithm 'vit'"):
        table4_rows(tmp_path, ["vit"])
    _model(model_path(tmp_path, "mlp"), 1)
    _model(model_path(tmp_path, "ddqn"), 2)
    rows = table4_rows(tmp_path, ["mlp", "ddqn", "expectimax-ddqn", "expectimax"], baseline="greedy")
    assert [r.spec for r in rows] == [
        f"supervised:model={tmp_path / 'mj-sup-mlp.pt'}", f"ddqn:model={tmp_path / 'mj-ddqn.pt'}",
        f"expectimax-ddqn:model={tmp_path / 'mj-ddqn.pt'}", "greedy",
    ]
    assert len(TABLE4) == 11  # the paper's eleven algorithms


def test_a_table_plays_pairs_resumes_and_writes(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    _model(model_path(models, "mlp"), 1)
    out = tmp_path / "t4"
    cfg = TableConfig(out=str(out), rows=table4_rows(models, ["mlp", "expectimax"], baseline="greedy"),
                      baseline="greedy", walls=1, seed=5)
    results = run_table(cfg, "table4")
    assert [r["row"]["label"] for r in results] == ["mlp", "expectimax"]
    assert all(r["walls"] == 1 and r["hands"] == 6 for r in results)
    # greedy against itself on the same wall in all six seatings: the seatings are closed
    # under swapping A and B, so a deterministic agent's totals are the same on both sides
    same = results[1]
    assert same["win_rate_A_minus_B"]["value"] == 0.0 and same["score_A_minus_B"]["value"] == 0.0
    # the record is the source: recount the mlp row's win rate from its Parquet hands
    table = read_records(out / "rows" / "mlp").to_pylist()
    a_wins = sum(r["returns"][s] > 0 for r in table for s, a in enumerate(r["seat_agents"]) if a == 0)
    assert results[0]["win_rate_A"]["value"] == pytest.approx(a_wins / 12)
    saved = json.loads((out / "table4.json").read_text())
    assert saved["config"]["hands_per_row"] == 6 and len(saved["results"]) == 2
    md = (out / "table4.md").read_text()
    assert "| MLP |" in md and "| the baseline (greedy) |" in md
    assert (out / "table4.png").stat().st_size > 0
    # resume: nothing is replayed, the results are the same
    again = run_table(cfg, "table4")
    assert len(read_records(out / "rows" / "mlp").to_pylist()) == 6
    assert [r["win_rate_A"] for r in again] == [r["win_rate_A"] for r in results]


def test_a_table_refuses_an_unreadable_model_before_playing(tmp_path: Path) -> None:
    bad = tmp_path / "mj-sup-mlp.pt"
    bad.write_text("not a model")
    rows = table4_rows(tmp_path, ["mlp"])
    cfg = TableConfig(out=str(tmp_path / "t"), rows=rows, baseline="greedy", walls=1)
    with pytest.raises(Exception, match=r"mj-sup-mlp\.pt"):
        run_table(cfg, "table4")
    assert not (tmp_path / "t" / "rows").exists()


def test_sweep_rows_cover_every_alpha_and_depth(tmp_path: Path) -> None:
    model = _model(tmp_path / "mj-ddqn.pt", 3)
    rows = sweep_rows(model, [0.2, 0.6], [1, 2])
    assert [r.spec for r in rows] == [
        f"expectimax-ddqn:model={model},alpha={a},depth={d}" for d in (1, 2) for a in (0.2, 0.6)
    ]
    with pytest.raises(ConfigError, match=r"alpha=0.0 must be in \(0, 1\]"):
        sweep_rows(model, [0.0], [1])
    with pytest.raises(ConfigError, match="not found"):
        sweep_rows(tmp_path / "none.pt")


def test_two_rows_pair_by_wall_with_a_hand_count() -> None:
    def run(run_id: str, a_wins_wall_0: bool, b_wins_wall_1: bool) -> list[dict[str, Any]]:
        rows = []
        for wall in (0, 1):
            for lineup, s in enumerate(SEATINGS):
                returns = [0.0] * 4
                if wall == 0 and a_wins_wall_0:  # A's first seat wins 3000 from B's first
                    returns[s.index(0)], returns[s.index(1)] = 3000.0, -3000.0
                if wall == 1 and b_wins_wall_1:  # B's first seat wins 3000 from A's first
                    returns[s.index(1)], returns[s.index(0)] = 3000.0, -3000.0
                rows.append({**_row(wall, s, returns, run=run_id), "lineup": lineup, "deal": f"w{wall}"})
        return rows

    strong, weak = run("s", True, False), run("w", False, True)
    p = rows_paired(strong, weak)
    # wall 0: 6 of A's 12 seat-hands won at +3000 (against none in the weak run); wall 1: the
    # weak run's B won 6 of its 12 at A's expense, and A won none in either run
    assert p["walls"] == 2
    assert p["win_rate_a_minus_b"]["value"] == pytest.approx((6 / 12 + 0) / 2)
    assert p["score_a_minus_b"]["value"] == pytest.approx((1500 + 1500) / 2)
    # the margin over the baseline also counts the wins B did not take: wall 0 is 6/12 - 0,
    # wall 1 is 0 - (0 - 6/12); in points (1500 + 1500) - 0 and 0 - (-1500 - 1500)
    assert p["win_rate_margin_a_minus_b"]["value"] == pytest.approx((6 / 12 + 6 / 12) / 2)
    assert p["score_margin_a_minus_b"]["value"] == pytest.approx((3000 + 3000) / 2)
    assert rows_paired(strong, strong)["score_a_minus_b"]["value"] == 0.0
    with pytest.raises(ValueError, match="different walls"):
        rows_paired(strong, [{**r, "deal": "other"} for r in weak])
    with pytest.raises(ValueError, match="no complete wall in common"):
        rows_paired(strong, [r for r in weak if r["deal_index"] == 0][:5])
