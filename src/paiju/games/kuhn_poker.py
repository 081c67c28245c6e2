"""Kuhn poker: the smallest hidden-information game, used to test the core protocol.

The classic game (H. W. Kuhn, 1950), with exactly OpenSpiel's ``kuhn_poker`` action encoding
so the two can be compared move for move:

* a deck of three cards, Jack < Queen < King (card ids 0, 1, 2); each player antes 1;
* chance deals one card to player 0, then one of the two remaining cards to player 1 (two
  chance nodes, outcomes = card ids);
* player 0 acts first; actions are ``0`` = pass (check or fold) and ``1`` = bet (bet or call,
  one chip); the betting sequences ``pp``, ``bb``, ``pbb`` end in a showdown (higher card wins
  the pot), ``bp`` and ``pbp`` end with a fold.

Why it is here: it is small enough to enumerate yet has everything the big games have
(explicit chance, hidden cards, determinization through ``sample_state``), so the shared
conformance suite, the arena and the records are tested on it against an independent peer
and against exact expected values.

Agents (``REGISTRY``): ``random``, and ``nash:alpha=A`` — the one-parameter family of Nash
equilibria (first player bets a Jack with probability alpha in [0, 1/3]; value -1/18 to the
first player), which gives the arena tests an exactly known expected score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from paiju.core.agents import AgentRegistry, UniformRandomAgent
from paiju.core.errors import ConfigError, IllegalMoveError, InvalidNotationError
from paiju.core.protocol import CHANCE, TERMINAL, Action, GameInfo, State
from paiju.core.rng import SeedLike, as_generator

JACK, QUEEN, KING = 0, 1, 2
CARD_NAMES = "JQK"
PASS, BET = 0, 1
MOVE_NAMES = ("pass", "bet")
_TERMINAL_BETTING = {(PASS, PASS), (BET, PASS), (BET, BET), (PASS, BET, PASS), (PASS, BET, BET)}


def card_name(card: int) -> str:
    return CARD_NAMES[card]


def parse_card(text: str) -> int:
    """``"J"``/``"Q"``/``"K"`` -> card id, with an error naming a bad input."""
    if len(text) != 1 or text.upper() not in CARD_NAMES:
        raise InvalidNotationError(f"{text!r} is not a Kuhn poker card (expected one of J, Q, K)")
    return CARD_NAMES.index(text.upper())


@dataclass(frozen=True)
class KuhnObservation:
    """What one player sees: own card (None before it is dealt), cards dealt, the betting."""

    player: int
    card: int | None
    cards_dealt: int
    betting: tuple[int, ...]

    def __str__(self) -> str:
        own = "?" if self.card is None else card_name(self.card)
        return f"p{self.player} card {own} betting {''.join('pb'[a] for a in self.betting) or '-'}"


class KuhnPokerState(State[int]):
    """Cards dealt so far (``cards[p]`` is player p's card) and the betting sequence."""

    game: KuhnPokerGame

    def __init__(self, game: KuhnPokerGame) -> None:
        self.game = game
        self.cards: list[int] = []
        self.betting: list[int] = []

    # ---- the protocol ----------------------------------------------------------------------
    def current_player(self) -> int:
        if len(self.cards) < 2:
            return CHANCE
        if tuple(self.betting) in _TERMINAL_BETTING:
            return TERMINAL
        return len(self.betting) % 2

    def _legal_actions(self) -> list[int]:
        return [PASS, BET]

    def _is_legal(self, action: int) -> bool:
        return isinstance(action, int | np.integer) and not isinstance(action, bool) and action in (PASS, BET)

    def _illegal_reason(self, action: int) -> str:
        return (
            f"illegal Kuhn poker move {action!r} for player {self.current_player()}: "
            f"moves are 0 (pass) and 1 (bet)"
        )

    def chance_outcomes(self) -> list[tuple[int, float]]:
        remaining = [c for c in (JACK, QUEEN, KING) if c not in self.cards]
        return [(c, 1.0 / len(remaining)) for c in remaining]

    def _check_chance_outcome(self, action: int) -> None:
        if action not in [c for c, _ in self.chance_outcomes()]:
            raise IllegalMoveError(
                f"cannot deal card {action!r}: the cards still in the deck are "
                f"{[card_name(c) for c, _ in self.chance_outcomes()]}"
            )

    def sample_chance(self, rng: np.random.Generator) -> int:
        remaining = [c for c in (JACK, QUEEN, KING) if c not in self.cards]
        return remaining[int(rng.integers(len(remaining)))]

    def _apply(self, action: int) -> None:
        if len(self.cards) < 2:
            self.cards.append(int(action))
        else:
            self.betting.append(int(action))

    def clone(self) -> KuhnPokerState:
        copy = KuhnPokerState(self.game)
        copy.cards = list(self.cards)
        copy.betting = list(self.betting)
        return copy

    def returns(self) -> list[float]:
        if self.current_player() != TERMINAL:
            return [0.0, 0.0]
        betting = tuple(self.betting)
        if betting == (BET, PASS):  # player 1 folded to a bet
            return [1.0, -1.0]
        if betting == (PASS, BET, PASS):  # player 0 folded
            return [-1.0, 1.0]
        stake = 2.0 if BET in betting else 1.0  # showdown: each put in 1 (ante) + 1 per call
        winner = 0 if self.cards[0] > self.cards[1] else 1
        return [stake, -stake] if winner == 0 else [-stake, stake]

    def observation(self, player: int) -> KuhnObservation:
        if player not in (0, 1):
            raise ValueError(f"Kuhn poker has players 0 and 1, not {player}")
        card = self.cards[player] if len(self.cards) > player else None
        return KuhnObservation(player, card, len(self.cards), tuple(self.betting))

    def action_to_string(self, action: int) -> str:
        if len(self.cards) < 2:
            return f"deal {card_name(int(action))}"
        return MOVE_NAMES[int(action)]

    # ---- notation --------------------------------------------------------------------------
    def deal_notation(self) -> str:
        """The cards dealt, player 0 first, e.g. ``"KJ"``."""
        return "".join(card_name(c) for c in self.cards)

    def __repr__(self) -> str:
        betting = "".join("pb"[a] for a in self.betting)
        return f"KuhnPokerState(cards={self.deal_notation()!r}, betting={betting!r})"


class KuhnPokerGame:
    """The game object: static info, the initial (chance) state, and determinization."""

    info = GameInfo(
        name="kuhn_poker",
        num_players=2,
        has_chance=True,
        perfect_information=False,
        utility_range=(-2.0, 2.0),
        max_game_length=3,
        rules_version="kuhn-1950",
        num_distinct_actions=2,
        constant_sum=0.0,
    )

    def new_initial_state(self) -> KuhnPokerState:
        return KuhnPokerState(self)

    def sample_state(self, observation: Any, rng: np.random.Generator) -> KuhnPokerState:
        """A state consistent with ``observation``: hidden cards drawn uniformly from the rest.

        Uniform, not posterior-weighted by the opponent's betting: that weighting belongs to
        the agent that calls this (it knows what policy it assumes for the opponent).
        """
        if not isinstance(observation, KuhnObservation):
            raise TypeError(f"expected a KuhnObservation, got {type(observation).__name__}")
        state = KuhnPokerState(self)
        known = {observation.player: observation.card} if observation.card is not None else {}
        for seat in range(observation.cards_dealt):
            if seat in known:
                state.cards.append(known[seat])
            else:
                rest = [c for c in (JACK, QUEEN, KING) if c not in state.cards and c not in known.values()]
                state.cards.append(rest[int(rng.integers(len(rest)))])
        for action in observation.betting:
            state.apply(action)
        return state

    def record_fields(self, state: KuhnPokerState, history: Sequence[Action]) -> dict[str, Any]:
        """Game-record columns (see ``docs/records.md``): the deal as ``"KJ"`` (player 0 first);
        the score of record is player 0's return."""
        return {
            "deal": state.deal_notation(),
            "score": state.returns()[0],
            "scoring_rule": "ante 1, bet 1",
            "extra": {"betting": "".join("pb"[a] for a in state.betting)},
        }


# ---- agents ------------------------------------------------------------------------------------
class KuhnNashAgent:
    """A Nash-equilibrium player (Kuhn's solution); ``alpha`` in [0, 1/3] picks the equilibrium.

    First player: Jack bets with prob alpha, Queen checks and calls a bet with prob
    alpha + 1/3, King bets with prob 3 alpha (and calls). Second player: facing a bet, call with
    King, call with Queen with prob 1/3, fold Jack; facing a check, bet King, check Queen,
    bet Jack with prob 1/3. Expected value for the first player: -1/18.
    """

    def __init__(self, seed: SeedLike = None, alpha: float = 0.0) -> None:
        if not 0.0 <= alpha <= 1.0 / 3.0:
            raise ConfigError(f"nash agent: alpha={alpha} is outside [0, 1/3]")
        self.name = f"nash(alpha={alpha:g})"
        self.alpha = alpha
        self._rng = as_generator(seed)

    def bet_probability(self, observation: KuhnObservation) -> float:
        """Probability of action 1 (bet/call) at this information state."""
        card, betting, a = observation.card, observation.betting, self.alpha
        if card is None:
            raise ValueError("Kuhn poker: no bet probability before the player's card is dealt")
        if observation.player == 0:
            if betting == ():
                return (a, 0.0, 3 * a)[card]
            return (0.0, a + 1.0 / 3.0, 1.0)[card]  # after pass-bet
        if betting == (BET,):
            return (0.0, 1.0 / 3.0, 1.0)[card]
        return (1.0 / 3.0, 0.0, 1.0)[card]  # after a pass

    def act(self, observation: Any, legal_actions: Sequence[int]) -> int:
        return BET if self._rng.random() < self.bet_probability(observation) else PASS


REGISTRY = AgentRegistry("kuhn_poker")
REGISTRY.register(
    "random", lambda seed=None: UniformRandomAgent(seed), {}, "uniform over pass/bet"
)
REGISTRY.register(
    "nash",
    lambda seed=None, alpha=0.0: KuhnNashAgent(seed, alpha),
    {"alpha": 0.0},
    "Kuhn's equilibrium family, alpha in [0, 1/3]",
    limits={"alpha": (0.0, 1.0 / 3.0)},
)
