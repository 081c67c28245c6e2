"""Game-agnostic Monte-Carlo tree search: UCT or PUCT, rollouts or an evaluator, chance, hidden cards.

One search for every game on the core protocol; it imports nothing but ``paiju.core`` (and
its Gumbel root arithmetic, :mod:`paiju.algorithms.gumbel`).

* **Selection** by UCT, ``Q + c * sqrt(ln N_parent / N_child)`` with unvisited moves first,
  or by PUCT, ``Q + c * P * sqrt(N_parent) / (1 + N_child)`` with priors ``P`` from the
  evaluator (AlphaZero's rule, the one the yuxi talk uses).
* **Leaf evaluation** by an :class:`Evaluator`: ``evaluate(state)`` gives one value per
  seat, ``prior(state)`` gives ``[(action, p)]`` over the legal moves. The default
  :class:`RandomRolloutEvaluator` plays uniform random games to the end (through a state's
  ``playout_returns`` fast path when it has one); AlphaZero plugs in a network evaluator.
* **Batched leaves** (``batch_size=k`` with a :class:`BatchEvaluator`): up to ``k`` descents
  per round, each leaf held under a virtual loss, valued together by one
  ``evaluate_batch`` call (a network's forward pass); ``batch_size=1`` is the plain search,
  move for move (``docs/alphazero.md``).
* **Per-player backup**: every node keeps the return of the seat that chose its move, so
  turns need not alternate (a seat may move twice in a row, three seats may play), and
  there is no negamax sign flip. Each seat maximises its own return (max^n).
* **Chance nodes** are sampled with ``state.sample_chance`` (no enumeration needed: a deal
  with millions of outcomes is fine); their children are keyed by the outcome drawn.
* **Hidden information**, two modes:

  - *determinization* (``determinize=True``, the default): every simulation starts from a
    fresh ``state.resample_from_infostate(searcher, rng)``, so hidden cards are redrawn
    consistently with what the searching seat sees, and all simulations share one tree
    keyed by moves (single-observer information-set MCTS, Cowling, Powley & Whitehouse
    2012): at each node only the moves legal in the current sample compete, and UCT uses
    how often a move was *available* instead of the parent's visit count.
  - *training-time mode* (``opponent_policy=...``): the search runs on the true state (the
    self-play snapshot), and at another seat's turn that seat's own policy chooses the
    move from its own ``observation(seat)``; the move is followed, not searched, and a leaf
    is evaluated only once the searcher (or chance) is to move again (the yuxi talk's
    scheme, ``docs/design.md`` §11). Hidden cards then only reach the
    searcher through the values of its own future positions, as in the original system.
    Combined with determinization, the policies act on the sampled states instead.

  Searching the true state of a hidden-information game with neither would let the
  searcher see the opponent's cards, so it is refused.
* **Solver** (``solve=True``): terminal values are backed up as proven results
  (MCTS-Solver, Winands et al. 2008, max^n form as in OpenSpiel), so small games are solved
  exactly and a proven win is played at once. Only fully searched decision nodes are
  proven; chance, opponent-policy and determinized nodes never are.
* **Tree reuse**: after a move the subtree of the position reached is kept. ``advance``
  says which move was played; ``search`` also finds the new position by itself, comparing
  observations a few plies below the old root (an agent sees only observations).
* **Gumbel root selection** (``gumbel=m``, Danihelka et al. 2022; the arithmetic is in
  :mod:`paiju.algorithms.gumbel`): the root considers the ``m`` moves of a Gumbel-top-k
  sample of its priors and shares the simulations among them by sequential halving; the
  move played is the survivor, which improves on the prior with any number of simulations,
  and :attr:`SearchResult.improved` is the policy target ``softmax(logits + sigma(q))``.
  Below the root the rule (UCT or PUCT) is unchanged. It needs a simulation count (the
  halving is planned from it), starts every search from a fresh root, and replaces the
  Dirichlet noise and the temperature (the Gumbel draw already samples).
* **Budgets**: a number of simulations, a number of seconds, or both (whichever ends first).

:class:`MCTSAgent` wraps the search as a core ``Agent``: it gets only ``observation(player)``
and rebuilds a root with ``game.sample_state(observation, rng)`` (exact for
perfect-information games, one determinization otherwise).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from paiju.algorithms import gumbel
from paiju.core import deadline as cancel  # `deadline` is the search's own seconds cap below
from paiju.core.agents import AgentRegistry
from paiju.core.errors import ConfigError
from paiju.core.protocol import CHANCE, TERMINAL, Action, Agent, Game, State
from paiju.core.rng import SeedLike, as_generator

NOBODY = -3
"""``Node.player`` of a root: nobody chose the move that led there."""


# ---- evaluators -----------------------------------------------------------------------------------
@runtime_checkable
class Evaluator(Protocol):
    """Values and move priors of a position, for every seat.

    Both methods are called on states the search owns; they must not change them. A
    network evaluator should look only at ``state.observation(state.current_player())`` (or
    the observations of every seat for the value head), never at hidden parts of the state.
    The search calls ``evaluate`` when it first reaches a position and ``prior`` when it
    expands it on a later visit: a network evaluator that computes both at once should
    cache the last few results (OpenSpiel's AlphaZero evaluator keeps an LRU cache).
    """

    def evaluate(self, state: State) -> Sequence[float]:
        """Estimated return of every seat (``len == num_players``) at a non-terminal state."""
        ...

    def prior(self, state: State) -> list[tuple[Action, float]]:
        """``(action, probability)`` for the legal moves of the seat to act (sum 1)."""
        ...


@runtime_checkable
class BatchEvaluator(Evaluator, Protocol):
    """An evaluator that values many positions in one call (a network: one forward pass).

    With ``MCTS(batch_size=k)`` the search descends up to ``k`` times, holding each leaf
    under a virtual loss so the next descents spread out, then values the leaves with one
    ``evaluate_batch`` call. A training loop may also batch positions of many games at once
    through the same method. ``prior`` is called on a node's second visit, after its
    ``evaluate``: an implementation should cache what one network call gives.
    """

    def evaluate_batch(self, states: Sequence[State]) -> list[Sequence[float]]:
        """``evaluate`` of every state, in order."""
        ...


@runtime_checkable
class FastPlayout(Protocol):
    """Optional state method: a uniform random game to the end, without changing the state.

    Must draw exactly as :func:`random_playout` does (one ``rnd.random()`` per decision,
    choosing ``legal_actions()[int(u * len(legal))]``) so both give the same returns from the
    same generator; each game that provides it tests that.
    """

    def playout_returns(self, rnd: random.Random) -> list[float]: ...


def random_playout(state: State, rnd: random.Random, chance_rng: np.random.Generator) -> list[float]:
    """Returns of a uniform random game played from ``state`` (left unchanged) to the end.

    Decisions draw ``u = rnd.random()`` and take ``legal[int(u * len(legal))]``; chance
    events use ``state.sample_chance(chance_rng)``.
    """
    s = state.clone()
    while True:
        player = s.current_player()
        if player == TERMINAL:
            return list(s.returns())
        if player == CHANCE:
            s.apply_chance(chance_rng)
        else:
            legal = s.legal_actions()
            s.apply(legal[int(rnd.random() * len(legal))])


class RandomRolloutEvaluator:
    """Values from uniform random playouts; uniform priors over the legal moves.

    It uses a state's ``playout_returns`` fast path when the game has one (connect four
    does), else :func:`random_playout`. Python's ``random.Random`` (a private instance seeded
    from ``seed``, never the global one) draws the moves because it is several times cheaper
    per draw than a numpy generator; chance events use the numpy generator as the protocol
    asks.
    """

    def __init__(self, rollouts: int = 1, seed: SeedLike = None, fast_path: bool = True) -> None:
        if isinstance(rollouts, bool) or not isinstance(rollouts, int) or rollouts < 1:
            raise ConfigError(f"rollout evaluator: rollouts must be a positive integer, got {rollouts!r}")
        self.rollouts = rollouts
        self.fast_path = fast_path
        self._rng = as_generator(seed)
        self._rnd = random.Random(int(self._rng.integers(2**63)))

    def evaluate(self, state: State) -> list[float]:
        fast = getattr(state, "playout_returns", None) if self.fast_path else None
        if self.rollouts == 1:
            return fast(self._rnd) if fast is not None else random_playout(state, self._rnd, self._rng)
        total: list[float] | None = None
        for _ in range(self.rollouts):
            r = fast(self._rnd) if fast is not None else random_playout(state, self._rnd, self._rng)
            total = list(r) if total is None else [t + x for t, x in zip(total, r, strict=True)]
        assert total is not None
        return [t / self.rollouts for t in total]

    def prior(self, state: State) -> list[tuple[Action, float]]:
        legal = state.legal_actions()
        p = 1.0 / len(legal)
        return [(a, p) for a in legal]


# ---- the tree ---------------------------------------------------------------------------------------
class Node:
    """One node of the search tree: the position reached by playing ``action`` from its parent.

    Attributes:
        action: the move (or chance outcome) from the parent that leads here; None at a root.
        player: the seat that chose ``action`` (``CHANCE`` for a chance outcome, ``NOBODY``
            at a root). ``value_sum`` is that seat's return, so the parent's chooser compares
            its children on its own return, whatever the order of turns.
        prior: the evaluator's probability of ``action`` (PUCT); 0 for sampled moves.
        visits: simulations that passed through this node.
        value_sum: the sum of ``player``'s return over those simulations.
        avail: determinized search only: how often this move was legal when the parent was
            visited (it replaces the parent's visit count in UCT).
        to_play: the seat to move here, set when the node is first expanded (None before).
        children: move -> child node; None until the node is expanded. Searched decision
            nodes get every legal move at once; chance nodes, opponent-policy nodes and
            determinized nodes add children as moves are drawn or become legal.
        outcome: the exact returns here when the node is terminal or proven by the solver.
    """

    __slots__ = (
        "action",
        "avail",
        "children",
        "outcome",
        "player",
        "prior",
        "to_play",
        "value_sum",
        "visits",
    )

    def __init__(self, action: Action | None, player: int, prior: float) -> None:
        self.action = action
        self.player = player
        self.prior = prior
        self.visits = 0
        self.value_sum = 0.0
        self.avail = 0
        self.to_play: int | None = None
        self.children: dict[Action, Node] | None = None
        self.outcome: list[float] | None = None

    @property
    def value(self) -> float:
        """Mean return of ``player`` through this node (0 before any visit)."""
        return self.value_sum / self.visits if self.visits else 0.0

    def __repr__(self) -> str:
        return (
            f"Node(action={self.action!r}, player={self.player}, visits={self.visits}, "
            f"value={self.value:.3f}, prior={self.prior:.3f}, outcome={self.outcome})"
        )


@dataclass(frozen=True)
class SearchResult:
    """What one search found at its root.

    Attributes:
        player: the seat searched for (to move at the root).
        action: the move chosen: a proven win if any, else the most visited move (ties: the
            higher mean value), never a proven loss while another move is open.
        visits: simulations through each root move (the AlphaZero policy target).
        values: mean return for ``player`` of each visited root move.
        proven: the solver's exact returns of root moves it proved.
        simulations: simulations run by this search (reused ones not counted).
        root_visits: visits of the root, reused ones included.
        reused: whether the search started from a subtree kept from an earlier search.
        seconds: wall time of the search.
        improved: Gumbel root selection only: the improved policy over every root move,
            ``softmax(logits + sigma(completed q))`` (the policy target); empty otherwise.
    """

    player: int
    action: Action
    visits: dict[Action, int]
    values: dict[Action, float]
    proven: dict[Action, list[float]] = field(default_factory=dict)
    simulations: int = 0
    root_visits: int = 0
    reused: bool = False
    seconds: float = 0.0
    improved: dict[Action, float] = field(default_factory=dict)

    def policy(self, temperature: float = 1.0) -> list[tuple[Action, float]]:
        """Visit counts as a distribution, sharpened by ``temperature`` (0 = the chosen move)."""
        actions = list(self.visits)
        if temperature <= 0.0:
            return [(a, 1.0 if a == self.action else 0.0) for a in actions]
        counts = np.array([self.visits[a] for a in actions], dtype=float)
        if counts.sum() == 0:
            return [(a, 1.0 / len(actions)) for a in actions]
        weights = counts ** (1.0 / temperature)
        weights /= weights.sum()
        return list(zip(actions, weights.tolist(), strict=True))


# ---- the search ---------------------------------------------------------------------------------------
_RULES = ("uct", "puct")
_LEAF, _PROVEN, _TERMINAL, _COLLISION = range(4)
"""How a descent ended: at a leaf to evaluate, at a terminal or proven node (exact returns,
proof to back up), at a determinized terminal (exact returns, no proof), or at a leaf
already waiting in the current batch."""
MAX_SIMULATIONS = 100_000
"""Largest ``simulations`` an MCTS agent spec may ask for (its cost limit)."""
MAX_SECONDS = 60.0
"""Largest ``seconds`` per decision an MCTS agent spec may ask for."""
MAX_CONSIDERED = 1000
"""Largest ``gumbel`` (moves considered at the root) an MCTS agent spec may ask for."""


class MCTS:
    """Monte-Carlo tree search over any game on the core protocol.

    Args:
        game: the game (only ``game.info`` is read here; states come from the caller).
        evaluator: leaf values and priors; default uniform random rollouts.
        c: exploration constant of the selection rule.
        rule: ``"uct"`` or ``"puct"`` (PUCT needs meaningful priors, e.g. from a network).
        simulations: simulations per search (None: no limit, then ``seconds`` is needed).
        seconds: wall-clock limit per search (None: no limit).
        determinize: for hidden-information games, redraw the hidden cards from the
            searcher's information state every simulation (ignored for perfect information).
        opponent_policy: training-time mode: an ``Agent`` (for every seat but the searcher)
            or a mapping seat -> ``Agent``; at those seats the policy picks the move from its
            own observation instead of the search branching.
        solve: back up proven results (MCTS-Solver) where sound (see the module docstring).
        dirichlet: ``(epsilon, alpha)``: mix Dirichlet(alpha) noise into the root priors with
            weight epsilon (AlphaZero self-play exploration); None for none.
        reuse_tree: keep the subtree of the position reached between searches.
        seed: seed or numpy generator for every random draw of the search and its default
            evaluator.
        batch_size: leaves valued per evaluator call (needs a :class:`BatchEvaluator` when
            > 1): up to this many descents run under virtual loss, then one
            ``evaluate_batch``. 1 (the default) is the plain one-leaf-at-a-time search.
        virtual_loss: losses (at the lowest utility) charged to every node on the path of a
            leaf waiting for its value, so concurrent descents of a batch spread out.
        sees_hidden: an oracle for analysis, never a fair player: search the true state of a
            hidden-information game as it is, the hidden cards included (what knowing them is
            worth; ``determinize`` is then ignored).
        gumbel: Gumbel root selection over this many considered moves (the paper uses 16);
            0 (the default) for the plain root. Needs ``simulations``; no ``dirichlet``.

    Raises:
        ConfigError: for a bad setting, or for searching the true state of a
            hidden-information game without determinization, an opponent policy or
            ``sees_hidden``.
    """

    def __init__(
        self,
        game: Game,
        *,
        evaluator: Evaluator | None = None,
        c: float = 1.4,
        rule: str = "uct",
        simulations: int | None = 1000,
        seconds: float | None = None,
        determinize: bool = True,
        opponent_policy: Agent | Mapping[int, Agent] | None = None,
        solve: bool = True,
        dirichlet: tuple[float, float] | None = None,
        reuse_tree: bool = True,
        seed: SeedLike = None,
        batch_size: int = 1,
        virtual_loss: float = 1.0,
        sees_hidden: bool = False,
        gumbel: int = 0,
    ) -> None:
        info = game.info
        if rule not in _RULES:
            raise ConfigError(f"MCTS rule {rule!r} is unknown; use one of {', '.join(_RULES)}")
        if not isinstance(c, int | float) or isinstance(c, bool) or not c >= 0:
            raise ConfigError(f"MCTS exploration constant c={c!r} must be a number >= 0")
        if simulations is None and seconds is None:
            raise ConfigError("MCTS needs a budget: simulations, seconds, or both")
        if simulations is not None and (
            isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1
        ):
            raise ConfigError(f"MCTS simulations={simulations!r} must be a positive integer")
        if seconds is not None and not (isinstance(seconds, int | float) and seconds > 0):
            raise ConfigError(f"MCTS seconds={seconds!r} must be a positive number")
        if dirichlet is not None and (
            len(dirichlet) != 2 or not 0.0 <= dirichlet[0] <= 1.0 or not dirichlet[1] > 0
        ):
            raise ConfigError(f"MCTS dirichlet={dirichlet!r} must be (epsilon in [0, 1], alpha > 0)")
        _check_gumbel(gumbel, simulations, dirichlet)
        self.gumbel = gumbel
        self._gumbel_root: _GumbelRoot | None = None
        self.policies: dict[int, Agent] | Agent | None = None
        if opponent_policy is not None:
            if isinstance(opponent_policy, Mapping):
                for seat, agent in opponent_policy.items():
                    if not 0 <= seat < info.num_players or not isinstance(agent, Agent):
                        raise ConfigError(
                            f"MCTS opponent_policy: seat {seat!r} -> {agent!r} is not seat -> Agent"
                        )
                self.policies = dict(opponent_policy)
            elif isinstance(opponent_policy, Agent):
                self.policies = opponent_policy
            else:
                raise ConfigError(
                    f"MCTS opponent_policy must be an Agent or a seat -> Agent mapping, "
                    f"not {type(opponent_policy).__name__}"
                )
        self.determinizing = determinize and not info.perfect_information and not sees_hidden
        shows_hidden_cards = not self.determinizing and self.policies is None and not sees_hidden
        if not info.perfect_information and shows_hidden_cards:
            raise ConfigError(
                f"{info.name} has hidden information: searching its true state would show the searcher "
                "the hidden cards; use determinize=True, or opponent_policy=... (training-time mode)"
            )
        _check_batching(batch_size, virtual_loss, evaluator)
        self.batch_size = batch_size
        self.virtual_loss = float(virtual_loss)
        self.game = game
        self.c = float(c)
        self.rule = rule
        self.simulations = simulations
        self.seconds = seconds
        self.solve = solve
        self.dirichlet = dirichlet
        self.reuse_tree = reuse_tree
        self._rng = as_generator(seed)
        self._rnd = random.Random(int(self._rng.integers(2**63)))
        self.evaluator: Evaluator = (
            evaluator
            if evaluator is not None
            else RandomRolloutEvaluator(seed=int(self._rng.integers(2**63)))
        )
        self._max_utility = info.utility_range[1]
        self._min_utility = info.utility_range[0]
        self._neutral = 0.5 * (info.utility_range[0] + info.utility_range[1])
        self._root: Node | None = None
        self._root_state: State | None = None
        self._root_player: int | None = None
        self.reuse_limit = 1000
        """Most positions compared when looking for the new root in the old tree."""

    # ---- public API --------------------------------------------------------------------------
    def search(self, state: State) -> SearchResult:
        """Search from ``state`` (left unchanged) and return the root statistics and best move.

        For a hidden-information game ``state`` may be the true state (training-time mode)
        or any state consistent with the searcher's view (determinization redraws the
        hidden parts every simulation from ``state.resample_from_infostate``).
        """
        player = state.current_player()
        if player == TERMINAL:
            raise ValueError(f"MCTS cannot search a finished {self.game.info.name} game")
        if player == CHANCE:
            raise ValueError(
                f"MCTS searches decisions, and this {self.game.info.name} state is a chance node"
            )
        start = time.perf_counter()
        policies = self._policies_for(player)
        # Gumbel's halving counts visits from zero, so its root is always fresh
        root = self._reusable_root(state, player) if self.reuse_tree and not self.gumbel else None
        reused = root is not None
        if root is None:
            root = Node(None, NOBODY, 1.0)
        root_state = state.clone()
        if self.dirichlet is not None:
            self._add_root_noise(root, root_state, player)
        self._gumbel_root = self._plan_gumbel(root, root_state, player) if self.gumbel else None
        deadline = None if self.seconds is None else start + self.seconds
        limit = self.simulations if self.simulations is not None else math.inf
        if self.batch_size > 1:
            done = self._search_batched(root, root_state, player, policies, limit, deadline)
            self._root, self._root_state, self._root_player = root, root_state, player
            return self._result(root, player, done, reused, time.perf_counter() - start)
        simulate = self._simulate_determinized if self.determinizing else self._simulate_exact
        done = 0
        while done < limit and root.outcome is None:
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            if not done & 7:  # every 8 simulations: a check costs ~0.3 us, a simulation >= ~5 us
                cancel.check()
            simulate(root, root_state, player, policies)
            done += 1
        self._root, self._root_state, self._root_player = root, root_state, player
        return self._result(root, player, done, reused, time.perf_counter() - start)

    def advance(self, action: Action) -> None:
        """Tell the search that ``action`` was played from the last root (keeps its subtree)."""
        root, state = self._root, self._root_state
        if root is None or state is None:
            return
        child = root.children.get(action) if root.children else None
        state = state.clone()
        try:
            state.apply(action)
        except ValueError:  # not playable in the kept (possibly determinized) state
            child = None
        if child is None or state.is_terminal():
            self.reset()
        else:
            self._root, self._root_state = child, state

    def reset(self) -> None:
        """Forget the tree (the next search starts from scratch)."""
        self._root = self._root_state = self._root_player = None

    @property
    def root(self) -> Node | None:
        """The root of the last search (after ``advance``: the subtree kept), for inspection."""
        return self._root

    # ---- batched leaf evaluation ------------------------------------------------------------------
    def _search_batched(
        self,
        root: Node,
        root_state: State,
        player: int,
        policies: Mapping[int, Agent],
        limit: float,
        deadline: float | None,
    ) -> int:
        """Simulations in rounds of up to ``batch_size`` leaves, each round one evaluator call."""
        done = 0
        while done < limit and root.outcome is None:
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            cancel.check()
            size = int(min(self.batch_size, limit - done))
            done += self._simulate_batch(root, root_state, player, policies, size)
        return done

    def _simulate_batch(
        self, root: Node, root_state: State, player: int, policies: Mapping[int, Agent], size: int
    ) -> int:
        """Up to ``size`` descents, leaves held under virtual loss, then one ``evaluate_batch``.

        A descent that reaches a leaf already waiting in this round ends the round early (its
        value is about to arrive; descending past it would expand it before it is valued).
        Returns the simulations completed.
        """
        evaluator = self.evaluator
        assert isinstance(evaluator, BatchEvaluator)
        pending: set[int] = set()
        leaves: list[tuple[list[Node], State]] = []
        done = 0
        for _ in range(size):
            if self.determinizing:
                descent = self._descend_determinized(root, root_state, player, policies, pending)
            else:
                descent = self._descend_exact(root, root_state, policies, pending)
            path, state, returns, status = descent
            if status == _COLLISION:
                break
            if returns is not None:  # terminal or proven: no evaluation needed
                _backup(path, returns)
                done += 1
                if self.solve and status == _PROVEN:
                    self._backup_proof(path, policies)
                if root.outcome is not None:
                    break
                continue
            pending.add(id(path[-1]))
            self._virtual_loss(path, 1)
            leaves.append((path, state))
        if leaves:
            values = evaluator.evaluate_batch([state for _, state in leaves])
            for (path, _), returns in zip(leaves, values, strict=True):
                self._virtual_loss(path, -1)
                _backup(path, returns)
            done += len(leaves)
        return done

    def _virtual_loss(self, path: list[Node], sign: int) -> None:
        """Charge (``sign=1``) or refund (``-1``) a virtual visit at the lowest utility."""
        loss = sign * self.virtual_loss * self._min_utility
        for n in path:
            n.visits += sign
            if n.player >= 0:
                n.value_sum += loss

    # ---- one simulation ------------------------------------------------------------------------
    def _simulate_exact(
        self, root: Node, root_state: State, player: int, policies: Mapping[int, Agent]
    ) -> None:
        """One simulation on a copy of the exact root state (perfect information or training mode)."""
        path, state, returns, status = self._descend_exact(root, root_state, policies, None)
        if returns is None:
            returns = self.evaluator.evaluate(state)
        _backup(path, returns)
        if self.solve and status == _PROVEN:
            self._backup_proof(path, policies)

    def _descend_exact(
        self, root: Node, root_state: State, policies: Mapping[int, Agent], pending: set[int] | None
    ) -> tuple[list[Node], State, Sequence[float] | None, int]:
        """Selection from the root to a leaf on a copy of the exact root state.

        Returns ``(path, state at the leaf, returns, status)``: ``returns`` is None when the
        leaf needs the evaluator (``_LEAF``), else the exact returns of a terminal or proven
        node (``_PROVEN``). With ``pending`` (batched search: ids of leaves awaiting their
        evaluation) reaching a pending leaf stops with ``_COLLISION``.
        """
        state = root_state.clone()
        node = root
        path = [root]
        puct = self.rule == "puct"
        c = self.c
        solve = self.solve
        gumbel_root = self._gumbel_root
        while True:
            if pending is not None and id(node) in pending:
                return path, state, None, _COLLISION
            children = node.children
            to_play = node.to_play
            if children is None:
                to_play = node.to_play = state.current_player()
                if to_play == CHANCE or to_play in policies:
                    children = node.children = {}
                else:
                    children = self._expand(node, state, to_play)
            if to_play == CHANCE:
                action = state.sample_chance(self._rng)
                child = children.get(action)
                if child is None:
                    child = children[action] = Node(action, CHANCE, 0.0)
            elif to_play is not None and to_play in policies:  # to_play is set once children are
                action = policies[to_play].act(state.observation(to_play), state.legal_actions())
                child = children.get(action)
                if child is None:
                    child = children[action] = Node(action, to_play, 0.0)
            elif node is root and gumbel_root is not None:
                child = gumbel_root.pick()
            else:
                child = (
                    self._select_puct(children, node.visits, c)
                    if puct
                    else _select_uct(children, node.visits, c, solve)
                )
            state.apply(child.action)
            path.append(child)
            node = child
            outcome = node.outcome
            if outcome is not None:
                return path, state, outcome, _PROVEN
            if node.visits == 0:
                next_player = state.current_player()
                if next_player == TERMINAL:
                    outcome = node.outcome = list(state.returns())
                    return path, state, outcome, _PROVEN
                if next_player not in policies:  # an opponent's policy move is followed, not evaluated
                    return path, state, None, _LEAF

    def _simulate_determinized(
        self, root: Node, root_state: State, player: int, policies: Mapping[int, Agent]
    ) -> None:
        """One simulation on a fresh determinization of the searcher's information state."""
        path, state, returns, _ = self._descend_determinized(root, root_state, player, policies, None)
        if returns is None:
            returns = self.evaluator.evaluate(state)
        _backup(path, returns)

    def _descend_determinized(
        self,
        root: Node,
        root_state: State,
        player: int,
        policies: Mapping[int, Agent],
        pending: set[int] | None,
    ) -> tuple[list[Node], State, Sequence[float] | None, int]:
        """Selection on a fresh determinization; returns as :meth:`_descend_exact` (a
        terminal leaf gives ``_TERMINAL``: determinized nodes are never proven)."""
        state = root_state.resample_from_infostate(player, self._rng)
        node = root
        path = [root]
        puct = self.rule == "puct"
        c = self.c
        # batched: availability counted on the way down, refunded if the descent is abandoned
        bumped: list[Node] | None = None if pending is None else []
        while True:
            if pending is not None and id(node) in pending:
                for ch in bumped or ():
                    ch.avail -= 1
                return path, state, None, _COLLISION
            children = node.children
            if children is None:
                children = node.children = {}
            to_play = node.to_play = state.current_player()
            if to_play == CHANCE:
                action = state.sample_chance(self._rng)
                child = children.get(action)
                if child is None:
                    child = children[action] = Node(action, CHANCE, 0.0)
            elif to_play in policies:
                action = policies[to_play].act(state.observation(to_play), state.legal_actions())
                child = children.get(action)
                if child is None:
                    child = children[action] = Node(action, to_play, 0.0)
            elif node is root and self._gumbel_root is not None:
                # the root's moves are the searcher's own: every determinization has them
                child = self._gumbel_root.pick()
            else:
                child = self._choose_determinized(children, state, to_play, c, puct, bumped)
            state.apply(child.action)
            path.append(child)
            node = child
            next_player = state.current_player()
            if next_player == TERMINAL:
                return path, state, state.returns(), _TERMINAL
            if node.visits == 0 and next_player not in policies:
                return path, state, None, _LEAF

    # ---- selection and expansion ----------------------------------------------------------------
    def _expand(self, node: Node, state: State, to_play: int) -> dict[Action, Node]:
        """Give a searched decision node one child per legal move, in random order.

        The shuffle removes the bias of move-generation order from tie-breaks (unvisited
        moves under UCT, equal priors under PUCT).
        """
        priors = list(self.evaluator.prior(state))
        if not priors:
            raise ValueError(f"evaluator gave no moves for seat {to_play} in a non-terminal state:\n{state}")
        self._rnd.shuffle(priors)
        children = {a: Node(a, to_play, p) for a, p in priors}
        node.children = children
        return children

    @staticmethod
    def _select_puct(children: dict[Action, Node], parent_visits: int, c: float) -> Node:
        scale = c * math.sqrt(parent_visits)
        best: Node | None = None
        best_value = -math.inf
        for child in children.values():
            outcome = child.outcome
            if outcome is not None and child.visits:
                value = outcome[child.player]
            else:
                n = child.visits
                value = (child.value_sum / n if n else 0.0) + scale * child.prior / (1 + n)
            if value > best_value:
                best_value = value
                best = child
        assert best is not None
        return best

    def _choose_determinized(
        self,
        children: dict[Action, Node],
        state: State,
        to_play: int,
        c: float,
        puct: bool,
        bumped: list[Node] | None,
    ) -> Node:
        """A searched move in a determinization: add the newly legal moves (with priors),
        count every legal one as available (noted in ``bumped`` when batching), select."""
        legal = state.legal_actions()
        if any(a not in children for a in legal):
            priors = dict(self.evaluator.prior(state))
            for a in legal:
                if a not in children:
                    children[a] = Node(a, to_play, float(priors.get(a, 0.0)))
        available = [children[a] for a in legal]
        for ch in available:
            ch.avail += 1
        if bumped is not None:
            bumped.extend(available)
        return self._select_available(available, c, puct)

    def _select_available(self, available: list[Node], c: float, puct: bool) -> Node:
        """Selection among the moves legal in this determinization (availability counts)."""
        unvisited = [ch for ch in available if ch.visits == 0]
        if unvisited and not puct:
            return unvisited[int(self._rnd.random() * len(unvisited))]
        best = available[0]
        best_value = -math.inf
        for child in available:
            n = child.visits
            q = child.value_sum / n if n else 0.0
            if puct:
                value = q + c * child.prior * math.sqrt(child.avail) / (1 + n)
            else:
                value = q + c * math.sqrt(math.log(child.avail) / n)
            if value > best_value:
                best_value = value
                best = child
        return best

    # ---- solver ----------------------------------------------------------------------------------
    def _backup_proof(self, path: list[Node], policies: Mapping[int, Agent]) -> None:
        """Prove ancestors of a terminal/proven leaf where the max^n rule allows it.

        A searched decision node is proven when all its children are (it takes the best for
        its mover), or when one child already gives its mover the maximum utility.
        """
        max_utility = self._max_utility
        for node in reversed(path[:-1]):
            to_play = node.to_play
            if to_play is None or to_play < 0 or to_play in policies or not node.children:
                return
            best: list[float] | None = None  # the best proven child's outcome for the mover
            all_proven = True
            for child in node.children.values():
                outcome = child.outcome
                if outcome is None:
                    all_proven = False
                elif best is None or outcome[to_play] > best[to_play]:
                    best = outcome
            if best is None or not (all_proven or best[to_play] >= max_utility):
                return
            node.outcome = best

    # ---- roots, reuse, noise --------------------------------------------------------------------------
    def _policies_for(self, player: int) -> Mapping[int, Agent]:
        if self.policies is None:
            return {}
        if isinstance(self.policies, dict):
            return {seat: agent for seat, agent in self.policies.items() if seat != player}
        return {seat: self.policies for seat in range(self.game.info.num_players) if seat != player}

    def _key(self, state: State, player: int) -> Any:
        """What identifies a root: the searcher's view when determinizing, else the exact state."""
        if self.determinizing:
            return state.observation(player)
        return tuple(state.observation(p) for p in range(self.game.info.num_players))

    def _reusable_root(self, state: State, player: int) -> Node | None:
        """The node of the kept tree whose position is ``state`` (breadth-first, bounded), if any."""
        if self._root is None or self._root_state is None:
            return None
        if self.policies is not None and self._root_player != player:
            return None  # the kept tree sampled this seat's moves from its policy instead of searching
        key = self._key(state, player)
        frontier: list[tuple[Node, State]] = [(self._root, self._root_state)]
        budget = self.reuse_limit
        while frontier and budget > 0:
            next_frontier: list[tuple[Node, State]] = []
            for node, node_state in frontier:
                if node_state.current_player() == player and self._key(node_state, player) == key:
                    return node
                budget -= 1
                if budget <= 0:
                    break
                for child in (node.children or {}).values():
                    if child.visits == 0:
                        continue
                    child_state = node_state.clone()
                    try:
                        child_state.apply(child.action)
                    except ValueError:  # illegal in this determinization
                        continue
                    if not child_state.is_terminal():
                        next_frontier.append((child, child_state))
            frontier = next_frontier
        return None

    def _expand_root(self, root: Node, root_state: State, player: int) -> dict[Action, Node]:
        """The root's children, every legal move of the searcher with its prior (created if new)."""
        if root.children is None:
            root.to_play = player
            if self.determinizing:
                priors = dict(self.evaluator.prior(root_state))
                legal = root_state.legal_actions()
                root.children = {a: Node(a, player, float(priors.get(a, 0.0))) for a in legal}
            else:
                self._expand(root, root_state, player)
        assert root.children is not None
        return root.children

    def _add_root_noise(self, root: Node, root_state: State, player: int) -> None:
        """AlphaZero's root exploration noise over the searcher's legal moves."""
        assert self.dirichlet is not None
        epsilon, alpha = self.dirichlet
        legal = root_state.legal_actions()
        children = self._expand_root(root, root_state, player)
        noise = self._rng.dirichlet([alpha] * len(legal))
        for a, eta in zip(legal, noise, strict=True):
            child = children.get(a)
            if child is not None:
                child.prior = (1 - epsilon) * child.prior + epsilon * float(eta)

    def _result(
        self, root: Node, player: int, simulations: int, reused: bool, seconds: float
    ) -> SearchResult:
        children = list((root.children or {}).values())
        if not children:
            raise RuntimeError("MCTS finished without expanding its root (no simulation ran)")
        neutral = self._neutral

        def rank(child: Node) -> tuple[float, int, float]:
            proven = neutral if child.outcome is None else child.outcome[player]
            return (proven, child.visits, child.value)

        best = max(children, key=rank)
        improved: dict[Action, float] = {}
        gumbel_root = self._gumbel_root
        if gumbel_root is not None:
            # a proven win stays the move; otherwise the halving's survivor
            if best.outcome is None or best.outcome[player] < self._max_utility:
                best = gumbel_root.survivor()
            improved = gumbel_root.improved()
        return SearchResult(
            player=player,
            action=best.action,
            visits={ch.action: ch.visits for ch in children},
            values={ch.action: ch.value for ch in children if ch.visits},
            proven={ch.action: list(ch.outcome) for ch in children if ch.outcome is not None},
            simulations=simulations,
            root_visits=root.visits,
            reused=reused,
            seconds=seconds,
            improved=improved,
        )

    def _plan_gumbel(self, root: Node, root_state: State, player: int) -> _GumbelRoot:
        """Expand the root with every legal move, draw the Gumbel variables, plan the halving."""
        children = list(self._expand_root(root, root_state, player).values())
        root_value = float(self.evaluator.evaluate(root_state)[player])
        draws = self._rng.gumbel(size=len(children)).tolist()
        assert self.simulations is not None
        return _GumbelRoot(children, draws, min(self.gumbel, len(children)), self.simulations, root_value)


