"""The oracle's own view of a position and of the card table (plain data, no engine code).

:class:`Position` is a copy of a state's public attributes; :class:`Rules` holds what the
card table prints (points, armour, coins, cost, cooldown, titles, target, void, effects by
trigger) read from the table's :class:`Card` records by attribute, plus the board geometry
recomputed from the board's width and height.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

# weather codes as the state stores them (docs/yuxi-rules.md §6; the invariant checker's
# ``weather`` family names the same five)
CLEAR, FOG, THUNDER, ICE, EROSION = 0, 1, 2, 3, 4
WEATHER_NAMES = ("clear", "fog", "thunder", "ice", "erosion")
THUNDER_DAMAGE = 2
EROSION_DRAIN = 1
# phases as the state stores them (paiju.yuxi.phases.Phase)
DEAL, OFFER, SWAP, PLAY, DIE, OVER = range(6)


@dataclass(frozen=True)
class CardFacts:
    """One card as printed (docs §1), effects as (trigger, effect name, params) in order."""

    id: int
    key: str
    is_character: bool
    is_void: bool
    is_coin: bool
    points: int
    armour: int
    coins: int
    cost: int
    cooldown: int
    titles: frozenset[str]
    target: str
    effects: tuple[tuple[str, str, dict[str, Any]], ...]
    discount: int
    """Sum of the card's aura discounts (docs §7)."""

    def on(self, trigger: str) -> list[tuple[str, dict[str, Any]]]:
        return [(name, params) for trig, name, params in self.effects if trig == trigger]


@dataclass(frozen=True)
class Geometry:
    width: int
    height: int
    neighbours: tuple[tuple[int, ...], ...]

    @property
    def cells(self) -> int:
        return self.width * self.height

    def row(self, cell: int) -> tuple[int, ...]:
        r = cell // self.width
        return tuple(range(r * self.width, (r + 1) * self.width))

    def column(self, cell: int) -> tuple[int, ...]:
        c = cell % self.width
        return tuple(r * self.width + c for r in range(self.height))

    def name(self, cell: int) -> str:
        r, c = divmod(cell, self.width)
        return f"{'abcdef'[c]}{r + 1}"


def geometry(width: int, height: int) -> Geometry:
    """Orthogonal adjacency on a ``width`` × ``height`` grid, numbered row by row (docs §1)."""
    nbrs = []
    for cell in range(width * height):
        r, c = divmod(cell, width)
        near = [(r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c)]
        nbrs.append(tuple(sorted(rr * width + cc for rr, cc in near if 0 <= rr < height and 0 <= cc < width)))
    return Geometry(width, height, tuple(nbrs))


@dataclass(frozen=True)
class Rules:
    """Everything the oracle knows about a room: cards by id, geometry, options, deck lists."""

    cards: tuple[CardFacts | None, ...]
    geo: Geometry
    swaps: bool
    die_bonus: bool
    void_ids: frozenset[int]

    def card(self, cid: int) -> CardFacts:
        c = self.cards[cid]
        assert c is not None, f"card id {cid}"
        return c


_RULES: weakref.WeakKeyDictionary[Any, Rules] = weakref.WeakKeyDictionary()


def rules_of(game: Any) -> Rules:
    """The oracle's rules for a game object (read through public attributes; cached)."""
    found = _RULES.get(game)
    if found is None:
        found = _RULES[game] = _read_rules(game)
    return found


def _read_rules(game: Any) -> Rules:
    table = game.table
    by_key = {c.key: c.id for c in table.cards if c is not None}
    facts: list[CardFacts | None] = [None]
    for c in table.cards[1:]:
        effects = []
        discount = 0
        for ref in c.effects:
            params = dict(ref.params)
            if "card" in params and isinstance(params["card"], str):
                params["card"] = by_key[params["card"]]
            if ref.trigger == "aura":
                discount += int(params.get("amount", 0))
            effects.append((ref.trigger, ref.effect, params))
        facts.append(
            CardFacts(
                id=c.id,
                key=c.key,
                is_character=c.kind == "character",
                is_void=c.rarity == "void",
                is_coin="coin" in c.titles,
                points=c.points,
                armour=c.armour,
                coins=c.coins,
                cost=c.cost,
                cooldown=c.cooldown,
                titles=frozenset(c.titles),
                target="empty" if c.kind == "character" else c.target,
                effects=tuple(effects),
                discount=discount,
            )
        )
    shape = game.shape
    return Rules(
        cards=tuple(facts),
        geo=geometry(shape.width, shape.height),
        swaps=bool(game.config.swaps),
        die_bonus=bool(game.config.die_bonus),
        void_ids=frozenset(c.id for c in facts if c is not None and c.is_void),
    )


