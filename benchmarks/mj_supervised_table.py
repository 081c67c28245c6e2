"""The held-out accuracy table of supervised mahjong discard models, from their saved metadata.

Each ``mj-sup-M.pt`` written by ``paiju mahjong train-supervised`` keeps its parameters, the
per-epoch metrics and the test accuracy on held-out hands (``save_model`` meta). This prints
one Markdown row per model: parameters, last epoch's training and validation accuracy, test
accuracy with its 95% Wilson interval (:func:`paiju.core.stats.proportion_ci`, counting the
decisions as independent), and the seconds of all epochs.

Usage::

    .venv/bin/python benchmarks/mj_supervised_table.py                 # the shipped models
    .venv/bin/python benchmarks/mj_supervised_table.py --models runs/sup
"""

from __future__ import annotations

import argparse
from pathlib import Path

from paiju.algorithms.dqn import load_model
from paiju.core.stats import proportion_ci
from paiju.mahjong.agents.dqn import MODEL_DIR
from paiju.mahjong.train_supervised import MODELS, model_file


def row(path: Path) -> str:
    _, meta = load_model(path)
    last = meta["metrics"][-1]
    n = meta["data"]["test_rows"]
    acc = proportion_ci(meta["test_accuracy"] * n, n)
    seconds = sum(m["seconds"] for m in meta["metrics"])
    return (f"| {meta['model']} | {meta['parameters']:,} | {last['train_accuracy']:.1%} | "
            f"{last['validation_accuracy']:.1%} | **{acc.value:.1%}** [{acc.low:.1%}, {acc.high:.1%}] | "
            f"{seconds:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--models", type=Path, default=MODEL_DIR, help="folder of mj-sup-M.pt")
    args = parser.parse_args()
    print("| model | parameters | training accuracy (last epoch) | validation accuracy | "
          "test accuracy (95% Wilson) | training s |")
    print("|---|---:|---:|---:|---|---:|")
    for m in MODELS:
        if model_file(args.models, m).is_file():
            print(row(model_file(args.models, m)))


if __name__ == "__main__":
    main()
