"""yuxi matches and ladders: agents against each other on seat-swapped pairs in :mod:`paiju.yuxi.rooms`.

A pair is one room and one deal played twice, each agent in each seat once, so the deal's
luck cancels in the pair's score; matches and round-robin ladders run through the project's
runner and resume from their journal.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paiju.core.errors import ConfigError
from paiju.yuxi.agents.greedy import game_for
from paiju.yuxi.game import RULES_VERSION
from paiju.yuxi.rooms import YuxiRooms

# ---- strength: seat-swapped pairs on the same deal ------------------------------------------------
PairRow = tuple[int, str, float, float]
"""One pair of a match: ``(pair, board, score of a as seat 0, score of a as seat 1)``."""


@dataclass(frozen=True)
class PairTask:
    """Pairs ``pairs`` of a match of agent spec ``a`` against ``b`` (a runner task)."""

    a: str
    b: str
    rooms: YuxiRooms
    seed: int
    pairs: tuple[int, ...]


def play_pair(
    make_a: Callable[[int], Any], make_b: Callable[[int], Any], rooms: YuxiRooms, seed: int, pair: int,
    before_move: Any = None,
) -> PairRow:
    """Pair ``pair`` of a match: the room and the chance from ``derive_seed(seed, pair)``, A
    (built by ``make_a(agent_seed)``) first in seat 0 then in seat 1, the seat's agent seed
    the same in both games; a score is 1 for a win, 0.5 for a draw, 0 for a loss. Both games
    share the room and the chance seed (the deal), so the pair cancels the seat's and the
    deal's luck. ``before_move`` goes to :func:`~paiju.core.protocol.play_game` (an analysis
    hook, e.g. handing an oracle the true state)."""
    from paiju.core.protocol import play_game
    from paiju.core.rng import derive_seed

    config = rooms.config(derive_seed(seed, pair))
    game = game_for(config)
    scores = []
    for a_seat in (0, 1):
        makers = (make_a, make_b) if a_seat == 0 else (make_b, make_a)
        agents = [make(derive_seed(seed, pair, 1 + seat)) for seat, make in enumerate(makers)]
        returns = play_game(game, agents, derive_seed(seed, pair, 3), before_move=before_move).state.returns()
        mine, theirs = returns[a_seat], returns[1 - a_seat]
        scores.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    return pair, config.board, scores[0], scores[1]


def play_pairs(task: PairTask) -> list[PairRow]:
    """:func:`play_pair` for every pair of the task, the agents built from its specs."""
    from paiju.yuxi.agents import REGISTRY

    def make_a(seed: int) -> Any:
        return REGISTRY.make(task.a, seed=seed)

    def make_b(seed: int) -> Any:
        return REGISTRY.make(task.b, seed=seed)

    return [play_pair(make_a, make_b, task.rooms, task.seed, p) for p in task.pairs]


@dataclass
class MatchResult:
    """A's score against B over seat-swapped pairs: overall and per board, with 95% intervals
    (the pair is the unit: intervals come from the per-pair mean scores)."""

    a: str
    b: str
    pairs: list[PairRow]

    def score(self, board: str | None = None) -> Any:
        from paiju.core.stats import mean_ci

        return mean_ci([(s0 + s1) / 2 for _, b, s0, s1 in self.pairs if board is None or b == board])

    def split(self, board: str | None = None) -> Any:
        """The share of pairs that split, each side winning the game of one seat: between
        these two agents the deal (the seats' cards), not the play, decided those pairs.
        Either side's score in the match is at most 0.5 + (1 - split) / 2."""
        from paiju.core.stats import proportion_ci

        rows = [(s0, s1) for _, b, s0, s1 in self.pairs if board is None or b == board]
        return proportion_ci(sum((s0, s1) in ((1.0, 0.0), (0.0, 1.0)) for s0, s1 in rows), len(rows))

    def boards(self) -> list[str]:
        return sorted({b for _, b, _, _ in self.pairs})

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "pairs": len(self.pairs),
            "games": 2 * len(self.pairs),
            "score": self.score().as_dict(),
            "split": self.split().as_dict(),
            "by_board": {b: self.score(b).as_dict() for b in self.boards()},
        }


def _rows_from_json(rows: Any) -> list[PairRow]:
    return [(int(p), str(board), float(s0), float(s1)) for p, board, s0, s1 in rows]


PAIRS_PER_TASK = 2
"""Seat-swapped pairs one runner task plays (and a journal line keeps)."""


def _pair_tasks(a: str, b: str, rooms: YuxiRooms, pairs: int, seed: int) -> list[PairTask]:
    return [
        PairTask(a, b, rooms, seed, tuple(range(i, min(i + PAIRS_PER_TASK, pairs))))
        for i in range(0, pairs, PAIRS_PER_TASK)
    ]


def _journal_config(kind: str, rooms: YuxiRooms, pairs: int, seed: int, **agents: Any) -> dict[str, Any]:
    return {"kind": kind, **agents, "pairs": pairs, "seed": seed, "rooms": rooms.describe(),
            "cards_file": rooms.cards_file, "decks_file": rooms.decks_file,
            "rules_version": RULES_VERSION}