class _GumbelRoot:
    """One search's Gumbel root: its moves, their draws, and the halving plan."""

    def __init__(
        self, children: list[Node], draws: list[float], considered: int, simulations: int, root_value: float
    ) -> None:
        self.children = children
        self.log_priors = gumbel.logits([ch.prior for ch in children])
        self.draws = gumbel.considered_gumbels(draws, self.log_priors, considered)
        self.plan = gumbel.considered_visits(considered, simulations)
        self.root_value = root_value
        self.priors = [ch.prior for ch in children]
        self.considered = [i for i, g in enumerate(self.draws) if g > -math.inf]
        """The indices of the moves the Gumbel-top-k sample considers (fixed for the search)."""

    def _transformed(self) -> tuple[list[int], list[float]]:
        visits = [ch.visits for ch in self.children]
        values = [ch.value for ch in self.children]
        completed = gumbel.completed_values(values, visits, self.priors, self.root_value)
        return visits, gumbel.sigma(completed, visits)

    def pick(self) -> Node:
        """The root move the next simulation goes through."""
        visits, transformed = self._transformed()
        considered = [visits[i] for i in self.considered]
        k = sum(visits)
        target = self.plan[k] if k < len(self.plan) else max(considered)
        if target not in considered:  # a disturbed count (a collision in a batch): the least visited
            target = min(considered)
        return self.children[gumbel.choose(self.draws, self.log_priors, transformed, visits, target)]

    def survivor(self) -> Node:
        """The move to play: the best of the most visited considered moves."""
        visits, transformed = self._transformed()
        top = max(visits[i] for i in self.considered)
        return self.children[gumbel.choose(self.draws, self.log_priors, transformed, visits, top)]

    def improved(self) -> dict[Action, float]:
        _, transformed = self._transformed()
        policy = gumbel.improved_policy(self.log_priors, transformed)
        return {ch.action: p for ch, p in zip(self.children, policy, strict=True)}


