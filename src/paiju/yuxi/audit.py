"""Self-play bug hunting: play many games with the invariant checker on, report replayable cases.

The talk found rule bugs by letting the AI play (a coin discount that also applied when
recycling coins; fog halving before an eat instead of after). :func:`run_audit` plays
random and search self-play across every board with
:func:`~paiju.yuxi.invariants.check_invariants` after every action. A violation (or any
exception the engine raises mid-game) is reported with

* the game's seed, room (board, decks, die) and agent specs, which replay it by playing
  the same seeded game again (:func:`replay_seed`), and
* the full move list in notation, chance outcomes included, which replays it with no
  agents at all (:func:`replay_moves`), stopping at the failing step.

``effect_overrides`` plays the audit with some effects replaced, which is how the tests
inject a deliberately buggy effect and check that the audit catches and replays it.
"""

from __future__ import annotations

import dataclasses
import json
import traceback
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import play_game
from paiju.core.rng import as_generator, derive_seed
from paiju.core.runner import Backend, Progress, TaskJournal, run_journalled
from paiju.yuxi.board import BOARDS
from paiju.yuxi.cards import table_fingerprint
from paiju.yuxi.effects import EffectFn
from paiju.yuxi.game import RULES_VERSION, YuxiConfig, YuxiGame, YuxiState
from paiju.yuxi.invariants import InvariantViolation


@dataclass
class Violation:
    """One failing game: where it failed, why, and how to replay it."""

    game_index: int
    seed: int
    board: str
    decks: tuple[str, str]
    die_bonus: bool
    agents: tuple[str, str]
    step: int
    """Index in ``moves`` of the action whose application failed."""
    invariant: str
    """The invariant's name, or ``"exception"`` for an engine crash."""
    detail: str
    moves: list[str] = field(default_factory=list)
    cards_file: str | None = None
    decks_file: str | None = None
    table_hash: str = ""
    """:func:`paiju.yuxi.cards.table_fingerprint` of the card table the game was played
    with ("" in reports older than card files): a replay on another table is refused."""
    in_search: bool = False
    """Found on a state an agent visited inside its search (audits with ``in_search``), while
    deciding move ``step``: the moves replay cleanly up to that decision, and the seeded
    game (:func:`replay_seed`, with the search checked) reproduces it."""

    def config(self) -> YuxiConfig:
        return YuxiConfig(
            board=self.board, decks=self.decks, die_bonus=self.die_bonus,
            cards_file=self.cards_file, decks_file=self.decks_file,
        )

    def describe(self) -> str:
        where = (
            f"inside the search for move {self.step}, a step"
            if self.in_search
            else f"step {self.step} '{self.moves[self.step] if self.step < len(self.moves) else '?'}'"
        )
        return (
            f"game {self.game_index} (seed {self.seed}, {self.board}, "
            f"decks {self.decks[0]} vs {self.decks[1]}, "
            f"die {'on' if self.die_bonus else 'off'}, agents {self.agents[0]} vs {self.agents[1]}): "
            f"{where} broke {self.invariant}: {self.detail}"
        )


