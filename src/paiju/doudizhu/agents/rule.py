"""The ``rule`` Dou Dizhu agent: plays from the exact fewest-plays split, cooperates as a farmer.

Why a split: a hand is won by the side that runs out first, so the number of *plays* a hand
still needs (the exact fewest-plays split of :mod:`paiju.doudizhu.split`, kickers attached)
is the natural measure of progress, and a move is good when it lowers that number. The
rules below are the whole agent; they are also written out in ``docs/ddz-agents.md``.

Lead (free to play anything):

1. A move that empties the hand is played at once.
2. Farmer feeding: when the partner holds **1 card**, lead the lowest solo; when it holds
   **2 cards**, lead the lowest pair if there is one.
3. End game: when every play of the split but at most one is *safe* (no combination of the
   unseen cards, within the opponents' hand sizes, beats it), lead the safe plays first,
   largest first, and keep the lead to the last play.
4. Otherwise lead a play of the split (so the remaining plays drop by one), preferring
   non-bombs, then plays whose main rank is below 2 (2s and jokers are kept as controls),
   then the lowest main rank, then more cards. When an opponent holds 1 card, unsafe solos
   are led last and highest first; when it holds 2 cards, unsafe pairs are led last.

Follow (a trick to beat):

1. A move that empties the hand is played at once.
2. Partner's trick: pass (never overtake a winning partner), except as farmer 2 (the
   landlord plays next) when the landlord holds <= 2 cards and could beat the partner's
   solo or pair: then block with the highest move of that type.
3. Opponent's trick, non-bomb answers, each scored by the plays left after it:
   if an opponent holds 1 card and the trick is a solo, play the highest solo; else play
   the answer leaving the fewest plays (lowest rank on ties) when it lowers the count
   (it does not break a useful group); when it leaves the count unchanged, play it if it
   is below 2 or the trick's owner holds <= 10 cards; play even a group-breaking answer
   when the owner holds <= 4 cards or an opponent <= 2.
4. Bombs (lowest bomb first, the rocket last) when no answer above was chosen and the bomb
   pays: what remains after it is at most one play, or the owner holds <= 4 cards, or an
   opponent holds <= 2.
5. Otherwise pass.

Bidding: :func:`bid_for` (hand strength from jokers, 2s and bombs).

The policy works on a :class:`Situation` (hand, seats, sizes, trick, the unseen cards), which
the agent builds from its own observation and which :mod:`paiju.doudizhu.agents.search`
builds for each seat of a determinized state in its rollouts: the same rules, fast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from paiju.core.errors import ConfigError
from paiju.core.protocol import Action
from paiju.core.rng import SeedLike
from paiju.doudizhu import split_exact as _ex
from paiju.doudizhu.agents import RULE_SPLITS
from paiju.doudizhu.cards import BIG_JOKER, NUM_RANKS, SMALL_JOKER, TWO, Hand
from paiju.doudizhu.game import BIDS, Bid, DouDizhuObservation, are_moves
from paiju.doudizhu.movegen import generate, is_legal
from paiju.doudizhu.moves import BOMB_TYPES, PASS, UNIT, Move, MoveType, counts_of, intern, key_of
from paiju.doudizhu.split import GroupType, Split, exact

# hot-path aliases of the members (docs/design.md, "One source per fact")
_PASS, _SOLO, _PAIR, _TRIO = MoveType.PASS, MoveType.SOLO, MoveType.PAIR, MoveType.TRIO
_BOMB, _ROCKET = MoveType.BOMB, MoveType.ROCKET
_TRIO_SOLO, _TRIO_PAIR = MoveType.TRIO_SOLO, MoveType.TRIO_PAIR
_SOLO_CHAIN, _PAIR_CHAIN, _TRIO_CHAIN = MoveType.SOLO_CHAIN, MoveType.PAIR_CHAIN, MoveType.TRIO_CHAIN
_AIRPLANE_SOLO, _AIRPLANE_PAIR = MoveType.AIRPLANE_SOLO, MoveType.AIRPLANE_PAIR
_FOUR_TWO_SOLO, _FOUR_TWO_PAIR = MoveType.FOUR_TWO_SOLO, MoveType.FOUR_TWO_PAIR
_CACHE_LIMIT: Final = 300_000

_GROUP_MOVE: Final = {
    GroupType.SOLO: _SOLO,
    GroupType.PAIR: _PAIR,
    GroupType.TRIO: _TRIO,
    GroupType.BOMB: _BOMB,
    GroupType.ROCKET: _ROCKET,
    GroupType.SOLO_CHAIN: _SOLO_CHAIN,
    GroupType.PAIR_CHAIN: _PAIR_CHAIN,
    GroupType.TRIO_CHAIN: _TRIO_CHAIN,
}


# ---- cached hand facts ----------------------------------------------------------------------
_PLAYS: dict[int, int] = {}


def plays_left(key: int) -> int:
    """Fewest plays (kickers attached) of the hand with packed key ``key``; cached."""
    v = _PLAYS.get(key)
    if v is None:
        v = _ex.min_plays(counts_of(key)) if key else 0
        if len(_PLAYS) >= _CACHE_LIMIT:
            _PLAYS.clear()
        _PLAYS[key] = v
    return v


_GROUPS: dict[int, int] = {}


def groups_left(key: int) -> int:
    """Fewest basic groups of a hand (packed key): the cheaper measure used in rollouts."""
    v = _GROUPS.get(key)
    if v is None:
        v = _ex.min_groups(counts_of(key)) if key else 0
        if len(_GROUPS) >= _CACHE_LIMIT:
            _GROUPS.clear()
        _GROUPS[key] = v
    return v


_LEADS: dict[int, tuple[Move, ...]] = {}


def split_leads(key: int, strict: bool = False) -> tuple[Move, ...]:
    """The plays of the exact fewest-plays split of a hand, as legal lead moves; cached.

    A carrier with kickers becomes a trio with solo/pair, an airplane or a four with two;
    if that move is not allowed (RLCard's stricter wings) the carrier is led bare.
    """
    ck = (key << 1) | strict
    got = _LEADS.get(ck)
    if got is not None:
        return got
    result = leads_of(exact(counts_of(key), "plays"), key, strict)
    if len(_LEADS) >= _CACHE_LIMIT:
        _LEADS.clear()
    _LEADS[ck] = result
    return result


def leads_of(split: Split, key: int, strict: bool = False) -> tuple[Move, ...]:
    """The plays of ``split`` (of the hand with packed key ``key``, kickers attached by
    :meth:`Split.plays`) as legal lead moves, without repeats."""
    out: list[Move] = []
    for play in split.plays():
        body = play.body
        move_type = _GROUP_MOVE[body.type]
        rank = body.low
        if play.kickers:
            solos = play.kickers[0].type is GroupType.SOLO
            if body.type is GroupType.TRIO:
                move_type = _TRIO_SOLO if solos else _TRIO_PAIR
            elif body.type is GroupType.TRIO_CHAIN:
                move_type = _AIRPLANE_SOLO if solos else _AIRPLANE_PAIR
            else:
                move_type = _FOUR_TWO_SOLO if solos else _FOUR_TWO_PAIR
        move = intern(key_of(play.counts), move_type, rank)
        if not is_legal(key, move, None, strict=strict):
            move = intern(key_of(body.counts), _GROUP_MOVE[body.type], rank)
        if move not in out:
            out.append(move)
    return tuple(out)


Leads = Callable[[int, bool], tuple[Move, ...]]
"""Where a lead's candidate plays come from: packed hand and wing rule -> lead moves."""


class TaggerLeads:
    """Leads from the shipped tagger's split of the hand as it is at each lead (the tagger
    learned from initial hands; asked about a smaller hand it still returns a legal split).
    Kickers are attached to its trios, airplanes and fours by :meth:`Split.plays`, the same
    rule the exact split's plays follow. One tagger call per distinct hand (cached)."""

    def __init__(self) -> None:
        from paiju.doudizhu.tagger.model import shipped_model

        self.model = shipped_model()
        self.cache: dict[int, tuple[Move, ...]] = {}

    def __call__(self, key: int, strict: bool = False) -> tuple[Move, ...]:
        ck = (key << 1) | strict
        got = self.cache.get(ck)
        if got is None:
            from paiju.doudizhu.tagger.model import tag_hands

            split = tag_hands(self.model, [Hand.from_counts(counts_of(key))])[0].split
            got = leads_of(split, key, strict)
            if len(self.cache) >= _CACHE_LIMIT:
                self.cache.clear()
            self.cache[ck] = got
        return got


def clear_caches() -> None:
    """Forget the agent caches (results never depend on them)."""
    _PLAYS.clear()
    _GROUPS.clear()
    _LEADS.clear()


# ---- the situation --------------------------------------------------------------------------
@dataclass(slots=True)
class Situation:
    """What the rule policy needs to know, in packed keys (built from an observation or a state)."""

    hand: int
    """Packed key of the acting seat's cards."""
    me: int
    landlord: int
    sizes: tuple[int, ...]
    """Cards held by each seat."""
    to_beat: Move | None
    owner: int | None
    """Seat that played ``to_beat`` (None on a free lead)."""
    unseen: int
    """Packed key of the cards the acting seat cannot see (the other two hands together)."""
    strict: bool = False
    """RLCard wing rule in force (matters for the leads built from the split)."""
    fast: bool = False
    """Score answers by the fewest *groups* instead of the fewest plays (rollouts: ~5x cheaper)."""

    @property
    def partner(self) -> int | None:
        """The other farmer, or None for the landlord."""
        return None if self.me == self.landlord else 3 - self.me - self.landlord

    @property
    def opponents(self) -> tuple[int, ...]:
        if self.me == self.landlord:
            return tuple(s for s in range(3) if s != self.me)
        return (self.landlord,)

    @classmethod
    def from_observation(cls, obs: DouDizhuObservation, strict: bool = False) -> Situation:
        if obs.landlord is None:
            raise ValueError("the rule policy plays the card play; this observation has no landlord yet")
        return cls(
            hand=key_of(obs.hand.counts),
            me=obs.player,
            landlord=obs.landlord,
            sizes=obs.hand_sizes,
            to_beat=obs.to_beat,
            owner=obs.trick_owner,
            unseen=key_of(obs.unseen().counts),
            strict=strict,
        )


def _is_bomb(m: Move) -> bool:
    return m.type in BOMB_TYPES


def beatable(move: Move, sit: Situation) -> bool:
    """Could the unseen cards beat ``move`` within the opponents' hand sizes? (conservative:
    a farmer counts its partner's cards as unseen too)."""
    most = max(sit.sizes[o] for o in sit.opponents)
    return any(b.size <= most for b in generate(sit.unseen, move, strict=sit.strict))


def finishing_move(sit: Situation, legal: Sequence[Move]) -> Move | None:
    """A legal move that empties the hand (a bomb or rocket preferred: it doubles), or None."""
    n = sit.sizes[sit.me]
    best = None
    for m in legal:
        if m.size == n and (best is None or _is_bomb(m)):
            best = m
    return best


def lowest_of_width(hand: int, width: int) -> Move | None:
    """The lowest solo (``width`` 1) or pair (2) of packed hand ``hand``, or None."""
    c = counts_of(hand)
    for r in range(NUM_RANKS):
        if c[r] >= width:
            return intern(width * UNIT[r], _SOLO if width == 1 else _PAIR, r)
    return None


# ---- lead -----------------------------------------------------------------------------------
def lead_order(sit: Situation, plays: Sequence[Move]) -> list[Move]:
    """The split's plays in the order rule 4 of the lead prefers them."""
    danger = min(sit.sizes[o] for o in sit.opponents)
    safe: dict[Move, bool] = {}

    def is_safe(m: Move) -> bool:
        if m not in safe:
            safe[m] = not beatable(m, sit)
        return safe[m]

    def key(m: Move) -> tuple[int, int, int, int, int]:
        if danger == 1 and m.type == _SOLO and not is_safe(m):
            return (2, 0, 0, -m.rank, 0)
        if danger == 2 and m.type == _PAIR and not is_safe(m):
            return (1, 0, 0, -m.rank, 0)
        return (0, _is_bomb(m), m.rank >= TWO, m.rank, -m.size)

    return sorted(plays, key=key)


def rule_lead(sit: Situation, legal: Sequence[Move], leads: Leads = split_leads) -> Move:
    done = finishing_move(sit, legal)
    if done is not None:
        return done
    partner = sit.partner
    if partner is not None:
        ps = sit.sizes[partner]
        if ps == 1:
            feed = lowest_of_width(sit.hand, 1)
            if feed is not None:
                return feed
        elif ps == 2:
            feed = lowest_of_width(sit.hand, 2)
            if feed is not None and feed.rank < TWO:
                return feed
    plays = leads(sit.hand, sit.strict)
    if len(plays) >= 2:
        unsafe = 0
        safe_plays = []
        for m in plays:
            if beatable(m, sit):
                unsafe += 1
                if unsafe > 1:
                    break
            else:
                safe_plays.append(m)
        if unsafe <= 1:
            return max(safe_plays, key=lambda m: (m.size, -m.rank))
    return lead_order(sit, plays)[0]


# ---- follow ---------------------------------------------------------------------------------
def ranked_answers(sit: Situation, normal: Sequence[Move]) -> list[tuple[int, int, Move]]:
    """Non-bomb answers as (plays left after it, main rank, move), best first."""
    hand = sit.hand
    value = groups_left if sit.fast else plays_left
    return sorted(((value(hand - m.key), m.rank, m) for m in normal), key=lambda t: (t[0], t[1]))


def rule_follow(sit: Situation, legal: Sequence[Move]) -> Move:
    done = finishing_move(sit, legal)
    if done is not None:
        return done
    beat = sit.to_beat
    assert beat is not None and sit.owner is not None
    normal = [m for m in legal if m.type != _PASS and not _is_bomb(m)]
    bombs = [m for m in legal if _is_bomb(m)]
    if sit.owner == sit.partner:
        landlord = sit.landlord
        if (
            (sit.me + 1) % 3 == landlord
            and sit.sizes[landlord] <= 2
            and beat.type in (_SOLO, _PAIR)
            and beat.size <= sit.sizes[landlord]
            and beatable(beat, sit)
        ):
            block = [m for m in normal if m.type == beat.type]
            if block:
                return max(block, key=lambda m: m.rank)
        return PASS
    owner_size = sit.sizes[sit.owner]
    danger = min(sit.sizes[o] for o in sit.opponents)
    if normal:
        if danger == 1 and beat.type == _SOLO:
            return max(normal, key=lambda m: m.rank)
        cur = groups_left(sit.hand) if sit.fast else plays_left(sit.hand)
        p, rank, m = ranked_answers(sit, normal)[0]
        if p <= cur - 1:
            return m
        if p == cur and (rank < TWO or owner_size <= 10):
            return m
        if owner_size <= 4 or danger <= 2:
            return m
    if bombs:
        b = min(bombs, key=lambda m: (m.type == _ROCKET, m.rank))
        if (groups_left if sit.fast else plays_left)(sit.hand - b.key) <= 1 or owner_size <= 4 or danger <= 2:
            return b
    return PASS


def rule_move(sit: Situation, legal: Sequence[Move], leads: Leads = split_leads) -> Move:
    """The rule policy's move in ``sit`` among ``legal`` (pass included when following);
    ``leads`` gives the split's plays a lead chooses from."""
    if sit.to_beat is None:
        return rule_lead(sit, legal, leads)
    return rule_follow(sit, legal)


# ---- bidding --------------------------------------------------------------------------------
def hand_strength(counts: Sequence[int]) -> int:
    """Points for bidding: big joker 4, small joker 3, each 2 counts 2, each bomb 4 (rocket
    counted by its jokers)."""
    bombs = sum(1 for r in range(SMALL_JOKER) if counts[r] == 4)
    return 4 * counts[BIG_JOKER] + 3 * counts[SMALL_JOKER] + 2 * counts[TWO] + 4 * bombs


def bid_for(hand: Any, legal: Sequence[Action]) -> Action:
    """Bid 3 with strength >= 10, 2 with >= 8, 1 with >= 6 (if still allowed), else no bid."""
    s = hand_strength(hand.counts)
    want = 3 if s >= 10 else 2 if s >= 8 else 1 if s >= 6 else 0
    for value in range(want, 0, -1):
        if BIDS[value] in legal:
            return BIDS[value]
    return BIDS[0]


# ---- the agent ------------------------------------------------------------------------------
class RuleAgent:
    """Plays the rule policy from its own observation (see the module docstring).

    The wing rule comes from the game (the observation's ``config``): under RLCard's stricter
    wings the leads built from the split are checked against that rule. ``split`` is where
    leads come from: ``exact`` (the fewest-plays split) or ``tagger`` (the shipped learned
    split, :class:`TaggerLeads`); follows count plays by the exact measure either way.
    """

    def __init__(self, seed: SeedLike = None, name: str = "rule", split: str = "exact") -> None:
        if split not in RULE_SPLITS:
            raise ConfigError(
                f"rule agent: unknown split {split!r}; expected one of {', '.join(RULE_SPLITS)}"
            )
        self.name = name
        self.seed = seed
        self.leads: Leads = TaggerLeads() if split == "tagger" else split_leads

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("rule agent asked to act with no legal actions")
        if observation.phase == "bidding" or isinstance(legal_actions[0], Bid):
            return bid_for(observation.hand, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        if not are_moves(legal_actions):
            raise ValueError(f"rule agent: in play the legal actions are moves, not {legal_actions[0]!r}")
        sit = Situation.from_observation(observation, observation.config.strict_wings)
        return rule_move(sit, legal_actions, self.leads)


__all__ = [
    "Leads",
    "RuleAgent",
    "Situation",
    "TaggerLeads",
    "beatable",
    "bid_for",
    "clear_caches",
    "finishing_move",
    "groups_left",
    "hand_strength",
    "lead_order",
    "leads_of",
    "lowest_of_width",
    "plays_left",
    "ranked_answers",
    "rule_follow",
    "rule_lead",
    "rule_move",
    "split_leads",
]
