"""Game records: one row per finished game, stored as Parquet, queried with DuckDB.

Why this shape: arena matches, self-play and imported human logs all end up as the same
table, so the deal-selection work (score distributions per deal), the ladder and the
supervised trainers read one format. The schema is documented in ``docs/records.md``.

* :class:`RecordWriter` owns a directory: ``run.json`` (the run's configuration and id) and
  ``games-*.parquet`` files, each written whole to a temporary file and renamed, so a batch is
  either fully there or absent. A run interrupted at any point and restarted with the same
  arguments skips the game indices already on disk (game ``i`` always has the same seed), so
  nothing is lost or duplicated.
* Game-specific columns (deal notation, landlord/dealer seat, headline score, scoring rule,
  extra JSON) come from ``game.record_fields(state, history)`` when the game defines it, else
  from an adapter registered here with :func:`register_record_adapter`, else generic defaults.
* :func:`connect` opens a directory (or several) as a DuckDB view ``games``; bad files raise
  :class:`CorruptRecordError` naming the file and the problem.
* :func:`import_jsonl` brings users' own game logs in (one JSON object per line).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import Action, Game, State

if TYPE_CHECKING:  # duckdb is imported when a query is made, not by every arena worker
    import duckdb

SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("game_index", pa.int64(), nullable=False),
        pa.field("deal_index", pa.int64(), nullable=False),
        pa.field("lineup", pa.int16(), nullable=False),
        pa.field("game", pa.string(), nullable=False),
        pa.field("rules_version", pa.string()),
        pa.field("arena_format", pa.string()),
        pa.field("seed", pa.int64()),
        pa.field("deal", pa.string()),
        pa.field("dealer_seat", pa.int8()),
        pa.field("agents", pa.list_(pa.string())),
        pa.field("seat_agents", pa.list_(pa.int16())),
        pa.field("roles", pa.list_(pa.string())),
        pa.field("moves", pa.list_(pa.string())),
        pa.field("move_players", pa.list_(pa.int8())),
        pa.field("move_ms", pa.list_(pa.float32())),
        pa.field("returns", pa.list_(pa.float64()), nullable=False),
        pa.field("score", pa.float64()),
        pa.field("scoring_rule", pa.string()),
        pa.field("paiju_version", pa.string()),
        pa.field("extra", pa.string()),
    ]
)
"""One row per game; ``docs/records.md`` says what every column means."""

REQUIRED_JSONL = ("game", "returns")
RUN_FILE = "run.json"
_TMP_PREFIX = ".tmp-"


# ---- per-game record fields ------------------------------------------------------------------
@dataclass(frozen=True)
class RecordFields:
    """The game-specific part of a row."""

    deal: str | None = None
    dealer_seat: int | None = None
    score: float | None = None
    scoring_rule: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    roles: list[str] | None = None
    """Per-seat roles when they depend on the game (a bid landlord); default: the registry's."""


RecordAdapter = Callable[[State, Sequence[Action]], RecordFields]
_ADAPTERS: dict[str, RecordAdapter] = {}


def register_record_adapter(game_name: str, adapter: RecordAdapter) -> None:
    """Use ``adapter(final_state, history)`` for games named ``game_name``."""
    _ADAPTERS[game_name] = adapter


def _generic_fields(state: State, history: Sequence[Action]) -> RecordFields:
    """Fallback: nothing game-specific (the arena then writes the opening chance outcomes as
    the deal and the returns are the score of record)."""
    return RecordFields(scoring_rule="returns")


def record_fields(game: Game, state: State, history: Sequence[Action]) -> RecordFields:
    """The game-specific columns of a finished game (method, then adapter, then generic)."""
    method = getattr(game, "record_fields", None)
    fields: RecordFields | dict[str, Any]  # a game's own method may return either
    if method is not None:
        fields = method(state, history)
    else:
        fields = _ADAPTERS.get(game.info.name, _generic_fields)(state, history)
    if isinstance(fields, dict):
        unknown = set(fields) - {"deal", "dealer_seat", "score", "scoring_rule", "extra", "roles"}
        if unknown:
            raise TypeError(f"{game.info.name}.record_fields returned unknown keys {sorted(unknown)}")
        fields = RecordFields(**fields)
    return fields


