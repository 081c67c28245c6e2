"""The event store: transactions, the audit log, the schema version, and a process killed
mid-write (SIGKILL) that loses nothing committed and leaves no half-written round."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from director_helpers import MakeEvent

from paiju.core.errors import ConfigError, CorruptRecordError, NotFoundError
from paiju.tournament.director.formats import EventFormat
from paiju.tournament.director.pins import round_pins
from paiju.tournament.director.players import Entry, add_late_entry, withdraw
from paiju.tournament.director.rounds import choose_boards, pair_round, release
from paiju.tournament.director.store import SCHEMA_VERSION, EventStore, Seat, players_by_table


def test_a_new_event_is_in_wal_mode_with_its_players_and_format(make_event: MakeEvent) -> None:
    store = make_event(players=7, rounds=4, odd_field="sitter")
    assert store.event().format == EventFormat(rounds=4, odd_field="sitter")
    assert [p.code for p in store.players()] == [f"{i:02d}" for i in range(1, 8)]
    with sqlite3.connect(store.path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    creation = store.audit_log()
    assert [e.entity for e in creation] == ["event"] + ["players"] * 7
    assert {e.who for e in creation} == {"tester"} and {e.action for e in creation} == {"create the event"}


def test_players_by_table_puts_each_table_in_position_order_with_its_sitters() -> None:
    seats = [Seat(2, 1, None), Seat(1, 2, 3), Seat(2, 0, 5), Seat(1, 0, 1), Seat(1, 1, 2), Seat(2, 2, 4)]
    tables = players_by_table(seats)
    assert tables == {1: (1, 2, 3), 2: (5, None, 4)} and list(tables) == [1, 2]


def test_every_change_is_logged_with_the_row_before_and_after(make_event: MakeEvent) -> None:
    store = make_event(players=6)
    before = len(store.audit_log())
    add_late_entry(store, Entry("L1", "Late", "Blue", 1500.0), "desk")
    withdraw(store, "03", "chief")
    new = store.audit_log()[before:]
    assert [(e.who, e.entity, e.action) for e in new] == [
        ("desk", "players", "late entry from round 1"),
        ("chief", "players", "withdraw from round 1"),
    ]
    assert new[0].before is None and new[0].after is not None and new[0].after["name"] == "Late"
    assert new[1].before is not None and new[1].before["withdrawn_round"] is None
    assert new[1].after is not None and new[1].after["withdrawn_round"] == 1
    assert new[1].key == f"id={store.player_by_code('03').id}"
    assert all(e.at.endswith("+00:00") for e in new)


def test_an_error_inside_a_transaction_leaves_no_row_and_no_audit(make_event: MakeEvent) -> None:
    store = make_event(players=6)
    log = store.audit_log()
    with pytest.raises(RuntimeError), store.transaction("desk", "half a change") as tx:
        tx.insert("players", {"code": "X", "name": "X", "entered_round": 1})
        raise RuntimeError("the power went out")
    assert store.audit_log() == log
    assert "X" not in {p.code for p in store.players()}


def test_a_reader_sees_the_last_commit_while_a_writer_is_mid_change(make_event: MakeEvent) -> None:
    store = make_event(players=6)
    with EventStore.open(store.path) as reader, store.transaction("desk", "slow change") as tx:
        tx.insert("players", {"code": "X", "name": "X", "entered_round": 1})
        assert "X" not in {p.code for p in reader.players()}  # WAL: the reader is not blocked
    with EventStore.open(store.path) as reader:
        assert "X" in {p.code for p in reader.players()}


def test_an_event_is_never_created_over_a_file(tmp_path: Path) -> None:
    there = tmp_path / "there.db"
    there.write_text("keep me")
    with pytest.raises(ConfigError, match="already exists"):
        EventStore.create(there, "x", EventFormat(), "me")
    assert there.read_text() == "keep me"


def test_files_that_are_no_event_or_of_another_version_are_refused(
    tmp_path: Path, make_event: MakeEvent
) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"\x00\x01 not sqlite at all" * 100)
    with pytest.raises(CorruptRecordError, match="not a paiju event file"):
        EventStore.open(junk)
    for name in ("empty.db", "other.db"):
        other = tmp_path / name
        with sqlite3.connect(other) as raw:
            if name == "other.db":
                raw.execute("CREATE TABLE notes (text TEXT)")
        before = other.read_bytes()
        with pytest.raises(CorruptRecordError, match="no event in it"):
            EventStore.open(other)
        assert other.read_bytes() == before and not Path(f"{other}-wal").exists()  # left as it was
    with pytest.raises(NotFoundError, match="does not exist"):
        EventStore.open(tmp_path / "missing.db")
    store = make_event()
    store.close()
    with sqlite3.connect(store.path) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(CorruptRecordError, match=f"version {SCHEMA_VERSION + 1}"):
        EventStore.open(store.path)


def _child(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


KILLED_MID_ROUND = """
    import sys, time
    from paiju.tournament.director import store as st
    from paiju.tournament.director.rounds import pair_round

    written = 0
    real_insert = st.Writer.insert

    def insert(self, table, row):
        global written
        rowid = real_insert(self, table, row)
        written += 1
        if written == 12:  # the round row and some seats are written, not committed
            print("mid-write", flush=True)
            time.sleep(120)
        return rowid

    st.Writer.insert = insert
    with st.EventStore.open(sys.argv[1]) as event:
        pair_round(event, 2, 5, "child")
