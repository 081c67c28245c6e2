"""The paper's DIH computation: a nested sum over the scores of 1st, 2nd, ... place.

Kept as an independent reference for the tests and as the baseline of
``benchmarks/dih.py``; use :mod:`paiju.tournament.dih` for real work. The paper's formula (2)
is not in the text we have, only its worked example (n = 9, m = 2, r = 2: "1st place takes
the values -2..4, k = 7 terms; when 1st has 4, 2nd ranges over -4 < M2 < 4, 7 values"). The
sums below enumerate place scores on the total's lattice exactly like that, one nesting
level per place, so the work grows like K^r for K lattice values (the paper: exponential in
r, "not suitable for large events").

Two readings of "the top r scores do not repeat" exist, and both are here:

* :func:`nested_sum_unique_awards` (k levels): U(k), places 1..k each held by exactly one
  player and everyone else strictly below; its term is
  n!/(n-k)! p(v_1)...p(v_k) F(<v_k)^(n-k). Run on the paper's example it has exactly the
  paper's term counts (7 values of 1st place, 7 of 2nd when 1st has 4), because the k-th
  place must lie above the lowest value.
* :func:`nested_sum_dih` (r levels): the paper's DIH(r) = P(X(1) > ... > X(r)), places
  1..r-1 unique and the r-th place value v_r free to be shared; its innermost term is
  n!/(n-r+1)! p(v_1)...p(v_{r-1}) [F(<=v_r)^(n-r+1) - F(<v_r)^(n-r+1)], the probability that
  the best of the remaining n - r + 1 players scores exactly v_r.

The innermost level is one numpy slice sum; the outer levels are plain Python loops over
the lattice, as in the paper. A time limit makes infeasible sizes fail fast.
"""

from __future__ import annotations

import math
import time

import numpy as np

from paiju.core.errors import ConfigError
from paiju.tournament.distributions import TotalDistribution, check_positive_int


class NestedSumTimeout(TimeoutError):
    """The nested sum did not finish within its time limit."""


def nested_sum_dih(
    total: TotalDistribution, players: int, top: int, *, time_limit_s: float | None = None
) -> float:
    """DIH(r) by the r-fold nested sum over place scores (see the module docstring)."""
    n = check_positive_int(players, "players")
    r = check_positive_int(top, "top")
    if r > n:
        raise ConfigError(f"top {r} is larger than the number of players {n} (need N >= R)")
    p = np.asarray(total.probabilities, dtype=np.float64)
    le = np.cumsum(p)  # F(<= v)
    lt = le - p  # F(< v)
    q = n - r + 1  # players left when places 1..r-1 are assigned
    innermost = le**q - lt**q  # P(best of q players is exactly v)
    factor = math.perm(n, r - 1)
    deadline = None if time_limit_s is None else time.perf_counter() + time_limit_s
    # Levels 1..r-1 pick unique place scores v_1 > ... > v_{r-1}; level r sums v_r < v_{r-1}.
    return factor * _nest(p, innermost, r - 1, p.size, 1.0, deadline, [0])


def nested_sum_unique_awards(
    total: TotalDistribution, players: int, places: int, *, time_limit_s: float | None = None
) -> float:
    """U(k) by the k-fold nested sum over place scores (the paper's worked-example reading)."""
    n = check_positive_int(players, "players")
    if not 0 <= places <= n:
        raise ConfigError(f"places must be in 0..{n}, got {places!r}")
    if places == 0:
        return 1.0
    p = np.asarray(total.probabilities, dtype=np.float64)
    lt = np.cumsum(p) - p
    innermost = p * lt ** (n - places)
    deadline = None if time_limit_s is None else time.perf_counter() + time_limit_s
    return math.perm(n, places) * _nest(p, innermost, places - 1, p.size, 1.0, deadline, [0])


def _nest(
    p: np.ndarray,
    innermost: np.ndarray,
    levels_left: int,
    upper: int,
    weight: float,
    deadline: float | None,
    counter: list[int],
) -> float:
    """Sum over place scores strictly below lattice index ``upper`` (``levels_left`` more levels).

    ``weight`` is the product of the probabilities of the places already fixed above.
    """
    if levels_left == 0:
        return weight * float(innermost[:upper].sum())
    acc = 0.0
    # The paper enumerates every lattice value of this place, from the top down.
    for v in range(upper - 1, levels_left - 1, -1):
        counter[0] += 1
        if deadline is not None and counter[0] % 4096 == 0 and time.perf_counter() > deadline:
            raise NestedSumTimeout("the nested sum over place scores ran past its time limit")
        acc += _nest(p, innermost, levels_left - 1, v, weight * float(p[v]), deadline, counter)
    return acc


def nested_sum_terms(lattice_size: int, levels: int) -> int:
    """Number of innermost terms of a ``levels``-fold nested sum: C(K, levels)."""
    return math.comb(lattice_size, levels)
