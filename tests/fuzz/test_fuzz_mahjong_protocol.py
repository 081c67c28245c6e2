"""Fuzz the mahjong line protocol's bot (`paiju mahjong bot`, docs/mahjong-protocol.md) as a
stateful machine: messages in any order, cut short, mangled, flooded, oversized.

Oracle: a model of the protocol's order (the table in docs/mahjong-protocol.md, "Order":
which messages each stage admits, and which move it on) and the referee's own transcripts.
A message the model does not admit now must be refused; while the bot has seen only the
transcript (refusals change nothing), the transcript's next line must be accepted and an
ask answered exactly as the same agent answered it in the refereed hand. Every line is
either accepted (an answer exactly for ``/start`` and ``/ask``, one line) or refused with one
line (a :class:`PaijuError`; exit 2 at the command line): never a traceback or a hang.
"""

from __future__ import annotations

import functools
import io
import subprocess
import sys
from pathlib import Path

import pytest
from fuzzing import FAST, SLOW, corpus_lines
from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)

from paiju.cli.main import run
from paiju.core.errors import PaijuError
from paiju.interop.mahjong import LocalBot, MahjongBot, Transcript, play_match
from paiju.interop.mahjong.bot import MAX_MESSAGE
from paiju.mahjong.config import MahjongConfig

PAIJU = str(Path(sys.executable).with_name("paiju"))

# ---- the model ------------------------------------------------------------------------------------
_ALWAYS = {"/start", "/quit", "/forfeit", "/end"}
ADMITS = {
    "new": {"/start", "/quit"},
    "table": _ALWAYS | {"/rules", "/initGame"},
    "init": _ALWAYS | {"/initCard"},
    "hand": _ALWAYS | {"/flower", "/mo", "/draw", "/throw", "/pung", "/chow", "/kong", "/ask", "/win"},
    "quit": set(),
}
NEXT = {"/start": "table", "/initGame": "init", "/initCard": "hand", "/end": "table", "/quit": "quit"}
ANSWERED = {"/start", "/ask"}


@functools.cache
def scripts() -> list[list[list[tuple[str, str | None]]]]:
    """Per refereed match, per seat: each line the referee sent and the answer it got (None
    for a notification). Greedy agents, two hands each, with and without flowers."""
    out = []
    for seed, rules in ((3, MahjongConfig()), (19, MahjongConfig(flowers=True)),
                        (8, MahjongConfig(flowers=True, concealed_kong_public=True, heaven_ready=True))):
        links = [LocalBot(MahjongBot.from_spec("greedy", seed=s)) for s in range(4)]
        transcript: Transcript = []
        play_match(links, 2, seed, rules=rules, transcript=transcript)
        per_seat: list[list[tuple[str, str | None]]] = [[] for _ in range(4)]
        for seat, way, line in transcript:
            if way == ">":
                per_seat[seat].append((line, None))
            else:
                per_seat[seat][-1] = (per_seat[seat][-1][0], line)
        out.append(per_seat)
    return out


# ---- messages: near the protocol, and anything -----------------------------------------------------
TILES = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)]
TILE = st.sampled_from([*TILES, *(f"{n}f" for n in range(1, 9)), "0m", "8z", "5x", "m5", "55m"])
SEAT = st.sampled_from(["0", "1", "2", "3", "4", "-1", "x"])
NUM = st.integers(-2, 12).map(str) | st.sampled_from(["+0", "1e3", "9" * 30, "٣"])
SOURCE = st.sampled_from(["deal", "normal", "flower", "replacement", "tail"])
CHOW = st.builds("{}{}{}{}".format, st.integers(0, 8), st.integers(1, 9), st.integers(2, 9),
                 st.sampled_from("mpsz"))
CLAIMS = st.lists(st.sampled_from(["win", "pung", "kong", "chow 345m", "chow 567s", "pass", "pung"]),
                  max_size=4).map(" ".join)
WORDS = st.sampled_from(["win", "pass", "drawn", "hand", "east", "exposed", "concealed", "added",
                         "throw", "claim", "rob", "MJ16", "kong", "-"])
