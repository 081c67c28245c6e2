"""How often each Dou Dizhu agent plays the teacher's move, on held-out recorded games.

Every agent is put in the teacher's seat at every decision of the teacher's recorded games
(games the models were not trained on: another self-play seed), is asked for its move, and
its answer is compared with the move the teacher played; decisions with one legal move are
asked (agents may keep state through a game) but not counted. Reported per agent: agreement
on leads, on follows and overall, with a Wilson 95% interval over decisions, and the CPU time
per decision. Usage (the figures in docs/results/ddz-xgb.md)::

    .venv/bin/python benchmarks/ddz_move_agreement.py --records runs/ddz-search-test \\
        --teacher search --agents xgb,policy:model=large,rule,greedy --json out.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from paiju.core.records import read_records
from paiju.core.rng import derive_seed
from paiju.core.stats import proportion_ci
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.game import BIDS, DouDizhuGame, GameRecord


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, nargs="+")
    ap.add_argument("--teacher", default="search")
    ap.add_argument("--agents", default="xgb,policy:model=large,rule,greedy")
    ap.add_argument("--games", type=int, default=0, help="use the first N games (0 = all)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    table = read_records(args.records, columns=["game_index", "agents", "extra"])
    items = []
    for index, agents, extra in zip(*(table[c].to_pylist() for c in ("game_index", "agents", "extra")),
                                    strict=True):
        seats = tuple(s for s, a in enumerate(agents) if a == args.teacher)
        if seats:
            items.append((int(index), GameRecord.from_dict(json.loads(extra)["record"]), seats))
    items.sort(key=lambda item: item[0])
    if args.games:
        items = items[: args.games]
    report: dict[str, dict[str, object]] = {}
    for spec in args.agents.split(","):
        hits: list[bool] = []
        lead: list[bool] = []
        cpu = 0.0
        asked = 0
        for index, record, seats in items:
            game = DouDizhuGame(record.config)
            state = game.new_state_from_deal(record.deal)
            for bid in record.bids:
                state.apply(BIDS[bid])
            agents = {s: REGISTRY.make(spec, derive_seed(index, s)) for s in seats}
            for seat, move in record.plays:
                if seat in seats:
                    legal = state.legal_actions()
                    obs = state.observation(seat)
                    t0 = time.process_time()
                    answer = agents[seat].act(obs, legal)
                    cpu += time.process_time() - t0
                    asked += 1
                    if len(legal) > 1:
                        hits.append(answer == move)
                        lead.append(obs.to_beat is None)
                state.apply(move)
        h, led = np.array(hits), np.array(lead)
        row = {
            "decisions": int(h.size),
            "agreement": proportion_ci(float(h.sum()), int(h.size)).as_dict(),
            "lead": proportion_ci(float(h[led].sum()), int(led.sum())).as_dict(),
            "follow": proportion_ci(float(h[~led].sum()), int((~led).sum())).as_dict(),
            "cpu_ms_per_decision": 1000 * cpu / max(1, asked),
        }
        report[spec] = row
        a = row["agreement"]
        assert isinstance(a, dict)
        print(f"{spec}: {a['value']:.3f} [{a['low']:.3f}, {a['high']:.3f}] over {h.size} decisions "
              f"(lead {h[led].mean():.3f}, follow {h[~led].mean():.3f}); "
              f"{row['cpu_ms_per_decision']:.2f} CPU ms a decision", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            out = {"records": args.records, "teacher": args.teacher, "games": len(items), "agents": report}
            json.dump(out, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
