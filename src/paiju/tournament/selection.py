"""Choosing the deals ("test cases") of a tournament from a pool (``docs/dih.md`` §4).

* :func:`select_paper`: the paper's method. Each deal's DIH assumes every round plays a deal
  with that deal's score law; rank the pool by it and take the top m, one per round.
* :func:`select_joint` (ours): the rounds of a real event play m *different* deals, so a
  player's total is the convolution of m different laws. Choose the m deals together to
  maximise the DIH of that set: a beam search that adds one deal at a time, scoring a
  partial set S by DIH(S + the candidate played in every remaining round) (so its first step
  is exactly the paper's ranking and its last step the exact objective), followed by a swap
  local search (replace one deal by the pool deal that most increases the set's DIH) started
  from both the beam's best set and the paper's set. The returned set's DIH is therefore never
  below the paper's set's DIH under the model.

Pools are :class:`DealPool` values: deal labels (canonical notation when read from files;
any label when built in memory, e.g. for simulated validation) with their score laws on one
integer grid, so many deals are convolved and scored at once as rows of a matrix.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import numpy as np

from paiju.core import deadline
from paiju.core.errors import ConfigError, InvalidNotationError
from paiju.tournament.dih import check_top, dih_matrix
from paiju.tournament.distributions import (
    ScoreDistribution,
    canonical_deal,
    check_positive_int,
    read_distribution_table,
)

DEFAULT_MIN_PLAYS: Final = 50
"""The paper keeps deals played more than 50 times; ours: at least this many plays."""
_CHUNK: Final = 256
"""Rows scored at once (bounds memory for big pools)."""
_POWER_CACHE_CELLS: Final = 8_000_000
"""Keep the powers D^(*j) of every pool deal in memory when they fit in this many cells."""
_IMPROVEMENT: Final = 1e-9
"""A swap must raise the set's DIH by more than this (relative) to count."""

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class DealPool:
    """Deals with their per-round score laws, stored as rows on a shared integer grid.

    ``matrix[i, s]`` is the probability that deal ``i`` scores ``low + s``.
    """

    deals: tuple[str, ...]
    distributions: tuple[ScoreDistribution, ...]
    plays: tuple[int | None, ...]
    low: int = field(init=False)
    matrix: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.deals:
            raise ConfigError("the deal pool is empty")
        if len(self.deals) != len(self.distributions) or len(self.deals) != len(self.plays):
            raise ConfigError("deal pool: deals, distributions and plays differ in length")
        if len(set(self.deals)) != len(self.deals):
            dups = sorted({d for d in self.deals if self.deals.count(d) > 1})
            raise ConfigError(f"deal pool: deal(s) listed twice: {dups[:3]}")
        low = min(d.scores[0] for d in self.distributions)
        high = max(d.scores[-1] for d in self.distributions)
        if high - low > 10_000:
            raise ConfigError(f"deal pool: scores span {low}..{high}; expected small integers")
        matrix = np.zeros((len(self.deals), high - low + 1))
        for i, d in enumerate(self.distributions):
            matrix[i, np.asarray(d.scores) - low] = d.probabilities
        matrix.setflags(write=False)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "matrix", matrix)

    @classmethod
    def from_distributions(
        cls,
        distributions: Mapping[str, ScoreDistribution] | Sequence[tuple[str, ScoreDistribution]],
        plays: Mapping[str, int] | None = None,
    ) -> DealPool:
        """A pool from ``{deal: law}`` (or pairs), e.g. laws estimated by simulated play."""
        items = list(distributions.items()) if isinstance(distributions, Mapping) else list(distributions)
        return cls(
            tuple(d for d, _ in items),
            tuple(dist for _, dist in items),
            tuple(None if plays is None else plays.get(d) for d, _ in items),
        )

    def __len__(self) -> int:
        return len(self.deals)

    def index(self, deal: str) -> int:
        return self.deals.index(deal)


@dataclass(frozen=True)
class LoadedPool:
    """A pool read from files, with the deals left out for too few plays (never silently)."""

    pool: DealPool
    excluded: tuple[tuple[str, int], ...]
    """(deal, plays) of pool deals whose distribution rests on fewer than ``min_plays`` plays."""


