"""The one parallel runner: backends agree, work in flight is bounded, errors and Ctrl-C stop
the workers, journals resume, and an interrupted recorded run resumes to the same games."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paiju.core.arena import run_games
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.records import read_records
from paiju.core.runner import Backend, TaskJournal, progress_lines, run_journalled, run_tasks


def _no_times(rows: list[dict]) -> list[dict]:
    kept = ({k: v for k, v in r.items() if k != "move_ms"} for r in rows)
    return sorted(kept, key=lambda r: r["game_index"])


def test_results_do_not_depend_on_the_backend() -> None:
    tasks = [str(n) for n in range(40)]
    got: dict[str, dict[int, int]] = {}
    for label, backend in (("inline", Backend()), ("processes", Backend(workers=2, max_in_flight=3))):
        out: dict[int, int] = {}
        run_tasks(int, tasks, out.__setitem__, backend=backend)
        got[label] = out
    assert got["inline"] == got["processes"] == {i: i for i in range(40)}


def test_work_in_flight_is_bounded(tmp_path: Path) -> None:
    """Each task touches its file when it starts; when the k-th result is consumed, at most
    k - 1 + max_in_flight tasks can have started (submitted and not yet consumed <= bound)."""
    tasks = [tmp_path / f"task-{i:03d}" for i in range(24)]
    consumed = 0
    worst = 0

    def consume(_index: int, _result: object) -> None:
        nonlocal consumed, worst
        started = sum(1 for _ in tmp_path.iterdir())
        worst = max(worst, started - consumed)
        consumed += 1
        time.sleep(0.01)  # a slow consumer: an unbounded runner would race ahead of it

    run_tasks(Path.touch, tasks, consume, backend=Backend(workers=2, max_in_flight=3))
    assert consumed == 24 and 1 <= worst <= 3


def test_a_failing_task_stops_the_run_and_its_workers() -> None:
    with pytest.raises(ValueError, match="invalid literal"):
        run_tasks(int, ["1", "2", "three", "4", "5", "6"], lambda i, r: None, backend=Backend(workers=2))
    assert multiprocessing.active_children() == []


def test_bad_backends_are_refused() -> None:
    with pytest.raises(ConfigError, match="workers must be a positive integer"):
        Backend(workers=0)
    with pytest.raises(ConfigError, match="max_in_flight"):
        Backend(workers=2, max_in_flight=0)


def test_progress_counts_units_from_the_resumed_total() -> None:
    seen: list[tuple[int, int]] = []
    run_tasks(len, ["ab", "cde", "f"], lambda i, r: None, size=len, done=4, total=10,
              progress=lambda d, t: seen.append((d, t)))
    assert seen == [(6, 10), (9, 10), (10, 10)]


def test_without_a_terminal_progress_is_plain_lines_at_most_every_30_seconds() -> None:
    lines: list[str] = []
    now = [100.0]
    report = progress_lines(lines.append, "games", 10, 4, clock=lambda: now[0])
    # a resumed job: 4 of 10 done before; the estimate counts only the units done now
    for seconds, finished in ((10, 5), (35, 6), (50, 7), (70, 8), (71, 10)):
        now[0] = 100.0 + seconds
        report(finished, 10)
    assert lines == [
        "games: 4/10\n",
        "games: 6/10 (0:00:35, about 0:01:10 left)\n",  # 35 s for 2 units, 4 to go
        "games: 8/10 (0:01:10, about 0:00:35 left)\n",  # 70 s for 4, 2 to go
        "games: 10/10 (0:01:11)\n",  # the end is always written
    ]


def test_a_job_logging_to_a_file_writes_its_progress_there() -> None:
    # stderr is a pipe here, not a terminal: Rich would draw nothing until the end
    code = ("from paiju.core.runner import run_tasks\n"
            "run_tasks(abs, [1, 2, 3], lambda i, r: None, progress=True, label='hands')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["hands: 0/3", "hands: 3/3 (0:00:00)"]


# ---- journals ----------------------------------------------------------------------------------
def _journal(path: Path, config: dict | None = None) -> TaskJournal[list[int]]:
    return TaskJournal(path, config or {"job": "squares", "n": 5}, list, list)


def test_a_journal_resumes_and_refuses_another_job(tmp_path: Path) -> None:
    path = tmp_path / "job.jsonl"
    j = _journal(path)
    j.add(0, [0])
    j.add(3, [9, 9])
    again = _journal(path)
    assert again.results == {0: [0], 3: [9, 9]}
    with pytest.raises(ConfigError, match="journal of another job"):
        _journal(path, {"job": "squares", "n": 6})


def test_a_journalled_job_resumes_running_only_the_tasks_it_lacks(tmp_path: Path) -> None:
    tasks = ["1", "22", "333", "4444", "55555"]
    ran: list[str] = []

    def digits(task: str) -> list[int]:
        ran.append(task)
        return [int(c) for c in task]

    def stop_after_two_tasks(done: int, total: int) -> None:
        if done == 3:  # "1" and "22" finished and journalled
            raise KeyboardInterrupt

    path = tmp_path / "job.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_journalled(digits, tasks, _journal(path), size=len, progress=stop_after_two_tasks)
    assert ran == ["1", "22"] and _journal(path).results == {0: [1], 1: [2, 2]}
    ran.clear()
    reported: list[tuple[int, int]] = []
    got = run_journalled(
        digits, tasks, _journal(path), size=len, progress=lambda d, t: reported.append((d, t))
    )
    assert got == [[int(c) for c in t] for t in tasks]  # in task order, the journalled ones included
    assert ran == ["333", "4444", "55555"] and reported == [(6, 15), (10, 15), (15, 15)]
    assert run_journalled(digits, tasks, None) == got  # without a journal: every task runs


def test_a_line_cut_short_by_a_kill_is_dropped_but_a_corrupt_line_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "job.jsonl"
    j = _journal(path)
    j.add(0, [1])
    j.add(1, [2])
    with path.open("a") as f:
        f.write('{"task": 2, "resu')  # the process died mid-write
    assert _journal(path).results == {0: [1], 1: [2]}
    assert path.read_text().count("\n") == 3  # header + two entries, the torn line removed
    lines = path.read_text().split("\n")
    lines[1] = "not json"
    path.write_text("\n".join(lines))
    with pytest.raises(CorruptRecordError, match="line 2"):
        _journal(path)


# ---- Ctrl-C on a recorded run --------------------------------------------------------------------
_MATCH = ["--game", "tictactoe", "--agents", "mcts:simulations=300,random", "--games", "24", "--seed", "3"]


@pytest.mark.timeout(240)
def test_ctrl_c_stops_the_workers_and_a_rerun_resumes_to_the_uninterrupted_games(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "paiju.cli.main", "arena", *_MATCH, "--workers", "2", "--record", str(out),
           "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(out.glob("games-*.parquet")):  # finished batches
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    assert list(out.glob("games-*.parquet")), "no batch was recorded in time"
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole group
    start = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - start < 30, err.decode()
    interrupted = proc.returncode
    partial = read_records(out).num_rows
    # no worker left running: within seconds nothing is alive in the process group (a process
    # may still be tearing down just after the parent exits; exited zombies wait for init)
    alive: list[str] = []
    for _ in range(50):
        ps = subprocess.run(["ps", "-o", "stat=,args=", "-g", str(proc.pid)], capture_output=True, text=True)
        alive = [line for line in ps.stdout.splitlines() if not line.strip().startswith("Z")]
        if not alive:
            break
        time.sleep(0.2)
    assert alive == [], alive
    if interrupted == 0:  # the run won the race and finished: nothing to resume
        assert partial == 24
    else:
        assert interrupted == 130 and "interrupted" in err.decode(), err.decode()
        assert 0 < partial < 24
    done = subprocess.run(cmd, capture_output=True, timeout=180)  # the resume
    assert done.returncode == 0, done.stderr.decode()
    resumed = read_records(out).to_pylist()
    fresh = run_games("tictactoe", ["mcts:simulations=300", "random"], 24, seed=3).rows
    assert fresh is not None
    assert _no_times(resumed) == _no_times(fresh)  # every game once, the same games
    header = json.loads((out / "run.json").read_text())
    assert header["config"]["seed"] == 3
