"""An event in one SQLite file: the schema, transactions and the audit log.

The file is opened in WAL mode, so the CLI and the web app can work on one event at once:
readers never block, and writers take turns (``BEGIN IMMEDIATE`` waits up to
:data:`BUSY_TIMEOUT_MS` for the other writer). Every change goes through
:meth:`EventStore.transaction`, whose writer records each row it inserts, updates or deletes
in the ``audit`` table (who, when, what, the row before and after) inside the same
transaction: a change and its audit row are committed together or not at all, and a process
killed mid-write leaves the file as it was at the last commit (SQLite's journal; ``synchronous
= FULL`` keeps a commit even across a power cut). A new event is built under a temporary name
and moved into place once committed, so a process killed while creating it leaves no event file.

The schema has a version (``PRAGMA user_version`` and the ``meta`` table); a file of a newer
version, or a file that is no event, is refused with a :class:`CorruptRecordError` naming it.
A file of an older version is upgraded when it is opened, in one transaction logged in the
audit log (version 2 added the tables' PINs, ``pins``). The tables for score entry and the
director's adjustments (``results``, ``adjustments``) are part of version 1.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from paiju.core.errors import ConfigError, CorruptRecordError, NotFoundError
from paiju.tournament.director.formats import EventFormat

SCHEMA_VERSION: Final = 2
BUSY_TIMEOUT_MS: Final = 10_000
"""How long a writer waits for another process's write transaction before giving up."""

_PINS_TABLE: Final = """CREATE TABLE pins (
    round INTEGER NOT NULL REFERENCES rounds(number),
    table_no INTEGER NOT NULL CHECK (table_no >= 1),
    pin TEXT NOT NULL,
    PRIMARY KEY (round, table_no)
)"""
"""Version 2: each table's PIN for a released round (score entry at the table)."""

_SCHEMA: Final = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE event (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    format TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    club TEXT NOT NULL DEFAULT '',
    rating REAL,
    entered_round INTEGER NOT NULL CHECK (entered_round >= 1),
    withdrawn_round INTEGER CHECK (withdrawn_round IS NULL OR withdrawn_round >= entered_round)
);
CREATE TABLE rounds (
    number INTEGER PRIMARY KEY CHECK (number >= 1),
    method TEXT NOT NULL,
    pairing_seed INTEGER NOT NULL,
    pairing_report TEXT NOT NULL,
    paired_at TEXT NOT NULL,
    board_seed INTEGER,
    board_selection TEXT,
    boards_at TEXT,
    released_at TEXT
);
CREATE TABLE seats (
    round INTEGER NOT NULL REFERENCES rounds(number),
    table_no INTEGER NOT NULL CHECK (table_no >= 1),
    position INTEGER NOT NULL CHECK (position BETWEEN 0 AND 2),
    player_id INTEGER REFERENCES players(id),
    PRIMARY KEY (round, table_no, position),
    UNIQUE (round, player_id)
);
CREATE TABLE byes (
    round INTEGER NOT NULL REFERENCES rounds(number),
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (round, player_id)
);
CREATE TABLE movement (
    round INTEGER NOT NULL REFERENCES rounds(number),
    table_no INTEGER NOT NULL,
    stage INTEGER NOT NULL CHECK (stage >= 0),
    board INTEGER NOT NULL,
    copy INTEGER NOT NULL CHECK (copy >= 1),
    holders TEXT NOT NULL,
    PRIMARY KEY (round, table_no, stage),
    UNIQUE (round, table_no, board)
);
CREATE TABLE boards (
    number INTEGER PRIMARY KEY CHECK (number >= 1),
    round INTEGER NOT NULL REFERENCES rounds(number),
    record TEXT NOT NULL,
    checksum TEXT NOT NULL,
    source TEXT NOT NULL
);
CREATE TABLE results (
    round INTEGER NOT NULL REFERENCES rounds(number),
    table_no INTEGER NOT NULL,
    board INTEGER NOT NULL REFERENCES boards(number),
    landlord_hand INTEGER NOT NULL CHECK (landlord_hand BETWEEN 0 AND 2),
    bid INTEGER,
    doublings INTEGER NOT NULL DEFAULT 0,
    bombs INTEGER NOT NULL DEFAULT 0,
    spring INTEGER NOT NULL DEFAULT 0,
    anti_spring INTEGER NOT NULL DEFAULT 0,
    landlord_won INTEGER NOT NULL,
    landlord_score REAL NOT NULL,
    entered_by TEXT NOT NULL,
    entered_at TEXT NOT NULL,
    confirmed_by TEXT,
    PRIMARY KEY (round, table_no, board)
);
CREATE TABLE adjustments (
    id INTEGER PRIMARY KEY,
    round INTEGER NOT NULL REFERENCES rounds(number),
    kind TEXT NOT NULL CHECK (kind IN ('fouled', 'adjusted', 'penalty')),
    board INTEGER,
    table_no INTEGER,
    player_id INTEGER REFERENCES players(id),
    points REAL,
    reason TEXT NOT NULL,
    made_by TEXT NOT NULL,
    made_at TEXT NOT NULL
);
CREATE TABLE audit (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    who TEXT NOT NULL,
    action TEXT NOT NULL,
    entity TEXT NOT NULL,
    key TEXT NOT NULL,
    before TEXT,
    after TEXT
);
{_PINS_TABLE};
"""

_KEYS: Final[dict[str, tuple[str, ...]]] = {
    "event": ("id",),
    "players": ("id",),
    "rounds": ("number",),
    "seats": ("round", "table_no", "position"),
    "byes": ("round", "player_id"),
    "movement": ("round", "table_no", "stage"),
    "boards": ("number",),
    "results": ("round", "table_no", "board"),
    "adjustments": ("id",),
    "pins": ("round", "table_no"),
}
"""Each audited table's key columns: what the audit log's ``key`` names."""

_UPGRADES: Final[dict[int, tuple[str, ...]]] = {
    1: (_PINS_TABLE,),
}
"""What turns a file of version v into version v + 1: tables added, never a row changed, so an
upgraded file reads exactly as one created at the new version (the tests compare them)."""


def now() -> str:
    """The current time in UTC, ISO 8601 to the millisecond (what every timestamp stores)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class EventInfo:
    name: str
    format: EventFormat
    created_at: str