def read_pool_file(path: str | Path) -> list[str]:
    """Deals of a pool file: one ``[20][17][17]`` deal per line; blank lines and ``#`` comments skipped.

    Returns canonical notation; a malformed line or a repeated deal is an error naming the line.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"pool file {p}: cannot read it ({err})") from None
    deals: list[str] = []
    seen: dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            deal = canonical_deal(line)
        except InvalidNotationError as err:
            raise InvalidNotationError(f"pool file {p}, line {lineno}: {err}") from None
        if deal in seen:
            raise ConfigError(f"pool file {p}, line {lineno}: deal repeats line {seen[deal]}: {deal}")
        seen[deal] = lineno
        deals.append(deal)
    if not deals:
        raise ConfigError(f"pool file {p} lists no deals")
    return deals


def load_pool(pool_file: str | Path, dists: str | Path, *, min_plays: int = DEFAULT_MIN_PLAYS) -> LoadedPool:
    """The pool file's deals with their laws from the Parquet table(s) at ``dists``.

    Every pool deal must have a law in the table (an error lists the missing ones); deals
    whose law rests on fewer than ``min_plays`` plays are excluded and reported.
    """
    if isinstance(min_plays, bool) or not isinstance(min_plays, int) or min_plays < 0:
        raise ConfigError(f"min_plays must be a non-negative integer, got {min_plays!r}")
    deals = read_pool_file(pool_file)
    table = read_distribution_table(dists)
    missing = [d for d in deals if d not in table]
    if missing:
        more = f" (and {len(missing) - 3} more)" if len(missing) > 3 else ""
        raise ConfigError(
            f"{len(missing)} deal(s) of pool {pool_file} have no distribution in {dists}: "
            f"{', '.join(missing[:3])}{more}"
        )
    kept = [table[d] for d in deals if table[d].plays >= min_plays]
    excluded = tuple((d, table[d].plays) for d in deals if table[d].plays < min_plays)
    if not kept:
        raise ConfigError(f"no deal of pool {pool_file} has at least {min_plays} plays")
    pool = DealPool(
        tuple(e.deal for e in kept), tuple(e.distribution for e in kept), tuple(e.plays for e in kept)
    )
    return LoadedPool(pool, excluded)


@dataclass(frozen=True)
class Selection:
    """The deals chosen for a tournament of ``players`` x ``rounds`` aiming at ``top`` distinct."""

    method: str
    players: int
    rounds: int
    top: int
    indices: tuple[int, ...]
    """Positions of the chosen deals in the pool (one per round)."""
    deals: tuple[str, ...]
    deal_dih: tuple[float, ...]
    """Each chosen deal's own DIH (its law in every round): the paper's ranking key."""
    set_dih: float
    """DIH of the chosen deals played one per round (different per-round laws)."""

    def as_dict(self) -> dict[str, object]:
        return {
            "method": self.method,
            "players": self.players,
            "rounds": self.rounds,
            "top": self.top,
            "set_dih": self.set_dih,
            "deals": [
                {"round": i + 1, "deal": d, "dih": v}
                for i, (d, v) in enumerate(zip(self.deals, self.deal_dih, strict=True))
            ],
        }


# ---------------------------------------------------------------------------------------
# Batched convolution on the pool grid


def _conv_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise convolution of (B x La) and (B x Lb): row i of the result is a[i] * b[i]."""
    la, lb = a.shape[1], b.shape[1]
    out = np.zeros((a.shape[0], la + lb - 1))
    if la < lb:
        a, b, la, lb = b, a, lb, la
    for s in range(lb):  # loop over the shorter operand's cells
        if not s & 63:
            deadline.check()
        out[:, s : s + la] += a * b[:, s : s + 1]
    return out


