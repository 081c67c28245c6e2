"""The effect vocabulary of yuxi: every card's behaviour is one or more of these, with
parameters taken from the card table (``data/cards.toml``).

Cards are data; the engine only knows this vocabulary, the triggers and the primitives
below. Each effect is registered with the schema of its parameters and the triggers it may
hang on, so :mod:`paiju.yuxi.cards` can reject a bad card file naming the card and field
instead of failing in the middle of a game.

Every effect is called as ``fn(state, owner, cell, **params)``:

* ``state`` is a :class:`~paiju.yuxi.position.Position` (the game's state is one; this module
  never imports the game that runs it);
* ``owner`` is the seat whose card acts;
* ``cell`` is the acting character's cell for ``deploy`` / ``turn_start`` / ``turn_end``,
  the cell it stood on for ``death``, and the spell's target cell for ``cast`` (``-1`` for
  spells without a target).

Resolution order (documented in docs/yuxi-rules.md and relied on by the tests): an effect
visits cells in ascending cell index; damage inside one effect is applied to every target
first and deaths are resolved afterwards by the engine (:func:`resolve_deaths`: lowest
cell first, one at a time, each death's own triggers resolving fully before the next death
is looked for). "Strongest" means most points, ties to the lowest cell index.

The incremental bookkeeping the invariant checker re-derives lives in the primitives: every
point change goes through :func:`boost` / :func:`damage` / :func:`drain` / :func:`halve` /
:func:`destroy` (which keep ``state.score`` equal to the board), and coins are *minted*
(:func:`mint`: printed coins, coin gains, new Coin cards) or *burned* (:func:`burn`:
payments, a played Coin) only through the ledger, while transfers (stealing, bounties,
recycling coins into Coin cards) move coins without touching it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paiju.yuxi.card_types import EffectFn

if TYPE_CHECKING:
    from paiju.yuxi.position import Position

NO_WEATHER, FOG, THUNDER, ICE, EROSION = 0, 1, 2, 3, 4
WEATHER_NAMES = ("clear", "fog", "thunder", "ice", "erosion")
WEATHER_BY_NAME = {name: i for i, name in enumerate(WEATHER_NAMES)}

UNIT_TRIGGERS = frozenset({"deploy", "turn_start", "turn_end"})
"""Triggers whose effects act from a character standing on the board."""
TRIGGERS = ("deploy", "turn_start", "turn_end", "death", "aura", "cast")


# ------------------------------------------------------------------------------------------------
# primitives: the only code that changes points, armour, coins and the board
# ------------------------------------------------------------------------------------------------
def boost(st: Position, cell: int, amount: int) -> None:
    """Raise a character's points (above its starting points: shown green)."""
    if amount and st.card[cell]:
        st.power[cell] += amount
        st.score[st.owner[cell]] += amount
        if st.log is not None:
            st.log.add(st, "boost", cell, amount)


def heal(st: Position, cell: int, amount: int) -> None:
    """Restore lost points, never above the starting points (only red characters heal)."""
    if st.card[cell]:
        gain = min(amount, st.base[cell] - st.power[cell])
        if gain > 0:
            st.power[cell] += gain
            st.score[st.owner[cell]] += gain
            if st.log is not None:
                st.log.add(st, "heal", cell, gain)


def damage(st: Position, cell: int, amount: int) -> None:
    """Armour absorbs damage first; the rest comes off the points (death is resolved later)."""
    if amount <= 0 or not st.card[cell]:
        return
    armour = st.armour[cell]
    if armour:
        absorbed = armour if armour < amount else amount
        st.armour[cell] = armour - absorbed
        amount -= absorbed
        if st.log is not None:
            st.log.add(st, "armour_hit", cell, absorbed)
    if amount:
        st.power[cell] -= amount
        st.score[st.owner[cell]] -= amount
        if st.log is not None:
            st.log.add(st, "damage", cell, amount)


def drain(st: Position, cell: int, amount: int) -> None:
    """Lose points ignoring armour (erosion)."""
    if amount and st.card[cell]:
        st.power[cell] -= amount
        st.score[st.owner[cell]] -= amount
        if st.log is not None:
            st.log.add(st, "drain", cell, amount)


