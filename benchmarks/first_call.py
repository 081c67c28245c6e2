"""First-call speed (issue 12 point 4): the string APIs and the CLI, each in a fresh process.

Outside tools call paiju's string APIs from a fresh process, so nothing may be warmed up
before the clock starts. Every figure here is one fresh subprocess per run, ours and the peer
alternating run by run (a busy neighbour on the shared machine then hurts both alike):

* ``legal_moves``: ``paiju.doudizhu.legal_moves(hand, beat)`` over the first N fresh random
  positions of a fresh process (hands and moves to beat met in uniformly random games, as
  notation), timed from just after ``import paiju.doudizhu``, so the move generator's own
  import (``paiju.doudizhu.movetext``) and every table it fills are inside the clock; a
  second pass after the clock gives the warm figure, and ``--by-kind`` times the free leads
  and the follows apart. Peer: DouZero 1.1.0's
  ``GameEnv.get_legal_card_play_actions`` on its own int lists (converted before its clock
  starts). Target: ours >= 3x.
* ``shanten``: ``paiju.mahjong.shanten(tiles)`` over the first N random 13- and 14-tile hands
  (notation) after ``import paiju.mahjong``, table set-up included. Peer: the ``mahjong``
  package's ``Shanten.calculate_shanten_for_regular_hand`` on its own 34-count arrays. The
  values must agree. Target: ours >= 5x.
* imports: ``import paiju.doudizhu``, ``import paiju.mahjong``, ``import paiju.cli.main``.
* CLI: ``paiju --help``, ``paiju ddz moves``, ``paiju ddz split``, ``paiju mahjong shanten``
  wall time, median of ``--cli-runs`` runs, after ``compileall`` has compiled paiju's
  bytecode (what an install does). Target: each under 0.3 s.

Ratios are the medians of the per-run ratios, on wall time and on CPU time (``process_time``;
the steadier of the two on a loaded machine). Usage::

    .venv/bin/python benchmarks/first_call.py [--runs R] [--positions N] [--hands N] [--cli-runs N]
        [--parts moves,shanten,imports,cli] [--by-kind]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# --- the timed children: each prints {"wall": s, "cpu": s, ...} as one JSON line ------------
OURS_MOVES = """
import json, sys, time
items = [(h, b) for h, b in json.load(open(sys.argv[1]))]
import paiju.doudizhu
legal_moves = paiju.doudizhu.legal_moves
w, c = time.perf_counter(), time.process_time()
for hand, beat in items:
    legal_moves(hand, beat)
wall, cpu = time.perf_counter() - w, time.process_time() - c
w = time.perf_counter()  # a second pass over the same positions, after the clock: warm figures
for hand, beat in items:
    legal_moves(hand, beat)
print(json.dumps({"wall": wall, "cpu": cpu, "warm": time.perf_counter() - w}))
"""

DOUZERO_MOVES = """
import json, sys, time
from douzero.env.game import GameEnv
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
print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c}))
"""

OURS_SHANTEN = """
import json, sys, time
hands = [h for h, _ in json.load(open(sys.argv[1]))]
import paiju.mahjong
shanten = paiju.mahjong.shanten
w, c = time.perf_counter(), time.process_time()
values = [shanten(h) for h in hands]
print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c, "values": values}))
"""

PEER_SHANTEN = """
import json, sys, time
from mahjong.shanten import Shanten
arrays = [counts for _, counts in json.load(open(sys.argv[1]))]
calc = Shanten.calculate_shanten_for_regular_hand
w, c = time.perf_counter(), time.process_time()
values = [calc(a) for a in arrays]
print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c, "values": values}))
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
    """Fresh-process runs, ours and the peer alternating; medians and median per-run ratios."""
    mine, theirs = [], []
    for _ in range(runs):
        mine.append(child(ours, str(data)))
        theirs.append(child(peer, str(data)))
    if "values" in mine[0]:
        bad = sum(a != b for a, b in zip(mine[0]["values"], theirs[0]["values"], strict=True))
        if bad:
            raise SystemExit(f"shanten values differ from the peer's on {bad} hands")
    med = statistics.median
    warm = {"ours_warm": med(r["warm"] for r in mine)} if "warm" in mine[0] else {}
    return {
        **warm,
        "ours_wall": med(r["wall"] for r in mine),
        "ours_cpu": med(r["cpu"] for r in mine),
        "peer_wall": med(r["wall"] for r in theirs),
        "peer_cpu": med(r["cpu"] for r in theirs),
        "ratio_wall": med(b["wall"] / a["wall"] for a, b in zip(mine, theirs, strict=True)),
        "ratio_cpu": med(b["cpu"] / a["cpu"] for a, b in zip(mine, theirs, strict=True)),
    }


