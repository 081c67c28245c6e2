"""The game registry: lazy imports, clear errors, consistent entries."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from paiju.core import registry
from paiju.core.agents import AgentRegistry
from paiju.core.errors import ConfigError
from paiju.core.protocol import Game
from paiju.core.registry import GameEntry, available_games, get_entry, load_agents, load_game, register_game


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A throw-away import path and registry (entries added by a test are removed after it)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_ENTRIES", dict(registry._ENTRIES))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("scratch_")]:
        del sys.modules[name]


def test_the_issue_names_are_registered_with_their_paths() -> None:
    assert registry.registered_games() == [
        "connect_four", "doudizhu", "gomoku", "kuhn_poker", "mahjong", "tictactoe", "yuxi",
    ]
    ddz = get_entry("doudizhu")
    assert ddz.game_path == "paiju.doudizhu.game:DouDizhuGame"
    assert ddz.agents_path == "paiju.doudizhu.agents:REGISTRY"
    assert ddz.default_format == "duplicate" and ddz.sides() == {"landlord": (0,), "farmer": (1, 2)}
    assert get_entry("mahjong").game_path == "paiju.mahjong.game:MahjongGame"
    assert get_entry("yuxi").agents_path == "paiju.yuxi.agents:REGISTRY"
    assert "2v2" in get_entry("mahjong").formats and get_entry("kuhn_poker").default_format == "swap"


def test_unknown_name_lists_the_available_games() -> None:
    with pytest.raises(ConfigError, match=r"unknown game 'chess'; available: .*kuhn_poker") as err:
        load_game("chess")
    for name in available_games():
        assert name in str(err.value)


@pytest.mark.parametrize(
    "name", ["doudizhu", "mahjong", "yuxi", "kuhn_poker", "tictactoe", "connect_four", "gomoku"]
)
def test_every_available_game_loads_consistently(name: str) -> None:
    if name not in available_games():
        pytest.skip(f"{name} is not written yet")
    entry = get_entry(name)
    game = load_game(name)
    assert isinstance(game, Game)
    assert game.info.num_players == entry.num_players == len(entry.roles)
    agents = load_agents(name, game)
    assert isinstance(agents, AgentRegistry) and "random" in agents.names()


def test_a_registered_but_missing_module_is_not_available(scratch: Path) -> None:
    register_game(GameEntry("ghost", "scratch_ghost:Game", "scratch_ghost:R", 2, ("swap",), ("a", "b")))
    assert "ghost" in registry.registered_games() and "ghost" not in available_games()
    with pytest.raises(ConfigError, match="'ghost' is registered but not available: module scratch_ghost"):
        load_game("ghost")


def test_a_broken_dependency_inside_a_game_module_is_not_disguised(scratch: Path) -> None:
    (scratch / "scratch_broken.py").write_text("import scratch_no_such_dependency\n")
    register_game(GameEntry("broken", "scratch_broken:Game", "scratch_broken:R", 2, ("swap",), ("a", "b")))
    with pytest.raises(ModuleNotFoundError, match="scratch_no_such_dependency"):
        load_game("broken")


def test_agent_factory_entries_get_the_configured_game(scratch: Path) -> None:
    (scratch / "scratch_sized.py").write_text(
        "from paiju.core.agents import AgentRegistry\n"
        "from paiju.games.kuhn_poker import KuhnPokerGame\n"
        "class Sized(KuhnPokerGame):\n"
        "    def __init__(self, size=3):\n"
        "        self.size = size\n"
        "def registry_for(game):\n"
        "    return AgentRegistry(f'sized-{game.size}')\n"
    )
    register_game(
        GameEntry("sized", "scratch_sized:Sized", "scratch_sized:registry_for", 2, ("swap",), ("a", "b"))
    )
    game = load_game("sized", size=5)
    assert load_agents("sized", game).game_name == "sized-5"
    assert load_agents("sized").game_name == "sized-3"
    with pytest.raises(ConfigError, match="bad options"):
        load_game("sized", colour=1)


def test_entries_are_validated() -> None:
    with pytest.raises(ConfigError, match="unknown arena formats"):
        register_game(GameEntry("x", "a:b", "a:c", 2, ("knockout",), ("a", "b")))
    with pytest.raises(ConfigError, match="1 roles for 2 seats"):
        register_game(GameEntry("x", "a:b", "a:c", 2, ("swap",), ("a",)))
