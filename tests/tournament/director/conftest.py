"""The ``make_event`` fixture: an event file with a small field, made through the library (as
`paiju tournament new` does)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from director_helpers import MakeEvent, entries

from paiju.tournament.director.formats import EventFormat
from paiju.tournament.director.store import EventStore


@pytest.fixture
def make_event(tmp_path: Path) -> Iterator[MakeEvent]:
    made: list[EventStore] = []

    def make(players: int = 9, clubs: int = 0, name: str = "event.db", **fmt: Any) -> EventStore:
        rows = [e.row() for e in entries(players, clubs)]
        store = EventStore.create(tmp_path / name, "Test event", EventFormat(**fmt), "tester", rows)
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()
