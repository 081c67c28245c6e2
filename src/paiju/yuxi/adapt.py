"""A yuxi network adapted to a changed card table (issue 47 item 5: models that follow card changes).

``paiju yuxi train-az --init OLD.pt --cards-file NEW.toml`` starts from ``OLD.pt``'s network
instead of a fresh one; the trainer (game-agnostic) asks the run's encoder to map the old
weights onto the new network (:meth:`~paiju.yuxi.encoding.YuxiEncoderBase.adapt_weights`,
which is :func:`adapt_weights` here). What is mapped how:

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
from typing import TYPE_CHECKING, Any

import torch

from paiju.core.errors import ConfigError
from paiju.yuxi.cards import table_fingerprint
from paiju.yuxi.encoding import CARD_KEYS, EncoderSpec

if TYPE_CHECKING:
    from paiju.algorithms.alphazero.net import NetConfig
    from paiju.yuxi.encoding import YuxiEncoderBase

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


def recorded_card_keys(meta: Mapping[str, Any], name: str, first_size: int) -> tuple[str, ...] | None:
    """The card keys a model's metadata records (None: made before they were recorded).

    Raises:
        ConfigError: keys that are not a list of strings, one per card row of its network.
    """
    raw = meta.get(CARD_KEYS)
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(k, str) for k in raw) or len(raw) != first_size - 1:
        raise ConfigError(f"{name}: its {CARD_KEYS} are not the keys of its {first_size - 1} card rows")
    return tuple(raw)


def adapt_weights(
    encoder: YuxiEncoderBase, weights: Mapping[str, torch.Tensor], old: NetConfig, meta: Mapping[str, Any],
    new: NetConfig, name: str,
) -> dict[str, torch.Tensor]:
    """The weights of a network of ``old`` (metadata ``meta``) mapped onto ``new``, the network
    of ``encoder``'s table (module docstring); ``name`` names the model in errors.

    Raises:
        ConfigError: another encoder, input widths that differ, card-id inputs of other cards,
            or a model that does not record its card keys trained on another table.
    """
    spec = EncoderSpec.of_model(meta, name)
    if spec != encoder.spec:
        raise ConfigError(f"{name} reads yuxi encoder {_spec(spec)}, this run's rooms {_spec(encoder.spec)}")
    if old.second_size != new.second_size:
        raise ConfigError(f"{name}: a position head of {old.second_size}, yuxi's has {new.second_size}")
    by_id = spec.version == 1 or spec.card_ids
    inputs = (tuple(old.plane_shape), old.vector_size), (tuple(new.plane_shape), new.vector_size)
    if inputs[0] != inputs[1]:
        why = ("it encodes cards by id, so its input widens with the card table; only a version 2 model "
               "without card ids follows card changes (train one with --encoder 2)" if by_id else
               "version 2's widths do not depend on the card table: a paiju with other card features made it")
        raise ConfigError(f"{name}: its input is planes {inputs[0][0]} and a vector of {inputs[0][1]}, this "
                          f"card table's is planes {inputs[1][0]} and a vector of {inputs[1][1]}: {why}")
    new_keys = encoder.card_keys
    old_keys = recorded_card_keys(meta, name, old.first_size)
    if old_keys is None:
        if meta.get("card_table") != table_fingerprint(encoder.table):
            raise ConfigError(
                f"{name} does not record its cards' keys (made before models recorded them), so its card "
                "head's rows cannot be matched to another card table's cards; train it again, or start from "
                "it only on its own table"
            )
        old_keys = new_keys  # the same table: every row stays where it is
    if by_id and old_keys != new_keys:
        raise ConfigError(f"{name}: its input encodes cards by id (encoder {_spec(spec)}) and this card "
                          "table's cards are others; only a version 2 model without card ids follows card "
                          "changes (train one with --encoder 2)")
    return map_card_rows(weights, card_rows(old_keys, new_keys))


def _spec(spec: EncoderSpec) -> str:
    return f"version {spec.version}" + (" with card ids" if spec.card_ids else "")


__all__ = ["CARD_ROWS", "adapt_weights", "card_rows", "map_card_rows", "recorded_card_keys"]
