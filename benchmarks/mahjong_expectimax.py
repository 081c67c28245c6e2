"""The value-based Expectimax: paired 2v2-all results, decision times, agreement with greedy.

``paired RECORD_DIR``
    Reads a ``paiju arena -g mahjong -f 2v2-all --record RECORD_DIR`` run (every wall played
    in all 6 seatings of two A and two B seats) and reports, **paired by wall**: A's win rate
    per seat-hand minus B's, and A's mean points per seat-hand minus B's, each with a 95%
    normal interval over walls (the 6 seatings of a wall are one observation, so the luck
    of the wall cancels); plus each agent's decision times (median, p95, from the
    ``move_ms`` the arena records for every move).

``deal-in-payments RECORD_DIR``
    The tai each deal-in of a recorded run paid, by winner and dealer involvement (what
    ``deal_in_tai`` stands for).

``agreement``
    Plays ``--hands`` seeded hands with ``--agent`` in every seat and asks greedy for its
    discard on each of the agent's turn observations: the share of identical discards, and
    the agent's turn-decision times (median, p95): wall clock, and CPU time
    (``process_time``: what a decision costs when the shared machine is busy).

``breakdown RECORD_DIR``
    Replays the hands of a 2v2-all run (default rules only) and says where A's play departs
    from greedy's: per agent, the share of its seat-hands that reached ready, the discard at
    which it first did and the wins per hand that reached ready; and for A's discards, the
    share that differ from greedy's, classified by the discard's own shape (leaves a higher
    shanten, as many shanten but fewer effective tiles, or as good a shape) and, with
    ``--causes``, by cause (the same spec with ``defence=false`` would have played otherwise:
    defence; else offence). Per agent also the opponent discards seen while ready, the live
    waits then, and the discard wins per discard seen and self-draws per hand.

``ron-rates``
    Greedy self-play behind ``RON_RATES``: how often an opponent's discard is a ready seat's
    live wait, against ``unseen(t) / sum(unseen)``, by class of wait.

``leaf-rates``
    Greedy self-play behind ``SELFPLAY_RATES``: by shanten, how often a seat's shanten falls
    (a ready hand wins) by its next discard, and that over its own effective-tile rate.

``leaf-calibration RECORD_DIR``
    The leaf's P(win) after every recorded discard, under the first and the self-play rates,
    against whether the seat won: by shanten and stage.

``speed``
    The offence alone, paired by wall: seat 0 plays each of ``--agents`` (``;``-separated;
    ``TURN@CLAIM`` plays its own turns by one spec and its claims by another) on the same
    ``--hands`` walls, while seats 1-3 throw the tile they drew (摸打), never claim and never
    win. Per agent: the share of hands it won, its own turns until its concealed hand was
    first ready (30 if never), its points; and each against the first agent, with 95%
    intervals over walls. (Such opponents look ready to a reading defence -- every discard
    is the drawn tile -- so measure the offence with ``defence=false``.)

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
from paiju.mahjong.agents.greedy import greedy_turns
from paiju.mahjong.agents.match import outcomes, paired_by_wall
from paiju.mahjong.agents.value import (
    RON_CLASSES,
    RON_RATES,
    SELFPLAY_RATES,
    HandValueEvaluator,
    LeafState,
    kind_class,
    near_kinds,
    readiness,
)
from paiju.mahjong.features import discard_shapes
from paiju.mahjong.game import PASS, WIN, MahjongGame, MahjongState, Phase, parse_wall
from paiju.mahjong.scoring import waits as scoring_waits
from paiju.mahjong.shanten import shanten_tables, suit_indices


def _run_rows(
    record_dir: Path, columns: list[str], games: int | None = None
) -> tuple[dict[str, Any], list[Any]]:
    """(run header, rows in game order, the first ``games`` only) of a 2v2-all mahjong run under
    the default rules: what the replaying subcommands read."""
    header = json.loads((record_dir / "run.json").read_text())["config"]
    if header["game"] != "mahjong" or header["format"] != "2v2-all" or header["game_options"]:
        raise SystemExit(f"{record_dir}: not a 2v2-all mahjong run under the default rules")
    rows = read_records(record_dir, columns=["game_index", *columns]).to_pylist()
    rows.sort(key=lambda r: r["game_index"])
    return header, rows[:games] if games else rows


def _dealt(deal: str) -> MahjongState:
    """A recorded hand's state after its deal; its moves then replay with ``parse_action``."""
    state = MahjongGame().new_initial_state()
    state.apply(parse_wall(deal))
    return state


