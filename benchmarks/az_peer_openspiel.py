"""Self-play throughput of paiju's AlphaZero against OpenSpiel's on connect four, equal settings.

Usage::

    .venv/bin/python benchmarks/az_peer_openspiel.py --python /tmp/jaxenv/bin/python \\
        [--simulations 50] [--seconds 240] [--games 32] [--out docs/results/az-peer-openspiel.json]

OpenSpiel's AlphaZero (``open_spiel.python.algorithms.alpha_zero``) needs JAX and Flax, which
paiju does not install: ``--python`` is an interpreter of a separate environment that has
them (``python -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax flax optax chex
open_spiel``), never part of ``make test``. Both sides, one after the other, each in a fresh
process on one core: one self-play actor, ``--simulations`` per move, a ResNet of 32
channels and 2 blocks, uniform Dirichlet noise at the root, sampled opening moves.

* paiju: ``paiju az train -g connect_four --iterations 1 --games G --simulations N --workers 1``
  (leaves batched 8 at a time, positions cached); positions/s = samples / self-play seconds of
  the run's ``metrics.jsonl``.
* OpenSpiel: its example ``open_spiel.python.examples.alpha_zero`` with ``--actors 1
  --evaluators 0``, stopped after ``--seconds``; positions/s = the moves of the games its
  actor log shows finished, over the time from its first checkpoint load (the first game's
  start) to the last game's end; the model's start-up is left out, JAX's compilation and the
  actor's reloads of the learner's checkpoints are in.

A position is one decision of self-play (a training sample), on both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

PAIJU = Path(sys.executable).with_name("paiju")


def ours(simulations: int, games: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        start = time.perf_counter()
        subprocess.run(
            [str(PAIJU), "az", "train", "-g", "connect_four", "--out", str(out), "--iterations", "1",
             "--games", str(games), "--simulations", str(simulations), "--channels", "32", "--blocks", "2",
             "--workers", "1", "--steps", "1"],
            check=True, capture_output=True, text=True,
        )
        wall = time.perf_counter() - start
        row = json.loads((out / "metrics.jsonl").read_text().splitlines()[0])
    return {
        "games": row["games"], "positions": row["samples"], "selfplay_s": row["selfplay_s"],
        "positions_per_s": row["samples"] / row["selfplay_s"], "process_wall_s": round(wall, 1),
    }


GAME_LINE = re.compile(r"^\[(?P<t>[\d\- :.]+)\] Game (?P<n>\d+): Returns: .*; Actions: (?P<actions>.*)$")


def theirs(python: str, simulations: int, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "os-az"
        # its own session, so that the actor processes it spawns are stopped with it
        proc = subprocess.Popen(
            [python, "-m", "open_spiel.python.examples.alpha_zero", "--game", "connect_four",
             "--max_simulations", str(simulations), "--actors", "1", "--evaluators", "0",
             "--nn_model", "resnet", "--nn_width", "32", "--nn_depth", "2", "--path", str(path),
             "--max_steps", "1000", "--quiet"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:  # stopped by the clock: its log holds the games it finished
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
        log = (path / "log-actor-0.txt").read_text().splitlines()
        # the first game starts once the actor has loaded the first checkpoint
        start_line = next(line for line in log if "Loading checkpoint" in line)
        games = [m for line in log if (m := GAME_LINE.match(line))]
    if len(games) < 2:
        raise SystemExit(f"OpenSpiel finished {len(games)} games in {seconds} s: run it longer")
    stamp = re.match(r"^\[(?P<t>[\d\- :.]+)\]", start_line)
    assert stamp is not None
    first = datetime.fromisoformat(stamp.group("t"))  # bots ready: the first game starts
    last = datetime.fromisoformat(games[-1].group("t"))
    moves = sum(len(m.group("actions").split()) for m in games)
    span = (last - first).total_seconds()
    return {"games": len(games), "positions": moves, "selfplay_s": round(span, 2),
            "positions_per_s": moves / span}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="an interpreter with open_spiel, jax and flax")
    parser.add_argument("--simulations", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=240.0, help="OpenSpiel's run time")
    parser.add_argument("--games", type=int, default=32, help="paiju's self-play games")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    result = {
        "simulations": args.simulations,
        "paiju": ours(args.simulations, args.games),
        "openspiel": theirs(args.python, args.simulations, args.seconds),
    }
    result["ratio"] = result["paiju"]["positions_per_s"] / result["openspiel"]["positions_per_s"]
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
