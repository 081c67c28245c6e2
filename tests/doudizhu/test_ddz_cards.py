"""Card, hand and deal notation (``docs/doudizhu.md`` §1): round trips, errors, the paper's deal algorithm."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.core.errors import InvalidNotationError
from paiju.doudizhu import RANKS, Deal, Hand
from paiju.doudizhu.cards import MAX_COUNT, format_counts, parse_counts, rank_index

counts_strategy = st.tuples(*(st.integers(0, m) for m in MAX_COUNT))


@given(counts_strategy, st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_hand_round_trip_any_order(counts: tuple[int, ...], rnd) -> None:
    hand = Hand(counts)
    text = str(hand)
    assert Hand.parse(text) == hand
    assert str(Hand.parse(text)) == text
    shuffled = list(text)
    rnd.shuffle(shuffled)
    assert Hand.parse("".join(shuffled)) == hand
    assert eval(repr(hand)) == hand
    assert len(hand) == sum(counts)
    assert hand.counts == counts


def test_canonical_order_and_examples() -> None:
    assert str(Hand.parse("D2AX3T")) == "3TA2XD"
    assert str(Hand.parse("34445556789TA22XD")) == "34445556789TA22XD"
    assert Hand.parse("").counts == (0,) * 15
    assert repr(Hand.parse("KQJ33")) == "Hand.parse('33JQK')"
    assert [rank_index(c) for c in RANKS] == list(range(15))
    assert Hand.parse("TTT").count("T") == 3 and Hand.parse("TTT").count(7) == 3


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("3a", "unknown card 'a'"),
        ("10", "unknown card '1'"),
        ("33 4", "unknown card ' '"),
        ("t", "upper case"),
        ("33333", "5 cards of rank '3'"),
        ("22222", "rank '2'"),
        ("XX", "2 copies of the small joker"),
        ("3DD", "2 copies of the big joker"),
    ],
)
def test_hand_parse_errors_name_the_problem(text: str, fragment: str) -> None:
    with pytest.raises(InvalidNotationError, match=fragment.replace("(", r"\(")) as info:
        Hand.parse(text)
    assert text in str(info.value) or repr(text) in str(info.value)


def test_hand_arithmetic_and_containment() -> None:
    h = Hand.parse("33345XD")
    assert Hand.parse("335") in h and "XD" in h and "333" in h
    assert Hand.parse("3333") not in h
    assert h - Hand.parse("3X") == Hand.parse("3345D")
    assert Hand.parse("34") + Hand.parse("4") == Hand.parse("344")
    with pytest.raises(InvalidNotationError, match="cannot remove"):
        _ = h - Hand.parse("66")
    with pytest.raises(InvalidNotationError):
        _ = Hand.parse("XD") + Hand.parse("X")
    with pytest.raises(AttributeError):
        h._counts = (0,) * 15  # type: ignore[misc]
    assert hash(Hand.parse("43")) == hash(Hand.parse("34"))
    assert list(Hand.parse("T3T")) == [0, 7, 7]


def test_counts_helpers_agree() -> None:
    assert format_counts(parse_counts("XT3T")) == "3TTX"


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_deal_round_trip(seed: int) -> None:
    deal = Deal.random(seed)
    assert [len(h) for h in deal.hands] == [20, 17, 17]
    assert Deal.parse(str(deal)) == deal
    assert eval(repr(deal)) == deal
    three = deal.without_kitty()
    assert str(three).count("[") == 3 and Deal.parse(str(three)) == three
    # any character order inside the brackets
    scrambled = "".join("[" + str(h)[::-1] + "]" for h in deal.hands)
    assert Deal.parse(scrambled) == three


def test_deal_errors_name_the_problem() -> None:
    good = Deal.random(1)
    a, b, c = (str(h) for h in good.hands)
    # the 53-card example deal of docs/doudizhu.md §1: a '4' is missing from the landlord's hand
    with pytest.raises(
        InvalidNotationError, match=r"not a partition of the 54 cards \(53 cards\): 1 x '4' missing"
    ):
        Deal.parse("[TTKA379Q2D69K5Q94J6][3JX8Q885TTK3265AK][29Q435J426787JA7A]")
    # a card in two hands (and so one missing)
    moved = b[:-1] + a[0]
    with pytest.raises(InvalidNotationError, match="not a partition"):
        Deal.parse(f"[{a}][{moved}][{c}]")
    # right cards, wrong sizes: move one card from the landlord to farmer 1
    with pytest.raises(InvalidNotationError, match="the landlord has 19 cards, expected 20"):
        Deal.parse(f"[{a[1:]}][{b + a[0]}][{c}]")
    with pytest.raises(InvalidNotationError, match="three bracketed hands"):
        Deal.parse(f"[{a}][{b}]")
    with pytest.raises(InvalidNotationError, match="farmer 2 hand"):
        Deal.parse(f"[{a}][{b}][{c[:-1]}Z]")
    with pytest.raises(InvalidNotationError, match=r"kitty .* is not part of the landlord's hand"):
        missing = next(r for r in RANKS if r not in a)
        Deal.parse(f"[{a}][{b}][{c}][{missing * 3}]")
    with pytest.raises(InvalidNotationError, match="kitty has 2 cards"):
        Deal.parse(f"[{a}][{b}][{c}][{a[:2]}]")


def test_random_deal_is_the_papers_algorithm() -> None:
    """Deal.random(rng) must equal dealing rng.permutation(54) by the rule of ``docs/doudizhu.md`` §4."""
    deck = [r for r in range(15) for _ in range(MAX_COUNT[r])]
    for seed in range(20):
        order = np.random.default_rng(seed).permutation(54)
        hands = [[0] * 15 for _ in range(3)]
        for i in range(1, 55):  # card i (1-based) of the shuffled deck
            rank = deck[order[i - 1]]
            seat = 0 if i > 51 else {1: 0, 2: 1, 0: 2}[i % 3]
            hands[seat][rank] += 1
        kitty = [0] * 15
        for i in range(52, 55):
            kitty[deck[order[i - 1]]] += 1
        assert Deal.random(seed) == Deal([Hand(h) for h in hands], Hand(kitty))


def test_random_deal_is_uniform_enough() -> None:
    """Each of the 54 cards lands with the landlord 20/54 of the time (binomial, 5 sigma)."""
    rng = np.random.default_rng(7)
    n = 3000
    jokers_with_landlord = sum(Deal.random(rng).landlord.count("D") for _ in range(n))
    p = 20 / 54
    assert abs(jokers_with_landlord - n * p) < 5 * (n * p * (1 - p)) ** 0.5
