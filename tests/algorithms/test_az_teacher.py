"""Teacher data (paiju.algorithms.alphazero.teacher) and the trainer's start from it:
samples as the teacher searched, resume, the split by game, pretraining resume, end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch

from paiju.algorithms.alphazero.checkpoint import load_checkpoint
from paiju.algorithms.alphazero.selfplay import SearchSettings
from paiju.algorithms.alphazero.teacher import (
    GAME,
    RegistryTeacher,
    TeacherData,
    TeacherDataConfig,
    TeacherGameTask,
    generate,
    play_teacher_game,
    read_teacher_data,
    split_by_game,
)
from paiju.algorithms.alphazero.train import PRETRAIN, TrainConfig, held_out_losses, load_replay, train
from paiju.algorithms.mcts import SearchResult
from paiju.core.agents import AgentRegistry
from paiju.core.errors import ConfigError
from paiju.core.rng import derive_seed
from paiju.core.torch_files import load_payload
from paiju.games import agent_registry
from paiju.games.grid_encoding import connect_four_setup

C4 = {"game": "connect_four"}
MCTS = RegistryTeacher(agent_registry, "mcts:simulations=30")


class _Scripted:
    """A 'search' with known results: column c gets c + 1 visits and the value 0.1 c - 0.3;
    it plays the highest open column."""

    def __init__(self, seed: Any = None) -> None:
        self.last_result: SearchResult | None = None

    def act(self, observation: Any, legal: list[int]) -> int:
        self.last_result = SearchResult(player=0, action=max(legal), visits={a: a + 1 for a in legal},
                                        values={a: 0.1 * a - 0.3 for a in legal},
                                        simulations=sum(a + 1 for a in legal))
        return max(legal)


def scripted_registry(game: Any) -> AgentRegistry:
    registry = AgentRegistry("connect_four")
    registry.register("scripted", _Scripted)
    return registry


def test_a_teacher_games_samples_are_its_searches_and_the_outcome() -> None:
    task = TeacherGameTask(0, 11, connect_four_setup, RegistryTeacher(scripted_registry, "scripted"),
                           temperature_moves=0, rollouts=0)
    played = play_teacher_game(task)
    g = played.samples
    # replay the game independently: both seats play the highest open column
    game, enc = connect_four_setup(0)
    state = game.new_initial_state()
    i = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        mover = state.current_player()
        planes, _ = enc.encode(state)
        assert np.array_equal(g.planes[i], planes.astype(np.float16)) and played.seats[i] == mover
        entries = slice(g.offsets[i], g.offsets[i + 1])
        weights = np.array([a + 1 for a in legal], dtype=np.float64)
        assert g.policy_first[entries].tolist() == legal
        assert np.allclose(g.policy_prob[entries], weights / weights.sum())
        assert g.root_values[i, 0] == pytest.approx(float(np.dot(weights, [0.1 * a - 0.3 for a in legal])
                                                          / weights.sum()))
        assert played.simulations[i] == weights.sum() and played.plies[i] == i
        state.apply(max(legal))
        i += 1
    assert i == len(g) and g.returns == list(state.returns())
    for k, seat in enumerate(played.seats):  # the outcome, from the encoded seat's side
        assert g.values[k].tolist() == [g.returns[seat], g.returns[1 - seat]]
    assert np.isnan(g.rollout_values).all()  # none asked for


def test_an_mcts_teachers_samples_with_exploration_and_rollouts() -> None:
    task = TeacherGameTask(0, 4, connect_four_setup, MCTS, temperature_moves=4, rollouts=4)
    g = play_teacher_game(task).samples
    for i in range(len(g)):
        probs = g.policy_prob[g.offsets[i]:g.offsets[i + 1]]
        assert probs.sum() == pytest.approx(1.0, abs=1e-5) and (probs > 0).all()
        filled = g.planes[i][0] + g.planes[i][1]
        assert all(filled[0, col] == 0 for col in g.policy_first[g.offsets[i]:g.offsets[i + 1]])
    assert (np.abs(g.root_values) <= 1).all() and np.allclose(g.root_values[:, 1], -g.root_values[:, 0])
    assert np.allclose(g.rollout_values * 4, np.round(g.rollout_values * 4))  # means of 4 results
    # a Gumbel teacher's target is its improved policy: every legal move, summing to 1
    teacher = RegistryTeacher(agent_registry, "mcts:simulations=16,gumbel=4")
    gumbel = TeacherGameTask(0, 4, connect_four_setup, teacher, temperature_moves=0, rollouts=0)
    h = play_teacher_game(gumbel).samples
    sizes = h.offsets[1:] - h.offsets[:-1]
    first = h.planes[:, 0] + h.planes[:, 1]
    assert (sizes == (first[:, 0, :] == 0).sum(axis=1)).all()


def _job(out: Path, **kw: Any) -> dict[str, Any] | None:
    cfg = TeacherDataConfig(**{"games": 5, "chunk": 2, "teacher": MCTS.spec, "rollouts": 2, "seed": 3, **kw})
    return generate(cfg, connect_four_setup, MCTS, out, game_id=C4)


def test_an_interrupted_job_resumed_on_two_workers_gives_the_uninterrupted_data(tmp_path: Path) -> None:
    whole = _job(tmp_path / "whole")
    cfg = TeacherDataConfig(games=5, chunk=2, teacher=MCTS.spec, rollouts=2, seed=3)
    assert generate(cfg, connect_four_setup, MCTS, tmp_path / "split", game_id=C4, stop_after=1) is None
    assert sorted(p.name for p in (tmp_path / "split" / "parts").glob("*.parquet")) == [
        "games-00000000-00000002.parquet", "positions-00000000-00000002.parquet"]
    two = TeacherDataConfig(games=5, chunk=2, teacher=MCTS.spec, rollouts=2, seed=3, workers=2)
    split = generate(two, connect_four_setup, MCTS, tmp_path / "split", game_id=C4)
    assert whole is not None and split is not None
    for name in ("positions", "games"):
        a, b = (pq.read_table(tmp_path / run / f"{name}.parquet") for run in ("whole", "split"))
        keep = [c for c in a.column_names if c != "cpu_s"]
        assert a.select(keep).equals(b.select(keep)), name
    assert not (tmp_path / "split" / "parts").exists()
    assert whole["positions"] == split["positions"]
    assert whole["cost"]["simulations"] == split["cost"]["simulations"]
    summary = json.loads((tmp_path / "whole" / "summary.json").read_text())
    assert summary["teacher"] == "mcts:simulations=30" and summary["game"] == C4 and summary["rollouts"] == 2
    assert summary["cost"]["games_timed"] == 5 and summary["cost"]["cpu_s"] > 0
    games = pq.read_table(tmp_path / "whole" / "games.parquet").to_pylist()
    assert [g["seed"] for g in games] == [derive_seed(3, GAME, i) for i in range(5)]
    assert sum(g["positions"] for g in games) == summary["positions"]


def test_jobs_are_refused_before_they_mix(tmp_path: Path) -> None:
    cfg = TeacherDataConfig(games=4, chunk=2, teacher=MCTS.spec)
    assert generate(cfg, connect_four_setup, MCTS, tmp_path / "a", game_id=C4, stop_after=1) is None
    other = TeacherDataConfig(games=4, chunk=2, teacher=MCTS.spec, seed=9)
    with pytest.raises(ConfigError, match="holds the chunks of another job"):
        generate(other, connect_four_setup, MCTS, tmp_path / "a", game_id=C4)
    generate(cfg, connect_four_setup, MCTS, tmp_path / "a", game_id=C4)
    with pytest.raises(ConfigError, match="already holds finished teacher data"):
        generate(cfg, connect_four_setup, MCTS, tmp_path / "a", game_id=C4)
    with pytest.raises(ConfigError, match="keeps no search result"):
        generate(cfg, connect_four_setup, RegistryTeacher(agent_registry, "random"), tmp_path / "b",
                 game_id=C4)
    with pytest.raises(ConfigError, match="not a finished teacher-data folder"):
        read_teacher_data(tmp_path / "b")
    with pytest.raises(ConfigError, match="games=0"):
        TeacherDataConfig(games=0)


def test_the_split_holds_whole_games_out(tmp_path: Path) -> None:
    data = _data(tmp_path)
    learn, held = split_by_game(data, 0.4, seed=1)
    assert held is not None and len(learn) + len(held) == len(data.samples)
    picked = _held_games(data, held)
    assert len(picked) == 2 and picked < set(data.games.tolist())  # round(0.4 x 5) of the games
    assert len(held) == int(np.isin(data.games, list(picked)).sum())  # each with all its samples
    assert not _held_games(data, learn) & picked
    assert split_by_game(data, 0.0, seed=1) == (data.samples, None)
    assert split_by_game(data, 0.01, seed=1)[1] is not None  # at least one game
    assert len(_held_games(data, split_by_game(data, 0.9, seed=1)[1])) == 4  # never all


def _held_games(data: TeacherData, held: Any) -> set[int]:
    """The games whose samples are ``held``'s, found by matching inputs and policy (no index given)."""
    found = set()
    for j in range(len(held)):
        for i in np.flatnonzero((data.samples.planes == held.planes[j]).all(axis=(1, 2, 3))):
            if np.array_equal(data.samples.values[i], held.values[j]) and np.array_equal(
                    data.samples.root_values[i], held.root_values[j]):
                found.add(int(data.games[i]))
    return found


