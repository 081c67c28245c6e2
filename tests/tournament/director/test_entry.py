"""Score entry: the director's CSV (all rows or none; every refusal names the row and field),
the players' entry at the table with the table's PIN and the opponents' confirmation,
corrections logged with the row before and after, a process killed mid-entry, and two
processes entering at once.

The event: six players seeded by rating, two boards a round (director_helpers: table 1 =
01, 03, 05 and table 2 = 02, 04, 06). One of round 1's boards is test_results.DEAL, whose
bombs are counted there: 4 in all, 3 in a spring, 2 in an anti-spring.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from director_helpers import MakeEvent, holders_of
from test_results import DEAL

from paiju.core.errors import ConfigError
from paiju.doudizhu.cards import Deal
from paiju.tournament.director.entry import (
    ResultLine,
    confirm_result,
    correct_result,
    enter_results,
    parse_results_csv,
    read_results_csv,
    result_at,
    submit_result,
)
from paiju.tournament.director.results import EntryError, TableResult, stored_results
from paiju.tournament.director.rounds import choose_boards, pair_round, release
from paiju.tournament.director.sheets import write_round_sheets
from paiju.tournament.director.store import EventStore


@pytest.fixture
def event(make_event: MakeEvent, tmp_path: Path) -> EventStore:
    """Round 1 paired, its boards from a pool of DEAL and one random deal, released."""
    store = make_event(players=6, boards_per_round=2, first_round="rating")
    pool = tmp_path / "pool.txt"
    pool.write_text(f"{DEAL}\n{Deal.random(5)}\n")
    pair_round(store, 1, 1, "desk")
    choose_boards(store, 1, 1, "desk", select="random", pool=pool)
    release(store, 1, "desk")
    return store


def _bomb_board(store: EventStore) -> int:
    """The number of round 1's board dealt from DEAL."""
    return next(b.number for b in store.boards(1) if " A 3333444456789TJXD " in b.record)


def _csv(store: EventStore, rows: list[str]) -> str:
    """A results CSV; ``{B}`` is DEAL's board and ``{O}`` the other board of round 1."""
    bomb = _bomb_board(store)
    other = 3 - bomb
    body = "".join(row.format(B=bomb, O=other) + "\n" for row in rows)
    return "table,board,declarer,bid,doublings,bombs,spring,result,score,check\n" + body


def test_the_event_seats_as_described(event: EventStore) -> None:
    held = holders_of(event, 1)
    assert held[(1, 1)] == ["01", "03", "05"] and held[(1, 2)] == ["06", "02", "04"]


