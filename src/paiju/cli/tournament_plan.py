"""`paiju tournament plan`: how many rounds an event needs, by simulation (issue 48 item 6).

The command function is registered under ``paiju tournament`` by the tournament CLI; the
simulation is :mod:`paiju.tournament.planning`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from paiju.cli import options as opt
from paiju.cli.common import console, print_json
from paiju.cli.validate import (
    MAX_DIH_PLAYERS,
    MAX_MIN_PLAYS,
    MAX_TOURNAMENTS,
    input_file,
    output_file,
    parquet_input,
)
from paiju.tournament.director.formats import MAX_BOARDS_PER_ROUND, MAX_ROUNDS, choose


def plan(
    players: Annotated[
        int, typer.Option("--players", "-n", min=4, max=MAX_DIH_PLAYERS, help="Players N in the event.")
    ],
    rounds: Annotated[
        int,
        typer.Option("--rounds", "-m", min=1, max=MAX_ROUNDS, help="Mmax: events of 1..Mmax rounds."),
    ],
    top: Annotated[
        int,
        typer.Option("--top", min=1, max=MAX_DIH_PLAYERS, help="R: the places that should be unique."),
    ],
    skill_spread: Annotated[
        float,
        typer.Option(
            "--skill-spread",
            min=0.0,
            max=100.0,
            help="SD of the players' skill in units of a table's luck: skill explains 1.5s²/(1+1.5s²) "
            "of a table's result (0.5: 27%, 1: 60%, 2: 86%).",
        ),
    ] = 1.0,
    select: Annotated[
        list[str] | None,
        typer.Option("--select", help="Boards to simulate, dih or random, repeatable (default: both)."),
    ] = None,
    comparison: Annotated[
        str,
        typer.Option("--comparison", help="The event's scoring of a board: matchpoints or rank-points."),
    ] = "matchpoints",
    boards_per_round: Annotated[
        int,
        typer.Option(
            "--boards-per-round", min=1, max=MAX_BOARDS_PER_ROUND, help="Boards every table plays in a round."
        ),
    ] = 3,
    pairing: Annotated[
        str, typer.Option("--pairing", help="swiss (round 1 drawn, then by standings) or random every round.")
    ] = "swiss",
    events: Annotated[
        int,
        typer.Option("--events", min=1, max=MAX_TOURNAMENTS, help="Simulated events per board choice and M."),
    ] = 1000,
    pool: Annotated[
        Path | None,
        typer.Option(
            "--pool", parser=input_file, help="Pool file, one deal per line (default: the shipped 300 deals)."
        ),
    ] = None,
    dists: Annotated[
        Path | None,
        typer.Option(
            "--dists",
            parser=parquet_input,
            help="The pool's score laws (paiju dih dists; default: the shipped pool's laws from the ladder).",
        ),
    ] = None,
    min_plays: Annotated[
        int, typer.Option("--min-plays", min=1, max=MAX_MIN_PLAYS, help="Leave out laws of fewer plays.")
    ] = 50,
    seed: Annotated[int, opt.seed("Seed of the simulated events (same seed, same numbers).")] = 0,
    workers: Annotated[int, opt.workers("Processes simulating events (results identical to 1).")] = 1,
    journal: Annotated[
        Path | None,
        typer.Option(
            "--journal",
            parser=output_file,
            help="Append every finished batch of events to this JSONL file; rerun with it to resume.",
        ),
    ] = None,
    plot: Annotated[Path, typer.Option("--plot", parser=output_file, help="PNG plot to write.")] = Path(
        "tournament-plan.png"
    ),
    out_json: Annotated[
        Path | None, typer.Option("--out-json", parser=output_file, help="Also write the results as JSON.")
    ] = None,
    as_json: Annotated[bool, opt.json_flag("Print one JSON object instead of text.")] = False,
) -> None:
    """Plan an event: for M = 1..Mmax rounds, how often the top R are unique and are the true top R."""
    from paiju.core.errors import ConfigError
    from paiju.tournament.planning import (
        COMPARISONS,
        DEFAULT_LAWS,
        DEFAULT_POOL,
        PAIRINGS,
        SELECTIONS,
        PlanConfig,
        plot_plan,
        run_plan,
    )
    from paiju.tournament.selection import load_pool

    if (pool is None) != (dists is None):
        raise ConfigError("give --pool and --dists together (a pool and its score laws), or neither")
    pool_file = DEFAULT_POOL if pool is None else pool
    laws_file = DEFAULT_LAWS if dists is None else dists
    loaded = load_pool(pool_file, laws_file, min_plays=min_plays)
    config = PlanConfig(
        players=players,
        rounds=rounds,
        top=top,
        skill_spread=skill_spread,
        selections=tuple(choose("--select", s, SELECTIONS) for s in select) if select else SELECTIONS,
        comparison=choose("--comparison", comparison, COMPARISONS),
        boards_per_round=boards_per_round,
        pairing=choose("--pairing", pairing, PAIRINGS),
        events=events,
        seed=seed,
    )
    # the shipped files by name: a report must not carry this machine's install path
    shown = (pool_file.name, laws_file.name) if pool is None else (pool_file, laws_file)
    laws = f"pool {shown[0]} ({len(loaded.pool)} deals with at least {min_plays} plays), laws {shown[1]}"
    report = run_plan(config, loaded.pool, laws=laws, workers=workers, journal=journal, progress=not as_json)
    plot_plan(report, plot)
    data = report.as_dict()
    data["plot"] = str(plot)
    data["excluded_for_few_plays"] = len(loaded.excluded)
    if out_json is not None:
        out_json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if as_json:
        print_json(data)
        return
    console.print(f"N = {players}, R = {top}, skill spread {skill_spread:g}, {comparison}, {pairing} pairing")
    console.print(f"{boards_per_round} boards a round, {events} simulated events per cell")
    console.print(f"boards from {pool_file.name} ({len(loaded.pool)} deals), laws {laws_file.name}")
    table = Table(title=f"% of events: top {top} unique, and unique and right (95% intervals)")
    table.add_column("M", justify="right")
    for measure in ("unique", "right"):
        for s in config.selections:
            table.add_column(f"{measure}, {s}", justify="right")
    for row in report.rows:
        ests = [*(row.unique[s] for s in config.selections), *(row.right[s] for s in config.selections)]
        table.add_row(str(row.rounds), *(e.text(".0f", interval=True, percent=True) for e in ests))
    console.print(table)
    for measure, what in (("unique", "unique"), ("right", "unique and right")):
        reached = ", ".join(
            f"{s} boards {'not within ' + str(rounds) if m is None else f'M = {m}'}"
            for s, m in data["fewest_rounds_90"][measure].items()
        )
        console.print(f"top {top} {what} in at least 90% of events: {reached}")
    console.print(f"plot: {plot}")