def deal_in_payments(record_dir: Path) -> dict[str, Any]:
    """The tai a deal-in paid in a recorded run, (payment - base) / per tai, by winning agent and
    whether the dealer was the winner or the discarder (then the dealer's tai are in it): what
    ``deal_in_tai`` stands for. Hands won by more than one seat are left out."""
    _, rows = _run_rows(record_dir, ["seat_agents", "extra"])
    config = MahjongGame().config
    tai: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        result = json.loads(r["extra"])["hands"][0]
        if len(result["winners"]) != 1 or result["self_draw"]:
            continue
        winner, payer = result["winners"][0], result["discarder"]
        involved = result["dealer"] in (winner, payer)
        key = f"{'AB'[r['seat_agents'][winner]]} wins, {'dealer involved' if involved else 'no dealer'}"
        tai[key].append((-result["deltas"][payer] - config.base) / config.per_tai)
    mean = {k: {"deal_ins": len(v), "tai": round(float(np.mean(v)), 3)} for k, v in sorted(tai.items())}
    return {"record": str(record_dir), "mean_tai": mean}


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


def breakdown(record_dir: Path, games: int | None, causes: bool = False) -> dict[str, Any]:
    header, rows = _run_rows(record_dir, ["seat_agents", "moves", "deal", "extra"], games)
    spec_a = header["agents"][0]
    greedy = GreedyAgent()
    value_search = spec_a.partition(":")[0] == "expectimax"
    undefended = REGISTRY.make(f"{spec_a},defence=false") if causes and value_search else None
    tables = shanten_tables()
    keys = ("seat_hands", "ready", "first_ready_discards", "exposure", "live", "ron", "self_draws")
    per_agent = {i: dict.fromkeys(keys, 0) for i in (0, 1)}
    kinds: dict[str, int] = defaultdict(int)
    decisions = differ = 0
    for r in rows:
        state = _dealt(r["deal"])
        first_ready: list[int | None] = [None] * 4
        ready = [False] * 4  # after the seat's last discard
        live = [0] * 4  # its live waits then
        discards = [0] * 4
        agents = r["seat_agents"]
        for text in r["moves"][1:]:
            seat = state.current_player()
            action = state.parse_action(text)
            if text.startswith("discard") and agents[seat] == 0:
                legal = state.legal_actions()
                obs = state.observation(seat)
                decisions += 1
                if greedy.act(obs, legal) != action:
                    differ += 1
                    options = discard_shapes(list(obs.hand), obs.unseen_counts())
                    shapes = {k: (sh, eff) for k, sh, eff in options}
                    best_sh, best_eff = min(shapes.values(), key=lambda x: (x[0], -x[1]))
                    sh, eff = shapes[action]
                    shape = ("higher_shanten" if sh > best_sh
                             else "fewer_effective" if eff < best_eff else "as_good")
                    if undefended is not None:
                        shape += "/defence" if undefended.act(obs, legal) != action else "/offence"
                    kinds[shape] += 1
            state.apply(action)
            if not text.startswith("discard"):
                continue
            for other in range(4):  # every ready seat sees this discard
                if other != seat and ready[other]:
                    per_agent[agents[other]]["exposure"] += 1
                    per_agent[agents[other]]["live"] += live[other]
            view = state.observation(seat)
            hand = list(view.hand)
            index, sets = suit_indices(hand), sum(hand) // 3
            discards[seat] += 1
            ready[seat] = tables.distance_at(index, sets) == 1
            if ready[seat]:
                if first_ready[seat] is None:
                    first_ready[seat] = discards[seat]
                after = tables.distances_after_draw(index, sets, near_kinds(hand, index))
                unseen = view.unseen_counts()
                live[seat] = sum(unseen[t] for t in range(34) if after[t] == 0)
        result = json.loads(r["extra"])["hands"][0]
        for seat, agent in enumerate(agents):
            c = per_agent[agent]
            c["seat_hands"] += 1
            if first_ready[seat] is not None:
                c["ready"] += 1
                c["first_ready_discards"] += first_ready[seat]
            if seat in result["winners"]:
                c["self_draws" if result["self_draw"] else "ron"] += 1
    return {
        "record": str(record_dir), "agent_A": spec_a, "games": len(rows),
        "agents": {"AB"[i]: {
            "ready_share": round(c["ready"] / max(1, c["seat_hands"]), 4),
            "mean_first_ready_discard": round(c["first_ready_discards"] / max(1, c["ready"]), 2),
            "discards_seen_ready_per_hand": round(c["exposure"] / max(1, c["seat_hands"]), 3),
            "mean_live_waits": round(c["live"] / max(1, c["exposure"]), 2),
            "discard_wins_per_discard_seen_ready": round(c["ron"] / max(1, c["exposure"]), 4),
            "discard_wins_per_hand": round(c["ron"] / max(1, c["seat_hands"]), 4),
            "self_draws_per_hand": round(c["self_draws"] / max(1, c["seat_hands"]), 4),
        } for i, c in per_agent.items()},
        "A_discards": decisions,
        "A_differs_from_greedy": round(differ / max(1, decisions), 4),
        "A_differences_per_discard": {k: round(v / max(1, decisions), 4) for k, v in sorted(kinds.items())},
    }


