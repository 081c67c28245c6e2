"""Search-labelled mahjong data: every decision of a table of mixed players, valued by a
teacher search, with the hidden state for oracle labels (``paiju mahjong search-data``).

    paiju mahjong search-data --out runs/mj-search --hands 2000 --seed 0 --workers 2

The learned agents learn from the search, not from sparse rewards alone
(docs/mahjong-training.md §4). Hand ``i`` (``hand_seed = derive_seed(seed, HAND, i)``) is played by
four seats drawn from ``players`` (``derive_seed(hand_seed, LINEUP)``; seat ``s`` seeded
``derive_seed(hand_seed, SEAT, s)``, the wall from ``derive_seed(hand_seed, WALL)``), so no
label comes from one opponent's habits. At every decision with a choice (a turn's discards
and kongs, a claim window's claims and pass; not the wins, which every agent takes), the
``teacher`` search values each option it evaluates; the seat then plays its own move. A
seat whose player *is* the teacher is its own teacher (its values are those it played by).

The output is a folder of two Parquet tables (query them with DuckDB: :func:`connect`):

``decisions.parquet``, one row per labelled decision:

* ``hand``, ``decision`` (its order among the hand's labelled decisions), ``move`` (index in
  the hand's ``actions``: replaying them up to it rebuilds the position, :func:`replay`),
  ``seat``, ``phase`` (1 turn, 2 claim), ``player`` (the acting seat's spec);
* ``legal`` (the legal actions), ``options`` / ``values`` (what the teacher evaluated and its
  value in points of each; a pruned option is absent), ``teacher_action``, ``action`` (what
  the seat played); the distillation target is each option's advantage over the action
  played, :func:`advantages`;
* oracle labels of the three opponents, in turn order after the seat (``seat+1 .. seat+3``):
  ``opp_hands`` (3×34 concealed counts), ``opp_ready``, ``opp_waits`` (3×34: the kinds that
  complete the hand by shape) and ``opp_locks`` (3×34: kinds a missed-win lock forbids now;
  a discard deals in to an opponent when it is in his waits and not locked);
* ``score``: the acting seat's points for the hand (its return).

``hands.parquet``, one row per hand: ``hand``, ``seed`` (the hand's seed), ``players`` (4
specs), ``wall`` (136 kinds), ``actions`` (every seat's move in order), ``returns`` (points
per seat), ``cpu_s`` and ``teacher_cpu_s`` (the labelling's share).

The observation is not stored: it is rebuilt exactly by replay (a few milliseconds a hand),
so a new encoder of the public record needs no new data. Chunked and resumable through
:mod:`paiju.core.chunked` and the project's runner; the summary (job identity, rows, cost)
is ``summary.json`` beside the tables.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from paiju.core.agents import AgentSpec
from paiju.core.chunked import ChunkedJob, chunk_ranges, summed_cost, write_parquet_atomic
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import CHANCE, State, play_game
from paiju.core.rng import derive_seed
from paiju.core.runner import Backend, Progress, progress_reporter, run_tasks
from paiju.mahjong.agents import AGENT_NAMES, REGISTRY
from paiju.mahjong.game import NUM_PLAYERS, WIN, MahjongGame, MahjongObservation, MahjongState, Phase
from paiju.mahjong.scoring import waits
from paiju.mahjong.tiles import NUM_KINDS

DATA_FORMAT = "paiju-mj-search-1"
TEACHER = "expectimax"
"""The strongest search measured (docs/results/mahjong-expectimax.md)."""
PLAYERS = (TEACHER, "expectimax-shanten", "greedy")
"""The default table: the teacher, the first Expectimax and greedy, drawn per seat."""
# derive_seed keys: hand i is derive_seed(seed, HAND, i); within it the wall, the seats, the
# line-up and the teacher
HAND, WALL, SEAT, LINEUP, TEACHER_SEED = 1, 2, 3, 4, 5
OPPONENTS = NUM_PLAYERS - 1
TABLES = ("decisions", "hands")

DECISIONS = pa.schema([
    ("hand", pa.int64()),
    ("decision", pa.int32()),
    ("move", pa.int32()),
    ("seat", pa.int8()),
    ("phase", pa.int8()),
    ("player", pa.string()),
    ("legal", pa.list_(pa.int16())),
    ("options", pa.list_(pa.int16())),
    ("values", pa.list_(pa.float32())),
    ("teacher_action", pa.int16()),
    ("action", pa.int16()),
    ("opp_hands", pa.list_(pa.int8(), OPPONENTS * NUM_KINDS)),
    ("opp_ready", pa.list_(pa.bool_(), OPPONENTS)),
    ("opp_waits", pa.list_(pa.bool_(), OPPONENTS * NUM_KINDS)),
    ("opp_locks", pa.list_(pa.bool_(), OPPONENTS * NUM_KINDS)),
    ("score", pa.float32()),
])
HANDS = pa.schema([
    ("hand", pa.int64()),
    ("seed", pa.int64()),
    ("players", pa.list_(pa.string(), NUM_PLAYERS)),
    ("wall", pa.list_(pa.int16())),
    ("actions", pa.list_(pa.int16())),
    ("returns", pa.list_(pa.float32(), NUM_PLAYERS)),
    ("cpu_s", pa.float64()),
    ("teacher_cpu_s", pa.float64()),
])


@dataclass(frozen=True)
class SearchDataConfig:
    """A search-data job; ``teacher``, ``players`` and ``seed`` are its identity (hand ``i`` is
    the same in every job of the three, so a job may be run again with more hands)."""

    out: str
    """The output folder (``decisions.parquet``, ``hands.parquet``, ``summary.json``)."""
    hands: int = 1000
    seed: int = 0
    teacher: str = TEACHER
    players: tuple[str, ...] = PLAYERS
    workers: int = 1
    chunk: int = 32
    """Hands per chunk (what an interruption can lose at most, per worker round)."""

    def identity(self) -> dict[str, Any]:
        return {"format": DATA_FORMAT, "teacher": str(REGISTRY.resolve(self.teacher)),
                "players": [str(REGISTRY.resolve(p)) for p in self.players], "seed": self.seed,
                "agent_names": AGENT_NAMES}


def check_config(cfg: SearchDataConfig) -> tuple[AgentSpec, tuple[AgentSpec, ...]]:
    """The teacher's and players' specs, or a :class:`ConfigError` naming the bad field."""
    if cfg.hands < 1 or cfg.workers < 1 or cfg.chunk < 1:
        raise ConfigError(f"search-data hands={cfg.hands}, workers={cfg.workers} and chunk={cfg.chunk} "
                          "must be at least 1")
    if cfg.seed < 0:
        raise ConfigError(f"search-data seed={cfg.seed} must be >= 0")
    if not cfg.players:
        raise ConfigError("search-data needs at least one player")
    teacher = REGISTRY.resolve(cfg.teacher)
    if not hasattr(REGISTRY.make(teacher, seed=0), "last_values"):
        raise ConfigError(f"search-data teacher {teacher} values no options: the teacher must be a "
                          "value search (expectimax, ...)")
    players = tuple(REGISTRY.resolve(p) for p in cfg.players)
    for p in players:
        REGISTRY.make(p, seed=0)  # its parameters and ranges, checked by building one
    return teacher, players


# ---- one hand -----------------------------------------------------------------------------
@dataclass(frozen=True)
class HandTask:
    """Hand ``index`` of a job (picklable: a runner task)."""

    index: int
    seed: int
    teacher: AgentSpec
    players: tuple[AgentSpec, ...]


def lineup(task: HandTask) -> list[AgentSpec]:
    """The four seats' players of the hand, drawn from the job's players."""
    rng = np.random.default_rng(derive_seed(task.seed, LINEUP))
    return [task.players[int(i)] for i in rng.integers(len(task.players), size=NUM_PLAYERS)]


def oracle_labels(state: MahjongState, seat: int) -> tuple[list[int], list[bool], list[bool], list[bool]]:
    """The hidden state of ``seat``'s three opponents, in turn order after him: concealed
    counts, ready, waits by shape and locked kinds (flattened 3×34)."""
    hands: list[int] = []
    ready: list[bool] = []
    wait_mask: list[bool] = []
    locks: list[bool] = []
    for i in range(1, NUM_PLAYERS):
        o = (seat + i) % NUM_PLAYERS
        hand = list(state.hands[o])
        held = [0] * NUM_KINDS
        for meld in state.melds[o]:
            for k in meld.kinds():
                held[k] += 1
        w = set(waits(hand, held)) if sum(hand) % 3 == 1 else set()
        hands += hand
        ready.append(bool(w))
        wait_mask += [k in w for k in range(NUM_KINDS)]
        locks += [bool(state.locks[o] >> k & 1) for k in range(NUM_KINDS)]
    return hands, ready, wait_mask, locks


@dataclass
class HandLabels:
    """One hand's labelled decisions (row dicts) and its record."""

    index: int
    rows: list[dict[str, Any]] = field(default_factory=list)
    hand: dict[str, Any] = field(default_factory=dict)


