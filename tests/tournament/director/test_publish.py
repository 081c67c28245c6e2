"""The standings as CSV and as the hall's self-contained page (well-formed, reloading itself,
every name escaped). Writing it in one rename is ``atomic_write_text``'s
(tests/core/test_atomic_write_text.py)."""

from __future__ import annotations

import csv
import io

from director_helpers import MakeEvent, six_player_event
from test_sheets import Checker

from paiju.tournament.director.publish import CSV_COLUMNS, hall_page, standings_csv
from paiju.tournament.director.standings import compute_standings


def test_the_csv_has_a_row_per_player_in_rank_order(make_event: MakeEvent) -> None:
    rows = list(csv.reader(io.StringIO(standings_csv(compute_standings(six_player_event(make_event))))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [(r[0], r[1], r[2], r[5], r[12]) for r in rows[1:]] == [
        ("1", "1", "01", "7", ""),
        ("2", "2", "02", "5", ""),
        ("3", "2", "04", "5", "landlord"),
        ("4", "4", "05", "3", ""),
        ("5", "4", "03", "3", "landlord"),
        ("6", "6", "06", "1", ""),
    ]


def test_the_hall_page_reloads_itself_and_escapes_every_name(make_event: MakeEvent) -> None:
    store = six_player_event(make_event)
    with store.transaction("desk", "a name to escape") as tx:
        tx.update(
            "players", {"id": store.player_by_code("01").id}, {"name": "<script>x</script>", "club": "A&B"}
        )
    standings = compute_standings(store)
    page = hall_page(standings, refresh=30)
    checker = Checker()
    checker.feed(page)
    checker.close()
    assert checker.stack == []  # every element closed, in order
    assert '<meta http-equiv="refresh" content="30">' in page and "reloads every 30 s" in page
    assert "<script" not in page and "&lt;script&gt;x&lt;/script&gt;" in page and "A&amp;B" in page
    assert "after round 2 (matchpoints)" in page and "not unique yet" in page
    assert page.count("<details>") == 4  # one result sheet per board
    assert "refresh" not in hall_page(standings, refresh=0)
    assert '<meta http-equiv="refresh" content="10">' in hall_page(standings, refresh=10)
