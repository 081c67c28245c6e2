"""Dou Dizhu self-play at scale: record many games of one agent line-up, resumably.

Why a thin layer: the arena's :func:`paiju.core.arena.run_games` already plays planned
games with per-game seeds (game ``i`` is the same game in any process, in any order, before
or after a resume) and writes them through :class:`paiju.core.records.RecordWriter` (atomic
batches, a run id per configuration), so self-play is the arena's ``fixed`` format — agent
``k`` in seat ``k`` (seat 0 the landlord), or one agent in every seat — plus two things:

* the choice of backend of the project's one runner (:mod:`paiju.core.runner`): local
  processes, or a **Ray** cluster (``use_ray``), so the same games can be played on many
  machines; the rows are identical to a local run (only the decision times differ);
* throughput figures (games/s) of the run.

Interrupting a run (Ctrl-C, a killed job, a lost Ray node) loses at most the batches in
flight; running the same command again plays only the missing game indices. The records
are the core format (``docs/records.md``) that ``train_policy`` and the splitter read.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paiju.core.arena import RunResult, run_games
from paiju.core.errors import ConfigError
from paiju.core.runner import Backend, Progress

GAME = "doudizhu"


@dataclass(frozen=True)
class SelfplayResult:
    """What a self-play run did, with its throughput."""

    run: RunResult
    seconds: float
    backend: str
    workers: int

    @property
    def games_per_second(self) -> float:
        """Games played *now* (resumed games excluded) per wall-clock second."""
        return self.run.played / self.seconds if self.seconds > 0 else float("nan")

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run.run_id,
            "agents": self.run.setup.specs,
            "games": self.run.n_games,
            "played": self.run.played,
            "skipped": self.run.skipped,
            "out": None if self.run.out_dir is None else str(self.run.out_dir),
            "backend": self.backend,
            "workers": self.workers,
            "seconds": round(self.seconds, 3),
            "games_per_second": round(self.games_per_second, 2) if self.run.played else None,
        }


def validate_agents(specs: Sequence[str]) -> list[str]:
    """Check the line-up (1 agent for every seat, or 3) and build each agent once, so a bad
    spec or a missing checkpoint fails before any game is played; canonical specs back."""
    from paiju.core.registry import get_entry

    if len(specs) not in (1, 3):
        raise ConfigError(
            f"self-play needs 3 agents (landlord, farmer 1, farmer 2) or 1 for every seat, got {len(specs)}"
        )
    entry = get_entry(GAME)
    registry = entry.load_agents()
    canonical = []
    for spec in specs:
        resolved = registry.resolve(spec)
        registry.make(resolved, seed=0)
        canonical.append(str(resolved))
    return canonical


def selfplay(
    agents: Sequence[str],
    games: int,
    out_dir: str | os.PathLike[str] | None,
    *,
    workers: int = 1,
    seed: int = 0,
    use_ray: bool = False,
    ray_address: str | None = None,
    progress: Progress = False,
    batch_size: int | None = None,
    game_options: dict[str, Any] | None = None,
) -> SelfplayResult:
    """Play games ``0..games-1`` of the line-up ``agents`` (seat order) and record them.

    ``out_dir`` resumes: games already there are skipped. ``workers`` local processes (or
    Ray tasks in flight with ``use_ray``); the records do not depend on either.
    """
    specs = validate_agents(agents)
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    backend = Backend(workers=workers, ray=use_ray, ray_address=ray_address)
    start = time.perf_counter()
    run = run_games(
        GAME, specs, games, seed, None if out_dir is None else Path(out_dir), workers, progress,
        fmt="fixed", game_options=game_options, batch_size=batch_size, backend=backend,
    )
    seconds = time.perf_counter() - start
    return SelfplayResult(run, seconds, backend.name, workers)


__all__ = ["SelfplayResult", "selfplay", "validate_agents"]
