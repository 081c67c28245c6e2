"""The director's adjustments: fouled boards, adjusted scores and penalties, each a row of the
``adjustments`` table with who made it and why, logged in the audit log with the reason.

* **Fouled** (a board played with the wrong cards, at one table or everywhere): the fouled
  result is taken out of the comparison, so the other holders of each hand are compared
  among themselves, and each player of the fouled table scores, for that board, the average
  of what the remaining holders of their hand scored (nothing when every table is fouled:
  the board is void). The comparison is never fed a result of other cards.
* **Adjusted score of a table** (``kind`` adjusted, a table and no player): the landlord's
  score the director assigns to the table on that board, compared as if played (the
  landlord's hand is the entered result's, or hand A when none was entered).
* **Adjusted points of a player** (``kind`` adjusted, a player): the comparison points the
  player scores on that board, replacing what the comparison gave (an artificial score such
  as an average-plus); 0 up to a top on that board.
* **Penalty**: points taken off a player's total (stored as the positive points taken off).

An adjustment is withdrawn with :func:`cancel_adjustment` (the row is deleted; the audit
log keeps it with the reason). The standings (:mod:`paiju.tournament.director.standings`)
apply them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

from paiju.core.errors import NotFoundError
from paiju.doudizhu.scoring import get_rule
from paiju.tournament.director.comparison import top_points
from paiju.tournament.director.results import MAX_BID, EntryError
from paiju.tournament.director.seating import RoundTables, round_tables
from paiju.tournament.director.store import EventStore

AdjustmentKind = Literal["fouled", "adjusted", "penalty"]


@dataclass(frozen=True)
class Adjustment:
    id: int
    round: int
    kind: AdjustmentKind
    board: int | None
    table_no: int | None
    """The table (fouled at one table, a table's adjusted score); None: every table."""
    player_id: int | None
    points: float | None
    """Adjusted: the table's landlord score or the player's comparison points; penalty: the
    points taken off."""
    reason: str
    made_by: str
    made_at: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Adjustment:
        return cls(**{**row, "kind": cast(AdjustmentKind, row["kind"])})

    @property
    def description(self) -> str:
        """What it does, in words (the audit log's action and the CLI's listing)."""
        where = f"round {self.round}" + (f", board {self.board}" if self.board is not None else "")
        if self.kind == "fouled":
            at = f"table {self.table_no}" if self.table_no is not None else "every table"
            return f"fouled {where} at {at}"
        if self.kind == "penalty":
            return f"penalty of {self.points:g} in {where}"
        if self.player_id is None:
            return f"adjusted score {self.points:g} for the landlord, {where}, table {self.table_no}"
        return f"adjusted points {self.points:g}, {where}"

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "description": self.description}


def adjustments(store: EventStore) -> list[Adjustment]:
    """Every adjustment in force, in the order made."""
    return [Adjustment.from_row(row) for row in store.adjustments()]


def _record(
    store: EventStore,
    who: str,
    reason: str,
    round_no: int,
    kind: AdjustmentKind,
    *,
    board: int | None = None,
    table_no: int | None = None,
    player_id: int | None = None,
    points: float | None = None,
) -> Adjustment:
    if not reason.strip():
        raise EntryError(
            "an adjustment needs a reason (it is kept with it and in the audit log)", field="reason"
        )
    draft = Adjustment(0, round_no, kind, board, table_no, player_id, points, reason.strip(), who, "")
    with store.transaction(who, f"{draft.description}: {reason.strip()}") as tx:
        new_id = tx.insert(
            "adjustments",
            {
                "round": round_no,
                "kind": kind,
                "board": board,
                "table_no": table_no,
                "player_id": player_id,
                "points": points,
                "reason": reason.strip(),
                "made_by": tx.who,
                "made_at": tx.at,
            },
        )
    return next(a for a in adjustments(store) if a.id == new_id)


def _played(store: EventStore, round_no: int, board: int, table_no: int | None) -> RoundTables:
    """The round's tables once the board (and the table) are known and the round released."""
    tables = round_tables(store, round_no)
    tables.require_released("its boards are adjusted")
    tables.board(board)
    if table_no is not None:
        tables.check_table(table_no)
    return tables


