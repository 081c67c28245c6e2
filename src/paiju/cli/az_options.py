"""The AlphaZero training options, shared by `paiju az train` and `paiju yuxi train-az`.

One declaration per option (name, range, help), so the two commands cannot drift apart;
:func:`train_config` turns them into the trainer's :class:`TrainConfig`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from paiju.cli import options as opt
from paiju.cli.common import console

if TYPE_CHECKING:
    from paiju.algorithms.alphazero.train import TrainConfig

OutOpt = Annotated[Path, opt.out_dir("Folder of the run: checkpoint, samples, model, metrics.", short=False)]
IterationsOpt = Annotated[int, typer.Option("--iterations", min=1, max=100_000, help="Iterations to reach.")]
GamesOpt = Annotated[int, typer.Option("--games", min=1, max=10_000, help="Self-play games per iteration.")]
SimulationsOpt = Annotated[
    int, typer.Option("--simulations", min=1, max=5_000, help="Searches of self-play, per decision.")
]
TemperatureMovesOpt = Annotated[
    int,
    typer.Option("--temperature-moves", min=0, max=1_000,
                 help="Decisions of a game (both seats) played by sampling the visit counts."),
]
COpt = Annotated[
    float, typer.Option("--c", min=0.0, max=100.0, help="PUCT exploration constant of self-play.")
]
ChannelsOpt = Annotated[int, typer.Option("--channels", min=1, max=256, help="Conv channels.")]
BlocksOpt = Annotated[int, typer.Option("--blocks", min=0, max=20, help="Residual blocks.")]
HiddenOpt = Annotated[int, typer.Option("--hidden", min=1, max=2048, help="Penultimate layer width.")]
StepsOpt = Annotated[int, typer.Option("--steps", min=1, max=100_000, help="Learner steps per iteration.")]
BatchSizeOpt = Annotated[int, typer.Option("--batch-size", min=1, max=8192, help="Minibatch size.")]
WindowOpt = Annotated[int, typer.Option("--window", min=1, max=1000, help="Iterations of samples replayed.")]
LrOpt = Annotated[float, typer.Option("--lr", min=1e-6, max=1.0, help="Adam learning rate.")]
ValueSkipOpt = Annotated[
    bool,
    typer.Option("--value-skip", help="Add a linear term of the plane sums and the vector to the value "
                 "head (docs/alphazero.md)."),
]
RootValueOpt = Annotated[
    float,
    typer.Option("--root-value-weight", min=0.0, max=1.0,
                 help="Weight of the search's root value in the value target, the rest the game's "
                 "outcome; 0: the outcome alone."),
]
ResumeOpt = Annotated[bool, typer.Option("--resume", help="Continue the run in --out (same options).")]


class Default:
    """The options' defaults, the same for both commands."""

    iterations, games, simulations, temperature_moves, c = 40, 32, 64, 8, 2.0
    channels, blocks, hidden = 32, 2, 256
    steps, batch_size, window, lr = 60, 256, 6, 1e-3
    root_value_weight, value_skip = 0.0, False


def train_config(params: dict[str, Any], search_hidden: str = "determinize", mix: float = 0.0) -> TrainConfig:
    """The trainer's configuration from a command's parsed options (``ctx.params``)."""
    from paiju.algorithms.alphazero.selfplay import SearchSettings
    from paiju.algorithms.alphazero.train import TrainConfig

    p = params
    return TrainConfig(
        seed=p["seed"], iterations=p["iterations"], games_per_iteration=p["games"],
        search=SearchSettings(
            simulations=p["simulations"], c=p["c"], temperature_moves=p["temperature_moves"],
            hidden=search_hidden, mix=mix,
        ),
        channels=p["channels"], blocks=p["blocks"], hidden=p["hidden"], steps_per_iteration=p["steps"],
        batch_size=p["batch_size"], window=p["window"], lr=p["lr"],
        root_value_weight=p["root_value_weight"], value_skip=p["value_skip"],
    )


def iteration_report(iterations: int) -> Callable[[dict[str, Any]], None]:
    """The per-iteration line both commands print."""

    def report(row: dict[str, Any]) -> None:
        console.print(
            f"iteration {row['iteration'] + 1}/{iterations}: {row['samples']} samples, "
            f"value loss {row['value_loss']:.3f}, policy loss {row['policy_loss']:.3f}, "
            f"self-play {row['selfplay_s']:.0f} s, learning {row['learn_s']:.0f} s"
        )

    return report


def command_line(ctx: typer.Context) -> str:
    """The running command as a command line: its path and every option that differs from its
    default (what a model records as the command that produced it; also right when the command
    runs in-process, where ``sys.argv`` is the host's)."""
    import shlex

    words = ctx.command_path.split()
    for param in ctx.command.params:
        if param.param_type_name != "option" or param.name is None:
            continue
        value = ctx.params.get(param.name)
        if value == param.default or value is None or value == ():
            continue
        name = param.opts[0]
        if getattr(param, "is_flag", False):
            words.append(name if value else (param.secondary_opts or [name])[0])
        elif isinstance(value, (list, tuple)):
            for item in value:
                words += [name, str(item)]
        else:
            words += [name, str(value)]
    return " ".join(shlex.quote(w) for w in words)
