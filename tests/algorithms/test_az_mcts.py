"""MCTS with batched leaf evaluation (virtual loss) and the cached network evaluator."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest
import torch

from paiju.algorithms.alphazero import AZNet, NetConfig, NetworkEvaluator
from paiju.algorithms.mcts import MCTS, BatchEvaluator, Node, RandomRolloutEvaluator
from paiju.core.errors import ConfigError
from paiju.core.protocol import Action, State
from paiju.games.tictactoe import TicTacToe
from paiju.yuxi.encoding import YuxiEncoder
from paiju.yuxi.game import YuxiGame, YuxiState
from paiju.yuxi.phases import PH_SWAP

SMALL = {
    "channels": 8, "blocks": 1, "vector_hidden": 32, "hidden": 64, "second_hidden": 16, "value_hidden": 16
}
LEAF_VALUE = [0.25, -0.25]


class ConstantBatch:
    """A batch evaluator with a fixed value and uniform priors that records its batches."""

    def __init__(self) -> None:
        self.batches: list[int] = []
        self.states: list[State] = []

    def evaluate(self, state: State) -> list[float]:
        return self.evaluate_batch([state])[0]

    def evaluate_batch(self, states: Sequence[State]) -> list[list[float]]:
        self.batches.append(len(states))
        self.states.extend(states)
        return [list(LEAF_VALUE) for _ in states]

    def prior(self, state: State) -> list[tuple[Action, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def _sums(node: Node, is_root: bool) -> np.ndarray:
    """Per-seat sum of the returns of every simulation through ``node``, rebuilt from the tree:
    a terminal node returns its outcome on every visit; any other node was valued once (its
    first visit, not at the root) and passed every later simulation to a child."""
    if node.outcome is not None:
        return node.visits * np.array(node.outcome)
    total = np.zeros(2) if is_root else np.array(LEAF_VALUE)
    for child in (node.children or {}).values():
        if child.visits:
            total += _sums(child, False)
    return total


def _check_tree(node: Node, is_root: bool = True) -> int:
    """Visits and values of every node match what its simulations backed up; returns the
    number of valued (non-terminal, non-root) nodes."""
    if node.outcome is not None:
        return 0
    kids = list((node.children or {}).values())
    assert node.visits == sum(k.visits for k in kids) + (0 if is_root else 1)
    if node.player >= 0:
        assert node.value_sum == pytest.approx(_sums(node, is_root)[node.player])
    return (0 if is_root else 1) + sum(_check_tree(k, False) for k in kids if k.visits)


@pytest.mark.parametrize("rule", ["uct", "puct"])
def test_batched_search_refunds_virtual_loss_and_values_each_node_once(rule: str) -> None:
    game = TicTacToe()
    ev = ConstantBatch()
    mcts = MCTS(game, evaluator=ev, rule=rule, simulations=300, solve=False, seed=1, batch_size=8)
    result = mcts.search(game.new_initial_state())
    root = mcts.root
    assert root is not None and result.simulations == root.visits == 300
    valued = _check_tree(root)
    assert sum(ev.batches) == valued  # every valued node exactly once, nothing else
    assert max(ev.batches) == 8 and len(ev.batches) < 300 / 4  # the leaves did come in batches


def test_batched_solver_still_proves_a_win_in_one() -> None:
    game = TicTacToe()
    s = game.new_initial_state()
    for a in (0, 3, 1, 4):  # X to play 2 and win along the top row
        s.apply(a)
    mcts = MCTS(game, evaluator=ConstantBatch(), simulations=200, seed=0, batch_size=8)
    result = mcts.search(s)
    assert result.action == 2 and result.proven[2][s.current_player()] == 1.0


def test_batching_needs_a_batch_evaluator() -> None:
    game = TicTacToe()
    assert not isinstance(RandomRolloutEvaluator(), BatchEvaluator)
    with pytest.raises(ConfigError, match="batch_size=4 needs an evaluator with evaluate_batch"):
        MCTS(game, batch_size=4)
    with pytest.raises(ConfigError, match="batch_size=0"):
        MCTS(game, evaluator=ConstantBatch(), batch_size=0)


class _CountingEncoder(YuxiEncoder):
    """Counts which information states reach the network."""

    def __init__(self, game: YuxiGame) -> None:
        super().__init__(game)
        self.seen: Counter[object] = Counter()

    def encode(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        seat = self.perspective(state)
        self.seen[(seat, state.observation(seat))] += 1
        return super().encode(state)


def _yuxi_position(game: YuxiGame, seed: int, plies: int) -> YuxiState:
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    while s.is_chance_node() or plies > 0:
        if s.is_chance_node():
            s.apply(s.sample_chance(rng))
        else:
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
            plies -= 1
    return s


@pytest.mark.parametrize("determinize", [True, False])
def test_network_search_never_sends_a_position_twice(determinize: bool) -> None:
    game = YuxiGame(board="3x3", die_bonus=False)
    enc = _CountingEncoder(game)
    torch.manual_seed(0)
    ev = NetworkEvaluator(AZNet(NetConfig.for_encoder(enc, **SMALL)), enc)
    s = _yuxi_position(game, seed=2, plies=3)
    opponent = None if determinize else UniformAgent()
    mcts = MCTS(
        game, evaluator=ev, rule="puct", c=2.0, simulations=64, seed=3, batch_size=8,
        determinize=determinize, opponent_policy=opponent,
    )
    result = mcts.search(s)
    assert result.action in s.legal_actions() and result.simulations == 64
    assert enc.seen and max(enc.seen.values()) == 1
    assert ev.positions == len(enc.seen) and ev.calls < 64 / 2


class UniformAgent:
    """A seeded uniform agent for the training-time (opponent policy) mode."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.name = "uniform"

    def act(self, observation: object, legal_actions: Sequence[Action]) -> Action:
        return legal_actions[int(self.rng.integers(len(legal_actions)))]


