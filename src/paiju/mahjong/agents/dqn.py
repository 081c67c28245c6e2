"""Q-network mahjong agents (``dqn``, ``ddqn``) and the Q leaf evaluator for the Expectimax.

The network chooses the **discard** (34 values, one per kind; kinds not in hand masked).
Every other decision follows a documented rule, the greedy agent's
(:class:`~paiju.mahjong.agents.greedy.GreedyAgent`): a win is always taken; a concealed or
added kong when it does not raise the shanten; a chow / pung when it lowers it; otherwise
pass. So on its turn the agent asks the rule first and, when the rule would discard, the
network picks which tile.

A model file is written by :func:`paiju.algorithms.dqn.save_model` and carries the feature
version it was trained on (``meta["features"]``); a ResNet (or the supervised baselines' CNN /
DenseNet) takes the 19×19 planes, an MLP the flat features (``docs/mahjong-agents.md`` §4); a
supervised model's 34 outputs are scores over the discard kinds, played the same way (§7).
``dqn`` / ``ddqn`` without ``model=PATH`` play the shipped
``paiju/mahjong/models/mj-dqn.pt`` / ``mj-ddqn.pt`` (``docs/mahjong-training.md`` §1) and say so
clearly (:class:`ConfigError`) when one is missing.

:class:`QLeafEvaluator` values a batch of Expectimax leaves by ``max Q`` over the leaf hand's
discard kinds, the leaf being encoded as the root observation with the leaf's hand, melds and
in-tree discards (identical leaves are encoded and evaluated once).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paiju.algorithms.dqn import QNetwork, load_model, masked_argmax, masked_max
from paiju.core.errors import ConfigError
from paiju.core.rng import SeedLike
from paiju.mahjong import features as F
from paiju.mahjong.agents.greedy import GreedyAgent
from paiju.mahjong.agents.value import LeafState
from paiju.mahjong.game import NUM_PLAYERS, MahjongObservation, Phase
from paiju.mahjong.model_files import MODEL_DIR as MODEL_DIR  # shared with the registry and the trainers
from paiju.mahjong.tiles import NUM_KINDS

_MODELS: dict[str, QModel] = {}
CHUNK = 256
"""Positions per network call within one batched forward pass (:meth:`QModel.q_features`)."""


class QModel:
    """A loaded Q-network and the feature layout it takes; values batches of observations."""

    def __init__(self, net: QNetwork, meta: dict[str, Any], label: str = "model") -> None:
        found = meta.get("features")
        known = tuple(F.FEATURE_SETS.values())
        if found not in known:
            raise ConfigError(
                f"mahjong Q-model {label}: trained on features {found!r}, this paiju encodes "
                f"{' or '.join(repr(v) for v in known)} (retrain it)"
            )
        self.version: str = found
        """The feature set the model was trained on (:data:`~paiju.mahjong.features.FEATURE_SETS`)."""
        shape = net.config.input_shape
        flat = (F.flat_size(found),)
        if shape == F.PLANE_SHAPE and found == F.FEATURES_VERSION:
            self.planes = True
        elif shape == flat:
            self.planes = False
        else:
            raise ConfigError(
                f"mahjong Q-model {label}: input {shape} is neither the planes {F.PLANE_SHAPE} "
                f"nor the flat features {flat} of {found!r}"
            )
        outputs = net.config.num_actions
        if outputs not in (NUM_KINDS, 1):
            raise ConfigError(f"mahjong Q-model {label}: {outputs} outputs, expected {NUM_KINDS} "
                              "(or 1, a value model)")
        self.state_value = outputs == 1
        """A value model (``train-supervised --target score``): one output, the position's points
        / ``score_scale``; it values search leaves but picks no discard."""
        self.label = label
        self.net = net.eval()
        self.meta = meta
        config = meta.get("config") or {}
        self.score_scale = float(config.get("score_scale", 1.0))
        """Points per unit of Q (the training's ``score_scale``; 1 for a model without one)."""
        self.forwards = 0
        """Forward passes so far (a search makes a few per decision: a test counts them)."""

    @classmethod
    def load(cls, path: str | Path, *, ranks: bool = False, agent: str = "") -> QModel:
        """The model at ``path``, cached per process (arena games build a fresh agent each);
        ``ranks``: it must rank discards (34 outputs, not a value model; a clear error naming
        ``agent`` otherwise)."""
        key = str(Path(path).expanduser().resolve())
        if key not in _MODELS:
            net, meta = load_model(key)
            _MODELS[key] = cls(net, meta, label=repr(str(path)))
        model = _MODELS[key]
        if ranks and model.state_value:
            raise ConfigError(f"{agent or 'mahjong agent'}: {model.label} is a value model (one output); "
                              "it cannot pick a discard (give it as value_model=)")
        return model

    def encode(self, observations: Sequence[MahjongObservation]) -> np.ndarray:
        if self.planes:
            return F.encode_planes_batch(observations)
        return F.encode_flat_batch(observations, self.version)

    def q_values(self, observations: Sequence[MahjongObservation]) -> torch.Tensor:
        """``(B, 34)`` Q-values of the discard kinds."""
        with torch.no_grad():
            q: torch.Tensor = self.net(torch.from_numpy(self.encode(observations)))
        self.forwards += 1
        return q

    def q_features(self, kinds: np.ndarray, scalars: np.ndarray) -> torch.Tensor:
        """``(B, 34)`` Q-values from :func:`~paiju.mahjong.features.encode_features`-style arrays.

        One forward pass, run in chunks of :data:`CHUNK` positions: a search's thousands of
        leaves as 19×19 planes would take hundreds of MB at once, and on this CPU a
        ResNet is faster per position at 256 than at 1,024 (1.4 against 2.1 ms).
        """
        parts = []
        for i in range(0, len(kinds), CHUNK):
            k, s = kinds[i : i + CHUNK], scalars[i : i + CHUNK]
            x = F.planes_from_features(k, s) if self.planes else F.flat_from_features(k, s, self.version)
            with torch.no_grad():
                parts.append(self.net(torch.from_numpy(x)))
        self.forwards += 1
        return torch.cat(parts) if parts else torch.zeros((0, NUM_KINDS))


def model_file_exists(model: str) -> bool:
    """Whether ``model`` (``~`` expanded) is a file; ``~name/...`` of no such user is not one
    (``expanduser`` raises RuntimeError there)."""
    try:
        return Path(model).expanduser().is_file()
    except RuntimeError:
        return False


def resolve_model(model: str, name: str, agent: str = "") -> str:
    """``model`` as given, or the shipped file ``mj-{name}.pt`` (a clear error naming ``agent``,
    default ``name``, if absent)."""
    who = agent or name
    if model:
        if not model_file_exists(model):
            raise ConfigError(f"{who}: model file {model!r} does not exist")
        return model
    shipped = MODEL_DIR / f"mj-{name}.pt"
    if not shipped.is_file():
        raise ConfigError(
            f"{who}: no shipped model (paiju/mahjong/models/mj-{name}.pt is not there); "
            f"pass model=PATH to a model trained by the mahjong DQN training command"
        )
    return str(shipped)


class DQNAgent:
    """Discards by the Q-network's best legal kind; wins, kongs and claims by the greedy rule."""

    def __init__(
        self,
        seed: SeedLike = None,
        model: str = "",
        threads: int = 1,
        defence: bool = True,
        name: str = "ddqn",
    ) -> None:
        self.name = name
        if threads > 0:
            torch.set_num_threads(threads)
        self.model = QModel.load(resolve_model(model, name), ranks=True, agent=name)
        self.rule = GreedyAgent(seed, defence=defence)
        # deterministic: the seed is accepted for the registry's uniform interface only

    def act(self, observation: Any, legal_actions: Sequence[int]) -> int:
        obs: MahjongObservation = observation
        legal = list(legal_actions)
        choice = self.rule.act(obs, legal)
        if obs.phase != Phase.TURN or choice >= NUM_KINDS:
            return choice
        mask = np.zeros(NUM_KINDS, dtype=np.bool_)
        mask[[a for a in legal if a < NUM_KINDS]] = True
        q = self.model.q_values([obs])
        return int(masked_argmax(q, torch.from_numpy(mask[None, :]))[0])


River = tuple[tuple[int, int], ...]


def path_river(
    observation: MahjongObservation, discards: Sequence[int], draws: Sequence[int]
) -> tuple[River, tuple[bool, ...]]:
    """Own river after the in-tree ``discards`` (and ``draws``) from the root: the root's plus
    the in-tree discards, with their 摸打 flags (an in-tree discard is 摸打 exactly when it is
    the tile drawn just before it)."""
    p = observation.player
    drawn_before = (observation.drawn, *draws)
    river = observation.discards[p] + tuple((k, -1) for k in discards)
    flags = observation.discards_drawn[p] + tuple(d == drawn_before[i] for i, d in enumerate(discards))
    return river, flags


def path_live_tiles(observation: MahjongObservation, draws: Sequence[int]) -> int:
    """Tiles left after the in-tree ``draws``: every own draw is one go-around of four draws."""
    return max(observation.live_tiles - NUM_PLAYERS * len(draws), 0)


def _leaf_river(observation: MahjongObservation, leaf: LeafState) -> tuple[River, tuple[bool, ...]]:
    return path_river(observation, leaf.discards, leaf.draws)


def _leaf_live_tiles(observation: MahjongObservation, leaf: LeafState) -> int:
    return path_live_tiles(observation, leaf.draws)


def leaf_observation(observation: MahjongObservation, leaf: LeafState) -> MahjongObservation:
    """The root observation as it would be at ``leaf``: the player's own turn, his hand,
    melds and river after the in-tree draws and discards, the wall shorter by those turns."""
    river, flags = _leaf_river(observation, leaf)
    return F.own_turn(observation, leaf.hand, leaf.melds, river, flags, _leaf_live_tiles(observation, leaf))


class QLeafEvaluator:
    """A :class:`~paiju.mahjong.agents.value.LeafValueEvaluator`: each leaf's ``max Q`` over
    the kinds of its hand, times ``scale``, all leaves in one forward pass.

    A 3k+1 leaf is encoded as a turn before its draw; a 3k+2 leaf (a turn after the draw, the
    combined tree's ``leaf=draw``) with its last in-tree draw as the tile just drawn, as the
    network saw such positions in training.

    With a ``selector`` (another Q-network) a leaf is worth ``model``'s Q of the discard the
    selector ranks first, not ``model``'s own max: the Double DQN's decoupling of choosing an
    action from valuing it, here between a network that ranks discards well and one whose Q
    is in points (``CombinedAgent``'s ``value_model``). A value model (one output) is worth
    its output, with or without a selector.
    """

    def __init__(self, model: QModel, scale: float = 1.0, selector: QModel | None = None) -> None:
        self.model = model
        self.scale = float(scale)
        self.selector = selector

    def evaluate(self, observation: MahjongObservation, leaves: Sequence[LeafState]) -> np.ndarray:
        if not leaves:
            return np.zeros(0, dtype=np.float64)
        index: dict[tuple[Any, ...], int] = {}
        unique: list[LeafState] = []
        slots = np.empty(len(leaves), dtype=np.int64)
        for i, leaf in enumerate(leaves):
            key = (leaf.hand, leaf.melds, leaf.discards, leaf.draws)
            if key not in index:
                index[key] = len(unique)
                unique.append(leaf)
            slots[i] = index[key]
        rivers = [_leaf_river(observation, leaf) for leaf in unique]
        kinds, scalars = F.encode_own_turns(
            observation,
            [leaf.hand for leaf in unique],
            [leaf.melds for leaf in unique],
            [r for r, _ in rivers],
            [f for _, f in rivers],
            [_leaf_live_tiles(observation, leaf) for leaf in unique],
        )
        drawn = [(i, leaf.draws[-1]) for i, leaf in enumerate(unique) if sum(leaf.hand) % 3 == 2]
        if drawn:
            rows, tiles = zip(*drawn, strict=True)
            kinds[list(rows), F.DRAWN, list(tiles)] = 1.0
        mask = torch.from_numpy(np.asarray([leaf.hand for leaf in unique], dtype=np.int64) > 0)
        q = self.model.q_features(kinds, scalars)
        if self.model.state_value:
            values = q[:, 0].numpy().astype(np.float64)
        elif self.selector is None:
            values = masked_max(q, mask).numpy().astype(np.float64)
        else:
            best = masked_argmax(self.selector.q_features(kinds, scalars), mask)
            values = q.gather(1, best.view(-1, 1)).squeeze(1).numpy().astype(np.float64)
        return self.scale * values[slots]
