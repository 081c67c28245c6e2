"""The turn structure of yuxi as the oracle reads it in ``docs/yuxi-rules.md`` §2–§4, §8–§9."""

from __future__ import annotations

from typing import Any

from paiju.yuxi.actions import NO_TARGET, DieRoll, Offer
from paiju.yuxi.oracle.model import DEAL, DIE, FOG, ICE, OFFER, OVER, PLAY, SWAP, Position
from paiju.yuxi.oracle.rules import call_effect, discount, halve_points, pay, settle_deaths, weather_tick

END, KEEP = 0, 1


def run_effects(pos: Position, trigger: str, cid: int, owner: int, cell: int) -> None:
    """A card's effects on ``trigger`` in the listed order, deaths resolved after each (§4, §5.4)."""
    facts = pos.rules.card(cid)
    for name, params in facts.on(trigger):
        call_effect(pos, f"{facts.key} {trigger}: {name}", name, owner, cell, params)
        settle_deaths(pos)


def price(pos: Position, player: int, cid: int) -> int:
    cost = pos.rules.card(cid).cost
    if not cost:
        return 0
    return max(0, cost - discount(pos, player))


def has_target(pos: Position, player: int, target: str) -> bool:
    cells = range(len(pos.card))
    if target in ("cell", "none"):
        return True
    if target == "empty":
        return any(not pos.card[c] for c in cells)
    if target == "character":
        return any(pos.card[c] for c in cells)
    want_mine = target == "ally"
    return any(pos.card[c] and (pos.owner[c] == player) == want_mine for c in cells)


def can_play(pos: Position) -> bool:
    """Anything but *end turn* is legal (§3.3)."""
    p = pos.to_move
    for cid in set(pos.hand[p]):
        facts = pos.rules.card(cid)
        if pos.played and not facts.is_void:
            continue
        if price(pos, p, cid) > pos.purse[p]:
            continue
        if has_target(pos, p, facts.target):
            return True
    return False


def play_card(pos: Position, cid: int, target: int) -> None:
    """§4: pay, leave the hand (a Coin is spent), then the character enters or the spell acts."""
    p = pos.to_move
    facts = pos.rules.card(cid)
    pos.enter(f"{facts.key} payment")
    if facts.cost:
        pay(pos, p, facts.cost)
    pos.touch("hand", p)
    pos.hand[p].remove(cid)
    pos.played = pos.played or not facts.is_void
    pos.acted = True
    pos.skipped = [False, False]
    if facts.is_coin:
        pos.coin_total -= 1
    if not facts.is_character:
        cell = -1 if target == NO_TARGET else target
        run_effects(pos, "cast", cid, p, cell)
        pos.touch("grave", p)
        pos.grave[p][cid] += 1
        return
    pos.enter(f"{facts.key} enters")
    pos.touch("cell", target)
    pos.card[target], pos.owner[target] = cid, p
    pos.power[target] = pos.base[target] = facts.points
    pos.armour[target], pos.coins[target], pos.cd[target] = facts.armour, facts.coins, facts.cooldown
    pos.score[p] += facts.points
    pos.coin_total += facts.coins
    fog_at_entry = pos.weather[target] == FOG
    run_effects(pos, "deploy", cid, p, target)
    if fog_at_entry or pos.weather[target] == FOG:
        # the newcomer's fog rule looks at its cell after everything it did on deploy (§4.3):
        # eat, then halve; a fog it cleared itself never halves it
        pos.enter("fog")
        pos.touch("cell", target)
        if pos.weather[target] == FOG and pos.card[target] == cid and pos.owner[target] == p:
            halve_points(pos, target)
            settle_deaths(pos)


