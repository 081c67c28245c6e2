"""Regenerate the shipped shanten tables, ``src/paiju/mahjong/shanten_tables.xz``.

The file holds the per-suit distance tables of :mod:`paiju.mahjong.shanten` (row ids of
every suit and honour count vector), so a fresh process reads them in milliseconds instead
of building them for a second. Run this after changing how the tables are built:

    .venv/bin/python scripts/build_shanten_tables.py          # rebuild and write the file
    .venv/bin/python scripts/build_shanten_tables.py --check  # exit 1 if the file is stale

``tests/mahjong/test_mj_shanten_tables.py`` checks the shipped file against a fresh build.
"""

from __future__ import annotations

import argparse
import lzma
import sys

from paiju.mahjong.shanten import TABLE_FILE, table_bytes, write_tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare the file with a fresh build")
    args = parser.parse_args()
    if args.check:
        fresh = table_bytes()
        shipped = lzma.decompress(TABLE_FILE.read_bytes()) if TABLE_FILE.exists() else b""
        if shipped != fresh:
            print(f"{TABLE_FILE} is stale: run scripts/build_shanten_tables.py", file=sys.stderr)
            sys.exit(1)
        print(f"{TABLE_FILE} matches a fresh build")
        return
    write_tables()
    print(f"wrote {TABLE_FILE} ({TABLE_FILE.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
