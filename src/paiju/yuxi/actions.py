"""The fixed action space of yuxi and its chance outcomes.

One flat integer space serves every board (the target axis is as wide as the largest
board), so a network's policy head and the legal mask have the same shape everywhere::

    0                                   END_TURN  (card id 0 in the talk's encoding)
    1                                   KEEP      (decline the swap offer)
    2 + slot * N + (give - 1)           SWAP: give hand card id ``give`` for offered slot ``slot``
                                        (slot 0..3 of the sorted offer; N = number of card ids)
    PLAY_BASE + (card - 1) * 25 + t     PLAY card id ``card`` at target ``t``: a cell 0..23, or
                                        24 = no target (spells that act on no cell)

with ``PLAY_BASE = 2 + 4 * N``. With the shipped 44 card ids the space has 1,278 actions.
A play action factors as (card id, position), matching the talk's two-headed policy
(card, then position given the card).

Chance outcomes are typed values rather than ints, each with notation: the opening deal
(:class:`Deal`, both hands at once), a swap offer (:class:`Offer`, the cards revealed from the
deck) and the first player's end-of-game die (:class:`DieRoll`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paiju.yuxi.board import MAX_CELLS

END_TURN = 0
KEEP = 1
SWAP_BASE = 2
MAX_OFFER = 4
"""Largest swap offer: 2 deck cards, 4 when one hand card is left."""
N_TARGETS = MAX_CELLS + 1
NO_TARGET = MAX_CELLS
"""Target index of a play that names no cell."""

KIND_END, KIND_KEEP, KIND_SWAP, KIND_PLAY = "end", "keep", "swap", "play"


@dataclass(frozen=True)
class ActionSpace:
    """Encoding and decoding of decision actions for a card table with ``num_ids`` ids."""

    num_ids: int
    play_base: int = field(init=False)
    size: int = field(init=False)
    """Number of actions (the length of the legal mask)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "play_base", SWAP_BASE + MAX_OFFER * self.num_ids)
        object.__setattr__(self, "size", self.play_base + self.num_ids * N_TARGETS)

    def swap(self, slot: int, give: int) -> int:
        """Give hand card id ``give`` for the offered card in ``slot``."""
        return SWAP_BASE + slot * self.num_ids + give - 1

    def play(self, card: int, target: int = NO_TARGET) -> int:
        """Play card id ``card`` on ``target`` (a cell, or :data:`NO_TARGET`)."""
        return self.play_base + (card - 1) * N_TARGETS + target

    def decode(self, action: int) -> tuple[str, int, int]:
        """``(kind, a, b)``: ("end",0,0), ("keep",0,0), ("swap", slot, give), ("play", card, target).

        Raises ValueError for an int outside the space (callers turn it into IllegalMoveError)."""
        if action == END_TURN:
            return KIND_END, 0, 0
        if action == KEEP:
            return KIND_KEEP, 0, 0
        if SWAP_BASE <= action < self.play_base:
            slot, give = divmod(action - SWAP_BASE, self.num_ids)
            return KIND_SWAP, slot, give + 1
        if self.play_base <= action < self.size:
            card, target = divmod(action - self.play_base, N_TARGETS)
            return KIND_PLAY, card + 1, target
        raise ValueError(f"action {action} is outside the yuxi action space 0..{self.size - 1}")


@dataclass(frozen=True, slots=True)
class Deal:
    """Chance: the opening hands of both players (sorted card ids)."""

    hands: tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Offer:
    """Chance: the cards a swap reveals from the deck of the player to move (sorted ids)."""

    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DieRoll:
    """Chance: the first player's end-of-game bonus die, 1..6."""

    value: int


ChanceOutcome = Deal | Offer | DieRoll
