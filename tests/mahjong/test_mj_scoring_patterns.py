"""Tai scoring: one hand-checked example per pattern of ``docs/mahjong-rules.md`` T1, the non-repeat
exclusions of T2, the best arrangement, and the payments of T3.

Each expected breakdown was worked out by hand from the table (the comment says why); the
test compares the *whole* breakdown, so a pattern that fires where it should not also fails.
"""

from __future__ import annotations

import pytest

from paiju.core.errors import IllegalMoveError
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.game import PASS, WIN, HandResult, MahjongGame, Phase, build_wall
from paiju.mahjong.scoring import (
    PATTERN_ENGLISH,
    Score,
    WinContext,
    decompositions,
    is_complete,
    score_win,
    waits,
)
from paiju.mahjong.tiles import Meld, MeldType, Tile, parse_counts, parse_kinds

C, P, EK, AK, CK = (
    MeldType.CHOW,
    MeldType.PUNG,
    MeldType.EXPOSED_KONG,
    MeldType.ADDED_KONG,
    MeldType.CONCEALED_KONG,
)


def meld(kind: MeldType, tile: str) -> Meld:
    t = int(Tile.parse(tile))
    return Meld(kind, t, t if kind != CK else -1, 1 if kind != CK else -1)


def score(
    concealed: str,
    win: str | None,
    *,
    melds: tuple[Meld, ...] = (),
    self_draw: bool = False,
    config: MahjongConfig | None = None,
    seat_wind: int = 2,
    round_wind: int = 1,
    **ctx: bool,
) -> dict[str, int]:
    """Breakdown of a win; seats default to 西 in a 南 round so winds only count when asked."""
    counts = parse_counts(concealed)
    tile = int(Tile.parse(win)) if win else None
    s = score_win(
        counts,
        list(melds),
        WinContext(winning_tile=tile, self_draw=self_draw, seat_wind=seat_wind, round_wind=round_wind, **ctx),
        config or MahjongConfig(),
    )
    out: dict[str, int] = {}
    for name, v in s.patterns:
        assert name in PATTERN_ENGLISH
        out[name] = out.get(name, 0) + v
    assert s.tai == sum(out.values())
    return out


# ---- complete-hand detection ------------------------------------------------------------------


def test_is_complete_and_decompositions() -> None:
    assert is_complete(parse_counts("123m456m789m234p567p55s"))
    assert not is_complete(parse_counts("123m456m789m234p567p56s"))
    assert not is_complete(parse_counts("1234m"))
    assert is_complete(parse_counts("11z"))
    assert not is_complete(parse_counts("1111z123m"))  # four honours cannot be a set + anything
    # 111222333m reads as three pungs or three identical chows
    ds = decompositions(parse_counts("111222333m99s"))
    assert {str(d) for d in ds} == {"99s 111m 222m 333m", "99s 123m 123m 123m"}
    assert decompositions(parse_counts("12m")) == []


def test_waits_by_shape() -> None:
    assert waits(parse_counts("23m55p")) == parse_kinds("14m")
    assert waits(parse_counts("1233m")) == parse_kinds("3m")  # 123+3 or 12+33: only 3m
    assert waits(parse_counts("4456m")) == parse_kinds("47m")
    assert waits(parse_counts("1112345678999m")) == parse_kinds("123456789m")  # nine gates shape
    # a kind already held four times (here in a kong meld) is not a wait; three held still is
    assert waits(parse_counts("23m55p"), parse_counts("1111m")) == parse_kinds("4m")
    assert waits(parse_counts("23m55p"), parse_counts("111m")) == parse_kinds("14m")
    with pytest.raises(IllegalMoveError, match="3n\\+1"):
        waits(parse_counts("23m"))


# ---- one test per pattern ---------------------------------------------------------------------


def test_concealed_menqing() -> None:
    # 56m waits 4m/7m (two-sided); one concealed pung (111m); discard win, no melds: 門清 only
    assert score("111m456m789m234p678s99s", "4m") == {"門清": 1}


def test_self_draw_not_concealed() -> None:
    assert score("111m456m789m678s99s", "4m", melds=(meld(C, "2p"),), self_draw=True) == {"自摸": 1}


def test_concealed_self_draw_replaces_both() -> None:
    assert score("111m456m789m234p678s99s", "4m", self_draw=True) == {"門清自摸": 3}


