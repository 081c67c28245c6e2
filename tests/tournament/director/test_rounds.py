"""A round's life through the library: Swiss on entered results, byes, late entries and
withdrawals, seeds stored and reproducible, boards chosen, secret and released."""

from __future__ import annotations

from collections import Counter

import pytest
from director_helpers import MakeEvent

from paiju.core.errors import ConfigError
from paiju.tournament.director.entry import ResultLine, enter_results
from paiju.tournament.director.movement import holdings
from paiju.tournament.director.players import Entry, add_late_entry, withdraw
from paiju.tournament.director.rounds import choose_boards, meetings, pair_round, release, round_boards
from paiju.tournament.director.standings import totals_before
from paiju.tournament.director.store import EventStore


def _enter_results(store: EventStore, round_no: int, landlord_won: dict[int, bool]) -> None:
    """Release the round and enter every table's result on every board (no bombs: the
    landlord scores +1 or -1), as the director's CSV does."""
    release(store, round_no, "desk")
    lines = [
        ResultLine(i + 2, st.table_no, st.board, landlord_won[st.table_no])
        for i, st in enumerate(store.movement(round_no))
    ]
    enter_results(store, round_no, lines, "desk")


def test_round_two_pairs_the_leaders_together(make_event: MakeEvent) -> None:
    store = make_event(players=9, rounds=3, boards_per_round=1)
    pair_round(store, 1, 3, "desk")
    choose_boards(store, 1, 3, "desk", select="random", pool=None)
    # table 1's landlord wins 1, the others lose 1: on the board, each hand's holders differ
    _enter_results(store, 1, {1: True, 2: False, 3: False})
    totals = totals_before(store, 2)
    held = holdings(store.seats(1), store.movement(1))
    landlords = {h.player_id: h.table_no for h in held if h.hand == 0}
    # hand A (landlord) group: scores 1, -1, -1 -> matchpoints 4, 1, 1
    assert sorted(totals[p] for p in landlords if p is not None) == [1.0, 1.0, 4.0]
    # farmers: table 1's lose 0.5 each (-1/2), others win 0.5 -> 0 and 3 per farmer group
    assert sorted(totals.values()) == [0.0, 0.0, 1.0, 1.0, 3.0, 3.0, 3.0, 3.0, 4.0]
    result = pair_round(store, 2, 4, "desk")
    top_table = [s.player_id for s in result.seats if s.table_no == 1]
    assert sorted(totals[p] for p in top_table if p is not None) == [3.0, 3.0, 4.0]
    assert result.info.pairing_report["method"] == "swiss"
    assert result.info.pairing_report["cost"]["repeats"] == 0


def test_byes_go_round_before_anyone_has_two(make_event: MakeEvent) -> None:
    store = make_event(players=10, rounds=10, boards_per_round=1)
    byes: Counter[int] = Counter()
    for round_no in range(1, 11):
        result = pair_round(store, round_no, round_no, "desk")
        assert len(result.byes) == 1 and len(result.seats) == 9
        byes.update(result.byes)
        assert max(byes.values()) - min(byes.get(p.id, 0) for p in store.players()) <= 1
    assert set(byes.values()) == {1}


def test_sitters_fill_the_last_tables_one_per_table(make_event: MakeEvent) -> None:
    store = make_event(players=7, odd_field="sitter")
    result = pair_round(store, 1, 1, "desk")
    sitters = [s for s in result.seats if s.player_id is None]
    assert len(sitters) == 2 and len({s.table_no for s in sitters}) == 2
    assert result.byes == [] and result.info.pairing_report["sitters"] == 2


def test_rating_seeds_the_strongest_at_different_tables(make_event: MakeEvent) -> None:
    store = make_event(players=12, first_round="rating")
    result = pair_round(store, 1, 0, "desk")
    table_of = {s.player_id: s.table_no for s in result.seats}
    strongest = [p.id for p in sorted(store.players(), key=lambda p: -(p.rating or 0))[:4]]
    assert len({table_of[p] for p in strongest}) == 4


def test_clubs_do_not_share_a_table_in_round_one(make_event: MakeEvent) -> None:
    for seed in range(5):
        store = make_event(players=12, clubs=4, name=f"clubs{seed}.db")
        result = pair_round(store, 1, seed, "desk")
        assert result.info.pairing_report["cost"]["clubs"] == 0


def test_the_same_seed_gives_the_same_round(make_event: MakeEvent) -> None:
    tables = []
    for name in ("one.db", "two.db"):
        store = make_event(players=14, clubs=3, name=name)
        for round_no in (1, 2):
            pair_round(store, round_no, 11, "desk")
            choose_boards(store, round_no, 5, "desk", select="random", pool=None)
        tables.append(([store.seats(r) for r in (1, 2)], [b.record for b in store.all_boards()]))
        assert store.round(1).pairing_seed == 11 and store.round(2).board_seed == 5
    assert tables[0] == tables[1]


def test_late_entries_and_withdrawals_take_effect_from_the_next_round(make_event: MakeEvent) -> None:
    store = make_event(players=9)
    pair_round(store, 1, 1, "desk")
    late = add_late_entry(store, Entry("99", "Late", "", 1500.0), "desk")
    gone = withdraw(store, "04", "desk")
    assert (late.entered_round, gone.withdrawn_round) == (2, 2)
    assert late.id not in {s.player_id for s in store.seats(1)}
    assert gone.id in {s.player_id for s in store.seats(1)}
    pair_round(store, 2, 2, "desk")
    second = {s.player_id for s in store.seats(2)}
    assert late.id in second and gone.id not in second
    with pytest.raises(ConfigError, match="already withdrew"):
        withdraw(store, "04", "desk")
    with pytest.raises(ConfigError, match="already entered"):
        add_late_entry(store, Entry("99", "Again"), "desk")


def test_rounds_are_paired_in_order_and_once(make_event: MakeEvent) -> None:
    store = make_event(players=6, rounds=2)
    with pytest.raises(ConfigError, match="the next to pair is round 1"):
        pair_round(store, 2, 0, "desk")
    pair_round(store, 1, 0, "desk")
    with pytest.raises(ConfigError, match="the next to pair is round 2"):
        pair_round(store, 1, 0, "desk")
    pair_round(store, 2, 0, "desk")
    with pytest.raises(ConfigError, match="plans 2 rounds"):
        pair_round(store, 3, 0, "desk")
    # 6 players: every round-2 table takes two players of one round-1 table, so two pairs
    # meet again, and no more than that least
    assert sorted(meetings(store, 3).values()) == [1] * 8 + [2] * 2
    assert store.round(2).pairing_report["cost"]["repeats"] == 2


def test_boards_are_stored_once_and_released_once(make_event: MakeEvent) -> None:
    store = make_event(players=6)
    pair_round(store, 1, 0, "desk")
    with pytest.raises(ConfigError, match="has no boards yet"):
        release(store, 1, "desk")
    boards = choose_boards(store, 1, 2, "desk", select="random", pool=None)
    assert [b.number for b in boards] == [1, 2, 3] and round_boards(store, 1) == boards
    assert [b.checksum for b in store.boards(1)] == [b.check for b in boards]
    with pytest.raises(ConfigError, match="already has its boards"):
        choose_boards(store, 1, 3, "desk", select="random", pool=None)
    with pytest.raises(ConfigError, match="needs --pool"):
        pair_round(store, 2, 0, "desk")
        choose_boards(store, 2, 3, "desk", select="dih", pool=None)
    assert store.round(1).released_at is None
    assert release(store, 1, "desk").released_at is not None
    with pytest.raises(ConfigError, match="was released"):
        release(store, 1, "desk")
