"""The director's CSV files (players, results): a header row naming the columns in any order,
and every problem a :class:`~paiju.core.errors.ConfigError` naming the file, the row (as a
spreadsheet numbers it: the header is row 1) and the column."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from paiju.core.errors import ConfigError

MAX_TEXT: Final = 200
"""Longest cell (a longer one is a mistake: a pasted paragraph, a wrong column)."""


def read_text(path: str | Path) -> str:
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8-sig")  # a spreadsheet's BOM is not part of the header
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{p}: cannot read it as UTF-8 text ({err})") from None


def parse_rows(text: str, where: str, columns_hint: str) -> list[list[str]]:
    """The rows of CSV ``text``, header first; ``columns_hint`` (e.g. ``name,id[,club]``) is
    what an empty file is told to start with."""
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as err:
        raise ConfigError(f"{where}: not CSV ({err})") from None
    if not rows or not any(cell.strip() for cell in rows[0]):
        raise ConfigError(f"{where}: empty; the first row names the columns: {columns_hint}")
    return rows


def header_columns(
    header: Sequence[str], where: str, required: Sequence[str], optional: Sequence[str]
) -> dict[str, int]:
    """Column name -> its index, from the header row (names are case-insensitive)."""
    known = (*required, *optional)
    columns: dict[str, int] = {}
    for i, cell in enumerate(header):
        name = cell.strip().lower()
        if name not in known:
            raise ConfigError(
                f"{where}, row 1, column {i + 1}: unknown column {cell.strip()!r}; "
                f"columns: {', '.join(known)}"
            )
        if name in columns:
            raise ConfigError(f"{where}, row 1, column {i + 1}: column {name!r} is named twice")
        columns[name] = i
    missing = [c for c in required if c not in columns]
    if missing:
        raise ConfigError(f"{where}, row 1: no column {missing[0]!r} (required: {', '.join(required)})")
    return columns


def is_blank(cells: Sequence[str]) -> bool:
    """A row with nothing in it (blank lines at the end of a sheet are skipped)."""
    return not any(cell.strip() for cell in cells)


def check_width(cells: Sequence[str], columns: dict[str, int], where: str) -> None:
    if len(cells) > len(columns) and any(c.strip() for c in cells[len(columns) :]):
        raise ConfigError(f"{where}: {len(cells)} cells but the header names {len(columns)} columns")


def cell(cells: Sequence[str], columns: dict[str, int], name: str, where: str) -> str:
    """Column ``name``'s cell of a row, stripped ('' when the column or the cell is absent)."""
    i = columns.get(name)
    value = cells[i].strip() if i is not None and i < len(cells) else ""
    if len(value) > MAX_TEXT:
        raise ConfigError(f"{where}, column {name!r}: {len(value)} characters; at most {MAX_TEXT}")
    if any(ord(ch) < 32 for ch in value):
        raise ConfigError(f"{where}, column {name!r}: {value!r} holds a control character")
    return value
