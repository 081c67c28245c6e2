"""Fuzz the agent spec strings (`mcts:eval=heuristic,simulations=50`, src/paiju/core/agents.py
and every game's registry, src/paiju/core/registry.py): specs generated from each registry's
own parameter declarations (defaults, ranges, choices), then mutated.

Oracles: a spec made of declared parameters with values in their declared ranges and
choices resolves to those values, its canonical text (``str(spec)``) resolves to the same
spec (a round-trip), and it builds an agent, or the factory refuses a combination with the
project's error naming one of its parameters; a mutated spec (a number out of range, a
wrong type, an unknown name or parameter, broken syntax, a junk model file) either builds or
raises a :class:`PaijuError` that names the parameter (or the value) at fault. Never another
exception.
"""

from __future__ import annotations

import math
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fuzzing import FAST, SLOW, corpus_lines
from hypothesis import given
from hypothesis import strategies as st

from paiju.core.agents import AgentRegistry
from paiju.core.errors import PaijuError
from paiju.core.registry import available_games, load_agents

REGISTRIES: dict[str, AgentRegistry] = {g: load_agents(g) for g in available_games()}
AGENTS = [(g, name) for g, reg in REGISTRIES.items() for name in reg.names()]

JUNK_DIR = Path(tempfile.mkdtemp(prefix="paiju-fuzz-specs-"))
(JUNK_DIR / "junk.pt").write_text("junk\n")  # torch reads a magic number: KeyError
(JUNK_DIR / "text.pt").write_text("not a model\n")  # torch: UnpicklingError
(JUNK_DIR / "empty.pt").write_bytes(b"")
(JUNK_DIR / "junk.json").write_text("{not json")
JUNK_FILES = [str(JUNK_DIR / n) for n in ("junk.pt", "text.pt", "empty.pt", "junk.json", "missing.pt")]
JUNK_FILES.append(str(JUNK_DIR))


def _defaults(game: str, name: str) -> dict[str, Any]:
    return REGISTRIES[game].describe()[name][0]


def _valid_value(draw: st.DrawFn, game: str, name: str, key: str) -> Any:
    reg = REGISTRIES[game]
    default = _defaults(game, name)[key]
    if key in reg.limits(name):
        lo, hi = reg.limits(name)[key]
        if isinstance(default, int):
            # the searches' budgets stay small: building is what is checked, not playing
            return draw(st.integers(int(lo), int(min(hi, lo + 50))))
        return draw(st.floats(lo, hi, allow_nan=False))
    if key in reg.choices(name):
        return draw(st.sampled_from(reg.choices(name)[key]))
    if isinstance(default, bool):
        return draw(st.booleans())
    return default  # a free string (a model name or file): its default is valid


