"""The arena: matches between agent line-ups, with seat rotation, reported with 95% intervals.

A match is a *plan*: a list of games, each a deal seed and a seat -> agent assignment. The
deal (every chance event, of which the deal/shuffle is the first) is drawn from the game's
deal seed alone, so replaying a seed with the seats permuted replays the same cards — that
is all "duplicate" means. Seeds come from :func:`paiju.core.rng.derive_seed`: deal ``d`` of a
run with seed ``S`` uses ``derive_seed(S, d)``; the agent in seat ``s`` of game ``i`` is built
with ``derive_seed(S, i, 1 + s)``. Game ``i`` is therefore the same game whether it is played
first or last, in this process or another, before or after a resume.

Formats (a game's registry entry says which it supports); ``k`` line-ups per deal:

* ``duplicate`` — one agent per side (Dou Dizhu: landlord | farmers); every deal is replayed
  with the agents cycled over the sides: A landlord vs B farmers, then B landlord vs A farmers.
* ``swap`` — 2-player games: A B, then B A on the same deal.
* ``rotation`` — one agent per seat, cycled so every agent sits in every seat on every deal.
* ``2v2`` — 4-seat games with two agents: A B A B, then B A B A (the mahjong paper's set-up).
* ``2v2-all`` — 4-seat games with two agents, two seats each, over every distinct seating:
  the 6 arrangements of two A and two B seats (AABB, ABAB, ABBA, BAAB, BABA, BBAA) on every
  deal, so seat order and adjacency (who discards to whom) cancel out too. ``2v2`` keeps its
  meaning because recorded runs and their resume depend on it.
* ``fixed`` — agents seated as given (or one agent in every seat: self-play).

``n_games`` counts games, so it must be a multiple of ``k``.

Reported per agent and role (the role of a seat, e.g. landlord / farmer; ``all`` = the agent's
whole game): an agent's *points* in a game are the sum of the returns of the seats it holds
in that role. A game is a *win* when the points are > 0, a draw at 0; WP counts a draw as half
a win (draws are also reported). ADP is the mean points per game. The *duplicate score* of an
agent is, per deal, its points summed over the deal's ``k`` line-ups, averaged over deals
(luck of the deal cancels out); with two agents the *paired difference* is half the per-deal
difference of their duplicate scores, which in zero-sum Dou Dizhu equals (A's landlord score)
- (B's landlord score) on the same cards. Decision times are wall-clock milliseconds per
``act`` call (median and 95th percentile).
"""

from __future__ import annotations

import itertools
import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

import paiju
from paiju.core.agents import AgentRegistry, check_can_play
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import Game, PlayedGame, play_game
from paiju.core.records import RUN_FILE, RecordWriter, read_records, record_fields, run_id_of
from paiju.core.registry import GameEntry, get_entry
from paiju.core.rng import derive_seed
from paiju.core.runner import Backend, Progress, run_tasks
from paiju.core.stats import Estimate, mean_ci, proportion_ci


# ---- the match plan ------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlannedGame:
    """One game of a match: its index, its deal, and which agent sits in each seat."""

    index: int
    deal_index: int
    lineup: int
    seed: int
    seat_agents: tuple[int, ...]


def lineups(fmt: str, n_agents: int, entry: GameEntry) -> list[tuple[int, ...]]:
    """Seat -> agent-index assignments played on every deal under format ``fmt``."""
    n = entry.num_players
    if fmt not in entry.formats:
        raise ConfigError(
            f"format {fmt!r} is not available for {entry.name}; supported: {', '.join(entry.formats)}"
        )
    if fmt == "fixed":
        if n_agents == 1:
            return [(0,) * n]
        _need(fmt, n_agents, n, f"one per seat of {entry.name} (or one for every seat)")
        return [tuple(range(n))]
    if fmt == "rotation":
        _need(fmt, n_agents, n, f"one per seat of {entry.name}")
        return [tuple((s - j) % n for s in range(n)) for j in range(n)]
    if fmt == "swap":
        if n != 2:
            raise ConfigError(f"format 'swap' is for 2-player games; {entry.name} has {n} seats")
        _need(fmt, n_agents, 2, "A and B")
        return [(0, 1), (1, 0)]
    if fmt in ("2v2", "2v2-all"):
        return _two_vs_two(fmt, n_agents, entry)
    if fmt == "duplicate":
        sides = list(entry.sides().values())
        if len(sides) < 2:
            raise ConfigError(f"format 'duplicate' needs a game with sides; {entry.name} has one role")
        _need(fmt, n_agents, len(sides), f"one per side of {entry.name} ({', '.join(entry.sides())})")
        out = []
        for j in range(len(sides)):
            seats = [0] * n
            for side_no, side in enumerate(sides):
                for seat in side:
                    seats[seat] = (side_no + j) % len(sides)
            out.append(tuple(seats))
        return out
    raise ConfigError(f"unknown arena format {fmt!r}")


