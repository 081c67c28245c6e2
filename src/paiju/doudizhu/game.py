"""The Dou Dizhu game on the core protocol: :class:`DouDizhuGame`, :class:`DouDizhuState`.

Seats and roles. Seats are 0, 1, 2 and play in that order. Without bidding (the paper's
setting, the default) seat 0 is the landlord, seat 1 farmer 1 (the landlord's next player,
下家) and seat 2 farmer 2 (上家). With bidding the landlord is whoever wins the bid; roles
follow from it (farmer 1 = landlord + 1 mod 3) and the landlord leads.

Chance. The deal is one chance action, a :class:`~paiju.doudizhu.cards.Deal` drawn by the
paper's algorithm (``docs/doudizhu.md`` §4). Without bidding its hands are dealt to seats 0, 1, 2 as written
(landlord first). With bidding the same Deal is read as: seat ``i`` holds ``hands[i]``,
except that the three kitty cards inside ``hands[0]`` lie face down until the bidding ends
and then go to the landlord. If all three seats pass the bid, the cards are dealt again (a
new chance node).

Actions are :class:`~paiju.doudizhu.moves.Move` values (with :data:`PASS`) in play and
:class:`Bid` values while bidding. Returns follow the configured scoring rule: the
landlord's score ``s`` for the landlord and ``-s/2`` for each farmer (zero-sum).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeGuard, cast

import numpy as np

from paiju.core.errors import (
    AmbiguousMoveError,
    ConfigError,
    CorruptRecordError,
    IllegalMoveError,
    InvalidNotationError,
)
from paiju.core.protocol import CHANCE, TERMINAL, GameInfo, State
from paiju.doudizhu.cards import MAX_COUNT, NUM_RANKS, Deal, Hand
from paiju.doudizhu.movegen import generate, illegal_reason, is_legal
from paiju.doudizhu.moves import BOMB_TYPES, PASS, Move, MoveType, counts_of, key_of
from paiju.doudizhu.scoring import DEFAULT_SCORING, ScoreFacts, ScoringRule, get_rule, seat_returns

ROLE_NAMES: Final = ("landlord", "farmer 1", "farmer 2")
"""Role names by role index (0 = landlord, 1 = its next player 下家, 2 = its previous 上家)."""
MAX_PLAYS: Final = 160
"""Bound on play-phase decisions: 54 cards, each play takes >= 1 card, <= 2 passes after it."""

_DEAL, _BIDDING, _PLAY, _OVER = 0, 1, 2, 3
_PASS = MoveType.PASS  # hot-path alias (docs/design.md, "One source per fact")
_PHASE_NAMES: Final = ("deal", "bidding", "play", "over")
_FULL_KEY: Final = key_of(MAX_COUNT)
_HAND_CACHE: dict[int, Hand] = {}
"""Hand values by packed key (hands recur in every observation of a game and of a search)."""


class Bid:
    """A bidding decision: 0 = no bid (pass), 1..3 = bid that many points. Hashable value."""

    __slots__ = ("value",)
    value: int

    def __init__(self, value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3:
            raise InvalidNotationError(f"a bid is 0 (no bid) or 1..3, not {value!r}")
        object.__setattr__(self, "value", value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Bid is immutable")

    @classmethod
    def parse(cls, text: str) -> Bid:
        """``"0"``/``"pass"``/``"no bid"`` or ``"1"``..``"3"`` (optionally ``"bid 2"``)."""
        t = text.strip().lower().removeprefix("bid").strip()
        if t in ("pass", "no bid", "no", "0"):
            return BIDS[0]
        if t in ("1", "2", "3"):
            return BIDS[int(t)]
        raise InvalidNotationError(f"bid {text!r}: write 0/pass or 1, 2, 3")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bid) and other.value == self.value

    def __hash__(self) -> int:
        return hash(("bid", self.value))

    def __str__(self) -> str:
        return "no bid" if self.value == 0 else f"bid {self.value}"

    def __repr__(self) -> str:
        return f"Bid({self.value})"


BIDS: Final = tuple(Bid(v) for v in range(4))


@dataclass(frozen=True)
class DouDizhuConfig:
    """Rules options of a Dou Dizhu game."""

    scoring: str = DEFAULT_SCORING
    """``"competition"`` (the default: the paper's ±max(1, bombs)) or ``"casual"``
    (bid × 2^bombs × spring)."""
    bidding: bool = False
    """False: seat 0 is the landlord (the paper's setting). True: a 1-2-3 bid decides."""
    wing_rule: str = "douzero"
    """``"douzero"`` (any kickers not in the body) or ``"rlcard"`` (no rocket, bomb or
    adjacent trio as wings; no rocket as the two solos of a four)."""

    @property
    def strict_wings(self) -> bool:
        """RLCard's stricter wing rule is in force (what move generation's ``strict`` means)."""
        return self.wing_rule == "rlcard"

    def __post_init__(self) -> None:
        get_rule(self.scoring)
        if self.wing_rule not in ("douzero", "rlcard"):
            raise ConfigError(f"unknown wing_rule {self.wing_rule!r}; use 'douzero' or 'rlcard'")
        if not isinstance(self.bidding, bool):
            raise ConfigError(f"bidding must be True or False, not {self.bidding!r}")


@dataclass(frozen=True)
class DouDizhuObservation:
    """What one seat sees: its own cards and everything public. Frozen and comparable.

    ``history`` is every play since the deal as ``(seat, move)`` (passes included), ``bids``
    the bidding decisions of this deal in seat order from seat 0.
    """

    player: int
    phase: str
    hand: Hand
    landlord: int | None
    kitty: Hand | None
    """The landlord's three open cards, once the landlord is known (None before, or if unknown)."""
    hand_sizes: tuple[int, int, int]
    history: tuple[tuple[int, Move], ...]
    bids: tuple[int, ...]
    to_beat: Move | None
    """The move to beat, or None on a free lead."""
    trick_owner: int | None
    current_player: int
    bombs: int
    redeals: int = 0
    config: DouDizhuConfig = DouDizhuConfig()
    """The rules of the game (public): agents read the wing rule, scoring and bidding here,
    never from defaults of their own."""

    def role(self, seat: int | None = None) -> int | None:
        """Role index of ``seat`` (default: the observer): 0 landlord, 1 farmer 1, 2 farmer 2."""
        if self.landlord is None:
            return None
        return ((self.player if seat is None else seat) - self.landlord) % 3

    @property
    def kitty_in_hand(self) -> Hand:
        """The kitty cards the landlord is still known to hold (kitty minus what it played)."""
        if self.kitty is None or self.landlord is None:
            return Hand()
        played = [0] * NUM_RANKS
        for seat, move in self.history:
            if seat == self.landlord:
                for r, n in enumerate(move.counts):
                    played[r] += n
        return Hand._trusted(tuple(max(0, k - p) for k, p in zip(self.kitty.counts, played, strict=True)))

    def played_cards(self) -> Hand:
        """Every card played so far (public)."""
        total = 0
        for _, move in self.history:
            total += move.key
        return Hand._trusted(counts_of(total))

    def unseen(self) -> Hand:
        """Cards this seat cannot see: the other two hands together (and the kitty while bidding)."""
        return Hand._trusted(
            counts_of(_FULL_KEY - key_of(self.hand.counts) - key_of(self.played_cards().counts))
        )


@dataclass(frozen=True)
class GameRecord:
    """A finished (or partial) game: enough to replay it and to rescore it under any rule."""

    deal: Deal
    """The chance outcome (see the module docstring for how bidding reads it)."""
    plays: tuple[tuple[int, Move], ...]
    landlord: int = 0
    bids: tuple[int, ...] = ()
    config: DouDizhuConfig = field(default_factory=DouDizhuConfig)

    @property
    def winner(self) -> int | None:
        """Seat that emptied its hand, None if the record is unfinished."""
        if not self.plays:
            return None
        seat, _ = self.plays[-1]
        played = sum(m.size for s, m in self.plays if s == seat)
        start = 20 if seat == self.landlord else 17
        return seat if played == start else None

    def facts(self) -> ScoreFacts:
        """The facts a scoring rule needs; raises :class:`CorruptRecordError` if unfinished."""
        winner = self.winner
        if winner is None:
            raise CorruptRecordError("game record is not finished: nobody emptied their hand")
        landlord_won = winner == self.landlord
        bombs = sum(1 for _, m in self.plays if m.type in BOMB_TYPES)
        farmer_played = any(not m.is_pass for s, m in self.plays if s != self.landlord)
        landlord_plays = sum(1 for s, m in self.plays if s == self.landlord and not m.is_pass)
        bid = max(self.bids) if self.bids else 1
        return ScoreFacts(
            landlord_won=landlord_won,
            bombs=bombs,
            bid=bid,
            spring=landlord_won and not farmer_played,
            anti_spring=(not landlord_won) and landlord_plays == 1,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (strings and ints only)."""
        return {
            "deal": str(self.deal),
            "landlord": self.landlord,
            "bids": list(self.bids),
            "plays": [
                [s, str(m) if m.top and m.lead else f"{m}:{m.type.name.lower()}"] for s, m in self.plays
            ],
            "scoring": self.config.scoring,
            "bidding": self.config.bidding,
            "wing_rule": self.config.wing_rule,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Inverse of :meth:`to_dict`; :class:`CorruptRecordError` naming what is wrong."""
        try:
            config = DouDizhuConfig(
                scoring=data.get("scoring", DEFAULT_SCORING),
                bidding=bool(data.get("bidding", False)),
                wing_rule=data.get("wing_rule", "douzero"),
            )
            plays = []
            for seat, text in data["plays"]:
                cards, _, kind = str(text).partition(":")
                plays.append((int(seat), Move.parse(cards, kind or None)))
            return cls(
                deal=Deal.parse(data["deal"]),
                plays=tuple(plays),
                landlord=int(data.get("landlord", 0)),
                bids=tuple(int(b) for b in data.get("bids", ())),
                config=config,
            )
        except (KeyError, TypeError, ValueError) as err:
            raise CorruptRecordError(f"bad Dou Dizhu game record: {err}") from None

    def replay(self) -> DouDizhuState:
        """Rebuild the state by replaying the record (checks every move's legality)."""
        game = DouDizhuGame(self.config)
        state = game.new_initial_state()
        try:
            state.apply(self.deal)
            bids = list(self.bids)
            while state.phase == "bidding":
                if not bids:
                    raise CorruptRecordError(f"record ends in the bidding: bids {list(self.bids)}")
                state.apply(BIDS[bids.pop(0)])
            for seat, move in self.plays:
                if state.current_player() != seat:
                    raise CorruptRecordError(f"record has seat {seat} playing {move} out of turn")
                state.apply(move)
        except IllegalMoveError as err:
            raise CorruptRecordError(f"record does not replay: {err}") from None
        return state


def rescore(record: GameRecord, rule: str | ScoringRule) -> list[float]:
    """Per-seat returns of a finished game under another scoring rule."""
    return seat_returns(record.landlord, get_rule(rule).landlord_score(record.facts()))


class DouDizhuGame:
    """Dou Dizhu (three players, 54 cards) on the core :class:`~paiju.core.protocol.Game` protocol."""

    def __init__(self, config: DouDizhuConfig | None = None, **options: Any) -> None:
        if config is None:
            config = DouDizhuConfig(**options)
        elif options:
            raise ConfigError("pass either a DouDizhuConfig or keyword options, not both")
        self.config = config
        self.rule = get_rule(config.scoring)
        self.strict = config.strict_wings
        bound = self.rule.max_abs_score(3 if config.bidding else 1)
        self.info = GameInfo(
            name="doudizhu",
            num_players=3,
            has_chance=True,
            perfect_information=False,
            utility_range=(-bound, bound),
            max_game_length=MAX_PLAYS + 4,
            rules_version=f"1;{config.scoring};bidding={config.bidding};wings={config.wing_rule}",
            num_distinct_actions=None,
            constant_sum=0.0,
        )

    def new_initial_state(self) -> DouDizhuState:
        return DouDizhuState(self)

    def new_state_from_deal(self, deal: Deal | str) -> DouDizhuState:
        """A state right after ``deal`` (notation or value): bidding or the landlord's lead."""
        state = DouDizhuState(self)
        state.apply(Deal.parse(deal) if isinstance(deal, str) else deal)
        return state

    def sample_state(self, observation: DouDizhuObservation, rng: np.random.Generator) -> DouDizhuState:
        """A state consistent with ``observation``: the unseen cards dealt at random.

        The other seats get random cards of the right counts from the unseen ones; the
        landlord (when it is not the observer) always gets the open kitty cards it has not
        played yet. The state is rebuilt by replaying the public bids and plays, so every
        derived field (trick, passes, bombs) matches.
        """
        if not isinstance(observation, DouDizhuObservation):
            raise TypeError(f"expected a DouDizhuObservation, got {type(observation).__name__}")
        me = observation.player
        state = DouDizhuState(self)
        state._redeals = observation.redeals
        if observation.phase == "deal":
            return state
        own = list(observation.hand.counts)
        unseen = list(observation.unseen().counts)
        # current hands of the others (and, while bidding, the hidden kitty)
        current: list[list[int]] = [[0] * NUM_RANKS for _ in range(3)]
        current[me] = own
        others = [s for s in range(3) if s != me]
        kitty_counts: list[int] | None = None
        if observation.phase == "bidding":
            pool = _cards_list(unseen)
            order = rng.permutation(len(pool))
            sizes = [17, 17, 3]
            chunks = _split(pool, order, sizes)
            current[others[0]], current[others[1]], kitty_counts = chunks
        else:
            forced = [0] * NUM_RANKS
            landlord = observation.landlord
            assert landlord is not None
            if landlord != me:
                forced = list(observation.kitty_in_hand.counts)
            rest = [u - f for u, f in zip(unseen, forced, strict=True)]
            pool = _cards_list(rest)
            order = rng.permutation(len(pool))
            need = [observation.hand_sizes[s] - (sum(forced) if s == landlord else 0) for s in others]
            a, b = _split(pool, order, need)
            for s, part in zip(others, (a, b), strict=True):
                current[s] = [x + (f if s == landlord else 0) for x, f in zip(part, forced, strict=True)]
        # initial hands = current + what each seat played
        initial = [list(h) for h in current]
        for seat, move in observation.history:
            for r, n in enumerate(move.counts):
                initial[seat][r] += n
        kitty: Hand | None
        if observation.phase == "bidding":
            assert kitty_counts is not None
            kitty = Hand._trusted(tuple(kitty_counts))
            hands = [Hand._trusted(tuple(h)) for h in initial]
            deal = Deal._trusted((hands[0] + kitty, hands[1], hands[2]), kitty)
        else:
            landlord = observation.landlord
            assert landlord is not None
            kitty = observation.kitty
            if self.config.bidding:
                assert kitty is not None
                pre = [Hand._trusted(tuple(h)) for h in initial]
                pre[landlord] = pre[landlord] - kitty
                deal = Deal._trusted((pre[0] + kitty, pre[1], pre[2]), kitty)
            else:
                deal = Deal._trusted(tuple(Hand._trusted(tuple(h)) for h in initial), kitty)
        state._apply(deal)
        for bid in observation.bids:
            state._apply(BIDS[bid])
        for _seat, move in observation.history:
            state._apply(move)
        return state

    def __repr__(self) -> str:
        return f"DouDizhuGame({self.config!r})"


def _cards_list(counts: Sequence[int]) -> list[int]:
    return [r for r in range(NUM_RANKS) for _ in range(counts[r])]


def _split(pool: list[int], order: np.ndarray, sizes: Sequence[int]) -> list[list[int]]:
    """Deal ``pool`` (rank per card) in the shuffled ``order`` into count vectors of ``sizes``."""
    if sum(sizes) != len(pool):
        raise ValueError(f"cannot deal {len(pool)} unseen cards into hands of {list(sizes)}")
    out = []
    pos = 0
    for size in sizes:
        c = [0] * NUM_RANKS
        for i in order[pos : pos + size]:
            c[pool[i]] += 1
        out.append(c)
        pos += size
    return out


DouDizhuAction = Move | Bid | Deal
"""An action of the game: a :class:`Move` in play, a :class:`Bid` while bidding, the chance
:class:`Deal` at the start."""


def are_moves(actions: Sequence[object]) -> TypeGuard[Sequence[Move]]:
    """Whether ``actions`` (one position's legal actions) are moves of the play phase.

    The legal actions of a position are all of one kind (all bids or all moves), so the first
    one says which: agents call this to type their play-phase lists without copying them.
    """
    return not actions or isinstance(actions[0], Move)


class DouDizhuState(State[DouDizhuAction]):
    """One Dou Dizhu position. Hands are packed count keys; ``clone`` copies a few lists."""

    game: DouDizhuGame

    __slots__ = (
        "_bid",
        "_bids",
        "_bombs",
        "_deal",
        "_hands",
        "_history",
        "_kitty",
        "_landlord",
        "_owner",
        "_passes",
        "_phase",
        "_player",
        "_redeals",
        "_sizes",
        "_trick",
        "_winner",
        "game",
    )

    def __init__(self, game: DouDizhuGame) -> None:
        self.game = game
        self._phase = _DEAL
        self._deal: Deal | None = None
        self._hands = [0, 0, 0]
        self._sizes = [0, 0, 0]
        self._kitty: Hand | None = None
        self._landlord = -1
        self._bids: list[int] = []
        self._bid = 0
        self._player = CHANCE
        self._trick: Move | None = None
        self._owner = -1
        self._passes = 0
        self._history: list[tuple[int, Move]] = []
        self._bombs = 0
        self._winner = -1
        self._redeals = 0

    # ---- protocol ---------------------------------------------------------------------------
    def current_player(self) -> int:
        return self._player

    def _legal_actions(self) -> list[DouDizhuAction]:
        if self._phase == _BIDDING:
            return [BIDS[0], *BIDS[self._bid + 1 :]]
        # a list of moves is a list of actions; cast, not a copy, because lists are invariant
        return cast("list[DouDizhuAction]", self.legal_moves())

    def _is_legal(self, action: DouDizhuAction) -> bool:
        if self._phase == _BIDDING:
            return isinstance(action, Bid) and (action.value == 0 or action.value > self._bid)
        if not isinstance(action, Move):
            return False
        return is_legal(self._hands[self._player], action, self._trick, strict=self.game.strict)

    def _illegal_reason(self, action: DouDizhuAction) -> str:
        seat = self._player
        if self._phase == _BIDDING:
            if not isinstance(action, Bid):
                return f"seat {seat} must bid (Bid(0..3)) during the bidding, not play {action!r}"
            return f"seat {seat} cannot bid {action.value}: the bid is already {self._bid}"
        if not isinstance(action, Move):
            return f"seat {seat} must play a Move, not {action!r}"
        reason = illegal_reason(self._hands[seat], action, self._trick, strict=self.game.strict)
        return f"illegal move {action} for seat {seat} ({self.role_name(seat)}): {reason}"

    def _check_chance_outcome(self, action: DouDizhuAction) -> None:
        if not isinstance(action, Deal):
            raise IllegalMoveError(f"the chance outcome of a Dou Dizhu deal is a Deal, not {action!r}")
        if self.game.config.bidding and action.kitty is None:
            raise IllegalMoveError(f"with bidding the deal must name its kitty: {action}")

    # Any, not DouDizhuAction: the phase says which action it is (apply() checked it), and
    # this hot path of every rollout takes no isinstance test or cast call to say so.
    def _apply(self, action: Any) -> None:
        phase = self._phase
        if phase == _PLAY:
            move: Move = action
            p = self._player
            if move.type == _PASS:
                self._history.append((p, move))
                self._passes += 1
                if self._passes == 2:
                    self._trick = None
                    self._passes = 0
            else:
                self._hands[p] -= move.key
                self._sizes[p] -= move.size
                if move.type in BOMB_TYPES:
                    self._bombs += 1
                self._trick = move
                self._owner = p
                self._passes = 0
                self._history.append((p, move))
                if self._sizes[p] == 0:
                    self._winner = p
                    self._phase = _OVER
                    self._player = TERMINAL
                    return
            self._player = (p + 1) % 3
        elif phase == _BIDDING:
            bid: Bid = action
            self._bids.append(bid.value)
            if bid.value:
                self._bid = bid.value
                self._landlord = self._player
            if bid.value == 3 or len(self._bids) == 3:
                if self._bid == 0:  # everybody passed: deal again
                    self._redeals += 1
                    self._reset_deal()
                    return
                self._start_play(self._landlord)
            else:
                self._player = (self._player + 1) % 3
        elif phase == _DEAL:
            deal: Deal = action
            self._deal = deal
            if self.game.config.bidding:
                assert deal.kitty is not None
                self._hands = [key_of(h.counts) for h in deal.hands]
                self._hands[0] -= key_of(deal.kitty.counts)
                self._sizes = [17, 17, 17]
                self._phase = _BIDDING
                self._player = 0
            else:
                self._hands = [key_of(h.counts) for h in deal.hands]
                self._sizes = [20, 17, 17]
                self._landlord = 0
                self._start_play(0)
        else:
            raise IllegalMoveError("the game is over")

    def _start_play(self, landlord: int) -> None:
        deal = self._deal
        assert deal is not None
        self._landlord = landlord
        self._kitty = deal.kitty
        if self.game.config.bidding:
            assert deal.kitty is not None
            self._hands[landlord] += key_of(deal.kitty.counts)
            self._sizes[landlord] += 3
        self._phase = _PLAY
        self._player = landlord

    def _reset_deal(self) -> None:
        self._phase = _DEAL
        self._deal = None
        self._hands = [0, 0, 0]
        self._sizes = [0, 0, 0]
        self._bids = []
        self._bid = 0
        self._landlord = -1
        self._player = CHANCE

    def clone(self) -> DouDizhuState:
        c = object.__new__(DouDizhuState)
        c.game = self.game
        c._phase = self._phase
        c._deal = self._deal
        c._hands = self._hands[:]
        c._sizes = self._sizes[:]
        c._kitty = self._kitty
        c._landlord = self._landlord
        c._bids = self._bids[:]
        c._bid = self._bid
        c._player = self._player
        c._trick = self._trick
        c._owner = self._owner
        c._passes = self._passes
        c._history = self._history[:]
        c._bombs = self._bombs
        c._winner = self._winner
        c._redeals = self._redeals
        return c

    def returns(self) -> list[float]:
        if self._phase != _OVER:
            return [0.0, 0.0, 0.0]
        return seat_returns(self._landlord, self.game.rule.landlord_score(self.score_facts()))

    def observation(self, player: int) -> DouDizhuObservation:
        if not 0 <= player < 3:
            raise ValueError(f"Dou Dizhu seats are 0, 1, 2, not {player}")
        phase = self._phase
        key = self._hands[player]
        hand = _HAND_CACHE.get(key)
        if hand is None:
            if len(_HAND_CACHE) > 100_000:
                _HAND_CACHE.clear()
            hand = _HAND_CACHE[key] = Hand._trusted(counts_of(key))
        sizes = self._sizes
        # the frozen dataclass's own __init__ sets 13 fields one by one through
        # object.__setattr__; observations are built at every step, so fill __dict__ at once
        obs = object.__new__(DouDizhuObservation)
        obs.__dict__.update(
            player=player,
            phase=_PHASE_NAMES[phase],
            hand=hand,
            landlord=self._landlord if self._landlord >= 0 else None,
            kitty=self._kitty if phase >= _PLAY else None,
            hand_sizes=(sizes[0], sizes[1], sizes[2]),
            history=tuple(self._history),
            bids=tuple(self._bids),
            to_beat=self._trick,
            trick_owner=self._owner if self._trick is not None else None,
            current_player=self._player,
            bombs=self._bombs,
            redeals=self._redeals,
            config=self.game.config,
        )
        return obs

    def sample_chance(self, rng: np.random.Generator) -> Deal:
        return Deal.random(rng)

    def action_to_string(self, action: DouDizhuAction) -> str:
        if isinstance(action, Move | Bid | Deal):
            return str(action)
        raise InvalidNotationError(f"{action!r} is not a Dou Dizhu action")

    # ---- engine accessors (for records and tools, not for agents) ----------------------------
    # ---- fast interface for rollouts and searches (no copies, no checks) -----------------------
    @property
    def in_card_play(self) -> bool:
        """The card play is on (not dealing, bidding, or over)."""
        return self._phase == _PLAY

    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to play, pass included when it follows: what
        :meth:`legal_actions` returns during the card play (``in_card_play``), typed as moves."""
        trick = self._trick
        moves = generate(self._hands[self._player], trick, strict=self.game.strict)
        if trick is not None:
            moves.append(PASS)
        return moves

    @property
    def packed_hands(self) -> list[int]:
        """The three hands as packed count keys (:mod:`paiju.doudizhu.moves`), by seat.

        The state's own list, for speed: read it, never modify it.
        """
        return self._hands

    @property
    def hand_sizes(self) -> list[int]:
        """Cards left per seat (the state's own list: read only)."""
        return self._sizes

    @property
    def trick_owner(self) -> int | None:
        """Seat that played the move to beat, None on a free lead."""
        return self._owner if self._trick is not None else None

    @property
    def phase(self) -> str:
        """``"deal"``, ``"bidding"``, ``"play"`` or ``"over"``."""
        return _PHASE_NAMES[self._phase]

    @property
    def landlord(self) -> int | None:
        """The landlord's seat, None while it is not decided."""
        return self._landlord if self._landlord >= 0 else None

    @property
    def hands(self) -> tuple[Hand, Hand, Hand]:
        """Every seat's current cards (hidden information: for engines and records only)."""
        h0, h1, h2 = self._hands
        return Hand._trusted(counts_of(h0)), Hand._trusted(counts_of(h1)), Hand._trusted(counts_of(h2))

    @property
    def deal(self) -> Deal | None:
        return self._deal

    @property
    def to_beat(self) -> Move | None:
        """The move to beat, None on a free lead."""
        return self._trick

    @property
    def history(self) -> tuple[tuple[int, Move], ...]:
        return tuple(self._history)

    @property
    def bombs(self) -> int:
        """Bombs and rockets played so far."""
        return self._bombs

    @property
    def winner(self) -> int | None:
        return self._winner if self._winner >= 0 else None

    def role_name(self, seat: int) -> str:
        if self._landlord < 0:
            return f"seat {seat}"
        return ROLE_NAMES[(seat - self._landlord) % 3]

    def score_facts(self) -> ScoreFacts:
        return self.record().facts()

    def record(self) -> GameRecord:
        """The game so far as a :class:`GameRecord` (rescorable once finished)."""
        if self._deal is None:
            raise CorruptRecordError("no cards dealt yet: nothing to record")
        return GameRecord(
            deal=self._deal,
            plays=tuple(self._history),
            landlord=max(self._landlord, 0),
            bids=tuple(self._bids),
            config=self.game.config,
        )

    def parse_move(self, text: str) -> Move | Bid:
        """Parse notation in this state's context (picks the reading a card set has here)."""
        if self._phase == _BIDDING:
            return Bid.parse(text)
        if text.strip().lower() == "pass":
            return PASS
        trick = self._trick
        if trick is not None and trick.type not in BOMB_TYPES:
            try:
                return Move.parse(text, trick.type)
            except InvalidNotationError:
                pass  # not of the trick's type: maybe a bomb, or simply illegal
        try:
            return Move.parse(text)
        except AmbiguousMoveError:  # out of context: on a free lead the set is the trio chain
            return Move.parse(text, MoveType.TRIO_CHAIN)

    def __str__(self) -> str:
        hands = " ".join(f"[{h}]" for h in self.hands)
        beat = "free lead" if self._trick is None else f"to beat {self._trick}"
        return f"DouDizhuState({self.phase}, {hands}, player {self._player}, {beat})"

    def __repr__(self) -> str:
        return str(self)


__all__ = [
    "BIDS",
    "ROLE_NAMES",
    "Bid",
    "DouDizhuConfig",
    "DouDizhuGame",
    "DouDizhuObservation",
    "DouDizhuState",
    "GameRecord",
    "rescore",
]
