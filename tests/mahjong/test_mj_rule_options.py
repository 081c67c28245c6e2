"""The optional rules of ``MahjongConfig`` beyond the paper's rule set, each on a hand built so
the option changes the tai or the play (``docs/mahjong-rules.md`` §9): tai presets, flowers
(replacement, 正花, 花槓, 七搶一, 八仙過海), 嚦咕嚦咕, 天聽, the 平胡 and 過水 variants. Every
expected value is worked out by hand from the rules text in the comment next to it."""

from __future__ import annotations

from typing import Any

import pytest

from paiju.core.errors import ConfigError, IllegalMoveError, InvalidNotationError
from paiju.mahjong.config import MahjongConfig, TaiTable, load_tai_table, tai_table_names
from paiju.mahjong.game import (
    PASS,
    WIN,
    DrawKind,
    MahjongGame,
    MahjongState,
    Phase,
    build_wall,
    parse_wall,
    wall_notation,
)
from paiju.mahjong.scoring import WinContext, score_win
from paiju.mahjong.tiles import Tile, parse_counts


def k(t: str) -> int:
    return int(Tile.parse(t))


def score(concealed: str, win: str | None, config: MahjongConfig, **ctx: Any) -> dict[str, int]:
    """Breakdown of a concealed win; the winner sits 西 in a 南 round unless told."""
    tile = k(win) if win else None
    args: dict[str, Any] = {"seat_wind": 2, "round_wind": 1, "self_draw": False, **ctx}
    s = score_win(parse_counts(concealed), [], WinContext(winning_tile=tile, **args), config)
    out: dict[str, int] = {}
    for name, v in s.patterns:
        out[name] = out.get(name, 0) + v
    assert s.tai == sum(out.values())
    return out


def pass_windows(s: MahjongState) -> None:
    while s.phase in (Phase.CLAIM, Phase.ROB):
        s.apply(PASS)


def pass_until(s: MahjongState, seat: int) -> None:
    while s.phase in (Phase.CLAIM, Phase.ROB) and s.current_player() != seat:
        s.apply(PASS)


# ---- tai presets ------------------------------------------------------------------------------


def test_presets_are_data_and_default_is_the_paper_table() -> None:
    assert {"atawmj_2009", "mahjong16_base", "ericyang"} <= set(tai_table_names())
    assert load_tai_table("atawmj_2009") == TaiTable()  # the data file is the default table
    assert MahjongConfig().tai == TaiTable()
    # protocols.md's base profile, read off its text: 槓上開花 2, 全求人 1, 地聽 8, 天聽 16,
    # 人胡 0, 地胡 16, 天胡 32, all honours 0 in this profile
    m16 = MahjongConfig(tai_table="mahjong16_base").tai
    assert (m16.kong_bloom, m16.all_beg, m16.earth_ready, m16.heaven_ready) == (2, 1, 8, 16)
    assert (m16.human_win, m16.earth_win, m16.heaven_win, m16.all_honours) == (0, 16, 32, 0)
    # source E's larger values: 四暗刻 6, 清一色 12, 五暗刻 16
    e = MahjongConfig(tai_table="ericyang").tai
    assert (e.four_concealed_pungs, e.full_flush, e.five_concealed_pungs) == (6, 12, 16)
    assert e.half_flush == 4  # the rest as the default table


def test_a_preset_changes_the_tai_of_a_hand() -> None:
    # a full flush of 萬 (111 234 456 678 789 + 99), won on a discard: 清一色 is 8 in the
    # default table and 12 in source E's; every other line is the same
    hand = "111m234m456m678m789m99m"
    base = score(hand, "5m", MahjongConfig())
    e = score(hand, "5m", MahjongConfig(tai_table="ericyang"))
    assert base["清一色"] == 8 and e["清一色"] == 12
    assert {n: v for n, v in e.items() if n != "清一色"} == {n: v for n, v in base.items() if n != "清一色"}
    # an explicit table wins over the preset
    own = MahjongConfig(tai_table="ericyang", tai=TaiTable(full_flush=10))
    assert own.tai.full_flush == 10
    # a game option switches the preset of a given config (the arena builds games this way)
    game = MahjongGame(MahjongConfig(tai_table="ericyang"), tai_table="atawmj_2009")
    assert game.config.tai == TaiTable()


