"""Every Dou Dizhu agent: legal in every seat and rule variant, seeded, and blind to hidden hands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from paiju.core.errors import ConfigError
from paiju.core.protocol import Action, play_game
from paiju.core.rng import derive_seed
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.game import DouDizhuConfig, DouDizhuGame, DouDizhuState

# (spec, games per configuration): search is given a small budget to keep the suite fast
AGENTS = [("random", 12), ("greedy", 12), ("rule", 12), ("search:budget=8,width=4", 1), ("rlcard-rule", 3)]
CONFIGS = {
    "default": DouDizhuConfig(),
    "bidding": DouDizhuConfig(bidding=True, scoring="casual"),
    "rlcard-wings": DouDizhuConfig(wing_rule="rlcard"),
}


class Checked:
    """Wraps an agent: asserts it answers with one of the legal actions, for its own seat."""

    def __init__(self, agent: Any, seat: int) -> None:
        self.agent = agent
        self.seat = seat
        self.name = agent.name
        self.decisions = 0

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        assert observation.player == self.seat
        action = self.agent.act(observation, legal_actions)
        assert action in legal_actions, f"{self.name} played {action} not in {legal_actions}"
        self.decisions += 1
        return action


def _spec_for(spec: str, config: DouDizhuConfig) -> str:
    if spec.startswith("search") and config.wing_rule == "rlcard":
        return spec + ",wings=rlcard"
    if spec.startswith("search") and config.scoring == "casual":
        return spec + ",scoring=casual"
    return spec


@pytest.mark.parametrize("config_name", list(CONFIGS))
@pytest.mark.parametrize(("spec", "games"), AGENTS, ids=[a for a, _ in AGENTS])
def test_agent_is_legal_in_every_seat(spec: str, games: int, config_name: str) -> None:
    """The agent sits in each seat in turn (the others random), and also in all three seats."""
    config = CONFIGS[config_name]
    if spec == "rlcard-rule" and config.wing_rule != "rlcard":
        pytest.skip("the RLCard agent plays under RLCard's wing rule (see the adapter docstring)")
    game = DouDizhuGame(config)
    spec = _spec_for(spec, config)
    finished = 0
    for g in range(games):
        for seat in (0, 1, 2, None):  # None: the agent in every seat
            agents = [
                Checked(REGISTRY.make(spec if seat in (s, None) else "random", seed=derive_seed(g, s)), s)
                for s in range(3)
            ]
            state = play_game(game, agents, seed=derive_seed(99, g, seat or 3)).state
            assert state.is_terminal()
            assert sum(state.returns()) == pytest.approx(0.0)
            finished += 1
            mine = [a for s, a in enumerate(agents) if seat in (s, None)]
            assert sum(a.decisions for a in mine) > 0
    assert finished == 4 * games


@pytest.mark.parametrize("spec", ["random", "greedy", "rule", "search:budget=8,width=4", "rlcard-rule"])
def test_same_seed_same_game(spec: str) -> None:
    """Seeded agents replay a game move for move; the global NumPy state is not touched."""
    game = DouDizhuGame(wing_rule="rlcard")
    spec = _spec_for(spec, game.config)

    def run() -> list[Action]:
        agents = [REGISTRY.make(spec, seed=5 + s) for s in range(3)]
        return play_game(game, agents, seed=11).actions

    np.random.seed(0)
    before = np.random.get_state()[1].copy()  # type: ignore[index]
    first = run()
    after = np.random.get_state()[1]  # type: ignore[index]
    assert np.array_equal(before, after)
    assert run() == first


def _positions(game: DouDizhuGame, seed: int, n: int) -> list[DouDizhuState]:
    """Mid-game positions of random games (a few moves in, at a decision node)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        state = game.new_state_from_deal(game.new_initial_state().sample_chance(rng))
        for _ in range(int(rng.integers(0, 25))):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal():
            out.append(state)
        del i
    return out


@pytest.mark.parametrize("spec", ["greedy", "rule", "search:budget=8,width=4", "rlcard-rule"])
def test_decision_ignores_hidden_hands(spec: str) -> None:
    """Two states with the same observation for the acting seat but different hidden hands
    get the same decision from identically seeded agents."""
    game = DouDizhuGame(wing_rule="rlcard")
    spec = _spec_for(spec, game.config)
    rng = np.random.default_rng(7)
    checked = 0
    for k, state in enumerate(_positions(game, 3, 12)):
        seat = state.current_player()
        obs = state.observation(seat)
        other = game.sample_state(obs, rng)
        assert other.observation(seat) == obs
        if other.hands == state.hands:
            continue
        assert other.hands[seat] == state.hands[seat]
        a = REGISTRY.make(spec, seed=k).act(state.observation(seat), state.legal_actions())
        b = REGISTRY.make(spec, seed=k).act(other.observation(seat), other.legal_actions())
        assert a == b
        checked += 1
    assert checked >= 8


def test_registry_specs_are_validated() -> None:
    assert {"random", "greedy", "rule", "search", "rlcard-rule"} <= set(REGISTRY.names())
    spec = REGISTRY.resolve("search:budget=50,time=0.2,wings=rlcard")
    assert spec.params == {"budget": 50, "time": 0.2, "wings": "rlcard"}
    agent = REGISTRY.make("search:budget=50,width=3")
    assert (agent.budget, agent.width) == (50, 3)  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match=r"budget=.*not a valid int"):
        REGISTRY.resolve("search:budget=lots")
    with pytest.raises(ConfigError, match="unknown parameter 'depth'"):
        REGISTRY.resolve("search:depth=3")
    with pytest.raises(ConfigError, match=r"budget=0 is below the minimum 1"):
        REGISTRY.make("search:budget=0")
    with pytest.raises(ConfigError, match="wings='x' is not one of game, douzero, rlcard"):
        REGISTRY.make("search:wings=x")
    with pytest.raises(ConfigError, match="unknown doudizhu agent 'rules'"):
        REGISTRY.resolve("rules")
    with pytest.raises(ConfigError, match="unknown parameter"):
        REGISTRY.resolve("rule:budget=3")
