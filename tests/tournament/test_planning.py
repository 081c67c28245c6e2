"""Planning an event by simulation (issue 48 item 6): the simulated events against exact
enumeration, the comparison against the director's, seeds, resume, and the command."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest

from paiju.cli import main
from paiju.core.errors import ConfigError
from paiju.tournament.director.comparison import matchpoints as director_matchpoints
from paiju.tournament.director.comparison import rank_points as director_rank_points
from paiju.tournament.director.formats import Comparison
from paiju.tournament.distributions import DealDistribution, ScoreDistribution, write_distribution_table
from paiju.tournament.planning import (
    COMPARISONS,
    EventModel,
    PlanConfig,
    compared_points,
    field_skills,
    hands_held,
    law_thresholds,
    matchpoints,
    plot_plan,
    run_plan,
    seat_tables,
    seating,
    simulate_events,
)
from paiju.tournament.population import random_pool, write_pool_file
from paiju.tournament.selection import DealPool
from paiju.tournament.validate import rank_points

PHI = NormalDist()

# Three boards: two two-point laws and one with a gap (no 0 or 1: the grid -2..2 has cells
# these laws never give, which must never be drawn).
LAWS = (
    {-1: 0.7, 1: 0.3},
    {-1: 0.4, 1: 0.6},
    {-2: 0.2, -1: 0.3, 2: 0.5},
)


def _pool(laws: tuple[dict[int, float], ...] = LAWS) -> DealPool:
    return DealPool.from_distributions(
        {f"deal{i}": ScoreDistribution.from_mapping(law) for i, law in enumerate(laws)}
    )


def _model(players: int, spread: float, comparison: Comparison = "matchpoints", top: int = 1) -> EventModel:
    return EventModel.build(PlanConfig(players, 1, top, skill_spread=spread, comparison=comparison), _pool())


# ---------------------------------------------------------------------------------------
# The parts


def test_comparison_matches_the_director() -> None:
    rng = np.random.default_rng(5)
    scores = rng.integers(-2, 3, size=(4, 7, 5)).astype(float)  # events, holders, groups
    mp, rp = matchpoints(scores), rank_points(scores)
    for e, g in itertools.product(range(4), range(5)):
        group = {p: float(scores[e, p, g]) for p in range(7)}
        assert [mp[e, p, g] for p in range(7)] == [director_matchpoints(group)[p] for p in range(7)]
        assert [rp[e, p, g] for p in range(7)] == [director_rank_points(group)[p] for p in range(7)]


def test_law_thresholds_by_hand() -> None:
    t = law_thresholds(_pool())
    q = PHI.inv_cdf
    # the boundaries above -2, -1, 0 and 1 on the pool's grid -2..2: z at or past one scores
    # more; an empty cell (0 and 1 here) has its two boundaries equal, so no z lands in it
    assert t[0].tolist() == [-math.inf, pytest.approx(q(0.7)), pytest.approx(q(0.7)), math.inf]
    assert t[2].tolist() == [pytest.approx(q(0.2)), *[pytest.approx(q(0.5))] * 3]


def test_skills_are_a_typical_field_best_first() -> None:
    s = field_skills(108, 2.0)
    assert np.all(np.diff(s) < 0) and abs(s.mean()) < 1e-12
    assert s[0] == pytest.approx(2.0 * PHI.inv_cdf((108 - 0.375) / 108.25))
    assert not field_skills(9, 0.0).any()


def test_swiss_seats_the_standings_and_breaks_ties_at_random() -> None:
    rng = np.random.default_rng(1)
    totals = np.array([[4.0, 9.0, 4.0, 1.0, 9.0, 4.0]] * 200)
    order = seating(totals, "swiss", False, rng)
    assert np.all(np.diff(totals[0][order], axis=-1) <= 0)
    assert {tuple(o[:2]) for o in order} == {(1, 4), (4, 1)}  # the tie at the top in both orders
    first = seating(totals, "swiss", True, rng)  # round 1 is a draw
    assert len({tuple(o) for o in first}) > 100


def test_sitters_fill_the_last_tables_one_each() -> None:
    model = _model(7, 1.0)
    seats = seat_tables(model, np.tile(np.arange(7), (1, 1)))
    assert seats[0].tolist() == [[0, 1, 2], [3, 4, 7], [5, 6, 7]]


def test_every_hand_of_every_board_is_held_once_per_table() -> None:
    model = _model(7, 1.0)
    rng = np.random.default_rng(2)
    order = seating(np.zeros((50, 7)), "random", True, rng)
    held = hands_held(seat_tables(model, order), 3, rng)
    seats = seat_tables(model, order)
    for e in range(50):
        for t in range(3):
            for k in range(3):
                assert sorted(held[e, t, k]) == sorted(seats[e, t])  # the table's three hold the three hands
            # three boards a round: each player holds each hand once
            for p in seats[e, t]:
                assert sorted(np.flatnonzero(held[e, t] == p) % 3) == [0, 1, 2] or p == 7


def test_sitters_are_never_compared() -> None:
    """Points against the director's comparison over each (board, hand)'s real holders."""
    rng = np.random.default_rng(4)
    for comparison in COMPARISONS:
        model = _model(7, 1.0, comparison)
        order = seating(np.zeros((20, 7)), "random", True, rng)
        held = hands_held(seat_tables(model, order), 2, rng)
        landlord = rng.choice([-2, -1, 1, 2], size=held.shape[:3])
        got = compared_points(model, held, landlord)
        compare = director_matchpoints if comparison == "matchpoints" else director_rank_points
        for e in range(20):
            want = dict.fromkeys(range(7), 0.0)
            for k, h in itertools.product(range(2), range(3)):
                group = {
                    int(held[e, t, k, h]): landlord[e, t, k] * (1.0 if h == 0 else -0.5)
                    for t in range(3)
                    if held[e, t, k, h] != 7
                }
                for p, v in compare(group).items():
                    want[p] += v
            assert got[e].tolist() == [want[p] for p in range(7)]


# ---------------------------------------------------------------------------------------
# Whole events against exact enumeration


def _exact(spread: float, comparison: str, tops: tuple[int, ...]) -> dict[int, tuple[float, float]]:
    """Six players (two tables), one round of the three LAWS boards: P(unique top R) and
    P(right top R) by enumerating every seating and every table result, each result's
    probability from the model's definition: s = v_j when Phi^-1(F(v_j-1)) <= z < Phi^-1(F(v_j))."""
    skills = field_skills(6, spread)
    scale = math.sqrt(1 + 1.5 * spread**2)
    laws = [sorted(law.items()) for law in LAWS]
    compare = director_matchpoints if comparison == "matchpoints" else director_rank_points
    pair = {(a, b): compare({0: a, 1: b}) for a in range(-4, 5) for b in range(-4, 5)}  # half points x2
    out = {r: [0.0, 0.0] for r in tops}
    # the two tables are alike: seatings with player 0 at the first table stand for both halves
    seatings = [perm for perm in itertools.permutations(range(6)) if 0 in perm[:3]]
    for perm in seatings:
        tables = (perm[:3], perm[3:])
        # seat p holds hand (p + k) mod 3 of board k; hand 0 is the landlord
        holder = [[[table[(h - k) % 3] for h in range(3)] for k in range(3)] for table in tables]
        options = []  # per (table, board): [(landlord score, probability)]
        for t, k in itertools.product(range(2), range(3)):
            land, f1, f2 = (skills[p] for p in holder[t][k])
            edge = land - (f1 + f2) / 2
            cdf, row = 0.0, []
            for v, p in laws[k]:
                lo = -math.inf if cdf <= 0 else scale * PHI.inv_cdf(cdf) - edge
                cdf += p
                hi = math.inf if cdf >= 1 - 1e-12 else scale * PHI.inv_cdf(cdf) - edge
                row.append((v, PHI.cdf(hi) - PHI.cdf(lo)))
            options.append(row)
        for combo in itertools.product(*options):
            prob = math.prod(p for _, p in combo) / len(seatings)
            totals = dict.fromkeys(range(6), 0.0)
            for k, h in itertools.product(range(3), range(3)):
                sign = 2 if h == 0 else -1  # hand A scores s, B and C -s/2: here doubled
                points = pair[(sign * combo[k][0], sign * combo[3 + k][0])]
                totals[holder[0][k][h]] += points[0]
                totals[holder[1][k][h]] += points[1]
            ranked = sorted(totals.values(), reverse=True)
            for r in tops:
                unique = all(ranked[i] > ranked[i + 1] for i in range(r))
                right = unique and all(totals[i] == ranked[i] for i in range(r))
                out[r][0] += prob * unique
                out[r][1] += prob * right
    return {r: (u, w) for r, (u, w) in out.items()}


