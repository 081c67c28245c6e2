"""The AlphaZero trainer's front, shared by `paiju az train` and `paiju yuxi train-az`.

One trainer (:mod:`paiju.algorithms.alphazero.train`), two commands that differ only in how
the game is chosen: `paiju az train` takes a board game and its rule options, `paiju yuxi
train-az` yuxi's boards, decks and card files. Their training options are the fields of the
trainer's :class:`~paiju.algorithms.alphazero.train.TrainConfig` (flags, ranges and help in
its fields' metadata, :mod:`paiju.cli.config_options`), so the two cannot drift apart, and
:func:`run_training` runs either.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from paiju.cli import options as opt
from paiju.cli.common import console
from paiju.cli.config_options import command_line, config_values

TRAIN_CONFIG = "paiju.algorithms.alphazero.train:TrainConfig"
"""The config whose fields are both commands' training options."""
TEACHER_CONFIG = "paiju.algorithms.alphazero.teacher:TeacherDataConfig"
"""The config whose fields are the teacher-data command's options."""
BOARD_GAMES_SKIP = ("search.hidden", "search.mix")
"""Options `paiju az train` leaves out: the board games hide nothing and offer no heuristic."""

OutOpt = Annotated[Path, opt.out_dir("Folder of the run: checkpoint, samples, model, metrics.", short=False)]
WorkersOpt = Annotated[int, opt.workers("Local self-play processes (results identical to 1).")]
RayOpt = Annotated[bool, opt.ray("Self-play as Ray tasks ($RAY_ADDRESS, else a local Ray).")]
ResumeOpt = Annotated[bool, typer.Option("--resume", help="Continue the run in --out (same options).")]


def run_training(
    ctx: typer.Context, setup: Any, out_dir: Path, *, game_id: dict[str, Any], workers: int, ray: bool,
    resume: bool,
) -> Path:
    """Train with the running command's options on the game of ``setup`` (``game_id`` names
    it in the checkpoint); returns the model's path."""
    from paiju.algorithms.alphazero.train import TrainConfig, train
    from paiju.core.runner import Backend

    config = TrainConfig(**config_values(ctx))
    train(config, setup, out_dir, resume=resume, backend=Backend(workers=workers, ray=ray), progress=True,
          meta={"command": command_line(ctx)}, game_id=game_id,
          on_iteration=iteration_report(config.iterations), on_epoch=epoch_report(config.init_epochs))
    return out_dir / "model.pt"


def iteration_report(iterations: int) -> Callable[[dict[str, Any]], None]:
    """The per-iteration line both commands print."""

    def report(row: dict[str, Any]) -> None:
        console.print(
            f"iteration {row['iteration'] + 1}/{iterations}: {row['samples']} samples, "
            f"value loss {row['value_loss']:.3f}, policy loss {row['policy_loss']:.3f}, "
            f"self-play {row['selfplay_s']:.0f} s, learning {row['learn_s']:.0f} s"
        )

    return report


def epoch_report(epochs: int) -> Callable[[dict[str, Any]], None]:
    """The line both commands print after each pass over the teacher data."""

    def report(row: dict[str, Any]) -> None:
        held = (f", held-out value loss {row['value_loss_held']:.3f}, "
                f"policy loss {row['policy_loss_held']:.3f}" if "value_loss_held" in row else "")
        console.print(
            f"teacher data, pass {row['epoch'] + 1}/{epochs}: {row['samples']} samples, "
            f"value loss {row['value_loss']:.3f}, policy loss {row['policy_loss']:.3f}{held}, "
            f"learning {row['learn_s']:.0f} s"
        )

    return report
