"""``paiju mahjong bot`` (paiju.interop.mahjong.bot): a scripted exchange answered, and a
message out of the protocol's order refused in one line, exit 2."""

from __future__ import annotations

import sys

import pytest

from paiju.cli.main import run
from paiju.core.errors import PaijuError
from paiju.interop.mahjong.bot import MAX_MESSAGE, MahjongBot


def test_the_bot_command_answers_a_scripted_exchange(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    script = "\n".join([
        "/start MJ16 0", "/rules", "/initGame east 0 0 0",
        "/initCard 1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5s 5s 7z",
        "/ask throw", "/quit", "",
    ])
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    assert run(["mahjong", "bot", "--agent", "greedy"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["ready paiju-greedy", "throw 7z"]  # the lone honour goes first


# ---- messages out of order: one line, exit 2 ----------------------------------------------------
DEALT = [  # seat 1 (not the dealer: 16 tiles), told the rules and its deal
    "/start MJ16 1", "/rules", "/initGame east 0 0 0",
    "/initCard 1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5s 5s",
]
DEALER = ["/start MJ16 0", "/initGame east 0 0 0",
          "/initCard 1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5s 5s 7z"]


@pytest.mark.parametrize(
    ("script", "fragment"),
    [
        (["/ask throw"], "before /start"),  # issue 43: this was a 52-line traceback
        (["/initGame east 0 0 0"], "before /start"),
        (["/start MJ16 1", "/ask throw"], "before /initGame"),
        (["/start MJ16 1", "/mo 5m normal"], "before /initGame"),
        (["/start MJ16 1", "/initGame east 0 0 0", "/ask throw"], "before /initCard"),
        (["/start MJ16 1", "/initGame east 0 0 0", "/throw 0 5m hand"], "before /initCard"),
        ([*DEALT, "/initCard 1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5s 5s"], "during a hand"),
        ([*DEALT, "/rules flowers=true"], "during a hand"),
        ([*DEALT[:3], "/initCard 1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5s 5s 6s"], "16 tiles"),
        ([*DEALT[:3], "/initCard 1m 1m 1m 1m 1m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5s 5s"], "five 1m"),
        ([*DEALT, "/ask throw"], "not seat 1's turn"),  # it has not drawn
        ([*DEALER, "/throw 0 7z hand", "/ask throw"], "holds 16 tiles"),  # the dealer asked twice
        ([*DEALT, "/mo 2s normal", "/mo 3s normal"], "holds 17 tiles"),
        ([*DEALT, "/mo 2s normal", "/throw 1 9s drawn"], "does not hold 9s"),
        ([*DEALT, "/throw 2 9s hand"], "not seat 2's turn"),
        ([*DEALT, "/pung 1 5s 0"], "no open discard"),
        ([*DEALT, "/throw 0 7z hand", "/ask claim 7z 3 pung pass"], "no open discard of 7z by seat 3"),
        ([*DEALT, "/throw 0 7z hand", "/ask claim 7z 0 pung pass"], "pung of 7z"),
        ([*DEALT, "/throw 0 4s hand", "/ask claim 4s 0 chow 456s pass"], "chow 456s"),
        ([*DEALT, "/throw 0 7z hand", "/mo 2s normal", "/throw 1 2s drawn", "/ask rob 5s 2 win pass"],
         "no added kong"),
        ([*DEALT, "/flower 0 1f"], "flowers are not in play"),
        ([*DEALT, "/mo 2s normal", "/ask throw kong 2s"], "kong of 2s"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_a_message_out_of_order_is_one_line_exit_2(
    script: list[str], fragment: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Oracle: the protocol's order (docs/mahjong-protocol.md, "Order"): a message before its
    prerequisite, or one the seat's own tiles contradict, is refused with one line naming it."""
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join([*script, ""])))
    assert run(["mahjong", "bot", "--agent", "greedy"]) == 2
    out, err = capsys.readouterr()
    assert out == ("ready paiju-greedy\n" if script[0].startswith("/start") else "")
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and fragment in err, err
    assert repr(script[-1])[:40] in err  # the line refused is named


def test_nothing_is_read_after_quit_and_a_restart_begins_afresh() -> None:
    bot = MahjongBot.from_spec("greedy")
    for line in DEALT:
        bot.handle(line)
    assert bot.handle("/start MJ16 2") == "ready paiju-greedy"  # a restart: a new hand must follow
    with pytest.raises(PaijuError, match="before /initGame"):
        bot.handle("/ask throw")
    bot.handle("/quit")
    with pytest.raises(PaijuError, match="after /quit"):
        bot.handle("/start MJ16 2")


def test_an_oversized_line_is_refused_without_reading_it_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("/start MJ16 0\n/rules " + "x" * (MAX_MESSAGE + 10)))
    assert run(["mahjong", "bot"]) == 2
    out, err = capsys.readouterr()
    assert out == "ready paiju-greedy\n" and len(err.splitlines()) == 1
    assert f"longer than {MAX_MESSAGE}" in err


def test_a_restart_during_the_deal_decides_no_heaven_ready_and_keeps_the_conversation() -> None:
    """A /start between /initGame and /initCard abandons the deal: 天聽 of a non-dealer (decided
    when its deal ends) is not judged on the empty hand, and the bot answers the restart. The
    slow protocol fuzzer found this (docs/results/fuzzing.md)."""
    bot = MahjongBot.from_spec("greedy")
    for line in ("/start MJ16 1", "/rules heaven_ready=true", "/initGame east 0 0 0"):
        bot.handle(line)
    assert bot.handle("/start MJ16 1") == "ready paiju-greedy"
    assert bot.stage == "table"
    with pytest.raises(PaijuError, match="before /initGame"):
        bot.handle("/ask throw")
    assert bot.stage == "table"  # a refused line leaves the conversation where it was