@st.composite
def valid_specs(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    game, name = draw(st.sampled_from(AGENTS))
    keys = draw(st.lists(st.sampled_from(sorted(_defaults(game, name)) or ["-"]), unique=True, max_size=4))
    params = {k: _valid_value(draw, game, name, k) for k in keys if k != "-"}
    # an empty default (az's model="": "none given") cannot be written in a spec: left out
    return game, name, {k: v for k, v in params.items() if v != ""}


def _text(name: str, params: dict[str, Any]) -> str:
    if not params:
        return name
    written = (f"{k}={v!r}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())
    return name + ":" + ",".join(written)


def _names_a_parameter(msg: str, params: dict[str, Any]) -> bool:
    return any(k in msg or (isinstance(v, str) and v and v in msg) for k, v in params.items())


@FAST
@given(valid_specs())
def test_declared_specs_resolve_round_trip_and_build(spec: tuple[str, str, dict[str, Any]]) -> None:
    """Oracle: the declared values resolve unchanged; str(spec) resolves to the same spec; the
    agent builds, or the factory's PaijuError names one of the spec's parameters."""
    game, name, params = spec
    reg = REGISTRIES[game]
    resolved = reg.resolve(_text(name, params))
    assert resolved.name == name and resolved.params == params
    assert reg.resolve(str(resolved)) == resolved
    try:
        reg.make(resolved, seed=0)
    except PaijuError as err:  # a combination the factory refuses (az without a model...)
        msg = str(err)
        assert "\n" not in msg and (_names_a_parameter(msg, params) or "model" in msg), msg


BAD_NUMBERS = ["-1", "1e400", "nan", "inf", "-inf", "1_0", "٣", "0x10", "1.5.2", "", " ", "10**3",
               "99999999999999999999999", "1e308", "-0", "True", "3j"]


PLAIN_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


@st.composite
def mutated_specs(draw: st.DrawFn) -> tuple[str, str, str, bool]:
    """(game, spec text, the parameter or name at fault, whether it must be refused)."""
    game, name, params = draw(valid_specs())
    defaults = _defaults(game, name)
    how = draw(st.sampled_from(["value", "unknown_param", "unknown_name", "syntax", "file"]))
    files = [k for k in defaults if isinstance(defaults[k], str) and "model" in k]
    if how == "file" and files:
        key = draw(st.sampled_from(files))
        params[key] = draw(st.sampled_from(JUNK_FILES))
        return game, _text(name, params), params[key], True  # the message names the file
    if how in ("value", "file") and defaults:
        key = draw(st.sampled_from(sorted(defaults)))
        value = draw(st.one_of(st.sampled_from(BAD_NUMBERS), st.text(max_size=6)))
        params[key] = value
        default = defaults[key]
        # a number that is not a plain ASCII decimal ("1_0", "٣", "0x10") is nonsense
        numeric = isinstance(default, int | float) and not isinstance(default, bool)
        refuse = numeric and not PLAIN_NUMBER.fullmatch(value.strip())
        return game, _text(name, params), key, refuse
    if how == "unknown_param":
        key = draw(st.sampled_from(["bogus", "Simulations", "seed", "name", "model_"]))
        return game, _text(name, {**params, key: "1"}), key, True
    if how == "unknown_name":
        bad = draw(st.sampled_from([name.upper(), name + "x", "", " ", "mcts2", name + " "]))
        return game, _text(bad, params), repr(bad.strip()), bad.strip() != name
    text = _text(name, params)
    broken = draw(st.sampled_from([text + ",", text + ":", text + ",=1", text + ",k", ":k=1",
                                   text.replace("=", "==", 1), text + ",k=1,k=2", text + "\n"]))
    return game, broken, name if name in broken else "''", False  # the message quotes the spec


def check_mutated(game: str, text: str, fault: str, refuse: bool) -> None:
    try:
        REGISTRIES[game].make(text, seed=0)
        assert not refuse, f"{text!r} was accepted"
    except PaijuError as err:
        msg = str(err)
        assert "\n" not in msg.strip(), msg
        # the fault, or another parameter of the agent when the factory refuses a combination
        # first (simulations=0 with seconds=0 before a junk model is looked at)
        name = text.partition(":")[0].strip()
        declared = _defaults(game, name) if name in REGISTRIES[game].names() else {}
        values = [v.strip() for part in text.partition(":")[2].split(",") for v in part.split("=")[1:]]
        named = (fault in msg or (fault == "''" and "empty" in msg) or any(k in msg for k in declared)
                 or any(v and v in msg for v in values))  # a model path is named by its value
        assert named, (text, msg)


@FAST
@given(mutated_specs())
def test_mutated_specs_build_or_name_the_parameter(case: tuple[str, str, str, bool]) -> None:
    """Oracle: builds (unless the mutation is nonsense: an unknown name or parameter, a junk
    file, a number that is no plain decimal), or a PaijuError naming the parameter (or the
    agent name) at fault."""
    check_mutated(*case)


@pytest.mark.parametrize("line", corpus_lines("agent_specs"))
def test_corpus(line: str) -> None:
    """Each committed ``game<TAB>spec<TAB>parameter`` (``{junk}`` a text file, ``{empty}`` an empty
    one): refused with a PaijuError naming the parameter (these were tracebacks, a process
    abort or accepted nonsense)."""
    game, text, fault = line.split("\t")
    text = text.replace("{junk}", JUNK_FILES[0]).replace("{empty}", str(JUNK_DIR / "empty.pt"))
    with pytest.raises(PaijuError) as err:
        REGISTRIES[game].make(text, seed=0)
    assert fault in str(err.value) and "\n" not in str(err.value)
    assert len(str(err.value)) < 300 and not any(len(w) > 60 and w.isdigit() for w in str(err.value).split())


def test_a_huge_number_is_named_briefly() -> None:
    """Oracle: the message of an out-of-range number stays short (a float's repr, not 300 digits)."""
    text = "expectimax:saved_loss=1e308"
    with pytest.raises(PaijuError) as err:
        REGISTRIES["mahjong"].make(text, seed=0)
    assert "saved_loss=1e+308" in str(err.value) and len(str(err.value)) < 200
    assert math.isfinite(float("1e308"))


@pytest.mark.slow
@SLOW
@given(st.one_of(valid_specs().map(lambda s: ("valid", s)), mutated_specs().map(lambda m: ("mutated", m))))
def test_specs_at_length(case: tuple[str, Any]) -> None:
    """Oracle: both properties above, random at length."""
    kind, value = case
    if kind == "valid":
        test_declared_specs_resolve_round_trip_and_build.hypothesis.inner_test(value)  # type: ignore[attr-defined]
    else:
        check_mutated(*value)
