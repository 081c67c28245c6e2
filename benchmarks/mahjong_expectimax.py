"""The value-based Expectimax: paired 2v2-all results, decision times, agreement with greedy.

``paired RECORD_DIR``
    Reads a ``paiju arena -g mahjong -f 2v2-all --record RECORD_DIR`` run (every wall played
    in all 6 seatings of two A and two B seats) and reports, **paired by wall**: A's win rate
    per seat-hand minus B's, and A's mean points per seat-hand minus B's, each with a 95%
    normal interval over walls (the 6 seatings of a wall are one observation, so the luck
    of the wall cancels); plus each agent's decision times (median, p95, from the
    ``move_ms`` the arena records for every move).

``agreement``
    Plays ``--hands`` seeded hands with ``--agent`` in every seat and asks greedy for its
    discard on each of the agent's turn observations: the share of identical discards, and
    the agent's turn-decision times (median, p95): wall clock, and CPU time
    (``process_time``: what a decision costs when the shared machine is busy).

``hazard``
    Greedy self-play behind ``RIVAL_HAZARD``: by seat 0's own draws left, the share of its
    turns after which another seat ended the hand before its next turn; and seat 0's mean
    points when it wins and its mean loss when another seat wins (``SAVED_LOSS``).

``calibrate``
    Greedy self-play behind the defence constants: at each of seat 0's turns, whether each
    opponent is ready (from the true state), with his exposed sets and discards; a logistic
    fit (Newton / IRLS) gives ``READY_LOGIT``, and the share of seat 0's tiles that are a
    ready opponent's wait, by danger score, gives ``wait_scale``.

Usage::

    .venv/bin/paiju arena -g mahjong -f 2v2-all -a expectimax,greedy -n 3000 --seed 14 \\
        --record runs/mj-ev-greedy --json > runs/mj-ev-greedy.json
    .venv/bin/python benchmarks/mahjong_expectimax.py paired runs/mj-ev-greedy
    .venv/bin/python benchmarks/mahjong_expectimax.py agreement --hands 20 --seed 5
    .venv/bin/python benchmarks/mahjong_expectimax.py calibrate --hands 120 --seed 5000
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from paiju.core.records import read_records
from paiju.mahjong.agents import REGISTRY, GreedyAgent, danger, distance, draws_left
from paiju.mahjong.agents.defence import (
    DefenceModel,
    fit_logistic,
    log_loss,
    passed_kinds,
    probability_log_loss,
    readiness_features,
    wait_features,
)
from paiju.mahjong.agents.match import paired_by_wall
from paiju.mahjong.agents.value import readiness
from paiju.mahjong.game import WIN, MahjongGame, Phase


def outcomes(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per arena agent (A, B): self-drawn wins and deal-ins per seat-hand, from the hand
    results the records keep (``extra["hands"]``)."""
    counts = {i: {"seat_hands": 0, "self_draws": 0, "deal_ins": 0} for i in (0, 1)}
    for r in rows:
        result = json.loads(r["extra"])["hands"][0]
        for seat, agent in enumerate(r["seat_agents"]):
            c = counts[agent]
            c["seat_hands"] += 1
            won_on_discard = bool(result["winners"]) and not result["self_draw"]
            c["self_draws"] += result["self_draw"] and seat in result["winners"]
            c["deal_ins"] += won_on_discard and result["discarder"] == seat
    return {"AB"[i]: {"self_draws_per_seat_hand": c["self_draws"] / c["seat_hands"],
                      "deal_ins_per_seat_hand": c["deal_ins"] / c["seat_hands"]}
            for i, c in counts.items() if c["seat_hands"]}


def paired(record_dir: Path) -> dict[str, Any]:
    rows = read_records(record_dir).to_pylist()
    try:
        return {"record": str(record_dir), **paired_by_wall(rows).as_dict(), "outcomes": outcomes(rows)}
    except ValueError as err:
        raise SystemExit(f"{record_dir}: {err}") from None


