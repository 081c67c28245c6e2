"""Kuhn poker against OpenSpiel's ``kuhn_poker`` (test-only peer), and the shared API suite.

Also proves the suite *can fail*: deliberately broken variants of the game (a clone that
shares state, an observation that leaks the opponent's card, global RNG use) must be caught.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pyspiel
import pytest

from paiju.core.conformance import check_game_api
from paiju.core.errors import ConfigError, IllegalMoveError, InvalidNotationError
from paiju.core.protocol import CHANCE, TERMINAL, new_game, play_game
from paiju.core.rng import as_generator
from paiju.games.kuhn_poker import (
    REGISTRY,
    KuhnNashAgent,
    KuhnObservation,
    KuhnPokerGame,
    KuhnPokerState,
    parse_card,
)

PEER = pyspiel.load_game("kuhn_poker")


def _peer_infostate(obs: KuhnObservation) -> str:
    """OpenSpiel's information-state string: the card id followed by the betting as p/b."""
    return f"{obs.card}" + "".join("pb"[a] for a in obs.betting)


def _assert_same(ours: KuhnPokerState, peer: pyspiel.State) -> None:
    assert ours.is_terminal() == peer.is_terminal()
    assert ours.is_chance_node() == peer.is_chance_node()
    if peer.is_terminal():
        assert ours.current_player() == TERMINAL
        assert ours.returns() == pytest.approx(peer.returns())
        return
    if peer.is_chance_node():
        assert ours.current_player() == CHANCE
        ours_outcomes, peer_outcomes = ours.chance_outcomes(), peer.chance_outcomes()
        assert [a for a, _ in ours_outcomes] == [a for a, _ in peer_outcomes]
        assert [p for _, p in ours_outcomes] == pytest.approx([p for _, p in peer_outcomes])
        return
    assert ours.current_player() == peer.current_player()
    assert ours.legal_actions() == peer.legal_actions()
    assert ours.returns() == [0.0, 0.0]
    for p in (0, 1):
        assert _peer_infostate(ours.observation(p)) == peer.information_state_string(p)
    for a in peer.legal_actions():
        assert ours.action_to_string(a) == peer.action_to_string(a).lower()


def test_random_playouts_match_openspiel_move_for_move() -> None:
    rng = as_generator(2024)
    for _ in range(400):
        ours, peer = KuhnPokerGame().new_initial_state(), PEER.new_initial_state()
        while True:
            _assert_same(ours, peer)
            if peer.is_terminal():
                break
            legal = [a for a, _ in peer.chance_outcomes()] if peer.is_chance_node() else peer.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            ours.apply(action)
            peer.apply_action(action)


def test_every_terminal_history_has_openspiel_returns() -> None:
    """All 6 deals x 5 betting sequences: exhaustive, not sampled."""
    seen = 0
    for deal in itertools.permutations(range(3), 2):
        for betting in [(0, 0), (0, 1, 0), (0, 1, 1), (1, 0), (1, 1)]:
            ours, peer = KuhnPokerGame().new_initial_state(), PEER.new_initial_state()
            for a in (*deal, *betting):
                ours.apply(a)
                peer.apply_action(a)
            _assert_same(ours, peer)
            seen += 1
    assert seen == 30


def test_kuhn_passes_the_shared_api_suite() -> None:
    check_game_api(KuhnPokerGame(), games=60, seed=3, illegal_action=lambda state: 2)


def test_sample_state_keeps_own_card_and_betting_and_draws_both_opponent_cards() -> None:
    state = new_game(KuhnPokerGame(), 5)
    state.apply(0)
    obs = state.observation(1)
    drawn = set()
    rng = as_generator(0)
    for _ in range(50):
        s = KuhnPokerGame().sample_state(obs, rng)
        assert s.observation(1) == obs and s.betting == [0]
        drawn.add(s.cards[0])
    assert drawn == {0, 1, 2} - {obs.card}


def test_bad_input_is_refused_with_a_reason() -> None:
    state = new_game(KuhnPokerGame(), 1)
    with pytest.raises(IllegalMoveError, match="pass"):
        state.apply(2)
    with pytest.raises(IllegalMoveError):
        state.apply(True)
    chance = KuhnPokerGame().new_initial_state()
    chance.apply(2)
    with pytest.raises(IllegalMoveError, match="cannot deal card 2"):
        chance.apply(2)
    with pytest.raises(InvalidNotationError, match="'A'"):
        parse_card("A")
    assert [parse_card(c) for c in "jQK"] == [0, 1, 2]
    with pytest.raises(ConfigError, match="alpha"):
        REGISTRY.make("nash:alpha=0.5", seed=0)


# ---- the Nash agents give the known game value -------------------------------------------------
def _exact_value(first: KuhnNashAgent, second: KuhnNashAgent) -> Fraction:
    """Expected return of the first player by enumerating the game tree (exact fractions)."""

    def p_bet(agent: KuhnNashAgent, obs: KuhnObservation) -> Fraction:
        return Fraction(agent.bet_probability(obs)).limit_denominator(1000)

    def walk(state: KuhnPokerState) -> Fraction:
        if state.is_terminal():
            return Fraction(state.returns()[0])
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            share = Fraction(1, len(outcomes))
            return sum((share * walk(_child(state, a)) for a, _ in outcomes), Fraction(0))
        player = state.current_player()
        q = p_bet((first, second)[player], state.observation(player))
        return q * walk(_child(state, 1)) + (1 - q) * walk(_child(state, 0))

    return walk(KuhnPokerGame().new_initial_state())


