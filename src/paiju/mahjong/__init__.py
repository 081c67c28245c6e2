"""Taiwan 16-tile mahjong (no flowers): tiles, engine, tai scoring, shanten, agents.

Light on purpose: importing ``paiju.mahjong`` loads the tile notation and the shanten entry
points only; the engine (``paiju.mahjong.game``), scoring (``paiju.mahjong.scoring``) and the
agents are imported where used.
"""

# The documented one-call API (issue 6): ``paiju.mahjong.shanten("123m456p789s1122z")``.
# This binds the package attribute ``shanten`` to the *function*; the module's other names are
# imported as ``from paiju.mahjong.shanten import discard_options, ...`` (which always works).
# The shanten tables (shipped precomputed) are read at the first query, not at import.
from paiju.mahjong.shanten import effective_tiles, shanten
from paiju.mahjong.tiles import (
    NUM_KINDS,
    Tile,
    format_counts,
    format_tiles,
    from_counts,
    parse_counts,
    parse_kinds,
    parse_tiles,
    to_counts,
)

__all__ = [
    "NUM_KINDS",
    "Tile",
    "effective_tiles",
    "format_counts",
    "format_tiles",
    "from_counts",
    "parse_counts",
    "parse_kinds",
    "parse_tiles",
    "shanten",
    "to_counts",
]
