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

**Stages** (the format's ``final_after`` = K, ``final_players`` = F, ``carry_over``): up to
round K the standings are the qualifying standings above. The finalists are the top F of the
standings after round K among the players still entered for round K + 1 (:func:`finalists`;
a tie at the cut goes by the tie-breaks). After round K the finalists are ranked first, on the
final's rounds alone (comparison, byes, penalties, tie-breaks) plus ``carry_over``'s share of
their qualifying total; everyone else follows in their qualifying order, placed from F + 1.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import numpy as np

from paiju.core.errors import ConfigError
from paiju.doudizhu.scoring import seat_returns
from paiju.tournament.director.adjustments import Adjustment, adjustments
from paiju.tournament.director.comparison import compare
from paiju.tournament.director.formats import CARRY_SHARE, HANDS, TABLE_SIZE, EventFormat, TieBreak
from paiju.tournament.director.results import StoredResult, stored_results
from paiju.tournament.director.seating import RoundTables
from paiju.tournament.director.store import EventStore, Player, RoundInfo, players_by_table
from paiju.tournament.validate import distinguishable

Status = Literal["confirmed", "pending", "missing", "fouled", "adjusted"]
StageName = Literal["qualifying", "final"]
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
    carried: float = 0.0
    """What a finalist took into the final of its qualifying total (``carry_over``); in ``total``."""
    stage: StageName | None = None
    """With a final, after it started: ``final`` (ranked on the final) or ``qualifying`` (a
    player who did not reach it, ranked after every finalist by the qualifying standings)."""


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
                    "stage": r.stage,
                    "carried": r.carried,
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
    store: EventStore,
    round_no: int,
    adjusted: list[Adjustment] | None = None,
    *,
    tables: RoundTables | None = None,
) -> list[BoardSheet]:
    """Round ``round_no``'s per-board result sheets (its released boards; none before).
    ``tables``: the round's tables when the caller has read them already (read here if not)."""
    if tables is None:
        tables = RoundTables.load(store, round_no)
    elif tables.number != round_no:
        raise ValueError(f"round_sheets: round {round_no} given the tables of round {tables.number}")
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
    stage = _StageInput(store, fmt, sheets, done, rounds[0].pairing_seed if rounds else 0)
    # everyone who has played by then (a withdrawn player keeps what they scored; one who
    # withdrew before their first round never played)
    played = [p for p in players.values() if p.entered_round <= upto and p.plays_in(p.entered_round)]
    if fmt.final_after is None or fmt.final_players is None or upto <= fmt.final_after:
        rows = stage.ranked(range(1, upto + 1), played, {}, None)
        top_unique = _top_unique([r.total for r in rows], fmt.top)
    else:
        qualifying = stage.ranked(
            range(1, fmt.final_after + 1), [p for p in played if p.entered_round <= fmt.final_after], {}, None
        )
        carried = _carried(fmt, qualifying, _cut(fmt, rounds, qualifying))
        final = stage.ranked(
            range(fmt.final_after + 1, upto + 1), [p for p in played if p.id in carried], carried, "final"
        )
        # the others keep their qualifying order, placed after the final's players
        others = _numbered(
            fmt,
            [dataclasses.replace(r, stage="qualifying") for r in qualifying if r.player.id not in carried],
            len(final),
        )
        rows = final + others
        # each of the first R places held by one player: within the final, and past it among the others
        past = fmt.top - len(final)
        top_unique = _top_unique([r.total for r in final], min(fmt.top, len(final))) and (
            past <= 0 or not others or _top_unique([r.total for r in others], past)
        )
    return Standings(
        event=info.name,
        after_round=upto,
        format=fmt,
        rows=rows,
        sheets=sheets,
        top_unique=top_unique,
        pending=sum(t.status == "pending" for s in sheets for t in s.tables),
        missing=sum(t.status == "missing" for s in sheets for t in s.tables),
        players=players,
    )


