"""Validation of deal selection by simulated tournaments (``docs/dih.md`` §7, the paper's §1.2).

The question: do deals chosen by DIH separate players of different skill better than random
deals? Humans cannot play thousands of controlled events, so, as in the paper, the "players"
are agent combinations (landlord, farmer 1, farmer 2) of a :class:`~paiju.tournament.population.Population`,
and a player's score on a deal is its landlord's score when the deal is played within its own
combination.

Everything is computed from one **score matrix** ``M[c, i]`` (combination ``c`` on pool deal
``i``, one seeded game each, cached as Parquet by :func:`~paiju.tournament.population.score_matrix`),
so a tournament costs a few numpy operations and thousands of them take seconds:

* Algorithm 1 (:func:`algorithm1`): totals ``T_c`` over some random deals, scoring rates
  ``P_c = (T_c - T_min) / (T_max - T_min)``, ``w`` equal buckets of [0, 1], one random
  player per non-empty bucket. A tournament of ``n`` players uses ``w = n`` (the paper);
  when some buckets are empty the remaining seats are filled by players drawn uniformly from
  the combinations not yet chosen (the paper does not say; we count and report how often).
* Tournament (:func:`rank_points`, :func:`distinguishable`): every player plays the round's
  deal; rank by score with ties sharing the better rank; rank points ``2 (n - rank + 1)``;
  the top ``r`` are distinguishable when their point totals differ from each other and from
  everyone else's (``r`` unique awards, U(r) of ``docs/dih.md`` §1), so deals are selected with DIH at
  ``top = r + 1``.
* P1: tournaments with ``m`` distinct random pool deals; P2: the same players with the ``m``
  deals chosen by :func:`~paiju.tournament.selection.select_paper` (and
  :func:`~paiju.tournament.selection.select_joint`). Players are drawn once per tournament
  and shared by P1 and P2 (paired comparison: less noise in the gain than two independent
  series). The selected deals' score distributions come from a *separate* seeded pass of the
  population over the pool (``docs/dih.md`` §6 (b)), not from the matrix the tournaments replay.

Intervals: P1, P2 with Wilson 95% intervals; the gain (P2 - P1)/P1 with a 95% paired
bootstrap interval over tournaments.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from paiju.core.errors import ConfigError
from paiju.core.rng import as_generator, derive_seed
from paiju.core.stats import Estimate, proportion_ci
from paiju.tournament.distributions import DealDistribution, ScoreDistribution, check_positive_int
from paiju.tournament.population import Population, default_cache_dir, play_jobs, sampling_plan, score_matrix
from paiju.tournament.selection import DealPool, rank_by_dih, read_pool_file, select_joint, select_paper

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``."""

METHODS: Final = ("paper", "joint")
BOOTSTRAP: Final = 2000
"""Bootstrap resamples for the gain's interval."""
CONFIG_DIR: Final = Path(__file__).parent / "configs"
DEFAULT_CONFIG: Final = CONFIG_DIR / "validate-default.toml"


# ---------------------------------------------------------------------------------------
# Algorithm 1 and the tournament


def scoring_rates(totals: np.ndarray) -> np.ndarray:
    """``(T - T_min) / (T_max - T_min)`` per player; all zeros when every total is equal."""
    t = np.asarray(totals, dtype=np.float64)
    span = t.max() - t.min()
    if span == 0:
        return np.zeros_like(t)
    return (t - t.min()) / span


def ability_buckets(rates: np.ndarray, w: int) -> np.ndarray:
    """Bucket of each rate among ``w`` equal intervals ``[(i-1)/w, i/w)`` of [0, 1] (1.0 in the last)."""
    check_positive_int(w, "w")
    r = np.asarray(rates, dtype=np.float64)
    if np.any((r < 0) | (r > 1)):
        raise ConfigError("scoring rates must lie in [0, 1]")
    return np.minimum(np.floor(r * w).astype(np.int64), w - 1)


