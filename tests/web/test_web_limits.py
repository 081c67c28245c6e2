"""Cost limits of the web API: every cost parameter has a maximum checked where the request
enters (422 naming the field and the limit), the limits are the app's (``create_app(limits=)``)
and in its OpenAPI schema, and a computation over its time limit or without its client stops.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from web_helpers import LiveServer, make_client

from paiju.core import deadline
from paiju.web.limits import WebLimits

DEFAULTS = WebLimits()
VALUE = {"dists": ["-1:0.6,1:0.4"], "players": 10, "rounds": 3, "top": 2}
SELECT = {"pool": "synthetic", "players": 20, "rounds": 3, "top": 2}


def _refused(r: Any, field: str, *fragments: str) -> None:
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["field"] == field, body
    for fragment in fragments:
        assert fragment in body["error"], body


# each cost field one above its maximum (the maxima are WebLimits' documented defaults)
OVER = [
    ("/api/dih/value", {**VALUE, "players": DEFAULTS.dih_players + 1}, "players", DEFAULTS.dih_players),
    ("/api/dih/value", {**VALUE, "rounds": DEFAULTS.dih_rounds + 1}, "rounds", DEFAULTS.dih_rounds),
    ("/api/dih/value", {**VALUE, "top": DEFAULTS.dih_top + 1, "players": 5000}, "top", DEFAULTS.dih_top),
    (
        "/api/dih/value",
        {**VALUE, "dists": ["-1:0.5,1:0.5"] * (DEFAULTS.dih_dists + 1)},
        "dists",
        DEFAULTS.dih_dists,
    ),
    (
        "/api/dih/value",
        {**VALUE, "dists": ["1:1.0" + " " * DEFAULTS.dih_dist_chars]},
        "dists.0",
        DEFAULTS.dih_dist_chars,
    ),
    (
        "/api/dih/select",
        {**SELECT, "players": DEFAULTS.select_players + 1},
        "players",
        DEFAULTS.select_players,
    ),
    ("/api/dih/select", {**SELECT, "rounds": DEFAULTS.select_rounds + 1}, "rounds", DEFAULTS.select_rounds),
    ("/api/dih/select", {**SELECT, "top": DEFAULTS.select_top + 1}, "top", DEFAULTS.select_top),
    ("/api/dih/select", {**SELECT, "beam": DEFAULTS.select_beam + 1}, "beam", DEFAULTS.select_beam),
    (
        "/api/dih/select",
        {**SELECT, "pool": "custom", "pool_text": "x" * (DEFAULTS.pool_text_chars + 1)},
        "pool_text",
        DEFAULTS.pool_text_chars,
    ),
    ("/api/dih/select", {**SELECT, "min_plays": DEFAULTS.min_plays + 1}, "min_plays", DEFAULTS.min_plays),
]


@pytest.mark.parametrize(("url", "body", "field", "limit"), OVER, ids=[f"{u[9:]}-{f}" for u, _, f, _ in OVER])
def test_each_cost_parameter_over_its_maximum_is_a_422_naming_it(
    client: Any, url: str, body: dict[str, Any], field: str, limit: int
) -> None:
    _refused(client.post(url, json=body), field, f"{limit}")


def test_the_maxima_themselves_are_accepted(client: Any) -> None:
    r = client.post("/api/dih/value", json={**VALUE, "players": DEFAULTS.dih_players, "rounds": 50})
    assert r.status_code == 200, r.text
    top = {**SELECT, "beam": DEFAULTS.select_beam, "top": DEFAULTS.select_top}
    r = client.post("/api/dih/select", json=top)
    assert r.status_code == 200, r.text


def test_limits_are_the_apps_own_and_in_its_schema(app_factory: Any) -> None:
    low = WebLimits(select_rounds=3, dih_top=5, pool_text_chars=500)
    with make_client(app_factory(limits=low)) as c:
        _refused(c.post("/api/dih/select", json={**SELECT, "rounds": 4}), "rounds", "3")
        _refused(c.post("/api/dih/value", json={**VALUE, "top": 6}), "top", "5")
        assert c.post("/api/dih/select", json={**SELECT, "rounds": 3}).status_code == 200
        schemas = c.get("/openapi.json").json()["components"]["schemas"]
        assert schemas["DihSelectBody"]["properties"]["rounds"]["maximum"] == 3
        assert schemas["DihValueBody"]["properties"]["top"]["maximum"] == 5
        assert c.get("/api/health").json()["limits"]["select_rounds"] == 3
    with make_client(app_factory()) as c:  # another app keeps the defaults
        schemas = c.get("/openapi.json").json()["components"]["schemas"]
        assert schemas["DihSelectBody"]["properties"]["rounds"]["maximum"] == DEFAULTS.select_rounds
    with pytest.raises(ValueError, match="select_rounds=0"):
        WebLimits(select_rounds=0)


def test_content_dependent_costs_are_checked_before_the_work(app_factory: Any) -> None:
    low = WebLimits(dih_total_cells=100, select_pool_deals=3, select_score_span=4)
    with make_client(app_factory(limits=low)) as c:
        # 3 rounds of a law spanning -20..20: a total over 1 + 3 * 40 = 121 points
        wide = {**VALUE, "dists": ["-20:0.5,20:0.5"], "rounds": 3}
        _refused(c.post("/api/dih/value", json=wide), "dists", "121 points", "maximum 100")
        assert c.post("/api/dih/value", json={**wide, "rounds": 2}).status_code == 200  # 81 points
        four = "\n".join(f"d{i}: -1:0.5,1:0.5" for i in range(4))
        body = {**SELECT, "pool": "custom", "pool_text": four, "rounds": 2, "top": 1}
        _refused(c.post("/api/dih/select", json=body), "pool_text", "4 deals", "maximum 3")
        spread = "a: -3:0.5,3:0.5\nb: -1:0.5,1:0.5"
        _refused(c.post("/api/dih/select", json={**body, "pool_text": spread}), "pool_text", "span 6")
        narrow = {**body, "pool_text": "a: -2:0.5,2:0.5\nb: -1:1"}
        assert c.post("/api/dih/select", json=narrow).status_code == 200
        _refused(c.post("/api/dih/select", json={**SELECT, "pool": "synthetic"}), "pool", "300 deals")


@pytest.mark.parametrize(
    ("kind", "body", "fragment"),
    [
        ("doudizhu", {"agents": ["search:budget=999999999999", "greedy"]}, "above the maximum 5000"),
        ("doudizhu", {"agents": ["greedy", "search:width=65"]}, "width=65 is above the maximum 64"),
        ("mahjong", {"agents": ["greedy", "expectimax:depth=4", "greedy"]}, "depth=4 is above the maximum 3"),
        ("yuxi", {"agent": "mcts:simulations=20001"}, "simulations=20001 is above the maximum 20000"),
        ("yuxi", {"agent": "mcts:seconds=61"}, "seconds=61 is above the maximum 60"),
        # a request may not change the server process's torch threads nor load a file by path
        ("doudizhu", {"agents": ["greedy", "policy:threads=8"]}, "threads is the server's setting"),
        ("doudizhu", {"agents": ["greedy", "policy:model=/etc/passwd"]}, "file paths are refused"),
        ("doudizhu", {"agents": ["greedy", "policy:model=mine.pt"]}, "file paths are refused"),
    ],
)
def test_agent_spec_maxima_are_checked_where_the_game_is_created(
    client: Any, kind: str, body: dict[str, Any], fragment: str
) -> None:
    r = client.post(f"/api/games/{kind}", json=body)
    assert r.status_code == 422, r.text
    assert fragment in r.json()["error"] and r.json()["field"] in ("agents", "agent")
    assert client.get("/api/games").json()["games"] == []  # nothing was stored


def test_agents_endpoint_lists_every_parameter_range(client: Any) -> None:
    from paiju.core.registry import load_agents

    for kind in ("doudizhu", "mahjong", "yuxi"):
        listed = {a["name"]: a for a in client.get(f"/api/agents/{kind}").json()["agents"]}
        registry = load_agents(kind)
        for name in registry.names():
            assert listed[name]["limits"] == {k: list(v) for k, v in registry.limits(name).items()}
            assert listed[name]["choices"] == {k: list(v) for k, v in registry.choices(name).items()}
    search = {a["name"]: a for a in client.get("/api/agents/doudizhu").json()["agents"]}["search"]
    assert search["limits"]["budget"] == [1, 5000]
    assert search["choices"]["wings"] == ["game", "douzero", "rlcard"]


# ---- time limits and cancellation really stop the work ---------------------------------------------
class _SpinAgent:
    """A cooperative search that never ends by itself: it stops only when its token says so."""

    name = "spin"

    def __init__(self, seed: Any = None) -> None:
        pass

    def act(self, observation: Any, legal: Any) -> Any:
        while True:
            deadline.check()
            time.sleep(0.001)


def _eventually(condition: Callable[[], bool], seconds: float = 15.0) -> bool:
    """Poll ``condition`` (generous bound: the machine may be loaded)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_an_ai_over_its_time_limit_stops_and_frees_its_worker(app_factory: Any, extra_agent: Any) -> None:
    extra_agent("doudizhu", "test-spin", _SpinAgent, {}, "searches until stopped")
    with make_client(app_factory(ai_time_limit=0.3, ai_workers=1)) as c:
        body = {"seat": 1, "agents": ["test-spin", "greedy"], "seed": 3}
        view = c.post("/api/games/doudizhu", json=body).json()
        assert "time limit 0.3s: greedy moved instead" in view["transcript"][0]["note"]
        # the spinning search was stopped, not abandoned: its only worker is idle again
        idle = {"workers": 1, "busy": 0, "queued": 0}
        assert _eventually(lambda: c.get("/api/health").json()["ai"] == idle)
        # two rollouts: a few ms, far inside the 0.3 s limit even on a loaded machine
        body = {"seat": 1, "agents": ["search:budget=2,width=2", "greedy"], "seed": 4}
        r = c.post("/api/games/doudizhu", json=body)
        assert r.status_code == 201 and r.json()["transcript"][0]["note"] == ""  # the real agent moved


