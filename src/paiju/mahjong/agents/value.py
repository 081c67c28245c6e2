"""The value-based Expectimax (``expectimax``): the paper's tree, a leaf that knows what a hand is worth.

The tree (``docs/mahjong-agents.md`` §3)
-----------------------------------------
Max over the player's own discards, chance over the player's own draws, each drawn kind ``t``
weighted by ``unseen(t)`` (the copies the player cannot see; own draws deeper in the tree
are taken out). ``depth`` counts the **discard layers**: depth 2 is discard, draw, discard,
then a leaf. A drawn tile that completes the hand is a self-drawn win at its actual score
(:func:`paiju.mahjong.scoring.score_win`). Before each in-tree draw of a *ready* hand the
three others discard: with the leaf's chance (below) one of them is a wait, a discard win
at its actual score; and with ``rival`` per go-around someone else ends the hand. The draws
after the last discard are not branched on: the leaf's win probability covers them.

Pruning is the paper's: a max node expands the ``k = min(ceil(alpha * num(hand)),
distinct discards)`` best discards by :class:`~paiju.mahjong.agents.expectimax.ShantenOrdering`,
``num(hand)`` counting the concealed tiles (``prune="tiles"``); ``prune="kinds"`` counts
distinct kinds instead (harder pruning, the old agent's rule).

Leaves are collected over the whole decision (every discard tree, every claim or kong
considered) and valued in **one** call of a :class:`LeafValueEvaluator` (the Double DQN's
plug-in point: a batch of :class:`LeafState`, one network forward pass).

The analytic leaf (:class:`HandValueEvaluator`)
-----------------------------------------------
A leaf is a 3k+1 hand waiting for its draws, ``n`` own draws left. Its value is
``P(win before the hand ends) x expected payment``:

* **ready** hand: its real waits and their live copies ``w`` (unseen as the player sees
  them) out of ``U`` unseen tiles. Per go-around the three others discard (each a wait with
  chance ``ron_rate * w / U``) and the player draws (a wait with chance ``w / U``); a rival
  ends the hand with chance ``rival``. The payment of each wait is scored exactly, for the
  self-draw (three payers) and for a discard (one payer, averaged over the three seats, the
  dealer's tai where involved), by the game's tai table;
* **not ready** (shanten ``s``): the first improvement comes with the hand's own effective
  tiles (all kinds that lower the shanten, live copies ``e / U`` per draw); the later steps
  at the calibrated rates ``improve``; once ready, a typical wait wins ``ready_rate`` per
  go-around. The payment is the hand's tai estimate (:func:`tai_estimate`: 門清 while no
  open meld, the honour pungs already held or paired, a flush in reach), at the mix of
  self-draws and discard wins ``self_draw_share``.

Defence (the root discard)
--------------------------
Each opponent's chance of being ready is estimated from public facts
(:func:`readiness`: exposed sets, discards so far, and how many of his latest discards were
the tile just drawn -- ``discards_drawn`` -- the sign of a hand that no longer changes).
Discarding ``k`` deals in with ``1 - prod(1 - ready_o * wait_o(k))``, where ``wait_o(k) =
min(0.5, wait_scale * danger)`` scales the documented :func:`~paiju.mahjong.agents._hand.danger`
score (``wait_scale`` 0.02: in greedy self-play about 2% per danger point of a ready
player's tiles-in-question were his wait, ``calibrate``); a discard's value is then
``(1 - p) * tree value - sum_o ready_o * wait_o(k) * cost_o`` (``cost_o`` = the payment of
a typical win of ``deal_in_tai`` tai to him). Folding is the discard this makes best.

Claims and kongs are valued by the same search: pass is the current hand's leaf; a chow or
pung is the max node of the hand after it, with the claimed meld open (so 門清 and its tai
are lost in the leaf and in every in-tree win, and the flexibility is what the effective
tiles of the smaller hand say); an exposed or concealed kong is the leaf after it with one
more draw (the replacement).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from paiju.core import deadline
from paiju.core.errors import ConfigError
from paiju.core.rng import SeedLike
from paiju.mahjong.agents._hand import act_by_phase, claim_outcome, danger, draws_left
from paiju.mahjong.agents.defence import deal_in_chances
from paiju.mahjong.agents.expectimax import (
    ExpectimaxAgent,
    OrderingFunction,
    SearchContext,
    SearchNode,
)
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
from paiju.mahjong.tiles import NUM_KINDS, Meld, MeldType, Tile

PRUNE_MODES = ("tiles", "kinds")
RON_MODES = ("flat", "classes")
"""How a discard win's chance is read: one ``ron_rate`` for every wait, or :data:`RON_RATES` by class."""
RON_RATE = 0.6
"""The flat ``ron_rate``: an opponent's discard is a given live tile 0.6 times as often as drawing it."""
RATE_MODES = ("first", "selfplay")
"""The not-ready leaf's speed: the first calibration's rates, or :data:`SELFPLAY_RATES`."""

SELFPLAY_RATES: dict[str, Any] = {
    "improve": (0.25, 0.38, 0.47, 0.63),
    "ready_rate": 0.19,
    "first_step_scale": (1.6, 1.5, 1.3, 1.15),
}
"""``rates=selfplay``: per own turn in greedy self-play, among turns the hand survived (nobody
else won before the player's next discard), the chance that the shanten fell by the next own
discard, claims included: 0.249 / 0.379 / 0.465 / 0.625 at shanten 1 / 2 / 3 / 4+; a ready
hand won 0.193 of them. The same rate over the hand's own effective-tile rate (unseen
effective copies / unseen) was 1.59 / 1.51 / 1.29 / 1.13: claims and kong draws speed a hand
beyond its draws (``benchmarks/mahjong_expectimax.py leaf-rates --hands 600 --seed 40000``).
The first calibration's rates (``improve`` 0.13 / 0.23 / 0.47, ``ready_rate`` 0.24, no
factor) made a hand two or more steps from ready win half as often as such hands do."""
DRAGONS = (31, 32, 33)

RIVAL_HAZARD = (0.25, 0.30, 0.31, 0.31, 0.25, 0.23, 0.20, 0.14, 0.10, 0.05, 0.03, 0.005, 0.0)
"""Chance that another player ends the hand before the player's next draw, by the player's own
draws left (index; the last entry holds beyond). Measured in greedy self-play
(``benchmarks/mahjong_expectimax.py hazard --hands 1500 --seed 10000``): almost nothing while
every hand is young, a third per go-around near the end; 98% of hands end in a win. A single
rate (the first agent's 0.04) makes a hand think it has far more time than it does, which
overvalues slow, concealed hands against a claim."""


