"""The game-agnostic MCTS against independent expectations.

* tic-tac-toe: a brute-force minimax written here; MCTS picks a game-theoretically optimal
  move in positions where the choice matters, with and without the solver, and never loses
  to minimax;
* small games defined here isolate one feature each: chance nodes (``Gamble``), max^n over
  three seats with a seat moving twice in a row (``Table``), hidden information under
  determinization and the training-time opponent-policy mode (``Signal``, ``Reveal``);
* Kuhn poker: dominant decisions found from observations only;
* evaluator interface (PUCT with priors, an exact-value evaluator), tree reuse, budgets,
  seeding and configuration errors.
"""

from __future__ import annotations

import ast
import functools
import math
import pathlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import paiju.algorithms.mcts as mcts_module
from paiju.algorithms.mcts import MCTS, MCTSAgent, Node, RandomRolloutEvaluator, SearchResult
from paiju.core.errors import ConfigError
from paiju.core.protocol import CHANCE, TERMINAL, Action, GameInfo, State, play_game
from paiju.core.rng import SeedLike, as_generator, derive_seed
from paiju.games.connect_four import ConnectFour
from paiju.games.kuhn_poker import KuhnPokerGame
from paiju.games.tictactoe import TicTacToe, TicTacToeState

# ---- an independent tic-tac-toe oracle ---------------------------------------------------------------
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _winner(board: str) -> str | None:
    for a, b, c in _LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


@functools.cache
def _negamax(board: str, mover: str) -> int:
    """Game value for ``mover`` (+1 win, 0 draw, -1 loss) by exhaustive search."""
    other = "o" if mover == "x" else "x"
    if _winner(board) is not None:
        return -1  # the previous mover made a line
    if "." not in board:
        return 0
    return max(-_negamax(board[:i] + mover + board[i + 1 :], other) for i in range(9) if board[i] == ".")


def _move_values(history: Sequence[int]) -> dict[int, int]:
    """Value for the player to move of each legal move after ``history``."""
    board = ["."] * 9
    for i, cell in enumerate(history):
        board[cell] = "xo"[i % 2]
    mover = "xo"[len(history) % 2]
    other = "o" if mover == "x" else "x"
    text = "".join(board)
    return {i: -_negamax(text[:i] + mover + text[i + 1 :], other) for i in range(9) if text[i] == "."}


class MinimaxAgent:
    """Perfect tic-tac-toe: a uniformly random optimal move (independent of paiju's rules code)."""

    def __init__(self, seed: SeedLike) -> None:
        self.name = "minimax"
        self._rng = as_generator(seed)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        values = _move_values(observation.history)
        best = max(values.values())
        moves = sorted(m for m, v in values.items() if v == best)
        return moves[int(self._rng.integers(len(moves)))]


def _nontrivial_positions(count: int, seed: int) -> list[TicTacToeState]:
    """Positions (from random play) where some legal move is worse than the best one."""
    game = TicTacToe()
    rng = np.random.default_rng(seed)
    found: list[TicTacToeState] = []
    seen: set[tuple[int, ...]] = set()
    while len(found) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(1, 7))):
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            if state.is_terminal():
                break
        if state.is_terminal():
            continue
        history = tuple(state.observation(0).history)
        values = _move_values(history)
        if history not in seen and len(set(values.values())) > 1:
            seen.add(history)
            found.append(state)
    return found


def test_tictactoe_mcts_without_solver_plays_an_optimal_move() -> None:
    """Plain UCT statistics (no proofs) on positions from random play where the choice matters."""
    for i, state in enumerate(_nontrivial_positions(12, seed=1)):
        values = _move_values(state.observation(0).history)
        agent = MCTSAgent(TicTacToe(), seed=i, simulations=6000, solve=False)
        player = state.current_player()
        move = agent.act(state.observation(player), state.legal_actions())
        assert values[move] == max(values.values()), (str(state), move, values, agent.last_result)


