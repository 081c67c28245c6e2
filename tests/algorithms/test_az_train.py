"""AlphaZero self-play and training: samples, the policy loss, resume, workers, bad input."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from paiju.algorithms.alphazero import AZNet, NetConfig
from paiju.algorithms.alphazero.checkpoint import load_checkpoint
from paiju.algorithms.alphazero.net import legal_priors
from paiju.algorithms.alphazero.selfplay import SearchSettings, play_selfplay_game
from paiju.algorithms.alphazero.targets import value_targets
from paiju.algorithms.alphazero.train import (
    Replay,
    TrainConfig,
    held_out_losses,
    learn_step,
    load_replay,
    policy_cross_entropy,
    save_samples,
    train,
)
from paiju.core.errors import ConfigError
from paiju.core.runner import Backend
from paiju.core.torch_files import load_payload
from paiju.games.grid_encoding import connect_four_setup
from paiju.yuxi.rooms import YuxiRooms

TINY = TrainConfig(
    seed=3,
    iterations=2,
    games_per_iteration=3,
    search=SearchSettings(simulations=6, batch=2, temperature_moves=4),
    channels=4,
    blocks=1,
    hidden=16,
    steps_per_iteration=3,
    batch_size=16,
    window=2,
    snapshot_every=1,
)


def _weights(run: Path) -> dict[str, torch.Tensor]:
    return dict(load_payload(run / "checkpoint.pt", "checkpoint")["net"])


def test_selfplay_samples_are_legal_visit_distributions_and_final_returns() -> None:
    game, enc = connect_four_setup(0)
    torch.manual_seed(0)
    net = AZNet(NetConfig.for_encoder(enc, channels=4, blocks=1, hidden=16)).eval()
    g = play_selfplay_game(game, enc, net, SearchSettings(simulations=8, batch=2), seed=5)
    assert len(g) > 0 and g.decisions >= len(g)
    # the game replayed: seat to move at decision i, its legal moves and the returns
    returns = g.returns
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    for i in range(len(g)):
        entries = slice(g.offsets[i], g.offsets[i + 1])
        probs = g.policy_prob[entries]
        assert probs.sum() == pytest.approx(1.0, abs=1e-5) and (probs > 0).all()
        assert (g.policy_second[entries] == -1).all()  # connect four: one policy head
        # planes: the mover's view; value target: its own return first
        to_move = 0 if g.vector[i][1] > 0.5 else 1
        assert g.values[i][0] == returns[to_move] and g.values[i][1] == returns[1 - to_move]
        # the search's root value for the mover, and (constant-sum, two players) its negation
        assert -1.0 <= g.root_values[i][0] <= 1.0 and g.root_values[i][1] == -g.root_values[i][0]
        # a move is legal iff its column is not full: the top cell of the column is empty
        filled = g.planes[i][0] + g.planes[i][1]
        assert all(filled[0, col] == 0 for col in g.policy_first[entries])


def test_the_same_seed_gives_the_same_game_and_another_seed_another() -> None:
    game, enc = connect_four_setup(0)
    torch.manual_seed(0)
    net = AZNet(NetConfig.for_encoder(enc, channels=4, blocks=1, hidden=16)).eval()
    settings = SearchSettings(simulations=8, batch=2)
    a, b = (play_selfplay_game(game, enc, net, settings, seed=1) for _ in range(2))
    c = play_selfplay_game(game, enc, net, settings, seed=2)
    assert np.array_equal(a.planes, b.planes) and np.array_equal(a.policy_prob, b.policy_prob)
    assert not (len(a) == len(c) and np.array_equal(a.planes, c.planes))


def _yuxi_replay(tmp_path: Path) -> tuple[AZNet, Replay]:
    rooms = YuxiRooms(boards=("3x3",))
    torch.manual_seed(1)
    _game, enc = rooms(0)
    net = AZNet(NetConfig.for_encoder(enc, channels=4, blocks=1, hidden=16)).eval()
    played = [
        play_selfplay_game(*rooms(s), net, SearchSettings(simulations=6, batch=2), seed=s) for s in range(2)
    ]
    save_samples(tmp_path / "s.npz", played)
    return net, load_replay([tmp_path / "s.npz"])


def test_policy_loss_equals_cross_entropy_of_the_play_time_priors(tmp_path: Path) -> None:
    """The training loss reads the two-step heads as the search does (legal_priors)."""
    net, replay = _yuxi_replay(tmp_path)
    index = np.arange(len(replay))
    with torch.no_grad():
        out = net(
            torch.from_numpy(replay.planes.astype(np.float32)),
            torch.from_numpy(replay.vector.astype(np.float32)),
        )
        loss = float(policy_cross_entropy(out.first, out.second, replay, index))
    expected, rows = 0.0, 0
    assert out.second is not None
    for i in index:
        e = slice(replay.offsets[i], replay.offsets[i + 1])
        if replay.offsets[i] == replay.offsets[i + 1]:
            continue  # a value-only sample (the swap)
        pairs = list(zip(replay.policy_first[e].tolist(), replay.policy_second[e].tolist(), strict=True))
        p = legal_priors(out.first[i].numpy(), out.second[i].numpy(), pairs)
        expected -= float(np.sum(replay.policy_prob[e] * np.log(p)))
        rows += 1
    assert rows > 0 and (replay.policy_second >= 0).any()  # yuxi's moves have a second step
    assert loss == pytest.approx(expected / rows, rel=1e-4)


def test_value_targets_mix_the_outcome_with_the_root_value_where_a_sample_has_one(tmp_path: Path) -> None:
    _net, replay = _yuxi_replay(tmp_path)
    searched = replay.offsets[1:] > replay.offsets[:-1]
    # yuxi's swap is decided by the value head, without a search: no root value there
    assert (~searched).any() and np.isnan(replay.root_values[~searched]).all()
    assert np.isfinite(replay.root_values[searched]).all()
    assert value_targets(replay, 0.0) is replay
    mixed = value_targets(replay, 0.25)
    z, q = replay.values, replay.root_values
    assert np.allclose(mixed.values[searched], 0.75 * z[searched] + 0.25 * q[searched])
    assert np.array_equal(mixed.values[~searched], z[~searched])
    # a hand-computed pair: outcome +1 with root value 0.5, and a sample without one (no rollouts:
    # rollout_values of the replay's length would be refused)
    two = replace(replay, values=np.array([[1, -1], [-1, 1]], dtype=np.float32),
                  root_values=np.array([[0.5, -0.5], [np.nan, np.nan]], dtype=np.float32),
                  rollout_values=np.full((2, 2), np.nan, dtype=np.float32))
    assert value_targets(two, 0.5).values.tolist() == [[0.75, -0.75], [-1.0, 1.0]]
    # samples stored before root values were kept load without any
    with np.load(tmp_path / "s.npz") as data:
        old = {k: data[k] for k in data.files if k != "root_values"}
    np.savez(tmp_path / "old.npz", **old)
    before = load_replay([tmp_path / "old.npz"])
    assert np.isnan(before.root_values).all() and np.array_equal(before.values, replay.values)
    assert np.array_equal(value_targets(before, 0.5).values, replay.values)


def test_held_out_losses_are_the_losses_over_every_sample_in_any_batching(tmp_path: Path) -> None:
    net, replay = _yuxi_replay(tmp_path)
    index = np.arange(len(replay))
    with torch.no_grad():
        out = net(torch.from_numpy(replay.planes.astype(np.float32)),
                  torch.from_numpy(replay.vector.astype(np.float32)))
        policy = float(policy_cross_entropy(out.first, out.second, replay, index))
    value = float(np.mean((out.value.numpy() - replay.values) ** 2))
    for batch in (1024, 3):
        v, p = held_out_losses(net, replay, batch=batch)
        assert v == pytest.approx(value, rel=1e-5) and p == pytest.approx(policy, rel=1e-4)
    net.train()
    held_out_losses(net, replay)
    assert net.training  # the net's mode is left as it was


def test_learning_steps_fit_a_fixed_replay(tmp_path: Path) -> None:
    net, replay = _yuxi_replay(tmp_path)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    net.train()
    index = np.arange(len(replay))
    first = learn_step(net, opt, replay, index, 1.0)
    for _ in range(60):
        last = learn_step(net, opt, replay, index, 1.0)
    assert last[0] < 0.5 * first[0] and last[1] < first[1]


def test_training_writes_a_playable_model_metrics_and_a_curve(tmp_path: Path) -> None:
    metrics = train(
        TINY, connect_four_setup, tmp_path, meta={"command": "test"}, game_id={"game": "connect_four"}
    )
    assert [m["iteration"] for m in metrics] == [0, 1]
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["iteration"] for line in lines] == [0, 1]
    assert all(np.isfinite(m["value_loss"]) and np.isfinite(m["policy_loss"]) for m in metrics)
    # an iteration's held-out losses are its new games under the previous iteration's net
    before, _ = load_checkpoint(tmp_path / "snapshots" / "model-iter-0000.pt")
    fresh = held_out_losses(before, load_replay([tmp_path / "samples" / "iter-0001.npz"]))
    assert (metrics[1]["value_loss_new"], metrics[1]["policy_loss_new"]) == pytest.approx(fresh)
    assert (tmp_path / "curve.png").stat().st_size > 1000
    summary = json.loads((tmp_path / "metrics.json").read_text())
    assert summary["last"] == metrics[-1] and summary["game"] == {"game": "connect_four"}
    written = json.loads((tmp_path / "config.json").read_text())
    assert written["command"] == "test" and written["identity"]["game"] == {"game": "connect_four"}
    assert "iterations" not in written["identity"] and written["config"]["iterations"] == 2
    net, meta = load_checkpoint(tmp_path / "model.pt")
    assert meta["command"] == "test" and meta["game"] == "connect_four" and meta["iteration"] == 1
    assert sorted(p.name for p in (tmp_path / "snapshots").iterdir()) == [
        "model-iter-0000.pt",
        "model-iter-0001.pt",
    ]
    assert all(torch.equal(v, _weights(tmp_path)[k]) for k, v in net.state_dict().items())
    # a folder kept without its model (training/ keeps the checkpoint only): a resume with no
    # iteration left writes the last iteration's model again, weights and iteration alike
    (tmp_path / "model.pt").unlink()
    assert train(TINY, connect_four_setup, tmp_path, resume=True, meta={"command": "again"},
                 game_id={"game": "connect_four"}) == metrics
    again, meta = load_checkpoint(tmp_path / "model.pt")
    assert meta["command"] == "again" and meta["iteration"] == 1 and meta["metrics"] == metrics[-1]
    assert all(torch.equal(v, net.state_dict()[k]) for k, v in again.state_dict().items())


@pytest.mark.parametrize("root_value_weight", [0.0, 0.5])
def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path: Path, root_value_weight: float) -> None:
    config = TrainConfig.from_dict({**TINY.to_dict(), "root_value_weight": root_value_weight})
    train(config, connect_four_setup, tmp_path / "whole")
    first = TrainConfig.from_dict({**config.to_dict(), "iterations": 1})
    train(first, connect_four_setup, tmp_path / "split")
    train(config, connect_four_setup, tmp_path / "split", resume=True)
    whole, split = _weights(tmp_path / "whole"), _weights(tmp_path / "split")
    assert whole.keys() == split.keys() and all(torch.equal(whole[k], split[k]) for k in whole)
    a = load_payload(tmp_path / "whole" / "checkpoint.pt", "c")["metrics"]
    b = load_payload(tmp_path / "split" / "checkpoint.pt", "c")["metrics"]
    assert [(m["value_loss"], m["samples"]) for m in a] == [(m["value_loss"], m["samples"]) for m in b]


def test_resume_reuses_the_samples_of_an_iteration_whose_learning_was_cut(tmp_path: Path) -> None:
    train(TINY, connect_four_setup, tmp_path / "whole")
    one = TrainConfig.from_dict({**TINY.to_dict(), "iterations": 1})
    train(one, connect_four_setup, tmp_path / "cut")
    # the second iteration's self-play finished, then the run was killed before its checkpoint
    (tmp_path / "cut" / "samples" / "iter-0001.npz").write_bytes(
        (tmp_path / "whole" / "samples" / "iter-0001.npz").read_bytes()
    )
    train(TINY, connect_four_setup, tmp_path / "cut", resume=True)
    whole, cut = _weights(tmp_path / "whole"), _weights(tmp_path / "cut")
    assert all(torch.equal(whole[k], cut[k]) for k in whole)


def test_the_number_of_workers_does_not_change_the_result(tmp_path: Path) -> None:
    one = TrainConfig.from_dict({**TINY.to_dict(), "iterations": 1})
    train(one, connect_four_setup, tmp_path / "w1")
    train(one, connect_four_setup, tmp_path / "w2", backend=Backend(workers=2))
    a, b = _weights(tmp_path / "w1"), _weights(tmp_path / "w2")
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_bad_runs_are_refused(tmp_path: Path) -> None:
    one = TrainConfig.from_dict({**TINY.to_dict(), "iterations": 1})
    train(one, connect_four_setup, tmp_path, game_id={"game": "connect_four"})
    with pytest.raises(ConfigError, match="pass --resume"):
        train(one, connect_four_setup, tmp_path, game_id={"game": "connect_four"})
    other = TrainConfig.from_dict({**TINY.to_dict(), "lr": 0.01})
    with pytest.raises(ConfigError, match=r"another configuration \(lr: 0\.001 there, 0\.01 now\)"):
        train(other, connect_four_setup, tmp_path, resume=True, game_id={"game": "connect_four"})
    game_differs = r'\(game: \{"game": "connect_four"\} there, \{"game": "gomoku"\} now\)'
    with pytest.raises(ConfigError, match=game_differs):
        train(one, connect_four_setup, tmp_path, resume=True, game_id={"game": "gomoku"})
    with pytest.raises(ConfigError, match="unknown fields"):
        TrainConfig.from_dict({"sims": 3})
    with pytest.raises(ConfigError, match="games_per_iteration"):
        TrainConfig(games_per_iteration=0)
    with pytest.raises(ConfigError, match=r"root_value_weight=1.5 must be in \[0, 1\]"):
        TrainConfig(root_value_weight=1.5)
    with pytest.raises(ConfigError, match="simulations"):
        SearchSettings(simulations=0)


def test_yuxi_rooms_draw_boards_and_decks_from_the_seed() -> None:
    rooms = YuxiRooms(boards=("3x3", "6x4"))
    configs = [rooms.config(s) for s in range(40)]
    assert configs == [rooms.config(s) for s in range(40)]
    assert {c.board for c in configs} == {"3x3", "6x4"}
    assert len({c.decks for c in configs}) > 5
    for c in configs:
        assert set(c.decks) <= set(rooms.decks_for(c.board)) and not c.die_bonus
    fixed = YuxiRooms(boards=("4x4",), decks=("crab_feast", "tempest"))
    assert {fixed.config(s).decks for s in range(5)} == {("crab_feast", "tempest")}
    with pytest.raises(ConfigError, match="no deck 'nope'"):
        YuxiRooms(decks=("nope", "tempest"))
    with pytest.raises(ConfigError):
        YuxiRooms(boards=("5x5",))


class _CountingHeuristic:
    """Yuxi's heuristic leaf, counting its calls."""

    def __init__(self) -> None:
        from paiju.yuxi.agents import HeuristicEvaluator

        self.inner = HeuristicEvaluator()
        self.calls = 0

    def evaluate(self, state: object) -> list[float]:
        self.calls += 1
        return self.inner.evaluate(state)  # type: ignore[arg-type]

    def prior(self, state: object) -> list[tuple[object, float]]:
        raise AssertionError("priors come from the network")


