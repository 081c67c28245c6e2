"""Self-play's search options: playout-cap randomisation, Gumbel root selection, rollouts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from paiju.algorithms.alphazero import AZNet, NetConfig
from paiju.algorithms.alphazero.evaluator import NetworkEvaluator
from paiju.algorithms.alphazero.selfplay import (
    GameSamples,
    SearchSettings,
    SelfPlayAgent,
    play_selfplay_game,
    samples_of,
)
from paiju.algorithms.alphazero.train import TrainConfig, load_replay, train
from paiju.algorithms.mcts import SearchResult
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.games.grid_encoding import connect_four_setup

SIMS, FAST = 12, 3


def _net() -> AZNet:
    _game, enc = connect_four_setup(0)
    torch.manual_seed(0)
    return AZNet(NetConfig.for_encoder(enc, channels=4, blocks=1, hidden=16)).eval()


def _searched(g: GameSamples) -> np.ndarray:
    """Which samples carry a policy target."""
    return np.asarray(g.offsets[1:] > g.offsets[:-1])


@pytest.mark.parametrize("share", [0.0, 0.5, 1.0])
def test_playout_cap_policy_targets_only_where_the_search_was_full(share: float) -> None:
    game, enc = connect_four_setup(0)
    settings = SearchSettings(simulations=SIMS, batch=2, full_search_share=share, fast_simulations=FAST)
    g = play_selfplay_game(game, enc, _net(), settings, seed=7)
    full = int(_searched(g).sum())
    # connect four: every stored sample was searched (forced moves are not stored)
    assert len(g) > 0 and np.isfinite(g.root_values[:, 0]).all()
    assert g.simulations == full * SIMS + (len(g) - full) * FAST
    if share == 0.0:
        assert full == 0  # value targets only
    elif share == 1.0:
        assert full == len(g)
    else:
        assert 0 < full < len(g)


def test_without_a_cap_every_search_is_full_and_fast_simulations_is_not_read() -> None:
    game, enc = connect_four_setup(0)
    plain = play_selfplay_game(game, enc, _net(), SearchSettings(simulations=SIMS, batch=2), seed=3)
    other = SearchSettings(simulations=SIMS, batch=2, fast_simulations=99)
    same = play_selfplay_game(game, enc, _net(), other, seed=3)
    assert np.array_equal(plain.planes, same.planes) and np.array_equal(plain.policy_prob, same.policy_prob)
    assert plain.simulations == len(plain) * SIMS


def _recorded(settings: SearchSettings, seed: int) -> tuple[SelfPlayAgent, list[SearchResult], Any]:
    """A self-play game with every search's result kept beside the agent's samples."""
    game, enc = connect_four_setup(0)
    evaluator = NetworkEvaluator(_net(), enc, num_players=2)
    agent = SelfPlayAgent(game, enc, evaluator, settings, seed)
    results: list[SearchResult] = []
    search = agent.search.search

    def keep(state: Any) -> SearchResult:
        results.append(search(state))
        return results[-1]

    agent.search.search = keep  # type: ignore[method-assign]
    played = play_game(game, [agent, agent], seed)
    return agent, results, played


def test_gumbel_policy_targets_are_the_searchs_improved_policy_and_its_survivor_is_played() -> None:
    agent, results, played = _recorded(SearchSettings(simulations=SIMS, batch=2, gumbel=4), seed=5)
    assert len(agent.decisions) == len(results) > 0
    game, enc = connect_four_setup(0)
    state = game.new_initial_state()
    searched = iter(zip(results, agent.decisions, strict=True))
    for move in played.actions:
        legal = state.legal_actions()
        if len(legal) > 1:
            result, decision = next(searched)
            index = dict(zip(legal, enc.policy_indices(state, legal), strict=True))
            assert result.improved and sum(result.improved.values()) == pytest.approx(1.0)
            assert decision.policy == [(*index[a], p) for a, p in result.improved.items()]
            assert move == result.action  # no temperature: the survivor, a sample already
        state.apply(move)


def test_gumbel_search_has_no_dirichlet_noise_and_the_plain_one_keeps_it() -> None:
    game, enc = connect_four_setup(0)
    evaluator = NetworkEvaluator(_net(), enc, num_players=2)
    gumbel = SelfPlayAgent(game, enc, evaluator, SearchSettings(simulations=SIMS, gumbel=4), 0)
    plain = SelfPlayAgent(game, enc, evaluator, SearchSettings(simulations=SIMS), 0)
    assert gumbel.search.dirichlet is None and gumbel.search.gumbel == 4
    assert plain.search.dirichlet == (0.25, 0.3) and plain.search.gumbel == 0
    capped = SelfPlayAgent(game, enc, evaluator, SearchSettings(simulations=SIMS, full_search_share=0.5,
                                                                fast_simulations=FAST), 0)
    assert capped.fast_search is not None and capped.fast_search.dirichlet is None
    assert capped.fast_search.simulations == FAST and capped.search.dirichlet == (0.25, 0.3)


def test_rollouts_are_the_mean_of_random_games_from_the_position() -> None:
    game, enc = connect_four_setup(0)
    settings = SearchSettings(simulations=SIMS, batch=2, rollouts=8)
    g = play_selfplay_game(game, enc, _net(), settings, seed=2)
    r = g.rollout_values
    assert np.isfinite(r).all() and (np.abs(r) <= 1).all() and np.allclose(r[:, 1], -r[:, 0])
    # a mean of 8 results of +-1 or 0 is a multiple of 1/8
    assert np.allclose(r * 8, np.round(r * 8))
    # the search is unchanged by them: the same game without rollouts
    plain = play_selfplay_game(game, enc, _net(), SearchSettings(simulations=SIMS, batch=2), seed=2)
    assert np.array_equal(plain.planes, g.planes) and np.isnan(plain.rollout_values).all()


def test_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match=r"fast_simulations=20 must be in 1..simulations=8"):
        SearchSettings(simulations=8, full_search_share=0.5, fast_simulations=20)
    SearchSettings(simulations=8, fast_simulations=20)  # no cap: not read
    with pytest.raises(ConfigError, match=r"full_search_share=1.5"):
        SearchSettings(full_search_share=1.5)
    with pytest.raises(ConfigError, match="gumbel=-1"):
        SearchSettings(gumbel=-1)


def test_a_capped_run_trains_and_counts_its_simulations(tmp_path: Path) -> None:
    search = SearchSettings(simulations=SIMS, batch=2, full_search_share=0.0, fast_simulations=FAST,
                            rollouts=2)
    config = TrainConfig(seed=1, iterations=1, games_per_iteration=2, search=search,
                         channels=4, blocks=1, hidden=16, steps_per_iteration=2, batch_size=16, window=1,
                         value_target="rollouts")
    metrics = train(config, connect_four_setup, tmp_path)
    replay = load_replay([tmp_path / "samples" / "iter-0000.npz"])
    assert not (replay.offsets[1:] > replay.offsets[:-1]).any()  # share 0: no policy target
    assert metrics[0]["policy_loss"] == 0.0 and np.isfinite(metrics[0]["value_loss"])
    assert metrics[0]["simulations"] == len(replay) * FAST
    assert np.isfinite(replay.rollout_values).all()


def test_samples_of_counts_the_games_simulations() -> None:
    assert samples_of([], [1.0, -1.0], 2, moves=0, simulations=7).simulations == 7
