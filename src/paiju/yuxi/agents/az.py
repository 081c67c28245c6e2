"""The yuxi AlphaZero agents: network-guided MCTS (``az``), or the network alone (``az-policy``).

``YuxiAZAgent(model=PATH, simulations=N, c=C, batch=B, mix=W)`` loads an AlphaZero checkpoint
(:mod:`paiju.algorithms.alphazero.checkpoint`) trained for a card table, and for each room it
is seated in builds the encoder the checkpoint names (:func:`~paiju.yuxi.encoding.encoder_for`:
version 1, card ids, for every model made before version 2), a cached network evaluator and a
determinized PUCT search with ``B`` leaves per network call. Plays are searched; the swap is
decided as the talk does online: every swap outcome (it depends only on the player's own
cards) is valued by the value head and the best is taken.

``YuxiPolicyAgent(model=PATH, temperature=T)`` is the talk's online AI: no search at all. The
network's policy picks each play from one forward pass on the observation (the most probable
move; with ``T > 0`` a move drawn from the priors raised to ``1/T``), and the swap is the value
head's, as above. It is its own agent name, ``az-policy``, because none of the search's
parameters (simulations, c, batch, mix) applies to it.

Without ``model`` either agent plays the shipped model of the room's board,
``paiju/yuxi/models/az-<board>.pt`` (one per board, as trained; docs/alphazero.md says which
are shipped and how strong they are); a board with none shipped is a ConfigError naming the
shipped ones. A missing file is a ConfigError naming it; a model whose card-table fingerprint
differs from the room's table, that was trained on other boards than the room's, or that
needs an encoder this paiju does not have, is refused.

``mix=W`` (default 0: the network alone) values the search's leaves as AlphaGo did, mixing
the value head with another signal: ``(1 - W) x`` the network's value ``+ W x`` the heuristic
leaf of ``mcts:eval=heuristic`` (:class:`~paiju.yuxi.agents.search.HeuristicEvaluator`);
priors and the swap stay the network's (docs/alphazero.md, "Mixed leaves").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paiju.algorithms.alphazero import MixedEvaluator, NetworkEvaluator, legal_priors
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
from paiju.yuxi.encoding import YuxiEncoderBase, encoder_for
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


class _Models:
    """The models an agent named ``agent`` plays: the one given, or each board's shipped one,
    each loaded once and checked against the room it is to play in."""

    def __init__(self, model: str, agent: str) -> None:
        if not model and not shipped_boards():
            raise ConfigError(
                f"yuxi {agent}: no shipped model (no paiju/yuxi/models/az-<board>.pt); give model=PATH "
                "(an AlphaZero checkpoint; see docs/alphazero.md)"
            )
        self.model = model
        self.agent = agent
        # a given model is read now (a bad path fails at once); shipped ones when a board needs one
        self._loaded: dict[str, tuple[AZNet, dict[str, Any]]] = {}
        if model:
            self._loaded[model] = load_checkpoint(model)

    def for_game(self, game: YuxiGame) -> tuple[AZNet, YuxiEncoderBase]:
        """The network for a room of ``game`` and the encoder it reads, checked against the
        room's board and card table."""
        board, table = game.config.board, table_fingerprint(game.table)
        path, name = self.model, repr(self.model)
        if not path:
            if not shipped_model(board).is_file():
                raise ConfigError(
                    f"yuxi {self.agent}: no shipped model for board {board} (shipped: "
                    f"{', '.join(shipped_boards())}); play one of those boards, or (command line, "
                    "Python) give model=PATH, an AlphaZero checkpoint (docs/alphazero.md)"
                )
            # named without the server's folders (the web app shows this message)
            path, name = str(shipped_model(board)), f"the shipped {shipped_model(board).name}"
        if path not in self._loaded:
            self._loaded[path] = load_checkpoint(path)
        net, meta = self._loaded[path]
        trained_on = meta.get("card_table")
        if trained_on is not None and trained_on != table:
            raise ConfigError(f"yuxi {self.agent}: model {name} was trained on card table {trained_on}, "
                              f"this room's table is {table}")
        boards = meta.get("boards")
        if boards is not None and board not in boards:
            raise ConfigError(f"yuxi {self.agent}: model {name} was trained on boards {', '.join(boards)}, "
                              f"not on this room's {board}")
        encoder = encoder_for(game, meta, f"yuxi {self.agent}: model {name}")
        cfg = net.config
        have = (tuple(cfg.plane_shape), cfg.vector_size, cfg.first_size, cfg.second_size)
        want = (tuple(encoder.plane_shape), encoder.vector_size, encoder.first_size, encoder.second_size)
        if have != want:
            raise ConfigError(
                f"yuxi {self.agent}: model {name}'s sizes {have} do not match the encoder's {want} "
                f"(version {encoder.spec.version}, as its metadata says)"
            )
        return net, encoder


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
        if simulations < 1 or not 1 <= batch <= MAX_BATCH or not c >= 0 or not 0 <= mix <= 1:
            raise ConfigError(
                f"yuxi az: simulations={simulations} must be >= 1, "
                f"batch={batch} in 1..{MAX_BATCH}, c={c} >= 0, mix={mix} in [0, 1]"
            )
        self._models = _Models(model, "az")
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
            net, encoder = self._models.for_game(game)
            # no threads=: an agent in a shared process leaves torch's thread setting alone
            evaluator = NetworkEvaluator(net, encoder)
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
        self._models.for_game(game)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not isinstance(observation, YuxiObservation):
            raise TypeError(f"the yuxi az agent needs a YuxiObservation, got {type(observation).__name__}")
        if len(legal_actions) == 1:
            return legal_actions[0]
        game, evaluator, search = self._room(observation.config)
        if observation.phase == "swap":
            return _swap_by_value(game, evaluator, observation, self._rng)
        return search.act(observation, legal_actions)