def _two_vs_two(fmt: str, n_agents: int, entry: GameEntry) -> list[tuple[int, ...]]:
    """A B A B / B A B A (``2v2``), or all 6 seatings of two A and two B seats (``2v2-all``)."""
    if entry.num_players != 4:
        raise ConfigError(f"format {fmt!r} is for 4-player games; {entry.name} has {entry.num_players} seats")
    if fmt == "2v2":
        _need(fmt, n_agents, 2, "A and B, seated A B A B then B A B A")
        return [(0, 1, 0, 1), (1, 0, 1, 0)]
    _need(fmt, n_agents, 2, "A and B, two seats each, in all 6 seatings")
    return [s for s in itertools.product((0, 1), repeat=4) if sum(s) == 2]


def _need(fmt: str, got: int, want: int, what: str) -> None:
    if got != want:
        raise ConfigError(f"format {fmt!r} needs {want} agents ({what}), got {got}")


def match_plan(lineup_list: Sequence[tuple[int, ...]], n_games: int, seed: int) -> list[PlannedGame]:
    """Games ``0..n_games-1``: deal ``i // k`` replayed under each of the ``k`` line-ups."""
    k = len(lineup_list)
    if n_games < 1:
        raise ConfigError(f"the number of games must be positive, got {n_games}")
    if n_games % k:
        lower, upper = n_games - n_games % k, n_games - n_games % k + k
        raise ConfigError(
            f"{n_games} games is not a whole number of deals: this format plays every deal {k} times; "
            f"use {lower or upper} or {upper}"
        )
    return [
        PlannedGame(i, i // k, i % k, derive_seed(seed, i // k), tuple(lineup_list[i % k]))
        for i in range(n_games)
    ]


def agent_seed(run_seed: int, game_index: int, seat: int) -> int:
    """The seed of the agent in ``seat`` of game ``game_index``."""
    return derive_seed(run_seed, game_index, 1 + seat)


# ---- playing one game ----------------------------------------------------------------------------
def game_row(
    game_name: str, game: Game, played: PlayedGame, planned: PlannedGame, specs: Sequence[str],
    roles: Sequence[str], run_id: str, fmt: str,
) -> dict[str, Any]:
    """The record row of a finished arena game (schema: :data:`paiju.core.records.SCHEMA`);
    ``game_name`` is the registry name (what ``--game`` takes and queries filter on)."""
    fields = record_fields(game, played.state, played.actions)
    deal = fields.deal
    if deal is None:  # generic: the opening chance outcomes
        opening = []
        for text, player in zip(played.moves, played.players, strict=True):
            if player >= 0:
                break
            opening.append(text)
        deal = " ".join(opening) if opening else None
    return {
        "run_id": run_id,
        "game_index": planned.index,
        "deal_index": planned.deal_index,
        "lineup": planned.lineup,
        "game": game_name,
        "rules_version": game.info.rules_version,
        "arena_format": fmt,
        "seed": planned.seed,
        "deal": deal,
        "dealer_seat": fields.dealer_seat,
        "agents": [specs[a] for a in planned.seat_agents],
        "seat_agents": list(planned.seat_agents),
        "roles": list(fields.roles if fields.roles is not None else roles),
        "moves": played.moves,
        "move_players": played.players,
        "move_ms": played.move_ms,
        "returns": [float(r) for r in played.state.returns()],
        "score": fields.score,
        "scoring_rule": fields.scoring_rule,
        "paiju_version": paiju.__version__,
        "extra": json.dumps(fields.extra, sort_keys=True, default=str) if fields.extra else None,
    }


# ---- batches (run in this process or in worker processes) ----------------------------------------
@dataclass(frozen=True)
class BatchTask:
    """Games of one run played as one runner task (everything a worker process needs)."""

    game_name: str
    options_json: str
    specs: tuple[str, ...]
    run_seed: int
    run_id: str
    fmt: str
    games: tuple[PlannedGame, ...]


_WORKER_CACHE: dict[tuple[str, str], tuple[Game, AgentRegistry, GameEntry]] = {}


def play_planned(
    game: Game, registry: AgentRegistry, resolved: Sequence[Any], run_seed: int, planned: PlannedGame
) -> PlayedGame:
    """Game ``planned.index`` of a run: its seated agents built from their seeds, then played."""
    agents = [
        registry.make(resolved[a], seed=agent_seed(run_seed, planned.index, seat))
        for seat, a in enumerate(planned.seat_agents)
    ]
    return play_game(game, agents, planned.seed, notation=True)


def _load(game_name: str, options_json: str) -> tuple[Game, AgentRegistry, GameEntry]:
    key = (game_name, options_json)
    if key not in _WORKER_CACHE:
        entry = get_entry(game_name)
        game = entry.load_game(**json.loads(options_json))
        _WORKER_CACHE[key] = (game, entry.load_agents(game), entry)
    return _WORKER_CACHE[key]


def play_batch(task: BatchTask) -> list[dict[str, Any]]:
    """The runner's task function (top-level, so picklable): a batch of planned games into rows."""
    game, registry, entry = _load(task.game_name, task.options_json)
    resolved = [registry.resolve(spec) for spec in task.specs]
    rows = []
    for planned in task.games:
        played = play_planned(game, registry, resolved, task.run_seed, planned)
        rows.append(
            game_row(entry.name, game, played, planned, task.specs, entry.roles, task.run_id, task.fmt)
        )
    return rows


# ---- replaying recorded games --------------------------------------------------------------------
@dataclass(frozen=True)
class ReplayCheck:
    """One recorded game replayed with the code installed now."""

    game_index: int
    recorded_moves: int
    identical: bool
    first_difference: int | None
    """Index of the first move that differs (or where one list ends first); None when identical."""


def replay_check(out_dir: str | Path, game_indices: Sequence[int]) -> list[ReplayCheck]:
    """Replay recorded arena games from their seeds and compare every move with the record.

    Game ``i`` of a run is fixed by the run's configuration (``run.json``: game, options, agent
    specs, format, seed), so replaying it must give the recorded moves move for move — the
    check that a long run resumed across sessions (or code changes) is one experiment. Agents
    whose play depends on the clock (a time cap) can legitimately differ.
    """
    folder = Path(out_dir)
    run_file = folder / RUN_FILE
    if not run_file.exists():
        raise ConfigError(f"{folder}: no {RUN_FILE}, so not a folder of arena records")
    try:
        header = json.loads(run_file.read_text())
        config = header["config"]
        kind = config.get("kind") if isinstance(config, dict) else None
        if kind is not None and "agents" not in config:
            # e.g. a Botzone judge run: external programs played it, there are no agents to rerun
            raise ConfigError(
                f"{folder} is a {kind} run: its games were played by external programs, so they "
                "cannot be replayed from seeds like an arena run (show them with `paiju records show`)"
            )
        game_name, specs, seed = config["game"], config["agents"], config["seed"]
        fmt, options = config["format"], config["game_options"]
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as err:
        raise CorruptRecordError(f"{run_file}: not an arena run header ({err!r})") from None
    setup = setup_match(game_name, specs, seed, fmt, options)
    if setup.run_id != header.get("run_id"):
        raise ConfigError(
            f"{folder} was recorded as run {header.get('run_id')}, but its configuration gives "
            f"{setup.run_id} with this code (rules version now {setup.game.info.rules_version!r}; or an "
            "agent's name changed meaning): "
            "the games cannot be replayed under the same rules"
        )
    table = read_records(folder, columns=["game_index", "moves"])
    recorded = dict(zip(table["game_index"].to_pylist(), table["moves"].to_pylist(), strict=True))
    missing = [i for i in game_indices if i not in recorded]
    if missing:
        raise ConfigError(f"{folder} has no recorded game {missing[0]} ({len(recorded)} games recorded)")
    registry = setup.entry.load_agents(setup.game)
    resolved = [registry.resolve(s) for s in setup.specs]
    k = len(setup.lineups)
    plan = match_plan(setup.lineups, (max(game_indices, default=0) // k + 1) * k, seed)
    checks = []
    for i in game_indices:
        moves = play_planned(setup.game, registry, resolved, seed, plan[i]).moves
        old = recorded[i]
        diff = next((j for j, (a, b) in enumerate(zip(moves, old, strict=False)) if a != b), None)
        if diff is None and len(moves) != len(old):
            diff = min(len(moves), len(old))
        checks.append(ReplayCheck(i, len(old), diff is None, diff))
    return checks


# ---- running a match -----------------------------------------------------------------------------
@dataclass(frozen=True)
class MatchSetup:
    """A validated match: the game entry and instance, canonical agent specs, format, plan."""

    entry: GameEntry
    game: Game
    specs: tuple[str, ...]
    fmt: str
    lineups: tuple[tuple[int, ...], ...]
    options: dict[str, Any]
    run_config: dict[str, Any]

    @property
    def run_id(self) -> str:
        return run_id_of(self.run_config)


@dataclass
class RunResult:
    """What :func:`run_games` did: the run id, games played now and skipped (already recorded)."""

    run_id: str
    run_config: dict[str, Any]
    n_games: int
    played: int
    skipped: int
    out_dir: Path | None
    setup: MatchSetup
    rows: list[dict[str, Any]] | None = None
    """The rows of the games played now (when kept in memory)."""


def setup_match(
    game_name: str,
    agent_specs: Sequence[str],
    seed: int = 0,
    fmt: str | None = None,
    game_options: dict[str, Any] | None = None,
) -> MatchSetup:
    """Validate everything up front (game, format, agent specs) before any game is played."""
    entry = get_entry(game_name)
    options = dict(game_options or {})
    try:
        options_json = json.dumps(options, sort_keys=True)
    except TypeError:
        raise ConfigError(f"game options must be JSON values, got {options!r}") from None
    game = entry.load_game(**options)
    registry = entry.load_agents(game)
    if not agent_specs:
        raise ConfigError("no agents given")
    specs = tuple(str(registry.resolve(s)) for s in agent_specs)
    # build each agent once: what only its constructor or check_game checks (a model file that
    # is missing, for another game or another board) fails here, before a record folder is
    # started with this run
    check_can_play([registry.make(spec, seed=0) for spec in specs], game)
    fmt = fmt or entry.default_format
    lineup_list = tuple(lineups(fmt, len(specs), entry))
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"seed must be an integer, got {seed!r}")
    run_config = {
        "kind": "arena",
        "game": game_name,
        "game_options": json.loads(options_json),
        "rules_version": game.info.rules_version,
        "agents": list(specs),
        "format": fmt,
        "seed": seed,
    }
    # an agent name that has changed meaning: a run under its old meaning is another run
    names = {spec.partition(":")[0] for spec in specs}
    revisions = {n: registry.revision(n) for n in sorted(names) if registry.revision(n) > 1}
    if revisions:
        run_config["agent_revisions"] = revisions
    return MatchSetup(entry, game, specs, fmt, lineup_list, options, run_config)


def run_games(
    game_name: str,
    agent_specs: Sequence[str],
    n_games: int,
    seed: int = 0,
    out_dir: str | Path | None = None,
    workers: int = 1,
    progress: Progress = False,
    *,
    fmt: str | None = None,
    game_options: dict[str, Any] | None = None,
    batch_size: int | None = None,
    keep_rows: bool | None = None,
    backend: Backend | None = None,
) -> RunResult:
    """Play games ``0..n_games-1`` of a match, recording them to ``out_dir`` with resume.

    With ``out_dir``, games already recorded there (same run configuration) are skipped and
    each finished batch is written atomically, so an interrupted run restarted with the same
    arguments finishes the job without losing or duplicating games; ``n_games`` may also grow
    to extend a finished run. Batches of games are tasks of :func:`paiju.core.runner.run_tasks`:
    ``workers > 1`` plays them in spawned processes, ``backend=Backend(ray=True, ...)`` on Ray;
    the rows are identical to ``workers=1`` (only decision times differ). ``progress`` is True
    for a Rich progress bar or a callable ``(games_done, games_total)`` called after every
    batch. ``keep_rows`` (default: only without ``out_dir``) returns the rows played in memory.
    """
    setup = setup_match(game_name, agent_specs, seed, fmt, game_options)
    plan = match_plan(setup.lineups, n_games, seed)
    backend = backend if backend is not None else Backend(workers=workers)
    keep = out_dir is None if keep_rows is None else keep_rows
    writer = RecordWriter(out_dir, setup.run_config) if out_dir is not None else None
    try:
        done = writer.done_indices() if writer is not None else set()
        todo = [p for p in plan if p.index not in done]
        skipped = n_games - len(todo)
        if batch_size is None:
            batch_size = max(1, min(200, math.ceil(len(todo) / (backend.workers * 16)) if todo else 1))
        options_json = json.dumps(setup.options, sort_keys=True)
        tasks = [
            BatchTask(game_name, options_json, setup.specs, seed, setup.run_id, setup.fmt,
                      tuple(todo[i : i + batch_size]))
            for i in range(0, len(todo), batch_size)
        ]
        kept: list[dict[str, Any]] = []

        def consume(_index: int, rows: list[dict[str, Any]]) -> None:
            if writer is not None:
                writer.write_batch(rows)
            if keep:
                kept.extend(rows)

        run_tasks(
            play_batch, tasks, consume, backend=backend, progress=progress, size=lambda t: len(t.games),
            done=skipped, total=n_games, label=f"{game_name} {setup.fmt}",
        )
        kept.sort(key=lambda r: r["game_index"])
        return RunResult(
            setup.run_id, setup.run_config, n_games, len(todo), skipped,
            None if out_dir is None else Path(out_dir), setup, kept if keep else None,
        )
    finally:
        if writer is not None:
            writer.close()


# ---- the report ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RoleStats:
    """One agent in one role (``all`` = whole games)."""

    agent: str
    role: str
    games: int
    wins: int
    draws: int
    losses: int
    wp: Estimate
    adp: Estimate

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent, "role": self.role, "games": self.games, "wins": self.wins,
            "draws": self.draws, "losses": self.losses, "wp": self.wp.as_dict(), "adp": self.adp.as_dict(),
        }


@dataclass(frozen=True)
class DecisionTimes:
    agent: str
    decisions: int
    median_ms: float
    p95_ms: float

    def as_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "decisions": self.decisions, "median_ms": self.median_ms,
                "p95_ms": self.p95_ms}


