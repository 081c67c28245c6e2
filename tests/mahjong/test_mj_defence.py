"""Reading the table for defence (``paiju.mahjong.agents.defence``): discard order, passed tiles,
the logistic fit, the shipped model.

The order of discards and the passed tiles are checked against the true course of seeded
games (the actions as they were applied); the fit against coefficients that generated the data.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from paiju.core.errors import ConfigError
from paiju.mahjong.agents import GreedyAgent
from paiju.mahjong.agents._hand import distance
from paiju.mahjong.agents.defence import (
    READINESS_FEATURES,
    WAIT_FEATURES,
    DefenceModel,
    deal_in_chances,
    discard_order,
    fit_logistic,
    passed_kinds,
    readiness_features,
    shipped_defence,
    wait_features,
)
from paiju.mahjong.game import WIN, MahjongGame, Phase

GAME = MahjongGame()


def _played(seeds: range) -> list[tuple[object, object, list[tuple[int, int]]]]:
    """(state, observation on a turn, the true discard order so far) along greedy games."""
    agents = [GreedyAgent() for _ in range(4)]
    out = []
    for seed in seeds:
        state = GAME.new_hand(seed=seed)
        log: list[tuple[int, int]] = []
        while not state.is_terminal():
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if obs.phase == Phase.TURN and WIN not in legal:
                out.append((state.clone(), obs, list(log)))
            a = agents[seat].act(obs, legal) if len(legal) > 1 else legal[0]
            if obs.phase == Phase.TURN and a < 34:
                log.append((seat, len(obs.discards[seat])))
            state.apply(a)
    return out


@pytest.fixture(scope="module")
def played() -> list[tuple[object, object, list[tuple[int, int]]]]:
    return _played(range(12))


def test_discard_order_is_the_order_the_tiles_were_thrown(played: list) -> None:
    claimed = 0
    for _, obs, truth in played:
        assert discard_order(obs) == truth
        claimed += sum(1 for river in obs.discards for _, by in river if by >= 0)
    assert claimed > 0  # claims happened, so the order is not simply round the table


def test_a_passed_kind_is_never_the_wait_of_a_player_who_takes_every_win(played: list) -> None:
    checked = 0
    for state, obs, _ in played:
        for seat in range(4):
            if seat == obs.player:
                continue
            hand = list(state.observation(seat).hand)
            if sum(hand) % 3 != 1 or distance(hand) != 1:
                continue
            for k in passed_kinds(obs, seat):
                checked += 1
                after = list(hand)
                after[k] += 1
                assert after[k] > 4 or distance(after) != 0
    assert checked > 20


def test_fit_logistic_recovers_the_coefficients_that_made_the_data() -> None:
    rng = np.random.default_rng(3)
    x = np.column_stack([np.ones(20000), rng.normal(size=20000), rng.integers(0, 2, 20000)])
    true = np.array([-1.5, 0.8, -1.2])
    y = (rng.random(20000) < 1 / (1 + np.exp(-x @ true))).astype(float)
    assert fit_logistic(x, y) == pytest.approx(true, abs=0.08)
    with pytest.raises(ConfigError, match="non-empty"):
        fit_logistic(np.zeros((0, 3)), np.zeros(0))


def test_model_json_round_trip_and_errors() -> None:
    model = DefenceModel(tuple(range(len(READINESS_FEATURES))), tuple(range(len(WAIT_FEATURES))), {"x": 1})
    again = DefenceModel.from_json(json.loads(json.dumps(model.to_json())))
    assert again == model
    broken = model.to_json()
    del broken["wait"]["passed"]
    with pytest.raises(ConfigError, match="passed"):
        DefenceModel.from_json(broken)
    with pytest.raises(ConfigError, match="coefficients"):
        DefenceModel((1.0,), (1.0,), {})


def test_the_shipped_model_reads_the_table_better_than_a_constant(played: list) -> None:
    model = shipped_defence()
    fit = model.meta["fit"]
    for part in ("readiness", "wait"):
        assert fit[part]["held_out_log_loss"] < fit[part]["held_out_log_loss_constant"]
    assert fit["readiness"]["held_out_log_loss"] < fit["readiness"]["held_out_log_loss_hand_made"]
    assert "fit-defence" in model.meta["command"]
    # a tile the opponent passed, or threw himself, reads as safer than the same tile fresh
    _, obs, _ = played[len(played) // 2]
    unseen = obs.unseen_counts()
    seat = (obs.player + 1) % 4
    k = next(k for k in range(27) if obs.hand[k])
    fresh = wait_features(obs, seat, k, unseen, set())
    passed = wait_features(obs, seat, k, unseen, {k})
    assert model.wait_chance_of(passed) < model.wait_chance_of(fresh)
    chances = deal_in_chances(obs, [k])
    assert set(chances) == {s for s in range(4) if s != obs.player}
    assert all(0 < c[0] < 1 for c in chances.values())
    assert len(readiness_features(obs, seat)) == len(READINESS_FEATURES)
