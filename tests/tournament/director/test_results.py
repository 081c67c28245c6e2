"""A table's result checked against the board's cards and the scoring rules, on a board whose
bombs are counted by hand.

The board: hand A 3333 4444 56789T J X D (17) with bottom Q K A, so the landlord's 20 hold
the bombs 3333 and 4444 and the rocket XD (3); hand B 2222 555 666 777 888 9 holds the bomb
2222 (1); hand C 99 TTT JJJ QQQ KKK AAA holds none (no rank four times). So: at most 4
bombs and rockets on the board; in a spring (only the landlord plays) at most 3; in an
anti-spring (the landlord plays once) at most 1 + 1 = 2. With bidding and hand B as the
landlord, B takes Q K A: the landlord holds 1 (2222), the farmers 3.
"""

from __future__ import annotations

import re

import pytest

from paiju.doudizhu.cards import Deal, Hand
from paiju.tournament.director.boards import Board
from paiju.tournament.director.formats import EventFormat
from paiju.tournament.director.results import (
    EntryError,
    TableResult,
    bomb_limits,
    check_result,
    possible_bombs,
)

DEAL = Deal(["3333444456789TJQKAXD", "22225556667778889", "99TTTJJJQQQKKKAAA"], "QKA")
BOARD = Board.from_deal(7, DEAL, seed=0)
FIXED = EventFormat()
BIDDING = EventFormat(landlord="bidding", scoring="casual")


def test_the_board_is_the_one_described() -> None:
    assert str(BOARD.bottom) == "QKA" and str(BOARD.hands[0]) == "3333444456789TJXD"
    assert [possible_bombs(h) for h in BOARD.hands] == [3, 1, 0]
    assert possible_bombs(Hand.parse("X")) == 0 and possible_bombs(Hand.parse("XD")) == 1
    assert bomb_limits(BOARD, 0) == (3, 1)
    assert bomb_limits(BOARD, 1) == (1, 3)


@pytest.mark.parametrize(
    ("result", "score"),
    [
        (TableResult(0, True), 1.0),
        (TableResult(0, False), -1.0),
        (TableResult(0, True, bombs=4), 4.0),  # the competition rule: +-max(1, bombs)
        (TableResult(0, True, bombs=3, spring="spring"), 3.0),
        (TableResult(0, False, bombs=2, spring="anti-spring"), -2.0),
        (TableResult(0, True, bid=1), 1.0),  # without bidding the bid is 1
    ],
)
def test_results_the_board_can_produce(result: TableResult, score: float) -> None:
    assert check_result(FIXED, BOARD, result) == score


@pytest.mark.parametrize(
    ("fmt", "result", "field", "message"),
    [
        (
            FIXED,
            TableResult(0, True, bombs=5),
            "bombs",
            "5 bombs and rockets; board 7's hands hold at most 4",
        ),
        (FIXED, TableResult(0, True, bombs=15), "bombs", "a game has 0..14 bombs"),
        (FIXED, TableResult(0, True, bombs=-1), "bombs", "a game has 0..14"),
        (
            FIXED,
            TableResult(0, True, bombs=4, spring="spring"),
            "spring",
            "holds 3 bomb(s) or rocket; 4 were played",
        ),
        (
            FIXED,
            TableResult(0, False, bombs=3, spring="anti-spring"),
            "spring",
            "at most 2 bombs and rockets",
        ),
        (FIXED, TableResult(0, False, spring="spring"), "spring", "a spring (春天) is a landlord's win"),
        (FIXED, TableResult(0, True, spring="anti-spring"), "spring", "is the farmers' win"),
        (FIXED, TableResult(1, True), "declarer", "hand A is the landlord on every board"),
        (FIXED, TableResult(0, True, bid=2), "bid", "this event has no bidding"),
        (FIXED, TableResult(0, True, doublings=1), "doublings", "has no doubling (加倍)"),
        (BIDDING, TableResult(1, True), "bid", "the winning bid is 1, 2 or 3"),
        (BIDDING, TableResult(1, True, bid=4), "bid", "the winning bid is 1, 2 or 3"),
        (BIDDING, TableResult(1, True, bid=3, bombs=2, spring="spring"), "spring", "holds 1 bomb(s)"),
        (BIDDING, TableResult(3, True, bid=1), "declarer", "a board has hands A, B, C"),
    ],
)
def test_impossible_results_are_refused_naming_the_field(
    fmt: EventFormat, result: TableResult, field: str, message: str
) -> None:
    with pytest.raises(EntryError, match=f"row 9, field '{field}': .*{re.escape(message)}") as caught:
        check_result(fmt, BOARD, result, "row 9")
    assert caught.value.field == field


def test_bidding_scores_the_bid_and_the_spring() -> None:
    # casual: bid x 2^bombs, doubled for a spring; hand B (landlord) holds 1 bomb, farmers 3
    assert check_result(BIDDING, BOARD, TableResult(1, True, bid=3, bombs=1, spring="spring")) == 12.0
    assert check_result(BIDDING, BOARD, TableResult(1, False, bid=2, bombs=4)) == -32.0
    assert check_result(BIDDING, BOARD, TableResult(2, False, bid=1, spring="anti-spring")) == -2.0
