"""Mahjong matches through the core arena, summarised the way the paper reports them.

The games are played by :func:`paiju.core.arena.run_games` (seeded deals, seat rotation,
records and resume, worker processes); the per-hand figures of the paper's tables (win rate
and mean score per seat-hand, the exhaustive-draw rate) are :mod:`paiju.mahjong.hand_summary`'s,
which every arena report of single hands carries. :func:`run_match` is the Python entry (the
command is ``paiju arena -g mahjong``, or its front ``paiju mahjong arena``); on top of it,
:func:`paired_by_wall` compares two agents wall by wall in the ``2v2-all`` format.

Formats: ``2v2`` (two agents, seated A B A B then B A B A on every deal: the paper's
set-up; every agent sits in every seat equally often), ``2v2-all`` (all six seatings of two
A and two B) and ``rotation`` (four specs, each deal replayed four times with the seats
cycled).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paiju.core.arena import agent_labels, run_games, summarize
from paiju.core.runner import Progress
from paiju.core.stats import Estimate, mean_ci
from paiju.mahjong.hand_summary import AgentResult, summarize_hands


@dataclass(frozen=True)
class MatchReport:
    """A finished mahjong match: per-agent results, exhaustive-draw rate, the arena report."""

    fmt: str
    specs: tuple[str, ...]
    hands: int
    seed: int
    agents: tuple[AgentResult, ...]
    draw_rate: Estimate
    arena: Any
    """The core :class:`paiju.core.arena.ArenaReport` (WP/ADP, duplicate scores, timings)."""
    rows: tuple[dict[str, Any], ...] = ()
    """The hands' arena rows in game order (not in :meth:`as_dict`): :func:`paired_by_wall` reads them."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": self.fmt,
            "specs": list(self.specs),
            "hands": self.hands,
            "seed": self.seed,
            "agents": [a.as_dict() for a in self.agents],
            "exhaustive_draw_rate": self.draw_rate.as_dict(),
            "arena": self.arena.as_dict(),
        }


def run_match(
    specs: Sequence[str],
    hands: int,
    seed: int = 0,
    *,
    fmt: str = "2v2",
    workers: int = 1,
    out_dir: str | Path | None = None,
    progress: Progress = False,
    game_options: dict[str, Any] | None = None,
) -> MatchReport:
    """Play ``hands`` single hands of mahjong between ``specs`` and report them.

    ``hands`` must be a whole number of deals (a multiple of 2 for ``2v2``, of 4 for
    ``rotation``). With ``out_dir`` the hands are recorded and an interrupted run resumes.
    """
    options = {"mode": "hand", **(game_options or {})}
    result = run_games(
        "mahjong", list(specs), hands, seed, out_dir, workers, progress,
        fmt=fmt, game_options=options, keep_rows=True,
    )
    rows = list(result.rows or [])
    if out_dir is not None and result.skipped:
        from paiju.core.records import read_records

        table = read_records(out_dir)
        rows = [r for r in table.to_pylist() if r["run_id"] == result.run_id and r["game_index"] < hands]
    rows.sort(key=lambda r: r["game_index"])
    agents, draw_rate = summarize_hands(rows, agent_labels(result.setup.specs))
    arena = summarize(rows, result.setup, seed, None if out_dir is None else str(out_dir))
    return MatchReport(
        fmt, tuple(result.setup.specs), len(rows), seed, tuple(agents), draw_rate, arena, tuple(rows)
    )


DISCARD_PREFIX = "discard "
"""How a discard reads in the records (``action_name``)."""
SEATINGS_2V2_ALL = 6
"""The distinct seatings of two A and two B seats (``2v2-all``): a wall is complete after 6 hands."""


@dataclass(frozen=True)
class PairedResult:
    """A ``2v2-all`` match of agent A (arena index 0) against B (index 1), paired by wall.

    A wall's 6 seatings (12 seat-hands of each agent) are one observation, so the luck of
    the wall cancels in the differences; intervals are 95% normal intervals over the walls.
    Only complete walls count, for the decision times too. Decision times are the agent's
    recorded discard decisions (``move_ms`` of its turns that discarded: the decisions a
    search makes; claims, passes and wins, mostly instant, are left out)."""

    agents: tuple[str, str]
    walls: int
    win_rate_a: Estimate
    win_rate_b: Estimate
    win_rate_diff: Estimate
    """A's win rate per seat-hand minus B's."""
    score_a: Estimate
    """A's mean points per seat-hand."""
    score_diff: Estimate
    """A's mean points per seat-hand minus B's."""
    decision_ms: tuple[dict[str, float], dict[str, float]]
    """Per agent: ``n``, ``median_ms``, ``p95_ms`` of its discard decisions."""

    @property
    def hands(self) -> int:
        return SEATINGS_2V2_ALL * self.walls

    def as_dict(self) -> dict[str, Any]:
        return {
            "agents": list(self.agents), "walls": self.walls, "hands": self.hands,
            "win_rate_A": self.win_rate_a.as_dict(), "win_rate_B": self.win_rate_b.as_dict(),
            "win_rate_A_minus_B": self.win_rate_diff.as_dict(), "score_A": self.score_a.as_dict(),
            "score_A_minus_B": self.score_diff.as_dict(),
            "decision_A": self.decision_ms[0], "decision_B": self.decision_ms[1],
        }


