"""The rules of yuxi as the oracle reads them in ``docs/yuxi-rules.md`` §4–§7.

Every function works on a :class:`~paiju.yuxi.oracle.model.Position` and records, through
``pos.touch``, every cell and purse it visits — also where the rule leaves it unchanged (a
heal at the cap, armour that absorbs everything) — so a wrong result can be traced to the
rule that last looked at it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paiju.yuxi.oracle.model import (
    CLEAR,
    EROSION,
    EROSION_DRAIN,
    FOG,
    THUNDER,
    THUNDER_DAMAGE,
    Position,
    board_view,
)

# ---- points, damage, death (§5) ----------------------------------------------------------------


def gain(pos: Position, cell: int, amount: int) -> None:
    """Points up (boosted above the starting points is allowed)."""
    pos.touch("cell", cell)
    if pos.card[cell]:
        pos.power[cell] += amount
        pos.score[pos.owner[cell]] += amount


def hurt(pos: Position, cell: int, amount: int) -> None:
    """Damage: armour absorbs first, the rest comes off the points (§5.2)."""
    pos.touch("cell", cell)
    if not pos.card[cell] or amount <= 0:
        return
    absorbed = min(pos.armour[cell], amount)
    pos.armour[cell] -= absorbed
    lost = amount - absorbed
    pos.power[cell] -= lost
    pos.score[pos.owner[cell]] -= lost


def lose(pos: Position, cell: int, amount: int) -> None:
    """Draining ignores armour (§5.2)."""
    pos.touch("cell", cell)
    if pos.card[cell]:
        pos.power[cell] -= amount
        pos.score[pos.owner[cell]] -= amount


def heal_to_cap(pos: Position, cell: int, amount: int) -> None:
    """Only a damaged character heals, never above its starting points (§5.1)."""
    pos.touch("cell", cell)
    if pos.card[cell]:
        up = max(0, min(amount, pos.base[cell] - pos.power[cell]))
        pos.power[cell] += up
        pos.score[pos.owner[cell]] += up


def halve_points(pos: Position, cell: int) -> None:
    """Fog halves points, rounding down (§5.2, §6)."""
    pos.touch("cell", cell)
    if pos.card[cell]:
        new = pos.power[cell] // 2
        pos.score[pos.owner[cell]] -= pos.power[cell] - new
        pos.power[cell] = new


def vacate(pos: Position, cell: int) -> tuple[int, int, int]:
    """Take the character off its cell; returns (card id, owner, coins carried)."""
    pos.touch("cell", cell)
    cid, p, coins = pos.card[cell], pos.owner[cell], pos.coins[cell]
    pos.score[p] -= pos.power[cell]
    pos.card[cell], pos.owner[cell] = 0, -1
    pos.power[cell] = pos.base[cell] = pos.armour[cell] = pos.coins[cell] = pos.cd[cell] = 0
    return cid, p, coins


def die(pos: Position, cell: int) -> None:
    """Death (§5.3): to the owner's grave, carried coins to the other player, death effects."""
    outer = pos.context
    pos.context = "death"
    cid, p, coins = vacate(pos, cell)
    pos.touch("grave", p)
    pos.grave[p][cid] += 1
    if coins:
        pos.touch("purse", 1 - p)
        pos.purse[1 - p] += coins
    facts = pos.rules.card(cid)
    for name, params in facts.on("death"):
        call_effect(pos, f"{facts.key} death: {name}", name, p, cell, params)
    pos.context = outer


def call_effect(pos: Position, label: str, name: str, owner: int, cell: int, params: dict[str, Any]) -> None:
    """Apply one effect, recording the board before and after it (``pos.trace``)."""
    pos.enter(label)
    before = board_view(pos)
    EFFECTS[name](pos, owner, cell, params)
    pos.trace.append((label, name, before, board_view(pos)))


