"""The mahjong engine on hand-built walls: deal, claims and their priority, kongs and robbing,
the missed-discard lock, the dead wall and the exhaustive draw, first-go-around and last-tile
wins, observations and errors. Each scenario's expected outcome is worked out by hand.
"""

from __future__ import annotations

import dataclasses

import pytest

from paiju.core.errors import AmbiguousMoveError, IllegalMoveError, InvalidNotationError
from paiju.mahjong.game import (
    ADDED_KONG,
    CHOW_HIGH,
    CHOW_LOW,
    CHOW_MID,
    CONCEALED_KONG,
    KONG,
    NUM_ACTIONS,
    PASS,
    PUNG,
    WIN,
    MahjongGame,
    MahjongObservation,
    MahjongState,
    Phase,
    build_wall,
)
from paiju.mahjong.tiles import Meld, MeldType, Tile, format_counts, parse_counts


def k(t: str) -> int:
    return int(Tile.parse(t))


def pass_windows(s: MahjongState) -> None:
    """Answer PASS in every open claim / rob window."""
    while s.phase in (Phase.CLAIM, Phase.ROB):
        s.apply(PASS)


def tsumogiri(s: MahjongState) -> None:
    """The player to move discards the tile he just drew (his hand stays as dealt)."""
    assert s.phase == Phase.TURN
    s.apply(s.drawn)


def hand(s: MahjongState, seat: int) -> str:
    return format_counts(s.hands[seat])


# ---- deal -------------------------------------------------------------------------------------


def test_deal_sizes_and_wall_accounting() -> None:
    s = MahjongGame().new_hand(seed=3)
    assert [sum(h) for h in s.hands] == [17, 16, 16, 16]
    assert s.live_tiles == 136 - 65 - 16 == 55
    assert s.current_player() == 0 and s.phase == Phase.TURN
    assert s.drawn == -1  # the dealer does not draw on his first turn
    assert all(a < 34 or a >= CONCEALED_KONG for a in s.legal_actions())


def test_same_seed_same_wall_and_wall_validation() -> None:
    g = MahjongGame()
    assert g.new_hand(seed=11).wall == g.new_hand(seed=11).wall
    assert g.new_hand(seed=11).wall != g.new_hand(seed=12).wall
    wall = build_wall(["123m", "", "", ""], seed=0)
    s = g.new_hand(wall)
    assert s.hands[0][k("1m")] >= 1
    st = g.new_initial_state()
    with pytest.raises(IllegalMoveError, match="136 tile kinds"):
        st.apply((0,) * 10)
    with pytest.raises(IllegalMoveError, match="wrong number of 1m"):
        st.apply((0,) * 5 + wall[5:])
    assert st.phase == Phase.DEAL


def test_config_errors_name_the_flag() -> None:
    from paiju.core.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown mahjong rule flag"):
        MahjongGame(multi_rom="all")
    with pytest.raises(ConfigError, match="multi_ron must be"):
        MahjongGame(multi_ron="first")
    with pytest.raises(ConfigError, match="dealer=5"):
        MahjongGame(dealer=5)
    with pytest.raises(ConfigError, match="unknown extra patterns"):
        MahjongGame(extras=frozenset({"七對"}))
    with pytest.raises(ConfigError, match=r"max_hands=1001 must be in 1\.\.1000"):
        MahjongGame(mode="game", max_hands=1001)


def test_dealer_seat_and_winds_follow_config() -> None:
    s = MahjongGame(dealer=2).new_hand(seed=1)
    assert [sum(h) for h in s.hands] == [16, 16, 17, 16]
    assert s.current_player() == 2
    assert s.seat_wind(2) == 0 and s.seat_wind(3) == 1 and s.seat_wind(1) == 3


# ---- claims -------------------------------------------------------------------------------------

CLAIM_HANDS = [
    "3m1p4p7p2s5s8s1234567z9m9p9s",  # dealer: discards 3m
    "12m45m78m2p5p8p3s6s9s1234z",  # next seat: 12m / 24m / 45m can chow 3m three ways
    "33m6m8m3p6p1s4s7s567z12z9m9p",  # pung 3m
    "5m7m2p4p6p8p2s4s6s8s55z66z7z7s",  # nothing on 3m
]


