"""A network distilled from the value Expectimax: it prunes the tree and values its leaves
(``expectimax-distill``).

The teacher, ``expectimax``, values every discard it expands, and
:mod:`paiju.mahjong.search_data` stores those values for every decision of a table of mixed
players. Two small heads learn them (``paiju.mahjong.train_distill``):

* The **advantage head** scores the discards of a 3k+2 hand, one score per kind, in points.
  Only differences between scores mean anything: it is trained on each option's advantage
  over the action played. :class:`DistillOrdering` uses it as the search's
  :class:`~paiju.mahjong.agents.expectimax.OrderingFunction`: a max node expands the
  ``k = min(ceil(alpha * tiles), distinct discards)`` best discards by it (the paper's k;
  :meth:`~paiju.mahjong.agents.value.ValueSearch.keep`). The teacher charges each *root*
  discard its deal-in risk, and nothing inside the tree, so the head reads each kind's
  deal-in chance and cost as inputs. At the root they are the risk the agent charges; inside
  the tree they are zero, and the head gives the uncharged ranking (it is trained on both).
* The **value head** values a 3k+1 hand waiting for its draw, a leaf of the value search
  (:class:`~paiju.mahjong.agents.value.LeafState`). The target is what the teacher's tree says
  such a hand is worth: the *uncharged* value of the discard that made it, with ``n`` own
  draws left. So a depth-2 tree with these leaves looks further than the teacher's own tree
  does. With ``residual`` (the default) the head learns a correction to the teacher's
  analytic leaf (:class:`~paiju.mahjong.agents.value.HandValueEvaluator`), and the
  correction starts at zero: an untrained head *is* the analytic leaf (the table reader's
  design, :mod:`paiju.mahjong.reader`). :class:`DistillLeaf` is the value search's
  :class:`~paiju.mahjong.agents.value.LeafValueEvaluator` (every leaf of a decision in one
  batch).

Both heads read only what the player sees at the node: its concealed hand, the copies it
cannot see (its in-tree draws taken out), its melds, its own draws left, the winds, who deals,
and, for the advantage head, what each discard does to the shanten and its deal-in risk at
the root. The same
functions (:func:`value_inputs`, :func:`order_inputs`) encode the training samples and the
search's nodes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from paiju.algorithms.mlp import zero_output_mlp
from paiju.core.errors import ConfigError
from paiju.core.rng import SeedLike
from paiju.mahjong.agents import AGENT_NAMES, DISTILL, DISTILL_CHOICES, DISTILL_DEFAULTS, REGISTRY
from paiju.mahjong.agents.expectimax import SearchContext, SearchNode
from paiju.mahjong.agents.value import (
    DealInRisk,
    LeafState,
    LeafValueEvaluator,
    ValueExpectimaxAgent,
)
from paiju.mahjong.game import NUM_PLAYERS, MahjongObservation
from paiju.mahjong.model_files import MODEL_DIR, distill_model_file
from paiju.mahjong.reader import KIND_CLASS, neighbour_index
from paiju.mahjong.shanten import KIND_STEP, KIND_SUIT, shanten_tables, suit_indices
from paiju.mahjong.tiles import COPIES, NUM_KINDS, Meld

DISTILL_FORMAT = "mj-distill-1"
"""The model file's format tag; changes whenever the inputs below do."""
SCALE = 1000.0
"""Points per network unit (the teacher's values are a few hundred to a few thousand points)."""
DRAWS = 20.0
"""Scale of an own-draws-left count (a hand starts with about 18)."""
SHANTEN_CLASSES = 6
"""The value head's shanten one-hot: ready, 1, ..., 4, and 5 or more."""
NOT_HELD = 99
"""``shanten_after`` of a kind not in the hand (no discard of it)."""

# ---- inputs ----------------------------------------------------------------------------------
TABLE = 4
"""Per position: seat wind, prevailing wind, 1 if the player deals, the dealer's continuation."""


