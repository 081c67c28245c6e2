"""Draw the Reports page's Dou Dizhu ladder plot from the ladder's report.

``docs/results/ddz-ladder.png`` is drawn from ``docs/results/ddz-ladder.json`` (written by
``benchmarks/ddz_ladder.py``); run this after the ladder is re-run:

    .venv/bin/python scripts/build_web_reports.py

The web app's Reports page reads ``docs/results`` itself when paiju runs from a checkout
(``docs/web.md``, "Where the Reports page's reports come from"), so there is one copy of each
report.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "docs" / "results"
LADDER_JSON = SOURCE / "ddz-ladder.json"
LADDER_PNG = SOURCE / "ddz-ladder.png"


def plot_ladder(report: Path = LADDER_JSON, out: Path = LADDER_PNG) -> Path:
    """Two panels, one row per pairing (the ladder's rungs bottom to top, then the RLCard
    anchor): the paired landlord-points difference per deal, and the upper agent's win rate,
    each with its 95% interval as the report gives it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = json.loads(report.read_text(encoding="utf-8"))
    rows = []
    for p in data["pairings"]:
        upper = p["agents"][0]
        overall = next(r for r in p["roles"] if r["agent"] == upper and r["role"] == "all")
        anchor = "rlcard" in p["pairing"].lower()
        rows.append((p["pairing"], p["paired_difference"], overall["wp"], anchor, p["deals"]))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 0.55 * len(rows) + 1.6), sharey=True)
    ys = list(range(len(rows)))
    for y, (_, diff, wp, anchor, _) in zip(ys, rows, strict=True):
        colour = "#b3261e" if anchor else "#1d5fa8"
        left.errorbar(diff["value"], y, xerr=[[diff["value"] - diff["low"]], [diff["high"] - diff["value"]]],
                      fmt="o", color=colour, capsize=3)
        right.errorbar(100 * wp["value"], y,
                       xerr=[[100 * (wp["value"] - wp["low"])], [100 * (wp["high"] - wp["value"])]],
                       fmt="o", color=colour, capsize=3)
    left.axvline(0, color="#888", lw=0.8)
    right.axvline(50, color="#888", lw=0.8)
    left.set_yticks(ys, [name for name, *_ in rows])
    left.set_xlabel("paired A − B, landlord points per deal [95% CI]")
    right.set_xlabel("A's win rate, all games, % [95% CI]")
    deals = sorted({d for *_, d in rows})
    fig.suptitle(f"Dou Dizhu ladder (A vs B; {', '.join(map(str, deals))} deals per pairing, duplicate; "
                 "red: RLCard anchor)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    print(f"plotted {plot_ladder().relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