class _Labeller:
    """Asks the teacher at every decision with a choice and records the row; one per hand."""

    def __init__(self, teacher: Any, index: int) -> None:
        self.teacher = teacher
        self.index = index
        self.state: MahjongState | None = None
        self.moves = 0
        self.rows: list[dict[str, Any]] = []
        self.teacher_cpu_s = 0.0

    def before_move(self, state: State[Any], player: int) -> None:
        if player != CHANCE:
            assert isinstance(state, MahjongState)
            self.state = state

    def decide(self, agent: Any, spec: AgentSpec, own_teacher: bool, seat: int,
               obs: MahjongObservation, legal: Sequence[int]) -> int:
        move, self.moves = self.moves, self.moves + 1
        choice = len(legal) > 1 and WIN not in legal and obs.phase in (Phase.TURN, Phase.CLAIM)
        if not choice:
            return int(agent.act(obs, legal))
        teacher = agent if own_teacher else self.teacher
        teacher.last_values = {}  # never a stale label: the search fills it on this call
        clock = time.process_time()
        teacher_action = int(teacher.act(obs, legal))
        if not own_teacher:
            self.teacher_cpu_s += time.process_time() - clock
        values: dict[int, float] = dict(teacher.last_values)
        if not values:
            raise RuntimeError(f"teacher {teacher} gave no values at move {move} of hand {self.index}")
        action = teacher_action if own_teacher else int(agent.act(obs, legal))
        assert self.state is not None
        hands, ready, wait_mask, locks = oracle_labels(self.state, seat)
        options = sorted(values)
        self.rows.append({
            "hand": self.index, "decision": len(self.rows), "move": move, "seat": seat,
            "phase": int(obs.phase), "player": str(spec), "legal": [int(a) for a in legal],
            "options": options, "values": [values[a] for a in options],
            "teacher_action": teacher_action, "action": action,
            "opp_hands": hands, "opp_ready": ready, "opp_waits": wait_mask, "opp_locks": locks,
        })
        return action


