"""The local Botzone judge: real bot processes, the protocol on the wire, misbehaving bots."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from paiju.cli.main import run
from paiju.core.errors import ConfigError
from paiju.doudizhu.cards import Deal, Hand
from paiju.interop.botzone import judge_accepts
from paiju.interop.botzone_judge import Judge, deal_ids, run_judge

BOT = Path(__file__).with_name("bots") / "bot.py"
PAIJU = str(Path(sys.executable).with_name("paiju"))


def bot(mode: str, keep: bool = True) -> str:
    return f"{sys.executable} {BOT} {mode}" + (" --keep" if keep else "")


def test_deal_ids_partition_the_deck_and_keep_the_kitty_with_the_landlord() -> None:
    deal = Deal.random(5)
    hands, kitty = deal_ids(deal)
    assert sorted(c for h in hands for c in h) == list(range(54))
    assert [len(h) for h in hands] == [20, 17, 17] and set(kitty) <= set(hands[0])
    for hand, ids in zip(deal.hands, hands, strict=True):
        assert Hand.parse("".join("3456789TJQKA2XD"[c // 4 + c // 53] for c in ids)) == hand


def _check_game(game: dict, n_bids: int = 0) -> None:
    """A finished game replays: every play is judge-legal, and the winner emptied its hand."""
    assert sum(game["returns"]) == pytest.approx(0)
    plays = [(s, m) for s, m in game["moves"] if not m.startswith("bid")]
    assert len(game["moves"]) - len(plays) >= n_bids
    landlord = game["landlord"]
    assert plays[0][0] == landlord
    assert [s for s, _ in plays] == [(landlord + i) % 3 for i in range(len(plays))]
    to_beat, passes = None, 0
    for _, move in plays:
        counts = (0,) * 15 if move == "pass" else Hand.parse(move).counts
        assert judge_accepts(to_beat, counts), (to_beat, move)
        if move == "pass":
            passes += 1
            if passes == 2:
                to_beat, passes = None, 0
        else:
            to_beat, passes = counts, 0
    winner = plays[-1][0]
    assert (game["returns"][winner] > 0) and ((winner == landlord) == (game["returns"][landlord] > 0))


def test_three_minimal_bots_play_complete_games_rotating_seats() -> None:
    commands = [bot("minimal"), bot("minimal"), bot("minimal")]
    results, stats = run_judge(commands, 3, seed=4, time_limit=20, keep_running=True)
    assert [r.bots for r in results] == [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
    for r in results:
        assert r.forfeit is None
        _check_game(r.as_dict())
    by = {(s.bot, s.role): s for s in stats}
    for command in commands:
        assert by[(command, "landlord")].wp.n == 1 and by[(command, "farmer")].wp.n == 2
        assert by[(command, "all")].adp.n == 3


def test_a_bot_in_simple_interaction_is_started_for_every_move() -> None:
    commands = [bot("minimal"), bot("minimal"), bot("minimal", keep=False)]
    (result,), _ = run_judge(commands, 1, seed=4, time_limit=20, keep_running=[True, True, False])
    assert result.forfeit is None
    _check_game(result.as_dict())


def test_bidding_game_through_the_protocol() -> None:
    # the minimal bot bids one more than the bids so far: seat 2 always bids 3 and is landlord
    results, _ = run_judge([bot("minimal")] * 3, 2, seed=1, time_limit=20, bidding=True, keep_running=True)
    for r in results:
        assert r.forfeit is None and r.landlord == 2 and r.bid == 3
        assert [m for _, m in r.moves[:3]] == ["bid 1", "bid 2", "bid 3"]
        _check_game(r.as_dict(), n_bids=3)


@pytest.mark.parametrize(
    ("mode", "keep", "reason"),
    [
        ("crash", False, "crashed (exit code 3)"),
        ("crash", True, "crashed"),
        ("sleep", False, "timed out (no answer within 2 s)"),
        ("sleep", True, "timed out (no answer within 2 s)"),
        ("garbage", False, "not JSON"),
        ("illegal", True, "illegal move"),
        ("stolen", True, "played cards it does not hold"),
    ],
)
def test_a_misbehaving_bot_loses_its_game_and_nothing_else(mode: str, keep: bool, reason: str) -> None:
    games = 1 if mode == "sleep" else 3  # a time-out costs the whole limit
    commands = [bot("minimal"), bot(mode, keep), bot("minimal")]
    results, stats = run_judge(commands, games, seed=2, time_limit=2.0, keep_running=[True, keep, True])
    assert len(results) == games  # every game was played
    for r in results:
        seat = r.bots.index(1)
        assert r.forfeit is not None and r.forfeit["bot"] == 1 and r.forfeit["seat"] == seat
        assert reason in r.forfeit["reason"]
        assert r.returns[seat] < 0 and sum(r.returns) == pytest.approx(0)
        # the bad bot's side lost: its partner (if a farmer) too, the other side won
        for other in range(3):
            same_side = (other == r.landlord) == (seat == r.landlord)
            assert (r.returns[other] < 0) == same_side
    by = {(s.bot, s.role): s for s in stats}
    assert by[(commands[1], "all")].forfeits == games and by[(commands[1], "all")].wp.value == 0
    assert by[(commands[0], "all")].forfeits == 0


def test_paiju_bots_play_through_the_judge() -> None:
    """paiju's own bot (keep-running, one process per game) against the minimal bots."""
    commands = [
        f"{PAIJU} botzone ddz -a rule --keep-running",
        bot("minimal"),
        f"{PAIJU} botzone ddz -a greedy --keep-running",
    ]
    results, _ = run_judge(commands, 1, seed=6, time_limit=30, bidding=True, keep_running=True)
    for r in results:
        assert r.forfeit is None, r.forfeit
        _check_game(r.as_dict(), n_bids=1)