@dataclass(frozen=True)
class Player:
    """A registered player. ``entered_round``: the first round the player may be paired in
    (1, or a later round for a late entry); ``withdrawn_round``: the first round the player is
    no longer paired in (None while playing)."""

    id: int
    code: str
    name: str
    club: str
    rating: float | None
    entered_round: int
    withdrawn_round: int | None

    def plays_in(self, round_no: int) -> bool:
        return self.entered_round <= round_no and (
            self.withdrawn_round is None or round_no < self.withdrawn_round
        )


@dataclass(frozen=True)
class RoundInfo:
    number: int
    method: str
    pairing_seed: int
    pairing_report: dict[str, Any]
    paired_at: str
    board_seed: int | None
    board_selection: dict[str, Any] | None
    boards_at: str | None
    released_at: str | None


@dataclass(frozen=True)
class Seat:
    """Who sits at ``position`` (0..2) of a table; ``player_id`` None is a sitter."""

    table_no: int
    position: int
    player_id: int | None


def players_by_table(seats: Iterable[Seat]) -> dict[int, tuple[int | None, ...]]:
    """Table -> the player id at each of its positions in order (None: a sitter), tables in order."""
    tables: dict[int, list[int | None]] = {}
    for seat in sorted(seats, key=lambda s: (s.table_no, s.position)):
        tables.setdefault(seat.table_no, []).append(seat.player_id)
    return {table_no: tuple(players) for table_no, players in tables.items()}


@dataclass(frozen=True)
class Stage:
    """One board at one table: ``holders[h]`` is the table position holding hand h (A, B, C)."""

    table_no: int
    stage: int
    board: int
    copy: int
    holders: tuple[int, int, int]


@dataclass(frozen=True)
class StoredBoard:
    number: int
    round: int
    record: str
    """The board's hand record (:meth:`paiju.tournament.director.boards.Board.record`)."""
    checksum: str
    source: str


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: str
    who: str
    action: str
    entity: str
    key: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


