"""Fuzz the web app's HTTP API as a session uses it: games created, moved, finished.

tests/web/test_web_schema.py already sends every operation requests generated from the
OpenAPI schema, one at a time (schemathesis, no state). This module adds the state: a
Hypothesis state machine over one browser session (the cookie), with a model of its games
(id, kind, ply, over), that starts games of every kind, plays legal moves until games end,
and mixes in what a client gets wrong: bodies with one bad field, moves that are no legal
move, stale plies, moves on finished games, unknown ids.

Oracle: never a 5xx or a hang (each request has a timeout); never a 2xx on invalid input;
every 4xx names the field at fault (``"field"``); ``GET .../check`` agrees with the move
route (legal there exactly when the move is played, the same reason when refused); the
session's list of games and each game's ply and end agree with the model.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fuzzing import FAST, SLOW, corpus_lines
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, precondition, rule

from paiju.web.app import create_app

KINDS = ("doudizhu", "mahjong", "yuxi")
# one bad field at a time: (kind, field, value); the 422 must name ``field``
BAD_FIELDS: list[tuple[str, str, Any]] = [
    ("doudizhu", "seat", 3), ("doudizhu", "seat", -1), ("doudizhu", "seat", "0"),
    ("doudizhu", "seat", True), ("doudizhu", "agents", ["rule"]), ("doudizhu", "agents", ["rule", "nosuch"]),
    ("doudizhu", "scoring", "x"), ("doudizhu", "seed", -1), ("doudizhu", "seed", 1.5),
    ("doudizhu", "bidding", "yes"), ("doudizhu", "extra", 1),
    ("mahjong", "seat", 4), ("mahjong", "agents", ["greedy"] * 2), ("mahjong", "flowers", 1),
    ("mahjong", "agents", ["greedy", "greedy", "expectimax-shanten:depth=99"]),
    ("yuxi", "board", "9x9"), ("yuxi", "decks", ["nosuch", "tempest"]), ("yuxi", "decks", ["tempest"]),
    ("yuxi", "agent", ""), ("yuxi", "seat", 2), ("yuxi", "cards_toml", "[[card]]\nkey = 1"),
]
FAST_AGENTS = {"doudizhu": {"agents": ["greedy", "greedy"]}, "mahjong": {"agents": ["greedy"] * 3},
               "yuxi": {"agent": "greedy"}}
MOVE_TEXT = st.one_of(
    st.sampled_from(["pass", "end", "keep", "33", "3D", "XD", "play nosuch@a1", "bid 3", "discard 1m", ""]),
    st.text(max_size=12),
)


def make_client(app: Any) -> Any:
    """A FastAPI TestClient (as tests/web/web_helpers.py builds it; its warning is not ours)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

        return TestClient(app)


def _app() -> Any:
    root = Path(tempfile.mkdtemp(prefix="paiju-fuzz-http-"))
    return create_app(root / "data", report_dirs=[root / "reports"], ai_time_limit=5.0, ai_workers=1)


def _check_answer(r: Any, *, valid: bool) -> dict[str, Any]:
    """The oracle common to every request: no 5xx; a 4xx is JSON naming its field; no 2xx for
    an invalid request."""
    assert r.status_code < 500, (r.status_code, r.text)
    body: dict[str, Any] = r.json()
    if r.status_code >= 400:
        assert body.get("error") and body.get("field"), body
    elif not valid:
        raise AssertionError(f"invalid request answered {r.status_code}: {r.text[:300]}")
    return body


