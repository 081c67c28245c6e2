"""What every game's session shares: creation parameters + move tokens, replay, the AI loop.

A :class:`GameSession` is what :mod:`paiju.web.store` saves and rebuilds and what the routes
play on; each game's module (:mod:`paiju.web.sessions.doudizhu`, ``.mahjong``, ``.yuxi``)
subclasses it with the game's notation, tokens and view. See :mod:`paiju.web.sessions` for
why a game is its parameters plus its tokens.
"""

from __future__ import annotations

import json
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

import numpy as np

from paiju.core.agents import AgentRegistry, check_can_play, parse_agent_spec
from paiju.core.errors import IllegalMoveError, InvalidNotationError, PaijuError
from paiju.core.protocol import Action, Agent, GameInfo, State
from paiju.core.rng import as_generator, derive_seed
from paiju.web.sessions.runner import AIRunner

MAX_SEED = 2**63 - 1

StateT = TypeVar("StateT", bound=State)
StateT_co = TypeVar("StateT_co", bound=State, covariant=True)
DecisionT = TypeVar("DecisionT", bound=Action)
"""The type of a session's decisions (chance outcomes aside): Move/Bid, or an action id."""


class GameOf(Protocol[StateT_co]):
    """The :class:`~paiju.core.protocol.Game` protocol with the game's own state type kept."""

    info: GameInfo

    def new_initial_state(self) -> StateT_co: ...

    def sample_state(self, observation: Any, rng: np.random.Generator) -> StateT_co: ...


@dataclass
class Entry:
    """One line of the transcript."""

    ply: int
    seat: int
    text: str
    ai: bool
    note: str = ""
    hidden_until_resolved: bool = False
    """A sealed claim decision (mahjong) stays hidden from the human until its window closes."""
    detail: str = ""
    effects: list[str] = field(default_factory=list)
    """What the decision did, in sentences (yuxi: who took damage, died and why, ...)."""


