"""Seat-swapped pair matches of yuxi agents (`paiju yuxi match`, the AlphaZero evaluations)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.core.rng import derive_seed
from paiju.yuxi.agents import REGISTRY, game_for
from paiju.yuxi.matches import match_pairs
from paiju.yuxi.rooms import YuxiRooms


def test_a_pair_is_each_seat_once_on_the_same_room_and_deal() -> None:
    rooms = YuxiRooms(boards=("3x3", "4x4"))
    result = match_pairs("greedy", "random", rooms, 3, seed=5)
    for p, board, s0, s1 in result.pairs:
        config = rooms.config(derive_seed(5, p))
        assert board == config.board
        # replay both games independently: same room, same chance seed, seats swapped
        game = game_for(config)
        for first, score in ((0, s0), (1, s1)):
            names = ["greedy", "random"] if first == 0 else ["random", "greedy"]
            agents = [REGISTRY.make(n, seed=derive_seed(5, p, k + 1)) for k, n in enumerate(names)]
            r = play_game(game, agents, derive_seed(5, p, 3)).state.returns()
            mine, theirs = (r[0], r[1]) if first == 0 else (r[1], r[0])
            assert score == (1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)


def test_swapping_the_agents_mirrors_the_score() -> None:
    rooms = YuxiRooms(boards=("3x3",))
    ab = match_pairs("greedy", "random", rooms, 4, seed=1)
    ba = match_pairs("random", "greedy", rooms, 4, seed=1)
    assert ab.score().value == pytest.approx(1 - ba.score().value)
    assert ab.score().value > 0.5  # greedy beats random (docs/results/yuxi.md)
    d = ab.to_dict()
    assert d["games"] == 8 and set(d["by_board"]) == {"3x3"}


def test_split_pairs_are_those_each_side_won_once() -> None:
    from paiju.yuxi.matches import MatchResult

    # pair 0: A won both; 1 and 2: one game each (split); 3: a draw and a win; 4: both lost
    rows = [(0, "3x3", 1.0, 1.0), (1, "3x3", 1.0, 0.0), (2, "4x4", 0.0, 1.0), (3, "4x4", 0.5, 1.0),
            (4, "4x4", 0.0, 0.0)]
    m = MatchResult("a", "b", rows)
    assert m.split().value == pytest.approx(2 / 5) and m.split().n == 5
    assert m.split("4x4").value == pytest.approx(1 / 3)
    assert m.score().value == pytest.approx((1 + 0.5 + 0.5 + 0.75 + 0) / 5)
    assert m.score().value <= 0.5 + (1 - m.split().value) / 2  # the cap of the docstring
    assert m.to_dict()["split"]["value"] == pytest.approx(0.4)


def test_bad_specs_fail_before_any_game() -> None:
    with pytest.raises(ConfigError, match="unknown yuxi agent"):
        match_pairs("greedy", "nosuch", YuxiRooms(), 2, seed=0)


def test_a_ladder_rates_by_the_matches_it_played() -> None:
    import math

    from paiju.yuxi.matches import run_ladder

    ladder = run_ladder(["random", "mcts:simulations=8", "greedy"], YuxiRooms(boards=("3x3",)), 3, seed=2)
    assert [(m.a, m.b) for m in ladder.matches] == [
        ("random", "mcts:simulations=8"), ("random", "greedy"), ("mcts:simulations=8", "greedy")
    ]
    assert ladder.ratings[0].value == 0.0
    # each matchup's pairs are the pair matches of that matchup's seed, played again here
    again = match_pairs("random", "greedy", YuxiRooms(boards=("3x3",)), 3, seed=derive_seed(2, 1))
    assert again.pairs == ladder.matches[1].pairs
    assert "| `greedy` |" in ladder.markdown() and math.isfinite(ladder.ratings[1].value)
    with pytest.raises(ConfigError, match="two distinct"):
        run_ladder(["greedy", "greedy"], YuxiRooms(), 1, seed=0)


def test_an_interrupted_ladder_resumes_from_its_journal_to_the_whole_result(tmp_path: Path) -> None:
    from paiju.yuxi.matches import run_ladder

    specs, rooms = ["random", "greedy", "mcts:simulations=4"], YuxiRooms(boards=("3x3",))
    whole = run_ladder(specs, rooms, 3, seed=5)  # 3 matchups of two tasks (2 + 1 pairs): 18 games
    journal = tmp_path / "ladder.jsonl"

    def stop_after_three_tasks(done: int, total: int) -> None:
        if done == 10:  # the first matchup (6 games) and one task of the second, then a Ctrl-C
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_ladder(specs, rooms, 3, seed=5, progress=stop_after_three_tasks, journal=journal)
    assert len(journal.read_text(encoding="utf-8").splitlines()) == 1 + 3
    played: list[int] = []
    resumed = run_ladder(specs, rooms, 3, seed=5, progress=lambda done, total: played.append(done),
                         journal=journal)
    # the three tasks left (2 + 4 + 2 games) were played, nothing else
    assert played == [12, 16, 18]
    assert [m.pairs for m in resumed.matches] == [m.pairs for m in whole.matches]
    assert [r.value for r in resumed.ratings] == [r.value for r in whole.ratings]
    with pytest.raises(ConfigError, match="journal of another job"):
        run_ladder(specs[:2], rooms, 3, seed=5, journal=journal)


def test_an_interrupted_match_resumes_from_its_journal_to_the_whole_result(tmp_path: Path) -> None:
    rooms = YuxiRooms(boards=("3x3", "4x4"))
    whole = match_pairs("greedy", "random", rooms, 5, seed=7)
    journal = tmp_path / "match.jsonl"

    def stop_after_two_tasks(done: int, total: int) -> None:
        if done == 8:  # two tasks of two pairs (8 games) journalled, then a Ctrl-C
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        match_pairs("greedy", "random", rooms, 5, seed=7, progress=stop_after_two_tasks, journal=journal)
    assert len(journal.read_text(encoding="utf-8").splitlines()) == 1 + 2  # header + two tasks
    played: list[int] = []

    def count(done: int, total: int) -> None:
        played.append(done)

    resumed = match_pairs("greedy", "random", rooms, 5, seed=7, progress=count, journal=journal)
    assert played == [10] and resumed.pairs == whole.pairs  # only the last pair was played again
    with pytest.raises(ConfigError, match="journal of another job"):
        match_pairs("greedy", "random", rooms, 6, seed=7, journal=journal)


def test_match_command_resumes_with_journal(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from paiju.cli.main import app

    journal = tmp_path / "m.jsonl"
    args = ["yuxi", "match", "greedy", "random", "--pairs", "3", "--boards", "3x3", "--seed", "4",
            "--journal", str(journal), "--json"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    lines = journal.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 2  # the header and the two tasks of 3 pairs (two pairs a task)
    again = CliRunner().invoke(app, args)  # everything journalled: nothing is played again
    assert again.exit_code == 0 and json.loads(again.output) == json.loads(first.output)
    assert journal.read_text(encoding="utf-8").splitlines() == lines  # nothing was appended
    assert json.loads(first.output)["score"] == match_pairs(
        "greedy", "random", YuxiRooms(boards=("3x3",)), 3, seed=4).score().as_dict()


def test_ladder_command_writes_its_table_json_and_plot(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from paiju.cli.main import app

    out = tmp_path / "ladder"
    args = ["yuxi", "ladder", "random;greedy", "--pairs", "2", "--boards", "4x4", "--seed", "3",
            "--out-dir", str(out), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "ladder.json").read_text(encoding="utf-8"))
    assert data == json.loads(result.output) and data["matches"][0]["games"] == 4
    assert "| `greedy` |" in (out / "ladder.md").read_text(encoding="utf-8")
    assert (out / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
