"""Fixed action spaces for games whose actions are typed values (Dou Dizhu).

Environments of PettingZoo and Gymnasium need a ``Discrete(n)`` action space, but a Dou
Dizhu move is a typed :class:`~paiju.doudizhu.moves.Move`. :class:`DouDizhuActionSpace`
numbers every distinct card set that can be played under a wing rule (docs/interop.md):

* index 0 is the pass;
* indices ``1 .. num_moves - 1`` are the card sets of at most 20 cards (the landlord's hand
  size) that are a legal play on a free lead from a full deck under the wing rule, sorted
  by (number of cards, packed count key): every card set any hand can ever play, once;
* the last four indices are the bids 0..3 (used only when the game bids).

Under RLCard's wing rule (``wing_rule="rlcard"``) ``num_moves`` is 27,472, RLCard's own
action count; under DouZero's looser rule it is 29,985. An index names a *card set*, not a
reading: in a state, each card set has at most one legal reading (move generation never
yields a set twice), so :meth:`DouDizhuActionSpace.decode` picks the legal move with that
card set. The table is built once per wing rule (about half a second) and cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final

import numpy as np

from paiju.core.errors import ConfigError, IllegalMoveError
from paiju.doudizhu.cards import HAND_SIZES, MAX_COUNT, NUM_RANKS
from paiju.doudizhu.game import BIDS, Bid, DouDizhuAction
from paiju.doudizhu.movegen import generate
from paiju.doudizhu.moves import UNIT, Move

WING_RULES: Final = ("douzero", "rlcard")
MAX_MOVE_CARDS: Final = max(HAND_SIZES)
"""No hand holds more than 20 cards, so no longer card set is ever playable."""


class DouDizhuActionSpace:
    """Index <-> Dou Dizhu action for one wing rule (build it with :func:`doudizhu_action_space`)."""

    def __init__(self, wing_rule: str) -> None:
        if wing_rule not in WING_RULES:
            raise ConfigError(f"unknown wing_rule {wing_rule!r}; use 'douzero' or 'rlcard'")
        self.wing_rule = wing_rule
        full_deck = sum(UNIT[r] * MAX_COUNT[r] for r in range(NUM_RANKS))
        sets = {m.key: m for m in generate(full_deck, None, strict=wing_rule == "rlcard")}
        keys = sorted((k for k, m in sets.items() if m.size <= MAX_MOVE_CARDS),
                      key=lambda k: (sets[k].size, k))
        self.keys: tuple[int, ...] = (0, *keys)
        """``keys[i]``: packed card counts of move index ``i`` (0: the pass, no cards)."""
        self.num_moves = len(self.keys)
        self.n = self.num_moves + len(BIDS)
        """Size of the whole space: the moves, then the four bids."""
        self._index = {k: i for i, k in enumerate(self.keys)}

    def index(self, action: DouDizhuAction) -> int:
        """The index of a move or bid (raises :class:`IllegalMoveError` for anything else)."""
        if isinstance(action, Bid):
            return self.num_moves + action.value
        if isinstance(action, Move):
            got = self._index.get(action.key)
            if got is not None:
                return got
        raise IllegalMoveError(f"{action!r} has no index in the {self.wing_rule} action space")

    def mask(self, legal: Sequence[DouDizhuAction]) -> np.ndarray:
        """``int8`` mask over the space: 1 at the index of each legal action."""
        out = np.zeros(self.n, dtype=np.int8)
        for action in legal:
            out[self.index(action)] = 1
        return out

    def decode(self, index: int, legal: Sequence[DouDizhuAction]) -> DouDizhuAction:
        """The legal action with this index; :class:`IllegalMoveError` when none has it."""
        if not 0 <= index < self.n:
            raise IllegalMoveError(f"action index {index} outside 0..{self.n - 1}")
        for action in legal:
            if self.index(action) == index:
                return action
        what = f"bid {index - self.num_moves}" if index >= self.num_moves else f"card set #{index}"
        raise IllegalMoveError(f"action index {index} ({what}) is not legal here")


@cache
def doudizhu_action_space(wing_rule: str = "douzero") -> DouDizhuActionSpace:
    """The cached action space of a wing rule."""
    return DouDizhuActionSpace(wing_rule)


__all__ = ["BIDS", "MAX_MOVE_CARDS", "WING_RULES", "DouDizhuActionSpace", "doudizhu_action_space"]
