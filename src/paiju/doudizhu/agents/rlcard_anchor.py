"""``rlcard-rule``: RLCard's Dou Dizhu rule agent (``doudizhu-rule-v1``) behind our agent API.

The external anchor of the ladder (``docs/ddz-agents.md``): our agents play
``rlcard.models.doudizhu_rule_models.DouDizhuRuleAgentV1`` on the same deals with sides
swapped. RLCard is a test/benchmark-only dependency, so it is imported lazily, when the
first ``rlcard-rule`` agent is built.

The adapter turns our :class:`~paiju.doudizhu.game.DouDizhuObservation` into the raw state
dict that agent reads (``current_hand``, ``trace``, ``actions``, ``landlord``, ``self``) and
maps its answer back to one of our legal moves. Notation: RLCard writes the same ranks in
the same order (``3..A2``) but the jokers as ``B`` (black, small) and ``R`` (red, big); we
write ``X`` and ``D``. Seats are RLCard player ids (both play in increasing seat order).

Play it under RLCard's own wing rule (game option ``wing_rule="rlcard"``): every move is
then in RLCard's move table. Under the default DouZero wings a move RLCard cannot classify
may appear; such legal actions are hidden from it, and if the trick itself is one it passes.

Randomness: when it cannot follow, the RLCard agent draws with NumPy's *global* generator.
The adapter seeds that generator from the agent's own seeded generator just for the call and
restores the global state afterwards, so games are reproducible and nothing else is
disturbed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from paiju.core.errors import ConfigError
from paiju.core.protocol import Action
from paiju.core.rng import SeedLike, as_generator
from paiju.doudizhu.game import BIDS, Bid, DouDizhuObservation, are_moves
from paiju.doudizhu.moves import PASS, Move

_TO_RLCARD = str.maketrans({"X": "B", "D": "R"})


def to_rlcard(move: Move) -> str:
    """RLCard notation of a move (``"pass"`` for a pass)."""
    return "pass" if move.is_pass else str(move).translate(_TO_RLCARD)


def raw_state(
    observation: DouDizhuObservation, legal: Sequence[Move], table: dict[str, Any]
) -> dict[str, Any]:
    """The ``raw_obs`` dict RLCard's rule agent reads, built from our observation only."""
    if observation.landlord is None:
        raise ValueError("the RLCard rule agent plays the card-play phase; there is no landlord yet")
    actions = [to_rlcard(m) for m in legal]
    return {
        "current_hand": str(observation.hand).translate(_TO_RLCARD),
        "trace": [(seat, to_rlcard(m)) for seat, m in observation.history],
        "actions": [a for a in actions if a == "pass" or a in table],
        "landlord": observation.landlord,
        "self": observation.player,
        "played_cards": [str(observation.played_cards()).translate(_TO_RLCARD)],
        "num_cards_left": list(observation.hand_sizes),
    }


class RLCardRuleAgent:
    """Adapter around ``DouDizhuRuleAgentV1`` (RLCard 1.2)."""

    def __init__(self, seed: SeedLike = None, name: str = "rlcard-rule") -> None:
        try:
            from rlcard.games.doudizhu.utils import CARD_TYPE
            from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1
        except ImportError as err:  # pragma: no cover - rlcard is a dev dependency
            raise ConfigError(
                f"agent {name!r} needs RLCard (pip install rlcard; a test/benchmark dependency): {err}"
            ) from None
        self.name = name
        self._rng = as_generator(seed)
        self._agent = DouDizhuRuleAgentV1()
        self._table: dict[str, Any] = CARD_TYPE[0]

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("rlcard-rule agent asked to act with no legal actions")
        if observation.phase == "bidding" or isinstance(legal_actions[0], Bid):
            # RLCard's Dou Dizhu has no bidding; bid like our rule agent would not be RLCard's
            # behaviour, so the anchor simply never bids (the others decide the landlord)
            return BIDS[0] if BIDS[0] in legal_actions else legal_actions[0]
        if not are_moves(legal_actions):
            raise ValueError(f"rlcard-rule agent: expected the play phase's moves, not {legal_actions[0]!r}")
        by_text = {to_rlcard(m): m for m in legal_actions}
        trick = observation.to_beat
        if trick is not None and to_rlcard(trick) not in self._table:
            return PASS
        state = raw_state(observation, legal_actions, self._table)
        saved = np.random.get_state()
        np.random.seed(int(self._rng.integers(2**32)))
        try:
            answer = self._agent.step({"raw_obs": state})
        finally:
            np.random.set_state(saved)
        move = by_text.get(str(answer))
        if move is None:
            raise ValueError(
                f"RLCard's rule agent answered {answer!r}, not one of the legal moves {sorted(by_text)}"
            )
        return move


__all__ = ["RLCardRuleAgent", "raw_state", "to_rlcard"]
