"""A round's sheets: well-formed HTML with a print stylesheet; the hand records read back as
the stored boards; every player on the pairing lists; a slip per table and board."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from director_helpers import MakeEvent

from paiju.core.records import atomic_write_text
from paiju.tournament.director import sheets
from paiju.tournament.director.boards import Board
from paiju.tournament.director.rounds import choose_boards, pair_round
from paiju.tournament.director.sheets import FILES, write_round_sheets

VOID = {"meta", "br", "img", "input", "link", "hr"}


class Checker(HTMLParser):
    """Every opened element is closed, in order; collects the text of each class."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.texts: dict[str, list[str]] = {}
        self.classes: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.stack.append(tag)
            self.classes.append(dict(attrs).get("class"))

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (self.stack, tag)
        self.stack.pop()
        self.classes.pop()

    def handle_data(self, data: str) -> None:
        if self.classes and self.classes[-1]:
            self.texts.setdefault(str(self.classes[-1]), []).append(data)


def _check(path: Path) -> Checker:
    checker = Checker()
    checker.feed(path.read_text(encoding="utf-8"))
    checker.close()
    assert checker.stack == []
    return checker


def test_the_sheets_of_a_round(
    make_event: MakeEvent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_event(players=10, clubs=2)
    pair_round(store, 1, 1, "desk")
    boards = choose_boards(store, 1, 1, "desk", select="random", pool=None)
    renamed: list[Path] = []

    def recorded(path: Path, text: str) -> None:
        renamed.append(path)
        atomic_write_text(path, text)

    monkeypatch.setattr(sheets, "atomic_write_text", recorded)
    written = write_round_sheets(store, 1, tmp_path / "round-1")
    assert [p.name for p in written] == list(FILES)
    # each page written in one rename (a page open in a browser is never half there), and only
    # those pages in the folder
    assert renamed == written
    assert sorted(p.name for p in (tmp_path / "round-1").iterdir()) == sorted(FILES)
    pages = {p.name: _check(p) for p in written}
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert "@media print" in text and "<!DOCTYPE html>" in text
    # the hand records read back, card for card, as the stored boards
    records = [Board.parse(r) for r in pages["hand-records.html"].texts["record"]]
    assert records == boards
    hand_records = (tmp_path / "round-1" / "hand-records.html").read_text(encoding="utf-8")
    assert hand_records.count("page-break-after: always") == 1  # in the stylesheet
    assert len(re.findall(r'<section class="page board"', hand_records)) == 3
    # every seated player on both lists; the bye on both too
    seated = {s.player_id for s in store.seats(1) if s.player_id is not None}
    names = {p.id: p.name for p in store.players()}
    pairings = (tmp_path / "round-1" / "pairings.html").read_text(encoding="utf-8")
    for player in names:
        assert pairings.count(f">{names[player]}<") == 2, names[player]
    assert len(seated) == 9
    # a slip for every table and board, naming the board's check
    slips = (tmp_path / "round-1" / "slips.html").read_text(encoding="utf-8")
    found = re.findall(r'data-table="(\d+)" data-board="(\d+)"', slips)
    assert sorted(found) == sorted((str(t), str(b.number)) for t in (1, 2, 3) for b in boards)
    for board in boards:
        assert slips.count(f'<span class="check">{board.check}</span>') == 3
