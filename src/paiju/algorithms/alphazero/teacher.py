"""Teacher data: a search teacher's games as training samples, expert iteration's start (issue 46 item 1).

    paiju az teacher-data -g connect_four --teacher mcts:simulations=800 --games 2000 \\
        --out runs/c4-teacher --workers 2
    paiju az train -g connect_four --init-data runs/c4-teacher --init-epochs 2 --out runs/c4-az ...

A network that starts from random weights learns first from its own random play. Here it
learns first from a search that is already good (rollout MCTS for connect four, heuristic MCTS
for yuxi): the teacher plays games against itself and every position it searched becomes a
sample, as self-play's do (:mod:`paiju.algorithms.alphazero.selfplay`), with

* the encoded input, read from the mover's observation by the game's encoder;
* the teacher's policy: its visit distribution, or its improved policy when it searches with
  Gumbel root selection (``mcts:...,gumbel=m``), over the policy heads' entries;
* its root value for the mover, the game's outcome and, with ``rollouts=R``, the mean return
  of ``R`` uniform random games from the position (the value targets of
  :mod:`paiju.algorithms.alphazero.targets`).

Game ``i`` has the seed ``derive_seed(seed, GAME, i)``; from it the room, each seat's teacher
(``derive_seed(game_seed, SEAT, s)``), chance, the exploration and the rollouts. For variety
the first ``temperature_moves`` moves with a choice are drawn from the teacher's visit counts,
its own move is played afterwards; forced moves are played and not stored. The teacher is
an agent of the game's registry that keeps its search's result as ``last_result`` (the
``mcts`` agents), built in each worker by :class:`RegistryTeacher`.

The job runs through the project's runner, ``chunk`` games at a time, each chunk written
whole (:mod:`paiju.core.chunked`): run again with the same arguments, it plays only the chunks
missing, and the data are the same for any number of workers or sittings. The finished
folder holds two Parquet tables and ``summary.json`` (the job's identity, sizes, and its
cost: CPU seconds and simulations):

* ``positions.parquet``: ``game``, ``ply`` (the decision's index in the game), ``seat`` (the
  seat encoded), ``planes`` and ``vector`` (float16, flattened; the summary has their shape),
  ``values`` (the outcome), ``root_values``, ``rollout_values`` (NaN: none played), each per
  seat from the encoded seat's, the policy as ``policy_first`` / ``policy_second`` /
  ``policy_prob`` (the sample's head entries), ``simulations`` (of the teacher's search);
* ``games.parquet``: ``game``, ``seed``, ``moves``, ``positions``, ``returns``,
  ``simulations``, ``cpu_s``.

:func:`read_teacher_data` reads a folder back as samples with each one's game, and
:func:`split_by_game` holds games out (never single positions: a game's positions share its
outcome, so a position-wise split scores a network on games it has learned).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from paiju.algorithms.alphazero.net import Encoder
from paiju.algorithms.alphazero.selfplay import (
    Decision,
    GameSamples,
    SampleArrays,
    Setup,
    explore_move,
    policy_target,
    rollout_means,
    root_value,
    samples_of,
)
from paiju.algorithms.mcts import SearchResult
from paiju.core.agents import AgentRegistry
from paiju.core.chunked import ChunkedJob, chunk_ranges, summed_cost, write_parquet_atomic
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import CHANCE, Action, Agent, Game, State, play_game
from paiju.core.rng import as_generator, derive_seed
from paiju.core.run_folder import json_data
from paiju.core.runner import Backend, Progress, progress_reporter, run_tasks

DATA_FORMAT = "paiju-az-teacher-1"
TABLES = ("positions", "games")
GAME, SEAT, CHANCE_SEED, EXPLORE, ROLLOUT = 1, 2, 3, 4, 5
"""``derive_seed`` keys: game ``i`` is ``derive_seed(seed, GAME, i)``; within it each seat's
teacher, chance, the exploring draws and the rollouts."""


@dataclass(frozen=True)
class TeacherDataConfig:
    """A teacher-data job. Each field's metadata gives its option of ``paiju az teacher-data``
    (:mod:`paiju.cli.config_options`); all but ``games``, ``chunk`` and ``workers`` are the
    job's identity, with the game and the teacher's full spec."""

    seed: int = field(default=0, metadata={"help": "Seed of the job (game i's seed is derived from it)."})
    games: int = field(default=1000, metadata={"help": "Games the teacher plays against itself.", "min": 1,
                                               "max": 10_000_000})
    teacher: str = field(default="mcts:simulations=800", metadata={
        "help": "The search teacher, an agent spec of the game that keeps its search's result (the mcts "
                "agents): its visits (improved policy with gumbel=m) and root value are the targets."})
    temperature_moves: int = field(default=8, metadata={
        "help": "Moves with a choice (both seats) drawn from the teacher's visit counts at the start of a "
                "game, for varied games; the teacher's own move afterwards.", "min": 0, "max": 1_000})
    rollouts: int = field(default=0, metadata={
        "help": "Random rollouts from every stored position, their mean kept for the rollouts value "
                "target (0: none).", "min": 0, "max": 10_000})
    chunk: int = field(default=64, metadata={"help": "Games per chunk (the unit of resume).", "min": 1,
                                             "max": 100_000})
    workers: int = field(default=1, metadata={"help": "Processes (the same data with any number)."})

    def __post_init__(self) -> None:
        if self.games < 1 or self.chunk < 1 or self.workers < 1:
            raise ConfigError(f"teacher data: games={self.games}, chunk={self.chunk} and "
                              f"workers={self.workers} must be at least 1")
        if self.seed < 0 or self.temperature_moves < 0 or self.rollouts < 0:
            raise ConfigError(f"teacher data: seed={self.seed}, temperature_moves="
                              f"{self.temperature_moves} and rollouts={self.rollouts} must be >= 0")


@dataclass(frozen=True)
class RegistryTeacher:
    """The teacher ``spec`` of a game's agent registry, ``registry_of(game)`` (a top-level
    function, so that the teacher pickles to the runner's workers)."""

    registry_of: Callable[[Game], AgentRegistry]
    spec: str

    def make(self, game: Game, seed: int) -> Agent:
        return self.registry_of(game).make(self.spec, seed=seed)

    def canonical(self, game: Game) -> str:
        """The spec with its parameters checked and sorted (the job's identity)."""
        return str(self.registry_of(game).resolve(self.spec))


