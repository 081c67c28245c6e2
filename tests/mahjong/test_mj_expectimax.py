"""The value-based Expectimax (``expectimax``): hand-checked positions, pruning, batching, rules.

Positions are built from a real observation (``dataclasses.replace``), so every field the
agent reads is consistent; the expected moves are argued in each test from the tai table
and the tiles, not from the agent's numbers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pytest

from paiju.core.errors import ConfigError
from paiju.mahjong.agents import (
    REGISTRY,
    ExpectimaxAgent,
    GreedyAgent,
    HandValueEvaluator,
    LeafState,
    SearchNode,
    ShantenOrdering,
    ValueExpectimaxAgent,
    ValueSearch,
)
from paiju.mahjong.agents.value import SELFPLAY_RATES
from paiju.mahjong.config import MahjongConfig, TaiTable
from paiju.mahjong.game import CHOW_HIGH, PASS, PUNG, WIN, MahjongGame, MahjongObservation, Phase
from paiju.mahjong.shanten import shanten_counts, shanten_tables, suit_indices
from paiju.mahjong.tiles import Meld, MeldType, parse_counts

GAME = MahjongGame()


def _kind(tile: str) -> int:
    return parse_counts(tile).index(1)


def _base_obs(phase: Phase = Phase.TURN) -> MahjongObservation:
    """A real observation of seat 1 (not the dealer) in the given phase, from seeded play."""
    agents = [GreedyAgent() for _ in range(4)]
    for seed in range(50):
        state = GAME.new_hand(seed=seed)
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if seat == 1 and obs.phase == phase and WIN not in legal:
                return obs
            state.apply(agents[seat].act(obs, legal))
    raise AssertionError("no such observation")


def _position(
    hand: str,
    *,
    phase: Phase = Phase.TURN,
    melds: Sequence[Sequence[Meld]] = ((), (), (), ()),
    discards: Sequence[Sequence[tuple[int, int]]] = ((), (), (), ()),
    live: int = 40,
    config: MahjongConfig | None = None,
    **extra: object,
) -> MahjongObservation:
    obs = _base_obs(phase)
    fields = {f.name for f in dataclasses.fields(obs)}
    changes: dict[str, object] = {
        "hand": tuple(parse_counts(hand)),
        "melds": tuple(tuple(m) for m in melds),
        "discards": tuple(tuple(d) for d in discards),
        "live_tiles": live,
        "config": config or MahjongConfig(),
    }
    changes.update({k: v for k, v in extra.items() if k in fields})
    return dataclasses.replace(obs, **changes)  # type: ignore[arg-type]


def _legal_discards(obs: MahjongObservation) -> list[int]:
    return [k for k in range(34) if obs.hand[k]]


# ---- a wait worth more beats a wait with more tiles --------------------------------------------
# 123456789m 123789m + 1z + 5p: discard 5p -> single wait on 1z (m + honours: 混一色 +4 tai),
# discard 1z -> single wait on 5p (no flush). One 1z is already on the table, so the flush
# wait has 2 live tiles against 3. With the default table a discard win pays 1000 + 500 x tai:
# 混一色 + 門清 + 獨聽 = 6 tai (4,000) against 門清 + 獨聽 = 2 tai (2,000): twice the points
# for two thirds of the chances, so the flush wait is worth more; greedy counts tiles only.
FLUSH_HAND = "123456789m123789m1z5p"
ONE_Z_ON_TABLE = ((), (), ((_kind("1z"), -1),), ())


def test_keeps_the_single_wait_that_completes_the_higher_tai_hand() -> None:
    obs = _position(FLUSH_HAND, discards=ONE_Z_ON_TABLE)
    legal = _legal_discards(obs)
    assert obs.unseen_counts()[_kind("1z")] == 2 and obs.unseen_counts()[_kind("5p")] == 3
    assert GreedyAgent().act(obs, legal) == _kind("1z")  # more tiles
    agent = ValueExpectimaxAgent(depth=1)
    assert agent.act(obs, legal) == _kind("5p")  # more points
    assert REGISTRY.make("expectimax:ron=flat").act(obs, legal) == _kind("5p")  # the spec too


def test_a_changed_tai_table_changes_the_choice() -> None:
    """The same position with 混一色 worth 0 tai: the wider wait wins (rules from the observation)."""
    plain = MahjongConfig(tai=TaiTable(half_flush=0))
    obs = _position(FLUSH_HAND, discards=ONE_Z_ON_TABLE, config=plain)
    assert ValueExpectimaxAgent(depth=1).act(obs, _legal_discards(obs)) == _kind("1z")


def test_a_minimum_tai_rules_out_the_cheap_wait() -> None:
    """Two 1z on the table: 1 live flush tile (4,000 a discard win) against 3 plain ones (2,000).

    With the default rules the plain wait is worth more (3 x 2,000 > 1 x 4,000). With
    min_tai = 5 the plain hand (門清 + 獨聽 = 2 tai on a discard, 門清自摸 + 獨聽 = 4
    self-drawn) may not win at all, so the flush wait is the only one.
    """
    two_on_table = ((), (), ((_kind("1z"), -1), (_kind("1z"), -1)), ())
    obs = _position(FLUSH_HAND, discards=two_on_table)
    assert obs.unseen_counts()[_kind("1z")] == 1
    assert ValueExpectimaxAgent(depth=1).act(obs, _legal_discards(obs)) == _kind("1z")
    strict = _position(FLUSH_HAND, discards=two_on_table, config=MahjongConfig(min_tai=5))
    assert ValueExpectimaxAgent(depth=1).act(strict, _legal_discards(strict)) == _kind("5p")


# ---- defence --------------------------------------------------------------------------------------
def _threat_position(**extra: object) -> MahjongObservation:
    """Seat 2 has three sets down and 14 discards: obviously ready. Seat 1 is two from ready.

    Seat 1's least useful tile is a lone 中 (7z, three copies unseen: a pair or pung wait
    for anyone); its next is 1p, a copy of which seat 2 discarded himself (a player rarely
    waits on what he threw away).
    """
    hand = "123m456m79p24s99m5s1p8p7z3m"
    assert sum(parse_counts(hand)) == 17
    melds = ((), (), (
        Meld(MeldType.PUNG, _kind("4z"), _kind("4z"), 0),
        Meld(MeldType.CHOW, _kind("3p"), _kind("4p"), 1),
        Meld(MeldType.PUNG, _kind("9p"), _kind("9p"), 3),
    ), ())
    river = tuple((_kind(t), -1) for t in (
        "9m", "1z", "2z", "3z", "9s", "8m", "7p", "1p", "2m", "6m", "3m", "1m", "7s", "2s"
    ))
    discards = ((), (), river, ())
    return _position(hand, melds=melds, discards=discards, live=20, **extra)


def test_folds_against_an_obvious_ready_hand() -> None:
    obs = _threat_position(discards_drawn=((), (), (False,) * 11 + (True,) * 3, ()))
    legal = _legal_discards(obs)
    assert obs.unseen_counts()[_kind("7z")] == 3
    attacking = ValueExpectimaxAgent(defence=False).act(obs, legal)
    folding = ValueExpectimaxAgent().act(obs, legal)
    assert attacking == _kind("7z")
    assert folding == _kind("1p")


def test_pushes_when_nobody_looks_ready() -> None:
    """The same hand with seat 2's melds gone and a short river: the lone 中 goes."""
    obs = _threat_position()
    obs = dataclasses.replace(obs, melds=((), (), (), ()), discards=((), (), obs.discards[2][:3], ()))
    assert ValueExpectimaxAgent().act(obs, _legal_discards(obs)) == _kind("7z")


