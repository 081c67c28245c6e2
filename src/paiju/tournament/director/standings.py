"""Standings: every hand of every board compared among its holders, totals, ranks with ties,
the tie-breaks, per-board result sheets, and whether the top R are unique.

After round N the standings count rounds 1..N. On each board each table's result counts
once it is confirmed (a pending entry, or none yet, counts nothing); the director's
adjustments (:mod:`paiju.tournament.director.adjustments`) come first: a fouled result is
never compared and its players score the average of their hand's remaining holders, an
adjusted table score is compared as if played, and a player's adjusted points replace what
the comparison gave. The table's landlord score ``s`` gives each hand its seat score (``s``
for the landlord, ``-s/2`` for each farmer), and each hand's holders are compared by the
event's comparison (:mod:`paiju.tournament.director.comparison`).

A player's **total** is the sum of their points, plus each bye's score (``bye_score``: the
player's own average per board scored, or the field's average per board of that round, times
the boards of a round), less penalties. **Ranks**: by total, higher first; on equal totals
by the format's ``tie_breaks`` in order: ``opponents`` (the sum of the totals of everyone
the player sat with, once per round together), ``landlord`` (points scored holding hand A),
``lot`` (a number drawn per player from round 1's pairing seed and the player's id: fixed
for the event, reproducible). ``place`` is the rank by total alone (ties share the better
place); ``decided_by`` names the tie-break that put a player below the one above with the
same total. **Top R unique** (the paper's objective, R = the format's ``top``): the R + 1
highest totals are pairwise distinct, so each of the first R places is held by one player
without a tie-break (``docs/dih.md`` §1).
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import numpy as np

from paiju.core.errors import ConfigError
from paiju.doudizhu.scoring import seat_returns
from paiju.tournament.director.adjustments import Adjustment, adjustments
from paiju.tournament.director.comparison import compare
from paiju.tournament.director.formats import HANDS, TABLE_SIZE, EventFormat, TieBreak
from paiju.tournament.director.results import StoredResult, stored_results
from paiju.tournament.director.seating import RoundTables
from paiju.tournament.director.store import EventStore, Player
from paiju.tournament.validate import distinguishable

Status = Literal["confirmed", "pending", "missing", "fouled", "adjusted"]
DIGITS: Final = 6
"""Totals are rounded to this many decimals before they are compared (a bye's average is a
fraction; equal totals must compare equal whatever order they were summed in)."""


@dataclass(frozen=True)
class HandLine:
    """One hand of a board at one table: its holder, seat score and comparison points."""

    hand: int
    player_id: int | None
    """None: a sitter (never compared or ranked)."""
    seat_score: float | None
    """The hand's score at its table (None: the table's result does not count)."""
    points: float | None
    """Comparison points (None: nothing scored on this board)."""


@dataclass(frozen=True)
class TableLine:
    """One board at one table, as its result sheet shows it."""

    table_no: int
    status: Status
    landlord_hand: int | None
    landlord_score: float | None
    """The landlord's score compared (None: not compared)."""
    result: StoredResult | None
    hands: tuple[HandLine, ...]


@dataclass(frozen=True)
class BoardSheet:
    """A board's results at every table, and each hand's comparison."""

    round: int
    board: int
    check: str
    tables: tuple[TableLine, ...]


@dataclass(frozen=True)
class Standing:
    rank: int
    """1.. after the tie-breaks (every rank held by one player)."""
    place: int
    """By total alone: 1 + the players with a higher total (ties share the better place)."""
    player: Player
    total: float
    board_points: float
    boards: int
    """Boards the player scored on (fouled-board averages and adjusted points included)."""
    bye_points: float
    penalties: float
    tie_breaks: dict[str, float]
    decided_by: TieBreak | None
    """The tie-break that ranked the player below the one above, on equal totals."""


