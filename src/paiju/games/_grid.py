"""Pieces shared by the small board games (tic-tac-toe, connect four, gomoku).

The three are perfect-information games, so a player's observation is the whole position:
the board as text and the full move history. ``sample_state`` replays that history, which
makes the determinization primitive exact (an MCTS agent that only gets observations
rebuilds the very state it is in) and lets a search match positions across moves for tree
reuse.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, ClassVar, Self, SupportsIndex, TypeVar

import numpy as np

from paiju.core.agents import AgentRegistry, UniformRandomAgent
from paiju.core.errors import CorruptRecordError, IllegalMoveError
from paiju.core.protocol import Agent, Game, State
from paiju.core.rng import SeedLike

MARKS = "xo"
"""Stone/mark letters by seat, as OpenSpiel prints them (seat 0 = ``x`` moves first)."""


@dataclass(frozen=True)
class BoardObservation:
    """What a player of a board game sees: everything.

    Attributes:
        player: the observing seat.
        to_play: the seat to move, or ``TERMINAL`` once the game is over.
        board: the position as text, one line per row (the game's ``str(state)``).
        history: every move played, in order; replaying it rebuilds the state exactly.
    """

    player: int
    to_play: int
    board: str
    history: tuple[int, ...]

    def __str__(self) -> str:
        return self.board


DRAW = 2
"""``_winner`` of a finished game that nobody won."""
RETURNS = ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
"""Returns by ``_winner``: seat 0 won, seat 1 won, draw."""


class BoardState(State[int]):
    """What the board games' states share once a move is made: returns, observation, winner.

    Subclasses keep ``_player`` (seat to move or ``TERMINAL``), ``_winner`` (None while the
    game runs, a seat, or :data:`DRAW`) and ``_history`` (moves in order), and name their
    observation type and display name.
    """

    __slots__ = ()
    observation_type: ClassVar[type[BoardObservation]] = BoardObservation
    display_name: ClassVar[str] = "board game"
    _boards: tuple[int, int]
    _player: int
    _winner: int | None
    _history: list[int]

    def __init__(self, game: Game[int]) -> None:
        self.game = game
        self._boards = (0, 0)
        self._player = 0
        self._winner = None
        self._history = []

    def current_player(self) -> int:
        return self._player

    def clone(self) -> Self:
        # object.__new__ skips __init__: a clone costs a handful of attribute copies
        copy = object.__new__(type(self))
        copy.game = self.game
        copy._boards = self._boards
        copy._player = self._player
        copy._winner = self._winner
        copy._history = self._history.copy()
        return copy

    # The public methods below repeat the base template's checks inline for the common case
    # (a plain int, a game in progress) and defer to it for everything else, so errors and
    # messages are the template's; this saves most of the cost of a move through the API.
    def legal_actions(self) -> list[int]:
        return [] if self._player < 0 else self._legal_actions()

    def apply(self, action: int) -> None:
        if type(action) is int and self._player >= 0 and self._is_legal(action):
            self._apply(action)
        else:
            super().apply(action)

    def returns(self) -> list[float]:
        return [0.0, 0.0] if self._winner is None else list(RETURNS[self._winner])

    def observation(self, player: int) -> BoardObservation:
        if player not in (0, 1):
            raise ValueError(f"{self.display_name} has seats 0 and 1, not {player}")
        return self.observation_type(player, self._player, str(self), tuple(self._history))

    def sample_chance(self, rng: np.random.Generator) -> int:
        raise ValueError(f"{self.display_name} has no chance events")

    def winner(self) -> int | None:
        """The winning seat, None for a draw or a game in progress."""
        return self._winner if self._winner in (0, 1) else None


def as_action(action: object) -> int | None:
    """``action`` as a plain ``int`` (numpy integers accepted), or None if it is no integer."""
    if isinstance(action, bool) or not isinstance(action, SupportsIndex):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


BoardStateT = TypeVar("BoardStateT", bound=BoardState)


def replay_observation(
    state: BoardStateT, observation: Any, expected_type: type[BoardObservation]
) -> BoardStateT:
    """Rebuild the state an observation was taken in by replaying its history from the initial
    ``state``, checking the board.

    Raises :class:`IllegalMoveError` if the history holds an illegal move and
    :class:`CorruptRecordError` if the board or the player to move disagree with the history.
    """
    game = state.game
    if not isinstance(observation, expected_type):
        raise TypeError(
            f"{game.info.name}: expected a {expected_type.__name__}, got {type(observation).__name__}"
        )
    for i, action in enumerate(observation.history):
        try:
            state.apply(action)
        except IllegalMoveError as err:
            raise IllegalMoveError(f"{game.info.name} observation history, move {i + 1}: {err}") from None
    if str(state) != observation.board or state.current_player() != observation.to_play:
        raise CorruptRecordError(
            f"{game.info.name} observation is inconsistent: its history {list(observation.history)} gives\n"
            f"{state}\nbut the observation shows\n{observation.board}"
        )
    return state


def board_registry(game: Game, mcts_simulations: int, az: bool = False) -> AgentRegistry:
    """The agents every board game offers: ``random`` and ``mcts:simulations=...``; with ``az``
    also ``az:model=PATH,simulations=N,seconds=S,c=C,batch=B`` (a model of ``paiju az train``)."""
    from paiju.algorithms.mcts import register_mcts_agent

    registry = AgentRegistry(game.info.name)
    registry.register("random", lambda seed=None: UniformRandomAgent(seed), {}, "uniform over legal moves")
    register_mcts_agent(registry, game, simulations=mcts_simulations)
    if az:

        def make_az(seed: SeedLike = None, **params: Any) -> Agent:
            from paiju.games.grid_encoding import az_agent  # imports this module's games

            return az_agent(game, seed, **params)

        registry.register(
            "az", make_az,
            {"model": "", "simulations": 200, "seconds": 0.0, "c": 2.0, "batch": 8, "threads": 1},
            "AlphaZero: PUCT guided by a policy/value network (model = a model.pt of paiju az train; empty: "
            "the shipped model, connect four's); "
            "seconds > 0: a time budget per move instead of simulations",
            limits={"simulations": (0, 100_000), "seconds": (0.0, 60.0), "c": (0.0, 100.0),
                    "batch": (1, 256), "threads": (0, 64)},
            process_wide={"threads": "sets torch's thread count for the whole process"},
            file_params=("model",),
        )
    return registry
