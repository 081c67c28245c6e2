"""The notation-level generator (``paiju.doudizhu.movetext``) lists exactly what movegen lists.

``paiju.doudizhu.legal_moves`` answers from ``movetext``, which builds canonical strings
without Move objects (issue 12 §4). Each of its parts is checked here against the Move-based
generator (itself checked against brute force and DouZero in ``test_ddz_movegen.py`` /
``test_ddz_peers.py``): leads and follows on random-game and trio/bomb/airplane-rich
positions under both wing rules, the readings of moves to beat against ``Move.parse``, and
the string API's lists and errors against ``movegen.legal_moves``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from paiju.core.errors import PaijuError
from paiju.doudizhu import legal_moves, movegen, movetext
from paiju.doudizhu.cards import MAX_COUNT, RANKS, format_counts
from paiju.doudizhu.moves import PASS, Move, MoveType, key_of, notations
from paiju.doudizhu.peers import game_positions, rich_positions


@pytest.fixture(scope="module")
def positions() -> list:
    rng = np.random.default_rng(2026)
    return game_positions(rng, 3000) + rich_positions(rng, 2500)


def _reading(move: Move) -> tuple[int, int, int]:
    return (int(move.type), move.rank, move.length)


@pytest.mark.parametrize("strict", [False, True])
def test_leads_equal_the_generator(positions: list, strict: bool) -> None:
    kinds = set()
    for counts, _ in positions:
        key = key_of(counts)
        expected = movegen.generate(key, None, strict=strict)
        assert movetext.lead_notations(key, strict) == notations(expected), format_counts(counts)
        kinds.update(m.type for m in expected)
    assert kinds == set(MoveType) - {MoveType.PASS}  # every type was generated on some lead


@pytest.mark.parametrize("strict", [False, True])
def test_follows_equal_the_generator(positions: list, strict: bool) -> None:
    kinds = set()
    for counts, trick in positions:
        if trick is None:
            continue
        key = key_of(counts)
        expected = notations(movegen.generate(key, trick, strict=strict))
        assert movetext.follow_notations(key, _reading(trick), strict) == expected, (counts, trick)
        kinds.add(trick.type)
    assert len(kinds) == 14  # every type but pass was followed


def test_strict_rule_changes_some_lists(positions: list) -> None:
    """The wing rule is really applied (the comparison above is not between two equal lists)."""
    differ = sum(
        movetext.lead_notations(key_of(c), False) != movetext.lead_notations(key_of(c), True)
        for c, _ in positions
    )
    assert differ > 20


def _expected_reading(text: str) -> tuple[int, int, int] | PaijuError:
    try:
        return _reading(Move.parse(text))
    except PaijuError as err:
        return err


def _candidate_sets(positions: list) -> list[str]:
    """Every move any hand could lead, every move to beat, and random card sets (most no move)."""
    texts = {str(m) for c, _ in positions[::3] for m in movegen.generate(key_of(c), None)}
    texts |= {str(t) for _, t in positions if t is not None}
    rng = random.Random(7)
    for _ in range(20000):
        size = rng.randint(1, 20)
        deck = [r for r in range(15) for _ in range(MAX_COUNT[r])]
        texts.add("".join(RANKS[r] for r in sorted(rng.sample(deck, size))))
    return sorted(texts)


def test_reading_of_agrees_with_move_parse(positions: list) -> None:
    covered: dict[int, int] = {}
    for text in _candidate_sets(positions):
        got = movetext.reading_of(key_of(_counts(text)))
        expected = _expected_reading(text)
        if got is not None:
            assert got == expected, text  # never a reading Move.parse would not give
            covered[got[0]] = covered.get(got[0], 0) + 1
            continue
        # left to Move.parse only: errors, 20+ cards, trio chains of 4 or 7+ ranks
        assert (
            isinstance(expected, PaijuError)
            or len(text) >= 20
            or (expected[0] == MoveType.TRIO_CHAIN and expected[2] not in (2, 3, 5, 6))
        ), text
    assert set(covered) == set(range(1, 15))  # every type is read here, not only by Move.parse
    assert sum(covered.values()) > 4000


def _counts(text: str) -> tuple[int, ...]:
    return tuple(text.count(r) for r in RANKS)


def _outcome(fn, hand: object, beat: object) -> object:
    try:
        return fn(hand, beat)
    except PaijuError as err:
        return (type(err).__name__, str(err))


def test_string_api_equals_movegen_errors_included(positions: list) -> None:
    rng = random.Random(11)
    cases: list[tuple[object, object]] = []
    for counts, trick in positions:
        text = format_counts(counts)
        hand = "".join(rng.sample(text, len(text)))  # any order
        cases.append((hand, None if trick is None else str(trick)))
        if trick is not None:
            cases.append((hand, trick))  # a Move as the move to beat
    cases += [
        ("345", "pass"), ("345", " PASS "), ("345", ""), ("345", "3Z"), ("345", "34"),
        ("3456", "333444555666"), ("33334444555566667777", "3334445556667778"), ("345", 5),
        ("345", PASS), ("3Z", "3"), ("", "3"), ("", None), ("33333", None), ("XX", "3"), (None, "3"),
        ("3456789TJQKA2XD", "33334444"), ("3333444455", "3333"), ("3456", "3334445556667778889T"),
    ]
    for hand, beat in cases:
        for _ in range(2):  # the second time through the memos
            expected = _outcome(movegen.legal_moves, hand, beat)
            assert _outcome(legal_moves, hand, beat) == expected, (hand, beat)


def test_string_api_imports_neither_moves_nor_movegen() -> None:
    """The point of the module: a fresh process answers without the Move machinery."""
    import subprocess
    import sys

    code = (
        "import sys, paiju.doudizhu as d\n"
        "d.legal_moves('33344455566678TKKA2', None); d.legal_moves('33344455566678TKKA2', '3456789')\n"
        "d.legal_moves('3334445556667778XD', '3334445566'); d.legal_moves('3334445556667778XD', '333345')\n"
        "print(sorted(m for m in ('paiju.doudizhu.moves', 'paiju.doudizhu.movegen') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (out.returncode, out.stdout.strip()) == (0, "[]"), out.stderr


def test_returned_lists_belong_to_the_caller() -> None:
    """The memos (lead lists, hand keys, moves to beat) never hand out their own storage."""
    hand = "33344455566678TKKA2"
    for beat in (None, "3456789", "4"):
        got = legal_moves(hand, beat)
        got.append("junk")
        got.reverse()
        assert legal_moves(hand, beat) == movegen.legal_moves(hand, beat)