def calibrate(hands: int, seed: int) -> dict[str, Any]:
    features: list[tuple[float, float, float]] = []
    ready: list[float] = []
    danger_wait: list[tuple[float, bool]] = []
    for _, state, obs in greedy_turns(hands, seed):
        if obs.player != 0:
            continue
        unseen = obs.unseen_counts()
        for other in (1, 2, 3):
            hand = list(state.observation(other).hand)
            if sum(hand) % 3 != 1:
                continue
            is_ready = distance(hand) == 1
            features.append((1.0, len(obs.melds[other]), len(obs.discards[other])))
            ready.append(float(is_ready))
            if is_ready:
                waits = set(scoring_waits(hand))
                danger_wait += [
                    (danger(k, obs, unseen, [other]), k in waits) for k in range(34) if obs.hand[k]
                ]
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


def ron_rates(hands: int, seed: int) -> dict[str, Any]:
    """Greedy self-play: at every discard, for each other seat that is ready, each of its live
    waits ``t`` was expected ``unseen(t) / sum(unseen)`` times (the leaf's chance of a discard
    being ``t`` before ``ron_rate``) and hit when the discard was ``t``. The hit / expected ratio
    by the wait's kind class is the ``ron_rate`` of that class (``RON_RATES``)."""
    game, greedy = MahjongGame(), GreedyAgent()
    tables = shanten_tables()
    hits: dict[str, int] = defaultdict(int)
    expected: dict[str, float] = defaultdict(float)
    for h in range(hands):
        state = game.new_hand(seed=seed + h)
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            action = greedy.act(obs, legal) if len(legal) > 1 else legal[0]
            if obs.phase == Phase.TURN and action < 34:
                for other in range(4):
                    view = state.observation(other)
                    hand = list(view.hand)
                    if other == seat or sum(hand) % 3 != 1:
                        continue
                    index, sets = suit_indices(hand), sum(hand) // 3
                    if tables.distance_at(index, sets) != 1:
                        continue
                    after = tables.distances_after_draw(index, sets, list(range(34)))
                    unseen = view.unseen_counts()
                    total = sum(unseen)
                    for t in range(34):
                        if after[t] == 0 and unseen[t]:
                            c = RON_CLASSES[kind_class(t)]
                            expected[c] += unseen[t] / total
                            hits[c] += action == t
            state.apply(action)
    return {
        "hands": hands, "seed": seed,
        "by_class": {c: {"hits": hits[c], "expected": round(expected[c], 1),
                         "ron_rate": round(hits[c] / expected[c], 3) if expected[c] else None}
                     for c in RON_CLASSES},
        "all": round(sum(hits.values()) / max(1e-9, sum(expected.values())), 3),
    }


