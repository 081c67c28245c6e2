"""The paper's 40-priority-order baseline (``docs/splitting.md``, The baseline)."""

from __future__ import annotations

from itertools import permutations

import pytest

from paiju.core.errors import ConfigError
from paiju.core.rng import as_generator
from paiju.doudizhu.cards import Deal
from paiju.doudizhu.split import ORDERS, Split, heuristic, min_groups, split
from paiju.doudizhu.split_heuristic import EXTRACTED_TYPES, greedy_split, heuristic_split

TYPES = {"trio", "bomb", "solo chain", "pair chain", "trio chain"}


def test_exactly_the_40_orders_with_trio_after_bomb_and_trio_chain() -> None:
    assert set(EXTRACTED_TYPES) == TYPES
    all_orders = set(permutations(sorted(TYPES)))
    assert len(all_orders) == 120
    wanted = {
        o for o in all_orders if o.index("trio") > o.index("bomb") and o.index("trio") > o.index("trio chain")
    }
    assert len(ORDERS) == 40 == len(set(ORDERS))
    assert set(ORDERS) == wanted
    for o in all_orders - wanted:  # every dropped order puts trio before bomb or trio chain
        assert o.index("trio") < o.index("bomb") or o.index("trio") < o.index("trio chain")
    assert ORDERS[0] == ("bomb", "solo chain", "pair chain", "trio chain", "trio")  # the tie-break order


def as_text(groups: list[tuple[int, int, int]]) -> str:
    from paiju.doudizhu.split import _from_raw

    return str(Split([_from_raw(g) for g in groups]))


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        # bomb 3333, trio chain 444555; 6789 is too short for a solo chain
        (("bomb", "trio chain", "trio", "solo chain", "pair chain"), "3333 444555 6 7 8 9"),
        # the solo chain takes the whole run 3..9, then 333 is a trio and 44, 55 pairs
        (("solo chain", "bomb", "trio chain", "trio", "pair chain"), "3456789 333 44 55"),
        # pair chain 334455 first, then the run 3456789, one 3 left
        (("pair chain", "solo chain", "bomb", "trio chain", "trio"), "3 3456789 334455"),
        # trio chain 333444555 uses three of the 3s (bomb comes after)
        (("trio chain", "bomb", "trio", "solo chain", "pair chain"), "3 333444555 6 7 8 9"),
    ],
)
def test_greedy_extraction_hand_checked(order: tuple[str, ...], expected: str) -> None:
    assert as_text(greedy_split(Split.parse("3333 444 555 6 7 8 9").counts, order)) == expected


def test_greedy_takes_the_longest_chain_from_the_lowest_rank() -> None:
    order = ("solo chain", "bomb", "pair chain", "trio chain", "trio")
    # 3..A present once: one chain of 12, not 34567 + 89TJQ...
    assert as_text(greedy_split(Split.parse("3456789TJQKA").counts, order)) == "3456789TJQKA"
    # two runs: 34567 and 9TJQK; then again on what is left (33..77 -> a second 34567)
    counts = Split.parse("3 3 4 4 5 5 6 6 7 7 9 T J Q K").counts
    assert as_text(greedy_split(counts, order)) == "34567 34567 9TJQK"
    # jokers: a rocket only in the remainder; 2s never chain
    assert (
        as_text(greedy_split(Split.parse("KK AA 22 X D").counts, ("pair chain", *order[:1]))) == "KK AA 22 XD"
    )


@pytest.mark.parametrize(
    ("hand", "baseline", "optimum"),
    [
        # the whole run 345678 leaves 4 5 6 7; pair chain 44556677 leaves 3 and 8
        ("3445566778", "3 44556677 8", "34567 45678"),
        ("345667789T", "3456789T 6 7", "34567 6789T"),
        ("3455667789", "3456789 5 6 7", "34567 56789"),
    ],
)
def test_baseline_is_not_optimal_hand_checked(hand: str, baseline: str, optimum: str) -> None:
    assert str(heuristic(hand)) == baseline
    assert str(split(hand, "exact")) == optimum
    assert len(split(hand, "heuristic")) == len(Split.parse(baseline)) > min_groups(hand)


def test_baseline_keeps_the_first_order_among_equal_counts() -> None:
    gen = as_generator(9)
    for _ in range(150):
        hand = Deal.random(gen).hands[int(gen.integers(3))].counts
        groups, order = heuristic_split(hand)
        sizes = [len(greedy_split(hand, o)) for o in ORDERS]
        assert len(groups) == min(sizes)
        assert ORDERS.index(order) == sizes.index(min(sizes))
        assert groups == greedy_split(hand, order)
        s = heuristic(hand)
        assert s.counts == hand and len(s) == min(sizes)
        assert len(s) >= min_groups(hand)
        after = list(hand)
        for g in s:
            for r, n in enumerate(g.counts):
                after[r] -= n
        assert not any(after)


def test_heuristic_rejects_the_plays_objective() -> None:
    with pytest.raises(ConfigError, match="groups only"):
        split("33", "heuristic", "plays")
    with pytest.raises(ConfigError, match="unknown split method 'greedy'"):
        split("33", "greedy")
    with pytest.raises(ConfigError, match="unknown split objective 'cards'"):
        split("33", "exact", "cards")