def begin_turn(pos: Position, p: int) -> None:
    """§3.1 timed skills (not on ice), then §3.2 the swap offer when eligible."""
    pos.to_move, pos.played, pos.acted = p, False, False
    pos.turn += 1
    for cell in range(len(pos.card)):
        cid = pos.card[cell]
        if not cid or pos.owner[cell] != p:
            continue
        facts = pos.rules.card(cid)
        if not facts.cooldown:
            continue
        if pos.weather[cell] == ICE:
            pos.enter("ice")  # frozen: the counter stands still, the skill does not fire
            pos.touch("cell", cell)
            continue
        pos.enter(f"{facts.key} cooldown")
        pos.touch("cell", cell)
        pos.cd[cell] -= 1
        if pos.cd[cell] <= 0:
            pos.cd[cell] = facts.cooldown
            run_effects(pos, "turn_start", cid, p, cell)
    deck_left = sum(pos.deck[p])
    has_deck_card = any(not pos.rules.card(c).is_void for c in pos.hand[p])
    if pos.rules.swaps and deck_left and has_deck_card:
        pos.enter("swap offer")
        pos.offer_size = min(4 if len(pos.hand[p]) == 1 else 2, deck_left)
        pos.phase = OFFER
    else:
        pos.phase = PLAY


def end_turn(pos: Position, forced: bool) -> None:
    """§3.4: weather ticks (mover and finished players), turn-end skills, pass/skip, next turn."""
    p = pos.to_move
    for cell in range(len(pos.card)):
        if pos.card[cell] and (pos.owner[cell] == p or pos.out[pos.owner[cell]]):
            weather_tick(pos, cell)
    pos.enter("weather deaths")
    settle_deaths(pos)
    for cell in range(len(pos.card)):
        cid = pos.card[cell]
        if not cid or pos.owner[cell] != p:
            continue
        if pos.weather[cell] == ICE:
            if pos.rules.card(cid).on("turn_end"):
                pos.enter("ice")
                pos.touch("cell", cell)
            continue
        run_effects(pos, "turn_end", cid, p, cell)
    pos.enter("pass/skip")
    q = 1 - p
    if not pos.hand[p] or (not pos.acted and not forced):
        pos.out[p] = True
    elif not pos.acted:
        pos.skipped[p] = True
        if pos.out[q] or pos.skipped[q]:
            pos.out[p] = pos.out[q] = True
    if not pos.out[q]:
        begin_turn(pos, q)
    elif not pos.out[p]:
        begin_turn(pos, p)
    else:
        pos.played = pos.acted = False
        pos.phase = DIE if pos.rules.die_bonus else OVER


def settle(pos: Position) -> None:
    """A turn with nothing playable ends by itself (§3.3)."""
    while pos.phase == PLAY and not can_play(pos):
        end_turn(pos, forced=True)


def apply(pos: Position, action: Any, decode: Any) -> None:
    """Apply ``action`` (``decode``: the game's action-space decoder) to ``pos`` by the rules."""
    if pos.phase == DEAL:
        pos.enter("deal")
        for p in (0, 1):
            pos.hand[p] = sorted(action.hands[p])
            for cid in action.hands[p]:
                pos.deck[p][cid] -= 1
        begin_turn(pos, 0)
    elif pos.phase == OFFER:
        assert isinstance(action, Offer)
        pos.enter("swap offer")
        pos.offer = list(action.cards)
        pos.phase = SWAP
    elif pos.phase == DIE:
        assert isinstance(action, DieRoll)
        pos.enter("die")
        pos.bonus = action.value
        pos.phase = OVER
    elif pos.phase == SWAP:
        _swap(pos, int(action), decode)
    elif int(action) == END:
        pos.enter("end turn")
        end_turn(pos, forced=False)
    else:
        _, cid, target = decode(int(action))
        play_card(pos, cid, target)
    settle(pos)


def _swap(pos: Position, action: int, decode: Any) -> None:
    pos.enter("swap")
    p = pos.to_move
    if action != KEEP:
        _, slot, give = decode(action)
        take = pos.offer[slot]
        pos.touch("hand", p)
        pos.touch("deck", p)
        pos.hand[p].remove(give)
        pos.hand[p].append(take)
        pos.hand[p].sort()
        pos.deck[p][give] += 1
        pos.deck[p][take] -= 1
    pos.offer, pos.offer_size, pos.phase = [], 0, PLAY
