"""Gymnasium single-agent environments (paiju.interop.gymnasium) and the training example."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from paiju.core.errors import ConfigError, IllegalMoveError
from paiju.interop.gymnasium import make

CASES = [
    ("tictactoe", 0, ["random"]),
    ("tictactoe", 1, ["mcts"]),
    ("kuhn_poker", 1, ["nash"]),
    ("connect_four", 0, ["random"]),
    ("doudizhu", 1, ["random", "greedy"]),
    ("mahjong", 2, ["random"]),
    ("yuxi", 0, ["random"]),
]


@pytest.mark.parametrize(("game", "seat", "opponents"), CASES)
def test_check_env(game: str, seat: int, opponents: list[str]) -> None:
    check_env(make(game, seat=seat, opponents=opponents), skip_render_check=True)


def _episode(env: object, seed: int) -> tuple[list[int], float]:
    from paiju.interop.gymnasium import PaijuSingleAgentEnv

    assert isinstance(env, PaijuSingleAgentEnv)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, total, done = [], 0.0, False
    while not done:
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(a)
        obs, reward, done, _, info = env.step(a)
        assert not info["illegal_action"]
        total += reward
    return actions, total


def test_episode_is_a_function_of_the_seed() -> None:
    env = make("doudizhu", seat=0, opponents=["random"], wing_rule="rlcard")
    first = _episode(env, 11)
    _episode(env, 12)
    assert _episode(env, 11) == first


def test_reward_is_the_seats_return() -> None:
    """Tic-tac-toe against a random opponent: every episode pays the seat's result, -1, 0
    or +1 (losses, draws and wins all occur in 30 random games)."""
    env = make("tictactoe", seat=0, opponents=["random"])
    results = {_episode(env, s)[1] for s in range(30)}
    assert results == {-1.0, 0.0, 1.0}


def test_invalid_action_penalty_and_raise() -> None:
    env = make("kuhn_poker", seat=0, opponents=["random"])
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"].tolist() == [1, 1]  # pass or bet
    env = make("tictactoe", seat=1, opponents=["random"])
    obs, _ = env.reset(seed=0)
    taken = int(np.flatnonzero(obs["observation"][9:18])[0])  # the opponent's first mark
    _, reward, done, _, info = env.step(taken)
    assert (reward, done, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(IllegalMoveError, match="episode is over"):
        env.step(0)
    strict = make("tictactoe", seat=1, opponents=["random"], invalid_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="not legal"):
        strict.step(taken)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": 2}, "seat must be 0..1"),
        ({"opponents": ["random", "random"]}, "needs 1 agent specs"),
        ({"opponents": ["nosuch"]}, "nosuch"),
        ({"invalid_action": "ignore"}, "invalid_action must be"),
    ],
)
def test_bad_arguments_are_config_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make("tictactoe", **kwargs)


def test_example_training_beats_random(benchmark_module: Callable[[str], ModuleType]) -> None:
    """benchmarks/gym_example.py with a tiny budget: 300 REINFORCE episodes of tic-tac-toe's
    first seat already beat uniform random play by a wide margin (~0.4 in mean return;
    asserted: at least 0.15 and more than 3 standard errors), on the same evaluation seeds."""
    example = benchmark_module("gym_example")
    env = make("tictactoe", seat=0, opponents=["random"])
    model = example.train(env, episodes=300, seed=1)
    base, base_se = example.evaluate(env, example.uniform, 300, seed=7)
    mean, se = example.evaluate(env, example.greedy(model), 300, seed=7)
    assert mean - base > max(0.15, 3 * float(np.hypot(se, base_se)))


def test_unseeded_resets_are_reproducible() -> None:
    """Two fresh envs reset without seeds play the same episodes (paiju never uses OS entropy)."""
    a, b = make("kuhn_poker", seat=0), make("kuhn_poker", seat=0)
    for _ in range(5):
        oa, _ = a.reset()
        ob, _ = b.reset()
        assert (oa["observation"] == ob["observation"]).all()
        ra, rb = a.step(1), b.step(1)
        assert ra[1:3] == rb[1:3]