class Writer:
    """The writes of one transaction; each is logged in ``audit`` with the transaction's
    ``who`` and ``action``. Only :meth:`EventStore.transaction` makes one."""

    def __init__(self, conn: sqlite3.Connection, who: str, action: str, at: str) -> None:
        self._conn = conn
        self.who = who
        self.action = action
        self.at = at

    def insert(self, table: str, row: Mapping[str, Any]) -> int:
        """Insert ``row``; the new row's rowid."""
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        cur = self._conn.execute(
            f"INSERT INTO {_table(table)} ({cols}) VALUES ({marks})", tuple(row.values())
        )
        rowid = cur.lastrowid
        assert rowid is not None
        after = self._row(table, "rowid = ?", (rowid,))
        self._audit(table, after, None, after)
        return rowid

    def update(self, table: str, key: Mapping[str, Any], changes: Mapping[str, Any]) -> None:
        """Set ``changes`` on the one row matching ``key``; a missing row is an error."""
        where, args = _where(key)
        before = self._row(table, where, args)
        if before is None:
            raise NotFoundError(f"no {table} row {dict(key)}")
        sets = ", ".join(f"{c} = ?" for c in changes)
        self._conn.execute(f"UPDATE {_table(table)} SET {sets} WHERE {where}", (*changes.values(), *args))
        self._audit(table, before, before, self._row(table, where, args))

    def delete(self, table: str, key: Mapping[str, Any]) -> None:
        where, args = _where(key)
        before = self._row(table, where, args)
        if before is None:
            raise NotFoundError(f"no {table} row {dict(key)}")
        self._conn.execute(f"DELETE FROM {_table(table)} WHERE {where}", args)
        self._audit(table, before, before, None)

    def _row(self, table: str, where: str, args: Sequence[Any]) -> dict[str, Any] | None:
        cur = self._conn.execute(f"SELECT * FROM {_table(table)} WHERE {where}", tuple(args))
        found = cur.fetchone()
        if found is None:
            return None
        return dict(zip([d[0] for d in cur.description], found, strict=True))

    def _audit(
        self,
        table: str,
        row: dict[str, Any] | None,
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
    ) -> None:
        assert row is not None
        key = ",".join(f"{c}={row[c]}" for c in _KEYS[table])
        self._conn.execute(
            "INSERT INTO audit (at, who, action, entity, key, before, after) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.at, self.who, self.action, table, key, _json(before), _json(after)),
        )


def _json(row: dict[str, Any] | None) -> str | None:
    return None if row is None else json.dumps(row, sort_keys=True, ensure_ascii=False)


def _table(name: str) -> str:
    if name not in _KEYS:  # table names are never user input; this guards against a typo
        raise ValueError(f"no audited table {name!r}")
    return name


def _where(key: Mapping[str, Any]) -> tuple[str, tuple[Any, ...]]:
    return " AND ".join(f"{c} = ?" for c in key), tuple(key.values())


