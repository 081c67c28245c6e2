"""Split values, their notation and the per-card tag codec (``docs/splitting.md``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from douzero.env.move_generator import MovesGener

from paiju.core.errors import InvalidNotationError
from paiju.core.rng import as_generator
from paiju.doudizhu.cards import RANKS, Deal, Hand, format_counts
from paiju.doudizhu.split import (
    Group,
    GroupType,
    Play,
    Split,
    exact,
    heuristic,
    repair_tags,
    tags_need_repair,
)

DZ_VALUE = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)
DZ_INDEX = {v: i for i, v in enumerate(DZ_VALUE)}
BASIC_DZ_TYPES = {1, 2, 3, 4, 5, 8, 9, 10}
KICKER_DZ_TYPES = {6, 7, 11, 12, 13, 14}  # trio+1, trio+pair, airplanes with wings, four with two


def dz_moves(counts: tuple[int, ...]) -> dict[tuple[int, ...], set[int]]:
    """Every legal move of the hand (DouZero's generator) -> the DouZero type numbers it is
    generated under (taken from the generator, not DouZero's buggy classifier)."""
    cards = [DZ_VALUE[i] for i, n in enumerate(counts) for _ in range(n)]
    gen = MovesGener(cards)
    out: dict[tuple[int, ...], set[int]] = {}
    for dz_type in range(1, 15):
        produce = next(getattr(gen, name) for name in dir(gen) if name.startswith(f"gen_type_{dz_type}_"))
        for move in produce():
            v = [0] * 15
            for x in move:
                v[DZ_INDEX[x]] += 1
            out.setdefault(tuple(v), set()).add(dz_type)
    return out


def random_grouping(gen: np.random.Generator, counts: tuple[int, ...]) -> Split:
    """A uniformly chosen basic move (DouZero's list) holding the lowest card, repeatedly:
    an arbitrary partition into basic groups, independent of our solvers."""
    c = list(counts)
    groups = []
    while any(c):
        low = next(i for i, n in enumerate(c) if n)
        basics = sorted(m for m, t in dz_moves(tuple(c)).items() if t & BASIC_DZ_TYPES and m[low])
        m = basics[int(gen.integers(len(basics)))]
        groups.append(Group.parse(format_counts(m)))
        c = [a - b for a, b in zip(c, m, strict=True)]
    return Split(groups)


def small_hand(gen: np.random.Generator, n: int, lo: int = 0, hi: int = 15) -> tuple[int, ...]:
    deck = [r for r in range(lo, hi) for _ in range(4 if r < 13 else 1)]
    pick = gen.choice(len(deck), size=min(n, len(deck)), replace=False)
    c = [0] * 15
    for p in pick:
        c[deck[p]] += 1
    return tuple(c)


# --- groups ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "canonical"),
    [
        ("3", GroupType.SOLO, "3"),
        ("D", GroupType.SOLO, "D"),
        ("T9J8Q", GroupType.SOLO_CHAIN, "89TJQ"),
        ("3456789TJQKA", GroupType.SOLO_CHAIN, "3456789TJQKA"),
        ("22", GroupType.PAIR, "22"),
        ("554433", GroupType.PAIR_CHAIN, "334455"),
        ("AAA", GroupType.TRIO, "AAA"),
        ("555444", GroupType.TRIO_CHAIN, "444555"),
        ("7777", GroupType.BOMB, "7777"),
        ("DX", GroupType.ROCKET, "XD"),
    ],
)
def test_group_parse_format(text: str, kind: GroupType, canonical: str) -> None:
    g = Group.parse(text)
    assert g.type is kind
    assert str(g) == canonical
    assert g.size == len(text)
    assert eval(repr(g), {"Group": Group}) == g
    assert sum(g.counts) == len(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "3456",
        "3344",
        "34",
        "33344",
        "33334444",
        "JQKA2",
        "KKAA22",
        "AAA222",
        "2X",
        "3X",
        "335",
        "3Z",
        "XX",
    ],
)
def test_group_rejects_non_basic_sets(text: str) -> None:
    with pytest.raises(InvalidNotationError):
        Group.parse(text)


