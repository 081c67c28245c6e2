"""Fuzz the card, tile and move notations (docs/design.md §5-§7): Dou Dizhu hands, deals and
moves (and the string API's `legal_moves`), mahjong tiles, melds, flags and flowers, yuxi
actions.

Oracles: round-trips (``parse(format(x)) == x`` on generated values, ``format(parse(s)) == s``
on canonical strings, ``repr`` evaluating back to the value); a differential (mahjong's fast
compact-notation path against the general parser); and "arbitrary text either parses or
raises the project's own error (a :class:`PaijuError`), never another exception".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fuzzing import FAST, SLOW, corpus_lines
from hypothesis import given
from hypothesis import strategies as st

import paiju.doudizhu as ddz
from paiju.core.errors import PaijuError
from paiju.doudizhu.cards import MAX_COUNT, RANKS, Deal, Hand, format_counts
from paiju.doudizhu.moves import Move, all_readings
from paiju.mahjong import score_hand as mj_notation
from paiju.mahjong.tiles import (
    NUM_KINDS,
    Meld,
    MeldType,
    Tile,
    format_tiles,
    parse_counts,
    parse_kinds,
    parse_wall_kinds,
    to_counts,
)
from paiju.yuxi.game import YuxiConfig, YuxiGame

# ---- generated values ---------------------------------------------------------------------

ddz_counts = st.tuples(*(st.integers(0, m) for m in MAX_COUNT))
mj_counts = st.lists(st.integers(0, 4), min_size=NUM_KINDS, max_size=NUM_KINDS)


@st.composite
def mj_melds(draw: st.DrawFn) -> Meld:
    kind = draw(st.sampled_from(list(MeldType)))
    if kind == MeldType.CHOW:
        suit, low = draw(st.integers(0, 2)), draw(st.integers(0, 6))
        return Meld(kind, 9 * suit + low)
    return Meld(kind, draw(st.integers(0, NUM_KINDS - 1)))


# Text near the notations (their characters, brackets, separators, digits, case changes) and
# anything at all: most generated strings must reach the parsers' error paths, not stop at
# the first character.
NEAR = st.text(alphabet=RANKS + "1023456789mpszfMPSZ[]+|@,-> \t\nxdpassendkeepplay_#" + "東萬０", max_size=30)
ANY = st.one_of(NEAR, st.text(max_size=30))

PARSERS: dict[str, Callable[[str], Any]] = {
    "ddz hand": Hand.parse,
    "ddz move": Move.parse,
    "ddz deal": Deal.parse,
    "ddz legal_moves": ddz.legal_moves,
    "mj kinds": parse_kinds,
    "mj counts": parse_counts,
    "mj tile": Tile.parse,
    "mj wall": lambda s: parse_wall_kinds(s, flowers=True),
    "mj melds": mj_notation.parse_melds,
    "mj flags": mj_notation.parse_flags,
    "mj flowers": mj_notation.parse_flowers,
}


def _yuxi_state() -> Any:
    import numpy as np

    game = YuxiGame(YuxiConfig(board="3x3"))
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    while state.is_chance_node():
        state.apply(state.sample_chance(rng))
    return state


YUXI = _yuxi_state()


def _parses_or_refuses(parse: Callable[[str], Any], text: str) -> None:
    try:
        parse(text)
    except PaijuError as err:
        assert str(err).strip(), f"{text!r}: an empty error message"


# ---- Dou Dizhu -----------------------------------------------------------------------------


def _ddz_round_trips(counts: tuple[int, ...]) -> None:
    hand = Hand.from_counts(counts)
    text = format_counts(counts)
    assert Hand.parse(text) == hand and str(hand) == text
    assert eval(repr(hand)) == hand  # repr is documented to evaluate back
    for move in all_readings(counts)[:20]:
        assert Move.parse(str(move), move.type) == move
        assert eval(repr(move), {"Move": Move}) == move
        assert str(Move.parse(str(move), move.type)) == str(move)


def _deal_round_trips(seed: int) -> None:
    deal = Deal.random(seed)
    assert Deal.parse(str(deal)) == deal and str(Deal.parse(str(deal))) == str(deal)


@FAST
@given(ddz_counts)
def test_ddz_hands_and_moves_round_trip(counts: tuple[int, ...]) -> None:
    """Oracle: round-trip of Hand/Move notation and repr on generated count vectors."""
    _ddz_round_trips(counts)


@FAST
@given(st.integers(0, 2**32))
def test_ddz_deals_round_trip(seed: int) -> None:
    """Oracle: Deal.parse(str(deal)) == deal on random deals."""
    _deal_round_trips(seed)


# ---- mahjong ---------------------------------------------------------------------------------


def _mj_round_trips(counts: list[int], melds: list[Meld], flags: set[str], flowers: set[int]) -> None:
    text = format_tiles([k for k, n in enumerate(counts) for _ in range(n)])
    assert to_counts(parse_kinds(text)) == counts and format_tiles(parse_kinds(text)) == text
    assert parse_counts(text) == counts  # the fast path agrees with the general parser
    spaced = " ".join(f"{k % 9 + 1}{'mpsz'[k // 9]}" for k, n in enumerate(counts) for _ in range(n))
    assert parse_counts(spaced) == counts  # one tile at a time, spaces between: the slow path
    for k in range(NUM_KINDS):
        assert Tile.parse(str(Tile(k))) == Tile(k)
    written = mj_notation.format_melds(melds)
    assert mj_notation.parse_melds(written) == tuple(melds)
    assert mj_notation.format_melds(mj_notation.parse_melds(written)) == written
    assert mj_notation.parse_flags(mj_notation.format_flags(flags)) == frozenset(flags)
    assert mj_notation.parse_flowers(mj_notation.format_flowers(flowers)) == tuple(sorted(flowers))


@FAST
@given(mj_counts, st.lists(mj_melds(), max_size=5), st.sets(st.sampled_from(mj_notation.FLAGS)),
       st.sets(st.integers(0, 7)))
def test_mahjong_notation_round_trips(
    counts: list[int], melds: list[Meld], flags: set[str], flowers: set[int]
) -> None:
    """Oracle: round-trips of tiles, melds, flags and flowers; the compact fast path of
    parse_counts against parse_kinds (a differential)."""
    _mj_round_trips(counts, melds, flags, flowers)


# ---- yuxi actions ----------------------------------------------------------------------------


def _yuxi_round_trips(seed: int) -> None:
    import numpy as np

    state = YUXI.clone()
    rng = np.random.default_rng(seed)
    for _ in range(12):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        for a in legal:
            text = state.action_to_string(a)
            assert state.parse_action(text) == a, text
        state.apply(legal[int(rng.integers(len(legal)))])


@FAST
@given(st.integers(0, 10_000))
def test_yuxi_actions_round_trip(seed: int) -> None:
    """Oracle: parse_action(action_to_string(a)) == a for every legal action along random play."""
    _yuxi_round_trips(seed)


# ---- arbitrary text: parses or raises PaijuError -------------------------------------------


@FAST
@given(st.sampled_from(sorted(PARSERS)), ANY)
def test_arbitrary_text_parses_or_raises_the_projects_error(name: str, text: str) -> None:
    """Oracle: never an exception other than PaijuError (and never an empty message)."""
    _parses_or_refuses(PARSERS[name], text)


@FAST
@given(ANY, ANY)
def test_legal_moves_beat_parses_or_raises(hand: str, beat: str) -> None:
    """Oracle: `legal_moves(hand, beat)` on any two texts: a list or a PaijuError."""
    _parses_or_refuses(lambda h: ddz.legal_moves(h, beat), hand)


@FAST
@given(ANY)
def test_yuxi_parse_action_parses_or_raises(text: str) -> None:
    """Oracle: a yuxi state's parse_action on any text: an action or a PaijuError."""
    _parses_or_refuses(YUXI.parse_action, text)


