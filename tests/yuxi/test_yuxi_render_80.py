"""`paiju yuxi play` on an 80-column terminal: the whole board, whole names, a short move
list, and a legend of the board's marks."""

from __future__ import annotations

import numpy as np
from rich.console import Console
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.yuxi.game import YuxiConfig, YuxiGame
from paiju.yuxi.render import board_table

WIDTH = 80


def test_a_full_6x4_board_fits_80_columns_with_every_column_and_whole_names() -> None:
    game = YuxiGame(YuxiConfig(board="6x4", decks=("tide_iron", "guild_storm")))
    st = game.new_initial_state()
    rng = np.random.default_rng(1)
    for _ in range(40):  # the last legal action: mostly plays, the board fills up
        st.apply(st.sample_chance(rng) if st.current_player() < 0 else st.legal_actions()[-1])
    console = Console(width=WIDTH, record=True, color_system=None)
    console.print(board_table(st, hands=(0,)))
    text = console.export_text()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert lines[1].split() == ["┃", "┃", "a", "┃", "b", "┃", "c", "┃", "d", "┃", "e", "┃", "f", "┃"]
    assert "…" not in text  # nothing cut off
    # each cell, its folded lines joined back, starts with its owner and whole key
    blocks: list[list[list[str]]] = [[]]
    for line in lines[3:]:
        if line.startswith(("├", "└")):
            blocks.append([])
        elif line.startswith("│"):
            blocks[-1].append([part.strip() for part in line.split("│")[2:-1]])
    shown = {}
    for r, block in enumerate(b for b in blocks if b):
        for col in range(6):
            shown[r * 6 + col] = "".join(row[col] for row in block)
    occupied = [i for i, c in enumerate(st.card) if c]
    assert len(occupied) >= 4
    for i in occupied:
        want = f"{'AB'[st.owner[i]]}:{game.table.card(st.card[i]).key}"
        assert shown[i].startswith(want), (i, shown[i], want)


def test_the_human_seat_sees_a_legend_and_a_short_move_list_at_80_columns() -> None:
    runner = CliRunner()
    args = ["yuxi", "play", "--board", "6x4", "--seed", "2", "--agents", "random,greedy", "--human", "0"]
    result = runner.invoke(app, args, input="1\n1\n", env={"COLUMNS": str(WIDTH)}, terminal_width=WIDTH)
    out = result.output
    assert max(len(line) for line in out.splitlines()) <= WIDTH
    # the marks are explained on screen: armour, coins, cooldown, the weather, the swap notation
    flat = " ".join(out.split())
    for said in ("[n] armour", "$n coins", "cdN turns", "⚡thunder", "swap <give>-><take>"):
        assert said in flat, said
    # the swap offer's cards are listed with their text, and the moves a few lines each time
    assert "swap offer: give a hand card" in out
    lists = out.split("legal moves:")[1:]
    assert len(lists) >= 2
    for listing in lists:
        moves = listing.split("A> ")[0].strip().splitlines()
        assert len(moves) <= 16, moves  # 145 plays of the opening 6x4 hand: 145 lines before
    assert "2-25. play reef_crab@ a1 b1 c1" in out