SAVED_LOSS = 940.0
"""What a win is worth beyond its payment: it ends the hand before anyone else wins. When another
player wins, each of the others loses about a third of the average win on the average (a
self-draw's share, or the whole deal-in). 940 is a third of the 2,817-point mean win of the
first calibration (``benchmarks/mahjong_agents.py calibrate``, 150 hands); a larger greedy
self-play under the default rules measures a mean win of 3,468 and a mean loss of 1,211 when
another player wins (``benchmarks/mahjong_expectimax.py hazard --hands 1500 --seed 10000``).
The agent was measured with 940 (docs/results/mahjong-expectimax.md); 1,211 is untried.
Without it a slow, valuable hand looks better than a fast one whose speed protects the player."""


RON_CLASSES = ("honour", "terminal", "2/8", "3-7")
"""Classes of a wait for its chance of being discarded (:func:`kind_class`)."""


def kind_class(kind: int) -> int:
    """Index into :data:`RON_CLASSES` of a tile kind: honours, 1 and 9, 2 and 8, 3 to 7."""
    tile = Tile(kind)
    if tile.is_honour:
        return 0
    return 1 if tile.is_terminal else 2 if tile.number in (2, 8) else 3


RON_RATES = (1.25, 1.25, 0.95, 0.66)
"""``ron=classes``: per class of :data:`RON_CLASSES`, the chance that an opponent's discard is a
given live wait relative to drawing it (hits / ``unseen(t) / sum(unseen)`` at every discard,
for every ready seat's live waits; ``benchmarks/mahjong_expectimax.py ron-rates``, greedy
self-play). Opponents keep the middle tiles they can use and throw honours and terminals,
so one flat ``ron_rate`` (0.6) undervalues an edge, terminal or honour wait."""


def ron_by_kind(by_class: Sequence[float]) -> tuple[float, ...]:
    """Per kind, the ron rate of a wait on it: ``by_class[kind_class(kind)]`` (built once per set
    of rates: every decision's search asks for it)."""
    return _ron_by_kind(tuple(float(r) for r in by_class))


@functools.lru_cache(maxsize=8)
def _ron_by_kind(by_class: tuple[float, ...]) -> tuple[float, ...]:
    if len(by_class) != len(RON_CLASSES) or any(not 0 <= r <= 3 for r in by_class):
        raise ConfigError(f"ron rates by class must be {len(RON_CLASSES)} values in [0, 3], got {by_class!r}")
    return tuple(by_class[kind_class(k)] for k in range(NUM_KINDS))


def keep_table(rival: float | Sequence[float], max_draws: int) -> np.ndarray:
    """``keep[n]`` = 1 - chance that another player ends the hand in the go-around of own draw ``n``
    (``n`` own draws left): ``rival`` is one rate for every go-around or a table by draws left."""
    rates = [float(rival)] if isinstance(rival, (int, float)) else [float(r) for r in rival]
    if not rates or any(not 0 <= r < 1 for r in rates):
        raise ConfigError(f"rival rates must be in [0, 1), got {rival!r}")
    return np.array([1 - rates[min(n, len(rates) - 1)] for n in range(max_draws + 1)])


def ron_chance(live_ron: float, total: int) -> float:
    """Chance that one of the three others' discards of a go-around is a wait: each discard is
    one with ``live_ron / total`` (the live waits weighted by their ron rates, among the unseen)."""
    return 1 - (1 - min(1.0, live_ron / total)) ** (NUM_PLAYERS - 1)


class LeafState(NamedTuple):
    """A leaf: a 3k+1 concealed hand after the player's last in-tree discard, waiting to draw."""

    hand: tuple[int, ...]
    """Concealed counts (3k+1 tiles)."""
    melds: tuple[Meld, ...]
    """The player's melds (a claim or kong under consideration included)."""
    unseen: tuple[int, ...]
    """Copies of each kind the player cannot see (own in-tree draws taken out)."""
    draws_left: int
    """Own draws still to come before the exhaustive draw."""
    discards: tuple[int, ...]
    """Own in-tree discards from the root, in order (the last one made this leaf)."""
    draws: tuple[int, ...]
    """Own in-tree draws from the root, in order."""


@runtime_checkable
class LeafValueEvaluator(Protocol):
    """Values a batch of leaves in points (the unit of the in-tree win scores)."""

    def evaluate(self, observation: MahjongObservation, leaves: Sequence[LeafState]) -> np.ndarray:
        """One value per leaf (float array of ``len(leaves)``), from the root observation."""
        ...


# ---------------------------------------------------------------------------------------------
# Reading the hand: shanten, effective tiles and waits in one pass
# ---------------------------------------------------------------------------------------------
_NEAR: list[dict[int, tuple[int, ...]]] = [{}, {}, {}, {}]
"""Per suit (m, p, s, honours): base-5 suit index -> the kinds of that suit near it."""


def near_kinds(hand: Sequence[int], index: Sequence[int] | None = None) -> list[int]:
    """Kinds a draw of which can lower the shanten: held ones and suited ones within 2 of a held one.

    A drawn tile with no copy and no neighbour in the hand joins no set, pair or partial set,
    so the hand is as far from complete as before -- unless the hand holds a kind four times:
    then its fourth copy is a single that can never pair, and any new tile can be the pair's
    first half, so every kind is returned (checked on random hands, with and without a
    quad, by ``tests/mahjong/test_mj_expectimax.py``). Cached per suit on the suit's base-5
    index.
    """
    if 4 in hand:
        return list(range(NUM_KINDS))
    idx = suit_indices(hand) if index is None else index
    out: list[int] = []
    for suit in range(4):
        cache = _NEAR[suit]
        kinds = cache.get(idx[suit])
        if kinds is None:
            base = 9 * suit
            if suit == 3:
                kinds = tuple(t for t in range(27, NUM_KINDS) if hand[t])
            else:
                kinds = tuple(
                    base + r for r in range(9)
                    if any(hand[base + x] for x in range(max(0, r - 2), min(8, r + 2) + 1))
                )
            cache[idx[suit]] = kinds
        out.extend(kinds)
    return out


def tai_estimate(
    hand: Sequence[int], melds: Sequence[Meld], obs: MahjongObservation, config: MahjongConfig
) -> tuple[float, float]:
    """(tai of a discard win, extra tai of a self-draw) a hand on its way can expect, by the game's table.

    Counted: 門清 while no meld is open (a concealed kong keeps it where the rules say so);
    the honour pungs already held (dragons, own seat wind, prevailing wind), a pair of one
    at a third; a one-suit hand (plus honours) at half the flush tai, since it may not
    stay in one suit. Self-draw adds 自摸, or turns 門清 into 門清自摸.
    """
    tai = config.tai
    open_meld = any(
        m.type != MeldType.CONCEALED_KONG or not config.concealed_kong_keeps_menqing for m in melds
    )
    counts = list(hand)
    for m in melds:
        if m.tile >= 0:
            for k in m.kinds():
                counts[k] += 1
    value = 0.0
    for k, t in ((31, tai.dragon_pung), (32, tai.dragon_pung), (33, tai.dragon_pung),
                 (27 + obs.seat_wind, tai.seat_wind), (27 + obs.round_wind, tai.round_wind)):
        if counts[k] >= 3:
            value += t
        elif counts[k] == 2:
            value += t / 3
    suits = [sum(counts[9 * s: 9 * s + 9]) for s in range(3)]
    honours = sum(counts[27:])
    if sum(1 for x in suits if x) == 1:
        value += 0.5 * (tai.full_flush if honours == 0 else tai.half_flush)
    if open_meld:
        return value, float(tai.self_draw)
    return value + tai.concealed, float(tai.concealed_self_draw - tai.concealed)


