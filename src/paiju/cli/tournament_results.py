"""`paiju tournament` commands for a round's results (issue 48 items 4 and 5): enter the
director's CSV, list and correct results, the tables' PINs, the director's adjustments, the
standings (text, JSON, CSV, the hall's HTML page) and master points.

The command functions are registered under ``paiju tournament`` by :mod:`paiju.cli.tournament`
(``COMMANDS``); the work is done by :mod:`paiju.tournament.director` (``entry``,
``adjustments``, ``standings``, ``masterpoints``, ``publish``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer
from rich.console import JustifyMethod
from rich.table import Table

from paiju.cli.common import console, print_json
from paiju.cli.tournament_options import ByOpt, EventArg, JsonOpt, RoundOpt, changed_by, open_event
from paiju.cli.validate import input_file, output_file
from paiju.tournament.director.formats import HANDS, MAX_BOARDS_PER_ROUND, MAX_ROUNDS, choose

if TYPE_CHECKING:  # imported when a command runs, not for --help
    from paiju.tournament.director.results import StoredResult, TableResult
    from paiju.tournament.director.standings import Standings

MAX_TABLES: Final = 10_000
MAX_BOARD: Final = MAX_ROUNDS * MAX_BOARDS_PER_ROUND
MAX_REFRESH: Final = 3600
MAX_POINTS: Final = 1_000_000.0

OptionalRound = Annotated[
    int | None,
    typer.Option(
        "--round", "-r", min=1, max=MAX_ROUNDS, help="After this round (default: the latest released)."
    ),
]
TableOpt = Annotated[int, typer.Option("--table", "-t", min=1, max=MAX_TABLES, help="The table.")]
BoardOpt = Annotated[int, typer.Option("--board", "-b", min=1, max=MAX_BOARD, help="The board's number.")]
ReasonOpt = Annotated[str, typer.Option("--reason", help="Why (kept with the change and in the audit log).")]


def _result_rows(results: list[StoredResult]) -> Table:
    table = Table(title=f"{len(results)} results")
    for col in ("round", "table", "board", "landlord", "bid", "bombs", "spring", "result", "score", "status"):
        table.add_column(col)
    for r in results:
        facts = r.result
        status = f"pending ({r.entered_by})" if r.pending else f"confirmed ({r.confirmed_by})"
        table.add_row(
            str(r.round),
            str(r.table_no),
            str(r.board),
            HANDS[facts.landlord_hand],
            "" if facts.bid is None else str(facts.bid),
            str(facts.bombs),
            "" if facts.spring == "none" else facts.spring,
            "won" if facts.landlord_won else "lost",
            f"{r.landlord_score:g}",
            status,
        )
    return table


def enter(
    event: EventArg,
    round_no: RoundOpt,
    file: Annotated[
        Path,
        typer.Option(
            "--file",
            "-f",
            parser=input_file,
            help="CSV of results: table,board,bombs,result and optional declarer, bid, doublings, spring, "
            "score, check.",
        ),
    ],
    by: ByOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Enter a round's results from the director's CSV: all rows or none, each checked
    against its board and the scoring rules, confirmed at once and logged as yours."""
    from paiju.tournament.director.entry import enter_results, read_results_csv

    lines = read_results_csv(file)
    with open_event(event) as store:
        entered = enter_results(store, round_no, lines, changed_by(by), source=file.name)
    if as_json:
        print_json({"round": round_no, "entered": [r.as_dict() for r in entered]})
        return
    console.print(_result_rows(entered))
    console.print(f"entered {len(entered)} result(s) of round {round_no} from {file}")


