"""The ``xgb`` Dou Dizhu agent: gradient-boosted trees that rank the legal moves.

Why: the hand-splitting paper's play AI was trained with XGBoost on game records; this is
ours (issue 15, item 7), trained on records of ``search`` (``python -m
paiju.doudizhu.train_xgb``), whose moves, unlike ``rule``'s, do not follow one split by
construction. A decision is encoded by :mod:`paiju.doudizhu.encoding` (the same encoding as
the ``policy`` network) and flattened here into one row of :data:`FEATURE_NAMES` per legal
move: what the player sees, as rank counts (the encoding's "at least k" bits summed per
rank; trees split on counts as well as on bits), and the move with what it leaves. A ranking
objective over the legal moves of each decision (the expert's move relevant, the others
not) trains the trees; the agent plays the top-ranked move.

Models are XGBoost's own JSON format with a ``paiju`` header in the booster's attributes
(format, encoding version, feature names), so a model made for another encoding or feature
list is refused with an error naming the file. The shipped model is
``paiju/doudizhu/models/ddz-xgb.json``, read through :mod:`importlib.resources`.

Bidding (games with bidding) uses the rule agent's hand-strength bid, as ``policy`` does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import Action
from paiju.core.rng import SeedLike
from paiju.doudizhu.agents import XGB_DEFAULTS
from paiju.doudizhu.agents.rule import RuleAgent
from paiju.doudizhu.cards import NUM_RANKS, RANKS
from paiju.doudizhu.encoding import (
    BIT_RANKS,
    CARD_BITS,
    ENCODING_VERSION,
    STATE_LAYOUT,
    Decision,
    encode_decision,
)
from paiju.doudizhu.game import DouDizhuObservation, are_moves
from paiju.doudizhu.moves import Move

MODEL_FORMAT: Final = "paiju.doudizhu.xgb/1"
SHIPPED: Final = ("search",)
"""Names of the shipped models (``xgb:model=search``: trained on ``search`` self-play)."""

_RANK_OF_BIT: Final = np.zeros((CARD_BITS, NUM_RANKS), dtype=np.float32)
_RANK_OF_BIT[np.arange(CARD_BITS), BIT_RANKS] = 1.0  # "at least k of rank r" bits per rank sum to the count


def _state_names() -> list[str]:
    names = []
    for block, width in STATE_LAYOUT:
        if width == CARD_BITS:
            names += [f"{block}_{r}" for r in RANKS]
        else:
            names.append(block)  # a one-hot block: its index
    return names


STATE_NAMES: Final = tuple(_state_names())
_PLAYS_NOW: Final = STATE_NAMES.index("plays_now")
MOVE_NAMES: Final = (
    *(f"hand_{r}" for r in RANKS),
    *(f"move_{r}" for r in RANKS),
    "move_type", "move_rank", "move_length", "move_cards", "plays_after", "plays_saved",
    "cards_left", "legal_moves", "rule_move",
)
FEATURE_NAMES: Final = (*STATE_NAMES, *MOVE_NAMES)
"""One row per legal move: the state (counts per rank for card blocks, the index of each
one-hot block), the hand, the move's rank counts, type, main rank, body length and size,
the fewest plays left after it, plays saved (fewest plays now − after), cards left after it,
the number of legal moves of the decision, and whether it is the move the ``rule`` agent
plays (``search`` rolls out with ``rule`` and leads from the same split, so the trees learn
where the expert departs from it)."""


def state_row(state: np.ndarray) -> np.ndarray:
    """The compact state features (:data:`STATE_NAMES`) of an encoded state vector."""
    out = []
    pos = 0
    for _block, width in STATE_LAYOUT:
        part = state[pos : pos + width].astype(np.float32)
        if width == CARD_BITS:
            out.append(part @ _RANK_OF_BIT)
        else:
            hot = np.flatnonzero(part)
            out.append(np.array([hot[0] if hot.size else -1], dtype=np.float32))
        pos += width
    return np.concatenate(out)


_RULE = RuleAgent()
"""Deterministic and stateless: one instance answers for every seat and game."""


def rule_index(observation: DouDizhuObservation, legal: Sequence[Move]) -> int:
    """Index in ``legal`` of the move the ``rule`` agent plays."""
    moves: list[Any] = list(legal)
    return moves.index(_RULE.act(observation, legal))


def decision_features(observation: DouDizhuObservation, legal: Sequence[Move]) -> np.ndarray:
    """The rows of one play-phase decision: :func:`candidate_features` of its encoding."""
    return candidate_features(encode_decision(observation, legal), rule_index(observation, legal))


def candidate_features(decision: Decision, rule_choice: int) -> np.ndarray:
    """float32[R, len(FEATURE_NAMES)]: one row per candidate move of ``decision``;
    ``rule_choice`` is the index of the ``rule`` agent's move among them."""
    n = len(decision.move_type)
    state = state_row(decision.state)
    plays_now = state[_PLAYS_NOW]
    hand = decision.hand.astype(np.float32)
    moves = decision.moves.astype(np.float32)
    cards = moves.sum(axis=1)
    after = decision.plays_after.astype(np.float32)
    is_rule = np.zeros(n, dtype=np.float32)
    is_rule[rule_choice] = 1.0
    per_move = np.column_stack([
        np.broadcast_to(hand, (n, NUM_RANKS)),
        moves,
        decision.move_type, decision.move_rank, decision.move_length, cards, after, plays_now - after,
        hand.sum() - cards, np.full(n, n, dtype=np.float32), is_rule,
    ]).astype(np.float32)
    return np.concatenate([np.broadcast_to(state, (n, state.size)), per_move], axis=1)


