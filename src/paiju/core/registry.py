"""Games by name, imported lazily: ``load_game("doudizhu")``, ``load_agents("mahjong")``.

The CLI, the arena and self-play name games by strings. Each entry points at the game class
and the game's agent registry as ``"module:attribute"`` paths that are imported only when
used, so ``paiju --help`` stays fast and an area that is not installed (or not written yet)
does not break the others. An entry also says which arena formats make sense for the game
(see :mod:`paiju.core.arena`) and the role of each seat, which the arena reports by.

Unknown names are a :class:`ConfigError` listing the games that are available.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any

from paiju.core.agents import AgentRegistry
from paiju.core.errors import ConfigError
from paiju.core.protocol import Game

FORMATS = ("duplicate", "rotation", "2v2", "2v2-all", "swap", "fixed")
"""Arena formats (:mod:`paiju.core.arena` documents each)."""


@dataclass(frozen=True)
class GameEntry:
    """Where a game lives, how it is played in the arena, and what its seats are called."""

    name: str
    game_path: str
    """``"module:Class"`` of the game; the class is called with the game options."""
    agents_path: str
    """``"module:REGISTRY"`` of the game's :class:`AgentRegistry`, or ``"module:factory"`` of a
    function building the registry for a game instance (for games whose agents depend on the
    game options, such as the gomoku board size)."""
    num_players: int
    formats: tuple[str, ...]
    """Arena formats this game supports; the first is the default."""
    roles: tuple[str, ...]
    """Role of each seat (seats sharing a role form a side, e.g. Dou Dizhu's two farmers)."""
    description: str = ""

    @property
    def default_format(self) -> str:
        return self.formats[0]

    @property
    def module(self) -> str:
        return self.game_path.partition(":")[0]

    def is_available(self) -> bool:
        """Whether the game's module can be imported (found), without importing it."""
        return _module_exists(self.module) and _module_exists(self.agents_path.partition(":")[0])

    def load_game(self, **options: Any) -> Game:
        """A game instance built with ``options`` (e.g. a rule variant); errors name the option."""
        cls = _import(self.game_path, self.name)
        try:
            game: Game = cls(**options)
            return game
        except TypeError as err:
            raise ConfigError(f"game {self.name!r}: bad options {options!r} ({err})") from None

    def load_agents(self, game: Game | None = None) -> AgentRegistry:
        """The agent registry; ``game`` (default: built without options) feeds a factory."""
        registry = _import(self.agents_path, self.name)
        if not isinstance(registry, AgentRegistry) and callable(registry):
            registry = registry(game if game is not None else self.load_game())
        if not isinstance(registry, AgentRegistry):
            raise TypeError(f"{self.agents_path} is a {type(registry).__name__}, not an AgentRegistry")
        return registry

    def sides(self) -> dict[str, tuple[int, ...]]:
        """Role -> seats holding it, in seat order (the duplicate format permutes sides)."""
        out: dict[str, list[int]] = {}
        for seat, role in enumerate(self.roles):
            out.setdefault(role, []).append(seat)
        return {role: tuple(seats) for role, seats in out.items()}


def _module_exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def _import(path: str, game: str) -> Any:
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        # only a missing *registered* module means "not available"; a missing dependency
        # inside an existing module is a real bug and must surface as itself
        if err.name is not None and module_name.startswith(err.name):
            raise ConfigError(
                f"game {game!r} is registered but not available: module {module_name} is missing; "
                f"available games: {', '.join(available_games())}"
            ) from None
        raise
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ConfigError(f"game {game!r}: {module_name} has no {attr!r}") from None


_TWO_PLAYER = ("swap", "rotation", "fixed")
_ENTRIES: dict[str, GameEntry] = {}


def register_game(entry: GameEntry) -> None:
    """Add (or replace) a game; used for the built-in games below and by plug-ins or tests."""
    unknown = [f for f in entry.formats if f not in FORMATS]
    if unknown or not entry.formats:
        raise ConfigError(
            f"game {entry.name!r}: unknown arena formats {unknown}; known: {', '.join(FORMATS)}"
        )
    if len(entry.roles) != entry.num_players:
        raise ConfigError(f"game {entry.name!r}: {len(entry.roles)} roles for {entry.num_players} seats")
    _ENTRIES[entry.name] = entry


for _entry in (
    GameEntry(
        "doudizhu", "paiju.doudizhu.game:DouDizhuGame", "paiju.doudizhu.agents:REGISTRY", 3,
        ("duplicate", "rotation", "fixed"), ("landlord", "farmer", "farmer"),
        "Dou Dizhu (斗地主): landlord (seat 0) against two farmers",
    ),
    GameEntry(
        "mahjong", "paiju.mahjong.game:MahjongGame", "paiju.mahjong.agents:REGISTRY", 4,
        ("2v2", "2v2-all", "rotation", "fixed"), ("east", "south", "west", "north"),
        "Taiwan 16-tile mahjong; seat 0 is the dealer (east)",
    ),
    GameEntry(
        "yuxi", "paiju.yuxi.game:YuxiGame", "paiju.yuxi.agents:REGISTRY", 2,
        _TWO_PLAYER, ("first", "second"), "the yuxi card-battle game",
    ),
    GameEntry(
        "kuhn_poker", "paiju.games.kuhn_poker:KuhnPokerGame", "paiju.games.kuhn_poker:REGISTRY", 2,
        _TWO_PLAYER, ("first", "second"), "Kuhn poker (3-card test game)",
    ),
    GameEntry(
        "tictactoe", "paiju.games.tictactoe:TicTacToe", "paiju.games.tictactoe:REGISTRY", 2,
        _TWO_PLAYER, ("first", "second"), "tic-tac-toe (test game)",
    ),
    GameEntry(
        "connect_four", "paiju.games.connect_four:ConnectFour", "paiju.games.connect_four:REGISTRY", 2,
        _TWO_PLAYER, ("first", "second"), "connect four (test game)",
    ),
    GameEntry(
        "gomoku", "paiju.games.gomoku:Gomoku", "paiju.games.gomoku:registry_for", 2,
        _TWO_PLAYER, ("first", "second"), "gomoku (test game)",
    ),
):
    register_game(_entry)


def registered_games() -> list[str]:
    """Every registered name, available or not."""
    return sorted(_ENTRIES)


def available_games() -> list[str]:
    """Registered games whose modules are present."""
    return [name for name in sorted(_ENTRIES) if _ENTRIES[name].is_available()]


def get_entry(name: str) -> GameEntry:
    """The entry of ``name``; an unknown name is a :class:`ConfigError` listing the available games."""
    try:
        return _ENTRIES[name]
    except KeyError:
        raise ConfigError(f"unknown game {name!r}; available: {', '.join(available_games())}") from None


def load_game(name: str, **options: Any) -> Game:
    """The game ``name`` built with ``options``."""
    return get_entry(name).load_game(**options)


def load_agents(name: str, game: Game | None = None) -> AgentRegistry:
    """The agent registry of game ``name`` (for ``game``, an instance built with options)."""
    return get_entry(name).load_agents(game)
