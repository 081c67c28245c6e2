"""The Dou Dizhu game: API conformance, turn order, bidding, scoring, records, determinization."""

from __future__ import annotations

import numpy as np
import pytest

from paiju.core.agents import random_agents
from paiju.core.conformance import check_game_api
from paiju.core.errors import ConfigError, CorruptRecordError, IllegalMoveError
from paiju.core.protocol import CHANCE, TERMINAL, play_game
from paiju.doudizhu import PASS, Deal, Hand, Move
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.game import (
    BIDS,
    Bid,
    DouDizhuConfig,
    DouDizhuGame,
    DouDizhuObservation,
    DouDizhuState,
    GameRecord,
    rescore,
)
from paiju.doudizhu.scoring import CasualScoring, CompetitionScoring, ScoreFacts, seat_returns

DEAL = "[33334444555566667778][7889999TTTTJJJJQQ][8QQKKKKAAAA2222XD]"


def _deal(landlord: str, farmer1: str, kitty: str | None = None) -> Deal:
    """A deal from the landlord's and farmer 1's hands; farmer 2 gets the other cards."""
    rest = Hand.full_deck() - Hand.parse(landlord) - Hand.parse(farmer1)
    return Deal([landlord, farmer1, rest], kitty)


def _illegal(state: DouDizhuState):  # type: ignore[no-untyped-def]
    """An action known to be illegal: a card the player lacks, a pass on a lead, a low bid."""
    if state.phase == "bidding":
        return BIDS[state._bid] if state._bid else None
    if state.to_beat is None:
        return PASS
    hand = state.hands[state.current_player()]
    missing = next((r for r in range(13) if hand.counts[r] == 0), None)
    return None if missing is None else Move.parse("3456789TJQKA2"[missing])


@pytest.mark.parametrize(
    "config",
    [
        DouDizhuConfig(),
        DouDizhuConfig(bidding=True, scoring="casual"),
        DouDizhuConfig(wing_rule="rlcard", scoring="casual"),
    ],
    ids=["default", "bidding-casual", "rlcard"],
)
def test_core_api_conformance(config: DouDizhuConfig) -> None:
    check_game_api(DouDizhuGame(config), games=12, seed=3, illegal_action=_illegal)


def test_info_and_config() -> None:
    game = DouDizhuGame()
    info = game.info
    assert info.num_players == 3 and info.has_chance and not info.perfect_information
    assert info.num_distinct_actions is None and info.constant_sum == 0.0
    assert info.utility_range == (-14.0, 14.0)
    casual = DouDizhuGame(scoring="casual", bidding=True)
    assert casual.info.utility_range == (-3 * 2**14 * 2, 3 * 2**14 * 2)
    with pytest.raises(ConfigError, match="unknown Dou Dizhu scoring rule"):
        DouDizhuConfig(scoring="tournament")
    with pytest.raises(ConfigError, match="wing_rule"):
        DouDizhuConfig(wing_rule="ccpc")
    with pytest.raises(ConfigError):
        DouDizhuGame(DouDizhuConfig(), bidding=True)


def test_turn_order_trick_and_passes() -> None:
    game = DouDizhuGame()
    state = game.new_initial_state()
    assert state.current_player() == CHANCE and state.phase == "deal"
    state.apply(Deal.parse(DEAL))
    assert state.current_player() == 0 and state.landlord == 0 and state.to_beat is None
    assert PASS not in state.legal_actions()
    with pytest.raises(IllegalMoveError, match="cannot pass on a free lead"):
        state.apply(PASS)
    state.apply(Move.parse("3"))
    assert state.current_player() == 1 and state.to_beat == Move.parse("3")
    assert PASS in state.legal_actions()
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        state.apply(Move.parse("3"))  # farmer 1 has no 3
    with pytest.raises(IllegalMoveError, match="does not beat"):
        state.apply(Move.parse("88"))
    state.apply(Move.parse("7"))
    state.apply(PASS)
    state.apply(PASS)
    # two passes: the last player to have played (farmer 1) leads freely
    assert state.current_player() == 1 and state.to_beat is None
    obs = state.observation(2)
    assert obs.history == ((0, Move.parse("3")), (1, Move.parse("7")), (2, PASS), (0, PASS))
    assert obs.hand_sizes == (19, 16, 17) and obs.to_beat is None