def test_concealed_kong_keeps_menqing_flag() -> None:
    hand, kong = "456m789m234p678s99s", (meld(CK, "1m"),)
    assert score(hand, "4m", melds=kong) == {"門清": 1}
    assert score(hand, "4m", melds=kong, config=MahjongConfig(concealed_kong_keeps_menqing=False)) == {}


def test_seat_and_round_wind_pungs() -> None:
    hand = "222z456m789m234p678s99s"
    assert score(hand, "4m", seat_wind=1, round_wind=0) == {"門清": 1, "門風刻": 1}
    assert score(hand, "4m", seat_wind=2, round_wind=1) == {"門清": 1, "圈風刻": 1}
    # own wind is also the round wind: both count (2 tai)
    assert score(hand, "4m", seat_wind=1, round_wind=1) == {"門清": 1, "門風刻": 1, "圈風刻": 1}
    # an exposed pung of the wind counts the same, but 門清 is gone
    assert score("456m789m234p678s99s", "4m", melds=(meld(P, "2z"),), seat_wind=1, round_wind=0) == {
        "門風刻": 1
    }


def test_dragon_pungs_one_each() -> None:
    # 中 exposed, 發 concealed: 2 tai; no 門清 (an exposed pung)
    assert score("666z456m789m234p99s", "4m", melds=(meld(P, "7z"),)) == {"三元牌": 2}


def test_single_wait_edge_closed_pair() -> None:
    assert score("123m456m789p234p678s99s", "3m") == {"門清": 1, "獨聽": 1}  # 12m -> 3m edge
    assert score("123m456m789p234p678s99s", "2m") == {"門清": 1, "獨聽": 1}  # 13m -> 2m closed
    assert score("123m456m789p234p111s99s", "9s") == {"門清": 1, "獨聽": 1}  # 9s pair wait
    # 1233m: 12+33 or 123+3 both wait on 3m only -> still single
    assert score("12333m456p789p678s234s", "3m") == {"門清": 1, "獨聽": 1}


def test_not_single_when_shape_waits_on_two_kinds() -> None:
    # 99s + 33s: pung wait on either -> two kinds, no 獨聽
    assert score("123m456m789p333s567s99s", "3s") == {"門清": 1}


def test_robbing_kong() -> None:
    assert score("111m456m789m234p678s99s", "4m", robbing_kong=True) == {"門清": 1, "搶槓": 1}


def test_kong_bloom() -> None:
    got = score("456m789m234p678s99s", "4m", melds=(meld(CK, "1m"),), self_draw=True, kong_bloom=True)
    assert got == {"門清自摸": 3, "槓上開花": 1}


def test_last_tile_self_draw() -> None:
    got = score("111m456m789m678s99s", "4m", melds=(meld(C, "2p"),), self_draw=True, last_tile=True)
    assert got == {"自摸": 1, "海底撈月": 1}


def test_last_discard() -> None:
    assert score("111m456m789m678s99s", "4m", melds=(meld(C, "2p"),), last_discard=True) == {"河底撈魚": 1}


ALL_HONOUR_MELDS = (meld(P, "1z"), meld(P, "2z"), meld(P, "3z"))
FIVE_EXPOSED = (meld(C, "1m"), meld(C, "4m"), meld(P, "9p"), meld(C, "2s"), meld(P, "7s"))


def test_half_beg_self_drawn() -> None:
    # all five sets exposed, pair wait, self-drawn: 半求 + 獨聽 + 自摸 (E: 共3)
    assert score("55p", "5p", melds=FIVE_EXPOSED, self_draw=True) == {"半求": 1, "獨聽": 1, "自摸": 1}


def test_all_beg_on_discard() -> None:
    # 全求人 2 + 獨聽 1 = 3
    assert score("55p", "5p", melds=FIVE_EXPOSED) == {"全求人": 2, "獨聽": 1}


def test_all_chows() -> None:
    # 23p waits 1p/4p; five chows, no honours, discard: 平胡 2 (+ 門清 1)
    assert score("123m456m789m234p567p55s", "4p") == {"門清": 1, "平胡": 2}
    # with an exposed chow: 平胡 without 門清
    assert score("456m789m234p567p55s", "4p", melds=(meld(C, "1m"),)) == {"平胡": 2}


def test_all_chows_needs_two_sided_discard_and_no_honours() -> None:
    assert score("123m456m789m234p567p55s", "4p", self_draw=True) == {"門清自摸": 3}  # self-drawn
    assert score("123m456m789m234p567p55s", "3m") == {"門清": 1, "獨聽": 1}  # edge wait
    assert score("123m456m789m234p567p55z", "4p") == {"門清": 1}  # honour pair


