"""Fuzz the Botzone Dou Dizhu bot (`paiju botzone ddz`, docs/botzone.md): its JSON input in
both modes (the one-shot exchange and keep-running) and the game histories it replays.

Oracles: the engine. A history made by playing a legal random game (paiju's engine, filtered
by Botzone's judge rule) must be accepted and the bot's answer must be legal in the true
game; a history with one entry changed is replayed on a deal consistent with what the bot
knows, and the bot must answer legally exactly when that replay is legal, else refuse it
with one line (a :class:`PaijuError`; exit 2 at the command line). Arbitrary JSON and text:
never a traceback, a hang or a silent success — one answer line or one error line.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fuzzing import FAST, SLOW, corpus_lines
from hypothesis import assume, event, given
from hypothesis import strategies as st

from paiju.cli.main import run
from paiju.core.errors import PaijuError
from paiju.doudizhu.cards import Deal
from paiju.doudizhu.game import Bid, DouDizhuConfig, DouDizhuGame, DouDizhuState
from paiju.doudizhu.moves import Move
from paiju.interop.botzone import (
    KEEP_RUNNING,
    BotzoneBot,
    cards_text,
    judge_accepts,
    judge_combo,
    level_counts,
    pick_cards,
)
from paiju.interop.botzone_judge import deal_ids

ENGINE = DouDizhuGame(DouDizhuConfig(wing_rule="douzero"))
SIZES = (20, 17, 17)
PAIJU = str(Path(sys.executable).with_name("paiju"))


def judge_legal(state: DouDizhuState) -> list[Move]:
    """The engine's legal moves that Botzone's judge accepts too."""
    beat = state.to_beat
    return [m for m in state.legal_moves() if judge_accepts(None if beat is None else beat.counts, m.counts)]


def legal_in(state: DouDizhuState, ids: list[int], hand: set[int]) -> bool:
    """``ids`` is a legal Botzone play of the player to move in the true ``state``."""
    if len(set(ids)) != len(ids) or not set(ids) <= hand:
        return False
    beat = state.to_beat
    if not judge_accepts(None if beat is None else beat.counts, level_counts(ids)):
        return False
    try:
        return state.parse_move(cards_text(ids)) in state.legal_actions()
    except PaijuError:
        return False


# ---- a legal game, played with the bot at one seat ----------------------------------------------
@dataclass
class Table:
    """A game as Botzone shows it to the bot at relative seat ``me`` (the landlord is 0)."""

    hands: list[list[int]]
    kitty: list[int]
    me: int
    landlord: int = 0
    """Absolute seat of the landlord (FightTheLandlord2); 0 without bidding."""
    bids: list[int] | None = None
    kitty_in_own: bool = False
    plays: list[tuple[int, list[int]]] = field(default_factory=list)

    @property
    def pos(self) -> int:
        return (self.me + self.landlord) % 3

    def own17(self, absolute: int) -> list[int]:
        rel = (absolute - self.landlord) % 3
        return sorted(set(self.hands[rel]) - set(self.kitty))

    def exchange(self) -> tuple[list[dict[str, Any]], list[Any]]:
        """Every request up to the bot's turn (play index ``len(plays)``) and its answers."""
        requests: list[dict[str, Any]] = []
        responses: list[Any] = []
        if self.bids is not None and self.pos < len(self.bids):
            requests.append({"own": self.own17(self.pos), "bid": self.bids[: self.pos]})
            responses.append(self.bids[self.pos])
        first = True
        for t in range(self.me, len(self.plays) + 1, 3):
            history = [self.plays[k][1] if k >= 0 else [] for k in (t - 2, t - 1)]
            request: dict[str, Any] = {"history": history}
            if first:
                own = self.hands[self.me] if self.me or self.kitty_in_own else self.own17(self.pos)
                request.update({"own": own, "publiccard": self.kitty})
                if self.bids is not None:
                    request.update({"own": self.own17(self.pos), "landlord": self.landlord,
                                    "pos": self.pos, "finalbid": max(self.bids)})
                first = False
            requests.append(request)
            if t < len(self.plays):
                responses.append(self.plays[t][1])
        return requests, responses


