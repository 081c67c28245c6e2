"""`paiju az`: AlphaZero on the board games of the core protocol that have an encoder.

`paiju az train` and `paiju yuxi train-az` are one trainer (:mod:`paiju.algorithms.alphazero.train`)
with the same training options (:mod:`paiju.cli.az_options`); this one picks a board game
and its rule options as `paiju arena` does, yuxi's picks boards, decks and card files. The
model it writes plays as ``az:model=PATH`` in `paiju arena -g GAME` (docs/alphazero.md).
`paiju az teacher-data` records a search teacher's games (:mod:`paiju.algorithms.alphazero.teacher`),
which `paiju az train --init-data` learns from before self-play.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated

import typer

from paiju.cli import options as opt
from paiju.cli.az_options import (
    BOARD_GAMES_SKIP,
    TEACHER_CONFIG,
    TRAIN_CONFIG,
    OutOpt,
    RayOpt,
    ResumeOpt,
    WorkersOpt,
    run_training,
)
from paiju.cli.common import console
from paiju.cli.config_options import config_command, config_values
from paiju.cli.validate import game_options
from paiju.core.errors import ConfigError

app = typer.Typer(no_args_is_help=True)

BOARD_GAMES = ("connect_four", "gomoku")
"""The games with an AlphaZero encoder (:mod:`paiju.games.grid_encoding`)."""


@app.command("train", cls=config_command(TRAIN_CONFIG, skip=BOARD_GAMES_SKIP))
def train(
    ctx: typer.Context,
    game: Annotated[str, typer.Option("--game", "-g", help="connect_four or gomoku.")],
    out_dir: OutOpt,
    options: Annotated[
        list[str] | None,
        opt.rule_options("A rule option KEY=VALUE, repeatable: gomoku rows=9, win_length=5."),
    ] = None,
    workers: WorkersOpt = 1,
    ray: RayOpt = False,
    resume: ResumeOpt = False,
) -> None:
    """Train AlphaZero on connect four or gomoku by self-play (resumable; any --workers, one result).

    The same trainer and training options as paiju yuxi train-az, the front for yuxi (its
    boards, decks and card files). Writes the run folder OUT: model.pt, config.json, metrics.jsonl,
    metrics.json, curve.png, checkpoint.pt, samples/ and snapshots/.
    """
    from paiju.games import load_game
    from paiju.games.grid_encoding import az_game_id, board_setup

    if game not in BOARD_GAMES:
        raise ConfigError(
            f"--game {game!r}: AlphaZero trains {', '.join(BOARD_GAMES)} here (yuxi: paiju yuxi train-az)"
        )
    rules = game_options(game, options)
    setup = functools.partial(board_setup, game, rules)
    model = run_training(ctx, setup, out_dir, game_id=az_game_id(load_game(game, **rules)), workers=workers,
                         ray=ray, resume=resume)
    console.print(f"model: {model} (play it with paiju arena -g {game} -a az:model={model},...)")


@app.command("teacher-data", cls=config_command(TEACHER_CONFIG))
def teacher_data(
    ctx: typer.Context,
    game: Annotated[str, typer.Option("--game", "-g", help="connect_four or gomoku.")],
    out_dir: Annotated[Path, opt.out_dir("Folder of the data (positions, games, summary).", short=False)],
    options: Annotated[
        list[str] | None,
        opt.rule_options("A rule option KEY=VALUE, repeatable: gomoku rows=9, win_length=5."),
    ] = None,
) -> None:
    """Record a search teacher's games as AlphaZero samples, for paiju az train --init-data (resumable).

    The teacher (an agent of the game, e.g. mcts:simulations=800) plays itself; every position
    it searched is stored with its visit distribution, root value, the outcome and, with
    --rollouts, the mean of random rollouts. Run again with the same options to go on after an
    interruption; any --workers gives the same data.
    """
    from paiju.algorithms.alphazero.teacher import RegistryTeacher, TeacherDataConfig, generate
    from paiju.games import agent_registry, load_game
    from paiju.games.grid_encoding import az_game_id, board_setup

    if game not in BOARD_GAMES:
        raise ConfigError(f"--game {game!r}: teacher data for {', '.join(BOARD_GAMES)} here")
    rules = game_options(game, options)
    config = TeacherDataConfig(**config_values(ctx))
    summary = generate(config, functools.partial(board_setup, game, rules),
                       RegistryTeacher(agent_registry, config.teacher), out_dir,
                       game_id=az_game_id(load_game(game, **rules)), progress=True)
    assert summary is not None  # no stop_after: every chunk is played
    cost = summary["cost"]
    console.print(
        f"{summary['positions']} positions of {summary['games']} games of {summary['teacher']}: {out_dir} "
        f"({cost['cpu_s_per_game']:.2f} CPU s and {cost['simulations'] / summary['games']:.0f} simulations "
        "per game)", markup=False,
    )
