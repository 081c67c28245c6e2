"""The game-agnostic ``Game`` / ``State`` / ``Agent`` protocol (in the spirit of OpenSpiel).

Every game in paiju (Dou Dizhu, Taiwan mahjong, yuxi, the small test games) implements
this API, and every algorithm (MCTS, Expectimax, the arena, self-play) speaks only this API.

Design points (``docs/design.md`` §1-4, §10-12):

* ``State.apply`` is a template method: it checks that the game is not over and that the
  action is legal, raising :class:`IllegalMoveError` naming the move and the reason, then
  calls the game's ``_apply``. Games implement only the narrow in-progress case.
* Chance is explicit. At a chance node ``current_player()`` is :data:`CHANCE`, and the
  chance event is an ordinary action: ``sample_chance(rng)`` draws one and ``apply`` plays
  it. Games whose chance events are enumerable also return ``chance_outcomes()``.
* Hidden information is first-class. Agents receive ``observation(player)`` (a frozen,
  comparable value holding only what that player can see, including the public history),
  never the state. ``Game.sample_state(observation, rng)`` builds a full state consistent
  with an observation: it is the determinization primitive, and because it starts from the
  observation alone it cannot leak hidden cards.
* Actions are hashable values: ints in a fixed action space for mahjong, yuxi and the grid
  games (with ``legal_action_mask``), typed ``Move`` values for Dou Dizhu.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, Self, runtime_checkable

import numpy as np
from typing_extensions import TypeVar

from paiju.core.errors import IllegalMoveError
from paiju.core.rng import SeedLike, as_generator

Action = Hashable

# The action type of one game: ``int`` for the fixed action spaces, Move/Bid/Deal for Dou Dizhu.
# It defaults to Any so that game-agnostic code (the arena, MCTS) can write a bare ``State``
# or ``Agent`` for "of any game", while each game's classes say their own type precisely.
ActionT = TypeVar("ActionT", bound=Hashable, default=Any)

CHANCE = -1
"""``current_player()`` at a chance node."""
TERMINAL = -4
"""``current_player()`` once the game is over."""


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game, checked up front by algorithms that need them."""

    name: str
    num_players: int
    has_chance: bool
    perfect_information: bool
    utility_range: tuple[float, float]
    max_game_length: int
    rules_version: str
    num_distinct_actions: int | None = None
    """Size of the fixed action space, or None when actions are typed values (Dou Dizhu)."""
    constant_sum: float | None = 0.0
    """Sum of ``returns()`` at every terminal state, or None if it varies."""


