"""Connect four: how often an agent's move keeps the best result, against perfect play.

A measure no training target can touch (issue 46 item 4): positions from other agents' games,
each legal move labelled by :mod:`paiju.games.connect_four_solver` (written for evaluation,
never a training target), and an agent's share of positions where the move it plays is one
of the optimal ones.

``positions``  (12 minutes of CPU for 500; resumable)
    Plays games between the ``--matchup`` pairs (default :data:`MATCHUPS`: rollout MCTS of
    several strengths, and ``random`` against a weak MCTS, so the positions are not all from
    random play), game ``g`` with pair ``g mod M``, the colours swapped every other round of
    the pairs. From each game it takes one position: at a ply drawn uniformly from those,
    ``--min-ply`` or later and before the end, where not every legal move has the same value
    (a position where every move is equally good measures nothing). It labels the game's
    positions with the solver in a random order of their plies and keeps the first whose moves
    differ; the ones labelled before it are dropped and counted. A position already kept from
    an earlier game (transpositions included) is passed over. The first ``--count`` kept
    positions, in game order, are the set; games are played until there are enough.

    Game ``g`` of ``--seed S`` has ``game_seed = derive_seed(S, g)``; the agent in seat ``s``
    is built with ``derive_seed(game_seed, 1 + s)`` and the order of the plies is drawn from
    ``derive_seed(game_seed, 0)``, so a line's ``game_seed`` and ``source`` replay its game.
    Each line of ``--out``::

        {"moves": "4453...", "ply": 14, "values": {"0": 1, "1": -1, ...},
         "source": "mcts:simulations=200 vs mcts:simulations=800", "game_seed": ..., "game": 17}

    ``moves`` are the columns played in Pons's notation (1-based, as the solver's
    ``parse_moves`` reads them); ``values`` are keyed by the engine's column (0-based, the
    action an agent returns): +1 the mover wins with that move and perfect play after it,
    0 a draw, -1 a loss. ``source`` names seat 0 first.

    Every game's result is kept in a journal (``--journal``, by default under ``runs/``), so
    a rerun plays and labels only the games it has not got, and appends to ``--out`` only the
    positions missing there (a larger ``--count`` extends the set). Labelling one position
    stops after ``--cap`` seconds of CPU time; such a position is skipped and counted. CPU
    times (``process_time`` in the worker) are reported for playing and for labelling.

``accuracy``  (about a minute of CPU per 500 positions of ``mcts:simulations=1000``)
    For each ``--agent``, the share of positions where its move is optimal, with a 95% Wilson
    interval, also by ply band (12-19, 20-29, 30+), by the position's value for the mover
    (the best of its moves' values: win or draw; in a lost position every move loses, so a
    set made by ``positions`` holds none), by whether one move alone is optimal, and by
    source; next to it the share a
    uniformly random move would get (exact: the mean of optimal moves over legal moves) and
    the agent's mean CPU time a move; and each agent's difference from the first ``--agent``,
    paired on the positions. Each position gets a fresh agent seeded with
    ``derive_seed(--seed, position index)``, the same for every agent. ``--json`` keeps every
    agent's column in every position too.

Usage::

    nice -n 19 .venv/bin/python benchmarks/connect_four_accuracy.py positions \\
        --out benchmarks/data/connect_four_positions.jsonl --count 500 --seed 46 --workers 2
    .venv/bin/python benchmarks/connect_four_accuracy.py accuracy \\
        --positions benchmarks/data/connect_four_positions.jsonl --agent random \\
        --agent mcts:simulations=400 [--agent SPEC ...] [--seed 0] [--workers 2] [--json OUT]

Results: docs/results/connect-four-accuracy.md.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.core.rng import derive_seed
from paiju.core.runner import Backend, TaskJournal, run_journalled, run_tasks
from paiju.core.stats import Estimate, mean_ci, proportion_ci
from paiju.games.connect_four import REGISTRY, ConnectFour, ConnectFourState
from paiju.games.connect_four_solver import Solver, format_moves, parse_moves

MATCHUPS: tuple[tuple[str, str], ...] = (
    ("random", "mcts:simulations=50"),
    ("mcts:simulations=50", "mcts:simulations=200"),
    ("mcts:simulations=200", "mcts:simulations=800"),
    ("mcts:simulations=1000", "mcts:simulations=1000"),
)
"""The default pairs whose games the positions come from: a spread of strengths."""
MIN_PLY = 12
CAP_S = 120.0
"""CPU seconds one position may take to label before it is skipped."""
BANDS = ((12, 19, "12-19"), (20, 29, "20-29"), (30, 41, "30+"))
VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}
ONE, SEVERAL = "one optimal", "several optimal"
"""Positions where a single move keeps the result (a random move finds it least often)."""

# outcomes of one game
KEPT, SHORT, ALL_EQUAL = "kept", "short", "all equal"
"""kept: a position where the moves differ was found; short: the game ended before a position at
``min_ply``; all equal: in every position from ``min_ply`` on, every legal move had the same
value (or labelling went over the cap)."""


# ---- positions -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameTask:
    """Game ``game`` of a ``positions`` run: who plays it, and how its position is taken."""

    game: int
    game_seed: int
    seats: tuple[str, str]
    min_ply: int
    cap_s: float


def game_task(
    seed: int, game: int, matchups: Sequence[tuple[str, str]], min_ply: int, cap_s: float
) -> GameTask:
    """Game ``game`` of a run: pair ``game mod M``, the colours swapped every other round."""
    pair = matchups[game % len(matchups)]
    seats = pair if (game // len(matchups)) % 2 == 0 else (pair[1], pair[0])
    return GameTask(game, derive_seed(seed, game), seats, min_ply, cap_s)


class _OverCap(Exception):
    """Raised by the CPU-time alarm inside the solver."""


def _over_cap(signum: int, frame: FrameType | None) -> None:
    raise _OverCap


def label(solver: Solver, moves: Sequence[int], cap_s: float) -> dict[int, int] | None:
    """Every legal move's value, or None when labelling took more than ``cap_s`` CPU seconds."""
    previous = signal.signal(signal.SIGPROF, _over_cap)
    signal.setitimer(signal.ITIMER_PROF, cap_s)  # counts this process's CPU time, not the wall
    try:
        return solver.move_values(moves)
    except _OverCap:
        return None  # the table keeps only finished bounds: the solver stays usable
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def play_and_label(task: GameTask) -> dict[str, Any]:
    """Play one game, take its position and label it (see the module docstring)."""
    start = time.process_time()
    agents = [REGISTRY.make(spec, seed=derive_seed(task.game_seed, 1 + seat))
              for seat, spec in enumerate(task.seats)]
    played = play_game(ConnectFour(), agents, task.game_seed)
    columns = [int(a) for a in played.actions]
    result: dict[str, Any] = {
        "game": task.game, "game_seed": task.game_seed, "source": " vs ".join(task.seats),
        "length": len(columns), "play_cpu_s": round(time.process_time() - start, 4), "label_cpu_s": 0.0,
        "nodes": 0, "equal": 0, "over_cap": 0, "outcome": SHORT,
    }
    if len(columns) <= task.min_ply:  # no position at min_ply or later before the end
        return result
    rng = np.random.default_rng(derive_seed(task.game_seed, 0))
    solver = Solver()  # one table for the game: its positions share subtrees
    start = time.process_time()
    result["outcome"] = ALL_EQUAL
    for ply in task.min_ply + rng.permutation(len(columns) - task.min_ply):
        moves = columns[:int(ply)]
        values = label(solver, moves, task.cap_s)
        if values is None:
            result["over_cap"] += 1
        elif len(set(values.values())) == 1:
            result["equal"] += 1
        else:
            result.update(outcome=KEPT, ply=int(ply), moves=format_moves(moves),
                          values={str(c): v for c, v in sorted(values.items())})
            break
    result.update(label_cpu_s=round(time.process_time() - start, 4), nodes=solver.nodes)
    return result


