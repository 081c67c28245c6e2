"""A round's paper: hand records for pre-dealing, pairing lists and score slips, as HTML pages
with a print stylesheet (A4, one board or one table's slips per page, no screen chrome).

* ``hand-records.html`` (for the dealers only: it shows every board's cards): per board, each
  hand in the usual notation, the bottom cards, the check code, the copies to deal, and a
  card per hand to slip into the board's wallet. Each board's record line
  (:meth:`paiju.tournament.director.boards.Board.record`) is printed as it is, so the page
  can be checked, or read back, card for card.
* ``pairings.html`` (for the hall): the tables with their players and each player's hand on
  each board, the byes, and the same list by name.
* ``slips.html`` (for the tables): a slip per table and board naming the board's check code
  and who holds which hand, with boxes for the result and the three players' initials, and
  the table's PIN for entering results at the table once the round is released (the PINs
  are issued then: print the slips after ``paiju tournament release``). The PIN is on the
  slips only, never on the pairing list that hangs in the hall.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from paiju.core.errors import ConfigError
from paiju.core.records import atomic_write_text
from paiju.tournament.director.boards import Board
from paiju.tournament.director.formats import HANDS, EventFormat
from paiju.tournament.director.movement import copies_needed
from paiju.tournament.director.store import EventStore, Player, Seat, Stage

FILES: Final = ("index.html", "hand-records.html", "pairings.html", "slips.html")

STYLE: Final = """
body { font-family: "Noto Sans", "Helvetica Neue", Arial, sans-serif; margin: 1.5em; color: #111; }
h1 { font-size: 1.4em; margin: 0 0 .4em; } h2 { font-size: 1.15em; margin: .8em 0 .3em; }
table { border-collapse: collapse; margin: .4em 0; } th, td { border: 1px solid #555; padding: .25em .6em; }
th { background: #eee; text-align: left; }
.cards { font-family: "DejaVu Sans Mono", Menlo, monospace; font-size: 1.15em; letter-spacing: .08em; }
.check { font-family: "DejaVu Sans Mono", Menlo, monospace; font-weight: bold; }
.record { font-family: "DejaVu Sans Mono", Menlo, monospace; font-size: .8em; color: #444; }
.page { margin-bottom: 2em; }
.hand-cards { display: flex; gap: 1em; flex-wrap: wrap; }
.hand-card { border: 1px dashed #333; padding: .5em; width: 16em; }
.slip { border: 2px solid #111; padding: .6em; margin: .6em 0; }
.slip, .hand-card { page-break-inside: avoid; break-inside: avoid; }
.box { display: inline-block; min-width: 4em; border-bottom: 1px solid #111; height: 1.2em; }
.note { color: #444; font-size: .9em; }
@page { size: A4; margin: 12mm; }
@media print {
  body { margin: 0; font-size: 11pt; }
  nav, .screen-only { display: none; }
  .page { page-break-after: always; break-after: page; margin: 0; }
  .page:last-child { page-break-after: auto; break-after: auto; }
  a { color: inherit; text-decoration: none; }
}
"""


@dataclass(frozen=True)
class RoundPapers:
    """What a round's sheets show, read from the event."""

    event: str
    round_no: int
    format: EventFormat
    players: dict[int, Player]
    seats: list[Seat]
    byes: list[int]
    stages: list[Stage]
    boards: list[Board]
    pins: dict[int, str]
    """Table -> its PIN (empty before the round is released)."""

    @classmethod
    def load(cls, store: EventStore, round_no: int) -> RoundPapers:
        info = store.event()
        store.round(round_no)  # a round that is not paired is an error naming it
        boards = [Board.parse(b.record) for b in store.boards(round_no)]
        if not boards:
            raise ConfigError(f"round {round_no} has no boards yet (paiju tournament boards --select ...)")
        return cls(
            event=info.name,
            round_no=round_no,
            format=info.format,
            players={p.id: p for p in store.players()},
            seats=store.seats(round_no),
            byes=[p for _, p in store.byes(round_no)],
            stages=store.movement(round_no),
            boards=boards,
            pins=store.pins(round_no),
        )

    @property
    def tables(self) -> int:
        return max(s.table_no for s in self.seats)

    def who(self, table_no: int, position: int) -> str:
        """The name at a table position ('sitter' for the director's substitute)."""
        for seat in self.seats:
            if (seat.table_no, seat.position) == (table_no, position):
                return "sitter" if seat.player_id is None else self.players[seat.player_id].name
        raise KeyError((table_no, position))


def escape(text: object) -> str:
    """``text`` as HTML text or an attribute value (names and clubs are the players' own)."""
    return html.escape(str(text), quote=True)


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f'<nav class="screen-only"><a href="index.html">round index</a></nav>\n{body}</body>\n</html>\n'
    )


def _spaced(hand: object) -> str:
    """Cards with a thin gap between ranks, easier to deal from: '334' -> '33 4'."""
    text = str(hand)
    groups: list[str] = []
    for ch in text:
        if groups and groups[-1][-1] == ch:
            groups[-1] += ch
        else:
            groups.append(ch)
    return " ".join(groups)


def _hand_role(fmt: EventFormat, hand: int) -> str:
    if fmt.landlord == "fixed":
        return "landlord: takes the bottom cards" if hand == 0 else "farmer"
    return "bids first" if hand == 0 else f"bids {'second' if hand == 1 else 'third'}"


def hand_records(papers: RoundPapers) -> str:
    """The dealers' page: every board's hands, bottom cards, check and copies."""
    copies = copies_needed(papers.tables, len(papers.boards))
    parts = [
        f"<h1>{escape(papers.event)} · round {papers.round_no} · hand records</h1>\n"
        f'<p class="note">Confidential until the round starts. Deal {copies} '
        f"cop{'y' if copies == 1 else 'ies'} of each board (one per group of "
        f"{len(papers.boards)} tables).</p>\n"
    ]
    for board in papers.boards:
        rows = "".join(
            f'<tr><th>{name}</th><td class="cards">{escape(_spaced(hand))}</td>'
            f"<td>{len(hand)}</td><td>{_hand_role(papers.format, i)}</td></tr>\n"
            for i, (name, hand) in enumerate(zip(HANDS, board.hands, strict=True))
        )
        cards = "".join(
            f'<div class="hand-card"><div>Board {board.number} · hand {name} · check '
            f'<span class="check">{board.check}</span></div>'
            f'<div class="cards">{escape(_spaced(hand))}</div></div>\n'
            for name, hand in zip(HANDS, board.hands, strict=True)
        )
        parts.append(
            f'<section class="page board" id="board-{board.number}">\n'
            f'<h2>Board {board.number} · check <span class="check">{board.check}</span></h2>\n'
            f"<table>\n<tr><th>hand</th><th>cards</th><th>#</th><th>role</th></tr>\n{rows}"
            f'<tr><th>bottom</th><td class="cards">{escape(_spaced(board.bottom))}</td><td>3</td>'
            f"<td>face down in the wallet's middle pocket</td></tr>\n</table>\n"
            f'<p class="record">{escape(board.record())}</p>\n'
            f'<div class="hand-cards">\n{cards}</div>\n</section>\n'
        )
    return _page(f"{papers.event} round {papers.round_no} hand records", "".join(parts))


def _hand_of(papers: RoundPapers, table_no: int, position: int) -> list[tuple[int, str]]:
    """(board, hand name) the player at a table position holds, stage by stage."""
    return [
        (st.board, HANDS[st.holders.index(position)])
        for st in sorted(papers.stages, key=lambda s: s.stage)
        if st.table_no == table_no
    ]


def pairings(papers: RoundPapers) -> str:
    """The hall's page: tables, byes, and the list by name."""
    tables = []
    for table_no in range(1, papers.tables + 1):
        rows = "".join(
            f"<tr><td>{position + 1}</td><td>{escape(papers.who(table_no, position))}</td>"
            f"<td>{escape(_code(papers, table_no, position))}</td>"
            f"<td>{', '.join(f'board {b}: {h}' for b, h in _hand_of(papers, table_no, position))}</td></tr>\n"
            for position in range(3)
        )
        tables.append(
            f'<h2 id="table-{table_no}">Table {table_no}</h2>\n<table class="table-list">\n'
            f"<tr><th>seat</th><th>player</th><th>id</th><th>hands</th></tr>\n{rows}</table>\n"
        )
    byes = (
        "<h2>Byes</h2>\n<ul>"
        + "".join(f"<li>{escape(papers.players[p].name)}</li>" for p in papers.byes)
        + "</ul>\n"
        if papers.byes
        else ""
    )
    named = sorted(
        (
            (papers.players[s.player_id].name, s.table_no, s.position)
            for s in papers.seats
            if s.player_id is not None
        ),
        key=lambda x: (x[0].casefold(), x[1]),
    )
    by_name = "".join(
        f"<tr><td>{escape(name)}</td><td>{table}</td><td>{position + 1}</td></tr>\n"
        for name, table, position in named
    )
    by_name += "".join(
        f'<tr><td>{escape(papers.players[p].name)}</td><td colspan="2">bye</td></tr>\n' for p in papers.byes
    )
    body = (
        f'<section class="page">\n<h1>{escape(papers.event)} · round {papers.round_no} · tables</h1>\n'
        f"{''.join(tables)}{byes}</section>\n"
        f'<section class="page">\n<h1>{escape(papers.event)} · round {papers.round_no} · by name</h1>\n'
        f'<table class="by-name">\n<tr><th>player</th><th>table</th><th>seat</th></tr>\n'
        f"{by_name}</table>\n</section>\n"
    )
    return _page(f"{papers.event} round {papers.round_no} pairings", body)


def _code(papers: RoundPapers, table_no: int, position: int) -> str:
    for seat in papers.seats:
        if (seat.table_no, seat.position) == (table_no, position) and seat.player_id is not None:
            return papers.players[seat.player_id].code
    return ""


BOX: Final = '<span class="box"></span>'
"""A blank to fill in by hand."""


def _slip(papers: RoundPapers, st: Stage, check: str) -> str:
    holders = "".join(
        f"<tr><th>hand {name}</th><td>{escape(papers.who(st.table_no, st.holders[h]))}</td>"
        f"<td>initials {BOX}</td></tr>\n"
        for h, name in enumerate(HANDS)
    )
    landlord = (
        f"Bid (1-3): {BOX} · Landlord's hand (A/B/C): {BOX}"
        if papers.format.landlord == "bidding"
        else "Landlord: hand A"
    )
    return (
        f'<div class="slip" data-table="{st.table_no}" data-board="{st.board}">\n'
        f"<h2>Round {papers.round_no} · table {st.table_no} · board {st.board} "
        f"(copy {st.copy}, stage {st.stage + 1})</h2>\n"
        f'<p>The board\'s check must read <span class="check">{check}</span>; '
        f"if it does not, call the director.</p>\n<table>\n{holders}</table>\n"
        f"<p>{landlord} · Doublings: {BOX} · Bombs and rockets: {BOX} · Spring / anti-spring: {BOX}</p>\n"
        f"<p>Landlord won / lost: {BOX} · Landlord's score: {BOX}</p>\n{_pin(papers, st.table_no)}</div>\n"
    )


def _pin(papers: RoundPapers, table_no: int) -> str:
    pin = papers.pins.get(table_no)
    if pin is None:
        return '<p class="note">Table PIN: issued when the round is released.</p>\n'
    return (
        f'<p>Table PIN <span class="check pin">{pin}</span>: enter and confirm this table\'s '
        "results with your player id and this PIN. Keep it at the table.</p>\n"
    )


def slips(papers: RoundPapers) -> str:
    """A score slip per table and board."""
    checks = {b.number: b.check for b in papers.boards}
    pages = []
    for table_no in range(1, papers.tables + 1):
        stages = sorted((s for s in papers.stages if s.table_no == table_no), key=lambda s: s.stage)
        table_slips = "".join(_slip(papers, st, checks[st.board]) for st in stages)
        pages.append(f'<section class="page" id="table-{table_no}">\n{table_slips}</section>\n')
    return _page(f"{papers.event} round {papers.round_no} score slips", "".join(pages))


def index(papers: RoundPapers) -> str:
    body = (
        f"<h1>{escape(papers.event)} · round {papers.round_no}</h1>\n<ul>\n"
        '<li><a href="pairings.html">pairings</a> (the hall)</li>\n'
        '<li><a href="slips.html">score slips</a> (the tables)</li>\n'
        '<li><a href="hand-records.html">hand records</a> (the dealers only)</li>\n</ul>\n'
    )
    return _page(f"{papers.event} round {papers.round_no}", body)


def write_round_sheets(store: EventStore, round_no: int, out: Path) -> list[Path]:
    """Write the round's pages into folder ``out`` (created if absent); their paths."""
    papers = RoundPapers.load(store, round_no)
    out.mkdir(parents=True, exist_ok=True)
    pages: Sequence[tuple[str, str]] = (
        ("index.html", index(papers)),
        ("hand-records.html", hand_records(papers)),
        ("pairings.html", pairings(papers)),
        ("slips.html", slips(papers)),
    )
    written = []
    for name, text in pages:
        path = out / name
        atomic_write_text(path, text)  # a page rewritten while open in a browser is never half there
        written.append(path)
    return written