def test_a_csv_file_is_entered_whole_and_confirmed_as_the_directors(
    event: EventStore, tmp_path: Path
) -> None:
    check = next(b.checksum for b in event.boards(1) if b.number == _bomb_board(event))
    text = _csv(
        event,
        [
            "1,{B},A,,0,3,spring,won,3," + check,
            "2,{B},,,,4,,lost,-4,",
            "1,{O},A,,,0,,won,,",
            "2,{O},A,,,0,none,lost,,",
        ],
    )
    path = tmp_path / "results.csv"
    path.write_text(text, encoding="utf-8")
    assert result_at(event, 1, 1, _bomb_board(event)) is None
    entered = enter_results(event, 1, read_results_csv(path), "desk", source="results.csv")
    assert len(entered) == 4
    stored = {(r.table_no, r.board): r for r in stored_results(event, 1)}
    assert all(result_at(event, 1, table, board) == r for (table, board), r in stored.items())
    bomb = stored[(1, _bomb_board(event))]
    assert (bomb.landlord_score, bomb.result.spring, bomb.result.bombs) == (3.0, "spring", 3)
    assert stored[(2, _bomb_board(event))].landlord_score == -4.0
    assert {(r.entered_by, r.confirmed_by, r.pending) for r in stored.values()} == {("desk", "desk", False)}
    logged = [e for e in event.audit_log() if e.entity == "results"]
    assert len(logged) == 4 and {(e.who, e.action) for e in logged} == {
        ("desk", "enter results of round 1 from results.csv")
    }


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("1,{B},A,,,5,,won,,", "row 3, field 'bombs': 5 bombs and rockets; board {B}'s hands hold at most 4"),
        ("1,{B},A,,,4,spring,won,,", "row 3, field 'spring': in a spring only the landlord plays"),
        (
            "2,{B},,,,3,anti-spring,lost,,",
            "row 3, field 'spring': in an anti-spring the landlord makes one play",
        ),
        ("1,{B},B,,,0,,won,,", "row 3, field 'declarer': hand B as landlord"),
        (
            "1,{B},02,,,0,,won,,",
            "row 3, field 'declarer': player '02' (P02) sits at table 2 in round 1, not at table 1",
        ),
        ("1,{B},zz,,,0,,won,,", "row 3, field 'declarer': 'zz' is neither a hand (A, B, C) nor a player id"),
        ("1,3,,,,0,,won,,", "row 3, field 'board': board 3 is not a board of round 1"),
        ("3,{B},,,,0,,won,,", "row 3, field 'table': round 1 has tables 1-2, not 3"),
        ("1,{O},,,,0,,lost,,", "row 3: table 1, board {O} is entered twice (also row 2)"),
        ("1,{B},,,,2,,won,3,", "row 3, field 'score': 3, but the rules give the landlord 2"),
        ("1,{B},,,,0,,won,,ZZZZZZ", "row 3, field 'check': 'ZZZZZZ', but board {B}'s check is"),
        ("1,{B},,2,,0,,won,,", "row 3, field 'bid': 2: this event has no bidding"),
        (
            "1,{B},,,1,0,,won,,",
            "row 3, field 'doublings': 1: the event's scoring rule 'competition' has no doubling",
        ),
    ],
)
def test_an_impossible_row_is_refused_naming_row_and_field_and_nothing_is_written(
    event: EventStore, row: str, message: str
) -> None:
    log = event.audit_log()
    lines = parse_results_csv(_csv(event, ["1,{O},A,,,0,,won,,", row]), "results.csv")
    expected = message.format(B=_bomb_board(event), O=3 - _bomb_board(event))
    with pytest.raises(EntryError, match="^results.csv, " + re.escape(expected)) as caught:
        enter_results(event, 1, lines, "desk", source="results.csv")
    assert caught.value.row == 3
    assert stored_results(event) == [] and event.audit_log() == log  # the good row 2 is not in


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("table,board,bombs\n1,1,0\n", "results.csv, row 1: no column 'result'"),
        (
            "table,board,bombs,result\n1,1,x,won\n",
            "results.csv, row 2, column 'bombs': 'x' is not a whole number",
        ),
        ("table,board,bombs,result\n1,,0,won\n", "results.csv, row 2, column 'board': empty"),
        (
            "table,board,bombs,result\n1,1,0,maybe\n",
            "results.csv, row 2, column 'result': 'maybe'; write won or lost",
        ),
        ("table,board,bombs,result,spring\n1,1,0,won,often\n", "row 2, column 'spring': 'often'; write none"),
        ("table,board,bombs,result,score\n1,1,0,won,lots\n", "row 2, column 'score': 'lots' is not a number"),
        ("table,board,bombs,result,colour\n", "row 1, column 5: unknown column 'colour'"),
        ("table,board,bombs,result\n", "results.csv: no results below the header"),
    ],
)
def test_a_malformed_csv_is_refused_naming_row_and_column(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_results_csv(text, "results.csv")


def test_a_board_already_entered_and_an_unreleased_round_are_refused(event: EventStore) -> None:
    enter_results(event, 1, [ResultLine(2, 1, 1, True)], "desk", source="first.csv")
    with pytest.raises(
        EntryError, match=r"second.csv, row 2: table 1, board 1 already has a result \(entered by desk"
    ):
        enter_results(event, 1, [ResultLine(2, 1, 1, False)], "desk", source="second.csv")
    pair_round(event, 2, 2, "desk")
    choose_boards(event, 2, 2, "desk", select="random", pool=None)
    with pytest.raises(EntryError, match="round 2 is not released yet"):
        enter_results(event, 2, [ResultLine(2, 1, 3, True)], "desk")
    with pytest.raises(EntryError, match="round 3 is not paired yet"):
        enter_results(event, 3, [ResultLine(2, 1, 3, True)], "desk")


def test_players_enter_and_confirm_at_the_table_with_its_pin(event: EventStore) -> None:
    pins = event.pins(1)
    assert set(pins) == {1, 2} and all(len(p) == 4 and p.isdigit() for p in pins.values())
    won = TableResult(0, True)
    entered = submit_result(event, 1, 1, 1, won, player="01", pin=pins[1])
    assert entered.pending and entered.entered_by == "player 01" and entered.landlord_score == 1.0
    wrong = "0000" if pins[1] != "0000" else "1111"
    with pytest.raises(EntryError, match="round 1, table 1: wrong PIN") as caught:
        confirm_result(event, 1, 1, 1, player="03", pin=wrong)
    assert caught.value.field == "pin"
    with pytest.raises(
        EntryError, match="player 01 entered this result; another player of the table confirms"
    ):
        confirm_result(event, 1, 1, 1, player="01", pin=pins[1])
    with pytest.raises(EntryError, match=r"player '02' .* sits at table 2 in round 1, not at table 1"):
        confirm_result(event, 1, 1, 1, player="02", pin=pins[1])
    with pytest.raises(EntryError, match="no player with id 'nobody'"):
        confirm_result(event, 1, 1, 1, player="nobody", pin=pins[1])
    confirmed = confirm_result(event, 1, 1, 1, player="03", pin=pins[1])
    assert not confirmed.pending and confirmed.confirmed_by == "player 03"
    with pytest.raises(EntryError, match=r"already confirmed .*ask the director to correct it"):
        submit_result(event, 1, 1, 1, TableResult(0, False), player="05", pin=pins[1])
    with pytest.raises(EntryError, match="field 'bombs'"):
        submit_result(event, 1, 2, 1, TableResult(0, True, bombs=14), player="02", pin=pins[2])
    actions = [(e.who, e.action) for e in event.audit_log() if e.entity == "results"]
    assert actions == [
        ("player 01", "enter round 1, table 1, board 1"),
        ("player 03", "confirm round 1, table 1, board 1"),
    ]


def test_a_player_who_disagrees_enters_their_own_version(event: EventStore) -> None:
    pin = event.pins(1)[2]
    submit_result(event, 1, 2, 2, TableResult(0, True), player="02", pin=pin)
    replaced = submit_result(event, 1, 2, 2, TableResult(0, False), player="04", pin=pin)
    assert replaced.pending and replaced.entered_by == "player 04" and replaced.landlord_score == -1.0
    with pytest.raises(EntryError, match="player 04 entered this result"):
        confirm_result(event, 1, 2, 2, player="04", pin=pin)
    assert confirm_result(event, 1, 2, 2, player="02", pin=pin).confirmed_by == "player 02"
    replacing = [e for e in event.audit_log() if e.entity == "results"][1]
    assert replacing.who == "player 04" and replacing.before is not None and replacing.after is not None
    assert (replacing.before["landlord_won"], replacing.after["landlord_won"]) == (1, 0)


def test_the_director_corrects_a_result_with_the_row_before_and_after(event: EventStore) -> None:
    enter_results(event, 1, [ResultLine(2, 1, _bomb_board(event), True, bombs=2)], "desk")
    with pytest.raises(EntryError, match="a correction needs a reason"):
        correct_result(event, 1, 1, _bomb_board(event), TableResult(0, True, bombs=3), "chief", " ")
    with pytest.raises(EntryError, match="has no result to correct"):
        correct_result(event, 1, 2, _bomb_board(event), TableResult(0, True), "chief", "slip")
    with pytest.raises(EntryError, match="field 'bombs'"):
        correct_result(event, 1, 1, _bomb_board(event), TableResult(0, True, bombs=9), "chief", "slip")
    fixed = correct_result(
        event, 1, 1, _bomb_board(event), TableResult(0, True, bombs=3), "chief", "slip misread"
    )
    assert (fixed.landlord_score, fixed.entered_by, fixed.confirmed_by) == (3.0, "desk", "chief")
    last = event.audit_log()[-1]
    assert (
        last.who == "chief"
        and last.action == f"correct round 1, table 1, board {_bomb_board(event)}: slip misread"
    )
    assert last.before is not None and last.after is not None
    assert (last.before["bombs"], last.after["bombs"]) == (2, 3)
    assert (last.before["landlord_score"], last.after["landlord_score"]) == (2.0, 3.0)


def test_the_slips_carry_each_tables_pin_once_released(make_event: MakeEvent, tmp_path: Path) -> None:
    store = make_event(players=6, boards_per_round=1)
    pair_round(store, 1, 1, "desk")
    choose_boards(store, 1, 1, "desk", select="random", pool=None)
    before = write_round_sheets(store, 1, tmp_path / "before")
    assert "issued when the round is released" in (before[3]).read_text()
    release(store, 1, "desk")
    pins = store.pins(1)
    slips = write_round_sheets(store, 1, tmp_path / "after")[3].read_text()
    pairings = (tmp_path / "after" / "pairings.html").read_text()
    for pin in pins.values():
        assert f'<span class="check pin">{pin}</span>' in slips
        assert pin not in pairings  # the pairing list hangs in the hall


def _child(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


KILLED_MID_ENTRY = """
    import sys, time
    from paiju.tournament.director import store as st
    from paiju.tournament.director.entry import enter_results, read_results_csv

    written = 0
    real_insert = st.Writer.insert

    def insert(self, table, row):
        global written
        rowid = real_insert(self, table, row)
        written += table == "results"
        if written == 3:  # three of the file's four results written, not committed
            print("mid-entry", flush=True)
            time.sleep(120)
        return rowid

    st.Writer.insert = insert
    with st.EventStore.open(sys.argv[1]) as event:
        enter_results(event, 1, read_results_csv(sys.argv[2]), "child")
"""


def test_a_process_killed_mid_entry_leaves_none_of_the_file(event: EventStore, tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    path.write_text(
        _csv(event, ["1,{B},,,,0,,won,,", "2,{B},,,,0,,won,,", "1,{O},,,,0,,won,,", "2,{O},,,,0,,lost,,"])
    )
    log = event.audit_log()
    child = _child(KILLED_MID_ENTRY, str(event.path), str(path))
    assert child.stdout is not None and child.stdout.readline().strip() == "mid-entry"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    with EventStore.open(event.path) as after:
        assert after.integrity_problems() == []
        assert stored_results(after) == [] and after.audit_log() == log
        enter_results(after, 1, read_results_csv(path), "desk")  # the same file goes in whole
        assert len(stored_results(after)) == 4


ENTERING = """
    import sys, time
    from paiju.tournament.director import store as st
    from paiju.tournament.director.entry import enter_results, read_results_csv

    real_insert = st.Writer.insert

    def insert(self, table, row):  # slow rows: the two writers' transactions overlap
        time.sleep(0.2)
        return real_insert(self, table, row)

    st.Writer.insert = insert
    with st.EventStore.open(sys.argv[1]) as event:
        print("ready", flush=True)
        while not __import__("os").path.exists(sys.argv[3]):
            time.sleep(0.01)
        entered = enter_results(event, 1, read_results_csv(sys.argv[2]), sys.argv[4])
        print(len(entered), flush=True)
"""


def test_two_processes_entering_different_tables_at_once_both_succeed(
    event: EventStore, tmp_path: Path
) -> None:
    files = []
    for table in (1, 2):
        path = tmp_path / f"table{table}.csv"
        path.write_text(_csv(event, [f"{table},{{B}},,,,0,,won,,", f"{table},{{O}},,,,0,,lost,,"]))
        files.append(path)
    go = tmp_path / "go"
    children = [
        _child(ENTERING, str(event.path), str(f), str(go), f"desk {i}") for i, f in enumerate(files, 1)
    ]
    for child in children:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    go.touch()
    for child in children:
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        assert out.strip() == "2"
    entered = stored_results(event, 1)
    assert sorted((r.table_no, r.entered_by) for r in entered) == [
        (1, "desk 1"),
        (1, "desk 1"),
        (2, "desk 2"),
        (2, "desk 2"),
    ]
    assert event.integrity_problems() == []


def test_two_processes_entering_the_same_board_one_is_refused(event: EventStore, tmp_path: Path) -> None:
    path = tmp_path / "same.csv"
    path.write_text(_csv(event, ["1,{B},,,,0,,won,,"]))
    go = tmp_path / "go"
    children = [_child(ENTERING, str(event.path), str(path), str(go), f"desk {i}") for i in (1, 2)]
    for child in children:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    go.touch()
    outcomes = [child.communicate(timeout=60) for child in children]
    codes = sorted(child.returncode for child in children)
    assert codes == [0, 1]
    assert sum("already has a result" in err for _, err in outcomes) == 1
    assert len(stored_results(event, 1)) == 1
