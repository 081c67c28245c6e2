"""The mahjong referee with real programs (paiju.interop.mahjong.referee, .links, .match and
.records): bad bots forfeit, four paiju bots give the arena's results, the documented
transcript is what the code plays, and a recorded hand replays."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest

from paiju.cli.main import run
from paiju.core.errors import ConfigError
from paiju.interop.mahjong.bot import MahjongBot
from paiju.interop.mahjong.links import LocalBot
from paiju.interop.mahjong.match import play_match, run_referee
from paiju.interop.mahjong.records import replay_hand
from paiju.interop.mahjong.referee import FORFEIT_TAI, Referee, Transcript, write_transcript
from paiju.mahjong.config import MahjongConfig

DATA = Path(__file__).with_name("data")
SHELL_BOT = f"sh {DATA / 'discard_drawn.sh'}"
PAIJU = str(Path(sys.executable).with_name("paiju"))


def bad_bot(mode: str) -> str:
    return f"{sys.executable} {DATA / 'mj_bad_bot.py'} {mode}"


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
    penalty = rules.base + FORFEIT_TAI * rules.per_tai
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
        Referee([])
    with pytest.raises(ConfigError, match="empty bot command"):
        run_referee(["", "a", "b", "c"], 1)


def test_the_documented_transcript_is_what_the_code_plays() -> None:
    """docs/mahjong-protocol.md's transcript (made with paiju mahjong bot programs) equals an
    in-process replay of the same hand: greedy is deterministic, the protocol is the same."""
    doc = (Path(__file__).parents[2] / "docs" / "mahjong-protocol.md").read_text(encoding="utf-8")
    block = doc.split("$ grep '^1 ' hand.txt\n", 1)[1].split("```", 1)[0].splitlines()
    links = [LocalBot(MahjongBot.from_spec("greedy", seed=s)) for s in range(4)]
    transcript: Transcript = []
    play_match(links, 1, 19, rules=MahjongConfig(flowers=True), transcript=transcript)
    assert block == [ln for ln in write_transcript(transcript) if ln.startswith("1 ")]


def test_replay_notices_a_tampered_record(tmp_path: Path) -> None:
    from paiju.core.records import read_records

    run_referee([SHELL_BOT, bad_bot("good"), SHELL_BOT, SHELL_BOT], 1, seed=4, out_dir=tmp_path / "rec")
    row = read_records(tmp_path / "rec").to_pylist()[0]
    assert replay_hand(row) == (True, None)
    assert run(["records", "replay", str(tmp_path / "rec")]) == 0
    moved = dict(row, moves=[*row["moves"][:5], "discard 9z", *row["moves"][6:]])
    assert replay_hand(moved) == (False, 5)
    assert replay_hand(dict(row, returns=[1.0, -1.0, 0.0, 0.0]))[0] is False
