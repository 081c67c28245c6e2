"""The one way paiju plays many games: independent tasks on local processes or a Ray cluster.

Every job that plays games in quantity — the arena and Dou Dizhu self-play, the population
simulation of deal selection, yuxi audits and balance reports, training self-play — cuts
its work into *tasks* (a picklable value naming the games to play: indices and seeds, never
live objects) and hands them to :func:`run_tasks` with a top-level worker function. The
runner guarantees what each of those jobs needs, in one place:

* **Backends.** ``Backend(workers=1)`` runs the tasks in this process; ``workers > 1``
  runs them on that many spawned local processes (spawn, not fork: no inherited torch or
  thread state); ``Backend(ray=True)`` runs each task as a Ray task on the cluster at
  ``$RAY_ADDRESS`` (a local Ray instance when it is unset, or ``ray_address``).
* **Bounded work in flight.** At most ``max_in_flight`` tasks (default ``2 * workers``) are
  submitted and not yet consumed, so results stream to disk and a huge job holds only a
  few tasks in memory.
* **Deterministic results.** Results reach ``consume(index, result)`` in this process, in
  completion order; a task must be fully determined by its own value (seeds derived from
  game indices, :func:`paiju.core.rng.derive_seed`), so the results do not depend on the
  backend, the number of workers or the order of completion.
* **Ctrl-C cancels cleanly.** Worker processes ignore SIGINT; on KeyboardInterrupt (or any
  error) the runner terminates its processes or cancels its Ray tasks, and re-raises.
  Everything already consumed stays consumed.
* **Resume.** Callers skip the tasks whose results are already stored (the arena's records,
  the population's Parquet chunks, or a :class:`TaskJournal`), so a rerun plays only what is
  missing.
* **Progress.** ``progress=True`` draws a Rich progress bar on stderr, counting ``size(task)``
  units per task (games, by default one per task), or writes a plain line every 30 seconds
  where stderr is not a terminal (a log file); a callable gets ``(done, total)``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing
import os
import queue
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from paiju.core.errors import ConfigError, CorruptRecordError

T = TypeVar("T")
R = TypeVar("R")

Progress = bool | Callable[[int, int], None]
"""True: a Rich progress bar on stderr; a callable: ``(units_done, units_total)``; False: silent."""


@dataclass(frozen=True)
class Backend:
    """Where tasks run: this process, ``workers`` local processes, or Ray."""

    workers: int = 1
    ray: bool = False
    ray_address: str | None = None
    """Ray cluster to join; None reads ``$RAY_ADDRESS`` (a local instance when unset)."""
    max_in_flight: int | None = None
    """Tasks submitted and not yet consumed (default ``2 * workers``)."""

    def __post_init__(self) -> None:
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise ConfigError(f"workers must be a positive integer, got {self.workers!r}")
        if self.max_in_flight is not None and self.max_in_flight < 1:
            raise ConfigError(f"max_in_flight must be at least 1, got {self.max_in_flight}")

    @property
    def name(self) -> str:
        return "ray" if self.ray else "processes" if self.workers > 1 else "in-process"

    @property
    def in_flight(self) -> int:
        return self.max_in_flight if self.max_in_flight is not None else 2 * self.workers


def run_tasks(
    fn: Callable[[T], R],
    tasks: Sequence[T],
    consume: Callable[[int, R], None],
    *,
    backend: Backend | None = None,
    progress: Progress = False,
    size: Callable[[T], int] | None = None,
    done: int = 0,
    total: int | None = None,
    label: str = "games",
) -> None:
    """Run ``fn(task)`` for every task and hand ``(task index, result)`` to ``consume``.

    ``fn`` must be a top-level function (it is pickled by name for processes and Ray).
    ``done`` units were finished before this call (a resumed job) and ``total`` is the whole
    job's size (default ``done`` + the sizes of ``tasks``): both only feed the progress bar.
    """
    backend = backend or Backend()
    sizes = [size(t) if size is not None else 1 for t in tasks]
    grand_total = total if total is not None else done + sum(sizes)
    finished = done
    with progress_reporter(progress, grand_total, done, label) as report:

        def take(index: int, result: R) -> None:
            nonlocal finished
            consume(index, result)
            finished += sizes[index]
            if report is not None:
                report(finished, grand_total)

        if not tasks:
            return
        if backend.ray:
            _run_ray(fn, tasks, take, backend)
        elif backend.workers == 1 or len(tasks) == 1:
            for index, task in enumerate(tasks):
                take(index, fn(task))
        else:
            _run_processes(fn, tasks, take, backend)


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C is the parent's to handle (it terminates the pool)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_processes(
    fn: Callable[[T], R], tasks: Sequence[T], take: Callable[[int, R], None], backend: Backend
) -> None:
    ctx = multiprocessing.get_context("spawn")
    results: queue.Queue[tuple[int, bool, Any]] = queue.Queue()
    pool = ctx.Pool(processes=min(backend.workers, len(tasks)), initializer=_ignore_sigint)
    next_task, pending = 0, 0
    try:
        while next_task < len(tasks) or pending:
            while next_task < len(tasks) and pending < backend.in_flight:
                pool.apply_async(
                    fn, (tasks[next_task],),
                    callback=functools.partial(_deliver, results, next_task, True),
                    error_callback=functools.partial(_deliver, results, next_task, False),
                )
                next_task += 1
                pending += 1
            index, ok, value = _get(results)
            pending -= 1
            if not ok:
                raise value
            take(index, value)
    except BaseException:
        pool.terminate()  # Ctrl-C or a failed task: stop the workers now, not after their tasks
        pool.join()
        raise
    pool.close()
    pool.join()


def _deliver(results: queue.Queue[tuple[int, bool, Any]], index: int, ok: bool, value: Any) -> None:
    """Pool callback (the pool's result thread): pass a result or an error to the main loop."""
    results.put((index, ok, value))


def _get(results: queue.Queue[tuple[int, bool, Any]]) -> tuple[int, bool, Any]:
    """Block for the next result, waking up regularly so Ctrl-C is seen at once."""
    while True:
        try:
            return results.get(timeout=0.2)
        except queue.Empty:
            continue


def _run_ray(
    fn: Callable[[T], R], tasks: Sequence[T], take: Callable[[int, R], None], backend: Backend
) -> None:
    try:
        import ray
    except ImportError:  # pragma: no cover - ray is a dependency
        raise ConfigError("--ray needs the 'ray' package (pip install 'ray[default]')") from None
    if not ray.is_initialized():
        address = backend.ray_address if backend.ray_address is not None else os.environ.get("RAY_ADDRESS")
        if address:
            ray.init(address=address)
        else:  # a local instance for this job: no dashboard to start
            ray.init(include_dashboard=False)
    remote = ray.remote(fn)
    pending: dict[Any, int] = {}
    next_task = 0
    try:
        while next_task < len(tasks) or pending:
            while next_task < len(tasks) and len(pending) < backend.in_flight:
                pending[remote.remote(tasks[next_task])] = next_task
                next_task += 1
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                take(pending.pop(ref), ray.get(ref))
    finally:
        for ref in pending:  # interrupted: leave nothing running on the cluster
            ray.cancel(ref, force=True)


@contextmanager
def progress_reporter(
    progress: Progress, total: int, done: int, label: str
) -> Iterator[Callable[[int, int], None] | None]:
    """A Rich progress bar on stderr (``progress=True``), the caller's callback, or nothing."""
    if callable(progress):
        yield progress
        return
    if not progress:
        yield None
        return
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        # Rich draws nothing live into a log file or a CI log; a long job there would say
        # nothing for an hour, so it writes plain lines instead
        yield progress_lines(console.file.write, label, total, done)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
    from rich.progress import Progress as Bar

    with Bar(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console,
    ) as bar:
        task = bar.add_task(label, total=total, completed=done)
        yield lambda finished, _total: bar.update(task, completed=finished)


LOG_EVERY_S = 30.0
"""Where stderr is not a terminal, a progress line at most this often (and at the end)."""


def progress_lines(
    write: Callable[[str], Any], label: str, total: int, done: int,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[int, int], None]:
    """A progress callback writing ``label: done/total (elapsed, about ETA left)`` lines.

    One line at once, then at most one every :data:`LOG_EVERY_S` seconds, and one when the
    job is complete; the estimate counts only the units done since the start (a resumed
    job's earlier units cost nothing now).
    """
    start = clock()
    last = start
    write(f"{label}: {done}/{total}\n")

    def report(finished: int, total_now: int) -> None:
        nonlocal last
        now = clock()
        if now - last < LOG_EVERY_S and finished < total_now:
            return
        last = now
        elapsed = now - start
        line = f"{label}: {finished}/{total_now} ({_duration(elapsed)}"
        if done < finished < total_now:
            line += f", about {_duration(elapsed * (total_now - finished) / (finished - done))} left"
        write(line + ")\n")

    return report


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


# ---- resume for jobs without records of their own ------------------------------------------------
class TaskJournal(Generic[R]):
    """Finished task results, appended one JSON line at a time, for jobs to resume from.

    The first line holds the job's configuration; reopening the journal with a different
    configuration is refused (the results would mix two experiments). A line cut short by a
    kill is ignored and rewritten. ``encode``/``decode`` turn a result into JSON values and
    back.
    """

    def __init__(
        self, path: str | os.PathLike[str], config: dict[str, Any],
        encode: Callable[[R], Any], decode: Callable[[Any], R],
    ) -> None:
        self.path = Path(path)
        self.encode, self.decode = encode, decode
        header = {"journal": 1, "config": config,
                  "config_hash": hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()}
        self.results: dict[int, R] = {}
        if self.path.exists() and self.path.stat().st_size:
            self._load(header)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(header, sort_keys=True) + "\n", encoding="utf-8")

    def _load(self, header: dict[str, Any]) -> None:
        lines = self.path.read_text(encoding="utf-8").split("\n")
        try:
            first = json.loads(lines[0])
        except json.JSONDecodeError:
            raise CorruptRecordError(f"{self.path}: line 1 is not a journal header") from None
        if not isinstance(first, dict) or first.get("config_hash") != header["config_hash"]:
            raise ConfigError(
                f"{self.path} is the journal of another job (configuration {first.get('config')!r} "
                f"if it is one); use a new file, or the same arguments to resume"
            )
        good = [lines[0]]
        entries = [(number, line) for number, line in enumerate(lines[1:], start=2) if line.strip()]
        for k, (number, line) in enumerate(entries):
            try:
                item = json.loads(line)
                self.results[int(item["task"])] = self.decode(item["result"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                if k == len(entries) - 1:
                    break  # the last line, cut short by a kill: drop it
                raise CorruptRecordError(f"{self.path}: line {number} is not a journal entry") from None
            good.append(line)
        self.path.write_text("\n".join(good) + "\n", encoding="utf-8")

    def add(self, task: int, result: R) -> None:
        """Record a finished task (flushed to disk before returning)."""
        self.results[task] = result
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"task": task, "result": self.encode(result)}, sort_keys=True) + "\n")
            f.flush()
            os.fsync(f.fileno())


