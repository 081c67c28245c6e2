"""`paiju mahjong score` and :func:`paiju.mahjong.score_hand.score_hand`.

The cross-check: 35 hands whose tai lines, totals and payments were worked out BY HAND from
the atawmj_2009 table of docs/mahjong-rules.md T1 (the ``TaiTable`` defaults), with the
non-repeat principle (T2) and the payment rule (T3: base 1,000 + 500 per tai; the dealer's
莊家 1 + 連莊 2N only in payments between the dealer and his counterparty). Each row's comment
derives its total. Seats: the dealer is 東, so the winner's seat wind is (seat - dealer) % 4;
the prevailing wind is 東 unless given.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import PaijuError
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.score_hand import (
    FLAGS,
    format_flags,
    format_flowers,
    format_meld,
    format_melds,
    parse_flags,
    parse_flowers,
    parse_meld,
    parse_melds,
    score_hand,
)
from paiju.mahjong.tiles import Meld, MeldType

# the 門清 平胡 hand of several rows: 123m 456m 789p 234s 67s 55p, waiting 5s / 8s (two-sided)
PINGHU = "123456m789p23467s55p"

# (id, score_hand keyword arguments, expected tai lines, expected hand tai, {payer: amount})
HANDS: list[tuple[str, dict[str, Any], list[tuple[str, int]], int, dict[int, int]]] = [
    # 門清 1 + 平胡 2 (five chows, no honour, two-sided 8s, on a discard) = 3; seat 2 pays 1000+3*500
    ("pinghu-discard", dict(concealed=PINGHU, winning_tile="8s", seat=1, dealer=0, discarder=2),
     [("門清", 1), ("平胡", 2)], 3, {2: 2500}),
    # the same, paid by the dealer on his 連1: 3 + 莊家 1 + 連莊 2 = 6 tai -> 4000
    ("pinghu-dealer-pays-streak", dict(concealed=PINGHU, winning_tile="8s", seat=1, dealer=0,
                                        discarder=0, continuation=1),
     [("門清", 1), ("平胡", 2)], 3, {0: 4000}),
    # self-drawn: 門清自摸 3 (平胡 only on a discard); dealer seat 0 pays 3+1 = 4 -> 3000, others 2500
    ("pinghu-self-draw", dict(concealed=PINGHU, winning_tile="8s", seat=1, dealer=0, flags="self-draw"),
     [("門清自摸", 3)], 3, {2: 2500, 3: 2500, 0: 3000}),
    # the dealer self-draws on 連2: each payment 3 + 1 + 4 = 8 tai -> 5000
    ("dealer-self-draw-streak-2", dict(concealed=PINGHU, winning_tile="8s", seat=0, dealer=0,
                                        flags="self-draw", continuation=2),
     [("門清自摸", 3)], 3, {1: 5000, 2: 5000, 3: 5000}),
    # edge wait 12m -> 3m only: 門清 1 + 獨聽 1 = 2 -> 2000
    ("edge-wait", dict(concealed="12456m789p234678s55p", winning_tile="3m", seat=1, dealer=0, discarder=3),
     [("門清", 1), ("獨聽", 1)], 2, {3: 2000}),
    # closed wait 24m -> 3m, self-drawn: 門清自摸 3 + 獨聽 1 = 4; the dealer pays 5 -> 3500
    ("closed-wait-self-draw", dict(concealed="24456m789p234678s55p", winning_tile="3m", seat=2, dealer=0,
                                   flags="self-draw"),
     [("門清自摸", 3), ("獨聽", 1)], 4, {3: 3000, 0: 3500, 1: 3000}),
    # 全求人: five exposed sets, single-wait pair on a discard: 全求人 2 + 獨聽 1 = 3; the dealer pays 4
    ("all-beg", dict(concealed="9p", melds="123m 456p 777s 999m 234s", winning_tile="9p", seat=1,
                     dealer=0, discarder=0),
     [("全求人", 2), ("獨聽", 1)], 3, {0: 3000}),
    # 半求: the same self-drawn: 自摸 1 + 獨聽 1 + 半求 1 = 3; the dealer pays 4
    ("half-beg", dict(concealed="9p", melds="123m 456p 777s 999m 234s", winning_tile="9p", seat=1,
                      dealer=0, flags="self-draw"),
     [("自摸", 1), ("獨聽", 1), ("半求", 1)], 3, {2: 2500, 3: 2500, 0: 3000}),
    # 碰碰胡 4 + 獨聽 1 (only 5s) = 5; two concealed pungs are not 三暗刻 -> 3500
    ("all-pungs-discard", dict(concealed="777m888p5s", melds="111m 222p 333s", winning_tile="5s", seat=2,
                               dealer=0, discarder=1),
     [("碰碰胡", 4), ("獨聽", 1)], 5, {1: 3500}),
    # the same self-drawn: 自摸 1 + 碰碰胡 4 + 獨聽 1 = 6; the dealer pays 7
    ("all-pungs-self-draw", dict(concealed="777m888p5s", melds="111m 222p 333s", winning_tile="5s", seat=2,
                                 dealer=0, flags="self-draw"),
     [("自摸", 1), ("碰碰胡", 4), ("獨聽", 1)], 6, {3: 4000, 0: 4500, 1: 4000}),
    # three concealed pungs 111m 555p 999s, 中 pair single wait: 門清 1 + 獨聽 1 + 三暗刻 2 = 4
    ("three-concealed-pungs", dict(concealed="111234m555p678999s7z", winning_tile="7z", seat=3, dealer=0,
                                   discarder=2),
     [("門清", 1), ("獨聽", 1), ("三暗刻", 2)], 4, {2: 3000}),
    # 678s 777s 99s waits 7s/8s/9s; self-drawn on 9s: 999s is concealed, so 三暗刻 2 + 門清自摸 3 = 5
    ("shanpon-self-draw-concealed-pung", dict(concealed="111234m555p6777899s",
                                              winning_tile="9s", seat=3, dealer=0, flags="self-draw"),
     [("門清自摸", 3), ("三暗刻", 2)], 5, {0: 4000, 1: 3500, 2: 3500}),
    # the same on a discard: the pung the discard completes is not concealed -> 門清 1 only
    ("shanpon-discard-open-pung", dict(concealed="111234m555p6777899s", winning_tile="9s", seat=3, dealer=0,
                                       discarder=1),
     [("門清", 1)], 1, {1: 1500}),
    # 四暗刻 5 + 門清自摸 3 + 獨聽 1 = 9; the dealer wins on 連1: each pays 9 + 1 + 2 = 12 -> 7000
    ("four-concealed-pungs", dict(concealed="1118m234555p777999s", winning_tile="8m", seat=1, dealer=1,
                                  flags="self-draw", continuation=1),
     [("門清自摸", 3), ("獨聽", 1), ("四暗刻", 5)], 9, {2: 7000, 3: 7000, 0: 7000}),
    # 五暗刻 8 (implies 碰碰胡 and 門清, so 自摸 1 stays) + 獨聽 1 = 10; dealer pays 11
    ("five-concealed-pungs", dict(concealed="1113338m555p777999s", winning_tile="8m", seat=2, dealer=0,
                                  flags="self-draw"),
     [("自摸", 1), ("獨聽", 1), ("五暗刻", 8)], 10, {3: 6000, 0: 6500, 1: 6000}),
    # 清一色 8 + 門清 1 = 9 (no reading has three concealed pungs: 111m 999m at most) -> 5500
    ("full-flush", dict(concealed="1112345556778999m", winning_tile="9m",
                        seat=1, dealer=0, discarder=3),
     [("門清", 1), ("清一色", 8)], 9, {3: 5500}),
    # 混一色 4 + 白 pung 三元牌 1 + 南 pung 門風刻 1 (seat 1 is 南) = 6; won on 2z, not single
    ("half-flush", dict(concealed="11123456789p22z", melds="555z", winning_tile="2z", seat=1, dealer=0,
                        discarder=2),
     [("三元牌", 1), ("門風刻", 1), ("混一色", 4)], 6, {2: 4000}),
    # 字一色 16 (implies 碰碰胡) + 小三元 4 (implies 三元牌 x2) + 西 門風刻 1 (seat 2) + 東 圈風刻 1
    # + 三暗刻 2 (222z 333z 666z) + 獨聽 1 (中 pair) = 25 -> 1000 + 12500
    ("all-honours-small-dragons", dict(concealed="2223336667z", melds="111z 555z", winning_tile="7z",
                                       seat=2, dealer=0, discarder=1),
     [("門風刻", 1), ("圈風刻", 1), ("獨聽", 1), ("三暗刻", 2), ("字一色", 16), ("小三元", 4)], 25,
     {1: 13500}),
    # 大三元 8 (implies 三元牌 x3) + 獨聽 1 = 9; the dealer wins: 9 + 1 = 10 -> 6000
    ("big-three-dragons", dict(concealed="123m456p777z9s", melds="555z 666z", winning_tile="9s", seat=0,
                               dealer=0, discarder=3),
     [("獨聽", 1), ("大三元", 8)], 9, {3: 6000}),
    # 小四喜 8 (implies the wind pungs) + 獨聽 1 (edge 12m) + 自摸 1 = 10; the dealer pays 11
    ("small-four-winds", dict(concealed="12m33344z", melds="111z 222z 789p", winning_tile="3m", seat=3,
                              dealer=0, flags="self-draw"),
     [("自摸", 1), ("獨聽", 1), ("小四喜", 8)], 10, {0: 6500, 1: 6000, 2: 6000}),
    # 大四喜 16 + 混一色 4 (m and honours) = 20; two-sided 8m, not single -> 11000
    ("big-four-winds", dict(concealed="5567m444z", melds="111z 222z 333z", winning_tile="8m", seat=1,
                            dealer=0, discarder=2),
     [("混一色", 4), ("大四喜", 16)], 20, {2: 11000}),
    # 海底撈月: 門清自摸 3 + 海底撈月 1 = 4; the dealer pays 5
    ("last-tile", dict(concealed=PINGHU, winning_tile="8s", seat=1, dealer=0, flags="self-draw,last-tile"),
     [("門清自摸", 3), ("海底撈月", 1)], 4, {2: 3000, 3: 3000, 0: 3500}),
    # 河底撈魚: 門清 1 + 平胡 2 + 河底撈魚 1 = 4
    ("last-discard", dict(concealed=PINGHU, winning_tile="8s", seat=1, dealer=0, discarder=2,
                          flags="last-discard"),
     [("門清", 1), ("平胡", 2), ("河底撈魚", 1)], 4, {2: 3000}),
    # 槓上開花 after a concealed kong (which keeps 門清): 門清自摸 3 + 獨聽 1 + 槓上開花 1 = 5
    ("kong-bloom", dict(concealed="123456m234789p9s", melds="[7777s]", winning_tile="9s", seat=2,
                        dealer=0, flags="self-draw,kong-bloom"),
     [("門清自摸", 3), ("獨聽", 1), ("槓上開花", 1)], 5, {3: 3500, 0: 4000, 1: 3500}),
    # 搶槓 of the dealer's added kong: 門清 1 + 獨聽 1 + 搶槓 1 = 3; the konger (dealer) pays 4
    ("robbing-kong", dict(concealed="24456m789p234678s55p", winning_tile="3m", seat=2, dealer=1,
                          discarder=1, flags="robbing-kong"),
     [("門清", 1), ("獨聽", 1), ("搶槓", 1)], 3, {1: 3000}),
    # a concealed kong keeps 門清: 門清 1 + 獨聽 1 = 2
    ("concealed-kong-menqing", dict(concealed="12456m789p234s55p", melds="[9999m]", winning_tile="3m",
                                    seat=1, dealer=0, discarder=2),
     [("門清", 1), ("獨聽", 1)], 2, {2: 2000}),
    # an exposed kong breaks it: 獨聽 1 only
    ("exposed-kong", dict(concealed="12456m789p234s55p", melds="9999m", winning_tile="3m", seat=1,
                          dealer=0, discarder=2),
     [("獨聽", 1)], 1, {2: 1500}),
    # with concealed_kong_keeps_menqing=False (source W) the concealed kong breaks it too
    ("concealed-kong-variant-w", dict(concealed="12456m789p234s55p", melds="[9999m]", winning_tile="3m",
                                      seat=1, dealer=0, discarder=2,
                                      config=MahjongConfig(concealed_kong_keeps_menqing=False)),
     [("獨聽", 1)], 1, {2: 1500}),
    # the dealer (東) in the 東 round with a 東 pung and a 白 pung: 門清 1 + 門風刻 1 + 圈風刻 1 +
    # 三元牌 1 + 獨聽 1 (9p) = 5; dealer's win: 5 + 1 = 6 -> 4000
    ("dealer-winds-dragon", dict(concealed="123m456p789s9p111z555z", winning_tile="9p", seat=0, dealer=0,
                                 discarder=1),
     [("門清", 1), ("門風刻", 1), ("圈風刻", 1), ("三元牌", 1), ("獨聽", 1)], 5, {1: 4000}),
    # the prevailing wind 南 (round 1) for a 南 seat: both wind tai on one pung, 門清 1 + 獨聽 1 too
    ("south-round-south-seat", dict(concealed="123789m456p789s9p222z",
                                    melds="", winning_tile="9p", seat=1, dealer=0, discarder=2,
                                    round_wind=1),
     [("門清", 1), ("門風刻", 1), ("圈風刻", 1), ("獨聽", 1)], 4, {2: 3000}),
    # flowers on, seat 1 (南) holds 夏 2f and 蘭 6f: 正花 x2; 平胡 needs no flower: 門清 1 + 2 = 3
    ("seat-flowers", dict(concealed=PINGHU, winning_tile="8s", seat=1, dealer=0, discarder=2,
                          flowers="126f", config=MahjongConfig(flowers=True)),
     [("門清", 1), ("正花", 1), ("正花", 1)], 3, {2: 2500}),
    # 花槓: all four seasons 2 (implies 夏's 正花) + 門清 1 = 3
    ("flower-kong", dict(concealed=PINGHU, winning_tile="8s", seat=1, dealer=0, discarder=3,
                         flowers="1234f", config=MahjongConfig(flowers=True)),
     [("門清", 1), ("花槓", 2)], 3, {3: 2500}),
    # 人胡 8 (implies 門清) + 平胡 2 = 10; the dealer pays 11 -> 6500
    ("human-win", dict(concealed=PINGHU, winning_tile="8s", seat=1, dealer=0, discarder=0, flags="human"),
     [("平胡", 2), ("人胡", 8)], 10, {0: 6500}),
    # 地胡 16 (implies 門清自摸); the dealer pays 17 -> 9500, the others 9000
    ("earth-win", dict(concealed=PINGHU, winning_tile="8s", seat=1, dealer=0, flags="self-draw,earth"),
     [("地胡", 16)], 16, {2: 9000, 3: 9000, 0: 9500}),
    # 天胡 24 (implies 門清自摸; no winning tile, so no wait pattern); each pays 24 + 1 -> 13500
    ("heaven-win", dict(concealed=PINGHU, winning_tile="8s", seat=0, dealer=0, flags="self-draw,heaven"),
     [("天胡", 24)], 24, {1: 13500, 2: 13500, 3: 13500}),
]


@pytest.mark.parametrize(
    ("kwargs", "lines", "total", "pays"), [h[1:] for h in HANDS], ids=[h[0] for h in HANDS]
)
def test_hand_checked_by_hand(
    kwargs: dict[str, Any], lines: list[tuple[str, int]], total: int, pays: dict[int, int]
) -> None:
    scored = score_hand(**kwargs)
    assert sorted(scored.lines) == sorted(lines)
    assert scored.total == total == sum(v for _, v in lines)
    assert {p.payer: p.amount for p in scored.payments} == pays


def test_at_least_thirty_hands_cover_the_asked_patterns() -> None:
    assert len(HANDS) >= 30
    seen = {name for h in HANDS for name, _ in h[2]}
    wanted = {"門清", "全求人", "碰碰胡", "混一色", "清一色", "字一色", "大三元", "小三元", "大四喜",
              "小四喜", "海底撈月", "槓上開花", "搶槓", "正花", "花槓", "門清自摸", "自摸"}
    assert wanted <= seen


# --- notation ---------------------------------------------------------------------------------

_SUITED_START = [k for k in range(27) if k % 9 <= 6]
meld_strategy = st.one_of(
    st.sampled_from(_SUITED_START).map(lambda k: Meld(MeldType.CHOW, k)),
    st.tuples(st.sampled_from([t for t in MeldType if t != MeldType.CHOW]), st.integers(0, 33)).map(
        lambda tk: Meld(tk[0], tk[1])
    ),
)


@given(st.lists(meld_strategy, max_size=5))
def test_melds_round_trip(melds: list[Meld]) -> None:
    text = format_melds(melds)
    assert parse_melds(text) == tuple(melds)
    assert format_melds(parse_melds(text.replace(" ", ", "))) == text


@given(st.sets(st.sampled_from(FLAGS)))
def test_flags_round_trip(flags: set[str]) -> None:
    text = format_flags(flags)
    assert parse_flags(text) == frozenset(flags)
    assert format_flags(parse_flags(text)) == text


@given(st.sets(st.integers(0, 7), max_size=7))
def test_flowers_round_trip(flowers: set[int]) -> None:
    assert parse_flowers(format_flowers(flowers)) == tuple(sorted(flowers))


def test_meld_notation_by_hand() -> None:
    assert parse_meld("345p") == Meld(MeldType.CHOW, 11)
    assert parse_meld("543p") == Meld(MeldType.CHOW, 11)  # any order
    assert parse_meld("777z") == Meld(MeldType.PUNG, 33)
    assert parse_meld("1111s") == Meld(MeldType.EXPOSED_KONG, 18)
    assert parse_meld("1111s+") == Meld(MeldType.ADDED_KONG, 18)
    assert parse_meld("[1111s]") == Meld(MeldType.CONCEALED_KONG, 18)
    assert format_meld(Meld(MeldType.CONCEALED_KONG, 27)) == "[1111z]"
    assert parse_flags("自摸,槓上開花") == {"self-draw", "kong-bloom"}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("124m", "not a chow"), ("123z", "not a chow"), ("891m", "not a chow"), ("[111m]", "kongs of four"),
     ("[1111m", "invalid meld"), ("11m", "invalid meld"), ("[1111m]+", "concealed"),
     ("5555z5", "invalid meld")],
)
def test_bad_meld_names_the_problem(text: str, fragment: str) -> None:
    with pytest.raises(PaijuError, match=fragment):
        parse_meld(text)


# --- bad hands --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (dict(concealed="123456m789p23468s55p", winning_tile="8s", discarder=2), "not a winning hand"),
        (dict(concealed="1111m234m789p234s", melds="111m", winning_tile="5p", discarder=2),
         "more than 4 copies of 1m"),
        (dict(concealed=PINGHU + "9s", winning_tile="8s", discarder=2), "wrong tile count"),
        (dict(concealed=PINGHU, winning_tile="8s", flags="last-tile", discarder=2), "add the flag self-draw"),
        (dict(concealed=PINGHU, winning_tile="8s", flags="self-draw,robbing-kong"), "not self-drawn"),
        (dict(concealed=PINGHU, winning_tile="8s", flags="self-draw,last-tile,kong-bloom"), "contradict"),
        (dict(concealed=PINGHU, winning_tile="8s", flags="self-draw,kong-bloom"), "needs a kong"),
        (dict(concealed=PINGHU, winning_tile="8s", flags="self-draw", discarder=2), "no discarder"),
        (dict(concealed=PINGHU, winning_tile="8s"), "needs the discarder"),
        (dict(concealed=PINGHU, winning_tile="8s", discarder=0, seat=0), "other than the winner"),
        (dict(concealed=PINGHU, winning_tile="8s", seat=1, flags="self-draw,heaven"), "must be the dealer"),
        (dict(concealed=PINGHU, winning_tile="8s", discarder=1, flowers="1f"), "rule set has none"),
        (dict(concealed=PINGHU, winning_tile="8s", discarder=1, flags="earth-ready"), "earth_ready=true"),
        (dict(concealed=PINGHU, winning_tile="8s8s", discarder=1), "one tile"),
        (dict(concealed=PINGHU, winning_tile="", discarder=1), "one tile"),
        (dict(concealed=PINGHU, winning_tile="8s", discarder=1, seat=5), "seat 5 must be 0..3"),
    ],
)
def test_bad_hand_names_what_is_wrong(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(PaijuError, match=fragment):
        score_hand(**kwargs)


# --- the command ------------------------------------------------------------------------------


def test_cli_json_matches_the_api_and_takes_options() -> None:
    argv = ["mahjong", "score", PINGHU, "--win", "8s", "--seat", "1", "--dealer", "0", "--discarder", "2",
            "--flowers", "26f", "-o", "flowers=true", "--json"]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert [(x["pattern"], x["tai"]) for x in out["lines"]] == [("門清", 1), ("正花", 1), ("正花", 1)]
    assert out["tai"] == 3 and out["payments"] == [
        {"payer": 2, "tai": 3, "amount": 2500, "lines": [["門清", 1], ["正花", 1], ["正花", 1]]}
    ]


def test_cli_text_shows_lines_and_payments() -> None:
    argv = ["mahjong", "score", PINGHU, "--win", "8s", "--seat", "1", "-f", "self-draw", "--streak", "1"]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert "門清自摸 (concealed self-draw (不求)): 3" in result.output
    assert "seat 0 pays 4000 = 1000 + 6 tai × 500" in result.output  # 3 + 莊家 1 + 連莊 2
    assert "seat 2 pays 2500" in result.output


# --- the tool and the engine agree ------------------------------------------------------------

_FLAG_OF_PATTERN = {"槓上開花": "kong-bloom", "海底撈月": "last-tile", "河底撈魚": "last-discard",
                    "地胡": "earth", "人胡": "human"}


def test_tool_scores_played_hands_as_the_engine_does() -> None:
    """Hands played by greedy agents, re-entered as a player would: the same lines and payments.

    The flags the tiles cannot show are taken from the engine's own lines (they are what the
    player would say); everything else -- decomposition, waits, winds, dealer tai, payers --
    is the tool's own work. The engine plays with flowers, so 正花 / 花槓 are checked too.
    """
    from paiju.core.protocol import play_game
    from paiju.core.rng import derive_seed
    from paiju.mahjong.agents import REGISTRY
    from paiju.mahjong.game import MahjongGame

    game = MahjongGame(flowers=True, continuation=1, dealer=2)
    checked = 0
    for seed in range(40):
        state = game.new_hand(seed=seed)
        players = [REGISTRY.make("greedy", seed=derive_seed(seed, i)) for i in range(4)]
        play_game(game, players, seed, start=state)
        result = state.last_result
        assert result is not None
        for i, w in enumerate(result.winners):
            score = result.scores[i]
            names = {n for n, _ in score.patterns}
            if "天胡" in names:
                continue  # no winning tile to enter
            flags = [f for n, f in _FLAG_OF_PATTERN.items() if n in names]
            flags += ["self-draw"] if result.self_draw else []
            flags += ["robbing-kong"] if result.robbed_kong else []
            if "地胡" in names and "self-draw" not in flags:
                flags.append("self-draw")
            before = list(result.winning_hands[i])
            before[result.winning_tile] -= 1
            scored = score_hand(
                [k for k, c in enumerate(before) for _ in range(c)], state.melds[w],
                winning_tile=result.winning_tile, flags=flags, seat=w,
                dealer=result.dealer, discarder=result.discarder, round_wind=result.round_wind,
                continuation=result.continuation, flowers=result.flowers[w] if result.flowers else (),
                config=game.config,
            )
            assert scored.lines == score.patterns
            assert [(p.payer, p.amount, p.lines) for p in scored.payments] == [
                (p.payer, p.amount, p.lines) for p in result.payments if p.winner == w
            ]
            checked += 1
    assert checked >= 15, checked
