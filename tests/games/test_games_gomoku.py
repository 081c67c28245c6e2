"""Gomoku: the API suite, OpenSpiel differential, a brute-force line scan on rectangular boards, MCTS."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from paiju.algorithms.mcts import MCTS
from paiju.core.conformance import check_game_api
from paiju.core.errors import ConfigError, IllegalMoveError, InvalidNotationError
from paiju.games.gomoku import REGISTRY, Gomoku, GomokuState, registry_for


def _play(game: Gomoku, cells: list[tuple[int, int]]) -> GomokuState:
    state = game.new_initial_state()
    for r, c in cells:
        state.apply(r * game.cols + c)
    return state


def _line_winner(board: list[list[str]], length: int) -> str | None:
    """Independent oracle: scan every cell and direction for ``length`` equal stones."""
    rows, cols = len(board), len(board[0])
    for r in range(rows):
        for c in range(cols):
            mark = board[r][c]
            if mark == ".":
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                if all(
                    0 <= r + i * dr < rows
                    and 0 <= c + i * dc < cols
                    and board[r + i * dr][c + i * dc] == mark
                    for i in range(length)
                ):
                    return mark
    return None


def _occupied(state: GomokuState) -> int:
    return state.game.num_cells - len(state.legal_actions())


@pytest.mark.parametrize("game", [Gomoku(9), Gomoku(6, 8, win_length=4), Gomoku(1, 7, win_length=3)])
def test_api_conformance(game: Gomoku) -> None:
    check_game_api(game, games=6, seed=1, illegal_action=lambda s: s.game.num_cells)


@pytest.mark.parametrize(
    ("cells", "winner"),
    [
        ([(7, 3), (0, 0), (7, 4), (0, 1), (7, 5), (0, 2), (7, 6), (0, 3), (7, 7)], 0),  # row
        ([(3, 14), (0, 0), (4, 14), (0, 2), (5, 14), (0, 4), (6, 14), (0, 6), (7, 14)], 0),  # edge column
        ([(0, 0), (5, 5), (1, 1), (6, 6), (2, 2), (7, 7), (3, 3), (8, 8), (4, 4)], 0),  # diagonal
        (
            [(0, 14), (9, 9), (1, 13), (9, 10), (2, 12), (9, 11), (3, 11), (9, 12), (10, 0), (9, 13)],
            1,
        ),  # o row
        ([(4, 0), (0, 9), (3, 1), (0, 11), (2, 2), (0, 13), (1, 3), (14, 0), (0, 4)], 0),  # anti-diagonal
    ],
)
def test_hand_checked_wins(cells: list[tuple[int, int]], winner: int) -> None:
    game = Gomoku()
    state = _play(game, cells[:-1])
    assert not state.is_terminal()
    state.apply(cells[-1][0] * 15 + cells[-1][1])
    assert state.is_terminal() and state.winner() == winner


def test_overline_wins_and_rows_do_not_wrap() -> None:
    game = Gomoku(9)
    # black: 0,1,2 and 4,5 on row 0, then 3 makes six in a row (freestyle: a win)
    state = _play(
        game, [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2), (0, 4), (4, 4), (0, 5), (2, 5), (0, 3)]
    )
    assert state.is_terminal() and state.winner() == 0
    # black: last three cells of row 0 and first two of row 1: adjacent bits, not a row
    state = _play(game, [(0, 6), (5, 0), (0, 7), (5, 2), (0, 8), (5, 4), (1, 0), (5, 6), (1, 1)])
    assert not state.is_terminal()


def test_bad_boards_and_moves_say_why() -> None:
    with pytest.raises(ConfigError, match="win_length"):
        Gomoku(4, win_length=5)
    with pytest.raises(ConfigError, match=r"1\.\.25 rows and columns, got 0x0"):
        Gomoku(0)
    with pytest.raises(ConfigError, match=r"1\.\.25 rows and columns, got 9x99"):
        Gomoku(9, cols=99)
    assert Gomoku(25).num_cells == 625  # the largest board accepted
    with pytest.raises(ConfigError, match="integer"):
        Gomoku(9.5)  # type: ignore[arg-type]
    game = Gomoku(9)
    state = _play(game, [(4, 4)])
    with pytest.raises(IllegalMoveError, match=r"cell 40 \(row 4, col 4\) is taken"):
        state.apply(40)
    with pytest.raises(IllegalMoveError, match="does not exist on a 9x9 board"):
        state.apply(81)
    assert state.string_to_action(state.action_to_string(80)) == 80
    assert state.action_to_string(40) == "o(4,4)"
    with pytest.raises(InvalidNotationError, match="off the 9x9 board"):
        state.string_to_action("x(9,0)")


@pytest.mark.parametrize(("size", "connect", "games"), [(9, 5, 60), (7, 4, 80), (5, 3, 80)])
def test_matches_openspiel_on_random_games(size: int, connect: int, games: int) -> None:
    ours_game = Gomoku(size, win_length=connect)
    theirs_game = pyspiel.load_game(f"gomoku(size={size},connect={connect})")
    rng = np.random.default_rng(size * 10 + connect)
    for _ in range(games):
        ours, theirs = ours_game.new_initial_state(), theirs_game.new_initial_state()
        while True:
            assert ours.is_terminal() == theirs.is_terminal()
            if ours.is_terminal():
                assert ours.returns() == list(theirs.returns())
                break
            assert ours.current_player() == theirs.current_player()
            legal = ours.legal_actions()
            assert legal == theirs.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            ours.apply(action)
            theirs.apply_action(action)


@pytest.mark.parametrize(("rows", "cols", "length"), [(6, 10, 4), (10, 5, 5), (3, 12, 3)])
def test_rectangular_boards_match_a_brute_force_line_scan(rows: int, cols: int, length: int) -> None:
    game = Gomoku(rows, cols, win_length=length)
    rng = np.random.default_rng(rows * 100 + cols)
    for _ in range(40):
        state = game.new_initial_state()
        board = [["."] * cols for _ in range(rows)]
        while not state.is_terminal():
            legal = state.legal_actions()
            cell = legal[int(rng.integers(len(legal)))]
            board[cell // cols][cell % cols] = "xo"[state.current_player()]
            state.apply(cell)
            assert str(state) == "\n".join("".join(row) for row in board)
            expected = _line_winner(board, length)
            if expected is not None:
                assert state.is_terminal() and state.winner() == "xo".index(expected)
            else:
                assert state.is_terminal() == (_occupied(state) == rows * cols)


def test_mcts_takes_a_win_and_blocks_a_loss() -> None:
    game = Gomoku(7, win_length=4)
    # black to move with three in a row open at (3,4): the proven win
    state = _play(game, [(3, 1), (0, 0), (3, 2), (0, 6), (3, 3), (6, 6)])
    result = MCTS(game, simulations=300, seed=0).search(state)
    assert result.action in (3 * 7 + 0, 3 * 7 + 4)
    # white to move must block black's three on column 2 (rows 2-4, (1,2) already white) at (5,2)
    state = _play(game, [(2, 2), (1, 2), (3, 2), (0, 6), (4, 2)])
    for seed in range(3):
        result = MCTS(game, simulations=2000, seed=seed).search(state)
        assert result.action == 5 * 7 + 2, result


def test_registries() -> None:
    assert REGISTRY.names() == ["az", "mcts", "random"]
    small = Gomoku(5, win_length=4)
    agent = registry_for(small).make("mcts:simulations=30", seed=0)
    state = small.new_initial_state()
    assert agent.act(state.observation(0), state.legal_actions()) in range(25)
