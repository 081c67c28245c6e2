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

from typing import TYPE_CHECKING

from paiju.yuxi.phases import PH_DIE, PH_OVER, PH_PLAY, PH_SWAP

if TYPE_CHECKING:
    from paiju.yuxi.game import YuxiState


class InvariantViolation(AssertionError):
    """An invariant failed: a rules-engine bug (not bad input, hence not a PaijuError)."""

    def __init__(self, invariant: str, detail: str) -> None:
        super().__init__(f"yuxi invariant {invariant!r} violated: {detail}")
        self.invariant = invariant
        self.detail = detail


def check_invariants(st: YuxiState) -> None:
    """Raise :class:`InvariantViolation` naming the first invariant that fails."""

    game = st.game
    cards = st.cards
    shape = st.shape
    ids = game.table.num_ids + 1

    def fail(name: str, detail: str) -> None:
        raise InvariantViolation(name, detail)

    derived_score = [0, 0]
    on_board = [[0] * ids, [0] * ids]
    for i in range(shape.cells):
        cid = st.card[i]
        where = f"cell {shape.cell_name(i)}"
        if not cid:
            if st.owner[i] != -1 or st.power[i] or st.base[i] or st.armour[i] or st.coins[i] or st.cd[i]:
                fail(
                    "board",
                    f"{where} is empty but holds owner/points/armour/coins/cooldown "
                    f"{(st.owner[i], st.power[i], st.armour[i], st.coins[i], st.cd[i])}",
                )
        else:
            if not 0 < cid < ids or (card := cards[cid]) is None or not card.is_character:
                fail("board", f"{where} holds card id {cid}, not a character")
            c = cards[cid]
            assert c is not None
            if st.owner[i] not in (0, 1):
                fail("board", f"{where} ({c.key}) has owner {st.owner[i]}")
            if st.base[i] != c.points:
                fail("board", f"{where} ({c.key}) has starting points {st.base[i]}, printed {c.points}")
            if st.power[i] < 1:
                fail("alive", f"{where} ({c.key}) is on the board with {st.power[i]} points")
            if st.armour[i] < 0 or st.coins[i] < 0:
                fail("non_negative", f"{where} ({c.key}) has armour {st.armour[i]}, coins {st.coins[i]}")
            if c.cooldown:
                if not 1 <= st.cd[i] <= c.cooldown:
                    fail("cooldown", f"{where} ({c.key}) has cooldown {st.cd[i]} outside 1..{c.cooldown}")
            elif st.cd[i]:
                fail("cooldown", f"{where} ({c.key}) has no timed skill but cooldown {st.cd[i]}")
            derived_score[st.owner[i]] += st.power[i]
            on_board[st.owner[i]][cid] += 1
        if not 0 <= st.weather[i] <= 4:
            fail("weather", f"{where} has weather code {st.weather[i]}")
    for p in (0, 1):
        if st.purse[p] < 0:
            fail("non_negative", f"player {p}'s purse holds {st.purse[p]} coins")
        if st.score[p] != derived_score[p]:
            fail(
                "score",
                f"player {p}'s score is {st.score[p]} but their characters hold {derived_score[p]} points",
            )
    for p in (0, 1):
        hand = st.hand[p]
        if any(hand[k] > hand[k + 1] for k in range(len(hand) - 1)):
            fail("hands", f"player {p}'s hand {hand} is not sorted")
        in_hand = [0] * ids
        for cid in hand:
            in_hand[cid] += 1
        deck, grave, init = st.deck[p], st.grave[p], game.initial_decks[p]
        if sum(deck) != st.deck_n[p]:
            fail("cards", f"player {p}'s deck size is {st.deck_n[p]} but it holds {sum(deck)} cards")
        deck_cards_in_hand = 0
        for cid in range(1, ids):
            c = cards[cid]
            assert c is not None
            if deck[cid] < 0 or grave[cid] < 0:
                fail("cards", f"player {p} has {deck[cid]} {c.key} in the deck, {grave[cid]} in the grave")
            if c.is_void:
                if deck[cid]:
                    fail("voids", f"player {p}'s deck holds void card {c.key}")
                total = in_hand[cid] + on_board[p][cid] + grave[cid]
                if total != st.voids[p][cid]:
                    fail(
                        "voids",
                        f"player {p}: {st.voids[p][cid]} {c.key} created, but hand {in_hand[cid]} + "
                        f"board {on_board[p][cid]} + grave {grave[cid]} = {total}",
                    )
            else:
                deck_cards_in_hand += in_hand[cid]
                total = in_hand[cid] + deck[cid] + on_board[p][cid] + grave[cid]
                if total != init[cid]:
                    fail(
                        "cards",
                        f"player {p}: {c.key} hand {in_hand[cid]} + deck {deck[cid]} + board "
                        f"{on_board[p][cid]} + grave {grave[cid]} = {total}, deck list has {init[cid]}",
                    )
        if deck_cards_in_hand > shape.hand_size:
            fail(
                "hands",
                f"player {p} holds {deck_cards_in_hand} deck cards, more than the {shape.hand_size} dealt",
            )
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
        fail(
            "coin_ledger",
            f"minted - burned = {st.coin_total}, but purses {st.purse} + carried "
            f"{sum(st.coins)} + Coin cards = {coins_held}",
        )
    ph = st.phase
    if ph != PH_SWAP and st.offer:
        fail("phase", f"an offer {st.offer} is pending outside the swap decision")
    if ph == PH_SWAP:
        if not st.offer or len(st.offer) != st.offer_size:
            fail("phase", f"swap decision with offer {st.offer} of declared size {st.offer_size}")
        need: dict[int, int] = {}
        for cid in st.offer:
            need[cid] = need.get(cid, 0) + 1
        if any(st.deck[st.to_move][c] < n for c, n in need.items()):
            fail("phase", f"offer {st.offer} is not drawn from player {st.to_move}'s deck")
    if ph in (PH_PLAY, PH_SWAP) and st.out[st.to_move]:
        fail("phase", f"player {st.to_move} is to move but has finished")
    if ph in (PH_DIE, PH_OVER) and not all(st.out):
        fail("phase", f"the game is over but players finished = {st.out}")
    if ph == PH_OVER and game.config.die_bonus and not 1 <= st.bonus <= 6:
        fail("phase", f"die bonus {st.bonus} after the game (must be 1..6)")
    if (ph != PH_OVER or not game.config.die_bonus) and st.bonus:
        fail("phase", f"die bonus {st.bonus} set before the roll or with the die off")