def claim_state() -> MahjongState:
    s = MahjongGame().new_hand(build_wall(CLAIM_HANDS, seed=0))
    s.apply(k("3m"))
    return s


def test_claim_window_asks_only_seats_with_a_claim() -> None:
    s = claim_state()
    assert s.phase == Phase.CLAIM and s.queue == (1, 2)
    assert s.current_player() == 1
    assert s.legal_actions() == [CHOW_LOW, CHOW_MID, CHOW_HIGH, PASS]
    s.apply(PASS)
    assert s.current_player() == 2
    assert s.legal_actions() == [PUNG, PASS]


def test_chow_only_from_the_previous_player() -> None:
    # seat 3 deals and discards 3m: seat 0 is its next seat (no chow shape), seat 1 holds 12m/24m/45m
    # but is not next, so only seat 2's pung is offered
    wall = build_wall(
        ["3m1p4p7p2s5s8s1234567z9m9p", CLAIM_HANDS[1], CLAIM_HANDS[2], "5m7m2p4p6p8p2s4s6s8s55z66z7z7s3m"],
        dealer=3,
        seed=0,
    )
    s = MahjongGame(dealer=3).new_hand(wall)
    s.apply(k("3m"))
    assert s.queue == (2,)
    assert s.legal_actions() == [PUNG, PASS]


def test_pung_beats_an_earlier_chow() -> None:
    s = claim_state()
    s.apply(CHOW_HIGH)  # seat 1 declares chow 123m (sealed)
    s.apply(PUNG)  # seat 2 declares pung
    assert s.phase == Phase.TURN and s.turn == 2 and s.after_claim
    assert s.melds[2] == [Meld(MeldType.PUNG, k("3m"), k("3m"), 0)]
    assert s.melds[1] == [] and hand(s, 1) == format_counts(parse_counts(CLAIM_HANDS[1]))
    assert s.rivers[0] == [(k("3m"), 2)]
    # after a pung only discards are legal, and no draw was made
    assert all(a < 34 for a in s.legal_actions()) and sum(s.hands[2]) == 14
    s.apply(k("9p"))
    assert s.phase != Phase.TURN or s.turn == 3


def test_chow_when_the_pung_is_declined() -> None:
    s = claim_state()
    s.apply(CHOW_MID)  # 2m 3m 4m
    s.apply(PASS)
    assert s.turn == 1 and s.after_claim
    assert s.melds[1] == [Meld(MeldType.CHOW, k("2m"), k("3m"), 0)]
    assert hand(s, 1) == format_counts(parse_counts("1m5m78m2p5p8p3s6s9s1234z"))


def test_everyone_passes_then_next_seat_draws() -> None:
    s = claim_state()
    s.apply(PASS)
    s.apply(PASS)
    assert s.phase == Phase.TURN and s.turn == 1 and sum(s.hands[1]) == 17
    assert s.drawn == s.wall[65] and s.live_tiles == 54


def test_claims_are_sealed() -> None:
    # seat 2 cannot tell whether seat 1 declared a chow or passed
    a, b = claim_state(), claim_state()
    a.apply(CHOW_HIGH)
    b.apply(PASS)
    assert a.observation(2) == b.observation(2)
    assert a.observation(1) != b.observation(1)  # seat 1 sees its own declaration
    assert a.observation(1).own_claim == CHOW_HIGH


# ---- wins on a discard, priority, multi-ron, the lock ---------------------------------------------

RON_HANDS = [
    "5p1234567z7z1m4m7m2s5s9s9p8p",  # dealer discards 5p
    "123m456m789m234s678s5p",  # single wait 5p: 門清 + 獨聽
    "46p789p123s567s11z999m",  # closed wait 5p: 門清 + 獨聽
    "55p222z333z44z55z66z7z8p",  # pung on 5p
]


def ron_state(**cfg: object) -> MahjongState:
    """The dealer throws 5p after one go-around (so it is not a first-go-around 人胡)."""
    s = MahjongGame(**cfg).new_hand(build_wall(RON_HANDS, seed=0))  # type: ignore[arg-type]
    s.apply(k("1z"))
    for _ in range(4):
        pass_windows(s)
        if s.turn != 0:
            tsumogiri(s)
    assert s.turn == 0 and s.phase == Phase.TURN
    s.apply(k("5p"))
    return s