def halve(st: Position, cell: int) -> None:
    """Fog: the points are halved, rounded down (a 1-point character drops to 0 and dies)."""
    if st.card[cell]:
        loss = st.power[cell] - st.power[cell] // 2
        st.power[cell] -= loss
        st.score[st.owner[cell]] -= loss
        if st.log is not None:
            st.log.add(st, "halve", cell, loss)


def add_armour(st: Position, cell: int, amount: int) -> None:
    if amount and st.card[cell]:
        st.armour[cell] += amount
        if st.log is not None:
            st.log.add(st, "armour", cell, amount)


def set_weather(st: Position, cell: int, kind: int) -> None:
    """Put weather on a cell (replacing any); fog arriving on a character halves it."""
    if st.weather[cell] == kind:
        return
    st.weather[cell] = kind
    if st.log is not None:
        st.log.add(st, "weather", cell, kind)
    if kind == FOG and st.card[cell]:
        halve(st, cell)


def mint(st: Position, amount: int) -> None:
    """Coins created from nothing (printed coins, coin gains, a new Coin card)."""
    st.coin_total += amount


def burn(st: Position, amount: int) -> None:
    """Coins leaving the game (payments, a Coin card played)."""
    st.coin_total -= amount


def discount_of(st: Position, player: int) -> int:
    """Total payment discount from ``player``'s aura characters on the board."""
    total = 0
    cards = st.cards
    owner = st.owner
    for cell, cid in enumerate(st.card):
        if cid and owner[cell] == player:
            c = cards[cid]
            assert c is not None  # a non-zero id on the board is a card
            total += c.discount
    return total


def pay(st: Position, player: int, price: int) -> int:
    """Pay ``price`` coins from the purse after the discount; returns what was paid."""
    due = price - discount_of(st, player)
    if due <= 0:
        return 0
    st.purse[player] -= due
    burn(st, due)
    return due


def add_to_hand(st: Position, player: int, card_id: int, *, minted: bool = True) -> None:
    """A derived (void) card appears in ``player``'s hand; a Coin card mints one coin."""
    hand = st.hand[player]
    i = len(hand)
    while i and hand[i - 1] > card_id:
        i -= 1
    hand.insert(i, card_id)
    st.voids[player][card_id] += 1
    if st.log is not None:
        st.log.add(st, "void", -1, card_id, owner=player)
    c = st.cards[card_id]
    assert c is not None  # ids 1..n are cards
    if minted and c.is_coin:
        mint(st, 1)


def remove_unit(st: Position, cell: int) -> tuple[int, int]:
    """Take a character off the board (no triggers); returns (card id, owner)."""
    cid, p = st.card[cell], st.owner[cell]
    st.score[p] -= st.power[cell]
    st.card[cell] = 0
    st.owner[cell] = -1
    st.power[cell] = st.base[cell] = st.armour[cell] = st.coins[cell] = st.cd[cell] = 0
    return cid, p


def destroy(st: Position, cell: int) -> None:
    """A character dies: to its owner's grave, its coins to the *other* player's purse as a
    bounty, then its death triggers resolve from the cell it stood on."""
    coins = st.coins[cell]
    cid, p = remove_unit(st, cell)
    if coins:
        st.purse[1 - p] += coins
    st.grave[p][cid] += 1
    c = st.cards[cid]
    assert c is not None  # remove_unit returns the id of the unit it removed
    log = st.log
    if log is not None:
        log.gone(log.sources[-1], "dies", cell, cid, p, coins)
        if c.on_death:
            log.push(f"{c.key} death")
    for fn, kw in c.on_death:
        fn(st, p, cell, **kw)
    if log is not None and c.on_death:
        log.pop()


def resolve_deaths(st: Position) -> None:
    """Destroy every character at 0 points or less, lowest cell first, one at a time."""
    card, power = st.card, st.power
    n = len(card)
    while True:
        for cell in range(n):
            if card[cell] and power[cell] <= 0:
                destroy(st, cell)
                break
        else:
            return


def _has_title(st: Position, cell: int, title: str) -> bool:
    cid = st.card[cell]
    if not cid:
        return False
    c = st.cards[cid]
    assert c is not None  # a non-zero id on the board is a card
    return not title or title in c.titles


