"""`paiju dih validate`, `paiju dih dists`, `paiju dih pool` end to end (tiny configurations)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import ConfigError
from paiju.core.records import import_jsonl
from paiju.tournament.distributions import read_distribution_table
from paiju.tournament.population import random_pool, write_pool_file
from paiju.tournament.selection import read_pool_file
from paiju.tournament.validate import CONFIG_DIR, DEFAULT_CONFIG, ValidationConfig

runner = CliRunner()

TINY_CONFIG = """
name = "tiny"
seed = 3
workers = 1
pool = "pool.txt"
[population]
landlord = ["random", "greedy", "rule"]
farmer1 = ["random", "greedy~0.5"]
farmer2 = ["random"]
[distributions]
plays = 0
min_plays = 1
[tournament]
unique_awards = [1]
players = [3, 4]
rounds = [1, 2]
tournaments = 40
ability_deals = 4
methods = ["paper", "joint"]
"""


def _tiny(tmp_path: Path) -> Path:
    write_pool_file(tmp_path / "pool.txt", random_pool(8, seed=2))
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(TINY_CONFIG)
    return cfg


def test_validate_end_to_end(tmp_path: Path) -> None:
    cfg = _tiny(tmp_path)
    plot = tmp_path / "v.png"
    args = ["dih", "validate", "--config", str(cfg), "--plot", str(plot), "--cache", str(tmp_path / "cache")]
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["combinations"] == 6 and data["pool_size"] == 8
    assert data["games"] == 6 * 8 + 8 * 6
    rows = data["results"]
    assert [(r["players"], r["rounds"], r["top"]) for r in rows] == [
        (3, 1, 1),
        (3, 2, 1),
        (4, 1, 1),
        (4, 2, 1),
    ]
    for r in rows:
        assert r["p1"]["n"] == 40 and 0 <= r["p1"]["value"] <= 1
        assert set(r["p2"]) == {"paper", "joint"}
        assert len(r["selected"]["paper"]) == r["rounds"]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The text table from the cached games: same numbers, one row per setting.
    res2 = runner.invoke(app, args)
    assert res2.exit_code == 0, res2.output
    assert "P1 random" in res2.output and "gain paper" in res2.output


def test_validate_holdout_uses_the_other_half(tmp_path: Path) -> None:
    cfg = _tiny(tmp_path)
    held = tmp_path / "held.toml"
    # 3 landlords x 2 x 1: laws from landlords random and rule (4 combinations), players greedy's 2.
    held.write_text(
        TINY_CONFIG.replace("plays = 0", "plays = 0\nholdout = true").replace(
            "players = [3, 4]", "players = [2]"
        )
    )
    args = [
        "dih",
        "validate",
        "--config",
        str(held),
        "--plot",
        str(tmp_path / "h.png"),
        "--cache",
        str(tmp_path / "c"),
    ]
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["holdout"] and data["combinations"] == 2
    bad = tmp_path / "bad.toml"
    bad.write_text(held.read_text().replace("players = [2]", "players = [3]"))
    with pytest.raises(ConfigError, match="3 players but the population has 2 playing"):
        ValidationConfig.from_toml(bad)
    assert cfg.exists()


def test_validate_config_errors(tmp_path: Path) -> None:
    cfg = _tiny(tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text(TINY_CONFIG.replace("players = [3, 4]", "players = [3, 40]"))
    res = runner.invoke(app, ["dih", "validate", "--config", str(bad)])
    assert isinstance(res.exception, ConfigError)
    with pytest.raises(ConfigError, match="40 players but the population has 6 playing"):
        ValidationConfig.from_toml(bad)
    bad.write_text(TINY_CONFIG + "\nsurprise = 1\n")
    with pytest.raises(ConfigError, match="unknown key"):
        ValidationConfig.from_toml(bad)
    with pytest.raises(ConfigError, match="not valid TOML"):
        bad.write_text("pool = ")
        ValidationConfig.from_toml(bad)
    assert ValidationConfig.from_toml(cfg).players == (3, 4)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("tournaments = 40", "tournaments = 1000001", "tournaments = 1000001 is above the maximum"),
        ("rounds = [1, 2]", "rounds = [1, 61]", "tournament.rounds = 61 is above the maximum 60"),
        ("plays = 0", "plays = 100001", "distributions.plays = 100001 is above the maximum 100000"),
        ("workers = 1", "workers = 257", "workers = 257 is above the maximum 256"),
    ],
)
def test_validate_config_counts_are_bounded(tmp_path: Path, old: str, new: str, message: str) -> None:
    _tiny(tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text(TINY_CONFIG.replace(old, new))
    with pytest.raises(ConfigError, match=message):
        ValidationConfig.from_toml(bad)


def test_shipped_configs_load() -> None:
    default = ValidationConfig.from_toml(DEFAULT_CONFIG)
    assert (
        default.players == (10, 20, 30) and default.rounds == (2, 3, 4, 5) and default.unique_awards == (1,)
    )
    assert default.pool.exists() and len(default.population) == 96
    paper = ValidationConfig.from_toml(CONFIG_DIR / "validate-paper.toml")
    assert len(paper.population) == 9 * 7 * 7 and paper.tournaments == 1000
    assert sum(1 for line in paper.pool.read_text().splitlines() if line and not line.startswith("#")) == 4000


def test_dists_command_simulated_and_from_records(tmp_path: Path) -> None:
    write_pool_file(tmp_path / "pool.txt", random_pool(3, seed=9))
    out = tmp_path / "d.parquet"
    pop = "landlord=random|greedy;farmer1=random"
    res = runner.invoke(
        app,
        [
            "dih",
            "dists",
            "--pool",
            str(tmp_path / "pool.txt"),
            "--out",
            str(out),
            "--plays",
            "5",
            "--population",
            pop,
            "--seed",
            "1",
            "--workers",
            "1",
        ],
    )
    assert res.exit_code == 0, res.output
    table = read_distribution_table(out)
    assert len(table) == 3 and all(v.plays == 5 for v in table.values())
    # From records: the same deals with fixed scores.
    deals = list(table)
    lines = [
        json.dumps(
            {"game": "doudizhu", "deal": deals[k % 3], "score": 1 if k % 2 else -2, "returns": [0, 0, 0]}
        )
        for k in range(12)
    ]
    (tmp_path / "log.jsonl").write_text("\n".join(lines))
    import_jsonl(tmp_path / "log.jsonl", tmp_path / "rec")
    out2 = tmp_path / "r.parquet"
    res = runner.invoke(
        app, ["dih", "dists", "--records", str(tmp_path / "rec"), "--out", str(out2), "--min-plays", "4"]
    )
    assert res.exit_code == 0, res.output
    rec = read_distribution_table(out2)
    assert {d: v.plays for d, v in rec.items()} == {d: 4 for d in deals}
    # deal k%3 == 0 gets k = 0, 3, 6, 9: scores -2, 1, -2, 1
    assert rec[deals[0]].distribution.as_dict() == {-2: 0.5, 1: 0.5}
    res = runner.invoke(app, ["dih", "dists", "--out", str(out2)])
    assert isinstance(res.exception, ConfigError) and "exactly one of --pool" in str(res.exception)


def test_pool_command(tmp_path: Path) -> None:
    out = tmp_path / "p.txt"
    res = runner.invoke(app, ["dih", "pool", "--out", str(out), "--count", "5", "--seed", "4"])
    assert res.exit_code == 0, res.output
    assert read_pool_file(out) == random_pool(5, 4)


def test_a_config_section_that_is_not_a_table_is_refused(tmp_path: Path) -> None:
    _tiny(tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text("tournament = 3\n" + TINY_CONFIG.split("[tournament]")[0])
    with pytest.raises(ConfigError, match=r"\[tournament\] must be a table of keys, not 3"):
        ValidationConfig.from_toml(bad)