class GameSummary(Protocol):
    """A game's own figures over the arena's rows (its ``summarize_arena(rows, labels)`` hook;
    e.g. mahjong matches: hands per match, match wins)."""

    @property
    def name(self) -> str:
        """Key of the summary in the report's JSON."""

    @property
    def unit(self) -> str:
        """What one arena game is (``matches``), for the titles."""

    def as_dict(self) -> dict[str, Any]: ...

    def table(self) -> Any: ...


@dataclass
class ArenaReport:
    """WP and ADP per agent and role, duplicate scores, and decision times."""

    game: str
    fmt: str
    agents: list[str]
    specs: list[str]
    seed: int
    run_id: str
    n_games: int
    n_deals: int
    roles: list[RoleStats]
    duplicate: dict[str, Estimate] = field(default_factory=dict)
    paired_difference: Estimate | None = None
    timing: list[DecisionTimes] = field(default_factory=list)
    out_dir: str | None = None
    game_summary: GameSummary | None = None

    def stats(self, agent: str, role: str = "all") -> RoleStats:
        for s in self.roles:
            if s.agent == agent and s.role == role:
                return s
        raise KeyError(f"no statistics for agent {agent!r} in role {role!r}")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.game,
            "format": self.fmt,
            "agents": self.agents,
            "specs": self.specs,
            "seed": self.seed,
            "run_id": self.run_id,
            "games": self.n_games,
            "deals": self.n_deals,
            "win_rule": "win: points > 0; draw (points == 0) counts as half a win in wp",
            "roles": [s.as_dict() for s in self.roles],
            "duplicate": {a: e.as_dict() for a, e in self.duplicate.items()},
            "paired_difference": None if self.paired_difference is None else self.paired_difference.as_dict(),
            "decision_time": [t.as_dict() for t in self.timing],
            "records": self.out_dir,
        }
        if self.game_summary is not None:
            out[self.game_summary.name] = self.game_summary.as_dict()
        return out

    def tables(self) -> list[Any]:
        """Rich tables: per agent and role; duplicate scores; decision times."""
        from rich.table import Table

        unit = "games" if self.game_summary is None else self.game_summary.unit
        title = f"{self.game}, {self.fmt}: {self.n_games} {unit}, {self.n_deals} deals, seed {self.seed}"
        main = Table(title=title)
        for col in ("agent", "role", "games", "WP (95% CI)", "draws", "ADP (95% CI)"):
            main.add_column(col, justify="left" if col in ("agent", "role") else "right")
        for s in self.roles:
            main.add_row(s.agent, s.role, str(s.games), _fmt_ci(s.wp, pct=True), str(s.draws), _fmt_ci(s.adp))
        out = [main]
        if self.duplicate:
            dup = Table(title="duplicate score per deal")
            dup.add_column("agent")
            dup.add_column("score/deal (95% CI)", justify="right")
            for a, e in self.duplicate.items():
                dup.add_row(a, _fmt_ci(e))
            if self.paired_difference is not None:
                # half the per-deal difference of the two duplicate scores (in a zero-sum
                # game this equals the first agent's duplicate score), so say "/ 2"
                dup.add_row(
                    f"({self.agents[0]} − {self.agents[1]}) / 2, paired", _fmt_ci(self.paired_difference)
                )
            out.append(dup)
        if self.timing:
            tt = Table(title="decision time (ms per move)")
            for col in ("agent", "decisions", "median", "p95"):
                tt.add_column(col, justify="left" if col == "agent" else "right")
            for t in self.timing:
                tt.add_row(t.agent, str(t.decisions), f"{t.median_ms:.3f}", f"{t.p95_ms:.3f}")
            out.append(tt)
        if self.game_summary is not None:
            out.append(self.game_summary.table())
        return out


