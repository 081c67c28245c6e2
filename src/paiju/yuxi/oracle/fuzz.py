"""A fuzzer for the yuxi rules: random legal positions, every effect and weather applied.

Self-play reaches a rare interaction only when the players happen to build it; the fuzzer
builds it. Position ``i`` of a run targets one effect of the card table (round robin over
every effect the cards use, and the turn rules: swaps and the die): it deals a random board
(characters of both sides with random points, armour, coins and cooldowns), random weather,
purses and hands from the two decks, puts a card using that effect where it acts (in hand,
or on the board for timed, turn-end, death and aura effects) and applies one step through the
engine with the invariant checker and the rules oracle on. Every position is rebuilt from
``(seed, index)`` alone (:func:`fuzz_case`), so a finding replays exactly.

This module drives the engine (it imports :mod:`paiju.yuxi.game`); the oracle modules it
checks with do not (the import-linter contract covers those, not this one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paiju.core.errors import NotFoundError
from paiju.core.rng import as_generator, derive_seed
from paiju.yuxi.actions import DieRoll
from paiju.yuxi.board import BOARDS
from paiju.yuxi.effects import WEATHER_NAMES, EffectFn
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiState
from paiju.yuxi.invariants import InvariantViolation
from paiju.yuxi.oracle.check import applied_rules, expected_after
from paiju.yuxi.scenario import scenario

TURN_RULES = ("swap", "die")
"""Targets besides the card effects: a swap decision, the end-of-game die."""
WEATHERS = WEATHER_NAMES[1:]


@dataclass
class FuzzFinding:
    """One position on which the engine disagreed with the rules (or crashed)."""

    index: int
    seed: int
    target: str
    """The effect or turn rule the position was built for."""
    board: str
    decks: tuple[str, str]
    move: str
    invariant: str
    """``rules:<effect>`` for an oracle finding, an invariant name, or ``exception``."""
    detail: str
    effect: str | None = None
    """The rule at fault as the oracle names it (also for a broken invariant it explained)."""

    def describe(self) -> str:
        return (
            f"fuzz position {self.index} (seed {self.seed}, target {self.target}, {self.board}, "
            f"{self.decks[0]} vs {self.decks[1]}): '{self.move}' broke {self.invariant}: {self.detail}"
        )


@dataclass
class FuzzReport:
    positions: int
    steps: int
    coverage: Counter[str] = field(default_factory=Counter)
    """Times each effect, weather (fog halving, thunder, erosion, ice freezing), discount and
    turn rule was applied in a checked step."""
    findings: list[FuzzFinding] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    """Positions the builder could not build, by target: counted and reported, never a crash
    of the run (``positions`` counts only the built and checked ones)."""

    @property
    def clean(self) -> bool:
        return not self.findings

    def short_of(self, targets: Sequence[str], at_least: int) -> dict[str, int]:
        """Targets applied fewer than ``at_least`` times, with their counts."""
        return {t: self.coverage[t] for t in targets if self.coverage[t] < at_least}


def fuzz_targets(game: YuxiGame) -> list[str]:
    """Every effect the card table uses (auras as ``discount``), then the turn rules."""
    seen: list[str] = []
    for c in game.table.cards[1:]:
        assert c is not None
        for ref in c.effects:
            if ref.effect not in seen:
                seen.append(ref.effect)
    return seen + list(TURN_RULES)


class _Fuzzer:
    def __init__(self, seed: int, boards: Sequence[str], overrides: Mapping[str, EffectFn] | None) -> None:
        self.seed = seed
        self.boards = list(boards)
        self.overrides = dict(overrides or {})
        self.games: dict[YuxiConfig, YuxiGame] = {}
        self.base = self.game(YuxiConfig())
        self.targets = fuzz_targets(self.base)
        table = self.base.table
        self.deck_names = list(table.decks)
        self.users: dict[str, list[tuple[str, str]]] = {}
        for c in table.cards[1:]:
            assert c is not None
            for ref in c.effects:
                self.users.setdefault(ref.effect, []).append((c.key, ref.trigger))

    def game(self, config: YuxiConfig) -> YuxiGame:
        g = self.games.get(config)
        if g is None:
            g = self.games[config] = YuxiGame(config, check_invariants=True, effect_overrides=self.overrides)
        return g

    def case(self, index: int) -> tuple[str, YuxiState, Any]:
        """Target, position and action of fuzz position ``index``."""
        built = self.try_case(index)
        if built is None:
            target = self.targets[index % len(self.targets)]
            raise NotFoundError(f"fuzz: could not build a position for {target} (index {index})")
        return built

    def try_case(self, index: int) -> tuple[str, YuxiState, Any] | None:
        """:meth:`case`, or ``None`` when 20 random attempts built no position for its target."""
        rng = as_generator(derive_seed(self.seed, index))
        target = self.targets[index % len(self.targets)]
        for _attempt in range(20):
            built = self._build(rng, target)
            if built is not None:
                return (target, *built)
        return None

    def _build(self, rng: np.random.Generator, target: str) -> tuple[YuxiState, Any] | None:
        board = self.boards[int(rng.integers(len(self.boards)))]
        if target == "die":
            return self._die_case(rng, board)
        if target == "swap":
            return self._swap_case(rng, board)
        key, trigger = self.users[target][int(rng.integers(len(self.users[target])))]
        return self._effect_case(rng, board, key, trigger)

    def _config(self, rng: np.random.Generator, board: str, decks: tuple[str, str], swaps: bool) -> YuxiGame:
        return self.game(YuxiConfig(board=board, decks=decks, die_bonus=bool(rng.integers(2)), swaps=swaps))

    def _decks_with(self, rng: np.random.Generator, key: str) -> list[str]:
        table = self.base.table
        if table.card(key).is_void:
            return self.deck_names
        having = [d for d in self.deck_names if table.deck(d).cards.get(key, 0)]
        return having or self.deck_names

    def _effect_case(
        self, rng: np.random.Generator, board: str, key: str, trigger: str
    ) -> tuple[YuxiState, Any] | None:
        mover = int(rng.integers(2))
        # the acting card's owner: the next player for a turn-start skill (it fires when their turn begins)
        owner = 1 - mover if trigger == "turn_start" else mover
        decks = [self.deck_names[int(i)] for i in rng.integers(len(self.deck_names), size=2)]
        choices = self._decks_with(rng, key)
        decks[owner] = choices[int(rng.integers(len(choices)))]
        game = self._config(rng, board, (decks[0], decks[1]), swaps=bool(rng.integers(2)))
        spec = _Spec(game, rng)
        card = game.table.card(key)
        # an effect counting characters of a title needs several of them around to be tested:
        # half the boards built for it are crowded with that title (count = 1 survives otherwise)
        titles = sorted({str(r.params["title"]) for r in card.effects if "title" in r.params})
        theme = titles[int(rng.integers(len(titles)))] if titles and rng.random() < 0.5 else None
        # a card played from the hand is held back before the board is dealt: a themed board
        # would otherwise often take a single copy (the Merchant Prince) out of the deck
        played = trigger in ("deploy", "cast")
        if played and not spec._take(mover, key):
            return None
        if played:  # a purse short of the cost tests no effect (a cost-2 card: 2 builds in 5)
            spec.min_purse[mover] = card.cost
        spec.random_board(theme=theme)
        if played:
            return spec.play_step(mover, card.id, taken=True)
        cell = spec.place(key, owner, trigger)
        if cell < 0:
            return None
        if trigger == "aura":  # the aura acts on payments: the mover pays for a card now
            costly = [i for i, n in enumerate(spec.left[mover]) if n and game.table.card(i).cost]
            if not costly:
                return None
            return spec.play_step(mover, costly[int(rng.integers(len(costly)))])
        return spec.end_step(mover)

    def _swap_case(self, rng: np.random.Generator, board: str) -> tuple[YuxiState, Any] | None:
        decks = [self.deck_names[int(i)] for i in rng.integers(len(self.deck_names), size=2)]
        game = self._config(rng, board, (decks[0], decks[1]), swaps=True)
        spec = _Spec(game, rng)
        spec.random_board()
        mover = int(rng.integers(2))
        spec.deal_hand(mover, int(rng.integers(1, 4)))
        return spec.swap_step(mover)

    def _die_case(self, rng: np.random.Generator, board: str) -> tuple[YuxiState, Any] | None:
        decks = [self.deck_names[int(i)] for i in rng.integers(len(self.deck_names), size=2)]
        game = self.game(YuxiConfig(board=board, decks=(decks[0], decks[1]), die_bonus=True, swaps=False))
        spec = _Spec(game, rng)
        spec.random_board()
        state = spec.build(0, phase="die", out=(True, True))
        return (state, DieRoll(int(rng.integers(1, 7))))


class _Spec:
    """A random position under construction, kept within what the decks hold."""

    def __init__(self, game: YuxiGame, rng: np.random.Generator) -> None:
        self.game = game
        self.rng = rng
        self.table = game.table
        self.left = [list(game.initial_decks[0]), list(game.initial_decks[1])]
        self.units: dict[str, tuple[str, int, dict[str, int]]] = {}
        self.weather: dict[str, str] = {}
        self.hands: list[list[str]] = [[], []]
        self.min_purse = [0, 0]

    def _draw(self, p: int, characters: bool, title: str | None = None) -> str | None:
        ids = [
            i
            for i, n in enumerate(self.left[p])
            if n
            and (not characters or self.table.card(i).is_character)
            and (title is None or title in self.table.card(i).titles)
        ]
        if not ids:
            return None
        cid = ids[int(self.rng.integers(len(ids)))]
        self.left[p][cid] -= 1
        return self.table.card(cid).key

    def _take(self, p: int, key: str) -> bool:
        c = self.table.card(key)
        if c.is_void:
            return True
        if self.left[p][c.id] <= 0:
            return False
        self.left[p][c.id] -= 1
        return True

    def _unit(self, key: str, owner: int) -> tuple[str, int, dict[str, int]]:
        c = self.table.card(key)
        rng = self.rng
        extra = {
            "power": int(rng.integers(1, 8)),
            "armour": int(rng.integers(0, 3)) if rng.random() < 0.5 else 0,
            "coins": int(rng.integers(0, 3)) if rng.random() < 0.4 else 0,
        }
        if c.cooldown:
            extra["cd"] = int(rng.integers(1, c.cooldown + 1))
        return (key, owner, extra)

    def random_board(self, theme: str | None = None) -> None:
        """Random characters and weather; with a ``theme`` title, most characters carry it."""
        shape = self.game.shape
        rng = self.rng
        for cell in range(shape.cells):
            name = shape.cell_name(cell)
            if rng.random() < 0.4:
                self.weather[name] = WEATHERS[int(rng.integers(len(WEATHERS)))]
            if rng.random() < (0.45 if theme is None else 0.7) and len(self.units) < shape.cells - 2:
                owner = int(rng.integers(2))
                key = None
                if theme is not None and rng.random() < 0.8:
                    key = self._draw(owner, characters=True, title=theme)
                if key is None:
                    key = self._draw(owner, characters=True) if rng.random() < 0.9 else "crabling"
                if key is not None:
                    self.units[name] = self._unit(key, owner)

    def place(self, key: str, owner: int, trigger: str) -> int:
        """Put the acting character on a random cell; a death card low, on thunder."""
        shape = self.game.shape
        if not self._take(owner, key):
            return -1
        cell = int(self.rng.integers(shape.cells))
        name = shape.cell_name(cell)
        old = self.units.pop(name, None)
        if old is not None and not self.table.card(old[0]).is_void:
            self.left[old[1]][self.table.card(old[0]).id] += 1
        unit = self._unit(key, owner)
        if trigger == "turn_start" and "cd" in unit[2] and self.rng.random() < 0.8:
            unit[2]["cd"] = 1  # fires as the owner's turn begins
        if trigger in ("turn_start", "turn_end") and self.rng.random() < 0.25:
            self.weather[name] = "ice"  # a frozen skill must stand still
        if trigger == "death":
            unit[2].update(power=int(self.rng.integers(1, 3)), armour=0)
            self.weather[name] = "thunder" if self.rng.random() < 0.5 else "erosion"
        self.units[name] = unit
        return cell

    def deal_hand(self, p: int, extra: int) -> None:
        for _ in range(extra):
            key = self._draw(p, characters=False)
            if key is not None:
                self.hands[p].append(key)

    def build(self, mover: int, **kw: Any) -> YuxiState:
        purses = (
            max(self.min_purse[0], int(self.rng.integers(0, 5))),
            max(self.min_purse[1], int(self.rng.integers(0, 5))),
        )
        graves: list[list[str]] = [[], []]
        for p in (0, 1):  # earlier deaths and spells: a death must add to the grave, not reset it
            for _ in range(int(self.rng.integers(0, 4))):
                key = self._draw(p, characters=False)
                if key is not None:
                    graves[p].append(key)
            # created (void) cards die too: a void returned to the grave must add to its count
            if self.rng.random() < 0.3:
                mine = (k for k, o, _ in self.units.values() if o == p)
                on_board = sorted(k for k in mine if self.table.card(k).is_void)
                voids = on_board or [c.key for c in self.table.cards[1:] if c is not None and c.is_void]
                graves[p].append(voids[int(self.rng.integers(len(voids)))])
        return scenario(
            self.game,
            units=self.units,
            weather=self.weather,
            hands=(sorted(self.hands[0]), sorted(self.hands[1])),
            graves=(graves[0], graves[1]),
            purses=purses,
            to_move=mover,
            **kw,
        )

    def play_step(self, mover: int, cid: int, taken: bool = False) -> tuple[YuxiState, Any] | None:
        """Play card ``cid`` from the mover's hand (``taken``: already taken from the deck)."""
        card = self.table.card(cid)
        if not taken and not self._take(mover, card.key):
            return None
        self.hands[mover].append(card.key)
        self.deal_hand(mover, int(self.rng.integers(0, 3)))
        self.deal_hand(1 - mover, int(self.rng.integers(0, 3)))
        if self.rng.random() < 0.7:
            self.hands[mover].append("crabling")  # keeps the turn going after the card
        state = self.build(mover)
        space = self.game.actions
        legal = [
            a for a in state.legal_actions() if space.decode(a)[0] == "play" and space.decode(a)[1] == cid
        ]
        if not legal:
            return None
        return state, legal[int(self.rng.integers(len(legal)))]

    def end_step(self, mover: int) -> tuple[YuxiState, Any]:
        self.deal_hand(mover, int(self.rng.integers(1, 3)))
        self.deal_hand(1 - mover, int(self.rng.integers(0, 3)))
        state = self.build(mover, acted=True, played=True)
        return state, 0  # end turn after having played: not a pass

    def swap_step(self, mover: int) -> tuple[YuxiState, Any] | None:
        offer = [k for k in (self._draw(mover, False), self._draw(mover, False)) if k is not None]
        if not offer or not self.hands[mover]:
            return None
        # the offer stays in the deck (the scenario puts every card not placed there); kept out
        # of ``left`` so no grave card is drawn from it
        state = self.build(mover, phase="swap", offer=sorted(offer))
        legal = state.legal_actions()
        return state, legal[int(self.rng.integers(len(legal)))]


