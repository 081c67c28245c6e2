"""`paiju dih` sub-commands: DIH of a score distribution, and deal selection from a pool."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, ProgressColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from paiju.cli import options as opt
from paiju.cli.common import console, err_console, print_json
from paiju.cli.validate import (
    MAX_BEAM,
    MAX_DIH_PLAYERS,
    MAX_DIH_ROUNDS,
    MAX_MIN_PLAYS,
    MAX_PLAYS,
    MAX_POOL,
    MAX_SELECT_ROUNDS,
    MAX_TOURNAMENTS,
    LimitsHelpCommand,
    input_file,
    output_dir,
    output_file,
    parquet_input,
)
from paiju.core.errors import ConfigError
from paiju.core.stats import Estimate

app = typer.Typer(no_args_is_help=True)

PlayersOpt = Annotated[
    int, typer.Option("--players", "-n", min=1, max=MAX_DIH_PLAYERS, help="Number of players N.")
]
RoundsOpt = Annotated[
    int, typer.Option("--rounds", "-m", min=1, max=MAX_DIH_ROUNDS, help="Number of rounds M.")
]
SelectRoundsOpt = Annotated[
    int,
    typer.Option("--rounds", "-m", min=1, max=MAX_SELECT_ROUNDS, help="Number of rounds M (one deal each)."),
]
TopOpt = Annotated[
    int,
    typer.Option(
        "--top", "-r", min=1, max=MAX_DIH_PLAYERS, help="R: the R highest totals should be pairwise distinct."
    ),
]
SeedOpt = Annotated[int, opt.seed("Seed of the deals.", short=False)]
JsonOpt = Annotated[bool, opt.json_flag("Print one JSON object instead of text.")]


@app.command("value", cls=LimitsHelpCommand)
def value(
    dist: Annotated[
        list[str],
        typer.Option(
            "--dist",
            help="Score distribution 'score:prob,...', e.g. '-1:0.6,1:0.4'. Give it once (every round) "
            "or once per round (different per-round distributions).",
        ),
    ],
    players: PlayersOpt,
    rounds: RoundsOpt,
    top: TopOpt,
    as_json: JsonOpt = False,
) -> None:
    """DIH: probability that the top R of N players' totals over M rounds are pairwise distinct."""
    from paiju.tournament.dih import check_top, dih_of_total, unique_awards_of_total
    from paiju.tournament.distributions import ScoreDistribution, check_positive_int, total_distribution

    check_top(players, top)
    check_positive_int(rounds, "rounds")
    given = [ScoreDistribution.parse(d) for d in dist]
    laws = given * rounds if len(given) == 1 else given
    if len(laws) != rounds:
        raise ConfigError(f"--dist given {len(given)} times: give it once or once per round ({rounds})")
    total = total_distribution(laws)
    result = dih_of_total(total, players, top)
    unique = unique_awards_of_total(total, players, top)
    if as_json:
        print_json(
            {
                "dih": result,
                "unique_awards": unique,
                "players": players,
                "rounds": rounds,
                "top": top,
                "distributions": [str(d) for d in given],
                "total_support": len(total.as_dict()),
            }
        )
        return
    console.print(f"DIH = {result:.6g}  (N={players}, M={rounds}, R={top}: the top {top} totals all differ)")
    console.print(f"P(top {top} each unique, also apart from everyone below) = {unique:.6g}")