def _check_gumbel(gumbel: int, simulations: int | None, dirichlet: tuple[float, float] | None) -> None:
    if isinstance(gumbel, bool) or not isinstance(gumbel, int) or gumbel < 0:
        raise ConfigError(f"MCTS gumbel={gumbel!r} must be a whole number >= 0 (0: off)")
    if gumbel and simulations is None:
        raise ConfigError("MCTS gumbel root selection plans its halving from a simulation count: give one")
    if gumbel and dirichlet is not None:
        raise ConfigError("MCTS gumbel root selection replaces the Dirichlet root noise: drop dirichlet")


def _check_batching(batch_size: int, virtual_loss: float, evaluator: Evaluator | None) -> None:
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ConfigError(f"MCTS batch_size={batch_size!r} must be a positive integer")
    if not isinstance(virtual_loss, int | float) or isinstance(virtual_loss, bool) or not virtual_loss >= 0:
        raise ConfigError(f"MCTS virtual_loss={virtual_loss!r} must be a number >= 0")
    if batch_size > 1 and not isinstance(evaluator, BatchEvaluator):
        raise ConfigError(
            f"MCTS batch_size={batch_size} needs an evaluator with evaluate_batch (a BatchEvaluator), "
            f"not {type(evaluator).__name__}"
        )


