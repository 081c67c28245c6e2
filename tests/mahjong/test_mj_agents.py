"""Mahjong agents: registry, legal play, greedy rules, Expectimax against a naive reference.

The naive Expectimax below is written from its definition (``docs/mahjong-agents.md`` §2) alone: plain
recursion over count lists, the public ``shanten_counts`` / ``is_complete_counts``, draw
probabilities from the unseen counts, wins valued by ``score_win``. The fast search (suit
indices, batched leaves, memo) must give the same root values and the same choice.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import pytest

from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.mahjong.agents import (
    REGISTRY,
    ExpectimaxAgent,
    ExpectimaxSearch,
    GreedyAgent,
    LeafBatch,
    LeafEvaluator,
    OrderingFunction,
    SearchContext,
    SearchNode,
    ShantenOrdering,
    WinningSpeedEvaluator,
    rank_discards,
)
from paiju.mahjong.agents._hand import danger, draws_left, threats
from paiju.mahjong.agents.match import run_match
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.game import CHOW_LOW, KONG, PASS, PUNG, WIN, MahjongGame, MahjongObservation, Phase
from paiju.mahjong.scoring import WinContext, payment_amount, score_win
from paiju.mahjong.shanten import discard_options, is_complete_counts, shanten_counts
from paiju.mahjong.tiles import Meld, MeldType, parse_counts

GAME = MahjongGame()


Decision = tuple[MahjongObservation, list[int]]


def _turn_observations(count: int, seed: int, agent: str = "greedy") -> list[Decision]:
    """Turn decisions with a discard due, from seeded self-play."""
    out = []
    hand = 0
    while len(out) < count:
        state = GAME.new_hand(seed=seed + hand)
        agents = [REGISTRY.make(agent, seed=i) for i in range(4)]
        hand += 1
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if obs.phase == Phase.TURN and WIN not in legal and sum(a < 34 for a in legal) > 1:
                out.append((obs, legal))
            state.apply(agents[seat].act(obs, legal))
    return out[:count]


# ---- registry and legal play ---------------------------------------------------------------------
def test_registry_names_specs_and_errors() -> None:
    assert REGISTRY.names() == [
        "ddqn", "dqn", "expectimax", "expectimax-ddqn", "expectimax-distill", "expectimax-dqn",
        "expectimax-shanten", "expectimax-v1", "greedy", "random", "supervised",
    ]
    agent = REGISTRY.make("expectimax-shanten:depth=1,alpha=0.5", seed=3)
    assert isinstance(agent, ExpectimaxAgent) and agent.depth == 1 and agent.alpha == 0.5
    assert isinstance(REGISTRY.make("greedy:defence=false"), GreedyAgent)
    with pytest.raises(ConfigError, match="unknown parameter 'beta'"):
        REGISTRY.make("expectimax-shanten:beta=1")
    with pytest.raises(ConfigError, match=r"alpha=1.5 is above the maximum 1 \(allowed 0.01..1\)"):
        REGISTRY.make("expectimax-shanten:alpha=1.5")
    with pytest.raises(ConfigError, match="depth"):
        REGISTRY.make("expectimax-shanten:depth=0")
    with pytest.raises(ConfigError, match="unknown mahjong agent"):
        REGISTRY.make("minimax")


def test_every_agent_plays_legal_hands_to_the_end() -> None:
    """play_game applies every move through the legality check; any illegal move raises."""
    lineups = [
        ["random", "random", "random", "random"],
        ["greedy", "random", "greedy:defence=false", "random"],
        ["expectimax-shanten:depth=1,alpha=1.0", "greedy", "expectimax-shanten:depth=1,alpha=0.5", "random"],
    ]
    for i, specs in enumerate(lineups):
        for seed in range(2):
            agents = [REGISTRY.make(s, seed=10 * i + seat) for seat, s in enumerate(specs)]
            state = play_game(GAME, agents, seed=100 * i + seed).state
            assert state.is_terminal()
            assert sum(state.returns()) == 0


def test_deterministic_agents_are_pure_functions_of_the_observation() -> None:
    for obs, legal in _turn_observations(5, 40):
        pairs = ((GreedyAgent(), GreedyAgent()), (ExpectimaxAgent(depth=1), ExpectimaxAgent(depth=1)))
        for agent_a, agent_b in pairs:
            assert agent_a.act(obs, legal) == agent_b.act(obs, legal) == agent_a.act(obs, legal)


# ---- greedy ----------------------------------------------------------------------------------------
def test_greedy_discard_minimises_shanten_then_maximises_effective_tiles() -> None:
    agent = GreedyAgent()
    checked = 0
    for obs, legal in _turn_observations(40, 7):
        if threats(obs) or any(a >= 34 for a in legal):
            continue
        unseen = obs.unseen_counts()
        options = discard_options(list(obs.hand), unseen)  # public shanten API, best first
        best = (options[0].shanten, options[0].total)
        choice = agent.act(obs, legal)
        chosen = next(o for o in options if o.discard == choice)
        assert (chosen.shanten, chosen.total) == best
        checked += 1
    assert checked >= 20


def test_greedy_folds_against_a_ready_looking_opponent() -> None:
    obs, _ = _turn_observations(1, 3)[0]
    # give seat (player + 1) three exposed pungs: a threat
    seat = (obs.player + 1) % 4
    melds = list(obs.melds)
    melds[seat] = (Meld(MeldType.PUNG, 27, 27, obs.player), Meld(MeldType.PUNG, 28, 28, obs.player),
                   Meld(MeldType.PUNG, 29, 29, obs.player))
    far = parse_counts("19m19p19s1234567z5m5p5s")  # 16 + 1 tiles, far from ready
    threatened = dataclasses.replace(obs, melds=tuple(melds), hand=tuple(far))
    assert threats(threatened) == [seat]
    unseen = threatened.unseen_counts()
    discards = [k for k in range(34) if far[k]]
    choice = GreedyAgent().act(threatened, discards)
    safest = min(danger(k, threatened, unseen, [seat]) for k in discards)
    assert danger(choice, threatened, unseen, [seat]) == safest
    # without the defence it plays for speed instead
    rows = rank_discards(far, unseen, threatened, defence=False)
    assert GreedyAgent(defence=False).act(threatened, discards) == rows[0][0]


def test_danger_ranks_dead_honours_safest() -> None:
    obs, _ = _turn_observations(1, 5)[0]
    unseen = [4] * 34
    unseen[31] = 0  # every other 白 visible: nobody can pung it or wait on it
    assert danger(31, obs, unseen, []) == 0
    assert danger(31, obs, unseen, []) < danger(27, obs, unseen, []) < danger(4, obs, unseen, [])
    assert danger(0, obs, unseen, []) < danger(4, obs, unseen, [])  # 1m chows one way, 5m three ways


def test_greedy_claims_only_what_lowers_the_shanten() -> None:
    """In random claim windows the greedy choice follows its documented rule exactly."""
    agent = GreedyAgent()
    seen_claim = seen_pass = 0
    for seed in range(12):
        state = GAME.new_hand(seed=500 + seed)
        players = [GreedyAgent() for _ in range(4)]
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if obs.phase == Phase.CLAIM and WIN not in legal:
                now = shanten_counts(list(obs.hand))
                improving = []
                for a in legal:
                    if a == PUNG or CHOW_LOW <= a <= CHOW_LOW + 2:
                        after = list(obs.hand)
                        low = obs.window_tile - (a - CHOW_LOW) if a != PUNG else obs.window_tile
                        used = [obs.window_tile] * 2 if a == PUNG else [k for k in (low, low + 1, low + 2)
                                                                         if k != obs.window_tile]
                        for k in used:
                            after[k] -= 1
                        if discard_options(after, obs.unseen_counts())[0].shanten < now:
                            improving.append(a)
                choice = agent.act(obs, legal)
                if improving:
                    assert choice in improving
                    seen_claim += 1
                elif choice != KONG:
                    assert choice == PASS
                    seen_pass += 1
            state.apply(players[seat].act(obs, legal))
    assert seen_claim > 0 and seen_pass > 0


# ---- the naive reference Expectimax ------------------------------------------------------------
def _naive_win_value(ctx: SearchContext, hand: Sequence[int], tile: int) -> float:
    obs = ctx.observation
    win = WinContext(tile, True, obs.seat_wind, obs.round_wind)
    score = score_win(list(hand), ctx.melds, win, ctx.config)
    return float(sum(
        payment_amount(score, dealer_involved=obs.player == obs.dealer or p == obs.dealer,
                       continuation=obs.continuation, config=ctx.config)
        for p in range(4) if p != obs.player
    ))


def naive_expectimax(
    ctx: SearchContext, hand: list[int], depth: int, alpha: float, ordering: OrderingFunction,
    leaf: LeafEvaluator,
) -> dict[int, float]:
    """Value of each expanded root discard, straight from the definition."""

    def max_value(h: list[int], layer: int, disc: list[int], draws: list[int]) -> dict[int, float]:
        cands = [k for k in range(34) if h[k]]
        if alpha < 1 or layer == 0:
            node = SearchNode(tuple(h), tuple(disc), tuple(draws), shanten_counts(h), layer)
            sc = ordering.scores(ctx, node, cands)
            cands = [k for _, k in sorted(zip((-s for s in sc), cands, strict=True))]
            if alpha < 1:
                cands = cands[: max(1, math.ceil(alpha * len(cands)))]
        out = {}
        for k in cands:
            h2 = list(h)
            h2[k] -= 1
            out[k] = chance_value(h2, layer, [*disc, k], draws)
        return out

    def chance_value(h: list[int], layer: int, disc: list[int], draws: list[int]) -> float:
        if layer >= ctx.draws_left:
            return 0.0
        unseen = list(ctx.unseen)
        for t in draws:
            unseen[t] -= 1
        total = sum(unseen)
        value = 0.0
        for t in range(34):
            if not unseen[t]:
                continue
            h2 = list(h)
            h2[t] += 1
            if is_complete_counts(h2):
                v = _naive_win_value(ctx, h2, t)
            elif layer + 1 >= depth:
                parent = SearchNode(tuple(h), tuple(disc), tuple(draws), shanten_counts(h), layer)
                v = leaf.evaluate(ctx, LeafBatch(parent, (t,), (shanten_counts(h2),)))[0]
            else:
                v = max(max_value(h2, layer + 1, disc, [*draws, t]).values())
            value += unseen[t] * v
        return value / total

    return max_value(list(hand), 0, [], [])


def _context(
    obs: MahjongObservation, hand: Sequence[int], melds: Sequence[Meld], unseen: Sequence[int]
) -> SearchContext:
    return SearchContext(obs, tuple(melds), sum(hand) // 3, tuple(unseen), draws_left(obs), MahjongConfig())


def test_depth_one_matches_the_naive_reference_on_full_hands() -> None:
    ordering, leaf = ShantenOrdering(), WinningSpeedEvaluator()
    for obs, _ in _turn_observations(6, 21):
        ctx = _context(obs, obs.hand, obs.melds[obs.player], obs.unseen_counts())
        search = ExpectimaxSearch(ctx, 1, 1.0, ordering, leaf)
        best, value, children = search.root_discard(obs.hand)
        expected = naive_expectimax(ctx, list(obs.hand), 1, 1.0, ordering, leaf)
        assert set(children) == set(expected)
        for k, v in expected.items():
            assert children[k] == pytest.approx(v, rel=1e-12, abs=1e-9)
        assert value == pytest.approx(max(expected.values()))
        assert children[best] == value


def _small_position(seed: int) -> tuple[SearchContext, list[int]]:
    """An 8-tile concealed hand (three exposed pungs) near ready, late enough for 2 draws."""
    rng = np.random.default_rng(seed)
    obs, _ = _turn_observations(1, 60 + seed)[0]
    melds = [Meld(MeldType.PUNG, 27 + i, 27 + i, (obs.player + 1) % 4) for i in range(3)]
    while True:
        hand = [0] * 34
        for k in rng.choice(np.repeat(np.arange(27), 4), 8, replace=False):
            hand[int(k)] += 1
        if shanten_counts(hand) <= 1:
            break
    unseen = [4 - hand[k] for k in range(34)]
    for i in range(3):
        unseen[27 + i] = 1  # the pungs are ours: 3 copies visible, the 4th unseen
    obs = dataclasses.replace(obs, live_tiles=40)
    return _context(obs, hand, melds, unseen), hand


@pytest.mark.parametrize(("seed", "alpha"), [(0, 1.0), (1, 0.5), (2, 0.6)])
def test_depth_two_matches_the_naive_reference(seed: int, alpha: float) -> None:
    ordering, leaf = ShantenOrdering(), WinningSpeedEvaluator()
    ctx, hand = _small_position(seed)
    search = ExpectimaxSearch(ctx, 2, alpha, ordering, leaf)
    _, _, children = search.root_discard(hand)
    expected = naive_expectimax(ctx, hand, 2, alpha, ordering, leaf)
    assert set(children) == set(expected)
    for k, v in expected.items():
        assert children[k] == pytest.approx(v, rel=1e-9)
    assert search.stats["wins"] > 0  # the position is near ready: real wins inside the tree


def test_plugged_ordering_prunes_and_plugged_leaves_are_used() -> None:
    class PreferHonours:
        calls = 0

        def scores(self, ctx: SearchContext, node: SearchNode, discards: Sequence[int]) -> list[float]:
            PreferHonours.calls += 1
            return [float(k) for k in discards]  # highest kind first

    class Constant:
        batches = 0

        def evaluate(self, ctx: SearchContext, batch: LeafBatch) -> list[float]:
            Constant.batches += 1
            assert len(batch.tiles) == len(batch.shanten)
            for t, s in zip(batch.tiles, batch.shanten, strict=True):
                h = list(batch.parent.hand)
                h[t] += 1
                assert s == shanten_counts(h) >= 0
            return [1.0] * len(batch.tiles)

    ordering, leaf = PreferHonours(), Constant()
    assert isinstance(ordering, OrderingFunction) and isinstance(leaf, LeafEvaluator)
    obs, _ = _turn_observations(1, 33)[0]
    ctx = _context(obs, obs.hand, obs.melds[obs.player], obs.unseen_counts())
    kinds = [k for k in range(34) if obs.hand[k]]
    _, _, children = ExpectimaxSearch(ctx, 1, 0.25, ordering, leaf).root_discard(obs.hand)
    assert sorted(children) == sorted(kinds)[-math.ceil(0.25 * len(kinds)):]
    assert PreferHonours.calls == 1 and Constant.batches == len(children)
    expected = naive_expectimax(ctx, list(obs.hand), 1, 0.25, ordering, leaf)
    assert children == pytest.approx(expected)


# ---- hand-checked Expectimax decisions -------------------------------------------------------------
def _obs_with(hand: str) -> tuple[MahjongObservation, SearchContext]:
    """A turn observation with the given concealed hand, no melds, only the hand seen."""
    obs, _ = _turn_observations(1, 90)[0]
    counts = parse_counts(hand)
    melds = tuple(() for _ in range(4))
    obs = dataclasses.replace(obs, hand=tuple(counts), live_tiles=40, melds=melds)
    return obs, _context(obs, counts, (), [4 - c for c in counts])


def test_expectimax_keeps_the_wait_with_more_tiles() -> None:
    # 17 tiles: discard 9s -> ready on 1p/4p/7p; every other discard leaves the hand not ready
    obs, ctx = _obs_with("123m456m789m23p456p77z9s")
    search = ExpectimaxSearch(ctx, 1, 1.0, ShantenOrdering(), WinningSpeedEvaluator())
    best, _, _ = search.root_discard(obs.hand)
    assert best == parse_counts("9s").index(1)


def test_expectimax_values_wins_by_their_real_score() -> None:
    """Two single waits with three unseen copies each: the half-flush one (混一色) is worth more."""
    # discard 5p: wait 1z (m + honours: 混一色 +4 tai); discard 1z: wait 5p (no flush).
    obs, ctx = _obs_with("123456789m123789m1z5p")
    one_z, five_p = parse_counts("1z").index(1), parse_counts("5p").index(1)
    assert ctx.unseen[one_z] == ctx.unseen[five_p] == 3
    search = ExpectimaxSearch(ctx, 1, 1.0, ShantenOrdering(), WinningSpeedEvaluator())
    best, _, children = search.root_discard(obs.hand)
    assert best == five_p  # keep 1z: the flush wait
    flush = _naive_win_value(ctx, parse_counts("123456789m123789m11z"), one_z)
    plain = _naive_win_value(ctx, parse_counts("123456789m123789m55p"), five_p)
    assert flush > plain
    # the difference between the two discards is exactly the difference of the win values
    p_win = 3 / sum(ctx.unseen)
    assert children[five_p] - children[one_z] == pytest.approx(p_win * (flush - plain))


def test_winning_speed_probabilities() -> None:
    ev = WinningSpeedEvaluator(improve=(0.5,), rival=0.0)
    assert ev.win_probability(-1, 0) == 1.0
    assert ev.win_probability(0, 0) == 0.0
    assert ev.win_probability(0, 1) == pytest.approx(0.5)
    assert ev.win_probability(0, 3) == pytest.approx(1 - 0.5**3)
    assert ev.win_probability(1, 2) == pytest.approx(0.25)  # needs both draws to improve
    ev2 = WinningSpeedEvaluator()
    probs = [ev2.win_probability(s, 10) for s in range(5)]
    assert probs == sorted(probs, reverse=True)
    with pytest.raises(ConfigError):
        WinningSpeedEvaluator(improve=(0.0,))


def test_draws_left_follows_the_turn_order() -> None:
    obs, _ = _turn_observations(1, 12)[0]
    own_turn = dataclasses.replace(obs, live_tiles=8, turn=obs.player, window_from=-1)
    assert draws_left(own_turn) == 2  # draws 4 and 8 of the 8 left
    assert draws_left(dataclasses.replace(own_turn, live_tiles=3)) == 0
    window = dataclasses.replace(obs, live_tiles=5, window_from=(obs.player + 3) % 4)
    assert draws_left(window) == 2  # next in turn: draws 1 and 5


def test_expectimax_takes_wins_and_weighs_claims() -> None:
    agent = ExpectimaxAgent(depth=1)
    decided = 0
    for seed in range(6):
        state = GAME.new_hand(seed=700 + seed)
        players = [GreedyAgent() for _ in range(4)]
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if WIN in legal:
                assert agent.act(obs, legal) == WIN
            elif obs.phase == Phase.CLAIM:
                assert agent.act(obs, legal) in legal
                decided += 1
            state.apply(players[seat].act(obs, legal))
    assert decided > 0


# ---- matches ---------------------------------------------------------------------------------------
def test_match_report_greedy_beats_random() -> None:
    report = run_match(["greedy", "random"], 16, seed=4)
    greedy, rnd = report.agents
    assert greedy.agent == "greedy" and greedy.seat_hands == 32
    assert greedy.win_rate.value > 0.25 and rnd.win_rate.value < 0.1
    assert greedy.mean_score.value > 0 > rnd.mean_score.value
    assert greedy.mean_score.value == pytest.approx(-rnd.mean_score.value)  # zero-sum, equal seats


# ---- the rules come from the game --------------------------------------------------------------


def _tenpai_value(**rules: object) -> tuple[float, MahjongObservation]:
    """Depth-1 value for seat 1, single wait on 5p, about to draw (a hand-built wall)."""
    from paiju.mahjong.game import build_wall

    state = MahjongGame(**rules).new_hand(build_wall(["", "123m456m789m234s678s5p", "", ""], seed=0))  # type: ignore[arg-type]
    obs = state.observation(1)
    agent = ExpectimaxAgent(depth=1)
    return agent.search(agent.context(obs), 1).root_chance(obs.hand), obs


def test_expectimax_values_wins_by_the_games_tai_table() -> None:
    from paiju.mahjong.config import TaiTable
    from paiju.mahjong.tiles import Tile

    default, obs = _tenpai_value()
    richer, _ = _tenpai_value(tai=TaiTable(concealed_self_draw=13))  # 門清自摸 3 -> 13 tai
    five_pin = int(Tile.parse("5p"))
    unseen = obs.unseen_counts()
    # only the self-drawn 5p wins at depth 1: 10 more tai from each of the 3 payers, 500 a tai
    expected = unseen[five_pin] / sum(unseen) * 3 * 10 * 500
    assert richer - default == pytest.approx(expected, rel=1e-9) and expected > 0
    assert obs.config.tai.concealed_self_draw == 3


@pytest.mark.parametrize("spec", ["random", "greedy", "expectimax-shanten:depth=1"])
def test_every_agent_plays_legally_under_non_default_rules(spec: str) -> None:
    from paiju.mahjong.config import TaiTable

    game = MahjongGame(min_tai=2, multi_ron="head_bump", dead_wall=8, tai=TaiTable(single_wait=4))
    agents = [REGISTRY.make(spec, seed=s) for s in range(4)]
    state = game.new_hand(seed=11)
    while not state.is_terminal():
        seat = state.current_player()
        obs = state.observation(seat)
        assert obs.config == game.config  # what the agents read the rules from
        state.apply(agents[seat].act(obs, state.legal_actions()))


def test_greedy_turns_are_the_discard_turns_of_greedy_games() -> None:
    """The calibration generator walks the same games as the core's loop with four greedy
    seats: the same turns (seat, hand, river lengths) in the same order, hand by hand."""
    from paiju.mahjong.agents.greedy import greedy_turns

    game = MahjongGame()
    seen = [(h, obs.player, obs.hand, tuple(len(r) for r in obs.discards))
            for h, _state, obs in greedy_turns(3, 40)]
    expected = []
    for h in range(3):
        def look(state: object, player: int, h: int = h) -> None:
            obs = state.observation(player)  # type: ignore[attr-defined]
            if obs.phase == Phase.TURN and WIN not in state.legal_actions():  # type: ignore[attr-defined]
                expected.append((h, player, obs.hand, tuple(len(r) for r in obs.discards)))

        agents = [GreedyAgent() for _ in range(4)]
        play_game(game, agents, 0, start=game.new_hand(seed=40 + h), before_move=look)
    assert len(seen) > 60 and seen == expected
