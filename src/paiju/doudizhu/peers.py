"""Adapters to the peer engines DouZero 1.1.0 and RLCard 1.2.0 (tests and benchmarks only).

The peers are test dependencies (the ``dev`` extra): this module imports them lazily inside
its functions, and nothing in the library proper imports this module. It converts between
our 15-count vectors and the peers' card encodings and runs *their* code paths:

* DouZero: ``GameEnv.get_legal_card_play_actions`` (its generator + classifier + filters),
  ``move_detector.get_move_type``, and ``GameEnv`` self-play;
* RLCard: ``Judger.playable_cards_from_hand`` (free lead), ``get_gt_cards`` (following),
  and the ``doudizhu`` environment for self-play.

It also holds the oracle of DouZero's documented bugs used by the differential test, so
every difference between the engines is attributed to a named class (D1-D4, see
``docs/doudizhu.md``) or reported as unexplained.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any, Final

import numpy as np

from paiju.doudizhu.cards import MAX_COUNT, NUM_RANKS, Deal
from paiju.doudizhu.movegen import airplanes_solo, generate
from paiju.doudizhu.moves import BOMB_TYPES, KICKER_TYPES, PASS, Move, MoveType, counts_of, key_of

DOUZERO_VALUES: Final = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)
"""DouZero's card value of each of our rank indices (2 = 17, jokers 20 and 30)."""
_DZ_INDEX: Final = {v: i for i, v in enumerate(DOUZERO_VALUES)}
RLCARD_CHARS: Final = "3456789TJQKA2BR"
"""RLCard's rank characters (B/R = black/red joker = our X/D)."""
_RL_INDEX: Final = {c: i for i, c in enumerate(RLCARD_CHARS)}

Counts = tuple[int, ...]


Position = tuple[Counts, Move | None]
"""A move-generation position: the hand's counts and the move to beat (None = free lead)."""

_RICH_TYPES: Final = KICKER_TYPES | {MoveType.TRIO_CHAIN}
"""Moves with kickers and trio chains: the types the rich positions are built around."""


def game_positions(rng: np.random.Generator, n: int) -> list[Position]:
    """``n`` positions met in uniformly random games (hand to move, move to beat)."""
    out: list[Position] = []
    while len(out) < n:
        deal = Deal.random(rng)
        hands = [key_of(h.counts) for h in deal.hands]
        trick: Move | None = None
        passes = 0
        seat = 0
        while True:
            if rng.random() < 0.25:
                out.append((counts_of(hands[seat]), trick))
            moves = generate(hands[seat], trick)
            if trick is not None:
                moves.append(PASS)
            move = moves[int(rng.integers(len(moves)))]
            if move is PASS:
                passes += 1
                if passes == 2:
                    trick, passes = None, 0
            else:
                hands[seat] -= move.key
                trick, passes = move, 0
                if not hands[seat]:
                    break
            seat = (seat + 1) % 3
    return out[:n]


def _rich_hand(rng: np.random.Generator, left: list[int], size: int) -> list[int]:
    """A hand rich in trios, bombs and chains of them, drawn from the cards ``left``."""
    c = [0] * NUM_RANKS
    n = 0
    tries = 0
    while n < size and tries < 200:
        tries += 1
        r = int(rng.integers(NUM_RANKS)) if rng.random() < 0.25 else int(rng.integers(12))
        k = int(rng.choice((1, 2, 3, 3, 3, 4)))
        k = min(k, left[r] - c[r], size - n)
        if k > 0:
            c[r] += k
            n += k
    return c


def rich_positions(rng: np.random.Generator, n: int) -> list[Position]:
    """``n`` positions with hands rich in trios, bombs and airplanes, and tricks to match.

    The move to beat comes from an opponent hand drawn from the remaining cards: mostly an
    airplane, trio or four with kickers, sometimes an airplane *as played when following*
    (e.g. ``444555666777`` read as an airplane of 3), sometimes a free lead.
    """
    out: list[Position] = []
    while len(out) < n:
        left = list(MAX_COUNT)
        hand = _rich_hand(rng, left, int(rng.integers(4, 21)))
        left = [a - b for a, b in zip(left, hand, strict=True)]
        opp = key_of(_rich_hand(rng, left, 20))
        roll = rng.random()
        trick: Move | None = None
        if roll >= 0.15:
            moves = generate(opp)
            rich = [m for m in moves if m.type in _RICH_TYPES]
            pool = rich if rich and roll < 0.8 else moves
            trick = pool[int(rng.integers(len(pool)))]
            if trick.type == MoveType.AIRPLANE_SOLO and rng.random() < 0.5:
                follow = [m for m in generate(opp, trick) if m.type == trick.type]
                lower = [
                    m
                    for m in moves
                    if m.type == trick.type and m.length == trick.length and m.rank < trick.rank
                ]
                if lower:  # a reading only a follower can take (e.g. a trio of wings above the body)
                    follow = [m for m in generate(opp, lower[0]) if m.type == trick.type]
                if follow:
                    trick = follow[int(rng.integers(len(follow)))]
        out.append((tuple(hand), trick))
    return out


