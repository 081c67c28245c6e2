"""First-call speed (issue 12 point 4, issue 43 item 4): the string APIs and the CLI, each in a fresh process.

Outside tools call paiju's string APIs from a fresh process (a bot restarted for every move),
so nothing may be warmed up before the clock starts. Protocol (``docs/results/first-call.md``):

* every figure is one **fresh subprocess** per run, ours and the peer alternating run by run
  and taking turns at going first (a busy neighbour on the shared machine then hurts both
  alike); 15 runs per side by default;
* **CPU time** of the child (``process_time``) is the figure judged; wall time is reported
  too. The ratio is the **median of the paired per-run ratios** (run i of ours with run i of
  the peer) with a distribution-free ~95% interval (order statistics of the paired ratios);
* the machine's **load** is recorded: ``/proc/loadavg`` before and after, and the CPU the
  *other* processes used during the run (``/proc/stat`` busy time minus this benchmark's own
  and its children's), in cores;
* run it from a fresh clone installed by ``make`` (the header prints which paiju it imports,
  its git commit and whether the tree is clean); ``compileall`` first compiles paiju's
  bytecode, as an install would (a fresh clone's first process would otherwise compile it).

Parts:

* ``legal_moves``: ``paiju.doudizhu.legal_moves(hand, beat)`` over the first N positions of
  random games (notation), timed from just after ``import paiju.doudizhu``, so the move
  generator's own import (``paiju.doudizhu.movetext``) and every table it fills are inside the
  clock; a second pass after the clock gives the warm figure, and ``--by-kind`` times free
  leads and follows apart. Peer: DouZero 1.1.0's ``GameEnv.get_legal_card_play_actions`` on
  its own int lists (converted before its clock starts). Target: ours >= 3x (CPU).
* ``shanten``: ``paiju.mahjong.shanten(tiles)`` over the first N random 13- and 14-tile hands
  (notation) after ``import paiju.mahjong``, table loading included. Peer: the ``mahjong``
  package's ``Shanten.calculate_shanten_for_regular_hand`` on its own 34-count arrays, after
  ``from mahjong.shanten import Shanten``. The values must agree. Target: ours >= 5x (CPU).
  Both parts also print the whole fresh process (interpreter start-up + the import + the
  calls, CPU) for information: what a process per call pays.
* imports: ``import paiju.doudizhu``, ``import paiju.mahjong``, ``import paiju.cli.main``.
* CLI: ``paiju --help`` (target: median CPU <= 0.25 s) and three one-hand commands (target
  from issue 12: < 0.3 s wall), CPU and wall of the whole process, median of ``--cli-runs``.

Usage::

    nice -n -5 .venv/bin/python benchmarks/first_call.py [--runs R] [--positions N] [--hands N]
        [--cli-runs N] [--seed S] [--parts moves,shanten,imports,cli] [--by-kind]
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

# --- the timed children: each prints one JSON line -------------------------------------------
# "start": CPU the process had used when its code began (interpreter start-up), "import": the
# CPU of the import, "cpu"/"wall": the timed calls. Inputs are read after the import, so the
# import is measured on a bare interpreter.
OURS_MOVES = """
import time
start = time.process_time()
import paiju.doudizhu
imported = time.process_time()
import json, sys
items = [(h, b) for h, b in json.load(open(sys.argv[1]))]
legal_moves = paiju.doudizhu.legal_moves
w, c = time.perf_counter(), time.process_time()
for hand, beat in items:
    legal_moves(hand, beat)
wall, cpu = time.perf_counter() - w, time.process_time() - c
w = time.perf_counter()  # a second pass over the same positions, after the clock: warm figures
for hand, beat in items:
    legal_moves(hand, beat)
print(json.dumps({"wall": wall, "cpu": cpu, "warm": time.perf_counter() - w, "start": start,
                  "import": imported - start}))
"""

DOUZERO_MOVES = """
import time
start = time.process_time()
from douzero.env.game import GameEnv
imported = time.process_time()
import json, sys
RANKS = "3456789TJQKA2XD"
VALUE = dict(zip(RANKS, (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)))
def ints(text):
    return sorted(VALUE[ch] for ch in text)