# ---------------------------------------------------------------------------------------------
# The analytic leaf
# ---------------------------------------------------------------------------------------------
class HandValueEvaluator:
    """``P(win before the hand ends) x expected payment`` of each leaf (see the module text).

    Defaults, from greedy self-play (``benchmarks/mahjong_agents.py calibrate``, 150 hands,
    ``docs/results/mahjong.md``): one draw lowered the shanten 0.13 / 0.23 / 0.47 of the time
    at shanten 1 / 2 / 3+ (``improve``, used after the first step); a ready hand won 0.24 of
    its own go-arounds (``ready_rate``) with 79% of the wins on discards
    (``self_draw_share`` 0.21); one hand in four is won by each player over ~18 own draws
    (``rival`` 0.04 per go-around). ``ron_rate`` scales the chance that an opponent's
    discard is a given live tile relative to drawing it (opponents keep what they need,
    so below 1); ``ron_by_class`` gives it per class of wait instead (:data:`RON_RATES`).
    """

    def __init__(
        self,
        ron_rate: float = RON_RATE,
        rival: float | Sequence[float] = RIVAL_HAZARD,
        ready_rate: float = 0.24,
        improve: Sequence[float] = (0.13, 0.23, 0.47),
        self_draw_share: float = 0.21,
        saved_loss: float = 0.0,
        max_draws: int = 40,
        ron_by_class: Sequence[float] | None = None,
        first_step_scale: Sequence[float] = (),
    ) -> None:
        if not 0 <= ron_rate <= 3 or not 0 < ready_rate <= 1:
            raise ConfigError(f"bad hand-value parameters: {ron_rate=}, {ready_rate=}")
        if not improve or any(not 0 < r <= 1 for r in improve) or not 0 <= self_draw_share <= 1:
            raise ConfigError(f"bad hand-value parameters: {improve=}, {self_draw_share=}")
        self.ron_rate = float(ron_rate)
        self._ron_weights = None if ron_by_class is None else ron_by_kind(ron_by_class)
        self.rival = rival
        self._keep = keep_table(rival, max_draws)
        self.ready_rate = float(ready_rate)
        self.improve = tuple(float(r) for r in improve)
        if any(not 0 < x <= 5 for x in first_step_scale):
            raise ConfigError(f"bad hand-value parameters: {first_step_scale=}")
        self.first_step_scale = tuple(float(x) for x in first_step_scale)
        """By shanten 1, 2, ... (the last holds beyond): the factor on a not-ready leaf's own
        effective-tile rate for its first step (claims speed it too); empty: no factor."""
        self.self_draw_share = float(self_draw_share)
        self.saved_loss = float(saved_loss)
        """Points added to every win: the loss that ending the hand saves (:data:`SAVED_LOSS`)."""
        self.max_draws = max_draws
        self.calls = 0
        """How many batches were evaluated (one per decision: a test counts them)."""
        # stage[j][n]: P(win) from shanten j (0 = ready) with n own go-arounds, unit value
        keep = self._keep
        rows = []
        ready = [0.0] * (max_draws + 1)
        for n in range(1, max_draws + 1):
            ready[n] = keep[n] * (self.ready_rate + (1 - self.ready_rate) * ready[n - 1])
        rows.append(ready)
        for j in range(1, 16):
            r = self.improve[min(j - 1, len(self.improve) - 1)]
            prev, row = rows[-1], [0.0] * (max_draws + 1)
            for n in range(1, max_draws + 1):
                row[n] = keep[n] * (r * prev[n - 1] + (1 - r) * row[n - 1])
            rows.append(row)
        self._stage = np.array(rows)
        # survive[n][i]: nobody else ends the hand in the i go-arounds from n own draws left
        survive = np.zeros((max_draws + 1, max_draws + 1))
        for n in range(max_draws + 1):
            survive[n][0] = 1.0
            for i in range(1, n + 1):
                survive[n][i] = survive[n][i - 1] * keep[n - i + 1]
        self._survive = survive
        self._wins: dict[tuple[tuple[int, ...], tuple[Meld, ...], int], tuple[float, float]] = {}
        self._payments: dict[tuple[Any, ...], float] = {}
        self._obs_key: int = -1

    # -- ready hands -------------------------------------------------------------------------
    def wait_values(
        self, obs: MahjongObservation, hand: Sequence[int], melds: tuple[Meld, ...], tile: int
    ) -> tuple[float, float]:
        """(self-draw, discard-win) points of winning on ``tile`` (three payers, one payer averaged)."""
        key = (tuple(hand), melds, tile)
        got = self._wins.get(key)
        if got is not None:
            return got
        config = obs.config
        done = list(hand)
        done[tile] += 1
        dealer = obs.player == obs.dealer
        values = []
        for self_draw in (True, False):
            win = WinContext(tile, self_draw, obs.seat_wind, obs.round_wind)
            score = score_win(done, melds, win, config)
            if score.tai < config.min_tai:  # below the table's minimum: not a legal win
                values.append(0.0)
                continue
            total = sum(
                payment_amount(score, dealer_involved=dealer or p == obs.dealer,
                               continuation=obs.continuation, config=config)
                for p in range(NUM_PLAYERS) if p != obs.player
            )
            values.append(self.saved_loss + (float(total) if self_draw else total / (NUM_PLAYERS - 1)))
        got = (values[0], values[1])
        self._wins[key] = got
        return got

    def ready_value(
        self, obs: MahjongObservation, leaf: LeafState, outcomes: Sequence[int]
    ) -> float:
        """Value of a ready leaf: its real waits, self-draws and discard wins, exact payments."""
        unseen = leaf.unseen
        total = sum(unseen)
        live = 0
        v_self = v_ron = 0.0
        weights = self._ron_weights
        live_ron = 0.0  # with rates by class: the waits weighted by them (v_ron likewise)
        for t in range(NUM_KINDS):
            if outcomes[t] == 0 and unseen[t]:
                s, r = self.wait_values(obs, leaf.hand, leaf.melds, t)
                live += unseen[t]
                v_self += unseen[t] * s
                if weights is None:
                    v_ron += unseen[t] * r
                else:
                    live_ron += unseen[t] * weights[t]
                    v_ron += unseen[t] * weights[t] * r
        n = min(leaf.draws_left, self.max_draws)
        if not live or total <= 0 or n <= 0:
            return 0.0
        if weights is None:
            p_draw, p_ron = self._ready_race(live, total)
            ron_part = p_ron * v_ron / live
        else:
            p_draw, p_ron = self._ready_race(live, total, live_ron)
            ron_part = p_ron * v_ron / live_ron if live_ron else 0.0
        return self._race(ron_part + (1 - p_ron) * p_draw * v_self / live,
                          (1 - p_ron) * (1 - p_draw), n)

    def _first_step(self, rate: float, shanten: int) -> float:
        """A not-ready leaf's chance per go-around of its first step from its own effective rate."""
        scale = self.first_step_scale
        if not scale:
            return rate
        return min(1.0, rate * scale[min(shanten, len(scale)) - 1])

    def _race(self, gain: float, undecided: float, n: int) -> float:
        """``sum`` over the ``n`` go-arounds of ``gain`` x (nobody else ended it) x (still undecided)."""
        keep = self._keep
        v = 0.0
        for m in range(1, n + 1):  # backwards from the last own draw
            v = keep[m] * (gain + undecided * v)
        return v

    def _ready_race(self, live: int, total: int, live_ron: float | None = None) -> tuple[float, float]:
        """A ready hand's chances per go-around with ``live`` winning tiles among ``total`` unseen:
        (self-draw, a win on one of the three others' discards). ``live_ron``: the waits weighted
        by their rates by class; without it every wait has ``ron_rate``."""
        p_draw = live / total
        if live_ron is None:
            p_ron = 1 - (1 - min(1.0, self.ron_rate * p_draw)) ** (NUM_PLAYERS - 1)
        else:
            p_ron = ron_chance(live_ron, total)
        return p_draw, p_ron

    def _new_decision(self, observation: MahjongObservation) -> None:
        """The memos hold for one decision (one observation): clear them for another."""
        if id(observation) != self._obs_key:
            self._wins.clear()
            self._payments.clear()
            self._obs_key = id(observation)

    def win_probability(self, observation: MahjongObservation, leaves: Sequence[LeafState]) -> np.ndarray:
        """P(win before the hand ends) of each leaf: the factor of :meth:`evaluate` without the
        payment (a ready hand's waits that score below ``min_tai`` do not count), for advice."""
        self._new_decision(observation)
        t_ = shanten_tables()
        out = np.zeros(len(leaves))
        far: list[tuple[int, float, int, int]] = []
        for i, leaf in enumerate(leaves):
            index = suit_indices(leaf.hand)
            sets = sum(leaf.hand) // 3
            d0 = t_.distance_at(index, sets)
            outcomes = t_.distances_after_draw(index, sets, near_kinds(leaf.hand, index))
            total = sum(leaf.unseen)
            n = min(leaf.draws_left, self.max_draws)
            if d0 == 1:
                waits = [
                    t for t in range(NUM_KINDS)
                    if outcomes[t] == 0 and leaf.unseen[t]
                    and any(self.wait_values(observation, leaf.hand, leaf.melds, t))
                ]
                live = sum(leaf.unseen[t] for t in waits)
                if live and total > 0 and n > 0:
                    weights = self._ron_weights
                    live_ron = None if weights is None else sum(leaf.unseen[t] * weights[t] for t in waits)
                    p_draw, p_ron = self._ready_race(live, total, live_ron)
                    out[i] = self._race(p_ron + (1 - p_ron) * p_draw, (1 - p_ron) * (1 - p_draw), n)
                continue
            eff = sum(leaf.unseen[t] for t in range(NUM_KINDS) if outcomes[t] < d0)
            if eff > 0 and n > 0 and total > 0:
                far.append((i, self._first_step(eff / total, d0 - 1), d0 - 1, n))
        if far:
            out[[f[0] for f in far]] = self._far_probabilities(far)
        return out

    # -- the batch ---------------------------------------------------------------------------
    def _typical_payment(self, obs: MahjongObservation, leaf: LeafState) -> float:
        config = obs.config
        tai, self_extra = tai_estimate(leaf.hand, leaf.melds, obs, config)
        dealer = obs.player == obs.dealer
        bonus = config.tai.dealer + config.tai.continuation_per_hand * obs.continuation
        cap = math.inf if config.limit is None else config.limit

        def pay(t: float, involved: bool) -> float:
            return config.base + config.per_tai * min(cap, t + (bonus if involved else 0))

        others = [p for p in range(NUM_PLAYERS) if p != obs.player]
        selfdraw = sum(pay(tai + self_extra, dealer or p == obs.dealer) for p in others)
        ron = sum(pay(tai, dealer or p == obs.dealer) for p in others) / len(others)
        return self.saved_loss + self.self_draw_share * selfdraw + (1 - self.self_draw_share) * ron

    def evaluate(self, observation: MahjongObservation, leaves: Sequence[LeafState]) -> np.ndarray:
        self.calls += 1
        self._new_decision(observation)
        t_ = shanten_tables()
        out = np.zeros(len(leaves))
        far: list[tuple[int, float, int, int]] = []  # (leaf, first-step rate, shanten, draws)
        for i, leaf in enumerate(leaves):
            if not i & 511:
                deadline.check()  # a deep tree's batch is long: stay interruptible
            hand = leaf.hand
            sets = sum(hand) // 3
            index = suit_indices(hand)
            d0 = t_.distance_at(index, sets)
            outcomes = t_.distances_after_draw(index, sets, near_kinds(hand, index))
            if d0 == 1:
                out[i] = self.ready_value(observation, leaf, outcomes)
                continue
            unseen = leaf.unseen
            eff = 0
            for t in range(NUM_KINDS):
                if outcomes[t] < d0:
                    eff += unseen[t]
            n = min(leaf.draws_left, self.max_draws)
            if eff > 0 and n > 0:
                far.append((i, self._first_step(eff / sum(unseen), d0 - 1), d0 - 1, n))
                out[i] = self._payment(observation, leaf)
        if far:
            out[[f[0] for f in far]] *= self._far_probabilities(far)
        return out

    def _payment(self, obs: MahjongObservation, leaf: LeafState) -> float:
        """:meth:`_typical_payment`, memoized on what :func:`tai_estimate` reads."""
        hand = leaf.hand
        key = (hand[27:], any(hand[0:9]), any(hand[9:18]), any(hand[18:27]), leaf.melds)
        v = self._payments.get(key)
        if v is None:
            v = self._typical_payment(obs, leaf)
            self._payments[key] = v
        return v

    def _far_probabilities(self, far: Sequence[tuple[int, float, int, int]]) -> np.ndarray:
        """P(win) of not-ready leaves: first step at the hand's own rate, then the stage table.

        ``sum_{i=1..n} survive(n, i) (1 - r)^(i-1) r P[s-1][n-i]``, for every leaf at once
        (``survive(n, i)``: nobody else ended the hand in those i go-arounds).
        """
        m = self.max_draws
        r = np.array([f[1] for f in far])[:, None]
        s = np.minimum(np.array([f[2] for f in far]), len(self._stage)) - 1
        n = np.array([f[3] for f in far])[:, None]
        i = np.arange(1, m + 1)[None, :]
        weights = self._survive[n, i] * (1 - r) ** (i - 1) * r * (i <= n)
        rest = self._stage[s[:, None], np.clip(n - i, 0, m)]
        return np.asarray((weights * rest).sum(axis=1))


