"""The mahjong engine against the shared API suite, determinization, invariants under play by a
shanten-greedy agent (so wins, robs and multi-wins happen often), and the full-game mode.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from paiju.core.conformance import check_game_api
from paiju.core.rng import as_generator
from paiju.mahjong.game import (
    CHOW_HIGH,
    CHOW_LOW,
    CHOW_MID,
    KONG,
    NUM_ACTIONS,
    PASS,
    PUNG,
    WIN,
    MahjongGame,
    MahjongState,
    Phase,
)
from paiju.mahjong.shanten import shanten_counts


def first_illegal(state: MahjongState) -> int | None:
    legal = set(state.legal_actions())
    return next((a for a in range(NUM_ACTIONS) if a not in legal), None)


def test_conformance_single_hand() -> None:
    check_game_api(MahjongGame(), games=12, seed=0, illegal_action=first_illegal)


def test_conformance_rule_variants() -> None:
    for cfg in (
        {"multi_ron": "head_bump", "min_tai": 1, "concealed_kong_public": True},
        {"missed_discard_lock": False, "earth_ready": True, "dead_wall": 0, "dealer": 3, "continuation": 2},
    ):
        check_game_api(MahjongGame(**cfg), games=3, seed=1, illegal_action=first_illegal)  # type: ignore[arg-type]


def test_conformance_full_game() -> None:
    check_game_api(MahjongGame(mode="game", max_hands=3), games=2, seed=2, clone_checks_per_game=6)


# ---- a shanten-greedy player: enough wins to exercise scoring, robbing and multi-wins ------------


def greedy_action(s: MahjongState, rng: np.random.Generator) -> int:
    legal = s.legal_actions()
    if WIN in legal:
        return WIN
    hand = s.hands[s.current_player()]
    if s.phase == Phase.TURN:
        best, best_v = legal[0], 99.0
        for a in legal:
            if a >= 34:
                if rng.random() < 0.5:
                    return a  # kongs now and then
                continue
            hand[a] -= 1
            v = shanten_counts(hand) + 0.5 * rng.random()
            hand[a] += 1
            if v < best_v:
                best, best_v = a, v
        return best
    for a in legal:
        if a in (PUNG, KONG) and rng.random() < 0.7:
            return a
        if a in (CHOW_LOW, CHOW_MID, CHOW_HIGH) and rng.random() < 0.5:
            return a
    return PASS


def tile_conservation(s: MahjongState) -> None:
    if s.phase in (Phase.DEAL, Phase.OVER):
        return
    c = [0] * 34
    for p in range(4):
        for k in range(34):
            c[k] += s.hands[p][k]
        for m in s.melds[p]:
            for k in m.kinds():
                c[k] += 1
        for k, by in s.rivers[p]:
            if by < 0:
                c[k] += 1
    for k in s.wall[s.head : s.tail]:
        c[k] += 1
    if s.phase == Phase.ROB:
        c[s.window_tile] += 1
    assert c == [4] * 34


def play_greedy(game: MahjongGame, seed: int, resample: bool) -> tuple[MahjongState, list]:
    rng = as_generator(seed)
    s = game.new_initial_state()
    results = []
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_chance(rng)
            continue
        if resample:
            for p in range(4):
                r = s.resample_from_infostate(p, rng)
                tile_conservation(r)
                assert r.observation(p) == s.observation(p)
                assert r.current_player() == s.current_player()
                if p == s.current_player():
                    assert r.legal_actions() == s.legal_actions()
        before = s.hand_number
        s.apply(greedy_action(s, rng))
        tile_conservation(s)
        if s.hand_number != before:
            results.append(s.last_result)
    return s, results


@pytest.mark.parametrize(
    "cfg",
    [
        {},
        {"multi_ron": "head_bump", "min_tai": 2, "concealed_kong_public": True, "missed_discard_lock": False},
    ],
)
def test_resampling_under_greedy_play(cfg: dict) -> None:
    """Every decision, every seat: the redealt state keeps the observation, turn and legal moves."""
    game = MahjongGame(**cfg)
    wins = 0
    for seed in range(8):
        s, results = play_greedy(game, seed, resample=True)
        assert sum(s.returns()) == 0
        wins += sum(1 for r in results if not r.exhaustive)
    assert wins >= 3  # the greedy players do win: the claim-window redeal of winners was exercised


def test_resample_redeals_hidden_tiles() -> None:
    s = MahjongGame().new_hand(seed=4)
    for _ in range(20):  # a few turns in
        s.apply(greedy_action(s, as_generator(0)))
    obs = s.observation(0)
    unseen = obs.unseen_counts()
    differs = 0
    for i in range(10):
        r = MahjongGame().sample_state(obs, as_generator(i))
        hidden = [0] * 34
        for p in (1, 2, 3):
            for k in range(34):
                hidden[k] += r.hands[p][k]
        for k in r.wall[r.head : r.tail]:
            hidden[k] += 1
        assert hidden == unseen  # exactly the unseen tiles, redealt
        differs += any(r.hands[p] != s.hands[p] for p in (1, 2, 3))
    assert differs >= 9
    with pytest.raises(TypeError, match="MahjongObservation"):
        MahjongGame().sample_state("not an observation", as_generator(0))  # type: ignore[arg-type]


def test_greedy_hands_pay_zero_sum_and_match_scores() -> None:
    game = MahjongGame()
    kinds = set()
    for seed in range(30):
        s, results = play_greedy(game, 100 + seed, resample=False)
        (r,) = results
        assert tuple(int(x) for x in s.returns()) == r.deltas
        if r.exhaustive:
            assert r.deltas == (0, 0, 0, 0)
            continue
        kinds.add("self" if r.self_draw else "discard")
        from_payments = [0, 0, 0, 0]
        for pay in r.payments:
            assert pay.amount == 1000 + 500 * pay.tai and pay.tai == sum(v for _, v in pay.lines)
            from_payments[pay.winner] += pay.amount
            from_payments[pay.payer] -= pay.amount
        assert tuple(from_payments) == r.deltas
        for w, score in zip(r.winners, r.scores, strict=True):
            payers = [r.discarder] if r.discarder is not None else [p for p in range(4) if p != w]
            for p in payers:
                tai = sum(v for _, v in r.breakdown(r.winners.index(w), p))
                # each payer owes base + tai x per-tai; the breakdown adds the dealer lines itself
                assert tai == score.tai + (1 + 2 * r.continuation if r.dealer in (w, p) else 0)
    assert kinds == {"self", "discard"}


# ---- full game (將) ---------------------------------------------------------------------------------


def test_full_game_dealer_rotation_and_rounds() -> None:
    game = MahjongGame(mode="game")
    s, results = play_greedy(game, 7, resample=False)
    assert len(results) >= 16
    totals = [0, 0, 0, 0]
    passes = 0
    for prev, cur in itertools.pairwise(results):
        keeps = prev.exhaustive or prev.dealer in prev.winners
        if keeps:
            assert (cur.dealer, cur.continuation) == (prev.dealer, prev.continuation + 1)
        else:
            passes += 1
            assert (cur.dealer, cur.continuation) == ((prev.dealer + 1) % 4, 0)
        assert cur.round_wind == passes // 4
    for r in results:
        totals = [a + b for a, b in zip(totals, r.deltas, strict=True)]
    assert [float(x) for x in totals] == s.returns()
    last = results[-1]
    assert passes == 15 and not (last.exhaustive or last.dealer in last.winners)  # 16th pass ends it
    assert results[0].hand_number == 0 and [r.hand_number for r in results] == list(range(len(results)))


def test_full_game_hand_cap_and_same_walls_for_any_play() -> None:
    game = MahjongGame(mode="game", max_hands=2)
    a = game.new_initial_state()
    b = game.new_initial_state()
    walls = []
    for st, play in ((a, "random"), (b, "greedy")):
        rng = as_generator(99)
        agent_rng = as_generator(5)
        seen = []
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_chance(rng)
                seen.append(st.wall)
                continue
            if play == "random":
                legal = st.legal_actions()
                st.apply(legal[int(agent_rng.integers(len(legal)))])
            else:
                st.apply(greedy_action(st, agent_rng))
        walls.append(seen)
        assert st.hand_number == 2
    assert walls[0] == walls[1]  # duplicate play: the walls depend on the seed only


def test_limit_caps_each_payment() -> None:
    capped = 0
    for seed in range(15):
        _, (r,) = play_greedy(MahjongGame(limit=2, base=100, per_tai=10), 200 + seed, resample=False)
        for pay in r.payments:
            assert pay.tai == min(2, sum(v for _, v in pay.lines)) and pay.amount == 100 + 10 * pay.tai
            capped += sum(v for _, v in pay.lines) > 2
    assert capped >= 1


def test_random_playout_fast_path_matches_rules() -> None:
    g = MahjongGame()
    for seed in range(5):
        s = g.new_initial_state().random_playout(seed)
        assert s.is_terminal() and sum(s.returns()) == 0
        assert s.last_result is not None


@pytest.mark.slow
def test_resampling_under_greedy_play_long() -> None:
    for cfg in ({}, {"multi_ron": "head_bump", "min_tai": 2, "earth_ready": True}, {"mode": "game"}):
        game = MahjongGame(**cfg)  # type: ignore[arg-type]
        for seed in range(100 if cfg.get("mode") != "game" else 3):
            s, _ = play_greedy(game, 1000 + seed, resample=True)
            assert sum(s.returns()) == 0
