"""The event the web app serves (``paiju serve --event EVENT.db``): its file, the director's
token, the guard against guessed PINs, and what the organiser's pages show of it.

**Same file as the CLI, at the same time.** The app never keeps the event open: every
request opens the file (:meth:`ServedEvent.store`), reads or writes through the library
(:mod:`paiju.tournament.director`, each change one short transaction) and closes it. The
file is in WAL mode, so `paiju tournament enter` in a terminal and a table entering its
result on the web both go in (a writer waits up to 10 s for the other's transaction).

**Secrets.** No view here ever holds a board's cards before every table has played it: the
cards are at the tables during a round, and a hall page that showed them would hand each
table the other hands. A board's cards appear only once its round is released and every
table's result on it is in (confirmed, adjusted or fouled); the selection report's deals
never appear. The tables' PINs appear only in the director's view.

**Guessed PINs.** A table's PIN has four digits (10,000 values), so wrong PINs are slowed
down per table (:class:`PinGuard`): after :data:`PinGuard.FREE_TRIES` wrong PINs in a row,
each further wrong one locks the table's entry for twice as long as the last (2 s, 4 s, ...,
at most 5 minutes), during which even the right PIN is refused (429, ``Retry-After``).
Guessing a PIN then takes days, not minutes; a table locked by someone's guessing asks the
director, who enters or corrects its results.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Final

from paiju.tournament.director.adjustments import Adjustment, adjustments
from paiju.tournament.director.boards import Board
from paiju.tournament.director.formats import HANDS
from paiju.tournament.director.movement import copies_needed
from paiju.tournament.director.pins import round_pins
from paiju.tournament.director.results import stored_results
from paiju.tournament.director.seating import RoundTables, round_tables
from paiju.tournament.director.standings import BoardSheet, last_released_round, round_sheets
from paiju.tournament.director.store import EventStore, Player, Stage

FINISHED: Final = frozenset({"confirmed", "adjusted", "fouled"})
"""A table's status on a board (the standings' sheet) once it has finished with it."""
LOG_ENTRIES: Final = 50
"""Changes of the audit log the director's page lists (the newest)."""


@dataclass
class _Tries:
    wrong: int = 0
    locked_until: float = 0.0
    wait_s: float = 0.0


@dataclass
class PinGuard:
    """Wrong PINs per table of a round, and how long its entry is locked (see the module).

    A table's attempts take turns (:meth:`turn`): a burst of guesses sent at once would
    otherwise all pass the lock's check before the first wrong one is counted."""

    FREE_TRIES: ClassVar[int] = 5
    FIRST_WAIT_S: ClassVar[float] = 2.0
    MAX_WAIT_S: ClassVar[float] = 300.0
    clock: Callable[[], float] = time.monotonic
    _tables: dict[tuple[int, int], _Tries] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _turns: weakref.WeakValueDictionary[tuple[int, int], asyncio.Lock] = field(
        default_factory=weakref.WeakValueDictionary
    )

    def turn(self, round_no: int, table_no: int) -> asyncio.Lock:
        """The lock an attempt at the table holds from the lock's check to its count."""
        key = (round_no, table_no)
        turn = self._turns.get(key)
        if turn is None:
            turn = asyncio.Lock()
            self._turns[key] = turn
        return turn

    def wait_s(self, round_no: int, table_no: int) -> float:
        """Seconds until the table may try a PIN again (0: now)."""
        with self._lock:
            tries = self._tables.get((round_no, table_no))
            return 0.0 if tries is None else max(0.0, tries.locked_until - self.clock())

    def wrong(self, round_no: int, table_no: int) -> None:
        """A wrong PIN at the table: past the free tries, lock it for twice the last wait."""
        with self._lock:
            tries = self._tables.setdefault((round_no, table_no), _Tries())
            tries.wrong += 1
            if tries.wrong > self.FREE_TRIES:
                tries.wait_s = min(self.MAX_WAIT_S, tries.wait_s * 2 or self.FIRST_WAIT_S)
                tries.locked_until = self.clock() + tries.wait_s

    def right(self, round_no: int, table_no: int) -> None:
        """The table's PIN was given: its count starts again."""
        with self._lock:
            self._tables.pop((round_no, table_no), None)