@st.composite
def tables(draw: st.DrawFn) -> tuple[Table, DouDizhuState]:
    """A deal, bids (FightTheLandlord2) or none, and random judge-legal plays up to the bot's
    turn; the true state at that turn."""
    deal = Deal.random(draw(st.integers(0, 2**32 - 1)))
    hands, kitty = deal_ids(deal)
    bids = None
    if draw(st.booleans()):  # FightTheLandlord2: absolute seats 0, 1, 2 bid in turn
        bids = []
        for _ in range(3):
            bids.append(draw(st.sampled_from([0, *range(max(bids, default=0) + 1, 4)])))
            if bids[-1] == 3:
                break
        assume(max(bids) > 0)  # all passed: the cards would be dealt again
    landlord = 0 if bids is None else max(range(len(bids)), key=lambda a: bids[a])
    table = Table(hands, kitty, me=0, landlord=landlord, bids=bids, kitty_in_own=draw(st.booleans()))
    state = ENGINE.new_state_from_deal(deal)
    left = [set(h) for h in hands]
    for _ in range(draw(st.integers(0, 60))):
        legal = judge_legal(state)
        move = legal[draw(st.integers(0, len(legal) - 1))]
        who = state.current_player()
        ids = pick_cards(left[who], move.counts)
        if len(ids) == len(left[who]):
            break  # the game would end: stop at the turn before
        left[who] -= set(ids)
        table.plays.append((who, ids))
        state.apply(move)
    table.me = state.current_player()
    return table, state


def answer_once(requests: list[Any], responses: list[Any], agent: str = "random", seed: int = 0) -> Any:
    """The one-shot JSON mode: the whole exchange in, one JSON line out."""
    out = io.StringIO()
    text = json.dumps({"requests": requests, "responses": responses})
    BotzoneBot(agent, seed=seed).serve(io.StringIO(text + "\n"), out, keep_running=False)
    (line,) = out.getvalue().splitlines()
    return json.loads(line)["response"]


def check_legal_game(table: tuple[Table, DouDizhuState], agent: str, seed: int) -> None:
    t, state = table
    requests, responses = t.exchange()
    answer = answer_once(requests, responses, agent, seed)
    left = set(t.hands[t.me]) - {c for who, ids in t.plays if who == t.me for c in ids}
    assert isinstance(answer, list) and legal_in(state, answer, left), (cards_text(answer), str(state))


@FAST
@given(tables(), st.sampled_from(["random", "rule", "greedy"]), st.integers(0, 3))
def test_a_legal_history_is_answered_legally(
    table: tuple[Table, DouDizhuState], agent: str, seed: int
) -> None:
    """Oracle: the engine. A random legal game up to the bot's turn, in one-shot JSON: the bot
    answers, and its answer is legal in the true state (its cards, the judge rule, the engine)."""
    check_legal_game(table, agent, seed)


@pytest.mark.slow
@SLOW
@given(tables(), st.sampled_from(["random", "rule", "greedy"]), st.integers(0, 3))
def test_a_legal_history_is_answered_legally_at_length(
    table: tuple[Table, DouDizhuState], agent: str, seed: int
) -> None:
    """Oracle: the engine (as above, at length)."""
    check_legal_game(table, agent, seed)


# ---- keep-running: the bot plays a whole game, the others at random ------------------------------
class KeepRunningTable(io.TextIOBase):
    """The bot's standard input in keep-running mode: each line read is the next request,
    made after the bot's previous answer was checked and played in the true game."""

    def __init__(self, data: st.DataObject, table: Table, state: DouDizhuState, out: io.StringIO) -> None:
        self.data, self.t, self.state, self.out = data, table, state, out
        self.sent = 0  # requests sent
        self.answers_read = 0

    def readline(self, size: int | None = -1) -> str:
        lines = self.out.getvalue().splitlines()
        answers = lines[0::2]
        assert lines[1::2] == [KEEP_RUNNING] * len(lines[1::2])  # the marker after every answer
        if self.sent:
            assert len(answers) == self.sent, "no answer to the last request"
            self._play(json.loads(answers[-1])["response"])
        if self.state.is_terminal() or self.sent >= 8:
            return ""  # the end of the game (or of this example): end of input
        while self.state.current_player() != self.t.me:
            legal = judge_legal(self.state)
            move = legal[self.data.draw(st.integers(0, len(legal) - 1))]
            who = self.state.current_player()
            ids = pick_cards(self._left(who), move.counts)
            self.t.plays.append((who, ids))
            self.state.apply(move)
            if self.state.is_terminal():
                return ""
        requests, responses = self.t.exchange()
        payload: Any = {"requests": requests, "responses": responses} if not self.sent else requests[-1]
        self.sent += 1
        return json.dumps(payload) + "\n"

    def _left(self, who: int) -> set[int]:
        return set(self.t.hands[who]) - {c for w, ids in self.t.plays if w == who for c in ids}

    def _play(self, answer: Any) -> None:
        assert isinstance(answer, list) and legal_in(self.state, answer, self._left(self.t.me)), answer
        self.t.plays.append((self.t.me, answer))
        self.state.apply(self.state.parse_move(cards_text(answer)))


