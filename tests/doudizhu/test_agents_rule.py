"""The rule and greedy agents: hand-checked situations, the split invariant, a duplicate match."""

from __future__ import annotations

import numpy as np
import pytest

from paiju.core.arena import run_arena
from paiju.doudizhu import PASS, Deal, Hand, Move
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.agents.greedy import greedy_move
from paiju.doudizhu.agents.rule import (
    RuleAgent,
    Situation,
    bid_for,
    hand_strength,
    plays_left,
    rule_move,
    split_leads,
)
from paiju.doudizhu.game import BIDS, DouDizhuGame
from paiju.doudizhu.movegen import generate
from paiju.doudizhu.moves import key_of
from paiju.doudizhu.split import min_plays


def _situation(
    hand: str,
    me: int,
    others: tuple[int, int],
    beat: str | None = None,
    owner: int | None = None,
    landlord: int = 0,
) -> tuple[Situation, list[Move]]:
    """A situation where every card the seat does not hold is unseen; ``others`` are the
    sizes of the other two seats in seat order."""
    h = Hand.parse(hand)
    sizes = list(others)
    sizes.insert(me, len(h))
    to_beat = None if beat is None else Move.parse(beat)
    sit = Situation(
        hand=key_of(h.counts), me=me, landlord=landlord, sizes=tuple(sizes), to_beat=to_beat,
        owner=owner, unseen=key_of((Hand.full_deck() - h).counts),
    )
    legal = generate(sit.hand, to_beat) + ([PASS] if to_beat is not None else [])
    return sit, legal


def _move(
    hand: str, me: int, others: tuple[int, int], beat: str | None = None, owner: int | None = None
) -> str:
    return str(rule_move(*_situation(hand, me, others, beat, owner)))


def test_does_not_overtake_a_winning_partner() -> None:
    # farmer 2 holds a clean answer (A leaves the chain 89TJQ): it takes an opponent's 9 ...
    assert _move("89TJQA", me=2, others=(15, 10), beat="9", owner=0) == "A"
    # ... but lets its partner's 9 run
    assert _move("89TJQA", me=2, others=(15, 10), beat="9", owner=1) == "pass"
    # farmer 1 behind farmer 2's pair: pass as well
    assert _move("KKAA3", me=1, others=(12, 9), beat="99", owner=2) == "pass"


def test_farmer_two_blocks_for_partner_when_landlord_is_about_to_win() -> None:
    # farmer 2 acts just before the landlord, who holds 1 card: top the partner's low solo
    assert _move("8A3", me=2, others=(1, 10), beat="5", owner=1) == "A"
    # with the landlord far from finishing it would not
    assert _move("8A3", me=2, others=(12, 10), beat="5", owner=1) == "pass"


def test_feeds_a_partner_with_one_card() -> None:
    hand = "3456789TJQQ"
    # normally the long chain is led (it removes the most plays' worth of low cards) ...
    assert _move(hand, me=1, others=(15, 5)) == "3456789TJ"
    # ... but with the partner (farmer 2) on its last card, farmer 1 leads its lowest solo
    assert _move(hand, me=1, others=(15, 1)) == "3"
    # a partner with two cards is fed the lowest pair
    assert _move(hand, me=1, others=(15, 2)) == "QQ"


def test_bombs_to_finish() -> None:
    # the bomb is the whole hand
    assert _move("8888", me=1, others=(15, 10), beat="KK", owner=0) == "8888"
    # the bomb wins the trick and the last card follows on the free lead
    assert _move("33335", me=1, others=(15, 10), beat="KK", owner=0) == "3333"
    # with two plays still to go after it, and the landlord far from out, the bomb waits
    assert _move("3333579", me=1, others=(15, 10), beat="KK", owner=0) == "pass"
    # ... unless the landlord is about to finish
    assert _move("3333579", me=1, others=(3, 10), beat="KK", owner=0) == "3333"


def test_leads_to_reduce_its_plays() -> None:
    # the chain is led whole rather than a solo broken off it
    assert _move("345678JJK", me=0, others=(17, 17)) == "345678"
    # a trio carries the lowest solo rather than leaving it behind
    lead = _move("555J7", me=0, others=(17, 17))
    assert lead in ("5557", "555J") and min_plays(Hand.parse("555J7") - Hand.parse(lead)) == 1


def test_end_game_leads_safe_plays_first() -> None:
    # landlord with XD and 4: every other card is unseen, the rocket cannot be beaten, the 4
    # can; leading the rocket first keeps the lead for the last card
    assert _move("4XD", me=0, others=(10, 10)) == "XD"


def test_opponent_on_last_card_gets_the_highest_solo() -> None:
    assert _move("59K", me=0, others=(1, 17), beat="4", owner=1) == "K"
    assert _move("59K", me=0, others=(5, 17), beat="4", owner=1) == "5"
    # leading with a farmer on one card: the pair goes first, solos last and highest first
    assert _move("59KK", me=0, others=(1, 17)) == "KK"


