"""The arena: match plans per format, seeds, reports against exact values, workers, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.arena import (
    PlannedGame,
    agent_labels,
    agent_seed,
    lineups,
    match_plan,
    replay_check,
    run_arena,
    run_games,
    setup_match,
    summarize,
)
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import new_game, play_game
from paiju.core.registry import GameEntry, get_entry
from paiju.core.rng import derive_seed
from paiju.core.stats import mean_ci, proportion_ci
from paiju.games.kuhn_poker import REGISTRY, KuhnPokerGame, KuhnPokerState

# entries of the shape of Dou Dizhu and mahjong (only their seats and formats are used)
DDZ_LIKE = GameEntry(
    "ddz_like", "x:y", "x:z", 3, ("duplicate", "rotation", "fixed"), ("landlord", "farmer", "farmer")
)
MJ_LIKE = GameEntry(
    "mj_like", "x:y", "x:z", 4, ("rotation", "2v2", "2v2-all", "fixed"), ("east", "south", "west", "north")
)


def _no_times(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "move_ms"} for r in rows]


# ---- formats and plans ----------------------------------------------------------------------------
def test_duplicate_puts_each_agent_on_each_side_of_every_deal() -> None:
    assert lineups("duplicate", 2, DDZ_LIKE) == [(0, 1, 1), (1, 0, 0)]


def test_rotation_seats_every_agent_in_every_seat_once_per_deal() -> None:
    plans = lineups("rotation", 3, DDZ_LIKE)
    assert len(plans) == 3
    for agent in range(3):
        assert sorted(p.index(agent) for p in plans) == [0, 1, 2]
    for p in plans:
        assert sorted(p) == [0, 1, 2]


def test_2v2_alternates_seats_and_swaps() -> None:
    assert lineups("2v2", 2, MJ_LIKE) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert lineups("swap", 2, get_entry("kuhn_poker")) == [(0, 1), (1, 0)]
    assert lineups("fixed", 1, MJ_LIKE) == [(0, 0, 0, 0)]


def test_2v2_all_plays_every_seating_of_two_a_and_two_b_seats() -> None:
    plans = lineups("2v2-all", 2, MJ_LIKE)
    # C(4, 2) = 6 seatings, each written out by hand
    assert sorted(plans) == sorted([
        (0, 0, 1, 1), (0, 1, 0, 1), (0, 1, 1, 0), (1, 0, 0, 1), (1, 0, 1, 0), (1, 1, 0, 0),
    ])
    for seat in range(4):  # every agent sits in every seat equally often
        assert sum(p[seat] == 0 for p in plans) == 3
    for seat in range(4):  # and discards to (sits before) the other agent equally often
        assert sum(p[seat] != p[(seat + 1) % 4] for p in plans) == 4


@pytest.mark.parametrize(
    ("fmt", "n_agents", "entry", "message"),
    [
        ("duplicate", 3, DDZ_LIKE, "needs 2 agents"),
        ("2v2", 2, DDZ_LIKE, "not available for ddz_like"),
        ("2v2-all", 3, MJ_LIKE, "needs 2 agents"),
        ("rotation", 2, MJ_LIKE, "needs 4 agents"),
        ("swap", 2, DDZ_LIKE, "not available"),
        ("fixed", 2, DDZ_LIKE, "needs 3 agents"),
    ],
)
def test_wrong_format_or_agent_count_is_a_config_error(
    fmt: str, n_agents: int, entry: GameEntry, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        lineups(fmt, n_agents, entry)


def test_match_plan_replays_each_deal_seed_under_every_lineup() -> None:
    plan = match_plan([(0, 1, 1), (1, 0, 0)], 6, seed=9)
    assert [(p.deal_index, p.lineup) for p in plan] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    assert [p.seed for p in plan] == [derive_seed(9, d) for d in (0, 0, 1, 1, 2, 2)]
    assert len({p.seed for p in plan}) == 3
    assert agent_seed(9, 3, 0) != agent_seed(9, 3, 1) != agent_seed(9, 4, 1)
    with pytest.raises(ConfigError, match="use 6 or 8"):
        match_plan([(0, 1), (1, 0)], 7, seed=0)


def test_swap_replays_the_same_cards_as_play_game_with_that_seed() -> None:
    rows = run_games("kuhn_poker", ["nash", "random"], 40, seed=5).rows
    assert rows is not None and [r["game_index"] for r in rows] == list(range(40))
    for r in rows:
        expected = new_game(KuhnPokerGame(), derive_seed(5, r["deal_index"]))
        assert r["deal"] == expected.deal_notation()  # type: ignore[attr-defined]
        assert r["seed"] == derive_seed(5, r["deal_index"])
        assert r["agents"] == (["nash", "random"] if r["lineup"] == 0 else ["random", "nash"])
    # the two games of a deal share the cards
    for d in range(20):
        assert rows[2 * d]["deal"] == rows[2 * d + 1]["deal"]


def test_recording_notation_does_not_change_the_game() -> None:
    game = KuhnPokerGame()
    for seed in range(30):
        a = [REGISTRY.make("nash", seed=1), REGISTRY.make("random", seed=2)]
        b = [REGISTRY.make("nash", seed=1), REGISTRY.make("random", seed=2)]
        recorded = play_game(game, a, seed, notation=True)
        plain = play_game(game, b, seed)
        history = plain.actions
        assert recorded.actions == history and recorded.state.returns() == plain.state.returns()
        assert plain.moves == []
        deal = plain.state.deal_notation()  # type: ignore[attr-defined]
        assert recorded.moves[:2] == [f"deal {c}" for c in deal]
        assert recorded.moves[2:] == [("pass", "bet")[x] for x in history[2:]]
        assert recorded.players == [-1, -1] + [i % 2 for i in range(len(history) - 2)]


# ---- the report against exact values ---------------------------------------------------------------
def _exact_first_player_value(first: str, second: str) -> Fraction:
    """Enumerate the tree; random bets with 1/2, nash with its equilibrium probabilities."""
    agents = [REGISTRY.make(first, seed=0), REGISTRY.make(second, seed=0)]

    def p_bet(player: int, state: KuhnPokerState) -> Fraction:
        agent = agents[player]
        if hasattr(agent, "bet_probability"):
            return Fraction(agent.bet_probability(state.observation(player))).limit_denominator(1000)
        return Fraction(1, 2)

    def walk(state: KuhnPokerState) -> Fraction:
        if state.is_terminal():
            return Fraction(state.returns()[0])
        outcomes = state.chance_outcomes() if state.is_chance_node() else None
        if outcomes is not None:
            share = Fraction(1, len(outcomes))
            return sum((share * walk(_after(state, a)) for a, _ in outcomes), Fraction(0))
        q = p_bet(state.current_player(), state)
        return q * walk(_after(state, 1)) + (1 - q) * walk(_after(state, 0))

    return walk(KuhnPokerGame().new_initial_state())


def _after(state: KuhnPokerState, action: int) -> KuhnPokerState:
    child = state.clone()
    child.apply(action)
    return child


def test_adp_per_role_matches_the_exact_expected_values() -> None:
    report = run_arena("kuhn_poker", ["nash", "random"], 6000, seed=11)
    nash_first = float(_exact_first_player_value("nash", "random"))
    nash_second = -float(_exact_first_player_value("random", "nash"))
    for role, exact in (("first", nash_first), ("second", nash_second)):
        adp = report.stats("nash", role).adp
        assert adp.n == 3000
        assert abs(adp.value - exact) < 2 * adp.half_width, (role, adp, exact)  # ~4 standard errors
        assert report.stats("random", role).adp.n == 3000
    # zero-sum: the paired difference per deal is nash's first + second seat expectation
    paired = report.paired_difference
    assert paired is not None
    assert abs(paired.value - (nash_first + nash_second)) < 2 * paired.half_width
    assert report.duplicate["nash"].value == pytest.approx(-report.duplicate["random"].value)


def test_report_numbers_from_hand_made_rows() -> None:
    """WP counts a draw as half a win; farmers' points are the sum over both farmer seats."""
    setup = setup_match("kuhn_poker", ["nash", "random"], seed=0)
    rows = []
    # three deals; returns from seat 0's view; lineup 0: nash seat 0, lineup 1: random seat 0
    for deal, (r0, r1) in enumerate([(1.0, -2.0), (0.0, 0.0), (2.0, 1.0)]):
        rows.append(_row(deal, 0, (0, 1), [r0, -r0]))
        rows.append(_row(deal, 1, (1, 0), [r1, -r1]))
    report = summarize(rows, setup, seed=0)
    nash_first = report.stats("nash", "first")
    assert (nash_first.wins, nash_first.draws, nash_first.losses) == (2, 1, 0)
    assert nash_first.wp == proportion_ci(2.5, 3)
    assert nash_first.adp == mean_ci([1.0, 0.0, 2.0])
    nash_second = report.stats("nash", "second")  # nash's points as seat 1 in lineup 1 = -r1
    assert nash_second.adp == mean_ci([2.0, 0.0, -1.0])
    assert report.stats("nash").adp == mean_ci([1.0, 2.0, 0.0, 0.0, 2.0, -1.0])
    assert report.duplicate["nash"] == mean_ci([3.0, 0.0, 1.0])
    assert report.paired_difference == mean_ci([3.0, 0.0, 1.0])
    assert [t.decisions for t in report.timing] == [6, 6]