def model_header() -> dict[str, Any]:
    """The header a model must carry to be used by this code."""
    return {"format": MODEL_FORMAT, "encoding_version": ENCODING_VERSION, "features": list(FEATURE_NAMES)}


def check_header(booster: Any, label: str) -> None:
    raw = booster.attr("paiju")
    try:
        header = json.loads(raw) if raw else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("format") != MODEL_FORMAT:
        raise CorruptRecordError(f"{label}: not a paiju xgb model (no {MODEL_FORMAT!r} header)")
    if header.get("encoding_version") != ENCODING_VERSION:
        raise CorruptRecordError(
            f"{label}: made for encoding version {header.get('encoding_version')}, "
            f"this code has {ENCODING_VERSION}"
        )
    if header.get("features") != list(FEATURE_NAMES):
        raise CorruptRecordError(f"{label}: made for another feature list than this code's")


_MODELS: dict[tuple[str, float], Any] = {}


def load_model(model: str) -> Any:
    """A shipped model by name or a model file (XGBoost JSON); cached per process."""
    import xgboost as xgb

    if model in SHIPPED:
        key = (model, 0.0)
        if key not in _MODELS:
            label = f"paiju/doudizhu/models/ddz-xgb-{model}.json"
            try:
                data = resources.files("paiju.doudizhu.models").joinpath(f"ddz-xgb-{model}.json").read_bytes()
            except FileNotFoundError:
                raise CorruptRecordError(f"{label}: shipped model is missing from the package") from None
            _MODELS[key] = _booster(xgb, bytearray(data), label)
        return _MODELS[key]
    try:
        path = Path(model).expanduser()
    except RuntimeError:  # "~name/..." for a user this system does not have
        raise ConfigError(f"xgb model {model!r}: no home folder for {model.split('/')[0]!r}") from None
    if not path.suffix and not path.exists():
        raise ConfigError(
            f"unknown xgb model {model!r}: use one of {', '.join(SHIPPED)} or a path to a .json model"
        )
    try:
        stamp = path.stat().st_mtime
        key = (str(path.resolve()), stamp)
        if key not in _MODELS:
            _MODELS[key] = _booster(xgb, bytearray(path.read_bytes()), str(path))
    except FileNotFoundError:
        raise CorruptRecordError(f"{path}: no such model file") from None
    except OSError as err:
        raise CorruptRecordError(f"{path}: cannot read the model file ({err.strerror})") from None
    return _MODELS[key]


def _booster(xgb: Any, data: bytearray, label: str) -> Any:
    if not data:  # XGBoost's reader aborts the whole process on an empty buffer
        raise CorruptRecordError(f"{label}: not an XGBoost model (an empty file)")
    booster = xgb.Booster()
    try:
        booster.load_model(data)
    except xgb.core.XGBoostError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else "unreadable"
        first = re.sub(r"^\[[^\]]*\]\s*\S+:\d+:\s*", "", first)  # XGBoost's time and source line
        raise CorruptRecordError(f"{label}: not an XGBoost model ({first})") from None
    check_header(booster, label)
    booster.set_param({"nthread": 1})  # a decision scores a few dozen rows: threads only cost
    return booster


class XgbAgent:
    """Plays the legal move the trees rank highest (ties: the first in legal order)."""

    def __init__(self, booster: Any, seed: SeedLike = None, name: str = "xgb") -> None:
        self.name = name
        self.booster = booster

    def scores(self, observation: Any, legal_actions: Sequence[Action]) -> np.ndarray:
        """The trees' score of every legal move (play phase), in the given order."""
        if not are_moves(legal_actions):
            raise ValueError(f"xgb agent: it scores moves of the play phase, not {legal_actions[0]!r}")
        rows = decision_features(observation, legal_actions)
        return np.asarray(self.booster.inplace_predict(rows), dtype=np.float64)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("xgb agent asked to act with no legal actions")
        if observation.phase == "bidding":
            from paiju.doudizhu.agents.rule import bid_for

            return bid_for(observation.hand, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        return legal_actions[int(np.argmax(self.scores(observation, legal_actions)))]


def make_xgb_agent(seed: SeedLike = None, model: str = XGB_DEFAULTS["model"]) -> XgbAgent:
    """Registry factory: ``xgb:model=search|PATH``."""
    return XgbAgent(load_model(model), seed=seed)


__all__ = [
    "FEATURE_NAMES",
    "MODEL_FORMAT",
    "SHIPPED",
    "XgbAgent",
    "candidate_features",
    "check_header",
    "decision_features",
    "load_model",
    "make_xgb_agent",
    "model_header",
    "rule_index",
    "state_row",
]