def test_an_analysis_over_its_time_limit_is_a_503_and_frees_its_slot(
    app_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paiju.web import analysis

    def spin(*args: Any) -> Any:
        while True:
            deadline.check()
            time.sleep(0.001)

    monkeypatch.setattr(analysis, "select_deals", spin)
    with make_client(app_factory(limits=WebLimits(analysis_time_limit_s=0.3, analysis_workers=1))) as c:
        r = c.post("/api/dih/select", json=SELECT)
        assert r.status_code == 503 and r.json()["type"] == "DeadlineExceeded", r.text
        assert "time limit of 0.3 s" in r.json()["error"] and r.headers["retry-after"]
        assert c.get("/api/health").json()["analysis"] == {"workers": 1, "busy": 0, "queued": 0}


def test_a_client_that_disconnects_cancels_its_analysis(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    from paiju.web import analysis
    from paiju.web.app import create_app

    stopped: list[str] = []

    def spin(*args: Any) -> Any:
        try:
            while True:
                deadline.check()
                time.sleep(0.001)
        except Exception as err:
            stopped.append(str(err))
            raise

    monkeypatch.setattr(analysis, "select_deals", spin)
    app = create_app(tmp_path / "data", report_dirs=[], limits=WebLimits(analysis_time_limit_s=600))
    with LiveServer(app) as server:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{server.url}/api/dih/select", json=SELECT, timeout=1.0)
        assert _eventually(lambda: bool(stopped))
        assert "its client disconnected" in stopped[0]
        health = httpx.get(f"{server.url}/api/health", timeout=10).json()
        assert health["analysis"]["busy"] == 0


def test_one_request_has_an_ai_time_budget_for_all_its_decisions(extra_agent: Any) -> None:
    from paiju.web.sessions import AIRunner, DouDizhuSession

    extra_agent("doudizhu", "test-spin", _SpinAgent, {}, "searches until stopped")
    runner = AIRunner(time_limit_s=0.3, workers=2, request_budget_s=0.4)
    try:
        # the human holds seat 2: both AI seats move before the human's first turn
        game = DouDizhuSession("t", {"seat": 2, "agents": ["test-spin", "test-spin", None]}, 8)
        assert game.run_ai(runner) == 2
        first, second = (e.note for e in game.transcript)
        assert first == "time limit 0.3s: greedy moved instead"
        # only ~0.1 s of the request's budget was left for the second seat, then none
        assert second == "this request's AI time budget of 0.4s is used up: greedy moved instead"
        assert _eventually(lambda: runner.status() == {"workers": 2, "busy": 0, "queued": 0})
    finally:
        runner.shutdown()
    assert AIRunner(time_limit_s=2.0).request_budget_s == 6.0
