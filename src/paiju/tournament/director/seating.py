"""A round's tables as score entry and the director's adjustments check them: the round's
boards, who sits at which table, and who holds which hand of each board there.

Every lookup that can fail raises an :class:`~paiju.tournament.director.results.EntryError`
naming the field (``table``, ``board``, ``declarer``, ``player``) and starting with ``where``
(a CSV row, or the table and board of a web entry).
"""

from __future__ import annotations

from dataclasses import dataclass

from paiju.core.errors import NotFoundError
from paiju.tournament.director.boards import Board
from paiju.tournament.director.formats import HANDS, EventFormat
from paiju.tournament.director.results import EntryError
from paiju.tournament.director.store import EventStore, Player, Stage, players_by_table


def _at(where: str, field: str) -> str:
    return f"{where}, field '{field}'" if where else f"field '{field}'"


@dataclass(frozen=True)
class RoundTables:
    number: int
    format: EventFormat
    released: bool
    boards: dict[int, Board]
    tables: dict[int, tuple[int | None, ...]]
    """Table -> the player id at each position (None: a sitter)."""
    stages: dict[tuple[int, int], Stage]
    """(table, board) -> when the table plays the board and who holds each hand."""
    players: dict[int, Player]

    @classmethod
    def load(cls, store: EventStore, round_no: int) -> RoundTables:
        info = store.round(round_no)  # a round not paired is an error naming it
        return cls(
            number=round_no,
            format=store.event().format,
            released=info.released_at is not None,
            boards={b.number: Board.parse(b.record) for b in store.boards(round_no)},
            tables=players_by_table(store.seats(round_no)),
            stages={(st.table_no, st.board): st for st in store.movement(round_no)},
            players={p.id: p for p in store.players()},
        )

    def require_released(self, what: str = "results are entered") -> None:
        if not self.released:
            raise EntryError(
                f"round {self.number} is not released yet; {what} once it is "
                f"(paiju tournament release EVENT --round {self.number})",
                field="round",
            )

    def check_table(self, table_no: int, where: str = "") -> None:
        if table_no not in self.tables:
            raise EntryError(
                f"{_at(where, 'table')}: round {self.number} has tables 1-{max(self.tables)}, not {table_no}",
                field="table",
            )

    def board(self, board_no: int, where: str = "") -> Board:
        if board_no not in self.boards:
            listed = ", ".join(map(str, self.boards)) or "none chosen yet"
            raise EntryError(
                f"{_at(where, 'board')}: board {board_no} is not a board of round {self.number} "
                f"(its boards: {listed})",
                field="board",
            )
        return self.boards[board_no]

    def holder(self, table_no: int, board_no: int, hand: int) -> int | None:
        """The player id holding ``hand`` of the board at the table (None: a sitter)."""
        return self.tables[table_no][self.stages[(table_no, board_no)].holders[hand]]

    def hand_of(self, table_no: int, board_no: int, player_id: int) -> int:
        stage = self.stages[(table_no, board_no)]
        return next(h for h in range(len(HANDS)) if self.tables[table_no][stage.holders[h]] == player_id)

    def player(self, code: str, where: str = "", field: str = "player") -> Player:
        for p in self.players.values():
            if p.code == code:
                return p
        raise EntryError(f"{_at(where, field)}: no player with id {code!r} in this event", field=field)

    def seated(self, player: Player, table_no: int, where: str = "", field: str = "player") -> None:
        """Refuse ``player`` unless they sit at ``table_no`` this round (a player at the wrong table)."""
        for t, players in self.tables.items():
            if player.id in players:
                if t != table_no:
                    raise EntryError(
                        f"{_at(where, field)}: player {player.code!r} ({player.name}) sits at table {t} "
                        f"in round {self.number}, not at table {table_no}",
                        field=field,
                    )
                return
        raise EntryError(
            f"{_at(where, field)}: player {player.code!r} ({player.name}) has no seat in round {self.number}",
            field=field,
        )

    def declarer(self, table_no: int, board_no: int, text: str, where: str = "") -> int:
        """The landlord's hand from a hand letter (A, B, C) or the landlord's player id; an empty
        cell is hand A, the landlord of every board in the fixed-landlord format."""
        letter = text.strip().upper()
        if not letter:
            if self.format.landlord == "bidding":
                raise EntryError(
                    f"{_at(where, 'declarer')}: empty; with bidding, name the landlord "
                    "(A, B, C or a player id)",
                    field="declarer",
                )
            return 0
        if letter in HANDS:  # a hand letter wins over a player id spelled the same
            return HANDS.index(letter)
        try:
            player = self.player(text.strip(), where, "declarer")
        except EntryError:
            raise EntryError(
                f"{_at(where, 'declarer')}: {text.strip()!r} is neither a hand (A, B, C) nor a player id",
                field="declarer",
            ) from None
        self.seated(player, table_no, where, "declarer")
        return self.hand_of(table_no, board_no, player.id)


def round_tables(store: EventStore, round_no: int) -> RoundTables:
    """Round ``round_no``'s tables (a :class:`NotFoundError` when it is not paired)."""
    try:
        return RoundTables.load(store, round_no)
    except NotFoundError as err:
        raise EntryError(str(err), field="round") from None
