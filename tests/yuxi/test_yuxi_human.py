"""A person's seat (`paiju yuxi play --human N`) driven by a scripted stdin, and boards that
read without colour."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.protocol import Action, play_game
from paiju.yuxi.agents import REGISTRY
from paiju.yuxi.agents.human import HumanAgent, HumanQuit
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiState
from paiju.yuxi.render import board_table

runner = CliRunner()
PLAY = ["yuxi", "play", "--board", "3x3", "--seed", "4", "--agents", "random,greedy", "--decks",
        "tide_iron,guild_storm"]


class FirstLegal:
    """What a person typing "1" at every prompt plays: the first listed legal move."""

    name = "first"

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        return legal_actions[0]


def test_typing_the_first_move_every_time_plays_the_first_legal_agents_game() -> None:
    result = runner.invoke(app, [*PLAY, "--human", "0"], input="1\n" * 400)
    assert result.exit_code == 0, result.output
    game = YuxiGame(YuxiConfig(board="3x3", decks=("tide_iron", "guild_storm")))
    # the CLI seeds seat 1 with derive_seed(seed, 101); the same greedy agent plays it here
    from paiju.core.rng import derive_seed

    played = play_game(game, [FirstLegal(), REGISTRY.make("greedy", derive_seed(4, 101))], 4)
    assert isinstance(played.state, YuxiState)
    a, b = played.state.final_scores()
    assert f"final: A {a}" in result.output and f", B {b}:" in result.output
    assert "A> " in result.output and "legal moves:" in result.output
    # the person sees their own hand, not the other's, and not the other's deal
    assert "hand A:" in result.output and "hand B:" not in result.output
    assert "chance: deal (hands dealt)" in result.output


def test_bad_input_re_asks_with_the_reason_and_eof_leaves_cleanly() -> None:
    result = runner.invoke(app, [*PLAY, "--human", "0"], input="bogus\n999\nplay nosuch@a1\n\nkeep\n")
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # the console wraps long lines
    assert "'bogus' is not yuxi move notation" in out
    assert "999 is not a move number" in out
    assert "nosuch" in out and "no move typed" in out
    assert "A: keep" in out  # the typed notation was played
    assert out.rstrip().endswith("game left (end of input); no result")
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_move_legal_in_notation_but_not_now_is_refused() -> None:
    # at the swap offer, 'end' is notation but not a legal move
    result = runner.invoke(app, [*PLAY, "--human", "0"], input="end\n")
    assert "'end' is not a legal move now" in " ".join(result.output.split())


def test_ctrl_c_at_the_prompt_is_a_clean_quit() -> None:
    def interrupted(prompt: str) -> str:
        raise KeyboardInterrupt

    game = YuxiGame(YuxiConfig(board="3x3"))
    seat = HumanAgent(game, 0, ask=interrupted, say=lambda line: None)
    with pytest.raises(HumanQuit) as info:
        play_game(game, [seat, REGISTRY.make("random", 1)], 0)
    assert info.value.interrupted


def test_human_and_json_do_not_mix() -> None:
    from paiju.cli.main import run

    assert run([*PLAY, "--human", "1", "--json"]) == 2


def test_the_board_reads_without_colour_and_hand_texts_fit_80_columns() -> None:
    game = YuxiGame(YuxiConfig(board="3x3", decks=("tide_iron", "guild_storm")))
    played = play_game(game, [REGISTRY.make("greedy", 1), REGISTRY.make("greedy", 2)], 3)
    state = played.state
    assert isinstance(state, YuxiState)
    buf = io.StringIO()
    Console(file=buf, no_color=True, width=80, color_system=None).print(board_table(state))
    text = buf.getvalue()
    assert "\x1b[" not in text
    owners = [state.owner[i] for i in range(state.shape.cells) if state.card[i]]
    # one owner prefix per character on the board, each seat's own letter
    grid = text.split("A (seat 0)")[0]
    assert grid.count("A:") == owners.count(0) and grid.count("B:") == owners.count(1)
    assert max(len(line) for line in text.splitlines()) <= 80
    lines: list[str] = []
    seat = HumanAgent(game, 0, say=lines.append)
    hand_lines = seat.hand_lines(sorted({c.id for c in game.table.cards[1:] if c is not None}))
    assert max(len(line) for line in hand_lines) <= 80
    longest = max((c for c in game.table.cards[1:] if c is not None), key=lambda c: len(c.text))
    assert len(longest.text) > 60  # the wrapping is exercised
    assert " ".join(" ".join(hand_lines).split()).count(" ".join(longest.text.split())) == 1
