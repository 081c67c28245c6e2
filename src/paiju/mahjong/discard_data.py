"""Discard decisions of an expert agent, for the supervised baselines (``paiju mahjong discard-data``).

    paiju mahjong discard-data --agent expectimax-shanten --hands 2000 --seed 0 --out mj-discards.parquet

Hand ``i`` of a job is played by four seats of the agent ``SPEC`` through
:func:`paiju.core.protocol.play_game`: the wall from ``derive_seed(hand_seed, WALL)``, seat
``s`` seeded ``derive_seed(hand_seed, SEAT, s)``, ``hand_seed = derive_seed(seed, HAND, i)``.
Every own-turn decision that is a discard becomes one row (``docs/mahjong-training.md`` §2):

* ``hand`` (int64, the hand index: the trainer splits train / validation / test by it),
  ``decision`` (its order in the hand), ``seat``;
* ``features``: the acting seat's flat features (:func:`paiju.mahjong.features.encode_flat`,
  float32 ``FLAT_SIZE``; :func:`paiju.mahjong.features.planes_from_flat` rebuilds the 19×19
  planes from them exactly);
* ``legal``: the 34 legal discard kinds (bool) and ``discard``: the kind the agent chose;
* ``score`` (float32): the acting seat's points for the whole hand (its return: what it won or
  paid when the hand ended), the Monte Carlo target of a value model
  (``paiju mahjong train-supervised --target score``).

Chunked and resumable: hands are played ``chunk`` at a time through the project's runner
(:func:`paiju.core.runner.run_tasks`) and each chunk is written as its own Parquet file under
``FILE.parts/`` (with ``job.json``, the job's identity: agent and seed; each chunk carries
the time it took); an interrupted job run again with the same arguments skips the chunks
already there. When every chunk is written they are
joined into ``FILE`` (schema metadata: the job, the features version and the generation
cost -- hands/s and CPU seconds of the playing processes) and the parts folder is removed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from paiju.core.agents import AgentSpec
from paiju.core.chunked import ChunkedJob, chunk_ranges, summed_cost, write_parquet_atomic
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import play_game
from paiju.core.rng import derive_seed
from paiju.core.runner import Backend, Progress, progress_reporter, run_tasks
from paiju.mahjong import features as F
from paiju.mahjong.agents import REGISTRY
from paiju.mahjong.game import NUM_PLAYERS, MahjongGame, MahjongObservation, Phase
from paiju.mahjong.tiles import NUM_KINDS

DATA_FORMAT = "paiju-mj-discards-2"
"""2 (2026-12-03): the ``score`` column."""
# derive_seed keys: hand i is derive_seed(seed, HAND, i); within it the wall and the seats
HAND, WALL, SEAT = 1, 2, 3

SCHEMA = pa.schema([
    ("hand", pa.int64()),
    ("decision", pa.int32()),
    ("seat", pa.int8()),
    ("features", pa.list_(pa.float32(), F.FLAT_SIZE)),
    ("legal", pa.list_(pa.bool_(), NUM_KINDS)),
    ("discard", pa.int8()),
    ("score", pa.float32()),
])


@dataclass(frozen=True)
class DataConfig:
    """A discard-data job; ``agent`` and ``seed`` are its identity (hand ``i`` is the same in every
    job of both, so a job may be run again with more hands: the chunks written are kept)."""

    out: str
    agent: str = "expectimax-shanten"
    hands: int = 1000
    seed: int = 0
    workers: int = 1
    chunk: int = 64
    """Hands per chunk file (what an interruption can lose at most, per worker round)."""

    def identity(self) -> dict[str, Any]:
        spec = REGISTRY.resolve(self.agent)
        return {"format": DATA_FORMAT, "features": F.FEATURES_VERSION, "agent": str(spec), "seed": self.seed}


def check_config(cfg: DataConfig) -> AgentSpec:
    """The agent's spec, or a :class:`ConfigError` naming the bad field (checked before any work)."""
    if cfg.hands < 1 or cfg.workers < 1 or cfg.chunk < 1:
        raise ConfigError(f"discard-data hands={cfg.hands}, workers={cfg.workers} and chunk={cfg.chunk} "
                          "must be at least 1")
    if cfg.seed < 0:
        raise ConfigError(f"discard-data seed={cfg.seed} must be >= 0")
    spec = REGISTRY.resolve(cfg.agent)
    REGISTRY.make(spec, seed=0)  # its parameters and ranges, checked by building one
    return spec


