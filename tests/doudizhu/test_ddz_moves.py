"""Move classification and the beating rule: hand-checked cases for every type and rule."""

from __future__ import annotations

import itertools

import pytest

from paiju.core.errors import AmbiguousMoveError, InvalidNotationError
from paiju.doudizhu import PASS, Hand, Move, MoveType
from paiju.doudizhu.cards import MAX_COUNT, rank_index
from paiju.doudizhu.moves import all_readings, contains_key, counts_of, key_of

T = MoveType

# (notation in any order, type, main rank character, length)
CLASSIFY = [
    ("XD", T.ROCKET, "X", 1),
    ("DX", T.ROCKET, "X", 1),
    ("3333", T.BOMB, "3", 1),
    ("2222", T.BOMB, "2", 1),
    ("3", T.SOLO, "3", 1),
    ("D", T.SOLO, "D", 1),
    ("2", T.SOLO, "2", 1),
    ("34567", T.SOLO_CHAIN, "3", 5),
    ("76534", T.SOLO_CHAIN, "3", 5),
    ("3456789TJQKA", T.SOLO_CHAIN, "3", 12),
    ("TJQKA", T.SOLO_CHAIN, "T", 5),
    ("33", T.PAIR, "3", 1),
    ("22", T.PAIR, "2", 1),
    ("334455", T.PAIR_CHAIN, "3", 3),
    ("QQKKAA", T.PAIR_CHAIN, "Q", 3),
    ("3344556677889900"[:12], T.PAIR_CHAIN, "3", 6),
    ("333", T.TRIO, "3", 1),
    ("222", T.TRIO, "2", 1),
    ("333444", T.TRIO_CHAIN, "3", 2),
    ("KKKAAA", T.TRIO_CHAIN, "K", 2),
    ("333444555666777888", T.TRIO_CHAIN, "3", 6),
    ("3337", T.TRIO_SOLO, "3", 1),
    ("333D", T.TRIO_SOLO, "3", 1),
    ("2223", T.TRIO_SOLO, "2", 1),
    ("33377", T.TRIO_PAIR, "3", 1),
    ("22233", T.TRIO_PAIR, "2", 1),
    ("33344467", T.AIRPLANE_SOLO, "3", 2),
    ("33344477", T.AIRPLANE_SOLO, "3", 2),  # the wings may be a pair
    ("333444XD", T.AIRPLANE_SOLO, "3", 2),  # ... or both jokers (DouZero rule)
    ("33344455589J", T.AIRPLANE_SOLO, "3", 3),
    ("333444555999", T.AIRPLANE_SOLO, "3", 3),  # a trio as the wings, not next to the body
    ("3334445556667777", T.AIRPLANE_SOLO, "3", 4),  # a bomb as the wings (DouZero bug D2)
    ("3334445556669998", T.AIRPLANE_SOLO, "3", 4),  # a trio among 4 wings (DouZero bug D2)
    ("3334448899", T.AIRPLANE_PAIR, "3", 2),
    ("3334445552299TT", T.AIRPLANE_PAIR, "3", 3),
    ("333345", T.FOUR_TWO_SOLO, "3", 1),
    ("333355", T.FOUR_TWO_SOLO, "3", 1),  # the two solos may be a pair
    ("3333XD", T.FOUR_TWO_SOLO, "3", 1),  # ... or both jokers
    ("33334488", T.FOUR_TWO_PAIR, "3", 1),
    ("44443322", T.FOUR_TWO_PAIR, "4", 1),
]


@pytest.mark.parametrize(("text", "kind", "rank", "length"), CLASSIFY)
def test_classification(text: str, kind: MoveType, rank: str, length: int) -> None:
    move = Move.parse(text)
    assert move.type is kind
    assert move.rank == rank_index(rank)
    assert move.length == length
    assert move.size == len(text)
    assert Move.parse(str(move)) == move
    assert eval(repr(move), {"Move": Move}) == move


NOT_MOVES = [
    "34",  # two different solos
    "3XD"[:2] + "4",  # 3X4
    "3456",  # chain too short
    "JQKA2",  # 2 never chains
    "TJQKAX",
    "3344",  # pair chain too short
    "333555",  # trios not consecutive
    "AAA222",  # 2 never chains
    "33345",  # trio with two different solos
    "333444556",  # airplane of 2 with 3 kickers
    "3334445",  # airplane of 2 with one kicker
    "33334444",  # four with two pairs of the same rank: not allowed
    "3333444455",
    "333344",  # ok? no: this IS four with two solos (a pair) - checked below
    "3333455",  # four with three
    "33344455566",  # airplane of 3 with a pair (2 wings only)
    "3334444",  # trio + four
    "XXD"[1:] + "3",  # XD3
]