def test_tictactoe_mcts_plays_optimally_in_every_position_where_it_matters() -> None:
    """Every reachable non-terminal position where some move is worse than the best (solver on)."""
    game = TicTacToe()
    positions: dict[tuple[int, ...], TicTacToeState] = {}
    frontier = [game.new_initial_state()]
    while frontier:
        state = frontier.pop()
        history = tuple(state.observation(0).history)
        key = (*sorted(history[0::2]), -1, *sorted(history[1::2]))  # x's cells, then o's: the position
        if key in positions:
            continue
        positions[key] = state
        for move in state.legal_actions():
            child = state.clone()
            child.apply(move)
            if not child.is_terminal():
                frontier.append(child)
    assert len(positions) == 4520  # 5478 legal positions, 958 of them terminal
    checked = 0
    for i, state in enumerate(positions.values()):
        values = _move_values(state.observation(0).history)
        if len(set(values.values())) == 1:
            continue
        agent = MCTSAgent(game, seed=i, simulations=2000)
        move = agent.act(state.observation(state.current_player()), state.legal_actions())
        assert values[move] == max(values.values()), (str(state), move, values)
        checked += 1
    assert checked == 3191


def test_tictactoe_mcts_never_loses_to_minimax() -> None:
    game = TicTacToe()
    for i in range(12):
        seat = i % 2
        agents: list[Any] = [MinimaxAgent(derive_seed(5, i))]
        agents.insert(seat, MCTSAgent(game, seed=derive_seed(6, i), simulations=1500))
        played = play_game(game, agents, seed=i)
        final, history = played.state, played.actions
        assert final.returns()[seat] >= 0, f"MCTS lost as seat {seat}: {history}"


def test_solver_proves_and_plays_a_win_and_stops_early() -> None:
    game = TicTacToe()
    state = game.new_initial_state()
    for cell in (0, 3, 1, 4):  # x to play 2 and win
        state.apply(cell)
    result = MCTS(game, simulations=5000, seed=0).search(state)
    assert result.action == 2
    assert result.proven[2] == [1.0, -1.0]
    assert result.simulations < 5000  # the root was proven, so the search stopped


# ---- chance nodes ---------------------------------------------------------------------------------------
class GambleState(State):
    """Seat 0 takes a sure ``safe`` or gambles: a chance event wins +1 with probability ``p``, else -1."""

    def __init__(self, game: Gamble) -> None:
        self.game = game
        self.history: list[int] = []

    def current_player(self) -> int:
        if not self.history:
            return 0
        if self.history == [1]:
            return CHANCE
        return TERMINAL

    def _legal_actions(self) -> list[Action]:
        return [0, 1]

    def _apply(self, action: Action) -> None:
        self.history.append(int(action))  # type: ignore[call-overload]

    def clone(self) -> GambleState:
        copy = GambleState(self.game)
        copy.history = list(self.history)
        return copy

    def returns(self) -> list[float]:
        if self.history == [0]:
            return [self.game.safe, -self.game.safe]
        if self.history == [1, 1]:
            return [1.0, -1.0]
        if self.history == [1, 0]:
            return [-1.0, 1.0]
        return [0.0, 0.0]

    def observation(self, player: int) -> tuple[int, ...]:
        return tuple(self.history)

    def sample_chance(self, rng: np.random.Generator) -> Action:
        return int(rng.random() < self.game.p)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return [(0, 1 - self.game.p), (1, self.game.p)]

    def action_to_string(self, action: Action) -> str:
        return str(action)


class Gamble:
    info = GameInfo("gamble", 2, True, True, (-1.0, 1.0), 2, "test", 2, 0.0)

    def __init__(self, p: float, safe: float = 0.0) -> None:
        self.p, self.safe = p, safe

    def new_initial_state(self) -> GambleState:
        return GambleState(self)

    def sample_state(self, observation: Any, rng: np.random.Generator) -> GambleState:
        state = GambleState(self)
        state.history = list(observation)
        return state