def match_pairs(
    a: str, b: str, rooms: YuxiRooms, pairs: int, seed: int, backend: Any = None, progress: Any = False,
    journal: str | os.PathLike[str] | None = None,
) -> MatchResult:
    """``pairs`` seat-swapped pairs of ``a`` against ``b`` in rooms drawn from ``seed``
    (through the project's runner; the result does not depend on the backend). With
    ``journal`` (a JSONL file) every finished task of pairs is appended there, and calling
    again with the same arguments plays only the pairs it lacks."""
    from paiju.core.runner import TaskJournal, run_journalled
    from paiju.yuxi.agents import check_specs

    check_specs((a, b), rooms.boards, rooms.cards_file, rooms.decks_file)
    tasks = _pair_tasks(a, b, rooms, pairs, seed)
    config = _journal_config("yuxi-match", rooms, pairs, seed, a=a, b=b)
    store = None if journal is None else TaskJournal(journal, config, list, _rows_from_json)
    found = run_journalled(play_pairs, tasks, store, backend=backend, progress=progress,
                           size=lambda t: 2 * len(t.pairs))
    return MatchResult(a, b, [r for rows in found for r in rows])


@dataclass
class Ladder:
    """A round robin of agent specs on seat-swapped pairs and the Elo ratings it gives
    (anchored at the first spec, 0)."""

    specs: list[str]
    matches: list[MatchResult]
    ratings: list[Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "anchor": self.specs[0],
            "ratings": [
                {"agent": s, "elo": r.as_dict()} for s, r in zip(self.specs, self.ratings, strict=True)
            ],
            "matches": [m.to_dict() for m in self.matches],
        }

    def markdown(self) -> str:
        lines = ["| agent | Elo | 95% interval | games |", "|---|---|---|---|"]
        order = sorted(range(len(self.specs)), key=lambda k: -self.ratings[k].value)
        for k in order:
            r = self.ratings[k]
            lines.append(f"| `{self.specs[k]}` | {r.value:+.0f} | [{r.low:+.0f}, {r.high:+.0f}] | {r.n} |")
        lines += ["", "| A | B | score of A | 95% interval | pairs | pairs split 1–1 |",
                  "|---|---|---|---|---|---|"]
        for m in self.matches:
            e = m.score()
            lines.append(f"| `{m.a}` | `{m.b}` | {e.value:.3f} | [{e.low:.3f}, {e.high:.3f}] | {e.n} "
                         f"| {m.split().value:.2f} |")
        return "\n".join(lines) + "\n"

    def plot(self, path: Any) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        order = sorted(range(len(self.specs)), key=lambda k: self.ratings[k].value)
        values = [self.ratings[k].value for k in order]
        err = [
            [v - max(self.ratings[k].low, -2000) for k, v in zip(order, values, strict=True)],
            [min(self.ratings[k].high, 2000) - v for k, v in zip(order, values, strict=True)],
        ]
        fig, ax = plt.subplots(figsize=(7, 0.5 * len(order) + 1.2))
        ax.barh(range(len(order)), values, xerr=err, color="#4a7ab5", capsize=3)
        ax.set_yticks(range(len(order)), [self.specs[k] for k in order], fontsize=7)
        ax.set_xlabel(f"Elo (anchor {self.specs[0]} = 0), 95% intervals")
        boards = sorted({b for m in self.matches for b in m.boards()})
        # ladders of several boards sit side by side in reports: say which this is
        pairs = len(self.matches[0].pairs)
        ax.set_title(f"yuxi ladder: {', '.join(boards)}, {pairs} pairs a matchup", fontsize=9)
        fig.tight_layout()
        fig.savefig(path, dpi=90, bbox_inches="tight")  # long specs: keep every label whole
        plt.close(fig)


def run_ladder(
    specs: list[str], rooms: YuxiRooms, pairs: int, seed: int, backend: Any = None, progress: Any = False,
    journal: str | os.PathLike[str] | None = None,
) -> Ladder:
    """Every two of ``specs`` play ``pairs`` seat-swapped pairs (matchup ``m`` from
    ``derive_seed(seed, m)``: the pairs :func:`match_pairs` plays with that seed); Elo by
    Bradley-Terry maximum likelihood (:func:`paiju.core.stats.elo_ratings`). The tasks of
    every matchup go to the runner together, so the workers stay busy across matchups; with
    ``journal`` an interrupted ladder resumes playing only the pairs it lacks."""
    from paiju.core.rng import derive_seed
    from paiju.core.runner import TaskJournal, run_journalled
    from paiju.core.stats import elo_ratings
    from paiju.yuxi.agents import check_specs

    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise ConfigError(f"a ladder needs at least two distinct agent specs, got {specs}")
    check_specs(tuple(specs), rooms.boards, rooms.cards_file, rooms.decks_file)
    matchups = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    per_matchup = [_pair_tasks(specs[i], specs[j], rooms, pairs, derive_seed(seed, m))
                   for m, (i, j) in enumerate(matchups)]
    config = _journal_config("yuxi-ladder", rooms, pairs, seed, specs=list(specs))
    store = None if journal is None else TaskJournal(journal, config, list, _rows_from_json)
    found = run_journalled(play_pairs, [t for ts in per_matchup for t in ts], store, backend=backend,
                           progress=progress, size=lambda t: 2 * len(t.pairs))
    matches, results, k = [], [], 0
    for (i, j), tasks in zip(matchups, per_matchup, strict=True):
        rows = [r for part in found[k:k + len(tasks)] for r in part]
        k += len(tasks)
        result = MatchResult(specs[i], specs[j], rows)
        matches.append(result)
        results.append((i, j, 2 * pairs * result.score().value, 2.0 * pairs))
    return Ladder(specs, matches, elo_ratings(results, len(specs), anchor=0))
