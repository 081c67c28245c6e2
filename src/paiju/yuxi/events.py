"""What happened in a yuxi step, for people: the event log and its sentences.

The engine records events only into a state whose ``log`` is an :class:`EventLog` (the web
app's game, ``paiju yuxi play``); every other state has ``log = None``, its clones too, so
search and self-play run exactly as before and record nothing. The primitives of
:mod:`paiju.yuxi.effects` add one event per change they make (points, armour, weather,
coins, a character leaving the board, a card appearing in a hand), each under the *source*
the engine names while it resolves a trigger (``reef_crab deploy``, ``thunder``,
``sea_urchin death``, ...), so a character that vanishes is explained: eaten, killed by
thunder, returned to its deck.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

RULES = "the rules"
"""The source of what no card caused (a turn that ends by itself, a finished player, the die)."""


class Cells(Protocol):
    """What the log reads of a position (:class:`paiju.yuxi.position.Position`, which holds the
    log and so is not imported here): the card id, owner and points on each cell."""

    @property
    def card(self) -> Sequence[int]: ...

    @property
    def owner(self) -> Sequence[int]: ...

    @property
    def power(self) -> Sequence[int]: ...


@dataclass(frozen=True)
class Event:
    """One change: ``what`` happened to the character ``card`` of seat ``owner`` on ``cell``
    (``amount``: points, armour or coins; ``after``: its points afterwards), caused by
    ``source``."""

    source: str
    what: str
    cell: int = -1
    card: int = 0
    owner: int = -1
    amount: int = 0
    after: int = 0


class EventLog:
    """The events of the steps applied to one state (see the module docstring)."""

    __slots__ = ("events", "sources")

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.sources: list[str] = [RULES]

    def push(self, source: str) -> None:
        self.sources.append(source)

    def pop(self) -> None:
        self.sources.pop()

    def add(self, st: Cells, what: str, cell: int = -1, amount: int = 0, *, owner: int = -1) -> None:
        card = st.card[cell] if cell >= 0 else 0
        if cell >= 0 and owner < 0:
            owner = st.owner[cell]
        after = st.power[cell] if cell >= 0 else 0
        self.events.append(Event(self.sources[-1], what, cell, card, owner, amount, after))

    def gone(self, source: str, what: str, cell: int, card: int, owner: int, amount: int = 0) -> None:
        """A character that has left the board (its cell is already empty)."""
        self.events.append(Event(source, what, cell, card, owner, amount, 0))

    def take(self) -> list[Event]:
        """The events since the last call, and forget them."""
        out, self.events = self.events, []
        return out


def describe(
    events: Sequence[Event],
    card_name: Callable[[int], str],
    cell_name: Callable[[int], str],
    seat_name: Callable[[int], str],
    source_name: Callable[[str], str] = str,
) -> list[str]:
    """One sentence per source, in order (``"thunder: pearl_diver (B, b2) -2 → 0 pts"``);
    ``source_name`` rewrites a source (the web app names the card in ``reef_crab deploy``)."""
    lines: list[str] = []
    source = None
    parts: list[str] = []
    eaten: set[int] = set()
    hurt: dict[int, str] = {}  # cell -> the source of its last loss of points: what killed it
    for e in events:
        text = _phrase(e, card_name, cell_name, seat_name, eaten, hurt)
        if text is None:
            continue
        if e.source != source and parts:
            lines.append(_line(source, parts, source_name))
            parts = []
        source = e.source
        parts.append(text)
    if parts:
        lines.append(_line(source, parts, source_name))
    return lines


def _line(source: str | None, parts: list[str], source_name: Callable[[str], str]) -> str:
    if source is None or source == RULES:  # a turn's end, the die: no card to name
        return "; ".join(parts)
    return f"{source_name(source)}: {'; '.join(parts)}"


_PHRASES = {
    "damage": "{who} -{amount} → {after} pts",
    "armour_hit": "{who}'s armour absorbs {amount}",
    "drain": "{who} -{amount} → {after} pts (ignoring armour)",
    "halve": "{who} halved by fog -{amount} → {after} pts",
    "boost": "{who} +{amount} → {after} pts",
    "heal": "{who} heals +{amount} → {after} pts",
    "armour": "{who} +{amount} armour",
    "weather": "{cell} gets {weather}",
    "clear": "{cell}'s weather clears",
    "eaten": "eats {who}, gaining its {amount} pts",
    "dies": "{who} dies{killer}{bounty}",
    "returned": "{who} goes back to its owner's deck",
    "void": "{seat}: a {card} card into the hand",
    "coins": "{seat}: +${amount} to the purse",
    "steal": "takes ${amount} from {who}",
    "skip": "{seat}: nothing to play, the turn ends by itself",
    "finished": "{seat}: finished (no more turns)",
    "die": "the bonus die shows {amount}: +{amount} for {seat}",
}
"""Each event kind in words (``who``: the character, its owner and cell)."""
_WEATHER = ("no weather", "fog", "thunder", "ice", "erosion")


def _phrase(
    e: Event,
    card_name: Callable[[int], str],
    cell_name: Callable[[int], str],
    seat_name: Callable[[int], str],
    eaten: set[int],
    hurt: dict[int, str],
) -> str | None:
    template = _PHRASES.get(e.what)
    if e.what in ("damage", "drain", "halve"):
        hurt[e.cell] = e.source
    killer = hurt.pop(e.cell, e.source) if e.what == "dies" else e.source
    if template is None:
        return None
    if e.what == "eaten":
        eaten.add(e.cell)
    elif e.what == "dies" and e.cell in eaten:
        eaten.discard(e.cell)
        return None  # "eats ..." has said it
    who = f"{card_name(e.card)} ({seat_name(e.owner)}, {cell_name(e.cell)})" if e.card else ""
    return template.format(
        who=who,
        amount=e.amount,
        after=e.after,
        cell=cell_name(e.cell) if e.cell >= 0 else "",
        seat=seat_name(e.owner) if e.owner >= 0 else "",
        card=card_name(e.amount) if e.what == "void" else "",
        weather=_WEATHER[e.amount] if e.what == "weather" else "",
        killer="" if killer == e.source else f", killed by {killer}",
        # a dead character's coins go to the other seat as a bounty (rules: destroy)
        bounty=f" (its ${e.amount} go to {seat_name(1 - e.owner)})" if e.what == "dies" and e.amount else "",
    )