def airplane_positions(rng: np.random.Generator, n: int) -> list[Position]:
    """``n`` positions built around long airplanes, where DouZero's airplane bugs show.

    The opponent holds a run of 3-5 trios plus a bomb or a trio among its other cards and
    plays an airplane (its wings often a trio or a bomb: DouZero bugs D2/D3, or a trio chain
    of 4 played as an airplane of 3: D4); our hand holds its own run of trios elsewhere.
    """
    out: list[Position] = []
    while len(out) < n:
        left = list(MAX_COUNT)
        opp = [0] * NUM_RANKS
        hand = [0] * NUM_RANKS
        for who, length in ((opp, int(rng.integers(3, 6))), (hand, int(rng.integers(3, 6)))):
            start = int(rng.integers(0, 12 - length + 1))
            for r in range(start, start + length):
                if left[r] >= 3:
                    who[r] += 3
                    left[r] -= 3
            extra = int(rng.integers(0, 3))
            for _ in range(extra):  # a bomb or a trio among the other cards
                r = int(rng.integers(13))
                k = min(left[r], 4 if rng.random() < 0.5 else 3)
                who[r] += k
                left[r] -= k
        for who, size in ((opp, 20), (hand, 20)):
            room = size - sum(who)
            if room > 0:
                extra_cards = _rich_hand(rng, left, int(rng.integers(0, room + 1)))
                for r in range(NUM_RANKS):
                    who[r] += extra_cards[r]
                    left[r] -= extra_cards[r]
        opp_key, hand_key = key_of(opp), key_of(hand)
        if sum(hand) > 20 or sum(opp) > 20:
            continue
        planes = [m for m in generate(opp_key) if m.type == MoveType.AIRPLANE_SOLO]
        if not planes:
            continue
        odd = [m for m in planes if not m.strict]  # bomb, rocket or trio among the wings
        pool = odd if odd and rng.random() < 0.6 else planes
        trick = pool[int(rng.integers(len(pool)))]
        if rng.random() < 0.3:
            # a set that leads as a trio chain of 4, played as an airplane of 3 by a follower
            lower = [m for m in planes if m.length == 3]
            if lower:
                low = min(lower, key=lambda m: m.rank)
                follow = [
                    m for m in generate(opp_key, low) if m.type == MoveType.AIRPLANE_SOLO and not m.lead
                ]
                if follow:
                    trick = follow[int(rng.integers(len(follow)))]
        out.append((counts_of(hand_key), trick))
    return out


# ---- DouZero -------------------------------------------------------------------------------
def to_douzero(counts: Sequence[int]) -> list[int]:
    return [DOUZERO_VALUES[r] for r in range(NUM_RANKS) for _ in range(counts[r])]


def from_douzero(cards: Sequence[int]) -> Counts:
    c = [0] * NUM_RANKS
    for x in cards:
        c[_DZ_INDEX[x]] += 1
    return tuple(c)


class DouZeroMoves:
    """DouZero's legal moves for (hand, move to beat), through its own ``GameEnv`` code."""

    def __init__(self) -> None:
        from douzero.env.game import GameEnv

        self._env = GameEnv(None)

    def legal_lists(self, hand: Sequence[int], rival: Sequence[int] | None) -> list[list[int]]:
        """Raw DouZero output (DouZero card lists, duplicates kept, pass ``[]`` dropped)."""
        env = self._env
        env.acting_player_position = "landlord"
        env.info_sets["landlord"].player_hand_cards = to_douzero(hand)
        env.card_play_action_seq = [to_douzero(rival)] if rival else []
        return [m for m in env.get_legal_card_play_actions() if m]

    def legal(self, hand: Sequence[int], rival: Sequence[int] | None) -> list[Counts]:
        return [from_douzero(m) for m in self.legal_lists(hand, rival)]


def douzero_type(cards: Sequence[int]) -> int:
    """DouZero's ``get_move_type`` of a card set (15 = TYPE_15_WRONG)."""
    from douzero.env import move_detector

    return int(move_detector.get_move_type(sorted(to_douzero(cards)))["type"])