@pytest.mark.parametrize(("p", "choice"), [(0.3, 0), (0.7, 1)])
def test_chance_nodes_are_sampled_with_their_probabilities(p: float, choice: int) -> None:
    game = Gamble(p)
    result = MCTS(game, simulations=4000, seed=1).search(game.new_initial_state())
    assert result.action == choice
    # the gamble's mean value estimates 2p - 1 (the chance node is sampled, not maximised)
    gamble = result.values[1]
    visits = result.visits[1]
    assert abs(gamble - (2 * p - 1)) < 4 * 2 * np.sqrt(p * (1 - p) / visits) + 1e-9, (gamble, visits)
    root = MCTS(game, simulations=10, seed=1)
    root.search(game.new_initial_state())


# ---- three seats, a seat moving twice in a row, general-sum returns ----------------------------------
class TableState(State):
    """Binary choices by seats ``movers`` in order; returns looked up in a random table per leaf."""

    def __init__(self, game: Table) -> None:
        self.game = game
        self.history: list[int] = []

    def current_player(self) -> int:
        if len(self.history) == len(self.game.movers):
            return TERMINAL
        return self.game.movers[len(self.history)]

    def _legal_actions(self) -> list[Action]:
        return [0, 1]

    def _apply(self, action: Action) -> None:
        self.history.append(int(action))  # type: ignore[call-overload]

    def clone(self) -> TableState:
        copy = TableState(self.game)
        copy.history = list(self.history)
        return copy

    def returns(self) -> list[float]:
        if len(self.history) < len(self.game.movers):
            return [0.0, 0.0, 0.0]
        return list(self.game.table[tuple(self.history)])

    def observation(self, player: int) -> tuple[int, ...]:
        return tuple(self.history)

    def sample_chance(self, rng: np.random.Generator) -> Action:
        raise ValueError("no chance")

    def action_to_string(self, action: Action) -> str:
        return str(action)


