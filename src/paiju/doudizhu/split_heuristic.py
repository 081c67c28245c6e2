"""The paper's minimum-combination baseline (``docs/splitting.md``, The baseline), on count vectors.

Five extractable types {trio, bomb, solo chain, pair chain, trio chain}; of their 120
priority orders, the 40 where trio comes after both bomb and trio chain are kept (a trio
taken first would destroy every bomb and trio chain). For each order the hand is split
greedily, type by type; what is left becomes pairs and solos (two jokers a rocket). The
split with the fewest groups wins; among equal counts the **first order** in
:data:`ORDERS` wins (the paper keeps a new split only if it is strictly smaller).

The paper leaves the greedy step open; ours, kept simple and explicit:

* bomb: every rank holding four cards (3..2) becomes a bomb;
* trio: every rank holding three or more cards (3..2) gives one trio (bombs are always
  extracted before trios, so no four is left to cut by then);
* chains (trio chain, pair chain, solo chain): repeatedly take the **longest chain that
  starts at the lowest possible rank**, i.e. the first maximal run of ranks 3..A holding at
  least 3 (2, 1) cards that is at least 2 (3, 5) ranks long, as one whole chain, until no
  chain of that type is left (``33445566`` is one pair chain of four pairs, never
  ``334455`` + ``66``; two stacked runs such as ``3344556677`` as solo chains give
  ``34567`` twice);
* remainder: after the trio step no rank holds three or more cards, so each rank left is a
  pair or a solo; the two jokers together are a rocket.

:data:`ORDERS` is ``itertools.permutations`` of the paper's listing order
(trio, bomb, solo chain, pair chain, trio chain), filtered.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from typing import Final

from paiju.doudizhu.split_exact import (
    BIG_JOKER,
    BOMB,
    CHAIN_RANKS,
    PAIR,
    PAIR_CHAIN,
    ROCKET,
    SMALL_JOKER,
    SOLO,
    SOLO_CHAIN,
    TRIO,
    TRIO_CHAIN,
    TWO,
    RawGroup,
)

EXTRACTED_TYPES: Final = ("trio", "bomb", "solo chain", "pair chain", "trio chain")
"""The five types of the priority orders, in the paper's listing order."""

ORDERS: Final[tuple[tuple[str, ...], ...]] = tuple(
    p for p in permutations(EXTRACTED_TYPES) if p.index("trio") > max(p.index("bomb"), p.index("trio chain"))
)
"""The 40 priority orders, highest priority first, in the order they are tried."""

_CHAIN: Final = {
    "trio chain": (3, 2, TRIO_CHAIN),
    "pair chain": (2, 3, PAIR_CHAIN),
    "solo chain": (1, 5, SOLO_CHAIN),
}


def _take_chains(c: list[int], width: int, shortest: int, kind: int, out: list[RawGroup]) -> None:
    """Repeatedly remove the longest chain starting at the lowest possible rank."""
    while True:
        r = 0
        found = False
        while r < CHAIN_RANKS:
            if c[r] < width:
                r += 1
                continue
            end = r
            while end < CHAIN_RANKS and c[end] >= width:
                end += 1
            if end - r >= shortest:
                for i in range(r, end):
                    c[i] -= width
                out.append((kind, r, end - r))
                found = True
                break
            r = end
        if not found:
            return


def greedy_split(counts: Sequence[int], order: Sequence[str]) -> list[RawGroup]:
    """The greedy split of ``counts`` under one priority order (any order of the 5 types)."""
    c = list(counts)
    out: list[RawGroup] = []
    for t in order:
        if t == "bomb":
            _take_bombs(c, out)
        elif t == "trio":
            _take_trios(c, out)
        elif t in _CHAIN:
            width, shortest, kind = _CHAIN[t]
            _take_chains(c, width, shortest, kind, out)
        else:
            raise ValueError(f"unknown priority type {t!r}; expected one of {EXTRACTED_TYPES}")
    _take_leftovers(c, out)
    return out


def _take_bombs(c: list[int], out: list[RawGroup]) -> None:
    """Take every four of a kind of ``c`` (3..2) as a bomb."""
    for r in range(TWO + 1):
        if c[r] == 4:
            c[r] = 0
            out.append((BOMB, r, 1))


def _take_trios(c: list[int], out: list[RawGroup]) -> None:
    """Take a trio from every rank of ``c`` (3..2) with three or more cards."""
    for r in range(TWO + 1):
        if c[r] >= 3:
            c[r] -= 3
            out.append((TRIO, r, 1))


def _take_leftovers(c: list[int], out: list[RawGroup]) -> None:
    """What the priority order left: one group per rank, the two jokers as a rocket if both."""
    for r in range(TWO + 1):
        n = c[r]
        if n >= 3:  # only when "trio" is missing from a custom order
            out.append((TRIO if n == 3 else BOMB, r, 1))
        elif n == 2:
            out.append((PAIR, r, 1))
        elif n == 1:
            out.append((SOLO, r, 1))
    if c[SMALL_JOKER] and c[BIG_JOKER]:
        out.append((ROCKET, SMALL_JOKER, 2))
    else:
        if c[SMALL_JOKER]:
            out.append((SOLO, SMALL_JOKER, 1))
        if c[BIG_JOKER]:
            out.append((SOLO, BIG_JOKER, 1))


def heuristic_split(counts: Sequence[int]) -> tuple[list[RawGroup], tuple[str, ...]]:
    """The baseline split (fewest groups over the 40 orders; first order wins ties) and the
    order that produced it."""
    best: list[RawGroup] | None = None
    best_order = ORDERS[0]
    for order in ORDERS:
        groups = greedy_split(counts, order)
        if best is None or len(groups) < len(best):
            best = groups
            best_order = order
    assert best is not None
    return best, best_order