@pytest.mark.parametrize(("spread", "comparison"), [(0.0, "matchpoints"), (1.0, "matchpoints"),
                                                    (1.0, "rank-points"), (30.0, "matchpoints")])
def test_events_match_exact_enumeration(spread: float, comparison: Comparison) -> None:
    exact = _exact(spread, comparison, (1, 2))
    events = 20_000
    for top in (1, 2):
        model = _model(6, spread, comparison, top=top)
        deals = np.broadcast_to(np.arange(3), (events, 3))
        unique, right = simulate_events(model, deals, np.random.default_rng(100 + top))
        for got, want in ((unique.mean(), exact[top][0]), (right.mean(), exact[top][1])):
            assert abs(got - want) <= 4.5 * math.sqrt(want * (1 - want) / events) + 1e-12, (top, got, want)


def test_zero_spread_right_podium_is_chance() -> None:
    """Players all alike: given a unique top R, each of the N!/(N-R)! ordered podiums is as
    likely, so P(right) = P(unique) (N-R)!/N!."""
    exact = _exact(0.0, "rank-points", (1, 2))
    assert exact[1][1] == pytest.approx(exact[1][0] / 6)
    assert 0.05 < exact[1][0] < 0.95  # not a degenerate case
    assert exact[2] == (0.0, 0.0)  # one round of six never separates the top two (tied farmers)
    config = PlanConfig(12, 3, 2, skill_spread=0.0, selections=("random",), events=3000, seed=2)
    row = run_plan(config, _pool(LAWS * 4)).rows[-1]
    unique, right = row.unique["random"].value * 3000, row.right["random"].value * 3000
    chance = 1 / (12 * 11)
    assert unique > 1000
    assert abs(right - unique * chance) <= 4.5 * math.sqrt(unique * chance * (1 - chance))