@dataclass(frozen=True)
class Standings:
    event: str
    after_round: int
    format: EventFormat
    rows: list[Standing]
    sheets: list[BoardSheet]
    top_unique: bool
    """The R + 1 highest totals are pairwise distinct (R = ``format.top``)."""
    pending: int
    """Table results entered but not confirmed yet (they count nothing)."""
    missing: int
    """Tables and boards with no result yet (nor a fouled board or an adjusted score)."""
    players: dict[int, Player] = field(repr=False)

    def totals(self) -> dict[int, float]:
        return {row.player.id: row.total for row in self.rows}

    def shared_places(self) -> set[int]:
        """The places more than one player holds (printed ``2=``)."""
        held = Counter(row.place for row in self.rows)
        return {place for place, count in held.items() if count > 1}

    def as_dict(self, *, sheets: bool = True) -> dict[str, Any]:
        """The standings as JSON-ready data (the CLI's ``--json``, the web app's)."""
        out: dict[str, Any] = {
            "event": self.event,
            "after_round": self.after_round,
            "comparison": self.format.comparison,
            "tie_breaks": list(self.format.tie_breaks),
            "top": self.format.top,
            "top_unique": self.top_unique,
            "pending": self.pending,
            "missing": self.missing,
            "standings": [
                {
                    "rank": r.rank,
                    "place": r.place,
                    "id": r.player.code,
                    "name": r.player.name,
                    "club": r.player.club,
                    "total": r.total,
                    "board_points": r.board_points,
                    "boards": r.boards,
                    "bye_points": r.bye_points,
                    "penalties": r.penalties,
                    "tie_breaks": r.tie_breaks,
                    "decided_by": r.decided_by,
                    "withdrawn_round": r.player.withdrawn_round,
                }
                for r in self.rows
            ],
        }
        if sheets:
            out["boards"] = [self.sheet_dict(s) for s in self.sheets]
        return out

    def sheet_dict(self, sheet: BoardSheet) -> dict[str, Any]:
        def holder(pid: int | None) -> str | None:
            return None if pid is None else self.players[pid].code

        return {
            "round": sheet.round,
            "board": sheet.board,
            "check": sheet.check,
            "tables": [
                {
                    "table": t.table_no,
                    "status": t.status,
                    "landlord": None if t.landlord_hand is None else HANDS[t.landlord_hand],
                    "landlord_score": t.landlord_score,
                    "result": None if t.result is None else t.result.result.as_dict(),
                    "hands": {
                        HANDS[h.hand]: {
                            "player": holder(h.player_id),
                            "score": h.seat_score,
                            "points": h.points,
                        }
                        for h in t.hands
                    },
                }
                for t in sheet.tables
            ],
        }


def _table_line(
    tables: RoundTables, board: int, table_no: int, result: StoredResult | None, adjusted: list[Adjustment]
) -> TableLine:
    """The table's line before comparison: what counts of its result, if anything."""
    fouled = any(a.kind == "fouled" and a.board == board and a.table_no in (None, table_no) for a in adjusted)
    assigned = next(
        (
            a
            for a in adjusted
            if a.kind == "adjusted" and a.player_id is None and a.board == board and a.table_no == table_no
        ),
        None,
    )
    status: Status
    landlord, score = None, None
    if fouled:
        status = "fouled"
    elif assigned is not None and assigned.points is not None:
        status, score = "adjusted", assigned.points
        landlord = result.result.landlord_hand if result is not None else 0
    elif result is not None and not result.pending:
        status, landlord, score = "confirmed", result.result.landlord_hand, result.landlord_score
    else:
        status = "pending" if result is not None else "missing"
    seat = None if score is None or landlord is None else seat_returns(landlord, score)
    hands = tuple(
        HandLine(h, tables.holder(table_no, board, h), None if seat is None else seat[h], None)
        for h in range(TABLE_SIZE)
    )
    return TableLine(table_no, status, landlord, score, result, hands)


