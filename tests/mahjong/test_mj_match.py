"""Full matches (``mode="game"``, ``--match``): 連莊 and 拉莊, rounds, and the arena per match."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from paiju.core.arena import run_arena, run_games
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.core.records import read_records
from paiju.mahjong.agents.match import outcomes
from paiju.mahjong.full_match import deal_passes, match_options, match_rounds, summarize_matches
from paiju.mahjong.game import PASS, WIN, MahjongGame, MahjongObservation, MahjongState, Phase, build_wall

READY_16 = "123m456m789m123p456p7s"
"""Five chows and a single 7s: waits on 7s (16 tiles)."""
COMPLETE_17 = "123m456m789m123p456p77s"
DEALER_DISCARDS_7S = "1122334455667788p7s"
"""17 tiles whose highest kind is 7s: the scripted dealer's first discard."""


class _ScriptedWalls(MahjongState):
    """A match whose hand ``h`` is dealt ``walls[h]`` (the hand-checked match below)."""

    def __init__(self, game: MahjongGame, walls: Sequence[tuple[int, ...]]) -> None:
        super().__init__(game)
        self.script = list(walls)

    def sample_chance(self, rng: Any) -> tuple[int, ...]:
        return self.script[self.hand_number]


class _Scripted:
    """Wins only where ``winner_of[hand]`` names its seat; otherwise passes every claim and
    discards the tile just drawn (the dealer's first turn: its highest kind)."""

    name = "scripted"

    def __init__(self, winner_of: dict[int, int]) -> None:
        self.winner_of = winner_of

    def act(self, obs: MahjongObservation, legal: Sequence[int]) -> int:
        if WIN in legal and self.winner_of.get(obs.hand_number) == obs.player:
            return WIN
        if obs.phase != Phase.TURN:
            return PASS
        if obs.drawn >= 0 and obs.drawn in legal:
            return obs.drawn
        return max(a for a in legal if a < 34)


def _walls() -> tuple[list[tuple[int, ...]], dict[int, int]]:
    """Hand 0: the dealer (seat 0) wins on his dealt tiles (天胡). Hand 1: nobody wins (流局).
    Hands 2..5: the seat opposite the dealer wins on the dealer's first discard (7s)."""
    walls = [build_wall([COMPLETE_17, "", "", ""], dealer=0, seed=1), build_wall(["", "", "", ""], seed=2)]
    winner_of = {0: 0}
    for h, dealer in zip(range(2, 6), range(4), strict=True):
        hands = ["", "", "", ""]
        hands[dealer], hands[(dealer + 2) % 4] = DEALER_DISCARDS_7S, READY_16
        walls.append(build_wall(hands, dealer=dealer, seed=10 + h))
        winner_of[h] = (dealer + 2) % 4
    return walls, winner_of


def _play(rounds: int, max_hands: int = 64) -> MahjongState:
    game = MahjongGame(mode="game", rounds=rounds, max_hands=max_hands)
    walls, winner_of = _walls()
    walls.append(build_wall(["", "", "", ""], seed=99))  # hand 6, if the match goes on
    agents = [_Scripted(winner_of) for _ in range(4)]
    played = play_game(game, agents, 0, start=_ScriptedWalls(game, walls))
    state = played.state
    assert isinstance(state, MahjongState)
    return state