def _row(deal: int, lineup: int, seats: tuple[int, int], returns: list[float]) -> dict:
    return {
        "deal_index": deal, "lineup": lineup, "seat_agents": list(seats), "roles": ["first", "second"],
        "returns": returns, "move_players": [-1, -1, 0, 1], "move_ms": [0.0, 0.0, 1.0, 2.0],
    }


def test_two_farmer_seats_count_as_one_side() -> None:
    """Dou Dizhu-shaped rows: B holds both farmer seats; its farmer points are their sum."""
    setup = replace(
        setup_match("kuhn_poker", ["nash", "random"], seed=0),
        entry=DDZ_LIKE, fmt="duplicate", lineups=((0, 1, 1), (1, 0, 0)),
    )
    rows = [
        {"deal_index": 0, "lineup": 0, "seat_agents": [0, 1, 1], "roles": ["landlord", "farmer", "farmer"],
         "returns": [2.0, -1.0, -1.0], "move_players": [], "move_ms": []},
        {"deal_index": 0, "lineup": 1, "seat_agents": [1, 0, 0], "roles": ["landlord", "farmer", "farmer"],
         "returns": [-4.0, 2.0, 2.0], "move_players": [], "move_ms": []},
    ]
    report = summarize(rows, setup, seed=0)
    assert report.stats("random", "farmer").adp.value == -2.0
    assert report.stats("nash", "farmer").adp.value == 4.0
    assert report.stats("nash", "landlord").wins == 1
    assert report.duplicate["nash"].value == 6.0  # (A as landlord 2) - (B as landlord -4)


