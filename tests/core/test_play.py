"""The one game loop: play_game's hooks, its errors, and lock-step play of many games."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from paiju.core.agents import UniformRandomAgent, random_agents
from paiju.core.errors import IllegalMoveError
from paiju.core.protocol import CHANCE, Action, PlayedGame, State, play_game, play_games_lockstep
from paiju.games.connect_four import ConnectFour
from paiju.games.kuhn_poker import KuhnPokerGame
from paiju.games.tictactoe import TicTacToe


def test_hooks_see_every_move_in_order_with_the_state_around_it() -> None:
    game = KuhnPokerGame()
    seen_before: list[tuple[int, int]] = []  # (player to move, moves so far)
    seen_after: list[tuple[int, Action, str]] = []

    def before(state: State, player: int) -> None:
        assert state.current_player() == player
        seen_before.append((player, len(seen_after)))

    def after(state: State, played: PlayedGame) -> None:
        seen_after.append((played.players[-1], played.actions[-1], played.moves[-1]))

    played = play_game(game, random_agents(2, 3), 7, notation=True, before_move=before, after_move=after)
    n = len(played.actions)
    assert [p for p, _ in seen_before] == played.players  # the hook ran before each of the n moves
    assert [k for _, k in seen_before] == list(range(n))
    assert seen_after == list(zip(played.players, played.actions, played.moves, strict=True))
    assert played.players[:2] == [CHANCE, CHANCE]  # the two cards dealt
    assert played.move_ms[:2] == [0.0, 0.0] and all(ms >= 0 for ms in played.move_ms)


def test_a_given_start_state_is_played_on_and_chance_comes_from_the_seed() -> None:
    game = ConnectFour()
    start = game.new_initial_state()
    start.apply(3)
    start.apply(3)
    played = play_game(game, random_agents(2, 1), 0, start=start)
    assert played.state is start and start.is_terminal()
    # the same seeds replay the same game
    start2 = game.new_initial_state()
    start2.apply(3)
    start2.apply(3)
    assert play_game(game, random_agents(2, 1), 0, start=start2).actions == played.actions


class _Stubborn:
    """Always plays the first cell, legal or not."""

    name = "stubborn"

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        return 0


def test_an_illegal_move_names_the_agent_and_seat() -> None:
    with pytest.raises(IllegalMoveError, match="agent stubborn in seat 0"):
        play_game(TicTacToe(), [_Stubborn(), UniformRandomAgent(1)], 0)


def test_stop_on_error_returns_the_game_up_to_the_failing_move() -> None:
    agents = [_Stubborn(), UniformRandomAgent(1)]
    played = play_game(TicTacToe(), agents, 0, notation=True, stop_on_error=True)
    assert isinstance(played.error, IllegalMoveError)
    # move 0 (the first cell) was legal; the failing move is the last one recorded
    assert played.actions[0] == 0 and played.actions[-1] == 0 and played.players[-1] == 0
    assert len(played.moves) == len(played.actions)


def test_a_game_over_the_move_limit_is_a_rules_bug() -> None:
    with pytest.raises(RuntimeError, match="exceeded 3 moves"):
        play_game(ConnectFour(), random_agents(2, 0), 0, max_moves=3)


class _Lowest:
    """Plays the lowest legal action: deterministic, so a shared instance plays every game as
    its own copy would; ``act_batch`` answers many games in one call and counts the calls."""

    name = "lowest"

    def __init__(self) -> None:
        self.batches: list[int] = []

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        return min(legal_actions)

    def act_batch(self, observations: Sequence[Any], legal: Sequence[Sequence[Action]]) -> list[Action]:
        self.batches.append(len(observations))
        return [min(acts) for acts in legal]


def test_lockstep_equals_separate_games_and_batches_the_shared_agent() -> None:
    game = ConnectFour()
    seeds = list(range(6))
    separate = [play_game(game, [_Lowest(), UniformRandomAgent(10 + s)], s, notation=True) for s in seeds]
    shared = _Lowest()
    together = play_games_lockstep(
        game, [[shared, UniformRandomAgent(10 + s)] for s in seeds], seeds, notation=True
    )
    assert [g.actions for g in together] == [g.actions for g in separate]
    assert [g.moves for g in together] == [g.moves for g in separate]
    assert [g.state.returns() for g in together] == [g.state.returns() for g in separate]
    # seat 0 moves first in all six games: one call for all of them, then fewer as games end
    assert shared.batches[0] == 6 and shared.batches == sorted(shared.batches, reverse=True)
    assert sum(shared.batches) == sum(g.players.count(0) for g in separate)