def check_keep_running(data: st.DataObject, agent: str) -> None:
    table, state = data.draw(tables())
    out = io.StringIO()
    stdin = KeepRunningTable(data, table, state, out)
    BotzoneBot(agent, seed=0).serve(stdin, out, keep_running=True)
    assert stdin.sent >= 1
    event(f"bot turns: {'1' if stdin.sent == 1 else '2-7' if stdin.sent < 8 else '8'}")


@FAST
@given(st.data(), st.sampled_from(["random", "rule"]))
def test_keep_running_answers_every_turn_of_a_game_legally(data: st.DataObject, agent: str) -> None:
    """Oracle: the engine. In keep-running mode (the full exchange first, then one bare
    request a turn) the bot plays up to 8 turns of a game whose other seats play at random;
    every answer is legal in the true game and followed by the keep-running marker."""
    check_keep_running(data, agent)


@pytest.mark.slow
@SLOW
@given(st.data(), st.sampled_from(["random", "rule", "greedy"]))
def test_keep_running_answers_every_turn_of_a_game_legally_at_length(data: st.DataObject, agent: str) -> None:
    """Oracle: the engine (as above, at length)."""
    check_keep_running(data, agent)


# ---- one entry changed: legal exactly when a consistent deal replays it -------------------------
def consistent_replay(t: Table) -> bool | None:
    """Whether the plays replay on some deal agreeing with what the bot knows (its cards, the
    public cards in the landlord's hand): the engine and the judge rule decide each move.
    None: a space shuttle (a Botzone move paiju's engine has not), not decided here."""
    own = set(t.hands[t.me]) | (set(t.kitty) if t.me == 0 else set())
    known: list[set[int]] = [set(t.kitty), set(), set()]
    known[t.me] |= own
    played: set[int] = set()
    for who, ids in t.plays:
        combo = judge_combo(level_counts(ids)) if len(set(ids)) == len(ids) else None
        if combo is not None and combo.kind.startswith("shuttle"):
            return None
        cards = set(ids)
        if len(cards) != len(ids) or cards & played or any(cards & known[s] for s in range(3) if s != who):
            return False
        known[who] |= cards
        played |= cards
        if len(known[who]) > SIZES[who]:
            return False
    rest = iter(sorted(set(range(54)) - set().union(*known)))
    hands = [sorted(known[s]) + [next(rest) for _ in range(SIZES[s] - len(known[s]))] for s in range(3)]
    state = ENGINE.new_state_from_deal(Deal([cards_text(h) for h in hands], kitty=cards_text(t.kitty)))
    left = [set(h) for h in hands]
    for who, ids in t.plays:
        if state.is_terminal() or state.current_player() != who or not legal_in(state, ids, left[who]):
            return False
        state.apply(state.parse_move(cards_text(ids)))
        left[who] -= set(ids)
    return not state.is_terminal()


@st.composite
def changed_tables(draw: st.DrawFn) -> Table:
    """A legal game up to the bot's turn with one play replaced: by a pass, by cards of the
    player's own hand, or by any cards at all."""
    t, _ = draw(tables())
    assume(t.plays)
    j = draw(st.integers(0, len(t.plays) - 1))
    who = t.plays[j][0]
    mine = sorted(set(t.hands[who]))
    ids = draw(st.one_of(
        st.just([]),
        st.lists(st.sampled_from(mine), min_size=1, max_size=6, unique=True),
        st.lists(st.integers(0, 53), min_size=1, max_size=6, unique=True),
        st.just(t.plays[j - 1][1] if j else [0]),  # the move before, again
    ))
    t.plays[j] = (who, ids)
    if t.bids is None:  # FightTheLandlord: the seat is read from the first history (docs/botzone.md),
        first = t.exchange()[0][0]["history"]  # so a pass there may make it another, legal, seat
        assume((2 if first[0] else 1 if first[1] else 0) == t.me)
    return t


def check_changed(t: Table) -> None:
    expected = consistent_replay(t)
    assume(expected is not None)
    requests, responses = t.exchange()
    try:
        answer = answer_once(requests, responses)
    except PaijuError as err:
        assert not expected, f"a legal history refused: {err}"
        assert str(err) and "\n" not in str(err)
        event("refused")
        return
    event("answered")
    plays = [(w, cards_text(i)) for w, i in t.plays]
    assert expected, f"an illegal history answered with {answer!r}: {plays}"


@FAST
@given(changed_tables())
def test_a_changed_history_is_refused_exactly_when_no_deal_replays_it(t: Table) -> None:
    """Oracle: the engine on a deal consistent with what the bot knows. One play of a legal
    game replaced: the bot answers iff that replay is legal, else refuses it in one line."""
    check_changed(t)


