"""What a yuxi position holds: the board as parallel lists per cell, the hands, decks, graves,
purses and scores, and where the turn stands.

:class:`Position` declares the data; :class:`paiju.yuxi.game.YuxiState` is a Position with
the rules that move it. The engine's parts act on a Position by these attributes: the effect
primitives (:mod:`paiju.yuxi.effects`), the invariant checker (:mod:`paiju.yuxi.invariants`)
and the boards' rendering (:mod:`paiju.yuxi.render`). They import this module, never the game
module that runs them, so none of them is in an import circle with it (not even for the type
checker: ``tests/yuxi/test_yuxi_layers.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from paiju.yuxi.board import BoardShape
    from paiju.yuxi.card_types import CompiledCard
    from paiju.yuxi.events import EventLog
    from paiju.yuxi.phases import Phase


class RoomOptions(Protocol):
    """The room option the engine's parts read (:class:`paiju.yuxi.game.YuxiConfig` has it)."""

    @property
    def die_bonus(self) -> bool: ...


class Room(Protocol):
    """What the engine's parts read of the game a position belongs to
    (:class:`paiju.yuxi.game.YuxiGame`): each seat's fixed deck as copies per card id, and the
    room's options. The rest of a position's game facts are its own attributes (``shape``,
    ``cards``)."""

    @property
    def initial_decks(self) -> Sequence[Sequence[int]]: ...

    @property
    def config(self) -> RoomOptions: ...


class Position:
    """A yuxi position's data. Board attributes are parallel lists indexed by cell; per-player
    attributes are pairs indexed by seat; card counts are lists indexed by card id."""

    # flat lists in slots: a clone is a few list copies, and search clones thousands of times
    __slots__ = (
        "acted",
        "armour",
        "base",
        "bonus",
        "card",
        "cards",
        "cd",
        "coin_total",
        "coins",
        "deck",
        "deck_n",
        "grave",
        "hand",
        "log",
        "offer",
        "offer_size",
        "out",
        "owner",
        "phase",
        "played",
        "power",
        "purse",
        "score",
        "shape",
        "skipped",
        "to_move",
        "turn",
        "voids",
        "weather",
    )

    game: Room
    """The game this position belongs to (the state's class narrows it to its game)."""
    shape: BoardShape
    cards: tuple[CompiledCard | None, ...]
    """The game's compiled cards by id (index 0 is None), read on every play."""
    log: EventLog | None
    """Records what each step did when set (:mod:`paiju.yuxi.events`); clones never record."""

    # ---- the board, per cell (card id 0: empty) ----
    card: list[int]
    owner: list[int]
    power: list[int]
    base: list[int]
    """Starting (printed) points of the character on the cell."""
    armour: list[int]
    coins: list[int]
    cd: list[int]
    weather: list[int]

    # ---- per player ----
    hand: list[list[int]]
    """Card ids, sorted."""
    deck: list[list[int]]
    """Copies per card id."""
    deck_n: list[int]
    grave: list[list[int]]
    voids: list[list[int]]
    """Void cards created so far, per player and id (re-derived by the invariant checker)."""
    purse: list[int]
    score: list[int]
    """Points on the board per player, kept incrementally by the effect primitives."""
    out: list[bool]
    skipped: list[bool]
    """The player's last turn ended by itself (nothing playable) and no card was played since."""
    coin_total: int
    """The coin ledger: mints minus burns; must equal all coins in existence."""

    # ---- the turn ----
    phase: Phase
    to_move: int
    played: bool
    """The player to move has played a deck (non-void) card this turn."""
    acted: bool
    """The player to move has played any card this turn (else ending the turn is a pass)."""
    offer: list[int]
    offer_size: int
    turn: int
    bonus: int