def _time_quantiles(ms: Sequence[float]) -> dict[str, float]:
    s = sorted(ms)
    if not s:
        return {"n": 0}
    return {"n": len(s), "median_ms": s[len(s) // 2], "p95_ms": s[min(len(s) - 1, int(0.95 * len(s)))]}


def _per_wall(rows: Sequence[dict[str, Any]]) -> tuple[dict[int, str], dict[int, tuple[list[float], ...]]]:
    """The agents by arena index, and per complete wall of one ``2v2-all`` run: A's and B's
    wins (1/0 per seat-hand), A's and B's points, A's and B's discard times (ms).

    Raises:
        ValueError: no row of a ``2v2-all`` run, or rows of more than one run.
    """
    rows = [r for r in rows if r["arena_format"] == "2v2-all"]
    if not rows:
        raise ValueError("no 2v2-all hands to pair")
    if len({r["run_id"] for r in rows}) > 1:
        raise ValueError("the rows hold more than one 2v2-all run: pair one run at a time")
    names = dict(zip(rows[0]["seat_agents"], rows[0]["agents"], strict=True))
    per_wall: dict[int, tuple[list[float], ...]] = {}
    for r in rows:
        wall = per_wall.setdefault(r["deal_index"], ([], [], [], [], [], []))
        for seat, agent in enumerate(r["seat_agents"]):
            wall[agent].append(1.0 if r["returns"][seat] > 0 else 0.0)
            wall[2 + agent].append(float(r["returns"][seat]))
        for move, player, ms in zip(r["moves"], r["move_players"], r["move_ms"], strict=True):
            if player >= 0 and move.startswith(DISCARD_PREFIX):
                wall[4 + r["seat_agents"][player]].append(float(ms))
    return names, {i: w for i, w in per_wall.items() if len(w[0]) == 2 * SEATINGS_2V2_ALL}


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def paired_by_wall(rows: Sequence[dict[str, Any]]) -> PairedResult:
    """The paired summary of the arena rows of one ``2v2-all`` run (records or ``keep_rows``).

    Raises:
        ValueError: no row of a ``2v2-all`` run, or rows of more than one run.
    """
    names, walls = _per_wall(rows)
    complete = list(walls.values())
    return PairedResult(
        agents=(names[0], names[1]),
        walls=len(complete),
        win_rate_a=mean_ci([_mean(w[0]) for w in complete]),
        win_rate_b=mean_ci([_mean(w[1]) for w in complete]),
        win_rate_diff=mean_ci([_mean(w[0]) - _mean(w[1]) for w in complete]),
        score_a=mean_ci([_mean(w[2]) for w in complete]),
        score_diff=mean_ci([_mean(w[2]) - _mean(w[3]) for w in complete]),
        decision_ms=(_time_quantiles([t for w in complete for t in w[4]]),
                     _time_quantiles([t for w in complete for t in w[5]])),
    )


def outcomes(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per arena agent (A, B): self-drawn wins and deal-ins per seat-hand, from the hand
    results the records keep (``extra["hands"]``)."""
    counts = {i: {"seat_hands": 0, "self_draws": 0, "deal_ins": 0} for i in (0, 1)}
    for r in rows:
        result = json.loads(r["extra"])["hands"][0]
        for seat, agent in enumerate(r["seat_agents"]):
            c = counts[agent]
            c["seat_hands"] += 1
            won_on_discard = bool(result["winners"]) and not result["self_draw"]
            c["self_draws"] += result["self_draw"] and seat in result["winners"]
            c["deal_ins"] += won_on_discard and result["discarder"] == seat
    return {"AB"[i]: {"self_draws_per_seat_hand": c["self_draws"] / c["seat_hands"],
                      "deal_ins_per_seat_hand": c["deal_ins"] / c["seat_hands"]}
            for i, c in counts.items() if c["seat_hands"]}


def rows_paired(a_rows: Sequence[dict[str, Any]], b_rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Agent A of run ``a_rows`` against agent A of run ``b_rows``, paired by wall: two rows of
    one Table 4 (each against the same baseline on the same walls). Per wall both runs
    finished, A's win rate and points per seat-hand in the first run minus those in the
    second, and A's margin over the baseline (A's less the baseline's) in the first run minus
    that in the second (``*_margin_a_minus_b``: a better agent also takes wins from the
    baseline); 95% normal intervals over the walls.

    Raises:
        ValueError: no common complete wall, or a wall whose recorded deal differs between the
            runs (other seeds: the walls are not the same, so nothing pairs).
    """
    deals = {(r["deal_index"], r["lineup"]): r["deal"] for r in a_rows}
    for r in b_rows:
        key = (r["deal_index"], r["lineup"])
        if key in deals and deals[key] != r["deal"]:
            raise ValueError(f"the runs played different walls (wall {key[0]}, seating {key[1]})")
    names_a, walls_a = _per_wall(a_rows)
    names_b, walls_b = _per_wall(b_rows)
    common = sorted(walls_a.keys() & walls_b.keys())
    if not common:
        raise ValueError("the runs have no complete wall in common")
    def diff(i: int) -> dict[str, float | int | None]:  # i: 0 = A's wins, 2 = A's points
        return mean_ci([_mean(walls_a[w][i]) - _mean(walls_b[w][i]) for w in common]).as_dict()

    def margin(i: int) -> dict[str, float | int | None]:  # A's margin over the baseline, run a less run b
        return mean_ci([
            _mean(walls_a[w][i]) - _mean(walls_a[w][i + 1]) - _mean(walls_b[w][i]) + _mean(walls_b[w][i + 1])
            for w in common
        ]).as_dict()

    return {"a": names_a[0], "b": names_b[0], "walls": len(common),
            "win_rate_a_minus_b": diff(0), "score_a_minus_b": diff(2),
            "win_rate_margin_a_minus_b": margin(0), "score_margin_a_minus_b": margin(2)}
