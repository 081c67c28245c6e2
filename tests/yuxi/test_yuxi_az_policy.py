"""The fast mode, ``az-policy`` (the talk's online AI): the network alone, never a search; the
policy's most probable play, the value head's swap; seeded; and both az agents build the
encoder their model names."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import paiju.algorithms.mcts as mcts
from paiju.algorithms.alphazero import AZNet, NetConfig, NetworkEvaluator
from paiju.algorithms.alphazero.checkpoint import load_checkpoint, save_checkpoint
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.yuxi.agents import REGISTRY
from paiju.yuxi.agents.az import YuxiAZAgent, YuxiPolicyAgent
from paiju.yuxi.cards import table_fingerprint
from paiju.yuxi.encoding import EncoderSpec, YuxiEncoder, YuxiEncoderBase
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiState
from paiju.yuxi.phases import PH_SWAP
from paiju.yuxi.rooms import YuxiRooms

SMALL = {
    "channels": 8, "blocks": 1, "vector_hidden": 32, "hidden": 64, "second_hidden": 16, "value_hidden": 16
}


def _model(tmp_path: Path, game: YuxiGame, spec: EncoderSpec) -> tuple[str, AZNet, YuxiEncoderBase]:
    """A small random network for ``spec``'s encoder, saved as a checkpoint that names it."""
    encoder = spec.build(game)
    torch.manual_seed(0)
    net = AZNet(NetConfig.for_encoder(encoder, **SMALL)).eval()
    meta: dict[str, Any] = {"card_table": table_fingerprint(game.table), "boards": [game.config.board]}
    if spec != EncoderSpec():
        meta["encoder"] = spec.to_meta()
    path = save_checkpoint(tmp_path / f"v{spec.version}.pt", net, meta)
    return str(path), net, encoder


@pytest.fixture()
def no_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any search built or run fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the fast mode built or ran a search")

    monkeypatch.setattr(mcts.MCTS, "__init__", refuse)
    monkeypatch.setattr(mcts.MCTSAgent, "__init__", refuse)
    monkeypatch.setattr(mcts.MCTSAgent, "act", refuse)


@pytest.mark.parametrize("version", [1, 2])
def test_the_fast_mode_never_searches_one_network_call_a_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_search: None, version: int
) -> None:
    """Every decision with a choice is one forward pass: one position for a play, the outcomes
    of the decision for a swap; plays are the policy's most probable legal move (checked
    through the search's own evaluator, another path to the same priors) and swaps the value
    head's best outcome."""
    game = YuxiGame(YuxiConfig(board="3x3", decks=("tide_guild", "storm_iron")))
    path, net, encoder = _model(tmp_path, game, EncoderSpec(version))
    forwards: list[int] = []
    forward = AZNet.forward

    def counted(self: AZNet, planes: torch.Tensor, vector: torch.Tensor) -> Any:
        forwards.append(planes.shape[0])
        return forward(self, planes, vector)

    monkeypatch.setattr(AZNet, "forward", counted)
    agent = YuxiPolicyAgent(seed=0, model=path)
    check = NetworkEvaluator(net, encoder, cache_size=0)
    rng = np.random.default_rng(5)
    plays = swaps = 0
    for s in _decisions(game, rng, games=4):
        seat, legal = s.current_player(), s.legal_actions()
        forwards.clear()
        action = agent.act(s.observation(seat), legal)
        assert action in legal
        if len(legal) == 1:
            assert forwards == []
        elif s.phase == PH_SWAP:
            assert forwards == [len(legal)]
            forwards.clear()
            values = [check.evaluate(_after(s, a))[seat] for a in legal]
            assert action == legal[int(np.argmax(values))]
            swaps += 1
        else:
            assert forwards == [1]
            forwards.clear()
            priors = dict(check.prior(s))
            assert priors[action] == max(priors.values())
            plays += 1
        s.apply(action)
    assert plays >= 6 and swaps >= 2


def _decisions(game: YuxiGame, rng: np.random.Generator, games: int) -> Iterator[YuxiState]:
    """Each decision of ``games`` games, chance drawn from ``rng``; the caller applies a move."""
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply(s.sample_chance(rng))
            else:
                yield s


def _after(state: YuxiState, action: Any) -> YuxiState:
    child = state.clone()
    child.apply(action)
    return child


def test_the_fast_mode_is_seeded(tmp_path: Path) -> None:
    """Same seed, same game (also when it samples its plays); another seed, another game."""
    game = YuxiGame(YuxiConfig(board="4x4", decks=("crab_feast", "tempest")))
    path, _, _ = _model(tmp_path, game, EncoderSpec(2))

    def moves(seed: int, temperature: float) -> list[Any]:
        agents = [REGISTRY.make(f"az-policy:model={path},temperature={temperature}", seed=seed),
                  REGISTRY.make("greedy", seed=1)]
        return play_game(game, agents, seed=3).actions

    assert moves(1, 0.0) == moves(1, 0.0) == moves(2, 0.0)  # the most probable move: no draw
    sampled = moves(1, 1.0)
    assert sampled == moves(1, 1.0)
    assert any(moves(seed, 1.0) != sampled for seed in (2, 3, 4))


