"""AlphaZero self-play: games of a network against itself, searched, as training samples.

Game-agnostic. A game reaches this module through a **setup**: a picklable callable
``setup(seed) -> (game, encoder)`` (a ``functools.partial`` of a top-level function of the
game's package), so that a room can be drawn per game (yuxi: the board and both decks) and
so that worker processes can rebuild it. Each game is played through the one game loop
(:func:`paiju.core.protocol.play_game`) by a :class:`SelfPlayAgent` seated at every seat.
At each decision the agent

* rebuilds a state from its own observation (``game.sample_state``: exact for perfect
  information, a determinization otherwise, redrawn every simulation by the search), or,
  in the talk's training-time mode (``hidden="opponent-policy"``), searches the true state,
  the other seats moving inside the search by the network's policy from their own
  observation (:class:`NetworkPolicyAgent`) instead of being branched over,
* searches with PUCT guided by the network (root Dirichlet noise, batched leaves),
* stores a sample: the encoded input, the visit distribution over the legal moves as
  policy-head index pairs, and the seat, whose final return becomes the value target,
* plays a move drawn from the visit counts for its first ``temperature_moves`` decisions
  of the game, the most visited move afterwards.

Three options change the search and its targets; each is off by default, so a run without
them plays and stores exactly what it did before they existed:

* **Gumbel root selection** (``gumbel=m``, :mod:`paiju.algorithms.gumbel`): the root
  considers ``m`` moves by sequential halving; the policy target is the search's improved
  policy (:attr:`~paiju.algorithms.mcts.SearchResult.improved`) and the move played is the
  halving's survivor, a sample already, so the Dirichlet noise and the temperature are not
  used;
* **playout-cap randomisation** (``full_search_share=p < 1``, KataGo, Wu 2019): a move gets
  a full search of ``simulations`` with probability ``p`` and its policy becomes a target;
  otherwise a fast search of ``fast_simulations``, without root noise, whose policy is not
  stored (a value-only sample: its outcome and root value still count);
* **rollouts** (``rollouts=R``): the mean return of ``R`` uniform random games from every
  searched position is stored beside it (the ``rollouts`` value target,
  :mod:`paiju.algorithms.alphazero.targets`).

Decisions that no policy head covers (yuxi's swap) are decided by the value head over
their outcomes, as the talk does online, and give a value-only sample.

With ``mix=W`` (:attr:`SearchSettings.mix`) the search's leaves are valued as AlphaGo's were,
``(1 - W) x`` the value head ``+ W x`` the game's heuristic
(:class:`~paiju.algorithms.alphazero.evaluator.MixedEvaluator`): a setup that offers one has
a ``heuristic(game)`` method returning an MCTS evaluator. The samples' targets are unchanged
(visit counts, final returns); only the play that produces them is guided by the heuristic.

A game is fully determined by ``(weights, settings, seed)``: :func:`selfplay_task` can run
in any process and gives the same samples (torch on one thread), which is what makes
training resumable and independent of the number of workers.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import torch

from paiju.algorithms.alphazero.evaluator import MixedEvaluator, NetworkEvaluator
from paiju.algorithms.alphazero.net import AZNet, Encoder, NetConfig
from paiju.algorithms.mcts import MAX_CONSIDERED, MCTS, Evaluator, RandomRolloutEvaluator, SearchResult
from paiju.core.errors import ConfigError
from paiju.core.protocol import Action, Game, State, play_game
from paiju.core.rng import as_generator, derive_seed

Setup = Callable[[int], tuple[Game, Encoder]]
"""``setup(seed) -> (game, encoder)``: the room of one game (picklable: a partial of a
top-level function)."""


HIDDEN_MODES = ("determinize", "opponent-policy")
"""How self-play searches a hidden-information game (see :attr:`SearchSettings.hidden`)."""


@dataclass(frozen=True)
class SearchSettings:
    """How self-play searches and chooses its moves."""

    simulations: int = field(
        default=64, metadata={"help": "Searches of self-play, per decision.", "min": 1, "max": 5_000}
    )
    c: float = field(default=2.0, metadata={"help": "PUCT exploration constant of self-play.", "min": 0.0,
                                            "max": 100.0})
    batch: int = field(default=8, metadata={"flag": "--leaf-batch", "help": "Leaves per network call.",
                                            "min": 1, "max": 1024})
    """Leaves per network call (virtual loss spreads the descents of a batch)."""
    dirichlet_epsilon: float = field(
        default=0.25,
        metadata={"help": "Share of Dirichlet noise in the root's priors.", "min": 0.0, "max": 1.0},
    )
    dirichlet_alpha: float = field(
        default=0.3,
        metadata={"help": "Concentration of the root's Dirichlet noise.", "min": 1e-6, "max": 100.0},
    )
    temperature_moves: int = field(default=8, metadata={
        "help": "Decisions of a game (both seats) played by sampling the visit counts.", "min": 0,
        "max": 1_000})
    """Decisions of a game (both seats counted) played by sampling the visit counts;
    the most visited move afterwards."""
    hidden: str = field(default="determinize", metadata={
        "flag": "--search-hidden",
        "help": "What self-play's search does with the hidden cards: determinize (redraw them every "
                "simulation) or opponent-policy (search the true state, the opponent moving by the "
                "network's policy from its own view: the talk's training mode)."})
    """What the search does with the cards the searcher cannot see (hidden-information
    games only): ``"determinize"`` redraws them from the searcher's view every simulation;
    ``"opponent-policy"`` searches the true state, where the other seats play the network's
    policy from their own observation (the talk's training-time mode; it needs the true
    state, so it exists only in self-play)."""
    mix: float = field(default=0.0, metadata={
        "help": "Weight of the heuristic leaf value (that of mcts:eval=heuristic) mixed with the value head "
                "in self-play's search (AlphaGo's mix); 0: the value head alone.", "min": 0.0, "max": 1.0})
    """Weight of the game's heuristic in the leaf values (0: the value head alone); needs a
    setup with ``heuristic(game)``."""
    gumbel: int = field(default=0, metadata={
        "help": "Gumbel root selection over this many moves (0: off): the improved policy is the policy "
                "target and the halving's survivor the move played (no Dirichlet noise, no temperature).",
        "min": 0, "max": MAX_CONSIDERED})
    """Moves the root considers with Gumbel root selection (0: off, the visit counts are the
    target). On, the improved policy is the target and the survivor is played."""
    full_search_share: float = field(default=1.0, metadata={
        "help": "Playout-cap randomisation: the share of moves given a full search (--simulations), whose "
                "policy is a target; the others get a fast search (--fast-simulations), value target only. "
                "1: every move a full search.", "min": 0.0, "max": 1.0})
    """Probability that a move gets the full search and becomes a policy target (KataGo's
    playout-cap randomisation); 1 (the default): every move, as before the option existed."""
    fast_simulations: int = field(default=16, metadata={
        "help": "Simulations of a fast search (playout-cap randomisation: when --full-search-share < 1).",
        "min": 1, "max": 5_000})
    """Simulations of a fast search (no root noise; its policy is not a target)."""
    rollouts: int = field(default=0, metadata={
        "help": "Random rollouts from every searched position, their mean stored for the rollouts value "
                "target (0: none).", "min": 0, "max": 10_000})
    """Uniform random games played from every searched position, their mean return kept
    as the sample's ``rollout_values`` (0: none kept)."""

    def __post_init__(self) -> None:
        if self.simulations < 1 or self.batch < 1 or not self.c >= 0:
            raise ConfigError(
                f"self-play: simulations={self.simulations} and batch={self.batch} must be >= 1, "
                f"c={self.c} >= 0"
            )
        if not 0.0 <= self.dirichlet_epsilon <= 1.0 or not self.dirichlet_alpha > 0:
            raise ConfigError(
                f"self-play: dirichlet_epsilon={self.dirichlet_epsilon} must be in [0, 1], "
                f"dirichlet_alpha={self.dirichlet_alpha} > 0"
            )
        if self.temperature_moves < 0:
            raise ConfigError(f"self-play: temperature_moves={self.temperature_moves} must be >= 0")
        if self.hidden not in HIDDEN_MODES:
            raise ConfigError(f"self-play: hidden={self.hidden!r} must be one of {', '.join(HIDDEN_MODES)}")
        if not 0.0 <= self.mix <= 1.0:
            raise ConfigError(f"self-play: mix={self.mix} must be in [0, 1]")
        if not 0 <= self.gumbel <= MAX_CONSIDERED or self.rollouts < 0:
            raise ConfigError(f"self-play: gumbel={self.gumbel} must be in 0..{MAX_CONSIDERED}, "
                              f"rollouts={self.rollouts} >= 0")
        if not 0.0 <= self.full_search_share <= 1.0:
            raise ConfigError(f"self-play: full_search_share={self.full_search_share} must be in [0, 1]")
        if self.capped and not 1 <= self.fast_simulations <= self.simulations:
            raise ConfigError(f"self-play: fast_simulations={self.fast_simulations} must be in "
                              f"1..simulations={self.simulations}")

    @property
    def capped(self) -> bool:
        """Whether playout-cap randomisation is on (some moves get a fast search)."""
        return self.full_search_share < 1.0


