"""The agents under the 嚦咕嚦咕 rule (``ligu=True``, docs/mahjong-rules.md §9.2): they see a
seven-pairs-and-a-pung hand as a win (take it on a discard and by self-draw), count their
shanten toward it, and do not break it with a claim; with the rule off the same hand is no win.

Positions are dealt with :func:`~paiju.mahjong.game.build_wall`; the distance is checked
against a brute force over every 嚦咕嚦咕 target hand."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

import pytest

from paiju.mahjong.agents import REGISTRY, GreedyAgent, rank_discards
from paiju.mahjong.agents._hand import distance, hand_distance, is_complete_hand, ligu_distance
from paiju.mahjong.game import PASS, PUNG, WIN, MahjongGame, MahjongState, Phase, build_wall
from paiju.mahjong.scoring import is_complete, is_ligu
from paiju.mahjong.tiles import NUM_KINDS, Tile, parse_counts

AGENTS = ("greedy", "expectimax-shanten", "expectimax:ron=flat")
EIGHT_PAIRS = "1199m1199p11s22z33z55z"  # 16 tiles: ready for 嚦咕嚦咕 on any of its eight kinds


def k(t: str) -> int:
    return int(Tile.parse(t))


def pass_until(s: MahjongState, seat: int) -> None:
    while s.phase in (Phase.CLAIM, Phase.ROB) and s.current_player() != seat:
        s.apply(PASS)


def decide(spec: str, s: MahjongState) -> int:
    seat = s.current_player()
    agent = REGISTRY.make(spec, seed=0)
    return int(agent.act(s.observation(seat), s.legal_actions()))


# ---- the distance: a closed form checked against a brute force --------------------------------
def brute_ligu_distance(counts: Sequence[int]) -> int:
    """17 less the most tiles shared with any 嚦咕嚦咕 hand: every kind takes 0, 2, 3 (the one
    pung) or 4 (two pairs) tiles, 17 in all (a search over the kinds, independent of the closed
    form)."""

    @functools.cache
    def best(kind: int, tiles: int, pung: bool) -> float:
        if kind == NUM_KINDS:
            return 0 if (tiles == 17 and pung) else float("-inf")
        out = float("-inf")
        for take in (0, 2, 3, 4):
            if take == 3 and pung:
                continue
            if tiles + take <= 17:
                out = max(out, min(take, counts[kind]) + best(kind + 1, tiles + take, pung or take == 3))
        return out

    return 17 - int(best(0, 0, False))


def random_hand(rng: random.Random, size: int, pairy: bool) -> list[int]:
    """A random concealed hand; ``pairy`` draws from few kinds, so pairs and triples are common."""
    kinds = rng.sample(range(NUM_KINDS), 10) if pairy else list(range(NUM_KINDS))
    counts = [0] * NUM_KINDS
    while sum(counts) < size:
        t = rng.choice(kinds)
        if counts[t] < 4:
            counts[t] += 1
    return counts


def test_ligu_distance_matches_a_brute_force_and_the_scorer() -> None:
    rng = random.Random(5)
    for i in range(400):
        c = random_hand(rng, 16 + i % 2, pairy=i % 3 != 0)
        d = ligu_distance(c)
        assert d == brute_ligu_distance(c), c
        if sum(c) == 17:  # complete exactly when the scorer reads the shape
            assert (d == 0) is is_ligu(c)
    # hand-checked: eight pairs are ready (1); seven pairs and a pung are complete (0)
    assert ligu_distance(parse_counts(EIGHT_PAIRS)) == 1
    assert ligu_distance(parse_counts(EIGHT_PAIRS + "1m")) == 0
    # four of a kind are two pairs: 1111m 99m 11p 99p 11s 22z + 333z = 17 tiles, complete
    assert ligu_distance(parse_counts("111199m1199p11s22z333z")) == 0
    # two triples cannot both be kept: 111m 999m 11p 99p 11s 22z 33z 5z -> one tile to change
    assert ligu_distance(parse_counts("111999m1199p11s22z33z5z")) == 1


def test_the_win_check_knows_ligu_only_with_the_rule() -> None:
    hand = parse_counts(EIGHT_PAIRS + "1m")  # no 5-sets-and-a-pair reading
    assert not is_complete(hand) and is_ligu(hand)
    assert is_complete_hand(hand, ligu=True)
    assert not is_complete_hand(hand, ligu=False)
    assert hand_distance(hand, ligu=False) == distance(hand) > 0
    standard = parse_counts("123m456m789m123p11s456p")
    assert is_complete_hand(standard, ligu=True) and is_complete_hand(standard, ligu=False)


# ---- the agents at the table ------------------------------------------------------------------
def _discard_position(ligu: bool) -> MahjongState:
    """The dealer throws 5z to seat 1, who holds eight pairs with 55z: a 嚦咕嚦咕 on the discard."""
    dealer = "5z" + "1m2m3m4m5m6m7m8m2p3p4p5p6p7p8p9s"
    s = MahjongGame(ligu=ligu).new_hand(build_wall([dealer, EIGHT_PAIRS, "", ""], seed=11))
    s.apply(k("5z"))
    pass_until(s, 1)
    return s


def _self_draw_position(ligu: bool) -> MahjongState:
    """Seat 1 holds eight pairs and draws 1m: seven pairs and the 1m pung, self-drawn."""
    dealer = "9s" + "2m3m4m5m6m7m8m2p3p4p5p6p7p8p2s3s"
    s = MahjongGame(ligu=ligu).new_hand(build_wall([dealer, EIGHT_PAIRS, "", ""], draws="1m", seed=11))
    s.apply(k("9s"))
    pass_until(s, 1)
    while s.phase in (Phase.CLAIM, Phase.ROB):
        s.apply(PASS)
    assert s.turn == 1 and s.phase == Phase.TURN and s.drawn == k("1m")
    return s


@pytest.mark.parametrize("spec", AGENTS)
def test_agents_take_a_ligu_win_on_a_discard(spec: str) -> None:
    s = _discard_position(True)
    assert s.current_player() == 1 and WIN in s.legal_actions()
    assert decide(spec, s) == WIN
    s.apply(WIN)
    r = s.last_result
    assert r is not None and r.winners == (1,) and ("嚦咕嚦咕", 8) in r.scores[0].patterns
    # the rule off: the same hand and discard are no win, and no agent treats them as one
    off = _discard_position(False)
    if off.current_player() == 1:
        assert WIN not in off.legal_actions()
        assert decide(spec, off) != WIN


@pytest.mark.parametrize("spec", AGENTS)
def test_agents_take_a_ligu_self_draw(spec: str) -> None:
    s = _self_draw_position(True)
    assert WIN in s.legal_actions()
    assert decide(spec, s) == WIN
    s.apply(WIN)
    r = s.last_result
    assert r is not None and r.winners == (1,) and r.self_draw
    off = _self_draw_position(False)
    assert WIN not in off.legal_actions()
    assert decide(spec, off) != WIN  # a discard


def test_greedy_counts_shanten_toward_ligu_and_waits_on_it() -> None:
    # seat 1: seven pairs, 5z and 7s; it draws the second 5z: discarding 7s leaves eight
    # pairs, ready for 嚦咕嚦咕 (shanten 0); by 5 sets + a pair that hand is far from ready
    hand = "1199m1199p11s22z33z5z7s"
    dealer = "9s" + "2m3m4m5m6m7m8m2p3p4p5p6p7p8p2s3s"
    for ligu in (True, False):
        s = MahjongGame(ligu=ligu).new_hand(build_wall([dealer, hand, "", ""], draws="5z", seed=3))
        s.apply(k("9s"))
        while s.phase in (Phase.CLAIM, Phase.ROB):
            s.apply(PASS)
        obs = s.observation(1)
        rows = {kind: sh for kind, sh, _, _ in rank_discards(obs.hand, obs.unseen_counts(), obs)}
        if ligu:
            assert rows[k("7s")] == 0 and GreedyAgent().act(obs, s.legal_actions()) == k("7s")
        else:
            assert min(rows.values()) >= 2


def test_greedy_does_not_break_a_ligu_wait_for_a_pung() -> None:
    # seat 1: 111m, six pairs and 5z, ready for 嚦咕嚦咕 on 5z. The dealer throws 9m: a pung
    # would open the hand (no 嚦咕嚦咕 any more) though it brings 5 sets + a pair nearer.
    hand = "11199m1199p11s22z33z5z"
    dealer = "9m" + "2m3m4m5m6m7m8m2p3p4p5p6p7p8p2s"
    for ligu, expected in ((True, PASS), (False, PUNG)):
        s = MahjongGame(ligu=ligu).new_hand(build_wall([dealer, hand, "", ""], seed=7))
        s.apply(k("9m"))
        pass_until(s, 1)
        assert s.current_player() == 1 and PUNG in s.legal_actions() and WIN not in s.legal_actions()
        assert GreedyAgent().act(s.observation(1), s.legal_actions()) == expected
