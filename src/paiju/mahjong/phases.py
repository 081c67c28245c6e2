"""The mahjong engine's seat count, hand size, phase codes and draw kinds.

A module of their own, re-exported by :mod:`paiju.mahjong.game`, because code that reads
observations or walls (determinization, :mod:`paiju.mahjong.determinize`; the wall notation,
:mod:`paiju.mahjong.notation`) needs these facts without importing the engine that calls it
(``docs/design.md`` §21).
"""

from __future__ import annotations

from enum import IntEnum

NUM_PLAYERS = 4
HAND_SIZE = 16
"""Tiles dealt to each seat (the dealer gets one more): Taiwan 16-tile mahjong."""


class Phase(IntEnum):
    DEAL = 0
    """Chance node: the wall shuffle of the next hand."""
    TURN = 1
    CLAIM = 2
    ROB = 3
    OVER = 4


class DrawKind(IntEnum):
    NONE = 0
    """No draw this turn (dealer's first turn, or the turn after a chow / pung)."""
    NORMAL = 1
    REPLACEMENT = 2
    """From the tail after a kong (also when a flower interrupted that replacement)."""
    FLOWER = 3
    """From the tail after a flower revealed on a normal draw (only with flowers)."""