@pytest.mark.slow
@SLOW
@given(changed_tables())
def test_a_changed_history_is_refused_exactly_when_no_deal_replays_it_at_length(t: Table) -> None:
    """Oracle: the engine on a consistent deal (as above, at length)."""
    check_changed(t)


# ---- arbitrary JSON and text --------------------------------------------------------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["requests", "responses", "own", "history", "publiccard", "public", "bid",
                         "landlord", "pos", "finalbid", "x"]), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def mangled_inputs(draw: st.DrawFn) -> str:
    """A legal exchange with one value replaced by arbitrary JSON, a key dropped, or its text
    cut short; or arbitrary JSON; or arbitrary text."""
    t, _ = draw(tables())
    requests, responses = t.exchange()
    doc: dict[str, Any] = {"requests": requests, "responses": responses}
    how = draw(st.sampled_from(["value", "drop", "cut", "json", "text"]))
    if how == "json":
        return json.dumps(draw(JSON))
    if how == "text":
        return draw(st.text(max_size=40))
    text = json.dumps(doc)
    if how == "cut":
        return text[: draw(st.integers(0, len(text) - 1))]
    r = draw(st.integers(0, len(requests) - 1))
    keys = sorted(requests[r])
    key = draw(st.sampled_from(keys))
    if how == "drop":
        del requests[r][key]
    else:
        requests[r][key] = draw(JSON)
    return json.dumps(doc)


def one_line_either_way(text: str, keep_running: bool) -> None:
    out = io.StringIO()
    try:
        BotzoneBot("random", seed=0).serve(io.StringIO(text + "\n"), out, keep_running)
    except PaijuError as err:
        assert str(err) and "\n" not in str(err)
        event("refused")
        return
    event("answered")
    lines = out.getvalue().splitlines()
    assert lines, "neither an answer nor an error"
    assert "response" in json.loads(lines[0])


@FAST
@given(mangled_inputs(), st.booleans())
def test_mangled_json_is_answered_or_refused_in_one_line(text: str, keep_running: bool) -> None:
    """Oracle: never a traceback, a hang or a silent success: one JSON answer or one
    :class:`PaijuError` line (exit 2), in both modes."""
    one_line_either_way(text, keep_running)


@pytest.mark.slow
@SLOW
@given(mangled_inputs(), st.booleans())
def test_mangled_json_is_answered_or_refused_in_one_line_at_length(text: str, keep_running: bool) -> None:
    """Oracle: never a traceback, a hang or a silent success (as above, at length)."""
    one_line_either_way(text, keep_running)


# ---- the committed corpus, and the exit code ------------------------------------------------------
@pytest.mark.parametrize("text", corpus_lines("botzone"))
def test_corpus_inputs_are_refused_in_one_line_exit_2(
    text: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Oracle: every input of corpus/botzone.txt is no legal game: exit 2, one line, no answer."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(text + "\n"))
    assert run(["botzone", "ddz", "--agent", "greedy"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and err.startswith("error: ")


def test_the_console_script_exits_2_in_both_modes() -> None:
    """Oracle: the exit code and the one stderr line of a real process; in keep-running mode
    the answers before the bad request stand."""
    bad = corpus_lines("botzone")[0]
    done = subprocess.run([PAIJU, "botzone", "ddz"], input=bad + "\n", capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    first = json.loads(bad)
    first["requests"], first["responses"] = first["requests"][:1], []
    bare = json.loads(bad)["requests"][1]
    done = subprocess.run([PAIJU, "botzone", "ddz", "--keep-running"], capture_output=True, text=True,
                          input=json.dumps(first) + "\n" + json.dumps(bare) + "\n", timeout=120)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    answer, marker = done.stdout.splitlines()
    assert marker == KEEP_RUNNING and "response" in json.loads(answer)


def test_a_bid_is_legal_or_refused() -> None:
    """Oracle: paiju's bidding rule. Every prefix of bids a seat may see: a legal one is
    answered with a legal bid, an illegal one refused."""
    own = deal_ids(Deal.random(1))[0][1]
    for bids in ([], [0], [1], [2], [3], [0, 0], [0, 2], [1, 1], [2, 1], [1, 3], [0, 3], [3, 0]):
        game = DouDizhuGame(DouDizhuConfig(bidding=True))
        state = game.new_state_from_deal(Deal.random(1))
        legal = True
        for b in bids:
            legal = legal and state.phase == "bidding" and Bid(b) in state.legal_actions()
            if legal:
                state.apply(Bid(b))
        legal = legal and state.phase == "bidding"
        try:
            answer = answer_once([{"own": own, "bid": bids}], [])
        except PaijuError:
            assert not legal, bids
            continue
        assert legal and Bid(answer) in state.legal_actions(), (bids, answer)