def agreement(spec: str, hands: int, seed: int) -> dict[str, Any]:
    game = MahjongGame()
    greedy = GreedyAgent()
    same = total = 0
    turn_s: list[float] = []
    turn_cpu: list[float] = []
    for h in range(hands):
        agents = [REGISTRY.make(spec, seed=s) for s in range(4)]
        state = game.new_hand(seed=seed + h)
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            start, cpu = time.perf_counter(), time.process_time()
            action = agents[seat].act(obs, legal)
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            if obs.phase == Phase.TURN and WIN not in legal:
                turn_s.append(elapsed)
                turn_cpu.append(cpu)
                if action < 34:
                    total += 1
                    same += greedy.act(obs, legal) == action
            state.apply(action)
    s, c = sorted(turn_s), sorted(turn_cpu)
    return {
        "agent": spec,
        "hands": hands,
        "seed": seed,
        "turn_decisions": len(s),
        "agreement_with_greedy": same / max(1, total),
        "discards_compared": total,
        "turn_median_s": s[len(s) // 2],
        "turn_p95_s": s[min(len(s) - 1, int(0.95 * len(s)))],
        "turn_max_s": s[-1],
        "turn_cpu_median_s": c[len(c) // 2],
        "turn_cpu_p95_s": c[min(len(c) - 1, int(0.95 * len(c)))],
    }


def _waits(hand: list[int]) -> set[int]:
    out = set()
    for k in range(34):
        if hand[k] < 4:
            hand[k] += 1
            if distance(hand) == 0:
                out.add(k)
            hand[k] -= 1
    return out


def calibrate(hands: int, seed: int) -> dict[str, Any]:
    game, greedy = MahjongGame(), GreedyAgent()
    features: list[tuple[float, float, float]] = []
    ready: list[float] = []
    danger_wait: list[tuple[float, bool]] = []
    for h in range(hands):
        state = game.new_hand(seed=seed + h)
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if seat == 0 and obs.phase == Phase.TURN and WIN not in legal:
                unseen = obs.unseen_counts()
                for other in (1, 2, 3):
                    hand = list(state.observation(other).hand)
                    if sum(hand) % 3 != 1:
                        continue
                    is_ready = distance(hand) == 1
                    features.append((1.0, len(obs.melds[other]), len(obs.discards[other])))
                    ready.append(float(is_ready))
                    if is_ready:
                        waits = _waits(hand)
                        danger_wait += [
                            (danger(k, obs, unseen, [other]), k in waits) for k in range(34) if obs.hand[k]
                        ]
            state.apply(greedy.act(obs, legal))
    x, y = np.array(features), np.array(ready)
    w = np.zeros(3)
    for _ in range(30):  # Newton steps of the logistic likelihood
        p = 1 / (1 + np.exp(-x @ w))
        w = w + np.linalg.solve(x.T @ (x * (p * (1 - p))[:, None]) + 1e-9 * np.eye(3), x.T @ (y - p))
    d = np.array([a for a, _ in danger_wait])
    hit = np.array([b for _, b in danger_wait], dtype=float)
    buckets = []
    for lo, hi in ((0, 1.5), (1.5, 2.5), (2.5, 3.5), (3.5, 4.5), (4.5, 5.5), (5.5, 9)):
        sel = (d >= lo) & (d < hi)
        if sel.sum():
            buckets.append({"danger": [lo, hi], "wait_share": float(hit[sel].mean()), "n": int(sel.sum())})
    return {
        "hands": hands, "seed": seed, "positions": len(y), "ready_share": float(y.mean()),
        "ready_logit_const_per_meld_per_discard": [float(v) for v in w],
        "wait_share_by_danger": buckets,
    }


def hazard(hands: int, seed: int) -> dict[str, Any]:
    """Greedy self-play: at each of seat 0's turns with ``n`` own draws left, did another seat end
    the hand before seat 0's next turn? The rate by ``n`` is ``RIVAL_HAZARD``."""
    game, greedy = MahjongGame(), GreedyAgent()
    reached: dict[int, int] = defaultdict(int)
    ended: dict[int, int] = defaultdict(int)
    win_points: list[int] = []
    loss_points: list[int] = []
    for h in range(hands):
        state = game.new_hand(seed=seed + h)
        last = -1
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if seat == 0 and obs.phase == Phase.TURN:
                n = draws_left(obs)
                if n != last:
                    reached[n] += 1
                    last = n
            state.apply(greedy.act(obs, legal) if len(legal) > 1 else legal[0])
        result = state.last_result
        if last >= 0 and result is not None and result.winners and 0 not in result.winners:
            ended[last] += 1
        if result is not None and result.winners:
            if 0 in result.winners:
                win_points.append(result.deltas[0])
            else:
                loss_points.append(-result.deltas[0])
    return {
        "hands": hands, "seed": seed,
        "mean_win_points": round(float(np.mean(win_points)), 1),
        "mean_loss_when_another_wins": round(float(np.mean(loss_points)), 1),
        "by_draws_left": [
            {"draws_left": n, "turns": reached[n], "others_ended": ended[n],
             "hazard": round(ended[n] / reached[n], 3)}
            for n in sorted(reached, reverse=True)
        ],
    }


def defence_samples(hands: int, seed: int) -> dict[str, np.ndarray]:
    """Greedy self-play; at every turn, each opponent's readiness features and truth, and for a
    ready one the wait features of each kind the player holds and whether it is a wait."""
    game, greedy = MahjongGame(), GreedyAgent()
    rx, ry, rh, rold, wx, wy, wh = [], [], [], [], [], [], []
    for h in range(hands):
        state = game.new_hand(seed=seed + h)
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if obs.phase == Phase.TURN and WIN not in legal:
                unseen = obs.unseen_counts()
                for other in range(4):
                    if other == seat:
                        continue
                    hand = list(state.observation(other).hand)
                    if sum(hand) % 3 != 1:
                        continue
                    is_ready = distance(hand) == 1
                    rx.append(readiness_features(obs, other))
                    rold.append(readiness(obs, other))  # the hand-made model it replaces
                    ry.append(float(is_ready))
                    rh.append(h)
                    if is_ready:
                        waits = _waits(hand)
                        passed = passed_kinds(obs, other)
                        for k in range(34):
                            if obs.hand[k]:
                                wx.append(wait_features(obs, other, k, unseen, passed))
                                wy.append(float(k in waits))
                                wh.append(h)
            state.apply(greedy.act(obs, legal) if len(legal) > 1 else legal[0])
    return {"rx": np.array(rx), "ry": np.array(ry), "rh": np.array(rh), "rold": np.array(rold),
            "wx": np.array(wx), "wy": np.array(wy), "wh": np.array(wh)}


def fit_defence(hands: int, seed: int, out: Path | None) -> dict[str, Any]:
    """Fit the readiness and wait models on the first 80% of the hands, report the log-loss on the
    rest next to the hand-made model they replace, refit on all and write ``out``."""
    t0 = time.time()
    d = defence_samples(hands, seed)
    cut = int(0.8 * hands)
    report: dict[str, Any] = {"hands": hands, "seed": seed, "held_out_hands": hands - cut}
    for name, x, y, h in (("readiness", d["rx"], d["ry"], d["rh"]), ("wait", d["wx"], d["wy"], d["wh"])):
        train, test = h < cut, h >= cut
        w = fit_logistic(x[train], y[train])
        base = float(y[train].mean())
        report[name] = {
            "samples": len(y), "positive_share": round(float(y.mean()), 4),
            "held_out_log_loss": round(log_loss(x[test], y[test], w), 4),
            "held_out_log_loss_constant": round(
                log_loss(x[test][:, :1], y[test], [math.log(base / (1 - base))]), 4
            ),
        }
    # the hand-made model this replaces, on the same held-out positions
    test = d["rh"] >= cut
    hand_made = probability_log_loss(d["rold"][test], d["ry"][test])
    report["readiness"]["held_out_log_loss_hand_made"] = round(hand_made, 4)
    model = DefenceModel(
        tuple(float(v) for v in fit_logistic(d["rx"], d["ry"])),
        tuple(float(v) for v in fit_logistic(d["wx"], d["wy"])),
        {"command": f"python benchmarks/mahjong_expectimax.py fit-defence --hands {hands} --seed {seed}",
         "fit": report},
    )
    report["seconds"] = round(time.time() - t0, 1)
    if out is not None:
        out.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    coefficients = {k: v for k, v in model.to_json().items() if k in ("readiness", "wait")}
    return {"fit": report, "coefficients": coefficients}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("paired")
    p.add_argument("record_dir", type=Path)
    a = sub.add_parser("agreement")
    a.add_argument("--agent", default="expectimax:leaf=value")
    a.add_argument("--hands", type=int, default=20)
    a.add_argument("--seed", type=int, default=5)
    c = sub.add_parser("calibrate")
    c.add_argument("--hands", type=int, default=120)
    c.add_argument("--seed", type=int, default=5000)
    z = sub.add_parser("hazard")
    z.add_argument("--hands", type=int, default=1500)
    z.add_argument("--seed", type=int, default=10000)
    f = sub.add_parser("fit-defence")
    f.add_argument("--hands", type=int, default=2000)
    f.add_argument("--seed", type=int, default=20000)
    f.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.cmd == "paired":
        out = paired(args.record_dir)
    elif args.cmd == "agreement":
        out = agreement(args.agent, args.hands, args.seed)
    elif args.cmd == "fit-defence":
        out = fit_defence(args.hands, args.seed, args.out)
    elif args.cmd == "hazard":
        out = hazard(args.hands, args.seed)
    else:
        out = calibrate(args.hands, args.seed)
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
