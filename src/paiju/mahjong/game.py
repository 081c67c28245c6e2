"""The Taiwan 16-tile mahjong engine (flowers optional) on the core ``Game`` / ``State`` protocol.

Rules: ``docs/mahjong-rules.md`` with the defaults of :class:`MahjongConfig`; every
choice is written down there.

Flow of one hand
----------------
1. **Chance**: the wall shuffle is one chance action, the whole 136-tile wall as a tuple of
   kinds (so a seed, or a stored wall, fixes the hand for duplicate play). The dealer gets
   17 tiles, the others 16; normal draws come from the head, kong replacements from the tail.
2. **Turn** (``Phase.TURN``): the player to move holds 3n+2 tiles. Draws are automatic (the
   wall is fixed by the shuffle, so a draw is not a decision). He may win (自摸), declare a
   concealed or added kong (then a replacement draw, and he acts again), or discard. After a
   chow or pung he may only discard.
3. **Claim window** (``Phase.CLAIM``) after every discard: each other seat that has any claim
   (win, pung, exposed kong, chow for the next seat only) gets one decision, in turn order from
   the discarder's next seat, pass included. Every asked seat sees only its own options and
   the public table, never what earlier seats declared: the declarations are *sealed* and
   resolved together when the last asked seat has answered — win(s) > pung/kong > chow
   (``multi_ron`` decides several wins: all, or the first in turn order). A seat with no
   option is not asked (a decision with only "pass" would be an empty node).
4. **Rob window** (``Phase.ROB``) after an added kong: each seat that can win on the added
   tile decides win / pass; a win robs the kong (搶槓), otherwise the kong stands.
5. The hand ends on a win or when a normal draw is due with only the dead wall left (流局).

Where each piece lives
----------------------
This module holds the rules of play: legal actions and applying them (deal, draws, claims,
kongs, the end of a hand and what comes next). The rest of a hand's life is split by concern
and re-exported here, so ``from paiju.mahjong.game import ...`` still names it all:

* :mod:`paiju.mahjong.notation`: the action ids (``NUM_ACTIONS = 109``: discards, kongs, WIN,
  PUNG, KONG, the three chows, PASS; the layout table is there), their names, reading a move
  from text, the state as text, and the wall notation (``wall_notation``, ``parse_wall``,
  ``build_wall``);
* :mod:`paiju.mahjong.settlement`: :class:`HandResult` and what a finished hand pays (the tai
  of a win in a position, the payments);
* :mod:`paiju.mahjong.observation`: :class:`MahjongObservation`, what one seat sees;
* :mod:`paiju.mahjong.phases`: the seat count, hand size, phase codes and draw kinds;
* :mod:`paiju.mahjong.determinize`: full states consistent with an observation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from paiju.core.errors import ConfigError, IllegalMoveError
from paiju.core.protocol import CHANCE, TERMINAL, GameInfo, State
from paiju.core.rng import SeedLike, as_generator
from paiju.mahjong.config import FLAG_PATTERNS, MahjongConfig
from paiju.mahjong.determinize import sample_state as _sample_state

# The engine's whole vocabulary stays importable from here (``X as X``: re-exported), though
# each name is defined in the module of its concern (see the module docstring).
from paiju.mahjong.notation import ADDED_KONG as ADDED_KONG
from paiju.mahjong.notation import CHOW_HIGH as CHOW_HIGH
from paiju.mahjong.notation import CHOW_LOW as CHOW_LOW
from paiju.mahjong.notation import CHOW_MID as CHOW_MID
from paiju.mahjong.notation import CONCEALED_KONG as CONCEALED_KONG
from paiju.mahjong.notation import DISCARD as DISCARD
from paiju.mahjong.notation import KONG as KONG
from paiju.mahjong.notation import NUM_ACTIONS as NUM_ACTIONS
from paiju.mahjong.notation import PASS as PASS
from paiju.mahjong.notation import PUNG as PUNG
from paiju.mahjong.notation import WIN as WIN
from paiju.mahjong.notation import action_name as action_name
from paiju.mahjong.notation import action_to_string, format_state, read_action
from paiju.mahjong.notation import build_wall as build_wall
from paiju.mahjong.notation import parse_wall as parse_wall
from paiju.mahjong.notation import wall_notation as wall_notation
from paiju.mahjong.observation import MahjongObservation as MahjongObservation
from paiju.mahjong.observation import observe
from paiju.mahjong.phases import HAND_SIZE as HAND_SIZE
from paiju.mahjong.phases import NUM_PLAYERS as NUM_PLAYERS
from paiju.mahjong.phases import DrawKind as DrawKind
from paiju.mahjong.phases import Phase as Phase
from paiju.mahjong.scoring import Payment as Payment
from paiju.mahjong.scoring import is_complete, is_ligu, ligu_waits, waits
from paiju.mahjong.settlement import HandResult as HandResult
from paiju.mahjong.settlement import (
    exhaustive_draw,
    flower_win_result,
    score_discard_win,
    score_self_draw,
    win_result,
)
from paiju.mahjong.tiles import (
    COPIES,
    FLOWER_BASE,
    NUM_FLOWERS,
    NUM_KINDS,
    NUM_TILES,
    NUM_TILES_WITH_FLOWERS,
    Meld,
    MeldType,
    flower_name,
    format_counts,
    tile_name,
    wall_tile_name,
)

RULES_VERSION = "tw16-noflower-1"
MAX_DECISIONS_PER_HAND = 500
"""Bound on decisions in one hand: <= 92 turns, <= 92 claim windows x 3 seats, kongs, robs."""

LOCK_ALL_DISCARDS = 1 << NUM_KINDS
"""Lock bit of ``missed_discard_scope="all"``: no win on any discard until one's own next discard."""


