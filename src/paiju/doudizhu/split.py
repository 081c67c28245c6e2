"""Hand splitting (拆牌, ``docs/splitting.md``): typed splits, the tag codec, the solvers.

A **split** partitions a hand into groups of the eight basic types (solo, solo chain, pair,
pair chain, trio, trio chain, bomb, rocket); kickers are not a type of their own (a trio
with a solo is a trio group plus a solo group). Values carry their notation::

    >>> s = Split.parse("3 444555 6789T A 22 XD")
    >>> s.tags()                   # one label per card, hand in canonical order
    '02222220000001133'
    >>> Split.from_tags("34445556789TA22XD", "02222220000001133") == s
    True

Solvers (all on 15-count vectors underneath, see :mod:`paiju.doudizhu.split_exact` and
:mod:`paiju.doudizhu.split_heuristic`):

* ``split(hand, method="heuristic")``: the paper's 40-priority-order baseline;
* ``split(hand, method="exact", objective="groups")``: a provably fewest-groups split;
* ``split(hand, method="exact", objective="plays")``: a fewest-plays split, where a trio
  carries one solo or pair, an airplane one kicker per trio, a four two solos or two pairs
  (the kickers stay separate solo/pair groups; :meth:`Split.plays` shows the attachment).

The types, the tag codec and the solvers live in :mod:`paiju.doudizhu.split_core` (below the
learned splitter, which builds on them) and are re-exported here; this module adds ``split``,
which can also call the learned splitter (``docs/design.md`` §21).

Why the tag codec lives with the types: the sequence tagger (``docs/splitting.md``, Tags)
predicts one label per card, and training, decoding and the repair-rate metric all need the
same deterministic mapping between splits and label strings.
"""

from __future__ import annotations

from typing import Final

from paiju.core.errors import ConfigError
from paiju.doudizhu.cards import Hand
from paiju.doudizhu.split_core import (
    LABELS,
    OBJECTIVES,
    ORDERS,
    Group,
    GroupType,
    Play,
    Split,
    exact,
    hand_counts,
    heuristic,
    min_groups,
    min_plays,
    repair_tags,
    tags_need_repair,
)
from paiju.doudizhu.split_core import _from_raw as _from_raw  # was importable here (old code, tests)

__all__ = [
    "LABELS",
    "METHODS",
    "OBJECTIVES",
    "ORDERS",
    "Group",
    "GroupType",
    "Play",
    "Split",
    "exact",
    "heuristic",
    "min_groups",
    "min_plays",
    "repair_tags",
    "split",
    "tags_need_repair",
]

METHODS: Final = ("exact", "heuristic", "tagger")


def split(hand: Hand | str, method: str = "exact", objective: str = "groups") -> Split:
    """Split ``hand`` by ``method`` ("exact" or "heuristic") for ``objective`` ("groups" or
    "plays"; the heuristic baseline minimises groups only), or as the shipped sequence tagger
    predicts a winner would (``method="tagger"``: no objective, it learned from play;
    ``docs/splitting.md``, "The learned splitter").

    Raises :class:`InvalidNotationError` for a bad hand and :class:`ConfigError` for a bad
    method or objective.
    """
    if method not in METHODS:
        raise ConfigError(f"unknown split method {method!r}; expected one of {', '.join(METHODS)}")
    if objective not in OBJECTIVES:
        raise ConfigError(f"unknown split objective {objective!r}; expected one of {', '.join(OBJECTIVES)}")
    if method == "tagger":
        if objective != "groups":
            raise ConfigError("the tagger predicts a winner's split, it has no objective; omit it")
        return _tagger_split(hand)
    if method == "heuristic":
        if objective != "groups":
            raise ConfigError("the heuristic baseline minimises groups only; use method 'exact' for 'plays'")
        return heuristic(hand)
    return exact(hand, objective)


def _tagger_split(hand: Hand | str) -> Split:
    # imported here: torch loads only when the learned splitter is asked for
    from paiju.doudizhu.tagger.model import shipped_model, tag_hands

    return tag_hands(shipped_model(), [Hand.from_counts(hand_counts(hand))])[0].split
