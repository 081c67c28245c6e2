"""Fuzz the yuxi card and deck tables (`--cards-file` / `--decks-file`, the web app's
`cards_toml` / `decks_toml`; docs/yuxi-cards.md): the shipped tables mutated one field, one
effect, one deck entry or one line at a time.

Oracle: either the table loads, and then a game with it (the two first decks, 3x3) plays to
its end under the engine's invariant checker; or loading raises the project's error (a
:class:`PaijuError`) in one line that starts with the table it is in and, for a mutated
field, names a field. Never another exception.
"""

from __future__ import annotations

import datetime
import json
import math
import re
import tomllib
from importlib import resources
from typing import Any

import numpy as np
import pytest
from fuzzing import FAST, SLOW, corpus_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.core.errors import PaijuError
from paiju.yuxi.cards import card_table_from_text
from paiju.yuxi.effects import EFFECTS, TRIGGERS
from paiju.yuxi.game import YuxiConfig, YuxiGame

DATA = resources.files("paiju.yuxi").joinpath("data")
CARDS: dict[str, Any] = tomllib.loads(DATA.joinpath("cards.toml").read_text(encoding="utf-8"))
DECKS: dict[str, Any] = tomllib.loads(DATA.joinpath("decks.toml").read_text(encoding="utf-8"))

# ---- a small TOML writer (tomllib only reads): arrays of tables of plain values ---------------


def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string has JSON's escapes
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    assert isinstance(v, dict), v
    return "{" + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + "}"


def to_toml(data: dict[str, Any]) -> str:
    out = []
    for name, entries in data.items():
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            out.insert(0, f"{_key(name)} = {_value(entries)}\n")
            continue
        for e in entries:
            out.append(f"[[{_key(name)}]]\n" + "".join(f"{_key(k)} = {_value(v)}\n" for k, v in e.items()))
    return "\n".join(out)


def test_the_writer_round_trips_the_shipped_tables() -> None:
    """Oracle: tomllib reads back what the test's writer wrote (the fuzzer's own footing)."""
    assert tomllib.loads(to_toml(CARDS)) == CARDS and tomllib.loads(to_toml(DECKS)) == DECKS


# ---- mutations ---------------------------------------------------------------------------------

CARD_FIELDS = ["id", "key", "name", "faction", "kind", "rarity", "points", "armour", "coins", "cost",
               "cooldown", "titles", "target", "text", "effects", "bogus"]
WEIRD: list[Any] = [
    0, -1, 1, 2, 3, 9, 31, 10_001, 2**63, 1.5, float("nan"), float("inf"), True, "", " ", "x",
    "Reef_Crab", "reef_crab", "merchant", "spell", "character", "void", "empty", "turn_start",
    [], [1], ["merchant"], ["merchant", "merchant"], {}, {"a": 1}, datetime.date(2020, 1, 1),
]
values = st.one_of(st.sampled_from(WEIRD), st.integers(-3, 40), st.text(max_size=6))


@st.composite
def mutation(draw: st.DrawFn) -> dict[str, Any]:
    """A JSON-able description of one change to the shipped tables (the corpus's format)."""
    where = draw(st.sampled_from(["card", "effect", "deck", "structure", "line"]))
    m: dict[str, Any] = {"where": where}
    if where == "card":
        m |= {"card": draw(st.integers(0, len(CARDS["card"]) - 1)),
              "field": draw(st.sampled_from(CARD_FIELDS)),
              "value": draw(st.one_of(values, st.just("<delete>")))}
    elif where == "effect":
        with_effects = [i for i, c in enumerate(CARDS["card"]) if c.get("effects")]
        i = draw(st.sampled_from(with_effects))
        params = EFFECTS[CARDS["card"][i]["effects"][0]["effect"]].params
        fields = {"trigger", "effect", "params", "bogus", "params.bogus"}
        spec = sorted(fields | {f"params.{p}" for p in params})
        m |= {"card": i, "field": draw(st.sampled_from(spec)),
              "value": draw(st.one_of(values, st.sampled_from(sorted(EFFECTS) + list(TRIGGERS)),
                                      st.just("<delete>")))}
    elif where == "deck":
        d = draw(st.integers(0, len(DECKS["deck"]) - 1))
        keys = sorted(DECKS["deck"][d]["cards"]) + [c["key"] for c in CARDS["card"][:5]] + ["nope"]
        m |= {"deck": d, "field": draw(st.sampled_from(["key", "name", "cards", "bogus",
                                                         *(f"cards.{k}" for k in keys)])),
              "value": draw(st.one_of(values, st.just("<delete>")))}
    elif where == "structure":
        m |= {"op": draw(st.sampled_from(["drop_card", "dup_card", "drop_deck", "dup_deck", "top_key"])),
              "index": draw(st.integers(0, 40))}
    else:
        m |= {"table": draw(st.sampled_from(["cards", "decks"])), "line": draw(st.integers(0, 2_000)),
              "op": draw(st.sampled_from(["delete", "duplicate", "flip"])), "char": draw(st.characters())}
    return m


