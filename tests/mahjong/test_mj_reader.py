"""The table reader (paiju.mahjong.reader, train_reader): its input leaks no hidden tile, its
fitted channel is the fitted models' chance, a tiny run trains, resumes to the same weights
and plugs into the value Expectimax."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from paiju.core.errors import ConfigError
from paiju.mahjong import search_data as S
from paiju.mahjong import train_reader as T
from paiju.mahjong.agents.defence import deal_in_chances, probability_log_loss
from paiju.mahjong.agents.greedy import greedy_turns
from paiju.mahjong.agents.value import ValueExpectimaxAgent
from paiju.mahjong.determinize import sample_state
from paiju.mahjong.game import MahjongGame
from paiju.mahjong.reader import INPUT_SIZE, NetworkReader, reader_features, table_features
from paiju.mahjong.tiles import NUM_KINDS


def test_resampling_every_hidden_tile_leaves_the_input_unchanged() -> None:
    """The leak test: the other hands and the wall redealt consistently with what the reader
    sees give the same input for each opponent (while the opponents' hands did change)."""
    game = MahjongGame()
    rng = np.random.default_rng(0)
    checked = changed = 0
    for _, state, obs in greedy_turns(3, 5):
        if checked >= 40:
            break
        other = sample_state(game, obs, rng)
        again = other.observation(obs.player)
        seats, x = table_features(obs)
        seats2, y = table_features(again)
        assert seats == seats2 and np.array_equal(x, y)
        changed += any(list(other.hands[s]) != list(state.hands[s]) for s in seats)
        checked += 1
    assert changed > checked // 2  # the hidden tiles did move


def test_the_fitted_channel_is_the_fitted_models_chance() -> None:
    for _, _, obs in greedy_turns(1, 8):
        kinds = list(range(NUM_KINDS))
        fitted = deal_in_chances(obs, kinds)
        for seat, chances in fitted.items():
            x = reader_features(obs, seat)
            assert x.shape == (INPUT_SIZE,)
            assert x[T.FITTED:T.FITTED + NUM_KINDS] == pytest.approx(chances, rel=1e-5, abs=1e-7)


def test_deal_in_log_loss_counts_only_the_held_kinds_of_turns() -> None:
    x = np.zeros((2, INPUT_SIZE), np.float32)
    x[:, T.FITTED + 3] = 0.25
    waits = np.zeros((2, NUM_KINDS), np.float32)
    waits[0, 3] = 1.0
    held = np.zeros((2, NUM_KINDS), bool)
    held[0, 3] = held[1, 3] = True
    s = T.Samples(x, np.zeros(2, np.float32), waits, held, np.zeros(2, np.int64), np.array(["a", "a"]))
    p = np.full((2, NUM_KINDS), 0.5)
    got = T.deal_in_log_loss(p, s, constant=0.1)
    assert got["samples"] == 2
    assert got["reader"] == pytest.approx(np.log(2))
    assert got["fitted_models"] == pytest.approx(-(np.log(0.25) + np.log(0.75)) / 2)
    assert got["constant"] == pytest.approx(probability_log_loss(np.array([0.1, 0.1]), np.array([1.0, 0.0])))


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("search") / "data"
    S.generate(S.SearchDataConfig(out=str(out), hands=4, seed=3, teacher="expectimax:depth=1,ron=flat",
                                  players=("expectimax:depth=1,ron=flat", "greedy"), chunk=2))
    return out


def test_the_samples_are_the_datas_decisions_per_opponent(data: Path) -> None:
    s = T.data_samples(data)
    con = S.connect(data)
    rows = con.execute("SELECT count(*) FROM decisions").fetchone()[0]
    assert len(s.x) == 3 * rows
    ready = con.execute(
        "SELECT list_sum(list_transform(opp_ready, lambda x: x::INT)) FROM decisions").fetchall()
    assert int(s.ready.sum()) == sum(r[0] for r in ready)
    assert set(s.opponent.tolist()) <= {"expectimax:depth=1,ron=flat", "greedy"}


def test_a_tiny_run_trains_resumes_to_the_same_weights_and_plugs_in(data: Path, tmp_path: Path) -> None:
    cfg = T.ReaderConfig(data=str(data), out=str(tmp_path / "whole"), epochs=2, hidden=(16,), batch=64,
                         greedy_test_hands=0)
    report = T.train(cfg)
    assert set(report["held_out_by_opponent"]) == {"expectimax:depth=1,ron=flat", "greedy"}
    assert len(report["epochs"]) == 2
    split = T.ReaderConfig(**{**cfg.__dict__, "out": str(tmp_path / "split"), "epochs": 1})
    T.train(split)
    T.train(T.ReaderConfig(**{**split.__dict__, "epochs": 2}))
    a = torch.load(tmp_path / "whole" / "model.pt", weights_only=True)["state_dict"]
    b = torch.load(tmp_path / "split" / "model.pt", weights_only=True)["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)
    lines = [json.loads(x) for x in (tmp_path / "split" / "metrics.jsonl").read_text().splitlines()]
    assert [m["epoch"] for m in lines] == [0, 1] and (tmp_path / "split" / "curve.png").is_file()
    with pytest.raises(ConfigError, match=r"another configuration \(lr: 0\.001 there, 0\.5 now\)"):
        T.train(T.ReaderConfig(**{**split.__dict__, "lr": 0.5}))
    reader = NetworkReader.load(tmp_path / "whole" / "model.pt")
    agent = ValueExpectimaxAgent(depth=1, reader=reader)
    for _, state, obs in greedy_turns(1, 2):
        assert agent.act(obs, state.legal_actions()) in state.legal_actions()
        chances = reader.deal_in_chances(obs, [k for k in range(NUM_KINDS) if obs.hand[k]])
        assert set(chances) == {s for s in range(4) if s != obs.player}
        assert all(0.0 <= p <= 1.0 for ps in chances.values() for p in ps)
        break


def test_a_left_out_type_the_data_lacks_is_refused(data: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="none of the data's players"):
        T.train(T.ReaderConfig(data=str(data), out=str(tmp_path / "x"), leave_out="expectimax-shanten",
                               epochs=1))