def test_unknown_preset_and_cli_option() -> None:
    with pytest.raises(ConfigError, match=r"unknown tai_table 'nope'.*atawmj_2009"):
        MahjongConfig(tai_table="nope")
    from paiju.cli.validate import game_options

    assert game_options("mahjong", ["tai_table=mahjong16_base", "flowers=true"]) == {
        "tai_table": "mahjong16_base",
        "flowers": True,
    }
    with pytest.raises(ConfigError, match="missed_discard_scope"):
        game_options("mahjong", ["missed_discard_scope=sometimes"])


def test_base_and_per_tai_are_the_stake() -> None:
    # 七搶一 at the deal (below) is 8 tai + 1 dealer tai = 9: base 300 + 9 x 100 = 1,200
    s = _seven_rob_one_at_deal(MahjongConfig(flowers=True, base=300, per_tai=100))
    assert s.last_result is not None and s.last_result.deltas == (1200, 0, -1200, 0)


# ---- flowers ----------------------------------------------------------------------------------


def test_dealt_flower_is_shown_and_replaced_from_the_tail() -> None:
    dealer = "1f" + "1m2m3m4m5m6m7m8m9m1p2p3p4p5p6p7p"
    game = MahjongGame(flowers=True)
    s = game.new_hand(build_wall([dealer, "", "", ""], replacements="9p", seed=1, flowers=True))
    assert s.flowers[0] == [0] and s.hands[0][k("9p")] >= 1 and sum(s.hands[0]) == 17
    assert [sum(h) for h in s.hands] == [17, 16, 16, 16]
    assert len(s.wall) == 144 and s.live_tiles == 144 - 65 - 16 - sum(len(f) for f in s.flowers)
    assert s.observation(2).flowers[0] == (0,)  # public
    # a wall with flowers is 144 entries and round-trips through its notation
    assert parse_wall(wall_notation(s.wall), flowers=True) == s.wall
    with pytest.raises(InvalidNotationError, match="flowers=True"):
        parse_wall(wall_notation(s.wall))
    with pytest.raises(IllegalMoveError, match="144"):
        game.new_hand(build_wall(["", "", "", ""], seed=1))


def test_drawn_flower_is_replaced_at_once() -> None:
    dealer = "1m2m3m4m5m6m7m8m9m1p2p3p4p5p6p7p9s"
    hands = [dealer, "1z1z2z2z3z3z4z4z5z5z6z6z7z7z1s1s", "", ""]
    # the other flowers far down the wall, so no flower of the deal takes the 2s
    wall = build_wall(hands, draws="3f1f2f4f5f6f7f8f", replacements="2s", seed=3, flowers=True)
    s = MahjongGame(flowers=True).new_hand(wall)
    live = s.live_tiles
    s.apply(k("9s"))
    pass_windows(s)
    assert s.turn == 1 and s.flowers[1] == [2] and s.drawn == k("2s") and s.draw_kind == DrawKind.FLOWER
    assert s.live_tiles == live - 2  # the normal draw and its replacement


def test_seat_flowers_and_flower_kong() -> None:
    cfg = MahjongConfig(flowers=True)
    hand = "123m456m789m234p567p55s"  # 平胡 shape, won on 4p: 門清 1 (平胡 needs no flower)
    # 東 (seat wind 0): 春 (0) and 梅 (4) are his: 正花 1 each; 夏 (1) is not
    assert score(hand, "4p", cfg, seat_wind=0, flowers=(0, 1, 4)) == {"門清": 1, "正花": 2}
    # 春夏秋冬 all: 花槓 2, which already holds his 春 (non-repeat); 梅 still 正花 1
    assert score(hand, "4p", cfg, seat_wind=0, flowers=(0, 1, 2, 3, 4)) == {"門清": 1, "花槓": 2, "正花": 1}
    # without the flowers rule the same flowers count nothing
    assert score(hand, "4p", MahjongConfig(), seat_wind=0, flowers=(0, 4)) == {"門清": 1, "平胡": 2}