def leaf_rates(hands: int, seed: int) -> dict[str, Any]:
    """Greedy self-play behind ``SELFPLAY_RATES``: after each of a seat's discards, its shanten and
    its own effective-tile rate (unseen effective copies / unseen); at its next discard (or the
    end of the hand), whether the shanten fell -- for a ready hand, whether it won. Turns after
    which another seat won are left out (the leaf's hazard counts those)."""
    game, greedy = MahjongGame(), GreedyAgent()
    tables = shanten_tables()
    counts: dict[int, list[float]] = defaultdict(lambda: [0, 0, 0.0])  # turns, improved, sum of rates
    for h in range(hands):
        state = game.new_hand(seed=seed + h)
        last: list[tuple[int, float] | None] = [None] * 4
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            action = greedy.act(obs, legal) if len(legal) > 1 else legal[0]
            state.apply(action)
            if obs.phase != Phase.TURN or action >= 34:
                continue
            view = state.observation(seat)
            hand = list(view.hand)
            index, sets = suit_indices(hand), sum(hand) // 3
            d0 = tables.distance_at(index, sets)
            if last[seat] is not None:
                shanten, rate = last[seat]
                c = counts[min(shanten, 4)]
                c[0] += 1
                c[1] += d0 - 1 < shanten
                c[2] += rate
            unseen = view.unseen_counts()
            after = tables.distances_after_draw(index, sets, near_kinds(hand, index))
            effective = sum(unseen[t] for t in range(34) if after[t] < d0)
            last[seat] = (d0 - 1, effective / sum(unseen))
        result = state.last_result
        winners = result.winners if result is not None and result.winners else []
        for seat, entry in enumerate(last):
            if entry is None or (winners and seat not in winners):
                continue
            shanten, rate = entry
            c = counts[min(shanten, 4)]
            c[0] += 1
            c[1] += seat in winners
            c[2] += rate
    return {
        "hands": hands, "seed": seed,
        "by_shanten": [
            {"shanten": s, "turns": int(c[0]), "rate_per_own_turn": round(c[1] / c[0], 3),
             "own_effective_rate": round(c[2] / c[0], 3), "ratio": round(c[1] / c[2], 2)}
            for s, c in sorted(counts.items())
        ],
    }