items = [(ints(h), [ints(b)] if b else []) for h, b in json.load(open(sys.argv[1]))]
env = GameEnv(None)
info = env.info_sets["landlord"]
env.acting_player_position = "landlord"
w, c = time.perf_counter(), time.process_time()
for hand, seq in items:
    info.player_hand_cards = list(hand)
    env.card_play_action_seq = seq
    env.get_legal_card_play_actions()
print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c, "start": start,
                  "import": imported - start}))
"""

OURS_SHANTEN = """
import time
start = time.process_time()
import paiju.mahjong
imported = time.process_time()
import json, sys
hands = [h for h, _ in json.load(open(sys.argv[1]))]
shanten = paiju.mahjong.shanten
w, c = time.perf_counter(), time.process_time()
values = [shanten(h) for h in hands]
print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c, "start": start,
                  "import": imported - start, "values": values}))
"""

PEER_SHANTEN = """
import time
start = time.process_time()
from mahjong.shanten import Shanten
imported = time.process_time()
import json, sys
arrays = [counts for _, counts in json.load(open(sys.argv[1]))]
calc = Shanten.calculate_shanten_for_regular_hand
w, c = time.perf_counter(), time.process_time()
values = [calc(a) for a in arrays]
print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c, "start": start,
                  "import": imported - start, "values": values}))
