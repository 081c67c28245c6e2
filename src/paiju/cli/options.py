"""The options many ``paiju`` commands share, declared once (issue 44).

Each is a small factory returning the ``typer.Option`` of an ``Annotated`` parameter, so the
flags, ranges and parsers of ``--seed``, ``--json``, ``--workers``, ``--out`` ... are written
here once; a command passes only what differs (its help text, whether it has the short name
it has always had). The aliases at the end are the common cases with their usual help text::

    def command(seed: Annotated[int, seed("Seed of the deal.")] = 0, as_json: Json = False): ...

Only Typer and :mod:`paiju.cli.validate` are imported, so ``paiju --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from paiju.cli.validate import MAX_HANDS, MAX_SEED, MAX_WORKERS, output_dir, output_file


def _flags(long: str, short: str | None) -> tuple[str, ...]:
    return (long, short) if short else (long,)


def seed(help: str = "Seed of the run (same seed, same output).", *, short: bool = True) -> Any:
    """``--seed/-s``: 0..MAX_SEED, what :func:`paiju.core.rng.derive_seed` takes and records store.
    ``short=False``: the commands that have only ever had ``--seed``."""
    return typer.Option(*_flags("--seed", "-s" if short else None), min=0, max=MAX_SEED, help=help)


def json_flag(help: str = "Print JSON.") -> Any:
    """``--json``: machine-readable output on stdout, nothing else."""
    return typer.Option("--json", help=help)


def workers(help: str = "Worker processes (results identical to 1).", *, short: bool = False) -> Any:
    """``--workers``: local processes (or Ray tasks in flight), 1..MAX_WORKERS."""
    return typer.Option(*_flags("--workers", "-w" if short else None), min=1, max=MAX_WORKERS, help=help)


def threads(help: str = "Torch threads.") -> Any:
    """``--threads``: Torch's intra-op threads, bounded like ``--workers``."""
    return typer.Option("--threads", min=1, max=MAX_WORKERS, help=help)


def ray(help: str = "Play on Ray ($RAY_ADDRESS's cluster, else a local instance).") -> Any:
    """``--ray``: run the work as Ray tasks instead of local processes."""
    return typer.Option("--ray", help=help)


def out_dir(help: str, *, short: bool = True) -> Any:
    """``--out/-o``: a folder to write into (absent and creatable, or writable)."""
    return typer.Option(*_flags("--out", "-o" if short else None), parser=output_dir, help=help)


def out_file(help: str, *, short: bool = True) -> Any:
    """``--out/-o``: a file to write, in an existing writable folder."""
    return typer.Option(*_flags("--out", "-o" if short else None), parser=output_file, help=help)


def record(help: str = "Record the games here (Parquet; see paiju records); rerun to resume.") -> Any:
    """``--record``: the records folder of a match."""
    return typer.Option("--record", parser=output_dir, help=help)


def hands(help: str = "Hands to play.", *, most: int = MAX_HANDS) -> Any:
    """``--hands/-n``: mahjong hands, 1..``most``."""
    return typer.Option("--hands", "-n", min=1, max=most, help=help)


def rule_options(help: str = "A rule option as KEY=VALUE (as in paiju arena), repeatable.") -> Any:
    """``--option/-o KEY=VALUE``: a field of the game's rules configuration, repeatable
    (:func:`paiju.cli.validate.game_options` types and checks them)."""
    return typer.Option("--option", "-o", help=help)


def progress(help: str = "Show a progress bar on stderr.") -> Any:
    """``--progress/--no-progress``."""
    return typer.Option(help=help)


Seed = Annotated[int, seed()]
SeedLong = Annotated[int, seed(short=False)]
Json = Annotated[bool, json_flag()]
Workers = Annotated[int, workers()]
Threads = Annotated[int, threads()]
Ray = Annotated[bool, ray()]
Record = Annotated[Path | None, record()]
RuleOptions = Annotated[list[str] | None, rule_options()]
Progress = Annotated[bool, progress()]
