"""The format of a duplicate Dou Dizhu event: every choice the paper leaves open, typed.

An :class:`EventFormat` is fixed when the event is created and stored with it (as JSON), so
every later command reads the same rules. ``docs/tournament.md`` explains each choice; the
defaults are the ones it argues for. A format is written on the command line as
``KEY=VALUE`` items (``--format boards_per_round=1 --format odd_field=sitter``), which
:meth:`EventFormat.from_items` checks one by one, naming the item at fault.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar, get_args

from paiju.core.errors import ConfigError
from paiju.doudizhu.scoring import SCORING_RULES

TABLE_SIZE: Final = 3
"""Players at a table: the landlord's hand and the two farmers' hands of every board."""
HANDS: Final = ("A", "B", "C")
"""The three hands of a board, as the hand records and slips name them. Hand A takes the
bottom cards in the fixed-landlord format and bids first in the bidding format."""
MAX_BOARDS_PER_ROUND: Final = 12
MAX_ROUNDS: Final = 60
"""Rounds of one event (the national final plays 18)."""

OddField = Literal["bye", "sitter"]
ByeScore = Literal["own-average", "field-average"]
Comparison = Literal["matchpoints", "rank-points"]
FirstRound = Literal["random", "rating"]
Landlord = Literal["fixed", "bidding"]
TieBreak = Literal["opponents", "landlord", "lot"]
CarryOver = Literal["none", "half", "full"]
BoardSelection = Literal["dih", "random"]
"""How a round's boards are chosen: by deal selection (DIH) or at random. The one type for the
director's rounds and the event planner (each keeps its own order of the choices)."""
CARRY_SHARE: Final[dict[CarryOver, float]] = {"none": 0.0, "half": 0.5, "full": 1.0}
"""The share of the qualifying total a finalist takes into the final, by ``carry_over``."""
C = TypeVar("C", bound=str)


def choose(name: str, value: object, choices: Collection[C], *, sep: str = " ") -> C:
    """``value`` as one of ``choices``, or a :class:`ConfigError` naming ``name``, the value and
    the choices (``--method 'x': choose one of random, rating, swiss``; ``sep="="`` writes a
    format item, ``format odd_field='x'``). The one check of a named choice for the director,
    the event planner and their commands."""
    for choice in choices:
        if value == choice:
            return choice
    raise ConfigError(f"{name}{sep}{value!r}: choose one of {', '.join(choices)}")


