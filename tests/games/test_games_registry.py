"""``paiju.games.load_game`` / ``agent_registry``: every listed game loads and plays with its agents."""

from __future__ import annotations

import pytest

from paiju.core.errors import ConfigError
from paiju.core.protocol import Game, play_game
from paiju.games import agent_registry, available_games, load_game


@pytest.mark.parametrize("name", available_games())
def test_every_game_loads_and_its_random_agents_play(name: str) -> None:
    game = load_game(name)
    assert isinstance(game, Game) and game.info.name == name
    registry = agent_registry(game)
    assert "random" in registry.names()
    agents = [registry.make("random", seed=s) for s in range(game.info.num_players)]
    final = play_game(game, agents, seed=0).state
    assert final.is_terminal()


def test_parameters_and_errors() -> None:
    small = load_game("gomoku", rows=6, win_length=4)
    assert small.info.num_distinct_actions == 36
    agent = agent_registry(small).make("mcts:simulations=20", seed=0)
    state = small.new_initial_state()
    assert agent.act(state.observation(0), state.legal_actions()) in range(36)
    with pytest.raises(ConfigError, match="available: connect_four"):
        load_game("chess")
    with pytest.raises(ConfigError, match="bad parameters"):
        load_game("tictactoe", size=4)
    with pytest.raises(ConfigError, match="win_length"):
        load_game("gomoku", rows=3)
