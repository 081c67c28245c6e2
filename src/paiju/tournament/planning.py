"""Planning a duplicate Dou Dizhu event by simulation: how many rounds does it need? (issue 48 item 6)

An organiser chooses the number of rounds M before the event. For each M = 1..Mmax this module
simulates many events of M rounds and estimates two probabilities:

* **unique**: the top R places are each held by exactly one player (the paper's objective:
  the R best totals differ from each other and from everyone else's,
  :func:`paiju.tournament.validate.distinguishable`);
* **right**: the podium is unique *and* it is the true one: places 1..R are held by the R
  most skilful players, in the order of their skill. A unique podium need not be the right
  one; a podium decided by a tie-break is not counted as right (play did not decide it).

Both under the event's own format (the director's, ``docs/tournament.md`` §2), not raw
landlord scores:

* **Tables and boards.** The field sits at tables of three; every table plays each of the
  round's B boards; at a table the hands rotate with the boards (hand of position p on board k:
  (p + k + o) mod 3, the offset o drawn per table and round; with B = 3 everyone holds each hand
  once a round, as the director's movement makes it). A field that is not a multiple of three
  is filled with sitters of average skill, who are never ranked (the director's
  ``odd_field=sitter``; byes are not simulated).
* **Comparison.** Hand A's holder is the landlord and scores the table's result s, each farmer
  -s/2; each board's result is compared among everyone who held the same hand of it
  (``matchpoints``: 2 per holder beaten, 1 per tie; or the paper's ``rank-points``,
  R = 2 (n - place + 1)); a player's total is the sum over its boards.
* **Pairing.** Round 1 is a random draw; then ``swiss`` seats the standings in consecutive
  threes (ties in random order: the director's solver starts from these tables and departs
  from them only to avoid repeat meetings and club tables, which the simulation does not
  model), or ``random`` draws every round.
* **Boards.** ``random``: M x B distinct pool deals drawn for each event. ``dih``: the
  director's DIH boards, the pool's M x B deals of highest own DIH for n players, m = M x B
  boards and R + 1 (:func:`paiju.tournament.selection.select_paper`), in rank order; the
  same for every event of M rounds, so each M has its own set.

**The players.** Player i (0 = best) has skill theta_i = spread x Phi^-1((N - i - 0.375) /
(N + 0.25)): the expected order statistics of N draws from N(0, spread^2) (Blom), a typical
field. On a board whose landlord-score law (from the pool's laws, ``docs/dih.md`` §6) has
distribution function F, a table scores

    s = F^-1(Phi(z)),   z = (theta_landlord - (theta_farmer1 + theta_farmer2)/2 + e) / sqrt(1 + 1.5 spread^2)

with e ~ N(0, 1) the play's luck: the landlord's side does better the stronger it is than
its opponents, and the scaling keeps a board's results over a randomly seated field
distributed by its own law (the variance of the skill term is about 1.5 spread^2). Spread 0
is the DIH model itself: every table's result an independent draw of the board's law.
A spread s means that skill explains 1.5 s^2 / (1 + 1.5 s^2) of a table's latent result
(s = 0.5: 27%, 1: 60%, 2: 86%). The model reads only a board's law, never its cards.

Every M and board selection is simulated in batches of :data:`EVENTS_PER_TASK` events through
the project's runner (:mod:`paiju.core.runner`), batch c of M seeded by
``derive_seed(seed, M, c)`` whatever the board selection (random and DIH boards see the same
draws and luck, so their difference is less noisy), so the result does not depend on the
number of workers; with a journal every finished batch is kept and a rerun plays only the
batches it lacks.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any, Final, Literal, get_args

import numpy as np

from paiju.core.errors import ConfigError
from paiju.core.rng import as_generator, derive_seed
from paiju.core.runner import Backend, Progress, TaskJournal, run_journalled
from paiju.core.stats import Estimate, proportion_ci
from paiju.tournament.director.formats import (
    MAX_BOARDS_PER_ROUND,
    MAX_ROUNDS,
    TABLE_SIZE,
    BoardSelection,
    Comparison,
    choose,
)
from paiju.tournament.selection import DealPool, select_paper
from paiju.tournament.validate import distinguishable, rank_points

Pairing = Literal["swiss", "random"]
Measure = Literal["unique", "right"]
SELECTIONS: Final[tuple[BoardSelection, ...]] = ("random", "dih")
"""The plan's default order (runs, report columns): random boards first, then the director's DIH."""
PAIRINGS: Final[tuple[Pairing, ...]] = get_args(Pairing)
COMPARISONS: Final[tuple[Comparison, ...]] = get_args(Comparison)

POOLS: Final = Path(__file__).parent / "pools"
DEFAULT_POOL: Final = POOLS / "ddz-pool-300-v1.txt"
DEFAULT_LAWS: Final = POOLS / "ddz-pool-300-v1-ladder.parquet"
"""The shipped pool and its laws from the ladder population (``paiju dih dists --pool
ddz-pool-300-v1.txt --plays 96 --seed 0``: every combination plays every deal once)."""

EVENTS_PER_TASK: Final = 100
"""Simulated events per task: the unit of parallel work, of seeding and of the journal."""
MAX_SPREAD: Final = 100.0
"""A spread far past the point where luck no longer matters (at 10 skill explains 99%)."""
MIN_PLAYERS: Final = 4
"""Two tables: with one, every hand of a board has a single holder and nothing is compared."""
_MODEL_VERSION: Final = 1
"""Bump when the simulation changes, so a journal of the old model is not resumed."""
_SITTER_PENALTY: Final = 2.0
"""Points a holder gains from each sitter in its comparison group (matchpoints: a sitter is
beaten; rank points: one more holder): taken off again, since sitters are never compared."""


@dataclass(frozen=True)
class PlanConfig:
    """What to simulate: the event (N, Mmax, R, its format) and the planner's sample."""

    players: int
    rounds: int
    """Mmax: events of 1..Mmax rounds are simulated."""
    top: int
    """R: the places that should be unique."""
    skill_spread: float = 1.0
    """The SD of the players' skill in units of a table's luck (module text)."""
    selections: tuple[BoardSelection, ...] = SELECTIONS
    """Board selections to compare (random and the director's DIH boards)."""
    comparison: Comparison = "matchpoints"
    """The event's scoring: how a board's result is compared among the holders of a hand."""
    boards_per_round: int = 3
    pairing: Pairing = "swiss"
    events: int = 1000
    """Simulated events per board selection and number of rounds."""
    seed: int = 0

    def __post_init__(self) -> None:
        _whole(self.players, "players", MIN_PLAYERS, 100_000)
        _whole(self.rounds, "rounds", 1, MAX_ROUNDS)
        _whole(self.top, "top", 1, self.players - 1)
        _whole(self.boards_per_round, "boards per round", 1, MAX_BOARDS_PER_ROUND)
        _whole(self.events, "events", 1, 1_000_000)
        _whole(self.seed, "seed", 0, 2**63 - 1)
        spread = self.skill_spread
        if isinstance(spread, bool) or not isinstance(spread, int | float) or not 0 <= spread <= MAX_SPREAD:
            raise ConfigError(f"skill spread must be a number from 0 to {MAX_SPREAD:g}, got {spread!r}")
        if not self.selections or len(set(self.selections)) != len(self.selections):
            raise ConfigError(
                f"board selections {list(self.selections)}: name each of {', '.join(SELECTIONS)} once"
            )
        for v in self.selections:
            choose("board selection", v, SELECTIONS)
        choose("comparison", self.comparison, COMPARISONS)
        choose("pairing", self.pairing, PAIRINGS)

    @property
    def boards(self) -> int:
        """Boards a player plays in an event of Mmax rounds (every one distinct)."""
        return self.rounds * self.boards_per_round

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["selections"] = list(self.selections)
        return out


