"""Games played in the web app: one human seat against AI seats, replayable from seed + moves.

Why this shape: the server must survive a restart without pickling engine states, and an
illegal move must never leave a game half-changed. So a :class:`GameSession` is defined by
its *creation parameters* (game options, the human seat, the AI specs, a seed) plus the list
of decision actions played so far, each written as a short token. Chance (the deal, the wall,
yuxi's swap offers and die) is drawn from one generator seeded from the game seed and
consumed in order, so replaying the tokens rebuilds exactly the same state
(:meth:`GameSession.restore`). The engines' ``State.apply`` checks legality before changing
anything, so a refused move (``IllegalMoveError``) leaves the state as it was.

Each game kind (:class:`DouDizhuSession`, :class:`MahjongSession`, :class:`YuxiSession`)
knows how to read a human move from the request, encode/decode tokens, and describe the
table *as the human seat sees it* (``view``): only that seat's observation plus what is
public, never the AI's hidden cards until the game is over.
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, Self, TypeVar

import numpy as np

from paiju.core import deadline
from paiju.core.agents import AgentRegistry, check_can_play, parse_agent_spec
from paiju.core.errors import (
    ConfigError,
    DeadlineExceeded,
    IllegalMoveError,
    InvalidNotationError,
    PaijuError,
    WorkCancelled,
)
from paiju.core.protocol import Action, Agent, GameInfo, State
from paiju.core.rng import as_generator, derive_seed

if TYPE_CHECKING:  # the game modules load on first use, not with the web app
    from paiju.doudizhu.game import DouDizhuAction, DouDizhuGame, DouDizhuState
    from paiju.mahjong.game import MahjongGame, MahjongState
    from paiju.yuxi.game import YuxiGame, YuxiState

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


# ---- AI moves with a time limit -------------------------------------------------------------
@dataclass
class AIRunner:
    """Runs AI decisions in a thread pool, each with a time limit that really stops it.

    Why threads: ``act`` is plain Python over an observation; running it off the event loop
    keeps the server responsive. Each decision runs under a
    :class:`~paiju.core.deadline.CancelToken` whose deadline is ``time_limit_s`` after it was
    submitted (time spent queued counts), and every search loop checks it, so a decision over
    the limit stops within one check interval and its worker is free again; the caller stops
    waiting at the limit and the seat's *fallback* agent (the game's fast heuristic) moves
    instead, in the caller's thread. The overrunning agent object is then retired and rebuilt
    (its search stopped half-way). :meth:`shutdown` cancels every decision in flight.

    Agents without a search (``inline=True``: random, greedy, rule) are as fast as the
    fallback itself, so they run in the caller's thread: a flood of expensive searches filling
    the pool never delays them.
    """

    time_limit_s: float = 10.0
    workers: int = 4
    request_budget_s: float | None = None
    """AI thinking time of one request (one human move, or a new game), all its decisions
    together (default: 3 x ``time_limit_s``); past it the fallback plays the rest at once, so a
    mahjong turn with many AI claim decisions cannot hold a request for minutes."""
    _pool: ThreadPoolExecutor = field(init=False, repr=False)
    _tokens: deadline.TokenGroup = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False)
    _pending: int = field(init=False, default=0)
    _busy: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        if not self.time_limit_s > 0:
            raise ConfigError(f"AI time limit must be positive, got {self.time_limit_s}")
        if self.workers < 1:
            raise ConfigError(f"AI workers must be at least 1, got {self.workers}")
        if self.request_budget_s is None:
            self.request_budget_s = 3 * self.time_limit_s
        if not self.request_budget_s > 0:
            raise ConfigError(f"AI request budget must be positive, got {self.request_budget_s}")
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="paiju-ai")
        self._tokens = deadline.TokenGroup()
        self._lock = threading.Lock()

    def decide(
        self,
        agent: Agent[DecisionT],
        observation: Any,
        legal: Sequence[DecisionT],
        *,
        inline: bool = False,
        seconds: float | None = None,
    ) -> tuple[DecisionT | None, str]:
        """The agent's action, or None and why not (over the time limit, stopped, or it failed).

        ``seconds`` (at most ``time_limit_s``) shortens the limit: what is left of the request's
        budget."""
        limit = self.time_limit_s if seconds is None else min(self.time_limit_s, seconds)
        if self._tokens.closed:
            return None, "the server is stopping"
        if inline:
            try:
                return agent.act(observation, legal), ""
            except Exception as err:  # a failing AI must not stop the game: its fallback moves
                return None, f"AI error {type(err).__name__}: {err}"
        if not limit > 0:
            return None, f"this request's AI time budget of {self.request_budget_s:g}s is used up"
        with self._tokens.track(limit, what="the AI's decision") as token:
            try:
                future = self._submit(token, agent, observation, legal)
            except RuntimeError:  # the pool is shut down: the server is stopping
                return None, "the server is stopping"
            try:
                return future.result(timeout=limit), ""
            except (FutureTimeout, DeadlineExceeded):
                why = f"time limit {self.time_limit_s:g}s" if limit == self.time_limit_s else (
                    f"this request's AI time budget of {self.request_budget_s:g}s is used up"
                )
                token.cancel(why)  # the search stops at its next check
                future.cancel()  # still queued behind other slow decisions: never start it
                return None, why
            except WorkCancelled:
                return None, token.reason or "stopped"
            except Exception as err:  # a failing AI must not stop the game: its fallback moves
                return None, f"AI error {type(err).__name__}: {err}"

    def _submit(
        self,
        token: deadline.CancelToken,
        agent: Agent[DecisionT],
        observation: Any,
        legal: Sequence[DecisionT],
    ) -> Future[DecisionT]:
        def work() -> DecisionT:
            with self._lock:
                self._busy += 1
            try:
                return deadline.run(token, agent.act, observation, legal)
            finally:
                with self._lock:
                    self._busy -= 1

        def finished(_: Future[DecisionT]) -> None:  # also called when a queued decision is cancelled
            with self._lock:
                self._pending -= 1

        with self._lock:
            self._pending += 1
        try:
            future = self._pool.submit(work)
        except RuntimeError:
            with self._lock:
                self._pending -= 1
            raise
        future.add_done_callback(finished)
        return future

    def status(self) -> dict[str, int]:
        """Workers, decisions computing now, decisions waiting for a worker."""
        with self._lock:
            return {"workers": self.workers, "busy": self._busy, "queued": self._pending - self._busy}

    def shutdown(self, reason: str = "the server is stopping") -> None:
        """Stop every decision in flight (they end at their next check) and refuse new ones."""
        self._tokens.close(reason)
        self._pool.shutdown(wait=False, cancel_futures=True)


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
    """A game of one human seat against AI seats (see the module docstring).

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
        self._after_play()
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

    def _after_play(self) -> None:
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


