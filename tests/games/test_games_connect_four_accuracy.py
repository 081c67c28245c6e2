"""benchmarks/connect_four_accuracy.py: the committed position set, how it is made, and the
accuracy of an agent against its labels."""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.core.rng import derive_seed
from paiju.games.connect_four import REGISTRY, ConnectFour
from paiju.games.connect_four_solver import Solver, parse_moves

SET = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "connect_four_positions.jsonl"

# Three positions of random games, labelled by the solver once and checked by eye:
# x to move wins at once in column 6 and nowhere else; a drawn position (column 2 is full);
# a drawn position with three open columns, o to move.
HAND_MADE = [
    {"moves": "63667175467416", "ply": 14, "values": {"0": -1, "1": -1, "2": -1, "3": -1, "4": -1, "5": -1,
                                                      "6": 1}},
    {"moves": "336136174333262511645457", "ply": 24, "values": {"0": -1, "1": 0, "3": 0, "4": -1, "5": 0,
                                                                "6": -1}},
    {"moves": "247741771126117531756362463446463", "ply": 33, "values": {"1": -1, "2": -1, "4": 0}},
]


@pytest.fixture
def bench(benchmark_module: Callable[[str], ModuleType]) -> ModuleType:
    return benchmark_module("connect_four_accuracy")


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _values(line: dict[str, Any]) -> dict[int, int]:
    return {int(c): v for c, v in line["values"].items()}


def _replayed_game(line: dict[str, Any]) -> list[int]:
    """The columns of a line's game, played again from its seed as the module docstring says."""
    seats = line["source"].split(" vs ")
    agents = [REGISTRY.make(spec, seed=derive_seed(line["game_seed"], 1 + seat))
              for seat, spec in enumerate(seats)]
    return [int(a) for a in play_game(ConnectFour(), agents, line["game_seed"]).actions]


# ---- the committed set ---------------------------------------------------------------------------
def test_the_committed_set_has_500_distinct_positions_from_ply_12_where_the_moves_differ() -> None:
    lines = _read(SET)
    assert len(lines) >= 500
    boards = set()
    for line in lines:
        moves = parse_moves(line["moves"])
        assert line["ply"] == len(moves) >= 12
        state = ConnectFour().new_initial_state()
        for column in moves:
            state.apply(column)
        assert not state.is_terminal()
        assert sorted(_values(line)) == state.legal_actions()
        assert len(set(line["values"].values())) >= 2, line["moves"]
        boards.add(Solver.position(moves))
    assert len(boards) == len(lines)  # no position twice, not even by another move order
    pairs = {" vs ".join(sorted(line["source"].split(" vs "))) for line in lines}
    assert len(pairs) >= 3  # games of several strengths, not one kind of play


def test_the_committed_labels_agree_with_the_solver_on_a_sample() -> None:
    lines = _read(SET)
    for i in np.random.default_rng(0).choice(len(lines), size=6, replace=False):
        line = lines[int(i)]
        assert Solver().move_values(parse_moves(line["moves"])) == _values(line), line["moves"]


def test_committed_positions_come_from_the_games_their_seeds_replay() -> None:
    lines = _read(SET)
    for i in np.random.default_rng(1).choice(len(lines), size=3, replace=False):
        line = lines[int(i)]
        assert _replayed_game(line)[: line["ply"]] == parse_moves(line["moves"])


# ---- making a set --------------------------------------------------------------------------------
PAIRS = [("mcts:simulations=20", "mcts:simulations=20"), ("random", "mcts:simulations=20")]


def test_a_set_keeps_the_first_position_whose_moves_differ_and_resumes(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, journal = tmp_path / "set.jsonl", tmp_path / "journal.jsonl"
    summary = bench.generate(out, journal, 3, 5, PAIRS, min_ply=20, progress=False)
    lines = _read(out)
    assert len(lines) == summary["positions"] == 3
    assert [line["game"] for line in lines] == sorted(line["game"] for line in lines)
    for line in lines:
        assert line["ply"] >= 20 and line["game_seed"] == derive_seed(5, line["game"])
        moves = parse_moves(line["moves"])
        assert Solver().move_values(moves) == _values(line)
        game = _replayed_game(line)
        assert game[: line["ply"]] == moves and len(game) > line["ply"]
        # the plies in the drawn order: every one before the kept ply has all moves equal
        order = 20 + np.random.default_rng(derive_seed(line["game_seed"], 0)).permutation(len(game) - 20)
        earlier = [int(p) for p in order[: list(order).index(line["ply"])]]
        assert all(len(set(Solver().move_values(game[:p]).values())) == 1 for p in earlier)
    assert sum(summary["outcomes"].values()) == summary["games_needed"] == lines[-1]["game"] + 1

    played: list[int] = []
    play = bench.play_and_label
    monkeypatch.setattr(bench, "play_and_label", lambda task: played.append(task.game) or play(task))
    bench.generate(out, journal, 3, 5, PAIRS, min_ply=20, progress=False)
    assert played == [] and _read(out) == lines  # nothing played again, nothing written twice
    bench.generate(out, journal, 4, 5, PAIRS, min_ply=20, progress=False)
    grown = _read(out)
    assert grown[:3] == lines and len(grown) == 4
    assert min(played, default=summary["games_played"]) >= summary["games_played"]  # only new games
    with pytest.raises(ConfigError, match="another set"):  # before any game is played
        bench.generate(out, tmp_path / "other.jsonl", 4, 6, PAIRS, min_ply=20, progress=False)


def test_labelling_stops_at_the_cpu_cap(bench: ModuleType) -> None:
    solver = Solver()
    start = time.process_time()
    assert bench.label(solver, parse_moves("44"), 0.05) is None  # the second move: hours of search
    assert time.process_time() - start < 2.0
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)  # the alarm is off again
    late = parse_moves(HAND_MADE[2]["moves"])
    assert bench.label(solver, late, 5.0) == {int(c): v for c, v in HAND_MADE[2]["values"].items()}