def _data(tmp_path: Path) -> TeacherData:
    out = tmp_path / "teacher"
    if not (out / "summary.json").exists():
        _job(out)
    return read_teacher_data(out)


TINY = TrainConfig(seed=2, iterations=1, games_per_iteration=2, search=SearchSettings(simulations=6, batch=2),
                   channels=4, blocks=1, hidden=16, steps_per_iteration=2, batch_size=16, window=1,
                   init_epochs=2, init_held_out=0.4, value_target="mix:0.5")


def _weights(run: Path) -> dict[str, torch.Tensor]:
    return dict(load_payload(run / "checkpoint.pt", "checkpoint")["net"])


class _Killed(Exception):
    pass


def test_a_pretraining_resumed_after_a_pass_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    data = tmp_path / "teacher"
    _job(data)
    config = TrainConfig.from_dict({**TINY.to_dict(), "init_data": str(data)})
    whole = train(config, connect_four_setup, tmp_path / "whole", game_id=C4)

    def kill(row: dict[str, Any]) -> None:
        raise _Killed  # after the first pass's checkpoint, before the second

    with pytest.raises(_Killed):
        train(config, connect_four_setup, tmp_path / "split", game_id=C4, on_epoch=kill)
    saved = load_payload(tmp_path / "split" / "checkpoint.pt", "c")
    assert saved["iteration"] == -1 and [r["epoch"] for r in saved["pretrain"]] == [0]
    passes: list[int] = []
    split = train(config, connect_four_setup, tmp_path / "split", resume=True, game_id=C4,
                  on_epoch=lambda row: passes.append(row["epoch"]))
    assert passes == [1]
    a, b = _weights(tmp_path / "whole"), _weights(tmp_path / "split")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert [m["value_loss"] for m in whole] == [m["value_loss"] for m in split]
    lines = [json.loads(x) for x in (tmp_path / "split" / "metrics.jsonl").read_text().splitlines()]
    assert [x.get("epoch", x.get("iteration")) for x in lines] == [0, 1, 0]