def _backup(path: list[Node], returns: Sequence[float]) -> None:
    """Add one visit and the chooser's return to every node of a simulation's path."""
    for n in path:
        n.visits += 1
        p = n.player
        if p >= 0:
            n.value_sum += returns[p]


def _select_uct(children: dict[Action, Node], parent_visits: int, c: float, solve: bool) -> Node:
    """UCT: unvisited moves first (in the shuffled expansion order), then the highest bound.

    With the solver on, a proven move counts at its exact value with no exploration bonus.
    """
    scale = c * math.sqrt(math.log(parent_visits)) if parent_visits > 1 else 0.0
    best: Node | None = None
    best_value = -math.inf
    sqrt = math.sqrt
    for child in children.values():
        n = child.visits
        if n == 0:
            return child
        outcome = child.outcome
        if outcome is not None and solve:
            value = outcome[child.player]
        else:
            value = child.value_sum / n + scale / sqrt(n)
        if value > best_value:
            best_value = value
            best = child
    assert best is not None
    return best


# ---- the agent ----------------------------------------------------------------------------------------
class MCTSAgent:
    """A core ``Agent`` that searches with :class:`MCTS` from its own observation.

    Each ``act`` rebuilds a root with ``game.sample_state(observation, rng)`` (the exact
    state for perfect-information games; one determinization otherwise, which the search
    then redraws every simulation), searches, and plays the chosen move (or samples the
    visit distribution when ``temperature > 0``). The subtree of the move played is kept
    for the next call. ``last_result`` holds the last :class:`SearchResult`.

    All keyword arguments but ``temperature`` and ``name`` go to :class:`MCTS`.
    """

    def __init__(
        self,
        game: Game,
        *,
        seed: SeedLike = None,
        simulations: int | None = 1000,
        seconds: float | None = None,
        c: float = 1.4,
        rule: str = "uct",
        evaluator: Evaluator | None = None,
        determinize: bool = True,
        solve: bool = True,
        dirichlet: tuple[float, float] | None = None,
        reuse_tree: bool = True,
        temperature: float = 0.0,
        name: str | None = None,
        batch_size: int = 1,
        virtual_loss: float = 1.0,
        gumbel: int = 0,
    ) -> None:
        if not game.info.perfect_information and not determinize:
            raise ConfigError(
                "an MCTS agent sees only its observation, so on a hidden-information game it must determinize"
            )
        if not temperature >= 0:
            raise ConfigError(f"MCTS agent temperature={temperature!r} must be >= 0")
        if gumbel and temperature > 0:
            raise ConfigError(
                "an MCTS agent with gumbel root selection already samples its move: use temperature=0"
            )
        self._rng = as_generator(seed)
        self.game = game
        self.temperature = float(temperature)
        self.mcts = MCTS(
            game,
            evaluator=evaluator,
            c=c,
            rule=rule,
            simulations=simulations,
            seconds=seconds,
            determinize=determinize,
            solve=solve,
            dirichlet=dirichlet,
            reuse_tree=reuse_tree,
            seed=self._rng,
            batch_size=batch_size,
            virtual_loss=virtual_loss,
            gumbel=gumbel,
        )
        budget = f"simulations={simulations}" if seconds is None else f"seconds={seconds:g}"
        self.name = name or f"mcts({rule},{budget})"
        self.last_result: SearchResult | None = None

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("MCTS agent asked to act with no legal moves")
        state = self.game.sample_state(observation, self._rng)
        result = self.mcts.search(state)
        self.last_result = result
        action = result.action
        if self.temperature > 0:
            policy = result.policy(self.temperature)
            probs = np.array([p for _, p in policy])
            action = policy[int(self._rng.choice(len(policy), p=probs / probs.sum()))][0]
        if action not in legal_actions:
            raise RuntimeError(
                f"MCTS chose {action!r}, which is not among the legal moves {list(legal_actions)}: "
                f"{self.game.info.name}.sample_state does not match the observation"
            )
        if self.mcts.reuse_tree:
            self.mcts.advance(action)
        return action


