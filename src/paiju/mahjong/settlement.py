"""Settling a mahjong hand: scoring a win in a position and what a finished hand pays.

The engine (:mod:`paiju.mahjong.game`) decides *when* a hand ends (a win, a flower win, the
wall running out); this module says what that end is worth, as a :class:`HandResult` value,
from the state as it stands. The tai come from :func:`paiju.mahjong.scoring.score_win` on the
position's :class:`~paiju.mahjong.scoring.WinContext` (built here, once, for the rules' 最低台
check and for the settlement alike), who pays whom from
:func:`paiju.mahjong.scoring.payments` (``docs/design.md`` §16). Booking the result (scores,
the dealer's continuation, the next hand) is a move of the game and stays in the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.phases import NUM_PLAYERS, DrawKind
from paiju.mahjong.scoring import Payment, Score, WinContext, payments, score_flower_win, score_win

if TYPE_CHECKING:  # the engine calls this module: its type only, no import circle
    from paiju.mahjong.game import MahjongState


@dataclass(frozen=True)
class HandResult:
    """How a hand ended: public once it is over (the winners' hands are shown)."""

    hand_number: int
    dealer: int
    continuation: int
    round_wind: int
    exhaustive: bool
    """流局: nobody won."""
    winners: tuple[int, ...] = ()
    discarder: int | None = None
    """Who pays a discard win (the robbed konger for 搶槓); None for a self-draw or a draw."""
    self_draw: bool = False
    robbed_kong: bool = False
    winning_tile: int = -1
    scores: tuple[Score, ...] = ()
    """One per winner, in ``winners`` order."""
    winning_hands: tuple[tuple[int, ...], ...] = ()
    """Each winner's concealed counts including the winning tile."""
    deltas: tuple[int, ...] = (0, 0, 0, 0)
    """Points won (+) and paid (-) by each seat in this hand."""
    payments: tuple[Payment, ...] = ()
    """Every (winner, payer) payment of the hand, in winner then payer order."""
    flowers: tuple[tuple[int, ...], ...] = ()
    """Every seat's revealed flowers at the end (empty when flowers are not played)."""

    def breakdown(
        self, winner_index: int, payer: int, config: MahjongConfig | None = None
    ) -> list[tuple[str, int]]:
        """(pattern, tai) lines of what ``payer`` owes winner ``winners[winner_index]``.

        ``config`` is accepted for compatibility and unused: the lines were computed with the
        game's own config when the hand ended (see :attr:`payments`).
        """
        w = self.winners[winner_index]
        for pay in self.payments:
            if pay.winner == w and pay.payer == payer:
                return list(pay.lines)
        raise ValueError(f"seat {payer} pays nothing to seat {w} in hand {self.hand_number}")


# ---- scoring a win in a position ------------------------------------------------------------------
def win_context(
    state: MahjongState, seat: int, tile: int | None, self_draw: bool, robbing: bool
) -> WinContext:
    """The circumstances of ``seat`` winning now (on ``tile``; None for a self-draw with no
    drawn tile): what :func:`~paiju.mahjong.scoring.score_win` reads besides the tiles."""
    first = state.no_calls and not state.rivers[seat]
    dealer = seat == state.dealer
    live = state.live_tiles
    draw_kind = state.draw_kind
    return WinContext(
        winning_tile=tile,
        self_draw=self_draw,
        seat_wind=state.seat_wind(seat),
        round_wind=state.round_wind,
        robbing_kong=robbing,
        kong_bloom=self_draw and draw_kind == DrawKind.REPLACEMENT,
        last_tile=self_draw and live == 0 and draw_kind != DrawKind.NONE,
        last_discard=not self_draw and not robbing and live == 0,
        heaven=self_draw and dealer and first and draw_kind == DrawKind.NONE,
        earth=self_draw and not dealer and first and draw_kind in (DrawKind.NORMAL, DrawKind.FLOWER),
        human=not self_draw and not dealer and first and not robbing,
        earth_ready=state.earth[seat] == 1,
        heaven_ready=state.heaven[seat] == 1,
        flowers=tuple(state.flowers[seat]),
    )


def score_self_draw(state: MahjongState, seat: int) -> Score:
    """The score of ``seat`` (the turn player) winning on his own tiles now (自摸)."""
    tile = state.drawn if state.draw_kind != DrawKind.NONE else None
    context = win_context(state, seat, tile, True, False)
    return score_win(state.hands[seat], state.melds[seat], context, state.cfg)


def score_discard_win(state: MahjongState, seat: int, tile: int, robbing: bool) -> Score:
    """The score of ``seat`` winning on ``tile`` offered by another seat (the discard, or the
    tile of an added kong when ``robbing``)."""
    hand = state.hands[seat][:]
    hand[tile] += 1
    context = win_context(state, seat, tile, False, robbing)
    return score_win(hand, state.melds[seat], context, state.cfg)


# ---- what a finished hand pays ----------------------------------------------------------------------
def flowers_shown(state: MahjongState) -> tuple[tuple[int, ...], ...]:
    """Every seat's revealed flowers, for the record; empty when flowers are not played."""
    return tuple(tuple(f) for f in state.flowers) if state.cfg.flowers else ()


def exhaustive_draw(state: MahjongState) -> HandResult:
    """流局: the wall ran out with nobody winning; nobody pays."""
    return HandResult(
        hand_number=state.hand_number,
        dealer=state.dealer,
        continuation=state.continuation,
        round_wind=state.round_wind,
        exhaustive=True,
        flowers=flowers_shown(state),
    )


def win_result(state: MahjongState, winners: list[int], self_draw: bool, robbing: bool) -> HandResult:
    """``winners`` win now: on their own draw (``self_draw``: the turn player), else on the
    window's tile (the discard, or the robbed kong's tile when ``robbing``); each is scored
    and paid by :func:`~paiju.mahjong.scoring.payments`."""
    dealer, n, cfg = state.dealer, state.continuation, state.cfg
    deltas = [0] * NUM_PLAYERS
    scores = []
    hands = []
    paid: list[Payment] = []
    tile = state.window_tile if not self_draw else state.drawn
    discarder = None if self_draw else state.window_from
    for w in winners:
        if self_draw:
            score = score_self_draw(state, w)
            hand = tuple(state.hands[w])
        else:
            score = score_discard_win(state, w, tile, robbing)
            h = state.hands[w][:]
            h[tile] += 1
            hand = tuple(h)
        scores.append(score)
        hands.append(hand)
        pays = payments(w, score, discarder=discarder, dealer=dealer, continuation=n, config=cfg)
        for pay in pays:
            deltas[pay.payer] -= pay.amount
            deltas[w] += pay.amount
        paid += pays
    return HandResult(
        hand_number=state.hand_number,
        dealer=state.dealer,
        continuation=state.continuation,
        round_wind=state.round_wind,
        exhaustive=False,
        winners=tuple(winners),
        discarder=discarder,
        self_draw=self_draw,
        robbed_kong=robbing,
        winning_tile=tile if not (self_draw and state.draw_kind == DrawKind.NONE) else -1,
        scores=tuple(scores),
        winning_hands=tuple(hands),
        deltas=tuple(deltas),
        payments=tuple(paid),
        flowers=flowers_shown(state),
    )


def flower_win_result(state: MahjongState, winner: int, payer: int | None, name: str) -> HandResult:
    """A flower win: 八仙過海 (``payer`` None: the three others pay) or 七搶一 (the revealer pays)."""
    dealer, n, cfg = state.dealer, state.continuation, state.cfg
    score = score_flower_win(name, state.flowers[winner], cfg)
    pays = payments(winner, score, discarder=payer, dealer=dealer, continuation=n, config=cfg)
    deltas = [0] * NUM_PLAYERS
    for pay in pays:
        deltas[pay.payer] -= pay.amount
        deltas[winner] += pay.amount
    return HandResult(
        hand_number=state.hand_number,
        dealer=state.dealer,
        continuation=state.continuation,
        round_wind=state.round_wind,
        exhaustive=False,
        winners=(winner,),
        discarder=payer,
        self_draw=payer is None,
        scores=(score,),
        winning_hands=(tuple(state.hands[winner]),),
        deltas=tuple(deltas),
        payments=tuple(pays),
        flowers=flowers_shown(state),
    )
