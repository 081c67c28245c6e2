"""A learned agent whose model is not shipped is refused when the game is asked for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def test_an_agent_without_its_model_is_a_422_naming_the_field(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paiju.yuxi.agents.az as az

    monkeypatch.setattr(az, "SHIPPED_MODEL", tmp_path / "not-shipped.pt")
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