def _whole(value: object, name: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, got {value!r}")


# ---------------------------------------------------------------------------------------
# The model of one event


def field_skills(players: int, spread: float) -> np.ndarray:
    """Skill of players 0..N-1, best first: Blom's expected normal order statistics x ``spread``."""
    unit = NormalDist()
    return np.array([spread * unit.inv_cdf((players - i - 0.375) / (players + 0.25)) for i in range(players)])


def law_thresholds(pool: DealPool) -> np.ndarray:
    """``t[d, i]``: a table scores more than ``pool.low + i`` on deal d when its z is at least
    ``t[d, i]`` (Phi^-1 of the law's distribution function; -inf below the support, +inf from
    its top: a score the law never gives is never drawn)."""
    probs = pool.matrix
    below = np.cumsum(probs, axis=1)[:, :-1]
    above = np.cumsum(probs[:, ::-1], axis=1)[:, ::-1][:, 1:]  # mass strictly above each cell
    unit = NormalDist()
    cut = [
        math.inf if up <= 0 else -math.inf if down <= 0 else unit.inv_cdf(min(down, 1 - 1e-16))
        for down, up in zip(below.ravel().tolist(), above.ravel().tolist(), strict=True)
    ]
    return np.array(cut, dtype=np.float64).reshape(below.shape)


@dataclass(frozen=True, eq=False)  # arrays: no field-wise ==
class EventModel:
    """Everything a simulated event needs, small enough to send to a worker."""

    thresholds: np.ndarray
    """:func:`law_thresholds` of the pool."""
    low: int
    """The pool's lowest score (column 0 of the thresholds' grid)."""
    skills: np.ndarray
    """:func:`field_skills`: player 0 is the best."""
    spread: float
    boards_per_round: int
    comparison: Comparison
    pairing: Pairing
    top: int

    @classmethod
    def build(cls, config: PlanConfig, pool: DealPool) -> EventModel:
        return cls(
            law_thresholds(pool), pool.low, field_skills(config.players, config.skill_spread),
            float(config.skill_spread), config.boards_per_round, config.comparison, config.pairing,
            config.top,
        )

    @property
    def players(self) -> int:
        return int(self.skills.size)

    @property
    def tables(self) -> int:
        return -(-self.players // TABLE_SIZE)


def matchpoints(scores: np.ndarray) -> np.ndarray:
    """Matchpoints (2 per holder beaten, 1 per tie), holders on the last-but-one axis.

    The same layout as :func:`paiju.tournament.validate.rank_points`: ``scores[..., p, g]`` is
    holder p's score in comparison group g.
    """
    s = np.asarray(scores, dtype=np.float64)
    mine, theirs = s[..., :, None, :], s[..., None, :, :]
    return 2.0 * (theirs < mine).sum(axis=-2) + (theirs == mine).sum(axis=-2) - 1.0


def seating(totals: np.ndarray, pairing: Pairing, first: bool, rng: np.random.Generator) -> np.ndarray:
    """The players in seat order, per event (seats 0-2 are table 1, ...): a random draw in the
    first round and with ``random`` pairing, else (``swiss``) the standings by running
    ``totals`` (events, players), ties in random order."""
    if first or pairing == "random":
        return np.argsort(rng.random(totals.shape), axis=-1)
    # totals are whole numbers: a key below 1 only orders the ties
    return np.argsort(-totals + 0.5 * rng.random(totals.shape), axis=-1)


def seat_tables(model: EventModel, order: np.ndarray) -> np.ndarray:
    """(events, tables, 3): the player at each seat, from :func:`seating`'s order. Index
    ``players`` is a sitter, who takes the last seat of the last table (and of the table before
    when two are needed: never two sitters at a table)."""
    n, tables = model.players, model.tables
    sitters = [TABLE_SIZE * t - 1 for t in range(tables, tables - (TABLE_SIZE * tables - n), -1)]
    slots = np.setdiff1d(np.arange(TABLE_SIZE * tables), sitters)
    seats = np.full((order.shape[0], TABLE_SIZE * tables), n, dtype=np.int64)
    seats[:, slots] = order
    return seats.reshape(order.shape[0], tables, TABLE_SIZE)


def hands_held(seats: np.ndarray, boards: int, rng: np.random.Generator) -> np.ndarray:
    """(events, tables, boards, 3): who holds hand A, B, C of each board at each table. The
    hands rotate with the boards from a random start per table: position p holds hand
    (p + k + o) mod 3 of board k."""
    events, tables, _ = seats.shape
    offset = rng.integers(0, TABLE_SIZE, size=(events, tables, 1, 1))
    hand = np.arange(TABLE_SIZE)[None, None, None, :]
    board = np.arange(boards)[None, None, :, None]
    position = (hand - board - offset) % TABLE_SIZE
    return np.take_along_axis(seats[:, :, None, :], position, axis=-1)


def table_results(
    model: EventModel, held: np.ndarray, deals: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """(events, tables, boards): the landlord's score at each table on each board, from the
    skills of who held which hand (:func:`hands_held`) and ``deals[e, k]``'s law (module text)."""
    skill = np.append(model.skills, 0.0)[held]  # a sitter is an average player
    edge = skill[..., 0] - (skill[..., 1] + skill[..., 2]) / 2
    z = (edge + rng.standard_normal(edge.shape)) / math.sqrt(1 + 1.5 * model.spread**2)
    cuts = model.thresholds[deals][:, None, :, :]  # (events, 1, boards, grid - 1)
    return model.low + (cuts <= z[..., None]).sum(axis=-1)


def compared_points(model: EventModel, held: np.ndarray, landlord: np.ndarray) -> np.ndarray:
    """(events, players): each player's points from comparing every hand of every board among
    its holders, sitters left out. Hand A scores the landlord's score, B and C each -s/2
    (``paiju.doudizhu.scoring.seat_returns``)."""
    events, tables, boards, _ = held.shape
    scores = np.stack([landlord, -landlord / 2, -landlord / 2], axis=-1).astype(np.float64)
    groups = (events, tables, boards * TABLE_SIZE)  # a column per (board, hand): its holders
    sitter = (held == model.players).reshape(groups)
    scores = scores.reshape(groups)
    scores[sitter] = -math.inf  # below everyone; what they give the others is taken off below
    compare = matchpoints if model.comparison == "matchpoints" else rank_points
    points = compare(scores) - _SITTER_PENALTY * sitter.sum(axis=1, keepdims=True)
    points[sitter] = 0.0
    flat = (np.arange(events)[:, None, None] * (model.players + 1) + held.reshape(groups)).ravel()
    total = np.bincount(flat, weights=points.ravel(), minlength=events * (model.players + 1))
    return total.reshape(events, model.players + 1)[:, : model.players]


def play_round(
    model: EventModel, order: np.ndarray, deals: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """One round of every event: the points each player scores, ``(events, players)``.

    ``order`` is :func:`seating`'s, ``deals[e, k]`` the pool index of board k of event e.
    """
    held = hands_held(seat_tables(model, order), deals.shape[1], rng)
    return compared_points(model, held, table_results(model, held, deals, rng))


def simulate_events(
    model: EventModel, deals: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Play events whose boards are ``deals[e]`` (M x B pool indices, round by round): per
    event, whether its top R are unique, and whether they are also the true top R in order."""
    events = deals.shape[0]
    b = model.boards_per_round
    rounds = deals.shape[1] // b
    totals = np.zeros((events, model.players))
    for r in range(rounds):
        order = seating(totals, model.pairing, r == 0, rng)
        totals += play_round(model, order, deals[:, r * b : (r + 1) * b], rng)
    unique = distinguishable(totals, model.top)
    podium = np.argsort(-totals, axis=-1, kind="stable")[:, : model.top]
    right = unique & np.all(podium == np.arange(model.top), axis=-1)
    return unique, right


# ---------------------------------------------------------------------------------------
# Many events: tasks, the journal and the report


@dataclass(frozen=True, eq=False)
class EventBatch:
    """A task: ``events`` simulated events of ``rounds`` rounds (a picklable value)."""

    model: EventModel
    selection: BoardSelection
    rounds: int
    deals: tuple[int, ...] | None
    """The boards in round order (DIH), or None: each event draws its own from the pool."""
    pool_size: int
    events: int
    seed: int


def play_batch(batch: EventBatch) -> tuple[int, int]:
    """How many of the batch's events have a unique top R, and how many the right one."""
    boards = batch.rounds * batch.model.boards_per_round
    if batch.deals is None:
        draw = as_generator(derive_seed(batch.seed, 0)).random((batch.events, batch.pool_size))
        deals = np.argsort(draw, axis=-1)[:, :boards]
    else:
        deals = np.broadcast_to(np.asarray(batch.deals, dtype=np.int64), (batch.events, boards))
    unique, right = simulate_events(batch.model, deals, as_generator(derive_seed(batch.seed, 1)))
    return int(unique.sum()), int(right.sum())


@dataclass(frozen=True)
class PlanRow:
    """Events of ``rounds`` rounds: both probabilities per board selection, 95% intervals."""

    rounds: int
    unique: dict[str, Estimate]
    right: dict[str, Estimate]
    set_dih: float | None
    """The DIH model's own value for the DIH boards (raw scores, i.i.d. players; R + 1)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "unique": {k: v.as_dict() for k, v in self.unique.items()},
            "right": {k: v.as_dict() for k, v in self.right.items()},
            "set_dih": self.set_dih,
        }


@dataclass(frozen=True)
class PlanReport:
    config: PlanConfig
    rows: tuple[PlanRow, ...]
    pool_size: int
    laws: str
    """Where the boards' laws came from (for the report's reader)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "config": self.config.as_dict(),
            "pool_size": self.pool_size,
            "laws": self.laws,
            "events_per_task": EVENTS_PER_TASK,
            "rows": [r.as_dict() for r in self.rows],
            "fewest_rounds_90": {
                measure: {s: self.fewest_rounds(s, measure) for s in self.config.selections}
                for measure in get_args(Measure)
            },
        }

    def fewest_rounds(self, selection: BoardSelection, measure: Measure, target: float = 0.9) -> int | None:
        """The fewest rounds whose estimate reaches ``target`` (None: none of them)."""
        for row in self.rows:
            est = (row.unique if measure == "unique" else row.right)[selection]
            if est.value >= target:
                return row.rounds
        return None

    def text(self) -> str:
        """A Markdown table: M, then P(unique) and P(right) per board selection with intervals."""
        sel = self.config.selections
        head = ["M", *(f"P(unique) {s}" for s in sel), *(f"P(right) {s}" for s in sel)]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for row in self.rows:
            ests = [*(row.unique[s] for s in sel), *(row.right[s] for s in sel)]
            cells = [e.text(interval=True) for e in ests]
            lines.append(f"| {row.rounds} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


def _pool_identity(pool: DealPool) -> str:
    digest = hashlib.sha256("\n".join(pool.deals).encode())
    digest.update(np.ascontiguousarray(pool.matrix).tobytes())
    digest.update(str(pool.low).encode())
    return digest.hexdigest()


def plan_tasks(
    config: PlanConfig, model: EventModel, pool: DealPool
) -> tuple[list[EventBatch], list[float | None]]:
    """Every batch of the plan, selection-major then M, and each M's modelled DIH of its DIH boards."""
    n_pool = len(pool)
    if n_pool < config.boards:
        raise ConfigError(
            f"the pool has {n_pool} deals; {config.rounds} rounds of {config.boards_per_round} boards "
            f"need {config.boards} distinct ones"
        )
    chosen: dict[int, tuple[int, ...]] = {}
    set_dih: list[float | None] = []
    for m in range(1, config.rounds + 1):
        if "dih" in config.selections:
            # the director's DIH boards (docs/tournament.md §4): R unique places = R + 1 distinct totals
            sel = select_paper(pool, config.players, m * config.boards_per_round, config.top + 1)
            chosen[m] = sel.indices
            set_dih.append(sel.set_dih)
        else:
            set_dih.append(None)
    tasks = []
    for selection in config.selections:
        for m in range(1, config.rounds + 1):
            for c, first in enumerate(range(0, config.events, EVENTS_PER_TASK)):
                tasks.append(
                    EventBatch(
                        model, selection, m, chosen[m] if selection == "dih" else None, n_pool,
                        min(EVENTS_PER_TASK, config.events - first), derive_seed(config.seed, m, c),
                    )
                )
    return tasks, set_dih


def run_plan(
    config: PlanConfig,
    pool: DealPool,
    *,
    laws: str = "",
    workers: int = 1,
    journal: str | Path | None = None,
    progress: Progress = False,
) -> PlanReport:
    """Simulate ``config.events`` events per board selection and M = 1..Mmax on ``pool``'s laws.

    With ``journal`` (a JSONL file) each finished batch is appended; run again with the same
    configuration and pool, only the missing batches are played.
    """
    model = EventModel.build(config, pool)
    tasks, set_dih = plan_tasks(config, model, pool)
    identity = {"plan": _MODEL_VERSION, "config": config.as_dict(), "pool": _pool_identity(pool),
                "events_per_task": EVENTS_PER_TASK}
    store = None if journal is None else TaskJournal(journal, identity, list, _counts)
    counts = run_journalled(play_batch, tasks, store, backend=Backend(workers=workers), progress=progress,
                            size=lambda t: t.events, label="events")
    per: dict[tuple[str, int], list[int]] = {}
    for task, (unique, right) in zip(tasks, counts, strict=True):
        acc = per.setdefault((task.selection, task.rounds), [0, 0])
        acc[0] += unique
        acc[1] += right
    rows = tuple(
        PlanRow(
            m,
            {s: proportion_ci(per[(s, m)][0], config.events) for s in config.selections},
            {s: proportion_ci(per[(s, m)][1], config.events) for s in config.selections},
            set_dih[m - 1],
        )
        for m in range(1, config.rounds + 1)
    )
    return PlanReport(config, rows, len(pool), laws)


def _counts(value: Any) -> tuple[int, int]:
    unique, right = value
    return int(unique), int(right)


# ---------------------------------------------------------------------------------------
# Plot


_STYLE: Final = {"random": ("random boards", "tab:gray", "o"), "dih": ("DIH boards", "tab:blue", "s")}


def plot_plan(report: PlanReport, path: str | Path) -> Path:
    """P(unique top R) and P(right top R) against M, one line per board selection, 95%
    intervals (matplotlib Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cfg = report.config
    ms = [r.rounds for r in report.rows]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    titles = {"unique": f"top {cfg.top} unique", "right": f"top {cfg.top} unique and the true top {cfg.top}"}
    for ax, measure in zip(axes, get_args(Measure), strict=True):
        for k, selection in enumerate(cfg.selections):
            label, color, marker = _STYLE[selection]
            ests = [(r.unique if measure == "unique" else r.right)[selection] for r in report.rows]
            x = np.array(ms, dtype=float) + (k - (len(cfg.selections) - 1) / 2) * 0.12
            y = np.array([e.value for e in ests])
            # Wilson's bounds at 0 and 1 can miss the estimate by a rounding error
            err = np.clip([[e.value - e.low for e in ests], [e.high - e.value for e in ests]], 0, None)
            ax.errorbar(x, y, yerr=err, label=label, color=color, marker=marker, ms=4, capsize=2, lw=1.2)
        ax.axhline(0.9, color="tab:green", lw=0.8, ls=":")
        ax.set_title(titles[measure], fontsize=10)
        ax.set_xlabel("rounds M")
        ax.set_xticks(ms if len(ms) <= 20 else ms[:: math.ceil(len(ms) / 20)])
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("probability")
    axes[0].legend(fontsize=8, loc="lower right")
    fig.suptitle(
        f"N = {cfg.players} players, R = {cfg.top}, skill spread {cfg.skill_spread:g}, {cfg.comparison}, "
        f"{cfg.pairing} pairing, {cfg.boards_per_round} boards a round; {cfg.events} events per point",
        fontsize=9,
    )
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


__all__ = [
    "COMPARISONS", "DEFAULT_LAWS", "DEFAULT_POOL", "EVENTS_PER_TASK", "PAIRINGS", "SELECTIONS", "EventBatch",
    "EventModel", "PlanConfig", "PlanReport", "PlanRow", "compared_points", "field_skills",
    "hands_held", "law_thresholds", "matchpoints", "plan_tasks", "play_batch", "play_round", "plot_plan",
    "run_plan", "seat_tables", "seating", "simulate_events", "table_results",
]