def settle_deaths(pos: Position) -> None:
    """After each effect: destroy the dead one at a time, lowest cell first (§5.4)."""
    while True:
        dead = [c for c in range(len(pos.card)) if pos.card[c] and pos.power[c] <= 0]
        if not dead:
            return
        die(pos, dead[0])


def titled(pos: Position, cell: int, title: str) -> bool:
    cid = pos.card[cell]
    return bool(cid) and (title == "" or title in pos.rules.card(cid).titles)


def strongest(pos: Position, cells: list[int]) -> int:
    """Most points; ties to the lowest cell (§5.5); -1 if none."""
    live = [c for c in cells if pos.card[c]]
    if not live:
        return -1
    top = max(pos.power[c] for c in live)
    return min(c for c in live if pos.power[c] == top)


def area(pos: Position, cell: int, shape: str) -> list[int]:
    geo = pos.rules.geo
    if shape == "cell":
        return [cell]
    if shape == "adjacent":
        return list(geo.neighbours[cell])
    if shape == "cross":
        return sorted([cell, *geo.neighbours[cell]])
    if shape in ("row", "row_others"):
        return [c for c in geo.row(cell) if shape == "row" or c != cell]
    if shape in ("column", "column_others"):
        return [c for c in geo.column(cell) if shape == "column" or c != cell]
    raise ValueError(f"oracle: unknown area {shape!r}")


def enemies(pos: Position, owner: int, cells: list[int] | tuple[int, ...]) -> list[int]:
    return [c for c in cells if pos.card[c] and pos.owner[c] != owner]


def allies(pos: Position, owner: int, cells: list[int] | tuple[int, ...]) -> list[int]:
    return [c for c in cells if pos.card[c] and pos.owner[c] == owner]


# ---- coins (§7) ---------------------------------------------------------------------------------


def discount(pos: Position, player: int) -> int:
    return sum(pos.rules.card(c).discount for i, c in enumerate(pos.card) if c and pos.owner[i] == player)


def pay(pos: Position, player: int, amount: int) -> None:
    """A payment, less the discount, never below 0; the coins leave the game."""
    off = discount(pos, player)
    if off:
        pos.events.append("discount")  # coverage: a payment the aura lowered
    due = max(0, amount - off)
    pos.touch("purse", player)
    pos.purse[player] -= due
    pos.coin_total -= due


def new_coins(pos: Position, player: int, amount: int) -> None:
    pos.touch("purse", player)
    pos.purse[player] += amount
    pos.coin_total += amount


def to_hand(pos: Position, player: int, cid: int, *, created: bool = True) -> None:
    """A void card appears in a hand; a Coin card from an effect other than recycling is a new coin."""
    pos.touch("hand", player)
    pos.hand[player].append(cid)
    pos.hand[player].sort()
    pos.voids[player][cid] += 1
    if created and pos.rules.card(cid).is_coin:
        pos.coin_total += 1


# ---- weather (§6) -------------------------------------------------------------------------------


def put_weather(pos: Position, cell: int, kind: int) -> None:
    """Weather replaces weather; fog *arriving* on a character halves it (not fog on fog)."""
    pos.touch("cell", cell)
    if pos.weather[cell] == kind:
        return
    pos.weather[cell] = kind
    if kind == FOG and pos.card[cell]:
        pos.events.append("fog")  # coverage only: the halving belongs to the effect bringing fog
        halve_points(pos, cell)


def weather_tick(pos: Position, cell: int) -> None:
    """End of turn on a weathered character: thunder 2 damage, erosion 1 point (§3.4, §6)."""
    w = pos.weather[cell]
    if w == THUNDER:
        pos.enter("thunder")
        hurt(pos, cell, THUNDER_DAMAGE)
    elif w == EROSION:
        pos.enter("erosion")
        lose(pos, cell, EROSION_DRAIN)


# ---- the effect vocabulary, read from the card texts of §13 --------------------------------------
Params = dict[str, Any]