def _cut(fmt: EventFormat, rounds: list[RoundInfo], qualifying: list[Standing]) -> list[int]:
    """The finalists, in qualifying rank order: once the final's first round is paired, the cut
    stored with it (a correction to a qualifying result no longer moves it; a finalist who
    withdraws is not replaced); before, :func:`_qualified`."""
    assert fmt.final_after is not None
    stored = _stored_cut(fmt.final_after + 1, rounds)
    return stored if stored is not None else _qualified(fmt, qualifying)


def _qualified(fmt: EventFormat, qualifying: list[Standing]) -> list[int]:
    """The top ``final_players`` of the qualifying standings (its tie-breaks decide a tie at the
    cut) among the players still entered for the final's first round, in rank order."""
    assert fmt.final_after is not None and fmt.final_players is not None
    return [r.player.id for r in qualifying if r.player.plays_in(fmt.final_after + 1)][: fmt.final_players]


def _stored_cut(first: int, rounds: list[RoundInfo]) -> list[int] | None:
    """The cut stored with the pairing of the final's first round ``first`` (None before it is paired)."""
    stored = next((r.pairing_report.get("finalists") for r in rounds if r.number == first), None)
    return [int(p) for p in stored] if isinstance(stored, list) else None


def _carried(fmt: EventFormat, qualifying: list[Standing], chosen: list[int]) -> dict[int, float]:
    """Each finalist's start in the final: ``carry_over``'s share of its qualifying total."""
    share = CARRY_SHARE[fmt.carry_over]
    totals = {r.player.id: r.total for r in qualifying}
    return {p: round(share * totals[p], DIGITS) for p in chosen if p in totals}


def finalists(store: EventStore, qualifying: Standings | None = None) -> list[int]:
    """The players of the event's final (ids, in qualifying rank order); none without a final.
    Read from the standings after the last qualifying round, so pairing and standings agree
    (``qualifying``: those standings, when the caller has them already; they are computed only
    while the cut is not stored yet)."""
    fmt = store.event().format
    if fmt.final_after is None:
        return []
    assert qualifying is None or qualifying.after_round == fmt.final_after
    rounds = store.rounds()
    stored = _stored_cut(fmt.final_after + 1, rounds)
    if stored is not None:
        return stored
    table = qualifying if qualifying is not None else compute_standings(store, fmt.final_after)
    return _qualified(fmt, table.rows)


@dataclass(frozen=True)
class _StageInput:
    """What every stage's ranking reads: the event's rules, sheets, adjustments and lot seed."""

    store: EventStore
    fmt: EventFormat
    sheets: list[BoardSheet]
    adjusted: list[Adjustment]
    seed: int

    def ranked(
        self, rounds: range, field: list[Player], carried: dict[int, float], stage: StageName | None
    ) -> list[Standing]:
        """``field`` ranked on ``rounds`` alone, each starting from what it ``carried`` in."""
        sheets = [s for s in self.sheets if s.round in rounds]
        tally = _tally(self.store, rounds, sheets)
        byes = _bye_points(self.fmt, self.store, rounds, sheets, tally)
        penalties: dict[int, float] = defaultdict(float)
        for a in self.adjusted:
            if a.kind == "penalty" and a.round in rounds and a.player_id is not None and a.points is not None:
                penalties[a.player_id] += a.points
        totals = {
            p.id: round(tally.points[p.id] + byes[p.id] - penalties[p.id] + carried.get(p.id, 0.0), DIGITS)
            for p in field
        }
        breaks = {
            p.id: {
                "opponents": round(sum(totals.get(o, 0.0) for o in tally.met[p.id]), DIGITS),
                "landlord": round(tally.landlord[p.id], DIGITS),
                "lot": _lot(self.seed, p.code),
            }
            for p in field
        }
        return _ranked(self.fmt, field, totals, breaks, tally, byes, penalties, carried, stage)