MESSAGE = st.one_of(
    st.builds("/start MJ16 {}".format, SEAT),
    st.lists(st.sampled_from(["flowers=true", "flowers=false", "min_tai=2", "limit=none", "x=1", "flowers"]),
             max_size=3).map(lambda items: " ".join(["/rules", *items])),
    st.builds("/initGame {} {} {} {}".format, st.sampled_from(["east", "north", "up"]), NUM, SEAT, NUM),
    st.lists(TILE, min_size=15, max_size=18).map(lambda ts: " ".join(["/initCard", *ts])),
    st.builds("/mo {} {}".format, TILE, SOURCE),
    st.builds("/draw {} {}".format, SEAT, SOURCE),
    st.builds("/flower {} {}".format, SEAT, TILE),
    st.builds("/throw {} {} {}".format, SEAT, TILE, st.sampled_from(["drawn", "hand", "x"])),
    st.builds("/pung {} {} {}".format, SEAT, TILE, SEAT),
    st.builds("/chow {} {} {}".format, SEAT, CHOW, SEAT),
    st.builds("/kong {} exposed {} {}".format, SEAT, TILE, SEAT),
    st.builds("/kong {} concealed {}".format, SEAT, TILE),
    st.builds("/kong {} concealed".format, SEAT),
    st.builds("/kong {} added {}".format, SEAT, TILE),
    st.lists(st.sampled_from(["win", "kong 5m", "addkong 1z", "kong 1m", "kong"]), max_size=3).map(
        lambda opts: " ".join(["/ask throw", *opts])),
    st.builds("/ask claim {} {} {}".format, TILE, SEAT, CLAIMS),
    st.builds("/ask rob {} {} win pass".format, TILE, SEAT),
    st.builds("/win {} {} {} {} {} {}".format, SEAT, st.sampled_from(["selfdraw", "discard", "robkong", "x"]),
              TILE | st.just("-"), SEAT | st.just("-"), NUM,
              st.sampled_from(["123m", "-", "11122233344455m"])),
    st.builds("/forfeit {} timed out".format, SEAT),
    st.builds("/end {} {} {} {} {}".format, st.sampled_from(["win", "exhaustive", "forfeit"]),
              NUM, NUM, NUM, NUM),
)
TEXT = st.text(alphabet=st.characters(blacklist_characters="\r\n"), max_size=40)


