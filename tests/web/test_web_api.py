"""The web API through FastAPI's test client: games, validation, isolation, restarts, analyses.

Expectations come from outside the web layer: the Dou Dizhu string API (``legal_moves``),
the mahjong notation API (``shanten``), the engines' own replay of the stored record, the
DIH library on hand-checked cases, and hand-made report and record folders.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest
from web_helpers import make_client

from paiju.core.agents import UniformRandomAgent
from paiju.doudizhu import legal_moves
from paiju.doudizhu.cards import Deal
from paiju.doudizhu.game import GameRecord
from paiju.mahjong import shanten


# ---- helpers ------------------------------------------------------------------------------------
def ddz_move_body(item: dict[str, Any], ply: int) -> dict[str, Any]:
    body: dict[str, Any] = {"move": item["move"], "ply": ply}
    if item["type"] not in ("pass", "bid"):
        body["type"] = item["type"]
    return body


def play_ddz_to_end(client: Any, view: dict[str, Any], check: bool = True) -> dict[str, Any]:
    """Play the human seat (always the first listed move) to the end, checking every view."""
    while not view["over"]:
        assert view["your_turn"]
        if check:
            beat = (
                view["to_beat"]["cards"] if view["to_beat"] and view["trick_owner"] != view["seat"] else None
            )
            offered = {m["cards"] for m in view["legal"] if m["type"] != "pass"}
            assert offered == set(legal_moves(view["hand"], beat))
            assert any(m["type"] == "pass" for m in view["legal"]) == (beat is not None)
        r = client.post(f"/api/games/{view['id']}/move", json=ddz_move_body(view["legal"][0], view["ply"]))
        assert r.status_code == 200, r.text
        view = r.json()
    return view


def new_ddz(client: Any, **body: Any) -> dict[str, Any]:
    body = {"seat": 1, "agents": ["greedy", "greedy"], "seed": 11, **body}
    r = client.post("/api/games/doudizhu", json=body)
    assert r.status_code == 201, r.text
    return r.json()


# ---- Dou Dizhu ----------------------------------------------------------------------------------
def test_doudizhu_game_to_the_end_matches_the_engine_replay(client: Any) -> None:
    view = new_ddz(client, seat=1, scoring="casual")
    assert view["roles"] == ["landlord", "farmer 1", "farmer 2"]
    assert view["hand_sizes"][1] == 17 and len(view["cards"]) == 17
    # the landlord (AI) opened: its move is in the transcript and its 20 cards are now fewer
    assert view["transcript"][0]["seat"] == 0 and view["hand_sizes"][0] < 20
    final = play_ddz_to_end(client, view)
    result = final["result"]
    assert math.isclose(sum(result["returns"]), 0.0, abs_tol=1e-9)
    assert result["rule"] == "casual" and result["returns"] == result["under_each_rule"]["casual"]
    # the finished game was recorded; replaying the engine record gives the same returns
    listing = client.get("/api/records", params={"game": "doudizhu"}).json()
    assert listing["total"] == 1 and listing["by_game"] == {"doudizhu": 1}
    row = listing["games"][0]
    assert row["returns"] == result["returns"] and row["agents"] == ["greedy", "human", "greedy"]
    detail = client.get(f"/api/records/{row['run_id']}/{row['game_index']}").json()
    plays = [m for m in detail["moves"] if m["player"] >= 0]
    assert [m["text"] for m in plays] == [e["text"] for e in final["transcript"]]
    assert detail["frames"][0]["hands"] == [str(h) for h in Deal.parse(result["deal"]).hands]
    assert len(detail["frames"]) == len(plays) + 1
    assert detail["frames"][-1]["hands"] == result["hands_left"]


def test_recorded_doudizhu_game_replays_in_the_engine(client: Any, app_factory: Any, tmp_path: Path) -> None:
    view = play_ddz_to_end(client, new_ddz(client, seat=0, seed=3), check=False)
    from paiju.core.records import read_records

    table = read_records(tmp_path / "data" / "records" / "web").to_pylist()
    assert len(table) == 1
    record = GameRecord.from_dict(json.loads(table[0]["extra"])["record"])
    state = record.replay()
    assert state.is_terminal() and state.returns() == view["result"]["returns"]
    assert str(state.deal) == view["result"]["deal"]


def test_illegal_and_malformed_moves_leave_the_game_unchanged(client: Any) -> None:
    view = new_ddz(client, seat=0, seed=5)  # the human is the landlord: free lead
    before = client.get(f"/api/games/{view['id']}").json()
    cards = before["cards"]
    # one more card of a rank than the hand holds: a well-formed move the seat cannot play
    rank = next(r for r in "3456789TJQKA2" if 0 < cards.count(r) < 4)
    too_many = rank * (cards.count(rank) + 1)
    cases = [
        ({"move": too_many}, 409),
        ({"move": "34"}, 422),  # no move type fits
        ({"move": "3z"}, 422),  # bad notation
        ({"move": "pass"}, 409),  # cannot pass on a free lead
        ({"move": ""}, 422),
        ({"action": 3}, 422),  # Dou Dizhu moves are notation
        ({"move": "33", "type": "airplane"}, 422),
    ]
    for body, status in cases:
        r = client.post(f"/api/games/{view['id']}/move", json=body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["error"]
        after = client.get(f"/api/games/{view['id']}").json()
        assert after == before
    stale = client.post(
        f"/api/games/{view['id']}/move", json={**ddz_move_body(before["legal"][0], 0), "ply": 7}
    )
    assert stale.status_code == 409 and "stale" in stale.json()["error"]
    assert client.get(f"/api/games/{view['id']}").json() == before


def test_move_after_the_end_is_refused(client: Any) -> None:
    final = play_ddz_to_end(client, new_ddz(client, seed=8), check=False)
    r = client.post(f"/api/games/{final['id']}/move", json={"move": "pass"})
    assert r.status_code == 409 and "over" in r.json()["error"]


def test_request_validation_names_the_problem(client: Any) -> None:
    cases = [
        ({"seat": 3}, "seat"),
        ({"seat": -1}, "seat"),
        ({"agents": ["rule"]}, "agents"),
        ({"scoring": "money"}, "scoring"),
        ({"seed": -5}, "seed"),
        ({"colour": "red"}, "colour"),
    ]
    for body, field in cases:
        r = client.post("/api/games/doudizhu", json=body)
        assert r.status_code == 422 and field in r.json()["error"], (body, r.text)
    r = client.post("/api/games/doudizhu", json={"agents": ["rule", "search:budget=x"]})
    assert r.status_code == 422 and "budget" in r.json()["error"]
    r = client.post("/api/games/doudizhu", json={"agents": ["rule", "nobody"]})
    assert r.status_code == 422 and "nobody" in r.json()["error"]
    r = client.post("/api/games/yuxi", json={"decks": ["tide_guild", "no_such_deck"]})
    assert r.status_code == 422 and "no_such_deck" in r.json()["error"]
    r = client.post("/api/games/doudizhu", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert client.get("/api/games/0123456789abcdef").status_code == 404
    assert client.get("/api/games/..%2F..%2Fetc").status_code == 404
    assert client.get("/api/agents/chess").status_code == 404
    assert client.get("/api/games").json() == {"games": []}  # nothing was created by the refused requests


def test_games_are_isolated_per_session(app_factory: Any) -> None:
    app = app_factory()
    with make_client(app) as alice, make_client(app) as bob:
        game = new_ddz(alice)
        assert alice.cookies.get("paiju_session") != bob.cookies.get("paiju_session")
        assert bob.get(f"/api/games/{game['id']}").status_code == 404
        r = bob.post(f"/api/games/{game['id']}/move", json={"move": "pass"})
        assert r.status_code == 404
        assert bob.get("/api/games").json()["games"] == []
        assert [g["id"] for g in alice.get("/api/games").json()["games"]] == [game["id"]]


def test_unfinished_game_survives_a_restart(app_factory: Any) -> None:
    with make_client(app_factory()) as first:
        view = new_ddz(first, seat=2, seed=21)
        r = first.post(f"/api/games/{view['id']}/move", json=ddz_move_body(view["legal"][0], view["ply"]))
        before = r.json()
        cookie = first.cookies.get("paiju_session")
    # a new app over the same data folder (the server restarted): replayed from SQLite
    with make_client(app_factory()) as second:
        second.cookies.set("paiju_session", cookie)
        after = second.get(f"/api/games/{view['id']}").json()
        assert after == before
        final = play_ddz_to_end(second, after)
        assert final["over"]


class _SlowAgent:
    """An agent that sleeps (no CPU) before moving: stands in for an AI that thinks too long."""

    def __init__(self, seconds: float, seed: Any = None) -> None:
        self.name = "slow"
        self.seconds = seconds
        self._inner = UniformRandomAgent(seed)

    def act(self, observation: Any, legal: Any) -> Any:
        time.sleep(self.seconds)
        return self._inner.act(observation, legal)


@pytest.fixture
def slow_agent(extra_agent: Any) -> None:
    extra_agent(
        "doudizhu",
        "test-slow",
        lambda seed=None, seconds=1.0: _SlowAgent(seconds, seed),
        {"seconds": 1.0},
        "sleeps, then random",
        limits={"seconds": (0.0, 60.0)},
    )


def test_ai_over_its_time_limit_is_replaced_by_the_fallback(app_factory: Any, slow_agent: None) -> None:
    with make_client(app_factory(ai_time_limit=0.05)) as c:
        start = time.monotonic()
        view = new_ddz(c, seat=1, agents=["test-slow:seconds=3.0", "greedy"])
        assert time.monotonic() - start < 2.5  # did not wait for the slow agent
        opening = view["transcript"][0]
        assert opening["seat"] == 0 and "time limit" in opening["note"] and "greedy" in opening["note"]
        final = play_ddz_to_end(c, view, check=False)
        assert final["over"]


class _BrokenAgent:
    name = "broken"

    def __init__(self, seed: Any = None) -> None:
        pass

    def act(self, observation: Any, legal: Any) -> Any:
        raise RuntimeError("model file missing")


def test_failing_ai_is_replaced_by_the_fallback(client: Any, extra_agent: Any) -> None:
    extra_agent("doudizhu", "test-broken", _BrokenAgent, {}, "always fails")
    view = new_ddz(client, seat=1, agents=["test-broken", "greedy"])
    opening = view["transcript"][0]
    assert "RuntimeError: model file missing" in opening["note"] and "greedy" in opening["note"]
    assert play_ddz_to_end(client, view, check=False)["over"]


def test_slow_ai_does_not_block_other_requests(live_server: Any, slow_agent: None) -> None:
    import asyncio

    import httpx

    async def scenario() -> tuple[float, float]:
        async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as c:
            create = asyncio.create_task(
                c.post("/api/games/doudizhu", json={"seat": 1, "agents": ["test-slow:seconds=1.0", "greedy"]})
            )
            await asyncio.sleep(0.2)
            t0 = time.monotonic()
            health = await c.get("/api/health")
            health_time = time.monotonic() - t0
            assert health.status_code == 200
            r = await create
            assert r.status_code == 201
            return health_time, time.monotonic() - t0

    health_time, create_rest = asyncio.run(scenario())
    assert health_time < create_rest  # answered while the slow AI was still thinking


# ---- mahjong ------------------------------------------------------------------------------------
def test_mahjong_hand_to_the_end_with_hints_and_breakdown(client: Any) -> None:
    r = client.post("/api/games/mahjong", json={"seat": 0, "agents": ["greedy"] * 3, "seed": 3})
    assert r.status_code == 201, r.text
    view = r.json()
    steps = 0
    while not view["over"]:
        hint = view["hint"]
        notation = "".join(view["hand"])  # tile names like '5m' concatenate into valid notation
        assert hint["shanten"] == shanten(notation)
        kinds = {a["kind"] for a in view["legal"]}
        if "win" in kinds:
            choice = next(a for a in view["legal"] if a["kind"] == "win")
        elif "discard" in kinds:
            best = hint["discards"][0]["tile"]
            choice = next(a for a in view["legal"] if a["label"] == f"discard {best}")
        else:
            choice = next(a for a in view["legal"] if a["kind"] == "pass")
        r = client.post(
            f"/api/games/{view['id']}/move", json={"action": choice["action"], "ply": view["ply"]}
        )
        assert r.status_code == 200, r.text
        view = r.json()
        steps += 1
    result = view["result"]
    assert sum(result["returns"]) == 0
    if not result["exhaustive"]:
        for win in result["wins"]:
            assert win["tai"] == sum(p["tai"] for p in win["patterns"])
            for pay in win["payments"]:
                assert pay["tai"] == sum(line["tai"] for line in pay["lines"])
                assert pay["amount"] == 1000 + 500 * pay["tai"]  # base + tai x per-tai (defaults)
        received = [0] * 4
        for win in result["wins"]:
            for pay in win["payments"]:
                received[win["winner"]] += pay["amount"]
                received[pay["payer"]] -= pay["amount"]
        assert result["deltas"] == received
    # an illegal action id is a 409, a malformed one a 422; the game is unchanged
    again = client.post(f"/api/games/{view['id']}/move", json={"action": 5})
    assert again.status_code == 409


def test_mahjong_learned_agents_play_by_their_listed_names(client: Any) -> None:
    # the shipped models make the learned agents playable as the agent list names them
    listed = {a["name"] for a in client.get("/api/agents/mahjong").json()["agents"]}
    learned = ["supervised", "ddqn", "expectimax-ddqn"]
    assert set(learned) | {"dqn", "expectimax-dqn"} <= listed
    view = client.post("/api/games/mahjong", json={"seat": 0, "agents": learned, "seed": 4}).json()
    while not view["over"]:
        choice = next((a for a in view["legal"] if a["kind"] in ("win", "pass")), view["legal"][0])
        move = {"action": choice["action"], "ply": view["ply"]}
        r = client.post(f"/api/games/{view['id']}/move", json=move)
        assert r.status_code == 200, r.text
        view = r.json()
    assert view["agents"][1:] == learned and sum(view["result"]["returns"]) == 0


def test_mahjong_illegal_discard_is_409_and_names_the_move(client: Any) -> None:
    view = client.post("/api/games/mahjong", json={"seat": 0, "agents": ["greedy"] * 3, "seed": 9}).json()
    assert view["your_turn"] and view["phase"] == "turn"  # the dealer starts
    held = set(view["hand"])
    absent = next(
        t for t in ("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1z", "2z") if t not in held
    )
    r = client.post(f"/api/games/{view['id']}/move", json={"move": absent})
    assert r.status_code == 409 and absent in r.json()["error"]
    r = client.post(f"/api/games/{view['id']}/move", json={"move": "discard 0x"})
    assert r.status_code == 422
    r = client.post(f"/api/games/{view['id']}/move", json={"action": 100001})
    assert r.status_code == 422 and "action" in r.json()["error"]
    assert client.get(f"/api/games/{view['id']}").json() == view


# ---- yuxi ---------------------------------------------------------------------------------------
def test_yuxi_game_to_the_end_hides_the_ai_hand(client: Any) -> None:
    r = client.post(
        "/api/games/yuxi",
        json={"seat": 1, "agent": "greedy", "board": "3x3", "decks": ["storm_iron", "tide_guild"], "seed": 4},
    )
    assert r.status_code == 201, r.text
    view = r.json()
    assert view["board"] == {"name": "3x3", "width": 3, "height": 3}
    assert view["decks"] == ["tide_guild", "storm_iron"]  # seat order: the AI (seat 0) first
    assert len(view["cells"]) == 9
    game = client.app.state.web.store.get(client.cookies.get("paiju_session"), view["id"])
    while not view["over"]:
        engine_hand = game.state.hand[0]
        voids = [c for c in engine_hand if game.game.table.cards[c].is_void]
        assert view["opponent_hidden"] == len(engine_hand) - len(voids)
        assert not any(k.startswith("opponent_hand") for k in view)
        assert sorted(c["id"] for c in view["hand"]) == sorted(game.state.hand[1])
        plays = [a for a in view["legal"] if a["kind"] == "play"]
        choice = plays[0] if plays else view["legal"][0]
        r = client.post(
            f"/api/games/{view['id']}/move", json={"action": choice["action"], "ply": view["ply"]}
        )
        assert r.status_code == 200, r.text
        view = r.json()
    result = view["result"]
    a, b = result["final_scores"]
    assert result["returns"] == ([1.0, -1.0] if a > b else [-1.0, 1.0] if b > a else [0.0, 0.0])
    assert a - result["die_bonus"] == view["scores"][0] and b == view["scores"][1]


# ---- analyses -----------------------------------------------------------------------------------
def test_dih_value_matches_hand_checked_cases(client: Any) -> None:
    # 2 players, 1 round, top 2: DIH = P(two i.i.d. scores differ) = 1 - sum p^2
    r = client.post("/api/dih/value", json={"dists": ["-1:0.5,1:0.5"], "players": 2, "rounds": 1, "top": 2})
    assert r.status_code == 200 and math.isclose(r.json()["dih"], 0.5)
    r = client.post(
        "/api/dih/value", json={"dists": ["-1:0.2,1:0.3,2:0.5"], "players": 2, "rounds": 1, "top": 2}
    )
    assert math.isclose(r.json()["dih"], 1 - (0.04 + 0.09 + 0.25))
    # one law per round: the total of -1/+1 then 0/+10 has 4 equally likely values
    r = client.post(
        "/api/dih/value",
        json={"dists": ["-1:0.5,1:0.5", "0:0.5,10:0.5"], "players": 2, "rounds": 2, "top": 2},
    )
    assert math.isclose(r.json()["dih"], 0.75)
    bad = client.post("/api/dih/value", json={"dists": ["-1:0.5,1:0.6"], "players": 2, "rounds": 1, "top": 2})
    assert bad.status_code == 422 and "sum" in bad.json()["error"]
    bad = client.post("/api/dih/value", json={"dists": ["1:1"], "players": 2, "rounds": 1, "top": 3})
    assert bad.status_code == 422


def test_dih_select_from_a_typed_pool_ranks_by_own_dih(client: Any) -> None:
    from paiju.tournament.dih import dih
    from paiju.tournament.distributions import ScoreDistribution

    laws = {
        "flat": "-1:0.5,1:0.5",
        "wide": "-3:0.25,-1:0.25,1:0.25,3:0.25",
        "sure": "1:1",
        "skew": "-1:0.9,2:0.1",
    }
    text = "\n".join(f"{k}: {v}" for k, v in laws.items())
    r = client.post(
        "/api/dih/select", json={"pool": "custom", "pool_text": text, "players": 6, "rounds": 2, "top": 2}
    )
    assert r.status_code == 200, r.text
    own = {k: dih(ScoreDistribution.parse(v), 6, 2, 2) for k, v in laws.items()}
    expected = sorted(own, key=lambda k: -own[k])[:2]
    paper = r.json()["paper"]
    assert sorted(d["deal"] for d in paper["deals"]) == sorted(expected)
    for d in paper["deals"]:
        assert math.isclose(d["dih"], own[d["deal"]], rel_tol=1e-9)
    bad = client.post(
        "/api/dih/select",
        json={"pool": "custom", "pool_text": "x -1:0.5", "players": 6, "rounds": 1, "top": 2},
    )
    assert bad.status_code == 422 and "line 1" in bad.json()["error"]
    assert (
        client.post("/api/dih/select", json={"pool": "nope", "players": 6, "rounds": 1, "top": 2}).status_code
        == 422
    )
    empty = client.post("/api/dih/select", json={"pool": "records", "players": 6, "rounds": 1, "top": 2})
    assert empty.status_code == 422 and "no game records" in empty.json()["error"]
    pools = {p["name"] for p in client.get("/api/dih/pools").json()["pools"]}
    assert {"synthetic", "records"} <= pools


def test_reports_are_grouped_and_files_cannot_escape(app_factory: Any, tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    (reports / "yuxi-balance").mkdir(parents=True)
    (reports / "arena-ladder.md").write_text(
        "# Ladder\n\n| agent | elo |\n|---|---|\n| rule | 1500 |\n<script>x</script>\n"
    )
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    (reports / "yuxi-balance" / "first_player.png").write_bytes(png)
    (tmp_path / "secret.png").write_bytes(png)
    with make_client(app_factory()) as c:
        r = c.get("/api/reports").json()
        assert [i["path"] for i in r["ladder"]] == ["arena-ladder.md"]
        assert "<table>" in r["ladder"][0]["html"] and "<script>" not in r["ladder"][0]["html"]
        assert [i["path"] for i in r["balance"]] == ["yuxi-balance/first_player.png"]
        assert r["validation"] == []
        got = c.get(r["balance"][0]["url"])
        assert got.status_code == 200 and got.content == png and got.headers["content-type"] == "image/png"
        assert c.get("/api/reports/file", params={"root": 0, "path": "../secret.png"}).status_code == 404
        assert c.get("/api/reports/file", params={"root": 0, "path": "arena-ladder.md"}).status_code == 404
        assert c.get("/api/reports/file", params={"root": 5, "path": "x.png"}).status_code == 404


def test_records_list_reports_unreadable_files(client: Any, tmp_path: Path) -> None:
    play_ddz_to_end(client, new_ddz(client, seed=2), check=False)
    bad = tmp_path / "data" / "records" / "broken" / "games-1.parquet"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not parquet")
    r = client.get("/api/records").json()
    assert r["total"] == 1 and len(r["unreadable"]) == 1 and "broken" in r["unreadable"][0]["file"]
    assert client.get("/api/records", params={"game": "chess"}).status_code == 422
    assert client.get("/api/records/abc/999").status_code == 404


def test_pages_and_static_files_are_served(client: Any) -> None:
    for route in ("/", "/ddz", "/mahjong", "/yuxi", "/dih", "/reports", "/records"):
        r = client.get(route)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), route
        assert "/static/common.js" in r.text
    assert client.get("/static/common.js").status_code == 200
    assert client.get("/ddz", params={"filename": "../app.py"}).text == client.get("/ddz").text
    assert client.get("/static/../app.py").status_code == 404


def test_serve_refuses_a_bad_port(tmp_path: Path) -> None:
    from paiju.cli.serve import serve
    from paiju.core.errors import ConfigError

    with pytest.raises(ConfigError, match="port"):
        serve("127.0.0.1", 0, tmp_path)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="file"):
        serve("127.0.0.1", 8000, tmp_path / "file")


def test_doudizhu_bidding_makes_the_top_bidder_landlord(client: Any) -> None:
    view = new_ddz(client, seat=0, bidding=True, seed=12)
    assert view["phase"] == "bidding" and view["your_turn"] and len(view["cards"]) == 17
    assert {m["move"] for m in view["legal"]} == {"bid 0", "bid 1", "bid 2", "bid 3"}
    r = client.post(f"/api/games/{view['id']}/move", json={"move": "bid 3", "ply": view["ply"]})
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["phase"] == "play" and view["landlord"] == 0 and view["roles"][0] == "landlord"
    assert len(view["cards"]) == 20 and view["kitty"] is not None and len(view["kitty"]) == 3
    final = play_ddz_to_end(client, view, check=False)
    assert final["result"]["facts"]["bid"] == 3


def test_mahjong_claim_decisions_stay_sealed_until_the_window_closes() -> None:
    from paiju.web.sessions import AIRunner, MahjongSession

    runner = AIRunner(10)
    try:
        for seed in (7, *range(40)):
            game = MahjongSession("t", {"seat": 3, "agents": ["greedy", "greedy", "greedy", None]}, seed)
            game.run_ai(runner)
            while not game.over:
                view = game.view()
                sealed = [e for e in view["transcript"] if e["text"] == "(sealed decision)"]
                if view["phase"] == "claim" and sealed:
                    hidden = game.transcript[sealed[0]["ply"]]
                    assert hidden.seat != 3 and hidden.text != "(sealed decision)"
                    game.play_human(
                        {"action": next(a["action"] for a in view["legal"] if a["kind"] == "pass")}
                    )
                    game.run_ai(runner)
                    shown = game.view()["transcript"][sealed[0]["ply"]]
                    assert shown["text"] == hidden.text  # revealed once the window is resolved
                    return
                kinds = {a["kind"] for a in view["legal"]}
                want = "pass" if "pass" in kinds else "discard"
                game.play_human({"action": next(a["action"] for a in view["legal"] if a["kind"] == want)})
                game.run_ai(runner)
        pytest.fail("no claim window with an earlier sealed AI decision in 40 seeded hands")
    finally:
        runner.shutdown()


def test_serve_command_has_the_documented_options() -> None:
    import typer
    from typer.testing import CliRunner

    from paiju.cli.serve import serve

    app = typer.Typer()
    app.command()(serve)
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0
    for option in ("--host", "--port", "--data", "--ai-time-limit"):
        assert option in result.output


def test_split_hint_partitions_the_current_hand(client: Any) -> None:
    from paiju.doudizhu.tagger.model import SHIPPED, shipped_model

    if SHIPPED.is_file():
        shipped_model()  # as the server's start-up does (the hint never waits for torch)
    view = new_ddz(client, seat=0, seed=31)
    hint = client.get(f"/api/games/{view['id']}/hint").json()
    assert hint["hand"] == view["hand"]
    by = {(s["method"], s["objective"]): s for s in hint["splits"]}
    for s in hint["splits"]:
        cards = "".join(g["cards"] for g in s["groups"])
        assert sorted(cards) == sorted(view["hand"])  # every card in exactly one group
        assert sorted("".join(p["cards"] for p in s["plays"])) == sorted(view["hand"])
    assert by[("exact", "groups")]["num_groups"] <= by[("heuristic", "groups")]["num_groups"]
    assert by[("exact", "plays")]["num_plays"] <= by[("exact", "groups")]["num_plays"]
    assert (("tagger", "groups") in by) == SHIPPED.is_file()
    if SHIPPED.is_file():  # the learned split marks the groups the exact fewest-plays split lacks
        learned, exact_plays = by[("tagger", "groups")], by[("exact", "plays")]

        def groups(s: dict[str, Any]) -> list[tuple[str, str]]:
            return [(g["type"], g["cards"]) for g in s["groups"]]

        assert learned["differs"] == [g not in groups(exact_plays) for g in groups(learned)]
        assert exact_plays["differs"] == [g not in groups(learned) for g in groups(exact_plays)]


def test_record_frames_point_at_plays_after_bids(client: Any) -> None:
    view = new_ddz(client, seat=0, bidding=True, seed=12)
    view = client.post(f"/api/games/{view['id']}/move", json={"move": "bid 3"}).json()
    play_ddz_to_end(client, view, check=False)
    row = client.get("/api/records").json()["games"][0]
    detail = client.get(f"/api/records/{row['run_id']}/{row['game_index']}").json()
    assert detail["frames"][0]["move_index"] is None
    for frame in detail["frames"][1:]:
        move = detail["moves"][frame["move_index"]]
        assert move["player"] == frame["seat"] and move["text"] == frame["move"]


def test_check_answers_whether_a_move_is_legal_without_playing_it(client: Any) -> None:
    """``GET .../check``: legal or not, with the reason a move request gets; nothing is played."""
    view = client.post("/api/games/doudizhu", json={"seat": 0, "seed": 9}).json()
    url = f"/api/games/{view['id']}/check"
    legal = next(m for m in view["legal"] if m["type"] != "pass")
    ok = client.get(url, params={"move": legal["move"]})
    assert ok.status_code == 200 and ok.json()["legal"] is True and ok.json()["ply"] == 0
    bad = client.get(url, params={"move": "3D"})
    refused = client.post(f"/api/games/{view['id']}/move", json={"move": "3D"})
    assert bad.json()["legal"] is False and bad.json()["reason"] == refused.json()["error"]
    after = client.get(f"/api/games/{view['id']}").json()
    assert after["ply"] == 0 and after["cards"] == view["cards"]  # nothing was played
    missing = client.get(url)
    assert missing.status_code == 422 and missing.json()["field"] == "query.move"