# ---- Dou Dizhu ---------------------------------------------------------------------------------
class DouDizhuSession(GameSession["DouDizhuState", "DouDizhuAction"]):
    """Dou Dizhu: the human takes one seat, two AIs the others."""

    game: DouDizhuGame

    kind = "doudizhu"
    fallback_spec = "greedy"
    inline_agents = frozenset({"random", "greedy", "rule"})

    @classmethod
    def build_game(cls, params: dict[str, Any]) -> DouDizhuGame:
        from paiju.doudizhu.game import DouDizhuGame

        return DouDizhuGame(scoring=params.get("scoring", "competition"), bidding=bool(params.get("bidding")))

    def encode(self, action: DouDizhuAction) -> str:
        from paiju.doudizhu.game import Bid, Deal

        if isinstance(action, Bid):
            return f"bid {action.value}"
        if isinstance(action, Deal):
            raise TypeError("a deal is a chance outcome, not a decision to encode")
        if action.is_pass:
            return "pass"
        return f"{action}:{action.type.name.lower()}"

    def decode(self, token: str) -> DouDizhuAction:
        from paiju.doudizhu.game import Bid
        from paiju.doudizhu.moves import PASS, Move

        if token.startswith("bid "):
            return Bid.parse(token)
        if token == "pass":
            return PASS
        cards, _, kind = token.partition(":")
        return Move.parse(cards, kind or None)

    def parse_human(self, move: dict[str, Any]) -> DouDizhuAction:
        from paiju.doudizhu.moves import Move

        text = (move.get("move") or "").strip()
        kind = move.get("type")
        if not text and move.get("action") is not None:
            raise InvalidNotationError(
                "Dou Dizhu moves are notation: give 'move' (e.g. '33', 'pass'), not 'action'"
            )
        if not text:
            raise InvalidNotationError("empty move: give the cards (e.g. '33'), 'pass' or a bid")
        if kind:
            return Move.parse(text, kind)
        return self.state.parse_move(text)

    def describe(self, seat: int, action: DouDizhuAction, before: DouDizhuState) -> tuple[str, str]:
        from paiju.doudizhu.moves import Move

        if not isinstance(action, Move):  # a bid
            return str(action), ""
        return str(action), action.describe()

    def roles(self) -> list[str]:
        st = self.state
        return [st.role_name(s) for s in range(3)]

    def view(self) -> dict[str, Any]:
        from paiju.doudizhu.cards import RANKS

        st: Any = self.state
        obs = st.observation(self.human)
        out = self.base_view()
        out.update(
            phase=obs.phase,
            landlord=obs.landlord,
            roles=self.roles(),
            scoring=self.params.get("scoring", "competition"),
            bidding=bool(self.params.get("bidding")),
            hand=str(obs.hand),
            cards=[RANKS[r] for r in obs.hand.ranks()] if obs.hand else [],
            hand_sizes=list(obs.hand_sizes),
            kitty=str(obs.kitty) if obs.kitty is not None else None,
            to_beat=None
            if obs.to_beat is None
            else {"cards": str(obs.to_beat), "label": obs.to_beat.describe()},
            trick_owner=obs.trick_owner,
            bombs=obs.bombs,
            bids=list(obs.bids),
            legal=[],
        )
        if self.human_to_move():
            out["legal"] = [self._legal_item(a) for a in st.legal_actions()]
        if self.over:
            record = st.record()
            facts = record.facts()
            from paiju.doudizhu.game import rescore
            from paiju.doudizhu.scoring import SCORING_RULES

            out["result"] = {
                "winner": st.winner,
                "winner_role": st.role_name(st.winner),
                "landlord_won": facts.landlord_won,
                "returns": st.returns(),
                "your_return": st.returns()[self.human],
                "rule": st.game.rule.name,
                "landlord_score": st.game.rule.landlord_score(facts),
                "facts": dataclasses.asdict(facts),
                "under_each_rule": {name: rescore(record, name) for name in SCORING_RULES},
                "hands_left": [str(h) for h in st.hands],
                "deal": str(st.deal),
            }
        return out

    def _legal_item(self, action: DouDizhuAction) -> dict[str, Any]:
        from paiju.doudizhu.game import Bid

        if isinstance(action, Bid):
            return {"move": f"bid {action.value}", "label": str(action), "type": "bid", "cards": ""}
        m: Any = action
        if m.is_pass:
            return {"move": "pass", "label": "pass", "type": "pass", "cards": ""}
        return {"move": str(m), "label": m.describe(), "type": m.type.name.lower(), "cards": str(m)}

    def hint(self) -> dict[str, Any]:
        """The human's current hand split four ways: the paper's baseline, the two exact splits
        and the learned (tagger) split, the last two marking the groups the other lacks."""
        from paiju.doudizhu.split import split

        hand = self.state.observation(self.human).hand
        if not hand:
            return {"hand": "", "splits": []}
        splits = []
        for title, method, objective in (
            ("baseline (heuristic, 40 priority orders)", "heuristic", "groups"),
            ("exact: fewest groups", "exact", "groups"),
            ("exact: fewest plays (kickers attached)", "exact", "plays"),
        ):
            s = split(hand, method, objective)
            splits.append({"title": title, "method": method, "objective": objective, **s.to_dict()})
        # the server loads the tagger at start-up (torch takes seconds to import); until it has,
        # or where none is installed, the hint answers at once with the three splits above. Not
        # even imported here: an import would wait on the start-up thread's import of torch.
        # (a module still being imported is in sys.modules without its functions yet)
        tagger = sys.modules.get("paiju.doudizhu.tagger.model")
        loaded = getattr(tagger, "loaded_shipped_model", None)
        tag = getattr(tagger, "tag_hands", None)
        model = loaded() if loaded is not None else None
        if model is None or tag is None:
            return {"hand": str(hand), "splits": splits, "learned": "not loaded"}
        learned = tag(model, [hand])[0].split
        exact_plays = split(hand, "exact", "plays")
        learned_groups, exact_groups = set(learned), set(exact_plays)
        splits[2]["differs"] = [g not in learned_groups for g in exact_plays]
        splits.append({"title": "learned: how winners split (BiLSTM-CRF tagger)", "method": "tagger",
                       "objective": "groups", **learned.to_dict(),
                       "differs": [g not in exact_groups for g in learned]})
        return {"hand": str(hand), "splits": splits}


