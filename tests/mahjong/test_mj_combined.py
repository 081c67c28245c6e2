"""The combined Expectimax + (Double) DQN (``expectimax-dqn`` / ``expectimax-ddqn``).

Every expectation is computed here independently of the search: k from the paper's formula
by hand, Q-values by calling the network on positions built in this file (``own_turn`` +
``encode_flat``), and the root values by a brute-force expectimax written from the tree's
definition (docs/mahjong-agents.md §3, §6).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from paiju.algorithms.dqn import QNetConfig, QNetwork, save_model, seeded_network
from paiju.core.agents import keyword_defaults
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.mahjong import features as F
from paiju.mahjong.agents import REGISTRY, GreedyAgent
from paiju.mahjong.agents.combined import CombinedAgent, CombinedSearch
from paiju.mahjong.config import TaiTable
from paiju.mahjong.game import NUM_PLAYERS, MahjongGame, MahjongObservation, Phase
from paiju.mahjong.scoring import WinContext, payment_amount, score_win
from paiju.mahjong.tiles import NUM_KINDS, Meld, MeldType, parse_counts

GAME = MahjongGame()


# ---- networks and positions ---------------------------------------------------------------------
def _save(path: Path, net: QNetwork, features: str = F.FEATURES_VERSION) -> str:
    return str(save_model(path, net, {"features": features}))


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("combined")
    random_net = seeded_network(QNetConfig((F.FLAT_SIZE,), NUM_KINDS, kind="mlp", hidden=(16,)), 7)
    # Q(s, a) = a for every s: zero head weights, bias = the kind index, so the top-k
    # discards of a node are its k highest held kinds
    ranked = seeded_network(QNetConfig((F.FLAT_SIZE,), NUM_KINDS, kind="mlp", hidden=(4,)), 0)
    with torch.no_grad():
        ranked.head.weight.zero_()
        ranked.head.bias.copy_(torch.arange(NUM_KINDS, dtype=torch.float32))
    # the same random weights, Q in units of 250 points (a training run's score_scale)
    scaled = str(save_model(root / "scaled.pt", random_net, {"features": F.FEATURES_VERSION,
                                                              "config": {"score_scale": 250.0}}))
    return {"random": _save(root / "random.pt", random_net), "ranked": _save(root / "ranked.pt", ranked),
            "scaled": scaled}


def _net(path: str) -> QNetwork:
    from paiju.algorithms.dqn import load_model

    return load_model(path)[0]


def _dealer_turn(seed: int = 3, **changes: Any) -> MahjongObservation:
    """A real observation (the dealer's first turn), with ``changes`` applied."""
    state = GAME.new_hand(seed=seed)
    obs = state.observation(state.current_player())
    assert obs.phase == Phase.TURN
    return dataclasses.replace(obs, **changes)


def _turn_positions(count: int, seed: int) -> list[tuple[MahjongObservation, list[int]]]:
    """Turn decisions with a discard due (>= 2 choices) from seeded greedy play."""
    out: list[tuple[MahjongObservation, list[int]]] = []

    def collect(state: Any, player: int) -> None:
        if player >= 0 and len(out) < count:
            obs, legal = state.observation(player), state.legal_actions()
            mid_hand = len(obs.discards[player]) >= 2
            if obs.phase == Phase.TURN and sum(a < NUM_KINDS for a in legal) > 1 and mid_hand:
                out.append((obs, list(legal)))

    hand = 0
    while len(out) < count:
        play_game(GAME, [GreedyAgent() for _ in range(NUM_PLAYERS)], seed + hand, before_move=collect)
        hand += 1
    return out


def _position(obs: MahjongObservation, hand: Sequence[int], discards: Sequence[int],
              draws: Sequence[int]) -> MahjongObservation:
    """The position after own in-tree ``discards`` / ``draws``, built here from the definition:
    the river grows by each discard (摸打 when it is the tile drawn just before it), the wall
    by four tiles per own draw, the last draw is the tile just drawn (none at a leaf)."""
    p = obs.player
    river = list(obs.discards[p])
    flags = list(obs.discards_drawn[p])
    before = obs.drawn
    for i, k in enumerate(discards):
        river.append((k, -1))
        flags.append(k == before)
        before = draws[i] if i < len(draws) else -1
    pos = F.own_turn(obs, hand, obs.melds[p], river, flags, obs.live_tiles - 4 * len(draws))
    at_max_node = len(draws) == len(discards) and draws
    return dataclasses.replace(pos, drawn=draws[-1]) if at_max_node else pos


def _q(net: QNetwork, position: MahjongObservation) -> np.ndarray:
    with torch.no_grad():
        out: np.ndarray = net(torch.from_numpy(F.encode_flat(position)[None]))[0].numpy()
    return out


def _top_k(q: np.ndarray, hand: Sequence[int], k: int) -> set[int]:
    held = sorted((k_ for k_ in range(NUM_KINDS) if hand[k_]), key=lambda x: (-q[x], x))
    return set(held[:k])


def _k(hand: Sequence[int], alpha: float) -> int:
    return min(math.ceil(alpha * sum(hand)), sum(1 for c in hand if c))


# ---- pruning -----------------------------------------------------------------------------------
# 11223m345p67p19s11z55z7z: 17 tiles, 13 kinds (1m 2m 3m 3p 4p 5p 6p 7p 1s 9s 1z 5z 7z).
# k = min(ceil(alpha x 17), 13): alpha 0.1 -> 2, 0.2 -> 4, 0.5 -> 9, 0.6 -> 11, 0.8 -> 13 (ceil 13.6
# = 14 capped by the 13 kinds). With Q = kind index the kept ones are the highest kinds:
# 7z 5z | 1z 9s | 1s 7p 6p 5p 4p | 3p 3m | 2m 1m.
HAND_17 = "11223m345p67p19s11z55z7z"
KEPT_17 = {
    0.1: "5z7z", 0.2: "9s1z5z7z", 0.5: "456p7p19s1z5z7z", 0.6: "3m3456p7p19s1z5z7z",
    0.8: "123m34567p19s1z5z7z",
}


# 1199m23p5s1234567z after an exposed 8s pung: 14 tiles, 12 kinds; k = min(ceil(alpha x 14), 12):
# alpha 0.3 -> 5, 0.6 -> 9 (ceil 8.4), 0.9 -> 12 (ceil 12.6 = 13, capped: every discard).
HAND_14 = "1199m23p5s1234567z"
KEPT_14 = {0.3: "34567z", 0.6: "3p5s1234567z", 0.9: "19m23p5s1234567z"}


@pytest.mark.parametrize(("hand", "alpha", "kept", "k"), [
    *((HAND_17, a, KEPT_17[a], k) for a, k in ((0.1, 2), (0.2, 4), (0.5, 9), (0.6, 11), (0.8, 13))),
    *((HAND_14, a, KEPT_14[a], k) for a, k in ((0.3, 5), (0.6, 9), (0.9, 12))),
])
def test_root_keeps_the_hand_checked_k_of_highest_q(
    models: dict[str, str], hand: str, alpha: float, kept: str, k: int
) -> None:
    obs = _dealer_turn(hand=tuple(parse_counts(hand)), live_tiles=40)
    if hand == HAND_14:
        pung = (Meld(MeldType.PUNG, 25, 25, (obs.player + 1) % 4),)  # 8s
        melds = tuple(pung if seat == obs.player else () for seat in range(NUM_PLAYERS))
        obs = dataclasses.replace(obs, melds=melds)
    agent = CombinedAgent(model=models["ranked"], alpha=alpha, depth=1)
    values = agent.discard_values(obs)
    expected = [x for x in range(NUM_KINDS) if parse_counts(kept)[x]]
    assert sorted(values) == expected and len(expected) == k


def test_every_max_node_keeps_k_by_q_and_a_decision_takes_few_forwards(models: dict[str, str]) -> None:
    net = _net(models["random"])
    agent = REGISTRY.make(f"expectimax-ddqn:model={models['random']}")
    assert isinstance(agent, CombinedAgent) and (agent.depth, agent.alpha) == (2, 0.6)
    checked = deep = 0
    for obs, legal in _turn_positions(3, seed=40):
        before = agent.model.forwards
        values = agent.discard_values(obs, [a for a in legal if a < NUM_KINDS])
        assert agent.model.forwards - before <= agent.depth + 1  # one pass per layer + the leaves
        search = agent.last_search
        assert isinstance(search, CombinedSearch) and values
        for (hand, discards, draws), kept in list(search.expanded.items())[::7]:
            q = _q(net, obs if not discards else _position(obs, hand, discards, draws))
            assert len(kept) == _k(hand, 0.6)
            assert set(kept) == _top_k(q, hand, len(kept))
            checked += 1
            deep += bool(discards)
    assert checked > 20 and deep > 15


@pytest.mark.parametrize(("model", "leaf", "depth", "tiles", "scale"), [
    ("random", "discard", 2, 16, 1.0),  # the first version: the hand after the last discard, raw Q
    ("random", "draw", 1, 17, 1.0),  # the turn after the discard's draw, the tile just drawn
    ("scaled", "draw", 1, 17, 250.0),  # ... in points: Q times the model's score_scale
    ("scaled", "discard", 2, 16, 1.0),  # the first version never scaled
])
def test_leaf_values_are_max_q_of_the_leaf_position(
    models: dict[str, str], model: str, leaf: str, depth: int, tiles: int, scale: float
) -> None:
    net = _net(models[model])
    agent = CombinedAgent(model=models[model], alpha=0.4, depth=depth, leaf=leaf)
    obs, legal = _turn_positions(1, seed=41)[0]
    action, value = agent.recommend(obs, legal)  # the trainer's interface: the move and its value
    assert value == max(agent.last_values.values()) == agent.last_values[action]
    search = agent.last_search
    assert search is not None and len(search.leaves) > 50
    assert {sum(leaf.hand) for leaf in search.leaves} == {tiles}
    for state, leaf_value in list(zip(search.leaves, agent.last_leaf_values, strict=True))[::11]:
        assert len(state.draws) == depth - (leaf == "discard")
        q = _q(net, _position(obs, state.hand, state.discards, state.draws))
        expected = scale * max(q[k] for k in range(NUM_KINDS) if state.hand[k])
        assert leaf_value == pytest.approx(expected, rel=1e-5, abs=1e-4)


def test_a_value_model_values_the_leaves_at_the_pruning_models_first_discard(models: dict[str, str]) -> None:
    # ranked: Q = the kind index, so the pick is the highest held kind, rarely the valuer's own max
    ranker, valuer = _net(models["ranked"]), _net(models["scaled"])
    agent = REGISTRY.make(f"expectimax-ddqn:model={models['ranked']},value_model={models['scaled']},"
                          f"depth=1,leaf=draw,alpha=0.4")
    assert isinstance(agent, CombinedAgent)
    obs, legal = _turn_positions(1, seed=41)[0]
    agent.discard_values(obs, [a for a in legal if a < NUM_KINDS])
    search = agent.last_search
    assert search is not None and len(search.leaves) > 50
    below_max = 0
    for state, leaf_value in list(zip(search.leaves, agent.last_leaf_values, strict=True))[::11]:
        position = _position(obs, state.hand, state.discards, state.draws)
        rank, q = _q(ranker, position), _q(valuer, position)
        held = [k for k in range(NUM_KINDS) if state.hand[k]]
        pick = max(held, key=lambda k: (rank[k], -k))
        assert pick == max(held)
        assert leaf_value == pytest.approx(250.0 * q[pick], rel=1e-5, abs=1e-4)  # the valuer's scale
        below_max += leaf_value < 250.0 * max(q[k] for k in held) - 1e-3
    assert below_max  # not the valuer's own max Q
    # the tree is still pruned by the ranking model
    kept = search.expanded[(tuple(obs.hand), (), ())]
    assert set(kept) == _top_k(_q(ranker, obs), obs.hand, len(kept))


def test_deal_in_charges_each_root_discard_and_keeps_the_safest(models: dict[str, str]) -> None:
    from paiju.mahjong.agents.value import deal_in_risk

    spec = f"expectimax-ddqn:model={models['ranked']},depth=1,leaf=draw,alpha=0.1"
    plain, folding = REGISTRY.make(spec), REGISTRY.make(spec + ",deal_in=true")
    assert isinstance(plain, CombinedAgent) and isinstance(folding, CombinedAgent)
    charged = added = 0
    for obs, legal in _turn_positions(12, seed=43)[::3]:
        held = [a for a in legal if a < NUM_KINDS]
        base, values = plain.discard_values(obs, held), folding.discard_values(obs, held)
        risk = deal_in_risk(obs, 2.0, 0.02)  # the value Expectimax's defaults, written out
        safest = min(held, key=lambda k: (risk.cost[k], k))
        assert safest in values and set(base) <= set(values)
        added += safest not in base
        for k, v in base.items():  # the same tree, each discard charged: (1 - p) v - cost
            want = (1 - risk.probability[k]) * v - risk.cost[k]
            assert values[k] == pytest.approx(want, rel=1e-9, abs=1e-9)
            charged += risk.cost[k] > 0
    assert charged and added  # a dangerous discard, and a safest one the pruning alone drops


# ---- the tree ----------------------------------------------------------------------------------
def _complete(hand: list[int], need_pair: bool = True) -> bool:
    """Sets (and one pair) only: an independent decomposition of a concealed hand."""
    i = next((k for k in range(NUM_KINDS) if hand[k]), -1)
    if i < 0:
        return not need_pair
    if need_pair and hand[i] >= 2:
        hand[i] -= 2
        ok = _complete(hand, False)
        hand[i] += 2
        if ok:
            return True
    if hand[i] >= 3:
        hand[i] -= 3
        ok = _complete(hand, need_pair)
        hand[i] += 3
        if ok:
            return True
    if i < 27 and i % 9 <= 6 and hand[i + 1] and hand[i + 2]:
        for d in (0, 1, 2):
            hand[i + d] -= 1
        ok = _complete(hand, need_pair)
        for d in (0, 1, 2):
            hand[i + d] += 1
        return ok
    return False


def _self_draw_points(obs: MahjongObservation, hand: list[int], melds: tuple[Meld, ...], tile: int) -> float:
    score = score_win(hand, melds, WinContext(tile, True, obs.seat_wind, obs.round_wind), obs.config)
    return float(sum(
        payment_amount(score, dealer_involved=obs.player == obs.dealer or p == obs.dealer,
                       continuation=obs.continuation, config=obs.config)
        for p in range(NUM_PLAYERS) if p != obs.player
    ))


def brute_force(
    obs: MahjongObservation, net: QNetwork, depth: int, keep: Callable[[int], float],
    leaf_after: str = "discard", scale: float = 1.0,
) -> dict[int, float]:
    """Every discard, every draw (weighted by the unseen copies), a self-drawn win at its score,
    the hand going on with chance ``keep(layer)`` in the go-around of the draw after ``layer``
    in-tree draws; after ``depth`` discards (``leaf_after="discard"``) or after the draw that
    follows the last of them (``"draw"``), ``scale`` x max Q."""
    melds = tuple(obs.melds[obs.player])
    wins = 0

    def leaf(hand: list[int], discards: list[int], draws: list[int]) -> float:
        q = _q(net, _position(obs, hand, discards, draws))
        return scale * float(max(q[k] for k in range(NUM_KINDS) if hand[k]))

    def max_values(
        hand: list[int], unseen: list[int], discards: list[int], draws: list[int]
    ) -> dict[int, float]:
        out = {}
        for k in [k for k in range(NUM_KINDS) if hand[k]]:
            after = list(hand)
            after[k] -= 1
            path = [*discards, k]
            at_leaf = len(path) >= depth and leaf_after == "discard"
            out[k] = leaf(after, path, draws) if at_leaf else chance(after, unseen, path, draws)
        return out

    def chance(hand: list[int], unseen: list[int], discards: list[int], draws: list[int]) -> float:
        nonlocal wins
        acc = 0.0
        for t in range(NUM_KINDS):
            if not unseen[t]:
                continue
            drawn = list(hand)
            drawn[t] += 1
            if _complete(list(drawn)):
                wins += 1
                acc += unseen[t] * _self_draw_points(obs, drawn, melds, t)
            else:
                rest = list(unseen)
                rest[t] -= 1
                if len(discards) >= depth:  # only reached with leaf_after="draw"
                    acc += unseen[t] * leaf(drawn, discards, [*draws, t])
                else:
                    acc += unseen[t] * max(max_values(drawn, rest, discards, [*draws, t]).values())
        return keep(len(draws)) * acc / sum(unseen)

    values = max_values(list(obs.hand), list(obs.unseen_counts()), [], [])
    assert wins > 0  # the position reaches real wins inside the tree
    return values


@pytest.mark.parametrize(("model", "leaf", "depth", "scale"), [
    ("random", "discard", 2, 1.0), ("scaled", "draw", 1, 250.0), ("scaled", "draw", 2, 250.0),
])
def test_full_width_root_values_equal_a_brute_force_expectimax(
    models: dict[str, str], model: str, leaf: str, depth: int, scale: float
) -> None:
    # four exposed wind pungs and 234m 5p 6s: discarding 6s waits on 5p (a pair), so wins occur
    seat = _dealer_turn()
    melds = tuple(Meld(MeldType.PUNG, 27 + i, 27 + i, (seat.player + 1) % 4) for i in range(4))
    all_melds = tuple(melds if s == seat.player else () for s in range(NUM_PLAYERS))
    obs = dataclasses.replace(seat, hand=tuple(parse_counts("234m5p6s")), melds=all_melds, live_tiles=40)
    agent = CombinedAgent(model=models[model], alpha=1.0, depth=depth, ron_rate=0.0, exact_leaves=True,
                          leaf=leaf)
    values = agent.discard_values(obs)
    assert agent.last_search is not None
    expected = brute_force(obs, _net(models[model]), depth, agent.last_search.survival, leaf, scale)
    assert set(values) == set(expected) == {k for k in range(NUM_KINDS) if obs.hand[k]}
    for k, v in expected.items():
        assert values[k] == pytest.approx(v, rel=1e-5, abs=1e-4)


# ---- play ---------------------------------------------------------------------------------------
class _Checked:
    """The combined agent, checked against the claim rule on every decision but its discards."""

    def __init__(self, agent: CombinedAgent) -> None:
        self.agent, self.rule, self.name = agent, GreedyAgent(defence=True), agent.name
        self.searched = 0

    def act(self, observation: Any, legal_actions: Sequence[int]) -> int:
        action = self.agent.act(observation, legal_actions)
        ruled = self.rule.act(observation, legal_actions)
        if observation.phase != Phase.TURN or ruled >= NUM_KINDS:
            assert action == ruled
        else:
            self.searched += sum(a < NUM_KINDS for a in legal_actions) > 1
        return action


def test_every_decision_is_legal_under_non_default_rules(models: dict[str, str]) -> None:
    game = MahjongGame(flowers=True, min_tai=2, multi_ron="head_bump", ligu=True, tai=TaiTable(single_wait=4))
    seats = [
        _Checked(REGISTRY.make(f"expectimax-ddqn:model={models['random']},alpha=0.4")),
        GreedyAgent(),
        _Checked(REGISTRY.make(f"expectimax-dqn:model={models['random']},depth=1,alpha=1.0")),
        GreedyAgent(),
    ]
    played = play_game(game, seats, 5)  # the loop checks every move is legal
    assert played.state.is_terminal() and played.error is None
    assert all(s.searched > 5 for s in seats if isinstance(s, _Checked))


def test_specs_refuse_bad_models_and_parameters(
    models: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paiju.mahjong.agents.dqn as dqn_agents

    monkeypatch.setattr(dqn_agents, "MODEL_DIR", tmp_path / "none-shipped")
    old = _save(tmp_path / "old.pt", seeded_network(QNetConfig((F.FLAT_SIZE,), NUM_KINDS, kind="mlp"), 0),
                features="mj-features-0")
    with pytest.raises(ConfigError, match="features 'mj-features-0'"):
        REGISTRY.make(f"expectimax-ddqn:model={old}")
    shipped = r"expectimax-dqn: no shipped model \(paiju/mahjong/models/mj-dqn\.pt"
    with pytest.raises(ConfigError, match=shipped):
        REGISTRY.make("expectimax-dqn")
    with pytest.raises(ConfigError, match="does not exist"):
        REGISTRY.make(f"expectimax-ddqn:model={tmp_path / 'missing.pt'}")
    with pytest.raises(ConfigError, match="alpha"):
        REGISTRY.make(f"expectimax-ddqn:model={models['random']},alpha=0")
    with pytest.raises(ConfigError, match="depth"):
        CombinedAgent(model=models["random"], depth=0)
    with pytest.raises(ConfigError, match="network 'sarsa'"):
        CombinedAgent(model=models["random"], network="sarsa")
    with pytest.raises(ConfigError, match="leaf='turn'"):
        CombinedAgent(model=models["random"], leaf="turn")
    with pytest.raises(ConfigError, match="leaf"):
        REGISTRY.make(f"expectimax-ddqn:model={models['random']},leaf=shanten")
    with pytest.raises(ConfigError, match="does not exist"):
        REGISTRY.make(f"expectimax-ddqn:model={models['random']},value_model={tmp_path / 'no-value.pt'},"
                      "leaf=draw")
    with pytest.raises(ConfigError, match="features 'mj-features-0'"):
        REGISTRY.make(f"expectimax-ddqn:model={models['random']},value_model={old},leaf=draw")
    for extra in (f"value_model={models['scaled']}", "deal_in=true"):
        with pytest.raises(ConfigError, match="value in points and need leaf=draw \\(got leaf='discard'\\)"):
            REGISTRY.make(f"expectimax-ddqn:model={models['random']},{extra}")


def test_registry_defaults_are_the_agent_class_defaults() -> None:
    names = ("model", "alpha", "depth", "threads", "defence", "ron_rate", "leaf", "value_model", "deal_in")
    for name in ("expectimax-dqn", "expectimax-ddqn"):
        assert REGISTRY.describe()[name][0] == keyword_defaults(CombinedAgent, *names)
