"""The one-hand CLI commands and the string APIs start fast: they never import the heavy
libraries (issue 12 §4, issue 43 §4).

A bot restarted for every move runs ``paiju ddz moves ...`` once per move, or calls
``paiju.doudizhu.legal_moves`` / ``paiju.mahjong.shanten`` from a fresh process, so those, and
``--help``, must not load torch, the data stack or the web stack (nor, for the string APIs,
the CLI framework, nor numpy: the shanten tables are shipped). This is checked as an invariant
(which modules a fresh interpreter has loaded afterwards), not as a timing; the times are
measured by ``benchmarks/first_call.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = (
    "torch",
    "numpy",
    "pandas",
    "pyarrow",
    "duckdb",
    "fastapi",
    "uvicorn",
    "starlette",
    "ray",
    "matplotlib",
    "xgboost",
    "scipy",
    "sklearn",
)

# The child runs the real entry point in a fresh interpreter, then reports what got imported.
CHILD = """
import json, sys
argv, heavy = json.loads(sys.argv[1]), set(json.loads(sys.argv[2]))
sys.argv = ["paiju", *argv]
from paiju.cli.main import main
try:
    main()
    code = 0
except SystemExit as exit:
    code = exit.code
print(json.dumps({"code": code, "loaded": sorted({name.split(".")[0] for name in sys.modules} & heavy)}))
"""


def run_cli(argv: list[str]) -> dict:
    command = [sys.executable, "-c", CHILD, json.dumps(argv), json.dumps(HEAVY)]
    out = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["ddz", "moves", "33344455566678TKKA2", "--beat", "3456789"],
        ["ddz", "moves", "34445556789TA22XD"],
        ["ddz", "split", "34445556789TA22XD"],
        ["mahjong", "shanten", "123m456p789s1122z"],
        ["mahjong", "shanten", "1234m"],
    ],
)
def test_one_hand_commands_import_no_heavy_library(argv: list[str]) -> None:
    result = run_cli(argv)
    assert result["code"] in (0, None), result
    assert result["loaded"] == [], f"paiju {' '.join(argv)} imported {result['loaded']}"


def test_the_check_sees_a_heavy_import() -> None:
    """The invariant can fail: a command that does use numpy (drawing a deal) shows it."""
    result = run_cli(["ddz", "deal", "--seed", "7"])
    assert "numpy" in result["loaded"]


# A fresh interpreter answers through each public string API, then reports what got imported
# (every dotted prefix, so that a submodule such as paiju.mahjong.game can be named).
API_CHILD = """
import json, sys
code = sys.argv[1]
exec(code)
names = set()
for name in sys.modules:
    parts = name.split(".")
    names.update(".".join(parts[: i + 1]) for i in range(len(parts)))
print(json.dumps(sorted(names)))
"""

NOT_FOR_THE_API = (*HEAVY, "rich", "typer", "click", "paiju.cli")

API_CALLS = {
    "legal_moves": (
        "import paiju.doudizhu as d; assert d.legal_moves('33344455566678TKKA2', '34567');"
        " assert d.legal_moves('34445556789TA22XD')"
    ),
    "shanten": (
        "import paiju.mahjong as m; assert m.shanten('123m456p789s1122z') == 0;"
        " assert m.shanten('1m2m3m 456p789s1122z') == 0;"
        " assert m.effective_tiles('1234m') == {'1m': 3, '4m': 3}"
    ),
}


def api_modules(code: str) -> set[str]:
    command = [sys.executable, "-c", API_CHILD, code]
    out = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("api", sorted(API_CALLS))
def test_the_string_apis_import_no_heavy_module(api: str) -> None:
    loaded = api_modules(API_CALLS[api])
    assert sorted(loaded & set(NOT_FOR_THE_API)) == []
    # nor the parts of paiju a string answer does not need: the engines and the Move classes
    engines = {"paiju.mahjong.game", "paiju.mahjong.scoring", "paiju.doudizhu.game", "paiju.doudizhu.moves",
               "paiju.doudizhu.movegen", "paiju.core.rng"}
    assert sorted(loaded & engines) == []


def test_the_api_check_sees_a_heavy_import() -> None:
    """The check can fail: drawing a deal (numpy's generator) shows numpy and the RNG module."""
    loaded = api_modules("from paiju.doudizhu import Deal; Deal.random(7)")
    assert {"numpy", "paiju.core.rng"} <= loaded


RUN_CLI = "import sys\nfrom paiju.cli.main import run\nrun({argv!r})"


def test_help_imports_no_sub_app_module() -> None:
    """``paiju --help`` lists the commands by name: no ``paiju.cli`` sub-app module is loaded."""
    from paiju.cli.main import COMMANDS, GROUPS

    modules = {module for module, *_ in [*GROUPS.values(), *COMMANDS.values()]}
    assert sorted(api_modules(RUN_CLI.format(argv=["--help"])) & modules) == []
    # the same check sees the sub-app module a command line names
    loaded = api_modules(RUN_CLI.format(argv=["mahjong", "shanten", "123m456p789s1122z"])) & modules
    assert loaded == {"paiju.cli.mahjong"}