# ---- mahjong -----------------------------------------------------------------------------------
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


class MahjongSession(IntActionSession["MahjongState"]):
    """Taiwan 16-tile mahjong, one hand: the human takes one seat, three AIs the others."""

    game: MahjongGame

    kind = "mahjong"
    fallback_spec = "greedy"

    ADVICE_TOP = 5
    """Most candidate discards the Expectimax hint lists."""
    ADVICE_DEPTH = 2
    """Deepest hint search: depth 2 took a median 0.37 s on the 2-core VM (docs/web.md); depth 3
    takes tens of seconds (``paiju mahjong advise --help``), past the analysis time limit."""

    def __init__(self, game_id: str, params: dict[str, Any], seed: int) -> None:
        self._advice: dict[tuple[int, int], list[dict[str, Any]]] = {}
        """The latest Expectimax hint by (ply, depth): asking twice costs one search."""
        super().__init__(game_id, params, seed)

    @classmethod
    def build_game(cls, params: dict[str, Any]) -> MahjongGame:
        from paiju.mahjong.game import MahjongGame

        # the flowers are the one rule a player may turn on here (older games have no key: off)
        return MahjongGame(mode="hand", flowers=bool(params.get("flowers", False)))

    move_example = "'5m', 'pung', 'chow 345m', 'pass'"

    def parse_notation(self, text: str) -> int:
        return self.state.parse_action(text)

    def sealed(self, before: MahjongState) -> bool:
        from paiju.mahjong.game import Phase

        return before.phase in (Phase.CLAIM, Phase.ROB)

    def _after_play(self) -> None:
        from paiju.mahjong.game import Phase

        if self.state.phase not in (Phase.CLAIM, Phase.ROB):
            for e in self.transcript:
                e.hidden_until_resolved = False

    def describe(self, seat: int, action: int, before: MahjongState) -> tuple[str, str]:
        from paiju.mahjong.game import ADDED_KONG, CONCEALED_KONG

        a = int(action)
        public_kongs = self.game.config.concealed_kong_public
        if CONCEALED_KONG <= a < ADDED_KONG and seat != self.human and not public_kongs:
            return "concealed kong", ""
        return before.action_to_string(action), ""

    def view(self) -> dict[str, Any]:
        from paiju.mahjong.game import Phase
        from paiju.mahjong.tiles import flower_name, tile_name

        st: Any = self.state
        obs = st.observation(self.human)
        out = self.base_view()
        hand = [tile_name(k) for k in range(len(obs.hand)) for _ in range(obs.hand[k])]
        # once the hand is over the engine has already passed the deal on: show this hand's dealer
        dealer = st.last_result.dealer if self.over and st.last_result is not None else obs.dealer
        out.update(
            phase=Phase(obs.phase).name.lower(),
            to_act=obs.to_act,
            turn=obs.turn,
            dealer=dealer,
            winds=["東南西北"[(s - dealer) % 4] for s in range(4)],
            hand=hand,
            drawn=tile_name(obs.drawn) if obs.drawn >= 0 else None,
            melds=[[str(m) if m.tile >= 0 else "concealed kong (face down)" for m in ms] for ms in obs.melds],
            meld_tiles=[[_mj_meld(m) for m in ms] for ms in obs.melds],
            flowers=[[flower_name(f) for f in fs] for fs in obs.flowers],
            rules={"flowers": self.game.config.flowers},
            rivers=[
                [{"tile": tile_name(k), "claimed": by >= 0} for k, by in river] for river in obs.discards
            ],
            hand_sizes=list(obs.hand_sizes),
            live_tiles=obs.live_tiles,
            window_tile=tile_name(obs.window_tile) if obs.window_tile >= 0 else None,
            window_from=obs.window_from if obs.window_tile >= 0 else None,
            legal=[],
            hint=self.hint(),
        )
        if self.human_to_move():
            out["legal"] = [
                {"action": int(a), "label": st.action_to_string(a), "kind": _mj_kind(int(a))}
                for a in st.legal_actions()
            ]
        if self.over:
            out["result"] = _mj_result(st.last_result, st)
        return out

    def hint(self) -> dict[str, Any]:
        """Shanten and effective tiles of the human's concealed hand, counted over unseen tiles."""
        from paiju.mahjong.shanten import discard_options, effective_counts, shanten_counts
        from paiju.mahjong.tiles import tile_name

        obs: Any = self.state.observation(self.human)
        counts = list(obs.hand)
        n = sum(counts)
        if n == 0 or n % 3 == 0:
            return {}
        unseen = obs.unseen_counts()
        out: dict[str, Any] = {"tiles": n, "shanten": shanten_counts(counts)}
        eff = effective_counts(counts, unseen)
        out["effective"] = {tile_name(k): v for k, v in eff.items()}
        out["effective_total"] = sum(eff.values())
        if n % 3 == 2:
            out["discards"] = [
                {
                    "tile": tile_name(o.discard),
                    "shanten": o.shanten,
                    "total": o.total,
                    "effective": {tile_name(k): v for k, v in o.effective.items()},
                }
                for o in discard_options(counts, unseen)[:6]
            ]
        return out

    def advice_position(self) -> tuple[int, Any]:
        """(ply, the human's observation) while the human has a discard due: what the
        Expectimax hint (:meth:`advice`) is computed from, taken under the game's lock."""
        from paiju.mahjong.game import Phase

        obs: Any = self.state.observation(self.human)
        if not self.human_to_move() or obs.phase != Phase.TURN or sum(obs.hand) % 3 != 2:
            now = "the hand is over" if self.over else "it is not your turn to discard"
            raise IllegalMoveError(f"the Expectimax hint is for your turn with a discard due; {now}")
        return self.ply, obs

    def advice(self, ply: int, observation: Any, depth: int) -> list[dict[str, Any]]:
        """Every distinct discard with its Expectimax value, effective tiles and win probability,
        best first: :func:`paiju.mahjong.score_hand.advise_position` (the ``paiju mahjong
        advise`` search) on the human's own observation. Runs outside the game's lock."""
        from paiju.mahjong.score_hand import advise_position
        from paiju.mahjong.tiles import Tile

        key = (ply, depth)
        rows = self._advice.get(key)
        if rows is None:
            rows = [
                {**a.as_dict(), "face": Tile(a.discard).chinese}
                for a in advise_position(observation, depth=depth)
            ]
            self._advice = {key: rows}  # only the latest position is worth keeping
        return rows


