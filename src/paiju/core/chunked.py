"""Long data jobs written as Parquet chunks, so an interrupted job resumes where it stopped.

A job plays items ``0 .. n-1`` (hands, games) ``chunk`` at a time; each chunk of each table
is written whole to ``PARTS/<table>-<first>-<last>.parquet`` (atomically: a file is there
whole or not at all) with the chunk's cost in its metadata. ``PARTS/job.json`` holds the job's
identity: run again with the same identity, the chunks already written are skipped; with
another, the job is refused rather than mixed. When every chunk is there the caller joins
them (:meth:`ChunkedJob.join`) and removes the folder.

The data generators of the learned agents share it (``paiju.mahjong.discard_data``,
``paiju.mahjong.search_data``): one place for the resume rules.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from paiju.core.errors import ConfigError

COST_KEY = b"paiju-cost"


def chunk_ranges(total: int, chunk: int) -> list[tuple[int, int]]:
    """``[(first, last), ...]``: items ``first .. last - 1`` of each chunk, in order."""
    return [(first, min(first + chunk, total)) for first in range(0, total, chunk)]


def write_parquet_atomic(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` through a temporary file: never half a file under its name."""
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)


class ChunkedJob:
    """The parts folder of one job (see the module's text)."""

    def __init__(self, parts: Path, identity: dict[str, Any]) -> None:
        self.parts = parts
        self.identity = identity

    def open(self) -> None:
        """Make the folder, or check that it holds chunks of this same job.

        Raises:
            ConfigError: the folder holds another job's chunks.
        """
        job = self.parts / "job.json"
        if job.is_file():
            theirs = json.loads(job.read_text(encoding="utf-8"))
            if theirs.get("identity") != self.identity:
                raise ConfigError(f"{self.parts} holds the chunks of another job ({theirs.get('identity')}); "
                                  "run it with the same arguments or use another --out")
        else:
            self.parts.mkdir(parents=True, exist_ok=True)
            job.write_text(json.dumps({"identity": self.identity}), encoding="utf-8")

    def path(self, table: str, first: int, last: int) -> Path:
        return self.parts / f"{table}-{first:08d}-{last:08d}.parquet"

    def has(self, tables: Sequence[str], first: int, last: int) -> bool:
        """Whether every table's chunk ``first .. last - 1`` is written."""
        return all(self.path(t, first, last).is_file() for t in tables)

    def write(self, tables: dict[str, pa.Table], first: int, last: int, cost: dict[str, Any]) -> None:
        """Write one chunk of each table, ``cost`` in the metadata of each. The first table
        named is written last: :meth:`has` is true only once all are there."""
        names = list(tables)
        for name in [*names[1:], names[0]]:
            meta = {COST_KEY: json.dumps(cost).encode()}
            write_parquet_atomic(tables[name].replace_schema_metadata(meta), self.path(name, first, last))

    def join(self, table: str, ranges: Sequence[tuple[int, int]]) -> tuple[pa.Table, list[dict[str, Any]]]:
        """One table's chunks, concatenated in order (metadata dropped), and each chunk's cost."""
        tables = [pq.read_table(self.path(table, f, last)) for f, last in ranges]
        costs = [json.loads((t.schema.metadata or {})[COST_KEY]) for t in tables]
        return pa.concat_tables([t.replace_schema_metadata(None) for t in tables]), costs

    def remove(self) -> None:
        shutil.rmtree(self.parts)


def summed_cost(costs: Sequence[dict[str, Any]], unit: str) -> dict[str, Any]:
    """The job's generation cost from its chunks' ``{unit, wall_s, cpu_s}``: totals and rates."""
    timed = sum(c[unit] for c in costs)
    wall, cpu = sum(c["wall_s"] for c in costs), sum(c["cpu_s"] for c in costs)
    return {f"{unit}_timed": timed, "wall_s": wall, "cpu_s": cpu,
            f"{unit}_per_s": timed / wall if wall > 0 else None,
            f"cpu_s_per_{unit.rstrip('s')}": cpu / timed if timed else None}


__all__ = ["COST_KEY", "ChunkedJob", "chunk_ranges", "summed_cost", "write_parquet_atomic"]
