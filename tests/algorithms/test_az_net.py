"""The AlphaZero network and its two-step policy: shapes, masks, the head <-> action map."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from paiju.algorithms.alphazero import AZNet, NetConfig, NetworkEvaluator, legal_priors
from paiju.core.errors import ConfigError
from paiju.yuxi.actions import KIND_PLAY, N_TARGETS
from paiju.yuxi.board import BOARDS
from paiju.yuxi.encoding import YuxiEncoder
from paiju.yuxi.game import YuxiGame, YuxiState
from paiju.yuxi.phases import PH_PLAY, PH_SWAP

SMALL = {
    "channels": 8, "blocks": 1, "vector_hidden": 32, "hidden": 64, "second_hidden": 16, "value_hidden": 16
}


def _decisions(game: YuxiGame, seed: int, games: int) -> list[YuxiState]:
    rng = np.random.default_rng(seed)
    out: list[YuxiState] = []
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply(s.sample_chance(rng))
                continue
            out.append(s.clone())
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
    return out


def _net(enc: YuxiEncoder, seed: int = 0) -> AZNet:
    torch.manual_seed(seed)
    return AZNet(NetConfig.for_encoder(enc, **SMALL))


def test_output_shapes() -> None:
    enc = YuxiEncoder(YuxiGame(board="4x4"))
    net = _net(enc)
    c, h, w = enc.plane_shape
    out = net(torch.zeros(5, c, h, w), torch.zeros(5, enc.vector_size))
    assert out.first.shape == (5, enc.first_size) == (5, 45)
    assert out.second is not None and out.second.shape == (5, enc.first_size, N_TARGETS)
    assert out.value.shape == (5, 2)
    assert float(out.value.detach().abs().max()) <= 1.0
    one_step = AZNet(NetConfig((3, 6, 7), 4, 7, 0, **SMALL))
    out = one_step(torch.zeros(2, 3, 6, 7), torch.zeros(2, 4))
    assert out.second is None and out.first.shape == (2, 7)


def test_position_head_is_a_linear_layer_on_penultimate_concatenated_with_the_card() -> None:
    enc = YuxiEncoder(YuxiGame(board="3x3"))
    net = _net(enc).eval()
    assert net.second_hidden is not None and net.second_choice is not None and net.second_out is not None
    c, h, w = enc.plane_shape
    torch.manual_seed(1)
    planes, vector = torch.randn(3, c, h, w), torch.randn(3, enc.vector_size)
    with torch.no_grad():
        out = net(planes, vector)
        x = net.blocks(net.stem(planes)).flatten(1)
        pen = net.penultimate(torch.cat([x, net.vector_mlp(vector)], dim=1))
        # the same weights as one nn.Linear over [penultimate; one-hot(card)]
        cat = nn.Linear(pen.shape[1] + enc.first_size, net.second_hidden.out_features)
        cat.weight.copy_(torch.cat([net.second_hidden.weight, net.second_choice.weight.T], dim=1))
        cat.bias.copy_(net.second_hidden.bias)
        for card in (0, 7, enc.first_size - 1):
            onehot = torch.zeros(3, enc.first_size)
            onehot[:, card] = 1
            expect = net.second_out(torch.relu(cat(torch.cat([pen, onehot], dim=1))))
            assert out.second is not None
            assert torch.allclose(out.second[:, card], expect, atol=1e-5)
    assert out.second is not None
    assert not torch.allclose(out.second[:, 3], out.second[:, 4])  # the position depends on the card


@pytest.mark.parametrize("board", list(BOARDS))
def test_two_step_head_matches_the_action_space(board: str) -> None:
    game = YuxiGame(board=board)
    enc = YuxiEncoder(game)
    space = game.actions
    # the whole space: every end/play action is one (card, position) pair and back
    pairs = set()
    for a in range(space.size):
        idx = enc.action_index(a)
        kind = space.decode(a)[0]
        if idx is None:
            assert kind in ("keep", "swap")
            continue
        assert enc.action_at(*idx) == a
        assert 0 <= idx[0] < enc.first_size and -1 <= idx[1] < enc.second_size
        pairs.add(idx)
    assert len(pairs) == 1 + game.table.num_ids * N_TARGETS
    # and at real positions: the legal moves get distinct pairs, covering no illegal move
    for s in _decisions(game, seed=4, games=3):
        legal = s.legal_actions()
        indices = enc.policy_indices(s, legal)
        if s.phase == PH_SWAP:
            assert indices is None
            continue
        assert s.phase == PH_PLAY and indices is not None
        assert len(set(indices)) == len(legal)
        assert [enc.action_at(*i) for i in indices] == legal
        for (card, pos), a in zip(indices, legal, strict=True):
            if card:
                assert space.decode(a) == (KIND_PLAY, card, pos)


def test_legal_priors_by_hand() -> None:
    first = np.log(np.array([1.0, 2.0, 3.0, 100.0]))  # choice 3 is illegal below
    second = np.zeros((4, 3))
    second[1] = np.log([1.0, 3.0, 50.0])
    p = legal_priors(first, second, [(0, -1), (1, 0), (1, 1), (2, 2)])
    # P(first) over {0, 1, 2} = 1/6, 2/6, 3/6; P(second | 1) over {0, 1} = 1/4, 3/4
    assert p == pytest.approx([1 / 6, 2 / 6 * 1 / 4, 2 / 6 * 3 / 4, 3 / 6])
    with pytest.raises(ValueError, match="no second head"):
        legal_priors(first, None, [(1, 0), (1, 1)])
    with pytest.raises(ValueError, match="both with and without a second step"):
        legal_priors(first, second, [(1, -1), (1, 1)])


def test_one_step_priors_by_hand() -> None:
    """A one-step policy (no second head: connect four, gomoku) is the softmax of the legal
    first logits, in the order of the moves given."""
    first = np.log(np.array([1.0, 2.0, 3.0, 100.0, 4.0]))
    p = legal_priors(first, None, [(4, -1), (0, -1), (2, -1)])  # 1 and 3 are illegal
    assert p == pytest.approx([4 / 8, 1 / 8, 3 / 8])
    # a net with a second head prices the same moves the same way
    assert legal_priors(first, np.zeros((5, 2)), [(4, -1), (0, -1), (2, -1)]) == pytest.approx(p)


def test_masks_never_give_an_illegal_move_any_probability() -> None:
    game = YuxiGame(board="4x4")
    enc = YuxiEncoder(game)
    net = _net(enc, seed=3)
    # an adversarial head: huge logits on end turn and on card 1 at every position
    with torch.no_grad():
        net.first_head.bias[1] = 50.0
        assert net.second_out is not None
        net.second_out.bias[N_TARGETS - 1] = 50.0
    ev = NetworkEvaluator(net, enc)
    rng = np.random.default_rng(0)
    for s in _decisions(game, seed=9, games=2):
        legal = s.legal_actions()
        priors = ev.prior(s)
        assert [a for a, _ in priors] == legal
        p = np.array([q for _, q in priors])
        assert p.sum() == pytest.approx(1.0) and (p > 0).all()
        sampled = legal[int(rng.choice(len(legal), p=p / p.sum()))]
        assert sampled in legal and legal[int(p.argmax())] in legal
        values = ev.evaluate(s)
        assert len(values) == 2 and all(-1.0 <= v <= 1.0 for v in values)


def test_values_come_back_in_seat_order() -> None:
    game = YuxiGame(board="3x3")
    enc = YuxiEncoder(game)
    net = _net(enc, seed=5)
    ev = NetworkEvaluator(net, enc, cache_size=0)
    for s in _decisions(game, seed=1, games=1)[:10]:
        seat = enc.perspective(s)
        planes, vector = enc.encode(s)
        with torch.no_grad():
            raw = net.eval()(torch.from_numpy(planes[None]), torch.from_numpy(vector[None])).value[0]
        got = ev.evaluate(s)
        assert got[seat] == pytest.approx(float(raw[0]), abs=1e-6)
        assert got[1 - seat] == pytest.approx(float(raw[1]), abs=1e-6)


def test_mismatched_sizes_are_config_errors() -> None:
    enc = YuxiEncoder(YuxiGame(board="3x3"))
    wrong = AZNet(NetConfig((3, 6, 7), 4, 7, 0, **SMALL))
    with pytest.raises(ConfigError, match="do not match the encoder"):
        NetworkEvaluator(wrong, enc)
    with pytest.raises(ConfigError, match="blocks=-1"):
        NetConfig((3, 6, 7), 4, 7, 0, blocks=-1)


def test_the_alphazero_package_imports_no_game() -> None:
    import ast
    from pathlib import Path

    import paiju.algorithms.alphazero as package

    files = sorted(Path(package.__file__).parent.glob("*.py"))
    assert len(files) >= 4
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        ours = [m for m in imported if m.startswith("paiju")]
        assert all(m.startswith(("paiju.core", "paiju.algorithms")) for m in ours), (path.name, ours)


def test_value_skip_adds_a_linear_term_of_the_plane_sums_and_the_vector() -> None:
    enc = YuxiEncoder(YuxiGame(board="3x3"))
    torch.manual_seed(0)
    plain = AZNet(NetConfig.for_encoder(enc, **SMALL))
    torch.manual_seed(0)
    wide = AZNet(NetConfig.for_encoder(enc, **SMALL, value_skip=True))
    # the option adds weights of its own and leaves every other key as it was (old models load)
    assert set(wide.state_dict()) - set(plain.state_dict()) == {"value_skip.weight", "value_skip.bias"}
    assert set(plain.state_dict()) <= set(wide.state_dict())
    states = _decisions(YuxiGame(board="3x3"), 3, 1)[:6]
    planes = np.stack([enc.encode(s)[0] for s in states])
    vector = np.stack([enc.encode(s)[1] for s in states])
    with torch.no_grad():
        last = wide.value_head[-1]
        assert isinstance(last, nn.Linear)
        last.weight.zero_()
        last.bias.zero_()  # the deep part now adds nothing: the value is the linear term alone
        out = wide.eval()(torch.from_numpy(planes), torch.from_numpy(vector)).value.numpy()
        assert wide.value_skip is not None
        w, b = wide.value_skip.weight.numpy(), wide.value_skip.bias.numpy()
    x = np.concatenate([planes.sum(axis=(2, 3)), vector], axis=1)
    assert np.allclose(out, np.tanh(x @ w.T + b), atol=1e-5)