def _seven_rob_one_at_deal(cfg: MahjongConfig) -> MahjongState:
    """The dealer is dealt seven flowers, seat 2 the eighth: 七搶一 at the deal, seat 2 pays."""
    dealer = "1f2f3f4f5f6f7f" + "1m2m3m4m5m6m7m8m9m1p"
    wall = build_wall([dealer, "", "8f", ""], replacements="1s2s3s4s5s6s7s", seed=7, flowers=True)
    return MahjongGame(cfg).new_hand(wall)


def test_seven_flowers_rob_the_eighth_at_the_deal() -> None:
    s = _seven_rob_one_at_deal(MahjongConfig(flowers=True))
    r = s.last_result
    assert s.phase == Phase.OVER and r is not None
    assert r.winners == (0,) and r.discarder == 2 and r.scores[0].patterns == (("七搶一", 8),)
    rec = s.game.record_fields(s, [s.wall])
    assert rec["extra"]["hands"][0]["flowers"] == [["1f", "2f", "3f", "4f", "5f", "6f", "7f"], [], ["8f"], []]
    plain = MahjongGame()
    done = plain.new_hand(seed=1).random_playout(1)
    assert "flowers" not in plain.record_fields(done, [done.wall])["extra"]["hands"][0]
    # dealer wins: 8 + 莊家 1 = 9 tai, 1,000 + 9 x 500 = 5,500 from seat 2 alone
    assert r.deltas == (5500, 0, -5500, 0)


def _flowers_in_play(eighth_drawn_by_dealer: bool) -> MahjongState:
    """The dealer holds seven flowers after the deal; the eighth is drawn in play, by seat 1
    (七搶一: seat 1 pays the dealer) or by the dealer himself (八仙過海: all three pay)."""
    dealer = "1f2f3f4f5f6f7f" + "1m2m3m4m5m6m7m8m9m1p"
    draws = "8f" if not eighth_drawn_by_dealer else "1z1z1z8f"
    wall = build_wall([dealer, "", "", ""], draws=draws, replacements="1s2s3s4s5s6s7s", seed=9, flowers=True)
    s = MahjongGame(flowers=True).new_hand(wall)
    assert s.phase == Phase.TURN and len(s.flowers[0]) == 7
    for _ in range(4):
        if s.phase != Phase.TURN:
            break
        s.apply(s.drawn if s.drawn >= 0 else k("1p"))  # discard the drawn tile (the dealer: 1p)
        pass_windows(s)
    return s


def test_seven_flowers_rob_the_eighth_in_play() -> None:
    s = _flowers_in_play(eighth_drawn_by_dealer=False)
    r = s.last_result
    assert r is not None and r.winners == (0,) and r.discarder == 1
    assert r.scores[0].patterns == (("七搶一", 8),) and r.deltas == (5500, -5500, 0, 0)


def test_all_eight_flowers_win_by_themselves() -> None:
    s = _flowers_in_play(eighth_drawn_by_dealer=True)
    r = s.last_result
    assert r is not None and r.winners == (0,) and r.self_draw and r.discarder is None
    # 八仙過海 8 + 莊家 1 from each of the three: 3 x 5,500
    assert r.scores[0].patterns == (("八仙過海", 8),) and r.deltas == (16500, -5500, -5500, -5500)


def test_all_chows_needs_no_flower_unless_the_variant_allows() -> None:
    hand = "123m456m789m234p567p55s"
    on = MahjongConfig(flowers=True)
    assert "平胡" not in score(hand, "4p", on, flowers=(1,))  # 夏 is no seat flower of 西: 0 tai
    assert score(hand, "4p", MahjongConfig(flowers=True, all_chows_no_flowers=False), flowers=(1,)) == {
        "門清": 1,
        "平胡": 2,
    }