View = tuple[tuple[Any, ...], ...]


def board_view(st: Any) -> View:
    """What an effect can change, as one comparable value (engine state or Position alike)."""
    return (
        tuple(st.card),
        tuple(st.owner),
        tuple(st.power),
        tuple(st.armour),
        tuple(st.coins),
        tuple(st.cd),
        tuple(st.weather),
        tuple(st.purse),
        tuple(st.hand[0]),
        tuple(st.hand[1]),
    )


VIEW_FIELDS = ("card", "owner", "power", "armour", "coins", "cd", "weather", "purse", "hand 0", "hand 1")
CELL_FIELDS = ("card", "owner", "power", "base", "armour", "coins", "cd", "weather")
PLAYER_FIELDS = ("hand", "deck", "grave", "voids", "purse", "score", "out", "skipped")
SCALAR_FIELDS = ("phase", "to_move", "played", "acted", "turn", "bonus", "offer", "offer_size", "coin_total")


@dataclass
class Position:
    """A plain copy of a state's public attributes, and the oracle's trace while it works."""

    rules: Rules
    card: list[int]
    owner: list[int]
    power: list[int]
    base: list[int]
    armour: list[int]
    coins: list[int]
    cd: list[int]
    weather: list[int]
    hand: list[list[int]]
    deck: list[list[int]]
    grave: list[list[int]]
    voids: list[list[int]]
    purse: list[int]
    score: list[int]
    out: list[bool]
    skipped: list[bool]
    phase: int
    to_move: int
    played: bool
    acted: bool
    turn: int
    bonus: int
    offer: list[int]
    offer_size: int
    coin_total: int
    context: str = "step"
    """The rule being applied now (``"reef_crab deploy: eat_adjacent"``, ``"fog"``, ...)."""
    touched: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    """For each cell (``("cell", i)``) or player part (``("purse", p)``...): the rules that
    visited it, in order (the last is the one named when it comes out wrong)."""
    events: list[str] = field(default_factory=list)
    trace: list[tuple[str, str, View, View]] = field(default_factory=list)
    """Every effect applied: (rule, effect name, board view before, after) — the engine
    records the same when the rules are checked, so the first effect that differs is named."""

    def touch(self, kind: str, index: int) -> None:
        seen = self.touched.setdefault((kind, index), [])
        if not seen or seen[-1] != self.context:
            seen.append(self.context)

    def enter(self, context: str) -> None:
        self.context = context
        self.events.append(context)


def snapshot(state: Any) -> Position:
    """Copy ``state``'s public attributes into a :class:`Position`."""
    return Position(
        rules=rules_of(state.game),
        card=list(state.card),
        owner=list(state.owner),
        power=list(state.power),
        base=list(state.base),
        armour=list(state.armour),
        coins=list(state.coins),
        cd=list(state.cd),
        weather=list(state.weather),
        hand=[list(h) for h in state.hand],
        deck=[list(d) for d in state.deck],
        grave=[list(g) for g in state.grave],
        voids=[list(v) for v in state.voids],
        purse=list(state.purse),
        score=list(state.score),
        out=list(state.out),
        skipped=list(getattr(state, "skipped", [False, False])),
        phase=int(state.phase),
        to_move=int(state.to_move),
        played=bool(state.played),
        acted=bool(state.acted),
        turn=int(state.turn),
        bonus=int(state.bonus),
        offer=list(state.offer),
        offer_size=int(state.offer_size),
        coin_total=int(state.coin_total),
    )
