"""Dou Dizhu self-play at scale: record many games of one agent line-up, resumably.

Why a thin layer: the arena's :func:`paiju.core.arena.run_games` already plays planned
games with per-game seeds (game ``i`` is the same game in any process, in any order, before
or after a resume) and writes them through :class:`paiju.core.records.RecordWriter` (atomic
batches, a run id per configuration), so self-play is the arena's ``fixed`` format — agent
``k`` in seat ``k`` (seat 0 the landlord), or one agent in every seat — plus two things:

* an executor for a **Ray** cluster (:func:`ray_executor`), plugged into ``run_games``'s
  ``executor`` hook, so the same games can be played on many machines; the rows are
  identical to a local run (only the decision times differ);
* throughput figures (games/s) of the run.

Interrupting a run (Ctrl-C, a killed job, a lost Ray node) loses at most the batches in
flight; running the same command again plays only the missing game indices. The records
are the core format (``docs/records.md``) that ``train_policy`` and the splitter read.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paiju.core.arena import BatchExecutor, Progress, RunResult, play_batch, run_games
from paiju.core.errors import ConfigError

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


def ray_executor(address: str | None = None, init: bool = True) -> BatchExecutor:
    """An executor running each batch as a Ray task, at most ``2 * workers`` in flight.

    Ray is initialised on first use unless it already is (a test or a notebook may have
    called ``ray.init`` itself): ``ray.init(address=address)`` joins the cluster at
    ``address`` (default: ``$RAY_ADDRESS``), or starts a local instance when there is none.
    """

    def run(tasks: list[Any], workers: int, consume: Callable[[list[dict[str, Any]]], None]) -> None:
        import ray

        if not ray.is_initialized():
            if not init:
                raise ConfigError("Ray is not initialised; call ray.init() first or pass init=True")
            ray.init(address=address if address is not None else os.environ.get("RAY_ADDRESS"))
        remote = ray.remote(play_batch)
        queue = list(reversed(tasks))
        pending: list[Any] = []
        try:
            while queue or pending:
                while queue and len(pending) < 2 * workers:
                    pending.append(remote.remote(queue.pop()))
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    consume(ray.get(ref))
        finally:
            for ref in pending:  # interrupted: do not leave tasks running on the cluster
                ray.cancel(ref, force=True)

    return run


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
    executor = ray_executor(ray_address) if use_ray else None
    start = time.perf_counter()
    run = run_games(
        GAME, specs, games, seed, None if out_dir is None else Path(out_dir), workers, progress,
        fmt="fixed", game_options=game_options, batch_size=batch_size, executor=executor,
    )
    seconds = time.perf_counter() - start
    backend = "ray" if use_ray else ("processes" if workers > 1 else "in-process")
    return SelfplayResult(run, seconds, backend, workers)


__all__ = ["SelfplayResult", "ray_executor", "selfplay", "validate_agents"]
