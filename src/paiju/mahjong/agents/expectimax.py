"""Expectimax over the player's own draws and discards (the paper's baseline, ``docs/mahjong-agents.md`` §2).

The tree
--------
Only the player's own moves are modelled (claims by others are ignored, as in the paper):

* a **max node** is a hand of 3k+2 concealed tiles, a discard due; its value is the best of
  its children. Children are the distinct discards; with ``alpha < 1`` only the
  ``ceil(alpha * n)`` best of the ``n`` distinct discards by an :class:`OrderingFunction`
  are expanded (the paper's ``k = ceil(alpha * num(hand))``; we count distinct discards,
  since two copies of a tile are the same move);
* a **chance node** is a 3k+1 hand waiting for its draw; tile ``t`` comes with probability
  ``unseen(t) / sum(unseen)``, where ``unseen`` are the copies the player cannot see (own
  draws deeper in the tree are taken out);
* one **layer** is a discard and a draw. A drawn tile that completes the hand is a self-drawn
  win valued at its **actual score** (:func:`paiju.mahjong.scoring.score_win` with the
  player's melds, winds and dealer status: the points the three others pay). A hand still
  incomplete after ``depth`` layers is a **leaf**, valued by a :class:`LeafEvaluator`;
* a layer beyond the player's remaining draws (the live wall runs out) is worth 0.

Plug-in points (for the Double DQN): ``OrderingFunction.scores`` ranks the discards of a
max node (the network's Q-values), ``LeafEvaluator.evaluate`` values a :class:`LeafBatch`
(every leaf under one chance node: the parent hand plus each drawn tile -- one network batch;
the paper's leaf value is max-Q). Both receive the root :class:`SearchContext` (the
observation: all the visible information) and :class:`SearchNode` values (own concealed
hand and own discards and draws from the root), enough to encode the state at the node.
Chance nodes reached by several orders of the same discards and draws (same hand, same
draws) share one value.

Values are points, the unit of the game's payments, from the player's side: an in-tree win
is what the three others pay for the self-draw (base + tai x per-tai each, dealer tai where
the dealer is involved), by the tai table and stakes of the game being played (the
:class:`~paiju.mahjong.config.MahjongConfig` that the observation carries; the default is
the paper's base 1000, 500 per tai).

The hand-made defaults
----------------------
* :class:`ShantenOrdering`: shanten after the discard, then how isolated the tile is.
* :class:`WinningSpeedEvaluator` ("winning speed", as LongCat): the probability of
  completing the hand from its shanten ``s`` within the ``n`` own draws left, through the
  stage DP ``P[s][n] = (1 - h) (r_s P[s-1][n-1] + (1 - r_s) P[s][n-1])`` (``r_s`` = chance
  that one draw lowers the shanten at ``s``; ``h`` = chance per own draw that someone else
  ends the hand), times the value of a typical win. Every constant is a parameter and is
  documented in ``docs/results/mahjong.md``.

Decisions (the agent): a win is always taken; on its turn the agent compares the best
discard with every legal kong by the same search (a kong = the replacement draw's chance
node); in a claim window it compares pass (its hand's chance node) with each claim (a max
node after the claim) at ``claim_depth`` layers. Only the observation is used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

from paiju.core import deadline
from paiju.core.errors import ConfigError
from paiju.core.rng import SeedLike
from paiju.mahjong.agents._hand import act_by_phase, claim_outcome, draws_left
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.game import (
    ADDED_KONG,
    CONCEALED_KONG,
    KONG,
    NUM_PLAYERS,
    PASS,
    WIN,
    MahjongObservation,
)
from paiju.mahjong.scoring import WinContext, payment_amount, score_win
from paiju.mahjong.shanten import KIND_STEP, KIND_SUIT, shanten_tables, suit_indices
from paiju.mahjong.tiles import NUM_KINDS, Meld, MeldType


class SearchContext(NamedTuple):
    """What is fixed for one search: the root observation and the player's situation."""

    observation: MahjongObservation
    """The root observation: everything the player can see (for feature encoders)."""
    melds: tuple[Meld, ...]
    """The player's melds (after a hypothetical claim or kong when one is evaluated)."""
    sets: int
    """Sets the concealed part still needs (k of a 3k+1 / 3k+2 hand)."""
    unseen: tuple[int, ...]
    """Copies of each kind the player cannot see at the root."""
    draws_left: int
    """Own draws before the exhaustive draw; deeper layers are worth 0."""
    config: MahjongConfig