def _swap_by_value(
    game: YuxiGame, evaluator: NetworkEvaluator, observation: YuxiObservation, rng: np.random.Generator
) -> Action:
    """The talk's swap: the value head's best outcome of the keep / swap decision."""
    # the swap's outcomes depend only on own cards: any consistent state values them alike
    state = game.sample_state(observation, rng)
    assert state.phase == PH_SWAP
    return evaluator.best_by_value(state)


class YuxiPolicyAgent:
    """The network alone, the talk's online AI (see the module docstring): one forward pass
    per play, one batch of the swap's outcomes per swap, never a search."""

    def __init__(
        self,
        seed: SeedLike = None,
        *,
        model: str = "",
        temperature: float = 0.0,
        name: str | None = None,
    ) -> None:
        if not temperature >= 0:
            raise ConfigError(f"yuxi az-policy: temperature={temperature} must be >= 0")
        self._models = _Models(model, "az-policy")
        self.model = model
        self._rng = as_generator(seed)
        self._temperature = float(temperature)
        self._rooms: dict[YuxiConfig, tuple[YuxiGame, AZNet, YuxiEncoderBase, NetworkEvaluator]] = {}
        self.name = name or (f"az-policy(temperature={temperature:g})" if temperature else "az-policy")

    def _room(self, config: YuxiConfig) -> tuple[YuxiGame, AZNet, YuxiEncoderBase, NetworkEvaluator]:
        room = self._rooms.get(config)
        if room is None:
            game = game_for(config)
            net, encoder = self._models.for_game(game)
            # no cache: a game seldom meets the same position twice without a search
            room = self._rooms[config] = (game, net, encoder, NetworkEvaluator(net, encoder, cache_size=0))
        return room

    def check_game(self, game: YuxiGame) -> None:
        """Raise ConfigError if this agent has no model for ``game``'s board and card table;
        otherwise get the room ready (the model read, the encoder built), so that its first
        move costs what every move does."""
        self._room(game.config)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not isinstance(observation, YuxiObservation):
            raise TypeError(
                f"the yuxi az-policy agent needs a YuxiObservation, got {type(observation).__name__}"
            )
        if len(legal_actions) == 1:
            return legal_actions[0]
        game, net, encoder, evaluator = self._room(observation.config)
        indices = encoder.play_indices(legal_actions)
        if indices is None:  # the swap: no head covers it
            return _swap_by_value(game, evaluator, observation, self._rng)
        priors = self.priors(net, encoder, observation, indices)
        if not self._temperature:
            return legal_actions[int(np.argmax(priors))]
        weights = priors ** (1.0 / self._temperature)
        return legal_actions[int(self._rng.choice(len(legal_actions), p=weights / weights.sum()))]

    @staticmethod
    def priors(
        net: AZNet, encoder: YuxiEncoderBase, observation: YuxiObservation, indices: Sequence[tuple[int, int]]
    ) -> np.ndarray:
        """The policy's probability of each move of ``indices`` at ``observation``: one forward
        pass on one position, straight from the observation (no state, no cache)."""
        planes, vector = encoder.encode_observation(observation)
        with torch.inference_mode():
            out = net(torch.from_numpy(planes[None]), torch.from_numpy(vector[None]))
        second = None if out.second is None else out.second[0].numpy()
        return legal_priors(out.first[0].numpy(), second, indices)