def identity(cfg: TeacherDataConfig, game_id: dict[str, Any], teacher: str) -> dict[str, Any]:
    """What a job's data depend on: a rerun with another identity is refused, not mixed."""
    return {"format": DATA_FORMAT, "game": json_data(game_id), "teacher": teacher, "seed": cfg.seed,
            "temperature_moves": cfg.temperature_moves, "rollouts": cfg.rollouts}


# ---- one game ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TeacherGameTask:
    """Game ``index`` of a job (picklable: a runner task)."""

    index: int
    seed: int
    setup: Setup
    teacher: RegistryTeacher
    temperature_moves: int
    rollouts: int


@dataclass
class TeacherGame:
    """One game's samples, with each sample's decision index and teacher simulations, and its cost."""

    index: int
    seed: int
    samples: GameSamples
    plies: list[int]
    seats: list[int]
    simulations: list[int]
    cpu_s: float


class _Recorder:
    """Every seat of one game: the seat's teacher searches, the position is stored."""

    def __init__(self, encoder: Encoder, teachers: Sequence[Agent], task: TeacherGameTask) -> None:
        self.encoder = encoder
        self.teachers = teachers
        self.task = task
        self.state: State | None = None
        self.moves = 0
        self.decisions: list[Decision] = []
        self.plies: list[int] = []
        self.simulations: list[int] = []
        self._rng = as_generator(derive_seed(task.seed, EXPLORE))

    def before_move(self, state: State, player: int) -> None:
        if player != CHANCE:
            self.state = state

    def decide(self, seat: int, observation: Any, legal: Sequence[Action]) -> Action:
        ply, self.moves = self.moves, self.moves + 1
        if len(legal) == 1:
            return legal[0]  # nothing to learn from a forced move
        teacher = self.teachers[seat]
        action: Action = teacher.act(observation, legal)
        result = getattr(teacher, "last_result", None)
        if not isinstance(result, SearchResult):
            raise ConfigError(f"teacher data: the teacher {self.task.teacher.spec} keeps no search result "
                              "(last_result); use a search agent (mcts:...)")
        state = self.state
        assert state is not None
        planes, vector = self.encoder.encode(state)
        indices = self.encoder.policy_indices(state, legal)
        policy = [] if indices is None else policy_target(result, dict(zip(legal, indices, strict=True)))
        rollouts = None
        if self.task.rollouts:
            rollouts = rollout_means(state, self.task.rollouts, derive_seed(self.task.seed, ROLLOUT, ply))
        self.decisions.append(Decision(planes, vector, self.encoder.perspective(state), policy,
                                       root_value(result), rollouts))
        self.plies.append(ply)
        self.simulations.append(result.simulations)
        if len(self.decisions) <= self.task.temperature_moves:
            action = explore_move(result, self._rng)
        return action


