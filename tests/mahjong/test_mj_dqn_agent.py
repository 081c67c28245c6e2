"""The Q-network agents (``dqn`` / ``ddqn``) and the Q leaf evaluator of the Expectimax."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from paiju.algorithms.dqn import QNetConfig, save_model, seeded_network
from paiju.core.errors import ConfigError
from paiju.mahjong import features as F
from paiju.mahjong.agents import REGISTRY, GreedyAgent, LeafState, ValueExpectimaxAgent
from paiju.mahjong.agents.dqn import DQNAgent, QLeafEvaluator, QModel, leaf_observation
from paiju.mahjong.game import NUM_ACTIONS, MahjongGame, Phase
from paiju.mahjong.tiles import NUM_KINDS


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    net = seeded_network(QNetConfig((F.FLAT_SIZE,), NUM_KINDS, kind="mlp", hidden=(16,)), 3)
    return save_model(tmp_path_factory.mktemp("q") / "mj-test.pt", net, {"features": F.FEATURES_VERSION})


def test_missing_models_are_clear_config_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import paiju.mahjong.agents.dqn as dqn_agents

    monkeypatch.setattr(dqn_agents, "MODEL_DIR", tmp_path / "none-shipped")
    with pytest.raises(ConfigError, match="no shipped model"):
        REGISTRY.make("ddqn")
    with pytest.raises(ConfigError, match="does not exist"):
        REGISTRY.make(f"dqn:model={tmp_path / 'nope.pt'}")
    wrong = save_model(tmp_path / "old.pt", seeded_network(QNetConfig((F.FLAT_SIZE,), 34, kind="mlp"), 0),
                       {"features": "mj-features-0"})
    with pytest.raises(ConfigError, match="features"):
        REGISTRY.make(f"dqn:model={wrong}")
    small = save_model(tmp_path / "small.pt", seeded_network(QNetConfig((10,), 34, kind="mlp"), 0),
                       {"features": F.FEATURES_VERSION})
    with pytest.raises(ConfigError, match="neither the planes"):
        REGISTRY.make(f"dqn:model={small}")


def test_agent_discards_by_q_and_follows_the_rule_otherwise(model_path: Path) -> None:
    agent = REGISTRY.make(f"ddqn:model={model_path}")
    assert isinstance(agent, DQNAgent)
    rule = GreedyAgent(defence=True)
    net = QModel.load(model_path).net
    game = MahjongGame()
    discards = 0
    for seed in (1, 2):
        state = game.new_hand(seed=seed)
        while not state.is_terminal():
            p = state.current_player()
            obs, legal = state.observation(p), state.legal_actions()
            action = agent.act(obs, legal) if p == 0 else rule.act(obs, legal)
            assert action in legal
            if p == 0:
                ruled = rule.act(obs, legal)
                if obs.phase == Phase.TURN and ruled < NUM_KINDS:
                    # independent: the held kinds' values straight from the network
                    q = net(torch.from_numpy(F.encode_flat(obs)[None]))[0].detach().numpy()
                    held = [k for k in legal if k < NUM_KINDS]
                    assert action == max(held, key=lambda k: (q[k], -k))
                    discards += 1
                else:
                    assert action == ruled
            state.apply(action)
    assert discards >= 10


def _leaves(seed: int) -> tuple[object, list[LeafState]]:
    state = MahjongGame().new_hand(seed=seed)
    obs = state.observation(state.current_player())
    hand = list(obs.hand)
    unseen = tuple(obs.unseen_counts())
    out = []
    for k in range(NUM_KINDS):
        if hand[k]:
            after = list(hand)
            after[k] -= 1
            out.append(LeafState(tuple(after), (), unseen, 20, (k,), ()))
    return obs, out


def test_leaf_evaluator_is_max_q_of_each_leaf_position(model_path: Path) -> None:
    model = QModel.load(model_path)
    obs, leaves = _leaves(4)
    evaluator = QLeafEvaluator(model)
    values = evaluator.evaluate(obs, leaves + leaves[:2])  # duplicates valued once, the same
    assert values.shape == (len(leaves) + 2,)
    np.testing.assert_array_equal(values[-2:], values[:2])
    for leaf, value in zip(leaves, values, strict=False):
        lo = leaf_observation(obs, leaf)
        assert lo.hand == leaf.hand and lo.discards[obs.player][-1] == (leaf.discards[-1], -1)
        q = model.net(torch.from_numpy(F.encode_flat(lo)[None]))[0].detach().numpy()
        assert value == pytest.approx(max(q[k] for k in range(NUM_KINDS) if leaf.hand[k]), rel=1e-6)
    assert evaluator.evaluate(obs, []).shape == (0,)


def test_a_selector_picks_the_discard_and_the_model_values_it(model_path: Path, tmp_path: Path) -> None:
    model = QModel.load(model_path)
    other = save_model(tmp_path / "sel.pt", seeded_network(QNetConfig((F.FLAT_SIZE,), NUM_KINDS, kind="mlp",
                                                                      hidden=(16,)), 11),
                       {"features": F.FEATURES_VERSION})
    selector = QModel.load(other)
    obs, leaves = _leaves(4)
    values = QLeafEvaluator(model, 2.0, selector=selector).evaluate(obs, leaves)
    plain = QLeafEvaluator(model).evaluate(obs, leaves)
    differ = 0
    for leaf, value, top in zip(leaves, values, plain, strict=True):
        x = torch.from_numpy(F.encode_flat(leaf_observation(obs, leaf))[None])
        q, qs = model.net(x)[0].detach().numpy(), selector.net(x)[0].detach().numpy()
        held = [k for k in range(NUM_KINDS) if leaf.hand[k]]
        pick = max(held, key=lambda k: (qs[k], -k))  # the selector's first, lowest kind on ties
        assert value == pytest.approx(2.0 * q[pick], rel=1e-6)
        assert value <= 2.0 * top + 1e-6  # never above the model's own max
        differ += value < 2.0 * top - 1e-6
    assert differ  # two random networks disagree somewhere, so the test can fail


def test_a_shape_feature_model_sees_its_features_on_every_path(tmp_path: Path) -> None:
    size = F.flat_size(F.SHAPE_VERSION)
    net = seeded_network(QNetConfig((size,), NUM_KINDS, kind="mlp", hidden=(16,)), 5)
    path = save_model(tmp_path / "mj-shape.pt", net, {"features": F.SHAPE_VERSION})
    model = QModel.load(path)
    obs, leaves = _leaves(7)
    # the agent's own turn: the network on the shape vector of the observation
    want = net(torch.from_numpy(F.encode_flat(obs, F.SHAPE_VERSION)[None]))[0].detach()
    torch.testing.assert_close(model.q_values([obs])[0], want)
    # a search leaf: the same as encoding the leaf's observation on its own
    values = QLeafEvaluator(model).evaluate(obs, leaves)
    for leaf, value in zip(leaves, values, strict=True):
        q = net(torch.from_numpy(F.encode_flat(leaf_observation(obs, leaf), F.SHAPE_VERSION)[None]))
        assert value == pytest.approx(max(q[0, k].item() for k in range(NUM_KINDS) if leaf.hand[k]), rel=1e-6)
    # a base-size network labelled with the shape set is refused, naming the expected input
    bad = save_model(tmp_path / "bad.pt", seeded_network(QNetConfig((F.FLAT_SIZE,), 34, kind="mlp"), 0),
                     {"features": F.SHAPE_VERSION})
    with pytest.raises(ConfigError, match=f"flat features \\({size},\\) of 'mj-features-2'"):
        REGISTRY.make(f"dqn:model={bad}")


def test_leaf_evaluator_plugs_into_the_value_expectimax(model_path: Path) -> None:
    agent = ValueExpectimaxAgent(0, depth=1, leaf_evaluator=QLeafEvaluator(QModel.load(model_path)))
    state = MahjongGame().new_hand(seed=6)
    p = state.current_player()
    action = agent.act(state.observation(p), state.legal_actions())
    assert 0 <= action < NUM_ACTIONS and action in state.legal_actions()


def test_registry_defaults_are_the_agent_class_defaults() -> None:
    # the registry stays free of torch, so it spells the defaults out: they must match the class
    from paiju.core.agents import keyword_defaults

    for name in ("dqn", "ddqn"):
        assert REGISTRY.describe()[name][0] == keyword_defaults(DQNAgent, "model", "threads", "defence")
