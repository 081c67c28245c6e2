"""Swiss pairing into tables of three: a minimum-cost partition of the field into triples.

A table's cost is the sum of its three pairs' costs, and a pair's cost has three parts,
compared lexicographically (the weights make one repeat meeting dearer than any number of
club pairs, and one club pair dearer than any score gaps):

1. **repeats**: how often the two have met before (a table of three meets as three pairs);
2. **clubs**: 1 when both belong to the same (non-empty) club;
3. **gap**: the square of their score difference, in half points (similar totals meet).

Two sitters never share a table (a player would sit with two substitutes), and a sitter
meets nobody and has no club.

The solver (:func:`solve`) is exact when it can afford to be. It starts from the tables of
consecutive players in standings order, improves them by swapping two players of different
tables while that lowers the cost (a local search of at most ``max_passes`` passes), then runs
a depth-first branch and bound from that solution: the first unseated player in standings order
is seated with each pair of unseated players, most promising first, and a branch is cut when
its cost so far plus a lower bound on the rest (half the sum, over the unseated players, of
each one's two cheapest pairs) cannot beat the best partition found. The search counts its work
(the triples it evaluates and the players at each node it visits) and stops at ``budget``: the
result is then the best partition found, marked ``optimal=False``. Work, not wall time, bounds
it, so the same input always gives the same tables, on any machine and under any load (an
event's pairing must be reproducible from its stored seed). ``docs/tournament.md`` gives the
time this takes for 108 players.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from paiju.core.errors import ConfigError
from paiju.tournament.director.formats import TABLE_SIZE

DEFAULT_BUDGET: Final = 3_000_000
"""Work the branch and bound may do (under a second of CPU time at 108 players; docs/tournament.md)."""
DEFAULT_PASSES: Final = 50
"""Passes of the swap search at most (each is O(tables²); it usually settles in a few)."""


@dataclass(frozen=True)
class Entrant:
    """A player to seat, in standings order; ``total`` is the score that Swiss pairs on."""

    key: int
    total: float
    club: str = ""
    sitter: bool = False


@dataclass(frozen=True)
class TableCost:
    """A partition's cost by part (each summed over every pair seated together)."""

    repeats: int
    clubs: int
    gap: int

    def as_dict(self) -> dict[str, int]:
        return {"repeats": self.repeats, "clubs": self.clubs, "gap": self.gap}


@dataclass(frozen=True)
class Pairing:
    """Tables as entrant keys (each in standings order; tables from the top down)."""

    tables: tuple[tuple[int, int, int], ...]
    cost: TableCost
    optimal: bool
    """True when the branch and bound finished: no partition costs less."""
    work: int
    """Work the branch and bound did (at most the budget plus one node's)."""


def pair_key(a: int, b: int) -> tuple[int, int]:
    """How a meeting is keyed: the two players' keys, smaller first."""
    return (a, b) if a < b else (b, a)


class CostModel:
    """The pair costs of a field (see the module docstring), as one integer per pair."""

    def __init__(self, entrants: Sequence[Entrant], met: Mapping[tuple[int, int], int]) -> None:
        n = len(entrants)
        if len({e.key for e in entrants}) != n:
            raise ConfigError("pairing: an entrant is listed twice")
        self.entrants = tuple(entrants)
        halves = [round(2 * e.total) for e in entrants]
        spread = max(halves) - min(halves) if halves else 0
        # each part outweighs everything below it in any partition of this field
        self.gap_weight = 1
        self.club_weight = (n * spread * spread) + 1
        self.repeat_weight = self.club_weight * (n + 1)
        most_met = max(met.values(), default=0)
        forbidden = self.repeat_weight * (n * most_met + 1)
        self.parts: list[list[tuple[int, int, int]]] = [[(0, 0, 0)] * n for _ in range(n)]
        self.matrix: list[list[int]] = [[0] * n for _ in range(n)]
        for i, a in enumerate(entrants):
            for j in range(i + 1, n):
                b = entrants[j]
                repeats = 0 if a.sitter or b.sitter else met.get(pair_key(a.key, b.key), 0)
                clubs = int(bool(a.club) and a.club == b.club and not (a.sitter or b.sitter))
                gap = (halves[i] - halves[j]) ** 2
                cost = repeats * self.repeat_weight + clubs * self.club_weight + gap
                if a.sitter and b.sitter:
                    cost = forbidden
                self.parts[i][j] = self.parts[j][i] = (repeats, clubs, gap)
                self.matrix[i][j] = self.matrix[j][i] = cost

    def table(self, i: int, j: int, k: int) -> int:
        m = self.matrix
        return m[i][j] + m[i][k] + m[j][k]

    def breakdown(self, tables: Sequence[Sequence[int]]) -> TableCost:
        """The parts of a partition given as entrant indices."""
        totals = [0, 0, 0]
        for t in tables:
            for x in range(TABLE_SIZE):
                for y in range(x + 1, TABLE_SIZE):
                    for part, value in enumerate(self.parts[t[x]][t[y]]):
                        totals[part] += value
        return TableCost(*totals)


