"""Mahjong agents: game speed, Expectimax decision time, and the arena table.

``speed``  (minutes)
    1. Uniform-random games per second (four ``random`` seats, single hands), and greedy
       self-play hands per second.
    2. Expectimax decision time on the same fixed positions (turn decisions with a discard
       due, collected from seeded greedy self-play): depth 1 and 2 fully expanded
       (alpha = 1), and depth 2 at alpha = 0.6 — the paper's 0.068 s, 6.778 s and its
       choice; target: depth 2, alpha = 0.6 in <= 0.5 s median. Wall-clock and CPU time
       (``process_time``: what the decision costs when the shared machine is busy) are both
       reported. ``--sweep`` adds the paper's alpha in {0.2, 0.4, 0.6, 0.8, 1.0} x depth
       {1, 2} grid.

``arena``  (hours at the default size; resumable)
    2-vs-2 matches (A B A B then B A B A on every deal, seats rotated as in the paper) of
    expectimax vs greedy, expectimax vs random and greedy vs random, ``--hands`` each:
    win rate and mean score per seat-hand with 95% intervals. With ``--record DIR`` every
    finished batch is written to DIR, and rerunning the same command resumes; the table is
    also written as JSON (``--out``).

``calibrate``  (minutes)
    Greedy self-play statistics behind the leaf evaluator's constants: the chance that one
    own draw lowers the shanten, by shanten, and the mean points a win brings the winner.

Usage::

    .venv/bin/python benchmarks/mahjong_agents.py speed [--positions 30] [--sweep]
    .venv/bin/python benchmarks/mahjong_agents.py calibrate [--hands 300]
    .venv/bin/python benchmarks/mahjong_agents.py report --record runs/mahjong-arena  # partial runs
    .venv/bin/python benchmarks/mahjong_agents.py arena --hands 3000 --record runs/mahjong-arena \\
        [--expectimax expectimax:depth=1,alpha=1.0] [--pairings x-greedy,x-random,greedy-random]

Quote medians and intervals: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from paiju.core.agents import random_agents
from paiju.core.protocol import play_game
from paiju.core.rng import derive_seed
from paiju.mahjong.agents import REGISTRY, ExpectimaxAgent, GreedyAgent
from paiju.mahjong.agents.match import run_match
from paiju.mahjong.game import MahjongGame, MahjongObservation, Phase
from paiju.mahjong.shanten import warm_up


def games_per_second(n: int, seed: int) -> tuple[float, float]:
    game = MahjongGame()
    start = time.perf_counter()
    for i in range(n):
        play_game(game, random_agents(4, derive_seed(seed, i)), derive_seed(seed, i, 99))
    random_rate = n / (time.perf_counter() - start)
    m = max(1, n // 20)
    start = time.perf_counter()
    for i in range(m):
        play_game(game, [GreedyAgent() for _ in range(4)], derive_seed(seed, i, 98))
    return random_rate, m / (time.perf_counter() - start)


def positions(count: int, seed: int) -> list[tuple[MahjongObservation, list[int]]]:
    """Turn decisions (a discard due, at least two choices) from seeded greedy self-play.

    Taken every third own turn so early, middle and late positions all appear.
    """
    game = MahjongGame()
    out: list[tuple[MahjongObservation, list[int]]] = []
    agents = [GreedyAgent() for _ in range(4)]
    hand = 0
    while len(out) < count:
        state = game.new_hand(seed=derive_seed(seed, hand))
        hand += 1
        turn = 0
        while not state.is_terminal() and len(out) < count:
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if obs.phase == Phase.TURN and sum(a < 34 for a in legal) > 1 and obs.live_tiles >= 8:
                turn += 1
                if turn % 3 == 0:
                    out.append((obs, legal))
            state.apply(agents[seat].act(obs, legal))
    return out


def decision_times(
    cases: list[tuple[MahjongObservation, list[int]]], depth: int, alpha: float
) -> dict[str, float]:
    agent = ExpectimaxAgent(depth=depth, alpha=alpha)
    times, cpu, leaves = [], [], []
    for obs, legal in cases:
        start, start_cpu = time.perf_counter(), time.process_time()
        agent.act(obs, legal)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        assert agent.last_search is not None
        leaves.append(agent.last_search.stats["leaves"])
    times.sort()
    return {
        "median_s": statistics.median(times),
        "p90_s": times[int(0.9 * (len(times) - 1))],
        "max_s": times[-1],
        "median_cpu_s": statistics.median(cpu),
        "median_leaves": statistics.median(leaves),
    }


def speed(args: argparse.Namespace) -> None:
    warm_up()
    rnd, greedy = games_per_second(args.games, args.seed)
    print(f"random-agent hands: {rnd:.1f}/s ({args.games} hands); greedy self-play: {greedy:.2f} hands/s")
    cases = positions(args.positions, args.seed)
    grid = [(1, 1.0), (2, 1.0), (2, 0.6)]
    if args.sweep:
        grid = [(d, a) for d in (1, 2) for a in (0.2, 0.4, 0.6, 0.8, 1.0)]
    print(
        f"expectimax decision time over {len(cases)} positions "
        "(paper: depth 1 0.068 s, depth 2 6.778 s, alpha 1)"
    )
    results: dict[str, Any] = {}
    for depth, alpha in grid:
        r = decision_times(cases, depth, alpha)
        results[f"depth={depth},alpha={alpha}"] = r
        print(
            f"  depth {depth} alpha {alpha:.1f}: median {r['median_s']:.4f} s, p90 {r['p90_s']:.4f} s, "
            f"max {r['max_s']:.4f} s, median CPU {r['median_cpu_s']:.4f} s, "
            f"median leaves {r['median_leaves']:.0f}"
        )
    if args.out:
        Path(args.out).write_text(json.dumps({"random_hands_per_s": rnd, "decisions": results}, indent=2))


PAIRINGS = {
    "x-greedy": ("{x}", "greedy"),
    "x-random": ("{x}", "random"),
    "greedy-random": ("greedy", "random"),
}


def arena(args: argparse.Namespace) -> None:
    REGISTRY.resolve(args.expectimax)  # fail early on a bad spec
    table: list[dict[str, Any]] = []
    for name in args.pairings.split(","):
        a, b = PAIRINGS[name]
        specs = [a.format(x=args.expectimax), b.format(x=args.expectimax)]
        name = f"{specs[0]}-vs-{specs[1]}".replace(":", "_")
        record = None if args.record is None else Path(args.record) / name
        start = time.perf_counter()
        report = run_match(
            specs, args.hands, args.seed, fmt="2v2", workers=args.workers, out_dir=record, progress=True
        )
        elapsed = time.perf_counter() - start
        for r in report.agents:
            wr, ms = r.win_rate, r.mean_score
            print(
                f"{specs[0]} vs {specs[1]}: {r.agent:>28}  win rate {100 * wr.value:5.1f}% "
                f"[{100 * wr.low:.1f}, {100 * wr.high:.1f}]  "
                f"mean score {ms.value:8.1f} [{ms.low:.1f}, {ms.high:.1f}]"
            )
        dr = report.draw_rate
        print(f"   exhaustive draws {100 * dr.value:.1f}%; {report.hands} hands in {elapsed:.0f} s")
        table.append({"pairing": specs, "elapsed_s": elapsed, **report.as_dict()})
        if args.out:
            Path(args.out).write_text(json.dumps(table, indent=2, default=str))


def calibrate(args: argparse.Namespace) -> None:
    """Self-play statistics behind the hand-made leaf evaluator's constants.

    From greedy self-play: how often one own draw lowers the shanten, by the shanten before
    the draw (``r_s`` of :class:`~paiju.mahjong.agents.WinningSpeedEvaluator`), and what a
    win is worth to the winner (its ``win_value``).
    """
    from paiju.mahjong.game import DrawKind
    from paiju.mahjong.shanten import shanten_counts

    game = MahjongGame()
    tried: dict[int, int] = {}
    improved: dict[int, int] = {}
    values: list[float] = []
    self_draws = 0
    for i in range(args.hands):
        state = game.new_hand(seed=derive_seed(args.seed, i))
        agents = [GreedyAgent() for _ in range(4)]
        while not state.is_terminal():
            seat = state.current_player()
            if state.phase == Phase.TURN and state.draw_kind == DrawKind.NORMAL and state.drawn >= 0:
                before = list(state.hands[seat])
                before[state.drawn] -= 1
                s = min(shanten_counts(before), 3)
                tried[s] = tried.get(s, 0) + 1
                better = shanten_counts(state.hands[seat]) < shanten_counts(before)
                improved[s] = improved.get(s, 0) + better
            obs = state.observation(seat)
            state.apply(agents[seat].act(obs, state.legal_actions()))
        result = state.last_result
        for w in result.winners:
            values.append(float(result.deltas[w]))
            self_draws += result.self_draw
    print(f"greedy self-play, {args.hands} hands:")
    for s in sorted(tried):
        label = f"{s}+" if s == 3 else str(s)
        rate = improved[s] / tried[s]
        print(f"  shanten {label} before an own draw: improved {rate:.3f} of {tried[s]} draws")
    if values:
        print(f"  wins: {len(values)}, self-drawn {self_draws / len(values):.2f}, "
              f"mean points to the winner {statistics.mean(values):.0f}")


def report(args: argparse.Namespace) -> None:
    """The table of whatever an ``arena --record DIR`` run has finished so far (complete deals)."""
    from paiju.core.arena import agent_labels
    from paiju.core.records import read_records
    from paiju.mahjong.hand_summary import summarize_hands

    for run_dir in sorted(p for p in Path(args.record).iterdir() if (p / "run.json").exists()):
        config = json.loads((run_dir / "run.json").read_text())["config"]
        if not list(run_dir.glob("*.parquet")):
            print(f"{run_dir.name}: no hands recorded yet")
            continue
        rows = read_records(run_dir).to_pylist()
        deals: dict[int, int] = {}
        for r in rows:
            deals[r["deal_index"]] = deals.get(r["deal_index"], 0) + 1
        rows = [r for r in rows if deals[r["deal_index"]] == 2]  # both line-ups of a deal
        agents, draw_rate = summarize_hands(rows, agent_labels(config["agents"]))
        title = " vs ".join(config["agents"])
        print(f"{title} ({config['format']}, seed {config['seed']}): {len(rows)} hands")
        for a in agents:
            wr, ms = a.win_rate, a.mean_score
            print(
                f"  {a.agent:>30}  win rate {100 * wr.value:5.1f}% [{100 * wr.low:.1f}, "
                f"{100 * wr.high:.1f}]  mean score {ms.value:8.1f} [{ms.low:.1f}, {ms.high:.1f}]"
            )
        print(f"  exhaustive draws {100 * draw_rate.value:.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_speed = sub.add_parser("speed")
    p_speed.add_argument("--games", type=int, default=200)
    p_speed.add_argument("--positions", type=int, default=30)
    p_speed.add_argument("--seed", type=int, default=7)
    p_speed.add_argument("--sweep", action="store_true")
    p_speed.add_argument("--out", type=str, default=None)
    p_arena = sub.add_parser("arena")
    p_arena.add_argument("--hands", type=int, default=3000)
    p_arena.add_argument("--seed", type=int, default=2025)
    p_arena.add_argument("--expectimax", type=str, default="expectimax-shanten:depth=1,alpha=1.0")
    p_arena.add_argument("--workers", type=int, default=1)
    p_arena.add_argument("--record", type=str, default=None)
    p_arena.add_argument("--out", type=str, default=None)
    p_arena.add_argument(
        "--pairings", type=str, default="x-greedy,x-random,greedy-random",
        help="comma-separated subset of x-greedy, x-random, greedy-random (x = the --expectimax spec)",
    )
    p_cal = sub.add_parser("calibrate")
    p_cal.add_argument("--hands", type=int, default=300)
    p_cal.add_argument("--seed", type=int, default=11)
    p_report = sub.add_parser("report")
    p_report.add_argument("--record", type=str, required=True)
    args = parser.parse_args()
    {"speed": speed, "arena": arena, "calibrate": calibrate, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
