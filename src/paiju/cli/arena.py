"""`paiju arena`: matches between agent line-ups (owned by the arena/records work)."""

from __future__ import annotations


def arena() -> None:
    """Play matches between agents with seat rotation; WP and ADP with 95% intervals."""
    raise NotImplementedError("filled in by the arena work")