def _fmt_ci(e: Estimate, pct: bool = False) -> str:
    if e.n == 0 or math.isnan(e.value):
        return "—"
    k, digits, unit = (100.0, 1, "%") if pct else (1.0, 2, "")
    if math.isinf(e.low):
        return f"{e.value * k:.{digits}f}{unit}"
    return f"{e.value * k:.{digits}f}{unit} [{e.low * k:.{digits}f}, {e.high * k:.{digits}f}]"


def agent_labels(specs: Sequence[str]) -> list[str]:
    """Report names: the spec, numbered when the same spec plays more than once (``random#2``)."""
    counts: dict[str, int] = defaultdict(int)
    for s in specs:
        counts[s] += 1
    seen: dict[str, int] = defaultdict(int)
    labels = []
    for s in specs:
        seen[s] += 1
        labels.append(f"{s}#{seen[s]}" if counts[s] > 1 else s)
    return labels


def summarize(
    rows: Sequence[dict[str, Any]], setup: MatchSetup, seed: int, out_dir: str | None = None
) -> ArenaReport:
    """Build the report from game rows (fresh or read back from records)."""
    labels = agent_labels(setup.specs)
    per_deal: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        per_deal[row["deal_index"]].append(row)
    duplicate: dict[str, Estimate] = {}
    paired: Estimate | None = None
    if len(setup.lineups) > 1:
        duplicate, paired = _duplicate_estimates(per_deal, len(setup.lineups), labels)
    hook = getattr(setup.game, "summarize_arena", None)  # a game's own figures (mahjong matches)
    return ArenaReport(
        setup.entry.name, setup.fmt, labels, list(setup.specs), seed, setup.run_id, len(rows), len(per_deal),
        _role_stats(rows, labels), duplicate, paired, _decision_times(rows, labels), out_dir,
        None if hook is None else hook(rows, labels),
    )


