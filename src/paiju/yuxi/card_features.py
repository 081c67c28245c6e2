"""A yuxi card as numbers, by what it is: the card features of the attribute encoder.

The talk's network sees a card on the board by hand-made features (faction, points, armour,
coins, cooldown, titles, effects), not by its id, because such inputs generalise. Version 2
of :mod:`paiju.yuxi.encoding` encodes every card that way, on the board and in every zone
(hand, deck, graves, offer), so that a card added, changed or removed through the card file
changes no input width and a card is read by what it does rather than learnt by its number.

Every channel is named from a vocabulary fixed in code, never from the card table: the
factions, kinds, rarities and targets of the card schema (:mod:`paiju.yuxi.cards`,
:mod:`paiju.yuxi.card_types`), the effect vocabulary with each effect's triggers and
parameter schema (:mod:`paiju.yuxi.effects`). The channels (:data:`CARD_FEATURES`, in order):

* ``faction:F``, ``kind:K``, ``rarity:R`` one-hot; ``points`` (÷10), ``armour``, ``coins``,
  ``cost``, ``cooldown`` (÷5) as printed; ``target:T`` one-hot;
* ``title:aI`` / ``title:bI``: the card's titles, hashed (below);
* ``effect:E@T``: the card's effect lines of effect ``E`` on trigger ``T`` (one channel per
  trigger the effect may hang on), counted;
* the lines' parameters: an integer as ``effect:E.P`` (÷5), a choice one-hot as
  ``effect:E.P=C``, a title parameter left empty ("any card") as ``effect:E.P=any``, and a
  named title as the ``effect_title:aI`` / ``effect_title:bI`` channels, hashed as titles
  are, so an effect's title and the cards that bear it light the same two indices;
* ``makes:X`` for every channel ``X`` above: the void cards the card's effects create
  (``add_void``'s and ``recycle_coins``' card), each by its own features. Void cards cannot
  create void cards (the card file is refused otherwise), so this goes one level deep.

Channels of one effect add over its lines (a card with the same effect twice sums them).

Titles are the one open vocabulary: a card file may name new ones. Each title lights one of
16 channels in each of two groups, chosen by two independent parts of its SHA-256, so two
titles share both channels with probability 1/256; the shipped table's ten titles are all
told apart (tested). Nothing else depends on the table.
"""

from __future__ import annotations

import hashlib

import numpy as np

from paiju.yuxi.card_types import TARGET_CODES, Card
from paiju.yuxi.cards import FACTIONS, KINDS, RARITIES, CardTable
from paiju.yuxi.effects import EFFECTS, TRIGGERS

POINT_SCALE = 10.0
"""Points are divided by this (scales keep typical values near [0, 1]: a network learns
badly from raw counts of 10+)."""
SMALL_SCALE = 5.0
"""Armour, coins, cost, cooldown and effect amounts are divided by this."""
TITLE_CHANNELS = 16
"""Channels of each of a title's two hashed groups."""

_PRINTED = ("points", "armour", "coins", "cost", "cooldown")
_MADE_BY = ("void_card", "coin_card")
"""Effect parameter kinds that name a card the effect creates."""
_TITLE_KINDS = ("title", "title_or_any")


