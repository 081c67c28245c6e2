"""`paiju dih` sub-commands: DIH of a score distribution, and deal selection from a pool."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from paiju.cli.common import console, err_console, print_json
from paiju.core.errors import ConfigError

app = typer.Typer(no_args_is_help=True)

PlayersOpt = Annotated[int, typer.Option("--players", "-n", help="Number of players N.")]
RoundsOpt = Annotated[int, typer.Option("--rounds", "-m", help="Number of rounds M.")]
TopOpt = Annotated[
    int, typer.Option("--top", "-r", help="R: the R highest totals should be pairwise distinct.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of text.")]


@app.command("value")
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


@app.command("select")
def select(
    pool: Annotated[Path, typer.Option("--pool", help="Pool file: one [20][17][17] deal per line.")],
    dists: Annotated[
        Path,
        typer.Option("--dists", help="Parquet file or directory: columns deal, score, probability, plays."),
    ],
    players: PlayersOpt,
    rounds: RoundsOpt,
    top: TopOpt,
    joint: Annotated[
        bool,
        typer.Option("--joint", help="Choose the M deals jointly (ours) instead of ranking them one by one."),
    ] = False,
    beam: Annotated[int, typer.Option("--beam", help="Beam width of the joint search.")] = 4,
    min_plays: Annotated[
        int, typer.Option("--min-plays", help="Leave out deals whose distribution rests on fewer plays.")
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