def test_group_error_names_the_problem() -> None:
    with pytest.raises(InvalidNotationError, match=r"'3456' is not a basic group.*solo chain"):
        Group.parse("3456")
    with pytest.raises(InvalidNotationError, match="unknown card 'Z'"):
        Group.parse("3Z")
    with pytest.raises(InvalidNotationError, match=r"chains use ranks 3\.\.A"):
        Group(GroupType.SOLO_CHAIN, 9, 5)  # QKA2X is not a chain


def test_labels_follow_the_spec_table() -> None:
    labels = {t: t.label for t in GroupType}
    assert labels == {
        GroupType.SOLO: 0,
        GroupType.SOLO_CHAIN: 0,
        GroupType.PAIR: 1,
        GroupType.PAIR_CHAIN: 1,
        GroupType.TRIO: 2,
        GroupType.TRIO_CHAIN: 2,
        GroupType.BOMB: 3,
        GroupType.ROCKET: 3,
    }


# --- splits ---------------------------------------------------------------------------


def test_split_notation_round_trip_spec_example() -> None:
    s = Split.parse("3 444555 6789T A 22 XD")
    assert str(s) == "3 444555 6789T A 22 XD"
    assert [g.type for g in s] == [
        GroupType.SOLO,
        GroupType.TRIO_CHAIN,
        GroupType.SOLO_CHAIN,
        GroupType.SOLO,
        GroupType.PAIR,
        GroupType.ROCKET,
    ]
    assert str(s.hand) == "34445556789TA22XD"
    assert Split.parse("{XD, 22, A, T9876, 555444, 3}") == s
    assert eval(repr(s), {"Split": Split}) == s
    assert pickle.loads(pickle.dumps(s)) == s
    assert hash(s) == hash(Split.parse(str(s)))
    with pytest.raises(AttributeError):
        s._groups = ()  # type: ignore[misc]


def test_split_round_trips_on_random_groupings() -> None:
    gen = as_generator(1)
    for _ in range(300):
        hand = Deal.random(gen).hands[int(gen.integers(3))].counts
        s = random_grouping(gen, hand)
        text = str(s)
        assert Split.parse(text) == s and str(Split.parse(text)) == text
        assert s.counts == hand
        tokens = text.split()
        gen.shuffle(tokens)
        scrambled = " ".join("".join(gen.permutation(list(t))) for t in tokens)
        assert Split.parse(scrambled) == s


def test_split_rejects_impossible_card_sets() -> None:
    with pytest.raises(InvalidNotationError, match="5 cards of rank '3'"):
        Split.parse("3333 3")
    with pytest.raises(InvalidNotationError, match="2 cards of rank 'X'"):
        Split.parse("X XD")
    with pytest.raises(InvalidNotationError, match=r"split '3 3456': .*not a basic group"):
        Split.parse("3 3456")


# --- tags -----------------------------------------------------------------------------


def test_spec_tag_example_both_ways() -> None:
    s = Split.parse("3 444555 6789T A 22 XD")
    assert s.tags() == "02222220000001133"
    assert Split.from_tags("34445556789TA22XD", "02222220000001133") == s
    assert not tags_need_repair("34445556789TA22XD", "02222220000001133")


def test_spec_training_example_both_ways() -> None:
    # the winner played {3AAA, 68TTTJJJ, KK, 22, 9}; kickers stripped into own groups
    s = Split.parse("3 AAA 6 8 TTTJJJ KK 22 9")
    assert s.tags() == "00002222221122211"
    assert Split.from_tags("3689TTTJJJKKAAA22", "00002222221122211") == s


def test_paper_table4_tag_examples_decode() -> None:
    # Table 4 lists labels for hands written high to low; ours is the same hand ascending
    cases = [
        ("X2AAQQQJJTT988774", "0,0,1,1,2,2,2,1,1,1,1,0,1,1,1,1,0", "4 77 88 9 TT JJ QQQ AA 2 X"),
        ("2AKKKQQ9998888555", "0,0,2,2,2,1,1,2,2,2,3,3,3,3,2,2,2", "555 8888 999 QQ KKK A 2"),
    ]
    for desc_hand, desc_tags, expected in cases:
        tags = "".join(reversed(desc_tags.split(",")))
        hand = "".join(reversed(desc_hand))
        assert not tags_need_repair(hand, tags)
        s = Split.from_tags(hand, tags)
        assert s == Split.parse(expected)
        assert s.tags() == tags