def solve(
    entrants: Sequence[Entrant],
    met: Mapping[tuple[int, int], int],
    *,
    budget: int = DEFAULT_BUDGET,
    max_passes: int = DEFAULT_PASSES,
) -> Pairing:
    """The tables of ``entrants`` (in standings order, a multiple of 3 of them) of least cost,
    given how often each pair has ``met`` (keyed by :func:`pair_key`)."""
    n = len(entrants)
    if n == 0 or n % TABLE_SIZE:
        raise ConfigError(f"pairing: {n} entrants do not fill tables of {TABLE_SIZE}")
    if budget < 0 or max_passes < 0:
        raise ConfigError("pairing: the budget and the passes must not be negative")
    model = CostModel(entrants, met)
    start = _swap_search(model, [list(range(i, i + 3)) for i in range(0, n, 3)], max_passes)
    search = _BranchAndBound(model, budget, start)
    search.run()
    tables = sorted((sorted(t) for t in search.best), key=lambda t: t[0])
    return Pairing(
        tables=tuple((entrants[a].key, entrants[b].key, entrants[c].key) for a, b, c in tables),
        cost=model.breakdown(tables),
        optimal=search.finished,
        work=search.work,
    )


def _swap_search(model: CostModel, tables: list[list[int]], max_passes: int) -> list[list[int]]:
    """Swap two players of different tables while some swap lowers the cost (first found)."""
    m = model.matrix
    for _ in range(max_passes):
        improved = False
        for t1 in range(len(tables)):
            for t2 in range(t1 + 1, len(tables)):
                improved |= _improve_pair_of_tables(m, tables[t1], tables[t2])
        if not improved:
            break
    return tables


def _improve_pair_of_tables(m: list[list[int]], one: list[int], two: list[int]) -> bool:
    improved = False
    for x in range(TABLE_SIZE):
        for y in range(TABLE_SIZE):
            a, b = one[x], two[y]
            rest1 = [p for i, p in enumerate(one) if i != x]
            rest2 = [p for i, p in enumerate(two) if i != y]
            delta = sum(m[b][p] - m[a][p] for p in rest1) + sum(m[a][p] - m[b][p] for p in rest2)
            if delta < 0:
                one[x], two[y] = b, a
                improved = True
    return improved


class _BranchAndBound:
    """Depth-first search over partitions, cut by a lower bound (see the module docstring)."""

    def __init__(self, model: CostModel, budget: int, start: list[list[int]]) -> None:
        self.model = model
        self.budget = budget
        self.best = [list(t) for t in start]
        self.best_cost = sum(model.table(*t) for t in start)
        # each player's two cheapest pairs: a table costs half the sum of these over its players, at least
        self.floor = [sum(sorted(row[:i] + row[i + 1 :])[:2]) for i, row in enumerate(model.matrix)]
        self.work = 0
        self.finished = False

    def run(self) -> None:
        n = len(self.model.entrants)
        self.finished = self._extend(list(range(n)), [], 0, sum(self.floor))

    def _extend(
        self, free: list[int], tables: list[tuple[int, int, int]], cost: int, floor_left: int
    ) -> bool:
        """Seat the ``free`` players (in standings order); False when the budget ran out (the
        search is then incomplete)."""
        if not free:
            if cost < self.best_cost:
                self.best_cost, self.best = cost, [list(t) for t in tables]
            return True
        first, others = free[0], free[1:]
        m, fl = self.model.matrix, self.floor
        # each option with its reduced cost (twice its cost less the floors it uses up): the
        # bound below grows with it, so in this order the first option cut ends the loop
        options: list[tuple[int, int, int, int]] = []
        for x, j in enumerate(others):
            base = m[first][j]
            for k in others[x + 1 :]:
                table_cost = base + m[first][k] + m[j][k]
                options.append((2 * table_cost - fl[j] - fl[k], table_cost, j, k))
        self.work += len(options) + len(free)  # the node's own overhead counts too
        options.sort()
        bound = 2 * cost + floor_left - fl[first]
        for reduced, table_cost, j, k in options:
            if bound + reduced >= 2 * self.best_cost:
                break  # the remaining tables cost at least half their players' floors
            if self.work >= self.budget:
                return False
            rest = [p for p in others if p != j and p != k]
            left = floor_left - fl[first] - fl[j] - fl[k]
            if not self._extend(rest, [*tables, (first, j, k)], cost + table_cost, left):
                return False
        return True
