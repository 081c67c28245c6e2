"""Full matches in the arena: one arena game = one match of rounds (圈), as players count them.

The engine already plays a match: ``MahjongConfig(mode="game", rounds=R)`` deals hand after
hand, keeps the deal with the dealer on his win or a drawn hand (連莊, the 連N拉N tai growing
with N) and passes it on otherwise, and advances the prevailing wind every four passes
(``docs/mahjong-rules.md`` §7). Every hand is settled by the one scorer
(:func:`paiju.mahjong.scoring.payments`), so this module adds no rules: it names the match
lengths (``--match east`` = one 東風 round, ``full`` = one 將, 東南西北) and summarizes
recorded matches per match (wins by the higher total, points, hands per match).

Walls: all chance of arena game ``i`` comes from its deal seed ``derive_seed(S, i // k)``
(:mod:`paiju.core.arena`), and a hand's only chance event is its wall shuffle, so hand ``h``
of a match is dealt the ``h``-th wall drawn from that seed — the same wall in every seating
of ``2v2-all`` (the seatings differ only once their hands differ in number).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paiju.core.errors import ConfigError
from paiju.core.stats import Estimate, mean_ci, proportion_ci

NUM_SEATS = 4
MATCH_LENGTHS = {"east": 1, "east-south": 2, "full": 4}
"""Named match lengths in rounds (圈): 東風 only, 東南 (half a 將), a full 將 東南西北."""


def match_rounds(name: str) -> int:
    """Rounds of the match length ``name``: a name of :data:`MATCH_LENGTHS` or ``1``..``4``."""
    text = str(name).strip().lower()
    if text in MATCH_LENGTHS:
        return MATCH_LENGTHS[text]
    if text in ("1", "2", "3", "4"):
        return int(text)
    raise ConfigError(
        f"--match {name!r}: say {', '.join(MATCH_LENGTHS)} or a number of rounds 1..4"
    )


def match_options(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """The mahjong game options of a match of length ``name`` on top of ``options`` (``-o``):
    ``mode="game"`` and its ``rounds``. The match sets both, so giving either too is an error."""
    rounds = match_rounds(name)
    clash = sorted(k for k in ("mode", "rounds") if k in options)
    if clash:
        raise ConfigError(
            f"--match sets the option(s) {', '.join(clash)}: give --match or --option, not both"
        )
    return {**options, "mode": "game", "rounds": rounds}


@dataclass(frozen=True)
class AgentMatchStats:
    """One agent over whole matches."""

    agent: str
    matches: int
    wins: float
    """Matches won: the agent's seats hold the highest total (a tie shares the win)."""
    win_rate: Estimate
    points: Estimate
    """Points per match (the agent's seats summed), mean with a 95% interval."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent, "matches": self.matches, "wins": self.wins,
            "win_rate": self.win_rate.as_dict(), "points_per_match": self.points.as_dict(),
        }


@dataclass(frozen=True)
class MatchSummary:
    """The per-match figures of an arena run in match mode (``mode="game"``)."""

    rounds: int
    matches: int
    hands: Estimate
    """Hands per match, mean with a 95% interval."""
    fewest_hands: int
    most_hands: int
    cut_short: int
    """Matches stopped by ``max_hands`` before their rounds were played."""
    agents: tuple[AgentMatchStats, ...]
    name: str = "match"
    """Key of this summary in the arena report's JSON."""
    unit: str = "matches"
    """What one arena game is, for the report's titles."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds, "matches": self.matches, "hands_per_match": self.hands.as_dict(),
            "fewest_hands": self.fewest_hands, "most_hands": self.most_hands, "cut_short": self.cut_short,
            "win_rule": "a match is won by the agent whose seats total the most points; a tie shares it",
            "agents": [a.as_dict() for a in self.agents],
        }

    def table(self) -> Any:
        """A Rich table: per agent, match win rate and points per match; hands in the title."""
        from rich.table import Table

        title = (
            f"per match ({self.rounds} 圈): {self.matches} matches, {_fmt(self.hands)} hands per match "
            f"(fewest {self.fewest_hands}, most {self.most_hands}; cut at max_hands: {self.cut_short})"
        )
        table = Table(title=title)
        for col in ("agent", "matches", "match wins", "win rate (95% CI)", "points/match (95% CI)"):
            table.add_column(col, justify="left" if col == "agent" else "right")
        for a in self.agents:
            table.add_row(
                a.agent, str(a.matches), f"{a.wins:g}", _fmt(a.win_rate, pct=True), _fmt(a.points)
            )
        return table


def _fmt(e: Estimate, pct: bool = False) -> str:
    if e.n == 0 or math.isnan(e.value):
        return "—"
    k, digits, unit = (100.0, 1, "%") if pct else (1.0, 2, "")
    if math.isinf(e.low) or math.isnan(e.low):
        return f"{e.value * k:.{digits}f}{unit}"
    return f"{e.value * k:.{digits}f}{unit} [{e.low * k:.{digits}f}, {e.high * k:.{digits}f}]"


def match_hands(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The per-hand entries (dealer, 連莊 count, wind, winners, deltas...) of a recorded match."""
    extra = row.get("extra")
    if isinstance(extra, str):
        extra = json.loads(extra)
    if not isinstance(extra, dict) or "hands" not in extra:
        raise ConfigError(f"arena game {row.get('game_index')} has no per-hand record (not a mahjong match)")
    hands: list[dict[str, Any]] = extra["hands"]
    return hands


def deal_passes(hands: Sequence[dict[str, Any]]) -> int:
    """Times the deal passed on: hands won by someone other than their dealer (連莊 otherwise)."""
    return sum(1 for h in hands if h["winners"] and h["dealer"] not in h["winners"])


def summarize_matches(rows: Sequence[dict[str, Any]], labels: Sequence[str], rounds: int) -> MatchSummary:
    """Per-match figures from arena rows (``seat_agents``, ``returns`` and ``extra``)."""
    counts: list[int] = []
    cut = 0
    wins = [0.0] * len(labels)
    points: list[list[float]] = [[] for _ in labels]
    for row in rows:
        hands = match_hands(row)
        counts.append(len(hands))
        cut += deal_passes(hands) < NUM_SEATS * rounds
        totals = [0.0] * len(labels)
        for seat, agent in enumerate(row["seat_agents"]):
            totals[agent] += row["returns"][seat]
        present = sorted(set(row["seat_agents"]))
        top = max(totals[a] for a in present)
        leaders = [a for a in present if totals[a] == top]
        for a in present:
            points[a].append(totals[a])
            if a in leaders:
                wins[a] += 1.0 / len(leaders)
    agents = tuple(
        AgentMatchStats(labels[a], len(points[a]), wins[a], proportion_ci(wins[a], len(points[a])),
                        mean_ci(points[a]))
        for a in range(len(labels)) if points[a]
    )
    return MatchSummary(
        rounds, len(counts), mean_ci([float(c) for c in counts]), min(counts, default=0),
        max(counts, default=0), cut, agents,
    )