class _Seat:
    """A seat of the table: its player's move, labelled by the hand's labeller."""

    def __init__(self, agent: Any, spec: AgentSpec, own_teacher: bool, seat: int,
                 labeller: _Labeller) -> None:
        self.agent, self.spec, self.own_teacher, self.seat = agent, spec, own_teacher, seat
        self.labeller = labeller
        self.name = getattr(agent, "name", str(spec))

    def act(self, observation: Any, legal_actions: Sequence[int]) -> int:
        return self.labeller.decide(self.agent, self.spec, self.own_teacher, self.seat, observation,
                                    legal_actions)


def hand_agent(task: HandTask, spec: AgentSpec, seat: int) -> Any:
    """Seat ``seat``'s agent of the hand (as :func:`play_hand` seeds it)."""
    return REGISTRY.make(spec, seed=derive_seed(task.seed, SEAT, seat))


def hand_wall_seed(task: HandTask) -> int:
    return derive_seed(task.seed, WALL)


def play_hand(task: HandTask) -> HandLabels:
    """Play hand ``task.index`` and label its decisions (a runner task)."""
    start = time.process_time()
    specs = lineup(task)
    labeller = _Labeller(REGISTRY.make(task.teacher, seed=derive_seed(task.seed, TEACHER_SEED)), task.index)
    seats = [_Seat(hand_agent(task, spec, s), spec, spec == task.teacher, s, labeller)
             for s, spec in enumerate(specs)]
    played = play_game(MahjongGame(), seats, hand_wall_seed(task), before_move=labeller.before_move)
    returns = [float(r) for r in played.state.returns()]
    if played.players.count(CHANCE) != 1 or played.players[0] != CHANCE:
        raise RuntimeError("a single hand has one chance event, the shuffle, first")
    for row in labeller.rows:
        row["score"] = returns[row["seat"]]
    hand = {
        "hand": task.index, "seed": task.seed, "players": [str(s) for s in specs],
        "wall": [int(k) for k in played.actions[0]], "actions": [int(a) for a in played.actions[1:]],
        "returns": returns, "cpu_s": time.process_time() - start, "teacher_cpu_s": labeller.teacher_cpu_s,
    }
    return HandLabels(task.index, labeller.rows, hand)