def run_journalled(
    fn: Callable[[T], R],
    tasks: Sequence[T],
    journal: TaskJournal[R] | None,
    *,
    backend: Backend | None = None,
    progress: Progress = False,
    size: Callable[[T], int] | None = None,
    label: str = "games",
) -> list[R]:
    """:func:`run_tasks` for a job that resumes: every task's result, in task order. Tasks
    whose results ``journal`` already holds are not run again; each new result is added to
    it as soon as it arrives, so an interrupted job loses only the tasks in flight
    (``journal`` None: every task runs and nothing is kept)."""
    results: dict[int, R] = dict(journal.results) if journal is not None else {}
    todo = [i for i in range(len(tasks)) if i not in results]

    def consume(k: int, result: R) -> None:
        results[todo[k]] = result
        if journal is not None:
            journal.add(todo[k], result)

    def measure(task: T) -> int:
        return size(task) if size is not None else 1

    run_tasks(
        fn, [tasks[i] for i in todo], consume, backend=backend, progress=progress, size=size,
        done=sum(measure(tasks[i]) for i in results), total=sum(measure(t) for t in tasks), label=label,
    )
    return [results[i] for i in range(len(tasks))]


__all__ = [
    "Backend", "Progress", "TaskJournal", "progress_lines", "progress_reporter", "run_journalled",
    "run_tasks",
]
