"""The run folder every trainer writes (paiju.core.run_folder): the layout, the atomic
checkpoint, a resume of another configuration refused by name, the curve, the command line
of a config, and the one fallback for the config.json of runs written before the layout."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import torch

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.run_folder import RunFolder, command_line, config_fields, field_flag, read_config

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Search:
    simulations: int = 64
    hidden: str = field(default="determinize", metadata={"flag": "--search-hidden"})


@dataclass(frozen=True)
class Config:
    out: str
    seed: int = 0
    lr: float = 1e-3
    total_steps: int = field(default=100, metadata={"flag": "--steps"})
    hidden: tuple[int, ...] = (8, 8)
    curve: bool = True
    compact: bool = False
    search: Search = field(default_factory=Search)


def _folder(tmp_path: Path, **changes: Any) -> RunFolder:
    return RunFolder(tmp_path / "run", "train-test", Config(out=str(tmp_path / "run"), **changes),
                     may_change=("out", "total_steps"))


def test_the_layout_names_every_file_of_a_run(tmp_path: Path) -> None:
    run = _folder(tmp_path)
    run.check_start(resume=False)
    assert not run.path.exists()  # a check: nothing written before the run's first file
    names = {p.name for p in (run.config_file, run.checkpoint_file, run.model_file, run.metrics_file,
                              run.summary_file, run.curve_file)}
    assert names == {"config.json", "checkpoint.pt", "model.pt", "metrics.jsonl", "metrics.json", "curve.png"}
    assert all(p.parent == tmp_path / "run" for p in (run.config_file, run.curve_file))


def test_config_json_holds_the_config_its_identity_and_the_command(tmp_path: Path) -> None:
    run = _folder(tmp_path, lr=0.5)
    run.check_start(resume=False)
    run.write_config("paiju x --lr 0.5", data={"rows": 3})
    written = json.loads(run.config_file.read_text())
    assert written["trainer"] == "train-test" and written["command"] == "paiju x --lr 0.5"
    assert written["config"]["lr"] == 0.5 and written["config"]["hidden"] == [8, 8]
    assert written["config"]["search"] == {"simulations": 64, "hidden": "determinize"}
    # the fields a resume may change are not part of the identity
    assert set(written["identity"]) == {"seed", "lr", "hidden", "curve", "compact", "search"}
    assert written["data"] == {"rows": 3}
    assert read_config(run.path) == written


def test_metrics_lines_summary_and_curve(tmp_path: Path) -> None:
    run = _folder(tmp_path)
    run.check_start(resume=False)
    run.write_metrics([{"step": 1, "loss": 2.0}])
    run.append_metrics({"step": 2, "loss": 1.0, "eval": {"win_rate": 0.25}})
    run.append_metrics({"step": 2, "kind": "eval"})  # a line of another kind, without the keys
    assert [m["step"] for m in run.read_metrics()] == [1, 2, 2]
    assert run.metrics_file.read_text().count("\n") == 3
    run.write_metrics(run.read_metrics()[:1])  # a resume drops the lines after its checkpoint
    assert run.read_metrics() == [{"step": 1, "loss": 2.0}]
    run.write_summary({"final_loss": 1.0})
    assert json.loads(run.summary_file.read_text()) == {"final_loss": 1.0}
    run.append_metrics({"step": 2, "loss": 1.0, "eval": {"win_rate": 0.25}})
    path = run.plot_curve({"loss": ["loss"], "evaluation": ["eval.win_rate", "loss"]}, x="step")
    assert path == run.curve_file and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_new_run_refuses_a_folder_that_holds_one_and_a_resume_needs_one(tmp_path: Path) -> None:
    run = _folder(tmp_path)
    with pytest.raises(ConfigError, match=r"holds no checkpoint\.pt to resume from"):
        run.check_start(resume=True)
    run.check_start(resume=False)
    run.save_checkpoint("fmt-1", {"step": 3})
    with pytest.raises(ConfigError, match=r"already holds a training run \(checkpoint.pt\): pass --resume"):
        run.check_start(resume=False)
    run.check_start(resume=True)
    assert run.load_checkpoint("fmt-1")["step"] == 3


def test_the_checkpoint_is_replaced_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _folder(tmp_path)
    run.check_start(resume=False)
    run.save_checkpoint("fmt-1", {"weights": torch.arange(4), "step": 1})

    def killed(payload: Any, path: Any) -> None:  # half a file written, then the process dies
        Path(path).write_bytes(b"half a checkpoint")
        raise KeyboardInterrupt

    monkeypatch.setattr(torch, "save", killed)
    with pytest.raises(KeyboardInterrupt):
        run.save_checkpoint("fmt-1", {"weights": torch.arange(4) * 2, "step": 2})
    monkeypatch.undo()
    state = run.load_checkpoint("fmt-1")
    assert state["step"] == 1 and torch.equal(state["weights"], torch.arange(4))
    assert state["format"] == "fmt-1" and state["identity"] == run.identity


def test_a_resume_of_another_configuration_is_refused_naming_the_fields(tmp_path: Path) -> None:
    first = _folder(tmp_path, lr=0.1)
    first.check_start(resume=False)
    first.save_checkpoint("fmt-1", {})
    with pytest.raises(ConfigError, match=r"another configuration \(lr: 0.1 there, 0.2 now\); resume it"):
        _folder(tmp_path, lr=0.2).load_checkpoint("fmt-1")
    with pytest.raises(ConfigError, match=r"search: .*\"hidden\": \"determinize\".* there, .*opponent"):
        _folder(tmp_path, lr=0.1, search=Search(hidden="opponent")).load_checkpoint("fmt-1")
    with pytest.raises(CorruptRecordError, match="is not a fmt-2 file"):
        _folder(tmp_path, lr=0.1).load_checkpoint("fmt-2")
    # a field a run may change between sittings is not checked
    assert _folder(tmp_path, lr=0.1, total_steps=500).load_checkpoint("fmt-1")["format"] == "fmt-1"


def test_a_setting_added_since_a_checkpoint_reads_as_its_default(tmp_path: Path) -> None:
    run = _folder(tmp_path)
    run.check_start(resume=False)
    run.path.mkdir()
    older = {k: v for k, v in run.identity.items() if k != "compact"}  # saved before compact existed
    older["search"] = {"simulations": 64}  # and before search.hidden
    torch.save({"format": "fmt-1", "identity": older}, run.checkpoint_file)
    assert run.load_checkpoint("fmt-1")["identity"] == older
    with pytest.raises(ConfigError, match=r"\(compact: false there, true now\)"):
        _folder(tmp_path, compact=True).load_checkpoint("fmt-1")


def test_a_checkpoint_from_before_the_run_folder_is_read_through_its_legacy_identity(tmp_path: Path) -> None:
    run = _folder(tmp_path)
    run.check_start(resume=False)
    run.path.mkdir()
    torch.save({"format": "fmt-1", "config": {**run.identity, "total_steps": 9}}, run.checkpoint_file)
    with pytest.raises(CorruptRecordError, match="without its identity"):
        run.load_checkpoint("fmt-1")

    def legacy(payload: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in payload["config"].items() if k != "total_steps"}

    assert run.load_checkpoint("fmt-1", legacy_identity=legacy)["config"]["total_steps"] == 9
    with pytest.raises(ConfigError, match="seed: 0 there, 1 now"):
        _folder(tmp_path, seed=1).load_checkpoint("fmt-1", legacy_identity=legacy)


def test_the_config_json_of_a_run_before_the_layout_reads_through_the_fallback() -> None:
    old = ROOT / "training" / "mj-ddqn-adv"
    record = read_config(old)
    assert record["format"] is None and record["command"] is None
    assert record["config"] == json.loads((old / "config.json").read_text())
    assert record["config"]["algorithm"] == "ddqn"


def test_read_config_refuses_what_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no config\.json"):
        read_config(tmp_path)
    (tmp_path / "config.json").write_text("[1, 2")
    with pytest.raises(CorruptRecordError, match="not JSON"):
        read_config(tmp_path)


def test_the_command_line_of_a_config_gives_what_differs_from_the_defaults() -> None:
    cfg = Config(out="runs/x", lr=0.5, total_steps=7, hidden=(4,), curve=False, compact=True,
                 search=Search(hidden="opponent-policy"))
    line = command_line(["paiju", "train", "--out", "runs/x"], cfg, skip=("out",))
    assert shlex.split(line) == ["paiju", "train", "--out", "runs/x", "--lr", "0.5", "--steps", "7",
                                 "--hidden", "4", "--no-curve", "--compact", "--search-hidden",
                                 "opponent-policy"]
    assert command_line(["paiju", "train"], Config(out="o"), skip=("out",)) == "paiju train"
    nested = Config(out="o", search=Search(simulations=9))
    assert command_line(["p"], nested, skip=("out", "search.simulations")) == "p"


def test_flags_come_from_the_field_name_or_its_metadata() -> None:
    flags = {path: field_flag(f) for path, f in config_fields(Config)}
    assert flags == {"out": "--out", "seed": "--seed", "lr": "--lr", "total_steps": "--steps",
                     "hidden": "--hidden", "curve": "--curve", "compact": "--compact",
                     "search.simulations": "--simulations", "search.hidden": "--search-hidden"}


def test_importing_the_run_folder_loads_neither_torch_nor_matplotlib() -> None:
    code = ("import sys, paiju.core.run_folder; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'matplotlib', 'numpy'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"