def test_first_go_around_discard_win_is_human_win() -> None:
    s = MahjongGame().new_hand(build_wall(RON_HANDS, seed=0))
    s.apply(k("5p"))
    s.apply(WIN)
    pass_windows(s)
    r = s.last_result
    assert r is not None and r.winners == (1,) and dict(r.scores[0].patterns) == {"人胡": 8, "獨聽": 1}


def test_win_beats_pung_and_all_winners_are_paid() -> None:
    s = ron_state()
    assert s.queue == (1, 2, 3)
    assert s.legal_actions() == [WIN, PASS]
    s.apply(WIN)
    s.apply(WIN)
    assert s.legal_actions() == [PUNG, PASS]
    s.apply(PUNG)
    assert s.is_terminal()
    r = s.last_result
    assert r is not None and r.winners == (1, 2) and r.discarder == 0
    # each: 門清 1 + 獨聽 1, plus 莊家 1 because the dealer pays = 3 tai -> 1000 + 1500
    for i in range(2):
        assert dict(r.scores[i].patterns) == {"門清": 1, "獨聽": 1}
        assert r.breakdown(i, 0) == [("門清", 1), ("獨聽", 1), ("莊家", 1)]
    assert s.returns() == [-5000.0, 2500.0, 2500.0, 0.0]


def test_head_bump_first_in_turn_order_wins() -> None:
    s = ron_state(multi_ron="head_bump")
    s.apply(WIN)
    s.apply(WIN)
    s.apply(PASS)
    assert s.last_result is not None and s.last_result.winners == (1,)
    assert s.returns() == [-2500.0, 2500.0, 0.0, 0.0]


def test_a_later_win_overrides_a_pung() -> None:
    s = ron_state()
    s.apply(PASS)  # seat 1 passes its win: locked on 5p
    assert s.locks[1] == 1 << k("5p")
    s.apply(WIN)
    s.apply(PUNG)
    assert s.last_result is not None and s.last_result.winners == (2,)


LOCK_HANDS = [
    "5p" + "1m4m7m2p8p3s6s9s1z2z3z4z5z6z7z7z",  # dealer: discards 5p first
    "5p" + "2m5m8m1p7p2s5s8s1z2z3z4z5z6z7z",  # seat 1 discards 5p on its turn
    "1m1m9m9m1p1p9p9p1s1s9s9s3m6m3p6p",  # seat 2: no 5p
    "123m456m789m234s678s5p",  # seat 3 waits on 5p alone
]


def test_missed_discard_lock_until_own_next_discard() -> None:
    # draws: seat 1 gets 3m, seat 2 gets 6s, seat 3 gets 7s, seat 0 gets the last 5p
    s = MahjongGame().new_hand(build_wall(LOCK_HANDS, draws="3m6s7s5p", seed=1))
    s.apply(k("5p"))  # dealer's 5p: seat 3 may win
    assert s.current_player() == 3 and WIN in s.legal_actions()
    s.apply(PASS)  # missed: locked on 5p
    assert s.observation(3).lock == 1 << k("5p")
    assert s.turn == 1
    s.apply(k("5p"))  # seat 1's 5p: seat 3 is locked, so it is not even asked
    assert not (s.phase == Phase.CLAIM and 3 in s.queue)
    pass_windows(s)
    tsumogiri(s)  # seat 2
    pass_windows(s)
    assert s.turn == 3
    tsumogiri(s)  # seat 3's own discard lifts the lock
    assert s.locks[3] == 0
    pass_windows(s)
    assert s.turn == 0 and s.drawn == k("5p")
    s.apply(k("5p"))
    assert s.current_player() == 3 and WIN in s.legal_actions()


def test_lock_flag_off() -> None:
    s = MahjongGame(missed_discard_lock=False).new_hand(build_wall(LOCK_HANDS, draws="3m6s7s5p", seed=1))
    s.apply(k("5p"))
    s.apply(PASS)
    assert s.locks[3] == 0
    s.apply(k("5p"))
    assert s.current_player() == 3 and WIN in s.legal_actions()


