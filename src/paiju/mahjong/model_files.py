"""Where the shipped mahjong models live and what their files are called.

Facts shared by the agent registry (:mod:`paiju.mahjong.agents`, which resolves
``supervised:model=resnet`` to a file), the supervised trainer that writes the files and the
tables that read them. A module of their own, importing nothing of paiju, so the registry
needs no training code (``docs/design.md`` §21).
"""

from __future__ import annotations

from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent / "models"
"""The shipped models (``mj-dqn.pt``, ``mj-sup-resnet.pt``, ...)."""
SUPERVISED_MODELS = ("linear", "svm", "mlp", "cnn", "densenet", "resnet")
"""The supervised discard models of ``paiju mahjong train-supervised`` (Table 4)."""


def supervised_model_file(folder: Path, model: str, target: str = "discard") -> Path:
    """Where the trained ``model`` is written in ``folder`` (and looked for: Table 4, the
    shipped models): ``mj-sup-{model}.pt``, a value model ``mj-value-{model}.pt``."""
    return folder / (f"mj-sup-{model}.pt" if target == "discard" else f"mj-value-{model}.pt")


def distill_model_file(folder: Path, name: str = "distill") -> Path:
    """Where the distilled network ``name`` is shipped in ``folder`` (``expectimax-distill``'s
    ``model=``; ``paiju.mahjong.distill``): ``mj-{name}.pt``, the run's ``config.json`` (with the
    command that made it) and ``metrics.json`` beside it as ``mj-{name}.config.json`` and
    ``mj-{name}.metrics.json`` (:mod:`paiju.core.run_folder`)."""
    return folder / f"mj-{name}.pt"
