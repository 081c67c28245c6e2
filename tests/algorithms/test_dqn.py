"""DQN / Double DQN: targets on a hand-computed batch, masks, training, checkpoints, resume."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
import torch

from paiju.algorithms.dqn import (
    Batch,
    DQNConfig,
    DQNLearner,
    QNetConfig,
    QNetwork,
    ReplayBuffer,
    advantage_loss,
    dqn_targets,
    load_model,
    masked_argmax,
    masked_max,
    save_model,
    seeded_network,
)
from paiju.core.errors import ConfigError, CorruptRecordError

ALGORITHMS = Path(__file__).resolve().parents[2] / "src" / "paiju" / "algorithms"
GAMES = ("paiju.mahjong", "paiju.doudizhu", "paiju.yuxi", "paiju.games", "paiju.cli", "paiju.tournament")


def _linear(weight: list[list[float]]) -> QNetwork:
    """A linear Q-network ``Q(s) = W s`` with the given weights (no bias)."""
    w = torch.tensor(weight)
    net = QNetwork(QNetConfig(input_shape=(w.shape[1],), num_actions=w.shape[0], kind="mlp", hidden=()))
    with torch.no_grad():
        net.head.weight.copy_(w)
        net.head.bias.zero_()
    return net


def _hand_batch() -> Batch:
    # online Q(s') = [x, y, x + y]; target Q(s') = [2x, 3y, y - x]
    return Batch.from_arrays(
        obs=np.zeros((3, 2)),
        action=np.array([0, 1, 2]),
        reward=np.array([1.0, 0.0, -2.0]),
        next_obs=np.array([[1.0, 2.0], [3.0, 1.0], [5.0, 5.0]]),
        done=np.array([False, False, True]),
        next_mask=np.array([[True, True, True], [False, True, True], [False, False, False]]),
    )


ONLINE = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
TARGET = [[2.0, 0.0], [0.0, 3.0], [-1.0, 1.0]]


def test_double_dqn_target_on_a_hand_computed_batch() -> None:
    y = dqn_targets(_hand_batch(), _linear(ONLINE), _linear(TARGET), gamma=0.5, double=True)
    # row 0: s' = (1, 2): online [1, 2, 3] picks a2, target values it 2 - 1 = 1 -> 1 + 0.5 * 1
    # row 1: s' = (3, 1), a0 illegal: online legal [1, 4] picks a2, target 1 - 3 = -2 -> 0.5 * -2
    # row 2: terminal -> the reward only
    torch.testing.assert_close(y, torch.tensor([1.5, -1.0, -2.0]))


def test_dqn_target_on_a_hand_computed_batch() -> None:
    y = dqn_targets(_hand_batch(), _linear(ONLINE), _linear(TARGET), gamma=0.5, double=False)
    # row 0: target [2, 6, 1] -> max 6 -> 1 + 3; row 1: target [6, 3, -2], 6 illegal -> max 3
    torch.testing.assert_close(y, torch.tensor([4.0, 1.5, -2.0]))


def test_learner_loss_is_the_mse_to_the_targets() -> None:
    learner = DQNLearner(QNetConfig((2,), 3, kind="mlp", hidden=()), DQNConfig(gamma=0.5, seed=1))
    learner.online.load_state_dict(_linear(ONLINE).state_dict())
    learner.target.load_state_dict(_linear(TARGET).state_dict())
    batch = Batch.from_arrays(
        obs=np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 0.0]]), action=np.array([2, 0, 1]),
        reward=np.array([1.0, 0.0, -2.0]), next_obs=_hand_batch().next_obs.numpy(),
        done=np.array([False, False, True]), next_mask=_hand_batch().next_mask.numpy(),
    )
    # Q(s, a) = 2, 2, 0 against y = 1.5, -1, -2: errors 0.5, 3, 2
    assert learner.loss(batch).item() == pytest.approx((0.25 + 9.0 + 4.0) / 3)


def test_masks_never_select_an_illegal_action() -> None:
    rng = np.random.default_rng(0)
    q = torch.as_tensor(rng.normal(size=(500, 34)).astype(np.float32))
    mask_np = rng.random((500, 34)) < 0.2
    mask_np[np.arange(500), rng.integers(0, 34, 500)] = True  # at least one legal per row
    mask = torch.as_tensor(mask_np)
    picked = masked_argmax(q, mask).numpy()
    assert mask_np[np.arange(500), picked].all()
    best = [max(float(q[i, a]) for a in np.flatnonzero(mask_np[i])) for i in range(500)]  # brute force
    np.testing.assert_allclose(masked_max(q, mask).numpy(), best)
    np.testing.assert_allclose(q.numpy()[np.arange(500), picked], best)
    with pytest.raises(ValueError, match="no legal action"):
        masked_argmax(q[:1], torch.zeros((1, 34), dtype=torch.bool))


def test_greedy_action_ignores_a_huge_illegal_value() -> None:
    learner = DQNLearner(QNetConfig((2,), 3, kind="mlp", hidden=()), DQNConfig(seed=0))
    learner.online.load_state_dict(_linear([[100.0, 0.0], [0.0, 1.0], [0.0, -1.0]]).state_dict())
    actions = learner.greedy(np.array([[1.0, 1.0], [1.0, -1.0]]), np.array([[False, True, True]] * 2))
    assert actions.tolist() == [1, 2]


def _small_resnet() -> QNetConfig:
    return QNetConfig(input_shape=(3, 5, 5), num_actions=6, channels=8, blocks=2, head_channels=2)


def _random_batch(rng: np.random.Generator, n: int, shape: tuple[int, ...], actions: int) -> Batch:
    mask = rng.random((n, actions)) < 0.5
    mask[:, 0] = True
    return Batch.from_arrays(
        obs=rng.normal(size=(n, *shape)), action=rng.integers(0, actions, n), reward=rng.normal(size=n),
        next_obs=rng.normal(size=(n, *shape)), done=rng.random(n) < 0.2, next_mask=mask,
    )


@pytest.mark.parametrize("double", [True, False])
@pytest.mark.parametrize("kind", ["resnet", "mlp"])
def test_training_steps_reduce_the_loss_on_a_fixed_batch(kind: str, double: bool) -> None:
    net = _small_resnet() if kind == "resnet" else QNetConfig((12,), 6, kind="mlp", hidden=(32,))
    learner = DQNLearner(net, DQNConfig(double=double, lr=3e-3, target_sync_every=10_000, seed=2))
    batch = _random_batch(np.random.default_rng(1), 32, net.input_shape, 6)
    before = learner.loss(batch).item()
    for _ in range(60):
        learner.train_step(batch)
    assert learner.loss(batch).item() < 0.5 * before


def test_target_network_syncs_every_n_steps() -> None:
    learner = DQNLearner(_small_resnet(), DQNConfig(target_sync_every=3, seed=0))
    batch = _random_batch(np.random.default_rng(0), 8, (3, 5, 5), 6)
    x = batch.obs

    def same() -> bool:
        return torch.equal(learner.online(x), learner.target(x))

    assert same()
    learner.train_step(batch)
    learner.train_step(batch)
    assert not same()  # the target lags behind
    learner.train_step(batch)
    assert same()


def test_same_seed_same_initial_weights_and_global_rng_untouched() -> None:
    torch.manual_seed(123)
    expected = torch.rand(1)
    torch.manual_seed(123)
    a = seeded_network(_small_resnet(), 5)
    assert torch.equal(torch.rand(1), expected)
    b = seeded_network(_small_resnet(), 5)
    c = seeded_network(_small_resnet(), 6)
    x = torch.ones((1, 3, 5, 5))
    assert torch.equal(a(x), b(x)) and not torch.equal(a(x), c(x))


def test_replay_buffer_samples_by_seed_and_overwrites_the_oldest() -> None:
    def filled(seed: int) -> ReplayBuffer:
        buf = ReplayBuffer(5, (2,), 3, seed=seed)
        for i in range(7):
            buf.add(np.full(2, i), i % 3, float(i), np.full(2, i + 1), False, np.array([True, False, True]))
        return buf

    a, b, c = filled(1), filled(1), filled(2)
    assert len(a) == 5
    assert sorted(a.reward.tolist()) == [2.0, 3.0, 4.0, 5.0, 6.0]  # 0 and 1 overwritten
    sa, sb = a.sample(50), b.sample(50)
    assert torch.equal(sa.reward, sb.reward) and not torch.equal(sa.reward, c.sample(50).reward)
    torch.testing.assert_close(sa.obs[:, 0], sa.reward)  # each row stays one transition
    with pytest.raises(ValueError, match="legal action"):
        a.add(np.zeros(2), 0, 0.0, np.zeros(2), False, np.zeros(3, dtype=bool))
    with pytest.raises(ValueError, match="outside"):
        a.add(np.zeros(2), 3, 0.0, None, True, None)


# ---- the advantage loss ------------------------------------------------------------------------
def test_advantage_loss_on_a_hand_computed_batch() -> None:
    nan = float("nan")
    q = torch.tensor([[1.0, 2.0, 6.0], [0.0, 5.0, 1.0], [3.0, 3.0, 3.0]])
    values = torch.tensor([[0.0, 2.0, nan], [1.0, 1.0, 4.0], [7.0, nan, nan]])
    # row 0, actions 0 and 1: q centred (-0.5, 0.5), v centred (-1, 1): errors 0.5, -0.5 -> 0.25
    # row 1, all three: q centred (-2, 3, -1), v centred (-1, -1, 2): errors -1, 4, -3 -> 26/3
    # row 2: a single valued action teaches no rank and is left out
    expected = (0.25 + 26.0 / 3.0) / 2
    assert advantage_loss(q, values).item() == pytest.approx(expected)
    assert advantage_loss(q + 10.0, values).item() == pytest.approx(expected)  # the level is free
    assert advantage_loss(q, torch.full((3, 3), nan)).item() == 0.0


def test_advantage_weight_adds_the_loss_and_the_buffer_keeps_its_values() -> None:
    net = QNetConfig(input_shape=(2,), num_actions=3, kind="mlp", hidden=(4,))
    plain = DQNLearner(net, DQNConfig(batch_size=4, seed=1))
    weighted = DQNLearner(net, DQNConfig(batch_size=4, seed=1, advantage_weight=2.0))
    assert plain.buffer.action_values is None
    values = np.array([0.5, -1.0, np.nan])
    for learner in (plain, weighted):
        for i in range(4):
            learner.buffer.add(np.full(2, i), i % 3, 1.0, None, True, None,
                               values if learner is weighted else None)
    batch = weighted.buffer.sample(4)
    assert batch.action_values is not None
    torch.testing.assert_close(batch.action_values[:, :2], torch.tensor([[0.5, -1.0]] * 4))
    assert torch.isnan(batch.action_values[:, 2]).all()
    q = weighted.online(batch.obs)
    td = torch.mean((q.gather(1, batch.action[:, None]).squeeze(1) - weighted.targets(batch)) ** 2)
    expected = td + 2.0 * advantage_loss(q, batch.action_values)
    assert weighted.loss(batch).item() == pytest.approx(expected.item())
    with pytest.raises(ValueError, match="keeps no action values"):
        plain.buffer.add(np.zeros(2), 0, 0.0, None, True, None, values)
    with pytest.raises(ConfigError, match="advantage_weight"):
        DQNConfig(advantage_weight=-1.0)


def test_a_buffer_with_action_values_round_trips_and_refills() -> None:
    def filled() -> ReplayBuffer:
        buf = ReplayBuffer(4, (1,), 2, seed=3, action_values=True)
        for i in range(6):
            buf.add(np.full(1, i), 0, float(i), None, True, None, np.array([i, np.nan]))
        return buf

    a = filled()
    state = a.state_dict()
    b = ReplayBuffer(4, (1,), 2, seed=9, action_values=True)
    b.load_state_dict(state)
    assert a.action_values is not None and b.action_values is not None
    np.testing.assert_array_equal(a.action_values, b.action_values)
    assert sorted(a.action_values[:, 0].tolist()) == [2.0, 3.0, 4.0, 5.0]  # the ring kept the newest
    rows = (np.arange(2, 6)[:, None], np.zeros(4, int), np.arange(2.0, 6.0), np.zeros((4, 1)),
            np.ones(4, bool), np.zeros((4, 2), bool), np.stack([np.arange(2.0, 6.0), np.full(4, np.nan)], 1))
    c = ReplayBuffer(4, (1,), 2, seed=0, action_values=True)
    c.refill(6, rows, a.sampling_state())
    assert c.action_values is not None
    np.testing.assert_array_equal(c.action_values, a.action_values)
    with pytest.raises(ConfigError, match="action values"):
        ReplayBuffer(4, (1,), 2).load_state_dict(state)


def test_model_file_round_trip_gives_identical_outputs(tmp_path: Path) -> None:
    net = seeded_network(_small_resnet(), 9)
    path = save_model(tmp_path / "q.pt", net, meta={"command": "test", "steps": 3})
    loaded, meta = load_model(path)
    x = torch.as_tensor(np.random.default_rng(0).normal(size=(4, 3, 5, 5)).astype(np.float32))
    assert torch.equal(net(x), loaded(x))
    assert meta == {"command": "test", "steps": 3} and loaded.config == net.config
    with pytest.raises(ConfigError, match="does not exist"):
        load_model(tmp_path / "missing.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CorruptRecordError, match="not a readable checkpoint"):
        load_model(tmp_path / "junk.pt")


def _feed(learner: DQNLearner, step: int) -> None:
    """One new transition per step, a function of the step only (the actors' stand-in)."""
    rng = np.random.default_rng(10_000 + step)
    mask = rng.random(6) < 0.5
    mask[step % 6] = True
    learner.buffer.add(rng.normal(size=(3, 5, 5)), int(rng.integers(6)), float(rng.normal()),
                       rng.normal(size=(3, 5, 5)), bool(step % 4 == 3), mask)


def _run(learner: DQNLearner, start: int, stop: int) -> None:
    for step in range(start, stop):
        _feed(learner, step)
        learner.train_step()


def test_resumed_training_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    config = DQNConfig(batch_size=8, target_sync_every=2, buffer_capacity=20, seed=4)
    straight = DQNLearner(_small_resnet(), config)
    _run(straight, 0, 8)

    first = DQNLearner(_small_resnet(), config)
    _run(first, 0, 3)
    path = first.save(tmp_path / "train.pt")
    del first
    resumed = DQNLearner.resume(path)
    assert resumed.steps == 3 and len(resumed.buffer) == 3
    _run(resumed, 3, 8)

    for name in ("online", "target"):
        a, b = getattr(straight, name).state_dict(), getattr(resumed, name).state_dict()
        assert a.keys() == b.keys()
        for key in a:
            assert torch.equal(a[key], b[key]), f"{name}.{key} differs after resume"
    assert straight.buffer.rng.bit_generator.state == resumed.buffer.rng.bit_generator.state
    # and the run really moved: a resume that restored nothing would not match
    fresh = DQNLearner(_small_resnet(), config)
    assert not torch.equal(fresh.online.head.weight, straight.online.head.weight)


def test_resume_refuses_a_model_file_and_a_mismatched_network(tmp_path: Path) -> None:
    model = save_model(tmp_path / "m.pt", seeded_network(_small_resnet(), 0))
    with pytest.raises(CorruptRecordError, match="training checkpoint"):
        DQNLearner.resume(model)
    path = DQNLearner(_small_resnet(), DQNConfig(seed=0)).save(tmp_path / "t.pt")
    other = DQNLearner(QNetConfig((3, 5, 5), 6, channels=4, blocks=1), DQNConfig(seed=0))
    with pytest.raises(ConfigError, match="network config"):
        other.load_state_dict(torch.load(path, weights_only=True))


def test_paper_network_has_twenty_layers_and_the_default_is_small() -> None:
    paper = QNetConfig.paper((80, 19, 19), 34)
    assert paper.layers == 20
    assert sum(p.numel() for p in QNetwork(QNetConfig((80, 19, 19), 34)).parameters()) * 4 < 5e6
    with pytest.raises(ConfigError, match="kind"):
        QNetConfig((3,), 2, kind="transformer")
    with pytest.raises(ConfigError, match="input_shape"):
        QNetConfig((3,), 2)  # a resnet needs (C, H, W)
    with pytest.raises(ConfigError, match="gamma"):
        DQNConfig(gamma=1.5)


def test_algorithms_never_import_a_game() -> None:
    offenders = []
    for path in ALGORITHMS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.startswith(GAMES)]
    assert offenders == []
