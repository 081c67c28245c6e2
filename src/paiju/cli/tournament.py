"""`paiju tournament` sub-commands: run a duplicate Dou Dizhu event from one event file.

The event lives in one SQLite file (``EVENT``), which the commands read and change; every
change is one transaction and is kept in the event's audit log (``paiju tournament log``).
``docs/tournament.md`` explains the format choices and walks through the commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from paiju.cli import options as opt
from paiju.cli.common import console, print_json
from paiju.cli.tournament_options import ByOpt, EventArg, JsonOpt, RoundOpt, changed_by, open_event
from paiju.cli.tournament_plan import plan
from paiju.cli.tournament_results import COMMANDS as RESULT_COMMANDS
from paiju.cli.validate import LimitsHelpCommand, input_file, output_file, parquet_input

app = typer.Typer(no_args_is_help=True)

MAX_MIN_PLAYS = 1_000_000


@app.command("new", cls=LimitsHelpCommand)
def new(
    event: Annotated[
        Path, typer.Argument(parser=output_file, help="The event file to create.", show_default=False)
    ],
    players_file: Annotated[
        Path,
        typer.Option("--players", parser=input_file, help="CSV of the players: name,id[,club][,rating]."),
    ],
    name: Annotated[
        str | None, typer.Option("--name", help="The event's name (default: the file's).")
    ] = None,
    fmt: Annotated[
        list[str] | None,
        typer.Option("--format", help="A format choice as KEY=VALUE, repeatable (docs/tournament.md)."),
    ] = None,
    by: ByOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Create an event file with its players and format."""
    from paiju.tournament.director.formats import EventFormat
    from paiju.tournament.director.players import read_players_csv
    from paiju.tournament.director.rounds import check_format
    from paiju.tournament.director.store import EventStore

    entries = read_players_csv(players_file)
    chosen = EventFormat.from_items(fmt)
    check_format(chosen, entries)
    title = name if name is not None else event.stem
    with EventStore.create(event, title, chosen, changed_by(by), [e.row() for e in entries]) as store:
        info = store.event()
        count = len(store.players())
    if as_json:
        print_json(
            {"event": str(event), "name": info.name, "players": count, "format": info.format.as_dict()}
        )
        return
    console.print(f"created {event}: {info.name!r}, {count} players")
    shown = {k: ",".join(v) if isinstance(v, list) else v for k, v in info.format.as_dict().items()}
    console.print("format: " + ", ".join(f"{k}={v}" for k, v in shown.items() if v is not None))