def algorithm1(
    matrix: np.ndarray, ability_deals: Sequence[int] | np.ndarray, w: int, rng: np.random.Generator
) -> np.ndarray:
    """The paper's Algorithm 1: one random player from each non-empty ability bucket.

    ``matrix[c, i]`` is combination ``c``'s landlord score on deal ``i``; the totals are over
    ``ability_deals``. Returns the chosen combinations in bucket order (at most ``w``).
    """
    totals = np.asarray(matrix)[:, list(ability_deals)].sum(axis=1)
    buckets = ability_buckets(scoring_rates(totals), w)
    chosen = [int(rng.choice(np.flatnonzero(buckets == b))) for b in range(w) if np.any(buckets == b)]
    return np.array(chosen, dtype=np.int64)


def draw_players(
    matrix: np.ndarray, players: int, ability_deals: int, rng: np.random.Generator
) -> tuple[np.ndarray, int]:
    """``players`` distinct combinations by Algorithm 1 with ``w = players`` buckets.

    The ability totals use ``ability_deals`` random pool deals (0 = the whole pool). Returns
    the players and how many seats were filled at random because buckets were empty.
    """
    n_comb, n_deals = matrix.shape
    if players > n_comb:
        raise ConfigError(f"{players} players but the population has only {n_comb} combinations")
    k: int = n_deals if ability_deals == 0 else min(ability_deals, n_deals)
    deals = rng.choice(n_deals, size=k, replace=False)
    chosen = algorithm1(matrix, deals, players, rng)
    missing = players - chosen.size
    if missing:
        rest = np.setdiff1d(np.arange(n_comb), chosen)
        chosen = np.concatenate([chosen, rng.choice(rest, size=missing, replace=False)])
    return chosen, missing


def rank_points(scores: np.ndarray) -> np.ndarray:
    """Rank points ``2 (n - rank + 1)`` of each round, players on the last-but-one axis.

    ``scores[..., p, t]`` is player ``p``'s score in round ``t``; rank = 1 + the number of
    players with a strictly higher score (ties share the better rank).
    """
    s = np.asarray(scores, dtype=np.float64)
    n = s.shape[-2]
    higher = (s[..., None, :, :] > s[..., :, None, :]).sum(axis=-2)  # [.., p, t]: players above p
    rank = 1 + higher
    return 2 * (n - rank + 1)


def distinguishable(totals: np.ndarray, top: int) -> np.ndarray:
    """Whether the ``top`` best totals differ from each other and from everyone else's (U(top)).

    ``totals[..., p]``; with ``top`` equal to the number of players, all totals must differ.
    """
    t = -np.sort(-np.asarray(totals), axis=-1)
    n = t.shape[-1]
    if not 1 <= top <= n:
        raise ConfigError(f"top {top} must be between 1 and the number of players {n}")
    upto = min(top + 1, n)
    return np.all(t[..., : upto - 1] > t[..., 1:upto], axis=-1)


def tournament_outcomes(matrix: np.ndarray, players: np.ndarray, deals: np.ndarray, top: int) -> np.ndarray:
    """For each tournament, whether its top ``top`` are distinguishable.

    ``players`` is (T, n) combination indices; ``deals`` is (T, m) or (m,) deal indices.
    """
    p = np.asarray(players)
    d = np.asarray(deals)
    if d.ndim == 1:
        d = np.broadcast_to(d, (p.shape[0], d.size))
    scores = np.asarray(matrix)[p[:, :, None], d[:, None, :]]  # (T, n, m)
    totals = rank_points(scores).sum(axis=-1)
    return distinguishable(totals, top)


# ---------------------------------------------------------------------------------------
# One setting and the whole grid