@dataclass
class AuditReport:
    games: int
    steps: int
    seed: int
    violations: list[Violation]
    games_by_agents: dict[str, int]
    table_hash: str = ""
    cards_file: str | None = None
    decks_file: str | None = None

    def check_table(self, cards_file: str | Path | None = None, decks_file: str | Path | None = None) -> None:
        """Refuse (ConfigError naming both hashes) when the card table of ``cards_file`` /
        ``decks_file`` (each defaulting to the one the report was made with) is another."""
        config = YuxiConfig(
            cards_file=str(cards_file) if cards_file is not None else self.cards_file,
            decks_file=str(decks_file) if decks_file is not None else self.decks_file,
        )
        check_table_hash(self.table_hash, config, "the report")

    @property
    def clean(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "steps": self.steps,
            "seed": self.seed,
            "games_by_agents": self.games_by_agents,
            "table_hash": self.table_hash,
            "cards_file": self.cards_file,
            "decks_file": self.decks_file,
            "violations": [asdict(v) for v in self.violations],
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(
            json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )


def _load_violation(v: dict[str, Any]) -> Violation:
    return Violation(**{**v, "decks": tuple(v["decks"]), "agents": tuple(v["agents"])})


def load_report(path: str | Path) -> AuditReport:
    """An audit report written by :meth:`AuditReport.save`; a bad file is a CorruptRecordError."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        violations = [_load_violation(v) for v in data["violations"]]
        return AuditReport(
            data["games"], data["steps"], data["seed"], violations, dict(data["games_by_agents"]),
            str(data.get("table_hash", "")), data.get("cards_file"), data.get("decks_file"),
        )
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise CorruptRecordError(f"{path}: not a yuxi audit report ({err})") from None


def audit_setup(
    seed: int, index: int, boards: Sequence[str], agent_pairs: Sequence[tuple[str, str]],
    decks: Sequence[str], cards_file: str | None = None, decks_file: str | None = None,
) -> tuple[int, YuxiConfig, tuple[str, str]]:
    """Seed, room and agents of audit game ``index`` (the same whatever order games run in)."""
    game_seed = derive_seed(seed, index)
    rng = as_generator(derive_seed(seed, index, 1))
    board = boards[index % len(boards)]
    pair = agent_pairs[(index // len(boards)) % len(agent_pairs)]
    d0, d1 = (decks[int(i)] for i in rng.integers(len(decks), size=2))
    config = YuxiConfig(
        board=board, decks=(d0, d1), die_bonus=bool(rng.integers(2)),
        cards_file=cards_file, decks_file=decks_file,
    )
    return game_seed, config, pair


class SearchError(Exception):
    """An error raised while an agent decided (inside its search), not by a move of the game."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class _Deciding:
    """An agent whose errors are marked as raised inside its decision."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", "?")

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        try:
            return self.agent.act(observation, legal_actions)
        except Exception as err:
            raise SearchError(err) from err


def play_checked(
    game: YuxiGame, agent_specs: tuple[str, str], seed: int, *, in_search: bool = False
) -> tuple[YuxiState, list[str], InvariantViolation | Exception | None, int]:
    """Play one seeded game with the checker on; stop at the first violation or exception.

    With ``in_search`` the agents (made here) also sample and search with ``game``, so the
    states they visit inside their searches are checked too; an error found there comes
    back as a :class:`SearchError`. Returns the last state, the move list in notation (up
    to and including the failing move; up to the decision, for an error inside a search),
    the error (None if the game finished cleanly) and the steps played."""
    from paiju.yuxi.agents import REGISTRY, searching_with

    with searching_with(game) if in_search else nullcontext():
        agents: list[Any] = [
            REGISTRY.make(spec, derive_seed(seed, 100 + seat)) for seat, spec in enumerate(agent_specs)
        ]
        if in_search:
            agents = [_Deciding(a) for a in agents]
        played = play_game(game, agents, seed, notation=True, stop_on_error=True)
    assert isinstance(played.state, YuxiState)
    return played.state, played.moves, played.error, len(played.moves)


@dataclass(frozen=True)
class AuditTask:
    """Audit games of one runner task (the unit of parallel work and of resume)."""

    indices: tuple[int, ...]
    seed: int
    boards: tuple[str, ...]
    agent_pairs: tuple[tuple[str, str], ...]
    decks: tuple[str, ...]
    effect_overrides: tuple[tuple[str, EffectFn], ...] = ()
    cards_file: str | None = None
    decks_file: str | None = None
    in_search: bool = False


@dataclass(frozen=True)
class AuditedGame:
    index: int
    agents: str
    steps: int
    violation: Violation | None


TASK_GAMES = 4
_AUDIT_GAMES: dict[tuple[YuxiConfig, tuple[tuple[str, EffectFn], ...]], YuxiGame] = {}


def audit_task(task: AuditTask) -> list[AuditedGame]:
    """The runner's task function: play and check a few audit games."""
    out = []
    for index in task.indices:
        game_seed, config, pair = audit_setup(
            task.seed, index, task.boards, task.agent_pairs, task.decks, task.cards_file, task.decks_file
        )
        key = (config, task.effect_overrides)
        game = _AUDIT_GAMES.get(key)
        if game is None:
            game = _AUDIT_GAMES[key] = YuxiGame(
                config, check_invariants=True, effect_overrides=dict(task.effect_overrides)
            )
        _, moves, err, n = play_checked(game, pair, game_seed, in_search=task.in_search)
        violation = None if err is None else _violation(index, game_seed, config, pair, moves, err)
        out.append(AuditedGame(index, f"{pair[0]} vs {pair[1]}", n, violation))
    return out


def _violation(
    index: int, game_seed: int, config: YuxiConfig, pair: tuple[str, str], moves: list[str], err: Exception
) -> Violation:
    in_search = isinstance(err, SearchError)
    if isinstance(err, SearchError):
        err = err.error
    if isinstance(err, InvariantViolation):
        name, detail = err.invariant, err.detail
    else:
        name = "exception"
        detail = f"{type(err).__name__}: {err} | " + " / ".join(
            traceback.format_exception(err)[-3:-1]
        ).replace("\n", " ")
    return Violation(
        index, game_seed, config.board, config.decks, config.die_bonus, pair,
        len(moves) if in_search else len(moves) - 1, name, detail,
        moves, config.cards_file, config.decks_file, table_fingerprint(config.table()), in_search,
    )


def _audited_to_json(games: list[AuditedGame]) -> list[dict[str, Any]]:
    return [asdict(g) for g in games]


def _audited_from_json(items: list[dict[str, Any]]) -> list[AuditedGame]:
    return [
        AuditedGame(
            g["index"], g["agents"], g["steps"],
            None if g["violation"] is None else _load_violation(g["violation"]),
        )
        for g in items
    ]


def run_audit(
    games: int,
    seed: int = 0,
    *,
    boards: Sequence[str] = tuple(BOARDS),
    agent_pairs: Sequence[tuple[str, str]] = (
        ("random", "random"),
        ("mcts:simulations=24", "mcts:simulations=24"),
    ),
    decks: Sequence[str] | None = None,
    effect_overrides: Mapping[str, EffectFn] | None = None,
    progress: Progress = False,
    workers: int = 1,
    backend: Backend | None = None,
    journal: str | Path | None = None,
    cards_file: str | Path | None = None,
    decks_file: str | Path | None = None,
    in_search: bool = False,
) -> AuditReport:
    """Play ``games`` self-play games (boards and agent pairs in rotation, decks and die at
    random per game) with the invariant checker on; collect every violation.

    The games are played by the project's runner (``workers`` local processes or
    ``backend``; ``effect_overrides`` must then be top-level functions, to be pickled); every
    game is seeded by its index, so the report does not depend on them. With ``journal``
    (a JSONL file) finished games are appended there and a rerun resumes. ``cards_file`` /
    ``decks_file``: a designer's card and deck tables (TOML) instead of the shipped ones; the
    report, its violations and the journal carry the table's hash. ``in_search``: also
    check every state the agents visit inside their searches (many more steps per game,
    and positions play rarely reaches; a violation there says so and names the decision)."""
    cfile = None if cards_file is None else str(cards_file)
    dfile = None if decks_file is None else str(decks_file)
    table = YuxiConfig(cards_file=cfile, decks_file=dfile).table()
    table_hash = table_fingerprint(table)
    deck_names = tuple(decks) if decks else tuple(table.decks)
    for name in deck_names:
        table.deck(name)  # an unknown deck is refused before any game starts
    from paiju.yuxi.agents import check_specs

    check_specs(sorted({spec for pair in agent_pairs for spec in pair}), boards, cfile, dfile)
    overrides = tuple(sorted((effect_overrides or {}).items()))
    tasks = [
        AuditTask(tuple(range(i, min(games, i + TASK_GAMES))), seed, tuple(boards),
                  tuple((a, b) for a, b in agent_pairs), deck_names, overrides, cfile, dfile, in_search)
        for i in range(0, games, TASK_GAMES)
    ]
    config = {"kind": "yuxi-audit", "games": games, "seed": seed, "boards": list(boards),
              "agent_pairs": [list(p) for p in agent_pairs], "decks": list(deck_names),
              "effect_overrides": [f"{k}={getattr(f, '__qualname__', repr(f))}" for k, f in overrides],
              "rules_version": RULES_VERSION, "table_hash": table_hash}
    if in_search:  # only then: journals written before the option existed still resume
        config["in_search"] = True
    store = None if journal is None else TaskJournal(journal, config, _audited_to_json, _audited_from_json)
    results = run_journalled(
        audit_task, tasks, store, backend=backend or Backend(workers=workers), progress=progress,
        size=lambda t: len(t.indices), label="yuxi audit",
    )
    played = [g for batch in results for g in batch]
    by_agents: dict[str, int] = {}
    for g in played:
        by_agents[g.agents] = by_agents.get(g.agents, 0) + 1
    violations = [g.violation for g in played if g.violation is not None]
    steps = sum(g.steps for g in played)
    return AuditReport(games, steps, seed, violations, by_agents, table_hash, cfile, dfile)


def replay_moves(
    config: YuxiConfig, moves: Sequence[str], *, effect_overrides: Mapping[str, EffectFn] | None = None
) -> tuple[YuxiState, int, InvariantViolation | Exception | None]:
    """Replay a move list (notation) with the checker on, no agents involved.

    Returns the state reached (before the failing move if one failed), the index of the
    failing move (or ``len(moves)``) and the error (None when every move was fine)."""
    game = YuxiGame(config, check_invariants=True, effect_overrides=dict(effect_overrides or {}))
    state = game.new_initial_state()
    for i, text in enumerate(moves):
        action = state.parse_action(text)
        before = state.clone()
        try:
            state.apply(action)
        except (InvariantViolation, Exception) as err:
            return before, i, err
    return state, len(moves), None


def check_table_hash(recorded: str, config: YuxiConfig, what: str) -> None:
    """Refuse to replay a record on another card table than the one it was played with.

    ``recorded`` is the record's table hash ("" in records older than card files: not
    checked); a mismatch is a ConfigError naming both hashes."""
    if not recorded:
        return
    have = table_fingerprint(config.table())
    if have != recorded:
        given = " + ".join(f for f in (config.cards_file, config.decks_file) if f) or "the shipped tables"
        raise ConfigError(
            f"{what} was played with card table {recorded}, not {have} (the table of {given}): "
            "pass the files it was played with (--cards-file / --decks-file)"
        )


def replay_violation(
    violation: Violation,
    *,
    effect_overrides: Mapping[str, EffectFn] | None = None,
    cards_file: str | Path | None = None,
    decks_file: str | Path | None = None,
) -> tuple[YuxiState, int, InvariantViolation | Exception | None]:
    """Replay a reported violation from its move list, on the card table it names (each of
    ``cards_file`` / ``decks_file``, when given, replaces the recorded file; refused when the
    table's hash differs from the recorded one)."""
    config = violation.config()
    if cards_file is not None:
        config = dataclasses.replace(config, cards_file=str(cards_file))
    if decks_file is not None:
        config = dataclasses.replace(config, decks_file=str(decks_file))
    check_table_hash(violation.table_hash, config, f"game {violation.game_index} of the report")
    return replay_moves(config, violation.moves, effect_overrides=effect_overrides)


def replay_seed(
    violation: Violation, *, effect_overrides: Mapping[str, EffectFn] | None = None
) -> tuple[list[str], InvariantViolation | Exception | None]:
    """Replay a reported violation by playing its seeded game again with the same agents
    (their searches checked too when the violation was found inside one)."""
    game = YuxiGame(violation.config(), check_invariants=True, effect_overrides=dict(effect_overrides or {}))
    _, moves, err, _ = play_checked(game, violation.agents, violation.seed, in_search=violation.in_search)
    if isinstance(err, SearchError):
        err = err.error
    return moves, err
