"""The standings on paper and on the hall's screen: CSV, and a self-contained HTML page that
reloads itself.

The page (:func:`hall_page`) carries everything inline (no script, no external file), so
it can be opened from a USB stick or served as a static file; with a refresh interval it
reloads itself (``<meta http-equiv="refresh">``); written with
:func:`paiju.core.records.atomic_write_text`, it is replaced in one rename, so a screen
reloading it never shows a half-written page. Rewrite it after
each entry (``paiju tournament standings EVENT --html hall.html --refresh 30``): the live
page the web app serves comes later.
"""

from __future__ import annotations

import csv
import io
from typing import Final

from paiju.tournament.director.formats import HANDS
from paiju.tournament.director.sheets import escape
from paiju.tournament.director.standings import BoardSheet, Standings
from paiju.tournament.director.store import now

CSV_COLUMNS: Final = (
    "rank",
    "place",
    "id",
    "name",
    "club",
    "total",
    "board_points",
    "boards",
    "bye_points",
    "penalties",
    "opponents",
    "landlord",
    "decided_by",
)

STYLE: Final = """
body { font-family: "Noto Sans", "Helvetica Neue", Arial, sans-serif; margin: 1.5em; background: #fff;
  color: #111; font-size: 1.3em; }
h1 { font-size: 1.6em; margin: 0 0 .2em; } h2 { font-size: 1.2em; margin: 1em 0 .3em; }
table { border-collapse: collapse; margin: .4em 0; }
th, td { border-bottom: 1px solid #bbb; padding: .25em .7em; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #444; font-size: .85em; } .unique { color: #075; } .open { color: #a40; }
details { margin: .3em 0; } summary { cursor: pointer; }
.sheet td, .sheet th { font-size: .8em; }
"""


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def standings_csv(standings: Standings) -> str:
    """One row per ranked player (``CSV_COLUMNS``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in standings.rows:
        writer.writerow(
            [
                r.rank,
                r.place,
                r.player.code,
                r.player.name,
                r.player.club,
                _num(r.total),
                _num(r.board_points),
                r.boards,
                _num(r.bye_points),
                _num(r.penalties),
                _num(r.tie_breaks["opponents"]),
                _num(r.tie_breaks["landlord"]),
                r.decided_by or "",
            ]
        )
    return out.getvalue()


def _sheet(standings: Standings, sheet: BoardSheet) -> str:
    def who(pid: int | None) -> str:
        return "sitter" if pid is None else standings.players[pid].name

    head = "".join(f"<th>{h}</th><th class='num'>score</th><th class='num'>points</th>" for h in HANDS)
    rows = []
    for t in sheet.tables:
        landlord = "" if t.landlord_hand is None else HANDS[t.landlord_hand]
        cells = "".join(
            f"<td>{escape(who(h.player_id))}</td><td class='num'>{_num(h.seat_score)}</td>"
            f"<td class='num'>{_num(h.points)}</td>"
            for h in t.hands
        )
        rows.append(
            f"<tr><td class='num'>{t.table_no}</td><td>{t.status}</td><td>{landlord}</td>"
            f"<td class='num'>{_num(t.landlord_score)}</td>{cells}</tr>\n"
        )
    return (
        f"<details><summary>Round {sheet.round} · board {sheet.board} (check {sheet.check})</summary>\n"
        f"<table class='sheet'>\n<tr><th class='num'>table</th><th>result</th><th>landlord</th>"
        f"<th class='num'>landlord's score</th>{head}</tr>\n{''.join(rows)}</table>\n</details>\n"
    )


def hall_page(standings: Standings, *, refresh: int = 0, sheets: bool = True) -> str:
    """The standings as one self-contained page; ``refresh`` > 0: it reloads every so many seconds."""
    fmt = standings.format
    unique = (
        f"<span class='unique'>the top {fmt.top} are unique</span>"
        if standings.top_unique
        else f"<span class='open'>the top {fmt.top} are not unique yet</span>"
    )
    waiting = []
    if standings.pending:
        waiting.append(f"{standings.pending} result(s) awaiting confirmation")
    if standings.missing:
        waiting.append(f"{standings.missing} result(s) still to come")
    shared = standings.shared_places()
    rows = "".join(
        f"<tr><td class='num'>{r.rank}</td><td class='num'>{r.place}{'=' if r.place in shared else ''}</td>"
        f"<td>{escape(r.player.name)}</td><td>{escape(r.player.club)}</td>"
        f"<td class='num'>{_num(r.total)}</td>"
        f"<td class='num'>{r.boards}</td><td>{r.decided_by or ''}</td></tr>\n"
        for r in standings.rows
    )
    meta = f'<meta http-equiv="refresh" content="{refresh}">\n' if refresh > 0 else ""
    boards = (
        "<h2>Board results</h2>\n" + "".join(_sheet(standings, s) for s in standings.sheets)
        if sheets and standings.sheets
        else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"{meta}<title>{escape(standings.event)} standings</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{escape(standings.event)}</h1>\n"
        f"<p>Standings after round {standings.after_round} ({fmt.comparison}); {unique}.</p>\n"
        f"<p class='note'>{'; '.join(waiting) or 'every result is in'} · updated {escape(now())}"
        f"{f' · reloads every {refresh} s' if refresh > 0 else ''}</p>\n"
        "<table class='standings'>\n<tr><th class='num'>rank</th><th class='num'>place</th><th>player</th>"
        "<th>club</th><th class='num'>total</th><th class='num'>boards</th><th>tie-break</th></tr>\n"
        f"{rows}</table>\n{boards}</body>\n</html>\n"
    )