def _role_stats(rows: Sequence[dict[str, Any]], labels: list[str]) -> list[RoleStats]:
    """Each agent's results over whole games (``all``) and in each role it played, roles in
    the order they first appear."""
    points: dict[tuple[int, str], list[float]] = defaultdict(list)
    role_order: list[str] = []
    for row in rows:
        seat_agents, roles, returns = row["seat_agents"], row["roles"], row["returns"]
        for agent in sorted(set(seat_agents)):
            seats = [s for s, a in enumerate(seat_agents) if a == agent]
            points[(agent, "all")].append(math.fsum(returns[s] for s in seats))
            for role in dict.fromkeys(roles[s] for s in seats):
                if role not in role_order:
                    role_order.append(role)
                points[(agent, role)].append(math.fsum(returns[s] for s in seats if roles[s] == role))
    stats = []
    for agent in range(len(labels)):
        for role in ["all", *role_order]:
            values = points.get((agent, role))
            if not values:
                continue
            wins = sum(v > 0 for v in values)
            draws = sum(v == 0 for v in values)
            stats.append(RoleStats(
                labels[agent], role, len(values), wins, draws, len(values) - wins - draws,
                proportion_ci(wins + 0.5 * draws, len(values)), mean_ci(values),
            ))
    return stats


def _duplicate_estimates(
    per_deal: dict[int, list[dict[str, Any]]], k: int, labels: list[str]
) -> tuple[dict[str, Estimate], Estimate | None]:
    """Duplicate format: each agent's total over all ``k`` lineups of a deal, and for two
    agents the paired half-difference A - B per deal (``None`` for more agents)."""
    totals: dict[int, list[float]] = defaultdict(list)
    diffs: list[float] = []
    for group in per_deal.values():
        if sorted(r["lineup"] for r in group) != list(range(k)):
            continue  # an incomplete deal (a run cut short) is not a paired comparison
        deal_totals = [0.0] * len(labels)
        for r in group:
            for s, a in enumerate(r["seat_agents"]):
                deal_totals[a] += r["returns"][s]
        for agent, total in enumerate(deal_totals):
            totals[agent].append(total)
        if len(labels) == 2:
            diffs.append((deal_totals[0] - deal_totals[1]) / 2)
    duplicate = {labels[a]: mean_ci(v) for a, v in sorted(totals.items())}
    return duplicate, mean_ci(diffs) if len(labels) == 2 else None


