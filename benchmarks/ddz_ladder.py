"""The Dou Dizhu agent ladder and the RLCard anchor, in one run (``docs/ddz-agents.md``).

Every adjacent pair of rungs (default ``random < policy:model=small < greedy <
policy:model=large < rule < search``) plays a duplicate match in the core arena
(:mod:`paiju.core.arena`): each deal is played twice, A landlord vs B farmers then B landlord
vs A farmers, so the luck of the cards cancels. In the same run, the
external anchor (RLCard's ``doudizhu-rule-v1`` through :mod:`paiju.doudizhu.agents.rlcard_anchor`)
plays our ``rule`` and ``search`` agents on the same deals with sides swapped, under RLCard's
wing rule (``wing_rule="rlcard"``), so every move is one RLCard can read.

Reported per pairing: WP and ADP per agent and side with 95% intervals (Wilson / normal), the
paired duplicate difference (A's landlord score minus B's on the same cards) and each agent's
decision time (median, 95th percentile). The ladder is *strictly ordered* when every higher
rung's paired difference has a 95% interval above zero.

Cost control: pairings without ``search`` play ``--deals`` deals; pairings with it play in
chunks of ``--chunk`` deals, round-robin, until ``--search-deals`` or the ``--until`` wall-clock
deadline (HH:MM, UTC, checked between chunks). Every pairing records its games under
``--out/<pairing>`` and resumes from them, so rerunning the same command continues an
interrupted run (or extends a finished one).

Usage::

    .venv/bin/python benchmarks/ddz_ladder.py \\
        --rungs random,policy:model=small,greedy,policy:model=large,rule,search \\
        --deals 2000 --search-deals 2000 --chunk 50 --workers 2 --until 08:30 \\
        --out runs/ddz_ladder --json runs/ddz_ladder/report.json --verify 10

``--verify N`` replays N sampled recorded games of every pairing with the code installed now
and compares them move for move (:func:`paiju.core.arena.replay_check`): a run resumed
across sessions must still be one experiment.

Decision times on fixed positions (wall clock and process CPU time, ratios to the RLCard
agent; CPU time is the figure to quote on a shared machine)::

    .venv/bin/python benchmarks/ddz_ladder.py --timing 300

Other options: ``--rungs random,greedy,rule,search`` (agent specs, weakest first; the
default adds the two shipped policy checkpoints),
``--budget N`` (rollouts per decision of ``search``; default: the agent's default),
``--anchor rule,search`` (our agents that meet the anchor; empty to skip).
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from paiju.core.arena import ArenaReport, replay_check, run_arena
from paiju.core.rng import as_generator
from paiju.core.stats import Estimate

ANCHOR = "rlcard-rule"


def _ci(e: Estimate, pct: bool = False) -> str:
    if e.n == 0 or math.isnan(e.value):
        return "—"
    k, d = (100.0, 1) if pct else (1.0, 3)
    return f"{e.value * k:.{d}f} [{e.low * k:.{d}f}, {e.high * k:.{d}f}]"


def _slug(spec: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in spec)


def _with_budget(spec: str, budget: int | None, wings: str | None = None) -> str:
    if not spec.startswith("search"):
        return spec
    params = dict(p.split("=", 1) for p in spec.partition(":")[2].split(",") if p)
    if budget is not None:
        params.setdefault("budget", str(budget))
    if wings is not None:
        params["wings"] = wings
    return "search" + (":" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) if params else "")


def _deadline(text: str | None) -> float | None:
    if not text:
        return None
    now = dt.datetime.now(dt.UTC)
    hh, mm = (int(x) for x in text.split(":"))
    target = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
    if target < now - dt.timedelta(hours=12):
        target += dt.timedelta(days=1)
    return time.time() + (target - now).total_seconds()


def pairing_rows(name: str, report: ArenaReport, options: dict[str, Any]) -> dict[str, Any]:
    """JSON-friendly summary of one pairing."""
    return {"pairing": name, "game_options": options, **report.as_dict()}


def markdown(results: list[dict[str, Any]], reports: list[ArenaReport]) -> str:
    """The tables that go into ``docs/results/ddz-agents.md``."""
    lines = [
        "| pairing (A vs B) | deals | agent | side | WP % [95% CI] | ADP [95% CI] |",
        "|---|---:|---|---|---:|---:|",
    ]
    for res, rep in zip(results, reports, strict=True):
        for s in rep.roles:
            wp, adp = _ci(s.wp, True), _ci(s.adp)
            lines.append(f"| {res['pairing']} | {rep.n_deals} | {s.agent} | {s.role} | {wp} | {adp} |")
    lines += [
        "",
        "| pairing (A vs B) | deals | paired A − B per deal [95% CI] | ordered (CI > 0) |",
        "|---|---:|---:|---|",
    ]
    for res, rep in zip(results, reports, strict=True):
        p = rep.paired_difference
        if p is None:
            continue
        lines.append(f"| {res['pairing']} | {rep.n_deals} | {_ci(p)} | {'yes' if p.low > 0 else 'no'} |")
    lines += ["", "| agent | pairing | decisions | median ms | p95 ms |", "|---|---|---:|---:|---:|"]
    for res, rep in zip(results, reports, strict=True):
        for t in rep.timing:
            times = f"{t.decisions} | {t.median_ms:.3f} | {t.p95_ms:.3f}"
            lines.append(f"| {t.agent} | {res['pairing']} | {times} |")
    return "\n".join(lines)


def decision_times(n_positions: int, specs: list[str], seed: int) -> list[dict[str, Any]]:
    """Median / p95 decision time of each agent on the same ``n_positions`` positions.

    Positions are the decision points of rule-vs-rule games (all seats, every stage of the
    game) under RLCard's wing rule, so every agent, the anchor included, can act on them.
    Each agent is built once per position with a fixed seed; single-move positions are
    skipped (every agent answers them without thinking).
    """
    import numpy as np

    from paiju.core.rng import derive_seed
    from paiju.doudizhu.agents import REGISTRY
    from paiju.doudizhu.game import DouDizhuGame

    game = DouDizhuGame(wing_rule="rlcard")
    positions = []
    g = 0
    while len(positions) < n_positions:
        deal = game.new_initial_state().sample_chance(np.random.default_rng(seed + g))
        state = game.new_state_from_deal(deal)
        rule = REGISTRY.make("rule", seed=0)
        while not state.is_terminal() and len(positions) < n_positions:
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if len(legal) > 1:
                positions.append((obs, legal))
            state.apply(rule.act(obs, legal))
        g += 1
    rows = []
    for spec in specs:
        wall, cpu = [], []
        for i, (obs, legal) in enumerate(positions):
            agent = REGISTRY.make(spec, seed=derive_seed(seed, i))
            w0, c0 = time.perf_counter(), time.process_time()
            agent.act(obs, legal)
            cpu.append((time.process_time() - c0) * 1000.0)
            wall.append((time.perf_counter() - w0) * 1000.0)
        rows.append({
            "agent": spec, "positions": len(positions),
            "wall_median_ms": float(np.median(wall)), "wall_p95_ms": float(np.percentile(wall, 95)),
            "cpu_median_ms": float(np.median(cpu)), "cpu_p95_ms": float(np.percentile(cpu, 95)),
        })
    anchor = next((r for r in rows if r["agent"] == ANCHOR), None)
    print("| agent | positions | median ms (CPU) | p95 ms (CPU) | median ms (wall) | p95 ms (wall) | "
          f"median CPU / {ANCHOR} |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ratio = f"{r['cpu_median_ms'] / anchor['cpu_median_ms']:.2f}" if anchor else "—"
        print(f"| {r['agent']} | {r['positions']} | {r['cpu_median_ms']:.3f} | {r['cpu_p95_ms']:.3f} | "
              f"{r['wall_median_ms']:.3f} | {r['wall_p95_ms']:.3f} | {ratio} |")
    return rows


def verify(
    pairings: list[tuple[str, list[str], dict[str, Any]]], done: dict[str, int], out: Path, n: int, seed: int
) -> dict[str, dict[str, Any]]:
    """Replay ``n`` sampled games of every pairing; a run resumed across sessions must be one run."""
    gen = as_generator(seed)
    found = {}
    for name, _, _ in pairings:
        games = 2 * done[name]
        picks = sorted(int(i) for i in gen.choice(games, size=min(n, games), replace=False))
        checks = replay_check(out / _slug(name), picks)
        same = sum(c.identical for c in checks)
        differ = [c.game_index for c in checks if not c.identical]
        found[name] = {"games": picks, "identical": same, "differ": differ}
        print(f"{name}: {same}/{len(checks)} sampled games replay move for move", flush=True)
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--rungs",
        default="random,policy:model=small,greedy,policy:model=large,rule,search",
        help="agent specs, weakest first",
    )
    ap.add_argument("--anchor", default="rule,search", help="our agents that play rlcard-rule ('' = none)")
    ap.add_argument("--deals", type=int, default=2000, help="deals per pairing without search")
    ap.add_argument("--search-deals", type=int, default=2000, help="most deals per pairing with search")
    ap.add_argument("--chunk", type=int, default=100, help="deals per round-robin step of search pairings")
    ap.add_argument("--budget", type=int, default=None, help="search budget (rollouts per decision)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--until", default=None, help="HH:MM UTC: start no new search chunk after this")
    ap.add_argument("--out", default="runs/ddz_ladder", help="records folder (one subfolder per pairing)")
    ap.add_argument("--json", default=None, help="write the report as JSON here")
    ap.add_argument("--md", default=None, help="write the markdown tables here")
    ap.add_argument("--timing", type=int, default=0, help="only measure decision times on N positions")
    ap.add_argument(
        "--verify", type=int, default=0,
        help="replay N sampled recorded games per pairing with this code and compare every move",
    )
    args = ap.parse_args(argv)
    if args.timing:
        names = [s.strip() for s in args.rungs.split(",") if s.strip()]
        specs = [_with_budget(s, args.budget, wings="rlcard") for s in names]
        rows = decision_times(args.timing, [*specs, ANCHOR], args.seed)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
        return 0

    rungs = [_with_budget(s.strip(), args.budget) for s in args.rungs.split(",") if s.strip()]
    pairings: list[tuple[str, list[str], dict[str, Any]]] = []
    for lo, hi in itertools.pairwise(rungs):
        pairings.append((f"{hi} vs {lo}", [hi, lo], {}))
    for spec in (s.strip() for s in args.anchor.split(",") if s.strip()):
        ours = _with_budget(spec, args.budget, wings="rlcard")
        pairings.append((f"{ours} vs {ANCHOR} (RLCard wings)", [ours, ANCHOR], {"wing_rule": "rlcard"}))
    deadline = _deadline(args.until)
    out = Path(args.out)

    def play(name: str, specs: list[str], options: dict[str, Any], deals: int) -> ArenaReport:
        start = time.time()
        rep = run_arena(
            "doudizhu", specs, 2 * deals, seed=args.seed, fmt="duplicate", workers=args.workers,
            out_dir=out / _slug(name), game_options=options or None,
        )
        took = time.time() - start
        print(f"[{time.strftime('%H:%M:%S')}] {name}: {deals} deals done ({took:.0f}s)", flush=True)
        return rep

    done: dict[str, int] = {}
    cheap = [p for p in pairings if not any(s.startswith("search") for s in p[1])]
    costly = [p for p in pairings if p not in cheap]
    for name, specs, options in cheap:
        play(name, specs, options, args.deals)
        done[name] = args.deals
    target = 0
    while costly and target < args.search_deals:
        if deadline is not None and target > 0 and time.time() > deadline:
            print(f"deadline reached: search pairings stop at {target} deals", flush=True)
            break
        target = min(args.search_deals, target + args.chunk)
        for name, specs, options in costly:
            play(name, specs, options, target)
            done[name] = target

    results, reports = [], []
    for name, specs, options in pairings:
        rep = play(name, specs, options, done[name])  # everything recorded: only reads back
        reports.append(rep)
        results.append(pairing_rows(name, rep, options))
    ordered = all(
        rep.paired_difference is not None and rep.paired_difference.low > 0
        for (name, _, _), rep in zip(pairings, reports, strict=True)
        if "rlcard" not in name
    )
    text = markdown(results, reports)
    print(text)
    print(f"\nladder strictly ordered (every higher rung's paired CI above 0): {ordered}")
    payload = {
        "seed": args.seed, "workers": args.workers, "rungs": rungs, "ordered": ordered, "pairings": results,
    }
    if args.verify:
        payload["replayed"] = verify(pairings, done, out, args.verify, args.seed)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(payload, indent=1, default=str))
    if args.md:
        Path(args.md).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
