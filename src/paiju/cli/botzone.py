"""`paiju botzone`: a paiju agent as a Botzone Dou Dizhu bot, and a local judge (docs/botzone.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from paiju.cli import options as opt
from paiju.cli.validate import LimitsHelpCommand, agents_help

app = typer.Typer(no_args_is_help=True)

WING_RULES = ("douzero", "rlcard")


def _wings(value: str) -> str:
    if value not in WING_RULES:
        raise typer.BadParameter(f"--wings {value!r}: use douzero (Botzone's judge fits inside it) or rlcard")
    return value


@app.command("ddz", cls=LimitsHelpCommand)
def ddz_command(
    agent: Annotated[
        str,
        typer.Option(
            "--agent", "-a", help=agents_help("The agent spec, e.g. rule or search:budget=200.", "doudizhu")
        ),
    ] = "rule",
    keep_running: Annotated[
        bool,
        typer.Option("--keep-running", help="Stay alive between requests (Botzone's keep-running mode)."),
    ] = False,
    seed: Annotated[int, opt.seed("Seed of the agent and of the unseen cards.", short=False)] = 0,
    wings: Annotated[
        str,
        typer.Option(
            "--wings", parser=_wings, help="paiju wing rule the game is read under (default douzero)."
        ),
    ] = "douzero",
) -> None:
    """Answer Botzone FightTheLandlord / FightTheLandlord2 requests: JSON in, one JSON line out.

    Without --keep-running the bot reads the whole exchange (requests and its earlier
    responses), answers the last request and exits, as Botzone's simple interaction does.
    """
    import sys

    from paiju.interop.botzone import BotzoneBot

    BotzoneBot(agent, seed=seed, wing_rule=wings).serve(sys.stdin, sys.stdout, keep_running)


@app.command("judge", cls=LimitsHelpCommand)
def judge_command(
    bots: Annotated[
        list[str], typer.Argument(help="Three bot command lines, e.g. 'paiju botzone ddz -a rule'.")
    ],
    games: Annotated[int, typer.Option("--games", "-n", min=1, max=100_000, help="Games to play.")] = 9,
    seed: Annotated[int, opt.seed("Seed of the deals.", short=False)] = 0,
    time_limit: Annotated[
        float,
        typer.Option(
            "--time-limit", "-t", min=0.01, max=600, help="Seconds per move (a fresh process each)."
        ),
    ] = 3.0,
    bidding: Annotated[
        bool, typer.Option("--bidding", help="FightTheLandlord2: bid 0-3 before play.")
    ] = False,
    keep_running: Annotated[
        bool,
        typer.Option("--keep-running", help="Keep each bot running for a game (it must print the marker)."),
    ] = False,
    json_out: Annotated[bool, opt.json_flag("Print every game and the report as JSON.")] = False,
    record: Annotated[
        Path | None,
        opt.record("Record the games here (Parquet; see paiju records)."),
    ] = None,
) -> int:
    """Play three bot programs against each other through the Botzone protocol.

    Bots rotate seats game by game. A bot that crashes, times out, answers garbage or an
    illegal move loses that game for its side (the record says why). Exit code 0.
    """
    from rich.table import Table

    from paiju.cli.common import console, print_json
    from paiju.core.errors import ConfigError
    from paiju.interop.botzone_judge import run_judge

    if len(bots) != 3:
        raise ConfigError(f"name 3 bot commands, got {len(bots)}")
    results, stats = run_judge(
        bots, games, seed, out_dir=record, time_limit=time_limit, bidding=bidding, keep_running=keep_running
    )
    if json_out:
        print_json({"games": [r.as_dict() for r in results], "report": [s.as_dict() for s in stats]})
        return 0
    table = Table(title=f"Botzone judge: {games} games, seed {seed}")
    for column in ("bot", "role", "games", "WP", "ADP", "forfeits"):
        table.add_column(column)
    for i, s in enumerate(stats):  # three roles per bot, bots in order
        table.add_row(
            f"bot {i // 3}",
            s.role,
            str(s.wp.n),
            s.wp.text(".1f", interval=True, percent=True),
            s.adp.text("+.2f", unit="game"),
            str(s.forfeits),
        )
    for k, command in enumerate(bots):
        console.print(f"bot {k}: {command}", markup=False)
    console.print(table)
    for r in results:
        if r.forfeit:
            f = r.forfeit
            console.print(
                f"game {r.index}: bot {f['bot']} (seat {f['seat']}) lost by forfeit: {f['reason']}",
                markup=False,
            )
    return 0