class _Seat:
    def __init__(self, recorder: _Recorder, seat: int) -> None:
        self.recorder, self.seat = recorder, seat
        self.name = "teacher"

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        return self.recorder.decide(self.seat, observation, legal_actions)


def play_teacher_game(task: TeacherGameTask) -> TeacherGame:
    """Play and record game ``task.index`` (a runner worker function)."""
    clock = time.process_time()
    game, encoder = task.setup(task.seed)
    n = game.info.num_players
    teachers = [task.teacher.make(game, derive_seed(task.seed, SEAT, s)) for s in range(n)]
    recorder = _Recorder(encoder, teachers, task)
    played = play_game(game, [_Seat(recorder, s) for s in range(n)], derive_seed(task.seed, CHANCE_SEED),
                       before_move=recorder.before_move)
    returns = [float(r) for r in played.state.returns()]
    samples = samples_of(recorder.decisions, returns, n, len(played.actions), game.info.constant_sum,
                         simulations=sum(recorder.simulations))
    return TeacherGame(task.index, task.seed, samples, recorder.plies, [d.seat for d in recorder.decisions],
                       recorder.simulations, time.process_time() - clock)


# ---- the tables ---------------------------------------------------------------------------------------
def _lists(values: np.ndarray, offsets: np.ndarray | None = None) -> pa.Array:
    """Rows of ``values`` (2-D or more: one list per row, flattened) or, with ``offsets``,
    ``values[offsets[i]:offsets[i + 1]]``, as a list column."""
    if offsets is None:
        width = int(np.prod(values.shape[1:], dtype=np.int64))
        offsets = np.arange(len(values) + 1, dtype=np.int64) * width
    return pa.LargeListArray.from_arrays(pa.array(offsets.astype(np.int64)), pa.array(values.ravel()))