class State(ABC, Generic[ActionT]):
    """One position of a game. Mutable: ``apply`` changes it in place; ``clone`` copies it.

    Each game's state subclasses ``State[ItsAction]`` and redeclares ``game`` with its own
    game class, so the type checker knows the rules object its methods read.
    """

    game: Game[ActionT]

    # ---- what games implement -------------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """Seat to act, :data:`CHANCE` at a chance node, :data:`TERMINAL` when over."""

    @abstractmethod
    def _legal_actions(self) -> list[ActionT]:
        """Legal actions of the player to act (in-progress, non-chance states only)."""

    @abstractmethod
    def _apply(self, action: ActionT) -> None:
        """Play an action already known to be legal (or a chance outcome)."""

    @abstractmethod
    def clone(self) -> Self:
        """A fully independent copy: nothing applied to either affects the other."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Per-seat returns; all zeros until the game is over."""

    @abstractmethod
    def observation(self, player: int) -> Any:
        """What ``player`` can see: a frozen, comparable value with no hidden information."""

    @abstractmethod
    def sample_chance(self, rng: np.random.Generator) -> ActionT:
        """Draw the outcome of the chance event at this chance node."""

    @abstractmethod
    def action_to_string(self, action: ActionT) -> str:
        """Human-readable notation of an action in this state."""

    def _is_legal(self, action: ActionT) -> bool:
        """Legality test; games override it with something cheaper than a list scan."""
        return action in self._legal_actions()

    def _check_chance_outcome(self, action: ActionT) -> None:  # an optional hook: no-op by default
        """Raise :class:`IllegalMoveError` if ``action`` is not a possible chance outcome."""

    def chance_outcomes(self) -> list[tuple[ActionT, float]] | None:
        """Enumerated chance outcomes with probabilities, or None when too many to list."""
        return None

    # ---- the template: invariants enforced here for every game ------------------------------
    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def legal_actions(self) -> list[ActionT]:
        """Legal actions of the player to act; empty at terminal states."""
        if self.is_terminal():
            return []
        if self.is_chance_node():
            outcomes = self.chance_outcomes()
            return [] if outcomes is None else [a for a, _ in outcomes]
        return self._legal_actions()

    def legal_action_mask(self) -> np.ndarray:
        """Boolean mask over the fixed action space (games with ``num_distinct_actions``)."""
        n = self.game.info.num_distinct_actions
        if n is None:
            raise TypeError(f"{self.game.info.name} has typed actions, not a fixed action space")
        mask = np.zeros(n, dtype=bool)
        mask[np.asarray(self.legal_actions(), dtype=np.intp)] = True
        return mask

    def apply(self, action: ActionT) -> None:
        """Play ``action``; raises :class:`IllegalMoveError` naming the move and the reason."""
        player = self.current_player()
        if player == TERMINAL:
            raise IllegalMoveError(
                f"cannot play {self._describe(action)}: the {self.game.info.name} game is over"
            )
        if player == CHANCE:
            self._check_chance_outcome(action)
        elif not self._is_legal(action):
            raise IllegalMoveError(self._illegal_reason(action))
        self._apply(action)

    def apply_trusted(self, action: ActionT) -> None:
        """Play ``action`` without checking it: the fast path of rollouts and searches.

        Only for an action taken from this state's :meth:`legal_actions` (or a chance outcome
        it can produce); anything else corrupts the state. Code outside a game calls this, never
        the game's own ``_apply``.
        """
        self._apply(action)

    def apply_chance(self, rng: SeedLike) -> ActionT:
        """Sample and play the chance outcome at this node; returns it."""
        if not self.is_chance_node():
            raise IllegalMoveError("apply_chance called at a decision node, not a chance node")
        action = self.sample_chance(as_generator(rng))
        self._apply(action)
        return action

    def resample_from_infostate(self, player: int, rng: SeedLike) -> State[ActionT]:
        """A state ``player`` cannot tell from this one, hidden cards drawn afresh."""
        return self.game.sample_state(self.observation(player), as_generator(rng))

    # ---- helpers ---------------------------------------------------------------------------
    def _describe(self, action: ActionT) -> str:
        try:
            return repr(self.action_to_string(action))
        except Exception:  # the action may not even be well-formed for this game
            return repr(action)

    def _illegal_reason(self, action: ActionT) -> str:
        """Message for an illegal action; games override to say *why* it is illegal."""
        move = self._describe(action)
        return f"illegal move {move} for player {self.current_player()}: not among the legal moves"


@runtime_checkable
class Game(Protocol[ActionT]):
    """A game: its static info, how to start it, and how to determinize an observation."""

    info: GameInfo

    def new_initial_state(self) -> State[ActionT]:
        """The state before any chance event (a chance node when the game has chance)."""
        ...

    def sample_state(self, observation: Any, rng: np.random.Generator) -> State[ActionT]:
        """A full state consistent with ``observation`` (hidden parts drawn with ``rng``)."""
        ...


@runtime_checkable
class Agent(Protocol[ActionT]):
    """A player: chooses an action from its own observation and the legal actions.

    Agents are seeded when built and never see the state object, only observations.
    """

    name: str

    def act(self, observation: Any, legal_actions: Sequence[ActionT]) -> ActionT: ...


def play_out_chance(state: State, rng: SeedLike) -> State:
    """Resolve chance nodes with ``rng`` until a decision node or the end; returns ``state``."""
    gen = as_generator(rng)
    while state.is_chance_node():
        state.apply_chance(gen)
    return state