class Session(RuleBasedStateMachine):
    """One browser session against a fresh app; ``games``: the model of its games."""

    games = Bundle("games")

    def __init__(self) -> None:
        super().__init__()
        self.client = make_client(APP)  # a new client: a new cookie, a new session
        self.model: dict[str, dict[str, Any]] = {}

    @initialize()
    def nothing_yet(self) -> None:
        r = self.client.get("/api/games")
        assert _check_answer(r, valid=True)["games"] == []

    @rule(target=games, kind=st.sampled_from(KINDS), seed=st.integers(0, 2**20), seat=st.integers(0, 1))
    def new_game(self, kind: str, seed: int, seat: int) -> str:
        r = self.client.post(f"/api/games/{kind}", json={"seed": seed, "seat": seat, **FAST_AGENTS[kind]})
        assert r.status_code == 201, r.text
        view = _check_answer(r, valid=True)
        self.model[view["id"]] = {"kind": kind, "ply": view["ply"], "over": view["over"]}
        return str(view["id"])

    @rule(bad=st.sampled_from(BAD_FIELDS))
    def new_game_with_one_bad_field(self, bad: tuple[str, str, Any]) -> None:
        kind, field, value = bad
        body = {**FAST_AGENTS[kind], field: value}
        r = self.client.post(f"/api/games/{kind}", json=body)
        answer = _check_answer(r, valid=False)
        assert r.status_code == 422 and field in answer["field"], (bad, answer)

    @rule(game=games, pick=st.integers(0, 10_000))
    def legal_move(self, game: str, pick: int) -> None:
        view = _check_answer(self.client.get(f"/api/games/{game}"), valid=True)
        assert view["ply"] == self.model[game]["ply"] and view["over"] == self.model[game]["over"]
        if not view["your_turn"]:
            return
        item = view["legal"][pick % len(view["legal"])]
        body: dict[str, Any] = {"ply": view["ply"]}
        if view["kind"] == "doudizhu":
            body["move"] = item["move"]
            if item["type"] not in ("pass", "bid"):
                body["type"] = item["type"]
        else:
            body["action"] = item["action"]
        after = _check_answer(self.client.post(f"/api/games/{game}/move", json=body), valid=True)
        assert after["ply"] > view["ply"]
        self.model[game].update(ply=after["ply"], over=after["over"])

    @rule(game=games, text=MOVE_TEXT)
    def typed_move_agrees_with_check(self, game: str, text: str) -> None:
        """A typed move: ``check`` first, then the move; both must say the same."""
        ply = self.model[game]["ply"]
        check = self.client.get(f"/api/games/{game}/check", params={"move": text})
        answer = _check_answer(check, valid=bool(text) and len(text) <= 80)
        r = self.client.post(f"/api/games/{game}/move", json={"move": text, "ply": ply})
        if check.status_code >= 400 or not answer["legal"]:
            moved = _check_answer(r, valid=False)
            if check.status_code < 400:
                assert moved["error"] == answer["reason"], (moved, answer)
            return
        after = _check_answer(r, valid=True)
        self.model[game].update(ply=after["ply"], over=after["over"])

    @rule(game=games, offset=st.sampled_from([-1, 1, 1000]))
    def stale_move(self, game: str, offset: int) -> None:
        ply = self.model[game]["ply"] + offset
        r = self.client.post(f"/api/games/{game}/move", json={"move": "pass", "action": 0, "ply": ply})
        _check_answer(r, valid=False)
        assert r.status_code in (409, 422), r.text

    @rule(game_id=st.one_of(st.text(max_size=70), st.sampled_from(["0" * 32, "f" * 64, "../etc"])),
          path=st.sampled_from(["", "/hint", "/advice", "/check?move=33"]))
    def unknown_game(self, game_id: str, path: str) -> None:
        if game_id in self.model or game_id.strip("./") == "":  # no id: another route's path
            return
        r = self.client.get(f"/api/games/{quote(game_id, safe='')}{path}")
        answer = _check_answer(r, valid=False)
        # an id with "/" in it is another path: no route (the router's 404 names the path)
        assert r.status_code in (404, 422) and answer["field"] in ("path.game_id", "path"), answer

    @precondition(lambda self: any(g["kind"] == "mahjong" and not g["over"] for g in self.model.values()))
    @rule(top=st.integers(-2, 8), depth=st.sampled_from([-1, 0, 1, 3]))
    def mahjong_advice(self, top: int, depth: int) -> None:
        game = next(i for i, g in self.model.items() if g["kind"] == "mahjong" and not g["over"])
        valid = 1 <= top <= 5 and 1 <= depth <= 2
        r = self.client.get(f"/api/games/{game}/advice", params={"top": top, "depth": depth})
        answer = _check_answer(r, valid=valid or r.status_code >= 400)
        if r.status_code == 200:
            assert len(answer["discards"]) == top
        elif valid:
            assert r.status_code in (409, 503), answer  # no discard due / the analysis is busy

    @invariant()
    def the_list_is_the_model(self) -> None:
        listed = _check_answer(self.client.get("/api/games", params={"limit": 500}), valid=True)["games"]
        assert {g["id"]: (g["ply"], g["over"]) for g in listed} == {
            i: (g["ply"], g["over"]) for i, g in self.model.items()
        }


APP = _app()  # one server for every run, as in production; each run is a new session
TestSessionFast = Session.TestCase
TestSessionFast.settings = FAST.__class__(FAST, max_examples=10, stateful_step_count=10)


@pytest.mark.slow
class TestSessionSlow(Session.TestCase):  # type: ignore[name-defined,misc]
    settings = SLOW.__class__(SLOW, max_examples=300, stateful_step_count=40)


@pytest.mark.parametrize("line", corpus_lines("http"))
def test_corpus(line: str) -> None:
    """Requests that once found a bug: ``METHOD path [json body]``, each answered without a
    5xx, a 4xx naming its field."""
    method, _, rest = line.partition(" ")
    path, _, body = rest.partition(" ")
    with make_client(_app()) as client:
        game = client.post("/api/games/doudizhu", json={"seed": 1}).json()["id"]
        mahjong = client.post("/api/games/mahjong", json={"seed": 6973, "seat": 1}).json()["id"]
        path = path.replace("{game}", game).replace("{mahjong}", mahjong)
        r = client.request(method, path, json=json.loads(body) if body else None)
        _check_answer(r, valid=r.status_code < 400)
