"""Load test of the web app on loopback: many concurrent games against a real uvicorn server.

What it does (bounded, finishes by itself):

1. starts ``paiju.cli.serve.serve`` (uvicorn) in a subprocess on 127.0.0.1 with a fresh data
   folder;
2. runs ``--games`` players at once, each with its own httpx client (its own session cookie):
   it creates a game (Dou Dizhu, mahjong or yuxi by ``--mix``) and makes ``--moves`` human
   moves, starting a new game when one ends. Moves are drawn from the legal list with a
   seeded generator; every ``--illegal-every``-th move is first sent *illegal* on purpose (a
   move the server must refuse with 409/422 without changing the game) and every 5th move is
   followed by a GET of the game;
3. stops the server, starts it again on the same data folder, and checks that every game
   left unfinished is back at the same ply (state survives a restart);
4. prints latency percentiles per request kind and the error count (any unexpected status,
   exception or mismatch is an error).

Run: ``.venv/bin/python benchmarks/web_load.py`` (defaults: 50 games x 20 moves, mixed).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from paiju.core.rng import as_generator, derive_seed

KINDS = ("doudizhu", "mahjong", "yuxi")


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    refused_as_expected: int = 0
    games_created: int = 0
    games_finished: int = 0
    moves: int = 0
    ai_fallbacks: int = 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data: Path, port: int, ai_time_limit: float) -> subprocess.Popen[bytes]:
    code = (
        "from pathlib import Path; from paiju.cli.serve import serve; "
        f"serve('127.0.0.1', {port}, Path({str(data)!r}), {ai_time_limit!r})"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start within 60 s")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def new_game_body(kind: str, rng: np.random.Generator) -> dict[str, Any]:
    seed = int(rng.integers(2**31))
    if kind == "doudizhu":
        return {"seat": int(rng.integers(3)), "agents": ["greedy", "rule"], "seed": seed}
    if kind == "mahjong":
        return {"seat": int(rng.integers(4)), "agents": ["greedy"] * 3, "seed": seed}
    return {
        "seat": int(rng.integers(2)),
        "agent": "greedy",
        "board": ["3x3", "4x4", "6x4"][int(rng.integers(3))],
        "seed": seed,
    }


def move_body(kind: str, view: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    item = view["legal"][int(rng.integers(len(view["legal"])))]
    if kind == "doudizhu":
        body = {"move": item["move"], "ply": view["ply"]}
        if item["type"] not in ("pass", "bid"):
            body["type"] = item["type"]
        return body
    return {"action": item["action"], "ply": view["ply"]}


def illegal_body(kind: str, view: dict[str, Any]) -> dict[str, Any]:
    """A move the server must refuse: a stale ply (for any game) or a move not held."""
    if kind == "doudizhu" and view["legal"]:
        return {
            "move": "pass" if not any(m["type"] == "pass" for m in view["legal"]) else "XD3",
            "ply": view["ply"],
        }
    return {"action": view["legal"][0]["action"] if view["legal"] else 0, "ply": view["ply"] + 1}


async def timed(stats: Stats, label: str, coro: Any) -> httpx.Response:
    t0 = time.perf_counter()
    response = await coro
    stats.latencies[label].append(time.perf_counter() - t0)
    return response


async def player(
    index: int,
    url: str,
    kinds: list[str],
    moves: int,
    illegal_every: int,
    seed: int,
    stats: Stats,
    unfinished: list[tuple[str, str, int]],
) -> None:
    rng = as_generator(derive_seed(seed, index))
    kind = kinds[index % len(kinds)]
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        view: dict[str, Any] | None = None
        made = 0
        while made < moves:
            if view is None or view["over"]:
                r = await timed(
                    stats, f"create {kind}", client.post(f"/api/games/{kind}", json=new_game_body(kind, rng))
                )
                if r.status_code != 201:
                    stats.errors.append(f"create {kind}: {r.status_code} {r.text[:200]}")
                    return
                view = r.json()
                stats.games_created += 1
                if view["over"]:
                    stats.games_finished += 1
                    continue
            if illegal_every and made % illegal_every == illegal_every - 1:
                r = await timed(
                    stats,
                    "refused move",
                    client.post(f"/api/games/{view['id']}/move", json=illegal_body(kind, view)),
                )
                if r.status_code not in (409, 422):
                    stats.errors.append(f"illegal {kind} move got {r.status_code}: {r.text[:200]}")
                else:
                    stats.refused_as_expected += 1
            r = await timed(
                stats,
                f"move {kind}",
                client.post(f"/api/games/{view['id']}/move", json=move_body(kind, view, rng)),
            )
            if r.status_code != 200:
                stats.errors.append(f"move {kind}: {r.status_code} {r.text[:200]}")
                return
            view = r.json()
            made += 1
            stats.moves += 1
            stats.ai_fallbacks += sum(1 for e in view["transcript"] if e.get("note"))
            if view["over"]:
                stats.games_finished += 1
            if made % 5 == 0:
                r = await timed(stats, "get game", client.get(f"/api/games/{view['id']}"))
                if r.status_code != 200 or r.json()["ply"] != view["ply"]:
                    stats.errors.append(f"get {kind}: {r.status_code} {r.text[:200]}")
        if view is not None and not view["over"]:
            unfinished.append((client.cookies.get("paiju_session") or "", view["id"], view["ply"]))


async def run_load(url: str, args: argparse.Namespace, stats: Stats) -> list[tuple[str, str, int]]:
    kinds = [k for k in args.mix.split(",") if k]
    unfinished: list[tuple[str, str, int]] = []
    await asyncio.gather(
        *(
            player(i, url, kinds, args.moves, args.illegal_every, args.seed, stats, unfinished)
            for i in range(args.games)
        )
    )
    return unfinished


async def check_restart(url: str, unfinished: list[tuple[str, str, int]], stats: Stats) -> None:
    async def one(cookie: str, game_id: str, ply: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=120, cookies={"paiju_session": cookie}) as c:
            r = await timed(stats, "get after restart", c.get(f"/api/games/{game_id}"))
            if r.status_code != 200 or r.json()["ply"] != ply:
                stats.errors.append(f"after restart game {game_id}: {r.status_code} {r.text[:200]}")

    await asyncio.gather(*(one(*u) for u in unfinished))


def percentiles(values: list[float]) -> tuple[float, float, float, float]:
    a = np.asarray(values) * 1000
    return (
        float(np.percentile(a, 50)),
        float(np.percentile(a, 90)),
        float(np.percentile(a, 99)),
        float(a.max()),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="concurrent players (one game at a time each)")
    parser.add_argument("--moves", type=int, default=20, help="human moves per player")
    parser.add_argument(
        "--mix", default="doudizhu,doudizhu,mahjong,yuxi", help="game kinds, cycled over players"
    )
    parser.add_argument(
        "--illegal-every", type=int, default=7, help="send a refused move before every n-th move"
    )
    parser.add_argument("--ai-time-limit", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for k in args.mix.split(","):
        if k not in KINDS:
            parser.error(f"unknown game kind {k!r} in --mix; kinds: {', '.join(KINDS)}")

    stats = Stats()
    with tempfile.TemporaryDirectory(prefix="paiju-web-load-") as tmp:
        data = Path(tmp) / "data"
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = start_server(data, port, args.ai_time_limit)
        cpu0 = os.times()
        t0 = time.perf_counter()
        try:
            unfinished = asyncio.run(run_load(url, args, stats))
        finally:
            wall = time.perf_counter() - t0
            stop_server(server)
        cpu1 = os.times()
        server = start_server(data, port, args.ai_time_limit)
        try:
            asyncio.run(check_restart(url, unfinished, stats))
        finally:
            stop_server(server)

    print(f"# paiju web load test: {args.games} concurrent players x {args.moves} moves, mix {args.mix}")
    print(f"machine: {os.cpu_count()} CPUs; server: one uvicorn process on 127.0.0.1; wall {wall:.1f} s")
    print(
        f"client CPU {cpu1.user - cpu0.user + cpu1.system - cpu0.system:.1f} s; server CPU "
        f"{cpu1.children_user - cpu0.children_user + cpu1.children_system - cpu0.children_system:.1f} s"
    )
    print(
        f"games created {stats.games_created}, finished {stats.games_finished}, human moves {stats.moves}, "
        f"refused on purpose {stats.refused_as_expected}, AI time-limit fallbacks {stats.ai_fallbacks}"
    )
    print(f"unfinished games checked after a restart: {len(unfinished)}")
    print(f"errors: {len(stats.errors)}")
    for e in stats.errors[:20]:
        print("  ", e)
    print()
    print("| request | n | p50 ms | p90 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|")
    for label in sorted(stats.latencies):
        values = stats.latencies[label]
        p50, p90, p99, top = percentiles(values)
        print(f"| {label} | {len(values)} | {p50:.0f} | {p90:.0f} | {p99:.0f} | {top:.0f} |")
    all_moves = [v for k, vs in stats.latencies.items() if k.startswith("move") for v in vs]
    print(f"\nall human moves: median {statistics.median(all_moves) * 1000:.0f} ms over {len(all_moves)}")
    sys.exit(1 if stats.errors else 0)


if __name__ == "__main__":
    main()