@pytest.mark.parametrize("text", [t for t in NOT_MOVES if t != "333344"])
def test_not_moves_are_rejected_with_a_clear_error(text: str) -> None:
    with pytest.raises(InvalidNotationError, match="is not a Dou Dizhu move"):
        Move.parse(text)


def test_parse_errors() -> None:
    assert Move.parse("333344").type is T.FOUR_TWO_SOLO
    with pytest.raises(InvalidNotationError, match="unknown card"):
        Move.parse("33a")
    with pytest.raises(InvalidNotationError, match="5 cards of rank"):
        Move.parse("33333")
    with pytest.raises(InvalidNotationError, match="write 'pass'"):
        Move.parse("")
    with pytest.raises(InvalidNotationError, match="cannot be read as a trio with pair"):
        Move.parse("3337", T.TRIO_PAIR)
    with pytest.raises(InvalidNotationError, match="unknown move type"):
        Move.parse("3337", "triple")
    assert Move.parse("pass") is PASS and Move.parse("PASS") is PASS and str(PASS) == "pass"
    assert repr(PASS) == "Move.parse('pass')"


def test_two_readings_same_type_take_the_highest_body() -> None:
    # 3334445556667778 = 333444555666 + 7778 (body 3) or 444555666777 + 3338 (body 4)
    move = Move.parse("3334445556667778")
    assert move.type is T.AIRPLANE_SOLO and move.rank == rank_index("4") and move.length == 4
    assert str(move.body) == "444555666777" and str(move.kickers) == "3338"
    readings = all_readings(move.counts)
    assert sorted(m.rank for m in readings) == [0, 1]
    assert [m.top for m in sorted(readings, key=lambda m: m.rank)] == [False, True]


def test_two_readings_of_different_types_are_ambiguous() -> None:
    with pytest.raises(AmbiguousMoveError, match=r"trio_chain.*airplane_solo"):
        Move.parse("333444555666")
    chain = Move.parse("333444555666", T.TRIO_CHAIN)
    plane = Move.parse("333444555666", "airplane_solo")
    assert chain.type is T.TRIO_CHAIN and chain.length == 4
    assert plane.type is T.AIRPLANE_SOLO and plane.length == 3 and plane.rank == rank_index("4")
    assert chain != plane and chain.cards == plane.cards
    assert chain.lead and not plane.lead and plane.top
    assert eval(repr(plane), {"Move": Move}) == plane and "type='airplane_solo'" in repr(plane)


def test_only_trio_chains_of_four_have_two_types() -> None:
    """Exhaustive over every card set that could have an airplane reading with <= 20 cards.

    A set with two readings of different types must contain a body of trios; we enumerate
    every set of 8, 12, 16 or 20 cards whose count-3 ranks include two consecutive ones.
    Done by structure: body (start, length) x every multiset of wing cards outside it.
    """
    from paiju.doudizhu.movegen import _wing_sets

    full = key_of(MAX_COUNT)
    multi_type: set[str] = set()
    for n in (2, 3, 4, 5):
        for s in range(0, 12 - n + 1):
            body = sum(3 << (4 * r) for r in range(s, s + n))
            rest = full & ~sum(15 << (4 * r) for r in range(s, s + n))
            for w in _wing_sets(rest, n):
                readings = all_readings(counts_of(body + w))
                if len({m.type for m in readings}) > 1:
                    multi_type.add(str(readings[0]))
    assert multi_type == {str(Move.parse(t, T.TRIO_CHAIN)) for t in _trio_chains_of(4)}


def _trio_chains_of(n: int) -> list[str]:
    ranks = "3456789TJQKA"
    return ["".join(r * 3 for r in ranks[s : s + n]) for s in range(len(ranks) - n + 1)]