"""

IMPORT = """
import json, time
w, c = time.perf_counter(), time.process_time()
import {module}
print(json.dumps({{"wall": time.perf_counter() - w, "cpu": time.process_time() - c}}))
"""


# one thread for numeric libraries: an idle BLAS pool spinning in a child would steal the core
_ENV = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def child(code: str, *args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True, env=_ENV
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- load of the machine -----------------------------------------------------------------------
def _busy_seconds() -> float | None:
    """CPU seconds every process on the machine has used since boot (None off Linux)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return None
    # user nice system idle iowait irq softirq steal: busy = all but idle and iowait
    ticks = [int(v) for v in fields[:8]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    """CPU seconds of this benchmark and of every child it has waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())


class Load:
    """The machine's load over a stretch of the benchmark: load averages at both ends and the
    CPU the other processes used meanwhile (in cores), which the load average alone hides."""

    def __init__(self) -> None:
        self.before = _loadavg()
        self.wall, self.busy, self.own = time.perf_counter(), _busy_seconds(), _own_seconds()

    def report(self) -> str:
        wall = time.perf_counter() - self.wall
        busy = _busy_seconds()
        others = ""
        if busy is not None and self.busy is not None and wall > 0:
            other = (busy - self.busy) - (_own_seconds() - self.own)
            others = f"; other processes used {max(other, 0.0) / wall:.2f} of {os.cpu_count()} cores"
        return f"load average {self.before} before, {_loadavg()} after{others} ({wall:.0f} s)"


# --- statistics --------------------------------------------------------------------------------
def median_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Median and a distribution-free interval for it: order statistics k and n+1-k, with k the
    largest such that P(Binomial(n, 1/2) < k) <= (1 - level) / 2 (coverage at least ``level``;
    the whole range when n is too small)."""
    xs = sorted(values)
    n = len(xs)
    k, tail = 0, 0.0
    while k < n // 2:
        tail += math.comb(n, k) / 2**n  # P(X = k)
        if tail > (1 - level) / 2:
            break
        k += 1
    lo, hi = (xs[k - 1], xs[n - k]) if k else (xs[0], xs[-1])
    return statistics.median(xs), lo, hi


# --- inputs ------------------------------------------------------------------------------------
def ddz_positions(n: int, seed: int) -> list[tuple[str, str | None]]:
    """Hands and moves to beat met in random games, as notation (made here, timed elsewhere)."""
    from paiju.core.errors import PaijuError
    from paiju.doudizhu.cards import format_counts
    from paiju.doudizhu.moves import Move
    from paiju.doudizhu.peers import game_positions

    out = []
    for counts, trick in game_positions(np.random.default_rng(seed), n):
        if trick is not None:
            # notation alone names a set's default reading; the rare trick played in another
            # one (a trio chain of 4 as an airplane of 3) is left out rather than misread
            try:
                if Move.parse(str(trick)) != trick:
                    continue
            except PaijuError:
                continue
        out.append((format_counts(counts), None if trick is None else str(trick)))
    return out


def mahjong_hands(n: int, seed: int) -> list[tuple[str, list[int]]]:
    """Random 13- and 14-tile hands (half each, interleaved) as notation and as 34 counts."""
    from paiju.mahjong.tiles import format_counts

    rng = np.random.default_rng(seed)
    wall = np.repeat(np.arange(34), 4)
    out = []
    for i in range(n):
        counts = [0] * 34
        for t in rng.choice(wall, 13 + i % 2, replace=False):
            counts[int(t)] += 1
        out.append((format_counts(counts), counts))
    return out


# --- measurements ------------------------------------------------------------------------------
def duel(ours: str, peer: str, data: Path, runs: int) -> dict[str, float]:
    """Fresh-process runs in pairs, ours and the peer taking turns at going first; medians of
    each side and the median (with interval) of the paired per-run ratios peer / ours."""
    mine, theirs = [], []
    for i in range(runs):
        if i % 2:
            theirs.append(child(peer, str(data)))
            mine.append(child(ours, str(data)))
        else:
            mine.append(child(ours, str(data)))
            theirs.append(child(peer, str(data)))
    if "values" in mine[0]:
        bad = sum(a != b for a, b in zip(mine[0]["values"], theirs[0]["values"], strict=True))
        if bad:
            raise SystemExit(f"shanten values differ from the peer's on {bad} hands")
    med = statistics.median

    def whole(r: dict) -> float:
        return r["start"] + r["import"] + r["cpu"]

    pairs = list(zip(mine, theirs, strict=True))
    out = {
        "ours_wall": med(r["wall"] for r in mine),
        "ours_cpu": med(r["cpu"] for r in mine),
        "peer_wall": med(r["wall"] for r in theirs),
        "peer_cpu": med(r["cpu"] for r in theirs),
        "ours_whole": med(whole(r) for r in mine),
        "peer_whole": med(whole(r) for r in theirs),
        "ratio_wall": med(b["wall"] / a["wall"] for a, b in pairs),
        "ratio_whole": med(whole(b) / whole(a) for a, b in pairs),
    }
    ratio, lo, hi = median_interval([b["cpu"] / a["cpu"] for a, b in pairs])
    out.update(ratio_cpu=ratio, ratio_cpu_lo=lo, ratio_cpu_hi=hi)
    if "warm" in mine[0]:
        out["ours_warm"] = med(r["warm"] for r in mine)
    return out


def report(name: str, n: int, r: dict[str, float], target: float) -> None:
    verdict = "meets" if r["ratio_cpu"] >= target else "MISSES"
    print(
        f"{name}: first {n} calls of a fresh process\n"
        f"  ours {r['ours_cpu'] * 1e3:7.1f} ms CPU {r['ours_wall'] * 1e3:7.1f} ms wall"
        f"  ({r['ours_cpu'] / n * 1e6:.1f} us/call)\n"
        f"  peer {r['peer_cpu'] * 1e3:7.1f} ms CPU {r['peer_wall'] * 1e3:7.1f} ms wall"
        f"  ({r['peer_cpu'] / n * 1e6:.1f} us/call)\n"
        f"  ratio (CPU, median of paired runs) {r['ratio_cpu']:.2f}x, ~95% interval"
        f" {r['ratio_cpu_lo']:.2f}-{r['ratio_cpu_hi']:.2f}x  (target >= {target:.0f}x: {verdict});"
        f" wall {r['ratio_wall']:.1f}x\n"
        f"  whole process (start-up + import + calls, CPU): ours {r['ours_whole'] * 1e3:.0f} ms,"
        f" peer {r['peer_whole'] * 1e3:.0f} ms, {r['ratio_whole']:.1f}x"
    )
    if "ours_warm" in r:
        print(f"  ours, a second pass in the same process (warm): {r['ours_warm'] * 1e3:.1f} ms wall")


def process_times(argv: list[str], runs: int) -> tuple[float, float]:
    """Median CPU (user + system of the whole child) and median wall of ``runs`` runs."""
    cpu, wall = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(cpu), statistics.median(wall)


def _provenance(package: Path) -> str:
    """Which paiju is measured: its path, git commit and whether the tree has changes."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", "-C", str(package), *args], capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = " with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    return f"paiju from {package} at {commit}{dirty}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per side (default 15)")
    parser.add_argument("--positions", type=int, default=4000)
    parser.add_argument("--hands", type=int, default=6000)
    parser.add_argument("--cli-runs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument(
        "--parts", default="moves,shanten,imports,cli", help="what to measure (comma-separated; default all)"
    )
    parser.add_argument(
        "--by-kind", action="store_true", help="legal_moves: also time the free leads and the follows apart"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))

    import paiju

    package = Path(paiju.__file__).parent
    # what an install does (pip compiles the bytecode of a wheel); harmless when already done
    compileall.compile_dir(str(package), quiet=1)
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} CPUs, niceness {os.nice(0)}; "
          f"{_provenance(package)}\n{args.runs} fresh processes per side, alternating; seed {args.seed}")
    with tempfile.TemporaryDirectory() as tmp:
        if "moves" in parts:
            moves = Path(tmp, "moves.json")
            positions = ddz_positions(args.positions, args.seed)
            moves.write_text(json.dumps(positions))
            leads = sum(b is None for _, b in positions)
            print(f"\n{len(positions)} Dou Dizhu positions of random games ({leads} leads), seed {args.seed}")
            load = Load()
            report("legal_moves", len(positions), duel(OURS_MOVES, DOUZERO_MOVES, moves, args.runs), 3.0)
            print(f"  {load.report()}")
            if args.by_kind:
                for kind, part in (
                    ("free leads", [p for p in positions if p[1] is None]),
                    ("follows", [p for p in positions if p[1] is not None]),
                ):
                    path = Path(tmp, "part.json")
                    path.write_text(json.dumps(part))
                    print(f"\n{kind} alone")
                    load = Load()
                    report("legal_moves", len(part), duel(OURS_MOVES, DOUZERO_MOVES, path, args.runs), 3.0)
                    print(f"  {load.report()}")
        if "shanten" in parts:
            hands = Path(tmp, "hands.json")
            hands.write_text(json.dumps(mahjong_hands(args.hands, args.seed)))
            print(f"\n{args.hands} random mahjong hands (13 and 14 tiles alternating), seed {args.seed}")
            load = Load()
            report("shanten", args.hands, duel(OURS_SHANTEN, PEER_SHANTEN, hands, args.runs), 5.0)
            print(f"  {load.report()}")

    if "imports" in parts:
        print(f"\nimport times (fresh process, median of {args.runs})")
        load = Load()
        for module in ("paiju.doudizhu", "paiju.mahjong", "paiju.cli.main"):
            runs = [child(IMPORT.format(module=module)) for _ in range(args.runs)]
            wall = statistics.median(r["wall"] for r in runs)
            cpu = statistics.median(r["cpu"] for r in runs)
            print(f"  import {module:15s} {cpu * 1e3:6.1f} ms CPU {wall * 1e3:6.1f} ms wall")
        print(f"  {load.report()}")
    if "cli" not in parts:
        return
    paiju_cli = shutil.which("paiju", path=str(Path(sys.executable).parent)) or "paiju"
    print(f"\nCLI, whole process, median of {args.cli_runs} runs"
          " (targets: --help CPU <= 0.25 s; one-hand commands < 0.3 s wall)")
    load = Load()
    for argv, limit, clock in (
        (["--help"], 0.25, "cpu"),
        (["ddz", "moves", "33344455566678TKKA2", "--beat", "3456789"], 0.3, "wall"),
        (["ddz", "split", "34445556789TA22XD"], 0.3, "wall"),
        (["mahjong", "shanten", "123m456p789s1122z"], 0.3, "wall"),
    ):
        cpu, wall = process_times([paiju_cli, *argv], args.cli_runs)
        judged = cpu if clock == "cpu" else wall
        verdict = "meets" if judged <= limit else "MISSES"
        print(f"  paiju {' '.join(argv):45s} {cpu:.3f} s CPU {wall:.3f} s wall  ({clock}: {verdict})")
    print(f"  {load.report()}")


if __name__ == "__main__":
    main()