@dataclass(frozen=True)
class EventFormat:
    """How the event is run. Each field's docstring is the short form of its section in
    ``docs/tournament.md``."""

    rounds: int = 6
    """Rounds planned (the national final: 18). Deal selection aims the boards at this many."""
    boards_per_round: int = 3
    """Boards every table plays in a round. 3 (the default) lets each player hold each hand
    of a round's boards once; 1 is the paper's "one deal per round"."""
    top: int = 3
    """R: the places that should be unique at the end (deal selection ranks deals by DIH at
    R + 1: the R + 1 highest totals pairwise distinct)."""
    odd_field: OddField = "bye"
    """When the field is not a multiple of 3: ``bye`` (1 or 2 players sit out the round) or
    ``sitter`` (the director's substitutes fill the last tables; they are never ranked)."""
    bye_score: ByeScore = "own-average"
    """What a bye scores for each board it misses: the player's own average per board over the
    boards it played (``own-average``), or the field's average per board (``field-average``)."""
    comparison: Comparison = "matchpoints"
    """How a board's result is compared among everyone who held the same hand of it:
    ``matchpoints`` (2 per holder beaten, 1 per tie) or the paper's ``rank-points``
    (R = 2 (n - place + 1) among the n holders, ties sharing the better place)."""
    first_round: FirstRound = "random"
    """Round 1: a seeded random draw, or seeded by rating (strongest players at different tables)."""
    landlord: Landlord = "fixed"
    """``fixed``: hand A is the landlord and takes the bottom cards (no bidding: the paper's
    deals and scores); ``bidding``: hand A bids first, the landlord is whoever wins the bid."""
    scoring: str = "competition"
    """The Dou Dizhu scoring rule of a table result (``paiju.doudizhu.scoring``)."""
    tie_breaks: tuple[TieBreak, ...] = ("opponents", "landlord", "lot")
    """Order of tie-breaks on equal totals: ``opponents`` (sum of the opponents' totals),
    ``landlord`` (points scored holding hand A), ``lot`` (a draw from the event's seed)."""
    final_after: int | None = None
    """A final stage starts after this many rounds (None: one stage)."""
    final_players: int | None = None
    """Players who go on to the final (the top of the qualifying standings)."""
    carry_over: CarryOver = "none"
    """What of the qualifying total a finalist takes into the final: none, half or all."""

    def __post_init__(self) -> None:
        _positive(self.rounds, "rounds", MAX_ROUNDS)
        _positive(self.boards_per_round, "boards_per_round", MAX_BOARDS_PER_ROUND)
        _positive(self.top, "top", 10_000)
        for name in ("odd_field", "bye_score", "comparison", "first_round", "landlord", "carry_over"):
            choose(f"format {name}", getattr(self, name), _CHOICES[name], sep="=")
        choose("format scoring", self.scoring, SCORING_RULES, sep="=")
        if not self.tie_breaks or len(set(self.tie_breaks)) != len(self.tie_breaks):
            raise ConfigError(f"format tie_breaks={','.join(self.tie_breaks)}: name each tie-break once")
        for tb in self.tie_breaks:
            choose("format tie_breaks", tb, get_args(TieBreak), sep="=")
        self._check_stages()

    def _check_stages(self) -> None:
        if (self.final_after is None) != (self.final_players is None):
            raise ConfigError("format: give final_after and final_players together (or neither)")
        if self.final_after is not None and self.final_players is not None:
            if not 1 <= self.final_after < self.rounds:
                raise ConfigError(
                    f"format final_after={self.final_after}: the final must start after round 1.."
                    f"{self.rounds - 1} (rounds={self.rounds})"
                )
            _positive(self.final_players, "final_players", 100_000)
            if self.final_players < TABLE_SIZE:
                raise ConfigError(f"format final_players={self.final_players}: a final needs a table of 3")
        elif self.carry_over != "none":
            raise ConfigError(f"format carry_over={self.carry_over}: there is no final (set final_after)")

    @classmethod
    def from_items(cls, items: list[str] | None) -> EventFormat:
        """A format from ``KEY=VALUE`` items (the defaults for every key not given)."""
        hints = typing.get_type_hints(cls)
        known = {f.name for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for item in items or []:
            key, sep, raw = item.partition("=")
            key = key.strip()
            if not sep or not key:
                raise ConfigError(f"--format {item!r}: write KEY=VALUE, e.g. boards_per_round=1")
            if key not in known:
                raise ConfigError(f"--format {item!r}: no key {key!r}; keys: {', '.join(sorted(known))}")
            if key in values:
                raise ConfigError(f"--format {key} given twice")
            values[key] = _convert(key, raw.strip(), hints[key])
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["tie_breaks"] = list(self.tie_breaks)
        return out

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EventFormat:
        """The format stored with an event (keys this version does not know are an error)."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ConfigError("stored event format is not a JSON object")
        unknown = set(data) - {f.name for f in dataclasses.fields(cls)}
        if unknown:  # written by a newer paiju: refuse rather than run it under other rules
            raise ConfigError(f"stored event format has key(s) this paiju does not know: {sorted(unknown)}")
        if "tie_breaks" in data:
            data["tie_breaks"] = tuple(data["tie_breaks"])
        return cls(**data)

    def in_final(self, round_no: int) -> bool:
        """Whether round ``round_no`` belongs to the final stage (only its finalists play it)."""
        return self.final_after is not None and round_no > self.final_after


_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "odd_field": get_args(OddField),
    "bye_score": get_args(ByeScore),
    "comparison": get_args(Comparison),
    "first_round": get_args(FirstRound),
    "landlord": get_args(Landlord),
    "carry_over": get_args(CarryOver),
}


def _positive(value: object, name: str, most: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise ConfigError(f"format {name}={value!r}: expected a whole number 1..{most}")


def _convert(key: str, raw: str, kind: Any) -> Any:
    """``raw`` as a value of field ``key``'s type (int, optional int, str, a tuple of names)."""
    if typing.get_origin(kind) is tuple:
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    if kind is int or kind == int | None:
        if kind is not int and raw.lower() in ("", "none"):
            return None
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(f"--format {key}={raw!r}: expected a whole number") from None
    return raw
