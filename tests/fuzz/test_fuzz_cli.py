"""Fuzz every `paiju` command's arguments, in-process through `paiju.cli.main.run` (the console
script's body, which prints every error as one line).

The commands are enumerated from the Typer app (the click command tree; the same walk as
tests/cli/test_cli_bad_input.py, whose helper is reused). Two modes:

- **parsing**, for every option and argument of every command: the commands' bodies are
  replaced by a stub, so nothing long ever runs; bad values of each parameter's type (not a
  number, NaN, out of the declared range, an empty or NUL path) must be refused while the
  command line is parsed, and random text must either reach the stub (a value the body
  then checks) or be refused;
- **running**, for the cheap commands that take notation (`ddz moves`, `mahjong shanten`,
  `mahjong score`, `dih value`): random text in their real bodies.

Oracle: exit 0, or exit 2 with one line on stderr (naming the option, for a value of a
type the parser knows); never a traceback, never a silent success on nonsense (a value that
is no number of the declared range reaching a command).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import typer.main
from fuzzing import FAST, SLOW, corpus_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.cli.main import app, run

_spec = importlib.util.spec_from_file_location(
    "cli_bad_input", Path(__file__).parents[1] / "cli" / "test_cli_bad_input.py"
)
assert _spec is not None and _spec.loader is not None
bad_input = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bad_input)

# ---- the stubbed command tree ------------------------------------------------------------------

ROOT: Any = typer.main.get_command(app)
CALLED: list[dict[str, Any]] = []
LEAVES: dict[str, Any] = {}


def _stub(cmd: Any, path: tuple[str, ...]) -> None:
    subs = getattr(cmd, "commands", None)
    if subs:
        for name, sub in subs.items():
            _stub(sub, (*path, name))
        return
    cmd.callback = lambda *args, **kwargs: CALLED.append(kwargs)
    LEAVES[" ".join(path)] = cmd


_stub(ROOT, ())


@contextlib.contextmanager
def stubbed() -> Iterator[None]:
    """`run` builds its command from the app; here it gets the tree whose bodies are stubs."""
    with mock.patch.object(typer.main, "get_command", lambda _app: ROOT):
        yield


def paiju(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(argv)
    return code, out.getvalue(), err.getvalue()


def _one_line_or_success(argv: list[str], code: int, out: str, err: str) -> None:
    assert "Traceback" not in out + err, (argv, err)
    if code != 0:
        assert code == 2 and len(err.strip().splitlines()) == 1, (argv, code, err)
        assert err.startswith("error: "), (argv, err)


def test_the_walk_finds_every_command() -> None:
    """The stubbed tree has the commands the bad-input table enumerates."""
    assert set(LEAVES) == bad_input._command_paths()


# ---- parameters and their bad values ----------------------------------------------------------


def _kind(param: Any) -> str:
    ann = str(param.type_descriptor.annotation)
    if getattr(param, "is_flag", False) or "bool" in ann:
        return "flag"
    if "int" in ann and "Path" not in ann:
        return "int"
    if "float" in ann:
        return "float"
    if getattr(param.type_descriptor.parameter_info, "parser", None) is not None or "Path" in ann:
        return "path"
    return "text"


PARAMS: list[tuple[str, Any]] = [
    (path, p) for path, cmd in sorted(LEAVES.items()) for p in cmd.params if _kind(p) != "flag"
]


def _argv(path: str, param: Any, value: str) -> list[str]:
    opt = [o for o in param.opts if o.startswith("--")]
    if opt:
        return [*path.split(), f"{opt[0]}={value}"]
    return [*path.split(), "--", value]  # a positional argument ("--": a value may start with -)


def _named(param: Any, err: str) -> bool:
    names = [*param.opts, param.name, param.name.upper(), param.name.replace("_", "-")]
    return any(f"'{n}'" in err or f"{n}" in err for n in names if n)


def _bad_values(param: Any) -> list[str]:
    kind = _kind(param)
    if kind in ("int", "float"):
        values = ["x", "", "nan", "inf", "1e999"]
        values += ["1.5"] if kind == "int" else []
        if param.min is not None:
            values.append(str(param.min - 1) if kind == "int" else repr(float(param.min) - 1.0))
        if param.max is not None:  # (three indices have no maximum: an index not found is the body's)
            values.append(str(param.max + 1) if kind == "int" else repr(float(param.max) + 1.0))
            values.append("9" * 30)
        return values
    if kind == "path":
        return ["", "  "]  # (a NUL cannot come from a command line: argv is C strings)
    return []


def _first_or_option(path: str, param: Any) -> bool:
    """An option, or a command's first positional argument (a later one would be read after
    the earlier ones, which these command lines leave out)."""
    if any(o.startswith("-") for o in param.opts):
        return True
    positional = [p for p in LEAVES[path].params if not any(o.startswith("-") for o in p.opts)]
    return positional[0] is param


BAD: list[tuple[str, Any, str]] = [
    (path, p, v) for path, p in PARAMS if _first_or_option(path, p) for v in _bad_values(p)
]


def _refused_while_parsing(path: str, param: Any, value: str) -> None:
    CALLED.clear()
    argv = _argv(path, param, value)
    code, _, err = paiju(argv)
    assert not CALLED, f"{argv}: nonsense reached the command: {CALLED}"
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (argv, code, err)
    assert _named(param, err), (argv, err)


def test_every_parameter_refuses_bad_values_of_its_type_while_parsing() -> None:
    """Oracle: exit 2, one line naming the option, the command never reached (every option and
    argument of every command: numbers that are not numbers or out of range, bad paths)."""
    assert len(BAD) > 300
    with stubbed():
        for path, param, value in BAD:
            _refused_while_parsing(path, param, value)


def _accepts_only_numbers_in_range(param: Any, value: Any) -> None:
    kind = _kind(param)
    if kind not in ("int", "float") or value is None:
        return
    if isinstance(value, list | tuple):
        for v in value:
            _accepts_only_numbers_in_range(param, v)
        return
    assert isinstance(value, int | float) and math.isfinite(value), value
    assert (param.min is None or value >= param.min) and (param.max is None or value <= param.max), value


texts = st.one_of(
    st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=12),
    st.sampled_from(["-1", "0", "1", "-0", "1e3", "0x1", "1_0", "٣"]),
)


def _parse_random(path: str, param: Any, value: str) -> None:
    CALLED.clear()
    argv = _argv(path, param, value)
    code, out, err = paiju(argv)
    _one_line_or_success(argv, code, out, err)
    for kwargs in CALLED:  # what reached the command is a value of the declared type and range
        _accepts_only_numbers_in_range(param, kwargs.get(param.name))


@FAST
@given(st.sampled_from(PARAMS), texts)
def test_random_text_in_any_parameter(case: tuple[str, Any], value: str) -> None:
    """Oracle: exit 0 (the stub reached with a value of the declared type and range) or exit 2
    with one line; never a traceback."""
    with stubbed():
        _parse_random(case[0], case[1], value)


# ---- the cheap commands, run for real ---------------------------------------------------------

RUNNABLE = {
    "ddz moves": lambda a, b: ["ddz", "moves", "--", a] + (["--beat", b] if b else []),
    "mahjong shanten": lambda a, b: ["mahjong", "shanten", "--", a],
    "mahjong score": lambda a, b: ["mahjong", "score", "--win", b or "1m", "--", a],
    "mahjong score melds": lambda a, b: ["mahjong", "score", "1m", "--win", "1m", "--melds", a, "--flags", b],
    "dih value": lambda a, b: ["dih", "value", "--players", "3", "--dist", a],
}
notation = st.one_of(
    st.text(alphabet="3456789TJQKA2XD1mpsz[]+,:.- f", max_size=20), st.text(max_size=12),
    st.sampled_from(["123456m789p23467s55p", "3344556789TJQKA22", "-1:0.5,1:0.5", "555z", "self-draw"]),
)


@settings(FAST, max_examples=100)
@given(st.sampled_from(sorted(RUNNABLE)), notation, notation)
def test_random_notation_in_the_cheap_commands(name: str, a: str, b: str) -> None:
    """Oracle: exit 0 or exit 2 with one line; never a traceback (the real bodies)."""
    argv = RUNNABLE[name](a, b)
    code, out, err = paiju(argv)
    _one_line_or_success(argv, code, out, err)


# ---- the committed corpus ---------------------------------------------------------------------


@pytest.mark.parametrize("line", corpus_lines("cli"))
def test_corpus(line: str, tmp_path: Path) -> None:
    """Each committed command line (tab-separated arguments, ``{tmp}`` an empty folder): exit 2
    with one line (these were tracebacks or silent successes on nonsense). Parsed with the
    stubbed bodies, so a regression cannot start a long run or a server; a line starting
    ``run<TAB>`` runs its real body (the refusal happens there)."""
    real = line.startswith("run\t")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in line.removeprefix("run\t").split("\t")]
    CALLED.clear()
    with contextlib.nullcontext() if real else stubbed():
        code, _, err = paiju(argv)
    assert not CALLED and code == 2, (argv, code, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (argv, err)


# ---- at length (make test-slow) ---------------------------------------------------------------


@pytest.mark.slow
@SLOW
@given(st.sampled_from(PARAMS), st.text(max_size=40))
def test_random_text_in_any_parameter_at_length(case: tuple[str, Any], value: str) -> None:
    """Oracle: the parsing mode's, random at length."""
    with stubbed():
        _parse_random(case[0], case[1], value)


@pytest.mark.slow
@SLOW
@given(st.sampled_from(sorted(RUNNABLE)), notation, notation)
def test_random_notation_at_length(name: str, a: str, b: str) -> None:
    """Oracle: the running mode's, random at length."""
    argv = RUNNABLE[name](a, b)
    code, out, err = paiju(argv)
    _one_line_or_success(argv, code, out, err)