def _max_trio(counts: Sequence[int]) -> int:
    """DouZero's airplane rank: the highest rank with exactly three cards (wings included)."""
    return max(r for r in range(NUM_RANKS) if counts[r] == 3)


def explain_difference(
    hand: Counts, trick: Move | None, ours: set[Counts], theirs: set[Counts]
) -> str | None:
    """Name the DouZero bug class that explains ``ours != theirs``, or None if none does.

    * D2: the move to beat is an airplane DouZero's classifier rejects (bomb wings, or a
      trio among the wings with 4+ trios), so it offers only bombs and the rocket.
    * D3: airplanes with solo wings ranked by their highest trio *including the wings*.
    * D4: the move to beat is read from its cards alone, so an airplane of 3 whose wings are
      a trio next to the body (played to beat an airplane) becomes a trio chain of 4.
    """
    if trick is None:
        return None
    h = key_of(hand)
    bombs = {m.counts for m in generate(h) if m.type in BOMB_TYPES}
    dz_type = douzero_type(trick.counts)
    if dz_type == 15 and trick.type in (MoveType.AIRPLANE_SOLO, MoveType.AIRPLANE_PAIR):
        same_type = {m.counts for m in generate(h, trick) if m.type == trick.type}
        return "D2" if theirs == bombs and ours - theirs == same_type else None
    if trick.type == MoveType.AIRPLANE_SOLO and dz_type == 10:
        # DouZero sees a trio chain of 4: it answers with higher trio chains of 4 and bombs
        expect = {m.counts for m in generate(h, Move.parse(str(trick), MoveType.TRIO_CHAIN))}
        return "D4" if theirs == expect else None
    if trick.type == MoveType.AIRPLANE_SOLO:
        n = trick.length
        candidates: set[Counts] = set()
        for s in range(0, 12 - n + 1):
            if all(hand[r] >= 3 for r in range(s, s + n)):
                candidates.update(m.counts for m in airplanes_solo(h, s, n, False, False))
        rank = _max_trio(trick.counts)
        expect = {c for c in candidates if _max_trio(c) > rank} | bombs
        return "D3" if theirs == expect else None
    return None


# ---- RLCard --------------------------------------------------------------------------------
def to_rlcard(counts: Sequence[int]) -> str:
    return "".join(RLCARD_CHARS[r] * counts[r] for r in range(NUM_RANKS))


def from_rlcard(text: str) -> Counts:
    c = [0] * NUM_RANKS
    for ch in text:
        c[_RL_INDEX[ch]] += 1
    return tuple(c)


class RLCardMoves:
    """RLCard's legal moves (its strict wing rule) through its judger and ``get_gt_cards``."""

    def __init__(self) -> None:
        from rlcard.games.doudizhu.judger import DoudizhuJudger
        from rlcard.games.doudizhu.utils import CARD_TYPE, get_gt_cards

        self._judger = DoudizhuJudger
        self._gt = get_gt_cards
        self._types = CARD_TYPE[0]

    def legal_strings(self, hand: Sequence[int], rival: Sequence[int] | None) -> list[str]:
        text = to_rlcard(hand)
        if not rival:
            return list(self._judger.playable_cards_from_hand(text))
        player = SimpleNamespace(current_hand=[_RLCard(ch) for ch in text])
        greater = SimpleNamespace(played_cards=to_rlcard(rival))
        return [m for m in self._gt(player, greater) if m != "pass"]

    def legal(self, hand: Sequence[int], rival: Sequence[int] | None) -> list[Counts]:
        return [from_rlcard(m) for m in self.legal_strings(hand, rival)]

    def all_moves(self) -> set[Counts]:
        """RLCard's whole action space (27,471 card sets; pass excluded)."""
        return {from_rlcard(k) for k in self._types}


class _RLCard:
    """Just enough of an RLCard ``Card`` for ``cards2str`` (rank char; jokers via suit)."""

    __slots__ = ("rank", "suit")

    def __init__(self, ch: str) -> None:
        if ch in "BR":
            self.rank, self.suit = "", "BJ" if ch == "B" else "RJ"
        else:
            self.rank, self.suit = ch, "S"


def rlcard_env(seed: int) -> Any:
    import rlcard

    return rlcard.make("doudizhu", config={"seed": seed})


__all__ = [
    "DouZeroMoves",
    "RLCardMoves",
    "douzero_type",
    "explain_difference",
    "from_douzero",
    "from_rlcard",
    "rlcard_env",
    "to_douzero",
    "to_rlcard",
]