def test_locked_player_cannot_self_draw_the_tile() -> None:
    # seat 3 passes the dealer's 5p, then (seat 1 and 2 discarding) draws the 4th 5p itself
    hands = [LOCK_HANDS[0], LOCK_HANDS[1].replace("5p", "6p"), LOCK_HANDS[2], LOCK_HANDS[3]]
    s = MahjongGame().new_hand(build_wall(hands, draws="3m6s5p", seed=1))
    s.apply(k("5p"))
    pass_windows(s)
    assert s.locks[3] == 1 << k("5p")
    tsumogiri(s)
    pass_windows(s)
    tsumogiri(s)
    pass_windows(s)
    assert s.turn == 3 and s.drawn == k("5p")
    assert WIN not in s.legal_actions()


# ---- kongs ------------------------------------------------------------------------------------------


def test_concealed_kong_replacement_from_tail_and_not_robbable() -> None:
    hands = ["1111z" + "2m5m8m1p4p7p2s5s8s3z4z6z7z", "46p123m456m789m234s99s", "", ""]
    s = MahjongGame().new_hand(build_wall(hands, replacements="9s", seed=2))
    assert CONCEALED_KONG + k("1z") in s.legal_actions()
    s.apply(CONCEALED_KONG + k("1z"))
    assert s.phase == Phase.TURN and s.turn == 0  # no rob window for a concealed kong
    assert s.drawn == k("9s") and s.live_tiles == 54
    assert s.melds[0] == [Meld(MeldType.CONCEALED_KONG, k("1z"))]
    # other seats see a face-down kong
    assert s.observation(1).melds[0] == (Meld(MeldType.CONCEALED_KONG, -1, -1, -1),)
    assert s.observation(0).melds[0] == (Meld(MeldType.CONCEALED_KONG, k("1z")),)
    t = MahjongGame(concealed_kong_public=True).new_hand(build_wall(hands, replacements="9s", seed=2))
    t.apply(CONCEALED_KONG + k("1z"))
    assert t.observation(1).melds[0] == (Meld(MeldType.CONCEALED_KONG, k("1z")),)


def test_exposed_kong_then_replacement() -> None:
    hands = ["5p1234567z7z1m4m7m2s5s9s9p8p", "555p" + "2m5m8m1s4s7s3z4z6z2z8m2p9s", "", ""]
    s = MahjongGame().new_hand(build_wall(hands, replacements="3m", seed=3))
    s.apply(k("5p"))
    pass_windows_until(s, 1)
    assert s.legal_actions() == [PUNG, KONG, PASS]
    s.apply(KONG)
    pass_windows(s)
    assert s.turn == 1 and s.drawn == k("3m") and s.live_tiles == 54
    assert s.melds[1] == [Meld(MeldType.EXPOSED_KONG, k("5p"), k("5p"), 0)]


def pass_windows_until(s: MahjongState, seat: int) -> None:
    while s.phase in (Phase.CLAIM, Phase.ROB) and s.current_player() != seat:
        s.apply(PASS)


ROB_HANDS = [
    "5p1234567z7z1m4m7m2s5s9s9p8p",  # dealer discards 5p
    "55p" + "2m5m8m1s4s7s3z4z6z2z8m2p5s6m",  # pungs it, later adds the 4th 5p
    "1m1m9m9m1p1p9p9p1s1s9s9s3m6m3p6p",
    "46p123m456m789m234s77s",  # waits on 5p (closed)
]


def rob_state() -> MahjongState:
    s = MahjongGame().new_hand(build_wall(ROB_HANDS, draws="1z2z3z5p", seed=4))
    s.apply(k("5p"))
    assert s.queue == (1, 3)
    s.apply(PUNG)
    s.apply(PASS)  # seat 3 passes its win: locked until its next discard
    assert s.turn == 1
    s.apply(k("6m"))
    for _ in range(3):  # seats 2, 3, 0 draw and discard
        pass_windows(s)
        tsumogiri(s)
    pass_windows(s)
    assert s.turn == 1 and s.drawn == k("5p")
    assert ADDED_KONG + k("5p") in s.legal_actions()
    s.apply(ADDED_KONG + k("5p"))
    return s


def test_robbing_a_kong() -> None:
    s = rob_state()
    assert s.phase == Phase.ROB and s.queue == (3,) and s.legal_actions() == [WIN, PASS]
    s.apply(WIN)
    r = s.last_result
    assert r is not None and r.robbed_kong and r.winners == (3,) and r.discarder == 1
    assert dict(r.scores[0].patterns) == {"門清": 1, "獨聽": 1, "搶槓": 1}
    assert s.returns() == [0.0, -2500.0, 0.0, 2500.0]


