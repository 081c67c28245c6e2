"""Score entry: the director's CSV of slips, and the players' own entry at the table with the
table's PIN and the opponents' confirmation (the calls the organiser's web form makes).

**The director's CSV** (``paiju tournament enter EVENT --round N --file results.csv``): one
row per table and board, a header naming the columns in any order:

=============  ==========================================================================
``table``      the table number (required)
``board``      the board number (required; a board of this round)
``declarer``   the landlord: hand ``A``/``B``/``C`` or the player's id (empty: hand A, only
               without bidding)
``bid``        the winning bid 1-3 (with bidding; empty without)
``doublings``  0 (the scoring rules have no doubling; empty is 0)
``bombs``      bombs and rockets played (required; empty is 0)
``spring``     ``none`` (or empty), ``spring`` or ``anti-spring``
``result``     ``won`` or ``lost``: the landlord's (required)
``score``      optional: the landlord's score from the slip, checked against the rules
``check``      optional: the board's check code from the slip, checked against the board
=============  ==========================================================================

A file is entered in one transaction: every row, or (on the first row refused) none of them.
An error names the file, the row and the column. The director's rows are confirmed at once
and logged as the director's.

**At the table** (:func:`submit_result`, :func:`confirm_result`): a player of the table gives
their player id and the table's PIN (:mod:`paiju.tournament.director.pins`) with the result;
it stays *pending* until another player of the same table confirms it with their own id and
the PIN. A player who disagrees enters the result they think right instead, which replaces
the pending one and waits for someone other than them to confirm it. A confirmed result is
changed only by the director (:func:`correct_result`), an update logged with the row before
and after and the reason. Standings count confirmed results only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from paiju.core.errors import ConfigError
from paiju.tournament.director import csvfile
from paiju.tournament.director.pins import check_pin
from paiju.tournament.director.results import (
    SPRINGS,
    EntryError,
    Spring,
    StoredResult,
    TableResult,
    check_result,
    stored_results,
)
from paiju.tournament.director.seating import RoundTables, round_tables
from paiju.tournament.director.store import EventStore, Writer

REQUIRED: Final = ("table", "board", "bombs", "result")
OPTIONAL: Final = ("declarer", "bid", "doublings", "spring", "score", "check")
MAX_ROWS: Final = 10_000
_WON: Final = {"won": True, "win": True, "w": True, "lost": False, "lose": False, "l": False}
_SPRING: Final[dict[str, Spring]] = {
    "": "none",
    "none": "none",
    "no": "none",
    "spring": "spring",
    "春天": "spring",
    "anti-spring": "anti-spring",
    "antispring": "anti-spring",
    "反春": "anti-spring",
}


@dataclass(frozen=True)
class ResultLine:
    """One row of a results CSV, as written (checked against the round when entered)."""

    row: int
    """The row as a spreadsheet numbers it (the header is row 1)."""
    table_no: int
    board: int
    landlord_won: bool
    declarer: str = ""
    """A hand letter, a player id, or '' (hand A without bidding)."""
    bid: int | None = None
    doublings: int = 0
    bombs: int = 0
    spring: Spring = "none"
    score: float | None = None
    check: str | None = None


def read_results_csv(path: str | Path) -> list[ResultLine]:
    """The rows of a results CSV file (see the module docstring for its columns)."""
    return parse_results_csv(csvfile.read_text(path), Path(path).name)


def parse_results_csv(text: str, where: str = "results") -> list[ResultLine]:
    """The rows of CSV ``text``; ``where`` names the source in errors."""
    rows = csvfile.parse_rows(text, where, ",".join(REQUIRED) + "[,declarer][,bid][,spring]...")
    columns = csvfile.header_columns(rows[0], where, REQUIRED, OPTIONAL)
    lines = [
        _line(cells, columns, number, f"{where}, row {number}")
        for number, cells in enumerate(rows[1:], start=2)
        if not csvfile.is_blank(cells)
    ]
    if not lines:
        raise ConfigError(f"{where}: no results below the header")
    if len(lines) > MAX_ROWS:
        raise ConfigError(f"{where}: {len(lines)} rows; at most {MAX_ROWS}")
    return lines


def _line(cells: Sequence[str], columns: dict[str, int], number: int, where: str) -> ResultLine:
    csvfile.check_width(cells, columns, where)

    def cell(name: str) -> str:
        return csvfile.cell(cells, columns, name, where)

    def whole(name: str, *, empty: int | None) -> int | None:
        text = cell(name)
        if not text:
            if empty is None and name in REQUIRED:
                raise EntryError(f"{where}, column {name!r}: empty", field=name, row=number)
            return empty
        try:
            return int(text)
        except ValueError:
            raise EntryError(
                f"{where}, column {name!r}: {text!r} is not a whole number", field=name, row=number
            ) from None

    result = cell("result").lower()
    if result not in _WON:
        raise EntryError(
            f"{where}, column 'result': {cell('result')!r}; write won or lost (the landlord's result)",
            field="result",
            row=number,
        )
    spring = cell("spring").lower()
    if spring not in _SPRING:
        raise EntryError(
            f"{where}, column 'spring': {cell('spring')!r}; write {', '.join(SPRINGS)} (or leave it empty)",
            field="spring",
            row=number,
        )
    score_text = cell("score")
    try:
        score = float(score_text) if score_text else None
    except ValueError:
        raise EntryError(
            f"{where}, column 'score': {score_text!r} is not a number", field="score", row=number
        ) from None
    table, board = whole("table", empty=None), whole("board", empty=None)
    assert table is not None and board is not None  # required: empty was refused
    return ResultLine(
        row=number,
        table_no=table,
        board=board,
        declarer=cell("declarer"),
        bid=whole("bid", empty=None),
        doublings=whole("doublings", empty=0) or 0,
        bombs=whole("bombs", empty=0) or 0,
        spring=_SPRING[spring],
        landlord_won=_WON[result],
        score=score,
        check=cell("check") or None,
    )


def _checked_line(tables: RoundTables, line: ResultLine, where: str) -> tuple[TableResult, float]:
    """A CSV row checked against the round: its result and the landlord's score."""
    tables.check_table(line.table_no, where)
    board = tables.board(line.board, where)
    if line.check is not None and line.check.upper() != board.check:
        raise EntryError(
            f"{where}, field 'check': {line.check!r}, but board {board.number}'s check is {board.check}: "
            "the table played another board (a fouled board: paiju tournament adjust fouled)",
            field="check",
        )
    result = TableResult(
        landlord_hand=tables.declarer(line.table_no, line.board, line.declarer, where),
        landlord_won=line.landlord_won,
        bombs=line.bombs,
        bid=line.bid if tables.format.landlord == "bidding" or line.bid != 1 else None,
        doublings=line.doublings,
        spring=line.spring,
    )
    score = check_result(tables.format, board, result, where)
    if line.score is not None and line.score != score:
        raise EntryError(
            f"{where}, field 'score': {line.score:g}, but the rules give the landlord {score:g} "
            f"for this result (scoring rule {tables.format.scoring!r})",
            field="score",
        )
    return result, score


