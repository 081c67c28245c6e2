"""Checkpoints and the yuxi az agent: round trip, clear errors, legal play, the swap by value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from paiju.algorithms.alphazero import AZNet, NetConfig, NetworkEvaluator
from paiju.algorithms.alphazero.checkpoint import load_checkpoint, save_checkpoint
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.yuxi.agents.az import YuxiAZAgent
from paiju.yuxi.cards import table_fingerprint
from paiju.yuxi.encoding import YuxiEncoder
from paiju.yuxi.game import YuxiGame
from paiju.yuxi.phases import PH_SWAP

SMALL = {
    "channels": 8, "blocks": 1, "vector_hidden": 32, "hidden": 64, "second_hidden": 16, "value_hidden": 16
}


def _model(tmp_path: Path, game: YuxiGame, table: str | None = None) -> tuple[Path, AZNet]:
    enc = YuxiEncoder(game)
    torch.manual_seed(0)
    net = AZNet(NetConfig.for_encoder(enc, **SMALL))
    path = save_checkpoint(tmp_path / "m.pt", net, {"card_table": table or table_fingerprint(game.table)})
    return path, net


def test_checkpoint_round_trip(tmp_path: Path) -> None:
    game = YuxiGame(board="3x3")
    path, net = _model(tmp_path, game)
    loaded, meta = load_checkpoint(path)
    assert meta["card_table"] == table_fingerprint(game.table)
    assert loaded.config == net.config
    for a, b in zip(net.state_dict().values(), loaded.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert path.stat().st_size < 5_000_000


def test_missing_broken_or_mismatched_models_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paiju.yuxi.agents.az as az

    monkeypatch.setattr(az, "MODELS", tmp_path / "no-models")
    with pytest.raises(ConfigError, match="no shipped model"):
        YuxiAZAgent(model="")
    with pytest.raises(ConfigError, match="does not exist"):
        YuxiAZAgent(model=str(tmp_path / "none.pt"))
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CorruptRecordError, match="not a readable checkpoint"):
        YuxiAZAgent(model=str(tmp_path / "junk.pt"))
    game = YuxiGame(board="3x3")
    path, _ = _model(tmp_path, game, table="0123456789abcdef")
    agent = YuxiAZAgent(seed=0, model=str(path))
    s = game.new_initial_state()
    rng = np.random.default_rng(0)
    while s.is_chance_node() or len(s.legal_actions()) < 2:
        s.apply(s.sample_chance(rng) if s.is_chance_node() else s.legal_actions()[0])
    with pytest.raises(ConfigError, match="trained on card table 0123456789abcdef"):
        agent.act(s.observation(s.current_player()), s.legal_actions())


def _first_decision(game: YuxiGame) -> Any:
    s = game.new_initial_state()
    rng = np.random.default_rng(0)
    while s.is_chance_node() or len(s.legal_actions()) < 2:
        s.apply(s.sample_chance(rng) if s.is_chance_node() else s.legal_actions()[0])
    return s


def test_without_model_the_agent_plays_the_shipped_model_of_the_rooms_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paiju.yuxi.agents.az as az

    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setattr(az, "MODELS", models)
    game = YuxiGame(board="3x3", die_bonus=False)
    enc = YuxiEncoder(game)
    torch.manual_seed(0)
    net = AZNet(NetConfig.for_encoder(enc, **SMALL))
    meta = {"card_table": table_fingerprint(game.table), "boards": ["3x3"]}
    save_checkpoint(models / "az-3x3.pt", net, meta)
    assert az.shipped_boards() == ["3x3"]
    agent = YuxiAZAgent(seed=0, simulations=8)
    s = _first_decision(game)
    assert agent.act(s.observation(s.current_player()), s.legal_actions()) in s.legal_actions()
    agent.check_game(game)
    other = YuxiGame(board="6x4", die_bonus=False)
    with pytest.raises(ConfigError, match=r"no shipped model for board 6x4 \(shipped: 3x3\)"):
        agent.check_game(other)
    s = _first_decision(other)
    with pytest.raises(ConfigError, match="no shipped model for board 6x4"):
        agent.act(s.observation(s.current_player()), s.legal_actions())
    # a model given by path is refused on a board it was not trained on
    given = YuxiAZAgent(seed=0, model=str(models / "az-3x3.pt"), simulations=8)
    with pytest.raises(ConfigError, match="trained on boards 3x3, not on this room's 6x4"):
        given.check_game(other)


@pytest.mark.parametrize("mix", [0.0, 0.5])
def test_az_agent_plays_legal_moves_and_swaps_by_the_value_head(tmp_path: Path, mix: float) -> None:
    """Also with leaves mixed with the heuristic value (``mix``): the swap stays the network's."""
    game = YuxiGame(board="3x3", die_bonus=False)
    path, net = _model(tmp_path, game)
    agents = [YuxiAZAgent(seed=1, model=str(path), simulations=24, batch=8, mix=mix) for _ in range(2)]
    plain = NetworkEvaluator(net, YuxiEncoder(game), cache_size=0)
    rng = np.random.default_rng(2)
    s = game.new_initial_state()
    swaps = 0
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply(s.sample_chance(rng))
            continue
        seat = s.current_player()
        legal = s.legal_actions()
        action = agents[seat].act(s.observation(seat), legal)
        assert action in legal
        if s.phase == PH_SWAP and len(legal) > 1:
            swaps += 1
            values = []
            for a in legal:
                child = s.clone()
                child.apply(a)
                values.append(plain.evaluate(child)[seat])
            assert action == legal[int(np.argmax(values))]
        s.apply(action)
    assert swaps >= 2
    assert agents[0].name == ("az(simulations=24,mix=0.5)" if mix else "az(simulations=24)")
    with pytest.raises(ConfigError, match=r"mix=1\.5"):
        YuxiAZAgent(model=str(path), mix=1.5)


def test_the_shipped_models_fit_the_shipped_card_table_and_their_board() -> None:
    """Every shipped yuxi model was trained on today's card table and on its own board (a
    changed card file fails here until the models are retrained), carries the command that
    made it, and plays a legal move as the plain ``az`` agent."""
    import paiju.yuxi.agents.az as az

    boards = az.shipped_boards()
    assert boards  # at least one model is shipped
    for board in boards:
        _net, meta = load_checkpoint(az.shipped_model(board))
        game = YuxiGame(board=board, die_bonus=False)
        assert meta["card_table"] == table_fingerprint(game.table)
        assert meta["boards"] == [board] and "train-az" in meta["command"]
        agent = YuxiAZAgent(seed=0, simulations=8)
        s = _first_decision(game)
        assert agent.act(s.observation(s.current_player()), s.legal_actions()) in s.legal_actions()
