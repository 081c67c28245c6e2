"""AlphaZero checkpoints: the network's config, weights and metadata in one torch file.

The file is a plain dict (``format``, ``config``, ``state_dict``, ``meta``) loaded with
``torch.load(weights_only=True)``, so loading runs no pickled code. ``meta`` carries what the
game needs to refuse a mismatched model (e.g. yuxi's card-table fingerprint) and how the
model was made (command, metrics); the game checks it, not this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paiju.algorithms.alphazero.net import AZNet, NetConfig
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.torch_files import load_payload, save_payload

FORMAT = "paiju-az-1"


def save_checkpoint(path: str | Path, net: AZNet, meta: dict[str, Any] | None = None) -> Path:
    """Write ``net`` and ``meta`` (plain data: str, int, float, bool, lists, dicts) to ``path``."""
    payload = {
        "format": FORMAT,
        "config": net.config.to_dict(),
        "state_dict": net.state_dict(),
        "meta": dict(meta or {}),
    }
    return save_payload(path, payload)


def load_checkpoint(path: str | Path, option: str | None = None) -> tuple[AZNet, dict[str, Any]]:
    """The network (in eval mode) and metadata saved at ``path`` (``option``: as
    :func:`model_payload`).

    Raises:
        ConfigError: no file at ``path``.
        CorruptRecordError: the file is not a readable paiju AlphaZero checkpoint.
    """
    name = str(path)
    payload = model_payload(path, option)
    try:
        raw = dict(payload["config"])
        raw["plane_shape"] = tuple(raw["plane_shape"])
        net = AZNet(NetConfig(**raw))
        net.load_state_dict(payload["state_dict"])
    except (KeyError, TypeError, RuntimeError) as err:
        raise CorruptRecordError(f"AlphaZero model {name!r}: config or weights do not fit: {err}") from None
    return net.eval(), dict(payload.get("meta", {}))


def model_payload(path: str | Path, option: str | None = None) -> dict[str, Any]:
    """The dict saved at ``path``, a paiju AlphaZero model, its network not built (what reading
    its ``meta`` alone needs). ``option``: the command-line option that named the file (e.g.
    ``--init``), which a missing file's error then names.

    Raises:
        ConfigError: no file at ``path``.
        CorruptRecordError: the file is not a readable paiju AlphaZero checkpoint.
    """
    if option is not None and not Path(path).is_file():  # the option's one-line error
        raise ConfigError(f"{option} {path}: no such model file")
    return load_payload(path, "AlphaZero model", FORMAT, "train one first; see docs/alphazero.md")