def hand_task(cfg: SearchDataConfig, teacher: AgentSpec, players: tuple[AgentSpec, ...],
              index: int) -> HandTask:
    return HandTask(index, derive_seed(cfg.seed, HAND, index), teacher, players)


def tables(hands: Sequence[HandLabels]) -> dict[str, pa.Table]:
    """The rows of ``hands`` (in the given order) as the two tables."""
    rows = [r for h in hands for r in h.rows]
    return {
        "decisions": pa.Table.from_pylist(rows, schema=DECISIONS),
        "hands": pa.Table.from_pylist([h.hand for h in hands], schema=HANDS),
    }


# ---- the job --------------------------------------------------------------------------------
def _play_chunk(cfg: SearchDataConfig, teacher: AgentSpec, players: tuple[AgentSpec, ...],
                first: int, last: int) -> list[HandLabels]:
    got: dict[int, HandLabels] = {}

    def take(_: int, hand: HandLabels) -> None:
        got[hand.index] = hand

    run_tasks(play_hand, [hand_task(cfg, teacher, players, i) for i in range(first, last)], take,
              backend=Backend(workers=cfg.workers))
    return [got[i] for i in range(first, last)]


def generate(cfg: SearchDataConfig, *, progress: Progress = False) -> dict[str, Any]:
    """Play and label the job's hands (skipping chunks already written) and write ``cfg.out``;
    returns the summary (also ``summary.json``)."""
    teacher, players = check_config(cfg)
    out = Path(cfg.out)
    if (out / "summary.json").exists():
        raise ConfigError(f"{out} already holds a finished job; use another --out")
    job = ChunkedJob(out / "parts", cfg.identity())
    job.open()
    ranges = chunk_ranges(cfg.hands, cfg.chunk)
    with progress_reporter(progress, cfg.hands, 0, "hands") as report:
        for first, last in ranges:
            if not job.has(TABLES, first, last):
                clock = time.perf_counter()
                got = _play_chunk(cfg, teacher, players, first, last)
                cost = {"hands": len(got), "wall_s": time.perf_counter() - clock,
                        "cpu_s": sum(h.hand["cpu_s"] for h in got),
                        "teacher_cpu_s": sum(h.hand["teacher_cpu_s"] for h in got)}
                job.write(tables(got), first, last, cost)
            if report is not None:
                report(last, cfg.hands)
    decisions, costs = job.join("decisions", ranges)
    hands, _ = job.join("hands", ranges)
    summary = {**cfg.identity(), "hands": cfg.hands, "rows": decisions.num_rows, "workers": cfg.workers,
               "cost": {**summed_cost(costs, "hands"),
                        "teacher_cpu_s": sum(c["teacher_cpu_s"] for c in costs)}}
    write_parquet_atomic(decisions, out / "decisions.parquet")
    write_parquet_atomic(hands, out / "hands.parquet")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    job.remove()
    return {**summary, "out": str(out)}