@app.command("select", cls=LimitsHelpCommand)
def select(
    pool: Annotated[
        Path, typer.Option("--pool", parser=input_file, help="Pool file: one [20][17][17] deal per line.")
    ],
    dists: Annotated[
        Path,
        typer.Option(
            "--dists",
            parser=parquet_input,
            help="Parquet file or directory: columns deal, score, probability, plays.",
        ),
    ],
    players: PlayersOpt,
    rounds: SelectRoundsOpt,
    top: TopOpt,
    joint: Annotated[
        bool,
        typer.Option("--joint", help="Choose the M deals jointly (ours) instead of ranking them one by one."),
    ] = False,
    beam: Annotated[
        int, typer.Option("--beam", min=1, max=MAX_BEAM, help="Beam width of the joint search.")
    ] = 4,
    min_plays: Annotated[
        int,
        typer.Option(
            "--min-plays",
            min=1,
            max=MAX_MIN_PLAYS,
            help="Leave out deals whose distribution rests on fewer plays.",
        ),
    ] = 50,
    as_json: JsonOpt = False,
) -> None:
    """Choose one deal per round from a pool: the paper's DIH ranking, or ours with --joint."""
    from paiju.tournament.selection import load_pool, rank_by_dih, select_joint, select_paper

    loaded = load_pool(pool, dists, min_plays=min_plays)
    deal_pool = loaded.pool
    own = rank_by_dih(deal_pool, players, rounds, top)
    paper = select_paper(deal_pool, players, rounds, top, own=own)
    chosen = paper
    if joint:
        if as_json:
            chosen = select_joint(deal_pool, players, rounds, top, beam_width=beam, own=own)
        else:
            columns = (TextColumn("joint search"), BarColumn(), TimeElapsedColumn())
            with Progress(*columns, console=err_console, transient=True) as bar:
                task = bar.add_task("search", total=None)
                chosen = select_joint(
                    deal_pool,
                    players,
                    rounds,
                    top,
                    beam_width=beam,
                    own=own,
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                )
    if as_json:
        out = chosen.as_dict()
        out["paper_set_dih"] = paper.set_dih
        out["pool_size"] = len(deal_pool)
        out["excluded"] = [{"deal": d, "plays": p} for d, p in loaded.excluded]
        print_json(out)
        return
    table = Table(title=f"{chosen.method} selection: N={players}, M={rounds}, R={top}, pool {len(deal_pool)}")
    table.add_column("round", justify="right")
    table.add_column("deal", overflow="fold")
    table.add_column("own DIH", justify="right")
    for i, (deal, v) in enumerate(zip(chosen.deals, chosen.deal_dih, strict=True), start=1):
        table.add_row(str(i), deal, f"{v:.6f}")
    console.print(table)
    console.print(f"DIH of this set (one deal per round): {chosen.set_dih:.6f}")
    if joint:
        console.print(f"DIH of the paper's set (top {rounds} by own DIH): {paper.set_dih:.6f}")
    if loaded.excluded:
        console.print(f"left out {len(loaded.excluded)} deal(s) with fewer than {min_plays} plays")


# --- score distributions (docs/dih.md §6) and validation by simulated tournaments (§7) ---
def _bar_columns() -> tuple[ProgressColumn, ...]:
    from rich.progress import MofNCompleteColumn, TimeRemainingColumn

    return (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )


@app.command("pool", cls=LimitsHelpCommand)
def make_pool(
    out: Annotated[Path, opt.out_file("Pool file to write (one deal per line).", short=False)],
    count: Annotated[
        int, typer.Option("--count", min=1, max=MAX_POOL, help="Number of distinct random deals.")
    ] = 300,
    seed: SeedOpt = 0,
) -> None:
    """Write a versioned pool file of COUNT distinct uniformly random deals (paper's Algorithm 3)."""
    from paiju.tournament.population import random_pool, write_pool_file

    deals = random_pool(count, seed)
    header = (
        f"paiju Dou Dizhu deal pool: {count} distinct uniformly random deals, landlord first, kitty last.\n"
        f"Made by: paiju dih pool --count {count} --seed {seed}"
    )
    write_pool_file(out, deals, header)
    console.print(f"wrote {len(deals)} deals to {out}")


