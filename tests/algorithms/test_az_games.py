"""The same AlphaZero code on connect four and gomoku: encoders and network-guided search."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paiju.algorithms.alphazero import AZNet, NetConfig, NetworkEvaluator
from paiju.algorithms.mcts import MCTS
from paiju.core.protocol import Game, State
from paiju.games.connect_four import ConnectFour
from paiju.games.gomoku import Gomoku
from paiju.games.grid_encoding import ConnectFourEncoder, GomokuEncoder

SMALL = {"channels": 8, "blocks": 1, "vector_hidden": 16, "hidden": 32, "value_hidden": 16}


def _random_state(game: Game, plies: int, seed: int) -> State:
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    for _ in range(plies):
        legal = s.legal_actions()
        if not legal:
            break
        s.apply(legal[int(rng.integers(len(legal)))])
    return s


def _printed_planes(state: State) -> np.ndarray:
    """Mover's and opponent's stones read off the game's own printed board."""
    rows = str(state).splitlines()
    mover = "xo"[state.current_player()]
    other = "xo"[1 - state.current_player()]
    marks = (mover, other)
    return np.array([[[ch == mark for ch in row] for row in rows] for mark in marks], dtype=np.float32)


@pytest.mark.parametrize(
    ("game", "encoder"),
    [(ConnectFour(), ConnectFourEncoder()), (Gomoku(rows=9), GomokuEncoder(Gomoku(rows=9)))],
)
def test_planes_match_the_printed_board(game: Game, encoder: ConnectFourEncoder | GomokuEncoder) -> None:
    for seed in range(6):
        s = _random_state(game, plies=3 + 2 * seed, seed=seed)
        if s.is_terminal():
            continue
        planes, vector = encoder.encode(s)
        assert planes.shape == encoder.plane_shape
        assert np.array_equal(planes, _printed_planes(s))
        assert vector[1] == float(s.current_player() == 0)


@pytest.mark.parametrize("batch", [1, 8])
def test_network_search_on_connect_four_takes_a_win_in_one(batch: int) -> None:
    game = ConnectFour()
    enc = ConnectFourEncoder(game)
    torch.manual_seed(0)
    ev = NetworkEvaluator(AZNet(NetConfig.for_encoder(enc, **SMALL)), enc)
    s = game.new_initial_state()
    for a in (0, 6, 1, 6, 2, 5):  # x threatens the bottom row at column 3
        s.apply(a)
    priors = ev.prior(s)
    assert [a for a, _ in priors] == s.legal_actions()
    assert sum(p for _, p in priors) == pytest.approx(1.0)
    mcts = MCTS(game, evaluator=ev, rule="puct", c=2.0, simulations=64, seed=1, batch_size=batch)
    result = mcts.search(s)
    assert result.action == 3
    assert ev.calls <= result.simulations // batch + 8
