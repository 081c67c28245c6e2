"""A seat's view of a hand rebuilt from the protocol's messages alone (:class:`SeatView`): the
observation and legal actions the engine would give the seat at each ask, and why a message
cannot come now as far as the seat can tell (``docs/mahjong-protocol.md``, "Order")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from paiju.interop.mahjong.messages import (
    Ask,
    AskClaim,
    AskRob,
    AskTurn,
    Chow,
    Draw,
    End,
    Flower,
    ForfeitNotice,
    InitCard,
    InitGame,
    Kong,
    Message,
    Mo,
    Pung,
    Quit,
    Rules,
    Start,
    Throw,
    chow_name,
)
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.game import (
    ADDED_KONG,
    CHOW_HIGH,
    CHOW_LOW,
    CHOW_MID,
    CONCEALED_KONG,
    HAND_SIZE,
    KONG,
    LOCK_ALL_DISCARDS,
    NUM_PLAYERS,
    PASS,
    PUNG,
    WIN,
    DrawKind,
    MahjongObservation,
    Phase,
)
from paiju.mahjong.scoring import ligu_waits, waits
from paiju.mahjong.tiles import (
    FLOWER_BASE,
    NUM_FLOWERS,
    NUM_KINDS,
    NUM_TILES,
    NUM_TILES_WITH_FLOWERS,
    Meld,
    MeldType,
    tile_name,
    wall_tile_name,
)

HELD = 3 * 5 + 2
"""Tiles a seat holds on its turn, a meld counted as 3 (a kong too: its fourth is replaced)."""
_COUNT_WORDS = ("no", "one", "two", "three", "four", "five")
_HIDDEN_KONG = Meld(MeldType.CONCEALED_KONG, -1, -1, -1)
_DRAW_KIND = {"normal": DrawKind.NORMAL, "flower": DrawKind.FLOWER, "replacement": DrawKind.REPLACEMENT}


class SeatView:
    """What one seat knows, kept up to date message by message: its observation at an ask.

    The private flags follow the engine's rules from what the seat itself saw and did: the
    missed-win lock (a win offered and passed), 地聽 and 天聽 (its own hand, ``waits``).
    """

    def __init__(self) -> None:
        self.seat = -1
        self.rules = MahjongConfig()
        self.cfg = self.rules
        self.hand_index = -1
        self._reset()

    def _reset(self) -> None:
        self.hand = [0] * NUM_KINDS
        self.melds: list[list[Meld]] = [[] for _ in range(NUM_PLAYERS)]
        self.rivers: list[list[tuple[int, int]]] = [[] for _ in range(NUM_PLAYERS)]
        self.drawn_flags: list[list[bool]] = [[] for _ in range(NUM_PLAYERS)]
        self.flowers: list[list[int]] = [[] for _ in range(NUM_PLAYERS)]
        self.sizes = [HAND_SIZE] * NUM_PLAYERS
        self.head = NUM_PLAYERS * HAND_SIZE + 1
        self.tail = NUM_TILES
        self.turn = self.cfg.dealer
        self.drawn = -1
        self.draw_kind = DrawKind.NONE
        self.after_claim = False
        self.no_calls = True
        self.lock = 0
        self.earth = 0
        self.heaven = 0
        self.dealing = False
        self.pending_kong: tuple[int, int] | None = None
        self.window: tuple[int, int] | None = None
        """The discard open to claims: (discarder, tile); closed by the next draw or a claim."""

    # -- notifications --
    def handle(self, msg: Message) -> None:
        """Update the view with a notification (not an ask)."""
        if isinstance(msg, Start | Quit | End | ForfeitNotice):
            self.dealing = False  # the table's business abandons a deal in progress: no 天聽 to decide
        elif self.dealing and not (
            isinstance(msg, InitCard | Flower) or (isinstance(msg, Mo | Draw) and msg.source == "deal")
        ):
            self._deal_done()
        handler = _HANDLERS.get(type(msg))
        if handler is not None:
            handler(self, msg)

    def _start(self, msg: Start) -> None:
        self.seat = msg.seat

    def _rules(self, msg: Rules) -> None:
        self.rules = msg.config()

    def _init_game(self, msg: InitGame) -> None:
        self.cfg = replace(
            self.rules, dealer=msg.dealer, continuation=msg.continuation, round_wind=msg.round_wind
        )
        self.hand_index = msg.hand
        self._reset()
        self.sizes[msg.dealer] += 1
        self.tail = NUM_TILES_WITH_FLOWERS if self.cfg.flowers else NUM_TILES
        self.dealing = True

    def _init_card(self, msg: InitCard) -> None:
        for t in msg.tiles:
            if t < FLOWER_BASE:
                self.hand[t] += 1

    def _deal_done(self) -> None:
        """The deal and its flower replacements are over: 天聽 of a non-dealer is decided now."""
        self.dealing = False
        if self.cfg.heaven_ready and self.seat != self.cfg.dealer:
            self.heaven = 1 if self._ready() else 2

    def _ready(self) -> bool:
        return bool(waits(self.hand)) or (
            self.cfg.ligu and not self.melds[self.seat] and bool(ligu_waits(self.hand))
        )

    def _drew(self, seat: int, source: str) -> None:
        self.sizes[seat] += 1
        if source == "normal":
            self.head += 1
        else:
            self.tail -= 1
        if source == "deal":
            return
        self.window = None
        if self.pending_kong is not None and self.pending_kong[0] == seat and source == "replacement":
            self._complete_added_kong()
        self.draw_kind = _DRAW_KIND[source]
        self.turn = seat
        self.after_claim = False

    def _mo(self, msg: Mo) -> None:
        self._drew(self.seat, msg.source)
        if msg.tile < FLOWER_BASE:
            self.hand[msg.tile] += 1
            if msg.source != "deal":
                self.drawn = msg.tile

    def _draw(self, msg: Draw) -> None:
        self._drew(msg.seat, msg.source)

    def _flower(self, msg: Flower) -> None:
        self.flowers[msg.seat].append(msg.flower)
        self.sizes[msg.seat] -= 1

    def _throw(self, msg: Throw) -> None:
        p, k = msg.seat, msg.tile
        self.window = (p, k)
        self.rivers[p].append((k, -1))
        self.drawn_flags[p].append(msg.drawn)
        self.sizes[p] -= 1
        if p != self.seat:
            return
        self.hand[k] -= 1
        self.lock = 0
        first = len(self.rivers[p]) == 1
        if self.cfg.earth_ready:
            if first:
                self.earth = 1 if self.no_calls and waits(self.hand) else 2
            elif self.earth == 1 and k != self.drawn:
                self.earth = 2
        if self.cfg.heaven_ready:
            if p == self.cfg.dealer and first and self.heaven == 0:
                self.heaven = 1 if self.no_calls and self._ready() else 2
            elif self.heaven == 1 and not msg.drawn:
                self.heaven = 2

    def _called(self, seat: int) -> None:
        """A claim or kong by ``seat``: the go-around is no longer clean, its ready flags end."""
        self.no_calls = False
        if seat == self.seat:
            if self.earth == 1:
                self.earth = 2
            if self.cfg.heaven_ready:
                self.heaven = 2

    def _claimed(self, seat: int, tile: int, source: int, meld: Meld, taken: Sequence[int]) -> None:
        self.rivers[source][-1] = (tile, seat)
        self.window = None
        self.melds[seat].append(meld)
        self.sizes[seat] -= len(taken)
        if seat == self.seat:
            for k in taken:
                self.hand[k] -= 1
        self._called(seat)

    def _after_claim(self, seat: int) -> None:
        self.turn = seat
        self.draw_kind = DrawKind.NONE
        self.after_claim = True
        if seat == self.seat:
            self.drawn = -1

    def _pung(self, msg: Pung) -> None:
        t = msg.tile
        self._claimed(msg.seat, t, msg.source, Meld(MeldType.PUNG, t, t, msg.source), (t, t))
        self._after_claim(msg.seat)

    def _chow(self, msg: Chow) -> None:
        t = self.rivers[msg.source][-1][0]
        taken = [k for k in (msg.low, msg.low + 1, msg.low + 2) if k != t]
        self._claimed(msg.seat, t, msg.source, Meld(MeldType.CHOW, msg.low, t, msg.source), taken)
        self._after_claim(msg.seat)

    def _kong(self, msg: Kong) -> None:
        p, t = msg.seat, msg.tile
        if msg.kind == "exposed":
            self._claimed(p, t, msg.source, Meld(MeldType.EXPOSED_KONG, t, t, msg.source), (t, t, t))
        elif msg.kind == "concealed":
            self.melds[p].append(Meld(MeldType.CONCEALED_KONG, t) if t >= 0 else _HIDDEN_KONG)
            self.sizes[p] -= 4
            if p == self.seat:
                self.hand[t] -= 4
            self._called(p)
        else:  # added: the tile is offered to robbers; the pung becomes a kong when it stands
            self.sizes[p] -= 1
            if p == self.seat:
                self.hand[t] -= 1
            self.pending_kong = (p, t)

    def _complete_added_kong(self) -> None:
        assert self.pending_kong is not None
        p, t = self.pending_kong
        self.pending_kong = None
        row = self.melds[p]
        for i, m in enumerate(row):
            if m.type == MeldType.PUNG and m.tile == t:
                row[i] = Meld(MeldType.ADDED_KONG, t, m.claimed, m.source)
                break
        self._called(p)

    # -- what cannot come now --
    def held(self, seat: int) -> int:
        """Tiles ``seat`` holds, a meld counted as 3: ``HELD`` on its turn, one fewer otherwise."""
        return self.sizes[seat] + 3 * len(self.melds[seat])

    def refusal(self, msg: Message) -> str | None:
        """Why a message of the hand cannot come now (None: it can). Only what the seat can
        check from its own view: the turn, the open discard, its own tiles, the counts."""
        check = _REFUSALS.get(type(msg))
        return check(self, msg) if check is not None else None

    def _deal_refusal(self, msg: InitCard) -> str | None:
        want = HAND_SIZE + (self.seat == self.cfg.dealer)
        if len(msg.tiles) != want:
            return f"seat {self.seat} is dealt {want} tiles (the dealer 17, others 16), not {len(msg.tiles)}"
        return self._tiles_refusal(msg.tiles)

    def _draw_refusal(self, msg: Mo | Draw) -> str | None:
        seat = self.seat if isinstance(msg, Mo) else msg.seat
        if isinstance(msg, Draw) and seat == self.seat:
            return "a seat's own draws come as /mo, with the tile"
        if self.held(seat) >= HELD:
            return f"seat {seat} holds {self.held(seat)} tiles: it discards before it draws again"
        if self.tail <= self.head:
            return "the wall is empty"
        return self._tiles_refusal([msg.tile], self.hand) if isinstance(msg, Mo) else None

    def _flower_refusal(self, msg: Flower) -> str | None:
        if not self.cfg.flowers:
            return "flowers are not in play (the rules say flowers=false)"
        if any(msg.flower in f for f in self.flowers):
            return f"flower {wall_tile_name(FLOWER_BASE + msg.flower)} was shown already"
        return None

    def _throw_refusal(self, msg: Throw) -> str | None:
        return self._turn_refusal(msg.seat) or self._own_refusal(msg.seat, msg.tile, 1, "discard")

    def _kong_refusal(self, msg: Kong) -> str | None:
        if msg.kind == "exposed":
            return self._claim_refusal(msg)
        if why := self._turn_refusal(msg.seat):
            return why
        if msg.kind == "added":
            return self._added_refusal(msg.seat, msg.tile)
        return self._own_refusal(msg.seat, msg.tile, 4, "concealed kong")

    def _ask_turn_refusal(self, msg: AskTurn) -> str | None:
        if why := self._turn_refusal(self.seat):
            return why
        for a in msg.options:  # an option the hand cannot make would mislead the agent
            why = None
            if CONCEALED_KONG <= a < ADDED_KONG:
                why = self._own_refusal(self.seat, a - CONCEALED_KONG, 4, "kong")
            elif ADDED_KONG <= a < WIN:
                why = self._added_refusal(self.seat, a - ADDED_KONG)
            if why:
                return f"offers {why}"
        return None

    def _ask_window_refusal(self, msg: AskClaim | AskRob) -> str | None:
        me = self.seat
        if msg.source == me:
            return f"seat {me} is asked to claim its own tile"
        if self.held(me) != HELD - 1:
            return f"seat {me} holds {self.held(me)} tiles: it is on its turn, not waiting"
        if isinstance(msg, AskRob):
            if self.pending_kong != (msg.source, msg.tile):
                return f"seat {msg.source} declared no added kong of {tile_name(msg.tile)} to rob"
            return None
        if self.window != (msg.source, msg.tile):
            return f"there is no open discard of {tile_name(msg.tile)} by seat {msg.source}"
        return self._offer_refusal(msg)

    def _tiles_refusal(self, tiles: Sequence[int], hand: Sequence[int] | None = None) -> str | None:
        """More than four of a kind, or a flower twice, in ``tiles`` (plus ``hand``)."""
        counts = list(hand or [0] * NUM_KINDS) + [0] * NUM_FLOWERS
        for t in tiles:
            if t >= FLOWER_BASE and not self.cfg.flowers:
                return f"{wall_tile_name(t)} is a flower, and flowers are not in play"
            counts[t] += 1
            if counts[t] > (1 if t >= FLOWER_BASE else 4):
                return f"seat {self.seat} would hold {_COUNT_WORDS[counts[t]]} {wall_tile_name(t)}"
        return None

    def _turn_refusal(self, seat: int) -> str | None:
        if seat != self.turn:
            return f"it is not seat {seat}'s turn (seat {self.turn} drew or claimed last)"
        if self.held(seat) != HELD:
            return f"seat {seat} holds {self.held(seat)} tiles; on its turn it holds {HELD} (it draws first)"
        return None

    def _own_refusal(self, seat: int, tile: int, need: int, what: str) -> str | None:
        """This seat's own move needs ``need`` of ``tile`` in its hand (others' are not seen)."""
        if seat != self.seat:
            return None
        if tile < 0:
            return f"a {what} of this seat names its tile"
        have = self.hand[tile]
        if have < need:
            holds = "does not hold" if not have else f"holds {have} of"
            return f"a {what} of {tile_name(tile)}, but seat {seat} {holds} {tile_name(tile)}"
        return None

    def _added_refusal(self, seat: int, tile: int) -> str | None:
        if not any(m.type == MeldType.PUNG and m.tile == tile for m in self.melds[seat]):
            return f"an added kong of {tile_name(tile)}, but seat {seat} has no pung of it"
        return self._own_refusal(seat, tile, 1, "added kong")

    def _claim_refusal(self, msg: Pung | Chow | Kong) -> str | None:
        """A claim needs the discard still open, a waiting claimer and (its own) the tiles."""
        seat, source = msg.seat, msg.source
        if self.window is None or self.window[0] != source:
            return f"there is no open discard by seat {source} to claim"
        tile = self.window[1]
        if source == seat:
            return f"seat {seat} claims its own discard"
        if self.held(seat) != HELD - 1:
            return f"seat {seat} holds {self.held(seat)} tiles: it is on its turn, not waiting"
        if isinstance(msg, Chow):
            if tile not in (msg.low, msg.low + 1, msg.low + 2):
                return f"the chow {chow_name(msg.low)} does not hold the discard {tile_name(tile)}"
            return self._chow_refusal(seat, source, msg.low, tile)
        if msg.tile != tile:
            return f"seat {source}'s open discard is {tile_name(tile)}, not {tile_name(msg.tile)}"
        return self._own_refusal(seat, tile, 3 if isinstance(msg, Kong) else 2, type(msg).__name__.lower())

    def _offer_refusal(self, ask: AskClaim) -> str | None:
        """A claim offered that this seat's hand cannot make."""
        t = ask.tile
        for a in ask.options:
            if a == PUNG and (why := self._own_refusal(self.seat, t, 2, "pung")):
                return f"offers {why}"
            if a == KONG and (why := self._own_refusal(self.seat, t, 3, "kong")):
                return f"offers {why}"
            if a in (CHOW_LOW, CHOW_MID, CHOW_HIGH) and (
                why := self._chow_refusal(self.seat, ask.source, t - (a - CHOW_LOW), t)
            ):
                return f"offers {why}"
        return None

    def _chow_refusal(self, seat: int, source: int, low: int, tile: int) -> str | None:
        """A chow of ``source``'s ``tile`` from ``low`` needs the next seat and (its own) the
        two other tiles: one rule for a claim made and a claim offered."""
        if seat != (source + 1) % NUM_PLAYERS:
            nxt = (source + 1) % NUM_PLAYERS
            return f"a chow by seat {seat}, but only seat {nxt}, the next, may chow seat {source}'s discard"
        for k in sorted({low, low + 1, low + 2} - {tile}):
            if why := self._own_refusal(seat, k, 1, f"chow {chow_name(low)}"):
                return why
        return None

    # -- decisions --
    def observation(self, ask: Ask) -> MahjongObservation:
        """This seat's observation at ``ask``, as the engine would give it."""
        if self.dealing:
            self._deal_done()
        turn_phase = isinstance(ask, AskTurn)
        phase = Phase.TURN if turn_phase else Phase.CLAIM if isinstance(ask, AskClaim) else Phase.ROB
        window = (-1, -1) if isinstance(ask, AskTurn) else (ask.tile, ask.source)
        wall = NUM_TILES_WITH_FLOWERS if self.cfg.flowers else NUM_TILES
        return MahjongObservation(
            player=self.seat, phase=phase, to_act=self.seat, turn=self.turn, hand=tuple(self.hand),
            drawn=self.drawn if turn_phase else -1, draw_kind=self.draw_kind,
            after_claim=self.after_claim, window_tile=window[0], window_from=window[1],
            melds=tuple(tuple(m) for m in self.melds),
            discards=tuple(tuple(r) for r in self.rivers),
            hand_sizes=tuple(self.sizes), live_tiles=self.tail - self.head - self.cfg.dead_wall,
            replacements_drawn=wall - self.tail, no_calls=self.no_calls, lock=self.lock,
            own_claim=-1, earth_ready=self.earth, dealer=self.cfg.dealer,
            continuation=self.cfg.continuation, round_wind=self.cfg.round_wind, hand_number=0,
            dealer_passes=0, scores=(0,) * NUM_PLAYERS, last_result=None, config=self.cfg,
            discards_drawn=tuple(tuple(r) for r in self.drawn_flags),
            flowers=tuple(tuple(f) for f in self.flowers), heaven_ready=self.heaven,
        )

    def legal_actions(self, ask: Ask) -> list[int]:
        """The legal actions at ``ask``: any tile in hand on a turn plus the options offered."""
        if isinstance(ask, AskTurn):
            return [k for k in range(NUM_KINDS) if self.hand[k]] + list(ask.options)
        if isinstance(ask, AskClaim):
            return list(ask.options)
        return [WIN, PASS]

    def answered(self, ask: Ask, action: int) -> None:
        """A window passed with a win on offer locks that win (過水), as the engine does."""
        if isinstance(ask, AskTurn) or action == WIN or not self.cfg.missed_discard_lock:
            return
        if isinstance(ask, AskClaim) and WIN not in ask.options:
            return
        bit = LOCK_ALL_DISCARDS if self.cfg.missed_discard_scope == "all" else 1 << ask.tile
        self.lock |= bit


_REFUSALS: dict[type, Callable[[SeatView, Any], str | None]] = {
    InitCard: SeatView._deal_refusal, Mo: SeatView._draw_refusal, Draw: SeatView._draw_refusal,
    Flower: SeatView._flower_refusal, Throw: SeatView._throw_refusal, Pung: SeatView._claim_refusal,
    Chow: SeatView._claim_refusal, Kong: SeatView._kong_refusal, AskTurn: SeatView._ask_turn_refusal,
    AskClaim: SeatView._ask_window_refusal, AskRob: SeatView._ask_window_refusal,
}
_HANDLERS: dict[type, Callable[[SeatView, Any], None]] = {
    Start: SeatView._start, Rules: SeatView._rules, InitGame: SeatView._init_game,
    InitCard: SeatView._init_card, Mo: SeatView._mo, Draw: SeatView._draw, Flower: SeatView._flower,
    Throw: SeatView._throw, Pung: SeatView._pung, Chow: SeatView._chow, Kong: SeatView._kong,
}