def new_game(game: Game, seed: SeedLike) -> State:
    """A new state of ``game`` with its opening chance events drawn from ``seed``."""
    return play_out_chance(game.new_initial_state(), seed)


# ---- playing games ---------------------------------------------------------------------------
BeforeMove = Callable[["State[Any]", int], None]
"""``before_move(state, player)``: called before every move (chance included) is chosen."""
AfterMove = Callable[["State[Any]", "PlayedGame[Any]"], None]
"""``after_move(state, played)``: called after every move is applied; the move is the last of
``played`` (``played.players[-1]``, ``played.actions[-1]``, and with notation ``played.moves[-1]``)."""


@dataclass
class PlayedGame(Generic[ActionT]):
    """A game played by :func:`play_game`: the final state and every move, in order.

    ``players[i]`` is the seat that made move ``i`` (:data:`CHANCE` for a chance event),
    ``move_ms[i]`` the wall-clock milliseconds of its ``act`` call (0 for chance), and
    ``moves[i]`` its notation (filled with ``notation=True``; the text is taken before the
    move is applied, as a record writes it). ``error`` is set only with ``stop_on_error``:
    what stopped the game (the state is then as the failing move left it).
    """

    state: State[ActionT]
    actions: list[ActionT] = field(default_factory=list)
    players: list[int] = field(default_factory=list)
    move_ms: list[float] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    error: Exception | None = None


def move_limit(game: Game[Any]) -> int:
    """Moves after which a game that has not ended is a rules bug (generous: 4x the longest)."""
    return game.info.max_game_length * 4 + 100


class _Game(Generic[ActionT]):
    """One game in progress: the step logic shared by :func:`play_game` and
    :func:`play_games_lockstep`, so there is one loop however games are stepped."""

    def __init__(
        self, game: Game[ActionT], agents: Sequence[Agent[ActionT]], seed: SeedLike,
        start: State[ActionT] | None, max_moves: int | None, notation: bool,
        before_move: BeforeMove | None, after_move: AfterMove | None,
        stop_on_error: bool,
    ) -> None:
        if len(agents) != game.info.num_players:
            raise ValueError(f"{game.info.name} needs {game.info.num_players} agents, got {len(agents)}")
        self.game, self.agents, self.gen = game, agents, as_generator(seed)
        self.played = PlayedGame(start if start is not None else game.new_initial_state())
        self.limit = max_moves if max_moves is not None else move_limit(game)
        self.notation, self.before, self.after, self.stop = notation, before_move, after_move, stop_on_error

    @property
    def finished(self) -> bool:
        return self.played.error is not None or self.played.state.is_terminal()

    def advance(self) -> tuple[int, Any, list[ActionT]] | None:
        """Play chance events; return the seat to decide with its observation and legal
        moves, or None when the game is over."""
        played = self.played
        state, before = played.state, self.before
        while played.error is None and not state.is_terminal():
            player = state.current_player()
            if before is not None:
                before(state, player)
            if player != CHANCE:
                return player, state.observation(player), state.legal_actions()
            self.apply(player, state.sample_chance(self.gen), 0.0)
        return None

    def apply(self, player: int, action: ActionT, ms: float) -> None:
        played = self.played
        state = played.state
        if self.notation:
            played.moves.append(state.action_to_string(action))
        played.actions.append(action)
        played.players.append(player)
        played.move_ms.append(ms)
        try:
            if player == CHANCE:
                state.apply_trusted(action)  # drawn by the game's own sampler: legal by construction
            else:
                state.apply(action)
            if len(played.actions) > self.limit:
                raise RuntimeError(f"{self.game.info.name} game exceeded {self.limit} moves: a rules bug")
        except IllegalMoveError as err:
            name = getattr(self.agents[player], "name", "?")
            self._fail(IllegalMoveError(f"agent {name} in seat {player}: {err}"))
            return
        except Exception as err:
            self._fail(err)
            return
        if self.after is not None:
            self.after(state, played)

    def _fail(self, err: Exception) -> None:
        if not self.stop:
            raise err from None
        self.played.error = err

    def decide(self, player: int, observation: Any, legal: list[ActionT]) -> None:
        """The seated agent's move, timed, then applied."""
        start = time.perf_counter()
        try:
            action = self.agents[player].act(observation, legal)
        except Exception as err:
            if not self.stop:
                raise
            self.played.error = err
            return
        self.apply(player, action, (time.perf_counter() - start) * 1000.0)