def fuzz_case(seed: int, index: int, *, boards: Sequence[str] = tuple(BOARDS)) -> tuple[str, YuxiState, Any]:
    """Rebuild fuzz position ``index`` of a run with ``seed``: (target, state, action)."""
    return _Fuzzer(seed, boards, None).case(index)


def run_fuzz(
    positions: int,
    seed: int = 0,
    *,
    boards: Sequence[str] = tuple(BOARDS),
    effect_overrides: Mapping[str, EffectFn] | None = None,
    targets: Sequence[str] | None = None,
    stop_at_first: bool = False,
) -> FuzzReport:
    """Build and check ``positions`` random positions (round robin over the targets, or only
    those in ``targets``); the coverage counts what the oracle saw applied. A position the
    builder cannot build is counted in ``skipped`` (it still uses up one of ``positions``)."""
    fz = _Fuzzer(seed, boards, effect_overrides)
    report = FuzzReport(0, 0)
    wanted = set(targets) if targets else None
    index = -1
    while report.positions + report.skipped.total() < positions:
        index += 1
        if wanted is not None and fz.targets[index % len(fz.targets)] not in wanted:
            continue
        built = fz.try_case(index)
        if built is None:
            report.skipped[fz.targets[index % len(fz.targets)]] += 1
            continue
        target, state, action = built
        report.positions += 1
        _check_one(fz, report, index, target, state, action)
        if stop_at_first and report.findings:
            break
    return report


def _check_one(
    fz: _Fuzzer, report: FuzzReport, index: int, target: str, state: YuxiState, action: Any
) -> None:
    move = state.action_to_string(action)
    try:
        want = expected_after(state.clone(), action)
        report.coverage.update(applied_rules(want.events))
        if target in TURN_RULES:
            report.coverage[target] += 1
        report.steps += 1
        state.apply(action)
    except InvariantViolation as err:
        found = _finding(fz, index, target, state, move, err.invariant, err.detail)
        found.effect = err.effect
        report.findings.append(found)
    except Exception as err:  # an engine crash on a legal position is a finding too
        report.findings.append(
            _finding(fz, index, target, state, move, "exception", f"{type(err).__name__}: {err}")
        )


def _finding(
    fz: _Fuzzer, index: int, target: str, state: YuxiState, move: str, name: str, detail: str
) -> FuzzFinding:
    cfg = state.game.config
    return FuzzFinding(index, fz.seed, target, cfg.board, cfg.decks, move, name, detail)