# ---------------------------------------------------------------------------------------------
# Defence
# ---------------------------------------------------------------------------------------------
READY_LOGIT = (-5.08, 0.59, 0.38, 0.5)
"""Readiness logit: constant, per exposed set, per discard, per drawn-tile discard among the
last three. The first three are a logistic fit to greedy self-play (``benchmarks/
mahjong_expectimax.py calibrate --hands 120 --seed 5000``: about 14% of opponent-positions
ready, 44% of those with 10-11 discards); the last is hand-made (no recorded games carry
the flag yet)."""


def readiness(obs: MahjongObservation, seat: int) -> float:
    """Estimated chance that ``seat`` is ready, from what the table shows (:data:`READY_LOGIT`).

    Exposed sets and discards so far, and -- when the observation has ``discards_drawn`` --
    how many of his last three discards were the tile just drawn (a hand that no longer
    changes is usually a ready one).
    """
    flags = getattr(obs, "discards_drawn", None)
    drawn_recent = 0
    if flags is not None and seat < len(flags):
        drawn_recent = sum(1 for f in list(flags[seat])[-3:] if f)
    c, per_meld, per_discard, per_drawn = READY_LOGIT
    x = c + per_meld * len(obs.melds[seat]) + per_discard * len(obs.discards[seat]) + per_drawn * drawn_recent
    return 1 / (1 + math.exp(-x))


