"""The mahjong protocol's wire (paiju.interop.mahjong.messages): every message and answer
round-trips through its line, a malformed line is refused with the reason, and ``/rules``
carries any rules there are."""

from __future__ import annotations

from typing import Any

import pytest

from paiju.core.errors import InvalidNotationError
from paiju.interop.mahjong.messages import (
    AskClaim,
    AskRob,
    AskTurn,
    Chow,
    Draw,
    End,
    Flower,
    ForfeitNotice,
    InitCard,
    InitGame,
    Kong,
    Mo,
    Pung,
    Quit,
    Rules,
    Start,
    Throw,
    Win,
    config_from_items,
    format_answer,
    parse_answer,
    parse_message,
    rules_items,
)
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.game import (
    ADDED_KONG,
    CHOW_HIGH,
    CHOW_LOW,
    CHOW_MID,
    CONCEALED_KONG,
    KONG,
    PASS,
    PUNG,
    WIN,
)
from paiju.mahjong.tiles import parse_kinds


def k(tile: str) -> int:
    return parse_kinds(tile)[0]


HAND = tuple(1 if i < 16 else 0 for i in range(34))
MESSAGES = [
    (Start(2), "/start MJ16 2"),
    (Rules(), "/rules"),
    (Rules((("flowers", "true"), ("limit", "none"), ("tai.dealer", "2"))),
     "/rules flowers=true limit=none tai.dealer=2"),
    (InitGame(1, 7, 3, 2), "/initGame south 7 3 2"),
    (InitCard((*range(15), 34)), "/initCard 1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 4p 5p 6p 1f"),
    (Mo(k("5m"), "normal"), "/mo 5m normal"),
    (Mo(34 + 7, "deal"), "/mo 8f deal"),
    (Draw(1, "replacement"), "/draw 1 replacement"),
    (Draw(0, "flower"), "/draw 0 flower"),
    (Flower(3, 0), "/flower 3 1f"),
    (Throw(0, k("7z"), True), "/throw 0 7z drawn"),
    (Throw(2, k("9s"), False), "/throw 2 9s hand"),
    (Pung(1, k("3p"), 0), "/pung 1 3p 0"),
    (Chow(2, k("3s"), 1), "/chow 2 345s 1"),
    (Kong(3, "exposed", k("1z"), 2), "/kong 3 exposed 1z 2"),
    (Kong(3, "concealed", k("2z")), "/kong 3 concealed 2z"),
    (Kong(3, "concealed"), "/kong 3 concealed"),
    (Kong(0, "added", k("6m")), "/kong 0 added 6m"),
    (AskTurn(), "/ask throw"),
    (AskTurn((CONCEALED_KONG + k("5m"), ADDED_KONG + k("3p"), WIN)), "/ask throw kong 5m addkong 3p win"),
    (AskClaim(k("5m"), 2, (WIN, PUNG, KONG, CHOW_LOW, CHOW_MID, CHOW_HIGH, PASS)),
     "/ask claim 5m 2 win pung kong chow 567m chow 456m chow 345m pass"),
    (AskRob(k("4s"), 1), "/ask rob 4s 1 win pass"),
    (Win(2, "discard", k("5m"), 1, 3, HAND), "/win 2 discard 5m 1 3 123456789m1234567p"),
    (Win(0, "flowers", -1, -1, 8, HAND), "/win 0 flowers - - 8 123456789m1234567p"),
    (ForfeitNotice(1, "timed out (no answer within 5 s)"), "/forfeit 1 timed out (no answer within 5 s)"),
    (End("win", (3000, -1000, -1000, -1000)), "/end win +3000 -1000 -1000 -1000"),
    (End("exhaustive", (0, 0, 0, 0)), "/end exhaustive +0 +0 +0 +0"),
    (Quit(), "/quit"),
]


@pytest.mark.parametrize(("msg", "line"), MESSAGES, ids=[m[1][:40] for m in MESSAGES])
def test_every_message_kind_round_trips(msg: Any, line: str) -> None:
    assert msg.format() == line
    assert parse_message(line) == msg


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("", "empty line"),
        ("/hello", "unknown message '/hello'"),
        ("/start MJ13 0", "protocol 'MJ13'"),
        ("/mo 0m normal", "does not exist"),
        ("/mo 5m sideways", "source 'sideways'"),
        ("/mo 55m normal", "not one tile"),
        ("/draw 4 normal", "not a seat"),
        ("/throw 1 5m maybe", "discard flag"),
        ("/chow 1 346m 0", "not a chow"),
        ("/chow 1 789m1p 0", "not a chow"),
        ("/initCard 1m 2m", "expected 16 or 17 tiles"),
        ("/ask claim 5m 2 pung", "ends with the option pass"),
        ("/ask claim 5m 2 chow 123m pass", "does not hold the discard 5m"),
        ("/ask throw steal", "unknown turn option 'steal'"),
        ("/rules nosuch=1", "unknown rule 'nosuch'"),
        ("/rules flowers=maybe", "use true or false"),
        ("/rules min_tai=-1", "must be a non-negative int"),
        ("/end win 1 2 3", "expected /end"),
    ],
)
def test_malformed_lines_are_refused_with_the_reason(line: str, fragment: str) -> None:
    with pytest.raises(InvalidNotationError, match="bad mahjong protocol line") as err:
        parse_message(line)
    assert fragment in str(err.value)


def test_answers_round_trip_and_garbage_is_refused() -> None:
    turn = AskTurn((CONCEALED_KONG + k("5m"), ADDED_KONG + k("3p"), WIN))
    claim = AskClaim(k("5m"), 2, (WIN, PUNG, KONG, CHOW_LOW, CHOW_MID, CHOW_HIGH, PASS))
    rob = AskRob(k("4s"), 1)
    cases = [(turn, a) for a in (0, k("7z"), *turn.options)] + [(claim, a) for a in claim.options]
    cases += [(rob, WIN), (rob, PASS)]
    texts = set()
    for ask, action in cases:
        text = format_answer(ask, action)
        texts.add(text)
        assert parse_answer(ask, text) == action
    assert {"throw 1m", "kong 5m", "addkong 3p", "win", "chow 345m", "chow 567m", "pass"} <= texts
    bad = [(turn, "pass"), (turn, "throw"), (claim, "throw 5m"), (rob, "pung"), (claim, "chow 123m")]
    for ask, line in bad:
        with pytest.raises(InvalidNotationError):
            parse_answer(ask, line)


@pytest.mark.parametrize(
    "cfg",
    [
        MahjongConfig(),
        MahjongConfig(flowers=True, heaven_ready=True, earth_ready=True, ligu=True, limit=10, min_tai=1),
        MahjongConfig(tai_table="mahjong16_base", multi_ron="head_bump", extras=frozenset({"無字", "明槓"})),
        MahjongConfig(tai=MahjongConfig().tai.__class__(dealer=3, seat_flower=2), missed_discard_scope="all"),
    ],
)
def test_rules_round_trip_through_the_rules_line(cfg: MahjongConfig) -> None:
    line = Rules(rules_items(cfg)).format()
    back = parse_message(line)
    assert isinstance(back, Rules) and back.config() == cfg
    assert config_from_items(rules_items(cfg)) == cfg
