"""The yuxi AlphaZero agent: network-guided MCTS from a checkpoint, the swap by the value head.

``YuxiAZAgent(model=PATH, simulations=N, c=C, batch=B, mix=W)`` loads an AlphaZero checkpoint
(:mod:`paiju.algorithms.alphazero.checkpoint`) trained for a card table, and for each room it
is seated in builds the encoder (:class:`~paiju.yuxi.encoding.YuxiEncoder`), a cached network
evaluator and a determinized PUCT search with ``B`` leaves per network call. Plays are
searched; the swap is decided as the talk does online: every swap outcome (it depends only on
the player's own cards) is valued by the value head and the best is taken. No model is
shipped yet: a missing file is a ConfigError naming it, and a model whose card-table
fingerprint differs from the room's table is refused.

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

SHIPPED_MODEL = Path(__file__).resolve().parents[1] / "models" / "az.pt"
"""The shipped AlphaZero model (``paiju/yuxi/models/az.pt``), used when no ``model`` is given."""


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
        if not model:
            if not SHIPPED_MODEL.is_file():
                raise ConfigError(
                    "yuxi az: no shipped model (paiju/yuxi/models/az.pt is not there yet); give model=PATH "
                    "(an AlphaZero checkpoint; see docs/alphazero.md)"
                )
            model = str(SHIPPED_MODEL)
        if simulations < 1 or not 1 <= batch <= MAX_BATCH or not c >= 0 or not 0 <= mix <= 1:
            raise ConfigError(
                f"yuxi az: simulations={simulations} must be >= 1, "
                f"batch={batch} in 1..{MAX_BATCH}, c={c} >= 0, mix={mix} in [0, 1]"
            )
        self.net, self.meta = load_checkpoint(model)
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
            trained_on = self.meta.get("card_table")
            if trained_on is not None and trained_on != table_fingerprint(game.table):
                raise ConfigError(
                    f"yuxi az: model {self.model!r} was trained on card table {trained_on}, "
                    f"this room's table is {table_fingerprint(game.table)}"
                )
            # no threads=: an agent in a shared process leaves torch's thread setting alone
            evaluator = NetworkEvaluator(self.net, YuxiEncoder(game))
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
