"""Fuzz the records JSON-lines import (`paiju records import`, docs/records.md): generated
valid logs, and the same logs truncated, corrupted, with wrong-typed, out-of-range, oversized
or non-JSON values.

Oracle, for every file: either exit 0 and a faithful import (export gives back every object
of the file: the round-trip export(import(f)) == f, numbers as the schema stores them), or
exit 2 with one line on stderr naming the file (and the line, for a bad line), and nothing
written (no records folder). Never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fuzzing import FAST, SLOW, corpus_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.cli.main import run
from paiju.cli.records import export_rows

# ---- valid logs --------------------------------------------------------------------------------

numbers = st.one_of(st.integers(-(2**53), 2**53), st.floats(allow_nan=False, allow_infinity=False))
json_values = st.recursive(
    st.none() | st.booleans() | numbers | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
words = st.text(max_size=8)


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    seats = draw(st.integers(1, 5))
    obj: dict[str, Any] = {"game": draw(st.text(min_size=1, max_size=8)),
                           "returns": draw(st.lists(numbers, min_size=seats, max_size=seats))}
    moves = draw(st.lists(words, max_size=4))
    optional = {
        "deal": words, "scoring_rule": words, "rules_version": words,
        "seed": st.integers(-(2**63), 2**63 - 1), "score": numbers,
        "dealer_seat": st.integers(0, seats - 1),
        "agents": st.lists(words, min_size=seats, max_size=seats),
        "roles": st.lists(words, min_size=seats, max_size=seats),
        "moves": st.just(moves),
        "move_players": st.lists(st.integers(-1, seats - 1), min_size=len(moves), max_size=len(moves)),
        "extra": st.dictionaries(st.text(max_size=4), json_values, max_size=3),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            obj[key] = draw(strategy)
    if "move_players" in obj:
        obj["moves"] = moves
    return obj


@st.composite
def logs(draw: st.DrawFn) -> list[dict[str, Any]]:
    objs = draw(st.lists(records(), min_size=1, max_size=4))
    if draw(st.booleans()):  # explicit, distinct indices instead of the line numbers
        indices = draw(st.lists(st.integers(0, 2**62), min_size=len(objs), max_size=len(objs), unique=True))
        for obj, i in zip(objs, indices, strict=True):
            obj["game_index"] = i
            if draw(st.booleans()):
                obj["deal_index"] = draw(st.integers(0, 2**62))
    return objs


def _text(objs: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(o, allow_nan=True) + "\n" for o in objs)


# ---- mutations ---------------------------------------------------------------------------------

BAD_VALUES: list[Any] = [
    None, True, 0, -1, 2**63, -(2**63) - 1, 10**400, 1e308, float("nan"), float("inf"), "", "x",
    [], [None], [1, "a"], [2**70], [300], [-129], {}, {"a": float("nan")}, "\ud800", ["\ud800"],
    "x" * 100_000,
]
FIELDS = ["game", "returns", "deal", "dealer_seat", "score", "scoring_rule", "rules_version", "seed",
          "game_index", "deal_index", "moves", "move_players", "agents", "roles", "extra", "bogus"]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    objs = draw(logs())
    how = draw(st.sampled_from(["field", "truncate", "bytes", "deep"]))
    if how == "field":
        obj = objs[draw(st.integers(0, len(objs) - 1))]
        obj[draw(st.sampled_from(FIELDS))] = draw(st.sampled_from(BAD_VALUES))
        return _text(objs).encode("utf-8", "surrogatepass")
    data = _text(objs).encode("utf-8")
    at = draw(st.integers(0, len(data)))
    if how == "truncate":
        return data[:at]
    if how == "deep":
        return data[:at] + b"[" * draw(st.integers(1, 5000)) + data[at:]
    return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]


# ---- the oracle --------------------------------------------------------------------------------


def _expected(data: bytes) -> list[dict[str, Any]]:
    """What export must give for an accepted file: every object, nulls left out, numbers as
    the schema stores them (returns and score as doubles), default indices filled in."""
    out = []
    for lineno, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        obj = {k: v for k, v in json.loads(line).items() if v is not None}
        obj["returns"] = [float(r) for r in obj["returns"]]
        if "score" in obj:
            obj["score"] = float(obj["score"])
        obj.setdefault("game_index", lineno - 1)
        obj.setdefault("deal_index", obj["game_index"])
        out.append(obj)
    return sorted(out, key=lambda o: o["game_index"])


def paiju(argv: list[str]) -> tuple[int, str, str]:
    """``paiju ARGV`` in-process: exit code, stdout, stderr (no pytest fixture: Hypothesis
    runs many examples in one test call)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(argv)
    return code, out.getvalue(), err.getvalue()


def check_import(data: bytes) -> int:
    """The oracle on one file's bytes; the exit code."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "log.jsonl", Path(tmp) / "out"
        src.write_bytes(data)
        code, _, err = paiju(["records", "import", str(src), str(out)])
        if code == 0:
            assert export_rows(out) == _expected(data)
            return code
        assert code == 2, err
        lines = err.splitlines()
        assert len(lines) == 1 and "Traceback" not in err, err
        assert re.match(rf"error: {re.escape(str(src))}(:\d+)?: \S", lines[0]), lines[0]
        assert not out.exists(), f"half-written: {sorted(p.name for p in out.iterdir())}"
        return code


# ---- the tests ---------------------------------------------------------------------------------

# an example imports and exports a folder (~70 ms): fewer of them keep the boundary near 10 s
FAST_IO = settings(FAST, max_examples=60)


@FAST_IO
@given(logs())
def test_valid_logs_import_faithfully(objs: list[dict[str, Any]]) -> None:
    """Oracle: round-trip, export(import(log)) gives back every object of the log."""
    assert check_import(_text(objs).encode("utf-8")) == 0


@FAST_IO
@given(mutated())
def test_mutated_logs_import_faithfully_or_fail_on_one_line(data: bytes) -> None:
    """Oracle: a faithful import, or exit 2 with one line naming the file (and line), nothing
    written; never a traceback."""
    check_import(data)


@pytest.mark.parametrize("line", corpus_lines("records"))
def test_corpus(line: str) -> None:
    """Each committed line, imported as a one-line file: the oracle, and refused (exit 2)
    unless marked ``ok<TAB>`` (these were tracebacks, or nonsense imported)."""
    accepted = line.startswith("ok\t")
    text = line.removeprefix("ok\t")
    assert check_import(text.encode("utf-8", "surrogatepass") + b"\n") == (0 if accepted else 2)


@pytest.mark.slow
@SLOW
@given(st.one_of(logs().map(lambda objs: _text(objs).encode("utf-8")), mutated()))
def test_logs_at_length(data: bytes) -> None:
    """Oracle: the same, random at length."""
    check_import(data)