def _doudizhu_fields(state: Any, history: Sequence[Action]) -> RecordFields:
    """Dou Dizhu (``paiju.doudizhu``): deal notation (landlord first), the landlord's seat and
    score under the game's scoring rule, roles from the actual landlord (bidding moves it), and
    in ``extra`` the engine's replayable ``GameRecord`` plus the scoring facts, so a game can
    be replayed (``GameRecord.from_dict(extra["record"]).replay()``) or rescored under another
    rule (``facts``: bombs, spring, bid...)."""
    record = state.record()
    facts = record.facts()
    landlord = int(state.landlord)
    return RecordFields(
        deal=str(state.deal),
        dealer_seat=landlord,
        score=float(state.game.rule.landlord_score(facts)),
        scoring_rule=str(state.game.rule.name),
        roles=["landlord" if seat == landlord else "farmer" for seat in range(3)],
        extra={"record": record.to_dict(), "facts": dataclasses.asdict(facts)},
    )


register_record_adapter("doudizhu", _doudizhu_fields)


# ---- the writer ------------------------------------------------------------------------------
def run_id_of(config: dict[str, Any]) -> str:
    """A stable id of a run configuration (its canonical JSON, hashed)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class RecordWriter:
    """Appends batches of game rows to ``out_dir`` atomically; knows which games are done.

    ``run_config`` identifies the run (game, agents, format, seed, options — *not* the number
    of games, so a finished run can be extended). A directory belongs to one run: opening it
    with a different configuration is a :class:`ConfigError`, so resumed games can never be
    mixed with another run's. One writer per directory at a time (a lock file enforces it).
    """

    def __init__(self, out_dir: str | os.PathLike[str], run_config: dict[str, Any]) -> None:
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.run_config = json.loads(json.dumps(run_config, sort_keys=True, default=str))
        self.run_id = run_id_of(self.run_config)
        self._lock = _DirectoryLock(self.out_dir)
        try:
            self._open_run()
        except BaseException:
            self._lock.release()  # a refused directory must not stay locked by this process
            raise

    def _open_run(self) -> None:
        run_file = self.out_dir / RUN_FILE
        if run_file.exists():
            try:
                existing = json.loads(run_file.read_text())
            except (json.JSONDecodeError, UnicodeDecodeError) as err:
                raise CorruptRecordError(f"{run_file}: not valid JSON ({err})") from None
            if existing.get("run_id") != self.run_id:
                raise ConfigError(
                    f"{self.out_dir} holds run {existing.get('run_id')} with configuration "
                    f"{json.dumps(existing.get('config'), sort_keys=True)}; this run is "
                    f"{json.dumps(self.run_config, sort_keys=True)} — resume with the same arguments "
                    f"or record to another directory"
                )
        else:
            header = {"run_id": self.run_id, "config": self.run_config}
            atomic_write_text(run_file, json.dumps(header, indent=2))
        for stale in self.out_dir.glob(_TMP_PREFIX + "*"):  # a batch cut off mid-write
            stale.unlink()

    def done_indices(self) -> set[int]:
        """Game indices of this run already on disk (validating every file on the way)."""
        done: set[int] = set()
        for path in record_files(self.out_dir):
            table = _read_validated(path, columns=["run_id", "game_index"])
            run_ids, indices = table["run_id"].to_pylist(), table["game_index"].to_pylist()
            for run_id, index in zip(run_ids, indices, strict=True):
                if run_id != self.run_id:
                    raise CorruptRecordError(f"{path}: holds games of run {run_id}, not {self.run_id}")
                if index in done:
                    raise CorruptRecordError(
                        f"{path}: game index {index} is recorded twice in {self.out_dir}"
                    )
                done.add(index)
        return done

    def write_batch(self, rows: Sequence[dict[str, Any]]) -> Path | None:
        """Write rows as one Parquet file, atomically (temp file, fsync, rename)."""
        if not rows:
            return None
        for row in rows:
            if row.get("run_id") != self.run_id:
                raise ValueError(f"row of game {row.get('game_index')} has run_id {row.get('run_id')!r}")
        table = rows_to_table(rows)
        indices = table["game_index"].to_pylist()
        final = self.out_dir / f"games-{min(indices):09d}-{max(indices):09d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = self.out_dir / f"{_TMP_PREFIX}{uuid.uuid4().hex}.parquet"
        with open(tmp, "wb") as fh:
            pq.write_table(table, fh, compression="zstd")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
        return final

    def close(self) -> None:
        self._lock.release()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _DirectoryLock:
    """An advisory ``flock`` on ``out_dir/.lock``: a second live writer is refused."""

    def __init__(self, out_dir: Path) -> None:
        self._fh: Any = None
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock, documented
            return
        fh = open(out_dir / ".lock", "a")  # noqa: SIM115 - held open for the writer's lifetime
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            raise ConfigError(f"{out_dir} is being written by another running process") from None
        self._fh = fh

    def release(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __del__(self) -> None:
        self.release()


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file beside it, flushed to disk,
    and one rename: a reader sees the old file or the new one, never half of it."""
    tmp = path.with_name(f"{_TMP_PREFIX}{uuid.uuid4().hex}")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