@pytest.mark.parametrize("seed", range(3))
def test_landlord_lead_always_lowers_the_fewest_plays_by_one(seed: int) -> None:
    """Invariant of lead rule 3/4: with both farmers far from out, the landlord's lead is a
    play of an optimal split, so the fewest plays (brute-force-checked solver) drop by one."""
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(60):
        deal = Deal.random(rng)
        cards = list(deal.landlord.ranks())
        keep = sorted(rng.choice(len(cards), size=int(rng.integers(4, 21)), replace=False))
        counts = [0] * 15
        for i in keep:
            counts[cards[i]] += 1
        hand = str(Hand(counts))
        sit, legal = _situation(hand, me=0, others=(17, 17))
        move = rule_move(sit, legal)
        if move.size == len(Hand.parse(hand)):
            continue
        assert move in legal
        assert plays_left(sit.hand - move.key) == min_plays(hand) - 1, (hand, str(move))
        assert move in split_leads(sit.hand)
        checked += 1
    assert checked >= 50


def test_rule_agent_on_a_real_observation() -> None:
    """End to end: the agent reads its observation (farmer 2 behind its partner's K)."""
    landlord = "3456789TJQKA2XD34567"
    farmer1 = "3456789TJQKA23456"
    deal = Deal([landlord, farmer1, Hand.full_deck() - Hand.parse(landlord) - Hand.parse(farmer1)])
    game = DouDizhuGame()
    state = game.new_state_from_deal(deal)
    state.apply(Move.parse("3"))
    state.apply(Move.parse("K"))
    agent = REGISTRY.make("rule", seed=0)
    legal = state.legal_actions()
    assert any(m.type != 0 and m.rank > Move.parse("K").rank for m in legal)  # it could overtake
    assert agent.act(state.observation(2), legal) == PASS


def test_greedy_rules() -> None:
    hand = key_of(Hand.parse("3334445556789TJQKK2").counts)
    assert str(greedy_move(generate(hand), None)) == "333444555678"  # the most cards
    follow = [*generate(hand, Move.parse("99")), PASS]
    assert str(greedy_move(follow, Move.parse("99"))) == "KK"
    assert greedy_move([*generate(key_of(Hand.parse("4444KK").counts), Move.parse("AA")), PASS],
                       Move.parse("AA")) is PASS  # never bombs


def test_bidding_by_hand_strength() -> None:
    # big joker 4 + small joker 3 + four 2s at 2 each + the bomb of 2s 4
    assert hand_strength(Hand.parse("XD2222").counts) == 4 + 3 + 8 + 4
    assert hand_strength(Hand.parse("X2KKKK").counts) == 3 + 2 + 4
    strong = Hand.parse("XD22KKKK3456789TJ")
    assert bid_for(strong, list(BIDS)) == BIDS[3]
    assert bid_for(Hand.parse("3456789TJQ3456789"), list(BIDS)) == BIDS[0]
    assert bid_for(strong, [BIDS[0]]) == BIDS[0]


def test_rule_beats_random_and_greedy_beats_random_in_duplicate() -> None:
    report = run_arena("doudizhu", ["rule", "random"], 200, seed=4, fmt="duplicate")
    assert report.paired_difference is not None and report.paired_difference.low > 0.5
    for side in ("landlord", "farmer"):
        assert report.stats("rule", side).wp.low > 0.75
    report = run_arena("doudizhu", ["greedy", "random"], 200, seed=4, fmt="duplicate")
    assert report.paired_difference is not None and report.paired_difference.low > 0.5
    assert report.stats("greedy").wp.low > 0.75


def test_under_rlcard_wings_the_rule_agent_moves_as_its_previous_retry_did() -> None:
    # Before the observation carried the rules, the agent decided under DouZero's wings and
    # decided again under the strict rule when that move was illegal; reading the wing rule
    # from the game must not change a move (docs/ddz-agents.md, "rule").
    game = DouDizhuGame(wing_rule="rlcard")
    agent = RuleAgent()
    rng = np.random.default_rng(0)
    decisions = 0
    for _ in range(100):
        state = game.new_state_from_deal(game.new_initial_state().sample_chance(rng))
        while not state.is_terminal():
            obs = state.observation(state.current_player())
            legal = state.legal_actions()
            move = agent.act(obs, legal)
            if len(legal) > 1:
                sit = Situation.from_observation(obs)
                before = rule_move(sit, legal)
                if before not in legal:
                    sit.strict = True
                    before = rule_move(sit, legal)
                assert move == before, (str(obs.hand), obs.to_beat)
                decisions += 1
            state.apply(move)
    assert decisions > 1000