# ---- reading --------------------------------------------------------------------------------
def read_summary(folder: str | Path) -> dict[str, Any]:
    """The job summary of a finished search-data folder, its agents by today's names
    (``renamed``: what the folder's own strings, in its rows too, are called today).

    Raises:
        ConfigError: no such folder, or the job is not finished.
        CorruptRecordError: not a search-data folder of this format.
    """
    p = Path(folder)
    summary = p / "summary.json"
    if not summary.is_file():
        raise ConfigError(f"search data {str(folder)!r} is not a finished search-data folder "
                          "(no summary.json; an interrupted job resumes when run again)")
    try:
        meta: dict[str, Any] = json.loads(summary.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise CorruptRecordError(f"{summary}: not JSON ({err})") from None
    if meta.get("format") != DATA_FORMAT:
        raise CorruptRecordError(f"{folder}: format {meta.get('format')!r}, this paiju reads {DATA_FORMAT!r}")
    names = player_names(meta)  # data written before the names were settled: today's names
    meta["teacher"] = names.get(meta["teacher"], meta["teacher"])
    meta["players"] = [names.get(p, p) for p in meta["players"]]
    meta["renamed"] = names
    return meta


def player_names(meta: dict[str, Any]) -> dict[str, str]:
    """Today's name of each agent spec a search-data folder records (its summary, its rows'
    ``player``), for data written before the mahjong agent names were settled (``expectimax``
    then meant today's ``expectimax-v1``); empty for data that uses today's names."""
    if meta.get("agent_names", 1) >= AGENT_NAMES:
        return {}
    return {s: str(REGISTRY.recorded(s)) for s in (meta["teacher"], *meta["players"])}


def connect(folder: str | Path) -> Any:
    """A DuckDB connection with the views ``decisions`` and ``hands`` of a search-data folder."""
    import duckdb

    read_summary(folder)
    con = duckdb.connect()
    for name in TABLES:
        path = str(Path(folder) / f"{name}.parquet").replace("'", "''")
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    return con


def advantages(options: Sequence[int], values: Sequence[float], action: int) -> dict[int, float] | None:
    """Each evaluated option's value less the action played's (the distillation target);
    None when the action played was not evaluated (a pruned option of another player)."""
    by = dict(zip(options, values, strict=True))
    if action not in by:
        return None
    return {a: v - by[action] for a, v in by.items()}


def replay(wall: Sequence[int], actions: Sequence[int]) -> Iterator[tuple[int, MahjongState]]:
    """``(move, state)`` before each of a hand's moves: the position its row ``move`` saw."""
    state = MahjongGame().new_hand(wall=wall)
    for move, action in enumerate(actions):
        yield move, state
        state.apply(int(action))


__all__ = [
    "DATA_FORMAT",
    "DECISIONS",
    "HANDS",
    "PLAYERS",
    "TEACHER",
    "HandLabels",
    "HandTask",
    "SearchDataConfig",
    "advantages",
    "check_config",
    "connect",
    "generate",
    "hand_agent",
    "hand_task",
    "hand_wall_seed",
    "lineup",
    "oracle_labels",
    "play_hand",
    "player_names",
    "read_summary",
    "replay",
    "tables",
]
