"""Confidence intervals used by every report (arena, ladder, balance, validation).

All intervals are 95% two-sided. Proportions use the Wilson score interval (sane at 0% and
100% and for small n); means use the normal approximation with the sample standard error,
and a paired difference (duplicate format) is just the mean of the per-deal differences.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% interval and sample size."""

    value: float
    low: float
    high: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def as_dict(self) -> dict[str, float | int | None]:
        """As JSON data: null where there is no number (no sample: no value; one sample of a
        mean: no interval), since JSON has no NaN or Infinity."""
        return {"value": _finite(self.value), "low": _finite(self.low), "high": _finite(self.high),
                "n": self.n}

    def text(self, fmt: str = ".3f", *, interval: bool = False, percent: bool = False,
             unit: str = "sample") -> str:
        """For people: ``value ± half`` (or ``value [low, high]`` with ``interval``), ``—`` with
        no sample, ``value (1 unit)`` when there is no interval; ``percent`` scales by 100."""
        if self.n == 0 or not math.isfinite(self.value):
            return "—"
        k, tail = (100.0, "%") if percent else (1.0, "")
        value = f"{k * self.value:{fmt}}{tail}"
        if not (math.isfinite(self.low) and math.isfinite(self.high)):
            return f"{value} (1 {unit})" if self.n == 1 else value
        if interval:
            return f"{value} [{k * self.low:{fmt}}, {k * self.high:{fmt}}]"
        return f"{value} ± {k * self.half_width:{fmt.lstrip('+')}}"

    def __str__(self) -> str:
        return self.text()


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def proportion_ci(successes: float, n: int) -> Estimate:
    """Wilson score interval for ``successes`` out of ``n`` (ties may count as 0.5)."""
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    p = successes / n
    z2 = Z95 * Z95
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = Z95 * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0)) / denom
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n)


def mean_ci(values: Sequence[float]) -> Estimate:
    """Mean with a normal-approximation 95% interval (sample standard deviation)."""
    n = len(values)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = math.fsum(values) / n
    if n == 1:
        return Estimate(mean, -math.inf, math.inf, 1)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return Estimate(mean, mean - half, mean + half, n)


ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of Bradley-Terry log-strength (400 points: 10-to-1 odds)."""


def elo_ratings(
    results: Sequence[tuple[int, int, float, float]], players: int, anchor: int = 0
) -> list[Estimate]:
    """Elo ratings with 95% intervals from head-to-head results, by maximum likelihood of the
    Bradley-Terry model ``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))``.

    ``results`` holds ``(i, j, score of i, games)`` per matchup (a draw counts half). Player
    ``anchor`` is fixed at 0; the intervals are from the observed Fisher information with the
    anchor held (so they say how well each is placed relative to the anchor). ``n`` of an
    estimate is the games the player took part in. A player who won or lost everything has
    no finite maximum: its rating is clipped at ±1,500 and its interval is infinite.
    """
    import numpy as np
    from scipy.optimize import minimize  # imported here: most reports need neither

    free = [p for p in range(players) if p != anchor]
    where = {p: k for k, p in enumerate(free)}

    def strengths(x: Any) -> list[float]:
        out = [0.0] * players
        for p, k in where.items():
            out[p] = float(x[k])
        return out

    def nll(x: Any) -> tuple[float, Any]:
        r = strengths(x)
        value, grad = 0.0, np.zeros(len(free))
        for i, j, s, n in results:
            d = r[i] - r[j]
            p = 1.0 / (1.0 + math.exp(-d))
            value -= s * math.log(max(p, 1e-300)) + (n - s) * math.log(max(1.0 - p, 1e-300))
            g = n * p - s  # d(-loglik)/d(r_i)
            if i in where:
                grad[where[i]] += g
            if j in where:
                grad[where[j]] -= g
        return value, grad

    limit = 1500.0 / ELO_SCALE
    fit = minimize(nll, [0.0] * len(free), jac=True, method="L-BFGS-B", bounds=[(-limit, limit)] * len(free))
    r = strengths(fit.x)
    info = np.zeros((len(free), len(free)))
    games = [0.0] * players
    for i, j, _, n in results:
        p = 1.0 / (1.0 + math.exp(-(r[i] - r[j])))
        w = n * p * (1.0 - p)
        games[i] += n
        games[j] += n
        for a, b, sign in ((i, i, 1), (j, j, 1), (i, j, -1), (j, i, -1)):
            if a in where and b in where:
                info[where[a], where[b]] += sign * w
    try:
        cov = np.linalg.inv(info)
        se = [math.sqrt(max(cov[k, k], 0.0)) for k in range(len(free))]
    except np.linalg.LinAlgError:
        se = [math.inf] * len(free)
    out = []
    for p in range(players):
        elo = r[p] * ELO_SCALE
        if p == anchor:
            out.append(Estimate(0.0, 0.0, 0.0, int(games[p])))
            continue
        half = Z95 * se[where[p]] * ELO_SCALE
        if abs(r[p]) >= limit * 0.999:
            half = math.inf
        out.append(Estimate(elo, elo - half, elo + half, int(games[p])))
    return out


def pair_correlation(
    a: Sequence[float], b: Sequence[float], seed: int = 0, resamples: int = 2000
) -> Estimate:
    """One-way intraclass correlation ICC(1) of the pairs ``(a[i], b[i])``, with a 95%
    percentile bootstrap interval over pairs (``resamples`` draws from ``seed``).

    ICC(1) = (MSB − MSW) / (MSB + MSW) for two measurements per pair: the share of the
    variance that lies between pairs. Two replays of one deal that always agree give 1,
    replays that agree no more than two random deals give about 0. nan when every value is
    equal (no variance to share out)."""
    import numpy as np

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"pair_correlation needs two equal-length sequences, got {x.shape} and {y.shape}")
    n = x.size
    if n < 2:
        return Estimate(math.nan, math.nan, math.nan, n)

    def icc(xs: Any, ys: Any) -> Any:
        means = (xs + ys) / 2
        grand = means.mean(axis=-1, keepdims=True)
        msb = 2 * ((means - grand) ** 2).sum(axis=-1) / (n - 1)
        msw = ((xs - ys) ** 2).sum(axis=-1) / (2 * n)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (msb - msw) / (msb + msw)

    value = float(icc(x, y))
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    draws = icc(x[idx], y[idx])
    draws = draws[np.isfinite(draws)]
    low, high = np.quantile(draws, [0.025, 0.975]) if draws.size else (math.nan, math.nan)
    return Estimate(value, float(low), float(high), n)
