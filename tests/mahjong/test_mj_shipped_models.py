"""The shipped mahjong models (Q-networks and supervised discard models): small, made by a
recorded command, and playable."""

from __future__ import annotations

import pytest

from paiju.algorithms.dqn import load_model
from paiju.core.protocol import play_game
from paiju.mahjong import features as F
from paiju.mahjong.agents import AGENT_NAMES, REGISTRY
from paiju.mahjong.agents.dqn import MODEL_DIR
from paiju.mahjong.game import MahjongGame
from paiju.mahjong.tables import SUPERVISED, TABLE4, model_path, table4_rows
from paiju.mahjong.train_dqn import TrainConfig, command_line
from paiju.mahjong.train_supervised import SupervisedConfig
from paiju.mahjong.train_supervised import command_line as command_line_supervised


@pytest.mark.parametrize("algorithm", ["dqn", "ddqn"])
def test_a_shipped_model_carries_the_command_config_and_metrics_that_made_it(algorithm: str) -> None:
    path = MODEL_DIR / f"mj-{algorithm}.pt"
    assert path.stat().st_size < 5_000_000
    _, meta = load_model(path)
    assert meta["features"] == F.SHAPE_VERSION and meta["algorithm"] == algorithm
    config = {**meta["config"], "hidden": tuple(meta["config"]["hidden"])}
    if meta.get("agent_names", 1) < AGENT_NAMES and config["behaviour"] == "expectimax":
        # trained before the names were settled: that expectimax is today's expectimax-shanten
        # (the same agent move for move: tests/mahjong/test_mj_expectimax.py), the default
        config["behaviour"] = "expectimax-shanten"
    cfg = TrainConfig(**config)
    assert meta["command"] == command_line(cfg)  # the recorded command rebuilds this configuration
    assert meta["steps"] == cfg.total_steps
    assert [m["step"] for m in meta["metrics"] if m["kind"] == "eval"]  # measured while it trained


@pytest.mark.parametrize("spec", ["ddqn", "dqn", "expectimax-ddqn:depth=1", "expectimax-dqn:depth=1"])
def test_the_shipped_models_play_by_name(spec: str) -> None:
    agents = [REGISTRY.make(spec if s % 2 == 0 else "greedy", seed=s) for s in range(4)]
    played = play_game(MahjongGame(), agents, 3)
    assert played.state.is_terminal() and sum(played.state.returns()) == 0


@pytest.mark.parametrize("model", SUPERVISED)
def test_a_shipped_supervised_model_carries_its_command_and_beats_chance_held_out(model: str) -> None:
    path = model_path(MODEL_DIR, model)
    assert path.stat().st_size < 5_000_000
    _, meta = load_model(path)
    assert meta["features"] == F.FEATURES_VERSION and meta["model"] == model
    cfg = SupervisedConfig(**{**meta["config"], "hidden": tuple(meta["config"]["hidden"])})
    assert meta["command"] == command_line_supervised(cfg)
    # the data named the expert before the names were settled: today expectimax-v1 (= expectimax-shanten)
    assert meta["data"]["agent"] == "expectimax" and meta["data"]["test_rows"] > 1000
    # a uniformly random legal discard agrees ~10% of the time; every model is far above it
    assert meta["test_accuracy"] > 4 * meta["test_chance_accuracy"]
    by_spec = {}
    specs = [f"supervised:model={path}", f"supervised:model={model}"]  # a file, or its shipped name
    if model == "resnet":
        specs.append("supervised")  # the default model
    for spec in specs:
        agents = [REGISTRY.make(spec, seed=s) if s % 2 else REGISTRY.make("greedy", seed=s) for s in range(4)]
        played = play_game(MahjongGame(), agents, 5)
        assert played.state.is_terminal() and sum(played.state.returns()) == 0
        by_spec[spec] = (played.moves, played.state.returns())
    assert len(set(map(repr, by_spec.values()))) == 1  # the name plays exactly the file


def test_table4_finds_every_model_it_needs_among_the_shipped_ones() -> None:
    rows = table4_rows(MODEL_DIR)  # raises naming any missing file
    assert [r.label for r in rows] == list(TABLE4)
