"""Dou Dizhu (斗地主): cards and notation, moves, legal-move generation, the game, splitting.

Light on purpose: importing ``paiju.doudizhu`` loads only the card notation
(:mod:`paiju.doudizhu.cards`); the move classifier and generator
(:mod:`paiju.doudizhu.moves`, :mod:`paiju.doudizhu.movegen`) and the game
(:mod:`paiju.doudizhu.game`) are imported on first use.

Stable string API: :func:`legal_moves` (``legal_moves("33345", beat="3")``), answered by
:mod:`paiju.doudizhu.movetext` (the same lists as movegen's, built as strings, so that a
fresh process needs neither the Move classes nor the generator).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from paiju.doudizhu.cards import RANKS, Deal, Hand

if TYPE_CHECKING:  # for type checkers only; at run time these load lazily via __getattr__
    from paiju.doudizhu.game import (
        Bid,
        DouDizhuConfig,
        DouDizhuGame,
        DouDizhuObservation,
        DouDizhuState,
        GameRecord,
        rescore,
    )
    from paiju.doudizhu.moves import PASS, Move, MoveType

# The stable splitting API: ``paiju.doudizhu.split(hand, method, objective)``. Binding the
# function here shadows the submodule attribute on purpose; ``from paiju.doudizhu.split import
# Split`` still works because the module stays in ``sys.modules``.
from paiju.doudizhu.split import Split, split

_LAZY = {
    "Move": "paiju.doudizhu.moves",
    "MoveType": "paiju.doudizhu.moves",
    "PASS": "paiju.doudizhu.moves",
    "DouDizhuGame": "paiju.doudizhu.game",
    "DouDizhuState": "paiju.doudizhu.game",
    "DouDizhuConfig": "paiju.doudizhu.game",
    "DouDizhuObservation": "paiju.doudizhu.game",
    "Bid": "paiju.doudizhu.game",
    "GameRecord": "paiju.doudizhu.game",
    "rescore": "paiju.doudizhu.game",
}


_GENERATOR: list[Callable[[str, str | None], list[str]]] = []
"""The generator's string API once imported (imported at the first call, not with the package)."""


def legal_moves(hand: str, beat: str | None = None) -> list[str]:
    """Every legal move of ``hand`` in canonical notation, duplicate-free, pass not included.

    With ``beat=None`` the hand leads freely; otherwise only moves that beat ``beat`` (same
    type and length with a higher main rank, or a bomb/rocket) are listed. Raises
    :class:`paiju.core.errors.InvalidNotationError` for bad notation.
    """
    if not _GENERATOR:  # an import statement in every call would cost a quarter of a warm call
        # the notation-level generator: same lists as movegen's, without building Move objects
        from paiju.doudizhu.movetext import legal_moves as generator

        _GENERATOR.append(generator)
    return _GENERATOR[0](hand, beat)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'paiju.doudizhu' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "PASS",
    "RANKS",
    "Bid",
    "Deal",
    "DouDizhuConfig",
    "DouDizhuGame",
    "DouDizhuObservation",
    "DouDizhuState",
    "GameRecord",
    "Hand",
    "Move",
    "MoveType",
    "Split",
    "legal_moves",
    "rescore",
    "split",
]