@app.command("players", cls=LimitsHelpCommand)
def players(
    event: EventArg,
    add: Annotated[
        str | None, typer.Option("--add", help="Enter a late player, written name,id[,club[,rating]].")
    ] = None,
    withdraw: Annotated[
        str | None, typer.Option("--withdraw", help="Withdraw the player with this id.")
    ] = None,
    by: ByOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the players; enter a late player or withdraw one (from the next unpaired round)."""
    from paiju.core.errors import ConfigError
    from paiju.tournament.director import players as field

    if add is not None and withdraw is not None:
        raise ConfigError("give --add or --withdraw, not both")
    with open_event(event) as store:
        if add is not None:
            field.add_late_entry(store, field.parse_entry(add), changed_by(by))
        if withdraw is not None:
            field.withdraw(store, withdraw, changed_by(by))
        listed = store.players()
    if as_json:
        print_json(
            {
                "players": [
                    {
                        "id": p.code,
                        "name": p.name,
                        "club": p.club,
                        "rating": p.rating,
                        "entered_round": p.entered_round,
                        "withdrawn_round": p.withdrawn_round,
                    }
                    for p in listed
                ]
            }
        )
        return
    table = Table(title=f"{len(listed)} players")
    for col in ("id", "name", "club", "rating", "status"):
        table.add_column(col)
    for p in listed:
        status = "playing" if p.entered_round == 1 else f"from round {p.entered_round}"
        if p.withdrawn_round is not None:
            status = f"withdrawn before round {p.withdrawn_round}"
        rating = "" if p.rating is None else f"{p.rating:g}"
        table.add_row(p.code, p.name, p.club, rating, status)
    console.print(table)


@app.command("pair", cls=LimitsHelpCommand)
def pair(
    event: EventArg,
    round_no: RoundOpt,
    seed: Annotated[int, opt.seed("Seed of the draw, byes and ties (stored with the round).")] = 0,
    method: Annotated[
        str | None,
        typer.Option("--method", help="random, rating or swiss (default: the format's round 1, then swiss)."),
    ] = None,
    by: ByOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Pair the next round into tables of three and plan its movement."""
    from paiju.tournament.director.formats import choose
    from paiju.tournament.director.rounds import METHODS, pair_round
    from paiju.tournament.director.store import players_by_table

    chosen = None if method is None else choose("--method", method, METHODS)
    with open_event(event) as store:
        result = pair_round(store, round_no, seed, changed_by(by), method=chosen)
        names = {p.id: p.name for p in store.players()}
    tables = {
        t: ["sitter" if p is None else names[p] for p in players]
        for t, players in players_by_table(result.seats).items()
    }
    report = result.info.pairing_report
    if as_json:
        print_json(
            {
                "round": round_no,
                "seed": seed,
                "tables": [{"table": t, "players": ps} for t, ps in sorted(tables.items())],
                "byes": [names[p] for p in result.byes],
                "report": report,
            }
        )
        return
    table = Table(title=f"round {round_no} ({report['method']}, seed {seed})")
    for col in ("table", "seat 1", "seat 2", "seat 3"):
        table.add_column(col)
    for number, ps in sorted(tables.items()):
        table.add_row(str(number), *ps)
    console.print(table)
    if result.byes:
        console.print("byes: " + ", ".join(names[p] for p in result.byes))
    cost = report["cost"]
    console.print(
        f"repeat meetings {cost['repeats']}, same-club pairs {cost['clubs']}, score gap {cost['gap']}"
        + ("" if report["optimal"] else " (best found within the search budget)")
    )


@app.command("boards", cls=LimitsHelpCommand)
def boards(
    event: EventArg,
    round_no: RoundOpt,
    select: Annotated[
        str | None,
        typer.Option("--select", help="Choose the round's boards: dih or random (without it: list them)."),
    ] = None,
    pool: Annotated[
        Path | None, typer.Option("--pool", parser=input_file, help="Pool file: one deal per line.")
    ] = None,
    dists: Annotated[
        Path | None,
        typer.Option(
            "--dists", parser=parquet_input, help="With dih: the pool's score laws (paiju dih dists)."
        ),
    ] = None,
    min_plays: Annotated[
        int,
        typer.Option(
            "--min-plays", min=1, max=MAX_MIN_PLAYS, help="With dih: leave out laws of fewer plays."
        ),
    ] = 50,
    seed: Annotated[int, opt.seed("Seed of a random choice and of bottom cards (stored).")] = 0,
    by: ByOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Choose a round's boards (DIH or random), or list them: cards only once released."""
    from paiju.tournament.director.formats import choose
    from paiju.tournament.director.rounds import SELECTIONS, choose_boards, round_boards

    how = None if select is None else choose("--select", select, SELECTIONS)
    with open_event(event) as store:
        if how is not None:
            choose_boards(
                store, round_no, seed, changed_by(by), select=how, pool=pool, dists=dists, min_plays=min_plays
            )
        info = store.round(round_no)
        chosen = round_boards(store, round_no)
    released = info.released_at is not None
    report = _public(info.board_selection, released)
    listed = [
        {"board": b.number, "check": b.check, **({"record": b.record()} if released else {})} for b in chosen
    ]
    if as_json:
        print_json({"round": round_no, "released": released, "boards": listed, "selection": report})
        return
    if not chosen:
        console.print(f"round {round_no} has no boards yet")
        return
    table = Table(title=f"round {round_no} boards")
    table.add_column("board", justify="right")
    table.add_column("check")
    if released:
        table.add_column("hand record", overflow="fold")
    for row in listed:
        table.add_row(str(row["board"]), str(row["check"]), *([str(row["record"])] if released else []))
    console.print(table)
    if not released:
        console.print(f"the cards stay secret until: paiju tournament release {event} --round {round_no}")
    if report and report.get("method") == "dih":
        values = ", ".join(f"{d['dih']:.4f}" for d in report["deals"])
        console.print(
            f"DIH selection from {report['pool']} ({report['pool_size']} deals): own DIH {values}; "
            f"set DIH {report['set_dih']:.4f}"
        )


def _public(report: dict[str, Any] | None, released: bool) -> dict[str, Any] | None:
    """The selection report without the deals' cards until the round is released."""
    if report is None or released:
        return report
    return {**report, "deals": [{k: v for k, v in d.items() if k != "deal"} for d in report.get("deals", [])]}


@app.command("release", cls=LimitsHelpCommand)
def release(event: EventArg, round_no: RoundOpt, by: ByOpt = None, as_json: JsonOpt = False) -> None:
    """Release a round: its boards' cards show in listings from now on."""
    from paiju.tournament.director.rounds import release as release_round

    with open_event(event) as store:
        info = release_round(store, round_no, changed_by(by))
    if as_json:
        print_json({"round": round_no, "released_at": info.released_at})
        return
    console.print(f"round {round_no} released at {info.released_at}")


@app.command("sheets", cls=LimitsHelpCommand)
def sheets(
    event: EventArg,
    round_no: RoundOpt,
    out: Annotated[Path, opt.out_dir("Folder to write the round's HTML pages into.")],
    as_json: JsonOpt = False,
) -> None:
    """Write a round's hand records, pairing lists and score slips (HTML, printable)."""
    from paiju.tournament.director.sheets import write_round_sheets

    with open_event(event) as store:
        written = write_round_sheets(store, round_no, out)
    if as_json:
        print_json({"round": round_no, "files": [str(p) for p in written]})
        return
    for path in written:
        console.print(f"wrote {path}")


@app.command("log", cls=LimitsHelpCommand)
def log(event: EventArg, as_json: JsonOpt = False) -> None:
    """The event's audit log: every change, who made it and when, with the rows before and after."""
    with open_event(event) as store:
        entries = store.audit_log()
    if as_json:
        print_json({"audit": [e.__dict__ for e in entries]})
        return
    table = Table(title=f"{len(entries)} changes")
    for col in ("when", "who", "what", "row"):
        table.add_column(col)
    for e in entries:
        kind = "added" if e.before is None else "removed" if e.after is None else "changed"
        table.add_row(e.at, e.who, e.action, f"{e.entity} {e.key} {kind}")
    console.print(table)


# score entry, adjustments and standings (issue 48 items 4 and 5): paiju.cli.tournament_results
for _name, _command in RESULT_COMMANDS.items():
    app.command(_name, cls=LimitsHelpCommand)(_command)
# planning an event by simulation (issue 48 item 6): paiju.cli.tournament_plan
app.command("plan", cls=LimitsHelpCommand)(plan)