def test_tags_split_tags_identity_on_decodable_tags() -> None:
    gen = as_generator(2)
    for _ in range(400):
        hand = Deal.random(gen).hands[0].counts
        tags = random_grouping(gen, hand).tags()
        assert not tags_need_repair(Hand(hand), tags)
        decoded = Split.from_tags(Hand(hand), tags)
        assert decoded.tags() == tags
        assert decoded.counts == hand


def test_decoding_the_exact_split_keeps_its_group_count() -> None:
    """Each label class is re-chained with the fewest groups, so decoding the tags of a
    fewest-groups split can never need more groups (or fewer: it is optimal)."""
    gen = as_generator(3)
    for _ in range(300):
        hand = Deal.random(gen).hands[int(gen.integers(3))].counts
        for s in (exact(hand), heuristic(hand)):
            decoded = Split.from_tags(hand, s.tags())
            assert decoded.tags() == s.tags()
            assert len(decoded) <= len(s)
        assert len(Split.from_tags(hand, exact(hand).tags())) == len(exact(hand))


def test_decoding_chooses_fewest_groups_for_stacked_solo_runs() -> None:
    # 34567 + 56789 stack on 5,6,7: one long run would leave three solos
    assert str(Split.from_tags("3455667789", "0" * 10)) == "34567 56789"
    assert str(Split.from_tags("3456789", "0" * 7)) == "3456789"
    assert str(Split.from_tags("33445566", "11111111")) == "33445566"
    assert str(Split.from_tags("3334448", "2222220")) == "333444 8"


@pytest.mark.parametrize(
    ("hand", "tags", "repaired"),
    [
        ("33", "01", "00"),  # a lone card tagged 1
        ("333", "111", "011"),  # an odd number tagged 1: one is lowered
        ("333", "122", "011"),  # two tagged 2 are lowered to 1; of three 1s one is lowered to 0
        ("3333", "0333", "0222"),  # three tagged 3: no bomb; a trio and a solo
        ("3333", "2222", "0222"),  # four tagged 2: a trio, the fourth lowered to 1 then 0
        ("3333", "1111", "1111"),  # two pairs: decodable
        ("3X", "03", "00"),  # a lone joker tagged 3
        ("3XD", "030", "000"),  # only one joker tagged 3
        ("XD", "33", "33"),  # the rocket
        ("XD", "11", "00"),  # jokers cannot pair
        ("34", "23", "00"),
    ],
)
def test_repair_rule(hand: str, tags: str, repaired: str) -> None:
    assert repair_tags(hand, tags) == repaired
    assert tags_need_repair(hand, tags) == (tags != repaired)
    assert Split.from_tags(hand, tags) == Split.from_tags(hand, repaired)
    if tags != repaired:
        with pytest.raises(InvalidNotationError, match="cannot be decoded"):
            Split.from_tags(hand, tags, repair=False)


def test_repair_of_random_tags_is_decodable_idempotent_and_minimal() -> None:
    gen = as_generator(4)
    for _ in range(500):
        hand = Deal.random(gen).hands[int(gen.integers(3))]
        tags = "".join(str(x) for x in gen.integers(0, 4, size=len(hand)))
        fixed = repair_tags(hand, tags)
        assert not tags_need_repair(hand, fixed)
        assert repair_tags(hand, fixed) == fixed
        s = Split.from_tags(hand, tags)
        assert s.tags() == fixed and s.counts == hand.counts
        # the repair only ever lowers labels, rank by rank
        by_rank_in = _labels_by_rank(hand, tags)
        by_rank_out = _labels_by_rank(hand, fixed)
        for r in by_rank_in:
            assert all(a <= b for a, b in zip(sorted(by_rank_out[r]), sorted(by_rank_in[r]), strict=True))


def _labels_by_rank(hand: Hand, tags: str) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for r, label in zip(hand.ranks(), tags, strict=True):
        out.setdefault(r, []).append(int(label))
    return out


def test_tag_input_errors() -> None:
    with pytest.raises(InvalidNotationError, match="3 labels for the 2 cards"):
        Split.from_tags("33", "000")
    with pytest.raises(InvalidNotationError, match="unknown label '4'"):
        Split.from_tags("33", "04")
    with pytest.raises(InvalidNotationError, match="unknown card"):
        Split.from_tags("3Z", "00")
    assert Split.from_tags("33", [1, 1]) == Split.parse("33")
    assert Split.from_tags("33", "1, 1") == Split.parse("33")


