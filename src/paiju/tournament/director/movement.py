"""The duplicate movement: which table plays which board when, who holds which hand, and who
is compared with whom.

Every table of a round plays every board of the round, so each hand of a board is held by one
player at every table, and a board's result is compared among everyone who held the same hand
of it (the *comparison group* of that board and hand: the whole round's field, sitters left
out). The boards travel in *groups* of ``boards_per_round`` consecutive tables, one copy of
each board per group: in stage s (0-based) the table at place i of its group plays the
group's copy of the round's board (i + s) mod B. After each stage every board passes to the
previous table of its group (the group's first table hands its board to the last; in a short
last group a board with no table waits on the director's relay until one is free). So each
board needs ceil(tables / B) copies, no copy is ever wanted at two tables at once, and every
table has played every board after B stages.

Within a table the hands rotate with the stages: the player at position p holds hand
(pi(p) + s) mod 3 in stage s, where the permutation pi is chosen per table and round to keep
each player's count of each hand (landlord's hand A above all) as even as possible over the
event. With three boards a round every player holds each hand once per round.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from paiju.core.errors import ConfigError
from paiju.tournament.director.formats import TABLE_SIZE
from paiju.tournament.director.store import Seat, Stage, players_by_table


def board_numbers(round_no: int, boards_per_round: int) -> list[int]:
    """The event-wide numbers of round ``round_no``'s boards (round 2 of 3 a round: 4, 5, 6)."""
    first = (round_no - 1) * boards_per_round + 1
    return list(range(first, first + boards_per_round))


def copies_needed(tables: int, boards_per_round: int) -> int:
    """Copies of each board to prepare: one per group of ``boards_per_round`` tables."""
    return -(-tables // boards_per_round)


def board_at(table_no: int, stage: int, boards: Sequence[int]) -> tuple[int, int]:
    """(board number, copy number) that table ``table_no`` (1-based) plays in ``stage``."""
    b = len(boards)
    group, place = divmod(table_no - 1, b)
    return boards[(place + stage) % b], group + 1


def plan_round(
    seats: Sequence[Seat], boards: Sequence[int], hand_counts: Mapping[int, Sequence[int]]
) -> list[Stage]:
    """The round's movement: every table plays every board, hands rotated per stage.

    ``hand_counts[player]`` is how often the player held hands A, B, C in earlier rounds.
    """
    by_table = players_by_table(seats)
    if any(len(players) != TABLE_SIZE for players in by_table.values()):
        raise ConfigError("movement: every table seats three (players or sitters)")
    stages: list[Stage] = []
    for table_no, players in sorted(by_table.items()):
        start = _balanced_start(players, len(boards), hand_counts)
        for stage in range(len(boards)):
            board, copy = board_at(table_no, stage, boards)
            holders = [0, 0, 0]
            for position, first_hand in enumerate(start):
                holders[(first_hand + stage) % TABLE_SIZE] = position
            stages.append(Stage(table_no, stage, board, copy, (holders[0], holders[1], holders[2])))
    return stages


def _balanced_start(
    players: Sequence[int | None], boards: int, hand_counts: Mapping[int, Sequence[int]]
) -> tuple[int, ...]:
    """The first-stage hand of each table position whose rotation leaves the players' hand
    counts most even (least sum of squares; hand A's counts first); the first such in
    itertools order, so the choice is reproducible."""

    def spread(start: tuple[int, ...]) -> tuple[int, int]:
        landlord = total = 0
        for position, player in enumerate(players):
            if player is None:
                continue
            counts = list(hand_counts.get(player, (0, 0, 0)))
            for stage in range(boards):
                counts[(start[position] + stage) % TABLE_SIZE] += 1
            landlord += counts[0] ** 2
            total += sum(c * c for c in counts)
        return landlord, total

    return min(itertools.permutations(range(TABLE_SIZE)), key=spread)


@dataclass(frozen=True)
class Holding:
    """One hand of one board at one table, and who held it (None: a sitter)."""

    board: int
    hand: int
    table_no: int
    player_id: int | None


def holdings(seats: Sequence[Seat], stages: Sequence[Stage]) -> list[Holding]:
    """Every hand of every board at every table of a round, with its holder."""
    at = {(s.table_no, s.position): s.player_id for s in seats}
    out: list[Holding] = []
    for st in stages:
        for hand, position in enumerate(st.holders):
            out.append(Holding(st.board, hand, st.table_no, at[(st.table_no, position)]))
    return out


def hand_counts(held: Sequence[Holding]) -> dict[int, tuple[int, int, int]]:
    """How many boards each player held as hand A, B and C."""
    counts: dict[int, Counter[int]] = {}
    for h in held:
        if h.player_id is not None:
            counts.setdefault(h.player_id, Counter())[h.hand] += 1
    return {p: (c[0], c[1], c[2]) for p, c in counts.items()}
