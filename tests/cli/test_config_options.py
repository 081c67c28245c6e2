"""A config dataclass as a command's options (paiju.cli.config_options): flag, type, default,
range and help from each field, the values back as the config's arguments, and the config
module imported only when its command is used."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
from typer.testing import CliRunner

from paiju.cli.config_options import command_line, config_command, config_options, config_values
from paiju.cli.validate import MAX_SEED, MAX_WORKERS, LimitsHelpCommand
from paiju.core.run_folder import command_line as config_command_line


@dataclass(frozen=True)
class Search:
    simulations: int = field(default=64, metadata={"help": "Searches per decision.", "min": 1, "max": 500})
    hidden: str = field(default="determinize", metadata={"flag": "--search-hidden", "help": "What to do."})


@dataclass(frozen=True)
class Toy:
    out: str
    seed: int = field(default=0, metadata={"help": "Seed of the toy.", "short": "-s"})
    total_steps: int = field(default=100,
                             metadata={"flag": "--steps", "help": "Steps.", "min": 1, "max": 1000})
    lr: float = field(default=1e-3, metadata={"help": "Learning rate.", "min": 1e-6, "max": 1.0})
    model: str = field(default="mlp", metadata={"short": "-m", "help": "The model."})
    hidden: tuple[int, ...] = field(default=(8, 8), metadata={"help": "Widths.", "min": 1, "max": 64})
    curve: bool = field(default=True, metadata={"help": "Draw the curve."})
    compact: bool = field(default=False, metadata={"help": "Small checkpoints."})
    workers: int = field(default=1, metadata={"help": "Actors."})
    search: Search = field(default_factory=Search)


@dataclass(frozen=True)
class Typo:
    lr: float = field(default=0.1, metadata={"hepl": "typo"})


TOY = f"{__name__}:Toy"
runner = CliRunner()


def _app(seen: dict[str, Any], skip: tuple[str, ...] = ("out",)) -> typer.Typer:
    app = typer.Typer()

    @app.command("train", cls=config_command(TOY, skip=skip))
    def train(ctx: typer.Context, out: Annotated[Path, typer.Option("--out")]) -> None:
        seen["config"] = Toy(out=str(out), **config_values(ctx))
        seen["command"] = command_line(ctx)

    @app.command("other")
    def other() -> None:
        pass

    return app


def _options() -> dict[str, Any]:
    return {p.name: p for p in config_options(Toy, skip=("out",))}


def test_flags_types_defaults_ranges_and_help_come_from_the_fields() -> None:
    opts = _options()
    assert list(opts) == ["seed", "steps", "lr", "model", "hidden", "curve", "compact", "workers",
                          "simulations", "search_hidden"]
    assert opts["steps"].opts == ["--steps"] and opts["steps"].default == 100
    assert (opts["steps"].min, opts["steps"].max) == (1, 1000)
    assert opts["lr"].display_type(None) == "<float range>"
    assert (opts["lr"].min, opts["lr"].max) == (1e-6, 1.0)
    assert opts["model"].opts == ["--model", "-m"] and opts["model"].help == "The model."
    assert opts["hidden"].default == "8,8" and opts["hidden"].metavar == "<int,...>"
    assert opts["curve"].is_flag and opts["curve"].secondary_opts == ["--no-curve"] and opts["curve"].default
    assert opts["compact"].is_flag and opts["compact"].secondary_opts == [] and not opts["compact"].default
    assert opts["simulations"].help == "Searches per decision." and opts["simulations"].max == 500
    assert opts["search_hidden"].opts == ["--search-hidden"]
    # the shared options keep their own ranges, with the field's help
    assert opts["seed"].opts == ["--seed", "-s"] and opts["seed"].max == MAX_SEED
    assert opts["seed"].help == "Seed of the toy."
    assert opts["workers"].opts == ["--workers"] and opts["workers"].max == MAX_WORKERS


def test_the_values_come_back_as_the_configs_arguments() -> None:
    seen: dict[str, Any] = {}
    args = ["--out", "runs/t", "--steps", "7", "-m", "cnn", "--hidden", "4,2", "--no-curve", "--compact",
            "--simulations", "9", "--search-hidden", "opponent-policy", "-s", "3"]
    res = runner.invoke(_app(seen), ["train", *args])
    assert res.exit_code == 0, res.output
    assert seen["config"] == Toy(out="runs/t", seed=3, total_steps=7, model="cnn", hidden=(4, 2), curve=False,
                                 compact=True, search=Search(simulations=9, hidden="opponent-policy"))
    res = runner.invoke(_app(seen), ["train", "--out", "x"])
    assert res.exit_code == 0 and seen["config"] == Toy(out="x")


def test_the_command_line_gives_the_options_that_differ_as_the_config_writes_them() -> None:
    seen: dict[str, Any] = {}
    runner.invoke(_app(seen), ["train", "--out", "o", "--steps", "7", "--hidden", "4", "--no-curve",
                               "--search-hidden", "x", "--lr", "0.001"])
    assert seen["command"] == "root train --out o --steps 7 --hidden 4 --no-curve --search-hidden x"
    # the same flags as the run folder's command line of the config
    words = ["root", "train", "--out", "o"]
    assert config_command_line(words, seen["config"], skip=("out",)) == seen["command"]


@pytest.mark.parametrize(("args", "message"), [
    (["--steps", "0"], "'--steps': Input should be greater than or equal to 1"),
    (["--hidden", "4,x"], "comma-separated integers"),
    (["--hidden", " "], "comma-separated integers"),
    (["--hidden", "4,65"], "every number must be in 1..64"),
    (["--lr", "2"], "'--lr': Input should be less than or equal to 1"),
    (["--seed", "-1"], "'--seed' / '-s': Input should be greater than or equal to 0"),
])
def test_a_value_out_of_its_field_range_is_refused_naming_the_option(args: list[str], message: str) -> None:
    res = runner.invoke(_app({}), ["train", "--out", "o", *args], env={"COLUMNS": "200"})
    assert res.exit_code == 2 and message in res.output, res.output


def test_help_shows_each_fields_help_and_range() -> None:
    res = runner.invoke(_app({}), ["train", "--help"], env={"COLUMNS": "80"})
    assert res.exit_code == 0
    for text in ("--steps", "Steps.", "[1<=x<=1000]", "--search-hidden", "--no-curve", "<int,...>"):
        assert text in res.output, text
    command = typer.main.get_command(_app({})).commands["train"]  # type: ignore[attr-defined]
    assert isinstance(command, LimitsHelpCommand)


def test_skipped_fields_are_no_options_and_keep_their_defaults() -> None:
    seen: dict[str, Any] = {}
    res = runner.invoke(_app(seen, skip=("out", "search.hidden", "compact")), ["train", "--out", "o"])
    assert res.exit_code == 0 and seen["config"] == Toy(out="o")
    app = _app(seen, skip=("out", "search.hidden"))
    res = runner.invoke(app, ["train", "--out", "o", "--search-hidden", "x"])
    assert res.exit_code == 2 and "No such option" in res.output


def test_mistakes_in_a_config_are_caught_when_its_options_are_built() -> None:
    with pytest.raises(TypeError, match=r"unknown option metadata \['hepl'\]"):
        config_options(Typo)
    with pytest.raises(TypeError, match="needs a default"):
        config_options(Toy)  # out has none: a command declares it itself
    app = _app({})

    @app.command("clash", cls=config_command(TOY, skip=("out",)))
    def clash(steps: Annotated[int, typer.Option("--steps")] = 1) -> None:
        pass

    res = runner.invoke(app, ["clash", "--help"])
    assert isinstance(res.exception, TypeError) and "declared twice" in str(res.exception)


def test_the_config_module_is_imported_only_when_its_command_is_used(tmp_path: Path) -> None:
    module = tmp_path / "lazy_config_module.py"
    module.write_text("from dataclasses import dataclass\n\n@dataclass\nclass Lazy:\n    n: int = 1\n")
    sys.path.insert(0, str(tmp_path))
    try:
        seen: dict[str, Any] = {}
        app = typer.Typer()

        @app.command("train", cls=config_command("lazy_config_module:Lazy"))
        def train(ctx: typer.Context) -> None:
            seen["values"] = config_values(ctx)

        @app.command("other")
        def other() -> None:
            seen["other"] = json.dumps(True)

        assert runner.invoke(app, ["other"]).exit_code == 0
        assert "lazy_config_module" not in sys.modules  # building the app and running another command
        assert runner.invoke(app, ["train", "--n", "4"]).exit_code == 0
        assert seen["values"] == {"n": 4} and "lazy_config_module" in sys.modules
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("lazy_config_module", None)


# ---- the trainer commands --------------------------------------------------------------------
TRAINERS = {
    "mahjong train-dqn": ("paiju.mahjong.train_dqn:TrainConfig", {"out", "curve"}),
    "mahjong train-supervised": ("paiju.mahjong.train_supervised:SupervisedConfig", {"data", "out", "curve"}),
    "mahjong train-reader": ("paiju.mahjong.train_reader:ReaderConfig", {"data", "out"}),
    "mahjong train-distill": ("paiju.mahjong.train_distill:DistillConfig", {"data", "out"}),
    "mahjong expert-iteration": ("paiju.mahjong.expert_iteration:RoundConfig", {"out"}),
    "ddz tagger-train": ("paiju.doudizhu.tagger.train:TrainConfig", {"data", "out", "progress"}),
    "az train": ("paiju.algorithms.alphazero.train:TrainConfig", {"search.hidden", "search.mix"}),
    "yuxi train-az": ("paiju.algorithms.alphazero.train:TrainConfig", set()),
    "az teacher-data": ("paiju.algorithms.alphazero.teacher:TeacherDataConfig", set()),
}


def _command(path: str) -> Any:
    from paiju.cli.main import app as paiju

    command: Any = typer.main.get_command(paiju)
    for name in path.split():
        command = command.commands[name]
    return command


@pytest.mark.parametrize("path", sorted(TRAINERS))
def test_every_trainer_command_has_each_config_field_as_an_option(path: str) -> None:
    from paiju.cli.config_options import load_config_class
    from paiju.core.run_folder import config_fields, field_default, field_flag

    where, skipped = TRAINERS[path]
    options = {p.opts[0]: p for p in _command(path).params}
    for field_path, f in config_fields(load_config_class(where)):
        if field_path in skipped:
            continue
        option = options[field_flag(f)]
        default = field_default(f)
        shown = ",".join(map(str, default)) if isinstance(default, tuple) else default
        assert option.default == shown, (path, field_path)
        shared = f.name in ("seed", "workers", "threads")  # the shared options' own ranges
        if not isinstance(default, tuple) and not shared:
            limits = (f.metadata.get("min"), f.metadata.get("max"))
            assert (option.min, option.max) == limits, (path, field_path)


def test_az_train_and_yuxi_train_az_are_one_trainer_with_the_same_training_options() -> None:
    def shape(command: Any) -> dict[str, Any]:
        return {p.opts[0]: (p.default, p.help, getattr(p, "min", None), getattr(p, "max", None))
                for p in command.params}

    board, yuxi = shape(_command("az train")), shape(_command("yuxi train-az"))
    common = set(board) & set(yuxi)
    assert {"--search-hidden", "--mix", "--boards", "--decks", "--cards-file"} <= set(yuxi) - common
    assert {"--game", "--option"} == set(board) - common
    assert {"--iterations", "--simulations", "--steps", "--lr", "--seed", "--workers", "--resume"} <= common
    assert all(board[flag] == yuxi[flag] for flag in common)
