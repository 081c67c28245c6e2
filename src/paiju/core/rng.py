"""Explicit randomness: every random process in paiju takes a seed or a generator.

No module uses the global ``random`` / ``np.random`` state; the API suite checks this by
drawing from the global generators between steps.
"""

from __future__ import annotations

import numpy as np

SeedLike = int | np.random.Generator | None


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A ``numpy`` generator from a seed, or the generator itself (shared, not copied)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (not isinstance(seed, int | np.integer) or isinstance(seed, bool)):
        raise TypeError(f"seed must be an int, a numpy Generator or None, not {type(seed).__name__}")
    return np.random.default_rng(seed)


def derive_seed(base_seed: int, *keys: int) -> int:
    """A stable 63-bit seed for sub-task ``keys`` of a run seeded with ``base_seed``.

    Used so that game ``i`` of a run gets the same seed whether it is played first, last,
    in another process, or after a resume.
    """
    ss = np.random.SeedSequence([int(base_seed) & 0xFFFFFFFFFFFFFFFF, *(int(k) for k in keys)])
    return int(ss.generate_state(1, dtype=np.uint64)[0]) >> 1
