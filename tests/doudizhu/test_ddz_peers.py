"""Differential tests against DouZero 1.1.0 (default rules) and RLCard 1.2.0 (``wing_rule="rlcard"``).

Every position compares our legal moves with the peer's as *sets of card multisets*. With
DouZero every difference must be explained by one of its documented bugs (D1 duplicates,
D2 airplanes its classifier rejects, D3 airplanes ranked by a trio among the wings, D4 a
move to beat re-read from its cards alone); the test counts each class. With RLCard's
strict wing rule the sets must be equal, position by position.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from paiju.doudizhu import Hand
from paiju.doudizhu.cards import MAX_COUNT
from paiju.doudizhu.movegen import generate
from paiju.doudizhu.moves import key_of
from paiju.doudizhu.peers import (
    DouZeroMoves,
    Position,
    RLCardMoves,
    airplane_positions,
    explain_difference,
    game_positions,
    rich_positions,
)


def _douzero_differential(positions: list[Position]) -> Counter[str]:
    douzero = DouZeroMoves()
    stats: Counter[str] = Counter()
    unexplained = []
    for hand, trick in positions:
        stats["positions"] += 1
        stats["free lead" if trick is None else "must beat"] += 1
        ours_list = generate(key_of(hand), trick)
        ours = {m.counts for m in ours_list}
        assert len(ours) == len(ours_list), f"our generator listed a duplicate for {Hand(hand)}"
        theirs_list = douzero.legal(hand, None if trick is None else trick.counts)
        theirs = set(theirs_list)
        if len(theirs) != len(theirs_list):
            stats["D1 duplicates"] += 1
        if ours == theirs:
            continue
        cause = explain_difference(hand, trick, ours, theirs)
        if cause is None:
            unexplained.append(
                f"hand {Hand(hand)} beat {trick and trick.describe()}: only ours "
                f"{sorted(str(Hand(c)) for c in ours - theirs)[:6]}, only DouZero's "
                f"{sorted(str(Hand(c)) for c in theirs - ours)[:6]}"
            )
        else:
            stats[cause] += 1
    assert not unexplained, f"{len(unexplained)} unexplained differences, e.g.\n" + "\n".join(unexplained[:5])
    return stats


def _positions(seed: int, n: int) -> list[Position]:
    """Half from random games, 40% rich in trios and bombs, 10% built around long airplanes."""
    rng = np.random.default_rng(seed)
    games, rich = n // 2, (4 * n) // 10
    return game_positions(rng, games) + rich_positions(rng, rich) + airplane_positions(rng, n - games - rich)


def test_douzero_differential_5000_positions() -> None:
    stats = _douzero_differential(_positions(1, 5000))
    print("DouZero differential:", dict(stats))
    assert stats["positions"] == 5000
    assert stats["free lead"] > 500 and stats["must beat"] > 3000
    # the bug classes do occur in these positions, and are each recognised
    assert stats["D1 duplicates"] > 100
    assert stats["D2"] > 0 and stats["D3"] > 0 and stats["D4"] > 0


@pytest.mark.slow
def test_douzero_differential_200000_positions() -> None:
    stats = _douzero_differential(_positions(2, 200_000))
    print("DouZero differential (slow):", dict(stats))
    assert stats["positions"] == 200_000
    assert stats["D2"] > 0 and stats["D3"] > 0 and stats["D4"] > 0


def test_rlcard_action_space_equals_our_strict_rule() -> None:
    """Every move of at most 20 cards under the rlcard wing rule is RLCard's action space."""
    ours = {m.counts for m in generate(key_of(MAX_COUNT), strict=True) if m.size <= 20}
    rl = RLCardMoves().all_moves()
    assert len(rl) == 27_471
    assert ours == rl
    # the default (DouZero) rule allows strictly more: rocket/bomb/adjacent-trio wings
    loose = {m.counts for m in generate(key_of(MAX_COUNT)) if m.size <= 20}
    assert loose > rl and len(loose) - len(rl) == 2513


def test_rlcard_differential_positions() -> None:
    rlcard = RLCardMoves()
    stats: Counter[str] = Counter()
    for hand, trick in _positions(3, 1500):
        if trick is not None and not trick.strict:
            continue  # a move RLCard's rules do not allow cannot be the move to beat there
        ours = {m.counts for m in generate(key_of(hand), trick, strict=True)}
        theirs = set(rlcard.legal(hand, None if trick is None else trick.counts))
        assert ours == theirs, (
            f"hand {Hand(hand)} beat {trick}: only ours {sorted(str(Hand(c)) for c in ours - theirs)[:6]}, "
            f"only RLCard's {sorted(str(Hand(c)) for c in theirs - ours)[:6]}"
        )
        stats["free lead" if trick is None else "must beat"] += 1
    assert stats["free lead"] > 100 and stats["must beat"] > 800