# ---- claims -----------------------------------------------------------------------------------------
def test_pungs_a_dragon_that_makes_the_hand_ready() -> None:
    # 123m 456m 789m 23p 77z + 5z5z + 9s: pung 5z (中, +1 tai) -> discard 9s -> ready on 1p/4p
    obs = _position("123456789m23p77z55z9s", phase=Phase.CLAIM, window_tile=_kind("5z"),
                    window_from=0, turn=0)
    agent = ValueExpectimaxAgent()
    assert agent.act(obs, [PUNG, PASS]) == PUNG


def test_passes_a_pung_that_costs_the_concealed_wait() -> None:
    # ready concealed on 5s/8s (8 live tiles, 門清). Punging 9p keeps the hand ready, but only on
    # a single 7s or 6s (3 live) and open: fewer tiles and no 門清 tai -- pass.
    obs = _position("123m456m789m234p99p67s", phase=Phase.CLAIM, window_tile=_kind("9p"),
                    window_from=0, turn=0)
    agent = ValueExpectimaxAgent()
    assert agent.act(obs, [PUNG, PASS]) == PASS
    assert agent.last_values[PASS] > agent.last_values[PUNG]


def test_a_danger_every_tile_shares_does_not_change_a_claim() -> None:
    """Passing saves no discard (a tile goes after the draw too), so a danger that every tile
    carries alike cannot make a claim worse than passing: with the same chance and cost on
    every kind the pung and chow decisions are those of the agent without defence."""
    from paiju.mahjong.agents.value import DealInRisk

    class UniformDanger(ValueExpectimaxAgent):
        def _risk(self, obs: MahjongObservation) -> DealInRisk:
            return DealInRisk((0.2,) * 34, (600.0,) * 34)

    cases = [
        ("123456789m23p77z55z9s", "5z", PUNG),  # pung 中: ready with 9s out
        ("123m456m78p2399s55z7z1z", "9p", CHOW_HIGH),  # chow 789p from the left: one step closer
    ]
    for hand, tile, claim in cases:
        obs = _position(hand, phase=Phase.CLAIM, window_tile=_kind(tile), window_from=0, turn=0, live=20)
        plain = ValueExpectimaxAgent(defence=False).act(obs, [claim, PASS])
        assert plain == claim
        assert UniformDanger().act(obs, [claim, PASS]) == plain


