"""The ``greedy`` Dou Dizhu agent: shed as many cards as possible, follow as cheaply as possible.

It is the second rung of the ladder (random < greedy < rule < search): it knows the move
types but nothing of hand structure, partners or the end game, so it is a clear step up from
uniform random play without being a sensible player. Its rules (``docs/ddz-agents.md``):

* **Lead**: play the non-bomb move with the most cards; ties go to the lowest main rank,
  then to the lowest cards (kickers). Bombs and the rocket are led only when nothing else is
  left.
* **Follow**: play the lowest beating move of the trick's own type (same tie-break); never
  bomb, and pass when nothing of that type beats the trick.
* **Bid** (games with bidding): the hand-strength bid of :func:`paiju.doudizhu.agents.rule.bid_for`.

Deterministic: the seed is accepted (every agent is seeded) but nothing is random.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paiju.core.protocol import Action
from paiju.core.rng import SeedLike
from paiju.doudizhu.game import are_moves
from paiju.doudizhu.moves import BOMB_TYPES, PASS, Move, MoveType


def _is_bomb(m: Move) -> bool:
    return m.type in BOMB_TYPES


def greedy_move(legal: Sequence[Move], to_beat: Move | None) -> Move:
    """The greedy choice among ``legal`` (pass included when following)."""
    moves = [m for m in legal if m.type != MoveType.PASS]
    if to_beat is None:
        normal = [m for m in moves if not _is_bomb(m)] or moves
        return min(normal, key=lambda m: (-m.size, m.rank, m.key))
    same = [m for m in moves if m.type == to_beat.type and not _is_bomb(m)]
    if not same:
        return PASS
    return min(same, key=lambda m: (m.rank, m.key))


class GreedyAgent:
    """Sheds the most cards on a lead, follows with the cheapest move of the same type."""

    def __init__(self, seed: SeedLike = None, name: str = "greedy") -> None:
        self.name = name
        self.seed = seed

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("greedy agent asked to act with no legal actions")
        if observation.phase == "bidding":
            from paiju.doudizhu.agents.rule import bid_for

            return bid_for(observation.hand, legal_actions)
        if not are_moves(legal_actions):
            raise ValueError(f"greedy agent: in play the legal actions are moves, not {legal_actions[0]!r}")
        return greedy_move(legal_actions, observation.to_beat)


__all__ = ["GreedyAgent", "greedy_move"]
