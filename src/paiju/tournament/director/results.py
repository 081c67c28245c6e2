"""A table's result on a board: what the slip says, checked against the board's cards and the
event's scoring rule, and the stored row read back typed.

A result is the landlord's hand (A, B or C), the bid (with ``landlord=bidding`` only), the
doublings, the bombs and rockets played, spring or anti-spring, and whether the landlord won.
:func:`check_result` refuses what the board and the rules cannot produce, naming the field:

* the landlord: hand A in the fixed-landlord format (the board decides it);
* the bid: 1-3 with bidding; none (or 1) without, where the bid is 1 by the rules;
* doublings: neither of paiju's scoring rules (``paiju.doudizhu.scoring``) has doubling
  (加倍), so only 0 is a result the rules can score;
* bombs and rockets: a bomb is four cards of one rank in one hand and the rocket both jokers
  in one hand, so the deal allows as many as its hands (the landlord's with the bottom cards)
  hold; in a spring the farmers played no card, so every bomb was the landlord's; in an
  anti-spring the landlord made one play, so at most one bomb was its own;
* spring (春天) is a landlord's win and anti-spring (反春) a farmers' win.

The landlord's score is then the event's rule applied to these facts; a score written on the
slip must agree with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from paiju.core.errors import ConfigError
from paiju.doudizhu.cards import BIG_JOKER, SMALL_JOKER, TWO, Hand
from paiju.doudizhu.scoring import MAX_BOMBS, ScoreFacts, get_rule
from paiju.tournament.director.boards import Board
from paiju.tournament.director.formats import HANDS, TABLE_SIZE, EventFormat
from paiju.tournament.director.store import EventStore

Spring = Literal["none", "spring", "anti-spring"]
SPRINGS: Final[tuple[Spring, ...]] = get_args(Spring)
MAX_BID: Final = 3
"""The 1-2-3 bidding (叫分) of ``paiju.doudizhu.game``."""


class EntryError(ConfigError):
    """A result or an adjustment refused. ``field`` names the field at fault (the web form
    marks it) and ``row`` the CSV row (spreadsheet numbering: the header is row 1), where
    known; the message names both already."""

    def __init__(self, message: str, *, field: str | None = None, row: int | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.row = row


@dataclass(frozen=True)
class TableResult:
    """One board's result at one table, as its slip gives it."""

    landlord_hand: int
    """0, 1, 2: hand A, B or C (the hand that took the bottom cards)."""
    landlord_won: bool
    bombs: int = 0
    """Bombs and rockets played, by anyone."""
    bid: int | None = None
    """The winning bid with ``landlord=bidding``; None without bidding."""
    doublings: int = 0
    spring: Spring = "none"

    def facts(self) -> ScoreFacts:
        """What the scoring rule reads (the bid is 1 without bidding)."""
        return ScoreFacts(
            landlord_won=self.landlord_won,
            bombs=self.bombs,
            bid=1 if self.bid is None else self.bid,
            spring=self.spring == "spring",
            anti_spring=self.spring == "anti-spring",
        )

    def columns(self) -> dict[str, Any]:
        """The ``results`` table's columns for these facts."""
        return {
            "landlord_hand": self.landlord_hand,
            "bid": self.bid,
            "doublings": self.doublings,
            "bombs": self.bombs,
            "spring": int(self.spring == "spring"),
            "anti_spring": int(self.spring == "anti-spring"),
            "landlord_won": int(self.landlord_won),
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "landlord": HANDS[self.landlord_hand],
            "bid": self.bid,
            "doublings": self.doublings,
            "bombs": self.bombs,
            "spring": self.spring,
            "result": "won" if self.landlord_won else "lost",
        }


def possible_bombs(hand: Hand) -> int:
    """Bombs and rockets ``hand`` could play: its four-of-a-kinds, and the rocket if it holds
    both jokers."""
    quads = sum(hand.counts[rank] == 4 for rank in range(TWO + 1))
    return quads + int(hand.counts[SMALL_JOKER] == 1 and hand.counts[BIG_JOKER] == 1)


def bomb_limits(board: Board, landlord_hand: int) -> tuple[int, int]:
    """(the landlord's, the two farmers') possible bombs and rockets on ``board`` when
    ``landlord_hand`` takes the bottom cards."""
    hands = [board.hands[h] + (board.bottom if h == landlord_hand else Hand()) for h in range(TABLE_SIZE)]
    landlord = possible_bombs(hands[landlord_hand])
    return landlord, sum(possible_bombs(hands[h]) for h in range(TABLE_SIZE) if h != landlord_hand)