def test_agent_labels_number_repeated_specs() -> None:
    assert agent_labels(["random", "nash", "random"]) == ["random#1", "nash", "random#2"]


# ---- determinism and workers --------------------------------------------------------------------------
def test_same_seed_same_games_other_seed_other_games() -> None:
    a = run_games("kuhn_poker", ["nash:alpha=0.1", "random"], 60, seed=3).rows
    b = run_games("kuhn_poker", ["nash:alpha=0.1", "random"], 60, seed=3, batch_size=7).rows
    c = run_games("kuhn_poker", ["nash:alpha=0.1", "random"], 60, seed=4).rows
    assert a is not None and b is not None and c is not None
    assert _no_times(a) == _no_times(b)
    assert [r["moves"] for r in a] != [r["moves"] for r in c]


def test_workers_give_identical_results_to_one_process() -> None:
    one = run_games("kuhn_poker", ["nash", "random"], 400, seed=21, workers=1).rows
    two = run_games("kuhn_poker", ["nash", "random"], 400, seed=21, workers=2, batch_size=50).rows
    assert one is not None and two is not None
    assert _no_times(one) == _no_times(two)


def test_bad_setups_are_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"unknown game 'chess'; available: .*kuhn_poker"):
        run_games("chess", ["a", "b"], 2)
    with pytest.raises(ConfigError, match="unknown kuhn_poker agent 'greedy'"):
        run_games("kuhn_poker", ["nash", "greedy"], 2)
    with pytest.raises(ConfigError, match="workers"):
        run_games("kuhn_poker", ["nash", "random"], 2, workers=0)
    with pytest.raises(ConfigError, match="positive"):
        run_games("kuhn_poker", ["nash", "random"], 0)


def test_planned_game_is_picklable_for_workers() -> None:
    import pickle

    p = PlannedGame(1, 0, 1, 5, (1, 0))
    assert pickle.loads(pickle.dumps(p)) == p