def test_a_large_spread_shows_the_true_order_once_rounds_suffice() -> None:
    """Luck no longer matters, but who sits with whom still does: the podium is right more
    and more often as rounds average the tables out (and is never right without being unique)."""
    pool = _pool(({-1: 0.5, 1: 0.5},) * 180)
    model = EventModel.build(PlanConfig(6, 1, 2, skill_spread=50.0, pairing="random"), pool)
    right = {}
    for rounds in (2, 60):
        deals = np.broadcast_to(np.arange(3 * rounds), (400, 3 * rounds))
        unique, right[rounds] = simulate_events(model, deals, np.random.default_rng(rounds))
        assert not np.any(right[rounds] & ~unique)
    assert right[2].mean() < 0.3 < 0.9 < right[60].mean()


# ---------------------------------------------------------------------------------------
# Runs: seeds, resume, workers, configuration


SMALL = PlanConfig(9, 3, 2, skill_spread=1.0, events=250, seed=7)


def _small(**changes: object) -> PlanConfig:
    return dataclasses.replace(SMALL, **changes)


def test_seeds_reproduce_and_workers_do_not_matter() -> None:
    pool = _pool(LAWS * 4)
    first = run_plan(_small(), pool).as_dict()
    assert run_plan(_small(), pool).as_dict() == first
    assert run_plan(_small(seed=8), pool).as_dict() != first
    assert run_plan(_small(), pool, workers=2).as_dict() == first
    dih = [row["set_dih"] for row in first["rows"]]
    assert all(0 < d <= 1 for d in dih)