def _child(state: KuhnPokerState, action: int) -> KuhnPokerState:
    child = state.clone()
    child.apply(action)
    return child


@pytest.mark.parametrize("alpha", [0.0, 0.2, 1 / 3])
def test_nash_family_is_worth_minus_one_eighteenth_to_the_first_player(alpha: float) -> None:
    assert _exact_value(KuhnNashAgent(0, alpha), KuhnNashAgent(1, 0.0)) == Fraction(-1, 18)


def test_nash_play_agrees_with_its_probabilities() -> None:
    agents = [REGISTRY.make("nash:alpha=0.2", seed=1), REGISTRY.make("nash", seed=2)]
    total = sum(play_game(KuhnPokerGame(), agents, seed).state.returns()[0] for seed in range(4000))
    # exact value -1/18 = -0.0556; the per-game sd is ~1.3, so 4 standard errors is ~0.08
    assert abs(total / 4000 + 1 / 18) < 0.08


# ---- the suite must fail on broken games --------------------------------------------------------
class _SharedCloneState(KuhnPokerState):
    def clone(self) -> KuhnPokerState:
        copy = _SharedCloneState(self.game)  # type: ignore[arg-type]
        copy.cards, copy.betting = self.cards, self.betting  # the bug: same lists
        return copy


@dataclass(frozen=True)
class _LeakyObservation(KuhnObservation):
    opponent_card: int | None = None


class _LeakyObservationState(KuhnPokerState):
    def observation(self, player: int) -> KuhnObservation:
        obs = super().observation(player)
        opponent = self.cards[1 - player] if len(self.cards) > 1 - player else None
        return _LeakyObservation(player, obs.card, obs.cards_dealt, obs.betting, opponent)  # the bug


class _GlobalRngState(KuhnPokerState):
    def sample_chance(self, rng: np.random.Generator) -> int:
        remaining = [c for c in (0, 1, 2) if c not in self.cards]
        return random.choice(remaining)  # the bug: global RNG


def _game_with(state_cls: type[KuhnPokerState]) -> KuhnPokerGame:
    """Kuhn poker whose states are ``state_cls``; determinization is the honest one."""

    class Broken(KuhnPokerGame):
        def new_initial_state(self) -> KuhnPokerState:
            return state_cls(self)

        def sample_state(self, observation: Any, rng: np.random.Generator) -> KuhnPokerState:
            honest = KuhnPokerGame.sample_state(self, observation, rng)
            state = state_cls(self)
            state.cards, state.betting = list(honest.cards), list(honest.betting)
            return state

    return Broken()


def test_suite_fails_on_a_clone_that_shares_state() -> None:
    with pytest.raises(AssertionError, match="clone shares state"):
        check_game_api(_game_with(_SharedCloneState), games=5)


def test_suite_fails_on_an_observation_that_leaks_the_opponents_card() -> None:
    with pytest.raises(AssertionError, match="observation changed when hidden cards were resampled"):
        check_game_api(_game_with(_LeakyObservationState), games=20)


def test_suite_fails_on_a_determinization_that_copies_a_leaked_card() -> None:
    """A leak that sample_state faithfully copies back is caught by the 'never varies' check."""

    class CopyingLeak(KuhnPokerGame):
        def new_initial_state(self) -> KuhnPokerState:
            return _LeakyObservationState(self)

        def sample_state(self, observation: Any, rng: np.random.Generator) -> KuhnPokerState:
            state = _LeakyObservationState(self)
            known = {observation.player: observation.card, 1 - observation.player: observation.opponent_card}
            state.cards = [known[p] for p in range(observation.cards_dealt)]
            state.betting = list(observation.betting)
            return state

    with pytest.raises(AssertionError, match="never changed another player's observation"):
        check_game_api(CopyingLeak(), games=20)


def test_suite_fails_on_a_game_using_the_global_rng() -> None:
    random.seed(0)
    with pytest.raises(AssertionError, match="same seed gave a different game"):
        check_game_api(_game_with(_GlobalRngState), games=20)


def test_suite_fails_on_a_determinization_using_the_global_rng() -> None:
    class GlobalSample(KuhnPokerGame):
        def sample_state(self, observation: Any, rng: np.random.Generator) -> KuhnPokerState:
            return super().sample_state(observation, np.random.default_rng(random.getrandbits(32)))

    with pytest.raises(AssertionError, match="sample_state gave different states for the same seed"):
        check_game_api(GlobalSample(), games=20)


def test_suite_fails_on_returns_that_do_not_sum_to_zero() -> None:
    class Generous(KuhnPokerState):
        def returns(self) -> list[float]:
            r = super().returns()
            return [r[0], 0.0] if self.is_terminal() else r

    with pytest.raises(AssertionError, match="sum wrong"):
        check_game_api(_game_with(Generous), games=5)