def test_tags_order_labels_within_a_rank_ascending() -> None:
    s = Split.parse("34567 33 3")  # rank 3 has a chain card (0), a pair (1 1) and a solo (0)
    assert s.tags() == "0011" + "0000"


# --- plays (kicker attachment) ----------------------------------------------------------


def brute_force_plays(s: Split) -> int:
    """Fewest plays for fixed groups: try every assignment of solo/pair groups to carriers,
    accepting a carrier plus kickers only if DouZero's generator lists the union as a move
    with kickers (so 333+3 = 3333, a bomb, is rejected)."""
    legal = dz_moves(s.counts)
    groups = list(s)
    kickers = [i for i, g in enumerate(groups) if g.type in (GroupType.SOLO, GroupType.PAIR)]
    carriers = [
        i for i, g in enumerate(groups) if g.type in (GroupType.TRIO, GroupType.TRIO_CHAIN, GroupType.BOMB)
    ]
    best = len(groups)

    def rec(ci: int, free: frozenset[int], attached: int) -> None:
        nonlocal best
        if ci == len(carriers):
            best = min(best, len(groups) - attached)
            return
        rec(ci + 1, free, attached)
        body = groups[carriers[ci]]
        need = 2 if body.type is GroupType.BOMB else body.length
        for kind in (GroupType.SOLO, GroupType.PAIR):
            pool = sorted(i for i in free if groups[i].type is kind)
            for combo in _combinations(pool, need):
                c = list(body.counts)
                for i in combo:
                    for r, n in enumerate(groups[i].counts):
                        c[r] += n
                if legal.get(tuple(c), set()) & KICKER_DZ_TYPES:
                    rec(ci + 1, free - set(combo), attached + need)

    rec(0, frozenset(kickers), 0)
    return best


def _combinations(pool: list[int], k: int) -> list[tuple[int, ...]]:
    from itertools import combinations

    return list(combinations(pool, k))


def test_plays_attach_optimally_and_legally_on_random_groupings() -> None:
    gen = as_generator(5)
    checked = 0
    for _ in range(600):
        lo = int(gen.integers(0, 10))
        counts = small_hand(gen, int(gen.integers(4, 13)), lo, min(15, lo + 6))
        s = random_grouping(gen, counts)
        plays = s.plays()
        legal = dz_moves(counts)
        used = []
        for p in plays:
            assert isinstance(p, Play)
            assert p.counts in legal, (str(s), str(p))
            used += [p.body, *p.kickers]
        assert Split(used) == s  # every group used exactly once
        assert len(plays) == s.num_plays == brute_force_plays(s), str(s)
        checked += any(p.kickers for p in plays)
    assert checked > 100  # the sample exercises attachment


@pytest.mark.parametrize(
    ("split_text", "plays"),
    [
        ("333 4444 5", {"3335", "4444"}),
        ("3 444555 6789T A 22 XD", {"3444555A", "6789T", "22", "XD"}),
        ("33 33 44 44 5555 6666", {"33445555", "33446666"}),
        ("3333 5 5", {"333355"}),
        ("333 3 5", {"3335", "3"}),  # the solo 3 may not ride on its own trio
        ("333444 4 5", {"333444", "4", "5"}),  # wings may not sit in the body
        ("333444 5 X", {"3334445X"}),
    ],
)
def test_hand_checked_attachments(split_text: str, plays: set[str]) -> None:
    assert {str(p) for p in Split.parse(split_text).plays()} == plays


def test_play_kinds_use_spec_names() -> None:
    kinds = {str(p): p.kind for p in Split.parse("333 4 555666 7 8 9999 J Q KK AA XD").plays()}
    assert set(kinds.values()) <= {
        "trio with solo",
        "trio with pair",
        "airplane with wings",
        "four with two",
        "rocket",
        "pair",
        "solo",
    }
    assert "airplane with wings" in kinds.values() and "four with two" in kinds.values()


def test_to_dict_is_json_ready() -> None:
    import json

    d = Split.parse("3 444555 6789T A 22 XD").to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["tags"] == "02222220000001133"
    assert d["num_groups"] == 6 and d["num_plays"] == 4
    assert [g["type"] for g in d["groups"]][:2] == ["solo", "trio chain"]
    assert RANKS  # notation constants are the engine's