class _Reader:
    """A plugged reader: ``seat`` waits on ``kind`` with chance ``p``, nothing else is dangerous."""

    def __init__(self, seat: int, kind: int, p: float) -> None:
        self.seat, self.kind, self.p = seat, kind, p
        self.asked: list[list[int]] = []

    def deal_in_chances(self, obs: MahjongObservation, kinds: Sequence[int]) -> dict[int, list[float]]:
        self.asked.append(list(kinds))
        return {s: [self.p if (s, k) == (self.seat, self.kind) else 0.0 for k in kinds]
                for s in range(4) if s != obs.player}


def test_a_plugged_reader_reads_the_table_for_the_defence() -> None:
    """In the position where nobody looks ready the lone 中 goes; a reader that knows seat 3
    waits on it makes the agent keep it, and its chance and cost are the reader's, by hand:
    seat 3 is not the dealer (seat 0) nor is the player (seat 1), so a deal-in pays
    1000 + 2 x 500 = 2000 less the 940 a win saves."""
    from paiju.mahjong.agents.value import deal_in_risk

    obs = _threat_position()
    obs = dataclasses.replace(obs, melds=((), (), (), ()), discards=((), (), obs.discards[2][:3], ()))
    legal = _legal_discards(obs)
    chun = _kind("7z")
    reader = _Reader(3, chun, 0.5)
    risk = deal_in_risk(obs, 2.0, 0.02, saved_loss=940.0, reader=reader)
    assert reader.asked == [legal]
    assert risk.probability[chun] == 0.5 and risk.cost[chun] == pytest.approx(0.5 * (2000 - 940))
    assert all(risk.probability[k] == 0 and risk.cost[k] == 0 for k in range(34) if k != chun)
    assert ValueExpectimaxAgent(reader=_Reader(3, chun, 0.0)).act(obs, legal) == chun
    assert ValueExpectimaxAgent(reader=_Reader(3, chun, 0.99)).act(obs, legal) != chun
    # a reader would be ignored without the defence, or beside another reads=: refused
    for options in ({"defence": False}, {"reads": "danger"}):
        with pytest.raises(ConfigError, match="plugged reader"):
            ValueExpectimaxAgent(reader=reader, **options)  # type: ignore[arg-type]


def test_a_deal_in_costs_its_payment_less_the_loss_it_saves() -> None:
    from paiju.mahjong.agents.value import deal_in_risk

    obs = _threat_position()
    full = deal_in_risk(obs, 2.0, 0.02)
    net = deal_in_risk(obs, 2.0, 0.02, saved_loss=940.0)
    assert full.probability == net.probability
    held = [k for k in range(34) if obs.hand[k]]
    assert all(full.cost[k] > 0 for k in held) and all(full.cost[k] == 0 for k in range(34) if k not in held)
    # seat 1 is not the dealer: each of the others' deal-ins is 1000 + 2 x 500 = 2000, or 2500
    # with the dealer's tai when the opponent is the dealer (seat 0)
    for k in held:
        assert 1060 / 2000 * full.cost[k] - 1e-9 <= net.cost[k] <= 1560 / 2500 * full.cost[k] + 1e-9


