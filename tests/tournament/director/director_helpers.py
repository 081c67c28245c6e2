"""Helpers of the director's tests: a small field of players, and the event fixture's type."""

from __future__ import annotations

from collections.abc import Callable

from paiju.tournament.director.players import Entry
from paiju.tournament.director.store import EventStore

MakeEvent = Callable[..., EventStore]
"""``make_event(players=9, clubs=0, name="event.db", **format_fields)``: a new event file."""


def entries(count: int, clubs: int = 0) -> list[Entry]:
    """Players 01.. named P01.., rated 2000 down by 10, in ``clubs`` clubs round robin (0: none)."""
    return [
        Entry(f"{i:02d}", f"P{i:02d}", f"C{i % clubs}" if clubs else "", 2000.0 - 10 * i)
        for i in range(1, count + 1)
    ]