class SearchNode(NamedTuple):
    """A hand in the tree: the concealed counts and the player's own path from the root."""

    hand: tuple[int, ...]
    """Concealed counts: 3k+2 tiles at a max node (a discard is due), 3k+1 before a draw."""
    discards: tuple[int, ...]
    """Own discards from the root to here, in order."""
    draws: tuple[int, ...]
    """Own draws from the root to here, in order."""
    shanten: int
    layer: int
    """Layers (discard + draw) completed from the root to reach this hand."""


class LeafBatch(NamedTuple):
    """The leaves under one chance node: its 3k+1 hand plus each possible drawn tile.

    Leaf ``i`` is the hand ``parent.hand`` with one more ``tiles[i]``, a 3k+2 hand that is
    not complete (complete ones are wins, valued by their score) and has ``shanten[i]``.
    Its layer is ``parent.layer + 1``.
    """

    parent: SearchNode
    tiles: tuple[int, ...]
    shanten: tuple[int, ...]


@runtime_checkable
class OrderingFunction(Protocol):
    """Ranks the discards of a max node; the search expands the best ``ceil(alpha * n)``."""

    def scores(self, ctx: SearchContext, node: SearchNode, discards: Sequence[int]) -> Sequence[float]:
        """One score per discard kind in ``discards`` (higher = expanded first)."""
        ...


@runtime_checkable
class LeafEvaluator(Protocol):
    """Values hands at the depth limit, in the unit of the actual win scores (points)."""

    def evaluate(self, ctx: SearchContext, batch: LeafBatch) -> Sequence[float]:
        """One value per leaf of the batch (every incomplete hand under one chance node)."""
        ...


# ---------------------------------------------------------------------------------------------
# Hand-made ordering and evaluation
# ---------------------------------------------------------------------------------------------
class ShantenOrdering:
    """Shanten after the discard (lower first), then isolation: lone honours and far tiles first.

    Cheap on purpose (one shanten per discard): with ``alpha < 1`` it decides which
    discards the search looks at, at every max node.
    """

    def scores(self, ctx: SearchContext, node: SearchNode, discards: Sequence[int]) -> list[float]:
        t = shanten_tables()
        hand = node.hand
        index = suit_indices(hand)
        out = []
        for k in discards:
            suit = KIND_SUIT[k]
            index[suit] -= KIND_STEP[k]
            d = t.distance_at(index, ctx.sets)
            index[suit] += KIND_STEP[k]
            out.append(-100.0 * d + _isolation(hand, k))
        return out


def _isolation(hand: Sequence[int], k: int) -> float:
    """How little tile ``k`` connects to the rest of the hand (higher = better to discard)."""
    if k >= 27:
        return 10.0 - 4.0 * (hand[k] - 1)
    r = k % 9
    links = 3.0 * (hand[k] - 1)
    for off, w in ((-2, 1.0), (-1, 2.0), (1, 2.0), (2, 1.0)):
        if 0 <= r + off <= 8:
            links += w * min(hand[k + off], 2)
    edge = 1.0 if r in (0, 8) else 0.5 if r in (1, 7) else 0.0
    return 8.0 - links + edge