"""


def test_a_process_killed_mid_round_leaves_no_half_written_round(make_event: MakeEvent) -> None:
    store = make_event(players=9)
    pair_round(store, 1, 1, "desk")
    seats, log = store.seats(1), store.audit_log()
    child = _child(KILLED_MID_ROUND, str(store.path))
    assert child.stdout is not None and child.stdout.readline().strip() == "mid-write"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    with EventStore.open(store.path) as after:
        assert after.integrity_problems() == []
        assert [r.number for r in after.rounds()] == [1]
        assert after.seats(1) == seats and after.seats(2) == [] and after.movement(2) == []
        assert after.audit_log() == log
        pair_round(after, 2, 5, "desk")  # the file is usable: round 2 pairs as if never tried
        assert len(after.seats(2)) == 9


ENTERING = """
    import sys
    from paiju.tournament.director.players import Entry, add_late_entry
    from paiju.tournament.director.store import EventStore

    with EventStore.open(sys.argv[1]) as event:
        for i in range(100_000):
            add_late_entry(event, Entry(f"late{i}", f"Late {i}"), "child")
            print(f"late{i}", flush=True)  # only after the commit returned
"""


def test_a_process_killed_between_commits_loses_none_of_them(make_event: MakeEvent) -> None:
    store = make_event(players=3)
    child = _child(ENTERING, str(store.path))
    assert child.stdout is not None
    committed = [child.stdout.readline().strip() for _ in range(25)]
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    with EventStore.open(store.path) as after:
        assert after.integrity_problems() == []
        codes = [p.code for p in after.players()][3:]
        assert codes[: len(committed)] == committed  # every acknowledged entry is there
        assert codes == [f"late{i}" for i in range(len(codes))]  # and nothing torn after them
        logged = [e for e in after.audit_log() if e.who == "child"]
        assert [e.after["code"] for e in logged if e.after] == codes  # each with its audit row


KILLED_CREATING = """
    import sys, time
    from paiju.tournament.director import store as st
    from paiju.tournament.director.formats import EventFormat

    real_insert = st.Writer.insert

    def insert(self, table, row):
        if table == "players" and row["code"] == "3":  # two players written, not committed
            print("mid-write", flush=True)
            time.sleep(120)
        return real_insert(self, table, row)

    st.Writer.insert = insert
    rows = [{"code": str(i), "name": f"P{i}", "club": "", "rating": None} for i in range(1, 7)]
    st.EventStore.create(sys.argv[1], "killed", EventFormat(), "child", rows)
"""


def test_a_process_killed_while_creating_leaves_no_event_file(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    child = _child(KILLED_CREATING, str(path))
    assert child.stdout is not None and child.stdout.readline().strip() == "mid-write"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    assert not path.exists()  # only the temporary file is left, and creating again clears it
    rows = [{"code": str(i), "name": f"P{i}", "club": "", "rating": None} for i in range(1, 7)]
    with EventStore.create(path, "again", EventFormat(), "desk", rows) as store:
        assert len(store.players()) == 6 and store.integrity_problems() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.db"]


def _as_version_1(path: Path) -> None:
    """Turn an event file back into schema version 1 (before the tables' PINs)."""
    with sqlite3.connect(path) as raw:
        raw.execute("DROP TABLE pins")
        raw.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        raw.execute("PRAGMA user_version = 1")


def test_a_version_1_file_is_upgraded_once_in_one_logged_transaction(make_event: MakeEvent) -> None:
    store = make_event(players=6, boards_per_round=1)
    pair_round(store, 1, 1, "desk")
    choose_boards(store, 1, 1, "desk", select="random", pool=None)
    release(store, 1, "desk")
    path, log = store.path, store.audit_log()
    store.close()
    _as_version_1(path)
    with EventStore.open(path) as upgraded:
        assert upgraded.audit_log()[: len(log)] == log
        (entry,) = upgraded.audit_log()[len(log) :]
        assert (entry.who, entry.action) == ("paiju", "upgrade the event file from schema version 1 to 2")
        assert upgraded.pins(1) == {}  # released before PINs existed: issued on demand
        pins = round_pins(upgraded, 1, "desk")
        assert set(pins) == {1, 2} and upgraded.pins(1) == pins
    with EventStore.open(path) as again:  # upgraded once; the PINs issued once, a row per table
        assert [e.action for e in again.audit_log()[len(log) :]] == [
            "upgrade the event file from schema version 1 to 2",
            "issue the PINs of round 1",
            "issue the PINs of round 1",
        ]
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
        assert raw.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "2"
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
