"""Two rows of one Table 4 (or α sweep) against each other, paired by wall.

Every row of ``paiju mahjong table4`` plays the same walls against the same baseline, so two
rows compare wall by wall (:func:`paiju.mahjong.agents.match.rows_paired`): per wall, the
row's agent's win rate and points per seat-hand over the wall's 6 seatings, row A minus row
B, with a 95% interval over the walls both finished. Rows of other walls are refused.

Usage::

    .venv/bin/python benchmarks/mj_rows_paired.py runs/table4/rows/ddqn runs/table4/rows/dqn [more B rows]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from paiju.core.records import read_records
from paiju.mahjong.agents.match import rows_paired


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("a", type=Path, help="row A's record folder")
    parser.add_argument("b", type=Path, nargs="+", help="row B's record folder(s)")
    args = parser.parse_args()
    a_rows = read_records(args.a).to_pylist()
    results = []
    for b in args.b:
        try:
            results.append(rows_paired(a_rows, read_records(b).to_pylist()))
        except ValueError as err:
            raise SystemExit(f"{args.a} vs {b}: {err}") from None
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