def _same(existing: list[Adjustment], kind: AdjustmentKind, **fields: object) -> Adjustment | None:
    for a in existing:
        if a.kind == kind and all(getattr(a, k) == v for k, v in fields.items()):
            return a
    return None


def foul_board(
    store: EventStore, round_no: int, board: int, who: str, reason: str, *, table_no: int | None = None
) -> Adjustment:
    """Board ``board`` was played with the wrong cards at ``table_no`` (None: at every table)."""
    _played(store, round_no, board, table_no)
    existing = adjustments(store)
    for a in existing:
        if a.kind == "fouled" and a.round == round_no and a.board == board and a.table_no in (None, table_no):
            raise EntryError(f"already: {a.description} (adjustment {a.id})", field="board")
    return _record(store, who, reason, round_no, "fouled", board=board, table_no=table_no)


def adjust_table_score(
    store: EventStore, round_no: int, board: int, table_no: int, landlord_score: float, who: str, reason: str
) -> Adjustment:
    """The director assigns the table's landlord score on ``board`` (compared as if played)."""
    tables = _played(store, round_no, board, table_no)
    most = get_rule(tables.format.scoring).max_abs_score(MAX_BID)
    if landlord_score == 0 or abs(landlord_score) > most:
        raise EntryError(
            f"field 'score': {landlord_score:g}; under the rule {tables.format.scoring!r} a landlord "
            f"scores between -{most:g} and {most:g}, never 0",
            field="score",
        )
    done = _same(
        adjustments(store), "adjusted", round=round_no, board=board, table_no=table_no, player_id=None
    )
    if done is not None:
        raise EntryError(
            f"already: {done.description} (adjustment {done.id}); cancel it first", field="board"
        )
    return _record(
        store, who, reason, round_no, "adjusted", board=board, table_no=table_no, points=landlord_score
    )


def adjust_player_points(
    store: EventStore, round_no: int, board: int, player: str, points: float, who: str, reason: str
) -> Adjustment:
    """The director sets ``player``'s comparison points on ``board`` (an artificial score)."""
    tables = _played(store, round_no, board, None)
    held = tables.player(player)
    table_no = next((t for t, ps in tables.tables.items() if held.id in ps), None)
    if table_no is None:
        raise EntryError(f"player {player!r} did not play board {board} in round {round_no}", field="player")
    hand = tables.hand_of(table_no, board, held.id)
    holders = sum(tables.holder(t, board, hand) is not None for t in tables.tables)
    top = top_points(tables.format.comparison, holders)
    if not 0 <= points <= top:
        raise EntryError(
            f"field 'points': {points:g}; on board {board} a player scores 0..{top:g} "
            f"({tables.format.comparison} among {holders})",
            field="points",
        )
    done = _same(adjustments(store), "adjusted", round=round_no, board=board, player_id=held.id)
    if done is not None:
        raise EntryError(
            f"already: {done.description} (adjustment {done.id}); cancel it first", field="board"
        )
    return _record(
        store,
        who,
        reason,
        round_no,
        "adjusted",
        board=board,
        table_no=table_no,
        player_id=held.id,
        points=points,
    )


def penalise(
    store: EventStore, round_no: int, player: str, points: float, who: str, reason: str
) -> Adjustment:
    """Take ``points`` off ``player``'s total, as of round ``round_no``."""
    tables = round_tables(store, round_no)
    held = tables.player(player)
    if not points > 0:
        raise EntryError(
            f"field 'points': {points:g}; a penalty takes off more than 0 points", field="points"
        )
    return _record(store, who, reason, round_no, "penalty", player_id=held.id, points=points)


def cancel_adjustment(store: EventStore, adjustment_id: int, who: str, reason: str) -> Adjustment:
    """Withdraw an adjustment (the audit log keeps the row and ``reason``)."""
    if not reason.strip():
        raise EntryError("withdrawing an adjustment needs a reason", field="reason")
    found = next((a for a in adjustments(store) if a.id == adjustment_id), None)
    if found is None:
        raise NotFoundError(f"no adjustment {adjustment_id} in {store.path}")
    with store.transaction(
        who, f"cancel adjustment {adjustment_id} ({found.description}): {reason.strip()}"
    ) as tx:
        tx.delete("adjustments", {"id": adjustment_id})
    return found
