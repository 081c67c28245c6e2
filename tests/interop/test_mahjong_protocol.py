"""paiju's mahjong line protocol: messages, the bot's rebuilt view, the referee, bad bots."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import paiju.interop.mahjong_protocol as mp
from paiju.cli.main import run
from paiju.core.errors import ConfigError, InvalidNotationError, PaijuError
from paiju.interop.mahjong_protocol import (
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
    LocalBot,
    MahjongBot,
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
    play_match,
    replay_hand,
    rules_items,
    run_referee,
)
from paiju.mahjong.agents import REGISTRY
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
    MahjongObservation,
)
from paiju.mahjong.tiles import parse_kinds

DATA = Path(__file__).with_name("data")
SHELL_BOT = f"sh {DATA / 'discard_drawn.sh'}"
PAIJU = str(Path(sys.executable).with_name("paiju"))


def bad_bot(mode: str) -> str:
    return f"{sys.executable} {DATA / 'mj_bad_bot.py'} {mode}"


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


# ---- the bot's view equals the engine's observation -------------------------------------------
def _observed_match(
    spec: str, seed: int, hands: int, rules: MahjongConfig, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[list[mp.Decision]], list[list[mp.Decision]], list[str]]:
    """Rebuilt (bot side) and engine (referee side) decisions per seat, and the lines sent."""
    rebuilt: list[list[tuple[MahjongObservation, list[int]]]] = [[] for _ in range(4)]
    engine: list[list[tuple[MahjongObservation, list[int]]]] = [[] for _ in range(4)]
    original = mp._Proxy.act

    def act(self: Any, observation: MahjongObservation, legal: Any) -> int:
        engine[self.seat].append((observation, list(legal)))
        return original(self, observation, legal)

    monkeypatch.setattr(mp._Proxy, "act", act)
    links = [LocalBot(MahjongBot(REGISTRY.make(spec, seed=s), decisions=rebuilt[s])) for s in range(4)]
    transcript: mp.Transcript = []
    play_match(links, hands, seed, rules=rules, transcript=transcript)
    return rebuilt, engine, [f"{seat} {way} {line}" for seat, way, line in transcript]


@pytest.mark.parametrize(
    ("spec", "seed", "hands", "rules"),
    [
        ("random", 3, 6, MahjongConfig(flowers=True, heaven_ready=True, earth_ready=True)),
        ("greedy", 5, 4, MahjongConfig()),
        ("greedy", 8, 4, MahjongConfig(flowers=True, heaven_ready=True, earth_ready=True, ligu=True,
                                       concealed_kong_public=True, missed_discard_scope="all")),
    ],
)
def test_the_bots_rebuilt_observation_equals_the_engines_at_every_decision(
    spec: str, seed: int, hands: int, rules: MahjongConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    rebuilt, engine, lines = _observed_match(spec, seed, hands, rules, monkeypatch)
    for seat in range(4):
        assert len(rebuilt[seat]) == len(engine[seat]) > 20
        for i, (mine, true) in enumerate(zip(rebuilt[seat], engine[seat], strict=True)):
            assert mine == true, (seat, i)
    verbs = {line.split()[2] for line in lines}
    assert {"/initCard", "/mo", "/draw", "/throw", "/ask", "/end"} <= verbs
    if rules.flowers:
        assert "/flower" in verbs
    if spec == "random":  # random play makes every kind of claim
        assert {"/pung", "/chow", "/kong"} <= verbs


def test_no_seat_is_told_another_seats_concealed_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, lines = _observed_match("random", 11, 4, MahjongConfig(flowers=True), monkeypatch)
    seen_kongs = 0
    for line in lines:
        seat, way, verb, *args = line.split()
        if way != ">":
            continue
        if verb == "/draw":
            assert args[0] != seat  # told of another's draw, never its tile
        if verb == "/kong" and args[1] == "concealed":
            seen_kongs += 1
            assert (len(args) == 3) == (args[0] == seat)  # the kind only for the konger
    lines_per_seat = [[ln for ln in lines if ln.startswith(f"{s} > /initCard")] for s in range(4)]
    assert all(len(x) == 4 for x in lines_per_seat)  # one /initCard per hand, to its own seat only
    assert seen_kongs > 0


# ---- real programs -------------------------------------------------------------------------------
def test_a_shell_bot_plays_next_to_a_paiju_bot(tmp_path: Path) -> None:
    from paiju.core.records import read_records

    commands = [f"{PAIJU} mahjong bot --agent greedy", SHELL_BOT, SHELL_BOT, SHELL_BOT]
    played, stats, _ = run_referee(commands, 2, seed=2, time_limit=20, out_dir=tmp_path / "rec")
    assert all(h.forfeit is None for h in played)
    # the shell bot discards what it drew and never claims: its discards are all 摸打
    for h in played:
        assert h.moves[0].startswith("wall ")
    assert stats[0].hands == 2 and all(s.forfeits == 0 for s in stats)
    rows = read_records(tmp_path / "rec").to_pylist()
    assert [r["game_index"] for r in rows] == [0, 1]
    assert all(replay_hand(r) == (True, None) for r in rows)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("crash", "crashed (exit code 3)"),
        ("fail", "crashed (exit code 2): error: no model file runs/m.pt"),  # its last stderr line
        ("sleep", "timed out (no answer within 1 s)"),
        ("garbage", "answered garbage 'hello referee'"),
        ("illegal", "illegal claim 'win'"),
        ("chatty", "wrote output nobody asked for"),
    ],
)
def test_a_misbehaving_bot_forfeits_the_hand_and_every_hand_is_recorded(
    mode: str, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paiju.core.records import read_records

    hands = 1 if mode == "sleep" else 2
    commands = [SHELL_BOT, bad_bot(mode), SHELL_BOT, SHELL_BOT]
    played, stats, _ = run_referee(commands, hands, seed=1, time_limit=1.0, out_dir=tmp_path / "rec")
    assert len(played) == hands
    rules = MahjongConfig()
    penalty = rules.base + mp.FORFEIT_TAI * rules.per_tai
    for h in played:
        assert h.forfeit is not None and h.forfeit["seat"] == 1 and reason in h.forfeit["reason"]
        assert h.deltas == [penalty, -3 * penalty, penalty, penalty]
    assert stats[1].forfeits == hands and stats[0].forfeits == 0
    rows = read_records(tmp_path / "rec").to_pylist()
    assert sorted(r["game_index"] for r in rows) == list(range(hands))
    for r in rows:
        assert json.loads(r["extra"])["forfeit"]["reason"].startswith(reason.split(" (")[0][:10])
        assert replay_hand(r) == (True, None)
    assert run(["records", "show", str(tmp_path / "rec"), "0"]) == 0
    assert "returns: [5000 -15000 5000 5000]" in capsys.readouterr().out


def test_a_bot_that_writes_much_to_standard_error_is_not_blocked() -> None:
    """The referee reads a bot's standard error as it comes (keeping only its end), so a bot
    that writes more than a pipe holds is never stuck writing it."""
    played, stats, _ = run_referee([SHELL_BOT, bad_bot("noisy"), SHELL_BOT, SHELL_BOT], 1, seed=1,
                                   time_limit=5.0)
    assert played[0].forfeit is None and stats[1].forfeits == 0


def test_four_paiju_bots_give_the_arenas_results_on_the_same_walls() -> None:
    from paiju.core.arena import run_games

    commands = [f"{PAIJU} mahjong bot --agent greedy --seed {s}" for s in range(4)]
    played, _, _ = run_referee(commands, 3, seed=9, time_limit=30)
    for prev, h in itertools.pairwise(played):  # the dealer rule, checked by hand
        keeps = prev.exhaustive or prev.table.dealer in prev.winners
        assert h.table.dealer == (prev.table.dealer if keeps else (prev.table.dealer + 1) % 4)
        assert h.table.continuation == (prev.table.continuation + 1 if keeps else 0)
    for h in played:
        t = h.table
        options = {"dealer": t.dealer, "continuation": t.continuation, "round_wind": t.round_wind}
        result = run_games("mahjong", ["greedy"], h.index + 1, 9, fmt="fixed", game_options=options)
        row = (result.rows or [])[h.index]
        assert row["returns"] == [float(d) for d in h.deltas]
        assert row["moves"] == h.moves
    assert any(h.winners for h in played)


def test_the_referee_command_prints_the_report_and_refuses_bad_set_ups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["mahjong", "referee", "--bots", SHELL_BOT, bad_bot("crash"), SHELL_BOT, SHELL_BOT,
                "--hands", "2", "-t", "5"]) == 0
    out = capsys.readouterr().out
    assert "win rate" in out and "points / hand" in out and "lost by forfeit: crashed" in out
    assert run(["mahjong", "referee", "--bots", SHELL_BOT, SHELL_BOT, SHELL_BOT, SHELL_BOT,
                "-n", "1", "--json", "-o", "flowers=true"]) == 0
    report = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert len(report["hands"]) == 1 and len(report["hands"][0]["wall"]) == 288
    # one hand: a mean with no interval, said so (issue 43: it printed '± inf', JSON Infinity)
    assert all(s["points"]["low"] is None and s["points"]["n"] == 1 for s in report["report"])
    assert run(["mahjong", "referee", "--bots", SHELL_BOT, SHELL_BOT, SHELL_BOT, SHELL_BOT, "-n", "1"]) == 0
    out = capsys.readouterr().out
    assert "(1 hand)" in out and "inf" not in out and "nan" not in out
    with pytest.raises(ConfigError, match="needs 4 bots"):
        mp.Referee([])
    with pytest.raises(ConfigError, match="empty bot command"):
        run_referee(["", "a", "b", "c"], 1)


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


def test_the_documented_transcript_is_what_the_code_plays() -> None:
    """docs/mahjong-protocol.md's transcript (made with paiju mahjong bot programs) equals an
    in-process replay of the same hand: greedy is deterministic, the protocol is the same."""
    doc = (Path(__file__).parents[2] / "docs" / "mahjong-protocol.md").read_text(encoding="utf-8")
    block = doc.split("$ grep '^1 ' hand.txt\n", 1)[1].split("```", 1)[0].splitlines()
    links = [LocalBot(MahjongBot.from_spec("greedy", seed=s)) for s in range(4)]
    transcript: mp.Transcript = []
    play_match(links, 1, 19, rules=MahjongConfig(flowers=True), transcript=transcript)
    assert block == [ln for ln in mp.write_transcript(transcript) if ln.startswith("1 ")]


def test_replay_notices_a_tampered_record(tmp_path: Path) -> None:
    from paiju.core.records import read_records

    run_referee([SHELL_BOT, bad_bot("good"), SHELL_BOT, SHELL_BOT], 1, seed=4, out_dir=tmp_path / "rec")
    row = read_records(tmp_path / "rec").to_pylist()[0]
    assert replay_hand(row) == (True, None)
    assert run(["records", "replay", str(tmp_path / "rec")]) == 0
    moved = dict(row, moves=[*row["moves"][:5], "discard 9z", *row["moves"][6:]])
    assert replay_hand(moved) == (False, 5)
    assert replay_hand(dict(row, returns=[1.0, -1.0, 0.0, 0.0]))[0] is False


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

    monkeypatch.setattr(sys, "stdin", io.StringIO("/start MJ16 0\n/rules " + "x" * (mp.MAX_MESSAGE + 10)))
    assert run(["mahjong", "bot"]) == 2
    out, err = capsys.readouterr()
    assert out == "ready paiju-greedy\n" and len(err.splitlines()) == 1
    assert f"longer than {mp.MAX_MESSAGE}" in err