# ---- reading -----------------------------------------------------------------------------------
def rows_to_table(rows: Sequence[dict[str, Any]]) -> pa.Table:
    """Rows (dicts with the schema's keys) -> an Arrow table with exactly :data:`SCHEMA`."""
    missing = [f.name for f in SCHEMA if not f.nullable and any(row.get(f.name) is None for row in rows)]
    if missing:
        raise ValueError(f"game rows lack required columns {missing}")
    return pa.Table.from_pydict({f.name: [row.get(f.name) for row in rows] for f in SCHEMA}, schema=SCHEMA)


def record_files(path: str | os.PathLike[str]) -> list[Path]:
    """The record files of a directory (sorted), or the file itself."""
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.is_dir():
        raise CorruptRecordError(f"{p}: no such record file or directory")
    return sorted(q for q in p.glob("*.parquet") if not q.name.startswith(_TMP_PREFIX))


def check_schema(path: Path, schema: pa.Schema) -> None:
    """Raise :class:`CorruptRecordError` naming what differs from :data:`SCHEMA`."""
    have = {f.name: f.type for f in schema}
    want = {f.name: f.type for f in SCHEMA}
    missing = [n for n in want if n not in have]
    extra = [n for n in have if n not in want]
    wrong = [f"{n} is {have[n]}, expected {want[n]}" for n in want if n in have and have[n] != want[n]]
    problems = []
    if missing:
        problems.append(f"missing columns {missing}")
    if extra:
        problems.append(f"unexpected columns {extra}")
    if wrong:
        problems.append("; ".join(wrong))
    if problems:
        raise CorruptRecordError(f"{path}: not a paiju game-record file: {'; '.join(problems)}")


def _open_checked(path: Path) -> pq.ParquetFile:
    try:
        handle = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as err:
        raise CorruptRecordError(f"{path}: not a readable Parquet file ({err})") from None
    check_schema(path, handle.schema_arrow)
    return handle


def validate_file(path: str | os.PathLike[str]) -> None:
    """Check a record file's footer and schema (cheap; catches truncation and wrong files)."""
    _open_checked(Path(path)).close()


def _read_validated(path: Path, columns: list[str] | None = None) -> pa.Table:
    with _open_checked(path) as handle:
        try:
            return handle.read(columns=columns)
        except (pa.ArrowException, OSError) as err:
            raise CorruptRecordError(f"{path}: unreadable data ({err})") from None


def read_records(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], columns: Sequence[str] | None = None
) -> pa.Table:
    """Every game row under ``paths`` (directories or files), validated; ``columns`` to read
    only some (a large run's move lists are the bulk of the data)."""
    if columns is not None:
        unknown = [c for c in columns if c not in SCHEMA.names]
        if unknown:
            raise ConfigError(f"unknown record columns {unknown}; the columns are {SCHEMA.names}")
    files = _files_of(paths)
    tables = [_read_validated(p, None if columns is None else list(columns)) for p in files]
    if tables:
        return pa.concat_tables(tables)
    empty = SCHEMA.empty_table()
    return empty if columns is None else empty.select(list(columns))