def register_mcts_agent(
    registry: AgentRegistry,
    game: Game,
    *,
    simulations: int = 1000,
    name: str = "mcts",
    evaluator_factory: Callable[[], Evaluator] | None = None,
) -> None:
    """Register ``name:simulations=N,seconds=S,c=C,rule=uct|puct,solve=B,temperature=T,reuse=B,gumbel=M``.

    ``seconds=0`` means no time limit and ``simulations=0`` no simulation limit (one of the
    two must be set). ``evaluator_factory`` builds a fresh evaluator per agent (default:
    random rollouts).
    """
    defaults: dict[str, Any] = {
        "simulations": simulations,
        "seconds": 0.0,
        "c": 1.4,
        "rule": "uct",
        "solve": True,
        "temperature": 0.0,
        "reuse": True,
        "gumbel": 0,
    }

    def factory(
        seed: SeedLike = None,
        simulations: int = simulations,
        seconds: float = 0.0,
        c: float = 1.4,
        rule: str = "uct",
        solve: bool = True,
        temperature: float = 0.0,
        reuse: bool = True,
        gumbel: int = 0,
    ) -> MCTSAgent:
        if simulations < 0 or seconds < 0:
            raise ConfigError(f"{name}: simulations={simulations} and seconds={seconds} must be >= 0")
        return MCTSAgent(
            game,
            seed=seed,
            simulations=simulations or None,
            seconds=seconds or None,
            c=c,
            rule=rule,
            solve=solve,
            temperature=temperature,
            reuse_tree=reuse,
            evaluator=evaluator_factory() if evaluator_factory is not None else None,
            gumbel=gumbel,
        )

    registry.register(
        name, factory, defaults,
        "Monte-Carlo tree search (UCT/PUCT), random rollouts by default; gumbel=m: Gumbel root "
        "selection over m moves (0: off)",
        limits={
            "simulations": (0, max(MAX_SIMULATIONS, simulations)),
            "seconds": (0.0, MAX_SECONDS),
            "c": (0.0, 100.0),
            "temperature": (0.0, 100.0),
            "gumbel": (0, MAX_CONSIDERED),
        },
        choices={"rule": _RULES},
    )
