"""The phases of a yuxi game, in their own module so that the game, the invariant checker,
the renderer and the scenario builder can all import them without importing each other."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    """Where a game stands; the value is what a state stores, the lower-case name what an
    observation shows."""

    DEAL = 0
    """chance: the opening hands are dealt"""
    OFFER = 1
    """chance: the cards offered for the opening swap are drawn"""
    SWAP = 2
    """the player to move keeps a hand card or swaps it for the offer"""
    PLAY = 3
    """the player to move plays a card or ends the turn"""
    DIE = 4
    """chance: the first player's die bonus is rolled"""
    OVER = 5
    """the game has ended"""


# module-level aliases: as fast as int constants on the hot paths that compare phases
PH_DEAL, PH_OFFER, PH_SWAP, PH_PLAY, PH_DIE, PH_OVER = Phase
PHASE_NAMES: tuple[str, ...] = tuple(phase.name.lower() for phase in Phase)
"""``PHASE_NAMES[state.phase]`` is the phase as observations and records spell it."""