def check_result(fmt: EventFormat, board: Board, result: TableResult, where: str = "") -> float:
    """The landlord's score of ``result`` on ``board`` under the event's rules; an
    :class:`EntryError` naming the field when the board or the rules cannot produce it
    (``where`` starts its message: the CSV row, or the table and board)."""
    at = f"{where}, " if where else ""

    def refuse(field: str, message: str) -> EntryError:
        return EntryError(f"{at}field '{field}': {message}", field=field)

    _check_landlord(fmt, result, refuse)
    _check_bombs(board, result, refuse)
    return get_rule(fmt.scoring).landlord_score(result.facts())


Refuse = Callable[[str, str], EntryError]


def _check_landlord(fmt: EventFormat, result: TableResult, refuse: Refuse) -> None:
    """The landlord's hand, the bid and the doublings against the event's format and rule."""
    if not 0 <= result.landlord_hand < TABLE_SIZE:
        raise refuse("declarer", f"hand {result.landlord_hand}: a board has hands A, B, C")
    if fmt.landlord == "fixed":
        if result.landlord_hand != 0:
            raise refuse(
                "declarer",
                f"hand {HANDS[result.landlord_hand]} as landlord; in this event hand A is the "
                "landlord on every board (format landlord=fixed)",
            )
        if result.bid not in (None, 1):
            raise refuse("bid", f"{result.bid}: this event has no bidding (format landlord=fixed)")
    elif result.bid is None or not 1 <= result.bid <= MAX_BID:
        raise refuse("bid", f"{result.bid}: the winning bid is 1, 2 or 3")
    if result.doublings != 0:
        raise refuse(
            "doublings",
            f"{result.doublings}: the event's scoring rule {fmt.scoring!r} has no doubling (加倍); write 0",
        )


def _check_bombs(board: Board, result: TableResult, refuse: Refuse) -> None:
    """Bombs, rockets and spring against what the board's hands hold."""
    if not 0 <= result.bombs <= MAX_BOMBS:
        raise refuse("bombs", f"{result.bombs}: a game has 0..{MAX_BOMBS} bombs and rockets")
    landlord, farmers = bomb_limits(board, result.landlord_hand)
    name = f"board {board.number}"
    if result.bombs > landlord + farmers:
        raise refuse(
            "bombs",
            f"{result.bombs} bombs and rockets; {name}'s hands hold at most {landlord + farmers} "
            f"(hand {HANDS[result.landlord_hand]} as landlord: {landlord}, the farmers: {farmers})",
        )
    if result.spring == "spring":
        if not result.landlord_won:
            raise refuse("spring", "a spring (春天) is a landlord's win; the farmers' is anti-spring")
        if result.bombs > landlord:
            raise refuse(
                "spring",
                f"in a spring only the landlord plays, and its hand on {name} holds {landlord} "
                f"bomb(s) or rocket; {result.bombs} were played",
            )
    elif result.spring == "anti-spring":
        if result.landlord_won:
            raise refuse("spring", "an anti-spring (反春) is the farmers' win; the landlord's is spring")
        if result.bombs > farmers + min(landlord, 1):
            raise refuse(
                "spring",
                f"in an anti-spring the landlord makes one play: at most {farmers + min(landlord, 1)} "
                f"bombs and rockets on {name}; {result.bombs} were played",
            )
    elif result.spring not in SPRINGS:
        raise refuse("spring", f"{result.spring!r}: write none, spring or anti-spring")


@dataclass(frozen=True)
class StoredResult:
    """A result as the event holds it: pending until a second player of the table (or the
    director) confirms it."""

    round: int
    table_no: int
    board: int
    result: TableResult
    landlord_score: float
    entered_by: str
    entered_at: str
    confirmed_by: str | None

    @property
    def pending(self) -> bool:
        return self.confirmed_by is None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> StoredResult:
        spring: Spring = "spring" if row["spring"] else "anti-spring" if row["anti_spring"] else "none"
        return cls(
            round=row["round"],
            table_no=row["table_no"],
            board=row["board"],
            result=TableResult(
                landlord_hand=row["landlord_hand"],
                landlord_won=bool(row["landlord_won"]),
                bombs=row["bombs"],
                bid=row["bid"],
                doublings=row["doublings"],
                spring=spring,
            ),
            landlord_score=float(row["landlord_score"]),
            entered_by=row["entered_by"],
            entered_at=row["entered_at"],
            confirmed_by=row["confirmed_by"],
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "table": self.table_no,
            "board": self.board,
            **self.result.as_dict(),
            "landlord_score": self.landlord_score,
            "entered_by": self.entered_by,
            "entered_at": self.entered_at,
            "confirmed_by": self.confirmed_by,
            "status": "pending" if self.pending else "confirmed",
        }


def stored_results(store: EventStore, round_no: int | None = None) -> list[StoredResult]:
    """The results entered, pending and confirmed, of one round or all (by round, board, table)."""
    return [StoredResult.from_row(row) for row in store.results(round_no)]