def report(name: str, n: int, r: dict[str, float], target: float) -> None:
    verdict = "meets" if min(r["ratio_wall"], r["ratio_cpu"]) >= target else "MISSES"
    print(
        f"{name}: first {n} calls of a fresh process\n"
        f"  ours {r['ours_wall'] * 1e3:7.1f} ms wall {r['ours_cpu'] * 1e3:7.1f} ms CPU"
        f"  ({r['ours_wall'] / n * 1e6:.1f} us/call)\n"
        f"  peer {r['peer_wall'] * 1e3:7.1f} ms wall {r['peer_cpu'] * 1e3:7.1f} ms CPU"
        f"  ({r['peer_wall'] / n * 1e6:.1f} us/call)\n"
        f"  ratio {r['ratio_wall']:.1f}x wall, {r['ratio_cpu']:.1f}x CPU  "
        f"(target >= {target:.0f}x: {verdict})"
    )
    if "ours_warm" in r:
        print(f"  ours, a second pass in the same process (warm): {r['ours_warm'] * 1e3:.1f} ms wall")


def cli_median(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per side (default 7)")
    parser.add_argument("--positions", type=int, default=4000)
    parser.add_argument("--hands", type=int, default=6000)
    parser.add_argument("--cli-runs", type=int, default=10)
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

    # what an install does (pip compiles the bytecode of a wheel); harmless when already done
    compileall.compile_dir(str(Path(paiju.__file__).parent), quiet=1)
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} CPUs; load average "
          f"{os.getloadavg()[0]:.1f}; {args.runs} fresh processes per side, alternating")
    with tempfile.TemporaryDirectory() as tmp:
        if "moves" in parts:
            moves = Path(tmp, "moves.json")
            positions = ddz_positions(args.positions, args.seed)
            moves.write_text(json.dumps(positions))
            leads = sum(b is None for _, b in positions)
            print(f"\n{len(positions)} Dou Dizhu positions of random games ({leads} leads), seed {args.seed}")
            report("legal_moves", len(positions), duel(OURS_MOVES, DOUZERO_MOVES, moves, args.runs), 3.0)
            if args.by_kind:
                for kind, part in (
                    ("free leads", [p for p in positions if p[1] is None]),
                    ("follows", [p for p in positions if p[1] is not None]),
                ):
                    path = Path(tmp, "part.json")
                    path.write_text(json.dumps(part))
                    print(f"\n{kind} alone")
                    report("legal_moves", len(part), duel(OURS_MOVES, DOUZERO_MOVES, path, args.runs), 3.0)
        if "shanten" in parts:
            hands = Path(tmp, "hands.json")
            hands.write_text(json.dumps(mahjong_hands(args.hands, args.seed)))
            print(f"\n{args.hands} random mahjong hands (13 and 14 tiles alternating), seed {args.seed}")
            report("shanten", args.hands, duel(OURS_SHANTEN, PEER_SHANTEN, hands, args.runs), 5.0)

    if "imports" in parts:
        print(f"\nimport times (fresh process, median of {args.runs})")
        for module in ("paiju.doudizhu", "paiju.mahjong", "paiju.cli.main"):
            runs = [child(IMPORT.format(module=module)) for _ in range(args.runs)]
            wall = statistics.median(r["wall"] for r in runs)
            cpu = statistics.median(r["cpu"] for r in runs)
            print(f"  import {module:15s} {wall * 1e3:6.1f} ms wall {cpu * 1e3:6.1f} ms CPU")
    if "cli" not in parts:
        return
    paiju_cli = shutil.which("paiju", path=str(Path(sys.executable).parent)) or "paiju"
    print(f"\nCLI wall time, median of {args.cli_runs} runs (target < 0.3 s)")
    for argv in (
        ["--help"],
        ["ddz", "moves", "33344455566678TKKA2", "--beat", "3456789"],
        ["ddz", "split", "34445556789TA22XD"],
        ["mahjong", "shanten", "123m456p789s1122z"],
    ):
        t = cli_median([paiju_cli, *argv], args.cli_runs)
        print(f"  paiju {' '.join(argv):45s} {t:.3f} s  {'meets' if t < 0.3 else 'MISSES'}")


if __name__ == "__main__":
    main()
