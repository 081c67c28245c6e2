"""A yuxi network adapted to a changed card table (issue 47 item 5: models that follow card changes).

``paiju yuxi train-az --init OLD.pt --cards-file NEW.toml`` starts from ``OLD.pt``'s network
instead of a fresh one; the trainer (game-agnostic) asks the run's encoder to map the old
weights onto the new network (:meth:`~paiju.yuxi.encoding.YuxiEncoderBase.adapt_weights`,
which checks the model and maps its card rows with :func:`map_card_rows` here; this module
holds the torch side, so encoding imports it only when a run starts from a model). What is
mapped how:

* **the inputs** must keep their widths: encoder version 2 without card ids
  (:class:`~paiju.yuxi.encoding.YuxiAttributeEncoder`) reads every card by its attributes,
  so a card added, changed or removed changes no input width, and a changed card arrives as
  its new attributes. Version 1 and version 2's ``card_ids`` encode cards by id: their
  widths grow with the table and a card id would mean another card, so such a model is
  refused unless the table's cards are the same, key for key;
* **the card-id rows** (the card head ``first_head``, its bias, and the position head's
  per-card embedding ``second_choice``, all indexed by card id, row 0 = end turn) are mapped
  by card *key* between the old table (the keys the model records,
  :data:`~paiju.yuxi.encoding.CARD_KEYS`) and the new one: a kept card's row moves to its new
  id, a removed card's row is dropped, and a new card's row starts as the mean of the old
  cards' rows (end turn left out). The mean makes the new card an average card to both heads:
  its prior starts level with the others' (a zero row would not: the rows' scale is learned)
  and self-play moves it from there, the network reading what the card is from its
  attributes in the input;
* **everything else** (the trunk, the vector MLP, the position head's other layers, the
  value head) is copied as it is.

A model made before the card keys were recorded is refused unless it was trained on this
very table (the same fingerprint): its rows cannot be matched to cards otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

CARD_ROWS = ("first_head.weight", "first_head.bias", "second_choice.weight")
"""The network's weights with one row per card id (row 0: end turn)."""


def card_rows(old_keys: Sequence[str], new_keys: Sequence[str]) -> list[int | None]:
    """For each row of the new card-id space (0 = end turn, then the cards of ``new_keys``),
    the old row it comes from, by card key; None for a card the old table lacks."""
    old = {key: i + 1 for i, key in enumerate(old_keys)}
    return [0, *(old.get(key) for key in new_keys)]


def map_card_rows(weights: Mapping[str, torch.Tensor], rows: Sequence[int | None]) -> dict[str, torch.Tensor]:
    """``weights`` with the card-id rows of :data:`CARD_ROWS` taken from ``rows``
    (:func:`card_rows`); a None row is the mean of the old cards' rows (end turn left out)."""
    out = dict(weights)
    for name in CARD_ROWS:
        if name not in out:
            continue  # a one-step policy has no position head
        old = out[name]
        mean = old[1:].mean(dim=0) if len(old) > 1 else torch.zeros_like(old[0])
        out[name] = torch.stack([mean if row is None else old[row] for row in rows]).contiguous()
    return out


__all__ = ["CARD_ROWS", "card_rows", "map_card_rows"]
