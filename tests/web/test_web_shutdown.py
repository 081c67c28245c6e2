"""`paiju serve` stops within 5 s on SIGTERM/SIGINT while an expensive AI move is in flight, and
the unfinished game is restored by the next server on the same data folder.

A real server subprocess (the installed ``paiju`` command): the signal handling and the exit
are the process's own. Serial: the bound is a wall-clock one.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_process import ServerProcess, wait_until

pytestmark = pytest.mark.serial

HEAVY = "search:budget=5000,width=64"  # a decision of several seconds, under a 60 s AI time limit




@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serve_stops_within_5s_with_an_ai_move_in_flight_and_restores_the_game(
    tmp_path: Path, sig: int
) -> None:
    data = tmp_path / "data"
    server = ServerProcess(data, "--ai-time-limit", "60").start()
    try:
        client = httpx.Client(base_url=server.url, timeout=60)
        # the human is the landlord (seat 0) and moves first: creating the game runs no AI
        r = client.post("/api/games/doudizhu", json={"seat": 0, "agents": [HEAVY, HEAVY], "seed": 21})
        assert r.status_code == 201, r.text
        view = r.json()
        game_id, cookie = view["id"], client.cookies["paiju_session"]
        first = view["legal"][0]
        move = {"move": first["move"], "ply": view["ply"]}
        if first["type"] not in ("pass", "bid"):
            move["type"] = first["type"]

        answers: list[dict[str, Any]] = []

        def play() -> None:  # the server may also close the connection before answering
            try:
                r = httpx.post(
                    f"{server.url}/api/games/{game_id}/move",
                    json=move,
                    cookies={"paiju_session": cookie},
                    timeout=60,
                )
                answers.append(r.json())
            except httpx.HTTPError:
                pass

        mover = threading.Thread(target=play, daemon=True)
        mover.start()
        assert wait_until(lambda: server.health()["ai"]["busy"] == 1, 30), "the AI search did not start"
        took = server.stop(sig)
        assert took < 5.0, f"paiju serve took {took:.1f} s to stop: {server.output()}"
        mover.join(timeout=30)
    finally:
        server.kill()
    for answer in answers:  # the searches were stopped and the fallback moved for them
        notes = [e["note"] for e in answer["transcript"][1:]]
        assert notes and all("the server is stopping: greedy moved instead" in n for n in notes), notes

    with ServerProcess(data, "--ai-time-limit", "60") as again:
        r = httpx.get(f"{again.url}/api/games/{game_id}", cookies={"paiju_session": cookie}, timeout=60)
        assert r.status_code == 200, r.text
        restored = r.json()
        # the human's move and both AI seats' (stopped searches, the fallback moved) were saved
        # before the exit: the game is back at the human's turn, nothing lost
        assert not restored["over"] and restored["ply"] == 3 and restored["your_turn"]
        seats = [(e["seat"], e["ai"]) for e in restored["transcript"]]
        assert seats == [(0, False), (1, True), (2, True)]
