"""What a yuxi card is: its printed face and effect lines (:class:`Card`, :class:`EffectRef`)
and the compiled form the engine reads (:class:`CompiledCard`, the target codes).

These types sit below both the card table (:mod:`paiju.yuxi.cards`: loading, validation,
compiling) and the effect code (:mod:`paiju.yuxi.effects`), and below the position the
effects act on (:mod:`paiju.yuxi.position`, whose ``cards`` are compiled cards), so each of
them can name a card without importing the others.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

EffectFn = Callable[..., None]
"""An effect function, called as ``fn(state, owner, cell, **params)`` (:mod:`paiju.yuxi.effects`)."""

TARGET_CODES = {"empty": 0, "enemy": 1, "ally": 2, "character": 3, "cell": 4, "none": 5}
"""A card's ``target`` as :attr:`CompiledCard.target` holds it (the engine compares ints)."""
T_EMPTY, T_ENEMY, T_ALLY, T_CHARACTER, T_CELL, T_NONE = range(6)


@dataclass(frozen=True)
class EffectRef:
    """One effect line of a card: when it triggers, which effect, with which parameters."""

    trigger: str
    effect: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class Card:
    """A validated card as written in the table (the rules-facing view)."""

    id: int
    key: str
    name: str
    faction: str
    kind: str
    rarity: str
    points: int
    armour: int
    coins: int
    cost: int
    cooldown: int
    titles: tuple[str, ...]
    target: str
    text: str
    effects: tuple[EffectRef, ...]

    @property
    def is_void(self) -> bool:
        return self.rarity == "void"

    @property
    def is_character(self) -> bool:
        return self.kind == "character"

    def summary(self) -> dict[str, Any]:
        """The card's printed face as plain data (what the CLI's JSON and the web app show)."""
        return {
            "id": self.id,
            "key": self.key,
            "name": self.name,
            "faction": self.faction,
            "kind": self.kind,
            "rarity": self.rarity,
            "points": self.points,
            "armour": self.armour,
            "coins": self.coins,
            "cost": self.cost,
            "cooldown": self.cooldown,
            "titles": list(self.titles),
            "target": self.target,
            "text": self.text,
        }

    def __str__(self) -> str:
        return self.key


class CompiledCard:
    """A card bound to effect functions, grouped by trigger: what the engine reads."""

    __slots__ = (
        "armour",
        "coins",
        "cooldown",
        "cost",
        "data",
        "discount",
        "id",
        "is_character",
        "is_coin",
        "is_void",
        "key",
        "on_cast",
        "on_death",
        "on_deploy",
        "on_turn_end",
        "on_turn_start",
        "points",
        "target",
        "titles",
    )

    def __init__(
        self, card: Card, bound: dict[str, tuple[tuple[EffectFn, dict[str, Any]], ...]], discount: int
    ) -> None:
        self.data = card
        self.id = card.id
        self.key = card.key
        self.points = card.points
        self.armour = card.armour
        self.coins = card.coins
        self.cost = card.cost
        self.cooldown = card.cooldown
        self.titles = frozenset(card.titles)
        self.target = TARGET_CODES[card.target]
        self.is_void = card.is_void
        self.is_character = card.is_character
        self.is_coin = "coin" in card.titles
        self.discount = discount
        self.on_deploy = bound.get("deploy", ())
        self.on_turn_start = bound.get("turn_start", ())
        self.on_turn_end = bound.get("turn_end", ())
        self.on_death = bound.get("death", ())
        self.on_cast = bound.get("cast", ())

    def __repr__(self) -> str:
        return f"CompiledCard({self.key!r})"