@app.command("dists", cls=LimitsHelpCommand)
def dists_command(
    out: Annotated[
        Path,
        opt.out_file("Parquet table to write: deal, score, probability, plays.", short=False),
    ],
    pool: Annotated[
        Path | None,
        typer.Option(
            "--pool", parser=input_file, help="Pool file: simulate the population on every deal (§6 b)."
        ),
    ] = None,
    records: Annotated[
        list[Path] | None,
        typer.Option(
            "--records",
            parser=parquet_input,
            help="Game-record directory or file (docs/dih.md §6 a); repeat for several.",
        ),
    ] = None,
    plays: Annotated[
        int, typer.Option("--plays", min=1, max=MAX_PLAYS, help="Plays per deal when simulating.")
    ] = 96,
    population: Annotated[
        str,
        typer.Option(
            "--population",
            help="Agents when simulating: a preset (ladder, mixed) or "
            "'landlord=A|B;farmer1=C|D;farmer2=E' (SPEC~EPS = SPEC with ε random moves).",
        ),
    ] = "ladder",
    seed: Annotated[int, opt.seed("Seed of the simulated games.", short=False)] = 0,
    min_plays: Annotated[
        int,
        typer.Option(
            "--min-plays",
            min=1,
            max=MAX_MIN_PLAYS,
            help="With --records: keep deals played at least this often.",
        ),
    ] = 50,
    workers: Annotated[int, opt.workers("Processes playing games.")] = 2,
    ray: Annotated[bool, opt.ray("Play games as Ray tasks ($RAY_ADDRESS).")] = False,
    cache: Annotated[
        Path | None,
        typer.Option("--cache", parser=output_dir, help="Cache folder for played games (resume)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Per-deal landlord-score distributions, from game records (DuckDB) or simulated play."""
    from rich.progress import Progress as RichProgress

    from paiju.tournament.distributions import write_distribution_table
    from paiju.tournament.population import Population, distributions_from_records, simulate_distributions
    from paiju.tournament.selection import read_pool_file

    if (pool is None) == (not records):
        raise ConfigError("give exactly one of --pool (simulate) or --records (aggregate game records)")
    if records:
        laws = distributions_from_records(records, min_plays=min_plays)
        source = f"records {', '.join(map(str, records))} (min plays {min_plays})"
    else:
        assert pool is not None
        deals = read_pool_file(pool)
        pop = Population.parse(population)
        if as_json:
            laws = simulate_distributions(
                deals, pop, plays, seed, workers=workers, cache_dir=cache, use_ray=ray
            )
        else:
            with RichProgress(*_bar_columns(), console=err_console, transient=True) as bar:
                task = bar.add_task(f"games ({len(pop)} combinations)", total=len(deals) * plays)
                laws = simulate_distributions(
                    deals,
                    pop,
                    plays,
                    seed,
                    workers=workers,
                    cache_dir=cache,
                    use_ray=ray,
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                )
        source = f"{plays} plays per deal of pool {pool} by population {pop.spec()} (seed {seed})"
    write_distribution_table(out, laws)
    if as_json:
        print_json({"out": str(out), "deals": len(laws), "source": source})
        return
    console.print(f"wrote the score distributions of {len(laws)} deal(s) to {out}")
    console.print(f"source: {source}")


@app.command("validate", cls=LimitsHelpCommand)
def validate_command(
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            parser=input_file,
            help="Validation TOML (default: the built-in miniature of the paper's grid).",
        ),
    ] = None,
    plot: Annotated[Path, typer.Option("--plot", parser=output_file, help="PNG plot to write.")] = Path(
        "dih-validation.png"
    ),
    out_json: Annotated[
        Path | None, typer.Option("--out-json", parser=output_file, help="Also write the results as JSON.")
    ] = None,
    tournaments: Annotated[
        int | None,
        typer.Option(
            "--tournaments", min=1, max=MAX_TOURNAMENTS, help="Override the tournaments per setting."
        ),
    ] = None,
    ray: Annotated[bool, opt.ray("Play the games as Ray tasks ($RAY_ADDRESS).")] = False,
    cache: Annotated[
        Path | None, typer.Option("--cache", parser=output_dir, help="Cache folder for played games.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Simulated tournaments: P1 (random deals) vs P2 (DIH-selected deals), the paper's validation."""
    import dataclasses
    import json

    from rich.progress import Progress as RichProgress

    from paiju.tournament.validate import DEFAULT_CONFIG, ValidationConfig, plot_report, run_validation

    cfg = ValidationConfig.from_toml(config if config is not None else DEFAULT_CONFIG)
    if tournaments is not None:
        cfg = dataclasses.replace(cfg, tournaments=tournaments)
    if as_json:
        report = run_validation(cfg, cache_dir=cache, use_ray=ray)
    else:
        with RichProgress(*_bar_columns(), console=err_console, transient=True) as bar:
            tasks: dict[str, TaskID] = {}

            def progress(stage: str, done: int, total: int) -> None:
                if stage not in tasks:
                    tasks[stage] = bar.add_task(stage, total=total)
                bar.update(tasks[stage], completed=done, total=total)

            report = run_validation(cfg, cache_dir=cache, use_ray=ray, progress=progress)
    plot_report(report, plot)
    data = report.as_dict()
    data["plot"] = str(plot)
    if out_json is not None:
        out_json.write_text(json.dumps(data, indent=2, default=float))
    if as_json:
        print_json(data)
        return
    table = Table(
        title=f"{cfg.name}: {report.combinations} combinations, pool {report.pool_size}, "
        f"{cfg.tournaments} tournaments per row"
    )
    for col in (
        "n",
        "m",
        "r",
        "P1 random",
        *(f"P2 {m}" for m in cfg.methods),
        *(f"gain {m}" for m in cfg.methods),
    ):
        table.add_column(col, justify="right")

    def pct(e: Estimate) -> str:
        v, lo, hi = e.value, e.low, e.high
        return "n/a" if v != v else f"{v:.3f} [{lo:.3f}, {hi:.3f}]"

    def gain(e: Estimate) -> str:
        v, lo, hi = e.value, e.low, e.high
        return "n/a (P1 = 0)" if v != v else f"{v:+.1%} [{lo:+.1%}, {hi:+.1%}]"

    for r in report.results:
        table.add_row(
            str(r.players),
            str(r.rounds),
            str(r.top),
            pct(r.p1),
            *(pct(r.p2[m]) for m in cfg.methods),
            *(gain(r.gain[m]) for m in cfg.methods),
        )
    console.print(table)
    console.print(f"P = share of tournaments whose top r are distinguishable; 95% intervals; plot: {plot}")