def test_the_fast_mode_is_its_own_name_with_its_own_parameters() -> None:
    """One name per idea: none of the search's parameters applies to the network alone."""
    assert REGISTRY.names() == ["az", "az-policy", "greedy", "mcts", "random"]
    defaults, _doc = REGISTRY.describe()["az-policy"]
    signature = inspect.signature(YuxiPolicyAgent).parameters
    assert defaults == {k: signature[k].default for k in ("model", "temperature")}
    az_defaults, _doc = REGISTRY.describe()["az"]
    signature = inspect.signature(YuxiAZAgent).parameters
    assert az_defaults == {k: signature[k].default for k in az_defaults}
    for searching in ("simulations=50", "c=1.0", "batch=4", "mix=0.5"):
        with pytest.raises(ConfigError, match="unknown parameter"):
            REGISTRY.make(f"az-policy:{searching}")
    with pytest.raises(ConfigError, match="temperature"):
        YuxiPolicyAgent(temperature=-1.0)
    assert REGISTRY.make("az-policy:temperature=0.5").name == "az-policy(temperature=0.5)"


@pytest.mark.parametrize("version", [1, 2])
def test_both_az_agents_read_the_encoder_their_model_names(tmp_path: Path, version: int) -> None:
    """The two versions' inputs differ in size, and the evaluator refuses a network whose sizes
    are not its encoder's: a model plays only if the agents built the encoder it names."""
    game = YuxiGame(YuxiConfig(board="3x3", die_bonus=False))
    path, net, _ = _model(tmp_path, game, EncoderSpec(version))
    for agent in (YuxiPolicyAgent(seed=0, model=path), YuxiAZAgent(seed=0, model=path, simulations=8)):
        agent.check_game(game)
        played = play_game(game, [agent, REGISTRY.make("greedy", seed=0)], seed=1)
        assert played.state.is_terminal()
    if version == 2:  # the same network without the metadata saying so is read as version 1
        unnamed = save_checkpoint(tmp_path / "unnamed.pt", net, {"card_table": table_fingerprint(game.table)})
        with pytest.raises(ConfigError, match="do not match the encoder's"):
            YuxiPolicyAgent(model=str(unnamed)).check_game(game)


def test_a_model_needing_an_unknown_encoder_is_refused(tmp_path: Path) -> None:
    game = YuxiGame(YuxiConfig(board="3x3"))
    encoder = YuxiEncoder(game)
    net = AZNet(NetConfig.for_encoder(encoder, **SMALL))
    path = save_checkpoint(tmp_path / "future.pt", net, {"card_table": table_fingerprint(game.table),
                                                           "encoder": {"version": 9, "card_ids": False}})
    for agent in (YuxiPolicyAgent(model=str(path)), YuxiAZAgent(model=str(path))):
        with pytest.raises(ConfigError, match=r"future\.pt.* needs yuxi encoder version 9"):
            agent.check_game(game)


def test_the_shipped_models_play_in_the_fast_mode(no_search: None) -> None:
    for board in ("3x3", "4x4", "6x4"):
        game = YuxiGame(YuxiConfig(board=board))
        agents = [REGISTRY.make("az-policy", seed=0), REGISTRY.make("greedy", seed=0)]
        played = play_game(game, agents, seed=2)
        assert played.state.is_terminal()


def test_a_model_trained_on_the_attribute_encoder_names_it_and_both_agents_play_it(tmp_path: Path) -> None:
    """Rooms on version 2 train through the game-agnostic trainer unchanged; the model's
    metadata carries the encoder (from the rooms' description), and the agents read it."""
    # the trainer is imported here: the rest of this file does not need it
    from paiju.algorithms.alphazero.selfplay import SearchSettings
    from paiju.algorithms.alphazero.train import TrainConfig, train

    rooms = YuxiRooms(boards=("3x3",), encoder=EncoderSpec(2))
    config = TrainConfig(seed=1, iterations=1, games_per_iteration=2, channels=4, blocks=1, hidden=16,
                         search=SearchSettings(simulations=4, batch=2), steps_per_iteration=2, batch_size=8,
                         window=1)
    train(config, rooms, tmp_path / "run", game_id={"game": "yuxi", **rooms.describe()})
    model = tmp_path / "run" / "model.pt"
    net, meta = load_checkpoint(model)
    assert meta["encoder"] == {"version": 2, "card_ids": False}
    assert net.config.plane_shape[0] == rooms(0)[1].plane_shape[0] > 400
    game = YuxiGame(YuxiConfig(board="3x3"))
    agents = (YuxiPolicyAgent(seed=0, model=str(model)), YuxiAZAgent(seed=0, model=str(model), simulations=4))
    for agent in agents:
        agent.check_game(game)
        assert play_game(game, [agent, REGISTRY.make("greedy", seed=0)], seed=4).state.is_terminal()