def _names() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The core channels (a card's own features) and all channels (core, then ``makes:``)."""
    core = [f"faction:{f}" for f in FACTIONS]
    core += [f"kind:{k}" for k in KINDS]
    core += [f"rarity:{r}" for r in RARITIES]
    core += list(_PRINTED)
    core += [f"target:{t}" for t in sorted(TARGET_CODES, key=TARGET_CODES.__getitem__)]
    core += [f"title:{g}{i}" for g in "ab" for i in range(TITLE_CHANNELS)]
    for name in sorted(EFFECTS):
        core += [f"effect:{name}@{t}" for t in TRIGGERS if t in EFFECTS[name].triggers]
    for name in sorted(EFFECTS):
        for pname, param in EFFECTS[name].params.items():
            if param.kind == "int":
                core.append(f"effect:{name}.{pname}")
            elif param.kind == "choice":
                core += [f"effect:{name}.{pname}={c}" for c in param.choices]
            elif param.kind == "title_or_any":
                core.append(f"effect:{name}.{pname}=any")
    core += [f"effect_title:{g}{i}" for g in "ab" for i in range(TITLE_CHANNELS)]
    return tuple(core), (*core, *(f"makes:{c}" for c in core))


CORE_FEATURES, CARD_FEATURES = _names()
"""The channel names of one card: its own features, and those plus ``makes:`` (module docstring)."""
_INDEX = {name: i for i, name in enumerate(CARD_FEATURES)}
_CORE = len(CORE_FEATURES)


def title_channels(title: str) -> tuple[int, int]:
    """The two channel numbers (group a, group b; each in ``0..TITLE_CHANNELS-1``) of ``title``."""
    digest = hashlib.sha256(title.encode("utf-8")).digest()
    return (
        int.from_bytes(digest[:8], "big") % TITLE_CHANNELS,
        int.from_bytes(digest[8:16], "big") % TITLE_CHANNELS,
    )


def _light_title(row: np.ndarray, prefix: str, title: str) -> None:
    a, b = title_channels(title)
    row[_INDEX[f"{prefix}:a{a}"]] = 1.0
    row[_INDEX[f"{prefix}:b{b}"]] = 1.0


def _core(card: Card, table: CardTable) -> tuple[np.ndarray, list[Card]]:
    """The card's core channels (length ``len(CORE_FEATURES)``) and the void cards it creates."""
    row = np.zeros(_CORE, dtype=np.float32)
    row[_INDEX[f"faction:{card.faction}"]] = 1.0
    row[_INDEX[f"kind:{card.kind}"]] = 1.0
    row[_INDEX[f"rarity:{card.rarity}"]] = 1.0
    row[_INDEX["points"]] = card.points / POINT_SCALE
    for name in _PRINTED[1:]:
        row[_INDEX[name]] = getattr(card, name) / SMALL_SCALE
    row[_INDEX[f"target:{card.target}"]] = 1.0
    for title in card.titles:
        _light_title(row, "title", title)
    made: list[Card] = []
    for ref in card.effects:
        row[_INDEX[f"effect:{ref.effect}@{ref.trigger}"]] += 1.0
        for pname, param in EFFECTS[ref.effect].params.items():
            value = ref.params[pname]
            if param.kind == "int":
                row[_INDEX[f"effect:{ref.effect}.{pname}"]] += value / SMALL_SCALE
            elif param.kind == "choice":
                row[_INDEX[f"effect:{ref.effect}.{pname}={value}"]] += 1.0
            elif param.kind in _TITLE_KINDS:
                if value:
                    _light_title(row, "effect_title", value)
                else:
                    row[_INDEX[f"effect:{ref.effect}.{pname}=any"]] += 1.0
            elif param.kind in _MADE_BY:
                made.append(table.card(value))
    return row, made


def card_features(card: Card, table: CardTable) -> np.ndarray:
    """The features of ``card`` (float32, one per :data:`CARD_FEATURES` channel); ``table``
    resolves the void cards its effects name."""
    core, made = _core(card, table)
    out = np.zeros(len(CARD_FEATURES), dtype=np.float32)
    out[:_CORE] = core
    for void in made:
        # a void card makes none (the card file is refused otherwise): one level deep
        out[_CORE:] += _core(void, table)[0]
    return out


def feature_table(table: CardTable) -> np.ndarray:
    """Row ``i``: the features of card id ``i`` (row 0, no card, all zero); shape
    ``(num_ids + 1, len(CARD_FEATURES))``."""
    out = np.zeros((table.num_ids + 1, len(CARD_FEATURES)), dtype=np.float32)
    for card in table.cards[1:]:
        assert card is not None
        out[card.id] = card_features(card, table)
    return out