def _strongest(st: Position, cells: tuple[int, ...] | list[int]) -> int:
    """Cell of the character with most points among ``cells`` (ties: lowest cell), or -1."""
    best, best_power = -1, -(10**9)
    for c in cells:  # cells are ascending, so a strict > keeps the lowest index on ties
        if st.card[c] and st.power[c] > best_power:
            best, best_power = c, st.power[c]
    return best


def shape_cells(st: Position, cell: int, shape: str) -> tuple[int, ...]:
    """Cells an area effect covers around ``cell``, ascending."""
    sh = st.shape
    if shape == "cell":
        return (cell,)
    if shape == "adjacent":
        return sh.neighbours[cell]
    if shape == "cross":
        return tuple(sorted((cell, *sh.neighbours[cell])))
    if shape == "row":
        return sh.row_of(cell)
    if shape == "column":
        return sh.column_of(cell)
    if shape == "row_others":
        return tuple(c for c in sh.row_of(cell) if c != cell)
    if shape == "column_others":
        return tuple(c for c in sh.column_of(cell) if c != cell)
    raise ValueError(f"unknown area shape {shape!r}")


SHAPES = ("cell", "adjacent", "cross", "row", "column", "row_others", "column_others")


# ------------------------------------------------------------------------------------------------
# the vocabulary
# ------------------------------------------------------------------------------------------------
def eat_adjacent(st: Position, owner: int, cell: int, title: str) -> None:
    """Destroy the strongest adjacent character bearing ``title`` (either side) and gain its
    points. The points are taken before any fog halving of the eater (the engine halves a
    newcomer in fog only after its deploy effects: 6 eats 8 -> 14 -> 7, never 3 + 8)."""
    me = st.card[cell]
    prey = _strongest(st, [n for n in st.shape.neighbours[cell] if _has_title(st, n, title)])
    if prey < 0:
        return
    gained = st.power[prey]
    if st.log is not None:
        st.log.add(st, "eaten", prey, gained)
    destroy(st, prey)
    if st.card[cell] == me and st.owner[cell] == owner:
        boost(st, cell, gained)


def damage_adjacent_enemies(st: Position, owner: int, cell: int, amount: int) -> None:
    for n in st.shape.neighbours[cell]:
        if st.card[n] and st.owner[n] != owner:
            damage(st, n, amount)


def damage_column_enemies(st: Position, owner: int, cell: int, amount: int) -> None:
    for n in st.shape.column_of(cell):
        if st.card[n] and st.owner[n] != owner:
            damage(st, n, amount)


def damage_target(st: Position, owner: int, cell: int, amount: int, thunder_bonus: int) -> None:
    damage(st, cell, amount + (thunder_bonus if st.weather[cell] == THUNDER else 0))


def damage_area(st: Position, owner: int, cell: int, amount: int, shape: str) -> None:
    for n in shape_cells(st, cell, shape):
        if st.card[n]:
            damage(st, n, amount)


def pay_for_damage(st: Position, owner: int, cell: int, max: int) -> None:
    """Buy up to ``max`` damage at 1 coin each (the discount lowers the price) for the
    strongest adjacent enemy; nothing is paid when no enemy is adjacent."""
    target = _strongest(st, [n for n in st.shape.neighbours[cell] if st.card[n] and st.owner[n] != owner])
    if target < 0:
        return
    bought = min(max, st.purse[owner] + discount_of(st, owner))
    if bought <= 0:
        return
    pay(st, owner, bought)
    damage(st, target, bought)


def boost_adjacent_allies(st: Position, owner: int, cell: int, amount: int, title: str) -> None:
    for n in st.shape.neighbours[cell]:
        if st.owner[n] == owner and _has_title(st, n, title):
            boost(st, n, amount)


def boost_row_allies(st: Position, owner: int, cell: int, amount: int, title: str) -> None:
    for n in st.shape.row_of(cell):
        if n != cell and st.owner[n] == owner and _has_title(st, n, title):
            boost(st, n, amount)


