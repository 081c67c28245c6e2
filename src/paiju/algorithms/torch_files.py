"""Moved to :mod:`paiju.core.torch_files` (the run folder, :mod:`paiju.core.run_folder`, saves
its checkpoints with it, and ``paiju.core`` may not import ``paiju.algorithms``). Re-exported
here for code written against this path; new code imports ``paiju.core.torch_files``."""

from __future__ import annotations

from paiju.core.run_folder import identity as run_identity
from paiju.core.torch_files import load_payload, save_payload

__all__ = ["load_payload", "run_identity", "save_payload"]