def tables(played: Sequence[TeacherGame]) -> dict[str, pa.Table]:
    """The games ``played`` (in that order) as the two tables."""
    kept = [g for g in played if len(g.samples)]
    arrays: dict[str, Any] = {}
    if kept:
        cat = SampleArrays.concat([g.samples for g in kept])
        arrays = {
            "game": pa.array(np.concatenate([[g.index] * len(g.samples) for g in kept]).astype(np.int64)),
            "ply": pa.array(np.concatenate([g.plies for g in kept]).astype(np.int32)),
            "seat": pa.array(np.concatenate([g.seats for g in kept]).astype(np.int8)),
            "planes": _lists(cat.planes.astype(np.float16)),
            "vector": _lists(cat.vector.astype(np.float16)),
            "values": _lists(cat.values.astype(np.float32)),
            "root_values": _lists(cat.root_values.astype(np.float32)),
            "rollout_values": _lists(cat.rollout_values.astype(np.float32)),
            "policy_first": _lists(cat.policy_first.astype(np.int32), cat.offsets),
            "policy_second": _lists(cat.policy_second.astype(np.int32), cat.offsets),
            "policy_prob": _lists(cat.policy_prob.astype(np.float32), cat.offsets),
            "simulations": pa.array(np.concatenate([g.simulations for g in kept]).astype(np.int32)),
        }
    positions = pa.table(arrays) if arrays else pa.table({"game": pa.array([], pa.int64())})
    games = pa.table({
        "game": pa.array([g.index for g in played], pa.int64()),
        "seed": pa.array([g.seed for g in played], pa.int64()),
        "moves": pa.array([g.samples.decisions for g in played], pa.int32()),
        "positions": pa.array([len(g.samples) for g in played], pa.int32()),
        "returns": pa.array([g.samples.returns for g in played], pa.large_list(pa.float32())),
        "simulations": pa.array([g.samples.simulations for g in played], pa.int64()),
        "cpu_s": pa.array([g.cpu_s for g in played], pa.float64()),
    })
    return {"positions": positions, "games": games}


# ---- the job ----------------------------------------------------------------------------------------
def generate(
    cfg: TeacherDataConfig,
    setup: Setup,
    teacher: RegistryTeacher,
    out: str | Path,
    *,
    game_id: dict[str, Any] | None = None,
    progress: Progress = False,
    stop_after: int | None = None,
) -> dict[str, Any] | None:
    """Play the job's games (skipping the chunks already written) and write the folder ``out``;
    returns the summary (also ``summary.json``), or None when ``stop_after`` chunks were
    played in this sitting and some are left (run it again to go on).

    Raises:
        ConfigError: a finished folder, a folder of another job, or a teacher that is no search.
    """
    out = Path(out)
    if (out / "summary.json").exists():
        raise ConfigError(f"{out} already holds finished teacher data; use another --out")
    game, encoder = setup(derive_seed(cfg.seed, GAME, 0))
    probe = teacher.make(game, 0)
    if not hasattr(probe, "last_result"):
        raise ConfigError(f"teacher data: the teacher {teacher.spec} keeps no search result (last_result); "
                          "use a search agent (mcts:...)")
    job_identity = identity(cfg, game_id or {}, teacher.canonical(game))
    job = ChunkedJob(out / "parts", job_identity)
    job.open()
    ranges = chunk_ranges(cfg.games, cfg.chunk)
    played_chunks = 0
    with progress_reporter(progress, cfg.games, 0, "games") as report:
        for first, last in ranges:
            if not job.has(TABLES, first, last):
                if stop_after is not None and played_chunks >= stop_after:
                    return None
                clock = time.perf_counter()
                got = _play_chunk(cfg, setup, teacher, first, last)
                cost = {"games": len(got), "wall_s": time.perf_counter() - clock,
                        "cpu_s": sum(g.cpu_s for g in got),
                        "simulations": sum(g.samples.simulations for g in got)}
                job.write(tables(got), first, last, cost)
                played_chunks += 1
            if report is not None:
                report(last, cfg.games)
    positions, costs = job.join("positions", ranges)
    games, _ = job.join("games", ranges)
    summary = {**job_identity, "games": cfg.games, "positions": positions.num_rows,
               "plane_shape": list(encoder.plane_shape), "vector_size": int(encoder.vector_size),
               "num_players": game.info.num_players, "workers": cfg.workers,
               "cost": {**summed_cost(costs, "games"), "simulations": sum(c["simulations"] for c in costs)}}
    write_parquet_atomic(positions, out / "positions.parquet")
    write_parquet_atomic(games, out / "games.parquet")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    job.remove()
    return summary


def _play_chunk(cfg: TeacherDataConfig, setup: Setup, teacher: RegistryTeacher, first: int,
                last: int) -> list[TeacherGame]:
    got: dict[int, TeacherGame] = {}
    tasks = [TeacherGameTask(i, derive_seed(cfg.seed, GAME, i), setup, teacher, cfg.temperature_moves,
                             cfg.rollouts) for i in range(first, last)]
    run_tasks(play_teacher_game, tasks, lambda _, g: got.__setitem__(g.index, g),
              backend=Backend(workers=cfg.workers))
    return [got[i] for i in range(first, last)]