@dataclass
class _Tally:
    points: defaultdict[int, float] = field(default_factory=lambda: defaultdict(float))
    boards: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))
    landlord: defaultdict[int, float] = field(default_factory=lambda: defaultdict(float))
    met: defaultdict[int, list[int]] = field(default_factory=lambda: defaultdict(list))


def _tally(store: EventStore, rounds: range, sheets: list[BoardSheet]) -> _Tally:
    tally = _Tally()
    for sheet in sheets:
        for t in sheet.tables:
            for h in t.hands:
                if h.player_id is not None and h.points is not None:
                    tally.points[h.player_id] += h.points
                    tally.boards[h.player_id] += 1
                    if h.hand == 0:
                        tally.landlord[h.player_id] += h.points
    for round_no in rounds:
        for table in players_by_table(store.seats(round_no)).values():
            players = [p for p in table if p is not None]  # a sitter is no one's opponent
            for p in players:
                tally.met[p] += [o for o in players if o != p]
    return tally


def _bye_points(
    fmt: EventFormat, store: EventStore, rounds: range, sheets: list[BoardSheet], tally: _Tally
) -> defaultdict[int, float]:
    """Each player's score for the rounds of ``rounds`` they had a bye in (``bye_score``)."""
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
        if round_no not in rounds:
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
    carried: dict[int, float],
    stage: StageName | None,
) -> list[Standing]:
    def key(p: Player) -> tuple[float, ...]:
        # higher is better for the total and the opponents' and landlord tie-breaks; a lower lot wins
        return (-totals[p.id], *(breaks[p.id][tb] * (1 if tb == "lot" else -1) for tb in fmt.tie_breaks))

    rows = [
        Standing(
            rank=0,
            place=0,
            player=p,
            total=totals[p.id],
            board_points=round(tally.points[p.id], DIGITS),
            boards=tally.boards[p.id],
            bye_points=round(byes[p.id], DIGITS),
            penalties=penalties.get(p.id, 0.0),
            tie_breaks=breaks[p.id],
            decided_by=None,
            carried=carried.get(p.id, 0.0),
            stage=stage,
        )
        for p in sorted(ranked, key=key)
    ]
    return _numbered(fmt, rows, 0)


def _numbered(fmt: EventFormat, rows: list[Standing], above: int) -> list[Standing]:
    """``rows`` (in rank order) with their ranks, places and deciding tie-breaks, after the
    ``above`` players ranked before them."""
    out: list[Standing] = []
    place = above + 1
    for i, row in enumerate(rows):
        decided: TieBreak | None = None
        if i > 0 and rows[i - 1].total == row.total:
            prev = rows[i - 1].tie_breaks
            decided = next((tb for tb in fmt.tie_breaks if prev[tb] != row.tie_breaks[tb]), None)
        else:
            place = above + i + 1  # the first of its total: everyone above scored more
        out.append(dataclasses.replace(row, rank=above + i + 1, place=place, decided_by=decided))
    return out


def _top_unique(totals: list[float], top: int) -> bool:
    if not totals:
        return False
    return bool(distinguishable(np.asarray(totals), min(top, len(totals))))


def totals_before(store: EventStore, round_no: int, previous: Standings | None = None) -> dict[int, float]:
    """Every player's total over the rounds before ``round_no`` (0 for a player with none):
    what Swiss pairing pairs on, the same totals as the standings after round ``round_no - 1``
    (``previous``: those standings, when the caller has them already)."""
    totals = {p.id: 0.0 for p in store.players()}
    if round_no > 1:
        assert previous is None or previous.after_round == round_no - 1
        table = previous if previous is not None else compute_standings(store, round_no - 1)
        totals.update(table.totals())
        if table.format.final_after == round_no - 1:  # the final starts from what its players carry in
            totals.update(_carried(table.format, table.rows, _cut(table.format, store.rounds(), table.rows)))
    return totals
