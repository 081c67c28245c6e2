"""AlphaZero checkpoints: the network's config, weights and metadata in one torch file.

The file is a plain dict (``format``, ``config``, ``state_dict``, ``meta``) loaded with
``torch.load(weights_only=True)``, so loading runs no pickled code. ``meta`` carries what the
game needs to refuse a mismatched model (e.g. yuxi's card-table fingerprint) and how the
model was made (command, metrics); the game checks it, not this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from paiju.algorithms.alphazero.net import AZNet, NetConfig
from paiju.core.errors import ConfigError, CorruptRecordError

FORMAT = "paiju-az-1"


def save_checkpoint(path: str | Path, net: AZNet, meta: dict[str, Any] | None = None) -> Path:
    """Write ``net`` and ``meta`` (plain data: str, int, float, bool, lists, dicts) to ``path``."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "config": net.config.to_dict(),
        "state_dict": net.state_dict(),
        "meta": dict(meta or {}),
    }
    torch.save(payload, out)
    return out


def load_checkpoint(path: str | Path) -> tuple[AZNet, dict[str, Any]]:
    """The network (in eval mode) and metadata saved at ``path``.

    Raises:
        ConfigError: no file at ``path``.
        CorruptRecordError: the file is not a readable paiju AlphaZero checkpoint.
    """
    src = Path(path)
    name = str(src)
    if not src.is_file():
        raise ConfigError(f"AlphaZero model {name!r} does not exist (train one first; see docs/alphazero.md)")
    try:
        payload = torch.load(src, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many types for a broken or foreign file
        raise CorruptRecordError(f"AlphaZero model {name!r} is not a readable checkpoint: {err}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CorruptRecordError(f"AlphaZero model {name!r} is not a {FORMAT} checkpoint")
    try:
        raw = dict(payload["config"])
        raw["plane_shape"] = tuple(raw["plane_shape"])
        net = AZNet(NetConfig(**raw))
        net.load_state_dict(payload["state_dict"])
    except (KeyError, TypeError, RuntimeError) as err:
        raise CorruptRecordError(f"AlphaZero model {name!r}: config or weights do not fit: {err}") from None
    return net.eval(), dict(payload.get("meta", {}))