def test_small_sets_have_at_most_one_reading() -> None:
    """Exhaustive: every card set of up to 6 cards has at most one reading."""
    count = 0
    for size in range(1, 7):
        for combo in itertools.combinations_with_replacement(range(15), size):
            c = [0] * 15
            for r in combo:
                c[r] += 1
            if any(c[r] > MAX_COUNT[r] for r in range(15)):
                continue
            count += 1
            assert len(all_readings(c)) <= 1, combo
    assert count > 40_000


# ---- beating ----------------------------------------------------------------------------------
BEATS = [
    # (move, other, beats?)
    ("4", "3", True),
    ("3", "4", False),
    ("3", "3", False),
    ("D", "X", True),
    ("X", "2", True),
    ("2", "A", True),
    ("44", "33", True),
    ("22", "AA", True),
    ("444", "333", True),
    ("45678", "34567", True),
    ("456789", "34567", False),  # different length
    ("34567", "45678", False),
    ("445566", "334455", True),
    ("44556677", "334455", False),
    ("444555", "333444", True),
    ("4443", "3339", True),  # kickers never compare
    ("3339", "4443", False),
    ("44433", "333KK", True),
    ("4443", "33344", False),  # different type
    ("44455578", "333444KA", True),
    ("44455578", "33344455", True),
    ("444555666JQK", "333444555", False),  # airplane with wings vs trio chain
    ("4445556677", "3334448899", True),
    ("444456", "3333KA", True),
    ("44445566", "33337788", True),
    ("444456", "33337788", False),
    ("3333", "2", True),  # a bomb beats any non-bomb
    ("3333", "3456789TJQKA", True),
    ("3333", "33334488", True),
    ("4444", "3333", True),
    ("3333", "4444", False),
    ("XD", "2222", True),  # the rocket beats everything
    ("XD", "3", True),
    ("2222", "XD", False),  # nothing beats the rocket
    ("XD", "XD", False),
    ("D", "XD", False),
    ("3", "pass", False),  # pass is not a move to beat
    ("pass", "3", False),
]


@pytest.mark.parametrize(("move", "other", "expected"), BEATS)
def test_beating_rule(move: str, other: str, expected: bool) -> None:
    assert Move.parse(move).beats(Move.parse(other)) is expected


def test_airplanes_compare_by_body_not_by_wings() -> None:
    """DouZero bug D3 is not reproduced: the body decides, a trio among the wings does not."""
    assert not Move.parse("333444555KKK").beats(Move.parse("999TTTJJJ778"))
    assert Move.parse("444555666789").beats(Move.parse("333444555777"))
    assert Move.parse("999TTTJJJ778").beats(Move.parse("333444555KKK"))


def test_body_and_kickers() -> None:
    cases = {
        "3337": ("333", "7"),
        "33377": ("333", "77"),
        "33344479": ("333444", "79"),
        "3334445566": ("333444", "5566"),
        "3333XD": ("3333", "XD"),
        "33335566": ("3333", "5566"),
        "34567": ("34567", ""),
        "XD": ("XD", ""),
    }
    for text, (body, kick) in cases.items():
        m = Move.parse(text)
        assert (str(m.body), str(m.kickers)) == (body, kick)
        assert m.body + m.kickers == m.cards


def test_moves_are_values() -> None:
    a, b = Move.parse("33344"), Move.parse("44333")
    assert a == b and hash(a) == hash(b) and a is b  # interned
    assert len({a, b, Move.parse("3334")}) == 2
    with pytest.raises(AttributeError):
        a.rank = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        Move()
    assert Move.parse("3334").is_bomb is False and Move.parse("XD").is_bomb and Move.parse("5555").is_bomb
    import pickle

    plane = Move.parse("333444555666", T.AIRPLANE_SOLO)
    assert pickle.loads(pickle.dumps(plane)) == plane


def test_key_helpers() -> None:
    h = key_of(Hand.parse("33344XD").counts)
    assert contains_key(h, Move.parse("3334").key)
    assert not contains_key(h, Move.parse("3335").key)
    assert contains_key(h, Move.parse("33344").key)
    assert contains_key(h, Move.parse("XD").key)
    assert not contains_key(h, Move.parse("3333").key)
    assert counts_of(h) == Hand.parse("33344XD").counts


def test_type_labels() -> None:
    assert T.TRIO_SOLO.label == "trio with solo" and T.parse("trio with solo") is T.TRIO_SOLO
    assert T.parse("Airplane-Solo") is T.AIRPLANE_SOLO and T.ROCKET.chinese == "火箭"