@dataclass
class ServedEvent:
    """The event file the app serves, and the director's token for its director's pages."""

    path: Path
    director_token: str
    pins: PinGuard = field(default_factory=PinGuard)

    @classmethod
    def open(cls, path: str | Path, director_token: str | None = None) -> ServedEvent:
        """The event at ``path``, checked once (a file that is no event is refused, naming it);
        without a token, a new random one (the server prints the director's address)."""
        with EventStore.open(path):
            pass
        return cls(Path(path), director_token or secrets.token_urlsafe(18))

    @contextmanager
    def store(self) -> Iterator[EventStore]:
        """The event file, open for one request only (never held between requests)."""
        with EventStore.open(self.path) as store:
            yield store

    def is_director(self, token: str | None) -> bool:
        # compared in constant time, as bytes (compare_digest refuses non-ASCII str)
        return token is not None and hmac.compare_digest(token.encode(), self.director_token.encode())


def _player(p: Player) -> dict[str, Any]:
    return {"id": p.code, "name": p.name, "club": p.club}


def event_view(store: EventStore) -> dict[str, Any]:
    """The event: name, format, players and each round's state (no boards' cards, no PINs)."""
    info = store.event()
    rounds = []
    for r in store.rounds():
        tables = {s.table_no for s in store.seats(r.number)}
        rounds.append(
            {
                "round": r.number,
                "method": r.method,
                "tables": len(tables),
                "boards": [b.number for b in store.boards(r.number)],
                "released": r.released_at is not None,
                "released_at": r.released_at,
            }
        )
    return {
        "name": info.name,
        "created_at": info.created_at,
        "format": info.format.as_dict(),
        "players": [
            {
                **_player(p),
                "rating": p.rating,
                "entered_round": p.entered_round,
                "withdrawn_round": p.withdrawn_round,
            }
            for p in store.players()
        ],
        "rounds": rounds,
        "current_round": last_released_round(store),
    }


def _sheets(store: EventStore, tables: RoundTables) -> list[BoardSheet]:
    """The round's result sheets, from the tables already read (released rounds only)."""
    return round_sheets(store, tables.number, tables=tables) if tables.released else []


def _statuses(store: EventStore, tables: RoundTables) -> dict[int, dict[int, str]]:
    """Board -> table -> its status on the sheet (confirmed, pending, ...; released rounds only)."""
    return {s.board: {t.table_no: t.status for t in s.tables} for s in _sheets(store, tables)}


def _cards(board: Board) -> dict[str, str]:
    return {
        **{name: str(hand) for name, hand in zip(HANDS, board.hands, strict=True)},
        "bottom": str(board.bottom),
    }


def _board_line(tables: RoundTables, number: int, statuses: dict[int, str]) -> dict[str, Any]:
    """One board of the round: its check once chosen, each table's status, and its cards only
    once every table has finished with it (see the module docstring)."""
    board = tables.boards.get(number)
    finished = bool(statuses) and all(s in FINISHED for s in statuses.values())
    return {
        "board": number,
        "check": None if board is None else board.check,
        "tables": {str(t): s for t, s in sorted(statuses.items())},
        "cards": _cards(board) if board is not None and tables.released and finished else None,
    }


def round_view(store: EventStore, round_no: int) -> dict[str, Any]:
    """A round for the hall: its tables (players, seats, each player's hand on each board),
    byes, and its boards (released or not; see :func:`_board_line` for their cards)."""
    tables = round_tables(store, round_no)
    stages = store.movement(round_no)
    numbers = sorted({st.board for st in stages})
    statuses = _statuses(store, tables)
    listed = []
    for table_no, seated in sorted(tables.tables.items()):
        own = _table_stages(stages, table_no)
        listed.append(
            {
                "table": table_no,
                "players": [
                    {
                        "seat": position + 1,
                        **_seated(tables, pid),
                        "hands": [
                            {"board": st.board, "hand": HANDS[st.holders.index(position)]} for st in own
                        ],
                    }
                    for position, pid in enumerate(seated)
                ],
            }
        )
    return {
        "round": round_no,
        "released": tables.released,
        "landlord": tables.format.landlord,
        "tables": listed,
        "byes": [_player(tables.players[p]) for _, p in store.byes(round_no)],
        "copies": copies_needed(len(tables.tables), len(numbers)) if numbers else 0,
        "boards": [_board_line(tables, n, statuses.get(n, {})) for n in numbers],
    }


