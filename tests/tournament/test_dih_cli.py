"""`paiju dih value` and `paiju dih select`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import ConfigError, InvalidNotationError
from paiju.core.rng import as_generator
from paiju.doudizhu.cards import Deal
from paiju.tournament.dih import dih, dih_of_rounds
from paiju.tournament.distributions import DealDistribution, ScoreDistribution, write_distribution_table
from paiju.tournament.selection import load_pool, select_joint, select_paper

runner = CliRunner()


def _run_json(*args: str) -> dict[str, object]:
    result = runner.invoke(app, ["dih", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_value_json_matches_library() -> None:
    out = _run_json("value", "--dist", "-1:0.6,1:0.4", "--players", "9", "--rounds", "2", "--top", "2")
    assert out["dih"] == pytest.approx(dih(ScoreDistribution.parse("-1:0.6,1:0.4"), 9, 2, 2), rel=1e-15)
    assert out["dih"] == pytest.approx(9 * 0.16 * 0.84**8 + 9 * 0.48 * 0.36**8, rel=1e-13)
    assert (out["players"], out["rounds"], out["top"]) == (9, 2, 2)


def test_value_with_per_round_distributions() -> None:
    dists = ["-1:0.5,1:0.5", "-2:0.3,2:0.7", "0:0.2,3:0.8"]
    args = [x for d in dists for x in ("--dist", d)]
    out = _run_json("value", *args, "-n", "12", "-m", "3", "-r", "3")
    laws = [ScoreDistribution.parse(d) for d in dists]
    assert out["dih"] == pytest.approx(dih_of_rounds(laws, 12, 3), rel=1e-14)


def test_value_text_output() -> None:
    result = runner.invoke(app, ["dih", "value", "--dist=-1:0.6,1:0.4", "-n", "9", "-m", "2", "-r", "2"])
    assert result.exit_code == 0
    assert "DIH = 0.35816" in result.stdout


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--dist", "-1:0.6,1:0.5", "-n", "9", "-m", "2", "-r", "2"], ConfigError),
        (["--dist", "-1:0.6,1.5:0.4", "-n", "9", "-m", "2", "-r", "2"], InvalidNotationError),
        (["--dist", "-1:1.6,1:-0.6", "-n", "9", "-m", "2", "-r", "2"], ConfigError),
        (["--dist", "-1:0.6,1:0.4", "-n", "2", "-m", "2", "-r", "3"], ConfigError),
        (["--dist", "-1:0.6,1:0.4", "--dist", "0:1", "-n", "5", "-m", "3", "-r", "2"], ConfigError),
    ],
)
def test_value_bad_input_raises_paiju_errors(args: list[str], error: type[Exception]) -> None:
    result = runner.invoke(app, ["dih", "value", *args])
    assert isinstance(result.exception, error)


def test_bad_input_exits_2_with_one_line() -> None:
    cmd = [
        sys.executable,
        "-m",
        "paiju.cli.main",
        "dih",
        "value",
        "--dist",
        "-1:0.6,1:0.5",
        "-n",
        "9",
        "-m",
        "2",
    ]
    proc = subprocess.run([*cmd, "-r", "2"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "sum to 1.1" in lines[0]


@pytest.fixture(scope="module")
def pool_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    root = tmp_path_factory.mktemp("dihpool")
    rng = as_generator(21)
    deals = [str(Deal.random(rng).without_kitty()) for _ in range(25)]
    scores = (-4, -3, -2, -1, 1, 2, 3, 4)
    entries = []
    for i, d in enumerate(deals):
        if i % 5 == 0:  # a few deals with a certain bomb: every score doubled
            law = ScoreDistribution((-4, -2, 2, 4), tuple(rng.dirichlet(np.ones(4))))
        else:
            law = ScoreDistribution(scores, tuple(rng.dirichlet(np.ones(8) * 0.7)))
        entries.append(DealDistribution(d, law, 20 if i == 7 else 100))
    dists = root / "dists"
    dists.mkdir()
    write_distribution_table(dists / "part0.parquet", entries[:12])
    write_distribution_table(dists / "part1.parquet", entries[12:])
    pool = root / "pool.txt"
    pool.write_text("\n".join(deals) + "\n", encoding="utf-8")
    return pool, dists, deals


def test_select_paper_json(pool_files: tuple[Path, Path, list[str]]) -> None:
    pool, dists, deals = pool_files
    out = _run_json("select", "--pool", str(pool), "--dists", str(dists), "-n", "10", "-m", "3", "-r", "2")
    expected = select_paper(load_pool(pool, dists).pool, 10, 3, 2)
    assert out["method"] == "paper"
    assert [d["deal"] for d in out["deals"]] == list(expected.deals)
    assert [d["dih"] for d in out["deals"]] == pytest.approx(list(expected.deal_dih), rel=1e-14)
    assert out["set_dih"] == pytest.approx(expected.set_dih, rel=1e-14)
    assert out["excluded"] == [{"deal": deals[7], "plays": 20}]
    assert out["pool_size"] == 24


def test_select_joint_json(pool_files: tuple[Path, Path, list[str]]) -> None:
    pool, dists, _ = pool_files
    out = _run_json(
        "select", "--pool", str(pool), "--dists", str(dists), "-n", "10", "-m", "3", "-r", "2", "--joint"
    )
    expected = select_joint(load_pool(pool, dists).pool, 10, 3, 2)
    assert out["method"] == "joint"
    assert [d["deal"] for d in out["deals"]] == list(expected.deals)
    assert out["set_dih"] >= out["paper_set_dih"]


def test_select_text_and_errors(pool_files: tuple[Path, Path, list[str]], tmp_path: Path) -> None:
    pool, dists, _ = pool_files
    args = ["dih", "select", "--pool", str(pool), "--dists", str(dists), "-n", "10", "-m", "3", "-r", "2"]
    result = runner.invoke(app, [*args, "--joint"])
    assert result.exit_code == 0, result.output
    assert "DIH of this set" in result.stdout and "paper's set" in result.stdout
    result = runner.invoke(app, [*args[:-2], "-r", "11"])
    assert isinstance(result.exception, ConfigError)
    bad_pool = tmp_path / "bad.txt"
    bad_pool.write_text("[3][4][5]\n", encoding="utf-8")
    result = runner.invoke(
        app,
        ["dih", "select", "--pool", str(bad_pool), "--dists", str(dists), "-n", "3", "-m", "1", "-r", "2"],
    )
    assert isinstance(result.exception, InvalidNotationError)
