"""`paiju demo`: a short terminal tour on the embedded defaults."""

from __future__ import annotations


def demo(seed: int = 7) -> None:
    """A short tour: a Dou Dizhu deal, its legal opening moves, a full game between shipped agents."""
    raise NotImplementedError("filled in once the Dou Dizhu engine lands")
