"""The tagger's training command on a tiny dataset: outputs, seeding, resume = uninterrupted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import ConfigError
from paiju.doudizhu.selfplay import selfplay
from paiju.doudizhu.tagger.data import build_rows, write_dataset
from paiju.doudizhu.tagger.model import load_model
from paiju.doudizhu.tagger.train import TrainConfig, train

runner = CliRunner()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tagger")
    selfplay(["rule"], 60, root / "rec", seed=3)
    selfplay(["greedy"], 12, root / "held", seed=4)
    rows, _ = build_rows([root / "rec"], [root / "held"], validation=0.2)
    return write_dataset(rows, root / "tiny.parquet")


def _config(data: Path, out: Path, epochs: int) -> TrainConfig:
    return TrainConfig(data=str(data), out=str(out), epochs=epochs, batch_size=16, embedding=8, hidden=8,
                       progress=False)


def _weights(out: Path) -> dict[str, torch.Tensor]:
    state: dict[str, torch.Tensor] = torch.load(out / "checkpoint.pt", weights_only=True)["model"]
    return state


def test_resumed_run_ends_with_the_uninterrupted_weights(tiny: Path, tmp_path: Path) -> None:
    whole = train(_config(tiny, tmp_path / "whole", 3))
    train(_config(tiny, tmp_path / "split", 1))  # "interrupted" after one epoch
    resumed = train(_config(tiny, tmp_path / "split", 3))
    a, b = _weights(tmp_path / "whole"), _weights(tmp_path / "split")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert whole["epochs"] == resumed["epochs"] and len(whole["epochs"]) == 3
    # another seed gives other weights: the equality above is not vacuous
    other = tmp_path / "other"
    train(TrainConfig(**{**_config(tiny, other, 1).__dict__, "seed": 1}))
    c = _weights(other)
    assert not all(torch.equal(a[k], c[k]) for k in a)


def test_outputs_metrics_curve_and_model(tiny: Path, tmp_path: Path) -> None:
    metrics = train(_config(tiny, tmp_path, 2))
    for name in ("config.json", "checkpoint.pt", "model.pt", "metrics.jsonl", "metrics.json", "curve.png"):
        assert (tmp_path / name).is_file(), name
    lines = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert lines == metrics["epochs"] and json.loads((tmp_path / "metrics.json").read_text()) == metrics
    test = metrics["test"]
    assert test["all"]["tagger"]["hands"] == 12 and "source=greedy" in test
    for name in ("heuristic", "exact_groups", "exact_plays"):
        assert 0 < test["all"][name]["per_card"] <= 1
    written = json.loads((tmp_path / "config.json").read_text())
    assert written["config"]["epochs"] == 2 and written["trainer"] == "tagger-train"
    assert written["command"] == f"paiju ddz tagger-train --data {tiny} --out {tmp_path} --epochs 2 " \
        "--batch-size 16 --embedding 8 --hidden 8"  # what differs from the defaults; progress is no option
    assert load_model(tmp_path / "model.pt").config.hidden == 8


def test_resume_with_another_config_is_refused(tiny: Path, tmp_path: Path) -> None:
    train(_config(tiny, tmp_path, 1))
    with pytest.raises(ConfigError, match=r"another configuration \(hidden: 8 there, 9 now\)"):
        train(TrainConfig(**{**_config(tiny, tmp_path, 2).__dict__, "hidden": 9}))


def test_cli_trains_and_reports(tiny: Path, tmp_path: Path) -> None:
    args = ["ddz", "tagger-train", "--data", str(tiny), "--out", str(tmp_path), "--epochs", "1"]
    res = runner.invoke(app, [*args, "--hidden", "8", "--embedding", "8", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["best_epoch"] == 1
    missing = str(tmp_path / "nope.parquet")
    res = runner.invoke(app, ["ddz", "tagger-train", "--data", missing, "--out", str(tmp_path)])
    assert res.exit_code == 2


def test_by_source_reads_each_rows_source_and_resumes(tiny: Path, tmp_path: Path) -> None:
    from paiju.doudizhu.tagger.data import read_dataset

    def config(out: Path, epochs: int, by_source: str = "rule") -> TrainConfig:
        return TrainConfig(**{**_config(tiny, out, epochs).__dict__, "by_source": by_source})

    # the tiny set trains on rule only and tests on greedy: an unknown source is refused up front
    with pytest.raises(ConfigError, match="unknown tagger source 'greedy'"):
        train(config(tmp_path / "a", 1))
    rows = [r for r in read_dataset(tiny) if r["split"] != "test"]
    half = len(rows) // 2
    for r in rows[:half]:  # two training sources
        r["source"] = "search"
    data = write_dataset(rows, tmp_path / "two.parquet")

    def two(out: Path, epochs: int, by_source: str = "search") -> TrainConfig:
        return TrainConfig(**{**_config(data, out, epochs).__dict__, "by_source": by_source})

    with pytest.raises(ConfigError, match="not one of its sources"):
        train(two(tmp_path / "b", 1, "xgb"))
    whole = train(two(tmp_path / "whole", 2))
    train(two(tmp_path / "split", 1))
    assert train(two(tmp_path / "split", 2))["epochs"] == whole["epochs"]
    model = load_model(tmp_path / "whole" / "model.pt")
    assert model.config.sources == ("rule", "search") and model.config.default_source == "search"
    with pytest.raises(ConfigError, match="another config"):  # by_source is part of the identity
        train(TrainConfig(**{**two(tmp_path / "whole", 3).__dict__, "by_source": ""}))


def test_train_limit_trains_on_that_many_hands(tiny: Path, tmp_path: Path) -> None:
    from paiju.doudizhu.tagger.data import read_dataset

    rows = read_dataset(tiny)
    for i, r in enumerate(rows):
        if r["split"] == "train" and i % 2:
            r["source"] = "search"
    data = write_dataset(rows, tmp_path / "mixed.parquet")
    metrics = train(TrainConfig(**{**_config(data, tmp_path / "lim", 1).__dict__, "train_limit": 20}))
    assert metrics["epochs"][0]["train_hands"] == 20