def boost_allies(st: Position, owner: int, cell: int, amount: int, armour: int, title: str) -> None:
    """Every *other* friendly character bearing ``title`` (all of them for a spell)."""
    for n in range(len(st.card)):
        if n != cell and st.owner[n] == owner and _has_title(st, n, title):
            boost(st, n, amount)
            add_armour(st, n, armour)


def boost_self_per_adjacent(st: Position, owner: int, cell: int, title: str, amount: int, side: str) -> None:
    count = 0
    for n in st.shape.neighbours[cell]:
        if _has_title(st, n, title) and (side == "any" or (side == "ally") == (st.owner[n] == owner)):
            count += 1
    boost(st, cell, count * amount)


def armour_adjacent_allies(st: Position, owner: int, cell: int, amount: int) -> None:
    for n in st.shape.neighbours[cell]:
        if st.card[n] and st.owner[n] == owner:
            add_armour(st, n, amount)


def heal_allies(st: Position, owner: int, cell: int, amount: int) -> None:
    for n in range(len(st.card)):
        if st.card[n] and st.owner[n] == owner:
            heal(st, n, amount)


def boost_target(st: Position, owner: int, cell: int, amount: int, armour: int) -> None:
    boost(st, cell, amount)
    add_armour(st, cell, armour)


def weather_adjacent(st: Position, owner: int, cell: int, kind: str, occupant: str) -> None:
    w = WEATHER_BY_NAME[kind]
    for n in st.shape.neighbours[cell]:
        cid = st.card[n]
        if (
            occupant == "any"
            or (occupant == "empty" and not cid)
            or (occupant == "enemy" and cid and st.owner[n] != owner)
            or (occupant == "ally" and cid and st.owner[n] == owner)
        ):
            set_weather(st, n, w)


def weather_area(st: Position, owner: int, cell: int, kind: str, shape: str) -> None:
    w = WEATHER_BY_NAME[kind]
    for n in shape_cells(st, cell, shape):
        set_weather(st, n, w)


def clear_weather_around(st: Position, owner: int, cell: int, gain: int) -> None:
    cleared = 0
    for n in shape_cells(st, cell, "cross"):
        if st.weather[n]:
            st.weather[n] = NO_WEATHER
            cleared += 1
            if st.log is not None:
                st.log.add(st, "clear", n)
    boost(st, cell, cleared * gain)


def empower_on_weather(st: Position, owner: int, cell: int, amount: int) -> None:
    if st.weather[cell]:
        st.weather[cell] = NO_WEATHER
        if st.log is not None:
            st.log.add(st, "clear", cell)
        boost(st, cell, amount)


def add_void(st: Position, owner: int, cell: int, card: int, count: int) -> None:
    for _ in range(count):
        add_to_hand(st, owner, card)


def gain_coins(st: Position, owner: int, cell: int, amount: int) -> None:
    st.purse[owner] += amount
    mint(st, amount)
    if amount and st.log is not None:
        st.log.add(st, "coins", -1, amount, owner=owner)


def gain_coins_per_title(st: Position, owner: int, cell: int, title: str, amount: int, scope: str) -> None:
    """``scope="adjacent"``: characters next to ``cell``, either side; ``"allies"``: every
    friendly character on the board."""
    if scope == "adjacent":
        count = sum(1 for n in st.shape.neighbours[cell] if _has_title(st, n, title))
    else:
        count = sum(1 for n in range(len(st.card)) if st.owner[n] == owner and _has_title(st, n, title))
    gain_coins(st, owner, cell, count * amount)


def steal_adjacent_coins(st: Position, owner: int, cell: int, amount: int) -> None:
    for n in st.shape.neighbours[cell]:
        if st.card[n] and st.owner[n] != owner and st.coins[n]:
            took = min(amount, st.coins[n])
            st.coins[n] -= took
            st.purse[owner] += took
            if st.log is not None:
                st.log.add(st, "steal", n, took)


def recycle_coins(st: Position, owner: int, cell: int, max: int, card: int) -> None:
    """Move up to ``max`` coins carried by your characters (cell order) into Coin cards.

    A transfer, not a payment: the discount aura does not apply and no coin is minted (the
    talk's bug was exactly a discount applied here, creating coins from nothing)."""
    taken = 0
    for n in range(len(st.card)):
        if taken >= max:
            break
        if st.card[n] and st.owner[n] == owner and st.coins[n]:
            took = min(max - taken, st.coins[n])
            st.coins[n] -= took
            taken += took
    for _ in range(taken):
        add_to_hand(st, owner, card, minted=False)