def _conv_shared(rows: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Every row convolved with one 1-D ``kernel``: a product with its Toeplitz matrix (BLAS).

    All entries are non-negative, so the matrix product keeps full relative precision.
    """
    la, lk = rows.shape[1], kernel.size
    toeplitz = np.zeros((la, la + lk - 1))
    idx = np.arange(la)[:, None] + np.arange(lk)[None, :]
    toeplitz[np.arange(la)[:, None], idx] = kernel[None, :]
    return rows @ toeplitz


def _power_rows(m: np.ndarray, exponent: int) -> np.ndarray:
    out = m
    for _ in range(exponent - 1):
        deadline.check()
        out = _conv_rows(out, m)
    return out


def _check_sizes(pool: DealPool, players: int, rounds: int, top: int) -> None:
    check_top(players, top)
    check_positive_int(rounds, "rounds")
    if len(pool) < rounds:
        raise ConfigError(f"the pool has {len(pool)} deals, fewer than the {rounds} rounds to fill")


def rank_by_dih(pool: DealPool, players: int, rounds: int, top: int) -> np.ndarray:
    """Every pool deal's own DIH(D_i; n, m, r), in pool order."""
    check_top(players, top)
    check_positive_int(rounds, "rounds")
    out = np.empty(len(pool))
    for start in range(0, len(pool), _CHUNK):
        deadline.check()
        rows = pool.matrix[start : start + _CHUNK]
        out[start : start + rows.shape[0]] = dih_matrix(_power_rows(rows, rounds), players, top)
    return out


def set_dih(pool: DealPool, indices: Sequence[int], players: int, top: int) -> float:
    """DIH of pool deals ``indices`` played one per round."""
    check_top(players, top)
    if not indices:
        raise ConfigError("a tournament needs at least one round")
    total = _set_total(pool, indices)
    return float(dih_matrix(total[None, :], players, top)[0])


def _set_total(pool: DealPool, indices: Sequence[int]) -> np.ndarray:
    total = pool.matrix[indices[0]]
    for i in indices[1:]:
        deadline.check()
        total = np.convolve(total, pool.matrix[i])
    return total


def _make_selection(
    method: str, pool: DealPool, players: int, rounds: int, top: int, indices: Sequence[int], own: np.ndarray
) -> Selection:
    order = sorted(indices, key=lambda i: (-own[i], i))
    return Selection(
        method=method,
        players=players,
        rounds=rounds,
        top=top,
        indices=tuple(order),
        deals=tuple(pool.deals[i] for i in order),
        deal_dih=tuple(float(own[i]) for i in order),
        set_dih=set_dih(pool, order, players, top),
    )


def select_paper(
    pool: DealPool, players: int, rounds: int, top: int, *, own: np.ndarray | None = None
) -> Selection:
    """The paper's test-case selection: the ``rounds`` deals of highest own DIH (ties: pool order)."""
    _check_sizes(pool, players, rounds, top)
    if own is None:
        own = rank_by_dih(pool, players, rounds, top)
    chosen = sorted(range(len(pool)), key=lambda i: (-own[i], i))[:rounds]
    return _make_selection("paper", pool, players, rounds, top, chosen, own)


class _Powers:
    """D_i^(*j) for every pool deal, cached when small enough, else recomputed on demand."""

    def __init__(self, matrix: np.ndarray, rounds: int) -> None:
        self._matrix = matrix
        k0 = matrix.shape[1]
        cells = matrix.shape[0] * sum(j * (k0 - 1) + 1 for j in range(1, rounds + 1))
        self._cache: dict[int, np.ndarray] | None = None
        if cells <= _POWER_CACHE_CELLS:
            self._cache = {1: matrix}
            for j in range(2, rounds + 1):
                deadline.check()
                self._cache[j] = _conv_rows(self._cache[j - 1], matrix)

    def __call__(self, exponent: int) -> np.ndarray:
        if self._cache is not None:
            return self._cache[exponent]
        return _power_rows(self._matrix, exponent)


def _scores_with(kernel: np.ndarray, candidates: np.ndarray, players: int, top: int) -> np.ndarray:
    """DIH of ``kernel`` convolved with each candidate row (chunked)."""
    out = np.empty(candidates.shape[0])
    for start in range(0, candidates.shape[0], _CHUNK):
        deadline.check()
        rows = candidates[start : start + _CHUNK]
        out[start : start + rows.shape[0]] = dih_matrix(_conv_shared(rows, kernel), players, top)
    return out


def select_joint(
    pool: DealPool,
    players: int,
    rounds: int,
    top: int,
    *,
    beam_width: int = 4,
    max_sweeps: int = 20,
    progress: Progress | None = None,
    own: np.ndarray | None = None,
) -> Selection:
    """Ours: the ``rounds`` deals whose *set* has the highest DIH (beam search + swaps).

    The result's ``set_dih`` is at least that of :func:`select_paper` (the paper's set is
    one of the local-search starts).
    """
    _check_sizes(pool, players, rounds, top)
    check_positive_int(beam_width, "beam_width")
    if isinstance(max_sweeps, bool) or not isinstance(max_sweeps, int) or max_sweeps < 0:
        raise ConfigError(f"max_sweeps must be a non-negative integer, got {max_sweeps!r}")
    if own is None:
        own = rank_by_dih(pool, players, rounds, top)
    paper = sorted(range(len(pool)), key=lambda i: (-own[i], i))[:rounds]
    steps_total = rounds + 2 * max_sweeps
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(min(done, steps_total), steps_total)

    beam_best = _beam_search(pool, players, rounds, top, beam_width, tick)
    starts = [beam_best] if sorted(beam_best) == sorted(paper) else [beam_best, paper]
    finals = [paper] + [_swap_search(pool, players, top, list(start), max_sweeps, tick) for start in starts]
    # Compare the candidate sets with one and the same computation (the paper's set included),
    # so the result can never fall below the paper's set DIH by rounding.
    candidates = [_make_selection("joint", pool, players, rounds, top, c, own) for c in finals]
    if progress is not None:
        progress(steps_total, steps_total)
    return max(candidates, key=lambda sel: sel.set_dih)  # ties keep the paper's set


def _beam_search(
    pool: DealPool, players: int, rounds: int, top: int, width: int, tick: Callable[[], None]
) -> list[int]:
    """Grow ``width`` partial sets one deal at a time; a candidate c extending a set S of t deals
    is scored by DIH(S * D_c^(*(rounds - t))), i.e. as if c were played in every remaining round.
    """
    powers = _Powers(pool.matrix, rounds)
    b = len(pool)
    beam: list[tuple[tuple[int, ...], np.ndarray]] = [((), np.ones(1))]
    for t in range(rounds):
        cands = powers(rounds - t)  # the candidate played in every remaining round
        pooled: list[tuple[float, tuple[int, ...], np.ndarray]] = []
        seen: set[tuple[int, ...]] = set()
        scored: list[tuple[float, tuple[int, ...], int, int]] = []
        for si, (chosen, total) in enumerate(beam):
            deadline.check()
            scores = _scores_with(total, cands, players, top)
            scores[list(chosen)] = -np.inf
            keep = min(width, b - len(chosen))
            best = np.argsort(-scores, kind="stable")[: keep + len(beam)]
            for i in best:
                if math.isfinite(scores[i]):
                    scored.append((float(scores[i]), tuple(sorted((*chosen, int(i)))), si, int(i)))
        scored.sort(key=lambda x: (-x[0], x[1]))
        for score, key, si, i in scored:
            if key in seen:
                continue
            seen.add(key)
            pooled.append((score, key, np.convolve(beam[si][1], pool.matrix[i])))
            if len(pooled) == width:
                break
        beam = [(key, total) for _, key, total in pooled]
        tick()
    return list(beam[0][0])


def _swap_search(
    pool: DealPool, players: int, top: int, chosen: list[int], max_sweeps: int, tick: Callable[[], None]
) -> list[int]:
    """Replace one deal at a time by the pool deal that most raises the set's DIH."""
    value = set_dih(pool, chosen, players, top)
    for _ in range(max_sweeps):
        improved = False
        for pos in range(len(chosen)):
            deadline.check()
            others = chosen[:pos] + chosen[pos + 1 :]
            rest = _set_total(pool, others) if others else np.ones(1)
            scores = _scores_with(rest, pool.matrix, players, top)
            scores[others] = -np.inf
            i = int(np.argmax(scores))
            if scores[i] > value * (1 + _IMPROVEMENT) and i != chosen[pos]:
                chosen[pos] = i
                value = float(scores[i])
                improved = True
        tick()
        if not improved:
            break
    return chosen