def test_judged_games_are_recorded_and_resumed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from paiju.core.records import read_records

    commands = [bot("minimal"), bot("illegal"), bot("minimal")]
    results, _ = run_judge(commands, 2, seed=3, out_dir=tmp_path / "rec", time_limit=20, keep_running=True)
    rows = {r["game_index"]: r for r in read_records(tmp_path / "rec").to_pylist()}
    assert sorted(rows) == [0, 1]
    for r in results:
        row = rows[r.index]
        assert row["returns"] == r.returns and row["dealer_seat"] == r.landlord
        assert json.loads(row["extra"])["forfeit"]["reason"].startswith("illegal move")
        assert row["moves"][1:] == [m for _, m in r.moves] and row["move_players"][0] == -1
    # a rerun with one more game plays only that game
    more, _ = run_judge(commands, 3, seed=3, out_dir=tmp_path / "rec", time_limit=20, keep_running=True)
    assert [r.index for r in more] == [2]
    assert run(["records", "show", str(tmp_path / "rec"), "2"]) == 0
    assert "landlord" in capsys.readouterr().out


def test_judge_refuses_bad_set_ups() -> None:
    with pytest.raises(ConfigError, match="needs 3 bots"):
        Judge(["a", "b"])
    with pytest.raises(ConfigError, match="empty bot command"):
        Judge(["", "b", "c"]).play(0, 0)


def test_judge_cli_prints_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    commands = [bot("minimal"), bot("crash"), bot("minimal")]
    assert run(["botzone", "judge", *commands, "--games", "3", "--keep-running", "-t", "20"]) == 0
    out = capsys.readouterr().out
    assert "WP" in out and "ADP" in out and "lost by forfeit: crashed" in out
    assert run(["botzone", "judge", *commands, "-n", "1", "--keep-running", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"][0]["forfeit"]["bot"] == 1 and len(report["report"]) == 9


@pytest.mark.slow
@pytest.mark.parametrize("bidding", [False, True])
def test_paiju_bots_play_many_games_through_the_judge(bidding: bool) -> None:
    commands = [f"{PAIJU} botzone ddz -a {a} --keep-running" for a in ("rule", "greedy", "random")]
    results, _ = run_judge(commands, 12, seed=8, time_limit=30, bidding=bidding, keep_running=True)
    for r in results:
        assert r.forfeit is None, r.forfeit
        _check_game(r.as_dict(), n_bids=1 if bidding else 0)


def test_the_report_says_honestly_when_a_role_has_no_or_one_game(capsys: pytest.CaptureFixture[str]) -> None:
    """One game: bot 0 is the landlord, bots 1 and 2 never are, every row has at most one
    game. Oracle: no interval exists for 0 games, none for a mean of 1; the text says so and
    the JSON (strict: NaN and Infinity are not JSON) holds null."""
    commands = [bot("minimal")] * 3
    assert run(["botzone", "judge", *commands, "-n", "1", "--keep-running", "-t", "20"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out.lower() and "inf" not in out.lower()
    lines = [line for line in out.splitlines() if line.startswith("│ bot")]
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in lines]
    never = [r for r in rows if r[2] == "0"]  # the landlord row of bots 1 and 2, farmer of 0
    assert len(never) == 3 and all(r[3] == r[4] == "—" for r in never)
    assert sum(r[4].endswith("(1 game)") for r in rows) == 6  # each bot's one role and its "all"

    def strict(token: str) -> None:
        raise AssertionError(f"{token} in --json output")

    assert run(["botzone", "judge", *commands, "-n", "1", "--keep-running", "-t", "20", "--json"]) == 0
    report = json.loads(capsys.readouterr().out, parse_constant=strict)["report"]
    empty = [r for r in report if r["wp"]["n"] == 0]
    assert len(empty) == 3 and all(r["wp"]["value"] is None and r["adp"]["low"] is None for r in empty)
    one = [r for r in report if r["adp"]["n"] == 1]
    assert len(one) == 6 and all(r["adp"]["value"] is not None and r["adp"]["high"] is None for r in one)