# ---- 平胡 variants --------------------------------------------------------------------------------


def test_all_chows_variants() -> None:
    hand = "123m456m789m234p567p55s"
    # self-drawn 4p: the default table counts no 平胡 (discard only) ...
    assert score(hand, "4p", MahjongConfig(), self_draw=True) == {"門清自摸": 3}
    # ... the variant does, on top of 門清自摸
    variant = MahjongConfig(all_chows_self_draw=True)
    assert score(hand, "4p", variant, self_draw=True) == {"門清自摸": 3, "平胡": 2}
    # an honour pair (7z 中, no pung): default no 平胡, the variant allows it
    honour = "123m456m789m234p567p77z"
    assert score(honour, "4p", MahjongConfig()) == {"門清": 1}
    assert score(honour, "4p", MahjongConfig(all_chows_honour_pair=True)) == {"門清": 1, "平胡": 2}


# ---- 嚦咕嚦咕 ---------------------------------------------------------------------------------------

LIGU = "1199m1199p11s22z33z555z"  # seven pairs and a 白 pung: no 5-sets-and-a-pair reading


def test_ligu_scores_as_its_own_shape() -> None:
    on = MahjongConfig(ligu=True)
    # on a discard of 5z: 嚦咕嚦咕 8 + 門清 1 + 三元牌 1 (the 白 pung); before it the hand
    # waited on all eight pair kinds, so no 獨聽
    assert score(LIGU, "5z", on) == {"嚦咕嚦咕": 8, "門清": 1, "三元牌": 1}
    # self-drawn 9m (completing a pair: the hand waited on 9m alone) : 門清自摸 3, 獨聽 1
    assert score(LIGU, "9m", on, self_draw=True) == {"門清自摸": 3, "三元牌": 1, "獨聽": 1, "嚦咕嚦咕": 8}
    with pytest.raises(IllegalMoveError, match="not a winning hand"):
        score(LIGU, "5z", MahjongConfig())


def test_ligu_is_a_win_in_play_only_with_the_flag() -> None:
    seat1 = "1199m1199p11s22z33z55z"  # 16 tiles: eight pairs, waits on any of them
    dealer = "5z" + "1m2m3m4m5m6m7m8m2p3p4p5p6p7p8p9s"
    for flag in (True, False):
        s = MahjongGame(ligu=flag).new_hand(build_wall([dealer, seat1, "", ""], seed=11))
        s.apply(k("5z"))
        pass_until(s, 1)
        legal = s.legal_actions() if s.current_player() == 1 else []
        assert (WIN in legal) is flag
        if flag:
            s.apply(WIN)
            r = s.last_result
            assert r is not None and r.winners == (1,) and ("嚦咕嚦咕", 8) in r.scores[0].patterns


# ---- 天聽 -----------------------------------------------------------------------------------------

READY16 = "123m456m789m123p11s45p"  # seat 1's dealt tiles: ready, waiting on 3p / 6p


def _heaven_hand(cfg: MahjongConfig, first_draw: str, first_discard: str, win_draw: str) -> MahjongState:
    dealer = "9s" + "2m3m4m5m6m7m8m2p4p5p6p7p8p2s3s4s"
    draws = first_draw + "1z1z2z" + win_draw  # seats 1, 2, 3, 0, then seat 1 again
    s = MahjongGame(cfg).new_hand(build_wall([dealer, READY16, "", ""], draws=draws, seed=13))
    s.apply(k("9s"))
    pass_windows(s)
    s.apply(k(first_discard))
    pass_windows(s)
    for _ in range(3):  # seats 2, 3 and the dealer throw what they draw
        s.apply(s.drawn)
        pass_windows(s)
    assert s.turn == 1 and WIN in s.legal_actions()
    s.apply(WIN)
    return s