class GameSession(ABC, Generic[StateT, DecisionT]):
    """A game of one human seat against AI seats (see :mod:`paiju.web.sessions` for its shape).

    Generic in the game's state class and its decisions' type, so each game's session reads
    its own state and game (``self.state.phase``, ``self.game.config``) with their types.
    """

    game: GameOf[StateT]
    state: StateT

    kind: ClassVar[str]
    """The game's registry name (``doudizhu``, ``mahjong``, ``yuxi``)."""
    fallback_spec: ClassVar[str]
    """The fast agent that moves when an AI overruns its time limit."""
    inline_agents: ClassVar[frozenset[str]] = frozenset({"random", "greedy"})
    """Agents without a search (as fast as the fallback): they decide in the request's thread."""

    def __init__(self, game_id: str, params: dict[str, Any], seed: int) -> None:
        self.id = game_id
        self.params = params
        self.seed = int(seed)
        self.human: int = int(params["seat"])
        self.specs: list[str | None] = list(params["agents"])
        self.game = self.build_game(params)
        self.registry = self.load_registry()
        self._chance = as_generator(derive_seed(self.seed, 0))
        self._agents: dict[int, Agent[DecisionT]] = {}
        self._retired = 0
        self.tokens: list[str] = []
        """Decision actions in order (human and AI), as tokens (see :meth:`encode`)."""
        self.history: list[tuple[int, str]] = []
        """Every action including chance, as (player, notation): the record's move list."""
        self.actions: list[Action] = []
        """Every action including chance, as played (what ``record_fields`` reads)."""
        self.transcript: list[Entry] = []
        self.state = self.game.new_initial_state()
        self.created = time.time()
        self._resolve_chance()

    # ---- what each game provides ------------------------------------------------------------
    @classmethod
    @abstractmethod
    def build_game(cls, params: dict[str, Any]) -> GameOf[StateT]: ...

    @classmethod
    def load_registry(cls) -> AgentRegistry:
        from paiju.core.registry import load_agents

        return load_agents(cls.kind)

    @classmethod
    def warm_up(cls) -> None:
        """Load what the game's first request would wait for (the server's start-up does
        this): its engine and agents; games with slower first uses add theirs."""
        cls.load_registry()
        cls.build_game({"seat": 0, "agents": []})

    @abstractmethod
    def encode(self, action: DecisionT) -> str:
        """A token for a decision action, readable back by :meth:`decode` in the same state."""

    @abstractmethod
    def decode(self, token: str) -> DecisionT:
        """The action of a stored token in the current state."""

    @abstractmethod
    def parse_human(self, move: dict[str, Any]) -> DecisionT:
        """The human's move from the request body (raises InvalidNotationError/IllegalMoveError)."""

    @abstractmethod
    def view(self) -> dict[str, Any]:
        """The table as the human seat sees it (JSON-ready)."""

    def describe(self, seat: int, action: DecisionT, before: StateT) -> tuple[str, str]:
        """Transcript text of a decision (public form) and an optional detail."""
        return before.action_to_string(action), ""

    def hint(self) -> dict[str, Any]:
        """Advice for the human (split hint, shanten...); games override."""
        return {}

    # ---- building and replaying ---------------------------------------------------------------
    @classmethod
    def validate_specs(cls, specs: Sequence[str | None], params: dict[str, Any]) -> None:
        """Check every AI spec against the game's registry and the game ``params`` ask for
        (ConfigError naming the bad one)."""
        from paiju.core.registry import load_agents

        registry = load_agents(cls.kind)
        agents = []
        for spec in specs:
            if spec is None:
                continue
            # a request may tune its own agent, not the server process or its files
            registry.check_shared(registry.resolve(spec), spec)
            # built once here, so an agent that cannot exist (a learned agent whose model is not
            # shipped, or not for this game's board) is refused when the game is asked for
            agents.append(registry.make(spec, seed=0))
        if any(hasattr(a, "check_game") for a in agents):  # the game is built only if asked
            check_can_play(agents, cls.build_game(params))

    def agent(self, seat: int) -> Agent[DecisionT]:
        agent = self._agents.get(seat)
        if agent is None:
            spec = self.specs[seat]
            assert spec is not None
            agent = self.registry.make(spec, seed=derive_seed(self.seed, 1, seat, self._retired))
            self._agents[seat] = agent
        return agent

    def _resolve_chance(self) -> None:
        state = self.state
        while state.is_chance_node():
            action = state.sample_chance(self._chance)
            self.history.append((-1, self._chance_text(state, action)))
            state.apply(action)
            self.actions.append(action)

    def _chance_text(self, state: State, action: Action) -> str:
        try:
            return state.action_to_string(action)
        except Exception:  # notation of a chance outcome is informative only
            return repr(action)

    def _play(self, action: DecisionT, *, ai: bool, note: str = "") -> None:
        state = self.state
        seat = state.current_player()
        before = state.clone()
        state.apply(action)  # raises IllegalMoveError before changing anything
        ply = len(self.tokens)
        self.tokens.append(self.encode_in(before, action))
        self.history.append((seat, before.action_to_string(action)))
        self.actions.append(action)
        text, detail = self.describe(seat, action, before)
        entry = Entry(ply, seat, text, ai, note, hidden_until_resolved=self.sealed(before), detail=detail)
        self.transcript.append(entry)
        self.after_play()
        self._resolve_chance()
        entry.effects = self.effects()  # the chance after a decision (yuxi's die) is part of it

    def effects(self) -> list[str]:
        """What the last decision and the chance after it did (games that record it override)."""
        return []

    def encode_in(self, before: StateT, action: DecisionT) -> str:
        """Encode ``action`` as played in ``before`` (tokens may depend on the position)."""
        return self.encode(action)

    def sealed(self, before: StateT) -> bool:
        """Whether a decision in ``before`` is sealed from the other seats for now."""
        return False

    def after_play(self) -> None:
        """Hook after each decision (mahjong unseals decisions when a window closes)."""

    @classmethod
    def restore(cls, game_id: str, params: dict[str, Any], seed: int, tokens: Sequence[str]) -> Self:
        """Rebuild a game from its creation parameters and its move tokens (server restart)."""
        session = cls(game_id, params, seed)
        for token in tokens:
            action = session.decode(token)
            session._play(action, ai=session.state.current_player() != session.human)
        return session

    # ---- playing ------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.state.is_terminal()

    @property
    def ply(self) -> int:
        return len(self.tokens)

    def human_to_move(self) -> bool:
        return not self.over and self.state.current_player() == self.human

    def play_human(self, move: dict[str, Any], ply: int | None = None) -> None:
        """Apply the human's move; the game is unchanged if it is refused."""
        if self.over:
            raise IllegalMoveError(f"the {self.kind} game is over: no more moves")
        if ply is not None and ply != self.ply:
            raise IllegalMoveError(
                f"stale move: it was made for ply {ply}, but the game is at ply {self.ply} (reload the game)"
            )
        to_move = self.state.current_player()
        if to_move != self.human:
            raise IllegalMoveError(
                f"it is not your turn: seat {to_move} is to move, you are seat {self.human}"
            )
        self._play(self.parse_human(move), ai=False)

    def check_human(self, move: dict[str, Any]) -> dict[str, Any]:
        """Whether the human's ``move`` would be accepted now (played on a copy of the state):
        ``{"ply", "legal": True, "text"}`` or ``{"ply", "legal": False, "reason"}``, the reason
        being the error a move request would get."""
        answer: dict[str, Any] = {"ply": self.ply, "move": move.get("move")}
        try:
            if self.over:
                raise IllegalMoveError(f"the {self.kind} game is over: no more moves")
            if self.state.current_player() != self.human:
                raise IllegalMoveError(f"it is not your turn: seat {self.state.current_player()} is to move")
            action = self.parse_human(move)
            self.state.clone().apply(action)  # played on a copy: the game itself is untouched
        except PaijuError as err:  # what the move route answers with a 4xx
            return {**answer, "legal": False, "reason": str(err)}
        return {**answer, "legal": True, "text": self.describe(self.human, action, self.state)[0]}

    def run_ai(self, runner: AIRunner, max_decisions: int = 2000) -> int:
        """Play AI decisions until the human is to move or the game is over; returns how many."""
        done = 0
        started = time.monotonic()
        while not self.over and self.state.current_player() != self.human:
            if done >= max_decisions:
                raise RuntimeError(f"{self.kind} game {self.id}: AI made {done} decisions in a row")
            seat = self.state.current_player()
            legal: list[DecisionT] = self.state.legal_actions()  # a decision node's: decisions
            obs = self.state.observation(seat)
            agent = self.agent(seat)
            spec = self.specs[seat]
            inline = spec is not None and parse_agent_spec(spec)[0] in self.inline_agents
            budget_left = (runner.request_budget_s or math.inf) - (time.monotonic() - started)
            # two steps: unpacking at once, mypy would infer the agent type from the targets
            decided = runner.decide(agent, obs, legal, inline=inline, seconds=budget_left)
            action, problem = decided
            note = ""
            if action is None:
                # the overrunning (or failed) agent may still be busy in its thread: retire it
                self._retired += 1
                self._agents.pop(seat, None)
                fallback = self.registry.make(self.fallback_spec, seed=derive_seed(self.seed, 2, seat, done))
                action = fallback.act(obs, legal)
                note = f"{problem}: {self.fallback_spec} moved instead"
            self._play(action, ai=True, note=note)
            done += 1
        return done

    # ---- views ----------------------------------------------------------------------------------
    def public_transcript(self) -> list[dict[str, Any]]:
        out = []
        for e in self.transcript:
            if e.hidden_until_resolved and e.seat != self.human:
                out.append(
                    {"ply": e.ply, "seat": e.seat, "text": "(sealed decision)", "ai": e.ai, "note": ""}
                )
                continue
            out.append(
                {"ply": e.ply, "seat": e.seat, "text": e.text, "ai": e.ai, "note": e.note, "detail": e.detail,
                 "effects": e.effects}
            )
        return out

    def base_view(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "seat": self.human,
            "agents": [s if s is not None else "you" for s in self.specs],
            "params": self.params,
            "seed": self.seed,
            "ply": self.ply,
            "current_player": self.state.current_player(),
            "your_turn": self.human_to_move(),
            "over": self.over,
            "transcript": self.public_transcript(),
        }

    def record_row(self, game_index: int, run_id: str) -> dict[str, Any]:
        """The finished game as a row of :data:`paiju.core.records.SCHEMA`."""
        from paiju import __version__
        from paiju.core.records import record_fields
        from paiju.core.registry import get_entry

        fields = record_fields(self.game, self.state, self.actions)
        entry = get_entry(self.kind)
        roles = fields.roles if fields.roles is not None else list(entry.roles)
        deal = fields.deal
        if deal is None:
            deal = " ".join(text for player, text in self.history if player == -1)[:2000] or None
        extra = dict(fields.extra)
        extra["web"] = {"game_id": self.id, "human_seat": self.human, "params": self.params}
        return {
            "run_id": run_id,
            "game_index": game_index,
            "deal_index": game_index,
            "lineup": 0,
            "game": self.kind,
            "rules_version": self.game.info.rules_version,
            "arena_format": "web",
            "seed": self.seed,
            "deal": deal,
            "dealer_seat": fields.dealer_seat,
            "agents": [s if s is not None else "human" for s in self.specs],
            "seat_agents": list(range(len(self.specs))),
            "roles": roles,
            "moves": [text for _, text in self.history],
            "move_players": [p for p, _ in self.history],
            "move_ms": None,
            "returns": [float(x) for x in self.state.returns()],
            "score": fields.score,
            "scoring_rule": fields.scoring_rule,
            "paiju_version": __version__,
            "extra": json.dumps(extra, default=str),
        }


