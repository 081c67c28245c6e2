"""CPU time per move of the yuxi fast mode, ``az-policy`` (issue 47 item 2: p95 <= 10 ms).

    nice -n 19 .venv/bin/python benchmarks/yuxi_fast_mode.py                # docs/results/yuxi-fast-mode.md
    .venv/bin/python benchmarks/yuxi_fast_mode.py --moves 200 --out ''      # a smoke run

For each board, ``az-policy`` with the shipped model of the board
(``paiju/yuxi/models/az-<board>.pt``, encoder version 1) plays seat-swapped games against
``greedy`` in rooms drawn as the AlphaZero trainer draws them (both decks at random, die on),
game ``i`` seeded ``derive_seed(seed, b, i)`` (``b``: the board's index in 3x3, 4x4, 6x4),
until it has made ``--moves`` decisions with a choice (more than one legal move) on that
board. Every ``act`` call is timed with ``time.process_time`` (CPU time of the process: torch
runs on one thread, ``torch.set_num_threads(1)``, so this is the move's CPU time). The same
decisions are then timed again with ``attributes``: a freshly initialised network of the
shipped size (the ``NetConfig`` defaults the shipped models have: 32 channels, 2 blocks, 256
hidden) reading encoder version 2 (card attributes: 461 planes and a 3,150 vector against
version 1's 108 and 308); an untrained network's own games would end after a move or two.

A room is made ready before its first game (``check_game``: the model read, the encoder
built; the one-off the CLI and arena pay before the first game too), so the times are moves
only. Reported per board and network: p50, p95, p99 and the maximum over the decisions with
a choice, split into plays (one forward pass) and swaps (the value head over every keep/swap
outcome in one batch), with the first decision's time and the slowest one's index (its one
outlier is a collection of the garbage collector's oldest generation, about 45 ms, once in a
run: measured with ``gc.callbacks``). A decision with one legal move (none occurred in these
games) would be answered without a network call and is left out.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paiju.algorithms.alphazero import AZNet, NetConfig
from paiju.algorithms.alphazero.checkpoint import save_checkpoint
from paiju.core.protocol import Action, play_game
from paiju.core.rng import derive_seed
from paiju.yuxi.agents import REGISTRY
from paiju.yuxi.agents.az import YuxiPolicyAgent
from paiju.yuxi.agents.greedy import game_for
from paiju.yuxi.board import BOARDS
from paiju.yuxi.cards import table_fingerprint
from paiju.yuxi.encoding import EncoderSpec
from paiju.yuxi.game import YuxiGame, YuxiObservation
from paiju.yuxi.rooms import YuxiRooms


class Timed:
    """``az-policy`` with every ``act`` call kept: the decision and its CPU time in seconds."""

    def __init__(self, agent: YuxiPolicyAgent) -> None:
        self.agent = agent
        self.name = agent.name
        self.calls: list[tuple[YuxiObservation, list[Action], float]] = []

    def check_game(self, game: YuxiGame) -> None:
        self.agent.check_game(game)

    def act(self, observation: Any, legal_actions: Any) -> Action:
        assert isinstance(observation, YuxiObservation)
        t = time.process_time()
        action = self.agent.act(observation, legal_actions)
        self.calls.append((observation, list(legal_actions), time.process_time() - t))
        return action


def fresh_model(folder: Path, board: str) -> str:
    """A randomly initialised network of the shipped size reading encoder version 2."""
    game = game_for(YuxiRooms(boards=(board,)).base_config())
    spec = EncoderSpec(2)
    torch.manual_seed(0)
    net = AZNet(NetConfig.for_encoder(spec.build(game)))
    meta = {"card_table": table_fingerprint(game.table), "boards": [board], "encoder": spec.to_meta()}
    return str(save_checkpoint(folder / f"fresh-v2-{board}.pt", net, meta))


def percentiles(ms: list[float]) -> dict[str, float]:
    if not ms:
        return {"n": 0}
    a = np.asarray(ms)
    at = {f"p{q}": round(float(np.percentile(a, q)), 3) for q in (50, 95, 99)}
    return {"n": len(ms), **at, "max": round(float(a.max()), 3)}


def play(board: str, moves: int, seed: int) -> tuple[int, Timed]:
    """Games of the shipped model's ``az-policy`` against greedy until ``moves`` decisions with
    a choice; the games played and the timed decisions."""
    rooms = YuxiRooms(boards=(board,), die_bonus=True)
    timed = Timed(YuxiPolicyAgent(seed=seed))
    games = 0
    while sum(1 for _, legal, _ in timed.calls if len(legal) > 1) < moves:
        game_seed = derive_seed(seed, list(BOARDS).index(board), games)
        game = game_for(rooms.config(game_seed))
        timed.check_game(game)
        agents: list[Any] = [REGISTRY.make("greedy", seed=game_seed), REGISTRY.make("greedy", seed=game_seed)]
        agents[games % 2] = timed
        play_game(game, agents, seed=game_seed)
        games += 1
    return games, timed


def replay(timed: Timed, model: str, seed: int) -> list[float]:
    """The CPU seconds of another network's ``az-policy`` on the same decisions."""
    agent = YuxiPolicyAgent(seed=seed, model=model)
    out = []
    for observation, legal, _ in timed.calls:
        agent.check_game(game_for(observation.config))
        t = time.process_time()
        agent.act(observation, legal)
        out.append(time.process_time() - t)
    return out


def summary(timed: Timed, seconds: list[float]) -> dict[str, Any]:
    ms = [(t * 1e3, len(legal), obs.phase) for (obs, legal, _), t in zip(timed.calls, seconds, strict=True)]
    choice = [t for t, n, _ in ms if n > 1]
    return {
        "first_choice_ms": round(choice[0], 3),
        "slowest_at": int(np.argmax(choice)),
        "choice": percentiles(choice),
        "plays": percentiles([t for t, n, p in ms if n > 1 and p == "play"]),
        "swaps": percentiles([t for t, n, p in ms if n > 1 and p == "swap"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--moves", type=int, default=2000, help="decisions with a choice per board")
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--boards", default=",".join(BOARDS))
    parser.add_argument("--out", default="docs/results/yuxi-fast-mode.json", help="'' writes nothing")
    args = parser.parse_args()
    torch.set_num_threads(1)
    results: dict[str, Any] = {
        "command": f"benchmarks/yuxi_fast_mode.py --moves {args.moves} --seed {args.seed} "
        f"--boards {args.boards}",
        "machine": {"python": platform.python_version(), "torch": torch.__version__,
                    "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                    "torch_threads": torch.get_num_threads()},
        "boards": {},
    }
    with tempfile.TemporaryDirectory() as folder:
        for board in args.boards.split(","):
            games, timed = play(board, args.moves, args.seed)
            rows = {
                "shipped": summary(timed, [t for _, _, t in timed.calls]),
                "attributes": summary(timed, replay(timed, fresh_model(Path(folder), board), args.seed)),
            }
            results["boards"][board] = {"games": games, **rows}
            for name, row in rows.items():
                c, p, s = row["choice"], row["plays"], row["swaps"]
                print(f"{board} {name:10s} games {games:4d}  decisions {c['n']}: p50 {c['p50']:.3f} "
                      f"p95 {c['p95']:.3f} p99 {c['p99']:.3f} max {c['max']:.2f} ms | plays n {p['n']} "
                      f"p95 {p['p95']:.3f} | swaps n {s['n']} p50 {s['p50']:.3f} p95 {s['p95']:.3f} ms",
                      flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
