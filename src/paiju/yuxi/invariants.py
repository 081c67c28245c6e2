"""The invariant checker: everything that must hold after every action of a yuxi game.

Each invariant re-derives a quantity from the raw state independently of the incremental
bookkeeping the engine keeps (the talk's point: self-play finds rule bugs only if something
checks the arithmetic). Tests run it on every step; self-play and the audit switch it on
with ``YuxiGame(..., check_invariants=True)``.

Invariants (names as reported):

``board``            an empty cell holds nothing (owner -1, all numbers 0); an occupied cell a
                     character of seat 0/1 whose starting points are its printed points
``alive``            every character on the board has at least 1 point (deaths were resolved)
``non_negative``     armour, carried coins and purses are never negative
``cooldown``         a character with a timed skill has 1 <= cooldown <= its period; others 0
``score``            each player's incremental score equals the sum of their characters' points
``cards``            card conservation: for every deck card and player, hand + deck + board +
                     grave equals the copies in that player's fixed deck; deck sizes add up
``voids``            every void card created is in a hand, on the board or in a grave, never a deck
``coin_ledger``      coins minted minus burned equals purses + carried coins + Coin cards in hands
``weather``          every cell's weather is one of clear/fog/thunder/ice/erosion
``hands``            hands are sorted and never hold more deck cards than were dealt
``phase``            the turn structure is coherent (offer only while swapping, the player to
                     move is still in the game, the game is over only when both are finished, the
                     die bonus only after the game, in 1..6)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from paiju.yuxi.phases import PH_DIE, PH_OVER, PH_PLAY, PH_SWAP

if TYPE_CHECKING:
    from paiju.yuxi.position import Position


class InvariantViolation(AssertionError):
    """An invariant failed: a rules-engine bug (not bad input, hence not a PaijuError)."""

    def __init__(self, invariant: str, detail: str, effect: str | None = None) -> None:
        super().__init__(f"yuxi invariant {invariant!r} violated: {detail}")
        self.invariant = invariant
        self.detail = detail
        self.effect = effect
        """The rule at fault when the rules oracle could name it (``paiju.yuxi.oracle``)."""


def check_invariants(st: Position) -> None:
    """Raise :class:`InvariantViolation` naming the first invariant that fails."""
    # the families run in a fixed order, so the invariant reported is always the first failing one;
    # the board walk comes first because the score and card families check against its tallies
    tally = _check_board(st)
    _check_purses_and_scores(st, tally)
    for p in (0, 1):
        _check_hand_and_cards(st, p, tally.on_board[p])
    _check_coin_ledger(st)
    _check_swap_offer(st)
    _check_turn_and_die(st)


def _fail(invariant: str, detail: str) -> NoReturn:
    raise InvariantViolation(invariant, detail)


@dataclass
class _BoardTally:
    """What the board holds, counted cell by cell (independently of the engine's bookkeeping)."""

    score: list[int]
    """Points of each player's characters on the board."""
    on_board: list[list[int]]
    """Copies of each card id each player has on the board."""


def _check_board(st: Position) -> _BoardTally:
    """``board``, ``alive``, ``non_negative`` (carried), ``cooldown`` and ``weather``, cell by cell."""
    ids = len(st.cards)
    tally = _BoardTally([0, 0], [[0] * ids, [0] * ids])
    for i in range(st.shape.cells):
        cid = st.card[i]
        where = f"cell {st.shape.cell_name(i)}"
        if not cid:
            _check_empty_cell(st, i, where)
        else:
            _check_character_cell(st, i, where, ids)
            tally.score[st.owner[i]] += st.power[i]
            tally.on_board[st.owner[i]][cid] += 1
        if not 0 <= st.weather[i] <= 4:
            _fail("weather", f"{where} has weather code {st.weather[i]}")
    return tally


def _check_empty_cell(st: Position, i: int, where: str) -> None:
    if st.owner[i] != -1 or st.power[i] or st.base[i] or st.armour[i] or st.coins[i] or st.cd[i]:
        _fail(
            "board",
            f"{where} is empty but holds owner/points/armour/coins/cooldown "
            f"{(st.owner[i], st.power[i], st.armour[i], st.coins[i], st.cd[i])}",
        )


def _check_character_cell(st: Position, i: int, where: str, ids: int) -> None:
    cid = st.card[i]
    c = st.cards[cid] if 0 < cid < ids else None
    if c is None or not c.is_character:
        _fail("board", f"{where} holds card id {cid}, not a character")
    if st.owner[i] not in (0, 1):
        _fail("board", f"{where} ({c.key}) has owner {st.owner[i]}")
    if st.base[i] != c.points:
        _fail("board", f"{where} ({c.key}) has starting points {st.base[i]}, printed {c.points}")
    if st.power[i] < 1:
        _fail("alive", f"{where} ({c.key}) is on the board with {st.power[i]} points")
    if st.armour[i] < 0 or st.coins[i] < 0:
        _fail("non_negative", f"{where} ({c.key}) has armour {st.armour[i]}, coins {st.coins[i]}")
    if c.cooldown:
        if not 1 <= st.cd[i] <= c.cooldown:
            _fail("cooldown", f"{where} ({c.key}) has cooldown {st.cd[i]} outside 1..{c.cooldown}")
    elif st.cd[i]:
        _fail("cooldown", f"{where} ({c.key}) has no timed skill but cooldown {st.cd[i]}")


def _check_purses_and_scores(st: Position, tally: _BoardTally) -> None:
    """``non_negative`` (purses) and ``score``."""
    for p in (0, 1):
        if st.purse[p] < 0:
            _fail("non_negative", f"player {p}'s purse holds {st.purse[p]} coins")
        if st.score[p] != tally.score[p]:
            _fail(
                "score",
                f"player {p}'s score is {st.score[p]} but their characters hold {tally.score[p]} points",
            )


def _check_hand_and_cards(st: Position, p: int, on_board: list[int]) -> None:
    """``hands``, ``cards`` and ``voids`` for player ``p``."""
    hand = st.hand[p]
    if any(hand[k] > hand[k + 1] for k in range(len(hand) - 1)):
        _fail("hands", f"player {p}'s hand {hand} is not sorted")
    ids = len(st.cards)
    in_hand = [0] * ids
    for cid in hand:
        in_hand[cid] += 1
    deck, grave, init = st.deck[p], st.grave[p], st.game.initial_decks[p]
    if sum(deck) != st.deck_n[p]:
        _fail("cards", f"player {p}'s deck size is {st.deck_n[p]} but it holds {sum(deck)} cards")
    deck_cards_in_hand = 0
    for cid in range(1, ids):
        c = st.cards[cid]
        assert c is not None
        if deck[cid] < 0 or grave[cid] < 0:
            _fail("cards", f"player {p} has {deck[cid]} {c.key} in the deck, {grave[cid]} in the grave")
        if c.is_void:
            if deck[cid]:
                _fail("voids", f"player {p}'s deck holds void card {c.key}")
            total = in_hand[cid] + on_board[cid] + grave[cid]
            if total != st.voids[p][cid]:
                _fail(
                    "voids",
                    f"player {p}: {st.voids[p][cid]} {c.key} created, but hand {in_hand[cid]} + "
                    f"board {on_board[cid]} + grave {grave[cid]} = {total}",
                )
        else:
            deck_cards_in_hand += in_hand[cid]
            total = in_hand[cid] + deck[cid] + on_board[cid] + grave[cid]
            if total != init[cid]:
                _fail(
                    "cards",
                    f"player {p}: {c.key} hand {in_hand[cid]} + deck {deck[cid]} + board "
                    f"{on_board[cid]} + grave {grave[cid]} = {total}, deck list has {init[cid]}",
                )
    if deck_cards_in_hand > st.shape.hand_size:
        _fail(
            "hands",
            f"player {p} holds {deck_cards_in_hand} deck cards, more than the {st.shape.hand_size} dealt",
        )


def _check_coin_ledger(st: Position) -> None:
    cards = st.cards
    coins_held = (
        sum(st.purse)
        + sum(st.coins)
        + sum(
            1
            for p in (0, 1)
            for cid in st.hand[p]
            if (c := cards[cid]) is not None and c.is_coin
        )
    )
    if coins_held != st.coin_total:
        _fail(
            "coin_ledger",
            f"minted - burned = {st.coin_total}, but purses {st.purse} + carried "
            f"{sum(st.coins)} + Coin cards = {coins_held}",
        )


def _check_swap_offer(st: Position) -> None:
    """``phase``: an offer exists exactly during the swap decision and comes from the mover's deck."""
    if st.phase != PH_SWAP:
        if st.offer:
            _fail("phase", f"an offer {st.offer} is pending outside the swap decision")
        return
    if not st.offer or len(st.offer) != st.offer_size:
        _fail("phase", f"swap decision with offer {st.offer} of declared size {st.offer_size}")
    need: dict[int, int] = {}
    for cid in st.offer:
        need[cid] = need.get(cid, 0) + 1
    if any(st.deck[st.to_move][c] < n for c, n in need.items()):
        _fail("phase", f"offer {st.offer} is not drawn from player {st.to_move}'s deck")


def _check_turn_and_die(st: Position) -> None:
    """``phase``: the mover is still in the game, the game ends only when both are out, and the die
    bonus is set only after the game, in 1..6."""
    ph, die_on = st.phase, st.game.config.die_bonus
    if ph in (PH_PLAY, PH_SWAP) and st.out[st.to_move]:
        _fail("phase", f"player {st.to_move} is to move but has finished")
    if ph in (PH_DIE, PH_OVER) and not all(st.out):
        _fail("phase", f"the game is over but players finished = {st.out}")
    if ph == PH_OVER and die_on and not 1 <= st.bonus <= 6:
        _fail("phase", f"die bonus {st.bonus} after the game (must be 1..6)")
    if (ph != PH_OVER or not die_on) and st.bonus:
        _fail("phase", f"die bonus {st.bonus} set before the roll or with the die off")
