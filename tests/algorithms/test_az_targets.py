"""Value targets (paiju.algorithms.alphazero.targets) built on a hand-made game."""

from __future__ import annotations

import numpy as np
import pytest

from paiju.algorithms.alphazero.selfplay import Decision, GameSamples, SampleArrays, samples_of
from paiju.algorithms.alphazero.targets import ValueTarget, value_targets
from paiju.algorithms.alphazero.train import TrainConfig
from paiju.core.errors import ConfigError

PLANES, VECTOR = np.zeros((1, 2, 2)), np.zeros(1)


def _game() -> GameSamples:
    """Three positions of a two-player game seat 1 won (returns [-1, +1]): seat 0 to move with
    root value 0.2 and rollouts (0.5, -0.5) for (seat 0, seat 1), seat 1 to move with root value
    0.6 and no rollouts, then seat 0 deciding without a search, with rollouts (-1, 1)."""
    decisions = [
        Decision(PLANES, VECTOR, 0, [(0, -1, 1.0)], 0.2, [0.5, -0.5]),
        Decision(PLANES, VECTOR, 1, [(1, -1, 1.0)], 0.6, None),
        Decision(PLANES, VECTOR, 0, [], None, [-1.0, 1.0]),
    ]
    return samples_of(decisions, [-1.0, 1.0], 2, moves=3, constant_sum=0.0)


def test_the_samples_hold_each_value_from_the_encoded_seat() -> None:
    g = _game()
    # index 0 is the seat to move: seat 0 lost, seat 1 won
    assert g.values.tolist() == [[-1, 1], [1, -1], [-1, 1]]
    assert np.allclose(g.root_values[:2], [[0.2, -0.2], [0.6, -0.6]]) and np.isnan(g.root_values[2]).all()
    assert g.rollout_values[0].tolist() == [0.5, -0.5] and np.isnan(g.rollout_values[1]).all()
    assert g.rollout_values[2].tolist() == [-1, 1]


def test_concatenated_samples_keep_each_sample_with_its_own_policy_entries() -> None:
    g = _game()
    tail = g.take(np.array([2, 0]))  # a value-only sample, then one with an entry
    joined = SampleArrays.concat([g, tail])
    assert type(joined) is SampleArrays and len(joined) == 5
    assert joined.offsets.dtype == np.int64 and joined.offsets.tolist() == [0, 1, 2, 2, 2, 3]
    assert joined.policy_first.tolist() == [0, 1, 0]
    for name in ("values", "root_values", "rollout_values", "planes"):
        assert np.array_equal(getattr(joined, name), np.concatenate([getattr(g, name), getattr(tail, name)]),
                              equal_nan=True)
    with pytest.raises(ValueError, match="no part"):
        SampleArrays.concat([])


@pytest.mark.parametrize(
    ("target", "mover"),
    [
        ("outcome", [-1.0, 1.0, -1.0]),
        ("root", [0.2, 0.6, -1.0]),  # no search at the third: its outcome
        ("rollouts", [0.5, 1.0, -1.0]),  # no rollouts at the second: its outcome
        ("mix:0.25", [0.25 * -1 + 0.75 * 0.2, 0.25 * 1 + 0.75 * 0.6, -1.0]),
        ("mix:1", [-1.0, 1.0, -1.0]),
        ("mix:0", [0.2, 0.6, -1.0]),
    ],
)
def test_each_target_is_built_as_documented(target: str, mover: list[float]) -> None:
    built = value_targets(_game(), ValueTarget.parse(target)).values
    assert built[:, 0].tolist() == pytest.approx(mover)
    assert built[:, 1].tolist() == pytest.approx([-v for v in mover])  # a zero-sum game's other seat
    assert str(ValueTarget.parse(target)) == {"mix:1": "outcome", "mix:0": "root"}.get(target, target)


def test_a_root_value_weight_is_the_mix_of_its_complement() -> None:
    g = _game()
    assert value_targets(g, 0.0) is g and value_targets(g, ValueTarget.parse("outcome")) is g
    assert np.allclose(value_targets(g, 0.75).values, value_targets(g, ValueTarget.parse("mix:0.25")).values)
    assert TrainConfig(root_value_weight=0.75).target == ValueTarget(0.25, 0.75)
    assert TrainConfig(value_target="mix:0.25").target == ValueTarget(0.25, 0.75)


def test_arrays_built_without_rollouts_have_none() -> None:
    g = _game()
    bare = SampleArrays(g.planes, g.vector, g.values, g.offsets, g.policy_first, g.policy_second,
                        g.policy_prob, g.root_values)
    assert bare.rollout_values.shape == g.values.shape and np.isnan(bare.rollout_values).all()
    assert np.array_equal(value_targets(bare, ValueTarget.parse("rollouts")).values, g.values)


def test_rollout_values_of_another_length_are_refused_naming_the_field() -> None:
    g = _game()
    for wrong in (np.zeros(0, dtype=np.float32), g.rollout_values[:2]):
        with pytest.raises(ValueError, match="rollout_values has"):
            SampleArrays(g.planes, g.vector, g.values, g.offsets, g.policy_first, g.policy_second,
                         g.policy_prob, g.root_values, wrong)


@pytest.mark.parametrize("text", ["", "win", "mix", "mix:", "mix:1.5", "mix:-0.1", "mix:x", "root:0.5"])
def test_other_names_are_refused_naming_the_choices(text: str) -> None:
    with pytest.raises(ConfigError, match="use outcome, root, rollouts or mix"):
        ValueTarget.parse(text)


def test_the_trainer_refuses_two_targets_and_rollouts_it_never_records() -> None:
    with pytest.raises(ConfigError, match="both set the value target"):
        TrainConfig(root_value_weight=0.5, value_target="root")
    with pytest.raises(ConfigError, match=r"rollouts needs self-play's rollouts \(--rollouts R > 0\)"):
        TrainConfig(value_target="rollouts")
    with pytest.raises(ConfigError, match="value target 'nope'"):
        TrainConfig(value_target="nope")
