"""The training script, smoke-run as a subprocess with tiny step counts (CleanRL style); its run
folder, and a run stopped after an epoch and rerun ending with the uninterrupted weights."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.agents.policy import load_checkpoint
from paiju.doudizhu.game import DouDizhuGame
from paiju.doudizhu.selfplay import selfplay
from paiju.doudizhu.train_policy import Args, encode_games, main, parse_args, teacher_games


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("teacher")
    selfplay(["greedy", "random", "greedy"], 10, out, seed=2)
    return out


def _argv(records: Path, out: Path, *extra: str) -> list[str]:
    return [
        "--records", str(records), "--teacher", "greedy", "--games", "10", "--hidden", "8", "--layers", "1",
        "--batch-size", "16", "--out", str(out), *extra,
    ]


def _train(records: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "paiju.doudizhu.train_policy", *_argv(records, out, *extra)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_training_script_writes_a_loadable_checkpoint_with_config_and_metrics(
    records: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "m"
    run = _train(records, folder, "--epochs", "2", "--max-steps", "3", "--seed", "4")
    assert run.returncode == 0, run.stderr
    out = folder / "model.pt"
    config = json.loads((folder / "config.json").read_text())
    metrics = json.loads((folder / "metrics.json").read_text())
    assert config["config"]["max_steps"] == 3 and "--max-steps 3" in config["command"]
    assert config["records"][0]["config"]["agents"] == ["greedy", "random", "greedy"]
    assert config["records"][0]["config"]["seed"] == 2
    assert metrics["steps"] == 3 and metrics["train_games"] + metrics["val_games"] == 10
    assert metrics["checkpoint_bytes"] == out.stat().st_size
    lines = [json.loads(x) for x in (folder / "metrics.jsonl").read_text().splitlines()]
    assert lines == metrics["history"] and (folder / "curve.png").is_file()
    net = load_checkpoint(out)
    assert net.arch.hidden == 8 and metrics["parameters"] == sum(p.numel() for p in net.parameters())
    # the trained file is a playable agent
    agents = [REGISTRY.make(f"policy:model={out}", seed=s) for s in range(3)]
    state = play_game(DouDizhuGame(), agents, 0).state
    assert state.is_terminal()
    # the same arguments and seed give the same weights (here run in-process)
    again = tmp_path / "again"
    main(_argv(records, again, "--epochs", "2", "--max-steps", "3", "--seed", "4"))
    retrained = load_checkpoint(again / "model.pt").state_dict()
    for key, tensor in net.state_dict().items():
        assert torch.equal(tensor, retrained[key]), key


def test_bad_arguments_fail_with_a_message(
    records: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        parse_args(["--help"])
    assert info.value.code == 0 and "--hidden" in capsys.readouterr().out
    with pytest.raises(ConfigError, match="records hold only 10 games"):
        main(_argv(records, tmp_path / "x", "--games", "500"))
    with pytest.raises(ConfigError, match=r"--out is the run folder \(the model is its model\.pt\)"):
        main(_argv(records, tmp_path / "x.pt"))


def test_a_run_stopped_after_an_epoch_and_rerun_ends_with_the_uninterrupted_weights(
    records: Path, tmp_path: Path
) -> None:
    whole = main(_argv(records, tmp_path / "whole", "--epochs", "3"))
    stopped = main(_argv(records, tmp_path / "cut", "--epochs", "3", "--stop-after", "1"))
    assert stopped["stopped_after_epoch"] == 1 and not (tmp_path / "cut" / "model.pt").exists()
    with pytest.raises(ConfigError, match=r"another configuration \(lr: 0\.002 there, 0\.5 now\)"):
        main(_argv(records, tmp_path / "cut", "--epochs", "3", "--lr", "0.5"))
    with pytest.raises(ConfigError, match=r"\(workers: 1 there, 2 now\)"):  # the decisions' order
        main(_argv(records, tmp_path / "cut", "--epochs", "3", "--workers", "2"))
    resumed = main(_argv(records, tmp_path / "cut", "--epochs", "3"))
    a, b = (load_checkpoint(tmp_path / run / "model.pt").state_dict() for run in ("whole", "cut"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)

    def untimed(history: list[dict[str, float]]) -> list[dict[str, float]]:
        return [{k: v for k, v in h.items() if k != "time_s"} for h in history]

    assert untimed(resumed["history"]) == untimed(whole["history"]) and len(whole["history"]) == 3
    assert resumed["run_name"] == stopped["run_name"]  # one run over two sittings


def test_decisions_are_the_teachers_real_choices(records: Path) -> None:
    args = parse_args(["--records", str(records), "--teacher", "greedy", "--games", "3", "--out", "x"])
    assert isinstance(args, Args)
    items = teacher_games(args.records, args.teacher, args.games)
    assert [seats for _, _, seats in items] == [(0, 2)] * 3  # the greedy seats, not random's
    examples = encode_games(items)
    total_choices = 0
    for _, record, seats in items:
        game = DouDizhuGame(record.config)
        st = game.new_state_from_deal(record.deal)
        for seat, move in record.plays:
            legal = st.legal_actions()
            total_choices += seat in seats and len(legal) > 1
            st.apply(move)
    assert len(examples) == total_choices > 0
    for decision, target in examples:
        assert 0 <= target < len(decision.move_type) and len(decision.move_type) > 1
