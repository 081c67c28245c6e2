"""AlphaZero encoders for connect four and gomoku (the generality check of issue 17).

Both observations carry the whole move history, which rebuilds the board; the encoders read
nothing else. Planes ``(2, rows, cols)``: the stones of the seat to move, the opponent's
stones (AlphaZero's canonical view: the network always sees the board from the mover's side).
Vector: the fraction of the board filled and whether the seat to move is seat 0. One policy
head over the game's actions (connect four: the column; gomoku: the cell), no second step.

The ``az`` agent of both games' registries (:func:`az_agent`) and the training setup of
``paiju az train`` (:func:`board_setup`) are here too; a model records :func:`az_game_id`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from paiju.core.errors import ConfigError
from paiju.core.protocol import Action, Game, State
from paiju.core.rng import SeedLike
from paiju.games import load_game
from paiju.games._grid import BoardObservation
from paiju.games.connect_four import COLUMNS, ROWS, ConnectFour
from paiju.games.gomoku import Gomoku

if TYPE_CHECKING:
    from paiju.algorithms.alphazero.agent import AZAgent


class _GridEncoder:
    rows: int
    cols: int
    num_actions: int

    def __init__(self) -> None:
        self.plane_shape = (2, self.rows, self.cols)
        self.vector_size = 2
        self.first_size = self.num_actions
        self.second_size = 0

    def perspective(self, state: State) -> int:
        p = state.current_player()
        # a finished game is never encoded for a policy; any seat will do for its value
        return p if p >= 0 else 0

    def _cells(self, history: Sequence[int]) -> Sequence[int]:
        raise NotImplementedError

    def encode(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        seat = self.perspective(state)
        obs = state.observation(seat)
        assert isinstance(obs, BoardObservation)
        planes = np.zeros(self.plane_shape, dtype=np.float32)
        for ply, cell in enumerate(self._cells(obs.history)):
            r, c = divmod(cell, self.cols)
            # seat 0 plays the even plies
            planes[0 if ply % 2 == seat else 1, r, c] = 1.0
        vector = np.array([len(obs.history) / (self.rows * self.cols), float(seat == 0)], dtype=np.float32)
        return planes, vector

    def policy_indices(self, state: State, legal: Sequence[Action]) -> list[tuple[int, int]]:
        return [(cast(int, a), -1) for a in legal]  # the actions of these games are ints


class ConnectFourEncoder(_GridEncoder):
    """Connect four: a move is a column; its stone lands on the lowest empty row (row 0 is
    the top row in the planes, as the game prints it)."""

    rows, cols, num_actions = ROWS, COLUMNS, COLUMNS

    def __init__(self, game: ConnectFour | None = None) -> None:
        super().__init__()

    def _cells(self, history: Sequence[int]) -> list[int]:
        height = [0] * COLUMNS
        out = []
        for column in history:
            out.append((ROWS - 1 - height[column]) * COLUMNS + column)
            height[column] += 1
        return out


class GomokuEncoder(_GridEncoder):
    """Gomoku on the game's board: a move is the cell ``row * cols + col``."""

    def __init__(self, game: Gomoku) -> None:
        self.rows, self.cols, self.num_actions = game.rows, game.cols, game.num_cells
        super().__init__()

    def _cells(self, history: Sequence[int]) -> Sequence[int]:
        return history


def connect_four_setup(seed: int) -> tuple[ConnectFour, ConnectFourEncoder]:
    """The AlphaZero training setup of connect four (every game the same room)."""
    return ConnectFour(), ConnectFourEncoder()


def gomoku_setup(seed: int) -> tuple[Gomoku, GomokuEncoder]:
    """The AlphaZero training setup of gomoku of issue 17: 9×9, five in a row."""
    game = Gomoku(rows=9, win_length=5)
    return game, GomokuEncoder(game)


# ---- AlphaZero on these boards: what a model is trained on, the agent, the training setup ------
BoardEncoder = ConnectFourEncoder | GomokuEncoder


def az_encoder(game: Game) -> BoardEncoder:
    """The AlphaZero encoder of ``game`` (connect four or gomoku of any board)."""
    if isinstance(game, ConnectFour):
        return ConnectFourEncoder(game)
    if isinstance(game, Gomoku):
        return GomokuEncoder(game)
    raise ConfigError(f"AlphaZero: no encoder for {game.info.name} (connect_four and gomoku have one)")


def az_game_id(game: Game) -> dict[str, Any]:
    """What a model of ``game`` is trained on (recorded in the model; the agent checks it)."""
    encoder = az_encoder(game)
    board: dict[str, Any] = {"game": game.info.name, "rows": encoder.rows, "cols": encoder.cols}
    if isinstance(game, Gomoku):
        board["win_length"] = game.win_length
    return board


def board_setup(name: str, options: dict[str, Any], seed: int) -> tuple[Game, BoardEncoder]:
    """The training setup of game ``name`` built with ``options`` (every game the same room;
    ``functools.partial(board_setup, name, options)`` is the picklable setup)."""
    game = load_game(name, **options)
    return game, az_encoder(game)


MODEL_DIR = Path(__file__).resolve().parent / "models"
SHIPPED_MODELS = {"connect_four": "az-connect-four.pt"}
"""The model ``az`` plays when no ``model=`` is given, by game (the standard board; its
config, metrics and command beside it, docs/results/connect-four-recipe.md)."""


def shipped_model(game: Game) -> Path | None:
    """The shipped model of ``game``, or None (gomoku). Connect four has one board only."""
    name = SHIPPED_MODELS.get(game.info.name)
    return MODEL_DIR / name if name else None


def az_agent(game: Game, seed: SeedLike = None, **params: Any) -> AZAgent:
    """The ``az`` agent of a board game's registry (:class:`~paiju.algorithms.alphazero.agent.AZAgent`);
    an empty ``model`` plays the game's shipped model where it has one."""
    from paiju.algorithms.alphazero.agent import AZAgent  # torch only when an agent is built

    if not params.get("model") and (shipped := shipped_model(game)) is not None:
        params["model"] = str(shipped)
    return AZAgent(game, az_encoder(game), az_game_id(game), seed, **params)
