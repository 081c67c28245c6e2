"""The one-hand CLI commands start fast: they never import the heavy libraries (issue 12 §4).

A bot restarted for every move runs ``paiju ddz moves ...`` once per move, so the commands that
answer one hand, and ``--help``, must not load torch, the data stack or the web stack. This is
checked as an invariant (which modules a fresh interpreter has loaded after the command ran),
not as a timing; the wall times are measured by ``benchmarks/first_call.py``.
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
