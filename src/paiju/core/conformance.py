"""The one API-conformance suite every game in paiju must pass (``docs/design.md`` §10).

Each game's tests call :func:`check_game_api` (or the individual checks). The checks play
seeded random games and assert, at every step:

* a non-terminal decision node has a non-empty, duplicate-free legal action list, and a
  fixed-action-space game's mask matches it;
* ``clone`` is fully independent (playing on the clone leaves the original untouched, and
  the same move on both keeps them equal);
* the same seed gives the same game even with the global RNGs disturbed in between;
* returns are zeros before the end, then of the right length, in ``utility_range`` and
  summing to ``constant_sum`` when the game declares one;
* a player's observation is unchanged when the hidden cards are resampled from it, and the
  resampled state is a valid state (same player to act, same legal actions for that player);
  in a perfect-information game resampling changes nobody's observation, and in a
  hidden-information game it must change some other player's observation at least once over
  the run (otherwise ``sample_state`` is copying hidden cards the observation leaks);
* ``sample_state`` is seeded: the same seed gives the same state with the global RNGs disturbed;
* playing after the end, or an illegal action, raises :class:`IllegalMoveError`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from paiju.core.agents import UniformRandomAgent
from paiju.core.errors import IllegalMoveError
from paiju.core.protocol import Action, Game, State, play_game
from paiju.core.rng import as_generator, derive_seed


def _random_playout(
    game: Game, seed: int, on_decision: Callable[[State, np.random.Generator], None] | None = None,
    disturb_global: bool = False,
) -> tuple[State, list[Action]]:
    """A seeded game of uniformly random agents through :func:`play_game`; ``on_decision`` sees
    each decision node first, and ``disturb_global`` draws from the global RNGs before every
    move (a game that reads them would diverge)."""
    rng = as_generator(seed)
    agents = [UniformRandomAgent(derive_seed(seed, 1 + p)) for p in range(game.info.num_players)]

    def before(state: State, player: int) -> None:
        if disturb_global:
            random.random()
            np.random.random()
        if on_decision is not None and player >= 0:
            on_decision(state, rng)

    played = play_game(game, agents, seed, before_move=before)
    return played.state, played.actions


def check_legal_actions(state: State) -> None:
    legal = state.legal_actions()
    name = state.game.info.name
    assert legal, f"{name}: no legal actions at a non-terminal decision node"
    assert len(set(legal)) == len(legal), f"{name}: duplicate legal actions"
    if state.game.info.num_distinct_actions is not None:
        mask = state.legal_action_mask()
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(legal), f"{name}: mask != legal actions"
    assert state.returns() == [0.0] * state.game.info.num_players or all(
        r == 0 for r in state.returns()
    ), f"{name}: non-zero returns before the end"


def check_clone_independence(state: State, rng: np.random.Generator) -> None:
    n = state.game.info.num_players
    before = [state.observation(p) for p in range(n)]
    before_legal = list(state.legal_actions())
    copy = state.clone()
    legal = copy.legal_actions()
    action = legal[int(rng.integers(len(legal)))]
    copy.apply(action)
    # play the copy further so deep structures (hands, boards, walls) are touched
    for _ in range(3):
        if copy.is_terminal():
            break
        if copy.is_chance_node():
            copy.apply_chance(rng)
        else:
            acts = copy.legal_actions()
            copy.apply(acts[int(rng.integers(len(acts)))])
    name = state.game.info.name
    assert [state.observation(p) for p in range(n)] == before, f"{name}: clone shares state with original"
    assert list(state.legal_actions()) == before_legal, f"{name}: clone changed original's legal actions"
    twin = state.clone()
    state_copy = state.clone()
    twin.apply(action)
    state_copy.apply(action)
    assert [twin.observation(p) for p in range(n)] == [state_copy.observation(p) for p in range(n)], (
        f"{name}: two clones diverged after the same move"
    )


def check_resampling(state: State, rng: np.random.Generator) -> int:
    """Check determinization from every player's view; returns how many resamples changed
    another player's observation (the hidden information actually varied)."""
    info = state.game.info
    name = info.name
    varied = 0
    for player in range(info.num_players):
        obs = state.observation(player)
        resampled = state.resample_from_infostate(player, rng)
        assert resampled.observation(player) == obs, (
            f"{name}: player {player}'s observation changed when hidden cards were resampled"
        )
        others_changed = any(
            resampled.observation(q) != state.observation(q) for q in range(info.num_players) if q != player
        )
        if info.perfect_information:
            assert not others_changed, (
                f"{name}: perfect-information game, yet resampling from player {player}'s "
                f"observation changed another player's observation"
            )
        varied += others_changed
        # determinization is a random process too: same seed, same state, whatever the globals
        sub_seed = int(rng.integers(2**32))
        first = state.game.sample_state(obs, as_generator(sub_seed))
        random.random()
        np.random.random()
        second = state.game.sample_state(obs, as_generator(sub_seed))
        assert [first.observation(q) for q in range(info.num_players)] == [
            second.observation(q) for q in range(info.num_players)
        ], f"{name}: sample_state gave different states for the same seed (global RNG use?)"
        assert resampled.current_player() == state.current_player(), f"{name}: resample changed the turn"
        if state.current_player() == player:
            assert sorted(map(repr, resampled.legal_actions())) == sorted(map(repr, state.legal_actions())), (
                f"{name}: acting player's legal actions differ in a resampled state"
            )
        # the resampled state must itself be playable to the end
        if rng.random() < 0.2:
            probe = resampled.clone()
            while not probe.is_terminal():
                if probe.is_chance_node():
                    probe.apply_chance(rng)
                else:
                    acts = probe.legal_actions()
                    probe.apply(acts[int(rng.integers(len(acts)))])
    return varied


