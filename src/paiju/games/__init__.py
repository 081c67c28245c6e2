"""Small games on the core protocol, used to test the algorithms and as training grounds.

* ``tictactoe``, ``connect_four`` (6x7), ``gomoku`` (any board, five in a row): perfect
  information, OpenSpiel's encodings, bitboards so pure-Python search is fast;
* ``kuhn_poker``: the smallest hidden-information game.

Each module has its game class and an ``AgentRegistry`` (``REGISTRY``). :func:`load_game`
builds a game by name with lazy imports, so ``import paiju.games`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

from paiju.core.agents import AgentRegistry
from paiju.core.errors import ConfigError
from paiju.core.protocol import Game

_GAMES: dict[str, tuple[str, str]] = {
    "tictactoe": ("paiju.games.tictactoe", "TicTacToe"),
    "connect_four": ("paiju.games.connect_four", "ConnectFour"),
    "gomoku": ("paiju.games.gomoku", "Gomoku"),
    "kuhn_poker": ("paiju.games.kuhn_poker", "KuhnPokerGame"),
}


def available_games() -> list[str]:
    """Names :func:`load_game` accepts."""
    return sorted(_GAMES)


def load_game(name: str, **params: Any) -> Game:
    """The game called ``name``, built with ``params`` (e.g. ``load_game("gomoku", rows=9)``).

    Raises :class:`ConfigError` naming the available games, or the parameter that is wrong.
    """
    if name not in _GAMES:
        raise ConfigError(f"unknown game {name!r}; available: {', '.join(available_games())}")
    module_name, class_name = _GAMES[name]
    cls = getattr(importlib.import_module(module_name), class_name)
    try:
        game: Game = cls(**params)
    except TypeError as err:
        raise ConfigError(f"game {name!r}: bad parameters {params}: {err}") from None
    return game


def agent_registry(game: Game) -> AgentRegistry:
    """The agents of ``game`` (its module's ``registry_for(game)`` if it has one, else ``REGISTRY``)."""
    for module_name, class_name in _GAMES.values():
        module = importlib.import_module(module_name)
        if type(game) is getattr(module, class_name):
            factory = getattr(module, "registry_for", None)
            registry: AgentRegistry = factory(game) if factory is not None else module.REGISTRY
            return registry
    raise ConfigError(f"no agent registry for {game.info.name!r}")