def test_kong_stands_when_nobody_robs() -> None:
    s = rob_state()
    s.apply(PASS)
    assert s.phase == Phase.TURN and s.turn == 1 and s.live_tiles == 55 - 4 - 1
    assert s.melds[1] == [Meld(MeldType.ADDED_KONG, k("5p"), k("5p"), 0)]
    assert s.draw_kind == 2  # a replacement draw


# ---- dead wall, exhaustive draw, last-tile wins ------------------------------------------------------


def run_tsumogiri(s: MahjongState) -> int:
    """Everyone discards what he draws and passes every claim; returns the normal draws made."""
    draws = 0
    while not s.is_terminal():
        if s.phase in (Phase.CLAIM, Phase.ROB):
            s.apply(PASS)
        elif s.drawn < 0:
            s.apply(next(a for a in s.legal_actions() if a < 34))
        else:
            if s.draw_kind == 1:
                draws += 1
            tsumogiri(s)
    return draws


def test_exhaustive_draw_after_55_draws() -> None:
    s = MahjongGame().new_hand(seed=5)
    assert run_tsumogiri(s) == 55
    r = s.last_result
    assert r is not None and r.exhaustive and s.returns() == [0.0] * 4
    assert s.tail - s.head == 16  # the dead wall is never drawn


def test_each_kong_costs_one_live_tile_and_dead_wall_flag() -> None:
    hands = ["1111z" + "2m5m8m1p4p7p2s5s8s3z4z6z7z", "", "", ""]
    s = MahjongGame().new_hand(build_wall(hands, seed=2))
    s.apply(CONCEALED_KONG + k("1z"))
    assert run_tsumogiri(s) == 54
    s = MahjongGame(dead_wall=0).new_hand(seed=5)
    assert run_tsumogiri(s) == 71


def wall_with_last_draw(hands: list[str], last: str, seed: int) -> tuple[int, ...]:
    """A wall whose 55th (last live) normal draw is ``last``."""
    wall = list(build_wall(hands, seed=seed))
    pos = next(i for i in range(65, 136) if wall[i] == k(last))
    wall[pos], wall[65 + 54] = wall[65 + 54], wall[pos]
    return tuple(wall)


def test_last_tile_self_draw() -> None:
    # the 55th draw goes to seat 3 (draw i goes to seat i mod 4), who waits on 5p alone
    hands = ["5p", "5p", "", "123m456m789m234s678s5p"]
    s = MahjongGame().new_hand(wall_with_last_draw(hands, "5p", seed=6))
    while not (s.phase == Phase.TURN and s.live_tiles == 0):
        if s.phase in (Phase.CLAIM, Phase.ROB):
            s.apply(PASS)
        elif s.drawn < 0:
            s.apply(next(a for a in s.legal_actions() if a < 34 and a != k("5p")))
        else:
            tsumogiri(s)
    assert s.turn == 3 and s.drawn == k("5p") and WIN in s.legal_actions()
    s.apply(WIN)
    r = s.last_result
    assert r is not None and dict(r.scores[0].patterns) == {"門清自摸": 3, "獨聽": 1, "海底撈月": 1}
    # dealer pays 5 + 莊家 1 = 6 tai -> 4000; the others 5 tai -> 3500
    assert s.returns() == [-4000.0, -3500.0, -3500.0, 11000.0]


def test_last_discard_win_and_no_pung_on_it() -> None:
    # seat 3 draws the last tile (5p) and throws it; seat 1 wins on it, seat 0's 55p may not pung
    hands = ["55p", "123m456m789m234s678s5p", "", "2222z"]
    s = MahjongGame().new_hand(wall_with_last_draw(hands, "5p", seed=7))
    kong_seen = False
    while not (s.phase == Phase.TURN and s.live_tiles == 0):
        if s.phase in (Phase.CLAIM, Phase.ROB):
            s.apply(PASS)
        elif s.drawn < 0:
            s.apply(next(a for a in s.legal_actions() if a < 34 and a != k("5p")))
        else:
            if s.turn == 3:
                kong_seen |= CONCEALED_KONG + k("2z") in s.legal_actions()
            tsumogiri(s)
    assert kong_seen
    assert s.turn == 3 and CONCEALED_KONG + k("2z") not in s.legal_actions()  # no kong on the last tile
    s.apply(k("5p"))
    assert s.queue == (1,) and s.legal_actions() == [WIN, PASS]
    s.apply(WIN)
    r = s.last_result
    assert r is not None and dict(r.scores[0].patterns) == {"門清": 1, "獨聽": 1, "河底撈魚": 1}
    assert s.returns() == [0.0, 2500.0, 0.0, -2500.0]