def check_returns(state: State) -> None:
    info = state.game.info
    returns = state.returns()
    assert len(returns) == info.num_players, f"{info.name}: returns of wrong length"
    lo, hi = info.utility_range
    assert all(lo - 1e-9 <= r <= hi + 1e-9 for r in returns), f"{info.name}: returns {returns} out of range"
    if info.constant_sum is not None:
        assert abs(sum(returns) - info.constant_sum) < 1e-6, f"{info.name}: returns {returns} sum wrong"


def check_terminal_rejects_moves(state: State) -> None:
    try:
        state.apply(0)
    except IllegalMoveError:
        return
    raise AssertionError(f"{state.game.info.name}: a move after the end was accepted")


def check_game_api(
    game: Game,
    *,
    games: int = 20,
    seed: int = 0,
    clone_checks_per_game: int = 3,
    resample_checks_per_game: int = 3,
    illegal_action: Callable[[State], Any] | None = None,
) -> None:
    """Run the whole suite on ``games`` seeded random games of ``game``.

    ``illegal_action(state)`` may return an action known to be illegal in ``state`` (or None);
    the suite then checks that ``apply`` refuses it with :class:`IllegalMoveError` and leaves
    the state unchanged.
    """
    resamples = varied = 0
    for g in range(games):
        n, v = _check_one_game(
            game, seed * 100_003 + g, clone_checks_per_game, resample_checks_per_game, illegal_action
        )
        resamples += n
        varied += v
    # Over a whole run a hidden-information game must show resampling actually redrawing
    # hidden cards; a handful of resamples could all agree by chance, so only judge on >= 10.
    if not game.info.perfect_information and resamples >= 10:
        assert varied > 0, (
            f"{game.info.name}: {resamples} resamples from players' observations never changed "
            f"another player's observation: sample_state does not redraw hidden information "
            f"(does the observation leak it?)"
        )


def _check_one_game(
    game: Game,
    game_seed: int,
    clone_checks: int,
    resample_checks: int,
    illegal_action: Callable[[State], Any] | None,
) -> tuple[int, int]:
    decisions = 0
    resamples = varied = 0
    plan_rng = as_generator(game_seed + 7)
    # probabilities tuned so a handful of checks land in every game whatever its length
    p_clone = min(1.0, clone_checks / 30)
    p_resample = min(1.0, resample_checks / 30)

    def on_decision(state: State, rng: np.random.Generator) -> None:
        nonlocal decisions, resamples, varied
        decisions += 1
        check_legal_actions(state)
        if decisions == 1 or plan_rng.random() < p_clone:
            check_clone_independence(state, plan_rng)
        if decisions == 1 or plan_rng.random() < p_resample:
            varied += check_resampling(state, plan_rng)
            resamples += state.game.info.num_players
        if illegal_action is not None:
            bad = illegal_action(state)
            if bad is not None:
                n = state.game.info.num_players
                before = [state.observation(p) for p in range(n)]
                try:
                    state.apply(bad)
                except IllegalMoveError as err:
                    assert str(err), "IllegalMoveError without a message"
                else:
                    raise AssertionError(f"{game.info.name}: illegal action {bad!r} was accepted")
                assert [state.observation(p) for p in range(n)] == before, "illegal action changed state"

    final, history = _random_playout(game, game_seed, on_decision)
    check_returns(final)
    check_terminal_rejects_moves(final)
    again, history2 = _random_playout(game, game_seed, None, disturb_global=True)
    assert list(map(repr, history)) == list(map(repr, history2)), (
        f"{game.info.name}: the same seed gave a different game"
    )
    assert again.returns() == final.returns(), f"{game.info.name}: same seed, different returns"
    return resamples, varied