def _mj_meld(m: Any) -> dict[str, Any]:
    """A meld for the page: what it is and its tiles (none for another's face-down kong)."""
    from paiju.mahjong.tiles import tile_name

    if m.tile < 0:
        return {"label": "concealed kong", "tiles": []}
    return {"label": str(m).rsplit(" ", 1)[0], "tiles": [tile_name(k) for k in m.kinds()]}


def _mj_kind(a: int) -> str:
    from paiju.mahjong.game import CONCEALED_KONG, PASS, WIN

    if a < CONCEALED_KONG:
        return "discard"
    if a < WIN:
        return "kong"
    if a == WIN:
        return "win"
    if a == PASS:
        return "pass"
    return "claim"


def _mj_result(result: Any, st: Any) -> dict[str, Any]:
    from paiju.mahjong.scoring import PATTERN_ENGLISH
    from paiju.mahjong.tiles import format_counts, tile_name

    if result is None:
        return {"exhaustive": True, "winners": [], "returns": st.returns()}
    wins = []
    for i, w in enumerate(result.winners):
        score = result.scores[i]
        wins.append(
            {
                "winner": w,
                "tai": score.tai,
                "patterns": [
                    {"name": name, "english": PATTERN_ENGLISH.get(name, name), "tai": tai}
                    for name, tai in score.patterns
                ],
                "reading": score.reading,
                "hand": format_counts(result.winning_hands[i]) if i < len(result.winning_hands) else "",
                "payments": [
                    {
                        "payer": p.payer,
                        "tai": p.tai,
                        "amount": p.amount,
                        "lines": [
                            {"name": name, "english": PATTERN_ENGLISH.get(name, name), "tai": tai}
                            for name, tai in p.lines
                        ],
                    }
                    for p in result.payments
                    if p.winner == w
                ],
            }
        )
    return {
        "exhaustive": result.exhaustive,
        "winners": list(result.winners),
        "self_draw": result.self_draw,
        "robbed_kong": result.robbed_kong,
        "discarder": result.discarder,
        "winning_tile": tile_name(result.winning_tile) if result.winning_tile >= 0 else None,
        "wins": wins,
        "deltas": list(result.deltas),
        "returns": st.returns(),
    }