class Table:
    info = GameInfo("table", 3, False, True, (-1.0, 1.0), 4, "test", 2, None)
    movers = (0, 0, 1, 2)

    def __init__(self, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.table = {
            leaf: tuple(rng.uniform(-1, 1, size=3).round(2).tolist())
            for leaf in np.ndindex(*(2,) * len(self.movers))
        }

    def new_initial_state(self) -> TableState:
        return TableState(self)

    def sample_state(self, observation: Any, rng: np.random.Generator) -> TableState:
        state = TableState(self)
        state.history = list(observation)
        return state

    def maxn(self, history: tuple[int, ...] = ()) -> tuple[tuple[float, ...], list[float]]:
        """Max^n value (each seat maximises its own return) and the gap at this node's choice."""
        if len(history) == len(self.movers):
            return self.table[history], []
        mover = self.movers[len(history)]
        options = [self.maxn((*history, a))[0] for a in (0, 1)]
        values = sorted((o[mover] for o in options), reverse=True)
        return max(options, key=lambda o: o[mover]), [values[0] - values[1]]


@pytest.mark.parametrize("solve", [True, False])
def test_per_player_backup_finds_the_maxn_move(solve: bool) -> None:
    checked = 0
    for seed in range(40):
        game = Table(seed)
        value, gap = game.maxn()
        if gap[0] < 0.3:  # keep statistically clear root choices for the solve=False run
            continue
        best = max((0, 1), key=lambda a: game.maxn((a,))[0][0])
        result = MCTS(game, simulations=3000, seed=seed, solve=solve).search(game.new_initial_state())
        assert result.action == best, (seed, result)
        if solve:
            assert result.proven[best] == list(value)
        checked += 1
        if checked == 8:
            break
    assert checked == 8


# ---- hidden information ------------------------------------------------------------------------------------
CARD_PRIOR = (0.5, 0.3, 0.2)


@dataclass(frozen=True)
class SignalObservation:
    player: int
    card: int | None
    dealt: bool
    moves: tuple[int, ...]


class SignalState(State):
    """Chance deals seat 0 a card 0..2 (prior 0.5/0.3/0.2), seen only by seat 0; seat 0 sends a
    signal 0/1; seat 1 guesses the card. Both score +1 for a right guess, -1 otherwise."""

    def __init__(self, game: Signal) -> None:
        self.game = game
        self.card: int | None = None
        self.moves: list[int] = []

    def current_player(self) -> int:
        if self.card is None:
            return CHANCE
        return (0, 1, TERMINAL)[len(self.moves)]

    def _legal_actions(self) -> list[Action]:
        return [0, 1] if not self.moves else [0, 1, 2]

    def _apply(self, action: Action) -> None:
        if self.card is None:
            self.card = int(action)  # type: ignore[call-overload]
        else:
            self.moves.append(int(action))  # type: ignore[call-overload]

    def clone(self) -> SignalState:
        copy = SignalState(self.game)
        copy.card, copy.moves = self.card, list(self.moves)
        return copy

    def returns(self) -> list[float]:
        if len(self.moves) < 2:
            return [0.0, 0.0]
        r = 1.0 if self.moves[1] == self.card else -1.0
        return [r, r]

    def observation(self, player: int) -> SignalObservation:
        return SignalObservation(
            player, self.card if player == 0 else None, self.card is not None, tuple(self.moves)
        )

    def sample_chance(self, rng: np.random.Generator) -> Action:
        return int(rng.choice(3, p=CARD_PRIOR))

    def action_to_string(self, action: Action) -> str:
        return str(action)


class Signal:
    info = GameInfo("signal", 2, True, False, (-1.0, 1.0), 3, "test", 3, None)

    def new_initial_state(self) -> SignalState:
        return SignalState(self)

    def sample_state(self, observation: Any, rng: np.random.Generator) -> SignalState:
        state = SignalState(self)
        if observation.dealt:
            state.card = (
                observation.card if observation.card is not None else int(rng.choice(3, p=CARD_PRIOR))
            )
        state.moves = list(observation.moves)
        return state


def _signal_state(card: int, moves: Sequence[int]) -> SignalState:
    state = Signal().new_initial_state()
    state.apply(card)
    for m in moves:
        state.apply(m)
    return state


def test_determinized_search_does_not_see_hidden_cards() -> None:
    """Seat 1 must guess from the prior (card 0), whatever the true card in the state searched."""
    game = Signal()
    for card in (0, 1, 2):
        state = _signal_state(card, [1])
        result = MCTS(game, simulations=1500, seed=card).search(state)  # determinize=True by default
        assert result.action == 0, (card, result)
        assert result.values[0] > max(result.values[1], result.values[2])
        agent = MCTSAgent(game, seed=card, simulations=1500)
        assert agent.act(state.observation(1), state.legal_actions()) == 0


def test_true_state_search_of_a_hidden_game_is_refused() -> None:
    with pytest.raises(ConfigError, match="hidden information"):
        MCTS(Signal(), determinize=False)
    with pytest.raises(ConfigError, match="must determinize"):
        MCTSAgent(Signal(), determinize=False)


def test_an_oracle_search_sees_the_hidden_card() -> None:
    """With ``sees_hidden`` seat 1 searches the true state and guesses the true card, where
    the determinized search above guesses the prior's card 0 (an analysis tool's oracle)."""
    for card in (0, 1, 2):
        result = MCTS(Signal(), simulations=300, seed=card, sees_hidden=True).search(_signal_state(card, [1]))
        assert result.action == card, (card, result)
        assert result.values[card] == 1.0


class RecordingPolicy:
    """Seat 1's fixed policy: guess 2 after signal 1, else 0; records what it was shown."""

    name = "recording"

    def __init__(self) -> None:
        self.seen: list[SignalObservation] = []

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        self.seen.append(observation)
        return 2 if observation.moves == (1,) else 0


@pytest.mark.parametrize(("card", "signal"), [(0, 0), (2, 1)])
def test_training_time_mode_follows_the_opponents_own_policy(card: int, signal: int) -> None:
    """On the true state, seat 1's moves come from its policy on its own observation, unsearched."""
    policy = RecordingPolicy()
    mcts = MCTS(Signal(), simulations=300, seed=0, determinize=False, opponent_policy=policy)
    result = mcts.search(_signal_state(card, []))
    assert result.action == signal
    assert result.values[signal] == 1.0  # the policy guesses right after this signal, every time
    assert policy.seen and all(obs.player == 1 and obs.card is None for obs in policy.seen)
    root = mcts.root
    assert root is not None and root.children is not None
    for child in root.children.values():  # seat 1 was never branched over: one sampled reply each
        assert child.children is None or len(child.children) == 1


class RevealState(State):
    """Seat 1 holds a hidden card 0..2; seat 0 picks 0/1; seat 1 then plays its card or passes (3).

    Seat 1's legal moves depend on its hidden card, so determinizations differ in what is legal.
    """

    def __init__(self, game: Reveal) -> None:
        self.game = game
        self.card: int | None = None
        self.moves: list[int] = []

    def current_player(self) -> int:
        if self.card is None:
            return CHANCE
        return (0, 1, TERMINAL)[len(self.moves)]

    def _legal_actions(self) -> list[Action]:
        assert self.card is not None
        return [0, 1] if not self.moves else [self.card, 3]

    def _apply(self, action: Action) -> None:
        if self.card is None:
            self.card = int(action)  # type: ignore[call-overload]
        else:
            self.moves.append(int(action))  # type: ignore[call-overload]

    def clone(self) -> RevealState:
        copy = RevealState(self.game)
        copy.card, copy.moves = self.card, list(self.moves)
        return copy

    def returns(self) -> list[float]:
        if len(self.moves) < 2:
            return [0.0, 0.0]
        r = 0.5 if self.moves[1] == 3 else (1.0 if self.moves[0] == 1 and self.card == 2 else -1.0)
        return [-r, r]

    def observation(self, player: int) -> tuple[int, int | None, tuple[int, ...]]:
        return (player, self.card if player == 1 else None, tuple(self.moves))

    def sample_chance(self, rng: np.random.Generator) -> Action:
        return int(rng.integers(3))

    def action_to_string(self, action: Action) -> str:
        return str(action)


class Reveal:
    info = GameInfo("reveal", 2, True, False, (-1.0, 1.0), 3, "test", 4, 0.0)

    def new_initial_state(self) -> RevealState:
        return RevealState(self)

    def sample_state(self, observation: Any, rng: np.random.Generator) -> RevealState:
        _, card, moves = observation
        state = RevealState(self)
        state.card = card if card is not None else int(rng.integers(3))
        state.moves = list(moves)
        return state


def test_determinized_tree_counts_availability_of_moves() -> None:
    game = Reveal()
    state = game.new_initial_state()
    state.apply(0)
    mcts = MCTS(game, simulations=600, seed=3)
    mcts.search(state)
    root = mcts.root
    assert root is not None and root.children is not None and set(root.children) == {0, 1}
    for node in root.children.values():
        assert node.children is not None
        assert set(node.children) == {0, 1, 2, 3}  # every card was dealt in some determinization
        expansions = node.visits - 1  # its first visit was a leaf evaluation
        assert node.children[3].avail == expansions  # passing is always legal
        assert sum(ch.avail for ch in node.children.values()) == 2 * expansions
        assert all(0 < ch.avail < expansions for a, ch in node.children.items() if a != 3)


def test_kuhn_poker_dominant_decisions_from_observations() -> None:
    """Facing a bet, a King calls (always wins 2) and a Jack folds (calling always loses 2)."""
    game = KuhnPokerGame()
    for second_card, expected in ((2, 1), (0, 0)):
        state = game.new_initial_state()
        state.apply((second_card + 1) % 3)  # seat 0's card
        state.apply(second_card)
        state.apply(1)  # seat 0 bets
        agent = MCTSAgent(game, seed=second_card, simulations=800)
        assert agent.act(state.observation(1), state.legal_actions()) == expected


# ---- evaluators and PUCT ----------------------------------------------------------------------------------
class ExactTicTacToeEvaluator:
    """Minimax values (exact) with priors from a fixed table; counts its calls."""

    def __init__(self, favourite: int | None = None) -> None:
        self.favourite = favourite
        self.evaluations = 0
        self.priors = 0

    def evaluate(self, state: State) -> list[float]:
        self.evaluations += 1
        obs = state.observation(0)
        mover = state.current_player()
        value = max(_move_values(obs.history).values())
        return [float(value), float(-value)] if mover == 0 else [float(-value), float(value)]

    def prior(self, state: State) -> list[tuple[Action, float]]:
        self.priors += 1
        legal = state.legal_actions()
        if self.favourite in legal:
            rest = 0.1 / (len(legal) - 1) if len(legal) > 1 else 0.0
            return [(a, 0.9 if a == self.favourite else rest) for a in legal]
        return [(a, 1.0 / len(legal)) for a in legal]


def test_puct_with_an_exact_evaluator_plays_optimally_with_few_simulations() -> None:
    for i, state in enumerate(_nontrivial_positions(15, seed=9)):
        values = _move_values(state.observation(0).history)
        evaluator = ExactTicTacToeEvaluator()
        result = MCTS(TicTacToe(), evaluator=evaluator, rule="puct", c=1.0, simulations=60, seed=i).search(
            state
        )
        assert values[result.action] == max(values.values()), (str(state), result)
        assert evaluator.evaluations <= 60 and evaluator.priors > 0


def test_puct_follows_the_priors() -> None:
    """With uninformative values, visits go where the prior points."""

    class FlatValues(ExactTicTacToeEvaluator):
        def evaluate(self, state: State) -> list[float]:
            return [0.0, 0.0]

    for favourite in (2, 6):
        result = MCTS(
            TicTacToe(), evaluator=FlatValues(favourite), rule="puct", simulations=300, seed=0, solve=False
        ).search(TicTacToe().new_initial_state())
        assert max(result.visits, key=result.visits.__getitem__) == favourite
        assert result.visits[favourite] > 0.5 * 300


def test_dirichlet_noise_perturbs_root_priors() -> None:
    mcts = MCTS(TicTacToe(), simulations=20, seed=0, dirichlet=(0.25, 0.3))
    mcts.search(TicTacToe().new_initial_state())
    assert mcts.root is not None and mcts.root.children is not None
    priors = [ch.prior for ch in mcts.root.children.values()]
    assert abs(sum(priors) - 1.0) < 1e-9
    assert max(priors) - min(priors) > 1e-3  # no longer uniform


def test_rollout_evaluator_averages_rollouts() -> None:
    game = Gamble(0.5)
    state = game.new_initial_state()
    state.apply(1)  # at the chance node: value 0 in expectation
    values = RandomRolloutEvaluator(rollouts=4000, seed=0).evaluate(state)
    assert abs(values[0]) < 0.1 and values[0] == -values[1]
    with pytest.raises(ConfigError):
        RandomRolloutEvaluator(rollouts=0)


# ---- reuse, budgets, seeding, errors -----------------------------------------------------------------------
def test_agent_reuses_the_subtree_of_the_position_reached() -> None:
    game = ConnectFour()
    agent = MCTSAgent(game, seed=0, simulations=400)
    state = game.new_initial_state()
    first = agent.act(state.observation(0), state.legal_actions())
    state.apply(first)
    kept = agent.mcts.root  # advanced to the child of the move played
    assert kept is not None and kept.children is not None
    reply = max(kept.children.values(), key=lambda n: n.visits)
    state.apply(reply.action)
    before = reply.visits
    agent.act(state.observation(0), state.legal_actions())
    result = agent.last_result
    assert result is not None and result.reused
    assert result.root_visits == before + 400 and result.simulations == 400


def test_search_reuses_after_advance_and_not_for_an_unrelated_position() -> None:
    game = TicTacToe()
    mcts = MCTS(game, simulations=300, seed=2)
    state = game.new_initial_state()
    first = mcts.search(state)
    assert not first.reused
    for action in (first.action, 0 if first.action != 0 else 1):
        mcts.advance(action)
        state.apply(action)
    assert mcts.search(state).reused
    other = game.new_initial_state()
    other.apply(8)
    other.apply(7)
    assert not mcts.search(other).reused


def test_budgets() -> None:
    game = ConnectFour()
    state = game.new_initial_state()
    assert MCTS(game, simulations=37, seconds=60.0, seed=0).search(state).simulations == 37
    timed = MCTS(game, simulations=None, seconds=0.02, seed=0).search(state)
    assert timed.simulations >= 1 and timed.root_visits == timed.simulations


def test_same_seed_same_search() -> None:
    game = ConnectFour()
    state = game.new_initial_state()
    state.apply(3)
    a = MCTS(game, simulations=500, seed=42).search(state)
    b = MCTS(game, simulations=500, seed=42).search(state)
    c = MCTS(game, simulations=500, seed=43).search(state)
    assert a.visits == b.visits and a.values == b.values
    assert a.visits != c.visits


def test_search_result_policy() -> None:
    result = SearchResult(player=0, action=2, visits={1: 10, 2: 30, 3: 0}, values={1: 0.1, 2: 0.5})
    assert result.policy(1.0) == [(1, 0.25), (2, 0.75), (3, 0.0)]
    assert result.policy(0.0) == [(1, 0.0), (2, 1.0), (3, 0.0)]
    sharp = dict(result.policy(0.5))
    assert abs(sharp[2] - 0.9) < 1e-12


def test_bad_configuration_and_bad_roots_are_refused() -> None:
    game = TicTacToe()
    for kwargs, match in (
        ({"rule": "ucb"}, "rule"),
        ({"c": -1.0}, "exploration"),
        ({"simulations": None, "seconds": None}, "budget"),
        ({"simulations": 0}, "simulations"),
        ({"seconds": -2.0}, "seconds"),
        ({"dirichlet": (2.0, 0.3)}, "dirichlet"),
        ({"opponent_policy": "random"}, "opponent_policy"),
    ):
        with pytest.raises(ConfigError, match=match):
            MCTS(game, **kwargs)  # type: ignore[arg-type]
    finished = game.new_initial_state()
    for cell in (0, 3, 1, 4, 2):
        finished.apply(cell)
    with pytest.raises(ValueError, match="finished"):
        MCTS(game).search(finished)
    with pytest.raises(ValueError, match="chance node"):
        MCTS(Signal()).search(Signal().new_initial_state())


def test_node_documents_its_slots() -> None:
    node = Node(None, -3, 1.0)
    assert not hasattr(node, "__dict__")
    for slot in Node.__slots__:
        assert f"{slot}:" in (Node.__doc__ or ""), slot


def test_mcts_imports_no_game() -> None:
    tree = ast.parse(pathlib.Path(mcts_module.__file__).read_text())
    imported = [
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    ] + [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    paiju_modules = [m for m in imported if m.startswith("paiju")]
    assert paiju_modules and all(m.startswith(("paiju.core", "paiju.algorithms")) for m in paiju_modules), (
        paiju_modules
    )


# ---- Gumbel root selection ----------------------------------------------------------------------------
class BanditState(State):
    """Seat 0 picks one of the game's arms and the game ends paying that arm's value."""

    def __init__(self, game: Bandit) -> None:
        self.game = game
        self.arm: int | None = None

    def current_player(self) -> int:
        return 0 if self.arm is None else TERMINAL

    def _legal_actions(self) -> list[Action]:
        return list(range(len(self.game.values)))

    def _apply(self, action: Action) -> None:
        self.arm = int(action)  # type: ignore[call-overload]

    def clone(self) -> BanditState:
        copy = BanditState(self.game)
        copy.arm = self.arm
        return copy

    def returns(self) -> list[float]:
        value = 0.0 if self.arm is None else self.game.values[self.arm]
        return [value, -value]

    def observation(self, player: int) -> int | None:
        return self.arm

    def sample_chance(self, rng: np.random.Generator) -> Action:
        raise AssertionError("a bandit has no chance node")

    def action_to_string(self, action: Action) -> str:
        return str(action)


class Bandit:
    info = GameInfo("bandit", 2, True, True, (-1.0, 1.0), 16, "test", 1, 0.0)

    def __init__(self, values: Sequence[float], priors: Sequence[float]) -> None:
        self.values, self.priors = list(values), list(priors)

    def new_initial_state(self) -> BanditState:
        return BanditState(self)


class PriorEvaluator:
    """The bandit's priors, and the prior's expected value as the root's value estimate."""

    def __init__(self, game: Bandit) -> None:
        self.game = game

    def evaluate(self, state: State) -> list[float]:
        v = sum(p * q for p, q in zip(self.game.priors, self.game.values, strict=True))
        return [v, -v]

    def prior(self, state: State) -> list[tuple[Action, float]]:
        return list(enumerate(self.game.priors))


@pytest.mark.parametrize(("considered", "simulations"), [(2, 2), (4, 4), (4, 16), (8, 8), (8, 40)])
def test_gumbel_root_improves_on_the_prior(considered: int, simulations: int) -> None:
    """The paper's policy-improvement property, by sampling: with exact values below the
    root, the move played is on average worth at least the prior's expectation, whatever the
    number of simulations; and the halving spends exactly the budget on the considered moves."""
    rng = np.random.default_rng(considered * 100 + simulations)
    for _ in range(4):
        priors = rng.dirichlet([0.7] * 8).tolist()
        values = rng.uniform(-0.9, 0.9, size=8).tolist()
        game = Bandit(values, priors)
        chosen = []
        for seed in range(300):
            search = MCTS(game, evaluator=PriorEvaluator(game), rule="puct", solve=False,
                          simulations=simulations, gumbel=considered, seed=seed)
            result = search.search(game.new_initial_state())
            visited = [a for a, n in result.visits.items() if n]
            assert sum(result.visits.values()) == simulations
            assert len(visited) == min(considered, simulations)
            assert result.action in visited
            assert sum(result.improved.values()) == pytest.approx(1.0)
            chosen.append(values[result.action])
        prior_value = sum(p * q for p, q in zip(priors, values, strict=True))
        mean, se = float(np.mean(chosen)), float(np.std(chosen) / np.sqrt(len(chosen)))
        assert mean >= prior_value - 3 * se, (priors, values, mean, prior_value)


def test_gumbel_against_brute_force_tictactoe() -> None:
    """Every legal move considered and visited once, with exact values: the improved policy is
    softmax(sigma(q)) of the brute-force move values (uniform priors), and the move played is
    optimal nearly always (the Gumbel noise rarely outweighs sigma's scale of 5.1)."""
    optimal = 0
    positions = _nontrivial_positions(40, seed=3)
    for i, state in enumerate(positions):
        values = _move_values(state.observation(0).history)
        moves = len(values)
        result = MCTS(TicTacToe(), evaluator=ExactTicTacToeEvaluator(), rule="puct", simulations=moves,
                      gumbel=moves, solve=False, seed=i).search(state)
        assert all(n == 1 for n in result.visits.values())
        low, high = min(values.values()), max(values.values())
        scale = (50 + 1) * 0.1
        weights = {a: math.exp(scale * (v - low) / (high - low)) for a, v in values.items()}
        total = sum(weights.values())
        assert result.improved == pytest.approx({a: w / total for a, w in weights.items()})
        optimal += values[result.action] == high
    assert optimal >= 0.9 * len(positions)


def test_gumbel_with_fewer_simulations_than_considered_moves_and_as_an_agent_spec() -> None:
    game = ConnectFour()
    state = game.new_initial_state()
    result = MCTS(game, simulations=3, gumbel=7, seed=1).search(state)
    assert sorted(result.visits.values()) == [0, 0, 0, 0, 1, 1, 1]
    from paiju.games.connect_four import REGISTRY

    agent = REGISTRY.make("mcts:gumbel=4,simulations=32", seed=5)
    trace = play_game(game, [agent, REGISTRY.make("random", seed=6)], seed=0)
    assert trace is not None
    for kwargs, match in (
        ({"gumbel": -1}, "gumbel"),
        ({"gumbel": 4, "simulations": None, "seconds": 1.0}, "simulation count"),
        ({"gumbel": 4, "dirichlet": (0.25, 0.3)}, "Dirichlet"),
    ):
        with pytest.raises(ConfigError, match=match):
            MCTS(game, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="temperature=0"):
        MCTSAgent(game, gumbel=4, temperature=1.0)