def boost_per_purse(st: Position, owner: int, cell: int, max: int) -> None:
    boost(st, cell, min(max, st.purse[owner]))


def boost_allies_by_coins(st: Position, owner: int, cell: int, title: str) -> None:
    for n in range(len(st.card)):
        if st.owner[n] == owner and _has_title(st, n, title):
            boost(st, n, st.coins[n])


def return_to_deck(st: Position, owner: int, cell: int) -> None:
    """The target goes back to its owner's deck (a void card, which can never be in a deck,
    goes to the grave instead); its coins go to its owner's purse; no death triggers."""
    coins = st.coins[cell]
    if st.log is not None:
        st.log.add(st, "returned", cell, coins)
    cid, p = remove_unit(st, cell)
    st.purse[p] += coins
    c = st.cards[cid]
    assert c is not None  # remove_unit returns the id of the unit it removed
    if c.is_void:
        st.grave[p][cid] += 1
    else:
        st.deck[p][cid] += 1
        st.deck_n[p] += 1


def strike_weathered_enemies(st: Position, owner: int, cell: int, amount: int) -> None:
    for n in range(len(st.card)):
        if st.card[n] and st.owner[n] != owner and st.weather[n]:
            damage(st, n, amount)


def discount(st: Position, owner: int, cell: int, amount: int) -> None:
    """Aura marker: the engine reads the amount through :func:`discount_of`; never called."""
    raise AssertionError("auras are passive; discount() is never resolved as an action")


# ------------------------------------------------------------------------------------------------
# registry with parameter schemas
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    """Schema of one effect parameter: ``kind`` is ``int``, ``title``, ``void_card``, ``coin_card``
    or ``choice`` (with ``choices``)."""

    kind: str
    low: int = 0
    high: int = 20
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class EffectSpec:
    name: str
    fn: EffectFn
    params: dict[str, Param]
    triggers: frozenset[str]
    doc: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


_UNIT = UNIT_TRIGGERS
_ONCE = frozenset({"deploy", "cast", "death"})
"""Triggers that fire at most once per card: the only ones allowed to create void cards."""
_ANY_SOURCE = UNIT_TRIGGERS | {"cast"}
_I = Param("int")
_TITLE = Param("title", choices=())
_TITLE_OR_ANY = Param("title_or_any")

