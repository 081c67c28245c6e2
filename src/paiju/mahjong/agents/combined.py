"""The combined Expectimax + (Double) DQN (``expectimax-dqn``, ``expectimax-ddqn``;
``docs/mahjong-agents.md`` §6).

The tree is the value Expectimax's (:class:`~paiju.mahjong.agents.value.ValueSearch`: max
over own discards, chance over own draws weighted by the unseen tiles, ``depth`` discard
layers, self-drawn wins at their actual score), with the Q-network in its two plug-in points:

* **pruning by Q**: a max node expands its ``k = min(ceil(alpha * num(hand)), distinct
  discards)`` discards of highest Q (``num(hand)`` = tiles in hand, the paper's count),
  Q of the position at that node (the root observation; deeper, the player's own turn
  after the in-tree discards and draws, the tile just drawn marked);
* **leaves valued by max Q** (:class:`~paiju.mahjong.agents.dqn.QLeafEvaluator`), leaves
  with the same hand after the same draws once (:class:`CombinedSearch`).

Where the leaves are (``leaf``). ``leaf=discard`` (the default, the first version): the leaf
is the 3k+1 hand just after the last discard, before its draw, valued by the raw max Q of
that hand as if it were a turn. That is a position the network never saw in training (it
learns 3k+2 turns), and at depth 2 its Q is added to in-tree wins counted in points, another
scale. ``leaf=draw`` (added 2026-12-03) fixes both: every one of the ``depth`` discard
layers is followed by its own draw, a leaf is the player's next turn with the tile just drawn
(3k+2 tiles) -- the positions the network was trained on -- and it is worth ``max Q`` times
the model's ``score_scale``, in the in-tree wins' points; it needs a network whose Q is the
hand's expected score (``train-dqn --shaping 0 --gamma 1``). It costs a draw layer more: at
depth 1 about 10 ms a decision, at depth 2 and alpha 0.6 a median 1.4 s (p95 2.3 s).
Measured in docs/results/mahjong-dqn.md: with the networks trained so far neither plays
near the Expectimax, so the default stays the first version, whose recorded runs replay.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import torch

from paiju.core.errors import ConfigError
from paiju.core.rng import SeedLike
from paiju.mahjong import features as F
from paiju.mahjong.agents import COMBINED_LEAVES as LEAVES
from paiju.mahjong.agents._hand import draws_left
from paiju.mahjong.agents.dqn import QLeafEvaluator, QModel, path_live_tiles, path_river, resolve_model
from paiju.mahjong.agents.expectimax import SearchContext, SearchNode
from paiju.mahjong.agents.greedy import GreedyAgent
from paiju.mahjong.agents.value import (
    DEAL_IN_TAI,
    RON_RATE,
    WAIT_SCALE,
    ValueSearch,
    charge_deal_in,
    deal_in_risk,
    near_kinds,
)
from paiju.mahjong.game import MahjongObservation, Phase
from paiju.mahjong.shanten import shanten_tables, suit_indices
from paiju.mahjong.tiles import NUM_KINDS

NETWORKS = ("dqn", "ddqn")
"""The Q-networks a combined agent can load by default (``mj-dqn.pt``, ``mj-ddqn.pt``)."""

NodeKey = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
"""A max node: (3k+2 concealed counts, own in-tree discards, own in-tree draws), in order."""


def encode_max_nodes(
    observation: MahjongObservation, nodes: Sequence[NodeKey]
) -> tuple[np.ndarray, np.ndarray]:
    """Features of the positions at max nodes of one decision (the ``encode_features`` arrays).

    The root (no in-tree move) is the observation itself; a deeper node is the player's own
    turn with the node's hand, melds and river after the in-tree moves, the wall shorter by
    four per own draw, and the last in-tree draw as the tile just drawn.
    """
    kinds = np.zeros((len(nodes), F.NUM_KIND_FEATURES, NUM_KINDS), dtype=np.float32)
    scalars = np.zeros((len(nodes), F.NUM_SCALARS), dtype=np.float32)
    deep = [i for i, (_, discards, _) in enumerate(nodes) if discards]
    for i in set(range(len(nodes))) - set(deep):
        kinds[i], scalars[i] = F.encode_features(observation)
    if deep:
        rivers = [path_river(observation, nodes[i][1], nodes[i][2]) for i in deep]
        own = observation.melds[observation.player]
        k, s = F.encode_own_turns(
            observation,
            [nodes[i][0] for i in deep],
            [own] * len(deep),
            [r for r, _ in rivers],
            [f for _, f in rivers],
            [path_live_tiles(observation, nodes[i][2]) for i in deep],
        )
        k[np.arange(len(deep)), F.DRAWN, [nodes[i][2][-1] for i in deep]] = 1.0
        kinds[deep], scalars[deep] = k, s
    return kinds, scalars


class QOrdering:
    """An :class:`~paiju.mahjong.agents.expectimax.OrderingFunction`: a discard's score is the
    network's Q of it at the node's position. Nodes are computed in batches (:meth:`fetch`);
    one asked for without a fetch is computed alone. One instance per decision."""

    def __init__(self, model: QModel, observation: MahjongObservation) -> None:
        self.model = model
        self.observation = observation
        self.q: dict[NodeKey, np.ndarray] = {}
        """Q-values (34) of every max node fetched so far."""

    def fetch(self, nodes: Iterable[NodeKey]) -> None:
        """Q-values of ``nodes`` not yet known, in one forward pass."""
        todo = [n for n in dict.fromkeys(nodes) if n not in self.q]
        if not todo:
            return
        q = self.model.q_features(*encode_max_nodes(self.observation, todo)).numpy()
        for node, row in zip(todo, q, strict=True):
            self.q[node] = row

    def scores(self, ctx: SearchContext, node: SearchNode, discards: Sequence[int]) -> list[float]:
        key = (node.hand, node.discards, node.draws)
        if key not in self.q:
            self.fetch([key])
        row = self.q[key]
        return [float(row[k]) for k in discards]


class CombinedSearch(ValueSearch):
    """:class:`ValueSearch` with Q pruning; records what each max node kept.

    Leaves are shared as in :class:`ValueSearch` (same hand, same draws: the same in-tree
    discards in another order are one leaf, encoded with the first path's river), which
    saves 40% of the leaf evaluations at depth 2; ``exact_leaves`` keys them on the path.
    """

    def __init__(self, obs: MahjongObservation, depth: int, alpha: float, ordering: QOrdering,
                 ron_rate: float = RON_RATE, exact_leaves: bool = False, leaf: str = "discard") -> None:
        if leaf not in LEAVES:
            raise ConfigError(f"combined Expectimax leaf={leaf!r}: must be one of {LEAVES}")
        # leaf=draw: one more layer of draws, whose max nodes are the leaves (see max_node)
        super().__init__(obs, depth + (leaf == "draw"), alpha, "tiles", ordering, ron_rate,
                         exact_leaves=exact_leaves)
        self.prune_layers = depth
        """Discard layers, each pruned by Q (the leaves of ``leaf=draw`` are not expanded)."""
        self.leaves_after_draw = leaf == "draw"
        self.q_ordering = ordering
        self.expanded: dict[NodeKey, tuple[int, ...]] = {}
        """The discards expanded at every max node built (in order of Q)."""

    def expand(self, ctx: SearchContext, c: list[int], index: list[int], layer: int,
               disc: list[int], draws: list[int], allowed: Sequence[int] | None = None) -> list[int]:
        kinds = super().expand(ctx, c, index, layer, disc, draws, allowed)
        self.expanded[(tuple(c), tuple(disc), tuple(draws))] = tuple(kinds)
        return kinds

    def max_node(self, ctx: SearchContext, c: list[int], index: list[int], unseen: list[int],
                 layer: int, disc: list[int], draws: list[int],
                 allowed: Sequence[int] | None = None, always: int = -1) -> Any:
        """A max node, or with ``leaf=draw`` past the last discard layer a leaf: the 3k+2 hand
        of the player's next turn, the tile just drawn the last of ``draws``."""
        if self.leaves_after_draw and layer >= self.prune_layers:
            return self.leaf(ctx, c, unseen, layer, disc, draws)
        return super().max_node(ctx, c, index, unseen, layer, disc, draws, allowed, always)

    def prefetch(self, ctx: SearchContext, hand: Sequence[int], allowed: Sequence[int]) -> None:
        """Fetch the Q-values of every max node the tree will prune, one forward pass per layer.

        Walks the tree's max nodes layer by layer as :meth:`max_node` and :meth:`chance_node`
        reach them (a draw that completes the hand is a win, not a max node; no layer beyond
        the player's draws); a node whose k covers all its discards needs no Q.
        """
        tables = shanten_tables()
        frontier: list[NodeKey] = [(tuple(hand), (), ())]
        for layer in range(self.prune_layers):
            self.q_ordering.fetch(n for n in frontier if self._prunes(n[0], allowed if layer == 0 else None))
            if layer + 1 >= self.prune_layers or layer >= ctx.draws_left:
                return
            following: dict[NodeKey, None] = {}
            for h, disc, draws in frontier:
                unseen = list(ctx.unseen)
                for t in draws:
                    unseen[t] -= 1
                c = list(h)
                for k in self.expand(ctx, c, suit_indices(c), layer, list(disc), list(draws),
                                     allowed if layer == 0 else None):
                    after = list(h)
                    after[k] -= 1
                    index = suit_indices(after)
                    outcomes = tables.distances_after_draw(index, ctx.sets, near_kinds(after, index))
                    for t in range(NUM_KINDS):
                        if unseen[t] and outcomes[t] != 0:
                            after[t] += 1
                            following[(tuple(after), (*disc, k), (*draws, t))] = None
                            after[t] -= 1
            frontier = list(following)

    def _prunes(self, hand: Sequence[int], allowed: Sequence[int] | None) -> bool:
        n = sum(1 for k in range(NUM_KINDS) if hand[k] and (allowed is None or k in allowed))
        return self.keep(hand, n) < n


class CombinedAgent:
    """Expectimax whose max nodes keep the top-k discards by Q and whose leaves are worth max Q.

    ``model`` is a model file (:func:`paiju.algorithms.dqn.save_model`, either feature set of
    :data:`paiju.mahjong.features.FEATURE_SETS`); empty: the shipped ``mj-{network}.pt``
    (``network`` = ``dqn`` or ``ddqn``).
    ``value_model`` (a model file; empty: ``model`` itself) values the leaves: its Q of the
    discard ``model`` ranks first at the leaf, so one network may rank and prune and another,
    trained in points, value (only with ``leaf=draw``, else refused): a Q-network (``train-dqn --shaping 0
    --gamma 1``) or a value model of one output (``train-supervised --target score``).
    ``alpha`` and ``depth`` shape the tree and ``leaf`` places its leaves (module text),
    ``deal_in`` charges each root discard its chance of dealing in and the payment (the value
    Expectimax's defence, :func:`~paiju.mahjong.agents.value.deal_in_risk` with its defaults; in
    points, so only with ``leaf=draw``),
    ``ron_rate`` the discard wins before
    an in-tree draw of a ready hand (:class:`ValueSearch`; 0 = the paper's self-draws only),
    ``defence`` the claim rule's (greedy's); ``threads`` sets torch's threads (0 = leave).
    """

    def __init__(
        self,
        seed: SeedLike = None,
        model: str = "",
        alpha: float = 0.6,
        depth: int = 2,
        threads: int = 1,
        defence: bool = True,
        ron_rate: float = RON_RATE,
        network: str = "ddqn",
        name: str = "",
        exact_leaves: bool = False,
        leaf: str = "discard",
        value_model: str = "",
        deal_in: bool = False,
    ) -> None:
        if network not in NETWORKS:
            raise ConfigError(f"combined Expectimax network {network!r}: must be one of {NETWORKS}")
        self.name = name or f"expectimax-{network}"
        if threads > 0:
            torch.set_num_threads(threads)
        if depth < 1 or not 0 < alpha <= 1 or ron_rate < 0:
            raise ConfigError(
                f"{self.name}: depth must be >= 1, alpha in (0, 1], ron_rate >= 0; "
                f"got depth={depth}, alpha={alpha}, ron_rate={ron_rate}"
            )
        if leaf not in LEAVES:
            raise ConfigError(f"{self.name}: leaf={leaf!r} must be one of {LEAVES}")
        if (value_model or deal_in) and leaf != "draw":
            # both are in points; leaf=discard's leaves are raw Q of a hand the network never saw
            raise ConfigError(f"{self.name}: value_model and deal_in value in points and need leaf=draw "
                              f"(got leaf={leaf!r})")
        self.model = QModel.load(resolve_model(model, network, agent=self.name), ranks=True, agent=self.name)
        self.leaf = leaf
        self.alpha = float(alpha)
        self.depth = int(depth)
        self.ron_rate = float(ron_rate)
        self.exact_leaves = exact_leaves
        self.deal_in = deal_in
        """Charge each root discard its deal-in chance and cost (the value Expectimax's defence)."""
        self.rule = GreedyAgent(seed, defence=defence)
        self.value_model = (QModel.load(resolve_model(value_model, network, agent=self.name))
                            if value_model else None)
        """The network whose Q (or, a value model, whose output) values the leaves (None:
        :attr:`model` itself)."""
        valuer = self.value_model or self.model
        # leaf=draw values a leaf in points, the in-tree wins' unit; leaf=discard as it was
        self.leaf_evaluator = QLeafEvaluator(
            valuer, valuer.score_scale if leaf == "draw" else 1.0, self.model if self.value_model else None
        )
        self.last_search: CombinedSearch | None = None
        """The search behind the latest discard (for inspection, tests and benchmarks)."""
        self.last_values: dict[int, float] = {}
        """Value of every root discard expanded at the latest discard."""
        self.last_leaf_values = np.zeros(0)
        """The value of each leaf of :attr:`last_search` (``last_search.leaves``)."""
        # deterministic: the seed is accepted for the registry's uniform interface only

    def act(self, observation: Any, legal_actions: Sequence[int]) -> int:
        obs: MahjongObservation = observation
        legal = list(legal_actions)
        choice = self.rule.act(obs, legal)
        if obs.phase != Phase.TURN or choice >= NUM_KINDS:
            return choice
        discards = [a for a in legal if a < NUM_KINDS]
        if len(discards) == 1:
            return discards[0]
        values = self.discard_values(obs, discards)
        return max(values, key=lambda k: (values[k], -k))

    def recommend(self, observation: Any, legal_actions: Sequence[int]) -> tuple[int, float | None]:
        """The move :meth:`act` plays and the search's value of it; None when no search valued
        it (the rule decided, or one discard only) -- as :meth:`ExpectimaxAgent.recommend`."""
        self.last_values = {}
        action = self.act(observation, legal_actions)
        return action, self.last_values.get(action)

    def context(self, obs: MahjongObservation) -> SearchContext:
        n = sum(obs.hand)
        return SearchContext(obs, tuple(obs.melds[obs.player]), n // 3, tuple(obs.unseen_counts()),
                             draws_left(obs), obs.config)

    def discard_values(
        self, obs: MahjongObservation, allowed: Sequence[int] | None = None
    ) -> dict[int, float]:
        """Value of each root discard the search expands (of ``allowed``, default every held kind)."""
        held = [k for k in range(NUM_KINDS) if obs.hand[k] and (allowed is None or k in allowed)]
        search = CombinedSearch(obs, self.depth, self.alpha, QOrdering(self.model, obs), self.ron_rate,
                                self.exact_leaves, self.leaf)
        self.last_search = search
        ctx = self.context(obs)
        search.prefetch(ctx, obs.hand, held)
        c = list(obs.hand)
        risk = deal_in_risk(obs, DEAL_IN_TAI, WAIT_SCALE) if self.deal_in else None
        # with the deal-in charged the safest discard is always looked at: folding must be possible
        safest = min(held, key=lambda k: (risk.cost[k], k)) if risk is not None else -1
        tree = search.max_node(ctx, c, suit_indices(c), list(ctx.unseen), 0, [], [], held, safest)
        values = search.solve(self.leaf_evaluator)
        self.last_leaf_values = values
        self.last_values = {
            k: search.value(e, values) if risk is None else charge_deal_in(search.value(e, values), k, risk)
            for k, e in tree[1].items()
        }
        return self.last_values
