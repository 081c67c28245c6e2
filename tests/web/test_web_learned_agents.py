"""A learned agent whose model is not shipped is refused when the game is asked for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def test_an_agent_without_its_model_is_a_422_naming_the_field(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paiju.yuxi.agents.az as az

    monkeypatch.setattr(az, "MODELS", tmp_path / "no-models")
    r = client.post("/api/games/yuxi", json={"agent": "az", "seat": 0})
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == "agent" and "no shipped model" in body["error"]
    assert str(tmp_path) not in body["error"]  # the server's folders are not shown
    # a client may not point the server at a file of its choosing either
    r = client.post("/api/games/yuxi", json={"agent": f"az:model={tmp_path / 'm.pt'}", "seat": 0})
    assert r.status_code == 422 and r.json()["field"] == "agent"
    # the other agents still start games
    assert client.post("/api/games/yuxi", json={"agent": "greedy", "seat": 0}).status_code == 201


def test_az_on_a_board_without_a_shipped_model_is_a_422_before_the_game_starts(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    import paiju.yuxi.agents.az as az
    from paiju.algorithms.alphazero import AZNet, NetConfig
    from paiju.algorithms.alphazero.checkpoint import save_checkpoint
    from paiju.yuxi.cards import table_fingerprint
    from paiju.yuxi.encoding import YuxiEncoder
    from paiju.yuxi.game import YuxiGame

    game = YuxiGame(board="3x3")
    torch.manual_seed(0)
    net = AZNet(NetConfig.for_encoder(YuxiEncoder(game), channels=8, blocks=1, vector_hidden=32, hidden=64,
                                      second_hidden=16, value_hidden=16))
    (tmp_path / "models").mkdir()
    save_checkpoint(tmp_path / "models" / "az-3x3.pt", net,
                    {"card_table": table_fingerprint(game.table), "boards": ["3x3"]})
    monkeypatch.setattr(az, "MODELS", tmp_path / "models")
    r = client.post("/api/games/yuxi", json={"agent": "az:simulations=8", "seat": 0, "board": "4x4"})
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == "agent" and "no shipped model for board 4x4 (shipped: 3x3)" in body["error"]
    assert client.post("/api/games/yuxi", json={"agent": "az:simulations=8", "seat": 0, "board": "3x3"}
                       ).status_code == 201
