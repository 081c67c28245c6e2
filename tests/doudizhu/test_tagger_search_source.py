"""`search:leads=all`, the tagger's data source whose leads are not drawn from a split."""

from __future__ import annotations

import pytest
from ddz_positions import random_positions

from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.agents.rule import Situation, rule_move
from paiju.doudizhu.agents.search import SearchAgent, candidate_moves
from paiju.doudizhu.game import DouDizhuGame, GameRecord


def test_lead_candidates_are_every_legal_move_following_unchanged() -> None:
    leads = follows = wider = 0
    for state in random_positions(60, 3):
        obs = state.observation(state.current_player())
        legal = state.legal_actions()
        default = candidate_moves(Situation.from_observation(obs), legal, 6)
        every = candidate_moves(Situation.from_observation(obs), legal, 6, all_leads=True)
        if state.to_beat is None:
            leads += 1
            assert every[0] == rule_move(Situation.from_observation(obs), legal)
            assert len(every) == len(set(every)) == len(set(legal)) and set(every) == set(legal)
            assert set(default) <= set(every)
            wider += len(every) > 6  # beyond the width cap
        else:
            follows += 1
            assert every == default
    assert leads > 5 and follows > 5 and wider > 3


def test_the_spec_reaches_the_agent_and_the_default_is_unchanged() -> None:
    assert str(REGISTRY.resolve("search")) == "search"  # default spec: run ids of old runs stay
    agent = REGISTRY.make("search:leads=all,budget=8", seed=1)
    assert isinstance(agent, SearchAgent) and agent.all_leads
    default = REGISTRY.make("search", seed=1)
    assert isinstance(default, SearchAgent) and not default.all_leads
    with pytest.raises(ConfigError, match="leads"):
        REGISTRY.make("search:leads=some", seed=1)


def test_default_search_plays_the_same_moves_as_leads_split() -> None:
    def record(spec: str) -> GameRecord:
        players = [REGISTRY.make(spec, seed=i) for i in range(3)]
        return play_game(DouDizhuGame(), players, 5).state.record()

    a, b = record("search:budget=12"), record("search:budget=12,leads=split")
    c = record("search:budget=12,leads=all")
    assert a.plays == b.plays
    assert a.deal == c.deal and a.plays != c.plays  # all-leads searching does change play
