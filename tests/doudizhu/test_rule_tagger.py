"""``rule:split=tagger``: the rule agent leading from the learned split."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from paiju.core.arena import run_arena
from paiju.core.errors import ConfigError
from paiju.doudizhu import Deal
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.agents.rule import TaggerLeads, leads_of, split_leads
from paiju.doudizhu.movegen import is_legal
from paiju.doudizhu.moves import counts_of, key_of
from paiju.doudizhu.split import exact
from paiju.doudizhu.tagger import model as model_module
from paiju.doudizhu.tagger.model import HandTagger, ModelConfig, save_model


@pytest.fixture
def tagger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small random tagger stands in for the shipped one (whether or not one is shipped)."""
    torch.manual_seed(7)
    save_model(HandTagger(ModelConfig(embedding=8, hidden=8)), tmp_path / "t.pt")
    monkeypatch.setattr(model_module, "SHIPPED", tmp_path / "t.pt")
    monkeypatch.setattr(model_module, "_LOADED", {})
    return tmp_path / "t.pt"


def test_tagger_leads_are_legal_plays_that_cover_the_hand(tagger: Path) -> None:
    leads = TaggerLeads()
    rng = np.random.default_rng(11)
    differs = 0
    for _ in range(60):
        deal = Deal.random(rng)
        for hand in deal.hands:
            key = key_of(hand.counts)
            moves = leads(key)
            assert all(is_legal(key, m, None) for m in moves)
            # the plays of a split partition the hand (equal plays are led as one move): every
            # rank held is in some lead, and no lead uses more of a rank than the hand holds
            held = {r for r, n in enumerate(hand.counts) if n}
            assert held == {r for m in moves for r, n in enumerate(counts_of(m.key)) if n}
            assert all(sum(counts_of(m.key)[r] for m in set(moves)) <= hand.counts[r] for r in held)
            differs += set(moves) != set(split_leads(key))
    assert differs > 0  # an untrained tagger splits otherwise than the exact split: not vacuous


def test_leads_of_the_exact_split_are_the_rule_agents_leads() -> None:
    rng = np.random.default_rng(3)
    for _ in range(40):
        hand = Deal.random(rng).hands[0]
        key = key_of(hand.counts)
        assert leads_of(exact(hand, "plays"), key) == split_leads(key)


def test_rule_split_tagger_plays_whole_games_and_the_spec_is_checked(tagger: Path) -> None:
    report = run_arena("doudizhu", ["rule:split=tagger", "rule"], 12, seed=5, fmt="duplicate")
    assert report.n_games == 12 and {s.agent for s in report.roles} == {"rule:split=tagger", "rule"}
    with pytest.raises(ConfigError, match="split='groups' is not one of exact, tagger"):
        REGISTRY.make("rule:split=groups")