def test_three_concealed_pungs() -> None:
    assert score("111m555p333s456m789p99s", "4m") == {"門清": 1, "三暗刻": 2}


def test_pung_completed_by_discard_is_not_concealed() -> None:
    # 33s+99s waits on 3s or 9s; the 3s discard completes the 333s pung -> only 2 concealed pungs
    assert score("111m555p333s456m789p99s", "3s") == {"門清": 1}
    # the same tile self-drawn keeps the pung concealed
    assert score("111m555p333s456m789p99s", "3s", self_draw=True) == {"門清自摸": 3, "三暗刻": 2}


def test_four_concealed_pungs() -> None:
    assert score("111m555p333s777s456m99s", "4m") == {"門清": 1, "四暗刻": 5}


def test_five_concealed_pungs_excludes_all_pungs_and_menqing() -> None:
    # five concealed pungs, won on the 白 pair by discard (the only wait: a lone honour must pair):
    # 五暗刻 8 + 獨聽 1 (no 門清, no 碰碰胡)
    assert score("111m555p333s777s999m55z", "5z") == {"五暗刻": 8, "獨聽": 1}
    # self-drawn: the 門清 part of 門清自摸 is implied, 自摸 stays
    assert score("111m555p333s777s999m55z", "5z", self_draw=True) == {"五暗刻": 8, "獨聽": 1, "自摸": 1}


def test_all_pungs() -> None:
    # 888m completed by the discard (not concealed): 2 concealed pungs; 碰碰胡 4
    assert score("333s777s888m99s", "8m", melds=(meld(P, "1m"), meld(P, "5p"))) == {"碰碰胡": 4}


def test_half_flush() -> None:
    # characters + honours; 東/西 pungs are neither seat (南) nor round (南) wind
    got = score("789m111z333z55m", "5m", melds=(meld(C, "1m"), meld(C, "4m")), seat_wind=1, round_wind=1)
    assert got == {"獨聽": 1, "混一色": 4}


def test_full_flush() -> None:
    assert score("789m111m999m55m", "5m", melds=(meld(C, "1m"), meld(C, "4m"))) == {"獨聽": 1, "清一色": 8}


def test_small_three_dragons() -> None:
    assert score("123m456p789s77z", "7z", melds=(meld(P, "5z"), meld(P, "6z"))) == {"獨聽": 1, "小三元": 4}


def test_big_three_dragons() -> None:
    assert score("777z123m456p99s", "9s", melds=(meld(P, "5z"), meld(P, "6z"))) == {"獨聽": 1, "大三元": 8}


def test_small_four_winds() -> None:
    melds = (meld(P, "1z"), meld(P, "2z"))
    assert score("333z44z123m456p", "4z", melds=melds, seat_wind=0, round_wind=0) == {"獨聽": 1, "小四喜": 8}
    cfg = MahjongConfig(wind_pungs_in_four_winds=True)
    got = score("333z44z123m456p", "4z", melds=melds, seat_wind=0, round_wind=0, config=cfg)
    assert got == {"獨聽": 1, "小四喜": 8, "門風刻": 1, "圈風刻": 1}


def test_big_four_winds() -> None:
    melds = (meld(P, "1z"), meld(P, "2z"), meld(P, "3z"))
    assert score("444z123m55p", "5p", melds=melds, seat_wind=3, round_wind=0) == {"獨聽": 1, "大四喜": 16}


def test_all_honours() -> None:
    # 東南西 pungs exposed, 白發 pungs + 中 pair concealed (seat and round wind 北: no wind tai):
    # 字一色 16 + 小三元 4 + 獨聽 1; 碰碰胡 and the two 三元牌 are implied
    got = score("555z666z77z", "7z", melds=ALL_HONOUR_MELDS, seat_wind=3, round_wind=3)
    assert got == {"字一色": 16, "小三元": 4, "獨聽": 1}


def test_heavenly_win() -> None:
    # the dealer's initial 17 tiles: no winning tile, 門清自摸 implied, 獨聽 undefined
    assert score("111m456m789m234p678s99s", None, self_draw=True, heaven=True, seat_wind=0) == {"天胡": 24}


def test_earthly_win() -> None:
    assert score("111m456m789m234p678s99s", "4m", self_draw=True, earth=True) == {"地胡": 16}


def test_human_win() -> None:
    assert score("111m456m789m234p678s99s", "4m", human=True) == {"人胡": 8}


