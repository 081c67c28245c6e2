"""AlphaZero on connect four and gomoku through `paiju az train` and the ``az`` agent (issue 17, item 6).

The same trainer as yuxi's, reached through the command line; the model then plays in the
board games' registries. Expectations: the game's own rules (every move legal, a game ends),
a hand-made win in one, the trainer's resume property on the command's setup, and refusals
named by the field.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from paiju.algorithms.alphazero.checkpoint import load_checkpoint
from paiju.cli.main import run
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.games import agent_registry, load_game

TINY = ["--games", "2", "--simulations", "8", "--steps", "2", "--channels", "4", "--blocks", "0",
        "--hidden", "16", "--batch-size", "16", "--temperature-moves", "4"]


def _train(out: Path, game: str, iterations: int, *extra: str) -> Path:
    argv = ["az", "train", "-g", game, "--out", str(out), "--iterations", str(iterations), *TINY, *extra]
    assert run(argv) == 0
    return out / "model.pt"


@pytest.fixture(scope="module")
def c4_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _train(tmp_path_factory.mktemp("az-c4") / "run", "connect_four", 2)


def test_a_trained_model_records_its_game_and_plays_legal_games(c4_model: Path) -> None:
    _, meta = load_checkpoint(c4_model)
    assert (meta["game"], meta["rows"], meta["cols"]) == ("connect_four", 6, 7)
    # the options given, in the command's order (in-process, so not read from sys.argv)
    assert meta["command"] == (
        f"paiju az train --game connect_four --out {c4_model.parent} --iterations 2 --games 2 "
        "--simulations 8 --temperature-moves 4 --channels 4 --blocks 0 --hidden 16 --steps 2 --batch-size 16"
    )
    game = load_game("connect_four")
    registry = agent_registry(game)
    for spec in (f"az:model={c4_model},simulations=16", f"az:model={c4_model},seconds=0.02,batch=4"):
        agents = [registry.make(spec, seed=1), registry.make("random", seed=2)]
        played = play_game(game, agents, seed=3)  # the loop refuses any illegal move
        assert played.state.is_terminal() and played.error is None


def test_the_agent_takes_a_win_in_one(c4_model: Path) -> None:
    game = load_game("connect_four")
    agent = agent_registry(game).make(f"az:model={c4_model},simulations=200", seed=0)
    state = game.new_initial_state()
    for column in (0, 6, 1, 6, 2, 5):  # x holds columns 0-2 of the bottom row; 3 wins
        state.apply(column)
    assert agent.act(state.observation(state.current_player()), state.legal_actions()) == 3


def test_a_model_of_another_board_or_rule_is_refused(tmp_path: Path, c4_model: Path) -> None:
    gomoku = load_game("gomoku", rows=9, win_length=5)
    with pytest.raises(ConfigError, match=r"trained on .*connect_four.*this game is .*gomoku"):
        agent_registry(gomoku).make(f"az:model={c4_model}")
    model = _train(tmp_path / "g", "gomoku", 1, "-o", "rows=7", "-o", "win_length=4")
    # the same 7x7 planes, another rule: refused by what the model records, not by its shape
    with pytest.raises(ConfigError, match=r"'win_length': 4.*'win_length': 5"):
        agent_registry(load_game("gomoku", rows=7, win_length=5)).make(f"az:model={model}")
    agent_registry(load_game("gomoku", rows=7, win_length=4)).make(f"az:model={model}")
    with pytest.raises(ConfigError, match="simulations=0 and seconds=0"):
        agent_registry(load_game("connect_four")).make(f"az:model={c4_model},simulations=0")


def test_the_command_resumes_to_the_uninterrupted_weights(tmp_path: Path) -> None:
    whole = _train(tmp_path / "whole", "connect_four", 3)
    _train(tmp_path / "cut", "connect_four", 1)
    cut = _train(tmp_path / "cut", "connect_four", 3, "--resume")
    (a, meta_a), (b, meta_b) = load_checkpoint(whole), load_checkpoint(cut)
    assert meta_a["iteration"] == meta_b["iteration"] == 2
    theirs = b.state_dict()
    for name, tensor in a.state_dict().items():
        assert torch.equal(tensor, theirs[name]), name


def test_connect_four_ships_its_model_and_gomoku_still_asks_for_one() -> None:
    from paiju.games.grid_encoding import shipped_model

    game = load_game("connect_four")
    path = shipped_model(game)
    assert path is not None and path.is_file() and path.stat().st_size < 5 * 2**20
    _, meta = load_checkpoint(path)
    assert (meta["game"], meta["rows"], meta["cols"]) == ("connect_four", 6, 7)
    command = meta["command"]
    assert command.startswith("paiju az train --game connect_four") and "--init-data" in command
    agent = agent_registry(game).make("az:simulations=100", seed=0)  # no model= : the shipped one
    assert agent.model == str(path)
    state = game.new_initial_state()
    for column in (3, 0, 3, 1, 3):  # o to move; x has three stacked in column 3: only 3 blocks
        state.apply(column)
    assert agent.act(state.observation(state.current_player()), state.legal_actions()) == 3
    with pytest.raises(ConfigError, match="give model=PATH"):
        agent_registry(load_game("gomoku", rows=9, win_length=5)).make("az")
