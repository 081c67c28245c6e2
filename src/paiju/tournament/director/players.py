"""The field: players read from a CSV file, late entries and withdrawals.

The CSV has a header row naming its columns: ``name`` and ``id`` are required, ``club`` and
``rating`` optional (an empty club is no club; an empty rating is unrated). Every problem is
a :class:`~paiju.core.errors.ConfigError` naming the file, the row (as a spreadsheet numbers
it: the header is row 1) and the column, e.g. ``players.csv, row 4, column 'rating': 'abc' is
not a number``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from paiju.core.errors import ConfigError
from paiju.tournament.director import csvfile
from paiju.tournament.director.store import EventStore, Player

REQUIRED: Final = ("name", "id")
OPTIONAL: Final = ("club", "rating")
MAX_PLAYERS: Final = 10_000


@dataclass(frozen=True)
class Entry:
    """One player as entered: ``code`` is the organiser's id (unique in the event)."""

    code: str
    name: str
    club: str = ""
    rating: float | None = None

    def row(self) -> dict[str, Any]:
        """The ``players`` table's columns for this entry."""
        return {"code": self.code, "name": self.name, "club": self.club, "rating": self.rating}


def read_players_csv(path: str | Path) -> list[Entry]:
    """The entries of a players CSV file (see the module docstring for its columns)."""
    return parse_players_csv(csvfile.read_text(path), str(path))


def parse_players_csv(text: str, where: str = "players") -> list[Entry]:
    """The entries of CSV ``text``; ``where`` names the source in errors."""
    rows = csvfile.parse_rows(text, where, "name,id[,club][,rating]")
    columns = csvfile.header_columns(rows[0], where, REQUIRED, OPTIONAL)
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for number, cells in enumerate(rows[1:], start=2):
        if csvfile.is_blank(cells):
            continue
        entry = _entry(cells, columns, f"{where}, row {number}")
        if entry.code in seen:
            raise ConfigError(
                f"{where}, row {number}, column 'id': {entry.code!r} is already the id of "
                f"row {seen[entry.code]}"
            )
        seen[entry.code] = number
        entries.append(entry)
    if not entries:
        raise ConfigError(f"{where}: no players below the header")
    if len(entries) > MAX_PLAYERS:
        raise ConfigError(f"{where}: {len(entries)} players; at most {MAX_PLAYERS}")
    return entries


def parse_entry(text: str) -> Entry:
    """One late entry written as a CSV row ``name,id[,club[,rating]]`` (the columns in that order)."""
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) != 1:
        raise ConfigError(f"entry {text!r}: write one row: name,id[,club[,rating]]")
    columns = {name: i for i, name in enumerate((*REQUIRED, *OPTIONAL))}
    if len(rows[0]) > len(columns):
        raise ConfigError(f"entry {text!r}: {len(rows[0])} cells; at most name,id,club,rating")
    return _entry(rows[0], columns, f"entry {text!r}")


def _entry(cells: Sequence[str], columns: dict[str, int], where: str) -> Entry:
    def cell(name: str) -> str:
        return csvfile.cell(cells, columns, name, where)

    csvfile.check_width(cells, columns, where)
    name, code = cell("name"), cell("id")
    if not name:
        raise ConfigError(f"{where}, column 'name': empty")
    if not code:
        raise ConfigError(f"{where}, column 'id': empty")
    return Entry(code=code, name=name, club=cell("club"), rating=_rating(cell("rating"), where))


def _rating(text: str, where: str) -> float | None:
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{where}, column 'rating': {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ConfigError(f"{where}, column 'rating': {text!r} is not a finite number")
    return value


def next_unpaired_round(store: EventStore) -> int:
    """The first round that has no pairing yet: where a change to the field takes effect."""
    rounds = store.rounds()
    return rounds[-1].number + 1 if rounds else 1


def add_late_entry(store: EventStore, entry: Entry, who: str) -> Player:
    """Enter ``entry`` from the next unpaired round on (an id already in the event is refused)."""
    if entry.code in {p.code for p in store.players()}:
        raise ConfigError(f"entry {entry.code!r}: a player with this id is already entered")
    first = next_unpaired_round(store)
    with store.transaction(who, f"late entry from round {first}") as tx:
        tx.insert("players", {**entry.row(), "entered_round": first})
    return store.player_by_code(entry.code)


def withdraw(store: EventStore, code: str, who: str) -> Player:
    """Take player ``code`` out of every round from the next unpaired one on."""
    player = store.player_by_code(code)
    if player.withdrawn_round is not None:
        raise ConfigError(f"player {code!r} already withdrew before round {player.withdrawn_round}")
    first = max(next_unpaired_round(store), player.entered_round)
    with store.transaction(who, f"withdraw from round {first}") as tx:
        tx.update("players", {"id": player.id}, {"withdrawn_round": first})
    return store.player_by_code(code)