def test_mixed_selfplay_values_leaves_with_the_games_heuristic(tmp_path: Path) -> None:
    rooms = YuxiRooms(boards=("3x3",))
    game, enc = rooms(0)
    torch.manual_seed(1)
    net = AZNet(NetConfig.for_encoder(enc, channels=4, blocks=1, hidden=16)).eval()
    counting = _CountingHeuristic()
    mixed = play_selfplay_game(game, enc, net, SearchSettings(simulations=6, batch=2, mix=1.0), 4, counting)
    calls = counting.calls
    plain = play_selfplay_game(game, enc, net, SearchSettings(simulations=6, batch=2), 4, counting)
    assert calls > 0 and counting.calls == calls and len(mixed) > 0  # mix=0: the heuristic unused
    for g in (mixed, plain):
        for i in range(len(g)):
            probs = g.policy_prob[g.offsets[i]:g.offsets[i + 1]]
            assert len(probs) == 0 or probs.sum() == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(ConfigError, match="mix"):
        play_selfplay_game(game, enc, net, SearchSettings(mix=0.5), 4)
    with pytest.raises(ConfigError, match=r"mix=1\.5"):
        SearchSettings(mix=1.5)
    # connect four's setup has no heuristic: refused before any game is played
    no_heuristic = TrainConfig.from_dict({**TINY.to_dict(), "search": {**TINY.search.__dict__, "mix": 0.5}})
    with pytest.raises(ConfigError, match="offers none"):
        train(no_heuristic, connect_four_setup, tmp_path / "c4")
    assert not (tmp_path / "c4" / "checkpoint.pt").exists()
    # yuxi's rooms offer one: a mixed run trains
    mixed_run = TrainConfig.from_dict({**no_heuristic.to_dict(), "iterations": 1})
    assert train(mixed_run, rooms, tmp_path / "yuxi")[0]["iteration"] == 0


def test_value_skip_trains_a_model_with_the_linear_value_term(tmp_path: Path) -> None:
    config = TrainConfig.from_dict({**TINY.to_dict(), "iterations": 1, "value_skip": True})
    train(config, connect_four_setup, tmp_path)
    net, meta = load_checkpoint(tmp_path / "model.pt")
    assert net.config.value_skip and net.value_skip is not None and meta["train_config"]["value_skip"]