def test_pretraining_scores_held_out_games_and_self_play_starts_from_it(tmp_path: Path) -> None:
    teacher = _data(tmp_path)
    config = TrainConfig.from_dict({**TINY.to_dict(), "init_data": str(tmp_path / "teacher")})
    metrics = train(config, connect_four_setup, tmp_path / "run", game_id=C4)
    payload = load_payload(tmp_path / "run" / "checkpoint.pt", "c")
    pretrained, meta = load_checkpoint(tmp_path / "run" / "snapshots" / "model-pretrained.pt")
    assert meta["iteration"] == -1 and meta["metrics"] == payload["pretrain"][-1]
    # the held-out figure: the pretrained net on the held-out games, against their outcomes
    _, held = split_by_game(teacher, config.init_held_out, derive_seed(config.seed, PRETRAIN))
    assert held is not None and len(held) + payload["pretrain"][0]["samples"] == len(teacher.samples)
    assert payload["pretrain"][-1]["value_loss_held"] == pytest.approx(held_out_losses(pretrained, held)[0])
    # iteration 0's new games were scored by the pretrained net: self-play started from it
    fresh = held_out_losses(pretrained, load_replay([tmp_path / "run" / "samples" / "iter-0000.npz"]))
    assert (metrics[0]["value_loss_new"], metrics[0]["policy_loss_new"]) == pytest.approx(fresh)
    summary = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert summary["pretrain"] == payload["pretrain"][-1]