class WinningSpeedEvaluator:
    """Leaf value = P(complete the hand within the own draws left) x value of a typical win.

    ``improve`` are the chances ``r_s`` that one own turn lowers the shanten at s = 0, 1, 2
    and >= 3; ``rival`` is the chance per own draw that another player ends the hand first;
    ``win_value`` the points of a typical win (a discard win has one payer, a self-draw
    three). The defaults come from greedy self-play (``benchmarks/mahjong_agents.py
    calibrate``, 150 hands): one draw lowered the shanten 0.13 / 0.23 / 0.47 of the time at
    shanten 1 / 2 / 3+; a ready hand self-drew its win 0.05 of the time, and 79% of the wins
    came on a discard, so its rate per own turn is about 0.05 / 0.21 = 0.24; a win brought
    the winner 2,817 points on average; about one hand in four is won by each player over
    ~18 own draws, hence ``rival`` = 0.04.
    """

    def __init__(
        self,
        win_value: float = 2800.0,
        improve: Sequence[float] = (0.24, 0.13, 0.23, 0.47),
        rival: float = 0.04,
        max_draws: int = 40,
    ) -> None:
        if win_value <= 0 or not improve or any(not 0 < r <= 1 for r in improve) or not 0 <= rival < 1:
            raise ConfigError(f"bad winning-speed parameters: {win_value=}, {improve=}, {rival=}")
        self.win_value = float(win_value)
        self.improve = tuple(float(r) for r in improve)
        self.rival = float(rival)
        self.max_draws = max_draws
        rows = [[1.0] * (max_draws + 1)]  # shanten -1: already complete
        for s in range(18):
            r = self.improve[min(s, len(self.improve) - 1)]
            prev = rows[-1]
            row = [0.0] * (max_draws + 1)
            for n in range(1, max_draws + 1):
                row[n] = (1 - self.rival) * (r * prev[n - 1] + (1 - r) * row[n - 1])
            rows.append(row)
        self._p = rows

    def win_probability(self, shanten: int, draws: int) -> float:
        return self._p[shanten + 1][max(0, min(draws, self.max_draws))]

    def evaluate(self, ctx: SearchContext, batch: LeafBatch) -> list[float]:
        n = max(0, min(ctx.draws_left - batch.parent.layer - 1, self.max_draws))
        p, v = self._p, self.win_value
        return [v * p[s + 1][n] for s in batch.shanten]


