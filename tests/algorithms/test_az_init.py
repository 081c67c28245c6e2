"""A training run that starts from another model's network (``TrainConfig.init``), any game:
the weights copied when the shapes match, applied at the start only (a resume equals the
uninterrupted run), part of the run's identity, and bad models refused before anything is
written."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from paiju.algorithms.alphazero import AZNet, NetConfig
from paiju.algorithms.alphazero.checkpoint import load_checkpoint, save_checkpoint
from paiju.algorithms.alphazero.selfplay import SearchSettings, Setup
from paiju.algorithms.alphazero.train import ENCODER_SIZES, LAYERS, TrainConfig, init_weights, train
from paiju.core.errors import ConfigError
from paiju.core.torch_files import load_payload
from paiju.games.grid_encoding import connect_four_setup, gomoku_setup

C4: dict[str, Any] = {"game": "connect_four"}
TINY = TrainConfig(
    seed=3, iterations=1, games_per_iteration=2,
    search=SearchSettings(simulations=6, batch=2, temperature_moves=4), channels=4, blocks=1, hidden=16,
    steps_per_iteration=3, batch_size=16, window=2, snapshot_every=1,
)


def _with(config: TrainConfig, **changes: object) -> TrainConfig:
    return TrainConfig.from_dict({**config.to_dict(), **changes})


def _params(net: AZNet) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in net.named_parameters()}


@pytest.fixture(scope="module")
def old_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("old")
    train(TINY, connect_four_setup, run, game_id=C4)
    return run / "model.pt"


def test_a_run_starts_from_the_models_network(old_model: Path, tmp_path: Path) -> None:
    _, encoder = connect_four_setup(0)
    config = NetConfig.for_encoder(encoder, channels=4, blocks=1, hidden=16)
    old, _ = load_checkpoint(old_model)
    start = init_weights(str(old_model), encoder, config, C4)
    assert all(torch.equal(start[k], v) for k, v in old.state_dict().items())
    # learning so slow that the run's model is its start: the old model's weights, not a fresh net's
    train(_with(TINY, seed=5, init=str(old_model), lr=1e-9), connect_four_setup, tmp_path, game_id=C4)
    new, _ = load_checkpoint(tmp_path / "model.pt")
    before, after = _params(old), _params(new)
    assert all(torch.allclose(before[k], after[k], atol=1e-6) for k in before)
    assert load_payload(tmp_path / "checkpoint.pt", "c")["identity"]["init"] == str(old_model)


def test_an_adaptation_resumed_equals_the_uninterrupted_one(old_model: Path, tmp_path: Path) -> None:
    start = tmp_path / "start.pt"  # a copy of the module's model, so this test may delete it
    start.write_bytes(old_model.read_bytes())
    config = _with(TINY, seed=7, iterations=2, init=str(start))
    train(config, connect_four_setup, tmp_path / "whole", game_id=C4)
    train(_with(config, iterations=1), connect_four_setup, tmp_path / "split", game_id=C4)
    moved = tmp_path / "moved.pt"
    start.rename(moved)  # the start's model is gone by the resume: it is read at the start only
    resumed = _with(config, init=str(moved))
    with pytest.raises(ConfigError, match=r"init: .* there, .* now"):  # init is the run's identity
        train(resumed, connect_four_setup, tmp_path / "split", resume=True, game_id=C4)
    assert not start.exists()
    train(config, connect_four_setup, tmp_path / "split", resume=True, game_id=C4)
    whole = load_payload(tmp_path / "whole" / "checkpoint.pt", "c")["net"]
    split = load_payload(tmp_path / "split" / "checkpoint.pt", "c")["net"]
    assert all(torch.equal(whole[k], split[k]) for k in whole)
    fresh = _with(TINY, seed=7, iterations=2)
    train(fresh, connect_four_setup, tmp_path / "fresh", game_id=C4)
    other = load_payload(tmp_path / "fresh" / "checkpoint.pt", "c")["net"]
    assert not all(torch.equal(whole[k], other[k]) for k in whole)  # the init did change the run


def test_bad_models_are_refused_before_anything_is_written(old_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"

    def refused(match: str, config: TrainConfig, setup: Setup = connect_four_setup,
                game_id: dict[str, Any] = C4) -> None:
        with pytest.raises(ConfigError, match=match):
            train(config, setup, out, game_id=game_id)
        assert not out.exists()

    refused(r"--init .*nope\.pt: no such model file", _with(TINY, init=str(tmp_path / "nope.pt")))
    refused("a model of connect_four, and this run trains gomoku", _with(TINY, init=str(old_model)),
            gomoku_setup, {"game": "gomoku"})
    refused(r"other sizes \(channels=4 there, 8 here\)", _with(TINY, init=str(old_model), channels=8))
    # a model that names no game: the shapes decide (a gomoku board's inputs are not connect four's)
    _, gomoku = gomoku_setup(0)
    torch.manual_seed(0)
    net = AZNet(NetConfig.for_encoder(gomoku, channels=4, blocks=1, hidden=16))
    nameless = save_checkpoint(tmp_path / "gomoku.pt", net)
    refused(r"inputs and heads \(planes, vector, first head, second head\) are \(\(2, 9, 9\)",
            _with(TINY, init=str(nameless)))


class _BadMapping:
    """An encoder whose ``adapt_weights`` hook goes wrong: ``change`` applied to the copied
    weights."""

    def __init__(self, change: Callable[[dict[str, torch.Tensor]], object]) -> None:
        self.change = change

    def adapt_weights(self, weights: dict[str, torch.Tensor], *_: object) -> dict[str, torch.Tensor]:
        out = dict(weights)
        self.change(out)
        return out


def test_a_mapping_that_does_not_fit_the_network_is_refused_naming_the_weight(old_model: Path) -> None:
    _, encoder = connect_four_setup(0)
    config = NetConfig.for_encoder(encoder, channels=4, blocks=1, hidden=16)
    old = load_checkpoint(old_model)[0].state_dict()
    name = next(k for k, v in old.items() if v.dim() == 2)  # a linear layer's weight
    rows, cols = old[name].shape

    def refused(change: Callable[[dict[str, torch.Tensor]], object], match: str) -> None:
        with pytest.raises(ConfigError, match=match):  # not torch's RuntimeError from load_state_dict
            init_weights(str(old_model), _BadMapping(change), config, C4)

    def one_row_short(w: dict[str, torch.Tensor]) -> None:
        w[name] = w[name][1:]

    shapes = rf"\({re.escape(name)} is \({rows - 1}, {cols}\), the network's \({rows}, {cols}\)\)"
    refused(one_row_short, "--init .*: the game's mapping of its weights does not fit this run's network "
                           + shapes)
    refused(lambda w: w.pop(name), rf"\({re.escape(name)} is missing\)")
    refused(lambda w: w.update(extra=torch.zeros(1)), r"\(extra is not the network's\)")


def test_every_layer_size_of_the_network_is_checked() -> None:
    """LAYERS is every NetConfig field but the encoder's, so a new layer size cannot go unchecked."""
    names = [f.name for f in dataclasses.fields(NetConfig)]
    assert set(ENCODER_SIZES) <= set(names) and list(LAYERS) == [n for n in names if n not in ENCODER_SIZES]
    assert {"channels", "blocks", "hidden", "value_skip"} <= set(LAYERS)

