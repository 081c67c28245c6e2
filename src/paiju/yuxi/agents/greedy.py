"""The greedy yuxi agent: a documented one-ply heuristic, the baseline search must beat.

For every legal action it plays the action on a copy of a state rebuilt from its own
observation and scores the position reached with :func:`position_value`; it takes the
best (ties: the first in legal-action order, so it is deterministic). The opponent's
hidden hand is redrawn in that copy but never read: one ply of the player's own action
depends only on the board and the player's own cards, so the one-ply look-ahead is exact.

:func:`position_value` from seat ``me``'s view is

* the points difference on the board (the final result, before the die);
* + 0.5 per point of armour difference and + 0.25 per coin difference (purse and carried);
* - 1 for each of my characters standing on thunder and - 0.5 on erosion (what the next
  turn end will cost), the opposite for the opponent's;
* + the potential of my hand while I am still in the game: 0.8 x each deck card's
  :func:`~paiju.yuxi.cards.static_value` and 0.5 per void card (void cards are free to play,
  so holding them is worth little and the agent plays them when they help);
* at a finished game, 1000 x the result plus the final score difference.

So passing with cards in hand (ending the turn without playing, which finishes the player)
throws away the hand's potential and is chosen only when nothing helps; a card is played
when its immediate effect on the board beats what it is worth in hand; a swap is taken
when the offered card's static value beats the card given.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from paiju.core.protocol import Action
from paiju.core.rng import SeedLike, as_generator
from paiju.yuxi.cards import static_value
from paiju.yuxi.effects import EROSION, THUNDER
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiObservation, YuxiState

_GAMES: dict[YuxiConfig, YuxiGame] = {}


def game_for(config: YuxiConfig) -> YuxiGame:
    """The (cached) game of a configuration: agents learn the room from the observation."""
    game = _GAMES.get(config)
    if game is None:
        game = _GAMES[config] = YuxiGame(config)
    return game


@contextmanager
def searching_with(game: YuxiGame) -> Iterator[None]:
    """While inside, agents that meet ``game``'s configuration (built inside the block)
    sample and search their positions with ``game`` itself: with a checked game
    (``check_invariants=True``) every state they visit inside a search is checked too (the
    audit's ``in_search``)."""
    previous = _GAMES.get(game.config)
    _GAMES[game.config] = game
    try:
        yield
    finally:
        if previous is None:
            _GAMES.pop(game.config, None)
        else:
            _GAMES[game.config] = previous


_VALUES: dict[int, list[float]] = {}


def _hand_values(game: YuxiGame) -> list[float]:
    key = id(game.table)
    values = _VALUES.get(key)
    if values is None:
        values = (
            [0.0]
            + [
                0.5 if c.is_void else 0.8 * static_value(c)
                for c in map(game.table.card, range(1, game.table.num_ids + 1))
            ]
        )
        _VALUES[key] = values
    return values


def position_value(state: YuxiState, me: int) -> float:
    """The greedy agent's heuristic value of ``state`` for seat ``me`` (module docstring)."""
    opp = 1 - me
    if state.is_terminal():
        a, b = state.final_scores()
        mine, theirs = (a, b) if me == 0 else (b, a)
        return 1000.0 * state.returns()[me] + (mine - theirs)
    value = float(state.score[me] - state.score[opp])
    sign = (1.0, -1.0)
    armour = coins = hazard = 0.0
    owner, weather = state.owner, state.weather
    for cell, cid in enumerate(state.card):
        if cid:
            s = sign[0] if owner[cell] == me else sign[1]
            armour += s * state.armour[cell]
            coins += s * state.coins[cell]
            w = weather[cell]
            if w == THUNDER:
                hazard -= s
            elif w == EROSION:
                hazard -= 0.5 * s
    coins += state.purse[me] - state.purse[opp]
    value += 0.5 * armour + 0.25 * coins + hazard
    if not state.out[me]:
        values = _hand_values(state.game)
        value += sum(values[c] for c in state.hand[me])
    return value


class GreedyAgent:
    """One-ply greedy play on :func:`position_value` (see the module docstring)."""

    def __init__(self, seed: SeedLike = None, name: str = "greedy") -> None:
        self.name = name
        self._rng = as_generator(seed)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("greedy agent asked to act with no legal actions")
        if not isinstance(observation, YuxiObservation):
            raise TypeError(
                f"the yuxi greedy agent needs a YuxiObservation, got {type(observation).__name__}"
            )
        if len(legal_actions) == 1:
            return legal_actions[0]
        state = game_for(observation.config).sample_state(observation, self._rng)
        return best_action(state, observation.player, legal_actions)


def best_action(state: YuxiState, me: int, legal_actions: Sequence[Action]) -> Action:
    """The first legal action with the highest one-ply :func:`position_value`."""
    best = legal_actions[0]
    best_value = -float("inf")
    for action in legal_actions:
        child = state.clone()
        child.apply(action)
        value = position_value(child, me)
        if value > best_value + 1e-9:
            best, best_value = action, value
    return best