EFFECTS: dict[str, EffectSpec] = {
    spec.name: spec
    for spec in (
        EffectSpec(
            "eat_adjacent",
            eat_adjacent,
            {"title": _TITLE},
            _UNIT,
            "eat the strongest adjacent character with the title (either side), gaining its points",
        ),
        EffectSpec(
            "damage_adjacent_enemies",
            damage_adjacent_enemies,
            {"amount": _I},
            _UNIT,
            "deal damage to each adjacent enemy",
        ),
        EffectSpec(
            "damage_column_enemies",
            damage_column_enemies,
            {"amount": _I},
            _UNIT,
            "deal damage to each enemy in the column",
        ),
        EffectSpec(
            "damage_target",
            damage_target,
            {"amount": _I, "thunder_bonus": _I},
            frozenset({"cast"}),
            "deal damage to the target, more if it stands on thunder",
        ),
        EffectSpec(
            "damage_area",
            damage_area,
            {"amount": _I, "shape": Param("choice", choices=SHAPES)},
            _ANY_SOURCE,
            "deal damage to every character (either side) in an area",
        ),
        EffectSpec(
            "pay_for_damage",
            pay_for_damage,
            {"max": _I},
            _UNIT,
            "buy damage at 1 coin each for the strongest adjacent enemy",
        ),
        EffectSpec(
            "boost_adjacent_allies",
            boost_adjacent_allies,
            {"amount": _I, "title": _TITLE_OR_ANY},
            _UNIT,
            "adjacent friendly characters gain points",
        ),
        EffectSpec(
            "boost_row_allies",
            boost_row_allies,
            {"amount": _I, "title": _TITLE_OR_ANY},
            _UNIT,
            "other friendly characters in the row gain points",
        ),
        EffectSpec(
            "boost_allies",
            boost_allies,
            {"amount": _I, "armour": _I, "title": _TITLE_OR_ANY},
            _ANY_SOURCE,
            "every other friendly character with the title gains points and armour",
        ),
        EffectSpec(
            "boost_self_per_adjacent",
            boost_self_per_adjacent,
            {"title": _TITLE, "amount": _I, "side": Param("choice", choices=("any", "ally", "enemy"))},
            _UNIT,
            "gain points per adjacent character with the title",
        ),
        EffectSpec(
            "armour_adjacent_allies",
            armour_adjacent_allies,
            {"amount": _I},
            _UNIT,
            "adjacent friendly characters gain armour",
        ),
        EffectSpec(
            "heal_allies",
            heal_allies,
            {"amount": _I},
            _ANY_SOURCE,
            "heal every friendly character (not above starting points)",
        ),
        EffectSpec(
            "boost_target",
            boost_target,
            {"amount": _I, "armour": _I},
            frozenset({"cast"}),
            "the target gains points and armour",
        ),
        EffectSpec(
            "weather_adjacent",
            weather_adjacent,
            {
                "kind": Param("choice", choices=WEATHER_NAMES[1:]),
                "occupant": Param("choice", choices=("empty", "enemy", "ally", "any")),
            },
            _UNIT,
            "put weather on adjacent cells (by occupant)",
        ),
        EffectSpec(
            "weather_area",
            weather_area,
            {"kind": Param("choice", choices=WEATHER_NAMES[1:]), "shape": Param("choice", choices=SHAPES)},
            _ANY_SOURCE,
            "put weather on an area",
        ),
        EffectSpec(
            "clear_weather_around",
            clear_weather_around,
            {"gain": _I},
            _UNIT,
            "clear weather from own and adjacent cells, gaining points per cell cleared",
        ),
        EffectSpec(
            "empower_on_weather",
            empower_on_weather,
            {"amount": _I},
            _UNIT,
            "if own cell has weather, clear it and gain points",
        ),
        EffectSpec(
            "add_void",
            add_void,
            {"card": Param("void_card"), "count": Param("int", 1, 5)},
            _ONCE,
            "add void cards to the owner's hand (once per card: never on a timed trigger, so games end)",
        ),
        EffectSpec("gain_coins", gain_coins, {"amount": _I}, _ANY_SOURCE, "gain coins in the purse"),
        EffectSpec(
            "gain_coins_per_title",
            gain_coins_per_title,
            {"title": _TITLE, "amount": _I, "scope": Param("choice", choices=("adjacent", "allies"))},
            _ANY_SOURCE,
            "gain coins per character with the title",
        ),
        EffectSpec(
            "steal_adjacent_coins",
            steal_adjacent_coins,
            {"amount": _I},
            _UNIT,
            "take coins from each adjacent enemy",
        ),
        EffectSpec(
            "recycle_coins",
            recycle_coins,
            {"max": _I, "card": Param("coin_card")},
            frozenset({"deploy"}),
            "turn coins carried by friendly characters into Coin cards",
        ),
        EffectSpec("boost_per_purse", boost_per_purse, {"max": _I}, _UNIT, "gain points per purse coin"),
        EffectSpec(
            "boost_allies_by_coins",
            boost_allies_by_coins,
            {"title": _TITLE},
            _UNIT,
            "friendly characters with the title gain a point per coin carried",
        ),
        EffectSpec(
            "return_to_deck",
            return_to_deck,
            {},
            frozenset({"cast"}),
            "return the target character to its owner's deck",
        ),
        EffectSpec(
            "strike_weathered_enemies",
            strike_weathered_enemies,
            {"amount": _I},
            _ANY_SOURCE,
            "damage every enemy standing on weather",
        ),
        EffectSpec(
            "discount",
            discount,
            {"amount": Param("int", 1, 5)},
            frozenset({"aura"}),
            "aura: the owner's coin payments cost less",
        ),
    )
}
"""Effect name -> spec. Card files may use only these names."""
