"""Each table's PIN: what lets the players of a table enter and confirm its results themselves.

A round's PINs are issued when it is released (:func:`paiju.tournament.director.rounds.release`),
one per table, and printed on that table's score slips (not on the pairing list, which hangs in
the hall for everyone). A player enters or confirms a result with their own player id and the
table's PIN: the id says who, the PIN that they sit at that table this round. PINs are drawn
from the operating system's randomness, not from the event's stored seeds, so nobody can
compute them from the event file's public parts.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Final

from paiju.tournament.director.results import EntryError
from paiju.tournament.director.store import EventStore, Writer

PIN_DIGITS: Final = 4
"""Digits of a table's PIN (as bridge's table terminals use); the web form should slow down
repeated wrong PINs."""


def new_pin() -> str:
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


def issue_pins(tx: Writer, store: EventStore, round_no: int) -> dict[int, str]:
    """Give every table of round ``round_no`` that has none a PIN, inside transaction ``tx``;
    table -> PIN for all its tables."""
    pins = store.pins(round_no)
    for table_no in sorted({s.table_no for s in store.seats(round_no)}):
        if table_no not in pins:
            pins[table_no] = new_pin()
            tx.insert("pins", {"round": round_no, "table_no": table_no, "pin": pins[table_no]})
    return pins


def round_pins(store: EventStore, round_no: int, who: str) -> dict[int, str]:
    """Table -> PIN of a released round, issuing any a table lacks (a round released by a
    paiju before PINs existed) in one transaction."""
    info = store.round(round_no)
    if info.released_at is None:
        raise EntryError(
            f"round {round_no} is not released yet; its PINs are issued when it is", field="round"
        )
    pins = store.pins(round_no)
    if len(pins) < len({s.table_no for s in store.seats(round_no)}):
        with store.transaction(who, f"issue the PINs of round {round_no}") as tx:
            pins = issue_pins(tx, store, round_no)
    return pins


def check_pin(store: EventStore, round_no: int, table_no: int, pin: str) -> None:
    """Refuse ``pin`` unless it is table ``table_no``'s PIN for round ``round_no``."""
    expected = store.pins(round_no).get(table_no)
    if expected is None:
        raise EntryError(
            f"round {round_no}, table {table_no} has no PIN "
            "(the round is not released, or has no such table)",
            field="pin",
        )
    # compared in constant time: the web form must not tell how much of a guess was right
    if not hmac.compare_digest(pin.strip().encode(), expected.encode()):
        raise EntryError(f"round {round_no}, table {table_no}: wrong PIN", field="pin")
