"""The string API's fast paths (issue 12 §4) agree with the reference paths they short-cut.

``legal_moves(hand, beat)`` parses the hand straight into a packed key, memoises the moves to
beat and formats moves by slice tables; the per-mask tables are filled from small per-rank and
per-run pieces. Each is checked here against the plain code it replaces (or a direct loop),
including every error message; the generator itself is checked against brute force and DouZero
in ``test_ddz_movegen.py`` / ``test_ddz_peers.py``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from paiju.core.errors import AmbiguousMoveError, InvalidNotationError, PaijuError
from paiju.doudizhu import legal_moves
from paiju.doudizhu.cards import MAX_COUNT, RANKS, format_counts, parse_counts
from paiju.doudizhu.movegen import generate
from paiju.doudizhu.moves import Move, format_key, key_of, notations, parse_key
from paiju.doudizhu.peers import game_positions, rich_positions


def _outcome(fn, text: str) -> object:
    try:
        return fn(text)
    except PaijuError as err:
        return (type(err).__name__, str(err))


def test_parse_key_agrees_with_parse_counts_errors_included() -> None:
    rng = random.Random(3)
    texts = ["", "3" * 16, "3" * 15 + "4", "X" * 16 + "3", "3" * 32 + "4" * 16, "XX", "DD3", "22222", "10"]
    for _ in range(20000):
        alphabet = RANKS if rng.random() < 0.9 else RANKS + "10xa j"
        texts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))))
    for text in texts:
        assert _outcome(parse_key, text) == _outcome(lambda t: key_of(parse_counts(t)), text), text
    with pytest.raises(InvalidNotationError, match="must be a string"):
        parse_key(None)  # type: ignore[arg-type]


def test_format_key_agrees_with_format_counts() -> None:
    rng = random.Random(4)
    for _ in range(5000):
        counts = tuple(rng.randint(0, cap) for cap in MAX_COUNT)
        assert format_key(key_of(counts)) == format_counts(counts)


def test_string_api_equals_the_generator_on_game_and_rich_positions() -> None:
    rng = np.random.default_rng(21)
    positions = game_positions(rng, 1500) + rich_positions(rng, 500)
    for counts, trick in positions:
        expected = [str(m) for m in generate(key_of(counts), trick)]
        assert notations(generate(key_of(counts), trick)) == expected
        if trick is not None and not _readable(trick):
            continue
        hand = "".join(random.Random(len(expected)).sample(format_counts(counts), sum(counts)))  # any order
        assert legal_moves(hand, None if trick is None else str(trick)) == expected


def _readable(trick: Move) -> bool:
    """Whether notation alone names this reading (not a trio chain of 4 played as an airplane)."""
    try:
        return Move.parse(str(trick)) == trick
    except PaijuError:
        return False


def test_move_parse_memo_returns_the_same_move_and_keeps_the_errors() -> None:
    first = Move.parse("KKKA")
    assert Move.parse("AKKK") == first and Move.parse("KKKA") is first
    assert Move.parse("333444555666", "trio_chain").type.name == "TRIO_CHAIN"
    assert Move.parse("333444555666", "airplane_solo").type.name == "AIRPLANE_SOLO"
    for _ in range(2):  # an error is never memoised
        with pytest.raises(AmbiguousMoveError):
            Move.parse("333444555666")
        with pytest.raises(InvalidNotationError, match="not a Dou Dizhu move"):
            Move.parse("34")
    with pytest.raises(InvalidNotationError, match="not a pass"):
        Move.parse("3", "pass")


def test_legal_moves_beat_errors() -> None:
    for _ in range(2):
        with pytest.raises(InvalidNotationError, match="beat='pass'"):
            legal_moves("345", "pass")
        with pytest.raises(InvalidNotationError, match="unknown card"):
            legal_moves("345", "3Z")
    assert legal_moves("345", "3") == ["4", "5"]


def test_maximal_runs_helper_matches_a_direct_loop() -> None:
    from paiju.doudizhu.movegen import _runs

    for dense in range(1 << 15):
        mask = sum(1 << (4 * r) for r in range(15) if dense >> r & 1)
        expected = []
        r = 0
        while r <= 11:  # chains use ranks 3..A only
            if dense >> r & 1:
                s = r
                while r <= 11 and dense >> r & 1:
                    r += 1
                expected += [(st, n) for n in range(1, r - s + 1) for st in range(s, r - n + 1)]
            else:
                r += 1
        assert _runs(mask, 1) == expected
