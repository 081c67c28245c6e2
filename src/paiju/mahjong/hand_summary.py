"""The paper's per-hand figures of a mahjong arena run of single hands (``mode="hand"``).

Per agent and per *seat-hand* (one agent in one seat for one hand):

* **win rate**: the share of its seat-hands that won the hand;
* **mean score**: its mean points per seat-hand (payments received minus paid);

and the share of hands that ended in an exhaustive draw. Intervals are 95%: Wilson for the
win rate and the draw rate (seat-hands as the trials: the seats of one hand are negatively
correlated, at most one usually wins, so this errs on the wide side), and the normal
interval for the mean score over hands (per hand the agent's seats are averaged first).
The game's arena hook (:meth:`paiju.mahjong.game.MahjongGame.summarize_arena`) adds it to
every arena report of single hands, whichever command ran the arena.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paiju.core.stats import Estimate, mean_ci, proportion_ci


@dataclass(frozen=True)
class AgentResult:
    """One agent's results over a match of single hands."""

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


def summarize_hands(
    rows: Sequence[dict[str, Any]], labels: Sequence[str]
) -> tuple[list[AgentResult], Estimate]:
    """Per-agent win rate and mean score per seat-hand, and the exhaustive-draw rate, from
    arena rows of single hands; ``labels`` are the arena's agent labels, by agent index."""
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


@dataclass(frozen=True)
class HandsSummary:
    """The per-hand figures of an arena run of single hands (see the module docstring)."""

    agents: tuple[AgentResult, ...]
    draw_rate: Estimate
    name: str = "hands"
    """Key of this summary in the arena report's JSON."""
    unit: str = "hands"
    """What one arena game is, for the report's titles."""

    @classmethod
    def of(cls, rows: Sequence[dict[str, Any]], labels: Sequence[str]) -> HandsSummary:
        agents, draw_rate = summarize_hands(rows, labels)
        return cls(tuple(agents), draw_rate)

    def as_dict(self) -> dict[str, Any]:
        return {
            "agents": [a.as_dict() for a in self.agents],
            "exhaustive_draw_rate": self.draw_rate.as_dict(),
        }

    def table(self) -> Any:
        """A Rich table: per agent, seat-hands, win rate and mean score per seat-hand; the
        exhaustive draws in the title."""
        from rich.table import Table

        draws = self.draw_rate.text(".1f", interval=True, percent=True)
        table = Table(title=f"per seat-hand; exhaustive draws {draws}")
        for col in ("agent", "seat-hands", "win rate (95% CI)", "mean score / seat-hand (95% CI)"):
            table.add_column(col, justify="left" if col == "agent" else "right")
        for a in self.agents:
            table.add_row(
                a.agent, str(a.seat_hands), a.win_rate.text(".1f", interval=True, percent=True),
                a.mean_score.text(".1f", interval=True),
            )
        return table

