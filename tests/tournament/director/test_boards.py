"""Boards: the hand record round-trips with its check; a changed card or number is refused;
a round's deals by DIH (the paper's ranking) or at random, never a deal twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from paiju.core.errors import ConfigError, InvalidNotationError
from paiju.doudizhu.cards import Deal, Hand
from paiju.tournament.director.boards import (
    Board,
    deal_key,
    make_boards,
    select_at_random,
    select_by_dih,
)
from paiju.tournament.distributions import DealDistribution, ScoreDistribution, write_distribution_table
from paiju.tournament.selection import load_pool, rank_by_dih


def test_a_record_reads_back_as_the_same_board_for_many_deals() -> None:
    for seed in range(200):
        board = Board.from_deal(seed + 1, Deal.random(seed), seed)
        assert Board.parse(board.record()) == board
        assert [len(h) for h in board.hands] == [17, 17, 17] and len(board.bottom) == 3
        assert board.deal() == Deal.random(seed)  # hand A and the bottom are the landlord's 20


def test_a_board_that_is_no_deal_is_refused() -> None:
    board = Board.from_deal(1, Deal.random(3), 0)
    with pytest.raises(InvalidNotationError, match="not a partition of the 54 cards"):
        Board(1, (board.hands[0], board.hands[1], board.hands[1]), board.bottom)
    with pytest.raises(InvalidNotationError, match=r"\(51 cards\)"):
        Board(1, board.hands, Hand())
    with pytest.raises(InvalidNotationError, match="boards are numbered from 1"):
        Board(0, board.hands, board.bottom)


def test_a_miscopied_card_or_number_fails_the_check() -> None:
    board = Board.from_deal(4, Deal.random(1), 0)
    record = board.record()
    a, b = str(board.hands[0]), str(board.hands[1])
    # swap one card between hands A and B: still 54 cards, still 17 each, another board
    moved_a = str(Hand.parse(a) - Hand.parse(a[0]) + Hand.parse(b[-1]))
    moved_b = str(Hand.parse(b) - Hand.parse(b[-1]) + Hand.parse(a[0]))
    assert a[0] != b[-1]
    swapped = record.replace(f"A {a} ", f"A {moved_a} ").replace(f"B {b} ", f"B {moved_b} ")
    with pytest.raises(InvalidNotationError, match=f"check {board.check} does not match"):
        Board.parse(swapped)
    with pytest.raises(InvalidNotationError, match="does not match"):
        Board.parse(record.replace("board 4:", "board 5:"))
    with pytest.raises(InvalidNotationError, match="expected 'board N: A"):
        Board.parse("board 4: A 33")


def test_a_deal_without_its_kitty_gets_bottom_cards_from_the_seed() -> None:
    deal = Deal.random(9).without_kitty()
    boards = [Board.from_deal(1, deal, s) for s in range(20)]
    for board in boards:
        assert deal.landlord == board.hands[0] + board.bottom
    assert len({str(b.bottom) for b in boards}) > 1  # drawn, not fixed
    assert Board.from_deal(1, deal, 3) == Board.from_deal(1, deal, 3)


def _pool(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """A pool file and its score laws: deal i wins 1 point with probability i/count."""
    deals = [Deal.random(100 + i) for i in range(count)]
    pool = tmp_path / "pool.txt"
    pool.write_text("# test pool\n" + "".join(f"{d}\n" for d in deals))
    laws = [
        DealDistribution(
            str(d),
            ScoreDistribution.from_mapping({-1: 1 - (i + 1) / (count + 1), 1: (i + 1) / (count + 1)}),
            80,
        )
        for i, d in enumerate(deals)
    ]
    dists = tmp_path / "dists.parquet"
    write_distribution_table(dists, laws)
    return pool, dists


def test_dih_selection_takes_the_best_ranked_unused_deals(tmp_path: Path) -> None:
    pool_file, dists = _pool(tmp_path, 12)
    pool = load_pool(pool_file, dists).pool
    own = rank_by_dih(pool, 9, 6, 3)
    best = sorted(range(len(pool)), key=lambda i: (-own[i], i))
    first = select_by_dih(pool_file, dists, 3, set(), players=9, event_boards=6, top=3, min_plays=50)
    assert [str(d) for d in first.deals] == [pool.deals[i] for i in best[:3]]
    assert [d["dih"] for d in first.report["deals"]] == [float(own[i]) for i in best[:3]]
    used = {deal_key(d) for d in first.deals}
    second = select_by_dih(pool_file, dists, 3, used, players=9, event_boards=6, top=3, min_plays=50)
    assert [str(d) for d in second.deals] == [pool.deals[i] for i in best[3:6]]
    assert second.report["skipped_as_used"] == 3
    with pytest.raises(ConfigError, match="not used yet"):
        select_by_dih(pool_file, dists, 13, set(), players=9, event_boards=6, top=3, min_plays=50)


def test_random_selection_is_seeded_and_never_reuses_a_deal(tmp_path: Path) -> None:
    pool_file, _ = _pool(tmp_path, 6)
    one = select_at_random(3, set(), 7, pool_file)
    assert one.deals == select_at_random(3, set(), 7, pool_file).deals
    rest = select_at_random(3, {deal_key(d) for d in one.deals}, 8, pool_file)
    assert not {deal_key(d) for d in one.deals} & {deal_key(d) for d in rest.deals}
    with pytest.raises(ConfigError, match="0 deal"):
        select_at_random(1, {deal_key(d) for d in one.deals + rest.deals}, 9, pool_file)
    fresh = select_at_random(4, set(), 1, None)
    assert len({deal_key(d) for d in fresh.deals}) == 4
    numbered = make_boards([4, 5, 6, 7], fresh.deals, 1)
    assert [b.number for b in numbered] == [4, 5, 6, 7]