def _compared(
    fmt: EventFormat, lines: list[TableLine], board: int, adjusted: list[Adjustment]
) -> list[TableLine]:
    """``lines`` with each hand's comparison points; fouled tables score their group's average;
    a player's adjusted points replace theirs."""
    points: dict[tuple[int, int], float] = {}  # (table, hand) -> points
    for hand in range(TABLE_SIZE):
        scores: dict[int, float] = {}  # table -> the hand's seat score there
        for t in lines:
            seat = t.hands[hand]
            if seat.seat_score is not None and seat.player_id is not None:
                scores[t.table_no] = seat.seat_score
        compared = compare(fmt.comparison, scores)
        for table_no, value in compared.items():
            points[(table_no, hand)] = value
        average = sum(compared.values()) / len(compared) if compared else None
        for t in lines:
            if t.status == "fouled" and t.hands[hand].player_id is not None and average is not None:
                points[(t.table_no, hand)] = average
    override = {
        a.player_id: a.points
        for a in adjusted
        if a.kind == "adjusted" and a.player_id is not None and a.board == board and a.points is not None
    }
    out = []
    for t in lines:
        hands = tuple(
            HandLine(
                h.hand,
                h.player_id,
                h.seat_score,
                override.get(h.player_id, points.get((t.table_no, h.hand)))
                if h.player_id is not None
                else None,
            )
            for h in t.hands
        )
        out.append(TableLine(t.table_no, t.status, t.landlord_hand, t.landlord_score, t.result, hands))
    return out


def round_sheets(
    store: EventStore, round_no: int, adjusted: list[Adjustment] | None = None
) -> list[BoardSheet]:
    """Round ``round_no``'s per-board result sheets (its released boards; none before)."""
    tables = RoundTables.load(store, round_no)
    if not tables.released:
        return []
    done = [a for a in (adjusted if adjusted is not None else adjustments(store)) if a.round == round_no]
    results = {(r.board, r.table_no): r for r in stored_results(store, round_no)}
    sheets = []
    for number, board in sorted(tables.boards.items()):
        lines = [
            _table_line(tables, number, t, results.get((number, t)), done) for t in sorted(tables.tables)
        ]
        sheets.append(
            BoardSheet(round_no, number, board.check, tuple(_compared(tables.format, lines, number, done)))
        )
    return sheets


def last_released_round(store: EventStore) -> int:
    """The latest released round (0 before any): what standings count by default."""
    return max((r.number for r in store.rounds() if r.released_at is not None), default=0)


def compute_standings(store: EventStore, after_round: int | None = None) -> Standings:
    """The standings after round ``after_round`` (default: the latest released round)."""
    rounds = store.rounds()
    upto = last_released_round(store) if after_round is None else after_round
    if upto < 0 or upto > len(rounds):
        raise ConfigError(
            f"standings after round {upto}: the event has {len(rounds)} paired round(s)"
            if upto > 0
            else f"standings after round {upto}: rounds are numbered from 1"
        )
    info = store.event()
    fmt = info.format
    players = {p.id: p for p in store.players()}
    done = adjustments(store)
    sheets = [s for r in range(1, upto + 1) for s in round_sheets(store, r, done)]
    tally = _tally(store, upto, sheets)
    # everyone who has played by then (a withdrawn player keeps what they scored; one who
    # withdrew before their first round never played)
    ranked = [p for p in players.values() if p.entered_round <= upto and p.plays_in(p.entered_round)]
    byes = _bye_points(fmt, store, upto, sheets, tally)
    penalties: dict[int, float] = defaultdict(float)
    for a in done:
        if a.kind == "penalty" and a.round <= upto and a.player_id is not None and a.points is not None:
            penalties[a.player_id] += a.points
    totals = {p.id: round(tally.points[p.id] + byes[p.id] - penalties[p.id], DIGITS) for p in ranked}
    seed = rounds[0].pairing_seed if rounds else 0
    breaks = {
        p.id: {
            "opponents": round(sum(totals.get(o, 0.0) for o in tally.met[p.id]), DIGITS),
            "landlord": round(tally.landlord[p.id], DIGITS),
            "lot": _lot(seed, p.code),
        }
        for p in ranked
    }
    rows = _ranked(fmt, ranked, totals, breaks, tally, byes, penalties)
    return Standings(
        event=info.name,
        after_round=upto,
        format=fmt,
        rows=rows,
        sheets=sheets,
        top_unique=_top_unique([r.total for r in rows], fmt.top),
        pending=sum(t.status == "pending" for s in sheets for t in s.tables),
        missing=sum(t.status == "missing" for s in sheets for t in s.tables),
        players=players,
    )


@dataclass
class _Tally:
    points: defaultdict[int, float] = field(default_factory=lambda: defaultdict(float))
    boards: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))
    landlord: defaultdict[int, float] = field(default_factory=lambda: defaultdict(float))
    met: defaultdict[int, list[int]] = field(default_factory=lambda: defaultdict(list))


