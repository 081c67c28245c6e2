"""`paiju az`: AlphaZero on any game of the core protocol that has an encoder (connect four, gomoku).

The same trainer as `paiju yuxi train-az` (:mod:`paiju.algorithms.alphazero.train`), the game
given by name and rule options as in `paiju arena`; the model it writes plays as
``az:model=PATH`` in `paiju arena -g GAME` (docs/alphazero.md).
"""

from __future__ import annotations

import functools
from typing import Annotated

import typer

from paiju.cli import options as opt
from paiju.cli.az_options import (
    BatchSizeOpt,
    BlocksOpt,
    ChannelsOpt,
    COpt,
    Default,
    GamesOpt,
    HiddenOpt,
    IterationsOpt,
    LrOpt,
    OutOpt,
    ResumeOpt,
    RootValueOpt,
    SimulationsOpt,
    StepsOpt,
    TemperatureMovesOpt,
    ValueSkipOpt,
    WindowOpt,
    command_line,
    iteration_report,
    train_config,
)
from paiju.cli.common import console
from paiju.cli.validate import LimitsHelpCommand, game_options
from paiju.core.errors import ConfigError
from paiju.core.runner import Backend

app = typer.Typer(no_args_is_help=True)

BOARD_GAMES = ("connect_four", "gomoku")
"""The games with an AlphaZero encoder (:mod:`paiju.games.grid_encoding`)."""


@app.command("train", cls=LimitsHelpCommand)
def train(
    ctx: typer.Context,
    game: Annotated[str, typer.Option("--game", "-g", help="connect_four or gomoku.")],
    out_dir: OutOpt,
    options: Annotated[
        list[str] | None,
        opt.rule_options("A rule option KEY=VALUE, repeatable: gomoku rows=9, win_length=5."),
    ] = None,
    iterations: IterationsOpt = Default.iterations,
    games: GamesOpt = Default.games,
    simulations: SimulationsOpt = Default.simulations,
    temperature_moves: TemperatureMovesOpt = Default.temperature_moves,
    c: COpt = Default.c,
    channels: ChannelsOpt = Default.channels,
    blocks: BlocksOpt = Default.blocks,
    hidden: HiddenOpt = Default.hidden,
    steps: StepsOpt = Default.steps,
    batch_size: BatchSizeOpt = Default.batch_size,
    window: WindowOpt = Default.window,
    lr: LrOpt = Default.lr,
    root_value_weight: RootValueOpt = Default.root_value_weight,
    value_skip: ValueSkipOpt = Default.value_skip,
    seed: Annotated[int, opt.seed("Seed of the run.", short=False)] = 0,
    workers: Annotated[int, opt.workers("Local self-play processes.")] = 1,
    ray: Annotated[bool, opt.ray("Self-play as Ray tasks ($RAY_ADDRESS, else a local Ray).")] = False,
    resume: ResumeOpt = False,
) -> None:
    """Train an AlphaZero model by self-play (resumable; the result does not depend on --workers)."""

    from paiju.algorithms.alphazero.train import train as run_training
    from paiju.games import load_game
    from paiju.games.grid_encoding import az_game_id, board_setup

    if game not in BOARD_GAMES:
        raise ConfigError(
            f"--game {game!r}: AlphaZero trains {', '.join(BOARD_GAMES)} here (yuxi: paiju yuxi train-az)"
        )
    rules = game_options(game, options)
    game_id = az_game_id(load_game(game, **rules))
    config = train_config(ctx.params)
    command = command_line(ctx)
    run_training(
        config, functools.partial(board_setup, game, rules), out_dir, resume=resume,
        backend=Backend(workers=workers, ray=ray), progress=True, meta={"command": command},
        game_id=game_id, on_iteration=iteration_report(iterations),
    )
    model = out_dir / "model.pt"
    console.print(f"model: {model} (play it with paiju arena -g {game} -a az:model={model},...)")