def heuristic_of(setup: Setup, game: Game, settings: SearchSettings) -> Evaluator | None:
    """The setup's heuristic leaf evaluator for ``game`` when ``settings.mix`` asks for one."""
    if not settings.mix:
        return None
    make = getattr(setup, "heuristic", None)
    if make is None:
        raise ConfigError(
            f"self-play: mix={settings.mix} needs a heuristic of the game, and this setup "
            f"({type(setup).__name__}) offers none"
        )
    heuristic: Evaluator = make(game)
    return heuristic


@dataclass
class SampleArrays:
    """Training samples as flat arrays (cheap to pickle, to store and to draw batches from).

    Sample ``i`` has input ``planes[i]``, ``vector[i]``, value target ``values[i]`` (the
    final returns rotated so index 0 is the encoded seat), the search's root value
    ``root_values[i]`` in the same order (NaN where there is none: a sample decided without
    a search, a sample stored before it was kept, or the other seats of a game that is not
    two-player constant-sum), the mean return of random rollouts from the position
    ``rollout_values[i]`` in the same order (NaN where none were played; arrays built
    without it, None, have none), and policy entries
    ``policy_first/second/prob[offsets[i]:offsets[i + 1]]`` (none for a value-only sample).
    """

    planes: np.ndarray
    vector: np.ndarray
    values: np.ndarray
    offsets: np.ndarray
    policy_first: np.ndarray
    policy_second: np.ndarray
    policy_prob: np.ndarray
    root_values: np.ndarray
    rollout_values: np.ndarray = None  # type: ignore[assignment]  # None: NaN from __post_init__ on

    def __post_init__(self) -> None:
        if self.rollout_values is None:
            self.rollout_values = np.full(np.shape(self.values), np.nan, dtype=np.float32)
        elif len(self.rollout_values) != len(self.values):  # a caller's bug, not "none played"
            raise ValueError(f"SampleArrays: rollout_values has {len(self.rollout_values)} rows for "
                             f"{len(self.values)} samples (leave it out, None, when none were played)")

    def __len__(self) -> int:
        return len(self.values)

    @staticmethod
    def concat(parts: Sequence[SampleArrays]) -> SampleArrays:
        """The samples of ``parts`` one after another, each sample with its own policy entries
        (a part's offsets shifted by the entries of the parts before it).

        Raises:
            ValueError: no part (an empty result has no shape to take).
        """
        if not parts:
            raise ValueError("SampleArrays.concat: no part to concatenate")
        bases = np.cumsum([0] + [int(p.offsets[-1]) for p in parts[:-1]])
        offsets = np.concatenate([[0]] + [p.offsets[1:] + base for p, base in zip(parts, bases, strict=True)])
        # SampleArrays' own fields only: a part may be a GameSamples, whose game fields do not concatenate
        joined = {f.name: np.concatenate([getattr(p, f.name) for p in parts])
                  for f in fields(SampleArrays) if f.name != "offsets"}
        return SampleArrays(offsets=offsets.astype(np.int64), **joined)

    def take(self, index: np.ndarray) -> SampleArrays:
        """The samples ``index`` (in that order), their policy entries with them."""
        starts, ends = self.offsets[index], self.offsets[index + 1]
        counts = ends - starts
        offsets = np.zeros(len(index) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum(counts)
        entries = np.repeat(starts - offsets[:-1], counts) + np.arange(offsets[-1])
        return SampleArrays(
            planes=self.planes[index], vector=self.vector[index], values=self.values[index], offsets=offsets,
            policy_first=self.policy_first[entries], policy_second=self.policy_second[entries],
            policy_prob=self.policy_prob[entries], root_values=self.root_values[index],
            rollout_values=self.rollout_values[index],
        )


@dataclass
class GameSamples(SampleArrays):
    """The samples of one game, its final returns, its number of moves and the simulations
    its searches ran."""

    returns: list[float] = field(default_factory=list)
    decisions: int = 0
    simulations: int = 0


@dataclass
class Decision:
    """One stored decision: the input, the seat encoded, the policy target as
    ``(first, second, probability)`` entries (empty: a value-only sample), what the search
    found and what rollouts gave."""

    planes: np.ndarray
    vector: np.ndarray
    seat: int
    policy: list[tuple[int, int, float]]
    root_value: float | None = None
    """The search's mean return for ``seat`` at the root (None: no search)."""
    rollout_values: Sequence[float] | None = None
    """Mean return of every seat (the game's order) over random rollouts (None: none played)."""


def policy_target(
    result: SearchResult, index_of: Mapping[Action, tuple[int, int]]
) -> list[tuple[int, int, float]]:
    """A search's policy target as ``(first, second, probability)`` entries of the policy
    heads: the improved policy under Gumbel root selection, else the visit distribution
    (moves never visited left out)."""
    if result.improved:
        return [(*index_of[a], p) for a, p in result.improved.items()]
    total = sum(result.visits.values())
    return [(*index_of[a], n / total) for a, n in result.visits.items() if n]


def root_value(result: SearchResult) -> float:
    """The search's value of its root for the mover: its moves' mean returns weighted by their visits."""
    total = sum(result.visits.values())
    return float(sum(n * result.values[a] for a, n in result.visits.items() if n) / total)


def rollout_means(state: State, rollouts: int, seed: int) -> list[float]:
    """Every seat's mean return over ``rollouts`` uniform random games from ``state`` (left
    unchanged)."""
    return [float(v) for v in RandomRolloutEvaluator(rollouts=rollouts, seed=seed).evaluate(state)]


class NetworkPolicyAgent:
    """A seat that plays a move drawn from the network's priors for its own observation:
    the opponent inside an opponent-policy search (it never sees the searcher's cards)."""

    def __init__(self, game: Game, evaluator: NetworkEvaluator | MixedEvaluator, seed: int) -> None:
        self.game = game
        self.evaluator = evaluator
        self._rng = as_generator(seed)
        self.name = "az-policy"

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        state = self.game.sample_state(observation, self._rng)
        actions, probs = zip(*self.evaluator.prior(state), strict=True)
        p = np.asarray(probs, dtype=np.float64)
        action: Action = actions[int(self._rng.choice(len(actions), p=p / p.sum()))]
        return action


def explore_move(result: SearchResult, rng: np.random.Generator) -> Action:
    """An opening move of a training game: a draw from the visit counts, or under Gumbel root
    selection (``result.improved`` set) the halving's survivor, already a sample."""
    if result.improved:
        return result.action
    moves = [a for a, n in result.visits.items() if n]
    weights = np.array([result.visits[a] for a in moves], dtype=np.float64)
    return moves[int(rng.choice(len(moves), p=weights / weights.sum()))]


class SelfPlayAgent:
    """The self-play player of every seat of one game (see the module docstring).

    In the opponent-policy mode it needs the true state: pass :meth:`watch` to the game
    loop as its ``before_move`` hook (:func:`play_selfplay_game` does).
    """

    def __init__(
        self, game: Game, encoder: Encoder, evaluator: NetworkEvaluator | MixedEvaluator,
        settings: SearchSettings, seed: int,
    ) -> None:
        self.game = game
        self.encoder = encoder
        self.evaluator = evaluator
        self.settings = settings
        self._rng = as_generator(seed)
        self.sees_true_state = settings.hidden == "opponent-policy" and not game.info.perfect_information
        self._true_state: State | None = None
        opponents = (
            NetworkPolicyAgent(game, evaluator, derive_seed(seed, 1)) if self.sees_true_state else None
        )
        self.search = self._search(settings.simulations, noise=True, opponents=opponents)
        self.fast_search = (
            self._search(settings.fast_simulations, noise=False, opponents=opponents)
            if settings.capped else None
        )
        self._cap_rng = as_generator(derive_seed(seed, 2))  # full or fast: a stream of its own
        self._rollout_seed = derive_seed(seed, 3)
        self.decisions: list[Decision] = []
        self.simulations = 0
        """Simulations run by this agent's searches so far."""
        self.name = "az-selfplay"

    def _search(self, simulations: int, *, noise: bool, opponents: NetworkPolicyAgent | None) -> MCTS:
        s = self.settings
        return MCTS(
            self.game,
            evaluator=self.evaluator,
            rule="puct",
            c=s.c,
            simulations=simulations,
            solve=False,
            dirichlet=(s.dirichlet_epsilon, s.dirichlet_alpha)
            if s.dirichlet_epsilon and noise and not s.gumbel
            else None,
            reuse_tree=False,
            seed=self._rng,
            batch_size=s.batch,
            determinize=not self.sees_true_state,
            opponent_policy=opponents,
            gumbel=s.gumbel,
        )

    def watch(self, state: State, player: int) -> None:
        """``before_move`` hook: the game's true state (read in the opponent-policy mode)."""
        self._true_state = state

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if self.sees_true_state:
            if self._true_state is None:
                raise RuntimeError("opponent-policy self-play needs the game loop's before_move=agent.watch")
            state = self._true_state.clone()
        else:
            state = self.game.sample_state(observation, self._rng)
        planes, vector = self.encoder.encode(state)
        seat = self.encoder.perspective(state)
        indices = self.encoder.policy_indices(state, legal_actions)
        if indices is None:  # no head covers it: the value head decides over the outcomes
            self.decisions.append(Decision(planes, vector, seat, []))
            return self.evaluator.best_by_value(state)
        if len(legal_actions) == 1:
            return legal_actions[0]  # nothing to learn from a forced move
        search, full = self.search, True
        if self.fast_search is not None and self._cap_rng.random() >= self.settings.full_search_share:
            search, full = self.fast_search, False
        result = search.search(state)
        self.simulations += result.simulations
        policy = policy_target(result, dict(zip(legal_actions, indices, strict=True)))
        rollouts = None
        if self.settings.rollouts:
            rollouts = rollout_means(state, self.settings.rollouts, derive_seed(self._rollout_seed,
                                                                                len(self.decisions)))
        # a fast search's policy is not a target (KataGo): too few simulations to improve on the prior
        self.decisions.append(Decision(planes, vector, seat, policy if full else [], root_value(result),
                                       rollouts))
        if len(self.decisions) <= self.settings.temperature_moves:
            return explore_move(result, self._rng)
        return result.action


def play_selfplay_game(
    game: Game, encoder: Encoder, net: AZNet, settings: SearchSettings, seed: int,
    heuristic: Evaluator | None = None,
) -> GameSamples:
    """One game of ``net`` against itself from ``seed`` (chance and search seeds derived
    from it), as samples; ``heuristic`` is mixed into the leaves when ``settings.mix`` > 0."""
    network = NetworkEvaluator(net, encoder, num_players=game.info.num_players)
    evaluator: NetworkEvaluator | MixedEvaluator = network
    if settings.mix:
        if heuristic is None:
            raise ConfigError(f"self-play: mix={settings.mix} needs the game's heuristic evaluator")
        evaluator = MixedEvaluator(network, heuristic, settings.mix)
    agent = SelfPlayAgent(game, encoder, evaluator, settings, derive_seed(seed, 1))
    played = play_game(
        game,
        [agent] * game.info.num_players,
        derive_seed(seed, 2),
        before_move=agent.watch if agent.sees_true_state else None,
    )
    returns = [float(r) for r in played.state.returns()]
    return samples_of(agent.decisions, returns, game.info.num_players, len(played.actions),
                      game.info.constant_sum, simulations=agent.simulations)


def samples_of(
    decisions: Sequence[Decision], returns: Sequence[float], num_players: int, moves: int,
    constant_sum: float | None = None, *, simulations: int = 0,
) -> GameSamples:
    """A game's samples; ``constant_sum`` (two players) gives the other seat's root value."""
    n = num_players
    root_values = np.full((len(decisions), n), np.nan, dtype=np.float32)
    rollout_values = np.full((len(decisions), n), np.nan, dtype=np.float32)
    for i, d in enumerate(decisions):
        if d.root_value is not None:
            root_values[i, 0] = d.root_value
            if n == 2 and constant_sum is not None:
                root_values[i, 1] = constant_sum - d.root_value
        if d.rollout_values is not None:
            rollout_values[i] = [d.rollout_values[(d.seat + k) % n] for k in range(n)]
    offsets = np.zeros(len(decisions) + 1, dtype=np.int64)
    entries = [e for d in decisions for e in d.policy]
    offsets[1:] = np.cumsum([len(d.policy) for d in decisions])
    values = np.array([[returns[(d.seat + k) % n] for k in range(n)] for d in decisions], dtype=np.float32)
    return GameSamples(
        planes=np.stack([d.planes for d in decisions]).astype(np.float16) if decisions else np.zeros(0),
        vector=np.stack([d.vector for d in decisions]).astype(np.float16) if decisions else np.zeros(0),
        values=values.reshape(len(decisions), n),
        offsets=offsets,
        policy_first=np.array([e[0] for e in entries], dtype=np.int32),
        policy_second=np.array([e[1] for e in entries], dtype=np.int32),
        policy_prob=np.array([e[2] for e in entries], dtype=np.float32),
        root_values=root_values,
        rollout_values=rollout_values,
        returns=list(returns),
        decisions=moves,
        simulations=simulations,
    )


# ---- tasks for the runner -----------------------------------------------------------------------
@dataclass(frozen=True)
class SelfPlayTask:
    """Games ``seeds`` played by the network ``weights`` (a torch state dict, serialised)."""

    setup: Setup
    net_config: dict[str, Any]
    weights: bytes
    settings: SearchSettings
    seeds: tuple[int, ...]


def weights_bytes(net: AZNet) -> bytes:
    buffer = io.BytesIO()
    torch.save(net.state_dict(), buffer)
    return buffer.getvalue()


def net_from(config: dict[str, Any], weights: bytes) -> AZNet:
    raw = dict(config)
    raw["plane_shape"] = tuple(raw["plane_shape"])
    net = AZNet(NetConfig(**raw))
    net.load_state_dict(torch.load(io.BytesIO(weights), weights_only=True))
    return net.eval()


def selfplay_task(task: SelfPlayTask) -> list[GameSamples]:
    """Play the task's games (a runner worker function: one torch thread, so that a game
    gives the same samples in any process)."""
    torch.set_num_threads(1)
    net = net_from(task.net_config, task.weights)
    out = []
    for seed in task.seeds:
        game, encoder = task.setup(seed)
        heuristic = heuristic_of(task.setup, game, task.settings)
        out.append(play_selfplay_game(game, encoder, net, task.settings, seed, heuristic))
    return out