def enter_results(
    store: EventStore, round_no: int, lines: Sequence[ResultLine], who: str, *, source: str = "results"
) -> list[StoredResult]:
    """Enter the director's ``lines`` for round ``round_no`` in one transaction, each confirmed
    at once and logged as ``who``'s; the first row refused rolls back the whole file."""
    with store.transaction(who, f"enter results of round {round_no} from {source}") as tx:
        tables = round_tables(store, round_no)
        tables.require_released()
        existing = {(r.table_no, r.board): r for r in stored_results(store, round_no)}
        seen: dict[tuple[int, int], int] = {}
        for line in lines:
            where = f"{source}, row {line.row}"
            try:
                result, score = _checked_line(tables, line, where)
            except EntryError as err:
                raise EntryError(str(err), field=err.field, row=line.row) from None
            key = (line.table_no, line.board)
            if key in seen:
                raise EntryError(
                    f"{where}: table {key[0]}, board {key[1]} is entered twice (also row {seen[key]})",
                    field="board",
                    row=line.row,
                )
            if key in existing:
                raise EntryError(
                    f"{where}: table {key[0]}, board {key[1]} already has a result "
                    f"({_status(existing[key])}); change it with paiju tournament correct",
                    field="board",
                    row=line.row,
                )
            seen[key] = line.row
            _insert(tx, round_no, line.table_no, line.board, result, score, confirmed_by=tx.who)
    return [r for r in stored_results(store, round_no) if (r.table_no, r.board) in seen]


def _status(r: StoredResult) -> str:
    if r.pending:
        return f"pending, entered by {r.entered_by} at {r.entered_at}"
    return f"entered by {r.entered_by} at {r.entered_at}, confirmed by {r.confirmed_by}"


def _insert(
    tx: Writer,
    round_no: int,
    table_no: int,
    board: int,
    result: TableResult,
    score: float,
    *,
    confirmed_by: str | None,
) -> None:
    tx.insert(
        "results",
        {
            "round": round_no,
            "table_no": table_no,
            "board": board,
            **result.columns(),
            "landlord_score": score,
            "entered_by": tx.who,
            "entered_at": tx.at,
            "confirmed_by": confirmed_by,
        },
    )