# ---- yuxi --------------------------------------------------------------------------------------
class YuxiSession(IntActionSession["YuxiState"]):
    """yuxi: the human against one AI on any board size."""

    game: YuxiGame

    kind = "yuxi"
    fallback_spec = "greedy"

    @classmethod
    def build_game(cls, params: dict[str, Any]) -> YuxiGame:
        from paiju.yuxi.game import YuxiGame

        options: dict[str, Any] = {
            "board": params.get("board", "4x4"),
            "die_bonus": bool(params.get("die_bonus", True)),
            "swaps": bool(params.get("swaps", True)),
        }
        if params.get("decks"):
            options["decks"] = tuple(params["decks"])
        # a designer's card / deck tables, sent as TOML text (bounded by the request model)
        for part in ("cards_toml", "decks_toml"):
            if params.get(part) is not None:
                options[part] = str(params[part])
        return YuxiGame(**options)

    move_example = "'play reef_crab@b2', 'end', 'keep'"

    def __init__(self, game_id: str, params: dict[str, Any], seed: int) -> None:
        from paiju.yuxi.events import EventLog

        super().__init__(game_id, params, seed)
        self.state.log = EventLog()  # the transcript says what each move did

    def effects(self) -> list[str]:
        from paiju.yuxi.events import describe

        st = self.state
        if st.log is None:
            return []
        table = self.game.table
        return describe(
            st.log.take(),
            card_name=lambda c: table.card(c).name,
            cell_name=st.shape.cell_name,
            seat_name=lambda s: "you" if s == self.human else "AI",
            source_name=self._source_name,
        )

    def _source_name(self, source: str) -> str:
        """``reef_crab deploy`` -> ``寄居蟹 Reef Crab deploy``: the card's name as the board shows it."""
        key, _, rest = source.partition(" ")
        try:
            name = self.game.table.card(key).name
        except (KeyError, ValueError, PaijuError):
            return source  # thunder, fog, the weather
        return f"{name} {rest}".strip()

    def record_row(self, game_index: int, run_id: str) -> dict[str, Any]:
        """The shared record row, its ``extra`` also naming the card table's hash (the
        identity of the table the moves mean something on)."""
        from paiju.yuxi.cards import table_fingerprint

        row = super().record_row(game_index, run_id)
        extra = json.loads(row["extra"])
        extra["table_hash"] = table_fingerprint(self.game.table)
        row["extra"] = json.dumps(extra, default=str)
        return row

    def parse_notation(self, text: str) -> int:
        return self.state.parse_action(text)

    def describe(self, seat: int, action: int, before: YuxiState) -> tuple[str, str]:
        kind, _, _ = self.game.actions.decode(int(action))
        if seat != self.human and kind == "swap":
            return "swaps a hand card for an offered one", ""
        if seat != self.human and kind == "keep":
            return "keeps the hand (no swap)", ""
        return before.action_to_string(action), ""

    def _card(self, cid: int) -> dict[str, Any]:
        return self.game.table.card(cid).summary()

    def view(self) -> dict[str, Any]:
        from paiju.yuxi.cards import table_fingerprint
        from paiju.yuxi.effects import WEATHER_NAMES

        st: Any = self.state
        obs = st.observation(self.human)
        shape = st.shape
        out = self.base_view()
        cells = []
        for i, cell in enumerate(obs.cells):
            item: dict[str, Any] = {"cell": shape.cell_name(i), "weather": WEATHER_NAMES[obs.weather[i]]}
            if cell is not None:
                cid, owner, power, base, armour, coins, cd = cell
                item.update(
                    card=self._card(cid),
                    owner=owner,
                    points=power,
                    base=base,
                    armour=armour,
                    coins=coins,
                    cooldown=cd,
                )
            cells.append(item)
        out.update(
            phase=obs.phase,
            board={"name": shape.name, "width": shape.width, "height": shape.height},
            decks=list(self.game.config.decks),
            table_hash=table_fingerprint(self.game.table),
            cells=cells,
            hand=[{**self._card(c), "price": st.price(self.human, c)} for c in obs.hand],
            offer=[self._card(c) for c in obs.offer],
            purses=list(obs.purses),
            scores=list(obs.scores),
            deck_sizes=list(obs.deck_sizes),
            opponent_hidden=obs.opponent_hidden,
            opponent_voids=[self._card(c) for c in obs.opponent_voids],
            out_of_cards=list(obs.out),
            bonus=obs.bonus,
            legal=[],
        )
        if self.human_to_move():
            items = []
            for a in st.legal_actions():
                kind, x, y = self.game.actions.decode(int(a))
                item = {"action": int(a), "label": st.action_to_string(a), "kind": kind}
                if kind == "play":
                    item["card"] = x
                    item["cell"] = shape.cell_name(y) if y < shape.cells else None
                if kind == "swap":
                    # a person reads card names, not the notation's keys
                    give, take = self.game.table.card(y).name, self.game.table.card(st.offer[x]).name
                    item.update(give=give, take=take, text=f"give {give}, take {take}")
                items.append(item)
            out["legal"] = items
        if self.over:
            final = st.final_scores()
            out["result"] = {
                "final_scores": list(final),
                "die_bonus": st.bonus,
                "returns": st.returns(),
                "winner": 0 if final[0] > final[1] else 1 if final[1] > final[0] else None,
            }
        return out


SESSION_KINDS: dict[str, type[GameSession]] = {
    cls.kind: cls for cls in (DouDizhuSession, MahjongSession, YuxiSession)
}
"""Game kinds the web app serves, by registry name."""
