"""Master points: awarded by final place from a table the organiser's federation sets, and
exported as CSV.

The table is a TOML (or JSON, the same shape) file of *scales*, each for fields of at least
``players`` players, with the points of places 1, 2, ...; the scale of the largest
``players`` not above the field's size applies (a field smaller than every scale earns none)::

    name = "Club master points 2025"   # optional

    [[scale]]
    players = 6
    points = [6, 4, 2]

    [[scale]]
    players = 24
    points = [20, 14, 10, 7, 5, 3]

Places are the standings' ranks after the tie-breaks. Players whose order only the lot
decided (equal totals and every other tie-break equal) share the points of the places they
span equally, as bridge shares tied places: a drawn lot may order a list, but should not
decide who earns more. The field is every player in the standings.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from paiju.core.errors import ConfigError
from paiju.tournament.director.standings import Standing, Standings

MAX_PLACES: Final = 10_000
CSV_COLUMNS: Final = ("rank", "place", "id", "name", "club", "total", "masterpoints")


@dataclass(frozen=True)
class Scale:
    players: int
    """The smallest field this scale is for."""
    points: tuple[float, ...]
    """Points of places 1, 2, ... (later places earn none)."""


@dataclass(frozen=True)
class MasterpointTable:
    name: str
    scales: tuple[Scale, ...]
    """Ordered by ``players``, smallest first."""

    def scale_for(self, field: int) -> Scale | None:
        """The scale of a field of ``field`` players (None: smaller than every scale)."""
        fitting = [s for s in self.scales if s.players <= field]
        return fitting[-1] if fitting else None


def load_table(path: str | Path) -> MasterpointTable:
    """A master-point table from a ``.toml`` or ``.json`` file (the module docstring's shape)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{p}: cannot read it as UTF-8 text ({err})") from None
    try:
        data: Any = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as err:
        kind = "JSON" if p.suffix.lower() == ".json" else "TOML"
        raise ConfigError(f"{p}: not {kind} ({err})") from None
    return parse_table(data, str(p))


def parse_table(data: Any, where: str = "master-point table") -> MasterpointTable:
    """A table from parsed TOML/JSON ``data``; every problem names the scale and the key."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table with 'scale' entries")
    unknown = set(data) - {"name", "scale"}
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}; keys: name, scale")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise ConfigError(f"{where}: 'name' must be text")
    raw = data.get("scale")
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}: no 'scale' entries ([[scale]] with players and points)")
    scales = [_scale(item, f"{where}, scale {i}") for i, item in enumerate(raw, start=1)]
    sizes = [s.players for s in scales]
    if len(set(sizes)) != len(sizes):
        raise ConfigError(f"{where}: two scales for fields of the same size ({sorted(sizes)})")
    return MasterpointTable(name, tuple(sorted(scales, key=lambda s: s.players)))


def _scale(item: Any, where: str) -> Scale:
    if not isinstance(item, dict) or set(item) != {"players", "points"}:
        raise ConfigError(f"{where}: give exactly 'players' (the smallest field) and 'points' (per place)")
    players, points = item["players"], item["points"]
    if isinstance(players, bool) or not isinstance(players, int) or players < 1:
        raise ConfigError(f"{where}, 'players': {players!r}; expected a whole number of at least 1")
    if not isinstance(points, list) or not points or len(points) > MAX_PLACES:
        raise ConfigError(f"{where}, 'points': expected a list of 1..{MAX_PLACES} numbers, place 1 first")
    values: list[float] = []
    for place, value in enumerate(points, start=1):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise ConfigError(f"{where}, 'points', place {place}: {value!r}; expected a number of at least 0")
        values.append(float(value))
    if any(b > a for a, b in itertools.pairwise(values)):
        raise ConfigError(f"{where}, 'points': a lower place earns more than a higher one ({values})")
    return Scale(players, tuple(values))


@dataclass(frozen=True)
class Award:
    standing: Standing
    points: float


def award(standings: Standings, table: MasterpointTable) -> list[Award]:
    """Each ranked player's master points (0 past the scale's places)."""
    rows = standings.rows
    scale = table.scale_for(len(rows))
    by_place = scale.points if scale is not None else ()
    earned = [by_place[i] if i < len(by_place) else 0.0 for i in range(len(rows))]
    # a run of players ordered only by the lot shares the points of the places it spans
    i = 0
    while i < len(rows):
        j = i + 1
        while j < len(rows) and rows[j].decided_by == "lot":
            j += 1
        share = round(sum(earned[i:j]) / (j - i), 2)
        for k in range(i, j):
            earned[k] = share
        i = j
    return [Award(row, points) for row, points in zip(rows, earned, strict=True)]


def awards_csv(awards: list[Award]) -> str:
    """The export: one row per ranked player (``CSV_COLUMNS``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for a in awards:
        s = a.standing
        writer.writerow(
            [s.rank, s.place, s.player.code, s.player.name, s.player.club, f"{s.total:g}", f"{a.points:g}"]
        )
    return out.getvalue()
