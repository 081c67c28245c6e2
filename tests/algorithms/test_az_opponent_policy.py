"""AlphaZero self-play's two ways of searching hidden cards: determinization and the talk's
opponent-policy mode (the true state searched, the opponent playing the network's policy
from its own view)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch

from paiju.algorithms.alphazero import AZNet, NetConfig
from paiju.algorithms.alphazero.evaluator import NetworkEvaluator
from paiju.algorithms.alphazero.selfplay import (
    NetworkPolicyAgent,
    SearchSettings,
    SelfPlayAgent,
    play_selfplay_game,
)
from paiju.algorithms.alphazero.train import TrainConfig, train
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.core.torch_files import load_payload
from paiju.games.grid_encoding import connect_four_setup
from paiju.yuxi.rooms import YuxiRooms

ROOMS = YuxiRooms(boards=("3x3",))
OPPONENT = SearchSettings(simulations=12, batch=2, temperature_moves=2, hidden="opponent-policy")
DETERMINIZE = SearchSettings(simulations=12, batch=2, temperature_moves=2)


def _net(seed: int = 0) -> AZNet:
    _game, enc = ROOMS(0)
    torch.manual_seed(seed)
    return AZNet(NetConfig.for_encoder(enc, channels=4, blocks=1, hidden=16)).eval()


class _Spy:
    """Records, at every searched decision, the true state and the root the search was given;
    and every call of the opponent model."""

    def __init__(self, agent: SelfPlayAgent) -> None:
        self.roots: list[tuple[Any, Any]] = []
        self.policy_calls: list[tuple[int, Any, bool]] = []
        self.truth: Any = None
        search = agent.search.search

        def spied_search(state: Any) -> Any:
            self.roots.append((self.truth.clone(), state.clone()))
            return search(state)

        agent.search.search = spied_search  # type: ignore[method-assign]
        policy = agent.search.policies
        if isinstance(policy, NetworkPolicyAgent):
            act = policy.act

            def spied_act(observation: Any, legal: Any) -> Any:
                action = act(observation, legal)
                self.policy_calls.append((observation.player, observation, action in legal))
                return action

            policy.act = spied_act  # type: ignore[method-assign]

    def watch(self, state: Any, player: int) -> None:
        self.truth = state


def _play(settings: SearchSettings, seed: int) -> tuple[_Spy, Any]:
    game, enc = ROOMS(seed)
    evaluator = NetworkEvaluator(_net(), enc)
    agent = SelfPlayAgent(game, enc, evaluator, settings, seed)
    spy = _Spy(agent)

    def before(state: Any, player: int) -> None:
        spy.watch(state, player)
        agent.watch(state, player)

    play_game(game, [agent, agent], seed, before_move=before)
    return spy, agent


def test_opponent_policy_search_starts_from_the_true_state_and_the_opponent_moves_from_its_own_view() -> None:
    spy, _ = _play(OPPONENT, seed=4)
    assert spy.roots and spy.policy_calls
    for truth, root in spy.roots:
        searcher = truth.current_player()
        # the searched root is the true state: the opponent's hidden hand included
        assert root.observation(1 - searcher) == truth.observation(1 - searcher)
        assert root.observation(searcher) == truth.observation(searcher)
    # the opponent model only ever gets the observation of a seat it plays, and answers legally
    assert all(legal for _, _, legal in spy.policy_calls)
    assert {seat for seat, _, _ in spy.policy_calls} <= {0, 1}
    assert all(obs.to_move == seat for seat, obs, _ in spy.policy_calls)


def test_determinized_search_never_sees_the_opponents_hand_and_calls_no_opponent_model() -> None:
    spy, agent = _play(DETERMINIZE, seed=4)
    assert agent.search.policies is None and not spy.policy_calls
    differs = 0
    for truth, root in spy.roots:
        searcher = truth.current_player()
        assert root.observation(searcher) == truth.observation(searcher)  # its own view is exact
        differs += root.observation(1 - searcher).hand != truth.observation(1 - searcher).hand
    assert differs > 0  # the opponent's hand was drawn, not read: the test can tell the modes apart


def test_opponent_policy_self_play_without_the_true_state_is_refused() -> None:
    game, enc = ROOMS(1)
    agent = SelfPlayAgent(game, enc, NetworkEvaluator(_net(), enc), OPPONENT, 1)
    with pytest.raises(RuntimeError, match="before_move"):
        play_game(game, [agent, agent], 1)


def test_the_mode_is_a_no_op_for_perfect_information_and_checked() -> None:
    game, enc = connect_four_setup(0)
    torch.manual_seed(0)
    net = AZNet(NetConfig.for_encoder(enc, channels=4, blocks=1, hidden=16)).eval()
    a = play_selfplay_game(game, enc, net, SearchSettings(simulations=8, batch=2), seed=3)
    b = play_selfplay_game(
        game, enc, net, SearchSettings(simulations=8, batch=2, hidden="opponent-policy"), seed=3
    )
    assert (a.planes == b.planes).all() and (a.policy_prob == b.policy_prob).all()
    with pytest.raises(ConfigError, match="hidden='nope'"):
        SearchSettings(hidden="nope")


TINY = TrainConfig(
    seed=5,
    iterations=2,
    games_per_iteration=2,
    search=OPPONENT,
    channels=4,
    blocks=1,
    hidden=16,
    steps_per_iteration=2,
    batch_size=16,
    window=2,
)

TINY_SEARCH = TINY.to_dict()["search"]


def _weights(run: Path) -> dict[str, torch.Tensor]:
    return dict(load_payload(run / "checkpoint.pt", "checkpoint")["net"])


def test_an_opponent_policy_run_resumes_to_the_uninterrupted_result_and_differs_from_determinization(
    tmp_path: Path,
) -> None:
    train(TINY, ROOMS, tmp_path / "whole")
    train(TrainConfig.from_dict({**TINY.to_dict(), "iterations": 1}), ROOMS, tmp_path / "split")
    train(TINY, ROOMS, tmp_path / "split", resume=True)
    whole, split = _weights(tmp_path / "whole"), _weights(tmp_path / "split")
    assert all(torch.equal(whole[k], split[k]) for k in whole)
    det = TrainConfig.from_dict({**TINY.to_dict(), "search": {**TINY_SEARCH, "hidden": "determinize"}})
    train(det, ROOMS, tmp_path / "det")
    other = _weights(tmp_path / "det")
    assert not all(torch.equal(whole[k], other[k]) for k in whole)


def test_a_run_saved_before_the_setting_existed_resumes_as_determinization(tmp_path: Path) -> None:
    one = TrainConfig.from_dict(
        {**TINY.to_dict(), "iterations": 1, "search": {**TINY_SEARCH, "hidden": "determinize"}}
    )
    train(one, ROOMS, tmp_path)
    # rewrite the checkpoint as an older version wrote it: no identity, no "hidden" field
    payload = load_payload(tmp_path / "checkpoint.pt", "checkpoint")
    del payload["identity"], payload["config"]["search"]["hidden"]
    torch.save(payload, tmp_path / "checkpoint.pt")
    two = TrainConfig.from_dict({**one.to_dict(), "iterations": 2})
    train(two, ROOMS, tmp_path, resume=True)
    assert json.loads((tmp_path / "config.json").read_text())["config"]["search"]["hidden"] == "determinize"
    with pytest.raises(ConfigError, match="another configuration"):
        train(TrainConfig.from_dict({**TINY.to_dict(), "iterations": 3}), ROOMS, tmp_path, resume=True)
