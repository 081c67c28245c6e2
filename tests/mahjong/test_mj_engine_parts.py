"""The engine's parts by concern: settlement, notation and observation apart from the rules.

``paiju.mahjong.game`` keeps the rules of play and re-exports the rest; these tests check that
each re-exported name is the one object of its module, and that settlement reads a position
without changing it: what it computes before the winning move is what the engine books after
it, with the payments worked out by hand. That the parts never import the engine is an
import-linter contract (``pyproject.toml``).
"""

from __future__ import annotations

import paiju.mahjong.game as game
from paiju.mahjong import notation, observation, phases, settlement
from paiju.mahjong.game import WIN, MahjongGame, MahjongState, Phase, build_wall
from paiju.mahjong.tiles import Tile

# A scripted hand (every seat's tiles and every draw named): the dealer (seat 0) holds
# 111m 56m 789m 234p 678s 99s plus 1z, opens with 1z, and every seat throws its draws (5z, which
# nobody can claim) until the dealer draws 4m: 門清自摸 3 + 莊家 1 = 4 tai from each of the three
# others, 1000 + 4 x 500 = 3000 each. No other seat holds 4m or a claim on 1z / 5z.
HANDS = [
    "111m56m789m234p678s99s1z",
    "3m3m1p1p4p7p9p2s2s4s5s8s1z2z3z4z",
    "2m8m9m1p2p5p6p7p8p9p1s3s5s2z3z4z",
    "2m2m9m3p5p6p6p7p8p1s3s7s1z2z3z4z",
]
DRAWS = "5z5z5z4m"


def dealer_about_to_win() -> MahjongState:
    s = MahjongGame().new_hand(build_wall(HANDS, draws=DRAWS, seed=0))
    s.apply(int(Tile.parse("1z")))
    while s.drawn != int(Tile.parse("4m")):
        assert s.phase == Phase.TURN, "nobody may claim in this scenario"
        s.apply(s.drawn)
    assert s.turn == 0 and WIN in s.legal_actions()
    return s


def test_settlement_reads_the_position_and_the_engine_books_it() -> None:
    s = dealer_about_to_win()
    before = (str(s), [s.observation(p) for p in range(4)], list(s.scores))
    result = settlement.win_result(s, [0], self_draw=True, robbing=False)
    assert (str(s), [s.observation(p) for p in range(4)], list(s.scores)) == before
    assert result.self_draw and result.winners == (0,) and result.discarder is None
    assert dict(result.scores[0].patterns) == {"門清自摸": 3}
    assert result.deltas == (9000, -3000, -3000, -3000)
    assert [(p.payer, p.tai, p.amount) for p in result.payments] == [(1, 4, 3000), (2, 4, 3000), (3, 4, 3000)]
    assert result.winning_tile == int(Tile.parse("4m"))
    assert settlement.score_self_draw(s, 0) == result.scores[0]
    s.apply(WIN)
    assert s.last_result == result and s.returns() == [9000.0, -3000.0, -3000.0, -3000.0]


def test_an_exhaustive_draw_pays_nothing() -> None:
    s = dealer_about_to_win()
    r = settlement.exhaustive_draw(s)
    assert r.exhaustive and r.winners == () and r.deltas == (0, 0, 0, 0) and r.payments == ()
    assert r.hand_number == s.hand_number and r.dealer == 0


def test_each_name_game_reexports_is_its_module_s_own() -> None:
    homes = {
        notation: "DISCARD CONCEALED_KONG ADDED_KONG WIN PUNG KONG CHOW_LOW CHOW_MID CHOW_HIGH PASS "
        "NUM_ACTIONS action_name wall_notation parse_wall build_wall",
        settlement: "HandResult",
        observation: "MahjongObservation",
        phases: "NUM_PLAYERS HAND_SIZE Phase DrawKind",
    }
    for module, names in homes.items():
        for name in names.split():
            assert getattr(game, name) is getattr(module, name), name
