"""`paiju mahjong advise` on a hand that is already a win says so, with its tai and payments,
instead of listing discards (issue 43)."""

from __future__ import annotations

import json

import pytest

from paiju.cli.main import run

# 123m 456m 789m 234p 567s 55p: complete, concealed, so a self-draw win (the discard is due
# after a draw). By the T1 table: 門清自摸 3, plus 獨聽 1 when the drawn tile was the middle of
# a chow (a closed wait; the first such tile is 2m); an end tile of a chow or the pair reads as
# a two-sided or double wait: 3 tai. Seat wind 東: the winner deals, so each seat pays
# 1000 + (4 + 莊家 1) × 500 = 3500.
WIN = "123456789m234p567s55p"


def test_advise_on_a_winning_hand_says_it_is_a_win(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["mahjong", "advise", WIN]) == 0
    out = capsys.readouterr().out
    assert "the hand is a win: self-draw (自摸), 4 tai with 2m as the tile drawn (3 to 4 tai" in out
    assert "門清自摸 (concealed self-draw (不求)): 3" in out and "獨聽 (single wait): 1" in out
    assert [ln for ln in out.splitlines() if ln.startswith("seat ")] == [
        f"seat {s} pays 3500 = 1000 + 5 tai × 500  [with 莊家 1]" for s in (1, 2, 3)
    ]
    assert "discard" not in out


def test_advise_json_on_a_winning_hand(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["mahjong", "advise", WIN, "--seat-wind", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["best"] is None and data["candidates"] == []
    win = data["win"]
    assert (win["drawn"], win["tai"], win["tai_range"]) == ("2m", 4, [3, 4])
    # seat wind 南: the dealer (seat 3 here) pays 莊家 1 more than the other two
    assert sorted((p["payer"], p["amount"]) for p in win["payments"]) == [(1, 3000), (2, 3000), (3, 3500)]


def test_advise_with_melds_on_a_winning_hand(capsys: pytest.CaptureFixture[str]) -> None:
    # 555z (中) exposed: 三元牌 1 and a plain 自摸 1 (the hand is not concealed: no 門清)
    assert run(["mahjong", "advise", "123456789m234p55s", "--melds", "555z", "--json"]) == 0
    win = json.loads(capsys.readouterr().out)["win"]
    names = [line["pattern"] for line in win["lines"]]
    assert "三元牌" in names and "自摸" in names and "門清" not in names


def test_advise_on_a_hand_that_is_not_a_win_lists_discards(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["mahjong", "advise", "123456789m234p5567s7z", "--json", "--depth", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "win" not in data and data["best"] == "7z" and data["candidates"]