# ---- games with integer actions (mahjong, yuxi) -------------------------------------------------
class IntActionSession(GameSession[StateT, int]):
    """Sessions of games with a fixed integer action space (mahjong, yuxi).

    Actions are stored as their ids; a human may send an id or the game's move notation,
    which the state's ``parse_action`` reads.
    """

    move_example = ""
    """Notation examples quoted when a request names no move."""

    def encode(self, action: int) -> str:
        return str(int(action))  # numpy ints too

    def decode(self, token: str) -> int:
        try:
            return int(token)
        except ValueError:
            raise InvalidNotationError(f"stored {self.kind} action {token!r} is not an action id") from None

    def parse_human(self, move: dict[str, Any]) -> int:
        if move.get("action") is not None:
            return int(move["action"])
        text = (move.get("move") or "").strip()
        if not text:
            raise InvalidNotationError(f"give an action id or a move like {self.move_example}")
        return self.parse_notation(text)

    @abstractmethod
    def parse_notation(self, text: str) -> int:
        """The action id of a move in the game's notation, in the current state."""


def session_kinds(*classes: type[GameSession]) -> dict[str, type[GameSession]]:
    """The sessions by their game's registry name (:attr:`GameSession.kind`), in the order
    given; two sessions for one game are a mistake in the list, refused here."""
    kinds: dict[str, type[GameSession]] = {}
    for cls in classes:
        if cls.kind in kinds:
            twice = f"{kinds[cls.kind].__name__} and {cls.__name__}"
            raise ValueError(f"two web sessions for game {cls.kind!r}: {twice}")
        kinds[cls.kind] = cls
    return kinds