# ---- pruning -------------------------------------------------------------------------------------
def test_pruning_keeps_exactly_k_counting_tiles_or_kinds() -> None:
    obs = _position("11223m345p67p19s11z55z7z")  # 17 tiles, 13 kinds
    hand = list(obs.hand)
    kinds = sum(1 for c in hand if c)
    assert (sum(hand), kinds) == (17, 13)
    ctx = ExpectimaxAgent().context(obs)
    for prune, alpha, k in (("tiles", 0.5, 9), ("kinds", 0.5, 7), ("tiles", 0.8, 13), ("tiles", 0.1, 2)):
        search = ValueSearch(obs, 2, alpha, prune, ShantenOrdering())
        kept = search.expand(ctx, hand, suit_indices(hand), 0, [], [])
        assert len(kept) == k, (prune, alpha)
        held = [x for x in range(34) if hand[x]]
        scores = ShantenOrdering().scores(ctx, search_node(hand, ctx.sets), held)
        best = sorted(zip(scores, held, strict=True), key=lambda p: (-p[0], p[1]))
        assert sorted(kept) == sorted(x for _, x in best[:k])


def search_node(hand: list[int], sets: int) -> SearchNode:
    return SearchNode(tuple(hand), (), (), shanten_counts(hand), 0)


# ---- batching and the leaf interface ----------------------------------------------------------
class CountingEvaluator:
    def __init__(self) -> None:
        self.inner = HandValueEvaluator()
        self.calls = 0
        self.sizes: list[int] = []

    def evaluate(self, observation: MahjongObservation, leaves: Sequence[LeafState]) -> np.ndarray:
        self.calls += 1
        self.sizes.append(len(leaves))
        assert all(sum(leaf.hand) % 3 == 1 for leaf in leaves)
        return self.inner.evaluate(observation, leaves)


def test_leaves_are_evaluated_in_one_batch_per_decision() -> None:
    obs = _position("11223m345p67p19s11z55z7z")
    counting = CountingEvaluator()
    agent = ValueExpectimaxAgent(depth=2, leaf_evaluator=counting)
    agent.act(obs, _legal_discards(obs))
    assert counting.calls == 1
    search = agent.last_value_search
    assert search is not None and counting.sizes[0] == len(search.leaves) > 13
    claim = _position(
        "123m456m789m234p99p67s", phase=Phase.CLAIM, window_tile=_kind("9p"), window_from=0, turn=0
    )
    agent.act(claim, [PUNG, PASS])
    assert counting.calls == 2  # pass and pung valued together


def test_a_plugged_evaluator_decides() -> None:
    """An evaluator that prizes keeping 1s decides the depth-1 discard (never 1s)."""

    class KeepOneSou:
        def evaluate(self, observation: MahjongObservation, leaves: Sequence[LeafState]) -> np.ndarray:
            return np.array([1000.0 * leaf.hand[_kind("1s")] + leaf.discards[-1] for leaf in leaves])

    obs = _position("11223m345p67p19s11z55z7z")
    agent = ValueExpectimaxAgent(depth=1, defence=False, leaf_evaluator=KeepOneSou())
    assert agent.act(obs, _legal_discards(obs)) == 33  # highest kind, as the evaluator ranks it


def test_ready_value_is_the_self_draw_chance_times_the_score() -> None:
    """One own draw left, no discard wins, no rival: value = live / unseen x self-draw payment."""
    obs = _position(FLUSH_HAND, discards=ONE_Z_ON_TABLE)
    ev = HandValueEvaluator(ron_rate=0.0, rival=0.0)
    hand = list(obs.hand)
    hand[_kind("5p")] -= 1  # single wait on 1z, 混一色 門清自摸 獨聽 = 4 + 3 + 1 = 8 tai
    unseen = tuple(obs.unseen_counts())
    leaf = LeafState(tuple(hand), (), unseen, 1, (_kind("5p"),), ())
    value = ev.evaluate(obs, [leaf])[0]
    payers = 3 * (1000 + 500 * 8) + 500 * 1  # seat 1 is not the dealer: the dealer pays 莊家 too
    assert value == pytest.approx(2 / sum(unseen) * payers)
    # a win also ends the hand before anyone else wins: saved_loss is added to its payment
    saving = HandValueEvaluator(ron_rate=0.0, rival=0.0, saved_loss=900.0)
    assert saving.evaluate(obs, [leaf])[0] == pytest.approx(2 / sum(unseen) * (payers + 900))


