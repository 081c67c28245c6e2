"""Boards: a deal as the tables pre-deal it, with a checksum, and the choice of a round's deals.

A :class:`Board` is three 17-card hands A, B, C and the three bottom cards (底牌). In the
fixed-landlord format hand A takes the bottom cards and is the landlord; with bidding, hand A
bids first. Its hand record (:meth:`Board.record`) is one line in the usual notation::

    board 4: A 3345567889TJQKA2X B 344567899TJQKA22D C 3567789TTJJQQKKA2 bottom 6QA check 7KQ2MX

The check is six characters of a hash of the board number and its cards: printed on the
board's wallet, on each hand's card and on the table's score slip, it lets a table see that
the board in front of it is the one on its slip, and :meth:`Board.parse` refuses a record
whose cards or number do not match it.

The round's deals come from a pool: by the paper's DIH ranking (the pool's deals with their
score laws from ``paiju dih dists``, ranked by their own DIH for the event's field, the boards
a player plays over the event and R + 1 for its R unique places, best first, skipping deals
already used), or at random (from a pool or freshly dealt), every draw from a stored seed.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from paiju.core.errors import ConfigError, InvalidNotationError
from paiju.core.rng import as_generator, derive_seed
from paiju.doudizhu.cards import KITTY_SIZE, Deal, Hand
from paiju.tournament.director.formats import HANDS

CHECK_LENGTH: Final = 6
_RECORD_RE: Final = re.compile(
    r"\s*board\s+(\d+)\s*:\s*A\s+(\S+)\s+B\s+(\S+)\s+C\s+(\S+)\s+bottom\s+(\S+)\s+check\s+(\S+)\s*"
)


@dataclass(frozen=True)
class Board:
    """Board ``number`` of the event: hands A, B, C (17 cards each) and the bottom cards."""

    number: int
    hands: tuple[Hand, Hand, Hand]
    bottom: Hand

    def __post_init__(self) -> None:
        if self.number < 1:
            raise InvalidNotationError(f"board number {self.number}: boards are numbered from 1")
        self.deal()  # the deal's own checks: 54 cards, the right sizes

    @classmethod
    def from_deal(cls, number: int, deal: Deal, seed: int) -> Board:
        """The board of a landlord-first deal: hand A is the landlord's 20 cards less the
        bottom cards (the deal's kitty, or 3 of the 20 drawn from ``seed`` when it has none)."""
        bottom = deal.kitty if deal.kitty is not None else _draw_bottom(deal.landlord, seed)
        return cls(number, (deal.landlord - bottom, deal.farmer1, deal.farmer2), bottom)

    def deal(self) -> Deal:
        """The landlord-first deal when hand A is the landlord (the fixed-landlord format)."""
        return Deal([self.hands[0] + self.bottom, self.hands[1], self.hands[2]], self.bottom)

    @property
    def check(self) -> str:
        text = f"{self.number}|{'|'.join(map(str, self.hands))}|{self.bottom}"
        digest = hashlib.sha256(text.encode()).digest()
        return base64.b32encode(digest).decode()[:CHECK_LENGTH]

    def record(self) -> str:
        hands = " ".join(f"{name} {hand}" for name, hand in zip(HANDS, self.hands, strict=True))
        return f"board {self.number}: {hands} bottom {self.bottom} check {self.check}"

    @classmethod
    def parse(cls, text: str) -> Board:
        """A board from its :meth:`record`; a check that does not match is refused."""
        m = _RECORD_RE.fullmatch(text)
        if m is None:
            raise InvalidNotationError(
                f"board record {text!r}: expected 'board N: A <17> B <17> C <17> bottom <3> check <code>'"
            )
        number, a, b, c, bottom, check = m.groups()
        hands = tuple(Hand.parse(h) for h in (a, b, c))
        board = cls(int(number), (hands[0], hands[1], hands[2]), Hand.parse(bottom))
        if board.check != check:
            raise InvalidNotationError(
                f"board record {text!r}: check {check} does not match the cards and number "
                f"(expected {board.check}): the wrong board, or a card miscopied"
            )
        return board


def _draw_bottom(landlord: Hand, seed: int) -> Hand:
    cards = list(landlord)  # rank indices, one per card
    picked = as_generator(seed).choice(len(cards), size=KITTY_SIZE, replace=False)
    counts = [0] * len(landlord.counts)
    for i in picked:
        counts[cards[int(i)]] += 1
    return Hand.from_counts(counts)


def deal_key(deal: Deal) -> str:
    """What makes two deals the same deal for "already used": the hands, not the kitty."""
    return str(deal.without_kitty())


@dataclass(frozen=True)
class BoardChoice:
    """The deals chosen for a round, in board order, with the selection report."""

    deals: tuple[Deal, ...]
    report: dict[str, Any]


def select_by_dih(
    pool_file: Path,
    dists: Path,
    count: int,
    used: set[str],
    *,
    players: int,
    event_boards: int,
    top: int,
    min_plays: int,
) -> BoardChoice:
    """The ``count`` unused pool deals of highest own DIH(D; n=players, m=event_boards, r=top)
    (``top`` at most ``players``)."""
    from paiju.tournament.selection import load_pool, rank_by_dih, set_dih

    loaded = load_pool(pool_file, dists, min_plays=min_plays)
    pool = loaded.pool
    top = min(top, players)
    own = rank_by_dih(pool, players, event_boards, top)
    order = sorted(range(len(pool)), key=lambda i: (-own[i], i))
    fresh = [i for i in order if deal_key(Deal.parse(pool.deals[i])) not in used]
    if len(fresh) < count:
        raise ConfigError(
            f"pool {pool_file} has {len(fresh)} deal(s) not used yet in this event; the round needs {count}"
        )
    chosen = fresh[:count]
    rank = {i: r for r, i in enumerate(order, start=1)}
    report: dict[str, Any] = {
        "method": "dih",
        "pool": str(pool_file),
        "dists": str(dists),
        "pool_size": len(pool),
        "excluded_for_few_plays": len(loaded.excluded),
        "min_plays": min_plays,
        "players": players,
        "event_boards": event_boards,
        "top": top,
        "skipped_as_used": len(order) - len(fresh),
        "deals": [{"deal": pool.deals[i], "dih": float(own[i]), "pool_rank": rank[i]} for i in chosen],
        "set_dih": set_dih(pool, chosen, players, top),
    }
    return BoardChoice(tuple(Deal.parse(pool.deals[i]) for i in chosen), report)


def select_at_random(count: int, used: set[str], seed: int, pool_file: Path | None) -> BoardChoice:
    """``count`` unused deals drawn from ``seed``: from the pool file, or freshly dealt."""
    report: dict[str, Any] = {
        "method": "random",
        "seed": seed,
        "pool": None if pool_file is None else str(pool_file),
    }
    if pool_file is not None:
        from paiju.tournament.selection import read_pool_file

        deals = [Deal.parse(d) for d in read_pool_file(pool_file)]
        fresh = [d for d in deals if deal_key(d) not in used]
        if len(fresh) < count:
            raise ConfigError(
                f"pool {pool_file} has {len(fresh)} deal(s) not used yet in this event; "
                f"the round needs {count}"
            )
        picked = as_generator(seed).choice(len(fresh), size=count, replace=False)
        chosen = tuple(fresh[int(i)] for i in picked)
        report["pool_size"] = len(deals)
    else:
        found: list[Deal] = []
        draw = 0
        while len(found) < count:  # a repeat of a 54-card deal is astronomically rare
            deal = Deal.random(derive_seed(seed, draw))
            draw += 1
            if deal_key(deal) not in used | {deal_key(d) for d in found}:
                found.append(deal)
        chosen = tuple(found)
    report["deals"] = [{"deal": str(d)} for d in chosen]
    return BoardChoice(chosen, report)


def make_boards(numbers: Sequence[int], deals: Sequence[Deal], seed: int) -> list[Board]:
    """The boards ``numbers`` of ``deals`` (bottom cards of a deal without a kitty from ``seed``)."""
    return [
        Board.from_deal(number, deal, derive_seed(seed, number))
        for number, deal in zip(numbers, deals, strict=True)
    ]