# ---- the committed corpus -------------------------------------------------------------------


@pytest.mark.parametrize("line", corpus_lines("notation"))
def test_corpus(line: str) -> None:
    """Each committed input (``parser<TAB>text``, escapes as in Python strings) parses or
    raises PaijuError."""
    name, _, text = line.partition("\t")
    text = text.encode("utf-8").decode("unicode_escape")
    if name == "yuxi action":
        _parses_or_refuses(YUXI.parse_action, text)
    else:
        _parses_or_refuses(PARSERS[name], text)


# ---- at length (make test-slow) -------------------------------------------------------------


@pytest.mark.slow
@SLOW
@given(ddz_counts, mj_counts, st.lists(mj_melds(), max_size=5), st.sets(st.sampled_from(mj_notation.FLAGS)),
       st.sets(st.integers(0, 7)), st.integers(0, 2**32))
def test_round_trips_at_length(
    counts: tuple[int, ...], mj: list[int], melds: list[Meld], flags: set[str], flowers: set[int], seed: int
) -> None:
    """Oracle: the round-trips above, random at length."""
    _ddz_round_trips(counts)
    _deal_round_trips(seed)
    _mj_round_trips(mj, melds, flags, flowers)
    _yuxi_round_trips(seed % 100_000)


@pytest.mark.slow
@SLOW
@given(st.sampled_from([*sorted(PARSERS), "yuxi action"]), ANY)
def test_arbitrary_text_at_length(name: str, text: str) -> None:
    """Oracle: parses or raises PaijuError, random at length."""
    _parses_or_refuses(YUXI.parse_action if name == "yuxi action" else PARSERS[name], text)