_CHANCE_WALL_HINT = "a wall is a sequence of 136 tile kinds 0..33, each kind exactly 4 times"
_CHANCE_WALL_HINT_FLOWERS = (
    "with flowers a wall is a sequence of 144 entries: kinds 0..33 four times each and the flowers "
    "34..41 once each"
)


class MahjongState(State):
    """One position of a hand (or of a full game). Mutable; :meth:`clone` copies cheaply."""

    # a dict of slots documents each field (``help(MahjongState)`` shows the texts)
    __slots__ = {
        "after_claim": "the turn player has just chowed or punged: he may only discard",
        "cfg": "the game's MahjongConfig (the rules this state is played under)",
        "continuation": "連莊 count of the current dealer (extra tai for the dealer)",
        "dealer": "seat of the current dealer (莊家)",
        "dealer_passes": "times the deal has passed on in this game (4 per 圈)",
        "discards_drawn": "per seat, parallel to ``rivers``: True = the discard was the tile just "
        "drawn (摸打), False = a tile from the hand (手出)",
        "draw_kind": "how the turn player's last tile came: DrawKind NONE, NORMAL or REPLACEMENT",
        "drawn": "kind the turn player has just drawn, -1 after a claim or before the draw",
        "earth": "地聽 per seat: 0 = no discard yet, 1 = ready since the first discard with the "
        "hand unchanged, 2 = not (or no longer) eligible",
        "flowers": "revealed flowers per seat (0..7 = 春夏秋冬梅蘭竹菊), in the order revealed",
        "game": "the MahjongGame this state belongs to",
        "hand_number": "hands played so far in this game (0 for the first)",
        "hands": "concealed tile counts per seat: 4 lists of 34",
        "head": "index in ``wall`` of the next normal draw",
        "heaven": "天聽 per seat: 0 = not decided yet (the dealer before his first discard), "
        "1 = ready since the deal with the hand unchanged, 2 = not",
        "intents": "sealed declaration per seat in the open window (an action), -1 = not asked yet",
        "last_result": "the HandResult of the last finished hand, None before it",
        "locks": "missed-win lock per seat: bit k set = may not win on kind k until own next discard",
        "melds": "exposed melds and kongs per seat, in the order made",
        "no_calls": "no claim or kong yet this hand (the first go-around is clean: 天聽, 地聽)",
        "phase": "Phase: DEAL (chance), TURN, CLAIM, ROB, OVER",
        "qpos": "index in ``queue`` of the seat deciding now",
        "queue": "seats asked in the open claim / rob window, in turn order from the discarder",
        "results": "HandResults of this game's finished hands, in order",
        "rivers": "discards per seat, in order, as (kind, claimed_by or -1)",
        "round_wind": "prevailing wind (0 = east)",
        "scores": "points per seat won so far in this game",
        "tail": "one past the index in ``wall`` of the next kong replacement (drawn from the back)",
        "turn": "seat whose turn it is (the discarder while a window is open)",
        "wall": "the 136 tile kinds in dealing order, fixed by the shuffle",
        "window_from": "seat that offered the window's tile (discard or added kong), else -1",
        "window_tile": "tile offered in the open claim / rob window, else -1",
    }

    def __init__(self, game: MahjongGame) -> None:
        cfg = game.config
        self.game = game
        self.cfg = cfg
        self.phase = Phase.DEAL
        self.wall: tuple[int, ...] = ()
        self.head = 0
        self.tail = 0
        self.hands: list[list[int]] = [[0] * NUM_KINDS for _ in range(NUM_PLAYERS)]
        self.melds: list[list[Meld]] = [[] for _ in range(NUM_PLAYERS)]
        self.rivers: list[list[tuple[int, int]]] = [[] for _ in range(NUM_PLAYERS)]
        self.discards_drawn: list[list[bool]] = [[] for _ in range(NUM_PLAYERS)]
        self.turn = cfg.dealer
        self.drawn = -1
        self.draw_kind = DrawKind.NONE
        self.after_claim = False
        self.window_tile = -1
        self.window_from = -1
        self.queue: tuple[int, ...] = ()
        self.qpos = 0
        self.intents = [-1] * NUM_PLAYERS
        self.locks = [0] * NUM_PLAYERS
        self.earth = [0] * NUM_PLAYERS
        self.heaven = [0] * NUM_PLAYERS
        self.flowers: list[list[int]] = [[] for _ in range(NUM_PLAYERS)]
        self.no_calls = True
        self.dealer = cfg.dealer
        self.continuation = cfg.continuation
        self.round_wind = cfg.round_wind
        self.hand_number = 0
        self.dealer_passes = 0
        self.scores = [0] * NUM_PLAYERS
        self.last_result: HandResult | None = None
        self.results: tuple[HandResult, ...] = ()

    # ---- protocol ---------------------------------------------------------------------------
    def current_player(self) -> int:
        ph = self.phase
        if ph == Phase.TURN:
            return self.turn
        if ph == Phase.CLAIM or ph == Phase.ROB:
            return self.queue[self.qpos]
        if ph == Phase.DEAL:
            return CHANCE
        return TERMINAL

    def clone(self) -> MahjongState:
        s = MahjongState.__new__(MahjongState)
        s.game = self.game
        s.cfg = self.cfg
        s.phase = self.phase
        s.wall = self.wall  # immutable tuple, shared
        s.head = self.head
        s.tail = self.tail
        s.hands = [h[:] for h in self.hands]
        s.melds = [m[:] for m in self.melds]
        s.rivers = [r[:] for r in self.rivers]
        s.discards_drawn = [r[:] for r in self.discards_drawn]
        s.turn = self.turn
        s.drawn = self.drawn
        s.draw_kind = self.draw_kind
        s.after_claim = self.after_claim
        s.window_tile = self.window_tile
        s.window_from = self.window_from
        s.queue = self.queue
        s.qpos = self.qpos
        s.intents = self.intents[:]
        s.locks = self.locks[:]
        s.earth = self.earth[:]
        s.heaven = self.heaven[:]
        s.flowers = [f[:] for f in self.flowers]
        s.no_calls = self.no_calls
        s.dealer = self.dealer
        s.continuation = self.continuation
        s.round_wind = self.round_wind
        s.hand_number = self.hand_number
        s.dealer_passes = self.dealer_passes
        s.scores = self.scores[:]
        s.last_result = self.last_result
        s.results = self.results
        return s

    def returns(self) -> list[float]:
        if self.phase != Phase.OVER:
            return [0.0] * NUM_PLAYERS
        return [float(x) for x in self.scores]

    def sample_chance(self, rng: np.random.Generator) -> tuple[int, ...]:
        return tuple(int(x) for x in rng.permutation(_FULL_SET_FLOWERS if self.cfg.flowers else _FULL_SET))

    def _check_chance_outcome(self, action: Any) -> None:
        flowers = self.cfg.flowers
        hint = _CHANCE_WALL_HINT_FLOWERS if flowers else _CHANCE_WALL_HINT
        size = NUM_TILES_WITH_FLOWERS if flowers else NUM_TILES
        if not isinstance(action, tuple | list) or len(action) != size:
            raise IllegalMoveError(f"invalid wall {str(action)[:60]!r}: {hint}")
        entries = FLOWER_BASE + (NUM_FLOWERS if flowers else 0)
        counts = [0] * entries
        for k in action:
            if not isinstance(k, int | np.integer) or not 0 <= k < entries:
                raise IllegalMoveError(f"invalid wall: tile kind {k!r} out of range; {hint}")
            counts[k] += 1
        bad = [wall_tile_name(k) for k in range(entries) if counts[k] != (COPIES if k < FLOWER_BASE else 1)]
        if bad:
            raise IllegalMoveError(f"invalid wall: wrong number of {', '.join(bad)}; {hint}")

    # ---- derived quantities -----------------------------------------------------------------
    @property
    def live_tiles(self) -> int:
        """Tiles left for normal draws: the wall minus the dead wall (each kong costs one)."""
        return self.tail - self.head - self.cfg.dead_wall

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])

    def seat_wind(self, seat: int) -> int:
        return (seat - self.dealer) % NUM_PLAYERS

    # ---- legal actions ----------------------------------------------------------------------
    def _legal_actions(self) -> list[int]:
        ph = self.phase
        if ph == Phase.TURN:
            return self._turn_actions()
        seat = self.queue[self.qpos]
        if ph == Phase.CLAIM:
            return self.claim_options(seat, self.window_tile, self.window_from)
        return [WIN, PASS]

    def _turn_actions(self) -> list[int]:
        p = self.turn
        hand = self.hands[p]
        acts = [k for k in range(NUM_KINDS) if hand[k]]
        if self.after_claim:
            return acts
        if self.tail - self.head > self.cfg.dead_wall:  # a replacement tile is there for a kong
            acts.extend([CONCEALED_KONG + k for k in acts if hand[k] == 4])
            for m in self.melds[p]:
                if m.type == MeldType.PUNG and hand[m.tile]:
                    acts.append(ADDED_KONG + m.tile)
        if self._can_self_draw_win(p):
            acts.append(WIN)
        return acts

    def _is_winning_shape(self, p: int, hand: list[int]) -> bool:
        """5 sets + a pair, or 嚦咕嚦咕 (concealed, no melds) when the config plays it."""
        if is_complete(hand):
            return True
        return self.cfg.ligu and not self.melds[p] and is_ligu(hand)

    def _can_self_draw_win(self, p: int) -> bool:
        if self.drawn >= 0 and self.locks[p] >> self.drawn & 1:
            return False
        if not self._is_winning_shape(p, self.hands[p]):
            return False
        if self.cfg.min_tai:
            return score_self_draw(self, p).tai >= self.cfg.min_tai
        return True

    def can_win_on(self, seat: int, tile: int, robbing: bool) -> bool:
        """Whether ``seat`` may win on ``tile`` offered by another seat (a discard, or the tile
        of an added kong when ``robbing``): not locked by a missed win, complete, enough tai."""
        if self.locks[seat] & ((1 << tile) | LOCK_ALL_DISCARDS):
            return False
        hand = self.hands[seat]
        if not hand[tile]:
            # the tile must join a pair, pung or chow with tiles already held
            if tile >= 27:
                return False
            r = tile % 9
            if not (
                (r >= 1 and hand[tile - 1])
                or (r <= 7 and hand[tile + 1])
                or (r >= 2 and hand[tile - 2])
                or (r <= 6 and hand[tile + 2])
            ):
                return False
        hand[tile] += 1
        ok = self._is_winning_shape(seat, hand)
        hand[tile] -= 1
        if ok and self.cfg.min_tai:
            ok = score_discard_win(self, seat, tile, robbing).tai >= self.cfg.min_tai
        return ok

    def claim_options(self, seat: int, t: int, discarder: int) -> list[int]:
        """Claims of ``seat`` on discard ``t`` (PASS last); just [PASS] when there are none."""
        hand = self.hands[seat]
        opts: list[int] = []
        if self.can_win_on(seat, t, False):
            opts.append(WIN)
        if self.tail - self.head > self.cfg.dead_wall:
            c = hand[t]
            if c >= 2:
                opts.append(PUNG)
            if c == 3:
                opts.append(KONG)
            if seat == (discarder + 1) % NUM_PLAYERS and t < 27:
                r = t % 9
                if r <= 6 and hand[t + 1] and hand[t + 2]:
                    opts.append(CHOW_LOW)
                if 1 <= r <= 7 and hand[t - 1] and hand[t + 1]:
                    opts.append(CHOW_MID)
                if r >= 2 and hand[t - 2] and hand[t - 1]:
                    opts.append(CHOW_HIGH)
        opts.append(PASS)
        return opts

    def _is_legal(self, action: Any) -> bool:
        if not isinstance(action, int | np.integer) or isinstance(action, bool):
            return False
        a = int(action)
        if self.phase == Phase.TURN and 0 <= a < CONCEALED_KONG:
            return self.hands[self.turn][a] > 0  # a discard: legal iff the tile is held
        return a in self._legal_actions()

    def _illegal_reason(self, action: Any) -> str:
        who = f"seat {self.current_player()}"
        if (
            not isinstance(action, int | np.integer)
            or isinstance(action, bool)
            or not 0 <= action < NUM_ACTIONS
        ):
            return f"illegal move {action!r} for {who}: mahjong actions are ints 0..{NUM_ACTIONS - 1}"
        a = int(action)
        name = self.action_to_string(a)
        ph = self.phase
        legal = ", ".join(self.action_to_string(x) for x in self._legal_actions())
        if ph == Phase.TURN:
            hand = self.hands[self.turn]
            if a < CONCEALED_KONG and not hand[a]:
                why = f"{tile_name(a)} is not in the hand {format_counts(hand)}"
            elif self.after_claim and a >= CONCEALED_KONG:
                why = "after a chow or pung the claimer must discard"
            elif a >= WIN + 1:
                why = "claims are made in a claim window, not on one's own turn"
            elif a == WIN:
                why = "the hand is not complete" if not is_complete(hand) else "a win is not allowed here"
            elif self.live_tiles < 1:
                why = "no kong with no live tile left for the replacement draw"
            else:
                why = "the tiles for that kong are not there"
        else:
            why = (
                f"in the {'rob-kong' if ph == Phase.ROB else 'claim'} window on {tile_name(self.window_tile)}"
            )
        return f"illegal move {name!r} for {who}: {why} (legal: {legal})"

    # ---- applying ---------------------------------------------------------------------------
    def _apply(self, action: Any) -> None:
        ph = self.phase
        if ph == Phase.DEAL:
            self._start_hand(tuple(int(k) for k in action))
        elif ph == Phase.TURN:
            self._apply_turn(int(action))
        elif ph == Phase.CLAIM:
            self._apply_claim(int(action))
        else:
            self._apply_rob(int(action))

    def _start_hand(self, wall: tuple[int, ...]) -> None:
        self.wall = wall
        hands = [[0] * NUM_KINDS for _ in range(NUM_PLAYERS)]
        self.flowers = [[] for _ in range(NUM_PLAYERS)]
        for i in range(NUM_PLAYERS):
            seat = (self.dealer + i) % NUM_PLAYERS
            self._deal_into(seat, hands[seat], wall[i * HAND_SIZE : (i + 1) * HAND_SIZE])
        seventeenth = NUM_PLAYERS * HAND_SIZE
        self._deal_into(self.dealer, hands[self.dealer], wall[seventeenth : seventeenth + 1])
        self.hands = hands
        self.head = NUM_PLAYERS * HAND_SIZE + 1
        self.tail = len(wall)
        self.melds = [[] for _ in range(NUM_PLAYERS)]
        self.rivers = [[] for _ in range(NUM_PLAYERS)]
        self.discards_drawn = [[] for _ in range(NUM_PLAYERS)]
        self.locks = [0] * NUM_PLAYERS
        self.earth = [0] * NUM_PLAYERS
        self.heaven = [0] * NUM_PLAYERS
        self.no_calls = True
        self.intents = [-1] * NUM_PLAYERS
        self.queue = ()
        self.qpos = 0
        self.window_tile = -1
        self.window_from = -1
        self.turn = self.dealer
        self.drawn = -1
        self.draw_kind = DrawKind.NONE
        self.after_claim = False
        self.phase = Phase.TURN
        if self.cfg.flowers and self._replace_dealt_flowers():
            return  # a flower win at the deal
        if self.cfg.heaven_ready:
            for seat in range(NUM_PLAYERS):
                if seat != self.dealer:
                    self.heaven[seat] = 1 if self._ready(seat) else 2

    def _deal_into(self, seat: int, hand: list[int], tiles: Sequence[int]) -> None:
        for k in tiles:
            if k >= FLOWER_BASE:
                self.flowers[seat].append(k - FLOWER_BASE)
            else:
                hand[k] += 1

    def _replace_dealt_flowers(self) -> bool:
        """補花 after the deal, seat by seat from the dealer: each flower is replaced from the
        tail (a replaced flower again); then a seat with all eight wins (八仙過海), or a seat with
        seven robs the eighth from its holder (七搶一)."""
        for i in range(NUM_PLAYERS):
            seat = (self.dealer + i) % NUM_PLAYERS
            owed = len(self.flowers[seat])
            while owed:
                owed -= 1
                self.tail -= 1
                t = self.wall[self.tail]
                if t >= FLOWER_BASE:
                    self.flowers[seat].append(t - FLOWER_BASE)
                    owed += 1
                else:
                    self.hands[seat][t] += 1
        for seat in range(NUM_PLAYERS):
            n = len(self.flowers[seat])
            if n == NUM_FLOWERS:
                self._end_flower_win(seat, None, "八仙過海")
                return True
            holder = next((q for q in _others(seat) if self.flowers[q]), -1)
            if n == NUM_FLOWERS - 1 and holder >= 0:  # else the eighth is still in the wall
                self._end_flower_win(seat, holder, "七搶一")
                return True
        return False

    def _reveal_flower(self, p: int, flower: int) -> bool:
        """Seat ``p`` draws a flower and shows it; True when that ends the hand in a flower win."""
        self.flowers[p].append(flower)
        if len(self.flowers[p]) == NUM_FLOWERS:
            self._end_flower_win(p, None, "八仙過海")
            return True
        robber = next((q for q in _others(p) if len(self.flowers[q]) == NUM_FLOWERS - 1), -1)
        if robber >= 0:  # 七搶一 needs no decision: nobody would pass 8 tai
            self._end_flower_win(robber, p, "七搶一")
            return True
        return False

    def _ready(self, p: int) -> bool:
        hand = self.hands[p]
        return bool(waits(hand)) or (self.cfg.ligu and not self.melds[p] and bool(ligu_waits(hand)))

    def _draw(self, p: int, replacement: bool) -> None:
        if replacement:
            self.tail -= 1
            t = self.wall[self.tail]
            kind = DrawKind.REPLACEMENT
        else:
            t = self.wall[self.head]
            self.head += 1
            kind = DrawKind.NORMAL
        while t >= FLOWER_BASE:  # a flower is shown and replaced at once: no decision
            if self._reveal_flower(p, t - FLOWER_BASE):
                return
            if self.live_tiles <= 0:
                self._end_hand(None)  # no live tile left for the replacement: the hand is drawn
                return
            self.tail -= 1
            t = self.wall[self.tail]
            if kind == DrawKind.NORMAL:
                kind = DrawKind.FLOWER
        self.draw_kind = kind
        self.hands[p][t] += 1
        self.drawn = t
        self.turn = p
        self.after_claim = False
        self.phase = Phase.TURN

    def _next_draw(self, p: int) -> None:
        if self.live_tiles <= 0:
            self._end_hand(None)
        else:
            self._draw(p, False)

    def _apply_turn(self, a: int) -> None:
        p = self.turn
        hand = self.hands[p]
        if a < CONCEALED_KONG:
            self._discard(p, a)
        elif a < ADDED_KONG:
            k = a - CONCEALED_KONG
            hand[k] -= 4
            self.melds[p].append(Meld(MeldType.CONCEALED_KONG, k))
            self._after_kong(p)
            self._draw(p, True)
        elif a < WIN:
            k = a - ADDED_KONG
            hand[k] -= 1
            robbers = tuple(s for s in _others(p) if self.can_win_on(s, k, True))
            if robbers:
                self.window_tile = k
                self.window_from = p
                self.queue = robbers
                self.qpos = 0
                self.intents = [-1] * NUM_PLAYERS
                self.phase = Phase.ROB
            else:
                self._complete_added_kong(p, k)
        else:  # WIN
            self._end_hand([p], self_draw=True)

    def _after_kong(self, p: int) -> None:
        self.no_calls = False
        if self.earth[p] == 1:
            self.earth[p] = 2
        if self.cfg.heaven_ready:
            self.heaven[p] = 2

    def _complete_added_kong(self, p: int, k: int) -> None:
        melds = self.melds[p]
        for i, m in enumerate(melds):
            if m.type == MeldType.PUNG and m.tile == k:
                melds[i] = Meld(MeldType.ADDED_KONG, k, m.claimed, m.source)
                break
        self._after_kong(p)
        self._clear_window()
        self._draw(p, True)

    def _clear_window(self) -> None:
        self.window_tile = -1
        self.window_from = -1
        self.queue = ()
        self.qpos = 0
        self.intents = [-1] * NUM_PLAYERS

    def _discard(self, p: int, k: int) -> None:
        self.hands[p][k] -= 1
        river = self.rivers[p]
        river.append((k, -1))
        # 摸打 by kind: discarding the drawn kind is the drawn tile (copies are interchangeable)
        self.discards_drawn[p].append(k == self.drawn and self.draw_kind != DrawKind.NONE)
        self.locks[p] = 0
        if self.cfg.earth_ready:
            self._track_earth_ready(p, k, first=len(river) == 1)
        if self.cfg.heaven_ready:
            self._track_heaven_ready(p, drawn_tile=self.discards_drawn[p][-1], first=len(river) == 1)
        queue = tuple(s for s in _others(p) if len(self.claim_options(s, k, p)) > 1)
        if queue:
            self.window_tile = k
            self.window_from = p
            self.queue = queue
            self.qpos = 0
            self.intents = [-1] * NUM_PLAYERS
            self.phase = Phase.CLAIM
        else:
            self._next_draw((p + 1) % NUM_PLAYERS)

    def _track_earth_ready(self, p: int, k: int, first: bool) -> None:
        if first:
            self.earth[p] = 1 if self.no_calls and waits(self.hands[p]) else 2
        elif self.earth[p] == 1 and k != self.drawn:
            self.earth[p] = 2  # the hand changed: no longer frozen since the first discard

    def _track_heaven_ready(self, p: int, *, drawn_tile: bool, first: bool) -> None:
        if p == self.dealer and first and self.heaven[p] == 0:
            # the dealer's first discard comes from his dealt tiles: ready now = 天聽
            self.heaven[p] = 1 if self.no_calls and self._ready(p) else 2
        elif self.heaven[p] == 1 and not drawn_tile:
            self.heaven[p] = 2  # a tile from the hand: no longer the dealt hand

    def _lock_bit(self, tile: int) -> int:
        return LOCK_ALL_DISCARDS if self.cfg.missed_discard_scope == "all" else 1 << tile

    def _apply_claim(self, a: int) -> None:
        seat = self.queue[self.qpos]
        t = self.window_tile
        if a != WIN and self.cfg.missed_discard_lock and self.can_win_on(seat, t, False):
            self.locks[seat] |= self._lock_bit(t)
        self.intents[seat] = a
        self.qpos += 1
        if self.qpos < len(self.queue):
            return
        d = self.window_from
        order = [(d + i) % NUM_PLAYERS for i in (1, 2, 3)]
        winners = [s for s in order if self.intents[s] == WIN]
        if winners:
            if self.cfg.multi_ron == "head_bump":
                winners = winners[:1]
            self._end_hand(winners, self_draw=False)
            return
        claimer = next((s for s in order if self.intents[s] in (PUNG, KONG)), -1)
        if claimer < 0:
            claimer = next((s for s in order if self.intents[s] in (CHOW_LOW, CHOW_MID, CHOW_HIGH)), -1)
        if claimer < 0:
            self._clear_window()
            self._next_draw((d + 1) % NUM_PLAYERS)
            return
        kind = self.intents[claimer]
        river = self.rivers[d]
        river[-1] = (t, claimer)
        hand = self.hands[claimer]
        self.no_calls = False
        if self.earth[claimer] == 1:
            self.earth[claimer] = 2
        if self.cfg.heaven_ready:
            self.heaven[claimer] = 2
        self._clear_window()
        if kind == KONG:
            hand[t] -= 3
            self.melds[claimer].append(Meld(MeldType.EXPOSED_KONG, t, t, d))
            self._draw(claimer, True)
            return
        if kind == PUNG:
            hand[t] -= 2
            self.melds[claimer].append(Meld(MeldType.PUNG, t, t, d))
        else:
            low = t - (kind - CHOW_LOW)
            for k in (low, low + 1, low + 2):
                if k != t:
                    hand[k] -= 1
            self.melds[claimer].append(Meld(MeldType.CHOW, low, t, d))
        self.turn = claimer
        self.drawn = -1
        self.draw_kind = DrawKind.NONE
        self.after_claim = True
        self.phase = Phase.TURN

    def _apply_rob(self, a: int) -> None:
        seat = self.queue[self.qpos]
        t = self.window_tile
        if a != WIN and self.cfg.missed_discard_lock:
            self.locks[seat] |= self._lock_bit(t)
        self.intents[seat] = a
        self.qpos += 1
        if self.qpos < len(self.queue):
            return
        d = self.window_from
        winners = [s for s in ((d + i) % NUM_PLAYERS for i in (1, 2, 3)) if self.intents[s] == WIN]
        if winners:
            if self.cfg.multi_ron == "head_bump":
                winners = winners[:1]
            self._end_hand(winners, self_draw=False, robbing=True)
        else:
            self._complete_added_kong(d, t)

    # ---- the end of a hand (what it pays: paiju.mahjong.settlement) -----------------------------
    def _end_hand(self, winners: list[int] | None, self_draw: bool = False, robbing: bool = False) -> None:
        if winners is None:
            self._settle(exhaustive_draw(self), None)
        else:
            self._settle(win_result(self, winners, self_draw, robbing), winners)

    def _end_flower_win(self, winner: int, payer: int | None, name: str) -> None:
        """八仙過海 (``payer`` None: the three others pay) or 七搶一 (the revealer pays)."""
        self._settle(flower_win_result(self, winner, payer, name), [winner])

    def _settle(self, result: HandResult, winners: list[int] | None) -> None:
        """Book a finished hand: scores, dealer continuation, the next hand or the end."""
        cfg = self.cfg
        deltas = result.deltas
        for p in range(NUM_PLAYERS):
            self.scores[p] += deltas[p]
        self.last_result = result
        self.results = (*self.results, result)
        self._clear_window()
        # dealer continuation (連莊) on a dealer win or a draw; otherwise the deal passes on
        if winners is None or self.dealer in winners:
            self.continuation += 1
        else:
            self.dealer = (self.dealer + 1) % NUM_PLAYERS
            self.continuation = 0
            self.dealer_passes += 1
            if self.dealer_passes % NUM_PLAYERS == 0:
                self.round_wind = (self.round_wind + 1) % NUM_PLAYERS
        self.hand_number += 1
        if cfg.mode == "hand":
            self.phase = Phase.OVER
            return
        rounds_done = self.dealer_passes // NUM_PLAYERS
        if rounds_done >= cfg.rounds or self.hand_number >= cfg.max_hands:
            self.phase = Phase.OVER
        else:
            self.phase = Phase.DEAL
            self.turn = self.dealer

    # ---- observation and notation (paiju.mahjong.observation, paiju.mahjong.notation) ----------
    def observation(self, player: int) -> MahjongObservation:
        return observe(self, player)

    def action_to_string(self, action: Any) -> str:
        return action_to_string(self, action)

    def parse_action(self, text: str) -> int:
        """An action from text: ``5m`` (discard), ``kong 5m``, ``win``, ``pung``, ``chow 345m``, ``pass``.

        Every name :meth:`action_to_string` gives reads back as its action (``discard 5m``,
        ``concealed kong 5m``, ``added kong 5m``, ``win (自摸)``, ``pung 5m``, ...), so a recorded
        hand replays from its move list.

        Raises :class:`InvalidNotationError` for unreadable text, :class:`AmbiguousMoveError` for
        a chow that fits two ways without the tiles, :class:`IllegalMoveError` when the move is
        not legal now.
        """
        legal = self.legal_actions()
        a = read_action(self, text, legal)
        if a not in legal:
            raise IllegalMoveError(self._illegal_reason(a))
        return a

    def random_playout(self, rng: SeedLike = None) -> MahjongState:
        """Play uniformly random legal actions (and chance) to the end, in place; returns self.

        The fast path for rollouts and benchmarks: legality is known by construction, so the
        per-move validation of :meth:`apply` is skipped.
        """
        gen = as_generator(rng)
        while self.phase != Phase.OVER:
            if self.phase == Phase.DEAL:
                self._apply(self.sample_chance(gen))
                continue
            legal = self._legal_actions()
            self._apply(legal[int(gen.integers(len(legal)))] if len(legal) > 1 else legal[0])
        return self

    def __str__(self) -> str:
        return format_state(self)