def test_hand_checked_east_round_keeps_passes_and_ends_the_deal() -> None:
    state = _play(rounds=1)
    r = state.results
    assert [h.dealer for h in r] == [0, 0, 0, 1, 2, 3]
    assert [h.continuation for h in r] == [0, 1, 2, 0, 0, 0]  # kept after a win and after a draw
    assert [h.exhaustive for h in r] == [False, True, False, False, False, False]
    assert [h.winners for h in r] == [(0,), (), (2,), (3,), (0,), (1,)]
    assert [h.round_wind for h in r] == [0] * 6
    # four passes: the 東 round is over (the wind has moved on to 南, no hand is played in it)
    assert state.phase == Phase.OVER and (state.dealer, state.round_wind, state.dealer_passes) == (0, 1, 4)
    # the dealer's 天胡 is paid by all three, each with 莊家 and no streak yet
    assert [p.payer for p in r[0].payments] == [1, 2, 3]
    for pay in r[0].payments:  # 天胡 24 + 莊家 1 = 25 tai: 1,000 + 25 x 500
        assert pay.lines == (("天胡", 24), ("莊家", 1)) and pay.amount == 13500
    # hand 2: the dealer on 連2 deals in: he pays 莊家 1 + 連2拉2 = 4 tai on top of the hand's tai
    (pay,) = r[2].payments
    assert (pay.winner, pay.payer) == (2, 0)
    assert ("莊家", 1) in pay.lines and ("連莊", 4) in pay.lines
    assert pay.tai == r[2].scores[0].tai + 5 == sum(t for _, t in pay.lines)
    assert pay.amount == 1000 + 500 * pay.tai == 8000  # 獨聽 1 + 人胡 8 + 莊家 1 + 連莊 4 = 14 tai
    # hand 3: a fresh dealer (seat 1) pays 莊家 only
    (pay3,) = r[3].payments
    assert (pay3.winner, pay3.payer) == (3, 1) and pay3.tai == r[3].scores[0].tai + 1
    assert pay3.lines == (("獨聽", 1), ("人胡", 8), ("莊家", 1)) and pay3.amount == 6000
    assert state.returns() == [float(sum(h.deltas[s] for h in r)) for s in range(4)]
    assert sum(state.returns()) == 0


def test_the_prevailing_wind_advances_after_four_passes() -> None:
    state = _play(rounds=2, max_hands=7)  # the cap stops it in the 南 round
    assert [h.round_wind for h in state.results] == [0, 0, 0, 0, 0, 0, 1]
    assert state.results[6].dealer == 0 and state.phase == Phase.OVER and len(state.results) == 7


def test_match_lengths_and_their_errors() -> None:
    assert [match_rounds(x) for x in ("east", "east-south", "full", "3", " EAST ")] == [1, 2, 4, 3, 1]
    assert match_options("east", {"min_tai": 1}) == {"min_tai": 1, "mode": "game", "rounds": 1}
    for bad in ("0", "5", "south", ""):
        with pytest.raises(ConfigError, match="--match"):
            match_rounds(bad)
    with pytest.raises(ConfigError, match="rounds"):
        match_options("full", {"rounds": 2})


# ---- the arena, per match ----------------------------------------------------------------------
AGENTS = ["greedy", "random"]
EAST = {"mode": "game", "rounds": 1}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """Two match seeds x the 6 seatings of 2v2-all, east round, recorded without a break."""
    out = tmp_path_factory.mktemp("matches")
    run_games("mahjong", AGENTS, 12, seed=5, out_dir=out, fmt="2v2-all", game_options=EAST, batch_size=4)
    return out, _rows(out)


def _rows(folder: Path) -> list[dict[str, Any]]:
    rows = sorted(read_records(folder).to_pylist(), key=lambda r: r["game_index"])
    return [{k: v for k, v in r.items() if k != "move_ms"} for r in rows]


def test_match_totals_are_the_sum_of_the_recorded_hands(reference: tuple[Path, list[dict[str, Any]]]) -> None:
    for row in reference[1]:
        hands = json.loads(row["extra"])["hands"]
        assert [h["hand"] for h in hands] == list(range(len(hands)))
        totals = [sum(h["deltas"][s] for h in hands) for s in range(4)]
        assert row["returns"] == [float(t) for t in totals] and sum(totals) == 0
        # the recorded dealers follow 連莊: kept on a draw or a dealer win, passed on otherwise
        for before, after in itertools.pairwise(hands):
            kept = not before["winners"] or before["dealer"] in before["winners"]
            want = before["dealer"] if kept else (before["dealer"] + 1) % 4
            assert after["dealer"] == want
            assert after["continuation"] == (before["continuation"] + 1 if kept else 0)
        assert deal_passes(hands) == 4  # a full east round, not cut by max_hands


def test_seatings_of_a_match_are_dealt_the_same_walls(reference: tuple[Path, list[dict[str, Any]]]) -> None:
    rows = reference[1]
    for deal in (0, 1):
        group = [r for r in rows if r["deal_index"] == deal]
        assert sorted(r["lineup"] for r in group) == list(range(6))
        walls = [json.loads(r["extra"])["walls"] for r in group]
        shortest = min(len(w) for w in walls)
        assert shortest >= 4 and len(set(walls[0][:shortest])) == shortest  # a new wall every hand
        assert all(w[:shortest] == walls[0][:shortest] for w in walls)
    first = [json.loads(r["extra"])["walls"][0] for r in rows]
    assert first[0] != first[6]  # another match seed, other walls