# ---- reading ----------------------------------------------------------------------------------------
@dataclass
class TeacherData:
    """A finished teacher-data folder as samples: ``games[i]`` is sample ``i``'s game."""

    samples: SampleArrays
    games: np.ndarray
    summary: dict[str, Any]


def read_summary(folder: str | Path) -> dict[str, Any]:
    """The summary of a finished teacher-data folder.

    Raises:
        ConfigError: no such folder, or the job is not finished.
        CorruptRecordError: not a teacher-data folder of this format.
    """
    path = Path(folder) / "summary.json"
    if not path.is_file():
        raise ConfigError(f"teacher data {str(folder)!r} is not a finished teacher-data folder (no "
                          "summary.json; an interrupted job goes on when run again)")
    try:
        summary: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise CorruptRecordError(f"{path}: not JSON ({err})") from None
    if summary.get("format") != DATA_FORMAT:
        raise CorruptRecordError(
            f"{folder}: format {summary.get('format')!r}, this paiju reads {DATA_FORMAT!r}"
        )
    return summary


def read_teacher_data(folder: str | Path) -> TeacherData:
    """The samples of a finished teacher-data folder (see :func:`read_summary` for its errors)."""
    summary = read_summary(folder)
    table = pq.read_table(Path(folder) / "positions.parquet")
    n = table.num_rows
    if not n:
        raise ConfigError(f"teacher data {folder}: no position (every move was forced?)")

    def flat(name: str) -> np.ndarray:
        return np.asarray(table.column(name).combine_chunks().flatten().to_numpy(zero_copy_only=False))

    lengths = np.asarray(table.column("policy_first").combine_chunks().value_lengths().to_numpy())
    offsets = np.zeros(n + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(lengths)
    seats = int(summary["num_players"])
    samples = SampleArrays(
        planes=flat("planes").astype(np.float16).reshape(n, *summary["plane_shape"]),
        vector=flat("vector").astype(np.float16).reshape(n, int(summary["vector_size"])),
        values=flat("values").astype(np.float32).reshape(n, seats),
        offsets=offsets,
        policy_first=flat("policy_first").astype(np.int32),
        policy_second=flat("policy_second").astype(np.int32),
        policy_prob=flat("policy_prob").astype(np.float32),
        root_values=flat("root_values").astype(np.float32).reshape(n, seats),
        rollout_values=flat("rollout_values").astype(np.float32).reshape(n, seats),
    )
    return TeacherData(samples, table.column("game").to_numpy().astype(np.int64), summary)


def held_out_games(data: TeacherData, held_out: float, seed: int) -> np.ndarray:
    """Which samples are held out: those of the share ``held_out`` of the games, drawn from
    ``seed``; at least one game when ``held_out > 0``, never all."""
    ids = np.unique(data.games)
    n_held = round(held_out * len(ids))
    if held_out > 0:
        n_held = min(max(n_held, 1), len(ids) - 1)
    held_ids = np.random.default_rng(seed).choice(ids, size=max(n_held, 0), replace=False)
    return np.isin(data.games, held_ids)


def split_by_game(data: TeacherData, held_out: float, seed: int) -> tuple[SampleArrays, SampleArrays | None]:
    """(the samples learned from, the held-out ones) as :func:`held_out_games` draws them;
    None held out when no game is."""
    held = held_out_games(data, held_out, seed)
    if not held.any():
        return data.samples, None
    return data.samples.take(np.flatnonzero(~held)), data.samples.take(np.flatnonzero(held))


__all__ = ["DATA_FORMAT", "RegistryTeacher", "TeacherData", "TeacherDataConfig", "TeacherGame",
           "TeacherGameTask", "generate", "held_out_games", "identity", "play_teacher_game", "read_summary",
           "read_teacher_data", "split_by_game", "tables"]
