"""Held-out metrics of the tagger and of the three split baselines (``docs/splitting.md``).

* **per-card accuracy**: share of cards whose predicted label is the winner's. The cards of a
  rank are interchangeable, so a rank scores the overlap of its predicted and true label
  multisets (predicted ``01`` against true ``10`` at one rank is two matches);
* **exact match**: share of hands whose every label is right;
* **repair rate**: share of hands whose raw Viterbi tags needed the repair
  (:func:`paiju.doudizhu.split.tags_need_repair`); the accuracy is that of the repaired tags,
  i.e. of the split the tagger hands out.

Baselines, read as predictions of the winner's split: the tags of the 40-order split
(``heuristic``), of the exact fewest-groups split and of the exact fewest-plays split.
``paired_interval`` gives the mean per-deal accuracy difference of the tagger over a baseline
with a normal 95% interval over deals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final

from paiju.doudizhu.cards import parse_counts
from paiju.doudizhu.split_core import exact, heuristic

BASELINES: Final[dict[str, Callable[[str], str]]] = {
    "heuristic": lambda hand: heuristic(hand).tags(),
    "exact_groups": lambda hand: exact(hand, "groups").tags(),
    "exact_plays": lambda hand: exact(hand, "plays").tags(),
}


def card_matches(hand: str, predicted: str, truth: str) -> int:
    """Cards labelled right: per rank, the overlap of the two label multisets."""
    counts = parse_counts(hand, what="hand")
    if len(predicted) != len(truth) or len(truth) != sum(counts):
        raise ValueError(f"tags {predicted!r} / {truth!r} do not fit hand {hand!r}")
    matches = 0
    i = 0
    for n in counts:
        a, b = predicted[i : i + n], truth[i : i + n]
        matches += sum(min(a.count(k), b.count(k)) for k in "0123")
        i += n
    return matches


def score(hands: Sequence[str], predicted: Sequence[str], truth: Sequence[str],
          repaired: Sequence[bool] | None = None) -> dict[str, Any]:
    """Per-card accuracy, exact match (and repair rate) of one predictor on ``hands``."""
    cards = sum(len(t) for t in truth)
    per_hand = [card_matches(h, p, t) for h, p, t in zip(hands, predicted, truth, strict=True)]
    out: dict[str, Any] = {
        "hands": len(hands),
        "per_card": sum(per_hand) / max(1, cards),
        "exact_match": sum(m == len(t) for m, t in zip(per_hand, truth, strict=True)) / max(1, len(hands)),
    }
    if repaired is not None:
        out["repair_rate"] = sum(repaired) / max(1, len(repaired))
    return out


def per_hand_accuracy(hands: Sequence[str], predicted: Sequence[str], truth: Sequence[str]) -> list[float]:
    return [card_matches(h, p, t) / len(t) for h, p, t in zip(hands, predicted, truth, strict=True)]


def paired_interval(deal_ids: Sequence[str], a: Sequence[float], b: Sequence[float]) -> dict[str, float]:
    """Mean of ``a - b`` per deal (hands of a deal averaged first) with a normal 95% interval."""
    by_deal: dict[str, list[float]] = {}
    for d, x, y in zip(deal_ids, a, b, strict=True):
        by_deal.setdefault(d, []).append(x - y)
    diffs = [sum(v) / len(v) for v in by_deal.values()]
    n = len(diffs)
    mean = sum(diffs) / max(1, n)
    var = sum((x - mean) ** 2 for x in diffs) / (n - 1) if n > 1 else float("nan")
    half = 1.96 * math.sqrt(var / n) if n > 1 else float("nan")
    return {"deals": n, "margin": mean, "low": mean - half, "high": mean + half}


def evaluate_rows(rows: Sequence[dict[str, Any]], tagger_tags: Sequence[str],
                  tagger_repaired: Sequence[bool]) -> dict[str, Any]:
    """Tagger and baselines on ``rows`` (dataset rows), overall and per source; each source
    also gets the paired interval of the tagger over its best baseline."""
    groups: dict[str, list[int]] = {"all": list(range(len(rows)))}
    for i, r in enumerate(rows):
        groups.setdefault(f"source={r['source']}", []).append(i)
    base_tags = {name: [fn(r["hand"]) for r in rows] for name, fn in BASELINES.items()}
    out: dict[str, Any] = {}
    for key, idx in groups.items():
        hands = [rows[i]["hand"] for i in idx]
        truth = [rows[i]["tags"] for i in idx]
        pred = [tagger_tags[i] for i in idx]
        entry: dict[str, Any] = {"tagger": score(hands, pred, truth, [tagger_repaired[i] for i in idx])}
        for name, tags in base_tags.items():
            entry[name] = score(hands, [tags[i] for i in idx], truth)
        best = max(BASELINES, key=lambda name: entry[name]["per_card"])
        entry["best_baseline"] = best
        entry["vs_best_baseline"] = paired_interval(
            [rows[i]["deal_id"] for i in idx],
            per_hand_accuracy(hands, pred, truth),
            per_hand_accuracy(hands, [base_tags[best][i] for i in idx], truth),
        )
        out[key] = entry
    return out


__all__ = ["BASELINES", "card_matches", "evaluate_rows", "paired_interval", "per_hand_accuracy", "score"]
