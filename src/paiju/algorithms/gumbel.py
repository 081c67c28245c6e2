"""Gumbel root selection: the arithmetic of Gumbel AlphaZero's root (Danihelka et al., ICLR 2022).

A search with few simulations cannot visit every root move often enough for visit counts to
mean much, and AlphaZero's Dirichlet noise gives no guarantee that the move it plays is
better than the prior's. Gumbel root selection does, with any number of simulations:

1. Draw ``g(a) ~ Gumbel(0, 1)`` for every legal root move and consider the ``m`` moves with
   the largest ``g(a) + logits(a)`` (the Gumbel-top-k trick: a sample without replacement
   from the prior).
2. Spend the simulations by **sequential halving** over them: equal visits to each move
   still in play, then keep the better half by ``g(a) + logits(a) + sigma(q(a))``, until one
   is left (:func:`considered_visits` gives, for each simulation, the visit count the move
   to visit next must have, so the halving needs no bookkeeping beyond the visit counts).
3. Play the survivor. When the ``q`` are exact the move played is a sample of
   ``softmax(logits + sigma(q))`` restricted to the considered moves, which is never worse
   in expectation than the prior (the paper's policy-improvement theorem; the property
   test in ``tests/algorithms/test_gumbel.py`` checks it by sampling).
4. The policy target for training is ``softmax(logits + sigma(completed q))`` over all
   legal moves (:func:`improved_policy`): unvisited moves get the mixed value
   :func:`completed_values` instead of nothing, so the target moves probability towards
   the moves the search found good without needing many visits.

``sigma(q) = (c_visit + max_b N(b)) * c_scale * q`` with ``q`` rescaled to [0, 1] over the
root's moves (the paper's monotone transform; ``c_visit = 50``, ``c_scale = 0.1`` are its
values and those of DeepMind's ``mctx`` library). This module knows no tree and no game:
:class:`paiju.algorithms.mcts.MCTS` calls it at its root (``gumbel=m``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

C_VISIT = 50.0
"""The paper's ``c_visit``: how much a Q-value counts before any move has been visited much."""
C_SCALE = 0.1
"""The paper's ``c_scale``: the weight of the rescaled Q-values against the logits."""
MIN_PRIOR = 1e-12
"""Priors are floored here before their logarithm (a move with prior 0 stays possible, just unlikely)."""


def considered_visits(considered: int, simulations: int) -> tuple[int, ...]:
    """For each simulation ``k < simulations``, the visit count the root move visited at ``k``
    must already have: sequential halving over ``considered`` moves, written as visit counts.

    Each of the ``ceil(log2(considered))`` phases gives every move still in play the same
    number of extra visits (at least one, about ``simulations / (phases * in play)``), then
    the number in play halves (never below 2). A move is visited at ``k`` only if its count
    equals entry ``k``, so moves dropped by a phase never reach the next phase's counts.
    """
    if considered < 1 or simulations < 0:
        raise ValueError(f"considered={considered} must be >= 1 and simulations={simulations} >= 0")
    if considered == 1:
        return tuple(range(simulations))
    phases = math.ceil(math.log2(considered))
    sequence: list[int] = []
    visits = [0] * considered
    in_play = considered
    while len(sequence) < simulations:
        extra = max(1, simulations // (phases * in_play))
        for _ in range(extra):
            sequence.extend(visits[:in_play])
            for i in range(in_play):
                visits[i] += 1
        in_play = max(2, in_play // 2)
    return tuple(sequence[:simulations])


def logits(priors: Sequence[float]) -> list[float]:
    """Log-priors, floored at :data:`MIN_PRIOR` and shifted so the largest is 0."""
    raw = [math.log(max(float(p), MIN_PRIOR)) for p in priors]
    top = max(raw)
    return [x - top for x in raw]


def completed_values(
    values: Sequence[float], visits: Sequence[int], priors: Sequence[float], root_value: float
) -> list[float]:
    """Each move's Q-value, the unvisited ones completed by the paper's mixed value.

    ``v_mix = (v + N * sum_b pi(b) q(b) / sum_b pi(b)) / (1 + N)``, sums over visited moves,
    ``N`` their total visits and ``v`` the root's own value estimate: with no visit yet it is
    ``v``; as visits accumulate it tends to the prior-weighted mean of what was searched.
    """
    total = sum(visits)
    weight = sum(p for p, n in zip(priors, visits, strict=True) if n > 0)
    if total == 0 or weight <= 0.0:
        mixed = root_value
    else:
        searched = sum(p * q for p, q, n in zip(priors, values, visits, strict=True) if n > 0) / weight
        mixed = (root_value + total * searched) / (1 + total)
    return [float(q) if n > 0 else mixed for q, n in zip(values, visits, strict=True)]


def sigma(values: Sequence[float], visits: Sequence[int]) -> list[float]:
    """The paper's monotone transform of completed Q-values: rescaled to [0, 1] over the
    moves (all equal: all 0.5), then times ``(c_visit + max visits) * c_scale``."""
    low, high = min(values), max(values)
    scale = (C_VISIT + max(visits, default=0)) * C_SCALE
    if high - low <= 1e-12:
        return [0.5 * scale] * len(values)
    return [scale * (q - low) / (high - low) for q in values]


def improved_policy(log_priors: Sequence[float], transformed: Sequence[float]) -> list[float]:
    """``softmax(logits + sigma(completed q))``: the search's policy target."""
    scores = [a + b for a, b in zip(log_priors, transformed, strict=True)]
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    return [w / total for w in weights]


def choose(
    gumbels: Sequence[float],
    log_priors: Sequence[float],
    transformed: Sequence[float],
    visits: Sequence[int],
    target: int,
) -> int:
    """Index of the move to visit (or play): among the moves whose visit count is ``target``,
    the one with the largest ``g + logits + sigma(q)``. The moves outside the considered set
    carry ``g = -inf`` and are never chosen."""
    best, best_score = -1, -math.inf
    for i, (g, lp, s, n) in enumerate(zip(gumbels, log_priors, transformed, visits, strict=True)):
        if n != target:
            continue
        score = g + lp + s
        if score > best_score:
            best, best_score = i, score
    if best < 0:
        raise ValueError(f"no considered move has {target} visits (visits: {list(visits)})")
    return best


def considered_gumbels(gumbels: Sequence[float], log_priors: Sequence[float], considered: int) -> list[float]:
    """The Gumbel draws with every move outside the top ``considered`` by ``g + logits`` set
    to ``-inf`` (the Gumbel-top-k sample of the moves to search)."""
    order = sorted(range(len(gumbels)), key=lambda i: gumbels[i] + log_priors[i], reverse=True)
    keep = set(order[:considered])
    return [float(g) if i in keep else -math.inf for i, g in enumerate(gumbels)]
