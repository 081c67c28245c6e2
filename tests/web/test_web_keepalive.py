"""Malformed requests on a real uvicorn server: a 4xx JSON body naming the field, and the
same keep-alive connection still answers the next request.

Before the fix, a few of these requests raised inside the app: Starlette answered 500 and
re-raised, and uvicorn then closed the connection, so the client's next request on it was
reset. These tests use one ``http.client`` connection (one socket) per check and verify the
socket's local port did not change, i.e. no silent reconnect happened.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest
from web_helpers import LiveServer

from paiju.web import analysis

# (method, path, body or None, expected status, expected "field" of the error body)
MALFORMED: list[tuple[str, str, Any, int, str | None]] = [
    ("GET", "/api/reports/file?root=0&path=a%00.png", None, 404, "query.path"),  # NUL byte: was a 500
    ("GET", "/api/reports/file?root=0&path=" + "x" * 300 + ".png", None, 404, "query.path"),  # too long
    ("GET", "/api/games/abc%00def", None, 404, "path.game_id"),
    ("GET", "/api/games/0123456789abcdef", None, 404, "path.game_id"),  # well formed, unknown
    ("GET", "/api/records/run%00/1", None, 404, "path.run_id"),
    ("GET", "/api/records/run/99999999999999999999999", None, 422, "path.game_index"),  # > 64 bits
    ("GET", "/api/records?offset=99999999999999999999999", None, 422, "query.offset"),
    ("GET", "/api/games?limit=true", None, 422, "query.limit"),
    ("GET", "/api/agents/%00", None, 404, "path.kind"),
    ("POST", "/api/games/doudizhu", {"seat": True}, 422, "seat"),  # a boolean is not a seat
    ("POST", "/api/games/doudizhu", {"seed": 2**70}, 422, "seed"),
    ("POST", "/api/games/doudizhu", {"seed": "7"}, 422, "seed"),  # nor is a string of digits
    ("POST", "/api/games/doudizhu", {"agents": ["rule\x00", "rule"]}, 422, "agents"),
    ("POST", "/api/games/yuxi", {"decks": ["tide_guild", "no_such_deck"]}, 422, "decks"),
    ("POST", "/api/games/yuxi", {"agent": "nobody"}, 422, "agent"),
    ("POST", "/api/dih/value", {"dists": ["-1:0.5,1:0.5"], "players": True, "rounds": 1, "top": 1}, 422,
     "players"),
    # a score beyond 64 bits: was an OverflowError and a 500
    ("POST", "/api/dih/value", {"dists": ["99999999999999999999999:1"], "players": 2, "rounds": 1, "top": 1},
     422, "dists"),
    ("POST", "/api/dih/value", {"dists": ["-1:0.5,1:0.5"], "players": 2, "rounds": 1, "top": 3}, 422, "top"),
    # a custom pool with such a score: was an IndexError answered as a 404
    ("POST", "/api/dih/select",
     {"pool": "custom", "pool_text": "a: 99999999999999999999999:1", "players": 2, "rounds": 1, "top": 1},
     422, "pool_text"),
    ("POST", "/api/dih/select", {"pool": "file:\x00", "players": 2, "rounds": 1, "top": 1}, 422, "pool"),
    ("POST", "/api/games/doudizhu", b"{not json", 422, "body"),
    ("POST", "/api/games/doudizhu", b"{\"seed\": \"\x80\"}", 400, "body"),  # not UTF-8
    ("POST", "/api/games/doudizhu", [1, 2], 422, "body"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    from paiju.web.app import create_app

    root = tmp_path_factory.mktemp("keepalive")
    with LiveServer(create_app(root / "data", report_dirs=[root / "reports"])) as live:
        yield live


def send(conn: http.client.HTTPConnection, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    headers = {}
    data: bytes | None = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    raw = response.read()
    assert response.getheader("content-type", "").startswith("application/json"), raw[:200]
    assert (response.getheader("connection") or "").lower() != "close"
    return response.status, json.loads(raw)


@pytest.mark.parametrize(("method", "path", "body", "status", "field"), MALFORMED)
def test_malformed_request_then_a_good_one_on_the_same_connection(
    server: LiveServer, method: str, path: str, body: Any, status: int, field: str | None
) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        got, answer = send(conn, method, path, body)
        assert got == status, answer
        assert answer["error"] and answer["field"] == field, answer
        port = conn.sock.getsockname()[1]
        got, health = send(conn, "GET", "/api/health")
        assert got == 200 and health["ok"]
        assert conn.sock.getsockname()[1] == port  # the same socket: the server kept it open
    finally:
        conn.close()


def test_an_unexpected_error_is_a_json_500_and_the_connection_survives(
    server: LiveServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object) -> dict[str, object]:
        raise RuntimeError("a bug in the analysis")

    monkeypatch.setattr(analysis, "dih_value", broken)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        body = {"dists": ["-1:0.5,1:0.5"], "players": 2, "rounds": 1, "top": 2}
        got, answer = send(conn, "POST", "/api/dih/value", body)
        assert got == 500 and answer["type"] == "InternalError" and "RuntimeError" in answer["error"]
        port = conn.sock.getsockname()[1]
        monkeypatch.undo()
        got, value = send(conn, "POST", "/api/dih/value", body)
        assert got == 200 and value["dih"] == pytest.approx(0.5)  # as in the DIH page's browser test
        assert conn.sock.getsockname()[1] == port
    finally:
        conn.close()
    assert any("a bug in the analysis" in (r.exc_text or "") or r.exc_info for r in caplog.records)