def eat_adjacent(pos: Position, owner: int, cell: int, kw: Params) -> None:
    me = pos.card[cell]
    near = list(pos.rules.geo.neighbours[cell])
    for n in near:
        pos.touch("cell", n)
    prey = strongest(pos, [n for n in near if titled(pos, n, kw["title"])])
    if prey < 0:
        return
    eaten = pos.power[prey]
    die(pos, prey)
    if pos.card[cell] == me and pos.owner[cell] == owner:
        gain(pos, cell, eaten)


def damage_adjacent_enemies(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in enemies(pos, owner, pos.rules.geo.neighbours[cell]):
        hurt(pos, n, kw["amount"])


def damage_column_enemies(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in enemies(pos, owner, pos.rules.geo.column(cell)):
        hurt(pos, n, kw["amount"])


def damage_target(pos: Position, owner: int, cell: int, kw: Params) -> None:
    hurt(pos, cell, kw["amount"] + (kw["thunder_bonus"] if pos.weather[cell] == THUNDER else 0))


def damage_area(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in area(pos, cell, kw["shape"]):
        if pos.card[n]:
            hurt(pos, n, kw["amount"])


def pay_for_damage(pos: Position, owner: int, cell: int, kw: Params) -> None:
    """Bounty Hunter: up to ``max`` damage at 1 coin each, the discount lowering the total."""
    target = strongest(pos, enemies(pos, owner, pos.rules.geo.neighbours[cell]))
    pos.touch("purse", owner)
    if target < 0:
        return
    bought = min(kw["max"], pos.purse[owner] + discount(pos, owner))
    if bought > 0:
        pay(pos, owner, bought)
        hurt(pos, target, bought)


def boost_adjacent_allies(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in allies(pos, owner, pos.rules.geo.neighbours[cell]):
        if titled(pos, n, kw["title"]):
            gain(pos, n, kw["amount"])


def boost_row_allies(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in allies(pos, owner, area(pos, cell, "row_others")):
        if titled(pos, n, kw["title"]):
            gain(pos, n, kw["amount"])


def boost_allies(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in allies(pos, owner, list(range(len(pos.card)))):
        if n != cell and titled(pos, n, kw["title"]):
            gain(pos, n, kw["amount"])
            pos.armour[n] += kw["armour"]


def boost_self_per_adjacent(pos: Position, owner: int, cell: int, kw: Params) -> None:
    side = kw["side"]
    count = 0
    for n in pos.rules.geo.neighbours[cell]:
        mine = pos.owner[n] == owner
        if titled(pos, n, kw["title"]) and (side == "any" or mine == (side == "ally")):
            count += 1
    gain(pos, cell, count * kw["amount"])


def armour_adjacent_allies(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in allies(pos, owner, pos.rules.geo.neighbours[cell]):
        pos.touch("cell", n)
        pos.armour[n] += kw["amount"]


def heal_allies(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in allies(pos, owner, list(range(len(pos.card)))):
        heal_to_cap(pos, n, kw["amount"])


def boost_target(pos: Position, owner: int, cell: int, kw: Params) -> None:
    gain(pos, cell, kw["amount"])
    if pos.card[cell]:
        pos.armour[cell] += kw["armour"]


def weather_adjacent(pos: Position, owner: int, cell: int, kw: Params) -> None:
    kind = WEATHER_CODES[kw["kind"]]
    occupant = kw["occupant"]
    for n in pos.rules.geo.neighbours[cell]:
        who = "empty" if not pos.card[n] else ("ally" if pos.owner[n] == owner else "enemy")
        if occupant in ("any", who):
            put_weather(pos, n, kind)


def weather_area(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in area(pos, cell, kw["shape"]):
        put_weather(pos, n, WEATHER_CODES[kw["kind"]])


def clear_weather_around(pos: Position, owner: int, cell: int, kw: Params) -> None:
    cleared = 0
    for n in area(pos, cell, "cross"):
        pos.touch("cell", n)
        if pos.weather[n] != CLEAR:
            pos.weather[n] = CLEAR
            cleared += 1
    gain(pos, cell, cleared * kw["gain"])


def empower_on_weather(pos: Position, owner: int, cell: int, kw: Params) -> None:
    pos.touch("cell", cell)
    if pos.weather[cell] != CLEAR:
        pos.weather[cell] = CLEAR
        gain(pos, cell, kw["amount"])


def add_void(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for _ in range(kw["count"]):
        to_hand(pos, owner, kw["card"])


def gain_coins(pos: Position, owner: int, cell: int, kw: Params) -> None:
    new_coins(pos, owner, kw["amount"])


def gain_coins_per_title(pos: Position, owner: int, cell: int, kw: Params) -> None:
    if kw["scope"] == "adjacent":
        count = sum(titled(pos, n, kw["title"]) for n in pos.rules.geo.neighbours[cell])
    else:
        count = sum(titled(pos, n, kw["title"]) for n in allies(pos, owner, list(range(len(pos.card)))))
    new_coins(pos, owner, count * kw["amount"])


def steal_adjacent_coins(pos: Position, owner: int, cell: int, kw: Params) -> None:
    pos.touch("purse", owner)
    for n in enemies(pos, owner, pos.rules.geo.neighbours[cell]):
        pos.touch("cell", n)
        took = min(kw["amount"], pos.coins[n])
        pos.coins[n] -= took
        pos.purse[owner] += took


def recycle_coins(pos: Position, owner: int, cell: int, kw: Params) -> None:
    """Treasurer: carried coins become Coin cards — a transfer: no discount, no new coin."""
    left = kw["max"]
    taken = 0
    for n in allies(pos, owner, list(range(len(pos.card)))):
        pos.touch("cell", n)
        took = min(left - taken, pos.coins[n])
        pos.coins[n] -= took
        taken += took
    for _ in range(taken):
        to_hand(pos, owner, kw["card"], created=False)


def boost_per_purse(pos: Position, owner: int, cell: int, kw: Params) -> None:
    pos.touch("purse", owner)
    gain(pos, cell, min(kw["max"], pos.purse[owner]))


def boost_allies_by_coins(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in allies(pos, owner, list(range(len(pos.card)))):
        if titled(pos, n, kw["title"]):
            gain(pos, n, pos.coins[n])


def return_to_deck(pos: Position, owner: int, cell: int, kw: Params) -> None:
    """Undertow: back to its owner's deck (a void card to the grave), coins to its owner."""
    cid, p, coins = vacate(pos, cell)
    pos.touch("purse", p)
    pos.touch("deck", p)
    pos.purse[p] += coins
    if pos.rules.card(cid).is_void:
        pos.grave[p][cid] += 1
    else:
        pos.deck[p][cid] += 1


def strike_weathered_enemies(pos: Position, owner: int, cell: int, kw: Params) -> None:
    for n in enemies(pos, owner, list(range(len(pos.card)))):
        if pos.weather[n] != CLEAR:
            hurt(pos, n, kw["amount"])


WEATHER_CODES = {"fog": FOG, "thunder": THUNDER, "ice": 3, "erosion": EROSION}

Effect = Callable[[Position, int, int, Params], None]
EFFECTS: dict[str, Effect] = {
    fn.__name__: fn
    for fn in (
        eat_adjacent,
        damage_adjacent_enemies,
        damage_column_enemies,
        damage_target,
        damage_area,
        pay_for_damage,
        boost_adjacent_allies,
        boost_row_allies,
        boost_allies,
        boost_self_per_adjacent,
        armour_adjacent_allies,
        heal_allies,
        boost_target,
        weather_adjacent,
        weather_area,
        clear_weather_around,
        empower_on_weather,
        add_void,
        gain_coins,
        gain_coins_per_title,
        steal_adjacent_coins,
        recycle_coins,
        boost_per_purse,
        boost_allies_by_coins,
        return_to_deck,
        strike_weathered_enemies,
    )
}
"""The oracle's reading of every effect the card table may use (auras are read as discounts)."""