def results(
    event: EventArg,
    round_no: Annotated[
        int | None, typer.Option("--round", "-r", min=1, max=MAX_ROUNDS, help="Only this round.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the entered results, pending and confirmed."""
    from paiju.tournament.director.results import stored_results

    with open_event(event) as store:
        listed = stored_results(store, round_no)
    if as_json:
        print_json({"results": [r.as_dict() for r in listed]})
        return
    console.print(_result_rows(listed))


def _result_from(current: TableResult, changes: dict[str, Any]) -> TableResult:
    return dataclasses.replace(current, **{k: v for k, v in changes.items() if v is not None})


WON_CHOICES: Final = {"won": True, "lost": False}


def correct(
    event: EventArg,
    round_no: RoundOpt,
    table_no: TableOpt,
    board: BoardOpt,
    reason: ReasonOpt,
    declarer: Annotated[
        str | None, typer.Option("--declarer", help="The landlord: hand A, B, C or the player's id.")
    ] = None,
    bid: Annotated[
        int | None, typer.Option("--bid", min=1, max=3, help="The winning bid (with bidding).")
    ] = None,
    doublings: Annotated[int | None, typer.Option("--doublings", min=0, max=99, help="Doublings.")] = None,
    bombs: Annotated[
        int | None, typer.Option("--bombs", min=0, max=99, help="Bombs and rockets played.")
    ] = None,
    spring: Annotated[str | None, typer.Option("--spring", help="none, spring or anti-spring.")] = None,
    result: Annotated[str | None, typer.Option("--result", help="The landlord's: won or lost.")] = None,
    by: ByOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Correct an entered result (the fields given change, the rest stay); it counts as
    confirmed by you, and the audit log keeps the row before and after with the reason."""
    from paiju.core.errors import NotFoundError
    from paiju.tournament.director.entry import correct_result, result_at
    from paiju.tournament.director.results import SPRINGS
    from paiju.tournament.director.seating import round_tables

    with open_event(event) as store:
        current = result_at(store, round_no, table_no, board)
        if current is None:
            raise NotFoundError(f"round {round_no}, table {table_no}, board {board} has no result to correct")
        hand = None
        if declarer is not None:
            hand = round_tables(store, round_no).declarer(table_no, board, declarer)
        changes = {
            "landlord_hand": hand,
            "bid": bid,
            "doublings": doublings,
            "bombs": bombs,
            "spring": None if spring is None else choose("--spring", spring, SPRINGS),
            "landlord_won": None if result is None else WON_CHOICES[choose("--result", result, WON_CHOICES)],
        }
        fixed = correct_result(
            store, round_no, table_no, board, _result_from(current.result, changes), changed_by(by), reason
        )
    if as_json:
        print_json({"before": current.as_dict(), "after": fixed.as_dict()})
        return
    console.print(_result_rows([current, fixed]))
    console.print(f"corrected round {round_no}, table {table_no}, board {board}: {reason}")


def pins(event: EventArg, round_no: RoundOpt, by: ByOpt = None, as_json: JsonOpt = False) -> None:
    """The tables' PINs of a released round (for the director: they are on the table's slips)."""
    from paiju.tournament.director.pins import round_pins

    with open_event(event) as store:
        issued = round_pins(store, round_no, changed_by(by))
    if as_json:
        print_json({"round": round_no, "pins": {str(t): p for t, p in issued.items()}})
        return
    table = Table(title=f"round {round_no} PINs")
    table.add_column("table", justify="right")
    table.add_column("PIN")
    for t, p in sorted(issued.items()):
        table.add_row(str(t), p)
    console.print(table)


ADJUSTMENTS: Final = ("fouled", "score", "points", "penalty", "cancel", "list")


def adjust(
    event: EventArg,
    kind: Annotated[
        str,
        typer.Argument(
            help="fouled (a board played with the wrong cards), score (a table's landlord score), points "
            "(a player's points on a board), penalty, cancel (an adjustment by --id), or list.",
            show_default=False,
        ),
    ],
    round_no: Annotated[
        int | None, typer.Option("--round", "-r", min=1, max=MAX_ROUNDS, help="The round.")
    ] = None,
    board: Annotated[
        int | None, typer.Option("--board", "-b", min=1, max=MAX_BOARD, help="The board.")
    ] = None,
    table_no: Annotated[
        int | None,
        typer.Option("--table", "-t", min=1, max=MAX_TABLES, help="The table (fouled: default every table)."),
    ] = None,
    player: Annotated[str | None, typer.Option("--player", help="The player's id (points, penalty).")] = None,
    points: Annotated[
        float | None,
        typer.Option(
            "--points",
            min=-MAX_POINTS,
            max=MAX_POINTS,
            help="score: the landlord's score; points: the player's points; penalty: points taken off.",
        ),
    ] = None,
    adjustment: Annotated[
        int | None, typer.Option("--id", min=1, help="cancel: the adjustment's id.")
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why (kept with it and in the audit log).")] = "",
    by: ByOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The director's adjustments: a fouled board, an adjusted score, a penalty, each logged
    with who and why; cancel one, or list them."""
    from paiju.core.errors import ConfigError
    from paiju.tournament.director import adjustments as adj

    what = choose("KIND", kind, ADJUSTMENTS)

    def need(value: Any, option: str) -> Any:
        if value is None:
            raise ConfigError(f"adjust {what} needs {option}")
        return value

    who = changed_by(by)
    with open_event(event) as store:
        if what == "fouled":
            adj.foul_board(
                store, need(round_no, "--round"), need(board, "--board"), who, reason, table_no=table_no
            )
        elif what == "score":
            adj.adjust_table_score(
                store,
                need(round_no, "--round"),
                need(board, "--board"),
                need(table_no, "--table"),
                need(points, "--points"),
                who,
                reason,
            )
        elif what == "points":
            adj.adjust_player_points(
                store,
                need(round_no, "--round"),
                need(board, "--board"),
                need(player, "--player"),
                need(points, "--points"),
                who,
                reason,
            )
        elif what == "penalty":
            adj.penalise(
                store,
                need(round_no, "--round"),
                need(player, "--player"),
                need(points, "--points"),
                who,
                reason,
            )
        elif what == "cancel":
            adj.cancel_adjustment(store, need(adjustment, "--id"), who, reason)
        listed = adj.adjustments(store)
        codes = {p.id: p.code for p in store.players()}

    def code(a: adj.Adjustment) -> str:
        return "" if a.player_id is None else codes[a.player_id]

    if as_json:
        print_json({"adjustments": [{**a.as_dict(), "player": code(a) or None} for a in listed]})
        return
    table = Table(title=f"{len(listed)} adjustments")
    for col in ("id", "what", "player", "reason", "by", "when"):
        table.add_column(col)
    for a in listed:
        table.add_row(str(a.id), a.description, code(a), a.reason, a.made_by, a.made_at)
    console.print(table)


def _standings_table(standings: Standings) -> Table:
    fmt = standings.format
    table = Table(
        title=f"{standings.event}: standings after round {standings.after_round} ({fmt.comparison})"
    )
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("rank", "right"),
        ("place", "right"),
        ("id", "left"),
        ("name", "left"),
        ("club", "left"),
        ("total", "right"),
        ("boards", "right"),
        ("opponents", "right"),
        ("landlord", "right"),
        ("tie-break", "left"),
    )
    for col, justify in columns:
        table.add_column(col, justify=justify)
    tied = standings.shared_places()
    for r in standings.rows:
        table.add_row(
            str(r.rank),
            f"{r.place}{'=' if r.place in tied else ''}",
            r.player.code,
            r.player.name,
            r.player.club,
            f"{r.total:g}",
            str(r.boards),
            f"{r.tie_breaks['opponents']:g}",
            f"{r.tie_breaks['landlord']:g}",
            r.decided_by or "",
        )
    return table


def _sheet_tables(standings: Standings) -> list[Table]:
    out = []
    for sheet in standings.sheets:
        table = Table(title=f"round {sheet.round}, board {sheet.board} (check {sheet.check})")
        table.add_column("table", justify="right")
        table.add_column("result")
        table.add_column("score", justify="right")
        for h in HANDS:
            table.add_column(f"hand {h}")
        for t in sheet.tables:
            cells = [
                "sitter"
                if h.player_id is None
                else f"{standings.players[h.player_id].code} "
                f"{'' if h.seat_score is None else f'{h.seat_score:+g}'} -> "
                f"{'' if h.points is None else f'{h.points:g}'}"
                for h in t.hands
            ]
            score = "" if t.landlord_score is None else f"{t.landlord_score:+g}"
            table.add_row(str(t.table_no), t.status, score, *cells)
        out.append(table)
    return out


def standings(
    event: EventArg,
    round_no: OptionalRound = None,
    boards: Annotated[bool, typer.Option("--boards", help="Also print each board's result sheet.")] = False,
    csv_out: Annotated[
        Path | None, typer.Option("--csv", parser=output_file, help="Also write the standings as CSV here.")
    ] = None,
    html_out: Annotated[
        Path | None,
        typer.Option(
            "--html", parser=output_file, help="Also write the hall's page (self-contained HTML) here."
        ),
    ] = None,
    refresh: Annotated[
        int,
        typer.Option(
            "--refresh",
            min=0,
            max=MAX_REFRESH,
            help="The page reloads itself every so many seconds (0: never).",
        ),
    ] = 30,
    as_json: JsonOpt = False,
) -> None:
    """The standings after a round: totals, ranks with ties and tie-breaks, whether the top R
    are unique, per-board result sheets; as text, JSON, CSV and a page for the hall."""
    from paiju.core.records import atomic_write_text
    from paiju.tournament.director.publish import hall_page, standings_csv
    from paiju.tournament.director.standings import compute_standings

    with open_event(event) as store:
        table = compute_standings(store, round_no)
    if csv_out is not None:
        atomic_write_text(csv_out, standings_csv(table))
    if html_out is not None:
        atomic_write_text(html_out, hall_page(table, refresh=refresh))
    if as_json:
        print_json(table.as_dict(sheets=True))
        return
    console.print(_standings_table(table))
    if boards:
        for sheet in _sheet_tables(table):
            console.print(sheet)
    unique = "unique" if table.top_unique else "not unique"
    console.print(
        f"top {table.format.top}: {unique}; {table.pending} result(s) pending, {table.missing} missing"
    )
    for path in (csv_out, html_out):
        if path is not None:
            console.print(f"wrote {path}")


def masterpoints(
    event: EventArg,
    scale: Annotated[
        Path,
        typer.Option("--points-table", parser=input_file, help="The master-point table (TOML or JSON)."),
    ],
    round_no: OptionalRound = None,
    csv_out: Annotated[
        Path | None, typer.Option("--csv", parser=output_file, help="Write the export (CSV) here.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Master points by final place from a configurable table, with a CSV export."""
    from paiju.core.records import atomic_write_text
    from paiju.tournament.director.masterpoints import award, awards_csv, load_table
    from paiju.tournament.director.standings import compute_standings

    points_table = load_table(scale)
    with open_event(event) as store:
        awards = award(compute_standings(store, round_no), points_table)
    if csv_out is not None:
        atomic_write_text(csv_out, awards_csv(awards))
    if as_json:
        print_json(
            {
                "table": points_table.name,
                "awards": [
                    {
                        "rank": a.standing.rank,
                        "id": a.standing.player.code,
                        "name": a.standing.player.name,
                        "masterpoints": a.points,
                    }
                    for a in awards
                ],
            }
        )
        return
    table = Table(title=f"master points ({points_table.name or scale.name})")
    for col in ("rank", "id", "name", "total", "master points"):
        table.add_column(col)
    for a in awards:
        s = a.standing
        table.add_row(str(s.rank), s.player.code, s.player.name, f"{s.total:g}", f"{a.points:g}")
    console.print(table)
    if csv_out is not None:
        console.print(f"wrote {csv_out}")


COMMANDS: Final[dict[str, Callable[..., None]]] = {
    "enter": enter,
    "results": results,
    "correct": correct,
    "pins": pins,
    "adjust": adjust,
    "standings": standings,
    "masterpoints": masterpoints,
}
"""The commands by name, registered under ``paiju tournament``."""
