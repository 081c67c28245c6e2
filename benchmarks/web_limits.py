"""The most expensive requests the web app accepts: their time at the default cost limits.

What it measures (``paiju.web.limits.WebLimits`` defaults; docs/web.md "Limits" quotes it):

1. ``POST /api/dih/value`` at every maximum at once: 200 different score laws (one per
   round) spanning 149 points each (a 30,000-cell total, the lattice limit), 100,000
   players, top 1,000;
2. ``POST /api/dih/select`` at every maximum at once: a typed-in pool of 300 deals whose
   scores span 12 points, 100,000 players, 18 rounds, top 6, the joint search with beam 8;
   and the same on the built-in synthetic pool (300 deals);
3. one AI decision of each searching agent at its registered maxima (these are capped by the
   server's AI time limit, 10 s by default, so their time without that cap is what the limit
   cuts): ``search:budget=5000,width=64``, ``expectimax:depth=3,alpha=1,claim_depth=3``,
   yuxi ``mcts:simulations=20000``.

Requests go through the app in-process (FastAPI's test client: validation, the analysis
worker, its deadline), one at a time; each figure is the median of ``--repeats`` runs.
Run: ``nice .venv/bin/python benchmarks/web_limits.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from paiju.core import deadline
from paiju.core.errors import DeadlineExceeded
from paiju.core.registry import load_agents
from paiju.core.rng import as_generator
from paiju.web.limits import WebLimits


def _law(rng: np.random.Generator, low: int, span: int, entries: int) -> str:
    scores = sorted({low, low + span, *(int(x) for x in rng.integers(low, low + span + 1, entries - 2))})
    probs = [round(float(p), 6) for p in rng.dirichlet(np.ones(len(scores)) * 5)]
    # rounded to 6 decimals (short text): the largest takes the remainder, so the law sums to 1
    top = max(range(len(probs)), key=probs.__getitem__)
    probs[top] = round(1.0 - sum(p for i, p in enumerate(probs) if i != top), 6)
    return ",".join(f"{s}:{p:.6f}" for s, p in zip(scores, probs, strict=True))


def worst_value_body(limits: WebLimits) -> dict[str, Any]:
    rng = np.random.default_rng(1)
    span = (limits.dih_total_cells - 1) // limits.dih_rounds
    dists = []
    for _ in range(limits.dih_rounds):
        law = _law(rng, -span // 2, span, 150)
        assert len(law) <= limits.dih_dist_chars
        dists.append(law)
    return {"dists": dists, "players": limits.dih_players, "rounds": limits.dih_rounds, "top": limits.dih_top}


def worst_select_body(limits: WebLimits) -> dict[str, Any]:
    rng = np.random.default_rng(2)
    half = limits.select_score_span // 2
    lines = [f"d{i}: {_law(rng, -half, 2 * half, 9)}" for i in range(limits.select_pool_deals)]
    text = "\n".join(lines)
    assert len(text) <= limits.pool_text_chars, len(text)
    return {
        "pool": "custom",
        "pool_text": text,
        "players": limits.select_players,
        "rounds": limits.select_rounds,
        "top": limits.select_top,
        "joint": True,
        "beam": limits.select_beam,
    }


def _median(fn: Callable[[], Any], repeats: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def _first_decision(kind: str, spec: str, cap_s: float) -> float:
    """Seconds of the agent's longest decision in the first 4 of its seat in a seeded game."""
    from paiju.core.registry import load_game

    if kind == "mahjong":
        from paiju.mahjong.game import MahjongGame

        game: Any = MahjongGame(mode="hand")
    else:
        game = load_game(kind)
    rng = as_generator(1)
    state = game.new_initial_state()
    agent = load_agents(kind).make(spec, seed=1)
    other = load_agents(kind).make("random", seed=2)
    longest, seen = 0.0, 0
    while not state.is_terminal() and seen < 4:
        if state.is_chance_node():
            state.apply(state.sample_chance(rng))
            continue
        player, legal = state.current_player(), state.legal_actions()
        if player == 0 and len(legal) > 1:
            start = time.perf_counter()
            try:
                with deadline.scope(deadline.CancelToken(cap_s)):
                    action = agent.act(state.observation(player), legal)
            except DeadlineExceeded:
                return float("inf")
            longest = max(longest, time.perf_counter() - start)
            seen += 1
        else:
            action = other.act(state.observation(player), legal)
        state.apply(action)
    return longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from paiju.web.app import create_app

    limits = WebLimits()
    value, select = worst_value_body(limits), worst_select_body(limits)
    print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; python {sys.version.split()[0]}")
    print(f"limits: {limits.as_dict()}")
    with tempfile.TemporaryDirectory() as tmp, TestClient(create_app(Path(tmp), report_dirs=[])) as client:

        def post(url: str, body: dict[str, Any]) -> None:
            r = client.post(url, json=body)
            assert r.status_code == 200, r.text[:300]

        synthetic = {**select, "pool": "synthetic", "pool_text": None}
        for name, url, body in (
            ("dih value, every maximum", "/api/dih/value", value),
            ("dih select, custom pool, every maximum", "/api/dih/select", select),
            ("dih select, synthetic pool, every maximum", "/api/dih/select", synthetic),
        ):
            med, times = _median(lambda url=url, body=body: post(url, body), args.repeats)
            print(f"{name:40s} median {med:6.2f} s  runs {[round(t, 2) for t in times]}")
    for kind, spec in (
        ("doudizhu", "search:budget=5000,width=64"),
        ("mahjong", "expectimax-shanten:depth=3,alpha=1.0,claim_depth=3"),
        ("yuxi", "mcts:simulations=20000"),
    ):
        longest = _first_decision(kind, spec, 60.0)
        print(f"{kind + ' ' + spec:40s} longest of 4 decisions {longest:6.2f} s (the AI time limit cuts it)")


if __name__ == "__main__":
    main()