class EventStore:
    """One event's database file. Open with :meth:`create` or :meth:`open`; close (or use as a
    context manager) when done. Reads see the last committed state."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn

    # --- opening ---------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        path: str | Path,
        name: str,
        fmt: EventFormat,
        who: str,
        players: Sequence[Mapping[str, Any]] = (),
    ) -> EventStore:
        """A new event file at ``path`` (which must not exist) with its first ``players``
        (rows of ``code``, ``name``, ``club``, ``rating``), all in one transaction."""
        p = Path(path)
        if p.exists():
            raise ConfigError(f"{p} already exists; an event is never created over another file")
        if not name.strip():
            raise ConfigError("the event's name is empty")
        if not who.strip():
            raise ConfigError("who makes the change is empty (the audit log names everyone)")
        # built under a temporary name and moved into place once committed: a process killed
        # while creating leaves no half-made EVENT file (and its leftover is cleared next time)
        building = p.with_name(p.name + ".creating")
        _remove_database(building)
        conn = _connect(building)
        try:
            conn.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} PRAGMA user_version = {SCHEMA_VERSION};")
            writer = Writer(conn, who.strip(), "create the event", now())
            writer.insert(
                "event", {"id": 1, "name": name.strip(), "format": fmt.to_json(), "created_at": writer.at}
            )
            for row in players:
                writer.insert("players", {**row, "entered_round": 1})
            conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            conn.execute("COMMIT")
        except BaseException:
            conn.close()
            _remove_database(building)
            raise
        conn.close()  # the last connection: SQLite checkpoints the WAL into the file
        if p.exists():
            _remove_database(building)
            raise ConfigError(f"{p} appeared while the event was being created; it is left as it is")
        building.replace(p)
        return cls.open(p)

    @classmethod
    def open(cls, path: str | Path) -> EventStore:
        """An existing event file; a file of another schema version or no event is refused
        (and left as it was: nothing is written to a file before it is known to be an event)."""
        p = Path(path)
        if not p.is_file():
            raise NotFoundError(f"event file {p} does not exist")
        with p.open("rb") as f:
            if f.read(len(_SQLITE_HEADER)) != _SQLITE_HEADER:
                raise CorruptRecordError(f"{p} is not a paiju event file (no event in it)")
        conn = _connect(p, setup=False)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "event" not in tables or version == 0:
                raise CorruptRecordError(f"{p} is not a paiju event file (no event in it)")
            if version > SCHEMA_VERSION or (version < SCHEMA_VERSION and version not in _UPGRADES):
                raise CorruptRecordError(
                    f"{p}: event schema version {version}; this paiju reads version {SCHEMA_VERSION}"
                )
            _setup(conn, p)
        except sqlite3.DatabaseError as err:
            conn.close()
            raise CorruptRecordError(f"{p} is not a paiju event file ({err})") from None
        except CorruptRecordError:
            conn.close()
            raise
        if version < SCHEMA_VERSION:
            try:
                _upgrade(conn)
            except sqlite3.DatabaseError as err:  # a read-only copy, another writer too long
                conn.close()
                raise ConfigError(
                    f"{p}: cannot upgrade the event file from schema version {version} ({err})"
                ) from None
        return cls(p, conn)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing ---------------------------------------------------------------------------

    @contextmanager
    def _begin(self) -> Iterator[None]:
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:  # another writer held the file too long
            raise ConfigError(f"{self.path}: cannot start a change ({err}); try again") from None
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    @contextmanager
    def transaction(self, who: str, action: str) -> Iterator[Writer]:
        """All writes of one change: committed together with their audit rows, or none of
        them (an exception inside rolls everything back)."""
        if not who.strip():
            raise ConfigError("who makes the change is empty (the audit log names everyone)")
        with self._begin():
            yield Writer(self._conn, who.strip(), action, now())

    # --- reading ---------------------------------------------------------------------------

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return list(self._conn.execute(sql, tuple(args)).fetchall())

    def event(self) -> EventInfo:
        row = self._rows("SELECT name, format, created_at FROM event WHERE id = 1")[0]
        return EventInfo(row["name"], EventFormat.from_json(row["format"]), row["created_at"])

    def players(self) -> list[Player]:
        return [Player(**dict(r)) for r in self._rows("SELECT * FROM players ORDER BY id")]

    def player_by_code(self, code: str) -> Player:
        rows = self._rows("SELECT * FROM players WHERE code = ?", (code,))
        if not rows:
            raise NotFoundError(f"no player with id {code!r} in {self.path}")
        return Player(**dict(rows[0]))

    def rounds(self) -> list[RoundInfo]:
        return [_round_info(r) for r in self._rows("SELECT * FROM rounds ORDER BY number")]

    def round(self, number: int) -> RoundInfo:
        rows = self._rows("SELECT * FROM rounds WHERE number = ?", (number,))
        if not rows:
            raise NotFoundError(f"round {number} is not paired yet in {self.path}")
        return _round_info(rows[0])

    def seats(self, round_no: int) -> list[Seat]:
        rows = self._rows(
            "SELECT table_no, position, player_id FROM seats WHERE round = ? ORDER BY table_no, position",
            (round_no,),
        )
        return [Seat(**dict(r)) for r in rows]

    def byes(self, round_no: int | None = None) -> list[tuple[int, int]]:
        """(round, player id) of every bye, or of round ``round_no``'s."""
        sql = "SELECT round, player_id FROM byes" + (" WHERE round = ?" if round_no is not None else "")
        rows = self._rows(sql + " ORDER BY round, player_id", () if round_no is None else (round_no,))
        return [(r["round"], r["player_id"]) for r in rows]

    def movement(self, round_no: int) -> list[Stage]:
        rows = self._rows(
            "SELECT table_no, stage, board, copy, holders FROM movement WHERE round = ? "
            "ORDER BY table_no, stage",
            (round_no,),
        )
        return [Stage(r["table_no"], r["stage"], r["board"], r["copy"], _holders(r["holders"])) for r in rows]

    def boards(self, round_no: int) -> list[StoredBoard]:
        rows = self._rows("SELECT * FROM boards WHERE round = ? ORDER BY number", (round_no,))
        return [StoredBoard(**dict(r)) for r in rows]

    def all_boards(self) -> list[StoredBoard]:
        return [StoredBoard(**dict(r)) for r in self._rows("SELECT * FROM boards ORDER BY number")]

    def results(self, round_no: int | None = None) -> list[dict[str, Any]]:
        """Entered table results (rows of ``results``), of one round or all."""
        sql = "SELECT * FROM results" + (" WHERE round = ?" if round_no is not None else "")
        rows = self._rows(sql + " ORDER BY round, board, table_no", () if round_no is None else (round_no,))
        return [dict(r) for r in rows]

    def adjustments(self) -> list[dict[str, Any]]:
        """The director's adjustments (rows of ``adjustments``), in the order made."""
        return [dict(r) for r in self._rows("SELECT * FROM adjustments ORDER BY id")]

    def pins(self, round_no: int) -> dict[int, str]:
        """Table number -> the table's PIN for round ``round_no`` (none before its release)."""
        rows = self._rows("SELECT table_no, pin FROM pins WHERE round = ? ORDER BY table_no", (round_no,))
        return {r["table_no"]: r["pin"] for r in rows}

    def audit_log(self) -> list[AuditEntry]:
        return [
            AuditEntry(
                r["id"],
                r["at"],
                r["who"],
                r["action"],
                r["entity"],
                r["key"],
                None if r["before"] is None else json.loads(r["before"]),
                None if r["after"] is None else json.loads(r["after"]),
            )
            for r in self._rows("SELECT * FROM audit ORDER BY id")
        ]

    def integrity_problems(self) -> list[str]:
        """SQLite's own check of the file: an empty list when it is sound."""
        found = [r[0] for r in self._conn.execute("PRAGMA integrity_check").fetchall()]
        return [] if found == ["ok"] else found