def test_earth_ready_only_with_flag() -> None:
    assert score("111m456m789m234p678s99s", "4m", earth_ready=True) == {"門清": 1}
    got = score("111m456m789m234p678s99s", "4m", earth_ready=True, config=MahjongConfig(earth_ready=True))
    assert got == {"門清": 1, "地聽": 4}


def test_optional_extras() -> None:
    cfg = MahjongConfig(extras=frozenset({"無字", "斷么九", "四槓", "明槓", "暗槓"}))
    melds = (meld(EK, "7m"), meld(AK, "3p"), meld(CK, "4s"), meld(CK, "6s"))
    got = score("345m55p", "5m", melds=melds, config=cfg)
    # no honours, no terminals, 4 kongs (1 exposed + 1 added + 2 concealed), 345m + 55p
    # waits of 34m55p: 2m/5m -> not single
    assert got == {"無字": 1, "斷么九": 1, "四槓": 8, "明槓": 2, "暗槓": 4}


# ---- exclusions (non-repeat principle) ----------------------------------------------------------


NR_OFF = MahjongConfig(non_repeat=False)


def test_exclusion_full_flush_over_half_flush() -> None:
    melds = (meld(C, "1m"), meld(C, "4m"))
    assert "混一色" not in score("789m111m999m55m", "5m", melds=melds)
    assert score("789m111m999m55m", "5m", melds=melds, config=NR_OFF) == {"獨聽": 1, "清一色": 8, "混一色": 4}


def test_exclusion_big_three_dragons() -> None:
    melds = (meld(P, "5z"), meld(P, "6z"))
    got = score("777z123m456p99s", "9s", melds=melds, config=NR_OFF)
    assert got == {"獨聽": 1, "大三元": 8, "小三元": 4, "三元牌": 3}


def test_exclusion_small_three_dragons_over_dragon_pungs() -> None:
    melds = (meld(P, "5z"), meld(P, "6z"))
    assert score("123m456p789s77z", "7z", melds=melds, config=NR_OFF) == {"獨聽": 1, "小三元": 4, "三元牌": 2}


def test_exclusion_big_four_winds() -> None:
    melds = (meld(P, "1z"), meld(P, "2z"), meld(P, "3z"))
    got = score("444z123m55p", "5p", melds=melds, seat_wind=3, round_wind=0, config=NR_OFF)
    assert got == {"獨聽": 1, "大四喜": 16, "小四喜": 8, "門風刻": 1, "圈風刻": 1}


def test_exclusion_all_honours_over_all_pungs() -> None:
    got = score("555z666z77z", "7z", melds=ALL_HONOUR_MELDS, seat_wind=3, round_wind=3, config=NR_OFF)
    assert got == {"字一色": 16, "小三元": 4, "三元牌": 2, "獨聽": 1, "碰碰胡": 4}


def test_exclusion_five_concealed_pungs() -> None:
    got = score("111m555p333s777s999m55z", "5z", config=NR_OFF)
    assert got == {"五暗刻": 8, "四暗刻": 5, "三暗刻": 2, "碰碰胡": 4, "門清": 1, "獨聽": 1}


def test_exclusion_four_over_three_concealed() -> None:
    assert score("111m555p333s777s456m99s", "4m", config=NR_OFF) == {"門清": 1, "四暗刻": 5, "三暗刻": 2}


def test_exclusion_first_go_around_wins() -> None:
    assert score("111m456m789m234p678s99s", "4m", human=True, config=NR_OFF) == {"人胡": 8, "門清": 1}
    got = score("111m456m789m234p678s99s", "4m", self_draw=True, earth=True, config=NR_OFF)
    assert got == {"地胡": 16, "門清自摸": 3}


# ---- best arrangement -------------------------------------------------------------------------


def test_best_decomposition_pungs_over_chows() -> None:
    # 111222333m self-drawn on the 9s pair: three concealed pungs (2) beat three chows (0)
    counts = parse_counts("111222333m456p123s99s")
    s = score_win(counts, [], WinContext(winning_tile=int(Tile.parse("9s")), self_draw=True))
    assert dict(s.patterns) == {"門清自摸": 3, "獨聽": 1, "三暗刻": 2}
    assert set(str(s.decomposition).split()) == {"99s", "111m", "222m", "333m", "456p", "123s"}