class Position(NamedTuple):
    """What both heads read of B positions of one player (arrays, one row per position)."""

    hand: np.ndarray
    """(B, 34) concealed counts: 3k+1 for the value head, 3k+2 for the advantage head."""
    unseen: np.ndarray
    """(B, 34) copies the player cannot see at the node (own in-tree draws taken out)."""
    melds: np.ndarray
    """(B, 34) copies in the player's own melds."""
    n_melds: np.ndarray
    """(B,) the player's melds."""
    exposed: np.ndarray
    """(B,) 1 when a meld other than a concealed kong is open (門清 is lost)."""
    draws_left: np.ndarray
    """(B,) own draws before the exhaustive draw."""
    table: np.ndarray
    """(B, TABLE): see :data:`TABLE`."""


VALUE_INPUTS = 3 * NUM_KINDS + 6 + 2 * NUM_PLAYERS + SHANTEN_CLASSES + 1
ANALYTIC = VALUE_INPUTS - 1
"""Index of the analytic leaf's value (/ SCALE) in a value input: the residual's base."""
ORDER_INPUTS = 27
"""Per kind: 20 of the kind's own numbers (:func:`order_inputs`), then 7 of the position's."""


NEIGHBOURS = np.asarray(neighbour_index())
"""(34, 4): each kind's same-suit kinds at -2, -1, +1, +2, or 34 (a zero column): the reader's."""
DRAGONS = (31, 32, 33)


def position_scalars(p: Position) -> np.ndarray:
    """(B, 6) scalars of a position both heads read: draws left, unseen total, melds, exposed,
    dealer, continuation."""
    return np.stack([
        p.draws_left / DRAWS, p.unseen.sum(axis=1) / 136.0, p.n_melds / 5.0, p.exposed,
        p.table[:, 2], np.minimum(p.table[:, 3], 4) / 4.0,
    ], axis=1).astype(np.float32)


def value_inputs(p: Position, shanten: np.ndarray, analytic: np.ndarray) -> np.ndarray:
    """(B, VALUE_INPUTS) float32 inputs of the value head for 3k+1 positions with ``shanten``
    (0 = ready) and the analytic leaf's value in points (zeros without the residual)."""
    b = len(p.hand)
    winds = np.zeros((b, 2 * NUM_PLAYERS), np.float32)
    rows = np.arange(b)
    winds[rows, p.table[:, 0]] = 1.0
    winds[rows, NUM_PLAYERS + p.table[:, 1]] = 1.0
    sh = np.zeros((b, SHANTEN_CLASSES), np.float32)
    sh[rows, np.clip(shanten, 0, SHANTEN_CLASSES - 1)] = 1.0
    return np.concatenate([
        p.hand / COPIES, p.unseen / COPIES, p.melds / COPIES, position_scalars(p), winds, sh,
        (np.asarray(analytic) / SCALE)[:, None],
    ], axis=1).astype(np.float32)


def _scoring_kinds() -> np.ndarray:
    """(4, 4, 34): per seat wind and prevailing wind, 1 for the kinds whose pung scores (the
    dragons and those two winds)."""
    out = np.zeros((NUM_PLAYERS, NUM_PLAYERS, NUM_KINDS), np.float32)
    out[:, :, list(DRAGONS)] = 1.0
    for seat in range(NUM_PLAYERS):
        out[seat, :, 27 + seat] = 1.0
        for prevailing in range(NUM_PLAYERS):
            out[seat, prevailing, 27 + prevailing] = 1.0
    return out


SCORING_KINDS = _scoring_kinds()