def test_bomb_counting_winner_and_scores() -> None:
    game = DouDizhuGame()
    state = game.new_state_from_deal(DEAL)
    plays = ["3333", "pass", "pass", "4444", "pass", "pass", "5555", "pass", "pass", "6666", "pass", "2222"]
    for text in plays:
        state.apply(state.parse_move(text))
    assert state.bombs == 5 and state.current_player() == 0
    state.apply(PASS)
    state.apply(PASS)  # farmer 2 leads freely
    for text in ["XD", "pass", "pass", "AAAA", "pass", "pass"]:
        state.apply(state.parse_move(text))
    assert state.bombs == 7 and state.current_player() == 2
    while not state.is_terminal():  # play the smallest move, never pass when not forced
        legal = state.legal_actions()
        state.apply(legal[0])
    winner = state.winner
    assert winner is not None and state.current_player() == TERMINAL
    facts = state.score_facts()
    assert facts.bombs == sum(1 for _, m in state.history if m.is_bomb) >= 7
    s = max(1, facts.bombs)
    landlord_score = s if winner == 0 else -s
    assert state.returns() == [landlord_score, -landlord_score / 2, -landlord_score / 2]
    assert sum(state.returns()) == 0


def test_scoring_rules_hand_checked() -> None:
    comp, casual = CompetitionScoring(), CasualScoring()
    assert comp.landlord_score(ScoreFacts(landlord_won=True, bombs=0)) == 1
    assert comp.landlord_score(ScoreFacts(landlord_won=False, bombs=0)) == -1
    assert comp.landlord_score(ScoreFacts(landlord_won=True, bombs=3)) == 3
    assert comp.landlord_score(ScoreFacts(landlord_won=False, bombs=6)) == -6
    assert casual.landlord_score(ScoreFacts(landlord_won=True, bombs=0, bid=1)) == 1
    assert casual.landlord_score(ScoreFacts(landlord_won=True, bombs=2, bid=3)) == 12
    assert casual.landlord_score(ScoreFacts(landlord_won=True, bombs=1, bid=2, spring=True)) == 8
    assert casual.landlord_score(ScoreFacts(landlord_won=False, bombs=1, bid=2, anti_spring=True)) == -8
    assert seat_returns(1, 4.0) == [-2.0, 4.0, -2.0]


def test_spring_and_rescoring() -> None:
    """The landlord plays out its whole hand before anyone plays: a spring (春天)."""
    deal = _valid_deal_with_landlord_hand("3334445556667778889T")
    game = DouDizhuGame(scoring="casual")
    state = game.new_state_from_deal(deal)
    for text in ["3334445556667778889T"]:
        state.apply(state.parse_move(text))
    assert state.is_terminal() and state.winner == 0
    record = state.record()
    facts = record.facts()
    assert facts.spring and facts.landlord_won and facts.bombs == 0
    assert state.returns() == [2.0, -1.0, -1.0]  # casual: 1 x 2^0 x 2 (spring)
    assert rescore(record, "competition") == [1.0, -0.5, -0.5]
    assert rescore(record, "casual") == state.returns()
    with pytest.raises(ConfigError):
        rescore(record, "nope")


def _valid_deal_with_landlord_hand(landlord: str) -> Deal:
    rest = Hand.full_deck() - Hand.parse(landlord)
    cards = rest.ranks()
    rng = np.random.default_rng(0)
    rng.shuffle(cards)
    counts = [[0] * 15, [0] * 15]
    for i, r in enumerate(cards):
        counts[i % 2][r] += 1
    return Deal([Hand.parse(landlord), Hand(counts[0]), Hand(counts[1])], Hand.parse(landlord[:3]))


def test_records_round_trip_and_rescore_random_games() -> None:
    for config in (DouDizhuConfig(), DouDizhuConfig(bidding=True, scoring="casual")):
        game = DouDizhuGame(config)
        for seed in range(15):
            state = play_game(game, random_agents(3, seed), seed).state
            record = state.record()
            again = GameRecord.from_dict(record.to_dict())
            assert again == record
            replayed = again.replay()
            assert replayed.returns() == state.returns()
            other = "competition" if config.scoring == "casual" else "casual"
            facts = record.facts()
            rule = CasualScoring() if other == "casual" else CompetitionScoring()
            assert rescore(record, other) == seat_returns(record.landlord, rule.landlord_score(facts))
            assert sum(rescore(record, other)) == 0


def test_corrupt_records() -> None:
    with pytest.raises(CorruptRecordError, match="bad Dou Dizhu game record"):
        GameRecord.from_dict({"deal": "[3][4][5]", "plays": []})
    good = DouDizhuGame().new_state_from_deal(DEAL)
    good.apply(Move.parse("3"))
    data = good.record().to_dict()
    data["plays"].append([1, "3"])
    with pytest.raises(CorruptRecordError, match="does not replay"):
        GameRecord.from_dict(data).replay()
    with pytest.raises(CorruptRecordError, match="not finished"):
        good.record().facts()


