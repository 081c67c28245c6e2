"""Strength against search budget: one agent spec against another from random openings.

    python benchmarks/az_budget.py -g connect_four --first "az:model=M,simulations=400" \
        --second "az:model=M,simulations=25" --openings 100 --plies 4 --seed 4603 --workers 2 \
        --json docs/results/connect-four-budget.json

Why not ``paiju arena``: a search with a fixed simulation count and no noise (the ``az`` agent)
plays the same game from the same position whatever its seed, so an arena match of two such
agents is two games repeated. Here every game starts from an **opening**: ``--plies`` uniformly
random legal moves from the opening's seed ``derive_seed(seed, i)`` (openings repeated or
already over are drawn again), and each opening is played twice, the agents' seats swapped,
so the opening's own advantage cancels within the pair. Agents are seeded ``derive_seed(seed,
i, seating, 1 + seat)``. The score is the first spec's: 1 a win, 1/2 a draw; the interval is
over the pairs' mean scores (``paiju.core.stats.mean_ci``), the Wilson interval over games
beside it. Games run through the project's runner (``--workers`` processes).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.core.registry import get_entry
from paiju.core.rng import derive_seed
from paiju.core.runner import Backend, run_tasks
from paiju.core.stats import mean_ci, proportion_ci


@dataclass(frozen=True)
class PairTask:
    """One opening, played under both seatings."""

    game: str
    specs: tuple[str, str]
    seed: int
    index: int
    opening: tuple[int, ...]


def openings(game_name: str, count: int, plies: int, seed: int) -> list[tuple[int, ...]]:
    """``count`` distinct openings of ``plies`` random legal moves that leave the game open."""
    game = get_entry(game_name).load_game()
    found: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    draw = 0
    while len(found) < count:
        if draw > 100 * count:
            raise ConfigError(f"fewer than {count} distinct openings of {plies} plies: ask for fewer")
        rng = np.random.default_rng(derive_seed(seed, draw))
        draw += 1
        state = game.new_initial_state()
        moves: list[int] = []
        while len(moves) < plies and not state.is_terminal():
            move = int(rng.choice(state.legal_actions()))
            state.apply(move)
            moves.append(move)
        if state.is_terminal() or tuple(moves) in seen:
            continue
        seen.add(tuple(moves))
        found.append(tuple(moves))
    return found


def play_pair(task: PairTask) -> list[float]:
    """The first spec's score in each seating (first spec in seat 0, then in seat 1)."""
    entry = get_entry(task.game)
    game = entry.load_game()
    registry = entry.load_agents(game)
    scores = []
    for seating in (0, 1):
        order = task.specs if seating == 0 else task.specs[::-1]
        agents = [registry.make(spec, seed=derive_seed(task.seed, task.index, seating, 1 + seat))
                  for seat, spec in enumerate(order)]
        start = game.new_initial_state()
        for move in task.opening:
            start.apply(move)
        played = play_game(game, agents, derive_seed(task.seed, task.index, seating), start=start)
        returns = played.state.returns()
        mine, theirs = returns[seating], returns[1 - seating]
        scores.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    return scores


def run(game: str, first: str, second: str, count: int, plies: int, seed: int,
        workers: int) -> dict[str, Any]:
    registry = get_entry(game).load_agents(get_entry(game).load_game())
    for spec in (first, second):
        registry.resolve(spec)  # a bad spec fails here, not in a worker
    tasks = [PairTask(game, (first, second), seed, i, o)
             for i, o in enumerate(openings(game, count, plies, seed))]
    pairs: dict[int, list[float]] = {}
    run_tasks(play_pair, tasks, lambda k, s: pairs.__setitem__(k, s), backend=Backend(workers=workers),
              label="pairs")
    scores = [pairs[k] for k in range(len(tasks))]
    flat = [s for pair in scores for s in pair]
    return {
        "game": game, "first": first, "second": second, "openings": count, "plies": plies, "seed": seed,
        "pair_score": mean_ci([sum(p) / 2 for p in scores]).as_dict(),
        "game_score": proportion_ci(sum(flat), len(flat)).as_dict(),
        "first_as_seat": [float(np.mean([p[s] for p in scores])) for s in (0, 1)],
        "wins_draws_losses": [flat.count(1.0), flat.count(0.5), flat.count(0.0)],
        "split_pairs": sum(1 for p in scores if p[0] != p[1]),
        "pairs": [{"opening": list(t.opening), "scores": s} for t, s in zip(tasks, scores, strict=True)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-g", "--game", default="connect_four")
    parser.add_argument("--first", required=True, help="the agent spec whose score is reported")
    parser.add_argument("--second", required=True)
    parser.add_argument("--openings", type=int, default=100)
    parser.add_argument("--plies", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.openings < 1 or args.plies < 0 or args.workers < 1:
        parser.exit(2, "error: --openings and --workers must be >= 1, --plies >= 0\n")
    try:
        report = run(args.game, args.first, args.second, args.openings, args.plies, args.seed, args.workers)
    except ConfigError as err:
        parser.exit(2, f"error: {err}\n")
    s = report["pair_score"]
    print(f"{args.first} against {args.second}: {s['value']:.3f} [{s['low']:.3f}, {s['high']:.3f}] over "
          f"{args.openings} openings ({2 * args.openings} games; W-D-L {report['wins_draws_losses']})",
          file=sys.stderr)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