@dataclass(frozen=True)
class SettingResult:
    """P1 (random deals) and P2 per selection method for one (n, m, r)."""

    players: int
    rounds: int
    top: int
    tournaments: int
    p1: Estimate
    p2: dict[str, Estimate]
    gain: dict[str, Estimate]
    """(P2 - P1)/P1 with a paired bootstrap interval (nan when P1 = 0)."""
    selected: dict[str, tuple[int, ...]]
    set_dih: dict[str, float]
    filled_seats: float
    """Mean number of seats per tournament filled at random (empty ability buckets)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "rounds": self.rounds,
            "top": self.top,
            "tournaments": self.tournaments,
            "p1": self.p1.as_dict(),
            "p2": {k: v.as_dict() for k, v in self.p2.items()},
            "gain": {k: v.as_dict() for k, v in self.gain.items()},
            "selected": {k: list(v) for k, v in self.selected.items()},
            "set_dih": self.set_dih,
            "filled_seats": self.filled_seats,
        }


def _gain_estimate(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> Estimate:
    """(mean b - mean a) / mean a with a paired bootstrap 95% interval."""
    t = a.size
    p1, p2 = a.mean(), b.mean()
    if p1 == 0:
        return Estimate(math.nan, math.nan, math.nan, t)
    idx = rng.integers(0, t, size=(BOOTSTRAP, t))
    m1 = a[idx].mean(axis=1)
    m2 = b[idx].mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = (m2 - m1) / m1
    g = g[np.isfinite(g)]
    low, high = np.quantile(g, [0.025, 0.975]) if g.size else (math.nan, math.nan)
    return Estimate(float((p2 - p1) / p1), float(low), float(high), t)


def run_setting(
    matrix: np.ndarray,
    pool: DealPool,
    players: int,
    rounds: int,
    top: int,
    tournaments: int,
    seed: int,
    *,
    ability_deals: int = 0,
    methods: Sequence[str] = METHODS,
    candidates: Sequence[int] | None = None,
) -> SettingResult:
    """Simulate ``tournaments`` tournaments of one setting (n, m, r unique awards).

    ``pool`` holds the score laws of the matrix's deals, in matrix column order.
    ``candidates`` are the columns selection may choose from (default: all, e.g. leaving out
    deals whose law rests on too few plays).
    """
    for name, v in (("players", players), ("rounds", rounds), ("top", top), ("tournaments", tournaments)):
        check_positive_int(v, name)
    if top >= players:
        raise ConfigError(f"r = {top} unique awards needs more than {top} players, got {players}")
    n_deals = matrix.shape[1]
    if len(pool) != n_deals:
        raise ConfigError(f"the pool has {len(pool)} laws but the score matrix {n_deals} deals")
    if rounds > n_deals:
        raise ConfigError(f"{rounds} rounds but only {n_deals} pool deals")
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ConfigError(f"unknown selection method(s) {unknown}; use {', '.join(METHODS)}")
    rng = as_generator(derive_seed(seed, players, rounds, top))
    cand = np.arange(n_deals) if candidates is None else np.asarray(candidates, dtype=np.int64)
    sub = pool if candidates is None else _subpool(pool, cand)
    dih_top = top + 1  # r unique awards = U(r) = DIH at top r + 1
    own = rank_by_dih(sub, players, rounds, dih_top)
    selected: dict[str, tuple[int, ...]] = {}
    set_dih: dict[str, float] = {}
    for method in methods:
        sel = (select_paper if method == "paper" else select_joint)(sub, players, rounds, dih_top, own=own)
        selected[method] = tuple(int(cand[i]) for i in sel.indices)
        set_dih[method] = sel.set_dih
    seats = np.empty((tournaments, players), dtype=np.int64)
    filled = 0
    random_deals = np.empty((tournaments, rounds), dtype=np.int64)
    for t in range(tournaments):
        seats[t], f = draw_players(matrix, players, ability_deals, rng)
        filled += f
        random_deals[t] = rng.choice(n_deals, size=rounds, replace=False)
    ok1 = tournament_outcomes(matrix, seats, random_deals, top).astype(np.float64)
    p2: dict[str, Estimate] = {}
    gain: dict[str, Estimate] = {}
    for method in methods:
        ok2 = tournament_outcomes(matrix, seats, np.array(selected[method]), top).astype(np.float64)
        p2[method] = proportion_ci(float(ok2.sum()), tournaments)
        gain[method] = _gain_estimate(ok1, ok2, rng)
    return SettingResult(
        players=players,
        rounds=rounds,
        top=top,
        tournaments=tournaments,
        p1=proportion_ci(float(ok1.sum()), tournaments),
        p2=p2,
        gain=gain,
        selected=selected,
        set_dih=set_dih,
        filled_seats=filled / tournaments,
    )


def _subpool(pool: DealPool, indices: np.ndarray) -> DealPool:
    return DealPool(
        tuple(pool.deals[i] for i in indices),
        tuple(pool.distributions[i] for i in indices),
        tuple(pool.plays[i] for i in indices),
    )


# ---------------------------------------------------------------------------------------
# Configuration and the full run


CONFIG_MAXIMA: dict[str, int] = {
    "tournament.players": 100_000,
    "tournament.rounds": 60,
    "tournament.unique_awards": 100_000,
    "tournament.tournaments": 1_000_000,
    "tournament.ability_deals": 1_000_000,
    "distributions.plays": 100_000,
    "distributions.min_plays": 1_000_000,
    "workers": 256,
}
"""The largest value of each count of a validation config: no config file can ask for an
unbounded run (the same maxima as the ``paiju dih`` options)."""


@dataclass(frozen=True)
class ValidationConfig:
    """A validation run (TOML file; see ``configs/validate-default.toml`` for every key)."""

    pool: Path
    population: Population
    players: tuple[int, ...]
    rounds: tuple[int, ...]
    unique_awards: tuple[int, ...]
    tournaments: int = 1000
    ability_deals: int = 0
    methods: tuple[str, ...] = METHODS
    dist_plays: int = 0
    """Plays per deal for the DIH distributions (0 = one per combination)."""
    holdout: bool = False
    """Laws from half the landlord agents, tournament players from the other half."""
    min_plays: int = 50
    seed: int = 0
    workers: int = 2
    name: str = "validation"
    source: Path | None = field(default=None, compare=False)

    @classmethod
    def from_toml(cls, path: str | Path) -> ValidationConfig:
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as err:
            raise ConfigError(f"validation config {p}: cannot read it ({err})") from None
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"validation config {p}: not valid TOML ({err})") from None
        return cls.from_mapping(data, base=p.parent, source=p)

    @classmethod
    def from_mapping(
        cls, data: dict[str, Any], base: Path = Path("."), source: Path | None = None
    ) -> ValidationConfig:
        where = f"validation config {source}" if source else "validation config"
        _check_top_keys(data, where)
        pool = Path(str(data["pool"]))
        pool = pool if pool.is_absolute() else base / pool
        pop = data["population"]
        population = Population.parse(pop) if isinstance(pop, str) else Population.from_mapping(dict(pop))
        tour = _config_table(data, "tournament", _TOURNAMENT_KEYS, where)
        dists = _config_table(data, "distributions", _DISTRIBUTIONS_KEYS, where)
        holdout = dists.get("holdout", False)
        if not isinstance(holdout, bool):
            raise ConfigError(f"{where}: distributions.holdout must be true or false, got {holdout!r}")
        methods = tuple(tour.get("methods", list(METHODS)))
        if not methods or any(m not in METHODS for m in methods):
            raise ConfigError(f"{where}: tournament.methods must be a non-empty list from {list(METHODS)}")
        cfg = cls(
            pool=pool,
            population=population,
            players=_tournament_counts(tour, "players", (10, 20, 30), where),
            rounds=_tournament_counts(tour, "rounds", (2, 3, 4, 5), where),
            unique_awards=_tournament_counts(tour, "unique_awards", (1,), where),
            tournaments=_tournament_counts(tour, "tournaments", (1000,), where)[0],
            ability_deals=_bounded_count(tour.get("ability_deals", 0), "tournament.ability_deals", where),
            methods=methods,
            dist_plays=_bounded_count(dists.get("plays", 0), "distributions.plays", where),
            min_plays=_bounded_count(dists.get("min_plays", 50), "distributions.min_plays", where),
            holdout=holdout,
            seed=_bounded_count(data.get("seed", 0), "seed", where),
            workers=max(1, _bounded_count(data.get("workers", 2), "workers", where)),
            name=str(data.get("name", "validation")),
            source=source,
        )
        _check_players_fit(cfg, where)
        return cfg


def _check_top_keys(data: dict[str, Any], where: str) -> None:
    known = {"name", "pool", "population", "tournament", "distributions", "seed", "workers"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {unknown}; known: {sorted(known)}")
    if "pool" not in data or "population" not in data:
        raise ConfigError(f"{where}: needs 'pool' (a pool file) and a [population] table")


_TOURNAMENT_KEYS = frozenset(
    {"players", "rounds", "unique_awards", "tournaments", "ability_deals", "methods"}
)
_DISTRIBUTIONS_KEYS = frozenset({"plays", "min_plays", "holdout"})


def _config_table(data: dict[str, Any], table: str, known: frozenset[str], where: str) -> dict[str, Any]:
    """The ``[table]`` of the config (empty if absent), with no key outside ``known``."""
    raw = data.get(table, {})
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: [{table}] must be a table of keys, not {raw!r}")
    values = dict(raw)
    if set(values) - known:
        raise ConfigError(f"{where}: [{table}] unknown key(s) {sorted(set(values) - known)}")
    return values


def _tournament_counts(tour: dict[str, Any], key: str, default: Sequence[int], where: str) -> tuple[int, ...]:
    """``tournament.KEY``: one positive count or a list of them (a grid of settings), each at most
    its :data:`CONFIG_MAXIMA` entry."""
    v = tour.get(key, list(default))
    v = [v] if isinstance(v, int) else v
    if not isinstance(v, list) or not v or not all(isinstance(x, int) and x >= 1 for x in v):
        raise ConfigError(f"{where}: tournament.{key} must be a positive integer or a list of them")
    most = CONFIG_MAXIMA[f"tournament.{key}"]
    for x in v:
        if x > most:
            raise ConfigError(f"{where}: tournament.{key} = {x} is above the maximum {most}")
    return tuple(v)


def _bounded_count(value: Any, key: str, where: str) -> int:
    """A non-negative integer, at most its :data:`CONFIG_MAXIMA` entry where it has one."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{where}: {key} must be a non-negative integer, got {value!r}")
    if value > CONFIG_MAXIMA.get(key, value):
        raise ConfigError(f"{where}: {key} = {value} is above the maximum {CONFIG_MAXIMA[key]}")
    return value