def test_report_per_match(reference: tuple[Path, list[dict[str, Any]]]) -> None:
    out, rows = reference
    report = run_arena("mahjong", AGENTS, 12, seed=5, fmt="2v2-all", out_dir=out, game_options=EAST)
    summary = report.as_dict()["match"]
    counts = [len(json.loads(r["extra"])["hands"]) for r in rows]
    assert summary["matches"] == 12 and summary["hands_per_match"]["value"] == pytest.approx(sum(counts) / 12)
    assert (summary["fewest_hands"], summary["most_hands"]) == (min(counts), max(counts))
    assert summary["cut_short"] == 0
    greedy_totals = [sum(r["returns"][s] for s in range(4) if r["seat_agents"][s] == 0) for r in rows]
    greedy = summary["agents"][0]
    assert greedy["agent"] == "greedy"
    assert greedy["wins"] == sum(t > 0 for t in greedy_totals) + 0.5 * sum(t == 0 for t in greedy_totals)
    assert greedy["points_per_match"]["value"] == pytest.approx(sum(greedy_totals) / 12)
    assert report.stats("greedy").adp.value == pytest.approx(greedy["points_per_match"]["value"])
    assert "match" not in run_arena("mahjong", AGENTS, 2, fmt="2v2").as_dict()  # single hands: none


def test_ties_share_a_match_win() -> None:
    row = {"seat_agents": [0, 1, 0, 1], "returns": [0.0, 0.0, 0.0, 0.0],
           "extra": {"hands": [{"dealer": 0, "winners": []}]}}
    s = summarize_matches([row], ["a", "b"], rounds=1)
    assert [a.wins for a in s.agents] == [0.5, 0.5] and s.cut_short == 1 and s.hands.value == 1


def test_an_interrupted_match_run_resumes_to_the_same_matches(
    tmp_path: Path, reference: tuple[Path, list[dict[str, Any]]]
) -> None:
    batches = 0

    def crash_after_two(done: int, total: int) -> None:
        nonlocal batches
        batches += 1
        if batches == 2:
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError, match="interrupted"):
        run_games("mahjong", AGENTS, 12, seed=5, out_dir=tmp_path, fmt="2v2-all", game_options=EAST,
                  batch_size=4, progress=crash_after_two)
    assert len(read_records(tmp_path)) == 8
    resumed = run_games("mahjong", AGENTS, 12, seed=5, out_dir=tmp_path, fmt="2v2-all", game_options=EAST)
    assert (resumed.skipped, resumed.played) == (8, 4)
    assert _rows(tmp_path) == reference[1]


def test_cli_match_option_reports_per_match(capsys: pytest.CaptureFixture[str]) -> None:
    from paiju.cli.main import run

    code = run(["arena", "-g", "mahjong", "-f", "2v2-all", "-a", "greedy,random", "--match", "east",
                "-n", "6", "--seed", "5", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["match"]["rounds"] == 1 and report["match"]["matches"] == 6
    assert report["games"] == 6 and report["deals"] == 1


def test_outcomes_count_self_draws_and_deal_ins_per_seat_hand() -> None:
    """Two hand-made hands: A (seats 0, 2) self-draws in seat 2; then B's seat 1 wins on A's
    seat 0's discard. Four A and four B seat-hands."""
    def row(seats: list[int], result: dict[str, Any]) -> dict[str, Any]:
        return {"seat_agents": seats, "extra": json.dumps({"hands": [result]})}

    rows = [
        row([0, 1, 0, 1], {"winners": [2], "self_draw": True, "discarder": -1}),
        row([0, 1, 0, 1], {"winners": [1], "self_draw": False, "discarder": 0}),
        row([0, 1, 0, 1], {"winners": [], "self_draw": False, "discarder": -1}),  # exhaustive draw
    ]
    assert outcomes(rows) == {
        "A": {"self_draws_per_seat_hand": 1 / 6, "deal_ins_per_seat_hand": 1 / 6},
        "B": {"self_draws_per_seat_hand": 0.0, "deal_ins_per_seat_hand": 0.0},
    }
