"""The determinized search agent: candidates, budget accounting, rollouts, and (slow) strength."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from paiju.core.arena import run_arena
from paiju.doudizhu import PASS, Hand, Move
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.agents import search as search_module
from paiju.doudizhu.agents.rule import Situation, rule_move
from paiju.doudizhu.agents.search import SearchAgent, candidate_moves, rollout
from paiju.doudizhu.game import DouDizhuGame, DouDizhuState
from paiju.doudizhu.movegen import generate
from paiju.doudizhu.moves import key_of


def _random_positions(n: int, seed: int) -> list[DouDizhuState]:
    game = DouDizhuGame()
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        state = game.new_state_from_deal(game.new_initial_state().sample_chance(rng))
        for _ in range(int(rng.integers(0, 30))):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            out.append(state)
    return out


def test_candidates_start_with_the_rule_choice_and_are_legal() -> None:
    for state in _random_positions(40, 1):
        seat = state.current_player()
        obs = state.observation(seat)
        legal = state.legal_actions()
        sit = Situation.from_observation(obs)
        cands = candidate_moves(sit, legal, 5)
        assert cands[0] == rule_move(Situation.from_observation(obs), legal)
        assert len(cands) == len(set(cands)) <= 5
        assert all(c in legal for c in cands)
        if state.to_beat is not None and len(legal) > 1:
            assert PASS in cands


def test_following_candidates_include_pass_and_bombs() -> None:
    hand = Hand.parse("3333KK5")
    sit = Situation(key_of(hand.counts), 1, 0, (15, 7, 10), Move.parse("Q"), 0,
                    key_of((Hand.full_deck() - hand).counts))
    legal = [*generate(sit.hand, sit.to_beat), PASS]
    cands = candidate_moves(sit, legal, 6)
    assert set(map(str, cands)) == {"K", "pass", "3333"}


def test_budget_is_rollouts_per_decision_and_time_caps_it(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = search_module.rollout

    def counting(state: DouDizhuState, strict: bool) -> list[float]:
        calls.append(1)
        return real(state, strict)

    monkeypatch.setattr(search_module, "rollout", counting)
    state = next(s for s in _random_positions(30, 2) if s.to_beat is None)
    obs, legal = state.observation(state.current_player()), state.legal_actions()
    agent = SearchAgent(seed=0, budget=40, width=4)
    n_cands = len(candidate_moves(Situation.from_observation(obs), legal, 4))
    assert n_cands >= 2
    agent.act(obs, legal)
    assert len(calls) == (40 // n_cands) * n_cands
    calls.clear()
    SearchAgent(seed=0, budget=4000, width=4, time_limit=1e-9).act(obs, legal)
    assert len(calls) == n_cands  # one determinization, then the (past) deadline stops it


def test_rollout_finishes_the_game_and_matches_the_rule_policy_on_full_information() -> None:
    """A rollout is the rule policy (groups scoring) in every seat: replaying its moves one
    by one through rule_move on the same state gives the same game."""
    for state in _random_positions(10, 3):
        world = state.clone()
        returns = rollout(world, strict=False)
        assert world.is_terminal() and returns == world.returns()
        replay = state.clone()
        for seat, move in world.history[len(state.history):]:
            assert replay.current_player() == seat
            hands = replay._hands
            trick = replay.to_beat
            sit = Situation(
                hands[seat], seat, 0, tuple(replay._sizes), trick,
                replay._owner if trick is not None else None,
                sum(hands) - hands[seat], False, True,
            )
            legal = replay.legal_actions()
            assert move == (legal[0] if len(legal) == 1 else rule_move(sit, legal))
            replay.apply(move)


def test_search_plays_the_finishing_move_without_searching(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "rollout", lambda *a: pytest.fail("no rollout needed"))
    state = next(s for s in _random_positions(30, 4) if s.to_beat is None)
    seat = state.current_player()
    sizes = list(state.observation(seat).hand_sizes)
    sizes[seat] = 6
    # the seat's hand replaced by a 6-card four with two: one legal move empties it
    obs = replace(state.observation(seat), hand=Hand.parse("888834"), hand_sizes=tuple(sizes))
    legal = generate(key_of(obs.hand.counts), None)
    assert len(legal) > 5
    assert SearchAgent(seed=0).act(obs, legal) == Move.parse("888834")


@pytest.mark.slow
def test_search_beats_rule_in_duplicate() -> None:
    report = run_arena("doudizhu", ["search:budget=60", "rule"], 120, seed=8, fmt="duplicate")
    assert report.paired_difference is not None and report.paired_difference.value > 0


def test_search_spec_reaches_the_agent() -> None:
    agent = REGISTRY.make("search:budget=7,width=2,wings=rlcard,scoring=casual", seed=1)
    assert isinstance(agent, SearchAgent)
    assert (agent.budget, agent.width, agent.strict, agent.scoring) == (7, 2, True, "casual")