def _tally(store: EventStore, upto: int, sheets: list[BoardSheet]) -> _Tally:
    tally = _Tally()
    for sheet in sheets:
        for t in sheet.tables:
            for h in t.hands:
                if h.player_id is not None and h.points is not None:
                    tally.points[h.player_id] += h.points
                    tally.boards[h.player_id] += 1
                    if h.hand == 0:
                        tally.landlord[h.player_id] += h.points
    for round_no in range(1, upto + 1):
        at: dict[int, list[int]] = defaultdict(list)
        for seat in store.seats(round_no):
            if seat.player_id is not None:
                at[seat.table_no].append(seat.player_id)
        for players in at.values():
            for p in players:
                tally.met[p] += [o for o in players if o != p]
    return tally


def _bye_points(
    fmt: EventFormat, store: EventStore, upto: int, sheets: list[BoardSheet], tally: _Tally
) -> defaultdict[int, float]:
    """Each player's score for the rounds they had a bye in (``bye_score``)."""
    out: defaultdict[int, float] = defaultdict(float)
    field_sum: defaultdict[int, float] = defaultdict(float)
    field_count: defaultdict[int, int] = defaultdict(int)
    for sheet in sheets:
        for t in sheet.tables:
            for h in t.hands:
                if h.player_id is not None and h.points is not None:
                    field_sum[sheet.round] += h.points
                    field_count[sheet.round] += 1
    for round_no, player in store.byes():
        if round_no > upto:
            continue
        if fmt.bye_score == "own-average":
            scored = tally.boards[player]
            per_board = tally.points[player] / scored if scored else 0.0
        else:
            scored = field_count[round_no]
            per_board = field_sum[round_no] / scored if scored else 0.0
        out[player] += per_board * fmt.boards_per_round
    return out


def _lot(seed: int, code: str) -> float:
    """The player's lot: a number in [0, 1) from the event's first pairing seed and the id."""
    digest = hashlib.sha256(f"paiju lot|{seed}|{code}".encode()).digest()
    return int.from_bytes(digest[:6], "big") / 2**48


def _ranked(
    fmt: EventFormat,
    ranked: list[Player],
    totals: dict[int, float],
    breaks: dict[int, dict[str, float]],
    tally: _Tally,
    byes: defaultdict[int, float],
    penalties: dict[int, float],
) -> list[Standing]:
    def key(p: Player) -> tuple[float, ...]:
        # higher is better for the total and the opponents' and landlord tie-breaks; a lower lot wins
        return (-totals[p.id], *(breaks[p.id][tb] * (1 if tb == "lot" else -1) for tb in fmt.tie_breaks))

    order = sorted(ranked, key=key)
    rows: list[Standing] = []
    place = 1
    for i, p in enumerate(order):
        decided: TieBreak | None = None
        if i > 0 and totals[order[i - 1].id] == totals[p.id]:
            above = breaks[order[i - 1].id]
            decided = next((tb for tb in fmt.tie_breaks if above[tb] != breaks[p.id][tb]), None)
        else:
            place = i + 1  # the first of its total: everyone above scored more
        rows.append(
            Standing(
                rank=i + 1,
                place=place,
                player=p,
                total=totals[p.id],
                board_points=round(tally.points[p.id], DIGITS),
                boards=tally.boards[p.id],
                bye_points=round(byes[p.id], DIGITS),
                penalties=penalties.get(p.id, 0.0),
                tie_breaks=breaks[p.id],
                decided_by=decided,
            )
        )
    return rows


def _top_unique(totals: list[float], top: int) -> bool:
    if not totals:
        return False
    return bool(distinguishable(np.asarray(totals), min(top, len(totals))))


def totals_before(store: EventStore, round_no: int) -> dict[int, float]:
    """Every player's total over the rounds before ``round_no`` (0 for a player with none):
    what Swiss pairing pairs on, the same totals as the standings after round ``round_no - 1``."""
    totals = {p.id: 0.0 for p in store.players()}
    if round_no > 1:
        totals.update(compute_standings(store, round_no - 1).totals())
    return totals
