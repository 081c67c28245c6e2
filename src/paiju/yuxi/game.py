"""The yuxi engine: configuration, state, observations, determinization.

yuxi is an original 1-vs-1 card-battle game with the structure of NetEase's 谕戏 (the card
mini-game of 天谕, GDC 2021): players place characters on a shared grid (3×3, 4×4 or 6×4)
and cast spells; cards carry points, armour, coins, cooldowns, titles and triggered
effects; cells carry weather; the higher total of points on the board wins when every hand
is used up. The full rules and every card's text are in ``docs/yuxi-rules.md``.

Engine design points:

* The state is a handful of flat ``list[int]`` (one per board attribute, plus hands, deck
  and grave counts), so :meth:`YuxiState.clone` is a few list copies: search clones
  thousands of times per move.
* Chance is explicit: the opening deal, every swap offer and the end die are chance
  nodes (:mod:`paiju.yuxi.actions`). Decks are multisets, not ordered piles: every card
  that leaves a deck is drawn by an explicit chance event when it leaves, so there is no
  hidden deck order for anyone to know (a determinization never "sees" future offers).
* Observations hold the public board, graves, purses, scores, the player's own hand, deck
  and pending offer, and only the *size* of the opponent's hidden hand (void cards the
  opponent holds were created by public effects and are shown). ``sample_state`` rebuilds
  a full state from an observation alone, drawing the opponent's hand from the cards
  their fixed deck list leaves unaccounted for.
* A turn ends by itself when "end turn" is the only legal action (nothing playable), so
  agents are asked only real decisions. Such a turn is a *skip*, not a pass (rules §3.4,
  since ``yuxi-2``): the player stays in the game until every player still in it has
  skipped in a row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from paiju.core.errors import ConfigError, IllegalMoveError, InvalidNotationError
from paiju.core.protocol import CHANCE, TERMINAL, GameInfo, State
from paiju.yuxi.actions import (
    END_TURN,
    KEEP,
    KIND_END,
    KIND_KEEP,
    KIND_PLAY,
    KIND_SWAP,
    MAX_OFFER,
    N_TARGETS,
    NO_TARGET,
    ActionSpace,
    ChanceOutcome,
    Deal,
    DieRoll,
    Offer,
)
from paiju.yuxi.board import BoardShape, board_shape
from paiju.yuxi.card_types import T_ALLY, T_CELL, T_CHARACTER, T_EMPTY, T_ENEMY, T_NONE, CompiledCard
from paiju.yuxi.cards import (
    CardTable,
    card_table_from_text,
    load_card_table,
    max_voids_per_card,
    table_fingerprint,
)
from paiju.yuxi.effects import (
    EFFECTS,
    EROSION,
    FOG,
    ICE,
    THUNDER,
    EffectFn,
    burn,
    damage,
    discount_of,
    drain,
    halve,
    mint,
    pay,
    resolve_deaths,
)
from paiju.yuxi.invariants import InvariantViolation, check_invariants
from paiju.yuxi.phases import PH_DEAL, PH_DIE, PH_OFFER, PH_OVER, PH_PLAY, PH_SWAP, PHASE_NAMES, Phase
from paiju.yuxi.position import Position

THUNDER_DAMAGE = 2
EROSION_DRAIN = 1
STARTING_PURSE = 2
RULES_VERSION = "yuxi-2"
"""``yuxi-2``: a turn that ends by itself is a skip, not a pass, and weather ticks on the
characters of finished players at the end of every turn (docs/yuxi-rules.md §3.4, §12).
Records of ``yuxi-1`` games do not replay under these rules."""


@dataclass(frozen=True)
class YuxiConfig:
    """A yuxi room: board, the two fixed decks (seat 0 moves first), and the room options.

    ``die_bonus``: the first player adds a die roll (1..6) to the final score (the
    original's rule; a room option turns it off). ``swaps``: the once-per-turn swap of a
    hand card for one of 2 (4 when one hand card is left) deck cards. ``cards_file`` /
    ``decks_file``: a designer's own TOML tables instead of the shipped ones; ``cards_toml`` /
    ``decks_toml``: the same given as TOML text (the web app's way: a client names no server
    file). A table's identity is its hash, :func:`paiju.yuxi.cards.table_fingerprint`.
    """

    board: str = "4x4"
    decks: tuple[str, str] = ("tide_guild", "storm_iron")
    die_bonus: bool = True
    swaps: bool = True
    cards_file: str | None = None
    decks_file: str | None = None
    cards_toml: str | None = None
    decks_toml: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "board", board_shape(str(self.board)).name)
        decks: Any = self.decks
        if isinstance(decks, str):
            decks = [d.strip() for d in decks.split(",")]
        decks = tuple(decks)
        if len(decks) != 2 or not all(isinstance(d, str) and d for d in decks):
            raise ConfigError(f"yuxi needs two deck names (seat 0, seat 1), got {self.decks!r}")
        object.__setattr__(self, "decks", decks)
        for flag in ("die_bonus", "swaps"):
            if not isinstance(getattr(self, flag), bool):
                raise ConfigError(f"yuxi option {flag} must be true or false, got {getattr(self, flag)!r}")
        for part in ("cards", "decks"):
            if getattr(self, f"{part}_file") is not None and getattr(self, f"{part}_toml") is not None:
                raise ConfigError(f"yuxi: give {part}_file or {part}_toml, not both")

    @property
    def shape(self) -> BoardShape:
        return board_shape(self.board)

    def table(self) -> CardTable:
        if self.cards_toml is None and self.decks_toml is None:
            return load_card_table(self.cards_file, self.decks_file)
        if self.cards_file is not None or self.decks_file is not None:
            raise ConfigError("yuxi: card tables as files and as text do not mix; give both one way")
        return card_table_from_text(self.cards_toml, self.decks_toml)


class YuxiGame:
    """The yuxi game for one :class:`YuxiConfig` (keyword options build the config).

    ``check_invariants=True`` runs :func:`paiju.yuxi.invariants.check_invariants` after
    every action (self-play audits; the tests always do). ``check_rules`` (default: the same
    as ``check_invariants``) also runs the independent rules oracle
    (:func:`paiju.yuxi.oracle.check_step`) on every action, comparing the step with what
    docs/yuxi-rules.md derives from the state before it. ``effect_overrides`` replaces
    effect functions by name (used to inject a deliberately buggy effect in tests).
    """

    def __init__(
        self,
        config: YuxiConfig | None = None,
        *,
        check_invariants: bool = False,
        check_rules: bool | None = None,
        effect_overrides: dict[str, EffectFn] | None = None,
        **options: Any,
    ) -> None:
        if config is None:
            try:
                config = YuxiConfig(**options)
            except TypeError as err:
                raise ConfigError(f"bad yuxi option: {err}") from None
        elif options:
            raise ConfigError(f"give either a YuxiConfig or options, not both (options: {sorted(options)})")
        self.config = config
        self.shape = config.shape
        self.table = config.table()
        self.check_invariants = check_invariants
        self.check_rules = check_invariants if check_rules is None else check_rules
        self.effect_trace: list[tuple[str, Any, Any]] = []
        """While the rules are checked: each effect applied in the current step, with the board
        before and after it (the oracle names the first one that differs from the rules)."""
        self.cards: tuple[CompiledCard | None, ...] = (
            self.table.compile(self._traced(effect_overrides or {}))
            if self.check_rules
            else (self.table.compile(effect_overrides) if effect_overrides else self.table.compiled)
        )
        self.effect_overrides = dict(effect_overrides or {})
        self.actions = ActionSpace(self.table.num_ids)
        self.is_void = [False] + [c is not None and c.is_void for c in self.table.cards[1:]]
        self.void_ids = [i for i, v in enumerate(self.is_void) if v]
        self.deck_ids = [i for i, v in enumerate(self.is_void) if i and not v]
        self.coin_ids = frozenset(i for i in self.void_ids if "coin" in self.table.card(i).titles)
        self.initial_decks = [self.table.deck_counts(d) for d in config.decks]
        for seat, name in enumerate(config.decks):
            size = self.table.deck(name).size
            if size < self.shape.min_deck:
                raise ConfigError(
                    f"deck {name!r} (seat {seat}) has {size} cards; the {self.shape.name} board needs "
                    f"at least {self.shape.min_deck}"
                )
        hand = self.shape.hand_size
        plays = hand * (1 + max_voids_per_card(self.table))  # deck cards in hand never grow
        self.info = GameInfo(
            name="yuxi",
            num_players=2,
            has_chance=True,
            perfect_information=False,
            utility_range=(-1.0, 1.0),
            # per player: <= H deck cards and the void cards they create are played; between two
            # plays (and before the first) at most 3 turns play nothing (skip, pass, skip: rules
            # §3.4); each turn <= a swap and an end decision
            max_game_length=(3 * (2 * plays + 1) + 2 * plays) * 2 + 2 * plays,
            rules_version=RULES_VERSION,
            num_distinct_actions=self.actions.size,
            constant_sum=0.0,
        )

    def __repr__(self) -> str:
        return f"YuxiGame({self.config!r})"

    def _traced(self, overrides: dict[str, EffectFn]) -> dict[str, EffectFn]:
        """Every effect (or its override) wrapped to record the board before and after it."""
        from paiju.yuxi.oracle.model import board_view

        trace = self.effect_trace

        def wrap(name: str, fn: EffectFn) -> EffectFn:
            def traced(st: YuxiState, owner: int, cell: int, **kw: Any) -> None:
                before = board_view(st)
                fn(st, owner, cell, **kw)
                trace.append((name, before, board_view(st)))

            return traced

        return {name: wrap(name, overrides.get(name, spec.fn)) for name, spec in EFFECTS.items()}

    def record_fields(self, state: YuxiState, history: Sequence[Any]) -> dict[str, Any]:
        """Game-specific record columns (``paiju.core.records``): the final scores, and in
        ``extra`` the board, the decks and the card table's hash, so a record made with one
        card table is never replayed or compared as if it were another's."""
        a, b = state.final_scores()
        return {
            "scoring_rule": "returns",
            "extra": {
                "board": self.config.board, "decks": list(self.config.decks),
                "final_scores": [a, b], "table_hash": table_fingerprint(self.table),
            },
        }

    # ---- protocol ----------------------------------------------------------------------------
    def new_initial_state(self) -> YuxiState:
        """Before the deal: full decks, empty board; the first node is the deal (chance)."""
        return YuxiState(self)

    def sample_state(self, observation: Any, rng: np.random.Generator) -> YuxiState:
        """A full state consistent with ``observation``: the opponent's hidden hand is drawn
        uniformly from the cards of their fixed deck that are not on the board, in the grave
        or otherwise accounted for, the rest is their deck, and a pending swap offer of the
        opponent is drawn from that deck. The player's own cards are copied as seen."""
        if not isinstance(observation, YuxiObservation):
            raise ConfigError(f"yuxi sample_state needs a YuxiObservation, got {type(observation).__name__}")
        if observation.config != self.config:
            raise ConfigError("observation comes from a different yuxi configuration")
        return _rebuild(self, observation, rng)

    def parse_action(self, state: YuxiState, text: str) -> Any:
        return state.parse_action(text)


class YuxiState(Position, State):
    """A yuxi position (:class:`~paiju.yuxi.position.Position`: the data) with the rules that
    move it."""

    game: YuxiGame

    def __init__(self, game: YuxiGame, *, empty: bool = False) -> None:
        self.game = game
        self.shape = game.shape
        self.cards = game.cards
        self.log = None
        if empty:
            return
        n = game.shape.cells
        ids = game.table.num_ids + 1
        self.card = [0] * n
        self.owner = [-1] * n
        self.power = [0] * n
        self.base = [0] * n
        self.armour = [0] * n
        self.coins = [0] * n
        self.cd = [0] * n
        self.weather = [0] * n
        self.hand = [[], []]
        self.deck = [list(game.initial_decks[0]), list(game.initial_decks[1])]
        self.deck_n = [sum(self.deck[0]), sum(self.deck[1])]
        self.grave = [[0] * ids, [0] * ids]
        self.voids = [[0] * ids, [0] * ids]
        self.purse = [STARTING_PURSE, STARTING_PURSE]
        self.score = [0, 0]
        self.coin_total = 2 * STARTING_PURSE
        self.phase = PH_DEAL
        self.to_move = 0
        self.played = False
        self.acted = False
        self.out = [False, False]
        self.skipped = [False, False]
        self.offer = []
        self.offer_size = 0
        self.turn = 0
        self.bonus = 0

    # ---- cheap copy ----------------------------------------------------------------------------
    def clone(self) -> YuxiState:
        s = YuxiState.__new__(YuxiState)
        s.game = self.game
        s.shape = self.shape
        s.cards = self.cards
        s.log = None
        s.card = self.card[:]
        s.owner = self.owner[:]
        s.power = self.power[:]
        s.base = self.base[:]
        s.armour = self.armour[:]
        s.coins = self.coins[:]
        s.cd = self.cd[:]
        s.weather = self.weather[:]
        s.hand = [self.hand[0][:], self.hand[1][:]]
        s.deck = [self.deck[0][:], self.deck[1][:]]
        s.deck_n = self.deck_n[:]
        s.grave = [self.grave[0][:], self.grave[1][:]]
        s.voids = [self.voids[0][:], self.voids[1][:]]
        s.purse = self.purse[:]
        s.score = self.score[:]
        s.coin_total = self.coin_total
        s.phase = self.phase
        s.to_move = self.to_move
        s.played = self.played
        s.acted = self.acted
        s.out = self.out[:]
        s.skipped = self.skipped[:]
        s.offer = self.offer[:]
        s.offer_size = self.offer_size
        s.turn = self.turn
        s.bonus = self.bonus
        return s

    # ---- protocol: whose turn, legality ----------------------------------------------------------
    def current_player(self) -> int:
        ph = self.phase
        if ph in (PH_PLAY, PH_SWAP):
            return self.to_move
        if ph == PH_OVER:
            return TERMINAL
        return CHANCE

    def price(self, player: int, card_id: int) -> int:
        """Coins ``player`` pays to play ``card_id`` now (cost less the discount aura, >= 0)."""
        c = self.cards[card_id]
        assert c is not None  # ids 1..n are cards
        cost = c.cost
        return max(0, cost - discount_of(self, player)) if cost else 0

    def _targets(self, player: int, c: CompiledCard) -> list[int]:
        t = c.target
        card, owner = self.card, self.owner
        n = len(card)
        if t == T_EMPTY:
            return [i for i in range(n) if not card[i]]
        if t == T_NONE:
            return [NO_TARGET]
        if t == T_CELL:
            return list(range(n))
        if t == T_ENEMY:
            return [i for i in range(n) if card[i] and owner[i] != player]
        if t == T_ALLY:
            return [i for i in range(n) if card[i] and owner[i] == player]
        return [i for i in range(n) if card[i]]  # T_CHARACTER

    def _target_ok(self, player: int, c: CompiledCard, target: int) -> bool:
        t = c.target
        if t == T_NONE:
            return target == NO_TARGET
        if not 0 <= target < len(self.card):
            return False
        cid = self.card[target]
        if t == T_EMPTY:
            return not cid
        if t == T_CELL:
            return True
        if t == T_ENEMY:
            return bool(cid) and self.owner[target] != player
        if t == T_ALLY:
            return bool(cid) and self.owner[target] == player
        return bool(cid)

    def _playable_ids(self) -> list[int]:
        """Distinct hand card ids the player to move may play now (ignoring targets)."""
        p = self.to_move
        out = []
        last = -1
        purse = self.purse[p]
        for cid in self.hand[p]:
            if cid == last:
                continue
            last = cid
            c = self.cards[cid]
            assert c is not None
            if self.played and not c.is_void:
                continue
            if c.cost and self.price(p, cid) > purse:
                continue
            out.append(cid)
        return out

    def _swap_actions(self) -> list[int]:
        p = self.to_move
        acts = [KEEP]
        space = self.game.actions
        seen = set()
        is_void = self.game.is_void
        givable = sorted({c for c in self.hand[p] if not is_void[c]})
        for slot, take in enumerate(self.offer):
            if take in seen:
                continue
            seen.add(take)
            for give in givable:
                if give != take:
                    acts.append(space.swap(slot, give))
        return acts

    def _legal_actions(self) -> list[Any]:
        if self.phase == PH_SWAP:
            return self._swap_actions()
        p = self.to_move
        base0 = self.game.actions.play_base - N_TARGETS
        acts = [END_TURN]
        cards = self.cards
        empties: list[int] | None = None
        for cid in self._playable_ids():
            base = base0 + cid * N_TARGETS
            c = cards[cid]
            assert c is not None
            if c.target == T_EMPTY:
                if empties is None:
                    empties = [i for i, x in enumerate(self.card) if not x]
                targets = empties
            else:
                targets = self._targets(p, c)
            acts.extend([base + t for t in targets])
        return acts

    def _any_play(self) -> bool:
        """Whether anything but "end turn" is legal (cheaper than listing the moves)."""
        p = self.to_move
        card, owner = self.card, self.owner
        for cid in self._playable_ids():
            c = self.cards[cid]
            assert c is not None  # a playable id is a card
            t = c.target
            if t in (T_NONE, T_CELL):
                return True
            if t == T_EMPTY:
                if 0 in card:
                    return True
            elif t == T_CHARACTER:
                if any(card):
                    return True
            else:
                want_mine = t == T_ALLY
                for i, x in enumerate(card):
                    if x and (owner[i] == p) == want_mine:
                        return True
        return False

    def _illegal_reason(self, action: Any) -> str:
        p = self.to_move
        head = f"illegal yuxi move {self._describe(action)} for player {p}"
        if not isinstance(action, int | np.integer) or isinstance(action, bool):
            return f"{head}: decisions are ints of the action space, got {type(action).__name__}"
        try:
            kind, a, b = self.game.actions.decode(int(action))
        except ValueError as err:
            return f"{head}: {err}"
        if self.phase == PH_SWAP and kind not in (KIND_KEEP, KIND_SWAP):
            return f"{head}: the player must first keep or swap (offer: {self._keys(self.offer)})"
        if self.phase == PH_PLAY and kind in (KIND_KEEP, KIND_SWAP):
            return f"{head}: no swap offer is pending"
        if kind == KIND_SWAP:
            if a >= len(self.offer):
                return f"{head}: the offer has only {len(self.offer)} cards"
            if a != self.offer.index(self.offer[a]):
                return f"{head}: use the first slot holding {self._key(self.offer[a])}"
            if a < len(self.offer) and b == self.offer[a]:
                return f"{head}: swapping a card for the same card is not a swap (use keep)"
            if b not in self.hand[p]:
                return f"{head}: {self._key(b)} is not in the hand"
            return f"{head}: void cards cannot be swapped into the deck"
        if kind == KIND_PLAY:
            if a not in self.hand[p]:
                return f"{head}: {self._key(a)} is not in the hand"
            c = self.cards[a]
            assert c is not None
            if self.played and not c.is_void:
                return f"{head}: a deck card was already played this turn (only void cards may follow)"
            if c.cost and self.price(p, a) > self.purse[p]:
                return f"{head}: {c.key} costs {self.price(p, a)} coins, the purse holds {self.purse[p]}"
            need = self.game.table.card(a).target
            where = (
                "no target"
                if b == NO_TARGET
                else (
                    self.shape.cell_name(b)
                    if b < self.shape.cells
                    else f"target {b} (off the {self.shape.name} board)"
                )
            )
            return f"{head}: {c.key} needs target '{need}', got {where}"
        return f"{head}: not among the legal moves"

    def _is_legal(self, action: Any) -> bool:
        if not isinstance(action, int | np.integer) or isinstance(action, bool):
            return False
        try:
            kind, a, b = self.game.actions.decode(int(action))
        except ValueError:
            return False
        p = self.to_move
        if self.phase == PH_SWAP:
            if kind == KIND_KEEP:
                return True
            if kind != KIND_SWAP or a >= len(self.offer):
                return False
            take = self.offer[a]
            c = self.cards[b]
            return (
                self.offer.index(take) == a
                and b != take
                and b in self.hand[p]
                and c is not None
                and not c.is_void
            )
        if kind == KIND_END:
            return True
        if kind != KIND_PLAY or a not in self.hand[p]:
            return False
        c = self.cards[a]
        assert c is not None
        if self.played and not c.is_void:
            return False
        if c.cost and self.price(p, a) > self.purse[p]:
            return False
        return self._target_ok(p, c, b)

    # ---- chance ------------------------------------------------------------------------------------
    def sample_chance(self, rng: np.random.Generator) -> ChanceOutcome:
        if self.phase == PH_DEAL:
            h = self.shape.hand_size
            return Deal((_draw(self.deck[0], h, rng), _draw(self.deck[1], h, rng)))
        if self.phase == PH_OFFER:
            return Offer(_draw(self.deck[self.to_move], self.offer_size, rng))
        if self.phase == PH_DIE:
            return DieRoll(int(rng.integers(1, 7)))
        raise IllegalMoveError(f"yuxi: no chance event in phase {PHASE_NAMES[self.phase]!r}")

    def chance_outcomes(self) -> list[tuple[Any, float]] | None:
        """The die and 2-card swap offers are enumerated (offers with their hypergeometric
        probabilities); the deal and 4-card offers (thousands of outcomes) are not, and
        searches sample them with :meth:`sample_chance`."""
        if self.phase == PH_DIE:
            return [(DieRoll(v), 1 / 6) for v in range(1, 7)]
        if self.phase == PH_OFFER and self.offer_size <= 2:
            return _multiset_outcomes(self.deck[self.to_move], self.offer_size)
        return None

    def _check_chance_outcome(self, action: Any) -> None:
        ph = self.phase
        if ph == PH_DEAL:
            if not isinstance(action, Deal):
                raise IllegalMoveError(f"yuxi: the deal is pending; got {action!r}, not a Deal")
            for p in (0, 1):
                hand = action.hands[p]
                if len(hand) != self.shape.hand_size or not _is_submultiset(hand, self.deck[p]):
                    raise IllegalMoveError(
                        f"yuxi deal: player {p}'s hand {self._keys(hand)} is not "
                        f"{self.shape.hand_size} cards of deck {self.game.config.decks[p]!r}"
                    )
            return
        if ph == PH_OFFER:
            if not isinstance(action, Offer):
                raise IllegalMoveError(f"yuxi: a swap offer is pending; got {action!r}, not an Offer")
            if (
                len(action.cards) != self.offer_size
                or not _is_submultiset(action.cards, self.deck[self.to_move])
                or list(action.cards) != sorted(action.cards)
            ):
                raise IllegalMoveError(
                    f"yuxi offer {self._keys(action.cards)}: not {self.offer_size} sorted cards "
                    f"of player {self.to_move}'s deck"
                )
            return
        if ph == PH_DIE:
            if not isinstance(action, DieRoll) or not 1 <= action.value <= 6:
                raise IllegalMoveError(f"yuxi: the bonus die is pending; {action!r} is not a roll of 1..6")
            return
        raise IllegalMoveError(f"yuxi: {action!r} is a chance outcome but a player is to move")

    # ---- applying -----------------------------------------------------------------------------------
    def _apply(self, action: Any) -> None:
        before = None
        if self.game.check_rules:
            before = self.clone()
            self.game.effect_trace.clear()
        ph = self.phase
        if ph == PH_PLAY:
            if action == END_TURN:
                self._end_turn(forced=False)
            else:
                _, cid, target = self.game.actions.decode(int(action))
                self._play(cid, target)
        elif ph == PH_SWAP:
            if action != KEEP:
                _, slot, give = self.game.actions.decode(int(action))
                self._swap(slot, give)
            self.offer = []
            self.offer_size = 0
            self.phase = PH_PLAY
        elif ph == PH_DEAL:
            for p in (0, 1):
                self.hand[p] = sorted(action.hands[p])
                for cid in action.hands[p]:
                    self.deck[p][cid] -= 1
                self.deck_n[p] -= len(action.hands[p])
            self._begin_turn(0)
        elif ph == PH_OFFER:
            self.offer = list(action.cards)
            self.phase = PH_SWAP
        elif ph == PH_DIE:
            self.bonus = action.value
            self.phase = PH_OVER
            if self.log is not None:
                self.log.add(self, "die", amount=action.value, owner=0)
        self._settle()
        if self.game.check_invariants or before is not None:
            self._check(before, action)

    def _check(self, before: YuxiState | None, action: Any) -> None:
        """The invariants first (their names are what audits report), then the rules oracle;
        an invariant failure is explained by the oracle's finding when it has one."""
        from paiju.yuxi.oracle import check_step, explain  # loaded only by a game that checks its steps

        if self.game.check_invariants:
            try:
                check_invariants(self)
            except InvariantViolation as err:
                if before is None:
                    raise
                raise explain(before, action, self, err, self.game.effect_trace) from None
        if before is not None:
            check_step(before, action, self, self.game.effect_trace)

    def _settle(self) -> None:
        """A turn with nothing playable left ends by itself."""
        while self.phase == PH_PLAY and not self._any_play():
            self._end_turn(forced=True)

    def _swap(self, slot: int, give: int) -> None:
        p = self.to_move
        take = self.offer[slot]
        hand = self.hand[p]
        hand.remove(give)
        i = len(hand)
        while i and hand[i - 1] > take:
            i -= 1
        hand.insert(i, take)
        self.deck[p][give] += 1
        self.deck[p][take] -= 1

    def _play(self, cid: int, target: int) -> None:
        p = self.to_move
        c = self.cards[cid]
        assert c is not None
        if c.cost:
            pay(self, p, c.cost)
        self.hand[p].remove(cid)
        if not c.is_void:
            self.played = True
        self.acted = True
        self.skipped[0] = self.skipped[1] = False
        if c.is_coin:
            burn(self, 1)
        if c.is_character:
            self.card[target] = cid
            self.owner[target] = p
            self.power[target] = self.base[target] = c.points
            self.armour[target] = c.armour
            self.coins[target] = c.coins
            self.cd[target] = c.cooldown
            self.score[p] += c.points
            if c.coins:
                mint(self, c.coins)
            log = self.log
            if log is not None:
                log.push(f"{c.key} deploy")
            for fn, kw in c.on_deploy:
                fn(self, p, target, **kw)
                resolve_deaths(self)
            if log is not None:
                log.pop()
            # the cell's fog acts on the newcomer only after its deploy effects (eat, then halve)
            if self.weather[target] == FOG and self.card[target] == cid and self.owner[target] == p:
                if log is not None:
                    log.push("fog")
                halve(self, target)
                resolve_deaths(self)
                if log is not None:
                    log.pop()
        else:
            cell = -1 if target == NO_TARGET else target
            if self.log is not None:
                self.log.push(c.key)
            for fn, kw in c.on_cast:
                fn(self, p, cell, **kw)
                resolve_deaths(self)
            if self.log is not None:
                self.log.pop()
            self.grave[p][cid] += 1

    def _begin_turn(self, p: int) -> None:
        self.to_move = p
        self.played = False
        self.acted = False
        self.turn += 1
        cards = self.cards
        card, owner, weather, cd = self.card, self.owner, self.weather, self.cd
        for cell in range(len(card)):
            cid = card[cell]
            if cid and owner[cell] == p:
                c = cards[cid]
                assert c is not None  # a non-zero id on the board is a card
                if c.cooldown and weather[cell] != ICE:
                    cd[cell] -= 1
                    if cd[cell] <= 0:
                        cd[cell] = c.cooldown
                        if self.log is not None:
                            self.log.push(f"{c.key} turn start")
                        for fn, kw in c.on_turn_start:
                            fn(self, p, cell, **kw)
                            resolve_deaths(self)
                        if self.log is not None:
                            self.log.pop()
        if (
            self.game.config.swaps
            and self.deck_n[p] > 0
            and not all(self.game.is_void[h] for h in self.hand[p])
        ):
            self.offer_size = min(MAX_OFFER if len(self.hand[p]) == 1 else 2, self.deck_n[p])
            self.phase = PH_OFFER
        else:
            self.phase = PH_PLAY

    def _end_turn(self, *, forced: bool) -> None:
        """End the mover's turn (rules §3.4); ``forced``: it ended by itself, nothing playable."""
        p = self.to_move
        self._weather_ticks(p)
        self._turn_end_skills(p)
        self._finish_check(p, forced)
        q = 1 - p
        if not self.out[q]:
            self._begin_turn(q)
        elif not self.out[p]:
            self._begin_turn(p)
        else:
            self.played = self.acted = False
            self.phase = PH_DIE if self.game.config.die_bonus else PH_OVER

    def _weather_ticks(self, p: int) -> None:
        """Thunder and erosion act on the mover's characters and on those of finished players
        (weather belongs to the board, not to a player's turns), ascending cells; then deaths."""
        card, owner, weather, out = self.card, self.owner, self.weather, self.out
        log = self.log
        for cell in range(len(card)):
            if card[cell] and (owner[cell] == p or out[owner[cell]]):
                w = weather[cell]
                if w == THUNDER:
                    if log is not None:
                        log.push("thunder")
                    damage(self, cell, THUNDER_DAMAGE)
                elif w == EROSION:
                    if log is not None:
                        log.push("erosion")
                    drain(self, cell, EROSION_DRAIN)
                else:
                    continue
                if log is not None:
                    log.pop()
        if log is not None:
            log.push("the weather")
        resolve_deaths(self)
        if log is not None:
            log.pop()

    def _turn_end_skills(self, p: int) -> None:
        cards = self.cards
        card, owner, weather = self.card, self.owner, self.weather
        for cell in range(len(card)):
            cid = card[cell]
            if cid and owner[cell] == p and weather[cell] != ICE:
                c = cards[cid]
                assert c is not None  # a non-zero id on the board is a card
                if self.log is not None and c.on_turn_end:
                    self.log.push(f"{c.key} turn end")
                for fn, kw in c.on_turn_end:
                    fn(self, p, cell, **kw)
                    resolve_deaths(self)
                if self.log is not None and c.on_turn_end:
                    self.log.pop()

    def _finish_check(self, p: int, forced: bool) -> None:
        """A voluntary end without a card is a pass (finished); an empty hand finishes too. A
        turn that ended by itself with no card played is a skip: the player stays in, unless
        every other player still in the game skipped too since the last card, then all finish."""
        log = self.log
        if log is not None and forced and not self.acted:
            log.add(self, "skip", owner=p)
        if not self.hand[p] or (not self.acted and not forced):
            self.out[p] = True
            if log is not None:
                log.add(self, "finished", owner=p)
            return
        if self.acted:
            return
        self.skipped[p] = True
        q = 1 - p
        if self.out[q] or self.skipped[q]:
            if log is not None:
                for s in (p, q):
                    if not self.out[s]:
                        log.add(self, "finished", owner=s)
            self.out[p] = self.out[q] = True

    # ---- results ----------------------------------------------------------------------------------
    def final_scores(self) -> tuple[int, int]:
        """Points on the board, plus the die bonus for seat 0 once rolled."""
        return self.score[0] + self.bonus, self.score[1]

    def returns(self) -> list[float]:
        if self.phase != PH_OVER:
            return [0.0, 0.0]
        a, b = self.final_scores()
        if a > b:
            return [1.0, -1.0]
        if b > a:
            return [-1.0, 1.0]
        return [0.0, 0.0]

    # ---- observation ------------------------------------------------------------------------------
    def observation(self, player: int) -> YuxiObservation:
        if player not in (0, 1):
            raise ValueError(f"yuxi has seats 0 and 1, not {player}")
        opp = 1 - player
        card, owner, power, base, armour, coins, cd = (
            self.card,
            self.owner,
            self.power,
            self.base,
            self.armour,
            self.coins,
            self.cd,
        )
        cells = tuple(
            (card[i], owner[i], power[i], base[i], armour[i], coins[i], cd[i]) if card[i] else None
            for i in range(len(card))
        )
        is_void = self.game.is_void
        opp_voids = tuple(c for c in self.hand[opp] if is_void[c])
        own_offer = tuple(self.offer) if self.phase == PH_SWAP and self.to_move == player else ()
        return YuxiObservation(
            config=self.game.config,
            player=player,
            to_move=self.current_player(),
            turn_player=self.to_move,
            phase=PHASE_NAMES[self.phase],
            turn=self.turn,
            cells=cells,
            weather=tuple(self.weather),
            hand=tuple(self.hand[player]),
            deck=tuple(self.deck[player]),
            offer=own_offer,
            offer_size=self.offer_size,
            opponent_hidden=len(self.hand[opp]) - len(opp_voids),
            opponent_voids=opp_voids,
            deck_sizes=(self.deck_n[0], self.deck_n[1]),
            graves=(tuple(self.grave[0]), tuple(self.grave[1])),
            purses=(self.purse[0], self.purse[1]),
            scores=(self.score[0], self.score[1]),
            out=(self.out[0], self.out[1]),
            played=self.played,
            acted=self.acted,
            skipped=(self.skipped[0], self.skipped[1]),
            bonus=self.bonus,
        )

    # ---- notation -----------------------------------------------------------------------------------
    def _key(self, cid: int) -> str:
        c = self.cards[cid] if 0 < cid < len(self.cards) else None
        return c.key if c is not None else f"#{cid}"

    def _keys(self, ids: Sequence[int]) -> str:
        return ",".join(self._key(c) for c in ids) or "-"

    def action_to_string(self, action: Any) -> str:
        """``end``, ``keep``, ``swap peddler->reef_crab`` (give -> take), ``play reef_crab@b2``,
        ``play tax_day``; chance: ``deal k,k,..|k,k,..``, ``offer k,k``, ``die 4``."""
        if isinstance(action, Deal):
            return f"deal {self._keys(action.hands[0])}|{self._keys(action.hands[1])}"
        if isinstance(action, Offer):
            return f"offer {self._keys(action.cards)}"
        if isinstance(action, DieRoll):
            return f"die {action.value}"
        kind, a, b = self.game.actions.decode(int(action))
        if kind == KIND_END:
            return "end"
        if kind == KIND_KEEP:
            return "keep"
        if kind == KIND_SWAP:
            take = self._key(self.offer[a]) if a < len(self.offer) else f"slot{a}"
            return f"swap {self._key(b)}->{take}"
        if b == NO_TARGET:
            return f"play {self._key(a)}"
        cell = self.shape.cell_name(b) if b < self.shape.cells else f"#{b}"
        return f"play {self._key(a)}@{cell}"

    def parse_action(self, text: str) -> Any:
        """The action written ``text`` in :meth:`action_to_string` notation, in this state."""
        t = text.strip()
        word, _, rest = t.partition(" ")
        table = self.game.table
        space = self.game.actions
        rest = rest.strip()
        try:
            if word == "end" and not rest:
                return END_TURN
            if word == "keep" and not rest:
                return KEEP
            if word == "deal":
                left, sep, right = rest.partition("|")
                if not sep:
                    raise InvalidNotationError(f"{text!r}: a deal is 'deal <hand 0>|<hand 1>'")
                return Deal((_parse_ids(table, left), _parse_ids(table, right)))
            if word == "offer":
                return Offer(tuple(sorted(_parse_ids(table, rest))))
            if word == "die":
                return DieRoll(int(rest))
            if word == "swap":
                give, arrow, take = rest.partition("->")
                if not arrow:
                    raise InvalidNotationError(f"{text!r}: a swap is 'swap <give>-><take>'")
                take_id = table.card(take.strip()).id
                if take_id not in self.offer:
                    raise IllegalMoveError(
                        f"{text!r}: {take.strip()} is not in the offer ({self._keys(self.offer)})"
                    )
                return space.swap(self.offer.index(take_id), table.card(give.strip()).id)
            if word == "play" and rest:
                key, at, cell = rest.partition("@")
                cid = table.card(key.strip()).id
                return space.play(cid, self.shape.parse_cell(cell) if at else NO_TARGET)
        except ValueError as err:
            if isinstance(err, InvalidNotationError | IllegalMoveError):
                raise
            raise InvalidNotationError(f"{text!r}: {err}") from None
        raise InvalidNotationError(
            f"{text!r} is not yuxi move notation (end | keep | swap <give>-><take> | play <card>[@cell] | "
            "deal ..|.. | offer .. | die N)"
        )

    def __str__(self) -> str:
        from paiju.yuxi.render import board_text  # Rich loads only when a board is shown

        return board_text(self)


@dataclass(frozen=True)
class YuxiObservation:
    """What one player sees. ``cells[i]`` is ``(card id, owner, points, starting points,
    armour, coins, cooldown)`` or None; graves and own deck are counts per card id; the
    opponent's hand appears only as its hidden size plus the void cards in it (created by
    public effects). ``to_move`` is the seat to act, or CHANCE / TERMINAL."""

    config: YuxiConfig
    player: int
    to_move: int
    turn_player: int
    """Seat whose turn it is (also at the chance nodes inside a turn, e.g. its swap offer)."""
    phase: str
    turn: int
    cells: tuple[tuple[int, int, int, int, int, int, int] | None, ...]
    weather: tuple[int, ...]
    hand: tuple[int, ...]
    deck: tuple[int, ...]
    offer: tuple[int, ...]
    offer_size: int
    opponent_hidden: int
    opponent_voids: tuple[int, ...]
    deck_sizes: tuple[int, int]
    graves: tuple[tuple[int, ...], tuple[int, ...]]
    purses: tuple[int, int]
    scores: tuple[int, int]
    out: tuple[bool, bool]
    played: bool
    acted: bool
    bonus: int
    skipped: tuple[bool, bool] = (False, False)
    """Whose last turn ended by itself with nothing playable, no card played since (§3.4)."""


# ------------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------------
def _draw(counts: Sequence[int], k: int, rng: np.random.Generator) -> tuple[int, ...]:
    """``k`` cards drawn uniformly without replacement from a multiset of card counts, sorted.

    Each card takes one 64-bit word from the generator's bit generator, mapped to an index
    below the cards left by a multiply-shift (bias below 2**-58): several times cheaper than
    ``rng.choice(..., replace=False)`` or ``rng.random(k)`` for the 2-8 cards a draw takes."""
    kinds = [cid for cid, n in enumerate(counts) if n]
    left = [counts[cid] for cid in kinds]
    total = sum(left)
    if k > total:
        raise IllegalMoveError(f"cannot draw {k} cards from a deck of {total}")
    raw = rng.bit_generator.random_raw
    out = []
    for _ in range(k):
        r = (raw() * total) >> 64
        j = 0
        while r >= left[j]:
            r -= left[j]
            j += 1
        left[j] -= 1
        total -= 1
        out.append(kinds[j])
    out.sort()
    return tuple(out)


def _is_submultiset(ids: Sequence[int], counts: Sequence[int]) -> bool:
    need: dict[int, int] = {}
    for cid in ids:
        if not isinstance(cid, int | np.integer) or not 0 < cid < len(counts):
            return False
        need[cid] = need.get(cid, 0) + 1
    return all(counts[c] >= n for c, n in need.items())


def _multiset_outcomes(counts: Sequence[int], k: int) -> list[tuple[Any, float]]:
    """Every sorted ``k``-card draw from ``counts`` with its (hypergeometric) probability."""
    from math import comb

    total = sum(counts)
    kinds = [(cid, n) for cid, n in enumerate(counts) if n]
    out: list[tuple[Any, float]] = []
    denom = comb(total, k)

    def rec(i: int, left: int, chosen: list[int], ways: int) -> None:
        if left == 0:
            out.append((Offer(tuple(chosen)), ways / denom))
            return
        if i == len(kinds):
            return
        cid, n = kinds[i]
        for take in range(min(n, left), -1, -1):
            rec(i + 1, left - take, chosen + [cid] * take, ways * comb(n, take))

    rec(0, k, [], 1)
    out.sort(key=lambda o: o[0].cards)
    return out


def _parse_ids(table: CardTable, text: str) -> tuple[int, ...]:
    text = text.strip()
    if not text or text == "-":
        return ()
    return tuple(table.card(k.strip()).id for k in text.split(","))


def _rebuild(game: YuxiGame, obs: YuxiObservation, rng: np.random.Generator) -> YuxiState:
    """Build a full state from an observation, drawing the opponent's hidden cards."""
    me, opp = obs.player, 1 - obs.player
    if obs.phase == "deal":
        return game.new_initial_state()
    s = YuxiState(game, empty=True)
    n = game.shape.cells
    ids = game.table.num_ids + 1
    is_void = game.is_void
    card, owner, power, base, armour, coins, cd = (
        [0] * n,
        [-1] * n,
        [0] * n,
        [0] * n,
        [0] * n,
        [0] * n,
        [0] * n,
    )
    pool = list(game.initial_decks[opp])
    made = [[0] * ids, [0] * ids]
    for i, cell in enumerate(obs.cells):
        if cell is not None:
            card[i], owner[i], power[i], base[i], armour[i], coins[i], cd[i] = cell
            if is_void[cell[0]]:
                made[cell[1]][cell[0]] += 1
            elif cell[1] == opp:
                pool[cell[0]] -= 1
    s.card, s.owner, s.power, s.base, s.armour, s.coins, s.cd = card, owner, power, base, armour, coins, cd
    s.weather = list(obs.weather)
    s.grave = [list(obs.graves[0]), list(obs.graves[1])]
    s.purse = list(obs.purses)
    s.score = list(obs.scores)
    s.out = list(obs.out)
    s.phase = Phase(PHASE_NAMES.index(obs.phase))
    s.to_move = obs.turn_player
    s.played, s.acted = obs.played, obs.acted
    s.skipped = list(obs.skipped)
    s.turn = obs.turn
    s.bonus = obs.bonus
    s.offer_size = obs.offer_size
    s.offer = []
    s.deck_n = list(obs.deck_sizes)
    # opponent: the cards of their deck list not on the board or in the grave = hand + deck
    opp_grave = obs.graves[opp]
    for cid in game.deck_ids:
        pool[cid] -= opp_grave[cid]
    if min(pool) < 0 or sum(pool) != obs.opponent_hidden + obs.deck_sizes[opp]:
        raise ConfigError(
            f"yuxi observation is inconsistent with deck {game.config.decks[opp]!r}: "
            f"{sum(pool)} cards unaccounted for, but hand {obs.opponent_hidden} + deck {obs.deck_sizes[opp]}"
        )
    hidden = list(_draw(pool, obs.opponent_hidden, rng))
    for cid in hidden:
        pool[cid] -= 1
    hands: list[list[int]] = [[], []]
    decks: list[list[int]] = [[], []]
    hands[me] = list(obs.hand)
    decks[me] = list(obs.deck)
    hands[opp] = sorted(hidden + list(obs.opponent_voids))
    decks[opp] = pool
    s.hand, s.deck = hands, decks
    if s.phase == PH_SWAP:
        s.offer = list(obs.offer) if obs.to_move == me else list(_draw(pool, obs.offer_size, rng))
    # derived bookkeeping: void cards created (board counted above), the coin ledger
    coin_cards = 0
    for p in (0, 1):
        m = made[p]
        for cid in hands[p]:
            if is_void[cid]:
                m[cid] += 1
                coin_cards += cid in game.coin_ids
        grave = s.grave[p]
        for cid in game.void_ids:
            m[cid] += grave[cid]
    s.voids = made
    s.coin_total = sum(s.purse) + sum(coins) + coin_cards
    return s