def test_ready_value_under_a_hazard_by_draws_left_matches_a_simulated_race() -> None:
    """Three own draws left, a rival rate that differs per go-around: the ready leaf's value
    equals a Monte Carlo of the race (rival ends it, else a discard win, else a self-draw)."""
    obs = _position(FLUSH_HAND, discards=ONE_Z_ON_TABLE)
    hazard = (0.0, 0.3, 0.2, 0.05)  # by own draws left: 0.05 now, then 0.2, then 0.3
    ev = HandValueEvaluator(ron_rate=0.6, rival=hazard)
    hand = list(obs.hand)
    hand[_kind("5p")] -= 1
    unseen = tuple(obs.unseen_counts())
    leaf = LeafState(tuple(hand), (), unseen, 3, (_kind("5p"),), ())
    value = ev.evaluate(obs, [leaf])[0]
    v_self, v_ron = ev.wait_values(obs, tuple(hand), (), _kind("1z"))
    p_draw = 2 / sum(unseen)
    p_ron = 1 - (1 - 0.6 * p_draw) ** 3
    rng = np.random.default_rng(0)
    n = 400_000
    total = np.zeros(n)
    going = np.ones(n, dtype=bool)
    for left in (3, 2, 1):
        rival = going & (rng.random(n) < hazard[left])
        going &= ~rival
        ron = going & (rng.random(n) < p_ron)
        total[ron] += v_ron
        going &= ~ron
        tsumo = going & (rng.random(n) < p_draw)
        total[tsumo] += v_self
        going &= ~tsumo
    assert value == pytest.approx(total.mean(), rel=0.03)
    assert HandValueEvaluator(rival=0.05).evaluate(obs, [leaf])[0] > value  # later rivals cost


def test_ron_rates_by_class_weight_each_wait_by_its_class() -> None:
    """Waits on 1m (a terminal) and 4m (3-7), one own draw left, no rival: the discard-win
    chance and its mean payment weight each wait by its class's rate (docs/mahjong-agents.md §3)."""
    obs = _position("123456789p111s99s23m5z")
    ev = HandValueEvaluator(rival=0.0, ron_by_class=(0.5, 1.25, 0.95, 0.66))
    hand = list(obs.hand)
    hand[_kind("5z")] -= 1
    unseen = tuple(obs.unseen_counts())
    leaf = LeafState(tuple(hand), (), unseen, 1, (_kind("5z"),), ())
    u1, u4, total = unseen[_kind("1m")], unseen[_kind("4m")], sum(unseen)
    s1, r1 = ev.wait_values(obs, tuple(hand), (), _kind("1m"))
    s4, r4 = ev.wait_values(obs, tuple(hand), (), _kind("4m"))
    weighted = 1.25 * u1 + 0.66 * u4
    p_ron = 1 - (1 - weighted / total) ** 3
    expected = (p_ron * (1.25 * u1 * r1 + 0.66 * u4 * r4) / weighted
                + (1 - p_ron) * (u1 * s1 + u4 * s4) / total)
    assert ev.evaluate(obs, [leaf])[0] == pytest.approx(expected)
    # the tree's discard wins before an in-tree draw read the same rates
    search = ValueSearch(obs, 2, 1.0, "tiles", ShantenOrdering(), ron_by_class=(0.5, 1.25, 0.95, 0.66))
    ctx = ExpectimaxAgent().context(obs, (), 16)
    after = shanten_tables().distances_after_draw(suit_indices(hand), 5, list(range(34)))
    p, v = search.ron_chance(ctx, hand, list(unseen), after)
    w1, w4 = search.ron_value(ctx, hand, _kind("1m")), search.ron_value(ctx, hand, _kind("4m"))
    assert p == pytest.approx(p_ron)
    assert v == pytest.approx((1.25 * u1 * w1 + 0.66 * u4 * w4) / weighted)
    # every class at one rate is the flat model
    same = HandValueEvaluator(rival=0.0, ron_by_class=(0.66,) * 4).evaluate(obs, [leaf])[0]
    assert same == pytest.approx(HandValueEvaluator(rival=0.0, ron_rate=0.66).evaluate(obs, [leaf])[0])
    with pytest.raises(ConfigError, match="ron rates by class"):
        HandValueEvaluator(ron_by_class=(1.0, 1.0))