def test_the_swap_is_decided_by_the_value_head() -> None:
    game = YuxiGame(board="4x4", die_bonus=False)
    enc = YuxiEncoder(game)
    torch.manual_seed(4)
    net = AZNet(NetConfig.for_encoder(enc, **SMALL))
    ev = NetworkEvaluator(net, enc, choice_temperature=0.05)
    plain = NetworkEvaluator(net, enc, cache_size=0)
    rng = np.random.default_rng(0)
    swaps = 0
    s = game.new_initial_state()
    while not s.is_terminal() and swaps < 3:
        if s.is_chance_node():
            s.apply(s.sample_chance(rng))
            continue
        legal = s.legal_actions()
        if s.phase == PH_SWAP and len(legal) > 1:
            swaps += 1
            mover = s.current_player()
            outcome_values = []
            for a in legal:  # valued one by one, uncached: an independent path
                child = s.clone()
                child.apply(a)
                outcome_values.append(plain.evaluate(child)[mover])
            best = legal[int(np.argmax(outcome_values))]
            assert ev.best_by_value(s) == best
            priors = dict(ev.prior(s))
            assert set(priors) == set(legal) and sum(priors.values()) == pytest.approx(1.0)
            assert max(priors, key=lambda a: priors[a]) == best
        s.apply(legal[int(rng.integers(len(legal)))])
    assert swaps == 3


def test_batched_determinized_search_counts_availability_once_per_simulation() -> None:
    # the searcher's own moves are legal in every determinization, so each root move was
    # available in exactly the simulations completed; abandoned descents must not count
    game = YuxiGame(board="3x3", die_bonus=False)
    s = _yuxi_position(game, seed=5, plies=2)
    ev = ConstantBatch()
    mcts = MCTS(game, evaluator=ev, rule="puct", simulations=150, seed=2, batch_size=16)
    result = mcts.search(s)
    root = mcts.root
    assert root is not None and root.children is not None and result.simulations == root.visits == 150
    assert len(ev.batches) > 150 / 16  # rounds did end early on collisions
    assert {ch.avail for ch in root.children.values()} == {150}


def test_mixed_leaves_weigh_the_network_against_the_other_evaluator() -> None:
    """(1 - w) x network + w x other, checked against the two evaluators called one by one;
    priors stay the network's, terminal states keep their returns, w outside [0, 1] refused."""
    from paiju.algorithms.alphazero import MixedEvaluator
    from paiju.yuxi.agents import HeuristicEvaluator

    game = YuxiGame(board="3x3", die_bonus=False)
    enc = YuxiEncoder(game)
    torch.manual_seed(5)
    net = NetworkEvaluator(AZNet(NetConfig.for_encoder(enc, **SMALL)), enc, cache_size=0)
    heuristic = HeuristicEvaluator()
    mixed = MixedEvaluator(net, heuristic, 0.25)
    states = [_yuxi_position(game, seed=s, plies=p) for s, p in ((1, 2), (2, 5), (3, 8))]
    for state, got in zip(states, mixed.evaluate_batch(states), strict=True):
        a, b = net.evaluate(state), heuristic.evaluate(state)
        assert got == pytest.approx([0.75 * a[0] + 0.25 * b[0], 0.75 * a[1] + 0.25 * b[1]])
        assert dict(mixed.prior(state)) == pytest.approx(dict(net.prior(state)))
    assert MixedEvaluator(net, heuristic, 0.0).evaluate(states[0]) == pytest.approx(net.evaluate(states[0]))
    rng = np.random.default_rng(0)
    end = game.new_initial_state()
    while not end.is_terminal():
        legal = end.legal_actions() if not end.is_chance_node() else None
        end.apply(end.sample_chance(rng) if legal is None else legal[int(rng.integers(len(legal)))])
    assert mixed.evaluate(end) == list(end.returns())
    for bad in (-0.1, 1.5):
        with pytest.raises(ConfigError, match="weight"):
            MixedEvaluator(net, heuristic, bad)