def test_best_reading_of_the_winning_tile() -> None:
    # 55567s: a 5s discard completes 555s (pung not concealed) or 567s (555s stays concealed):
    # the chow reading gives 三暗刻
    s = score_win(
        parse_counts("111m333p555567s789m22p"),
        [],
        WinContext(winning_tile=int(Tile.parse("5s")), self_draw=False),
    )
    assert dict(s.patterns) == {"門清": 1, "三暗刻": 2}
    assert s.reading == "chow-two-sided"


def test_not_a_winning_hand() -> None:
    with pytest.raises(IllegalMoveError, match="not a winning hand"):
        score("123m456m789m234p567p56s", "5s")
    with pytest.raises(IllegalMoveError, match="5 sets"):
        score("123m55p", "5p")  # complete, but only 1 set + pair
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        score("111m456m789m234p678s99s", "5p")


# ---- payments -------------------------------------------------------------------------------------


# The engine's own payment path: hands played on hand-built walls (every seat's tiles and every
# draw named, so each hand plays the same way). The dealer (seat 0) opens with 1z; the draws are
# 5z/6z, which nobody holds and everyone throws at once, until the scenario's discarder throws 4m
# after the last named draw, or its winner draws 4m. The winning hand 111m 56m 789m 234p 678s 99s
# waits on 4m/7m: 門清 1 tai on a discard, 門清自摸 3 on a self-draw (no honours, a two-sided
# wait, past the first go-around: nothing else applies). Nobody else can claim 4m: no seat holds
# 4m, and the seat after the discarder holds no 23m/35m/56m.
WINNER = "111m56m789m234p678s99s"
DEALER = "2m8m9m1p2p5p6p7p8p9p1s3s5s1z2z3z4z"  # 17 tiles, no 4m
DEALER_WITH_4M = "4m8m9m1p2p5p6p7p8p9p1s3s5s1z2z3z4z"
SEAT = "3m3m1p1p4p7p9p2s2s4s5s8s1z2z3z4z"
SEAT_WITH_4M = "4m2m9m3p5p6p6p7p8p1s3s7s1z2z3z4z"
SEAT_NO_4M = "2m2m9m3p5p6p6p7p8p1s3s7s1z2z3z4z"
SEAT_FROM_DEALER = "2m8m9m1p2p5p6p7p8p9p1s3s5s2z3z4z"  # DEALER less its 1z: 16 tiles


def play_to_win(
    hands: list[str], draws: str, *, winner: int, discarder: int | None, **cfg: object
) -> HandResult:
    """Play the scripted hand above to its end; the hand's result."""
    four_m = int(Tile.parse("4m"))
    s = MahjongGame(**cfg).new_hand(build_wall(hands, draws=draws, seed=0))  # type: ignore[arg-type]
    s.apply(int(Tile.parse("1z")))
    draws_left = len(parse_kinds(draws))
    while not s.is_terminal():
        if s.phase in (Phase.CLAIM, Phase.ROB):
            s.apply(WIN if s.current_player() == winner else PASS)
            continue
        draws_left -= 1
        if s.turn == winner and s.drawn == four_m:
            s.apply(WIN)
        elif s.turn == discarder and draws_left == 0:
            s.apply(four_m)
        else:
            s.apply(s.drawn)
    assert s.last_result is not None
    return s.last_result


def deltas_of(r: HandResult) -> list[int]:
    assert not r.exhaustive and len(r.winners) == 1
    return list(r.deltas)


def test_discard_win_only_discarder_pays() -> None:
    r = play_to_win([DEALER, SEAT, WINNER, SEAT_WITH_4M], "5z5z5z5z6z6z6z", winner=2, discarder=3)
    assert r.discarder == 3 and dict(r.scores[0].patterns) == {"門清": 1}
    # seat 2 wins on seat 3's 4m, the dealer (seat 0) not involved: 1 tai -> 1000 + 1 x 500
    assert deltas_of(r) == [0, 0, 1500, -1500]
    assert [(p.payer, p.tai, p.amount) for p in r.payments] == [(3, 1, 1500)]


def test_dealer_discards_into_a_win_pays_dealer_tai() -> None:
    hands = [DEALER_WITH_4M, SEAT, WINNER, SEAT_NO_4M]
    r = play_to_win(hands, "5z5z5z5z", winner=2, discarder=0, continuation=2)
    assert r.discarder == 0 and r.continuation == 2 and dict(r.scores[0].patterns) == {"門清": 1}
    # the dealer at 連2 discards: 門清 1 + 莊家 1 + 連莊 2 x 2 = 6 tai -> 1000 + 3000
    assert deltas_of(r) == [-4000, 0, 4000, 0]
    assert r.payments[0].lines == (("門清", 1), ("莊家", 1), ("連莊", 4))