# ---- replaying records ----------------------------------------------------------------------------
def test_replay_check_reproduces_recorded_games_and_finds_a_changed_move(tmp_path) -> None:
    import pyarrow.parquet as pq

    out = tmp_path / "ddz"
    run_games("doudizhu", ["greedy", "random"], 8, seed=9, out_dir=out, batch_size=4)
    checks = replay_check(out, range(8))
    assert [c.game_index for c in checks] == list(range(8))
    assert all(c.identical and c.first_difference is None and c.recorded_moves > 3 for c in checks)

    # Alter one recorded move of game 5: the replay must point at exactly that move.
    path = next(f for f in sorted(out.glob("*.parquet")) if 5 in pq.read_table(f)["game_index"].to_pylist())
    table = pq.read_table(path)
    rows = table.to_pylist()
    row = next(r for r in rows if r["game_index"] == 5)
    row["moves"][2] = "pass" if row["moves"][2] != "pass" else "3"
    pq.write_table(table.from_pylist(rows, schema=table.schema), path)
    changed = {c.game_index: c for c in replay_check(out, [4, 5])}
    assert changed[4].identical
    assert not changed[5].identical and changed[5].first_difference == 2


def test_replay_check_refuses_what_it_cannot_replay(tmp_path) -> None:
    out = tmp_path / "kuhn"
    run_games("kuhn_poker", ["nash", "random"], 4, seed=1, out_dir=out)
    with pytest.raises(ConfigError, match="no recorded game 7"):
        replay_check(out, [0, 7])
    with pytest.raises(ConfigError, match=r"no run\.json"):
        replay_check(tmp_path, [0])
    header = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps({**header, "run_id": "0" * 16}))
    with pytest.raises(ConfigError, match="cannot be replayed under the same rules"):
        replay_check(out, [0])
    (out / "run.json").write_text(json.dumps({"run_id": header["run_id"]}))
    with pytest.raises(CorruptRecordError, match="not an arena run header"):
        replay_check(out, [0])


# ---- CLI ----------------------------------------------------------------------------------------------
def test_cli_json_report() -> None:
    result = CliRunner().invoke(app, ["arena", "-g", "kuhn_poker", "-a", "nash,random", "-n", "40", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["games"] == 40 and data["deals"] == 20 and data["format"] == "swap"
    roles = {(r["agent"], r["role"]): r for r in data["roles"]}
    assert roles[("nash", "first")]["games"] == 20
    assert roles[("nash", "all")]["wins"] + roles[("random", "all")]["wins"] == 40  # no draws in Kuhn
    assert {t["agent"] for t in data["decision_time"]} == {"nash", "random"}


def test_cli_table_and_bad_input_exit_code() -> None:
    args = ["arena", "-g", "kuhn_poker", "-a", "nash,random", "-n", "20", "--no-progress"]
    ok = CliRunner().invoke(app, args)
    assert ok.exit_code == 0 and "WP (95% CI)" in ok.stdout and "duplicate score" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "paiju.cli.main", *args[:-2], "21"],
        capture_output=True, text=True, timeout=120,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        "error: 21 games is not a whole number of deals: this format plays every deal 2 times; use 20 or 22"
    ]


def test_an_agent_that_cannot_be_built_fails_before_a_record_folder_is_started(tmp_path) -> None:
    # a model file that does not exist is only found by the agent's constructor; the run must
    # stop before writing its configuration, or the corrected run would be refused as another
    out = tmp_path / "rec"
    with pytest.raises(ConfigError, match=r"nope\.pt"):
        run_games("connect_four", [f"az:model={tmp_path / 'nope.pt'}", "random"], 2, fmt="swap", out_dir=out)
    assert not out.exists()
    done = run_games("connect_four", ["random", "random"], 2, fmt="swap", out_dir=out)
    assert done.played == 2


def test_a_run_naming_a_redefined_agent_is_another_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An arena folder recorded when an agent name meant another agent is not resumed under
    the new meaning: the name's revision joins the run's configuration (only when above 1, so
    every other run keeps its id)."""
    from paiju.core.arena import setup_match

    before = setup_match("kuhn_poker", ["nash", "random"], 1, None, {})
    assert "agent_revisions" not in before.run_config
    out = tmp_path / "run"
    run_games("kuhn_poker", ["nash", "random"], 4, seed=1, out_dir=out)
    monkeypatch.setattr(type(REGISTRY), "revision", lambda self, name: 2 if name == "nash" else 1)
    after = setup_match("kuhn_poker", ["nash", "random"], 1, None, {})
    assert after.run_config["agent_revisions"] == {"nash": 2} and after.run_id != before.run_id
    with pytest.raises(ConfigError, match="holds run"):
        run_games("kuhn_poker", ["nash", "random"], 4, seed=1, out_dir=out)