def test_bidding_flow() -> None:
    game = DouDizhuGame(bidding=True, scoring="casual")
    deal = Deal.parse(DEAL + "[777]")
    state = game.new_state_from_deal(deal)
    assert state.phase == "bidding" and state.current_player() == 0
    assert [len(h) for h in state.hands] == [17, 17, 17]
    assert state.legal_actions() == [Bid(0), Bid(1), Bid(2), Bid(3)]
    state.apply(Bid(1))
    assert state.legal_actions() == [Bid(0), Bid(2), Bid(3)]
    with pytest.raises(IllegalMoveError, match="already 1"):
        state.apply(Bid(1))
    state.apply(Bid(2))
    state.apply(Bid(0))
    assert state.phase == "play" and state.landlord == 1 and state.current_player() == 1
    assert [len(h) for h in state.hands] == [17, 20, 17]
    assert Hand.parse("777") in state.hands[1]
    obs = state.observation(2)
    assert obs.kitty == Hand.parse("777") and obs.role() == 1 and obs.role(1) == 0
    # a bid of 3 ends the bidding at once
    state = game.new_state_from_deal(deal)
    state.apply(Bid(3))
    assert state.landlord == 0 and state.phase == "play" and len(state.hands[0]) == 20
    # everybody passes: a new deal
    state = game.new_state_from_deal(deal)
    for _ in range(3):
        state.apply(Bid(0))
    assert state.current_player() == CHANCE and state.observation(0).redeals == 1
    with pytest.raises(IllegalMoveError, match="must name its kitty"):
        state.apply(deal.without_kitty())


def test_sample_state_respects_the_open_kitty() -> None:
    game = DouDizhuGame()
    rng = np.random.default_rng(0)
    deal = _deal("33344455566677789999", "3456788TTJJQQKA2X", "999")
    state = game.new_state_from_deal(deal)
    state.apply(Move.parse("3"))  # the landlord keeps all three 9s of the kitty
    obs = state.observation(1)
    assert obs.kitty_in_hand == Hand.parse("999")
    for _ in range(30):
        sampled = game.sample_state(obs, rng)
        assert sampled.observation(1) == obs
        assert Hand.parse("999") in sampled.hands[0]
        assert sampled.hands[1] == state.hands[1]
        assert [len(h) for h in sampled.hands] == [19, 17, 17]
        assert sampled.hands[0] + sampled.hands[1] + sampled.hands[2] + Hand.parse("3") == Hand.full_deck()


def test_observation_has_no_hidden_cards() -> None:
    state = DouDizhuGame().new_state_from_deal(DEAL)
    obs = state.observation(1)
    assert isinstance(obs, DouDizhuObservation)
    assert obs.hand == state.hands[1] and obs.kitty is None
    assert obs.unseen() == state.hands[0] + state.hands[2]
    fields = {f for f in obs.__dataclass_fields__}
    assert "hands" not in fields


def test_random_agent_registry_and_play() -> None:
    agent = REGISTRY.make("random", seed=3)
    assert agent.name == "random" and "random" in REGISTRY.names()
    game = DouDizhuGame()
    agents = [REGISTRY.make("random", seed=s) for s in range(3)]
    a = play_game(game, agents, 9).state
    agents = [REGISTRY.make("random", seed=s) for s in range(3)]
    b = play_game(game, agents, 9).state
    assert a.record() == b.record()
    with pytest.raises(ConfigError):
        REGISTRY.make("random:budget=3")


def test_parse_move_in_context() -> None:
    """A trio chain of 4 leads as a trio chain, but may beat an airplane of 3 as one (wings 666)."""
    game = DouDizhuGame()
    deal = _deal("3334445556789TJQKA2X", "666777888999TJQKA")
    state = game.new_state_from_deal(deal)
    assert state.parse_move("333444555666").type.name == "TRIO_CHAIN"
    state.apply(state.parse_move("333444555678"))
    follow = state.parse_move("666777888999")
    assert follow.type.name == "AIRPLANE_SOLO" and str(follow.body) == "777888999"
    assert follow in state.legal_actions()
    state.apply(follow)
    assert state.to_beat == follow and state.legal_actions() == [PASS]  # no higher airplane of 3
    lead_state = game.new_state_from_deal(_deal("333444555666789TJQKA", "3456789TJQKA2XD22"))
    assert Move.parse("333444555666", "trio_chain") in lead_state.legal_actions()
    with pytest.raises(IllegalMoveError, match="on a free lead 333444555666 is played as trio chain"):
        lead_state.apply(Move.parse("333444555666", "airplane_solo"))