def table_view(store: EventStore, tables: RoundTables, table_no: int) -> dict[str, Any]:
    """One table of a round, as its entry form shows it: the players, and each board in the
    order the table plays them, who holds which hand, and what is entered. ``tables`` is the
    round's tables as the route read them (once: they hold its seats, boards and movement);
    each board's status and entered result come from one reading of the round's sheets."""
    round_no = tables.number
    tables.check_table(table_no)
    lines = {s.board: t for s in _sheets(store, tables) for t in s.tables if t.table_no == table_no}
    seated = tables.tables[table_no]
    codes = [None if pid is None else tables.players[pid].code for pid in seated]
    stages = _table_stages(tables.stages.values(), table_no)
    boards = []
    for st in stages:
        board = tables.boards.get(st.board)
        line = lines.get(st.board)  # none before the round is released
        status: str = "missing" if tables.released else "not released"
        result = None
        if line is not None:
            status, result = line.status, line.result
        boards.append(
            {
                "board": st.board,
                "stage": st.stage + 1,
                "copy": st.copy,
                "check": None if board is None else board.check,
                "holders": {HANDS[h]: codes[p] for h, p in enumerate(st.holders)},
                "status": status,
                "result": None if result is None else result.as_dict(),
            }
        )
    return {
        "round": round_no,
        "table": table_no,
        "released": tables.released,
        "landlord": tables.format.landlord,
        "scoring": tables.format.scoring,
        "players": [
            {
                "seat": i + 1,
                **_seated(tables, pid),
            }
            for i, pid in enumerate(seated)
        ],
        "boards": boards,
    }


def _seated(tables: RoundTables, pid: int | None) -> dict[str, Any]:
    """A seat's player, or the sitter filling an odd field."""
    return _player(tables.players[pid]) if pid is not None else {"id": None, "name": "sitter"}


def _table_stages(stages: Iterable[Stage], table_no: int) -> list[Stage]:
    """A table's stages of the movement, in the order it plays them."""
    return sorted((st for st in stages if st.table_no == table_no), key=lambda st: st.stage)


def adjustment_views(store: EventStore, round_no: int | None = None) -> list[dict[str, Any]]:
    """The adjustments (of one round, or all), as the director's pages show them."""
    players = {p.id: p for p in store.players()}
    chosen = (a for a in adjustments(store) if round_no is None or a.round == round_no)
    return [adjustment_view(a, players) for a in chosen]


def adjustment_view(a: Adjustment, players: dict[int, Player]) -> dict[str, Any]:
    return {
        "id": a.id,
        "round": a.round,
        "kind": a.kind,
        "board": a.board,
        "table": a.table_no,
        "player": None if a.player_id is None else players[a.player_id].code,
        "points": a.points,
        "description": a.description,
        "reason": a.reason,
        "made_by": a.made_by,
        "made_at": a.made_at,
    }


def director_round_view(store: EventStore, round_no: int, who: str) -> dict[str, Any]:
    """What the director sees of a round besides the hall's view: the tables' PINs (issuing
    any a round released before PINs existed lacks), every result, the adjustments, how it was
    paired and how its boards were chosen (without the deals' cards)."""
    info = store.round(round_no)
    report = info.pairing_report
    selection = info.board_selection
    return {
        "round": round_no,
        "released_at": info.released_at,
        "boards_at": info.boards_at,
        "pins": {str(t): pin for t, pin in round_pins(store, round_no, who).items()}
        if info.released_at is not None
        else {},
        "results": [r.as_dict() for r in stored_results(store, round_no)],
        "adjustments": adjustment_views(store, round_no),
        "pairing": {
            "method": report.get("method"),
            "seed": info.pairing_seed,
            "cost": report.get("cost"),
            "optimal": report.get("optimal"),
        },
        "selection": None
        if selection is None
        else {
            **{k: v for k, v in selection.items() if k != "deals"},
            "deals": [{k: v for k, v in d.items() if k != "deal"} for d in selection.get("deals", [])],
        },
    }


def log_view(store: EventStore, limit: int = LOG_ENTRIES) -> list[dict[str, Any]]:
    """The newest changes of the audit log, newest first: when, who, what, and how many rows it
    wrote (a change is one transaction: its rows share the time, who and what). The rows
    themselves stay in the file: a board's row holds its cards."""
    changes: list[dict[str, Any]] = []
    for e in reversed(store.audit_log()):
        last = changes[-1] if changes else None
        if last is not None and (last["at"], last["who"], last["action"]) == (e.at, e.who, e.action):
            last["rows"] += 1
        elif len(changes) < limit:
            changes.append({"at": e.at, "who": e.who, "action": e.action, "rows": 1})
        else:
            break
    return changes