def test_ron_classes_keeps_the_single_wait_opponents_throw() -> None:
    """Two single waits alike in count and tai, on 9m (a terminal) and 5s (a middle tile): the
    flat model values them the same; with rates by class the agent keeps the terminal."""
    obs = _position("123456789p111s333z9m5s")
    legal = _legal_discards(obs)
    flat = ValueExpectimaxAgent(depth=1, defence=False)
    flat.act(obs, legal)
    assert flat.last_values[_kind("9m")] == pytest.approx(flat.last_values[_kind("5s")])
    classes = REGISTRY.make("expectimax:depth=1,defence=false")
    assert classes.act(obs, legal) == _kind("5s")
    with pytest.raises(ConfigError, match="ron_rate applies to ron=flat"):
        REGISTRY.make("expectimax:ron_rate=0.7")


def test_first_step_scale_speeds_a_not_ready_leaf() -> None:
    """A 1-shanten leaf, two own draws, no rival: P(win) = r x ready_rate, r its first-step rate,
    the own effective-tile rate times ``first_step_scale`` (claims speed it), at most 1."""
    obs = _position("123456789p111s99s2m5m5z")
    hand = list(obs.hand)
    hand[_kind("5z")] -= 1
    unseen = tuple(obs.unseen_counts())
    leaf = LeafState(tuple(hand), (), unseen, 2, (_kind("5z"),), ())
    # 1m..7m make a partial set with 2m or 5m; a third 9s makes a set, 2m or 5m the single wait
    effective = (sum(unseen[_kind(f"{r}m")] for r in range(1, 8)) + unseen[_kind("9s")]) / sum(unseen)
    rates = {"rival": 0.0, "improve": (0.3,), "ready_rate": 0.25}
    plain = HandValueEvaluator(**rates)
    assert plain.win_probability(obs, [leaf])[0] == pytest.approx(effective * 0.25)
    faster = HandValueEvaluator(**rates, first_step_scale=(1.5,))
    assert faster.win_probability(obs, [leaf])[0] == pytest.approx(1.5 * effective * 0.25)
    value, p = faster.evaluate(obs, [leaf])[0], faster.win_probability(obs, [leaf])[0]
    assert value == pytest.approx(p * plain.evaluate(obs, [leaf])[0] / plain.win_probability(obs, [leaf])[0])
    assert 5 * effective > 1  # capped: the first step comes at the first draw
    capped = HandValueEvaluator(**rates, first_step_scale=(5.0,)).win_probability(obs, [leaf])[0]
    assert capped == pytest.approx(0.25)
    with pytest.raises(ConfigError, match="first_step_scale"):
        HandValueEvaluator(first_step_scale=(0.0,))
    agent = REGISTRY.make("expectimax:rates=selfplay,ron=flat")
    assert agent.leaf_evaluator.first_step_scale == SELFPLAY_RATES["first_step_scale"]