# ---------------------------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------------------------
class ExpectimaxSearch:
    """Depth-limited Expectimax with ordering-based pruning; one instance per decision.

    The hand is kept as counts plus the four base-5 suit indices of
    :func:`paiju.mahjong.shanten.suit_indices`, both updated in place as the search discards
    and draws, so the shanten of a child costs a few lookups. ``stats`` counts max nodes,
    chance nodes, leaves and wins met (the benchmarks report them).
    """

    def __init__(
        self,
        ctx: SearchContext,
        depth: int,
        alpha: float,
        ordering: OrderingFunction,
        leaf: LeafEvaluator,
    ) -> None:
        if depth < 1:
            raise ConfigError(f"expectimax depth must be >= 1, got {depth}")
        if not 0 < alpha <= 1:
            raise ConfigError(f"expectimax alpha must be in (0, 1], got {alpha}")
        self.ctx = ctx
        self.depth = depth
        self.alpha = alpha
        self.ordering = ordering
        self.leaf = leaf
        self._tables = shanten_tables()
        self._wins: dict[tuple[tuple[int, ...], int], float] = {}
        self._chance_memo: dict[tuple[tuple[int, ...], tuple[int, ...], int], float] = {}
        self._unseen = list(ctx.unseen)
        self.stats = {"max": 0, "chance": 0, "leaves": 0, "wins": 0}
        obs = ctx.observation
        self._seat_wind = obs.seat_wind
        self._dealer = obs.player == obs.dealer

    # -- helpers -----------------------------------------------------------------------------
    def win_value(self, hand: Sequence[int], tile: int) -> float:
        """Points a self-drawn win with ``hand`` (winning ``tile`` included) brings in."""
        ctx = self.ctx
        obs = ctx.observation
        win = WinContext(
            winning_tile=tile, self_draw=True, seat_wind=self._seat_wind, round_wind=obs.round_wind
        )
        score = score_win(hand, ctx.melds, win, ctx.config)
        total = 0
        for payer in range(NUM_PLAYERS):
            if payer != obs.player:
                involved = self._dealer or payer == obs.dealer
                total += payment_amount(
                    score, dealer_involved=involved, continuation=obs.continuation, config=ctx.config
                )
        return float(total)

    def _win(self, c: list[int], tile: int) -> float:
        self.stats["wins"] += 1
        key = (tuple(c), tile)
        v = self._wins.get(key)
        if v is None:
            v = self.win_value(c, tile)
            self._wins[key] = v
        return v

    def _expand(
        self, c: list[int], index: list[int], layer: int, disc: list[int], draws: list[int],
        allowed: Sequence[int] | None = None,
    ) -> list[int]:
        """The discards of a max node to expand, best first by the ordering."""
        cands = [k for k in range(NUM_KINDS) if c[k] and (allowed is None or k in allowed)]
        if self.alpha >= 1 and layer > 0:
            return cands
        sh = self._tables.distance_at(index, self.ctx.sets) - 1
        node = SearchNode(tuple(c), tuple(disc), tuple(draws), sh, layer)
        scores = self.ordering.scores(self.ctx, node, cands)
        order = sorted(range(len(cands)), key=lambda i: (-scores[i], cands[i]))
        keep = len(cands) if self.alpha >= 1 else max(1, math.ceil(self.alpha * len(cands)))
        return [cands[i] for i in order[:keep]]

    # -- nodes -------------------------------------------------------------------------------
    def max_node(
        self, c: list[int], index: list[int], layer: int, disc: list[int], draws: list[int],
        allowed: Sequence[int] | None = None,
    ) -> tuple[float, int, dict[int, float]]:
        """(value, best discard, value of each expanded discard) of a 3k+2 hand."""
        self.stats["max"] += 1
        deadline.check()  # a max node expands a whole chance layer below it: check each one
        children: dict[int, float] = {}
        best_v, best_k = -math.inf, -1
        for k in self._expand(c, index, layer, disc, draws, allowed):
            suit, step = KIND_SUIT[k], KIND_STEP[k]
            c[k] -= 1
            index[suit] -= step
            disc.append(k)
            v = self.chance_node(c, index, layer, disc, draws)
            disc.pop()
            index[suit] += step
            c[k] += 1
            children[k] = v
            if v > best_v:
                best_v, best_k = v, k
        return best_v, best_k, children

    def chance_node(
        self, c: list[int], index: list[int], layer: int, disc: list[int], draws: list[int]
    ) -> float:
        """Expected value of the draw that completes layer ``layer + 1`` of a 3k+1 hand."""
        if layer >= self.ctx.draws_left:
            return 0.0
        memo_key = (tuple(index), tuple(sorted(draws)), layer)
        v = self._chance_memo.get(memo_key)
        if v is not None:
            return v
        self.stats["chance"] += 1
        unseen = self._unseen
        total = sum(unseen)
        if total <= 0:
            return 0.0
        last = layer + 1 >= self.depth
        sets = self.ctx.sets
        t_ = self._tables
        outcomes = t_.distances_after_draw(index, sets, [t for t in range(NUM_KINDS) if unseen[t]])
        acc = 0.0
        leaf_tiles: list[int] = []
        leaf_shanten: list[int] = []
        leaf_weights: list[int] = []
        for t in range(NUM_KINDS):
            u = unseen[t]
            if not u:
                continue
            suit = KIND_SUIT[t]
            d = outcomes[t]
            if d == 0:
                c[t] += 1
                acc += u * self._win(c, t)
                c[t] -= 1
            elif last:
                leaf_tiles.append(t)
                leaf_shanten.append(d - 1)
                leaf_weights.append(u)
            else:
                step = KIND_STEP[t]
                c[t] += 1
                index[suit] += step
                unseen[t] -= 1
                draws.append(t)
                acc += u * self.max_node(c, index, layer + 1, disc, draws)[0]
                draws.pop()
                unseen[t] += 1
                index[suit] -= step
                c[t] -= 1
        if leaf_tiles:
            self.stats["leaves"] += len(leaf_tiles)
            parent = SearchNode(tuple(c), tuple(disc), tuple(draws), t_.distance_at(index, sets) - 1, layer)
            values = self.leaf.evaluate(self.ctx, LeafBatch(parent, tuple(leaf_tiles), tuple(leaf_shanten)))
            for w, value in zip(leaf_weights, values, strict=True):
                acc += w * value
        v = acc / total
        self._chance_memo[memo_key] = v
        return v

    # -- entry points ------------------------------------------------------------------------
    def root_discard(
        self, hand: Sequence[int], allowed: Sequence[int] | None = None
    ) -> tuple[int, float, dict[int, float]]:
        """Best discard of a 3k+2 hand: (kind, value, value of every expanded discard)."""
        c = list(hand)
        v, k, children = self.max_node(c, suit_indices(c), 0, [], [], allowed)
        return k, v, children

    def root_chance(self, hand: Sequence[int]) -> float:
        """Value of a 3k+1 hand about to draw (after passing a claim, or a kong)."""
        c = list(hand)
        return self.chance_node(c, suit_indices(c), 0, [], [])