# ---- one hand -----------------------------------------------------------------------------
@dataclass(frozen=True)
class HandTask:
    """Hand ``index`` of a job (picklable: a runner task)."""

    index: int
    seed: int
    agent: AgentSpec


@dataclass
class HandRows:
    """The discard decisions of one hand, in order."""

    index: int
    seat: np.ndarray
    features: np.ndarray
    legal: np.ndarray
    discard: np.ndarray
    score: np.ndarray
    """float32, per row: its seat's return for the hand"""
    cpu_s: float


class _RecordingSeat:
    """A seat that plays its agent's move and records each discard decision."""

    def __init__(self, agent: Any, seat: int, rows: list[tuple[int, np.ndarray, np.ndarray, int]]) -> None:
        self.agent, self.seat, self.rows = agent, seat, rows
        self.name = getattr(agent, "name", "agent")

    def act(self, observation: Any, legal_actions: Sequence[int]) -> int:
        action = int(self.agent.act(observation, legal_actions))
        obs: MahjongObservation = observation
        if obs.phase == Phase.TURN and action < NUM_KINDS:
            legal = np.zeros(NUM_KINDS, dtype=np.bool_)
            legal[[a for a in legal_actions if a < NUM_KINDS]] = True
            self.rows.append((self.seat, F.encode_flat(obs), legal, action))
        return action


def hand_agents(task: HandTask) -> list[Any]:
    """The four seeded agents of hand ``task.index``."""
    return [REGISTRY.make(task.agent, seed=derive_seed(task.seed, SEAT, s)) for s in range(NUM_PLAYERS)]


def hand_wall_seed(task: HandTask) -> int:
    return derive_seed(task.seed, WALL)


def play_hand(task: HandTask) -> HandRows:
    """Play hand ``task.index`` and return its discard decisions (a runner task)."""
    start = time.process_time()
    rows: list[tuple[int, np.ndarray, np.ndarray, int]] = []
    seats = [_RecordingSeat(a, s, rows) for s, a in enumerate(hand_agents(task))]
    returns = play_game(MahjongGame(), seats, hand_wall_seed(task)).state.returns()
    return HandRows(
        index=task.index,
        seat=np.asarray([r[0] for r in rows], dtype=np.int8),
        features=np.stack([r[1] for r in rows]) if rows else np.zeros((0, F.FLAT_SIZE), np.float32),
        legal=np.stack([r[2] for r in rows]) if rows else np.zeros((0, NUM_KINDS), np.bool_),
        discard=np.asarray([r[3] for r in rows], dtype=np.int8),
        score=np.asarray([returns[r[0]] for r in rows], dtype=np.float32),
        cpu_s=time.process_time() - start,
    )


def hand_task(cfg: DataConfig, spec: AgentSpec, index: int) -> HandTask:
    return HandTask(index, derive_seed(cfg.seed, HAND, index), spec)


# ---- chunks and the joined file -------------------------------------------------------------
def _fixed_list(values: np.ndarray, kind: pa.DataType) -> pa.FixedSizeListArray:
    return pa.FixedSizeListArray.from_arrays(pa.array(values.reshape(-1), type=kind), values.shape[1])


def rows_table(hands: Sequence[HandRows]) -> pa.Table:
    """The rows of ``hands`` (in the given order) as a table of :data:`SCHEMA`."""
    n = [len(h.discard) for h in hands]
    if not hands:
        return SCHEMA.empty_table()
    return pa.Table.from_arrays([
        pa.array(np.repeat([h.index for h in hands], n).astype(np.int64)),
        pa.array(np.concatenate([np.arange(k, dtype=np.int32) for k in n])),
        pa.array(np.concatenate([h.seat for h in hands])),
        _fixed_list(np.concatenate([h.features for h in hands]).astype(np.float32), pa.float32()),
        _fixed_list(np.concatenate([h.legal for h in hands]), pa.bool_()),
        pa.array(np.concatenate([h.discard for h in hands])),
        pa.array(np.concatenate([h.score for h in hands]).astype(np.float32)),
    ], schema=SCHEMA)


def parts_dir(out: Path) -> Path:
    return out.with_name(out.name + ".parts")


CHUNK_TABLE = "hands"
"""The chunk files' name: ``FILE.parts/hands-<first>-<last>.parquet``."""