def position_line(result: dict[str, Any]) -> dict[str, Any]:
    """The line of ``--out`` for a kept game's result."""
    return {key: result[key] for key in ("moves", "ply", "values", "source", "game_seed", "game")}


def select(results: Sequence[dict[str, Any]], count: int) -> tuple[list[dict[str, Any]], int]:
    """The first ``count`` kept positions of ``results`` (in game order) that no earlier game
    gave already, and how many repeats were passed over on the way."""
    seen: set[tuple[int, int]] = set()
    chosen: list[dict[str, Any]] = []
    repeats = 0
    for result in results:
        if len(chosen) == count:
            break
        if result["outcome"] != KEPT:
            continue
        board = Solver.position(parse_moves(result["moves"]))  # the same board by another order too
        if board in seen:
            repeats += 1
            continue
        seen.add(board)
        chosen.append(position_line(result))
    return chosen, repeats


def check_out(out: Path, seed: int, matchups: Sequence[tuple[str, str]], min_ply: int) -> None:
    """Refuse, before any game is played, an ``out`` whose positions another seed, other pairs
    or a higher minimum ply made."""
    if not out.exists():
        return
    for number, line in enumerate(out.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        raw = json.loads(line)
        task = game_task(seed, int(raw["game"]), matchups, min_ply, CAP_S)
        made = (raw["game_seed"], raw["source"])
        if made != (task.game_seed, " vs ".join(task.seats)) or raw["ply"] < min_ply:
            raise ConfigError(f"{out}:{number} is a position of another set (seed, pairs or minimum ply): "
                              f"use a new --out, or the arguments that made it")


def append_missing(out: Path, chosen: Sequence[dict[str, Any]]) -> int:
    """Append to ``out`` the chosen positions it lacks; refuse a file that is not a beginning
    of the same set (another seed or other pairs). Returns how many lines were appended."""
    have: list[dict[str, Any]] = []
    if out.exists():
        have = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
    key = ("game_seed", "moves")
    mine = [tuple(p[k] for k in key) for p in chosen[:len(have)]]
    if len(have) > len(chosen) or [tuple(p.get(k) for k in key) for p in have] != mine:
        raise ConfigError(f"{out} holds positions of another set (seed, pairs or minimum ply): "
                          f"use a new --out, or the arguments that made it")
    missing = chosen[len(have):]
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as f:
        for line in missing:
            f.write(json.dumps(line) + "\n")
    return len(missing)


def parse_matchup(text: str) -> tuple[str, str]:
    """``"A vs B"`` as the pair of agent specs (each checked against the registry)."""
    parts = [p.strip() for p in text.split(" vs ")]
    if len(parts) != 2 or not all(parts):
        raise ConfigError(f"--matchup {text!r}: write two agent specs as 'A vs B'")
    for spec in parts:
        REGISTRY.resolve(spec)
    return parts[0], parts[1]


def generate(
    out: Path, journal_path: Path, count: int, seed: int, matchups: Sequence[tuple[str, str]],
    min_ply: int = MIN_PLY, cap_s: float = CAP_S, workers: int = 1, progress: bool = True,
) -> dict[str, Any]:
    """Play and label games until ``count`` positions are kept; write the missing ones to
    ``out``; return the run's summary (counts and CPU times)."""
    if count < 1 or min_ply < 0 or cap_s <= 0:
        raise ConfigError(
            f"need --count >= 1, --min-ply >= 0 and --cap > 0 (got {count}, {min_ply}, {cap_s})"
        )
    # not the count: game g is the same in any run of the seed, so a larger count extends a run
    config = {"seed": seed, "matchups": [list(m) for m in matchups], "min_ply": min_ply, "cap_s": cap_s}
    check_out(out, seed, matchups, min_ply)
    journal: TaskJournal[dict[str, Any]] = TaskJournal(journal_path, config, lambda r: r, lambda r: r)
    played = max(journal.results, default=-1) + 1  # an interrupted run may have left gaps: filled first
    while True:
        tasks = [game_task(seed, g, matchups, min_ply, cap_s) for g in range(played)]
        results = run_journalled(play_and_label, tasks, journal, backend=Backend(workers=workers),
                                 progress=progress, label="games") if tasks else []
        chosen, _ = select(results, count)
        if len(chosen) == count:
            break
        if played > 100 * count:
            raise ConfigError(f"{played} games gave only {len(chosen)} positions: is --min-ply {min_ply} "
                              f"beyond these games' length?")
        kept_share = max(len(chosen) / played if played else 0.5, 0.05)
        # rounds of at most a quarter of the set, so a first guess of the share kept overshoots little
        more = min(math.ceil((count - len(chosen)) / kept_share * 1.1), math.ceil(count / 4))
        played += max(more, 2 * workers)
    appended = append_missing(out, chosen)
    return {"out": str(out), "appended": appended, **summarize_generation(results, chosen, config)}


def summarize_generation(results: Sequence[dict[str, Any]], chosen: Sequence[dict[str, Any]],
                         config: dict[str, Any]) -> dict[str, Any]:
    """Counts of the games the set needed (up to its last position's game) and CPU times of
    every game played."""
    last = chosen[-1]["game"] if chosen else -1
    needed = results[:last + 1]
    _, repeats = select(needed, len(chosen))
    outcomes = {o: sum(r["outcome"] == o for r in needed) for o in (KEPT, ALL_EQUAL, SHORT)}
    dropped = {"equal": sum(r["equal"] for r in needed), "over_cap": sum(r["over_cap"] for r in needed)}
    sources: dict[str, int] = {}
    for p in chosen:
        sources[p["source"]] = sources.get(p["source"], 0) + 1
    labelled = [r["label_cpu_s"] for r in results if r["outcome"] != SHORT]  # a game's positions
    return {
        **config, "positions": len(chosen), "games_needed": len(needed), "outcomes": outcomes,
        "positions_dropped": dropped, "repeats": repeats, "positions_by_source": sources,
        "games_played": len(results),
        "play_cpu_s": round(sum(r["play_cpu_s"] for r in results), 1),
        "label_cpu_s": round(sum(labelled), 1),
        "label_cpu_s_median": round(statistics.median(labelled), 4) if labelled else None,
        "label_cpu_s_max": round(max(labelled), 2) if labelled else None,
        "solver_nodes": sum(r["nodes"] for r in results),
    }


def positions_command(args: argparse.Namespace) -> None:
    matchups = [parse_matchup(m) for m in args.matchup] if args.matchup else list(MATCHUPS)
    journal = args.journal or Path("runs") / f"{args.out.stem}.journal.jsonl"
    summary = generate(args.out, journal, args.count, args.seed, matchups, args.min_ply, args.cap,
                       args.workers)
    print(json.dumps(summary, indent=1))


# ---- accuracy ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Position:
    """A labelled position of the set."""

    moves: str
    ply: int
    values: dict[int, int]
    source: str
    game_seed: int

    @property
    def value(self) -> int:
        """The mover's result with perfect play: the best of its moves' values."""
        return max(self.values.values())

    @property
    def optimal(self) -> frozenset[int]:
        """The columns that keep that result."""
        return frozenset(c for c, v in self.values.items() if v == self.value)

    @property
    def band(self) -> str:
        for low, high, name in BANDS:
            if low <= self.ply <= high:
                return name
        return f"under {BANDS[0][0]}"


def pairing(source: str) -> str:
    """A source with its colours forgotten (both seatings of a pair are one group)."""
    return " vs ".join(sorted(source.split(" vs ")))


def replay(moves: str) -> ConnectFourState:
    """The position after ``moves`` (Pons's notation) on the engine."""
    state = ConnectFour().new_initial_state()
    for column in parse_moves(moves):
        state.apply(column)
    return state


def load_positions(path: Path) -> list[Position]:
    """The positions of a set, each checked against the engine: its ply is its number of moves,
    the game is not over and its values cover exactly the legal columns."""
    positions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            position = Position(raw["moves"], int(raw["ply"]),
                                {int(c): int(v) for c, v in raw["values"].items()},
                                raw["source"], int(raw["game_seed"]))
            state = replay(position.moves)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
            raise ConfigError(f"{path}:{number}: not a labelled position ({err})") from None
        legal = [] if state.is_terminal() else state.legal_actions()
        if position.ply != len(position.moves) or sorted(position.values) != legal:
            raise ConfigError(f"{path}:{number}: ply {position.ply} and values for columns "
                              f"{sorted(position.values)} do not fit the position {position.moves} "
                              f"(ply {len(position.moves)}, legal columns {legal})")
        positions.append(position)
    if not positions:
        raise ConfigError(f"{path} holds no positions")
    return positions


@dataclass(frozen=True)
class MoveTask:
    """Some positions for one agent to play a move in."""

    spec: str
    seed: int
    positions: tuple[tuple[int, str], ...]
    """(index in the set, moves in Pons's notation)."""


def choose_moves(task: MoveTask) -> list[tuple[int, int, float, int]]:
    """``(position index, the agent's column, CPU seconds of the decision, simulations)`` for
    each position; simulations are the search's (``last_result``), 0 for an agent that does
    not search."""
    out = []
    for index, moves in task.positions:
        state = replay(moves)
        agent = REGISTRY.make(task.spec, seed=derive_seed(task.seed, index))
        player = state.current_player()
        start = time.process_time()
        column = int(agent.act(state.observation(player), state.legal_actions()))
        cpu = time.process_time() - start
        result = getattr(agent, "last_result", None)
        out.append((index, column, cpu, result.simulations if result is not None else 0))
    return out


def agent_moves(positions: Sequence[Position], spec: str, seed: int, workers: int = 1,
                chunk: int = 25) -> list[tuple[int, float, int]]:
    """The agent's column, decision CPU seconds and simulations in every position, in the
    set's order."""
    REGISTRY.resolve(spec)  # a bad spec fails here, not in a worker
    items = [(i, p.moves) for i, p in enumerate(positions)]
    tasks = [MoveTask(spec, seed, tuple(items[k:k + chunk])) for k in range(0, len(items), chunk)]
    found: dict[int, tuple[int, float, int]] = {}

    def consume(_k: int, rows: list[tuple[int, int, float, int]]) -> None:
        for index, column, cpu, simulations in rows:
            found[index] = (column, cpu, simulations)

    run_tasks(choose_moves, tasks, consume, backend=Backend(workers=workers),
              size=lambda t: len(t.positions), label=spec)
    return [found[i] for i in range(len(positions))]


def accuracy(positions: Sequence[Position], columns: Sequence[int]) -> dict[str, Any]:
    """The share of positions where ``columns[i]`` is optimal, overall and by ply band, value,
    number of optimal moves and source, each with the share a uniformly random move would get."""
    hits = [c in p.optimal for p, c in zip(positions, columns, strict=True)]
    groups: dict[str, dict[str, list[int]]] = {"band": {}, "value": {}, "optimal": {}, "source": {}}
    for i, p in enumerate(positions):
        groups["band"].setdefault(p.band, []).append(i)
        groups["value"].setdefault(VALUE_NAMES[p.value], []).append(i)
        groups["optimal"].setdefault(ONE if len(p.optimal) == 1 else SEVERAL, []).append(i)
        groups["source"].setdefault(pairing(p.source), []).append(i)

    def share(indices: Iterable[int]) -> dict[str, Any]:
        chosen = list(indices)
        random_share = statistics.fmean(len(positions[i].optimal) / len(positions[i].values) for i in chosen)
        return {**proportion_ci(sum(hits[i] for i in chosen), len(chosen)).as_dict(),
                "random_expected": round(random_share, 4)}

    return {
        "all": share(range(len(positions))),
        **{kind: {name: share(ix) for name, ix in sorted(by.items(), key=_group_order)}
           for kind, by in groups.items()},
    }


def _group_order(item: tuple[str, list[int]]) -> tuple[int, str]:
    order = [name for _, _, name in BANDS] + list(VALUE_NAMES.values()) + [ONE, SEVERAL]
    return (order.index(item[0]) if item[0] in order else len(order), item[0])


def _cell(share: dict[str, Any]) -> str:
    return Estimate(share["value"], share["low"], share["high"], share["n"]).text(".1f", interval=True,
                                                                                  percent=True)


def table(rows: Sequence[dict[str, Any]]) -> str:
    """A Markdown table: one agent a row, the share overall, by band, by value and where one
    move alone is optimal."""
    first = rows[0]["accuracy"]
    columns = [("all", "")] + [(kind, name) for kind in ("band", "value") for name in first[kind]]
    columns += [("optimal", ONE)] if ONE in first["optimal"] else []

    def pick(acc: dict[str, Any], kind: str, name: str) -> dict[str, Any]:
        share: dict[str, Any] = acc[kind] if kind == "all" else acc[kind][name]
        return share

    head = ["agent", *[f"{name or kind} (n={pick(first, kind, name)['n']})" for kind, name in columns],
            "CPU ms/move", "simulations/move (median)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        shown = [_cell(pick(row["accuracy"], kind, name)) for kind, name in columns]
        lines.append(f"| `{row['agent']}` | " + " | ".join(shown) + f" | {row['cpu_ms_per_move']:.1f} | "
                     f"{row['simulations_per_move']['median']:g} |")
    expected = [f"{100 * pick(first, kind, name)['random_expected']:.1f}%" for kind, name in columns]
    lines.append("| a uniformly random move (expected) | " + " | ".join(expected) + " | | |")
    return "\n".join(lines)


def paired_difference(
    positions: Sequence[Position], columns: Sequence[int], baseline: Sequence[int]
) -> Estimate:
    """How much more often ``columns`` than ``baseline`` is optimal on the same positions (the
    mean of the per-position differences, each -1, 0 or 1, with its interval)."""
    return mean_ci([float(a in p.optimal) - float(b in p.optimal)
                    for p, a, b in zip(positions, columns, baseline, strict=True)])


def accuracy_command(args: argparse.Namespace) -> None:
    positions = load_positions(args.positions)
    rows: list[dict[str, Any]] = []
    for spec in args.agent:
        start = time.perf_counter()
        moves = agent_moves(positions, spec, args.seed, args.workers)
        columns = [m for m, _, _ in moves]
        rows.append({
            "agent": spec, "accuracy": accuracy(positions, columns),
            "cpu_ms_per_move": 1000 * statistics.fmean(cpu for _, cpu, _ in moves),
            "simulations_per_move": {"median": statistics.median(n for _, _, n in moves),
                                     "mean": statistics.fmean(n for _, _, n in moves)},
            "columns": columns,
        })
        if len(rows) > 1:
            rows[-1]["minus_first"] = paired_difference(positions, columns, rows[0]["columns"]).as_dict()
        print(f"{spec}: {rows[-1]['accuracy']['all']['value']:.3f} "
              f"({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    print(table(rows))
    for row in rows[1:]:
        d = row["minus_first"]
        print(f"`{row['agent']}` - `{rows[0]['agent']}` on the same positions: "
              f"{Estimate(d['value'], d['low'], d['high'], d['n']).text('+.3f', interval=True)}")
    if args.json:
        report = {"positions": str(args.positions), "n": len(positions), "seed": args.seed, "agents": rows}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_pos = sub.add_parser("positions", help="play, label and write the position set")
    p_pos.add_argument("--out", type=Path, required=True)
    p_pos.add_argument("--count", type=int, default=500)
    p_pos.add_argument("--seed", type=int, default=46)
    p_pos.add_argument("--matchup", action="append", default=[],
                       help="'A vs B' (repeat for more pairs; default: the module's MATCHUPS)")
    p_pos.add_argument("--min-ply", type=int, default=MIN_PLY)
    p_pos.add_argument("--cap", type=float, default=CAP_S, help="CPU seconds to label one position")
    p_pos.add_argument("--workers", type=int, default=1)
    p_pos.add_argument("--journal", type=Path, default=None,
                       help="every game's result, to resume from (default runs/<out's name>.journal.jsonl)")
    p_acc = sub.add_parser("accuracy", help="each agent's share of optimal moves on the set")
    p_acc.add_argument("--positions", type=Path, required=True)
    p_acc.add_argument("--agent", action="append", required=True)
    p_acc.add_argument("--seed", type=int, default=0)
    p_acc.add_argument("--workers", type=int, default=1)
    p_acc.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    try:
        {"positions": positions_command, "accuracy": accuracy_command}[args.command](args)
    except ConfigError as err:
        parser.exit(2, f"error: {err}\n")


if __name__ == "__main__":
    main()
