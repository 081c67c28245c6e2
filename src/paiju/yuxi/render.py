"""Readable yuxi boards: plain text (``str(state)``) and a Rich table for the CLI.

Each cell shows the card, its points (red when damaged below its starting points, green
when above), armour ``[n]``, coins ``$n``, cooldown ``⏳n`` and the cell's weather. Seat 0's
characters are blue, seat 1's red, as in the original's screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text

from paiju.yuxi.effects import WEATHER_NAMES
from paiju.yuxi.phases import PHASE_NAMES

if TYPE_CHECKING:
    from paiju.yuxi.position import Position

WEATHER_MARK = ("", "~fog", "⚡thunder", "*ice", "%erosion")
_SEAT_STYLE = ("bold blue", "bold red")


def _unit_text(st: Position, cell: int) -> str:
    c = st.cards[st.card[cell]]
    assert c is not None
    parts = [f"{'AB'[st.owner[cell]]}:{c.key}", f"{st.power[cell]}/{st.base[cell]}"]
    if st.armour[cell]:
        parts.append(f"[{st.armour[cell]}]")
    if st.coins[cell]:
        parts.append(f"${st.coins[cell]}")
    if c.cooldown:
        parts.append(f"cd{st.cd[cell]}")
    return " ".join(parts)


def board_text(st: Position) -> str:
    """The board as plain text lines, then purses, scores and hand sizes."""

    sh = st.shape
    lines = []
    for r in range(sh.height):
        row = []
        for col in range(sh.width):
            i = r * sh.width + col
            cell = _unit_text(st, i) if st.card[i] else "."
            w = WEATHER_NAMES[st.weather[i]] if st.weather[i] else ""
            row.append(f"{sh.cell_name(i)} {cell}{' <' + w + '>' if w else ''}")
        lines.append(" | ".join(row))
    lines.append(
        f"phase {PHASE_NAMES[st.phase]}, turn {st.turn}, seat {st.to_move} to play; "
        f"score A {st.score[0]}{f' +{st.bonus} die' if st.bonus else ''} B {st.score[1]}; "
        f"purse A {st.purse[0]} B {st.purse[1]}; hands A {len(st.hand[0])} B {len(st.hand[1])}; "
        f"decks A {st.deck_n[0]} B {st.deck_n[1]}"
    )
    return "\n".join(lines)


def board_table(st: Position, *, reveal_hands: bool = True, hands: Sequence[int] = (0, 1)) -> Group:
    """A Rich table of the board, then a line each for the scores, purses and hands.

    Each character's name carries its owner as ``A:`` / ``B:``, so the board reads without
    colour too; ``hands``: the seats whose hands are listed (a person sees only their own)."""
    sh = st.shape
    table = Table(show_header=True, show_lines=True, header_style="dim")
    table.add_column("")
    for col in range(sh.width):
        # narrow columns fold a long name onto a second line instead of cutting it ("…") or
        # pushing the last columns off an 80-column terminal (the 6x4 board)
        narrow = 12 if sh.width <= 4 else 9
        table.add_column("abcdef"[col], justify="center", min_width=narrow, overflow="fold")
    for r in range(sh.height):
        row: list[Text | str] = [str(r + 1)]
        for col in range(sh.width):
            i = r * sh.width + col
            t = Text()
            if st.card[i]:
                c = st.cards[st.card[i]]
                assert c is not None
                t.append(f"{'AB'[st.owner[i]]}:{c.key}\n", style=_SEAT_STYLE[st.owner[i]])
                p, b = st.power[i], st.base[i]
                t.append(str(p), style="red" if p < b else "green" if p > b else "white")
                if st.armour[i]:
                    t.append(f" [{st.armour[i]}]", style="cyan")
                if st.coins[i]:
                    t.append(f" ${st.coins[i]}", style="yellow")
                if c.cooldown:
                    t.append(f" cd{st.cd[i]}", style="magenta")
            if st.weather[i]:
                t.append(("\n" if st.card[i] else "") + WEATHER_MARK[st.weather[i]], style="dim italic")
            row.append(t)
        table.add_row(*row)
    lines = [
        Text(
            f"A (seat 0): {st.score[0]}{f' + die {st.bonus}' if st.bonus else ''} points, "
            f"purse {st.purse[0]}, "
            f"deck {st.deck_n[0]}{', finished' if st.out[0] else ''}",
            style=_SEAT_STYLE[0],
        ),
        Text(
            f"B (seat 1): {st.score[1]} points, purse {st.purse[1]}, deck {st.deck_n[1]}"
            f"{', finished' if st.out[1] else ''}",
            style=_SEAT_STYLE[1],
        ),
    ]
    if reveal_hands:
        for seat in hands:
            lines.append(Text(f"hand {'AB'[seat]}: " + _keys(st, st.hand[seat])))
    return Group(table, *lines)


LEGEND = (
    "Each cell: A:/B: the owner (seat 0/1) and the card, its points (red: below its starting "
    "points, green: above), [n] armour (absorbs damage first), $n coins it carries (its killer's "
    "seat gets them), cdN turns until its turn-start effect; the cell's weather: ~fog (halves "
    "points), ⚡thunder (-2 at its owner's turn end), *ice (no turn effects), %erosion (-1, "
    "ignoring armour). A move is 'play <card>@<cell>', 'end', and at a swap offer "
    "'swap <give>-><take>' (give a hand card back to the deck, take an offered one) or 'keep'."
)
"""What the board's marks and the moves' notation mean: printed once by ``paiju yuxi play``."""


def _keys(st: Position, ids: list[int]) -> str:
    keys = []
    for cid in ids:
        c = st.cards[cid]
        assert c is not None  # a hand holds card ids 1..n
        keys.append(c.key)
    return ", ".join(keys) or "-"
