"""Where web games live between requests and across restarts: SQLite (stdlib) + a memory cache.

A game is stored as its creation parameters, seed and move tokens (see
:mod:`paiju.web.sessions`), never as a pickled engine state: the row stays readable after
an engine upgrade, and loading a game replays its moves through the engine, which checks
every one of them. Games belong to the session token that created them; a lookup with
another token finds nothing (the API answers 404, so ids of other sessions' games do not
even leak their existence).

Finished games are also written once as paiju game records (Parquet, ``records/web`` under
the data folder) so the Records page and DuckDB queries see them next to arena runs.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from paiju.core.errors import CorruptRecordError
from paiju.web.sessions import SESSION_KINDS, GameSession

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS games (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT UNIQUE NOT NULL,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    tokens TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    recorded INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS games_session ON games(session);
"""
WEB_RUN_CONFIG = {"source": "paiju serve", "format": "web"}
"""Run configuration of the web games' record directory (fixes its run id)."""


def new_token() -> str:
    """A session token: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


class GameStore:
    """SQLite rows + an LRU cache of live :class:`GameSession` objects; thread-safe."""

    def __init__(self, data_dir: str | Path, cache_size: int = 512) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.data_dir / "web-games.sqlite3"
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA_SQL)
        self._cache: OrderedDict[str, GameSession] = OrderedDict()
        self._cache_size = cache_size

    @property
    def records_dir(self) -> Path:
        return self.data_dir / "records" / "web"

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- games ------------------------------------------------------------------------------
    def create(self, session: str, game: GameSession) -> None:
        now = time.time()
        with self._lock:
            self._db.execute(
                "INSERT INTO games (id, session, kind, params, seed, tokens, over, created, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game.id,
                    session,
                    game.kind,
                    json.dumps(game.params),
                    game.seed,
                    json.dumps(game.tokens),
                    int(game.over),
                    now,
                    now,
                ),
            )
            self._remember(game)

    def save(self, game: GameSession) -> None:
        """Store the game's moves (called after every accepted move)."""
        with self._lock:
            self._db.execute(
                "UPDATE games SET tokens = ?, over = ?, updated = ? WHERE id = ?",
                (json.dumps(game.tokens), int(game.over), time.time(), game.id),
            )
        if game.over:
            self._record(game)

    def get(self, session: str, game_id: str) -> GameSession | None:
        """The game ``game_id`` of ``session``, replayed from storage if not in memory."""
        with self._lock:
            row = self._db.execute(
                "SELECT kind, params, seed, tokens FROM games WHERE id = ? AND session = ?",
                (game_id, session),
            ).fetchone()
            if row is None:
                return None
            cached = self._cache.get(game_id)
            if cached is not None:
                self._cache.move_to_end(game_id)
                return cached
        kind, params, seed, tokens = row
        cls = SESSION_KINDS.get(kind)
        if cls is None:
            raise CorruptRecordError(f"{self.path}: game {game_id} has unknown kind {kind!r}")
        try:
            game = cls.restore(game_id, json.loads(params), int(seed), json.loads(tokens))
        except ValueError as err:
            raise CorruptRecordError(f"{self.path}: game {game_id} does not replay: {err}") from None
        with self._lock:
            self._remember(game)
        return game

    def list(self, session: str, limit: int = 50) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, kind, params, over, created, updated, tokens FROM games WHERE session = ? "
                "ORDER BY seq DESC LIMIT ?",
                (session, limit),
            ).fetchall()
        return [
            {
                "id": r[0],
                "kind": r[1],
                "params": json.loads(r[2]),
                "over": bool(r[3]),
                "created": r[4],
                "updated": r[5],
                "ply": len(json.loads(r[6])),
            }
            for r in rows
        ]

    def _remember(self, game: GameSession) -> None:
        self._cache[game.id] = game
        self._cache.move_to_end(game.id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    # ---- records of finished games ------------------------------------------------------------
    def _record(self, game: GameSession) -> None:
        """Write a finished game once as a Parquet record row (``records/web``)."""
        from paiju.core.records import RecordWriter

        with self._lock:
            row = self._db.execute("SELECT seq, recorded FROM games WHERE id = ?", (game.id,)).fetchone()
            if row is None or row[1]:
                return
            seq = int(row[0])
            with RecordWriter(self.records_dir, WEB_RUN_CONFIG) as writer:
                writer.write_batch([game.record_row(seq, writer.run_id)])
            self._db.execute("UPDATE games SET recorded = 1 WHERE id = ?", (game.id,))
