"""The duplicate format and the records on real Dou Dizhu games (the real engine, random agents)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paiju.core.arena import run_arena, run_games
from paiju.core.records import read_records, score_distribution
from paiju.core.rng import as_generator, derive_seed
from paiju.doudizhu.game import DouDizhuGame, GameRecord, rescore


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("ddz")
    run_games("doudizhu", ["random", "random"], 120, seed=4, out_dir=out, fmt="duplicate")
    rows = sorted(read_records(out).to_pylist(), key=lambda r: r["game_index"])
    return out, rows


def test_duplicate_replays_each_deal_with_the_sides_swapped(recorded: tuple[Path, list[dict]]) -> None:
    _, rows = recorded
    assert len(rows) == 120
    for d in range(60):
        first, second = rows[2 * d], rows[2 * d + 1]
        # the deal is the game's first chance event, drawn from the deal seed alone
        expected = DouDizhuGame().new_initial_state().sample_chance(as_generator(derive_seed(4, d)))
        assert first["deal"] == second["deal"] == str(expected)
        assert first["moves"][0] == first["deal"] and first["move_players"][0] == -1
        assert first["seat_agents"] == [0, 1, 1] and second["seat_agents"] == [1, 0, 0]
        assert first["roles"] == ["landlord", "farmer", "farmer"] and first["dealer_seat"] == 0


def test_records_hold_the_landlord_score_and_replay_and_rescore(recorded: tuple[Path, list[dict]]) -> None:
    _, rows = recorded
    for row in rows:
        s = row["score"]
        assert row["returns"] == [s, -s / 2, -s / 2]  # landlord s, each farmer -s/2
        assert row["scoring_rule"] == "competition" and s in {-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6}
        extra = json.loads(row["extra"])
        record = GameRecord.from_dict(extra["record"])
        replayed = record.replay()
        assert replayed.returns() == row["returns"]
        assert abs(s) == max(1, extra["facts"]["bombs"])
        assert rescore(record, "casual")[0] == pytest.approx(
            (1 if s > 0 else -1) * 2 ** extra["facts"]["bombs"]
            * (2 if extra["facts"]["spring"] or extra["facts"]["anti_spring"] else 1)
        )
        assert [m for m, p in zip(row["moves"], row["move_players"], strict=True) if p >= 0] == [
            str(m) for _, m in record.plays
        ]


def test_duplicate_score_is_the_landlord_score_difference_on_the_same_cards(
    recorded: tuple[Path, list[dict]],
) -> None:
    out, rows = recorded
    report = run_arena("doudizhu", ["random", "random"], 120, seed=4, out_dir=out)
    per_deal = [rows[2 * d]["score"] - rows[2 * d + 1]["score"] for d in range(60)]
    assert report.paired_difference is not None
    assert report.paired_difference.value == pytest.approx(sum(per_deal) / 60)
    landlord_a = report.stats("random#1", "landlord").adp.value
    assert landlord_a == pytest.approx(sum(rows[2 * d]["score"] for d in range(60)) / 60)
    farmer_b = report.stats("random#2", "farmer").adp.value
    assert farmer_b == pytest.approx(-landlord_a)  # the two farmer seats are one side


def test_score_distribution_per_deal_from_ddz_records(recorded: tuple[Path, list[dict]]) -> None:
    out, rows = recorded
    dist = score_distribution(out, min_plays=2).to_pylist()
    assert {d["plays"] for d in dist} == {2}
    assert len({d["deal"] for d in dist}) == 60
    for deal in {d["deal"] for d in dist}:
        scores = sorted(r["score"] for r in rows if r["deal"] == deal)
        got = {d["score"]: d["probability"] for d in dist if d["deal"] == deal}
        assert got == {s: scores.count(s) / 2 for s in scores}
    assert score_distribution(out, min_plays=3).num_rows == 0


def test_ddz_rotation_and_game_options() -> None:
    rows = run_games(
        "doudizhu", ["random"] * 3, 6, seed=2, fmt="rotation", game_options={"scoring": "casual"}
    ).rows
    assert rows is not None
    assert [r["seat_agents"] for r in rows[:3]] == [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
    assert len({r["deal"] for r in rows[:3]}) == 1
    assert all(r["scoring_rule"] == "casual" for r in rows)