def test_last_discard_unclaimed_is_a_draw() -> None:
    hands = ["55p", "", "", ""]
    s = MahjongGame().new_hand(wall_with_last_draw(hands, "5p", seed=7))
    run_tsumogiri(s)
    assert s.last_result is not None and s.last_result.exhaustive


# ---- first go-around wins ---------------------------------------------------------------------------


def test_heavenly_win() -> None:
    s = MahjongGame().new_hand(build_wall(["111m456m789m234p678s99s", "", "", ""], seed=8))
    assert WIN in s.legal_actions()
    s.apply(WIN)
    r = s.last_result
    assert r is not None and dict(r.scores[0].patterns) == {"天胡": 24}
    assert r.winning_tile == -1
    # every other seat pays 24 + 莊家 1 = 25 tai -> 1000 + 12500
    assert s.returns() == [40500.0, -13500.0, -13500.0, -13500.0]


def test_earthly_win() -> None:
    hands = ["1z2z3z4z5z6z7z1m4m7m2p5p8p3s6s9s9s", "111m456m789m234p678s9s", "", ""]
    s = MahjongGame().new_hand(build_wall(hands, draws="9s", seed=9))
    s.apply(k("1z"))
    pass_windows(s)
    assert s.turn == 1 and s.drawn == k("9s") and WIN in s.legal_actions()
    s.apply(WIN)
    r = s.last_result
    assert r is not None and dict(r.scores[0].patterns) == {"地胡": 16}
    # dealer pays 16 + 1 = 17 tai (9500), the others 16 tai (9000)
    assert s.returns() == [-9500.0, 27500.0, -9000.0, -9000.0]


def test_human_win() -> None:
    hands = ["9s1z2z3z4z5z6z7z1m4m7m2p5p8p3s6s9p", "", "111m456m789m234p678s9s", ""]
    s = MahjongGame().new_hand(build_wall(hands, seed=10))
    s.apply(k("9s"))
    pass_windows_until(s, 2)
    s.apply(WIN)
    pass_windows(s)
    r = s.last_result
    assert r is not None and dict(r.scores[0].patterns) == {"人胡": 8}
    assert s.returns()[0] == -(1000 + 9 * 500)


# ---- observations, notation, errors ----------------------------------------------------------------


def test_observation_hides_other_hands_and_shows_the_table() -> None:
    s = claim_state()
    o = s.observation(2)
    assert o.hand == tuple(s.hands[2]) and o.player == 2
    assert o.hand_sizes == (16, 16, 16, 16)
    assert o.discards[0] == ((k("3m"), -1),)
    assert o.window_tile == k("3m") and o.window_from == 0 and o.to_act == 1
    assert o.live_tiles == 55 and o.dealer == 0 and o.round_wind == 0 and o.seat_wind == 2
    assert o.drawn == -1
    text = repr(o)
    for seat in (0, 1, 3):
        assert repr(tuple(s.hands[seat])) not in text
    # built without the dataclass __init__ for speed: still exactly the declared fields, frozen
    assert set(vars(o)) == {f.name for f in dataclasses.fields(MahjongObservation)}
    assert MahjongObservation(**vars(o)) == o and hash(MahjongObservation(**vars(o))) == hash(o)
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.player = 1  # type: ignore[misc]
    # the unseen counts are exactly the tiles outside seat 2's hand and the river
    unseen = o.unseen_counts()
    assert sum(unseen) == 136 - 16 - 1


