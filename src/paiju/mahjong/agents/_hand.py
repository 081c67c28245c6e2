"""What the mahjong agents share: reading an observation, claim outcomes, danger of a discard.

Everything here works from a :class:`~paiju.mahjong.game.MahjongObservation` alone (the
agents never see the state) and on plain 34-count lists, so it is cheap enough to call at
every decision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from paiju.mahjong.game import (
    CHOW_HIGH,
    CHOW_LOW,
    CHOW_MID,
    KONG,
    NUM_PLAYERS,
    PASS,
    PUNG,
    WIN,
    MahjongObservation,
    Phase,
)
from paiju.mahjong.shanten import KIND_STEP, KIND_SUIT, shanten_tables, suit_indices
from paiju.mahjong.tiles import NUM_KINDS, Meld, MeldType

CHOWS = (CHOW_LOW, CHOW_MID, CHOW_HIGH)
CLAIMS = (PUNG, KONG, *CHOWS)


def distance(counts: Sequence[int]) -> int:
    """Shanten + 1 of a concealed hand of any 3k+1 / 3k+2 size (no validation: hot path)."""
    return shanten_tables().distance(counts, sum(counts) // 3)


LIGU_TILES = 17
"""嚦咕嚦咕 is a hand of 17 concealed tiles: seven pairs and one pung (docs/mahjong-rules.md §9.2)."""


def ligu_distance(counts: Sequence[int]) -> int:
    """Shanten + 1 of a concealed hand of 16 or 17 tiles toward 嚦咕嚦咕 (seven pairs + one pung,
    four of a kind counting as two pairs), in the unit of :func:`distance`: 0 = complete.

    The distance is 17 minus the most tiles the hand shares with a 嚦咕嚦咕 hand. The pung
    kind keeps up to 3 of its tiles; every other kind offers "pair units" of two tiles (a
    second unit only for four of a kind), a unit keeping ``min(2, count)`` tiles, a second one
    ``count - 2``. Gains are 2 or 1, so the best seven units are the 2-gains first: a closed
    form over the four kinds of pung choice (a kind held 1..4 times, or a new kind).
    Like the shanten tables it ignores which tiles are still live.
    """
    held = [0, 0, 0, 0, 0]  # kinds held 0..4 times (only 1..4 are read)
    for c in counts:
        if c:
            held[c] += 1
    twos = held[2] + held[3] + 2 * held[4]  # units keeping two tiles
    ones = held[1] + held[3]  # units keeping one tile (a single, the third of a triple)

    def best(pung_kept: int, twos_: int, ones_: int) -> int:
        t = min(7, twos_)
        return pung_kept + 2 * t + min(7 - t, ones_)

    kept = best(0, twos, ones)  # the pung from a kind not held
    if held[1]:
        kept = max(kept, best(1, twos, ones - 1))
    if held[2]:
        kept = max(kept, best(2, twos - 1, ones))
    if held[3]:
        kept = max(kept, best(3, twos - 1, ones - 1))
    if held[4]:
        kept = max(kept, best(3, twos - 2, ones))
    return LIGU_TILES - kept


def plays_ligu(obs: MahjongObservation) -> bool:
    """Whether 嚦咕嚦咕 can still be this player's win: the game's rule is on and he has no meld
    (the rule comes from the game, which the observation carries)."""
    return obs.config.ligu and not obs.melds[obs.player]


def hand_distance(counts: Sequence[int], ligu: bool = False) -> int:
    """:func:`distance` toward any winning shape: with ``ligu`` (:func:`plays_ligu`) also
    嚦咕嚦咕, whichever is nearer. ``ligu`` False is exactly :func:`distance`."""
    d = distance(counts)
    if ligu and sum(counts) >= LIGU_TILES - 1:
        d = min(d, ligu_distance(counts))
    return d


def is_complete_hand(counts: Sequence[int], ligu: bool = False) -> bool:
    """The agents' win check: 5 sets + a pair, or with ``ligu`` also 嚦咕嚦咕 (17 tiles)."""
    return hand_distance(counts, ligu) == 0


