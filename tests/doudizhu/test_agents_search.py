"""The determinized search agent: candidates, budget accounting, rollouts, and (slow) strength."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from ddz_positions import random_positions

from paiju.core.arena import run_arena
from paiju.core.errors import ConfigError
from paiju.doudizhu import PASS, Hand, Move
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.agents import search as search_module
from paiju.doudizhu.agents.rule import Situation, rule_move
from paiju.doudizhu.agents.search import SearchAgent, candidate_moves, rollout
from paiju.doudizhu.game import DouDizhuGame, DouDizhuState
from paiju.doudizhu.movegen import generate
from paiju.doudizhu.moves import key_of


def test_candidates_start_with_the_rule_choice_and_are_legal() -> None:
    for state in random_positions(40, 1):
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
    state = next(s for s in random_positions(30, 2) if s.to_beat is None)
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
    for state in random_positions(10, 3):
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
    state = next(s for s in random_positions(30, 4) if s.to_beat is None)
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
    assert (agent.budget, agent.width, agent.wings, agent.scoring) == (7, 2, "rlcard", "casual")


# ---- the rules come from the game ----------------------------------------------------------------


def _landlord_to_lead_d3(**rules: object) -> DouDizhuState:
    """The landlord has played 18 cards (the farmers passed every trick) and holds D and 3.

    It holds one card of every rank 4..2 besides, so no farmer can hold a bomb, and the red
    joker D means no rocket: leading D wins the next trick for sure, then 3 ends the game
    with the farmers never having played — a spring, in every sampled world.
    """
    from paiju.doudizhu.cards import Deal

    landlord = Hand.parse("3456789TJQKA2TTT999D")
    deck = "".join(rank * 4 for rank in "3456789TJQKA2") + "XD"
    cards = str(Hand.parse(deck) - landlord)
    deal = Deal.parse(f"[{landlord}][{cards[:17]}][{cards[17:]}]")
    state = DouDizhuGame(**rules).new_state_from_deal(deal)  # type: ignore[arg-type]
    for play in ("456789TJQKA", "2", "TTT", "999"):
        state.apply(Move.parse(play))
        state.apply(PASS)
        state.apply(PASS)
    assert str(state.observation(0).hand) == "3D"
    return state


@pytest.mark.parametrize(("scoring", "spring_value"), [("competition", 1.0), ("casual", 2.0)])
def test_search_values_a_spring_by_the_games_scoring(scoring: str, spring_value: float) -> None:
    # competition scoring pays max(1, bombs) = 1 whatever happens; casual doubles a spring
    state = _landlord_to_lead_d3(scoring=scoring)
    obs = state.observation(0)
    assert obs.config.scoring == scoring
    agent = SearchAgent(seed=0, budget=40, width=2)
    d_first = Move.parse("D")
    totals = agent.values(obs, [d_first])
    assert totals == [40 * spring_value]


def test_a_rule_alias_that_contradicts_the_game_is_refused() -> None:
    state = _landlord_to_lead_d3(scoring="casual")
    obs = state.observation(0)
    legal = state.legal_actions()
    agreeing = REGISTRY.make("search:scoring=casual,budget=4", seed=0)
    assert agreeing.act(obs, legal) in legal
    for spec, message in (
        ("search:scoring=competition", "search:scoring=competition but the game plays 'casual'"),
        ("search:wings=rlcard", "search:wings=rlcard but the game plays 'douzero'"),
    ):
        with pytest.raises(ConfigError, match=message):
            REGISTRY.make(spec, seed=0).act(obs, legal)


@pytest.mark.parametrize("spec", ["random", "greedy", "rule", "search:budget=12", "policy:model=small"])
def test_every_agent_plays_legally_under_the_rlcard_wing_rule_and_casual_scoring(spec: str) -> None:
    game = DouDizhuGame(wing_rule="rlcard", scoring="casual", bidding=True)
    rng = np.random.default_rng(5)
    agents = [REGISTRY.make(spec, seed=s) for s in range(3)]
    for _ in range(3):
        state = game.new_state_from_deal(game.new_initial_state().sample_chance(rng))
        while not state.is_terminal():
            seat = state.current_player()
            obs = state.observation(seat)
            assert obs.config == game.config
            move = agents[seat].act(obs, state.legal_actions())
            state.apply(move)  # raises if the move breaks the game's rules
