"""Mahjong matches through the core arena, summarised the way the paper reports them.

The games are played by :func:`paiju.core.arena.run_games` (seeded deals, seat rotation,
records and resume, worker processes). On top of its WP/ADP report this adds the two
numbers of the paper's tables, per agent and per *seat-hand* (one agent in one seat for
one hand):

* **win rate**: the share of its seat-hands that won the hand;
* **mean score**: its mean points per seat-hand (payments received minus paid).

Formats: ``2v2`` (two agents, seated A B A B then B A B A on every deal: the paper's
set-up; every agent sits in every seat equally often) and ``rotation`` (four specs, each
deal replayed four times with the seats cycled). Intervals are 95%: Wilson for the win rate
and the exhaustive-draw rate (seat-hands as the trials: the seats of one hand are negatively
correlated, at most one usually wins, so this errs on the wide side), and the normal
interval for the mean score over hands (per hand the agent's seats are averaged first).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paiju.core.arena import agent_labels, run_games, summarize
from paiju.core.runner import Progress
from paiju.core.stats import Estimate, mean_ci, proportion_ci


@dataclass(frozen=True)
class AgentResult:
    """One agent's results over a match."""

    agent: str
    seat_hands: int
    win_rate: Estimate
    mean_score: Estimate

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "seat_hands": self.seat_hands,
            "win_rate": self.win_rate.as_dict(),
            "mean_score": self.mean_score.as_dict(),
        }


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


def summarize_hands(
    rows: Sequence[dict[str, Any]], specs: Sequence[str]
) -> tuple[list[AgentResult], Estimate]:
    """Per-agent win rate and mean score per seat-hand from arena rows of single hands."""
    labels = agent_labels(specs)
    wins = dict.fromkeys(range(len(labels)), 0)
    scores: dict[int, list[float]] = {a: [] for a in range(len(labels))}
    seat_hands = dict.fromkeys(range(len(labels)), 0)
    drawn = 0
    for row in rows:
        returns, seat_agents = row["returns"], row["seat_agents"]
        drawn += all(r == 0 for r in returns)
        for a in sorted(set(seat_agents)):
            seats = [s for s, x in enumerate(seat_agents) if x == a]
            wins[a] += sum(returns[s] > 0 for s in seats)
            scores[a].append(sum(returns[s] for s in seats) / len(seats))
            seat_hands[a] += len(seats)
    results = [
        AgentResult(labels[a], seat_hands[a], proportion_ci(wins[a], seat_hands[a]), mean_ci(scores[a]))
        for a in range(len(labels))
        if seat_hands[a]
    ]
    return results, proportion_ci(drawn, len(rows))


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
    agents, draw_rate = summarize_hands(rows, result.setup.specs)
    arena = summarize(rows, result.setup, seed, None if out_dir is None else str(out_dir))
    return MatchReport(fmt, tuple(result.setup.specs), len(rows), seed, tuple(agents), draw_rate, arena)
