"""The duplicate movement: every hand of a board is held by players who are compared with each
other, every table plays every board once, no copy is wanted at two tables at once, and the
hands are balanced over the event."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from director_helpers import MakeEvent

from paiju.tournament.director.movement import (
    board_at,
    board_numbers,
    copies_needed,
    hand_counts,
    holdings,
)
from paiju.tournament.director.rounds import pair_round


@pytest.mark.parametrize(
    ("players", "boards", "odd_field"),
    [(9, 3, "bye"), (10, 3, "sitter"), (11, 1, "bye"), (14, 2, "sitter"), (21, 3, "bye"), (25, 4, "sitter")],
)
def test_every_hand_of_a_board_is_held_by_compared_players(
    make_event: MakeEvent, players: int, boards: int, odd_field: str
) -> None:
    store = make_event(players=players, clubs=3, rounds=4, boards_per_round=boards, odd_field=odd_field)
    for round_no in range(1, 5):
        pair_round(store, round_no, round_no, "desk")
        seats, stages = store.seats(round_no), store.movement(round_no)
        held = holdings(seats, stages)
        tables = {s.table_no for s in seats}
        numbers = board_numbers(round_no, boards)
        # each hand of each board: held once at every table, by players compared with each other
        for board, hand in itertools.product(numbers, range(3)):
            at = [h for h in held if (h.board, h.hand) == (board, hand)]
            assert sorted(h.table_no for h in at) == sorted(tables)
            real = [h.player_id for h in at if h.player_id is not None]
            assert len(real) >= 2  # compared with somebody
        # and nothing held of another board or hand
        assert {(h.board, h.hand) for h in held} == set(itertools.product(numbers, range(3)))
        # every player plays every board of the round exactly once, holding one hand of it
        playing = [s.player_id for s in seats if s.player_id is not None]
        per_player = Counter((h.player_id, h.board) for h in held if h.player_id is not None)
        assert per_player == Counter({(p, b): 1 for p in playing for b in numbers})
        # at each table and stage the three positions hold the three hands
        for st in stages:
            assert sorted(st.holders) == [0, 1, 2]
        # every table plays every board once; no copy of a board is at two tables in a stage
        assert Counter((st.table_no, st.board) for st in stages) == Counter(
            {(t, b): 1 for t in tables for b in numbers}
        )
        for stage in range(boards):
            copies = [(st.board, st.copy) for st in stages if st.stage == stage]
            assert len(copies) == len(set(copies))
            assert max(c for _, c in copies) <= copies_needed(len(tables), boards)


def test_three_boards_a_round_give_each_player_each_hand_once_a_round(make_event: MakeEvent) -> None:
    store = make_event(players=12, rounds=5, boards_per_round=3)
    held = []
    for round_no in range(1, 6):
        pair_round(store, round_no, round_no, "desk")
        held += holdings(store.seats(round_no), store.movement(round_no))
    assert set(hand_counts(held).values()) == {(5, 5, 5)}


def test_one_board_a_round_keeps_the_landlord_hand_balanced(make_event: MakeEvent) -> None:
    """With a board a round, six rounds: each player holds hand A twice, give or take one."""
    store = make_event(players=15, rounds=6, boards_per_round=1, clubs=4)
    held = []
    for round_no in range(1, 7):
        pair_round(store, round_no, round_no, "desk")
        held += holdings(store.seats(round_no), store.movement(round_no))
    counts = hand_counts(held)
    assert all(sum(c) == 6 for c in counts.values())
    assert all(1 <= a <= 3 for a, _, _ in counts.values()), counts


def test_boards_pass_down_within_groups_of_b_tables() -> None:
    """Seven tables, three boards: groups {1,2,3}, {4,5,6}, {7}; three copies of each board."""
    boards = [4, 5, 6]
    assert copies_needed(7, 3) == 3
    assert [board_at(t, 0, boards) for t in range(1, 8)] == [
        (4, 1),
        (5, 1),
        (6, 1),
        (4, 2),
        (5, 2),
        (6, 2),
        (4, 3),
    ]
    # after a stage board 5 moves from table 2 to table 1, board 4 from table 1 to table 3
    assert board_at(1, 1, boards) == (5, 1) and board_at(3, 1, boards) == (4, 1)
    assert [board_at(7, s, boards)[0] for s in range(3)] == [4, 5, 6]
