"""The supervised discard baselines: the data file, the models, resume and the CLI (issue 18, item 6)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch

from paiju.cli.main import run
from paiju.core.errors import ConfigError
from paiju.core.protocol import CHANCE, play_game
from paiju.core.rng import derive_seed
from paiju.mahjong import discard_data as D
from paiju.mahjong import features as F
from paiju.mahjong.agents import REGISTRY
from paiju.mahjong.game import NUM_PLAYERS, MahjongGame, MahjongState, Phase
from paiju.mahjong.tiles import NUM_KINDS
from paiju.mahjong.train_supervised import (
    MODELS,
    SupervisedConfig,
    build,
    loss_fn,
    predict,
    split_by_hand,
    train,
)

EXPERT = "expectimax-shanten:depth=1"  # the strong search's cheap depth: a hand in ~0.05 s


@pytest.fixture(autouse=True)
def one_thread() -> Any:
    """Convolutions on this 2-core machine are 100x slower with torch's default thread count."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("discards") / "d.parquet"
    D.generate(D.DataConfig(out=str(out), agent=EXPERT, hands=8, seed=3, chunk=3))
    return out


def _replayed_decisions(seed: int, index: int) -> list[tuple[np.ndarray, np.ndarray, int, float]]:
    """Hand ``index`` of a job replayed here from the documented seeds, with its own hooks: each
    own-turn discard's features (from the state's observation), legal discards, the move and the
    acting seat's points at the end of the hand."""
    hand_seed = derive_seed(derive_seed(seed, D.HAND, index), D.WALL)
    spec = REGISTRY.resolve(EXPERT)
    agents = [
        REGISTRY.make(spec, seed=derive_seed(derive_seed(seed, D.HAND, index), D.SEAT, s))
        for s in range(NUM_PLAYERS)
    ]
    before: list[tuple[Any, list[int]] | None] = []

    def look(state: Any, player: int) -> None:
        st: MahjongState = state
        before.append((st.observation(player), list(st.legal_actions())) if player != CHANCE else None)

    played = play_game(MahjongGame(), agents, hand_seed, before_move=look)
    points = played.state.returns()
    out = []
    for seen, action, player in zip(before, played.actions, played.players, strict=True):
        if seen is None:
            continue
        obs, legal = seen
        if obs.phase == Phase.TURN and action < NUM_KINDS:
            mask = np.zeros(NUM_KINDS, dtype=np.bool_)
            mask[[a for a in legal if a < NUM_KINDS]] = True
            out.append((F.encode_flat(obs), mask, int(action), float(points[player])))
    return out


def test_rows_equal_a_replayed_hand(data_file: Path) -> None:
    data = D.load_data(data_file)
    assert sorted(set(data.hand.tolist())) == list(range(8))
    for index in (0, 5):
        rows = np.flatnonzero(data.hand == index)
        replayed = _replayed_decisions(3, index)
        assert len(rows) == len(replayed) > 0
        for r, (flat, mask, action, points) in zip(rows, replayed, strict=True):
            np.testing.assert_array_equal(data.features[r], flat)
            np.testing.assert_array_equal(data.legal[r], mask)
            assert data.discard[r] == action and data.score[r] == points
        # the planes are rebuilt exactly from the stored flat features
        assert np.array_equal(
            F.planes_from_flat(data.features[rows[:2]])[1], F.planes_from_flat(replayed[1][0][None])[0]
        )
    assert data.legal[np.arange(len(data)), data.discard].all()
    # points: one per seat and hand, and a hand's four seats pay each other (their sum is 0)
    seat = pq.read_table(data_file, columns=["seat"]).column("seat").to_numpy()
    decided = 0
    for index in range(8):
        per_seat = {int(s_): set(data.score[(data.hand == index) & (seat == s_)].tolist())
                    for s_ in range(NUM_PLAYERS)}
        assert all(len(v) == 1 for v in per_seat.values())
        assert sum(v.pop() for v in per_seat.values()) == 0
        decided += bool(np.any(data.score[data.hand == index]))
    assert decided  # some hand was won, so the column is not all zeros
    assert data.meta["cost"]["hands_timed"] == 8 and data.meta["cost"]["cpu_s_per_hand"] > 0