_FULL_SET = np.repeat(np.arange(NUM_KINDS), COPIES)
_FULL_SET_FLOWERS = np.concatenate([_FULL_SET, np.arange(FLOWER_BASE, FLOWER_BASE + NUM_FLOWERS)])


def _others(p: int) -> tuple[int, int, int]:
    return ((p + 1) % NUM_PLAYERS, (p + 2) % NUM_PLAYERS, (p + 3) % NUM_PLAYERS)


class MahjongGame:
    """Taiwan 16-tile mahjong: one hand (``mode="hand"``, the arena unit) or a full 將."""

    def __init__(self, config: MahjongConfig | None = None, **overrides: Any) -> None:
        cfg = config or MahjongConfig()
        if overrides:
            known = set(MahjongConfig.__dataclass_fields__)
            unknown = sorted(set(overrides) - known)
            if unknown:
                raise ConfigError(f"unknown mahjong rule flag(s) {unknown}; known: {sorted(known)}")
            cfg = replace(cfg, **overrides)
        self.config = cfg
        max_hands = 1 if cfg.mode == "hand" else cfg.max_hands
        # loose bound: every tai of the table, the largest dealer bonus, three payers, every hand
        off = {f for flag, names in FLAG_PATTERNS.items() if not getattr(cfg, flag) for f in names}
        top_tai = sum(getattr(cfg.tai, f) for f in cfg.tai.__dataclass_fields__ if f not in off)
        top_n = cfg.continuation + max_hands
        per_hand = 3 * (cfg.base + (top_tai + 2 * top_n + 1) * cfg.per_tai)
        if cfg.limit is not None:
            per_hand = 3 * (cfg.base + cfg.limit * cfg.per_tai)
        bound = float(per_hand * max_hands)
        self.info = GameInfo(
            name="taiwan_mahjong" if cfg.mode == "hand" else "taiwan_mahjong_game",
            num_players=NUM_PLAYERS,
            has_chance=True,
            perfect_information=False,
            utility_range=(-bound, bound),
            max_game_length=max_hands * (MAX_DECISIONS_PER_HAND + 1),
            rules_version=RULES_VERSION,
            num_distinct_actions=NUM_ACTIONS,
            constant_sum=0.0,
        )

    def new_initial_state(self) -> MahjongState:
        return MahjongState(self)

    def new_hand(self, wall: Sequence[int] | None = None, seed: SeedLike = None) -> MahjongState:
        """A state after the shuffle: from an explicit 136-tile ``wall`` or a seeded shuffle."""
        state = self.new_initial_state()
        if wall is not None:
            state.apply(tuple(int(k) for k in wall))
        else:
            state.apply_chance(as_generator(seed))
        return state

    def record_fields(self, state: MahjongState, history: Sequence[Any]) -> dict[str, Any]:
        """Game-specific record columns (``paiju.core.records``): the replayable first wall, the
        first dealer, the rules, and per hand its wall, winners, payments and patterns."""
        cfg = self.config
        walls = [wall_notation(a) for a in history if isinstance(a, tuple | list)]
        hands = []
        for r in state.results:
            hands.append(
                {
                    "hand": r.hand_number,
                    "dealer": r.dealer,
                    "continuation": r.continuation,
                    "round_wind": r.round_wind,
                    "exhaustive": r.exhaustive,
                    "winners": list(r.winners),
                    "discarder": r.discarder,
                    "self_draw": r.self_draw,
                    "robbed_kong": r.robbed_kong,
                    "winning_tile": tile_name(r.winning_tile) if r.winning_tile >= 0 else None,
                    "patterns": [[list(p) for p in sc.patterns] for sc in r.scores],
                    "deltas": list(r.deltas),
                }
            )
            if cfg.flowers:  # only then: records of the paper's rules stay as they were
                hands[-1]["flowers"] = [[flower_name(f) for f in row] for row in r.flowers]
        return {
            "deal": walls[0] if walls else None,
            "dealer_seat": cfg.dealer,
            "scoring_rule": f"tai:{cfg.tai_table} base={cfg.base} per_tai={cfg.per_tai}",
            "extra": {"walls": walls, "hands": hands, "mode": cfg.mode},
        }

    def summarize_arena(self, rows: Sequence[dict[str, Any]], labels: Sequence[str]) -> Any:
        """The arena's game-specific summary (``paiju.core.arena.summarize``): in game mode the
        per-match figures (:class:`paiju.mahjong.full_match.MatchSummary`), for single hands the
        paper's per-hand figures (:class:`paiju.mahjong.hand_summary.HandsSummary`)."""
        if self.config.mode != "game":
            from paiju.mahjong.hand_summary import HandsSummary

            return HandsSummary.of(rows, labels)
        from paiju.mahjong.full_match import summarize_matches

        return summarize_matches(rows, labels, self.config.rounds)

    def sample_state(self, observation: MahjongObservation, rng: np.random.Generator) -> MahjongState:
        """A full state consistent with ``observation``: the unseen tiles redealt at random.

        Others' concealed tiles, the order of the rest of the wall and the kinds of others'
        face-down kongs are drawn uniformly from the tiles this seat has not seen. When
        another seat is deciding in a claim / rob window (public: the table waits for it),
        its redealt hand must hold a claim on the offered tile: uniform deals are tried first,
        then a hand with a claim is built (a pung or chow if the pool allows, else a win).
        Unknowable private flags of the others (missed-discard locks, sealed declarations
        made before this seat looked) are reset to "none".
        """
        if not isinstance(observation, MahjongObservation):
            raise TypeError(f"sample_state needs a MahjongObservation, not {type(observation).__name__}")
        return _sample_state(self, observation, as_generator(rng))