def _patterns(s: MahjongState) -> dict[str, int]:
    assert s.last_result is not None
    return dict(s.last_result.scores[0].patterns)


def test_heaven_ready_separately_from_earth_ready() -> None:
    both = MahjongConfig(heaven_ready=True, earth_ready=True)
    # ready at the deal and the first draw (7z) thrown: 天聽 16; it implies 地聽 (non-repeat)
    p = _patterns(_heaven_hand(both, "7z", "7z", "3p"))
    assert p["天聽"] == 16 and "地聽" not in p
    assert "地聽" in _patterns(_heaven_hand(MahjongConfig(earth_ready=True), "7z", "7z", "3p"))
    assert "天聽" not in _patterns(_heaven_hand(MahjongConfig(), "7z", "7z", "3p"))
    # drew 4p and threw 5p from the hand: still ready (1s / 4p), but not on the dealt tiles
    p = _patterns(_heaven_hand(both, "4p", "5p", "1s"))
    assert "天聽" not in p and p["地聽"] == 4


# ---- 過水 variants --------------------------------------------------------------------------------


def _missed(scope: str) -> tuple[MahjongState, bool]:
    """Seat 2 (waiting on 3p / 6p) passes the dealer's 3p; seat 1 then throws 6p. Returns the
    state at seat 2's answer to the 6p and whether a win on it is offered."""
    dealer = "3p" + "2m3m4m5m6m7m8m9m2s3s4s5s6s7s8s9s"
    s = MahjongGame(missed_discard_scope=scope).new_hand(
        build_wall([dealer, "", READY16, ""], draws="6p3p", seed=17)
    )
    s.apply(k("3p"))
    pass_until(s, 2)
    assert WIN in s.legal_actions()
    s.apply(PASS)
    pass_windows(s)
    assert s.turn == 1 and s.drawn == k("6p")
    s.apply(k("6p"))
    pass_until(s, 2)
    asked = s.phase == Phase.CLAIM and s.current_player() == 2
    return s, asked and WIN in s.legal_actions()


def test_missed_discard_lock_kind_or_all() -> None:
    # "kind": only 3p is locked, so 6p may be won; "all": no discard win until his discard
    s, can = _missed("kind")
    assert can
    s, can = _missed("all")
    assert not can
    # and the self-draw of the passed kind: locked by "kind", allowed by "all"
    for scope, allowed in (("kind", False), ("all", True)):
        s, _ = _missed(scope)
        pass_windows(s)
        assert s.turn == 2 and s.drawn == k("3p")
        assert (WIN in s.legal_actions()) is allowed


# ---- every option together through the core game-API checks -----------------------------------


def test_conformance_with_every_option_on() -> None:
    from paiju.core.conformance import check_game_api

    game = MahjongGame(
        flowers=True,
        ligu=True,
        heaven_ready=True,
        earth_ready=True,
        missed_discard_scope="all",
        all_chows_self_draw=True,
        tai_table="mahjong16_base",
    )
    check_game_api(game, games=6, seed=3, illegal_action=_first_illegal)


def _first_illegal(state: MahjongState) -> int | None:
    legal = set(state.legal_actions())
    return next((a for a in range(109) if a not in legal), None)


def test_dealer_heaven_ready_after_his_first_discard() -> None:
    # the dealer's 17 dealt tiles less the 9s he throws first are READY16 (waiting on 3p / 6p);
    # seats 1-3 throw what they draw, then he draws 3p: 天聽 16 with his 門清自摸 3 and 莊家
    dealer = READY16 + "9s"
    s = MahjongGame(heaven_ready=True).new_hand(build_wall([dealer, "", "", ""], draws="1z1z2z3p", seed=19))
    s.apply(k("9s"))
    pass_windows(s)
    for _ in range(3):
        s.apply(s.drawn)
        pass_windows(s)
    assert s.turn == 0 and s.drawn == k("3p") and s.heaven[0] == 1
    s.apply(WIN)
    p = _patterns(s)
    assert p["天聽"] == 16 and p["門清自摸"] == 3