class DealInRisk(NamedTuple):
    """Per discard kind: chance of dealing in and the expected points it costs."""

    probability: tuple[float, ...]
    cost: tuple[float, ...]


DEAL_IN_TAI = 2.0
"""The tai of the typical win a deal-in pays for (the defence's cost; module text)."""
WAIT_SCALE = 0.02
"""Chance per danger point that a ready player waits on a tile (the hand-made read, ``reads=danger``)."""

READS = ("fitted", "danger")
"""How the defence reads the table: the fitted readiness and wait models
(:mod:`paiju.mahjong.agents.defence`) or the first, hand-made ones (:func:`readiness` and
``wait_scale`` x :func:`~paiju.mahjong.agents._hand.danger`)."""


class DealInReader(Protocol):
    """Another way to read the table for the defence, plugged into :class:`ValueExpectimaxAgent`
    in place of ``reads`` (e.g. an analysis that knows the true hands)."""

    def deal_in_chances(self, obs: MahjongObservation, kinds: Sequence[int]) -> dict[int, list[float]]:
        """Per opponent seat, the chance that discarding each of ``kinds`` now deals in to him
        (as :func:`paiju.mahjong.agents.defence.deal_in_chances`)."""
        ...


def deal_in_risk(
    obs: MahjongObservation, deal_in_tai: float, wait_scale: float, reads: str = "fitted",
    saved_loss: float = 0.0, reader: DealInReader | None = None,
) -> DealInRisk:
    """Deal-in chance and expected cost of discarding each kind now (see the module text);
    kinds not in hand get 0. A deal-in ends the hand too: in the same units as the wins (which
    count ``saved_loss`` on top of their payment) it costs its payment less ``saved_loss``.
    ``reader``, when given, reads the table instead of ``reads``."""
    if reads not in READS:
        raise ConfigError(f"expectimax reads must be one of {READS}, got {reads!r}")
    unseen = obs.unseen_counts()
    config = obs.config
    bonus = config.tai.dealer + config.tai.continuation_per_hand * obs.continuation
    held = [k for k in range(NUM_KINDS) if obs.hand[k]]
    # per opponent, each held kind's deal-in chance: the plugged reader's or the fitted models';
    # None for the hand-made reading below
    read: dict[int, list[float]] | None = (
        reader.deal_in_chances(obs, held) if reader is not None
        else deal_in_chances(obs, held) if reads == "fitted" else None
    )
    probs, costs = [1.0] * NUM_KINDS, [0.0] * NUM_KINDS
    for seat in range(NUM_PLAYERS):
        if seat == obs.player:
            continue
        involved = seat == obs.dealer or obs.player == obs.dealer
        pay = config.base + config.per_tai * (deal_in_tai + (bonus if involved else 0))
        pay = max(0.0, pay - saved_loss)
        if read is not None:
            chances = read[seat]
        else:
            ready = readiness(obs, seat)
            chances = [ready * min(0.5, wait_scale * danger(k, obs, unseen, [seat])) for k in held]
        for k, p in zip(held, chances, strict=True):
            probs[k] *= 1 - p
            costs[k] += p * pay
    return DealInRisk(tuple(1 - q for q in probs), tuple(costs))


def charge_deal_in(value: float, kind: int, risk: DealInRisk, p0: float = 0.0, c0: float = 0.0) -> float:
    """A discard's tree ``value`` (which assumes it is not won on) less its deal-in: ``(1 - p) /
    (1 - p0) * value - (cost - c0)``, with ``p0``, ``c0`` the risk the player takes anyway."""
    return (1 - risk.probability[kind]) / (1 - p0) * value - (risk.cost[kind] - c0)


# ---------------------------------------------------------------------------------------------
# The search: build the trees, value every leaf in one batch, back the values up
# ---------------------------------------------------------------------------------------------
_Expr = Any
"""A node of a built tree: a float (a win or a dead end), an int (a leaf's index), or a tuple
``("max", {kind: expr})`` / ``("chance", total, [(weight, expr), ...], p_ron, ron_points, keep)``."""