def test_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    pool = _pool(LAWS * 4)
    whole = run_plan(_small(), pool).as_dict()
    journal = tmp_path / "plan.jsonl"
    seen = 0

    def stop(done: int, total: int) -> None:
        nonlocal seen
        seen += 1
        if seen == 5:  # called once a batch is journalled: Ctrl-C after the 5th
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_plan(_small(), pool, journal=journal, progress=stop)
    assert len(journal.read_text().splitlines()) == 1 + 5  # the header and five batches
    assert run_plan(_small(), pool, journal=journal).as_dict() == whole
    with pytest.raises(ConfigError, match="journal of another job"):
        run_plan(_small(seed=8), pool, journal=journal)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"top": 9}, "top"),
        ({"players": 3}, "players"),
        ({"skill_spread": -1.0}, "skill spread"),
        ({"selections": ("dih", "dih")}, "board selections"),
        ({"selections": ("best",)}, "board selection 'best'"),
        ({"comparison": "imps"}, "comparison 'imps'"),
        ({"pairing": "rating"}, "pairing 'rating'"),
        ({"rounds": 0}, "rounds"),
    ],
)
def test_bad_configurations_are_refused(kw: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        _small(**kw)


def test_a_pool_too_small_for_the_event_is_refused() -> None:
    with pytest.raises(ConfigError, match="need 9 distinct"):
        run_plan(_small(), _pool())


def test_plot_is_written(tmp_path: Path) -> None:
    report = run_plan(_small(events=20), _pool(LAWS * 4))
    out = plot_plan(report, tmp_path / "plan.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert report.text().count("\n") == 2 + 3


# ---------------------------------------------------------------------------------------
# The command, through the entry point's error handling


def _pool_files(tmp_path: Path) -> list[str]:
    deals = random_pool(12, seed=3)
    write_pool_file(tmp_path / "pool.txt", deals)
    laws = [DealDistribution(d, ScoreDistribution.from_mapping(LAWS[i % 3]), 60) for i, d in enumerate(deals)]
    write_distribution_table(tmp_path / "dists.parquet", laws)
    return ["--pool", str(tmp_path / "pool.txt"), "--dists", str(tmp_path / "dists.parquet")]


def test_command_writes_table_json_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament", "plan", "-n", "7", "-m", "2", "--top", "1", "--events", "30"]
    args += _pool_files(tmp_path)
    files = ["--plot", str(tmp_path / "p.png"), "--out-json", str(tmp_path / "p.json")]
    assert main.run([*args, *files, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == json.loads((tmp_path / "p.json").read_text())
    assert [r["rounds"] for r in data["rows"]] == [1, 2] and data["pool_size"] == 12
    assert set(data["rows"][0]["unique"]) == {"random", "dih"}
    assert (tmp_path / "p.png").stat().st_size > 0
    assert main.run([*args, *files, "--select", "dih"]) == 0
    text = capsys.readouterr().out
    assert "unique, dih" in text and "unique, random" not in text


@pytest.mark.parametrize(
    "extra",
    [
        ["-n", "0", "-m", "2", "--top", "1"],
        ["-n", "9", "-m", "2", "--top", "9"],
        ["-n", "9", "-m", "2", "--top", "1", "--comparison", "imps"],
        ["-n", "9", "-m", "2", "--top", "1", "--select", "best"],
        ["-n", "9", "-m", "2", "--top", "1", "--skill-spread", "-1"],
        ["-n", "9", "-m", "5", "--top", "1", "POOL"],  # 5 rounds of 3 boards from a pool of 12
        ["-n", "9", "-m", "2", "--top", "1", "--pool", "POOLFILE"],  # a pool without its laws
    ],
)
def test_command_bad_input_exits_2_with_one_line(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _pool_files(tmp_path)
    args = [a for e in extra for a in (files if e == "POOL" else [files[1]] if e == "POOLFILE" else [e])]
    assert main.run(["tournament", "plan", *args, "--plot", str(tmp_path / "p.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