def _files_of(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[Path]:
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    return [f for p in paths for f in record_files(p)]


def connect(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    con: duckdb.DuckDBPyConnection | None = None,
) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with a view ``games`` over the record files (schemas checked).

    Example: ``connect("runs/a").sql("SELECT deal, avg(score) FROM games GROUP BY deal")``.
    """
    import duckdb

    con = con if con is not None else duckdb.connect()
    files = _files_of(paths)
    for f in files:
        validate_file(f)
    if not files:
        con.register("games", SCHEMA.empty_table())
        return con
    listing = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
    con.sql(f"CREATE OR REPLACE VIEW games AS SELECT * FROM read_parquet([{listing}])")
    return con


def score_distribution(
    source: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | duckdb.DuckDBPyConnection,
    min_plays: int = 50,
    game: str | None = "doudizhu",
) -> pa.Table:
    """Per deal, the distribution of the headline score (Dou Dizhu: the landlord's score).

    Columns ``deal, score, probability, plays``; only deals played at least ``min_plays``
    times (the deal-selection paper keeps deals played more than 50 times), sorted by deal
    then score. Games without a score are left out.
    """
    import duckdb

    if min_plays < 1:
        raise ConfigError(f"min_plays must be at least 1, got {min_plays}")
    con = source if isinstance(source, duckdb.DuckDBPyConnection) else connect(source)
    where = "score IS NOT NULL AND deal IS NOT NULL" + (" AND game = $game" if game is not None else "")
    params: dict[str, Any] = {"min_plays": min_plays}
    if game is not None:
        params["game"] = game
    query = f"""
        WITH scored AS (SELECT deal, score FROM games WHERE {where}),
             per_deal AS (SELECT deal, count(*) AS plays FROM scored
                          GROUP BY deal HAVING count(*) >= $min_plays)
        SELECT s.deal, s.score, count(*)::DOUBLE / p.plays AS probability, p.plays
        FROM scored s JOIN per_deal p USING (deal)
        GROUP BY s.deal, s.score, p.plays
        ORDER BY s.deal, s.score
    """
    return con.sql(query, params=params).to_arrow_table()


# ---- import ------------------------------------------------------------------------------------
_JSONL_TYPES: dict[str, tuple[type, ...]] = {
    "game": (str,),
    "deal": (str,),
    "dealer_seat": (int,),
    "score": (int, float),
    "scoring_rule": (str,),
    "rules_version": (str,),
    "seed": (int,),
    "game_index": (int,),
    "deal_index": (int,),
}
_INT_RANGES: dict[str, tuple[int, int]] = {
    "seed": (-(2**63), 2**63 - 1),
    "game_index": (0, 2**63 - 1),
    "deal_index": (0, 2**63 - 1),
}
"""What the schema's integer columns hold (int64; the indices count from 0)."""
MAX_SEATS = 127
"""Seats a record may have: seats are int8 columns (``dealer_seat``, ``move_players``)."""
_JSONL_LISTS: dict[str, tuple[type, ...]] = {
    "returns": (int, float),
    "moves": (str,),
    "move_players": (int,),
    "agents": (str,),
    "roles": (str,),
}


def _jsonl_row(path: Path, lineno: int, text: str, run_id: str) -> dict[str, Any]:
    where = f"{path}:{lineno}"
    obj = _jsonl_object(where, text)
    _check_jsonl_field_types(where, obj)
    _check_jsonl_seats(where, obj)
    _check_jsonl_values(where, obj)
    returns = obj["returns"]
    extra = obj.get("extra")
    if extra is not None and not isinstance(extra, dict):
        raise CorruptRecordError(f"{where}: field 'extra' must be a JSON object")
    # null is "not given", as for every optional field
    index = lineno - 1 if obj.get("game_index") is None else obj["game_index"]
    return {
        **{k: obj.get(k) for k in (*_JSONL_TYPES, *_JSONL_LISTS)},
        "run_id": run_id,
        "game_index": index,
        "deal_index": index if obj.get("deal_index") is None else obj["deal_index"],
        "lineup": 0,
        "returns": [float(r) for r in returns],
        "score": None if obj.get("score") is None else float(obj["score"]),
        "extra": None if extra is None else json.dumps(extra, sort_keys=True),
    }


def _jsonl_object(where: str, text: str) -> dict[str, Any]:
    """One line parsed: a JSON object (``where`` is ``file:line`` for the error)."""
    try:
        obj = json.loads(text, parse_constant=_not_json)
    except json.JSONDecodeError as err:
        raise CorruptRecordError(f"{where}: not valid JSON ({err.msg} at column {err.colno})") from None
    except RecursionError:
        raise CorruptRecordError(f"{where}: not valid JSON (nested too deeply)") from None
    if not isinstance(obj, dict):
        raise CorruptRecordError(f"{where}: a record must be a JSON object, got {type(obj).__name__}")
    return obj


def _not_json(name: str) -> None:
    """Python's reader takes NaN and Infinity, which JSON does not have (and no column holds)."""
    raise json.JSONDecodeError(f"{name} is not a JSON number", name, 0)


def _check_jsonl_values(where: str, obj: dict[str, Any]) -> None:
    """Values the schema can hold: ints in their column's range, finite numbers, seat numbers
    of an int8, strings that are UTF-8 (no lone surrogates), an ``extra`` that is strict JSON."""
    for key, (lo, hi) in _INT_RANGES.items():
        value = obj.get(key)
        if value is not None and not lo <= value <= hi:
            raise CorruptRecordError(f"{where}: field {key!r} must be in {lo}..{hi}, got {value}")
    for key in ("returns", "score"):
        value = obj.get(key)
        for x in value if isinstance(value, list) else [] if value is None else [value]:
            try:
                finite = math.isfinite(float(x))
            except OverflowError:
                finite = False
            if not finite:
                raise CorruptRecordError(f"{where}: field {key!r} must hold finite numbers, got {x!r:.40}")
    try:
        for key in (*_JSONL_TYPES, *_JSONL_LISTS, "extra"):
            if obj.get(key) is not None:
                json.dumps(obj[key], ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        raise CorruptRecordError(f"{where}: field {key!r} holds a lone surrogate (not UTF-8)") from None
    except ValueError:
        raise CorruptRecordError(f"{where}: field {key!r} holds NaN or Infinity, which is not JSON") from None


def _check_jsonl_field_types(where: str, obj: dict[str, Any]) -> None:
    """Only known fields, the required ones present, each of its type (bools are not numbers)."""
    allowed = set(_JSONL_TYPES) | set(_JSONL_LISTS) | {"extra"}
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise CorruptRecordError(f"{where}: unknown fields {unknown} (allowed: {sorted(allowed)})")
    for key in REQUIRED_JSONL:
        if obj.get(key) is None:
            raise CorruptRecordError(f"{where}: missing required field {key!r}")
    for key, kinds in _JSONL_TYPES.items():
        value = obj.get(key)
        if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
            raise CorruptRecordError(f"{where}: field {key!r} must be {kinds[0].__name__}, got {value!r}")
    for key, kinds in _JSONL_LISTS.items():
        value = obj.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or any(not isinstance(v, kinds) or isinstance(v, bool) for v in value):
            raise CorruptRecordError(f"{where}: field {key!r} must be a list of {kinds[0].__name__}")


def _check_jsonl_seats(where: str, obj: dict[str, Any]) -> None:
    """The per-seat fields agree with the seat count ``len(returns)``, and each move has a player."""
    returns = obj["returns"]
    if not returns:  # finite numbers: _check_jsonl_values
        raise CorruptRecordError(f"{where}: 'returns' must be a non-empty list of numbers")
    if len(returns) > MAX_SEATS:
        raise CorruptRecordError(f"{where}: 'returns' has {len(returns)} seats; at most {MAX_SEATS}")
    if obj.get("dealer_seat") is not None and not 0 <= obj["dealer_seat"] < len(returns):
        raise CorruptRecordError(f"{where}: dealer_seat {obj['dealer_seat']} is not a seat of {len(returns)}")
    for key in ("agents", "roles"):
        if obj.get(key) is not None and len(obj[key]) != len(returns):
            raise CorruptRecordError(f"{where}: {key!r} has {len(obj[key])} entries for {len(returns)} seats")
    players = obj.get("move_players")
    if players is not None and len(players) != len(obj.get("moves") or []):
        raise CorruptRecordError(f"{where}: 'move_players' and 'moves' differ in length")
    bad = next((p for p in players or [] if not -1 <= p < len(returns)), None)
    if bad is not None:
        raise CorruptRecordError(
            f"{where}: move player {bad} is not a seat of {len(returns)} (nor -1, a chance event)"
        )


def import_jsonl(
    path: str | os.PathLike[str], out_dir: str | os.PathLike[str], batch_size: int = 50_000
) -> int:
    """Convert a JSON-lines game log (format in ``docs/records.md``) to record files.

    The whole file is validated before anything is written, so a bad line leaves no partial
    import behind; the error names the file, the line and the problem. Returns the number of
    games imported. Re-importing the same file into the same directory adds nothing.
    """
    src = Path(path)
    try:
        data = src.read_bytes()
    except OSError as err:
        raise CorruptRecordError(f"{src}: cannot read ({err.strerror})") from None
    config = {"kind": "import", "source": src.name, "sha256": hashlib.sha256(data).hexdigest()}
    run_id = run_id_of(config)
    rows: list[dict[str, Any]] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CorruptRecordError(f"{src}: not UTF-8 text (byte {err.start})") from None
    seen: set[int] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row = _jsonl_row(src, lineno, line, run_id)
        if row["game_index"] in seen:
            raise CorruptRecordError(f"{src}:{lineno}: game_index {row['game_index']} appears twice")
        seen.add(row["game_index"])
        rows.append(row)
    if not rows:  # an empty log imports nothing: most likely the wrong file
        raise CorruptRecordError(f"{src}: no game records (one JSON object per line, docs/records.md)")
    with RecordWriter(out_dir, config) as writer:
        done = writer.done_indices()
        todo = [r for r in rows if r["game_index"] not in done]
        for start in range(0, len(todo), batch_size):
            writer.write_batch(todo[start : start + batch_size])
    return len(todo)