class ValueSearch:
    """The trees of one decision. Add roots, then :meth:`solve` values all leaves in one batch."""

    def __init__(
        self, obs: MahjongObservation, depth: int, alpha: float, prune: str, ordering: OrderingFunction,
        ron_rate: float = RON_RATE, rival: float | Sequence[float] = RIVAL_HAZARD, exact_leaves: bool = False,
        saved_loss: float = 0.0, ron_by_class: Sequence[float] | None = None,
    ) -> None:
        if depth < 1:
            raise ConfigError(f"expectimax depth must be >= 1, got {depth}")
        if not 0 < alpha <= 1:
            raise ConfigError(f"expectimax alpha must be in (0, 1], got {alpha}")
        if prune not in PRUNE_MODES:
            raise ConfigError(f"expectimax prune must be one of {PRUNE_MODES}, got {prune!r}")
        self.obs = obs
        self.depth = depth
        self.alpha = alpha
        self.prune = prune
        self.ordering = ordering
        self.ron_rate = ron_rate
        """Discard wins before each in-tree draw of a ready hand (0 = self-draws only, the paper's tree)."""
        self._ron_weights = None if ron_by_class is None else ron_by_kind(ron_by_class)
        self.rival = rival
        """Chance per go-around that another player ends the hand first (a rate, or a table by
        own draws left: :data:`RIVAL_HAZARD`)."""
        self.exact_leaves = exact_leaves
        """Leaves share a value only on the same path (discards and draws in order), not on the
        same hand and draws: for an evaluator that reads the river order (a Q-network)."""
        self.saved_loss = float(saved_loss)
        """Points added to every in-tree win: what ending the hand saves (:data:`SAVED_LOSS`)."""
        self.leaves: list[LeafState] = []
        self._leaf_index: dict[tuple[Any, ...], int] = {}
        self._wins: dict[tuple[tuple[int, ...], tuple[Meld, ...], int], float] = {}
        self._tables = shanten_tables()
        self._draws_left = draws_left(obs)
        self._keep = keep_table(rival, max(self._draws_left, 0) + 1)
        self.stats = {"max": 0, "chance": 0, "leaves": 0, "wins": 0}

    def survival(self, layer: int) -> float:
        """Chance that nobody else ends the hand in the go-around of the in-tree draw of ``layer + 1``."""
        return float(self._keep[max(0, self._draws_left - layer)])

    # -- building ----------------------------------------------------------------------------
    def keep(self, hand: Sequence[int], n_distinct: int) -> int:
        """The paper's k: min(ceil(alpha * num(hand)), distinct discards)."""
        num = sum(hand) if self.prune == "tiles" else n_distinct
        return min(max(1, math.ceil(self.alpha * num)), n_distinct)

    def expand(self, ctx: SearchContext, c: list[int], index: list[int], layer: int,
               disc: list[int], draws: list[int], allowed: Sequence[int] | None = None) -> list[int]:
        """The discards of a max node to expand, best first by the ordering (exactly k of them)."""
        cands = [k for k in range(NUM_KINDS) if c[k] and (allowed is None or k in allowed)]
        keep = self.keep(c, len(cands))
        if keep >= len(cands):
            return cands
        sh = self._tables.distance_at(index, ctx.sets) - 1
        node = SearchNode(tuple(c), tuple(disc), tuple(draws), sh, layer)
        scores = self.ordering.scores(ctx, node, cands)
        order = sorted(range(len(cands)), key=lambda i: (-scores[i], cands[i]))
        return [cands[i] for i in order[:keep]]

    def leaf(self, ctx: SearchContext, c: Sequence[int], unseen: Sequence[int], layer: int,
             disc: Sequence[int], draws: Sequence[int], extra_draws: int = 0) -> int:
        """Index of the leaf for the 3k+1 hand ``c`` (shared by equal hands on equal draws, or
        with ``exact_leaves`` on equal paths)."""
        n = self._draws_left - layer + extra_draws
        path = (tuple(disc), tuple(draws)) if self.exact_leaves else (tuple(sorted(draws)),)
        key = (tuple(c), ctx.melds, n, *path)
        i = self._leaf_index.get(key)
        if i is None:
            i = len(self.leaves)
            self._leaf_index[key] = i
            self.leaves.append(LeafState(tuple(c), ctx.melds, tuple(unseen), n, tuple(disc), tuple(draws)))
        self.stats["leaves"] += 1
        return i

    def win(self, ctx: SearchContext, c: list[int], tile: int) -> float:
        """Points of a self-drawn win with the 3k+2 hand ``c`` (by the game's tai table)."""
        self.stats["wins"] += 1
        key = (tuple(c), ctx.melds, tile)
        v = self._wins.get(key)
        if v is None:
            obs = self.obs
            win = WinContext(tile, True, obs.seat_wind, obs.round_wind)
            score = score_win(c, ctx.melds, win, obs.config)
            legal = score.tai >= obs.config.min_tai  # below the table's minimum: no win
            v = 0.0 if not legal else self.saved_loss + float(sum(
                payment_amount(score, dealer_involved=obs.player == obs.dealer or p == obs.dealer,
                               continuation=obs.continuation, config=obs.config)
                for p in range(NUM_PLAYERS) if p != obs.player
            ))
            self._wins[key] = v
        return v

    def max_node(self, ctx: SearchContext, c: list[int], index: list[int], unseen: list[int],
                 layer: int, disc: list[int], draws: list[int],
                 allowed: Sequence[int] | None = None, always: int = -1) -> _Expr:
        """A 3k+2 hand with a discard due; ``always`` is a kind expanded even if pruned."""
        self.stats["max"] += 1
        deadline.check()
        kinds = self.expand(ctx, c, index, layer, disc, draws, allowed)
        if always >= 0 and always not in kinds:
            kinds.append(always)
        children: dict[int, _Expr] = {}
        for k in kinds:
            suit, step = KIND_SUIT[k], KIND_STEP[k]
            c[k] -= 1
            index[suit] -= step
            disc.append(k)
            if layer + 1 >= self.depth:
                children[k] = self.leaf(ctx, c, unseen, layer, disc, draws)
            else:
                children[k] = self.chance_node(ctx, c, index, unseen, layer, disc, draws)
            disc.pop()
            index[suit] += step
            c[k] += 1
        return ("max", children)

    def chance_node(self, ctx: SearchContext, c: list[int], index: list[int], unseen: list[int],
                    layer: int, disc: list[int], draws: list[int]) -> _Expr:
        """The draw of layer ``layer + 1`` into the 3k+1 hand ``c``."""
        total = sum(unseen)
        if layer >= self._draws_left or total <= 0:
            return 0.0
        self.stats["chance"] += 1
        # kinds not near the hand cannot complete it (:func:`near_kinds`): they stay 99 here
        outcomes = self._tables.distances_after_draw(index, ctx.sets, near_kinds(c, index))
        branches: list[tuple[int, _Expr]] = []
        for t in range(NUM_KINDS):
            u = unseen[t]
            if not u:
                continue
            c[t] += 1
            if outcomes[t] == 0:
                branches.append((u, self.win(ctx, c, t)))
            else:
                suit, step = KIND_SUIT[t], KIND_STEP[t]
                index[suit] += step
                unseen[t] -= 1
                draws.append(t)
                branches.append((u, self.max_node(ctx, c, index, unseen, layer + 1, disc, draws)))
                draws.pop()
                unseen[t] += 1
                index[suit] -= step
            c[t] -= 1
        p_ron, v_ron = self.ron_chance(ctx, c, unseen, outcomes)
        return ("chance", total, branches, p_ron, v_ron, self.survival(layer))

    def ron_chance(self, ctx: SearchContext, c: list[int], unseen: Sequence[int],
                   outcomes: Sequence[int]) -> tuple[float, float]:
        """Before the draw of a ready hand the three others discard: (chance one is a wait, its mean points).

        The same model as the leaf's (``ron_rate`` x live / unseen per discard, per kind of
        wait), so a hand ready inside the tree is not worth less than one ready at a leaf.
        """
        total = sum(unseen)
        weights = self._ron_weights
        if weights is not None:
            live_ron = value = 0.0
            for t in range(NUM_KINDS):
                if outcomes[t] == 0 and unseen[t] and weights[t] > 0:
                    live_ron += unseen[t] * weights[t]
                    value += unseen[t] * weights[t] * self.ron_value(ctx, c, t)
            return (ron_chance(live_ron, total), value / live_ron) if live_ron else (0.0, 0.0)
        live = 0
        value = 0.0
        for t in range(NUM_KINDS):
            if outcomes[t] == 0 and unseen[t]:
                live += unseen[t]
                value += unseen[t] * self.ron_value(ctx, c, t)
        if not live or self.ron_rate <= 0:
            return 0.0, 0.0
        return ron_chance(self.ron_rate * live, total), value / live

    def ron_value(self, ctx: SearchContext, c: list[int], tile: int) -> float:
        """Points of winning on a discarded ``tile`` with the 3k+1 hand ``c``, mean over the discarder."""
        key = (tuple(c), ctx.melds, -1 - tile)
        v = self._wins.get(key)
        if v is None:
            obs = self.obs
            done = list(c)
            done[tile] += 1
            win = WinContext(tile, False, obs.seat_wind, obs.round_wind)
            score = score_win(done, ctx.melds, win, obs.config)
            v = 0.0 if score.tai < obs.config.min_tai else self.saved_loss + sum(
                payment_amount(score, dealer_involved=obs.player == obs.dealer or p == obs.dealer,
                               continuation=obs.continuation, config=obs.config)
                for p in range(NUM_PLAYERS) if p != obs.player
            ) / (NUM_PLAYERS - 1)
            self._wins[key] = v
        return v

    # -- solving -----------------------------------------------------------------------------
    def solve(self, leaf_evaluator: LeafValueEvaluator) -> np.ndarray:
        """Value every leaf collected so far in one call."""
        if not self.leaves:
            return np.zeros(0)
        values = np.asarray(leaf_evaluator.evaluate(self.obs, self.leaves), dtype=float)
        if values.shape != (len(self.leaves),):
            raise ConfigError(f"leaf evaluator returned shape {values.shape}, expected ({len(self.leaves)},)")
        return values

    def value(self, expr: _Expr, values: np.ndarray) -> float:
        """Back up the value of a built node."""
        if isinstance(expr, float):
            return expr
        if isinstance(expr, int):
            return float(values[expr])
        if expr[0] == "max":
            return max(self.value(e, values) for e in expr[1].values())
        acc = 0.0
        for w, e in expr[2]:
            acc += w * self.value(e, values)
        p_ron = expr[3]
        return p_ron * expr[4] + (1 - p_ron) * expr[5] * acc / float(expr[1])