def result_at(store: EventStore, round_no: int, table_no: int, board: int) -> StoredResult | None:
    """The result entered at the table on the board, pending or confirmed (None: none yet)."""
    for r in stored_results(store, round_no):
        if (r.table_no, r.board) == (table_no, board):
            return r
    return None


def _key(round_no: int, table_no: int, board: int) -> dict[str, int]:
    return {"round": round_no, "table_no": table_no, "board": board}


def player_signature(code: str) -> str:
    """How a player's entry or confirmation is signed in the results and the audit log."""
    return f"player {code}"


def _signed(player: str) -> str:
    if not player.strip():
        raise EntryError("field 'player': empty; give your player id", field="player")
    return player_signature(player.strip())


def _at_table(
    store: EventStore, round_no: int, table_no: int, board: int, player: str, pin: str
) -> tuple[RoundTables, str]:
    """The round's tables once ``player`` is known to sit at the table with its PIN; the
    player's signature."""
    tables = round_tables(store, round_no)
    tables.require_released()
    tables.check_table(table_no)
    tables.board(board)
    check_pin(store, round_no, table_no, pin)
    tables.seated(tables.player(player.strip()), table_no)
    return tables, player_signature(player.strip())


def submit_result(
    store: EventStore, round_no: int, table_no: int, board: int, result: TableResult, *, player: str, pin: str
) -> StoredResult:
    """A player of the table enters its result on ``board``: pending until another player of
    the table confirms it. A pending result is replaced (the disagreeing player's version, to
    be confirmed by someone else); a confirmed one is refused (the director corrects it)."""
    action = f"enter round {round_no}, table {table_no}, board {board}"
    with store.transaction(_signed(player), action) as tx:
        tables, signed = _at_table(store, round_no, table_no, board, player, pin)
        score = check_result(tables.format, tables.board(board), result, f"table {table_no}, board {board}")
        before = result_at(store, round_no, table_no, board)
        if before is None:
            _insert(tx, round_no, table_no, board, result, score, confirmed_by=None)
        elif before.pending:
            tx.update(
                "results",
                _key(round_no, table_no, board),
                {**result.columns(), "landlord_score": score, "entered_by": signed, "entered_at": tx.at},
            )
        else:
            raise EntryError(
                f"table {table_no}, board {board} is already confirmed ({_status(before)}); "
                "ask the director to correct it",
                field="board",
            )
    found = result_at(store, round_no, table_no, board)
    assert found is not None
    return found


def confirm_result(
    store: EventStore, round_no: int, table_no: int, board: int, *, player: str, pin: str
) -> StoredResult:
    """Another player of the table confirms its pending result on ``board``."""
    action = f"confirm round {round_no}, table {table_no}, board {board}"
    with store.transaction(_signed(player), action) as tx:
        _, signed = _at_table(store, round_no, table_no, board, player, pin)
        pending = result_at(store, round_no, table_no, board)
        if pending is None:
            raise EntryError(f"table {table_no}, board {board} has no result to confirm yet", field="board")
        if not pending.pending:
            raise EntryError(
                f"table {table_no}, board {board} is already confirmed ({_status(pending)})", field="board"
            )
        if pending.entered_by == signed:
            raise EntryError(
                f"table {table_no}, board {board}: {signed} entered this result; another player of the "
                "table confirms it",
                field="player",
            )
        tx.update("results", _key(round_no, table_no, board), {"confirmed_by": signed})
    found = result_at(store, round_no, table_no, board)
    assert found is not None
    return found


def correct_result(
    store: EventStore,
    round_no: int,
    table_no: int,
    board: int,
    result: TableResult,
    who: str,
    reason: str,
) -> StoredResult:
    """The director replaces an entered result (pending or confirmed) with ``result``, which
    counts as confirmed by ``who``; logged with the row before and after and ``reason``."""
    if not reason.strip():
        raise EntryError("a correction needs a reason (it is kept in the audit log)", field="reason")
    where = f"table {table_no}, board {board}"
    with store.transaction(who, f"correct round {round_no}, {where}: {reason.strip()}") as tx:
        tables = round_tables(store, round_no)
        tables.check_table(table_no)
        score = check_result(tables.format, tables.board(board), result, where)
        if result_at(store, round_no, table_no, board) is None:
            raise EntryError(
                f"round {round_no}, {where} has no result to correct; enter it (paiju tournament enter)",
                field="board",
            )
        tx.update(
            "results",
            _key(round_no, table_no, board),
            {**result.columns(), "landlord_score": score, "confirmed_by": tx.who},
        )
    found = result_at(store, round_no, table_no, board)
    assert found is not None
    return found