# ---------------------------------------------------------------------------------------------
# The agent
# ---------------------------------------------------------------------------------------------
class ExpectimaxAgent:
    """Decides every move by :class:`ExpectimaxSearch` from its own observation."""

    def __init__(
        self,
        seed: SeedLike = None,
        depth: int = 2,
        alpha: float = 0.6,
        claim_depth: int = 1,
        ordering: OrderingFunction | None = None,
        leaf: LeafEvaluator | None = None,
        name: str = "expectimax",
    ) -> None:
        if depth < 1 or claim_depth < 1:
            raise ConfigError(f"expectimax depth and claim_depth must be >= 1, got {depth}, {claim_depth}")
        if not 0 < alpha <= 1:
            raise ConfigError(f"expectimax alpha must be in (0, 1], got {alpha}")
        self.name = name
        self.depth = depth
        self.alpha = alpha
        self.claim_depth = claim_depth
        self.ordering: OrderingFunction = ordering or ShantenOrdering()
        self.leaf: LeafEvaluator = leaf or WinningSpeedEvaluator()
        self.last_search: ExpectimaxSearch | None = None
        """The search behind the latest turn decision (for inspection and benchmarks)."""
        self.last_values: dict[int, float] = {}
        """Value in points of every option the latest decision searched (discard kind or action)."""
        # deterministic: the seed is accepted for the registry's uniform interface only

    def context(
        self, obs: MahjongObservation, melds: Sequence[Meld] | None = None, concealed: int | None = None
    ) -> SearchContext:
        """The search context of ``obs``, optionally after a hypothetical claim or kong."""
        n = sum(obs.hand) if concealed is None else concealed
        return SearchContext(
            observation=obs,
            melds=tuple(obs.melds[obs.player] if melds is None else melds),
            sets=n // 3,
            unseen=tuple(obs.unseen_counts()),
            draws_left=draws_left(obs),
            config=obs.config,  # the game's rules, which the observation carries
        )

    def search(self, ctx: SearchContext, depth: int | None = None) -> ExpectimaxSearch:
        return ExpectimaxSearch(ctx, depth or self.depth, self.alpha, self.ordering, self.leaf)

    def act(self, observation: Any, legal_actions: Sequence[int]) -> int:
        return act_by_phase(observation, legal_actions, self._turn, self._claim)

    def recommend(self, observation: Any, legal_actions: Sequence[int]) -> tuple[int, float | None]:
        """The move :meth:`act` plays and the search's value of it in points; None when no
        search valued it (a win is taken at once). The DQN trainer's shaped reward."""
        self.last_values = {}
        action = self.act(observation, legal_actions)
        return action, self.last_values.get(action)

    def _turn(self, obs: MahjongObservation, legal: list[int]) -> int:
        discards = [a for a in legal if a < NUM_KINDS]
        search = self.search(self.context(obs))
        self.last_search = search
        best, value, children = search.root_discard(obs.hand, discards)
        self.last_values = dict(children)
        if best < 0:
            best = discards[0]
        choice = best
        own = list(obs.melds[obs.player])
        for a in legal:
            if CONCEALED_KONG <= a < WIN:
                hand = list(obs.hand)
                k = a - ADDED_KONG
                if a < ADDED_KONG:
                    k = a - CONCEALED_KONG
                    hand[k] -= 4
                    melds = [*own, Meld(MeldType.CONCEALED_KONG, k)]
                else:
                    hand[k] -= 1
                    melds = [
                        Meld(MeldType.ADDED_KONG, m.tile, m.claimed, m.source)
                        if m.type == MeldType.PUNG and m.tile == k else m
                        for m in own
                    ]
                v = self.search(self.context(obs, melds, sum(hand))).root_chance(hand)
                self.last_values[a] = v
                if v > value:
                    choice, value = a, v
        return choice

    def _claim(self, obs: MahjongObservation, legal: list[int]) -> int:
        own = list(obs.melds[obs.player])
        base = self.search(self.context(obs), self.claim_depth)
        value = base.root_chance(obs.hand)
        self.last_values = {PASS: value}
        choice = PASS
        for a in legal:
            if a in (WIN, PASS):
                continue
            hand, meld = claim_outcome(obs.hand, a, obs.window_tile, obs.window_from)
            search = self.search(self.context(obs, [*own, meld], sum(hand)), self.claim_depth)
            if a == KONG:
                v = search.root_chance(hand)
            else:
                v = search.root_discard(hand)[1]
            self.last_values[a] = v
            if v > value:
                choice, value = a, v
        return choice

