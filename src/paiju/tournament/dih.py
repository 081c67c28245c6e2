"""Exact DIH (distinction of initial hand) in polynomial time (``docs/dih.md`` §1-2).

n players have i.i.d. totals X_1..X_n with probability mass p on an ascending lattice of
values, F(<v) = P(X < v). Write X(1) >= X(2) >= ... for the order statistics and

    U(k) = P( X(1) > X(2) > ... > X(k) > X(k+1) )     (k "unique awards"; X(n+1) = -inf)

On that event k distinct players hold k distinct values v_1 > ... > v_k and the other n - k
players are all below v_k; the n!/(n-k)! ordered choices of those players are disjoint
events of equal probability, so

    U(k) = n!/(n-k)! * sum_{v_1 > ... > v_k} p(v_1) ... p(v_k) * F(<v_k)^(n-k).

With a_1(v) = n p(v) and a_j(v) = (n-j+1) p(v) sum_{w > v} a_{j-1}(w) this is
U(k) = sum_v a_k(v) F(<v)^(n-k): k suffix sums over the lattice, O(k K) for K lattice cells,
where the paper's nested sum over place scores costs O(K^k). DIH(r), the probability that
the r highest totals are pairwise distinct, is U(r - 1) (X(1) > ... > X(r) is exactly the
event that the first r - 1 places are unique); DIH(1) = U(0) = 1.

Numerics: every term is a product of non-negative numbers, so there is no cancellation.
a_k(v) can exceed 1 (it is at most n^k), so the last factor is applied in log space,
``exp(log a_k + (n-k) log F(<v))``, with log F(<v) = log1p(-P(X >= v)) in the upper tail
where F is close to 1. When n^k could overflow a float64 the whole recursion runs in log
space (``logaddexp`` suffix sums) instead.

The kernels work on a matrix of many distributions at once (rows share one lattice), which
is how a pool of deals is ranked in one pass.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np

from paiju.core import deadline
from paiju.core.errors import ConfigError
from paiju.tournament.distributions import (
    ScoreDistribution,
    TotalDistribution,
    check_positive_int,
    repeated_total,
    total_distribution,
)

_LINEAR_LOG_LIMIT: Final = 600.0
"""Run the recursion in linear space while k * ln(n) stays below this (n^k < e^600)."""
_BLOCK: Final = 256
"""Rows per block in the batched kernel (temporaries stay in cache)."""


def check_top(players: int, top: int) -> None:
    """Validate (players, top): both positive integers and ``top <= players``."""
    check_positive_int(players, "players")
    check_positive_int(top, "top")
    if top > players:
        raise ConfigError(f"top {top} is larger than the number of players {players} (need N >= R)")


def dih(dist: ScoreDistribution, players: int, rounds: int, top: int) -> float:
    """DIH(D; n, m, r): every one of ``rounds`` rounds has score law ``dist`` (the paper)."""
    check_top(players, top)
    return dih_of_total(repeated_total(dist, rounds), players, top)


def dih_of_rounds(rounds: Sequence[ScoreDistribution], players: int, top: int) -> float:
    """DIH when round t has its own score law ``rounds[t]``, shared by every player."""
    check_top(players, top)
    return dih_of_total(total_distribution(rounds), players, top)


def dih_of_total(total: TotalDistribution, players: int, top: int) -> float:
    """DIH for ``players`` i.i.d. totals with law ``total``."""
    check_top(players, top)
    return unique_awards_of_total(total, players, top - 1)


def unique_awards_of_total(total: TotalDistribution, players: int, places: int) -> float:
    """U(k) = P(each of the first ``places`` places is held by exactly one player)."""
    check_positive_int(players, "players")
    if isinstance(places, bool) or not isinstance(places, int | np.integer) or not 0 <= places <= players:
        raise ConfigError(f"places must be an integer in 0..{players}, got {places!r}")
    return float(unique_awards_matrix(total.probabilities[None, :], players, int(places))[0])


def unique_awards_profile(total: TotalDistribution, players: int, max_places: int) -> np.ndarray:
    """``[U(0), U(1), ..., U(max_places)]`` in one pass (U(k) = DIH(k + 1))."""
    check_positive_int(players, "players")
    if not 0 <= max_places <= players:
        raise ConfigError(f"max_places must be in 0..{players}, got {max_places!r}")
    probs = total.probabilities[None, :]
    out = []
    for k in range(max_places + 1):
        deadline.check()
        out.append(unique_awards_matrix(probs, players, k)[0])
    return np.array(out)


def dih_matrix(probabilities: np.ndarray, players: int, top: int) -> np.ndarray:
    """DIH of every row of ``probabilities`` (B x K, rows are laws on one ascending lattice)."""
    check_top(players, top)
    return unique_awards_matrix(probabilities, players, top - 1)


def unique_awards_matrix(
    probabilities: np.ndarray, players: int, places: int, *, log_space: bool | None = None
) -> np.ndarray:
    """U(places) of every row of a (B x K) matrix of laws on a shared ascending lattice.

    ``log_space`` forces the log-space recursion (True) or the linear one (False); by default
    the linear one is used whenever it cannot overflow. Rows need not be normalised exactly:
    callers pass convolutions whose sums are 1 up to rounding.
    """
    P = np.asarray(probabilities, dtype=np.float64)
    if P.ndim != 2:
        raise ValueError(f"expected a 2-D matrix of distributions, got shape {P.shape}")
    n, k = int(players), int(places)
    if k == 0:
        return np.ones(P.shape[0])
    if log_space is None:
        log_space = k * math.log(n) >= _LINEAR_LOG_LIMIT
    if P.shape[0] > _BLOCK:  # cache-sized blocks: about twice as fast as one big pass
        blocks = range(0, P.shape[0], _BLOCK)
        parts = [unique_awards_matrix(P[s : s + _BLOCK], n, k, log_space=log_space) for s in blocks]
        return np.concatenate(parts)
    q = n - k  # players that must finish below the k-th place
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        if log_space:
            log_a = _log_a_log_space(P, n, k)
            terms = np.exp(log_a if q == 0 else log_a + q * _log_cdf_below(P))
        else:
            # a_k <= n^k < e^600 here, so a_k * F^q cannot overflow; an F^q that underflows
            # to 0 drops a term below e^600 * 1e-308, far under any float64 resolution of U.
            a = _a_linear(P, n, k)
            terms = a if q == 0 else a * np.exp(q * _log_cdf_below(P))
    out = terms.sum(axis=1)
    return np.minimum(out, 1.0)


def _strict_suffix_sum(a: np.ndarray) -> np.ndarray:
    """``out[:, i] = sum(a[:, i+1:])`` (the mass strictly above each lattice cell)."""
    out = np.zeros_like(a)
    np.cumsum(a[:, :0:-1], axis=1, out=out[:, -2::-1])
    return out


def _a_linear(P: np.ndarray, n: int, k: int) -> np.ndarray:
    a = n * P
    for j in range(2, k + 1):
        if not j & 15:  # k can be in the thousands; one step is a few vector operations
            deadline.check()
        a = (n - j + 1) * P * _strict_suffix_sum(a)
    return a


def _log_a_log_space(P: np.ndarray, n: int, k: int) -> np.ndarray:
    log_p = np.log(P)
    la = math.log(n) + log_p
    for j in range(2, k + 1):
        if not j & 15:
            deadline.check()
        suffix = np.full_like(la, -np.inf)
        if la.shape[1] > 1:
            suffix[:, -2::-1] = np.logaddexp.accumulate(la[:, :0:-1], axis=1)
        la = math.log(n - j + 1) + log_p + suffix
    return la


def _log_cdf_below(P: np.ndarray) -> np.ndarray:
    """log F(<v) per cell; log1p of the upper tail mass where F(<v) is close to 1."""
    below = np.zeros_like(P)
    np.cumsum(P[:, :-1], axis=1, out=below[:, 1:])
    log_f = np.log(below)
    tail = _strict_suffix_sum(P)
    tail += P  # mass at or above each cell
    np.log1p(-tail, out=log_f, where=tail <= 0.5)
    return log_f