def _play_chunk(cfg: DataConfig, spec: AgentSpec, first: int, last: int) -> list[HandRows]:
    """Hands ``first .. last - 1`` through the runner, in index order."""
    got: dict[int, HandRows] = {}

    def take(_: int, hand: HandRows) -> None:
        got[hand.index] = hand

    run_tasks(play_hand, [hand_task(cfg, spec, i) for i in range(first, last)], take,
              backend=Backend(workers=cfg.workers))
    return [got[i] for i in range(first, last)]


def generate(cfg: DataConfig, *, progress: Progress = False) -> dict[str, Any]:
    """Play the job's hands (skipping chunks already written) and write ``cfg.out``; returns
    the summary (also the file's metadata)."""
    spec = check_config(cfg)
    out = Path(cfg.out)
    if out.exists():
        raise ConfigError(f"{out} already exists; use another --out")
    job = ChunkedJob(parts_dir(out), cfg.identity())
    job.open()
    ranges = chunk_ranges(cfg.hands, cfg.chunk)
    with progress_reporter(progress, cfg.hands, 0, "hands") as report:
        for first, last in ranges:
            if not job.has([CHUNK_TABLE], first, last):
                clock = time.perf_counter()
                got = _play_chunk(cfg, spec, first, last)
                cost = {"hands": len(got), "wall_s": time.perf_counter() - clock,
                        "cpu_s": sum(h.cpu_s for h in got)}
                job.write({CHUNK_TABLE: rows_table(got)}, first, last, cost)
            if report is not None:
                report(last, cfg.hands)
    return _join(cfg, job, ranges)


def _join(cfg: DataConfig, job: ChunkedJob, ranges: list[tuple[int, int]]) -> dict[str, Any]:
    out = Path(cfg.out)
    table, costs = job.join(CHUNK_TABLE, ranges)
    summary = {
        **cfg.identity(), "hands": cfg.hands, "rows": table.num_rows, "workers": cfg.workers,
        "cost": summed_cost(costs, "hands"),
    }
    write_parquet_atomic(table.replace_schema_metadata({"paiju": json.dumps(summary)}), out)
    job.remove()
    return {**summary, "out": str(out)}


# ---- reading --------------------------------------------------------------------------------
@dataclass
class DiscardData:
    """A discard-data file in memory."""

    hand: np.ndarray
    """int64 (n,)"""
    features: np.ndarray
    """float32 (n, FLAT_SIZE)"""
    legal: np.ndarray
    """bool (n, 34)"""
    discard: np.ndarray
    """int64 (n,)"""
    score: np.ndarray
    """float64 (n,): the acting seat's points for the hand"""
    meta: dict[str, Any]

    def __len__(self) -> int:
        return len(self.discard)


def load_data(path: str | Path) -> DiscardData:
    """Read a file written by :func:`generate`.

    Raises:
        ConfigError: no such file.
        CorruptRecordError: not a discard-data file of this feature layout.
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"discard data {str(path)!r} does not exist")
    try:
        table = pq.read_table(p)
        raw = (table.schema.metadata or {}).get(b"paiju", b"{}")
        meta = json.loads(raw)
    except (pa.ArrowInvalid, OSError, json.JSONDecodeError) as err:
        raise CorruptRecordError(f"{path}: not a Parquet discard-data file ({err})") from None
    if meta.get("format") != DATA_FORMAT or not table.schema.equals(SCHEMA):
        raise CorruptRecordError(f"{path}: not a paiju discard-data file (format {meta.get('format')!r})")
    if meta.get("features") != F.FEATURES_VERSION:
        raise CorruptRecordError(f"{path}: features {meta.get('features')!r}, this paiju encodes "
                                 f"{F.FEATURES_VERSION!r} (generate it again)")

    def fixed(name: str, width: int) -> np.ndarray:
        values = table.column(name).combine_chunks().flatten().to_numpy(zero_copy_only=False)
        return np.asarray(values).reshape(-1, width)

    return DiscardData(
        hand=table.column("hand").to_numpy().astype(np.int64),
        features=fixed("features", F.FLAT_SIZE).astype(np.float32),
        legal=fixed("legal", NUM_KINDS).astype(np.bool_),
        discard=table.column("discard").to_numpy().astype(np.int64),
        score=table.column("score").to_numpy().astype(np.float64),
        meta=meta,
    )


CONFIG_FIELDS = tuple(asdict(DataConfig(out="")).keys())

__all__ = ["CONFIG_FIELDS", "DATA_FORMAT", "SCHEMA", "DataConfig", "DiscardData", "HandRows", "HandTask",
           "check_config", "generate", "hand_agents", "hand_task", "hand_wall_seed", "load_data",
           "play_hand", "rows_table"]