def effective_total(
    counts: Sequence[int], unseen: Sequence[int], index: list[int] | None = None, ligu: bool = False
) -> int:
    """Unseen copies of the kinds whose draw lowers the shanten of a 3k+1 hand.

    ``index`` (the hand's :func:`~paiju.mahjong.shanten.suit_indices`, left unchanged) saves
    recomputing it when the caller already has it. With ``ligu`` the shanten is toward either
    shape (:func:`hand_distance`).
    """
    if ligu:
        return _effective_total_ligu(counts, unseen)
    t = shanten_tables()
    sets = sum(counts) // 3
    idx = suit_indices(counts) if index is None else index
    d = t.distance_at(idx, sets)
    total = 0
    for k in range(NUM_KINDS):
        if unseen[k] and counts[k] < 4:
            suit, step = KIND_SUIT[k], KIND_STEP[k]
            idx[suit] += step
            if t.distance_at(idx, sets) < d:
                total += unseen[k]
            idx[suit] -= step
    return total


def _effective_total_ligu(counts: Sequence[int], unseen: Sequence[int]) -> int:
    """:func:`effective_total` toward either 5 sets + a pair or 嚦咕嚦咕."""
    c = list(counts)
    d = hand_distance(c, True)
    total = 0
    for k in range(NUM_KINDS):
        if unseen[k] and c[k] < 4:
            c[k] += 1
            if hand_distance(c, True) < d:
                total += unseen[k]
            c[k] -= 1
    return total


def claim_outcome(hand: Sequence[int], action: int, tile: int, source: int) -> tuple[list[int], Meld]:
    """Concealed counts and the new meld after claiming ``tile`` with ``action``."""
    after = list(hand)
    if action == PUNG:
        after[tile] -= 2
        return after, Meld(MeldType.PUNG, tile, tile, source)
    if action == KONG:
        after[tile] -= 3
        return after, Meld(MeldType.EXPOSED_KONG, tile, tile, source)
    low = tile - (action - CHOW_LOW)
    for k in (low, low + 1, low + 2):
        if k != tile:
            after[k] -= 1
    return after, Meld(MeldType.CHOW, low, tile, source)


def threats(obs: MahjongObservation) -> list[int]:
    """Opponents that look ready: three or more exposed sets (at most 7 concealed tiles left).

    A simple, public signal: a player who has claimed three sets is usually one or two tiles
    from winning, and his waits are what a defensive discard should avoid.
    """
    out = []
    for seat in range(NUM_PLAYERS):
        if seat != obs.player and len(obs.melds[seat]) >= 3:
            out.append(seat)
    return out


def danger(kind: int, obs: MahjongObservation, unseen: Sequence[int], threat_seats: Sequence[int]) -> float:
    """How likely discarding ``kind`` feeds an opponent (higher = more dangerous).

    Hand-made and documented in ``docs/results/mahjong.md``:

    * a kind whose other copies are all visible cannot complete a pung or a pair wait;
      honours can then never be won on, suited tiles only by a chow (+1);
    * otherwise more unseen copies = more likely someone holds a pair or a pung of it;
    * suited tiles also complete chows: middle tiles (3-7) more than 2/8, more than 1/9;
    * a kind a threatening player discarded himself is unlikely to be his wait (his own
      discards are public and a player rarely waits on what he threw away), so it is halved.
    """
    u = unseen[kind]
    if kind >= 27:
        score = float(u)
    else:
        r = kind % 9
        chow = 1.0 if r in (0, 8) else 1.5 if r in (1, 7) else 2.0
        score = u + chow
    for seat in threat_seats:
        if any(k == kind for k, _ in obs.discards[seat]):
            score *= 0.5
    return score


def draws_left(obs: MahjongObservation) -> int:
    """Own normal draws to expect before the exhaustive draw (kongs and claims aside).

    Draws go round the table from the seat after the current turn; this seat is ``pos``-th
    in that order (4th on its own turn), so it gets draws ``pos, pos + 4, ...`` of the
    ``live_tiles`` left.
    """
    if obs.window_from >= 0:
        pos = (obs.player - obs.window_from) % NUM_PLAYERS
    else:
        pos = (obs.player - obs.turn - 1) % NUM_PLAYERS + 1
    return 0 if obs.live_tiles < pos else (obs.live_tiles - pos) // NUM_PLAYERS + 1


Decide = Callable[[MahjongObservation, list[int]], int]


def act_by_phase(obs: MahjongObservation, legal_actions: Sequence[int], turn: Decide, claim: Decide) -> int:
    """The decision every mahjong agent shares: win whenever the rules allow it, else decide
    the turn (discard or kong) or the claim window; anything else is a pass."""
    legal = list(legal_actions)
    if WIN in legal:
        return WIN
    if obs.phase == Phase.TURN:
        return turn(obs, legal)
    if obs.phase == Phase.CLAIM:
        return claim(obs, legal)
    return PASS
