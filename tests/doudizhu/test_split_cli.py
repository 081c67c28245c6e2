"""`paiju ddz split`."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import ConfigError, InvalidNotationError
from paiju.doudizhu.split import Split, min_groups, min_plays

runner = CliRunner()


def test_split_prints_groups_types_plays_and_tags() -> None:
    res = runner.invoke(app, ["ddz", "split", "DX22AT98765554443"])
    assert res.exit_code == 0, res.output
    out = res.output
    for text in ("3456789T", "solo chain", "rocket", "pair", "tags:   00110110000001133", "groups: 6"):
        assert text in out


def test_split_json_exact_plays() -> None:
    res = runner.invoke(app, ["ddz", "split", "2AKKKQQ9998888555", "--objective", "plays", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert d["method"] == "exact" and d["objective"] == "plays"
    assert d["num_plays"] == min_plays("2AKKKQQ9998888555") == 3
    s = Split.parse(d["split"])
    assert s.tags() == d["tags"] and str(s.hand) == d["hand"] == "5558888999QQKKKA2"
    assert {p["kind"] for p in d["plays"]} == {"trio with pair", "airplane with wings", "trio with solo"}
    assert [g["type"] for g in d["groups"]] == [g.type.value for g in s]


def test_split_json_heuristic() -> None:
    res = runner.invoke(app, ["ddz", "split", "3445566778", "-m", "heuristic", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert d["split"] == "3 44556677 8" and d["num_groups"] == 3 > min_groups("3445566778")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from paiju.cli.main import main; sys.argv = ['paiju', *sys.argv[1:]]; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)


def test_split_bad_input_exits_2_with_one_line() -> None:
    for args, message in (
        (("ddz", "split", "33Z"), "unknown card 'Z'"),
        (("ddz", "split", "33", "--method", "greedy"), "unknown split method 'greedy'"),
    ):
        res = run_cli(*args)
        assert res.returncode == 2, (args, res.stderr)
        assert message in res.stderr and "Traceback" not in res.stderr
        assert res.stderr.strip().count("\n") == 0


def test_split_bad_input_raises_the_engine_errors() -> None:
    for args, error, message in (
        (("ddz", "split", "33333"), InvalidNotationError, "only 4 in the deck"),
        (("ddz", "split", "XXD"), InvalidNotationError, "there is only one"),
        (("ddz", "split", "33", "--objective", "cards"), ConfigError, "unknown split objective 'cards'"),
        (("ddz", "split", "33", "-m", "heuristic", "-o", "plays"), ConfigError, "groups only"),
    ):
        res = runner.invoke(app, list(args))
        assert isinstance(res.exception, error), (args, res.exception)
        assert message in str(res.exception)