def test_self_draw_all_pay_dealer_tai_only_from_dealer() -> None:
    hands = [DEALER, WINNER, SEAT, SEAT_NO_4M]
    r = play_to_win(hands, "5z5z5z5z4m", winner=1, discarder=None, continuation=1)
    assert r.self_draw and dict(r.scores[0].patterns) == {"門清自摸": 3}
    # non-dealer seat 1 self-draws, dealer seat 0 at 連1: the dealer pays 3 + 莊家 1 + 連莊 2 =
    # 6 tai (4000), the other two 3 tai (2500 each); the winner gets 9000
    assert deltas_of(r) == [-4000, 9000, -2500, -2500]
    # the payers in turn order from the winner
    assert [(p.payer, p.tai) for p in r.payments] == [(2, 3), (3, 3), (0, 6)]


def test_dealer_self_draw_everyone_pays_dealer_tai() -> None:
    hands = [WINNER + "1z", SEAT, SEAT_FROM_DEALER, SEAT_NO_4M]
    r = play_to_win(hands, "5z5z5z4m", winner=0, discarder=None)
    assert r.self_draw and r.winners == (0,) and dict(r.scores[0].patterns) == {"門清自摸": 3}
    # the dealer wins at 連0: each of the three pays 3 + 莊家 1 = 4 tai = 1000 + 2000
    assert deltas_of(r) == [9000, -3000, -3000, -3000]


def test_limit_caps_tai_and_custom_stakes() -> None:
    hands = [DEALER, WINNER, SEAT, SEAT_NO_4M]
    stakes = {"base": 100, "per_tai": 20, "continuation": 3}
    r = play_to_win(hands, "5z5z5z5z4m", winner=1, discarder=None, **stakes)
    # seat 1 self-draws (3 tai), the dealer at 連3 pays 3 + 1 + 2 x 3 = 10 tai: 100 + 10 x 20 = 300;
    # the others 3 tai: 100 + 60 = 160
    assert deltas_of(r) == [-300, 620, -160, -160]
    capped = play_to_win(hands, "5z5z5z5z4m", winner=1, discarder=None, limit=2, **stakes)
    # limit=2 caps every payment at 2 tai, the dealer's included: 100 + 2 x 20 = 140 each
    assert deltas_of(capped) == [-140, 420, -140, -140]
    assert [p.tai for p in capped.payments] == [2, 2, 2]
    # the lines still show what the cap cut (10 tai for the dealer's payment)
    assert sum(v for _, v in capped.payments[2].lines) == 10


def _s(tai_hand: str = "111m456m789m234p678s99s", win: str = "4m", self_draw: bool = False) -> Score:
    return score_win(
        parse_counts(tai_hand), [], WinContext(winning_tile=int(Tile.parse(win)), self_draw=self_draw)
    )


def test_breakdown_lists_dealer_lines() -> None:
    s = _s()
    assert s.breakdown(dealer_involved=True, continuation=2) == [("門清", 1), ("莊家", 1), ("連莊", 4)]
    assert s.breakdown() == [("門清", 1)]


def test_waits_are_the_tiles_that_complete_the_hand_by_the_shanten_tables() -> None:
    """On random ready-ish hands (sets and a pair, one tile taken away), ``waits`` gives
    exactly the kinds whose extra copy the shanten tables call complete (distance 0)."""
    import random

    from paiju.mahjong.agents import distance

    rng = random.Random(2)
    checked = with_waits = 0
    while checked < 2000:
        hand = [0] * 34
        for _ in range(rng.randint(1, 5)):
            if rng.random() < 0.5:
                first = 9 * rng.randrange(3) + rng.randrange(7)
                for k in (first, first + 1, first + 2):
                    hand[k] += 1
            else:
                hand[rng.randrange(34)] += 3
        hand[rng.randrange(34)] += 2
        if max(hand) > 4:
            continue
        hand[rng.choice([k for k in range(34) for _ in range(hand[k])])] -= 1
        expected = set()
        for k in range(34):
            if hand[k] < 4:
                hand[k] += 1
                if distance(hand) == 0:
                    expected.add(k)
                hand[k] -= 1
        assert set(waits(hand)) == expected, hand
        checked += 1
        with_waits += bool(expected)
    assert with_waits == checked  # every such hand is ready: the check is never vacuous