def test_an_interrupted_job_resumes_without_replaying_finished_chunks(
    data_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "d.parquet"
    cfg = D.DataConfig(out=str(out), agent=EXPERT, hands=8, seed=3, chunk=3)
    played: list[int] = []
    real = D.play_hand

    def failing(task: D.HandTask) -> D.HandRows:
        if task.index == 7:
            raise KeyboardInterrupt
        played.append(task.index)
        return real(task)

    monkeypatch.setattr(D, "play_hand", failing)
    with pytest.raises(KeyboardInterrupt):
        D.generate(cfg)
    assert not out.exists() and len(list(D.parts_dir(out).glob("*.parquet"))) == 2
    monkeypatch.setattr(D, "play_hand", lambda task: (played.append(task.index), real(task))[1])
    D.generate(cfg)
    assert played == [0, 1, 2, 3, 4, 5, 6, 6, 7]  # only the unfinished chunk again
    a, b = D.load_data(out), D.load_data(data_file)
    for name in ("hand", "features", "legal", "discard", "score"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    with pytest.raises(ConfigError, match="already exists"):
        D.generate(cfg)


def test_a_job_of_another_agent_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "d.parquet"
    D.parts_dir(out).mkdir()
    (D.parts_dir(out) / "job.json").write_text(json.dumps({"identity": {"agent": "greedy"}}))
    with pytest.raises(ConfigError, match="chunks of another job"):
        D.generate(D.DataConfig(out=str(out), agent=EXPERT, hands=2))


def test_split_is_by_hand(data_file: Path) -> None:
    data = D.load_data(data_file)
    s = split_by_hand(data.hand, SupervisedConfig(data="", out="", validation=0.25, test=0.25))
    parts = [set(data.hand[r].tolist()) for r in (s.train, s.validation, s.test)]
    assert parts[0].isdisjoint(parts[1]) and parts[0].isdisjoint(parts[2]) and parts[1].isdisjoint(parts[2])
    assert sum(len(r) for r in (s.train, s.validation, s.test)) == len(data)
    assert [len(p) for p in parts] == [4, 2, 2]


@pytest.mark.parametrize("model", MODELS)
def test_illegal_discards_are_never_predicted(data_file: Path, model: str) -> None:
    data = D.load_data(data_file)
    cfg = SupervisedConfig(data="", out="", model=model, channels=4, blocks=1, hidden=(16,))
    net, _ = build(cfg)
    rows = np.arange(len(data))
    # every kind the first rows cannot discard gets a huge score: the mask must still win
    with torch.no_grad():
        net.head.bias.copy_(torch.from_numpy(np.where(data.legal[0], 0.0, 1e6).astype(np.float32)))
    pred, _ = predict(cfg, net, data, rows)
    assert data.legal[rows, pred].all()


@pytest.mark.parametrize("model", MODELS)
def test_each_model_learns_a_small_batch(data_file: Path, model: str) -> None:
    data = D.load_data(data_file)
    cfg = SupervisedConfig(
        data="", out="", model=model, channels=4, blocks=1, growth=4, hidden=(64,), lr=1e-2
    )
    net, optimizer = build(cfg)
    r = np.arange(16)
    x = torch.from_numpy(
        data.features[r] if model in ("linear", "svm", "mlp") else F.planes_from_flat(data.features[r])
    )
    legal, target = torch.from_numpy(data.legal[r]), torch.from_numpy(data.discard[r])
    losses = []
    for _ in range(12):
        loss = loss_fn(cfg, net(x), legal, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    assert losses[-1] < 0.7 * losses[0], losses


def _state(out: Path, model: str) -> dict[str, torch.Tensor]:
    from paiju.algorithms.dqn import load_model

    net, _ = load_model(out / "model.pt")
    return net.state_dict()


@pytest.mark.parametrize("model", ["mlp", "densenet"])
def test_resumed_training_equals_an_uninterrupted_one(data_file: Path, tmp_path: Path, model: str) -> None:
    base = SupervisedConfig(
        data=str(data_file),
        out=str(tmp_path / "a"),
        model=model,
        epochs=3,
        batch_size=32,
        channels=4,
        blocks=2,
        growth=4,
        hidden=(32,),
        curve=False,
        validation=0.25,
        test=0.25,
    )
    whole = train(base)
    part = replace(base, out=str(tmp_path / "b"), epochs=1)
    train(part)
    with pytest.raises(ConfigError, match="pass --resume"):
        train(part)
    resumed = train(replace(part, epochs=3), resume=True)
    a, b = _state(tmp_path / "a", model), _state(tmp_path / "b", model)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)

    def untimed(summary: dict[str, Any]) -> list[dict[str, Any]]:
        return [{k: v for k, v in m.items() if k != "seconds"} for m in summary["metrics"]]

    assert untimed(whole) == untimed(resumed) and whole["test_accuracy"] == resumed["test_accuracy"]
    lines = (tmp_path / "b" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["epoch"] for line in lines] == [1, 2, 3]
    with pytest.raises(ConfigError, match=r"another configuration \(lr: 0\.001 there, 0\.5 now\)"):
        train(replace(part, epochs=4, lr=0.5), resume=True)


def test_cli_end_to_end_writes_a_model_an_agent_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, out = tmp_path / "d.parquet", tmp_path / "run"
    assert (
        run(
            [
                "mahjong",
                "discard-data",
                "--agent",
                EXPERT,
                "--hands",
                "4",
                "--seed",
                "1",
                "--out",
                str(data),
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["hands"] == 4 and summary["rows"] == len(D.load_data(data))
    assert (
        run(
            [
                "mahjong",
                "train-supervised",
                "--data",
                str(data),
                "--model",
                "cnn",
                "--out",
                str(out),
                "--epochs",
                "2",
                "--channels",
                "4",
                "--blocks",
                "1",
                "--validation",
                "0.25",
                "--test",
                "0.25",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "test accuracy" in printed and (out / "curve.png").is_file()
    result = json.loads((out / "metrics.json").read_text())
    assert 0.0 <= result["test_accuracy"] <= 1.0 and len(result["metrics"]) == 2
    model = out / "model.pt"
    assert result["model_file"] == str(model) and result["model"] == "cnn"
    for spec in (f"supervised:model={model}", f"dqn:model={model}"):
        agents = [REGISTRY.make(REGISTRY.resolve(spec), seed=0)] + [
            REGISTRY.make(REGISTRY.resolve("greedy"), seed=s) for s in (1, 2, 3)
        ]
        played = play_game(MahjongGame(), agents, 11)  # an illegal move would raise
        assert played.state.is_terminal() and 0 in played.players
    with pytest.raises(ConfigError, match=r"model='vit' is neither a shipped model \(linear, svm"):
        REGISTRY.make(REGISTRY.resolve("supervised:model=vit"), seed=0)
    # a value model from the same data values the leaves of a combined search
    value_run = tmp_path / "value"
    assert run(["mahjong", "train-supervised", "--data", str(data), "--model", "mlp", "--hidden", "8",
                "--target", "score", "--features", "shape", "--out", str(value_run), "--epochs", "1",
                "--validation", "0.25", "--test", "0.25"]) == 0
    assert "value model: 1 epochs, validation correlation" in capsys.readouterr().out
    value = value_run / "model.pt"
    combined = f"expectimax-ddqn:model={model},value_model={value},depth=1,leaf=draw,deal_in=true"
    agents = [REGISTRY.make(REGISTRY.resolve(combined), seed=0)] + [
        REGISTRY.make(REGISTRY.resolve("greedy"), seed=s) for s in (1, 2, 3)
    ]
    played = play_game(MahjongGame(), agents, 12)
    assert played.state.is_terminal() and 0 in played.players


# ---- value models (--target score) -----------------------------------------------------------
def test_value_model_options_are_checked() -> None:
    for bad, match in (({"target": "win"}, "target='win'"), ({"features": "planes"}, "features='planes'"),
                       ({"features": "shape", "model": "cnn"}, "flat models"),
                       ({"target": "score", "model": "svm"}, "svm is a discard classifier"),
                       ({"target": "score", "score_scale": 0.0}, "score_scale")):
        with pytest.raises(ConfigError, match=match):
            train(SupervisedConfig(data="", out="", **bad))


def test_a_value_model_regresses_the_points_on_shape_features(data_file: Path) -> None:
    data = D.load_data(data_file)
    cfg = SupervisedConfig(data="", out="", model="mlp", hidden=(64,), lr=1e-2, target="score",
                           features="shape", score_scale=1000.0)
    net, optimizer = build(cfg)
    assert net.config.input_shape == (F.flat_size(F.SHAPE_VERSION),) and net.config.num_actions == 1
    r = np.flatnonzero(data.score != 0)[:16]
    x = torch.from_numpy(F.flat_in_version(data.features[r], F.SHAPE_VERSION))
    y = torch.from_numpy((data.score[r] / 1000.0).astype(np.float32))
    losses = []
    for _ in range(30):
        loss = loss_fn(cfg, net(x), torch.from_numpy(data.legal[r]), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    # independent: the mean squared error of the points in thousands, computed here
    with torch.no_grad():
        out = net(x)
        final = float(loss_fn(cfg, out, torch.from_numpy(data.legal[r]), y))
    assert final == pytest.approx(float(np.mean((out[:, 0].numpy() - data.score[r] / 1000.0) ** 2)), rel=1e-5)
    assert final < 0.5 * losses[0], losses


def test_flat_in_version_is_the_observations_own_vector() -> None:
    state = MahjongGame().new_hand(seed=4)
    obs = state.observation(state.current_player())
    base = F.encode_flat(obs)[None]
    np.testing.assert_array_equal(F.flat_in_version(base, F.SHAPE_VERSION)[0],
                                  F.encode_flat(obs, F.SHAPE_VERSION))
    np.testing.assert_array_equal(F.flat_in_version(base, F.FEATURES_VERSION), base)


def test_a_value_run_resumes_and_its_model_values_search_leaves(data_file: Path, tmp_path: Path) -> None:
    from paiju.algorithms.dqn import load_model
    from paiju.mahjong.agents.dqn import QLeafEvaluator, QModel

    base = SupervisedConfig(data=str(data_file), out=str(tmp_path / "a"), model="mlp", epochs=2,
                            batch_size=32, hidden=(16,), curve=False, validation=0.25, test=0.25,
                            target="score", features="shape", score_scale=500.0)
    whole = train(base)
    part = replace(base, out=str(tmp_path / "b"), epochs=1)
    train(part)
    resumed = train(replace(part, epochs=2), resume=True)
    losses = [[m["validation_loss"] for m in run["metrics"]] for run in (whole, resumed)]
    assert losses[0] == losses[1]
    assert set(whole["metrics"][0]) >= {"validation_correlation", "validation_mean_loss"}
    assert whole["test_mean_loss"] > 0 and whole["features"] == F.SHAPE_VERSION
    path = tmp_path / "a" / "model.pt"
    a, b = load_model(path)[0].state_dict(), load_model(tmp_path / "b" / "model.pt")[0].state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    # as a search's leaf value: the network's output times the run's score_scale
    model = QModel.load(path)
    assert model.state_value and model.score_scale == 500.0
    state = MahjongGame().new_hand(seed=9)
    obs = state.observation(state.current_player())
    from paiju.mahjong.agents import LeafState

    after = list(obs.hand)
    kind = next(k for k in range(NUM_KINDS) if after[k])
    after[kind] -= 1
    leaf = LeafState(tuple(after), (), tuple(obs.unseen_counts()), 20, (kind,), ())
    value = QLeafEvaluator(model, model.score_scale).evaluate(obs, [leaf])[0]
    from paiju.mahjong.agents.dqn import leaf_observation

    x = torch.from_numpy(F.encode_flat(leaf_observation(obs, leaf), F.SHAPE_VERSION)[None])
    assert value == pytest.approx(500.0 * float(model.net(x)[0, 0].detach()), rel=1e-5)
    with pytest.raises(ConfigError, match="is a value model"):
        REGISTRY.make(f"supervised:model={path}")
