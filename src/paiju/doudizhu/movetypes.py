"""Dou Dizhu move types: the one place their numbers, names and shared properties are declared.

:class:`MoveType` (``docs/doudizhu.md`` §2) with the chain rules (:data:`CHAIN_TOP`,
:data:`MIN_CHAIN`) and the named properties of types that code tests (:data:`BOMB_TYPES`,
:data:`KICKER_TYPES`, ...). :mod:`paiju.doudizhu.moves` re-exports all of it. It is a module
of its own, importing only the standard library and the error types, because the string API
(:mod:`paiju.doudizhu.movetext`) and the splitter read these facts without loading the Move
classes (``docs/results/first-call.md``).

Hot paths alias the members at module level (``_SOLO = MoveType.SOLO``): a global lookup, and
an IntEnum member hashes and compares with int's own slots, as fast as a plain int
(``docs/design.md``, "One source per fact").
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from paiju.core.errors import InvalidNotationError


class MoveType(IntEnum):
    """The move types of ``docs/doudizhu.md`` §2 (numbered like DouZero's ``TYPE_*`` constants)."""

    PASS = 0
    SOLO = 1
    PAIR = 2
    TRIO = 3
    BOMB = 4
    ROCKET = 5
    TRIO_SOLO = 6
    TRIO_PAIR = 7
    SOLO_CHAIN = 8
    PAIR_CHAIN = 9
    TRIO_CHAIN = 10
    AIRPLANE_SOLO = 11
    AIRPLANE_PAIR = 12
    FOUR_TWO_SOLO = 13
    FOUR_TWO_PAIR = 14

    @property
    def label(self) -> str:
        """The English name used in code and docs (``"trio with solo"``)."""
        return _LABELS[self]

    @property
    def chinese(self) -> str:
        return _CHINESE[self]

    @classmethod
    def parse(cls, text: str | MoveType) -> MoveType:
        """From a member, its name (``"airplane_solo"``, any case) or its label."""
        if isinstance(text, MoveType):
            return text
        if isinstance(text, str):
            norm = text.strip().upper().replace("-", "_").replace(" ", "_")
            if norm in cls.__members__:
                return cls[norm]
            for member, label in _LABELS.items():
                if text.strip().lower() == label:
                    return member
        names = ", ".join(m.name.lower() for m in cls)
        raise InvalidNotationError(f"unknown move type {text!r}; types are {names}")


_LABELS: Final = {
    MoveType.PASS: "pass",
    MoveType.SOLO: "solo",
    MoveType.PAIR: "pair",
    MoveType.TRIO: "trio",
    MoveType.BOMB: "bomb",
    MoveType.ROCKET: "rocket",
    MoveType.TRIO_SOLO: "trio with solo",
    MoveType.TRIO_PAIR: "trio with pair",
    MoveType.SOLO_CHAIN: "solo chain",
    MoveType.PAIR_CHAIN: "pair chain",
    MoveType.TRIO_CHAIN: "trio chain",
    MoveType.AIRPLANE_SOLO: "airplane with solo wings",
    MoveType.AIRPLANE_PAIR: "airplane with pair wings",
    MoveType.FOUR_TWO_SOLO: "four with two solos",
    MoveType.FOUR_TWO_PAIR: "four with two pairs",
}
_CHINESE: Final = {
    MoveType.PASS: "不出",
    MoveType.SOLO: "单张",
    MoveType.PAIR: "对牌",
    MoveType.TRIO: "三张",
    MoveType.BOMB: "炸弹",
    MoveType.ROCKET: "火箭",
    MoveType.TRIO_SOLO: "三带一",
    MoveType.TRIO_PAIR: "三带一对",
    MoveType.SOLO_CHAIN: "单顺",
    MoveType.PAIR_CHAIN: "双顺",
    MoveType.TRIO_CHAIN: "三顺",
    MoveType.AIRPLANE_SOLO: "飞机带单翅膀",
    MoveType.AIRPLANE_PAIR: "飞机带对翅膀",
    MoveType.FOUR_TWO_SOLO: "四带二",
    MoveType.FOUR_TWO_PAIR: "四带两对",
}

CHAIN_TOP: Final = 11
"""Highest rank index a chain may reach ('A' in ``cards.RANKS``); 2 and the jokers never chain."""
MIN_CHAIN: Final = {1: 5, 2: 3, 3: 2}
"""Shortest chain by width (cards per rank): 5 solos, 3 pairs, 2 trios."""
CHAIN_OF_WIDTH: Final = {1: MoveType.SOLO_CHAIN, 2: MoveType.PAIR_CHAIN, 3: MoveType.TRIO_CHAIN}
"""The chain type of each width."""
OF_A_KIND: Final = {1: MoveType.SOLO, 2: MoveType.PAIR, 3: MoveType.TRIO, 4: MoveType.BOMB}
"""The type of 1..4 cards of one rank."""

BOMB_TYPES: Final = frozenset({MoveType.BOMB, MoveType.ROCKET})
"""Bombs and the rocket: they beat any other type and double the stakes."""
KICKER_TYPES: Final = frozenset(
    {
        MoveType.TRIO_SOLO,
        MoveType.TRIO_PAIR,
        MoveType.AIRPLANE_SOLO,
        MoveType.AIRPLANE_PAIR,
        MoveType.FOUR_TWO_SOLO,
        MoveType.FOUR_TWO_PAIR,
    }
)
"""The types that carry kickers (a trio's solo or pair, an airplane's wings, a four's two)."""

__all__ = [
    "BOMB_TYPES",
    "CHAIN_OF_WIDTH",
    "CHAIN_TOP",
    "KICKER_TYPES",
    "MIN_CHAIN",
    "OF_A_KIND",
    "MoveType",
]