def play_game(
    game: Game[ActionT],
    agents: Sequence[Agent[ActionT]],
    seed: SeedLike,
    *,
    start: State[ActionT] | None = None,
    max_moves: int | None = None,
    notation: bool = False,
    before_move: BeforeMove | None = None,
    after_move: AfterMove | None = None,
    stop_on_error: bool = False,
) -> PlayedGame[ActionT]:
    """Play one game: chance from ``seed``, each seat's decisions by ``agents[seat]``.

    The one loop for a single game (the arena, self-play, audits, the CLI transcripts all
    call it). It starts from ``game.new_initial_state()`` or from ``start`` (e.g. a state
    set up from a given deal) and plays to the end, checking every move; an illegal move
    raises :class:`IllegalMoveError` naming the agent and seat, and a game longer than
    ``max_moves`` (default :func:`move_limit`) raises, since it is a rules bug. Hooks:
    ``notation`` records each move's text; ``before_move`` / ``after_move`` see the state
    around every move (transcripts, per-move checks); decision times are always kept.
    With ``stop_on_error`` an exception of an agent or of the engine ends the game and is
    returned in :attr:`PlayedGame.error` instead of raised (what an audit wants).
    """
    run = _Game(game, agents, seed, start, max_moves, notation, before_move, after_move, stop_on_error)
    while (pending := run.advance()) is not None:
        run.decide(*pending)
    return run.played


def play_games_lockstep(
    game: Game[ActionT],
    lineups: Sequence[Sequence[Agent[ActionT]]],
    seeds: Sequence[SeedLike],
    *,
    max_moves: int | None = None,
    notation: bool = False,
) -> list[PlayedGame[ActionT]]:
    """Play many games together, one decision of each waiting game per round, so that an
    agent seated in several of them is asked for all its moves at once.

    An agent with ``act_batch(observations, legal_actions_lists) -> actions`` (e.g. a network
    agent: one forward pass for the whole batch) gets one call per round with the decisions
    of every game in which it is to move, in game order; other agents are asked one by one.
    Game ``i`` is played from ``seeds[i]`` by ``lineups[i]``; when no agent object is shared
    between games, each game equals :func:`play_game` with the same seed and agents.
    """
    if len(lineups) != len(seeds):
        raise ValueError(f"{len(lineups)} line-ups for {len(seeds)} seeds")
    runs = [_Game(game, agents, seed, None, max_moves, notation, None, None, False)
            for agents, seed in zip(lineups, seeds, strict=True)]
    while True:
        waiting: dict[int, list[tuple[_Game[ActionT], int, Any, list[ActionT]]]] = {}
        for run in runs:
            pending = run.advance()
            if pending is not None:
                player = pending[0]
                waiting.setdefault(id(run.agents[player]), []).append((run, *pending))
        if not waiting:
            return [run.played for run in runs]
        for group in waiting.values():
            agent = group[0][0].agents[group[0][1]]
            batch = getattr(agent, "act_batch", None)
            if batch is None:
                for run, player, observation, legal in group:
                    run.decide(player, observation, legal)
                continue
            start = time.perf_counter()
            actions = batch([g[2] for g in group], [g[3] for g in group])
            ms = (time.perf_counter() - start) * 1000.0 / len(group)
            for (run, player, _, _), action in zip(group, actions, strict=True):
                run.apply(player, action, ms)
