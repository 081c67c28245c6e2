"""The greedy agent: fastest hand first (shanten, then effective tiles), with a simple defence.

Rules, in order (all from the agent's own observation):

1. **Win** whenever it may (self-draw, a discard, robbing a kong).
2. **Discard** the tile that leaves the lowest shanten, then the most effective tiles (unseen
   copies of the kinds that lower the shanten: 進張), then the least dangerous tile
   (:func:`~paiju.mahjong.agents._hand.danger`), then the lowest kind (deterministic).
3. **Defence (fold)**: when an opponent looks ready (three exposed sets,
   :func:`~paiju.mahjong.agents._hand.threats`) and the agent is still two or more tiles
   from ready after its best discard, it discards the least dangerous tile instead,
   shanten and effective tiles only breaking ties.
4. **Kongs on its turn**: a concealed kong when the hand without the four tiles is no
   further from winning than after the best discard; an added kong when discarding that
   tile would not raise the shanten (the kong then draws a replacement for free).
5. **Claims** (pung, chow, exposed kong): pung / chow only when the best discard after the
   claim lowers the shanten; an exposed kong when removing the three tiles does not raise it.
   Otherwise pass. Tai (e.g. losing 門清) are not weighed: the greedy agent only races.

Under the 嚦咕嚦咕 rule (``config.ligu``, docs/mahjong-rules.md §9.2) a player without melds
counts his shanten toward the nearer of the two winning shapes
(:func:`~paiju.mahjong.agents._hand.hand_distance`), so he keeps a hand of pairs together and
waits on its 嚦咕嚦咕 tiles; a claim or a kong (a meld) leaves only 5 sets + a pair.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from paiju.core.rng import SeedLike
from paiju.mahjong.agents._hand import (
    CHOWS,
    act_by_phase,
    claim_outcome,
    danger,
    distance,
    hand_distance,
    plays_ligu,
    threats,
)
from paiju.mahjong.features import discard_shapes
from paiju.mahjong.game import (
    ADDED_KONG,
    CONCEALED_KONG,
    KONG,
    PASS,
    PUNG,
    WIN,
    MahjongGame,
    MahjongObservation,
    MahjongState,
    Phase,
)
from paiju.mahjong.tiles import NUM_KINDS


def rank_discards(
    hand: Sequence[int], unseen: Sequence[int], obs: MahjongObservation | None = None, *, defence: bool = True
) -> list[tuple[int, int, int, float]]:
    """Every distinct discard as (kind, shanten after, effective tiles after, danger), best first.

    The shanten is toward 嚦咕嚦咕 too when ``obs`` says the rule is on and the player has no
    meld (:func:`~paiju.mahjong.agents._hand.plays_ligu`)."""
    counts = list(hand)
    ligu = obs is not None and plays_ligu(obs)
    threat_seats = threats(obs) if (obs is not None and defence) else []
    shapes = discard_shapes(counts, unseen, ligu=ligu)
    rows = [(k, sh, eff, danger(k, obs, unseen, threat_seats) if obs is not None else 0.0)
            for k, sh, eff in shapes]
    best_sh = min(r[1] for r in rows)
    if threat_seats and best_sh >= 2:
        rows.sort(key=lambda r: (r[3], r[1], -r[2], r[0]))
    else:
        rows.sort(key=lambda r: (r[1], -r[2], r[3], r[0]))
    return rows


class GreedyAgent:
    """Minimises shanten, then maximises effective tiles; folds against a ready-looking hand."""

    def __init__(self, seed: SeedLike = None, defence: bool = True, name: str = "greedy") -> None:
        self.name = name
        self.defence = defence
        # deterministic: the seed is accepted for the registry's uniform interface only

    def act(self, observation: Any, legal_actions: Sequence[int]) -> int:
        return act_by_phase(observation, legal_actions, self._turn, self._claim)

    def _turn(self, obs: MahjongObservation, legal: list[int]) -> int:
        hand = list(obs.hand)
        unseen = obs.unseen_counts()
        # distance of a 3k+2 hand = that after its best discard; a kong is a meld, so the
        # hand after one can only be 5 sets + a pair (plain distance)
        best = hand_distance(hand, plays_ligu(obs))
        for a in legal:
            if CONCEALED_KONG <= a < ADDED_KONG:
                k = a - CONCEALED_KONG
                after = list(hand)
                after[k] -= 4
                if distance(after) <= best:
                    return a
            elif ADDED_KONG <= a < WIN:
                k = a - ADDED_KONG
                after = list(hand)
                after[k] -= 1
                if distance(after) <= best:
                    return a
        discards = [a for a in legal if a < NUM_KINDS]
        ranked = rank_discards(hand, unseen, obs, defence=self.defence)
        for kind, *_ in ranked:
            if kind in discards:
                return kind
        return discards[0]

    def _claim(self, obs: MahjongObservation, legal: list[int]) -> int:
        hand = obs.hand
        now = hand_distance(hand, plays_ligu(obs))  # 3k+1 hand; a claim leaves 5 sets + a pair only
        unseen = obs.unseen_counts()
        best: tuple[int, int] | None = None
        choice = PASS
        for a in legal:
            if a == PUNG or a in CHOWS:
                after, _ = claim_outcome(hand, a, obs.window_tile, obs.window_from)
                _, sh, eff, _ = rank_discards(after, unseen, None, defence=False)[0]
                if sh + 1 < now and (best is None or (sh, -eff) < best):
                    best = (sh, -eff)
                    choice = a
        if choice == PASS and KONG in legal:
            after, _ = claim_outcome(hand, KONG, obs.window_tile, obs.window_from)
            if distance(after) <= now:
                choice = KONG
        return choice


def greedy_turns(
    hands: int, seed: int, game: MahjongGame | None = None
) -> Iterator[tuple[int, MahjongState, MahjongObservation]]:
    """Greedy self-play of ``hands`` hands (seeds ``seed``, ``seed + 1``, ...), for calibration
    data: every turn on which a seat must discard and cannot win, as (hand number, state, that
    seat's observation), before greedy plays it. The state moves on when the next is asked for."""
    game = game or MahjongGame()
    greedy = GreedyAgent()
    for h in range(hands):
        state = game.new_hand(seed=seed + h)
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if obs.phase == Phase.TURN and WIN not in legal:
                yield h, state, obs
            state.apply(greedy.act(obs, legal) if len(legal) > 1 else legal[0])