def test_only_draws_near_the_hand_can_lower_its_shanten() -> None:
    """:func:`near_kinds` against the full 34-kind look-up, on seeded random hands of every size."""
    import random

    from paiju.mahjong.agents._hand import distance
    from paiju.mahjong.agents.value import near_kinds
    from paiju.mahjong.shanten import shanten_tables

    rng = random.Random(14)
    tables = shanten_tables()
    quads = 0
    for i in range(600):
        n = rng.choice([1, 4, 7, 10, 13, 16])
        hand = [0] * 34
        if i % 2 and n >= 4:  # every other hand holds a kind four times (its 4th copy cannot pair)
            hand[rng.randrange(34)] = 4
        pool = [k for k in range(34) for _ in range(4 - hand[k])]
        for k in rng.sample(pool, n - sum(hand)):
            hand[k] += 1
        quads += 4 in hand
        d0 = distance(hand)
        full = tables.distances_after_draw(suit_indices(hand), n // 3)
        near = set(near_kinds(hand))
        for t in range(34):
            if hand[t] < 4:
                after = list(hand)
                after[t] += 1
                assert full[t] == distance(after)
                if t not in near:
                    assert full[t] == d0
    assert quads >= 200


# ---- the old agent and the registry -------------------------------------------------------------
def test_leaf_shanten_is_the_old_agent_move_for_move() -> None:
    default = REGISTRY.make("expectimax-shanten")
    assert type(default) is ExpectimaxAgent and type(REGISTRY.make("expectimax-shanten")) is ExpectimaxAgent
    assert (default.depth, default.alpha, default.claim_depth) == (2, 0.6, 1)  # the old defaults
    assert type(default.leaf).__name__ == "WinningSpeedEvaluator"
    # move for move (depth 1 keeps the test fast; the code path is the same)
    old, spec = ExpectimaxAgent(depth=1), REGISTRY.make("expectimax-shanten:depth=1")
    players = [GreedyAgent() for _ in range(4)]
    compared = 0
    for seed in (31, 32, 33):
        state = GAME.new_hand(seed=seed)
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if seat == 2:
                assert spec.act(obs, legal) == old.act(obs, legal)
                compared += 1
            state.apply(players[seat].act(obs, legal))
    assert compared > 10


def test_registry_builds_and_checks_the_value_agent() -> None:
    agent = REGISTRY.make("expectimax:prune=kinds,defence=false,depth=1,ron=flat")
    assert isinstance(agent, ValueExpectimaxAgent) and agent.prune == "kinds" and not agent.defence
    for bad in ("expectimax:prune=bits", "expectimax:leaf=dqn", "expectimax:wait_scale=2"):
        with pytest.raises(ConfigError):
            REGISTRY.make(bad)
    with pytest.raises(ConfigError):
        ValueExpectimaxAgent(prune="none")
    # the superseded spec, as it was: a value-leaf parameter with its default shanten leaf
    # would be ignored, so it is refused
    with pytest.raises(ConfigError, match="defence, prune only apply to leaf=value"):
        REGISTRY.make("expectimax-v1:prune=kinds,defence=false")
    with pytest.raises(ConfigError, match="ron only applies to leaf=value"):
        REGISTRY.make("expectimax-v1:ron=classes")
    # today's expectimax no longer takes leaf, and says what to write instead
    with pytest.raises(ConfigError, match=r"expectimax no longer takes leaf: .*expectimax-shanten"):
        REGISTRY.make("expectimax:leaf=shanten")


def test_names_are_digest_equal_to_what_they_were() -> None:
    """The settled names build the agents the old spec built, move for move: expectimax is
    the old expectimax:leaf=value,ron=classes, expectimax-shanten the old default, and a spec
    recorded before the change (plain expectimax) resolves to expectimax-v1."""
    assert str(REGISTRY.recorded("expectimax")) == "expectimax-v1"
    recorded = REGISTRY.recorded("expectimax:leaf=value,ron=classes")
    assert str(recorded) == "expectimax-v1:leaf=value,ron=classes"
    assert REGISTRY.revision("expectimax") == 2 and REGISTRY.revision("expectimax-shanten") == 1
    pairs = [
        ("expectimax:depth=1", "expectimax-v1:leaf=value,ron=classes,depth=1"),
        ("expectimax:depth=1,ron=flat", "expectimax-v1:leaf=value,depth=1"),
        ("expectimax-shanten:depth=1", "expectimax-v1:depth=1"),
    ]
    players = [GreedyAgent() for _ in range(4)]
    for new_spec, old_spec in pairs:
        new, old = REGISTRY.make(new_spec, seed=4), REGISTRY.make(old_spec, seed=4)
        compared = 0
        for seed in (41, 42):
            state = GAME.new_hand(seed=seed)
            while not state.is_terminal():
                seat = state.current_player()
                obs, legal = state.observation(seat), state.legal_actions()
                if seat == 1:
                    assert new.act(obs, legal) == old.act(obs, legal), (new_spec, old_spec)
                    compared += 1
                state.apply(players[seat].act(obs, legal))
        assert compared > 10