def order_inputs(p: Position, shanten_after: np.ndarray, risk: np.ndarray) -> np.ndarray:
    """(B, 34, ORDER_INPUTS) float32 inputs of the advantage head for 3k+2 positions.

    Per kind ``k``: its copies held, unseen and in own melds; what discarding it does to the
    shanten (1 when it keeps the lowest of the hand's discards, and the shanten above that
    lowest); its deal-in chance and cost (``risk``, (B, 2, 34), points); whether a pung of it
    scores (a dragon, the seat or prevailing wind); the copies held and unseen of its same-suit
    neighbours within two (what the effective tiles are made of); its class. Then the
    position's scalars and its lowest shanten. Written op by op into one array: the search
    calls it at every max node. The effective tiles after each discard are not read: counting
    them (:func:`paiju.mahjong.features.discard_shapes`) took two thirds of a depth-2
    decision's time at the ~300 max nodes it orders.
    """
    b = len(p.hand)
    x = np.empty((b, NUM_KINDS, ORDER_INPUTS), np.float32)
    held = p.hand > 0
    after = np.where(held, shanten_after, NOT_HELD)
    low = after.min(axis=1)
    above = after - low[:, None]
    lowest = above == 0
    x[:, :, 0] = p.hand
    x[:, :, 1] = p.unseen
    x[:, :, 2] = p.melds
    x[:, :, 0:3] /= COPIES
    x[:, :, 3] = lowest
    np.minimum(above, 4, out=above)
    x[:, :, 4] = above
    x[:, :, 4] /= 4.0
    x[:, :, 5] = risk[:, 0]
    x[:, :, 6] = risk[:, 1]
    x[:, :, 6] /= SCALE
    x[:, :, 7] = SCORING_KINDS[p.table[:, 0], p.table[:, 1]]
    counts = np.zeros((b, 2, NUM_KINDS + 1), np.float32)
    counts[:, 0, :NUM_KINDS] = p.hand
    counts[:, 1, :NUM_KINDS] = p.unseen
    counts /= COPIES
    x[:, :, 8:16] = counts[:, :, NEIGHBOURS].transpose(0, 2, 1, 3).reshape(b, NUM_KINDS, 8)
    x[:, :, 16:20] = KIND_CLASS
    x[:, :, 20:26] = position_scalars(p)[:, None, :]
    x[:, :, 26] = (np.maximum(low, 0) / 8.0)[:, None]
    return x


@functools.lru_cache(maxsize=256)
def meld_numbers(melds: tuple[Meld, ...]) -> tuple[tuple[int, ...], int, int]:
    """Copies per kind in ``melds``, how many there are and whether one is exposed."""
    counts = [0] * NUM_KINDS
    for m in melds:
        if m.tile >= 0:
            for k in m.kinds():
                counts[k] += 1
    return tuple(counts), len(melds), int(any(m.type.is_exposed for m in melds))


def table_numbers(obs: MahjongObservation) -> tuple[int, int, int, int]:
    """The :data:`TABLE` numbers of the player of ``obs``."""
    return obs.seat_wind, obs.round_wind, int(obs.player == obs.dealer), obs.continuation


def position(hands: Sequence[Sequence[int]], unseen: Sequence[Sequence[int]],
             melds: Sequence[tuple[Meld, ...]], draws: Sequence[int], obs: MahjongObservation) -> Position:
    """The :class:`Position` of hands of ``obs``'s player (a search's nodes or leaves)."""
    numbers = [meld_numbers(m) for m in melds]
    b = len(hands)
    return Position(
        np.asarray(hands, np.int64).reshape(b, NUM_KINDS), np.asarray(unseen, np.int64).reshape(b, NUM_KINDS),
        np.asarray([n[0] for n in numbers], np.int64).reshape(b, NUM_KINDS),
        np.asarray([n[1] for n in numbers], np.float32), np.asarray([n[2] for n in numbers], np.float32),
        np.asarray(draws, np.float32), np.tile(np.asarray(table_numbers(obs), np.int64), (b, 1)),
    )


