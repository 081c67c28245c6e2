"""The yuxi AlphaZero agent: network-guided MCTS from a checkpoint, the swap by the value head.

``YuxiAZAgent(model=PATH, simulations=N, c=C, batch=B, mix=W)`` loads an AlphaZero checkpoint
(:mod:`paiju.algorithms.alphazero.checkpoint`) trained for a card table, and for each room it
is seated in builds the encoder (:class:`~paiju.yuxi.encoding.YuxiEncoder`), a cached network
evaluator and a determinized PUCT search with ``B`` leaves per network call. Plays are
searched; the swap is decided as the talk does online: every swap outcome (it depends only on
the player's own cards) is valued by the value head and the best is taken.

Without ``model`` the agent plays the shipped model of the room's board,
``paiju/yuxi/models/az-<board>.pt`` (one per board, as trained; docs/alphazero.md says which
are shipped and how strong they are); a board with none shipped is a ConfigError naming the
shipped ones. A missing file is a ConfigError naming it; a model whose card-table fingerprint
differs from the room's table, or that was trained on other boards than the room's, is refused.

``mix=W`` (default 0: the network alone) values the search's leaves as AlphaGo did, mixing
the value head with another signal: ``(1 - W) x`` the network's value ``+ W x`` the heuristic
leaf of ``mcts:eval=heuristic`` (:class:`~paiju.yuxi.agents.search.HeuristicEvaluator`);
priors and the swap stay the network's (docs/alphazero.md, "Mixed leaves").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from paiju.algorithms.alphazero import MixedEvaluator, NetworkEvaluator
from paiju.algorithms.alphazero.agent import MAX_BATCH
from paiju.algorithms.alphazero.checkpoint import load_checkpoint
from paiju.algorithms.alphazero.net import AZNet
from paiju.algorithms.mcts import MCTSAgent
from paiju.core.errors import ConfigError
from paiju.core.protocol import Action
from paiju.core.rng import SeedLike, as_generator
from paiju.yuxi.agents.greedy import game_for
from paiju.yuxi.agents.search import HeuristicEvaluator
from paiju.yuxi.cards import table_fingerprint
from paiju.yuxi.encoding import YuxiEncoder
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiObservation
from paiju.yuxi.phases import PH_SWAP

MODELS = Path(__file__).resolve().parents[1] / "models"
"""Where the shipped AlphaZero models are: ``az-<board>.pt``, used when no ``model`` is given."""


def shipped_model(board: str) -> Path:
    """The path of the shipped model for ``board`` (``3x3``, ...), whether or not it exists."""
    return MODELS / f"az-{board}.pt"


def shipped_boards() -> list[str]:
    """The boards that have a shipped model, in file-name order."""
    return sorted(p.stem.removeprefix("az-") for p in MODELS.glob("az-*.pt"))


class YuxiAZAgent:
    """AlphaZero play for yuxi (see the module docstring)."""

    def __init__(
        self,
        seed: SeedLike = None,
        *,
        model: str = "",
        simulations: int = 200,
        c: float = 2.0,
        batch: int = 8,
        mix: float = 0.0,
        name: str | None = None,
    ) -> None:
        if not model and not shipped_boards():
            raise ConfigError(
                "yuxi az: no shipped model (no paiju/yuxi/models/az-<board>.pt); give model=PATH "
                "(an AlphaZero checkpoint; see docs/alphazero.md)"
            )
        if simulations < 1 or not 1 <= batch <= MAX_BATCH or not c >= 0 or not 0 <= mix <= 1:
            raise ConfigError(
                f"yuxi az: simulations={simulations} must be >= 1, "
                f"batch={batch} in 1..{MAX_BATCH}, c={c} >= 0, mix={mix} in [0, 1]"
            )
        # a given model is read now (a bad path fails at once); shipped ones when a board needs one
        self._models: dict[str, tuple[AZNet, dict[str, Any]]] = {}
        if model:
            self._models[model] = load_checkpoint(model)
        self.model = model
        self._rng = as_generator(seed)
        self._simulations = simulations
        self._c = c
        self._batch = batch
        self._mix = float(mix)
        self._rooms: dict[YuxiConfig, tuple[YuxiGame, NetworkEvaluator, MCTSAgent]] = {}
        self.name = name or f"az(simulations={simulations}{f',mix={mix:g}' if mix else ''})"

    def _room(self, config: YuxiConfig) -> tuple[YuxiGame, NetworkEvaluator, MCTSAgent]:
        room = self._rooms.get(config)
        if room is None:
            game = game_for(config)
            net = self._model_for(config.board, table_fingerprint(game.table))
            # no threads=: an agent in a shared process leaves torch's thread setting alone
            evaluator = NetworkEvaluator(net, YuxiEncoder(game))
            leaves = MixedEvaluator(evaluator, HeuristicEvaluator(), self._mix) if self._mix else evaluator
            search = MCTSAgent(
                game,
                seed=int(self._rng.integers(2**63)),
                evaluator=leaves,
                rule="puct",
                c=self._c,
                simulations=self._simulations,
                batch_size=self._batch,
            )
            room = self._rooms[config] = (game, evaluator, search)
        return room

    def check_game(self, game: YuxiGame) -> None:
        """Raise ConfigError if this agent has no model for ``game``'s board and card table."""
        self._model_for(game.config.board, table_fingerprint(game.table))

    def _model_for(self, board: str, table: str) -> AZNet:
        """The network for a room on ``board`` with card table ``table``, checked against both."""
        path, name = self.model, repr(self.model)
        if not path:
            if not shipped_model(board).is_file():
                raise ConfigError(
                    f"yuxi az: no shipped model for board {board} (shipped: {', '.join(shipped_boards())}); "
                    "play one of those boards, or (command line, Python) give model=PATH, an AlphaZero "
                    "checkpoint (docs/alphazero.md)"
                )
            # named without the server's folders (the web app shows this message)
            path, name = str(shipped_model(board)), f"the shipped {shipped_model(board).name}"
        if path not in self._models:
            self._models[path] = load_checkpoint(path)
        net, meta = self._models[path]
        trained_on = meta.get("card_table")
        if trained_on is not None and trained_on != table:
            raise ConfigError(f"yuxi az: model {name} was trained on card table {trained_on}, "
                              f"this room's table is {table}")
        boards = meta.get("boards")
        if boards is not None and board not in boards:
            raise ConfigError(f"yuxi az: model {name} was trained on boards {', '.join(boards)}, "
                              f"not on this room's {board}")
        return net

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not isinstance(observation, YuxiObservation):
            raise TypeError(f"the yuxi az agent needs a YuxiObservation, got {type(observation).__name__}")
        if len(legal_actions) == 1:
            return legal_actions[0]
        game, evaluator, search = self._room(observation.config)
        if observation.phase == "swap":
            # the swap's outcomes depend only on own cards: any consistent state values them alike
            state = game.sample_state(observation, self._rng)
            assert state.phase == PH_SWAP
            return evaluator.best_by_value(state)
        return search.act(observation, legal_actions)
