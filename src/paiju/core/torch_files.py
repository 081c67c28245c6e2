"""Saving and loading the project's torch files (models and training checkpoints), in one place.

A file is a plain dict of tensors and JSON-like values with a ``format`` tag, written
atomically (a temporary file renamed into place, so a kill mid-write never leaves half a
model) and read back with ``weights_only=True`` (no pickled code runs). What is wrong with a
file is said once, the same way for every kind of model.

torch is imported by the two functions, not by this module: ``paiju.core`` stays importable
without it (the run folder of :mod:`paiju.core.run_folder` writes its checkpoints here).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from paiju.core.errors import ConfigError, CorruptRecordError


def save_payload(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write ``payload`` to ``path`` atomically; returns the path."""
    import torch

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".tmp-{out.name}")
    torch.save(payload, tmp)
    os.replace(tmp, out)
    return out


def load_payload(
    path: str | Path, what: str, fmt: str | None = None, hint: str = "train one first"
) -> dict[str, Any]:
    """The dict saved at ``path``; ``what`` names the kind of file in errors, ``fmt`` (when
    given) is the ``format`` tag it must carry.

    Raises:
        ConfigError: no file at ``path``.
        CorruptRecordError: the file is not a readable torch file of that kind.
    """
    import torch

    src = Path(path)
    name = str(src)
    if not src.is_file():
        raise ConfigError(f"{what} {name!r} does not exist ({hint})")
    try:
        payload = torch.load(src, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many types for a broken or foreign file
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]  # torch's messages run long
        raise CorruptRecordError(f"{what} {name!r} is not a readable checkpoint: {first}") from None
    if not isinstance(payload, dict) or (fmt is not None and payload.get("format") != fmt):
        raise CorruptRecordError(f"{what} {name!r} is not a {fmt or 'paiju'} file")
    return payload


__all__ = ["load_payload", "save_payload"]