def leaf_calibration(record_dir: Path, games: int | None) -> dict[str, Any]:
    """After every discard of a recorded run (default rules), the leaf's P(win) of the hand as it
    stands (``HandValueEvaluator.win_probability``) under each rate setting, against whether the
    seat won the hand; by shanten (3 = 3 or more) and stage (the seat's discards // 4)."""
    evaluators = {
        "first": HandValueEvaluator(ron_by_class=RON_RATES),
        "selfplay": HandValueEvaluator(ron_by_class=RON_RATES, **SELFPLAY_RATES),
        "flat_first": HandValueEvaluator(),
    }
    _, rows = _run_rows(record_dir, ["moves", "deal", "returns"], games)
    sums: dict[tuple[int, int], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in rows:
        state = _dealt(r["deal"])
        for text in r["moves"][1:]:
            seat = state.current_player()
            action = state.parse_action(text)
            state.apply(action)
            if not text.startswith("discard"):
                continue
            view = state.observation(seat)
            leaf = LeafState(tuple(view.hand), tuple(view.melds[seat]), tuple(view.unseen_counts()),
                             draws_left(view), (action,), ())
            c = sums[(min(distance(list(view.hand)) - 1, 3), len(view.discards[seat]) // 4)]
            c["n"] += 1
            c["won"] += r["returns"][seat] > 0
            for name, ev in evaluators.items():
                c[name] += float(ev.win_probability(view, [leaf])[0])
    return {
        "record": str(record_dir), "games": len(rows),
        "buckets": [
            {"shanten": sh, "stage": st, "n": int(c["n"]), "won": round(c["won"] / c["n"], 3),
             **{name: round(c[name] / c["n"], 3) for name in evaluators}}
            for (sh, st), c in sorted(sums.items()) if c["n"] >= 30
        ],
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
    rx, ry, rh, rold, wx, wy, wh = [], [], [], [], [], [], []
    for h, state, obs in greedy_turns(hands, seed):
        unseen = obs.unseen_counts()
        for other in range(4):
            if other == obs.player:
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
                waits = set(scoring_waits(hand))
                passed = passed_kinds(obs, other)
                for k in range(34):
                    if obs.hand[k]:
                        wx.append(wait_features(obs, other, k, unseen, passed))
                        wy.append(float(k in waits))
                        wh.append(h)
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


class _Split:
    """One spec for the turns, another for the claims (``speed``'s ``TURN@CLAIM``)."""

    def __init__(self, turn: Any, claim: Any) -> None:
        self.turn, self.claim = turn, claim

    def act(self, observation: Any, legal_actions: Any) -> int:
        agent = self.turn if observation.phase == Phase.TURN else self.claim
        return int(agent.act(observation, legal_actions))


def _drawn_tile_thrower(obs: Any, legal: list[int]) -> int:
    """Seats 1-3 of ``speed``: pass on every claim or win, discard the tile just drawn."""
    if obs.phase != Phase.TURN:
        return PASS
    discards = [a for a in legal if a < 34]
    return obs.drawn if obs.drawn in discards else discards[0]


NOT_READY = 30
"""``speed``'s turns-to-ready of a hand never ready (more than a hand's own turns)."""


def speed(specs: list[str], hands: int, seed: int) -> dict[str, Any]:
    game = MahjongGame()
    tables = shanten_tables()
    rows: dict[str, np.ndarray] = {}
    for spec in specs:
        turn_spec, _, claim_spec = spec.partition("@")
        out = []
        for h in range(hands):
            turn = REGISTRY.make(turn_spec, seed=0)
            agent = _Split(turn, REGISTRY.make(claim_spec, seed=0)) if claim_spec else turn
            state = game.new_hand(seed=seed + h)
            turns, ready_at = 0, NOT_READY
            while not state.is_terminal():
                seat = state.current_player()
                obs, legal = state.observation(seat), state.legal_actions()
                if seat == 0:
                    turns += obs.phase == Phase.TURN
                    state.apply(agent.act(obs, legal))
                    hand = list(state.observation(0).hand)
                    if (ready_at == NOT_READY and not state.is_terminal() and sum(hand) % 3 == 1
                            and tables.distance_at(suit_indices(hand), sum(hand) // 3) == 1):
                        ready_at = turns
                else:
                    state.apply(_drawn_tile_thrower(obs, legal))
            points = state.returns()[0]
            out.append((float(points > 0), float(ready_at), float(points)))
        rows[spec] = np.array(out)
    base = rows[specs[0]]

    def mean_ci(x: np.ndarray) -> list[float]:
        half = 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else math.inf
        return [round(float(x.mean()), 4), round(float(x.mean()) - half, 4), round(float(x.mean()) + half, 4)]

    names = ("win_rate", "turns_to_ready", "points")
    return {
        "hands": hands, "seed": seed, "reference": specs[0],
        "agents": {spec: {
            **{n: round(float(a[:, i].mean()), 4) for i, n in enumerate(names)},
            **({f"{n}_minus_reference": mean_ci(a[:, i] - base[:, i]) for i, n in enumerate(names)}
               if spec != specs[0] else {}),
        } for spec, a in rows.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)

    def selfplay(name: str, hands: int, seed: int) -> argparse.ArgumentParser:
        command = sub.add_parser(name)
        command.add_argument("--hands", type=int, default=hands)
        command.add_argument("--seed", type=int, default=seed)
        return command

    def record(name: str, first_games: bool = False) -> argparse.ArgumentParser:
        command = sub.add_parser(name)
        command.add_argument("record_dir", type=Path)
        if first_games:
            command.add_argument("--games", type=int, default=None, help="the first N games only")
        return command

    record("paired")
    record("deal-in-payments")
    selfplay("agreement", 20, 5).add_argument("--agent", default="expectimax:ron=flat")
    selfplay("calibrate", 120, 5000)
    record("breakdown", first_games=True).add_argument(
        "--causes", action="store_true", help="replay A with defence=false on each differing discard (slow)"
    )
    selfplay("ron-rates", 1000, 30000)
    selfplay("leaf-rates", 600, 40000)
    record("leaf-calibration", first_games=True)
    selfplay("speed", 600, 7000).add_argument(
        "--agents", default="greedy;expectimax:defence=false",
        help="';'-separated specs, the first the reference; TURN@CLAIM splits a seat's turns and claims",
    )
    selfplay("hazard", 1500, 10000)
    selfplay("fit-defence", 2000, 20000).add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.cmd == "paired":
        out = paired(args.record_dir)
    elif args.cmd == "deal-in-payments":
        out = deal_in_payments(args.record_dir)
    elif args.cmd == "agreement":
        out = agreement(args.agent, args.hands, args.seed)
    elif args.cmd == "fit-defence":
        out = fit_defence(args.hands, args.seed, args.out)
    elif args.cmd == "breakdown":
        out = breakdown(args.record_dir, args.games, args.causes)
    elif args.cmd == "ron-rates":
        out = ron_rates(args.hands, args.seed)
    elif args.cmd == "leaf-rates":
        out = leaf_rates(args.hands, args.seed)
    elif args.cmd == "leaf-calibration":
        out = leaf_calibration(args.record_dir, args.games)
    elif args.cmd == "speed":
        out = speed(args.agents.split(";"), args.hands, args.seed)
    elif args.cmd == "hazard":
        out = hazard(args.hands, args.seed)
    else:
        out = calibrate(args.hands, args.seed)
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