def _decision_times(rows: Sequence[dict[str, Any]], labels: list[str]) -> list[DecisionTimes]:
    """Median and 95th percentile of each agent's move times (chance moves have no player)."""
    times: dict[int, list[float]] = defaultdict(list)
    for row in rows:
        seat_agents = row["seat_agents"]
        for player, ms in zip(row["move_players"], row["move_ms"], strict=True):
            if player >= 0:
                times[seat_agents[player]].append(ms)
    return [
        DecisionTimes(labels[a], len(v), float(np.median(v)), float(np.percentile(v, 95)))
        for a, v in sorted(times.items())
    ]


_REPORT_COLUMNS = (
    "run_id", "game_index", "deal_index", "lineup", "seat_agents", "roles", "returns",
    "move_players", "move_ms",
)


def run_arena(
    game_name: str,
    agent_specs: Sequence[str],
    n_games: int,
    seed: int = 0,
    *,
    fmt: str | None = None,
    workers: int = 1,
    out_dir: str | Path | None = None,
    progress: Progress = False,
    game_options: dict[str, Any] | None = None,
    batch_size: int | None = None,
    backend: Backend | None = None,
) -> ArenaReport:
    """Play a match and report it; with ``out_dir`` the games are recorded (and resumed).
    ``backend`` (e.g. ``Backend(workers=8, ray=True)``) overrides ``workers``."""
    result = run_games(
        game_name, agent_specs, n_games, seed, out_dir, workers, progress,
        fmt=fmt, game_options=game_options, batch_size=batch_size, keep_rows=out_dir is None,
        backend=backend,
    )
    setup = result.setup
    if out_dir is None:
        rows = result.rows or []
    else:
        # the game's own summary reads the game-specific column too
        extra = ("extra",) if hasattr(setup.game, "summarize_arena") else ()
        table = read_records(out_dir, columns=[*_REPORT_COLUMNS, *extra])
        rows = [r for r in table.to_pylist() if r["run_id"] == result.run_id and r["game_index"] < n_games]
    return summarize(rows, setup, seed, None if out_dir is None else str(out_dir))
