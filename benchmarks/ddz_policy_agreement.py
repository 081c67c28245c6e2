"""How often each policy checkpoint plays the teacher's move, on games it was not trained on.

The training script's validation accuracy uses each run's own held-out games; this puts every
model on the *same* held-out decisions (default: games 10000..10199 of the rule self-play
records, beyond the first 4000 that the shipped models were trained on), split by lead and
follow. Usage::

    .venv/bin/python benchmarks/ddz_policy_agreement.py --records runs/ddz-rule --first 10000 \\
        --games 200 --models small,large
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from paiju.core.records import read_records
from paiju.doudizhu.agents.policy import decision_tensors, load_model
from paiju.doudizhu.encoding import STATE_LAYOUT
from paiju.doudizhu.game import GameRecord
from paiju.doudizhu.train_policy import encode_games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True)
    ap.add_argument("--first", type=int, default=10000, help="first game index to use")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--models", default="small,large")
    ap.add_argument("--teacher", default="rule")
    args = ap.parse_args()
    torch.set_num_threads(1)
    table = read_records(args.records, columns=["game_index", "agents", "extra"])
    items = []
    for index, agents, extra in zip(*(table[c].to_pylist() for c in ("game_index", "agents", "extra")),
                                    strict=True):
        if args.first <= index < args.first + args.games:
            seats = tuple(s for s, a in enumerate(agents) if a == args.teacher)
            items.append((index, GameRecord.from_dict(json.loads(extra)["record"]), seats))
    items.sort(key=lambda item: item[0])
    examples = encode_games(items)
    owner = 0
    for block, width in STATE_LAYOUT:  # the "trick_owner: none" bit marks a free lead
        if block == "trick_owner":
            break
        owner += width
    leads = np.array([d.state[owner] == 1 for d, _ in examples])
    print(f"{len(items)} games, {len(examples)} decisions with a choice ({leads.mean():.0%} leads)")
    for name in args.models.split(","):
        net = load_model(name)
        hits = []
        with torch.inference_mode():
            for start in range(0, len(examples), 512):
                chunk = examples[start : start + 512]
                inputs = decision_tensors([d for d, _ in chunk])
                logits = net(**inputs).numpy()
                seg = inputs["segment"].numpy()
                offset = 0
                for d, target in chunk:
                    n = len(d.move_type)
                    hits.append(int(np.argmax(logits[offset : offset + n])) == target)
                    offset += n
                assert offset == len(seg)
        h = np.array(hits)
        print(f"{name}: agreement {h.mean():.3f} (lead {h[leads].mean():.3f}, follow {h[~leads].mean():.3f})")


if __name__ == "__main__":
    main()
