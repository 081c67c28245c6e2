"""Legal-move generation: brute-force oracle, invariants, and the string API."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from paiju.core.errors import AmbiguousMoveError, InvalidNotationError
from paiju.doudizhu import PASS, Hand, Move, MoveType, legal_moves
from paiju.doudizhu.cards import BIG_JOKER, MAX_COUNT, SMALL_JOKER
from paiju.doudizhu.movegen import generate, illegal_reason, is_legal
from paiju.doudizhu.moves import all_readings, key_of
from paiju.doudizhu.peers import game_positions, rich_positions

T = MoveType


def _strict_ok(m: Move) -> bool:
    """RLCard's wing rule, written out independently of the engine's flags."""
    c = m.counts
    if m.type is T.FOUR_TWO_SOLO:
        return not (c[SMALL_JOKER] and c[BIG_JOKER])
    if m.type is T.AIRPLANE_SOLO:
        body = range(m.rank, m.rank + m.length)
        wings = [r for r in range(15) if r not in body and c[r]]
        if c[SMALL_JOKER] and c[BIG_JOKER]:
            return False
        if any(c[r] == 4 for r in wings):
            return False
        return not any(c[r] == 3 and (r == m.rank - 1 or r == m.rank + m.length) for r in wings)
    return True


def _subsets(counts: tuple[int, ...]) -> list[tuple[int, ...]]:
    return [s for s in itertools.product(*(range(n + 1) for n in counts)) if any(s)]


def oracle(counts: tuple[int, ...], beat: Move | None, strict: bool = False) -> set[Move]:
    """Brute force: classify every sub-multiset and keep the reading the rules give it.

    Free lead: the trio-chain reading if there is one, else the highest body. Following:
    the highest-body reading that beats ``beat``.
    """
    out = set()
    for sub in _subsets(counts):
        readings = [m for m in all_readings(sub) if not strict or _strict_ok(m)]
        if not readings:
            continue
        if beat is None:
            chains = [m for m in readings if m.type is T.TRIO_CHAIN]
            out.add(chains[0] if chains else max(readings, key=lambda m: m.rank))
        else:
            beating = [m for m in readings if m.beats(beat)]
            if beating:
                out.add(max(beating, key=lambda m: m.rank))
    return out


def _oracle_positions() -> list[tuple[tuple[int, ...], Move | None]]:
    rng = np.random.default_rng(2024)
    positions = []
    for hand, trick in rich_positions(rng, 160):
        # keep the brute force small: at most ~4,000 sub-multisets per hand
        size = 1
        for n in hand:
            size *= n + 1
        if size <= 4096:
            positions.append((hand, trick))
    for hand, trick in game_positions(rng, 400):
        size = 1
        for n in hand:
            size *= n + 1
        if size <= 2048:
            positions.append((hand, trick))
    return positions


ORACLE_POSITIONS = _oracle_positions()


@pytest.mark.parametrize("strict", [False, True])
def test_generator_matches_brute_force_oracle(strict: bool) -> None:
    assert len(ORACLE_POSITIONS) > 250
    kinds = set()
    for hand, trick in ORACLE_POSITIONS:
        ours = generate(key_of(hand), trick, strict=strict)
        assert len(ours) == len(set(ours)), f"duplicates for {Hand(hand)} / {trick}"
        expected = oracle(hand, trick, strict)
        assert set(ours) == expected, (
            f"hand {Hand(hand)} beat {trick}: extra {sorted(map(str, set(ours) - expected))}, "
            f"missing {sorted(map(str, expected - set(ours)))}"
        )
        kinds.update(m.type for m in ours)
    assert kinds == set(T) - {T.PASS}, f"oracle positions never produced {set(T) - kinds}"


def test_is_legal_agrees_with_generate() -> None:
    """The cheap legality test accepts exactly the generated moves (and pass when following)."""
    rng = np.random.default_rng(5)
    for hand, trick in ORACLE_POSITIONS[:200]:
        h = key_of(hand)
        legal = set(generate(h, trick))
        candidates = set()
        for sub in _subsets(hand):
            candidates.update(all_readings(sub))
        # some moves not in the hand at all
        for _ in range(5):
            other = rng.integers(0, 2, size=15) * np.array(MAX_COUNT)
            candidates.update(all_readings(tuple(int(x) % 5 for x in other)) if other.sum() else [])
        for m in candidates:
            assert is_legal(h, m, trick) == (m in legal), (Hand(hand), trick, m)
            assert (illegal_reason(h, m, trick) is None) == (m in legal)
        assert is_legal(h, PASS, trick) == (trick is not None)


def test_hand_checked_generation() -> None:
    assert legal_moves("3") == ["3"]
    assert sorted(legal_moves("33", "4")) == []
    assert sorted(legal_moves("XD")) == ["D", "X", "XD"]
    assert sorted(legal_moves("3XD", "2")) == ["D", "X", "XD"]
    assert legal_moves("2222XD", "XD") == []
    assert sorted(legal_moves("33334444", "3333")) == ["4444"]
    assert sorted(legal_moves("345678", "34567")) == ["45678"]
    assert set(legal_moves("34567", "3")) >= {"4", "5", "6", "7"} and "3" not in legal_moves("34567", "3")
    lead = legal_moves("333444")
    assert set(lead) == {"3", "4", "33", "44", "333", "444", "3334", "3444", "33344", "33444", "333444"}
    # four with two: solos (a pair or the rocket allowed), pairs of two different ranks
    four = set(legal_moves("3333XD55"))
    assert {"3333XD", "333355", "33335X", "33335D"} <= four and "33335555" not in four
    assert set(legal_moves("33335566", "22223344")) == {"3333"}  # a bomb beats a four with two
    # an airplane of 3 may be beaten by 444555666777 read as an airplane (wings 444)
    assert "444555666777" in legal_moves("444555666777", Move.parse("33344455589J"))
    # ...but on a lead that set is the trio chain, and only a trio chain of 4 beats it
    chain = Move.parse("333444555666", T.TRIO_CHAIN)
    assert set(legal_moves("444555666777", chain)) == {"444555666777"}
    assert legal_moves("444555666778", chain) == []


PERFT = {
    # hand: (lead moves, by type); the totals equal DouZero's move set after deduplication
    "3333444455556666777X": (
        229,
        {
            "airplane_pair": 12,
            "airplane_solo": 55,
            "bomb": 4,
            "four_two_pair": 24,
            "four_two_solo": 56,
            "pair": 5,
            "pair_chain": 6,
            "solo": 6,
            "solo_chain": 1,
            "trio": 5,
            "trio_chain": 10,
            "trio_pair": 20,
            "trio_solo": 25,
        },
    ),
    "3334445556667778889T": (
        387,
        {
            "airplane_pair": 34,
            "airplane_solo": 226,
            "pair": 6,
            "pair_chain": 10,
            "solo": 8,
            "solo_chain": 10,
            "trio": 6,
            "trio_chain": 15,
            "trio_pair": 30,
            "trio_solo": 42,
        },
    ),
    "34445556789TA22XD": (
        101,
        {
            "airplane_solo": 46,
            "pair": 3,
            "rocket": 1,
            "solo": 12,
            "solo_chain": 10,
            "trio": 2,
            "trio_chain": 1,
            "trio_pair": 4,
            "trio_solo": 22,
        },
    ),
}


@pytest.mark.parametrize("hand", sorted(PERFT))
def test_perft_lead_counts(hand: str) -> None:
    from collections import Counter

    from paiju.doudizhu.peers import DouZeroMoves

    total, by_type = PERFT[hand]
    moves = generate(key_of(Hand.parse(hand).counts))
    assert len(moves) == total
    assert dict(Counter(m.type.name.lower() for m in moves)) == by_type
    douzero = DouZeroMoves().legal(Hand.parse(hand).counts, None)
    assert len(set(douzero)) == total and len(douzero) > total  # DouZero lists duplicates (D1)


def test_string_api_errors() -> None:
    with pytest.raises(InvalidNotationError, match="unknown card"):
        legal_moves("33Z")
    with pytest.raises(InvalidNotationError, match="not a Dou Dizhu move"):
        legal_moves("3333", "34")
    with pytest.raises(AmbiguousMoveError):
        legal_moves("3333", "333444555666")
    with pytest.raises(InvalidNotationError, match="beat='pass'"):
        legal_moves("3333", "pass")
    assert legal_moves("44445", Move.parse("333444555666", "trio_chain")) == ["4444"]


def test_output_is_canonical_and_duplicate_free_on_game_positions() -> None:
    rng = np.random.default_rng(11)
    for hand, trick in game_positions(rng, 500):
        text = str(Hand(hand))
        out = legal_moves(text, trick)
        assert len(out) == len(set(out))
        assert all(str(Hand.parse(m)) == m for m in out)