def leaf_shanten(hand: Sequence[int]) -> int:
    """Shanten of a 3k+1 hand (0 = ready)."""
    return shanten_tables().distance_at(suit_indices(hand), sum(hand) // 3) - 1


def shanten_after(hand: Sequence[int]) -> list[int]:
    """Per kind, the shanten of a 3k+2 hand after discarding one (:data:`NOT_HELD` for a
    kind not held)."""
    t = shanten_tables()
    sets = sum(hand) // 3
    index = suit_indices(hand)
    out = [NOT_HELD] * NUM_KINDS
    for k in range(NUM_KINDS):
        if hand[k]:
            suit, step = KIND_SUIT[k], KIND_STEP[k]
            index[suit] -= step
            out[k] = t.distance_at(index, sets) - 1
            index[suit] += step
    return out


# ---- the network -----------------------------------------------------------------------------
class DistillNet(nn.Module):
    """The two heads: ``values`` (B, VALUE_INPUTS) -> (B,) points, ``scores`` (B, 34,
    ORDER_INPUTS) -> (B, 34) points. The advantage head is one small network shared by the 34
    kinds (a kind's numbers and the position's give its score), as the table reader's."""

    def __init__(self, value_hidden: Sequence[int] = (128, 64), order_hidden: Sequence[int] = (64, 64),
                 residual: bool = True) -> None:
        super().__init__()
        self.value_hidden = tuple(value_hidden)
        self.order_hidden = tuple(order_hidden)
        self.residual = residual
        self.value = zero_output_mlp(VALUE_INPUTS, value_hidden)
        self.order = zero_output_mlp(ORDER_INPUTS, order_hidden)

    def correction(self, x: torch.Tensor) -> torch.Tensor:
        """The value head's own output in points: the whole value, or with ``residual`` the
        correction to the analytic leaf."""
        return self.value(x).squeeze(1) * SCALE

    def values(self, x: torch.Tensor) -> torch.Tensor:
        out = self.correction(x)
        return out + x[:, ANALYTIC] * SCALE if self.residual else out

    def scores(self, x: torch.Tensor) -> torch.Tensor:
        return self.order(x).squeeze(2) * SCALE

    def forward(self, x_value: torch.Tensor, x_order: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.values(x_value), self.scores(x_order)


class DistillModel(NamedTuple):
    """A trained network and the teacher whose values it learnt (its search is the agent's)."""

    net: DistillNet
    teacher: str
    """The teacher's agent spec (the data's): the distilled agent searches with its settings."""


def save_model(path: str | Path, model: DistillModel) -> Path:
    """Write ``model`` as a model file (what :func:`load_model` reads)."""
    from paiju.core.torch_files import save_payload

    net = model.net
    return save_payload(path, {
        "format": DISTILL_FORMAT, "teacher": model.teacher, "agent_names": AGENT_NAMES,
        "value_hidden": list(net.value_hidden),
        "order_hidden": list(net.order_hidden), "residual": net.residual, "state_dict": net.state_dict(),
    })


_MODELS: dict[str, DistillModel] = {}


def model_path(model: str) -> Path:
    """The file of ``model``: empty for the shipped model, a shipped name, or a file."""
    shipped = distill_model_file(MODEL_DIR, model or "distill")
    return shipped if not model or shipped.is_file() else Path(model)


def load_model(model: str = "") -> DistillModel:
    """The model ``model`` names (:func:`model_path`), loaded once per process (eval mode).

    Raises:
        ConfigError: no such file, or a teacher that is not a value search.
        CorruptRecordError: not a distilled model of this format.
    """
    from paiju.core.torch_files import load_payload

    path = model_path(model)
    key = str(path.resolve())
    got = _MODELS.get(key)
    if got is None:
        data = load_payload(path, "distilled mahjong model", fmt=DISTILL_FORMAT,
                            hint="train one with paiju mahjong train-distill")
        net = DistillNet(tuple(data["value_hidden"]), tuple(data["order_hidden"]), bool(data["residual"]))
        net.load_state_dict(data["state_dict"])
        teacher = str(data["teacher"])
        if data.get("agent_names", 1) < AGENT_NAMES:  # a model from before the names were settled
            teacher = str(REGISTRY.recorded(teacher))
        got = DistillModel(net.eval(), teacher)
        teacher_agent(got.teacher)  # refused here, not at the first decision
        _MODELS[key] = got
    return got


def teacher_agent(spec: str, seed: SeedLike = None) -> ValueExpectimaxAgent:
    """The teacher of a model, as an agent (its search settings are the distilled agent's)."""
    agent = REGISTRY.make(spec, seed=seed)
    if not isinstance(agent, ValueExpectimaxAgent):
        raise ConfigError(f"a distilled model's teacher must be a value search (expectimax, ...), "
                          f"got {spec!r}")
    return agent


def base_search(spec: str) -> str:
    """The value search whose settings and analytic leaf ``spec`` searches with: a distilled
    agent's is its model's teacher (expert iteration's data has a distilled teacher, and its
    samples are uncharged and its leaves corrected by that search's), any other spec its own."""
    resolved = REGISTRY.resolve(spec)
    if resolved.name != DISTILL:
        return spec
    return load_model(str(resolved.params.get("model", DISTILL_DEFAULTS["model"]))).teacher


def predict_values(net: DistillNet, x: np.ndarray, analytic: np.ndarray) -> np.ndarray:
    """The value head's values (points) of inputs ``x``. With ``residual`` the correction is
    added to ``analytic`` in float64 (not to its float32 copy in ``x``), so an untrained head
    gives the analytic leaf's values exactly."""
    with torch.no_grad():
        out = net.correction(torch.from_numpy(x)).numpy().astype(float)
    return out + analytic if net.residual else out


def predict_scores(net: DistillNet, x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return net.scores(torch.from_numpy(x)).numpy().astype(float)


# ---- the search's plug-ins -------------------------------------------------------------------
RiskOf = Callable[[MahjongObservation], DealInRisk | None]
"""The deal-in risk an agent charges its root discards (None: no defence): its
:meth:`~paiju.mahjong.agents.value.ValueExpectimaxAgent.risk`."""


def risk_array(risk: DealInRisk | None) -> np.ndarray:
    """(2, 34): deal-in chance and cost in points per kind (zeros without risk)."""
    if risk is None:
        return np.zeros((2, NUM_KINDS))
    return np.asarray([risk.probability, risk.cost], dtype=float)


class NumpyHead:
    """A head's MLP as numpy arrays, for the search's one-position calls: a forward pass of
    a few small matrices costs several times less than torch's dispatch of the same layers.
    Frozen at construction (a trained network does not change during play)."""

    def __init__(self, mlp: nn.Sequential) -> None:
        self.layers = [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
                       for m in mlp if isinstance(m, nn.Linear)]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The head's output for inputs ``x`` (..., width): (..., 1)."""
        *hidden, (w, b) = self.layers
        for wh, bh in hidden:
            x = x @ wh
            x += bh
            np.maximum(x, 0.0, out=x)
        return x @ w + b


class DistillOrdering:
    """The advantage head as the search's ordering: one forward pass per max node.

    ``risk_of`` gives the deal-in risk of the root's discards (the agent's ``risk``, which keeps
    it for the decision's observation); inside the tree the risk inputs are zero, as the teacher
    charges nothing there.
    """

    def __init__(self, net: DistillNet, risk_of: RiskOf) -> None:
        self.net = net
        self.head = NumpyHead(net.order)
        self.risk_of = risk_of
        self._inside = np.zeros((2, NUM_KINDS))

    def node_inputs(self, ctx: SearchContext, node: SearchNode) -> np.ndarray:
        """(1, 34, ORDER_INPUTS): the advantage head's input at ``node``."""
        unseen = list(ctx.unseen)
        for t in node.draws:
            unseen[t] -= 1
        p = position([node.hand], [unseen], [ctx.melds], [ctx.draws_left - node.layer], ctx.observation)
        # the agent's risk method keeps the latest observation's: one computation a decision
        risk = risk_array(self.risk_of(ctx.observation)) if node.layer == 0 else self._inside
        return order_inputs(p, np.asarray([shanten_after(node.hand)]), risk[None])

    def scores(self, ctx: SearchContext, node: SearchNode, discards: Sequence[int]) -> list[float]:
        s = self.head(self.node_inputs(ctx, node)[0])[:, 0]
        return [float(s[k]) * SCALE for k in discards]


class DistillLeaf:
    """The value head as the value search's :class:`LeafValueEvaluator`: every leaf of a
    decision in one forward pass. ``base`` is the residual's analytic leaf (the teacher's)."""

    def __init__(self, net: DistillNet, base: LeafValueEvaluator | None) -> None:
        if net.residual and base is None:
            raise ConfigError("a residual value head needs the analytic leaf it corrects")
        self.net = net
        self.base = base

    def inputs(self, observation: MahjongObservation,
               leaves: Sequence[LeafState]) -> tuple[np.ndarray, np.ndarray]:
        """The value head's inputs of ``leaves``, (len(leaves), VALUE_INPUTS), and the analytic
        leaf's values (zeros without the residual)."""
        if self.net.residual:
            assert self.base is not None
            analytic = np.asarray(self.base.evaluate(observation, leaves), dtype=float)
        else:
            analytic = np.zeros(len(leaves))
        p = position([lf.hand for lf in leaves], [lf.unseen for lf in leaves], [lf.melds for lf in leaves],
                     [lf.draws_left for lf in leaves], observation)
        shanten = np.asarray([leaf_shanten(lf.hand) for lf in leaves], np.int64)
        return value_inputs(p, shanten, analytic), analytic

    def evaluate(self, observation: MahjongObservation, leaves: Sequence[LeafState]) -> np.ndarray:
        if not leaves:
            return np.zeros(0)
        return predict_values(self.net, *self.inputs(observation, leaves))


# ---- the agent -------------------------------------------------------------------------------
_DEFAULT = DISTILL_DEFAULTS


def make_agent(
    seed: SeedLike = None,
    model: str = _DEFAULT["model"],
    depth: int = _DEFAULT["depth"],
    alpha: float = _DEFAULT["alpha"],
    claim_depth: int = _DEFAULT["claim_depth"],
    order: str = _DEFAULT["order"],
    leaf: str = _DEFAULT["leaf"],
    threads: int = _DEFAULT["threads"],
) -> ValueExpectimaxAgent:
    """The teacher's search with the distilled network pruning it (``order=distill``) and
    valuing its leaves (``leaf=distill``); ``model`` is a file or a shipped name (empty: the
    shipped ``mj-distill.pt``); ``threads`` sets torch's threads for the process (0 = leave).
    """
    if order not in DISTILL_CHOICES["order"] or leaf not in DISTILL_CHOICES["leaf"]:
        raise ConfigError(f"expectimax-distill: order must be one of {DISTILL_CHOICES['order']} and leaf "
                          f"one of {DISTILL_CHOICES['leaf']}, got order={order!r}, leaf={leaf!r}")
    if order == "shanten" and leaf == "value":
        raise ConfigError("expectimax-distill: order=shanten with leaf=value uses no network: that is the "
                          "teacher itself (expectimax)")
    if threads > 0:
        torch.set_num_threads(threads)
    distilled = load_model(model)
    t = teacher_agent(distilled.teacher, seed)
    leaf_evaluator = DistillLeaf(distilled.net, t.leaf_evaluator) if leaf == "distill" else None
    agent = ValueExpectimaxAgent(
        seed, depth=depth, alpha=alpha, claim_depth=claim_depth, prune=t.prune, defence=t.defence,
        deal_in_tai=t.deal_in_tai, wait_scale=t.wait_scale, ron_rate=t.ron_rate, reads=t.reads,
        saved_loss=t.saved_loss, ron=t.ron, rates=t.rates, leaf_evaluator=leaf_evaluator,
        name=DISTILL,
    )
    if order == "distill":  # the root risk is the agent's own, computed once a decision
        agent.ordering = DistillOrdering(distilled.net, agent.risk)
    return agent


__all__ = [
    "ANALYTIC", "DISTILL_FORMAT", "NOT_HELD", "ORDER_INPUTS", "SCALE",
    "TABLE", "VALUE_INPUTS", "DistillLeaf", "DistillModel", "DistillNet",
    "DistillOrdering", "Position", "RiskOf", "base_search", "leaf_shanten", "load_model",
    "make_agent", "meld_numbers", "model_path", "order_inputs", "position", "predict_scores",
    "predict_values", "risk_array", "save_model", "shanten_after", "table_numbers", "teacher_agent",
    "value_inputs",
]