def _check_players_fit(cfg: ValidationConfig, where: str) -> None:
    """Every tournament size fits the playing combinations, and each has more players than
    unique awards."""
    n_players = len(split_population(cfg.population, cfg.holdout)[1])
    for n in cfg.players:
        if n > n_players:
            raise ConfigError(
                f"{where}: {n} players but the population has {n_players} playing combinations"
            )
        for r in cfg.unique_awards:
            if r >= n:
                raise ConfigError(f"{where}: r = {r} unique awards needs more than {r} players (n = {n})")


@dataclass(frozen=True)
class ValidationReport:
    config: ValidationConfig
    results: tuple[SettingResult, ...]
    pool_size: int
    combinations: int
    games: int
    mean_score_spread: float
    """Mean over deals of the number of distinct landlord scores seen in the matrix."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.config.name,
            "pool": str(self.config.pool),
            "population": self.config.population.as_dict(),
            "pool_size": self.pool_size,
            "combinations": self.combinations,
            "games": self.games,
            "holdout": self.config.holdout,
            "mean_distinct_scores_per_deal": self.mean_score_spread,
            "tournaments": self.config.tournaments,
            "seed": self.config.seed,
            "results": [r.as_dict() for r in self.results],
        }


def split_population(population: Population, holdout: bool) -> tuple[set[int], set[int]]:
    """(combinations whose plays give the DIH laws, combinations that play the tournaments).

    Without hold-out both are every combination. With it, the laws come from the
    combinations whose landlord is 1st, 3rd, 5th... of the landlord list and the players are
    the others: the selected deals must then separate agents that never produced the laws.
    """
    everyone = set(range(len(population)))
    if not holdout:
        return everyone, everyone
    if len(population.landlords) < 2:
        raise ConfigError("hold-out validation needs at least two landlord agents")
    per_landlord = len(population.farmer1s) * len(population.farmer2s)
    laws = {c for c in everyone if (c // per_landlord) % 2 == 0}
    return laws, everyone - laws


def run_validation(
    config: ValidationConfig,
    *,
    cache_dir: str | Path | None = None,
    use_ray: bool = False,
    progress: Progress | None = None,
) -> ValidationReport:
    """Play (or read from the cache) the score matrix and the distribution pass, then every setting."""
    deals = read_pool_file(config.pool)
    pop = config.population
    cache = default_cache_dir() / "dih-validation" if cache_dir is None else Path(cache_dir)

    def stage(name: str) -> Callable[[int, int], None] | None:
        if progress is None:
            return None
        return lambda done, total: progress(name, done, total)

    matrix = score_matrix(
        deals,
        pop,
        derive_seed(config.seed, 1),
        workers=config.workers,
        cache_dir=cache,
        use_ray=use_ray,
        progress=stage("games: score matrix"),
    )
    plays = config.dist_plays or len(pop)
    dist_seed = derive_seed(config.seed, 2)
    jobs = sampling_plan(len(deals), len(pop), plays, dist_seed)
    scores = play_jobs(
        deals,
        pop,
        jobs,
        dist_seed,
        workers=config.workers,
        cache_dir=cache,
        use_ray=use_ray,
        progress=stage("games: distributions"),
    )
    law_combos, player_combos = split_population(pop, config.holdout)
    per_deal: list[list[int]] = [[] for _ in deals]
    for (d, c, _), s in zip(jobs, scores, strict=True):
        if c in law_combos:
            per_deal[d].append(int(s))
    laws = [
        DealDistribution(deal, ScoreDistribution.empirical(row), len(row))
        for deal, row in zip(deals, per_deal, strict=True)
    ]
    matrix = matrix[sorted(player_combos)]
    pool = DealPool(
        tuple(law.deal for law in laws),
        tuple(law.distribution for law in laws),
        tuple(law.plays for law in laws),
    )
    candidates = [i for i, law in enumerate(laws) if law.plays >= config.min_plays]
    if not candidates:
        raise ConfigError(f"no pool deal has a distribution from at least {config.min_plays} plays")
    settings = [(n, m, r) for r in config.unique_awards for n in config.players for m in config.rounds]
    results = []
    for k, (n, m, r) in enumerate(settings):
        if progress is not None:
            progress("tournaments", k, len(settings))
        results.append(
            run_setting(
                matrix,
                pool,
                n,
                m,
                r,
                config.tournaments,
                config.seed,
                ability_deals=config.ability_deals,
                methods=config.methods,
                candidates=None if len(candidates) == len(laws) else candidates,
            )
        )
    if progress is not None:
        progress("tournaments", len(settings), len(settings))
    spread = float(np.mean([np.unique(matrix[:, i]).size for i in range(matrix.shape[1])]))
    return ValidationReport(
        config=config,
        results=tuple(results),
        pool_size=len(deals),
        combinations=matrix.shape[0],
        games=len(deals) * len(pop) + len(jobs),
        mean_score_spread=spread,
    )


# ---------------------------------------------------------------------------------------
# Plot


def plot_report(report: ValidationReport, path: str | Path) -> Path:
    """P1 and P2 (each method) against m, one panel per (r, n), with 95% intervals (matplotlib Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = report.results
    panels = sorted({(r.top, r.players) for r in results})
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False, sharey=True)
    styles = {
        "p1": ("random deals (P1)", "tab:gray", "o"),
        "paper": ("DIH, paper (P2)", "tab:blue", "s"),
        "joint": ("DIH, joint (P2)", "tab:orange", "^"),
    }
    for ax, (top, n) in zip(axes[0], panels, strict=True):
        rows = sorted((r for r in results if (r.top, r.players) == (top, n)), key=lambda r: r.rounds)
        ms = [r.rounds for r in rows]
        series = [("p1", [r.p1 for r in rows])] + [
            (meth, [r.p2[meth] for r in rows]) for meth in report.config.methods
        ]
        for offset, (key, ests) in enumerate(series):
            label, color, marker = styles[key]
            x = np.array(ms, dtype=float) + (offset - 1) * 0.08
            y = np.array([e.value for e in ests])
            err = np.array([[e.value - e.low for e in ests], [e.high - e.value for e in ests]])
            ax.errorbar(x, y, yerr=err, label=label, color=color, marker=marker, capsize=3, lw=1.2)
        ax.set_title(f"n = {n} players, r = {top}")
        ax.set_xlabel("rounds m")
        ax.set_xticks(ms)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"P(top {panels[0][0]} distinguishable)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    for ax in axes[0]:
        ax.set_ylim(0, 1.05)
    fig.suptitle(
        f"{report.config.name}: {report.combinations} agent combinations, pool of {report.pool_size} deals, "
        f"{report.config.tournaments} tournaments per point",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