# ---- accuracy ------------------------------------------------------------------------------------
def _hand_made_set(path: Path) -> Path:
    path.write_text("".join(json.dumps({**p, "source": "hand vs made", "game_seed": 0}) + "\n"
                            for p in HAND_MADE), encoding="utf-8")
    return path


def test_accuracy_on_a_hand_made_set(bench: ModuleType, tmp_path: Path) -> None:
    positions = bench.load_positions(_hand_made_set(tmp_path / "three.jsonl"))
    # optimal: {6}, {1, 3, 5}, {4}; the agent plays 6 (optimal), 0 (a loss), 4 (optimal)
    result = bench.accuracy(positions, [6, 0, 4])
    assert result["all"]["value"] == pytest.approx(2 / 3) and result["all"]["n"] == 3
    # Wilson's 95% interval of 2 in 3
    assert (result["all"]["low"], result["all"]["high"]) == pytest.approx((0.2077, 0.9385), abs=1e-4)
    assert {k: (v["value"], v["n"]) for k, v in result["band"].items()} == {
        "12-19": (1.0, 1), "20-29": (0.0, 1), "30+": (1.0, 1)}
    assert {k: (v["value"], v["n"]) for k, v in result["value"].items()} == {
        "win": (1.0, 1), "draw": (0.5, 2)}
    assert {k: (v["value"], v["n"]) for k, v in result["optimal"].items()} == {
        "one optimal": (1.0, 2), "several optimal": (0.0, 1)}
    # a random move: 1 optimal in 7, 3 in 6, 1 in 3
    assert result["all"]["random_expected"] == pytest.approx((1 / 7 + 3 / 6 + 1 / 3) / 3, abs=1e-4)
    assert result["value"]["draw"]["random_expected"] == pytest.approx((3 / 6 + 1 / 3) / 2, abs=1e-4)
    # against an agent that plays 0, 1, 4 (optimal in the last two): per position +1, -1, 0
    difference = bench.paired_difference(positions, [6, 0, 4], [0, 1, 4])
    assert (difference.value, difference.n) == (pytest.approx(0.0), 3)
    assert difference.low < 0 < difference.high


def test_the_accuracy_command_scores_a_search_that_takes_the_win(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    positions = _hand_made_set(tmp_path / "three.jsonl")
    report = tmp_path / "report.json"
    monkeypatch.setattr(sys, "argv", ["connect_four_accuracy.py", "accuracy", "--positions", str(positions),
                                      "--agent", "mcts:simulations=100", "--agent", "random",
                                      "--json", str(report)])
    bench.main()
    rows = json.loads(report.read_text(encoding="utf-8"))["agents"]
    assert [r["agent"] for r in rows] == ["mcts:simulations=100", "random"]
    assert rows[0]["accuracy"]["band"]["12-19"]["value"] == 1.0  # the immediate win is found
    hits = [int(c in ({6}, {1, 3, 5}, {4})[i]) for i, c in enumerate(rows[1]["columns"])]
    assert rows[1]["accuracy"]["all"]["value"] == pytest.approx(sum(hits) / 3)
    first = [int(c in ({6}, {1, 3, 5}, {4})[i]) for i, c in enumerate(rows[0]["columns"])]
    assert rows[1]["minus_first"]["value"] == pytest.approx((sum(hits) - sum(first)) / 3)
    assert "| `random` |" in capsys.readouterr().out
    # the search's simulations are reported (a forced win may end it early), none for random
    assert 1 <= rows[0]["simulations_per_move"]["median"] <= 100
    assert rows[1]["simulations_per_move"] == {"median": 0, "mean": 0.0}


def test_a_position_that_does_not_fit_its_labels_is_refused(bench: ModuleType, tmp_path: Path) -> None:
    bad = dict(HAND_MADE[0], values={"0": 1, "1": -1})  # five legal columns unlabelled
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({**bad, "source": "a vs b", "game_seed": 0}) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="do not fit"):
        bench.load_positions(path)