class ProtocolMachine(RuleBasedStateMachine):
    """One seat's bot, fed its refereed transcript with every kind of trouble in between."""

    @initialize(match=st.integers(0, 2), seat=st.integers(0, 3), start=st.integers(0, 1000))
    def seat_a_bot(self, match: int, seat: int, start: int) -> None:
        """A bot, fed the first ``start``/1000 of its transcript (so trouble starts anywhere)."""
        self.script = scripts()[match][seat]
        self.bot = MahjongBot.from_spec("greedy", seed=seat)
        self.pos = 0
        self.synced = True
        """Whether the bot has accepted only the transcript so far (its answers must match)."""
        self.stage = "new"
        self.next_lines(len(self.script) * start // 1000)

    def send(self, line: str) -> tuple[bool, str | None]:
        """The line to the bot: whether it was accepted, and its answer."""
        words = line.split()
        verb = words[0] if words else ""
        try:
            answer = self.bot.handle(line)
        except PaijuError as err:
            assert str(err) and "\n" not in str(err), repr(str(err))
            return False, None
        assert verb in ADMITS[self.stage], f"{line!r} accepted in stage {self.stage}"
        assert (answer is not None) == (verb in ANSWERED), (line, answer)
        assert answer is None or (answer.strip() and "\n" not in answer)
        self.stage = NEXT.get(verb, self.stage)
        return True, answer

    def stray(self, line: str) -> None:
        """A line off the transcript: refused, or the bot no longer sees only the transcript."""
        accepted, _ = self.send(line)
        event("stray line " + ("accepted" if accepted else "refused"))
        if accepted:
            self.synced = False

    @precondition(lambda self: self.synced and self.pos < len(self.script))
    @rule(n=st.integers(1, 80))
    def next_transcript_lines(self, n: int) -> None:
        self.next_lines(n)

    def next_lines(self, n: int) -> None:
        """Up to ``n`` lines of the transcript (a hand is ~150 lines a seat: trouble must
        come deep into it too)."""
        for line, expected in self.script[self.pos : self.pos + n]:
            accepted, answer = self.send(line)
            assert accepted, f"the transcript's line {line!r} refused"
            assert answer == expected, (line, answer, expected)
            self.pos += 1

    @rule(line=MESSAGE)
    def any_message(self, line: str) -> None:
        self.stray(line)

    @precondition(lambda self: self.pos < len(self.script))
    @rule(data=st.data())
    def next_line_cut_short(self, data: st.DataObject) -> None:
        line = self.script[self.pos][0]
        self.stray(line[: data.draw(st.integers(0, len(line) - 1))])

    @precondition(lambda self: self.pos < len(self.script))
    @rule(data=st.data(), word=TILE | SEAT | WORDS | st.just(""))
    def next_line_one_word_changed(self, data: st.DataObject, word: str) -> None:
        words = self.script[self.pos][0].split()
        words[data.draw(st.integers(0, len(words) - 1))] = word
        self.stray(" ".join(words))

    @rule(when=st.integers(0, 9))
    def quit_now(self, when: int) -> None:
        """/quit, now and then (after it, nothing is accepted)."""
        if when == 0:
            self.stray("/quit")

    @precondition(lambda self: self.stage != "quit")
    @rule(line=MESSAGE, n=st.integers(2, 200))
    def flood(self, line: str, n: int) -> None:
        for _ in range(n):
            self.stray(line)

    @rule(text=TEXT)
    def garbage(self, text: str) -> None:
        self.stray(text)


MACHINE_FAST = settings(FAST, max_examples=60, stateful_step_count=40)
MACHINE_SLOW = settings(SLOW, max_examples=2_000, stateful_step_count=120)


def test_the_bot_follows_the_protocols_order() -> None:
    """Oracle: the model of the protocol's order and the referee's transcripts (module doc)."""
    run_state_machine_as_test(ProtocolMachine, settings=MACHINE_FAST)


@pytest.mark.slow
def test_the_bot_follows_the_protocols_order_at_length() -> None:
    """Oracle: the model of the order and the transcripts (as above, at length)."""
    run_state_machine_as_test(ProtocolMachine, settings=MACHINE_SLOW)


# ---- the input stream: bytes, cut, oversized --------------------------------------------------------
@st.composite
def streams(draw: st.DrawFn) -> bytes:
    """A transcript's first lines, then trouble: arbitrary bytes (not always UTF-8), a line
    cut without its end, an oversized line, blank lines."""
    script = draw(st.sampled_from(scripts()))[draw(st.integers(0, 3))]
    head = [line for line, _ in script[: draw(st.integers(0, len(script)))]]
    tail = draw(st.sampled_from(["bytes", "cut", "huge", "blank"]))
    data = "".join(line + "\n" for line in head).encode()
    if tail == "bytes":
        return data + draw(st.binary(max_size=60))
    if tail == "cut":
        return data + b"/ask thr"
    if tail == "huge":
        return data + b"/rules " + b"a" * draw(st.integers(MAX_MESSAGE - 10, MAX_MESSAGE + 10)) + b"\n/quit\n"
    return data + b"\n \n\t\n"


def serve_ends_in_one_line(raw: bytes) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    out = io.StringIO()
    bot = MahjongBot.from_spec("greedy", seed=0)
    try:
        bot.serve(stdin, out)
    except PaijuError as err:
        assert str(err) and "\n" not in str(err)
        event("refused")
        return
    event("served to the end")
    assert all(line.split()[0] in ("ready", "throw", "kong", "addkong", "win", "pung", "chow", "pass")
               for line in out.getvalue().splitlines())


@FAST
@given(streams())
def test_any_input_stream_ends_or_is_refused_in_one_line(raw: bytes) -> None:
    """Oracle: never a traceback or a hang: the bot serves to the end of its input (or
    /quit), or stops with one :class:`PaijuError` line; it answers only with answer words."""
    serve_ends_in_one_line(raw)


@pytest.mark.slow
@SLOW
@given(streams())
def test_any_input_stream_ends_or_is_refused_in_one_line_at_length(raw: bytes) -> None:
    """Oracle: never a traceback or a hang (as above, at length)."""
    serve_ends_in_one_line(raw)


# ---- the committed corpus, and the exit code --------------------------------------------------------
@pytest.mark.parametrize("script", corpus_lines("mahjong_protocol"))
def test_corpus_scripts_are_refused_in_one_line_exit_2(
    script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Oracle: each script of corpus/mahjong_protocol.txt (lines joined by ' | ') ends with a
    message that cannot come: exit 2, one line naming it."""
    lines = script.split(" | ")
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    assert run(["mahjong", "bot", "--agent", "greedy"]) == 2
    _, err = capsys.readouterr()
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and repr(lines[-1])[:30] in err


def test_the_console_script_exits_2_on_an_ask_before_the_deal() -> None:
    """Oracle: issue 43's report: `printf '/ask throw\\n' | paiju mahjong bot --agent greedy`
    is exit 2 and one line (it was a 52-line traceback)."""
    done = subprocess.run([PAIJU, "mahjong", "bot", "--agent", "greedy"], input="/ask throw\n",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert "before /start" in done.stderr