_SQLITE_HEADER: Final = b"SQLite format 3\x00"


def _connect(path: Path, *, setup: bool = True) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are begun explicitly), rows by name."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.row_factory = sqlite3.Row
    if setup:
        _setup(conn, path)
    return conn


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _setup(conn: sqlite3.Connection, path: Path) -> None:
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as err:
        conn.close()
        raise CorruptRecordError(f"{path} is not a paiju event file ({err})") from None


def _upgrade(conn: sqlite3.Connection) -> None:
    """Bring an older event file to :data:`SCHEMA_VERSION`, in one transaction with its audit
    row (two processes opening the same old file at once: the second finds it done)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        start = version
        while version < SCHEMA_VERSION:
            for statement in _UPGRADES[version]:
                conn.execute(statement)
            version += 1
        if version != start:
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
            conn.execute(
                "INSERT INTO audit (at, who, action, entity, key, before, after) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    now(),
                    "paiju",
                    f"upgrade the event file from schema version {start} to {version}",
                    "meta",
                    "key=schema_version",
                    _json({"schema_version": str(start)}),
                    _json({"schema_version": str(version)}),
                ),
            )
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _holders(text: str) -> tuple[int, int, int]:
    a, b, c = (int(ch) for ch in text)
    return a, b, c


def _round_info(r: sqlite3.Row) -> RoundInfo:
    return RoundInfo(
        number=r["number"],
        method=r["method"],
        pairing_seed=r["pairing_seed"],
        pairing_report=json.loads(r["pairing_report"]),
        paired_at=r["paired_at"],
        board_seed=r["board_seed"],
        board_selection=None if r["board_selection"] is None else json.loads(r["board_selection"]),
        boards_at=r["boards_at"],
        released_at=r["released_at"],
    )
