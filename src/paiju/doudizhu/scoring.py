"""Dou Dizhu scoring rules, pluggable, and rescoring of finished games.

A rule turns the facts of a finished game (:class:`ScoreFacts`: who won, how many bombs and
rockets were played, the bid, spring) into the **landlord's score** ``s`` (positive when the
landlord wins). Per-seat returns are ``s`` for the landlord and ``-s/2`` for each farmer, so
every game is zero-sum and the farmer *team* scores ``-s`` (the paper's convention of quoting
the landlord's score; see ``docs/doudizhu.md``).

* ``competition`` (the paper's rule, the default): ``s = ±max(1, bombs + rockets)``.
* ``casual`` (the common table rule): ``s = ±bid × 2^(bombs + rockets) × (2 if spring)``,
  where spring (春天) is the landlord winning before either farmer played a card, or the
  farmers winning after the landlord's opening play only (反春). Without bidding the bid is 1.

Every :class:`~paiju.doudizhu.game.GameRecord` keeps the plays, so it can be rescored under
any rule with :func:`rescore`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

from paiju.core.errors import ConfigError

MAX_BOMBS: Final = 14
"""At most 13 bombs and the rocket can be played in one game."""


@dataclass(frozen=True)
class ScoreFacts:
    """What a scoring rule may look at in a finished game."""

    landlord_won: bool
    bombs: int
    """Bombs and rockets played (by anyone)."""
    bid: int = 1
    """The winning bid (1 when the game is played without bidding)."""
    spring: bool = False
    """The landlord won and neither farmer played a card (春天)."""
    anti_spring: bool = False
    """The farmers won and the landlord played only its opening move (反春)."""


@runtime_checkable
class ScoringRule(Protocol):
    """A scoring rule: a name, the landlord's score of a finished game, and its bounds."""

    name: str

    def landlord_score(self, facts: ScoreFacts) -> float: ...

    def max_abs_score(self, max_bid: int) -> float:
        """The largest ``|s|`` the rule can give (for ``GameInfo.utility_range``)."""
        ...


class CompetitionScoring:
    """The paper's rule: the landlord scores ±max(1, bombs + rockets played)."""

    name = "competition"

    def landlord_score(self, facts: ScoreFacts) -> float:
        s = float(max(1, facts.bombs))
        return s if facts.landlord_won else -s

    def max_abs_score(self, max_bid: int) -> float:
        return float(MAX_BOMBS)

    def __repr__(self) -> str:
        return "CompetitionScoring()"


class CasualScoring:
    """The table rule: bid × 2^(bombs + rockets), doubled again for a spring or anti-spring."""

    name = "casual"

    def landlord_score(self, facts: ScoreFacts) -> float:
        s = float(facts.bid * 2**facts.bombs)
        if facts.spring or facts.anti_spring:
            s *= 2
        return s if facts.landlord_won else -s

    def max_abs_score(self, max_bid: int) -> float:
        return float(max_bid * 2**MAX_BOMBS * 2)

    def __repr__(self) -> str:
        return "CasualScoring()"


DEFAULT_SCORING: Final = CompetitionScoring.name
"""The scoring rule of a game that names none: the paper's."""

SCORING_RULES: Final[dict[str, ScoringRule]] = {
    "competition": CompetitionScoring(),
    "casual": CasualScoring(),
}
"""Scoring rules by name (the names accepted by ``DouDizhuConfig.scoring``)."""


def get_rule(rule: str | ScoringRule) -> ScoringRule:
    """A rule by name, or the rule itself; :class:`ConfigError` for an unknown name."""
    if isinstance(rule, str):
        try:
            return SCORING_RULES[rule]
        except KeyError:
            raise ConfigError(
                f"unknown Dou Dizhu scoring rule {rule!r}; available: {', '.join(SCORING_RULES)}"
            ) from None
    if not isinstance(rule, ScoringRule):
        raise ConfigError(f"{rule!r} is not a scoring rule (needs name, landlord_score, max_abs_score)")
    return rule


def seat_returns(landlord: int, landlord_score: float) -> list[float]:
    """Per-seat returns: ``s`` for the landlord, ``-s/2`` for each farmer (zero-sum)."""
    out = [-landlord_score / 2.0] * 3
    out[landlord] = float(landlord_score)
    return out


__all__ = [
    "SCORING_RULES",
    "CasualScoring",
    "CompetitionScoring",
    "ScoreFacts",
    "ScoringRule",
    "get_rule",
    "seat_returns",
]