# ---------------------------------------------------------------------------------------------
# The agent
# ---------------------------------------------------------------------------------------------
class ValueExpectimaxAgent(ExpectimaxAgent):
    """The default ``expectimax``: the tree above with the analytic (or a plugged) leaf value.

    ``defence=False`` turns off the deal-in term; ``leaf_evaluator`` plugs in another
    :class:`LeafValueEvaluator` (the Double DQN's network), ``reader`` another
    :class:`DealInReader`.
    """

    def __init__(
        self,
        seed: SeedLike = None,
        depth: int = 2,
        alpha: float = 0.6,
        claim_depth: int = 1,
        prune: str = "tiles",
        defence: bool = True,
        deal_in_tai: float = DEAL_IN_TAI,
        wait_scale: float = WAIT_SCALE,
        ron_rate: float = RON_RATE,
        reads: str = "fitted",
        saved_loss: float | None = None,
        leaf_evaluator: LeafValueEvaluator | None = None,
        ordering: OrderingFunction | None = None,
        name: str = "expectimax",
        ron: str = "flat",
        rates: str = "first",
        reader: DealInReader | None = None,
    ) -> None:
        super().__init__(
            seed, depth=depth, alpha=alpha, claim_depth=claim_depth, ordering=ordering, name=name
        )
        if prune not in PRUNE_MODES:
            raise ConfigError(f"expectimax prune must be one of {PRUNE_MODES}, got {prune!r}")
        if deal_in_tai < 0 or wait_scale < 0:
            raise ConfigError(
                f"expectimax deal_in_tai and wait_scale must be >= 0, got {deal_in_tai}, {wait_scale}"
            )
        if reads not in READS:
            raise ConfigError(f"expectimax reads must be one of {READS}, got {reads!r}")
        if ron not in RON_MODES:
            raise ConfigError(f"expectimax ron must be one of {RON_MODES}, got {ron!r}")
        if ron == "classes" and ron_rate != RON_RATE:
            raise ConfigError(
                "expectimax ron_rate applies to ron=flat; ron=classes uses the fitted rates by "
                f"class of wait {dict(zip(RON_CLASSES, RON_RATES, strict=True))}"
            )
        if rates not in RATE_MODES:
            raise ConfigError(f"expectimax rates must be one of {RATE_MODES}, got {rates!r}")
        if reader is not None and (not defence or reads != "fitted"):
            raise ConfigError(
                "a plugged reader reads the table in place of reads= for the defence: it needs "
                f"defence=true and no reads= of its own, got defence={defence}, reads={reads!r}"
            )
        self.rates = rates
        self.ron = ron
        self.ron_by_class: tuple[float, ...] | None = RON_RATES if ron == "classes" else None
        self.prune = prune
        self.defence = defence
        self.reads = reads
        self.reader = reader
        self.deal_in_tai = float(deal_in_tai)
        self.wait_scale = float(wait_scale)
        self.ron_rate = float(ron_rate)
        self.saved_loss = SAVED_LOSS if saved_loss is None else float(saved_loss)
        self.leaf_evaluator: LeafValueEvaluator = leaf_evaluator or HandValueEvaluator(
            ron_rate=ron_rate, saved_loss=self.saved_loss, ron_by_class=self.ron_by_class,
            **(SELFPLAY_RATES if rates == "selfplay" else {}),
        )
        self.last_values: dict[int, float] = {}
        """Value of every option of the latest decision (discard kind or action), for hints."""
        self.last_value_search: ValueSearch | None = None
        self._risk_of: tuple[MahjongObservation, DealInRisk] | None = None

    def new_search(self, obs: MahjongObservation, depth: int) -> ValueSearch:
        return ValueSearch(
            obs, depth, self.alpha, self.prune, self.ordering, self.ron_rate, saved_loss=self.saved_loss,
            ron_by_class=self.ron_by_class,
        )

    def act(self, observation: Any, legal_actions: Sequence[int]) -> int:
        return act_by_phase(observation, legal_actions, self._turn_value, self._claim_value)

    def discard_values(self, observation: MahjongObservation) -> dict[int, float]:
        """Value in points of every distinct discard of the 3k+2 hand in ``observation``, by the
        same tree, leaf and defence as :meth:`act` on a turn (kongs aside); for advice."""
        obs = observation
        hand = obs.hand
        search = self.new_search(obs, self.depth)
        risk = self.risk(obs)
        held = [k for k in range(NUM_KINDS) if hand[k]]
        tree = self._discard_tree(search, obs, hand, tuple(obs.melds[obs.player]), held, risk, self.depth)
        values = search.solve(self.leaf_evaluator)
        return self._root_values(search, tree, values, risk)

    # -- pieces ------------------------------------------------------------------------------
    def risk(self, obs: MahjongObservation) -> DealInRisk | None:
        """The deal-in risk this agent charges the root discards of ``obs`` (None without
        defence). Kept for the latest observation: a decision's pieces (the tree, a distilled
        ordering's root) ask for it more than once, and it is the dearest part of a leaf-cheap
        search."""
        if not self.defence:
            return None
        if self._risk_of is not None and self._risk_of[0] is obs:
            return self._risk_of[1]
        risk = deal_in_risk(obs, self.deal_in_tai, self.wait_scale, self.reads, self.saved_loss, self.reader)
        self._risk_of = (obs, risk)  # holding obs keeps its identity from being reused
        return risk

    def _discard_tree(self, search: ValueSearch, obs: MahjongObservation, hand: Sequence[int],
                      melds: tuple[Meld, ...], allowed: Sequence[int] | None,
                      risk: DealInRisk | None, depth: int) -> _Expr:
        ctx = self.context(obs, melds, sum(hand))
        c = list(hand)
        unseen = list(ctx.unseen)
        safest = -1
        if risk is not None:  # the safest discard is always looked at: folding must be possible
            held = [k for k in range(NUM_KINDS) if c[k] and (allowed is None or k in allowed)]
            safest = min(held, key=lambda k: (risk.cost[k], k))
        search.depth = depth
        return search.max_node(ctx, c, suit_indices(c), unseen, 0, [], [], allowed, safest)

    def _root_values(self, search: ValueSearch, tree: _Expr, values: np.ndarray,
                     risk: DealInRisk | None, relative: bool = False) -> dict[int, float]:
        """Each root discard's value; with ``risk``, less its deal-in chance and cost. ``relative``
        (a claim's discard) counts only the risk above the safest discard of that hand: passing
        does not save a discard, the player discards after his draw too, so a claim is charged
        only for the extra danger of the tile it makes him throw."""
        p0 = c0 = 0.0
        if risk is not None and relative:
            p0 = min(risk.probability[k] for k in tree[1])
            c0 = min(risk.cost[k] for k in tree[1])
        out = {}
        for k, e in tree[1].items():
            v = search.value(e, values)
            out[k] = v if risk is None else charge_deal_in(v, k, risk, p0, c0)
        return out

    def _turn_value(self, obs: MahjongObservation, legal: list[int]) -> int:
        discards = [a for a in legal if a < NUM_KINDS]
        search = self.new_search(obs, self.depth)
        self.last_value_search = search
        risk = self.risk(obs)
        own = tuple(obs.melds[obs.player])
        tree = self._discard_tree(search, obs, obs.hand, own, discards, risk, self.depth)
        kongs: dict[int, int] = {}
        for a in legal:
            if CONCEALED_KONG <= a < WIN:
                hand, melds = _kong_outcome(obs, a)
                ctx = self.context(obs, melds, sum(hand))
                kongs[a] = search.leaf(ctx, hand, ctx.unseen, 0, [], [], extra_draws=1)
        values = search.solve(self.leaf_evaluator)
        options: dict[int, float] = self._root_values(search, tree, values, risk)
        for a, i in kongs.items():
            options[a] = float(values[i])
        self.last_values = options
        return max(options, key=lambda a: (options[a], -a))

    def _claim_value(self, obs: MahjongObservation, legal: list[int]) -> int:
        search = self.new_search(obs, self.claim_depth)
        self.last_value_search = search
        own = tuple(obs.melds[obs.player])
        risk = self.risk(obs)
        base_ctx = self.context(obs)
        # pass: the hand as it is, waiting for its draws (a leaf one layer in: a draw is skipped
        # by nobody, but the claim options' leaves come one discard later)
        pass_leaf = search.leaf(base_ctx, obs.hand, base_ctx.unseen, 0, [], [])
        trees: dict[int, _Expr] = {}
        for a in legal:
            if a in (WIN, PASS):
                continue
            hand, meld = claim_outcome(obs.hand, a, obs.window_tile, obs.window_from)
            melds = (*own, meld)
            if a == KONG:
                ctx = self.context(obs, melds, sum(hand))
                trees[a] = search.leaf(ctx, hand, ctx.unseen, 0, [], [], extra_draws=1)
            else:
                trees[a] = self._discard_tree(search, obs, hand, melds, None, risk, self.claim_depth)
        values = search.solve(self.leaf_evaluator)
        options = {PASS: float(values[pass_leaf])}
        for a, tree in trees.items():
            if isinstance(tree, int):
                options[a] = float(values[tree])
            else:
                options[a] = max(self._root_values(search, tree, values, risk, relative=True).values())
        self.last_values = options
        return max(options, key=lambda a: (options[a], a == PASS, -a))


def _kong_outcome(obs: MahjongObservation, action: int) -> tuple[list[int], tuple[Meld, ...]]:
    """Concealed counts and melds after a concealed or added kong on the player's turn."""
    own = list(obs.melds[obs.player])
    hand = list(obs.hand)
    if action < ADDED_KONG:
        k = action - CONCEALED_KONG
        hand[k] -= 4
        return hand, (*own, Meld(MeldType.CONCEALED_KONG, k))
    k = action - ADDED_KONG
    hand[k] -= 1
    return hand, tuple(
        Meld(MeldType.ADDED_KONG, m.tile, m.claimed, m.source)
        if m.type == MeldType.PUNG and m.tile == k else m
        for m in own
    )
