"""Expert iteration (paiju.mahjong.expert_iteration): a round's data is the previous round's
agent's own values, its network starts from the previous round's weights, round 2 builds on
round 1, an interrupted round run again gives the uninterrupted round's model, and what does
not fit is refused."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.mahjong import distill as D
from paiju.mahjong import expert_iteration as X
from paiju.mahjong import search_data as S
from paiju.mahjong import train_distill as T
from paiju.mahjong.agents import REGISTRY, ValueExpectimaxAgent
from paiju.mahjong.agents.value import HandValueEvaluator
from paiju.mahjong.game import MahjongGame
from paiju.mahjong.model_files import MODEL_DIR

BASE = "expectimax:depth=1,ron=flat"
WIDTHS = (8,)


def start_model(path: Path) -> Path:
    torch.manual_seed(0)
    net = D.DistillNet(WIDTHS, WIDTHS)
    for head in (net.value, net.order):  # a start that says something (a trained head's last layer is not 0)
        torch.nn.init.normal_(head[-1].weight, std=0.3)
    D.save_model(path, D.DistillModel(net.eval(), BASE))
    return path


def config(out: Path, init: Path, **kw: object) -> X.RoundConfig:
    fields: dict[str, object] = {"hands": 4, "others": "greedy", "depth": 1, "epochs": 2, "batch": 32,
                                 "chunk": 2, **kw}
    return X.RoundConfig(out=str(out), init=str(init), **fields)  # type: ignore[arg-type]


def weights(path: Path) -> dict[str, torch.Tensor]:
    return dict(torch.load(path, weights_only=True)["state_dict"])


@pytest.fixture(scope="module")
def rounds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict, dict]:
    tmp = tmp_path_factory.mktemp("exit")
    init = start_model(tmp / "start.pt")
    out = tmp / "run"
    first = X.run_round(config(out, init, round=1))
    second = X.run_round(config(out, init, round=2))
    return out, init, first, second


def test_a_rounds_data_is_the_previous_agents_own_values(rounds: tuple[Path, Path, dict, dict]) -> None:
    out, init, first, second = rounds
    assert X.model_file(out, 0).read_bytes() == init.read_bytes()
    assert first["teacher"] == f"expectimax-distill:depth=1,model={out / 'round-0' / 'model.pt'}"
    assert second["teacher"] == f"expectimax-distill:depth=1,model={out / 'round-1' / 'model.pt'}"
    data = out / "round-1" / "data"
    summary = S.read_summary(data)
    assert summary["teacher"] == first["teacher"] and summary["hands"] == 4
    assert summary["seed"] == X.round_seed(0, 1) != X.round_seed(0, 2)
    # the labels are the teacher's own values: the round-0 agent, run again on replayed decisions
    samples = T.data_samples(data)
    teacher = REGISTRY.make(first["teacher"], seed=0)
    assert isinstance(teacher, ValueExpectimaxAgent) and isinstance(teacher.leaf_evaluator, D.DistillLeaf)
    con = S.connect(data)
    compared = 0
    for row in np.linspace(0, samples.rows() - 1, 6).astype(int):
        wall, actions = con.execute("SELECT wall, actions FROM hands WHERE hand = ?",
                                    [int(samples.hand_index[row])]).fetchone()
        seat = con.execute("SELECT seat FROM decisions WHERE hand = ? AND move = ?",
                           [int(samples.hand_index[row]), int(samples.move[row])]).fetchone()[0]
        obs = next(st.observation(seat) for m, st in S.replay(wall, actions) if m == samples.move[row])
        teacher.act(obs, [k for k in range(34) if obs.hand[k]])
        for k, v in teacher.last_values.items():
            assert samples.charged[row, k] == pytest.approx(v, rel=1e-5, abs=1e-2)
            compared += 1
    assert compared > 10
    # the residual's base is the base search's analytic leaf, never the previous network
    base = D.teacher_agent(D.base_search(first["teacher"]))
    assert isinstance(base.leaf_evaluator, HandValueEvaluator)
    assert D.base_search(first["teacher"]) == BASE
    assert D.load_model(str(X.model_file(out, 1))).teacher == BASE  # a model names the base, never a file


Rounds = tuple[Path, Path, dict, dict]


def test_a_round_trains_from_the_previous_weights(rounds: Rounds, tmp_path: Path) -> None:
    out, init, first, second = rounds
    assert len(first["training"]["epochs"]) == 2 and first["cpu_hours"] > 0
    # each round's training started from the round before's model (whatever epoch it kept)
    for r, summary in ((1, first), (2, second)):
        config = json.loads((out / f"round-{r}" / "train" / "config.json").read_text())["config"]
        assert config["init"] == str(X.model_file(out, r - 1))
        assert f"--init {X.model_file(out, r - 1)}" in summary["training"]["command"]
    changed = weights(X.model_file(out, 1))
    if first["training"]["best_epoch"] == -1:  # the start kept: the round's model is round 0's weights
        assert all(torch.equal(changed[k], weights(init)[k]) for k in changed)
    # an independent check of the start: with a vanishing step the trained weights stay the init's
    still = T.train(T.DistillConfig(data=str(out / "round-1" / "data"), out=str(tmp_path / "t"),
                                    value_hidden=WIDTHS, order_hidden=WIDTHS, init=str(init), lr=1e-9,
                                    epochs=1))
    after = weights(tmp_path / "t" / "model.pt")
    assert still["best_epoch"] in (-1, 0)
    assert all(torch.allclose(after[k], weights(init)[k], atol=1e-5) for k in after)
    fresh = T.train(T.DistillConfig(data=str(out / "round-1" / "data"), out=str(tmp_path / "f"),
                                    value_hidden=WIDTHS, order_hidden=WIDTHS, lr=1e-9, epochs=1))
    assert fresh["epochs"][0]["validation_loss"] != still["epochs"][0]["validation_loss"]
    with pytest.raises(ConfigError, match=r"init .* value widths"):
        T.train(T.DistillConfig(data=str(out / "round-1" / "data"), out=str(tmp_path / "w"), init=str(init)))


def test_an_interrupted_round_gives_the_uninterrupted_rounds_model(
        rounds: tuple[Path, Path, dict, dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out, init, first, _ = rounds
    other = tmp_path / "run"
    calls = {"n": 0}
    real = T.train

    def interrupted(cfg: T.DistillConfig) -> dict:
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt  # the session ended between the data and the training
        return real(cfg)

    monkeypatch.setattr(T, "train", interrupted)
    with pytest.raises(KeyboardInterrupt):
        X.run_round(config(other, init, round=1))
    assert (other / "round-1" / "data" / "summary.json").is_file() and not X.model_file(other, 1).exists()
    again = X.run_round(config(other, init, round=1))
    a, b = weights(X.model_file(out, 1)), weights(X.model_file(other, 1))
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert again["training"]["test"] == first["training"]["test"]
    assert again["data"]["rows"] == first["data"]["rows"]


def test_what_does_not_fit_is_refused(rounds: tuple[Path, Path, dict, dict], tmp_path: Path) -> None:
    out, init, first, _ = rounds
    assert X.run_round(config(out, init, round=1)) == first  # a finished round only reports
    with pytest.raises(ConfigError, match="another configuration"):
        X.run_round(config(out, init, round=1, hands=8))
    with pytest.raises(ConfigError, match="run round 3 first"):
        X.run_round(config(out, init, round=4))
    torch.manual_seed(5)
    other = tmp_path / "other.pt"
    D.save_model(other, D.DistillModel(D.DistillNet(WIDTHS, WIDTHS), BASE))
    with pytest.raises(ConfigError, match="started from another model"):
        X.start_model(config(out, other, round=1))
    with pytest.raises(ConfigError, match="others"):
        X.run_round(config(tmp_path / "p", init, others=" ; "))
    with pytest.raises(ConfigError, match="unknown mahjong agent"):
        X.run_round(config(tmp_path / "p", init, others="greedy;nobody"))


def test_the_command_runs_a_round_and_names_bad_options(rounds: tuple[Path, Path, dict, dict]) -> None:
    out, init, first, _ = rounds
    runner = CliRunner()
    res = runner.invoke(app, ["mahjong", "expert-iteration", "--out", str(out), "--round", "1", "--init",
                              str(init), "--hands", "4", "--others", "greedy", "--depth", "1", "--epochs",
                              "2", "--batch", "32", "--chunk", "2"])
    assert res.exit_code == 0, res.output
    assert f"round 1: 4 hands, {first['data']['rows']} labelled decisions" in res.output
    # the recorded command is this round's: run again, it only reports (another config is refused)
    again = runner.invoke(app, shlex.split(first["command"])[1:])
    assert again.exit_code == 0 and f"round 1: 4 hands, {first['data']['rows']}" in again.output, again.output
    res = runner.invoke(app, ["mahjong", "expert-iteration", "--out", str(out), "--depth", "4"])
    assert res.exit_code == 2 and "--depth" in res.output


def test_a_finished_round_ships_with_its_command_and_plays_by_name(rounds: Rounds, tmp_path: Path) -> None:
    out, _, first, _ = rounds
    model = X.ship_round(out, 1, tmp_path)
    assert model.name == "mj-distill-exit-1.pt" and model.read_bytes() == X.model_file(out, 1).read_bytes()
    config = json.loads(model.with_suffix(".config.json").read_text())
    assert config["command"] == first["command"] and config["teacher"] == first["teacher"]
    assert json.loads(model.with_suffix(".metrics.json").read_text()) == first
    spec = f"expectimax-distill:model={model},depth=1"
    agents = [REGISTRY.make(spec if s % 2 == 0 else "greedy", seed=s) for s in range(4)]
    assert play_game(MahjongGame(), agents, 2).state.is_terminal()
    with pytest.raises(ConfigError, match="not finished"):
        X.ship_round(out, 3, tmp_path)


SHIPPED = sorted(MODEL_DIR.glob("mj-distill-exit-*.pt"))


@pytest.mark.parametrize("model", SHIPPED, ids=[m.stem for m in SHIPPED])
def test_a_shipped_round_model_is_small_carries_its_round_command_and_plays_by_name(model: Path) -> None:
    assert model.stat().st_size < 5_000_000
    config = json.loads(model.with_suffix(".config.json").read_text())
    metrics = json.loads(model.with_suffix(".metrics.json").read_text())
    cfg = X.RoundConfig(**config["config"])
    assert config["command"] == X.command_line(cfg) and model.stem == f"mj-distill-exit-{cfg.round}"
    assert metrics["round"] == cfg.round
    assert metrics["teacher"] == X.agent_spec(cfg.out, cfg.round - 1, cfg.depth)
    assert metrics["cpu_hours"] < 4  # the budget a round, its data included
    # a shipped name loads, and every round searches with round 0's value search (the shipped model's)
    assert D.load_model(model.stem.removeprefix("mj-")).teacher == D.load_model("").teacher
    spec = f"expectimax-distill:model={model.stem.removeprefix('mj-')},depth=1"
    agents = [REGISTRY.make(spec if s % 2 == 0 else "greedy", seed=s) for s in range(4)]
    assert play_game(MahjongGame(), agents, 1).state.is_terminal()
