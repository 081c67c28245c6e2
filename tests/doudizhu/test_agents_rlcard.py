"""The RLCard rule-agent adapter (the ladder's external anchor): notation, state dict, behaviour."""

from __future__ import annotations

import pytest

from paiju.doudizhu import PASS, Deal, Hand, Move
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.agents.rlcard_anchor import raw_state, to_rlcard
from paiju.doudizhu.game import DouDizhuGame, DouDizhuState

pytest.importorskip("rlcard")


def _state(landlord: str, farmer1: str, plays: list[str]) -> DouDizhuState:
    deal = Deal([landlord, farmer1, Hand.full_deck() - Hand.parse(landlord) - Hand.parse(farmer1)])
    state = DouDizhuGame(wing_rule="rlcard").new_state_from_deal(deal)
    for text in plays:
        state.apply(state.parse_move(text))
    return state


LANDLORD = "3334567899TJQKA22XD"  # 19 + one more below
LANDLORD_20 = LANDLORD + "4"
FARMER1 = "3445566778899TJQK"


def test_notation_and_state_dict() -> None:
    assert to_rlcard(Move.parse("XD")) == "BR"
    assert to_rlcard(Move.parse("333X")) == "333B"
    assert to_rlcard(PASS) == "pass"
    state = _state(LANDLORD_20, FARMER1, ["3", "4", "pass"])
    from rlcard.games.doudizhu.utils import CARD_TYPE

    raw = raw_state(state.observation(0), state.legal_actions(), CARD_TYPE[0])
    assert raw["current_hand"] == str(state.hands[0]).replace("X", "B").replace("D", "R")
    assert raw["current_hand"].endswith("BR")
    assert raw["trace"] == [(0, "3"), (1, "4"), (2, "pass")]
    assert raw["landlord"] == 0 and raw["self"] == 0
    assert "pass" in raw["actions"] and "5" in raw["actions"] and "3" not in raw["actions"]


def test_leads_the_combination_holding_its_lowest_card() -> None:
    # RLCard's rule: split greedily (rocket, bombs, trios, chains, pairs, solos) and lead the
    # first combination that holds the lowest card: the landlord's 333 (trios come before chains)
    state = _state(LANDLORD_20, FARMER1, [])
    agent = REGISTRY.make("rlcard-rule", seed=0)
    assert agent.act(state.observation(0), state.legal_actions()) == Move.parse("333")


def test_follows_with_the_lowest_answer_of_the_same_type() -> None:
    state = _state(LANDLORD_20, FARMER1, ["5"])
    agent = REGISTRY.make("rlcard-rule", seed=0)
    assert agent.act(state.observation(1), state.legal_actions()) == Move.parse("6")


def test_farmer_without_an_answer_passes_on_its_partner() -> None:
    # farmer 1 plays KK over the landlord's 99; farmer 2 holds no higher pair but the bomb
    # TTTT: RLCard's rule passes rather than bombing its partner (no random draw here)
    landlord = "AA22XD993456789JQK34"
    farmer1 = "KKA2345678JQ45679"
    state = _state(landlord, farmer1, ["99", "KK"])
    hand2 = state.hands[2]
    assert hand2.count("T") == 4 and not any(hand2.count(r) >= 2 for r in "A2")
    assert Move.parse("TTTT") in state.legal_actions()
    for seed in range(5):
        agent = REGISTRY.make("rlcard-rule", seed=seed)
        assert agent.act(state.observation(2), state.legal_actions()) == PASS