def test_teacher_data_the_run_cannot_use_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    _data(tmp_path)
    config = TrainConfig.from_dict({**TINY.to_dict(), "init_data": str(tmp_path / "teacher")})
    with pytest.raises(ConfigError, match="teacher data of"):
        train(config, connect_four_setup, tmp_path / "r1", game_id={"game": "gomoku"})
    rollouts = TrainConfig.from_dict({**config.to_dict(), "value_target": "rollouts",
                                      "search": {**TINY.search.__dict__, "rollouts": 2}})
    cfg = TeacherDataConfig(games=2, teacher=MCTS.spec)
    generate(cfg, connect_four_setup, MCTS, tmp_path / "bare", game_id=C4)
    bare = TrainConfig.from_dict({**rollouts.to_dict(), "init_data": str(tmp_path / "bare")})
    with pytest.raises(ConfigError, match="has no rollouts"):
        train(bare, connect_four_setup, tmp_path / "r2", game_id=C4)
    missing = TrainConfig.from_dict({**config.to_dict(), "init_data": str(tmp_path / "nope")})
    with pytest.raises(ConfigError, match="not a finished teacher-data folder"):
        train(missing, connect_four_setup, tmp_path / "r3", game_id=C4)
    assert not any((tmp_path / r).exists() for r in ("r1", "r2", "r3"))


def test_end_to_end_teacher_data_pretraining_and_self_play_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paiju.cli.main import run

    data, out = tmp_path / "teacher", tmp_path / "run"
    assert run(["az", "teacher-data", "-g", "connect_four", "--teacher", "mcts:simulations=20",
                "--games", "4", "--out", str(data), "--rollouts", "2"]) == 0
    assert "positions of 4 games of mcts:simulations=20" in capsys.readouterr().out
    assert run(["az", "train", "-g", "connect_four", "--out", str(out), "--init-data", str(data),
                "--init-epochs", "1", "--iterations", "1", "--games", "2", "--simulations", "6",
                "--channels", "4", "--blocks", "1", "--hidden", "16", "--steps", "2",
                "--value-target", "root"]) == 0
    printed = capsys.readouterr().out
    assert "teacher data, pass 1/1" in printed and "iteration 1/1" in printed
    _, meta = load_checkpoint(out / "model.pt")
    assert meta["iteration"] == 0 and "--init-data" in meta["command"]
    assert "--value-target root" in meta["command"] and (out / "snapshots" / "model-pretrained.pt").is_file()
    assert run(["az", "teacher-data", "-g", "tictactoe", "--out", str(tmp_path / "x")]) == 2
    assert "error: --game 'tictactoe': teacher data for connect_four, gomoku here" in capsys.readouterr().err
    code = run(["az", "teacher-data", "-g", "connect_four", "--out", str(tmp_path / "y"), "--games", "0"])
    assert code == 2
    assert "'--games'" in capsys.readouterr().err