def _set(obj: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for p in parents:
        if not isinstance(obj.get(p), dict):
            obj[p] = {}
        obj = obj[p]
    if value == "<delete>":
        obj.pop(last, None)
    else:
        obj[last] = value


def apply(m: dict[str, Any]) -> tuple[str, str]:
    """The cards and decks TOML text after mutation ``m``."""
    cards, decks = json.loads(json.dumps(CARDS)), json.loads(json.dumps(DECKS))
    if m["where"] == "card":
        _set(cards["card"][m["card"]], m["field"], m["value"])
    elif m["where"] == "effect":
        _set(cards["card"][m["card"]]["effects"][0], m["field"], m["value"])
    elif m["where"] == "deck":
        _set(decks["deck"][m["deck"]], m["field"], m["value"])
    elif m["where"] == "structure":
        table = cards["card"] if m["op"].endswith("card") else decks["deck"]
        i = m["index"] % len(table)
        if m["op"].startswith("drop"):
            table.pop(i)
        elif m["op"].startswith("dup"):
            table.append(dict(table[i]))
        else:
            cards["version"] = 2
    texts = {"cards": to_toml(cards), "decks": to_toml(decks)}
    if m["where"] == "line":
        lines = texts[m["table"]].splitlines(keepends=True)
        i = m["line"] % len(lines)
        if m["op"] == "delete":
            lines.pop(i)
        elif m["op"] == "duplicate":
            lines.insert(i, lines[i])
        elif lines[i]:
            j = m["line"] % len(lines[i])
            lines[i] = lines[i][:j] + m["char"] + lines[i][j + 1 :]
        texts[m["table"]] = "".join(lines)
    return texts["cards"], texts["decks"]


# ---- the oracle --------------------------------------------------------------------------------

STRUCTURE = ("no [[card]] entries", "no [[deck]] entries", "card ids must be", "not valid TOML",
             "unknown top-level key", "is not a table")


def check(m: dict[str, Any]) -> None:
    cards_text, decks_text = apply(m)
    try:
        table = card_table_from_text(cards_text, decks_text)
    except PaijuError as err:
        msg = str(err)
        assert "\n" not in msg and msg.startswith(("cards_toml: ", "decks_toml: ")), msg
        assert "field '" in msg or any(s in msg for s in STRUCTURE), msg
        return
    decks = tuple(table.decks)[:2] if len(table.decks) > 1 else (next(iter(table.decks)),) * 2
    game = YuxiGame(YuxiConfig(board="3x3", decks=decks, cards_toml=cards_text, decks_toml=decks_text),
                    check_invariants=True)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(game.info.max_game_length + 1):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    assert state.is_terminal()


# ---- the tests ---------------------------------------------------------------------------------

# an example loads a table and may play a checked game (~50 ms)
FAST_GAME = settings(FAST, max_examples=120)


@FAST_GAME
@given(mutation())
def test_mutated_tables_load_and_play_or_fail_on_one_line_naming_the_field(m: dict[str, Any]) -> None:
    """Oracle: loads and plays a game under the invariant checker, or a one-line PaijuError
    naming the table and the field."""
    check(m)


@pytest.mark.parametrize("line", corpus_lines("yuxi_toml"))
def test_corpus(line: str) -> None:
    """Each committed mutation (a JSON object, the strategy's format): the same oracle."""
    check(json.loads(line))


@pytest.mark.slow
@SLOW
@given(mutation())
def test_mutated_tables_at_length(m: dict[str, Any]) -> None:
    """Oracle: the same, random at length."""
    check(m)