def test_parse_action_and_names() -> None:
    s = claim_state()
    assert s.parse_action("chow 123m") == CHOW_HIGH
    assert s.parse_action("吃 345m") == CHOW_LOW
    with pytest.raises(AmbiguousMoveError, match="name the three tiles"):
        s.parse_action("chow")
    assert s.parse_action("pass") == PASS
    with pytest.raises(IllegalMoveError, match="illegal move 'pung 3m'"):
        s.parse_action("pung")
    assert s.action_to_string(CHOW_MID) == "chow 234m"
    t = MahjongGame().new_hand(build_wall(["1111z", "", "", ""], seed=2))
    assert t.parse_action("kong 1z") == CONCEALED_KONG + k("1z")
    assert t.parse_action("1z") == k("1z")
    with pytest.raises(InvalidNotationError):
        t.parse_action("discard 1x")
    with pytest.raises(InvalidNotationError):
        t.parse_action("")


def test_every_action_name_reads_back_as_its_action() -> None:
    """parse_action(action_to_string(a)) == a for every legal action of every decision of seeded
    hands (kongs on one's turn and wins included), so a recorded move list replays."""
    import numpy as np

    from paiju.mahjong.agents import GreedyAgent

    rng, greedy = np.random.default_rng(7), GreedyAgent()
    seen: set[str] = set()
    for seed in range(40):
        state = MahjongGame().new_hand(seed=seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            for a in legal:
                name = state.action_to_string(a)
                assert state.parse_action(name) == a, name
                seen.add(name.split()[0])
            # greedy play (it wins), with a taste for kongs and claims so the rare names come up
            rare = [a for a in legal if a >= CONCEALED_KONG]
            if rare and rng.random() < 0.5:
                state.apply(int(rng.choice(rare)))
            else:
                state.apply(greedy.act(state.observation(state.current_player()), legal))
    assert {"discard", "concealed", "added", "win", "pung", "chow", "kong", "pass"} - seen == set()
    t = MahjongGame().new_hand(build_wall(["1111z", "", "", ""], seed=2))
    with pytest.raises(IllegalMoveError):  # names the wrong kind of kong: no 1z pung to add to
        t.parse_action("added kong 1z")


def test_illegal_moves_say_why() -> None:
    s = MahjongGame().new_hand(build_wall(["1111z", "", "", ""], seed=2))
    missing = next(a for a in range(34) if s.hands[0][a] == 0)
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        s.apply(missing)
    with pytest.raises(IllegalMoveError, match="claim window"):
        s.apply(PUNG)
    with pytest.raises(IllegalMoveError, match=r"ints 0\.\.108"):
        s.apply(NUM_ACTIONS)
    with pytest.raises(IllegalMoveError, match="not complete"):
        s.apply(WIN)
    c = claim_state()
    with pytest.raises(IllegalMoveError, match="claim window on 3m"):
        c.apply(PUNG)  # seat 1 cannot pung
    with pytest.raises(IllegalMoveError, match=r"seats are 0\.\.3"):
        c.observation(4)


def test_action_space_layout() -> None:
    assert (
        CONCEALED_KONG,
        ADDED_KONG,
        WIN,
        PUNG,
        KONG,
        CHOW_LOW,
        CHOW_MID,
        CHOW_HIGH,
        PASS,
        NUM_ACTIONS,
    ) == (34, 68, 102, 103, 104, 105, 106, 107, 108, 109)
    s = claim_state()
    mask = s.legal_action_mask()
    assert mask.shape == (109,) and sorted(mask.nonzero()[0].tolist()) == sorted(s.legal_actions())


def test_wall_notation_round_trip_and_record_fields() -> None:
    from paiju.mahjong.game import parse_wall, wall_notation

    g = MahjongGame()
    s = g.new_hand(seed=21)
    text = wall_notation(s.wall)
    assert len(text) == 272 and parse_wall(text) == s.wall
    with pytest.raises(InvalidNotationError, match="136 tiles"):
        parse_wall(text[:-2])
    with pytest.raises(InvalidNotationError, match="1m appears more than 4 times"):
        parse_wall(text.replace("2m", "1m", 1))
    st = g.new_initial_state()
    assert st.action_to_string(s.wall) == "wall " + text  # the move list of a record replays the deal
    run_tsumogiri(s)
    fields = g.record_fields(s, [s.wall])
    assert fields["deal"] == text and fields["dealer_seat"] == 0
    assert fields["extra"]["hands"][0]["exhaustive"] is True
