"""PettingZoo AEC environments of every paiju game (paiju.interop.pettingzoo)."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from paiju.core.errors import IllegalMoveError
from paiju.core.registry import registered_games
from paiju.interop.pettingzoo import env

GAMES = ["connect_four", "doudizhu", "gomoku", "kuhn_poker", "mahjong", "tictactoe", "yuxi"]


def test_every_registered_game_is_covered() -> None:
    assert registered_games() == GAMES


@pytest.mark.parametrize("game", GAMES)
def test_api_and_seed(game: str) -> None:
    api_test(env(game), num_cycles=40, verbose_progress=False)
    seed_test(partial(env, game), num_cycles=40)


@pytest.mark.parametrize("game", GAMES)
def test_observations_lie_in_their_spaces(game: str) -> None:
    """Every seat's observation is in its space; the mask is non-empty exactly for the mover."""
    e = env(game)
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        for agent in e.agents:
            obs = e.observe(agent)
            assert e.observation_space(agent).contains(obs)
            assert (obs["action_mask"].sum() > 0) == (agent == e.agent_selection)
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(rng.choice(legal)))
        if any(e.terminations.values()):
            break


def _play(e: object, seed: int) -> tuple[list[int], dict[str, float]]:
    """A whole game with uniformly random masked actions; the actions and final rewards."""
    from paiju.interop.pettingzoo import PaijuAECEnv

    assert isinstance(e, PaijuAECEnv)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, total = [], dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(a)
        e.step(a)
    return actions, total


def test_kuhn_rewards_are_the_game_returns() -> None:
    """Kuhn poker is zero-sum with pots of 1 or 2 chips: every finished game pays +-1 or +-2."""
    e = env("kuhn_poker")
    for seed in range(20):
        _, total = _play(e, seed)
        assert sum(total.values()) == 0
        assert abs(total["player_0"]) in (1.0, 2.0)


def test_tictactoe_win_is_rewarded() -> None:
    e = env("tictactoe")
    e.reset(seed=0)
    for cell in (0, 3, 1, 4, 2):  # first player completes the top row
        e.step(cell)
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(e.terminations.values())


def test_same_seed_same_game_and_illegal_action_raises() -> None:
    e = env("doudizhu", wing_rule="rlcard")
    assert _play(e, 5) == _play(e, 5)
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalMoveError, match="not legal"):
        e.step(illegal)


def test_doudizhu_bidding_env_plays_bids() -> None:
    e = env("doudizhu", bidding=True)
    e.reset(seed=2)
    obs = e.observe(e.agent_selection)
    space = e.action_space(e.agent_selection)
    assert space.n == obs["action_mask"].size
    # while bidding only the four bid indices (at the end of the space) are legal
    assert set(np.flatnonzero(obs["action_mask"])) <= set(range(space.n - 4, space.n))


# ---- the Dou Dizhu action space ------------------------------------------------------------------
def _rlcard_card_sets() -> set[int]:
    """RLCard's own action list (its jsondata/action_space.txt), as packed count keys."""
    import zipfile
    from pathlib import Path

    rlcard = pytest.importorskip("rlcard")
    from paiju.doudizhu.moves import UNIT
    from paiju.doudizhu.peers import from_rlcard

    path = Path(rlcard.__file__).parent / "games" / "doudizhu" / "jsondata.zip"
    with zipfile.ZipFile(path) as z:
        text = z.read("jsondata/action_space.txt").decode()
    words = text.split()
    assert len(words) == 27_472 and "pass" in words
    return {sum(UNIT[r] * c for r, c in enumerate(from_rlcard(w))) for w in words if w != "pass"}


def test_rlcard_rule_space_is_rlcards_27472_actions() -> None:
    from paiju.interop.action_spaces import doudizhu_action_space

    space = doudizhu_action_space("rlcard")
    assert space.num_moves == 27_472  # RLCard's action count, the pass included
    assert space.keys[0] == 0  # index 0: the pass
    assert set(space.keys[1:]) == _rlcard_card_sets()
    assert len(set(space.keys)) == space.num_moves
    assert doudizhu_action_space("rlcard") is space  # built once, cached


def test_douzero_rule_space_contains_rlcards() -> None:
    from paiju.interop.action_spaces import doudizhu_action_space

    loose = doudizhu_action_space("douzero")
    # the looser rule adds wings such as a rocket or a bomb's cards; it drops nothing
    assert set(doudizhu_action_space("rlcard").keys) < set(loose.keys)
    assert loose.num_moves == 29_985


@pytest.mark.parametrize("wing_rule", ["rlcard", "douzero"])
def test_every_legal_move_of_random_games_has_an_index_and_back(wing_rule: str) -> None:
    from paiju.core.agents import random_agents
    from paiju.core.protocol import State, play_game
    from paiju.doudizhu.game import DouDizhuGame
    from paiju.interop.action_spaces import doudizhu_action_space

    space = doudizhu_action_space(wing_rule)
    checked = 0

    def check(state: State, player: int) -> None:
        nonlocal checked
        if player < 0:
            return
        legal = state.legal_actions()
        indices = [space.index(m) for m in legal]
        assert len(set(indices)) == len(legal)  # one legal reading per card set
        for move, i in zip(legal, indices, strict=True):
            assert space.decode(i, legal) == move
        checked += len(legal)

    for seed in range(8):
        game = DouDizhuGame(wing_rule=wing_rule, bidding=seed % 2 == 1)
        play_game(game, random_agents(3, seed), seed, before_move=check)
    assert checked > 1000


def test_unknown_wing_rule_is_a_config_error() -> None:
    from paiju.core.errors import ConfigError
    from paiju.interop.action_spaces import DouDizhuActionSpace

    with pytest.raises(ConfigError, match="wing_rule 'x'"):
        DouDizhuActionSpace("x")


# ---- what each seat sees -------------------------------------------------------------------------
def test_grid_observation_is_from_each_seats_side() -> None:
    """Connect four after columns 3, 3, 4: seat 0 owns two stones, seat 1 one, whoever moves."""
    e = env("connect_four")
    e.reset(seed=0)
    for column in (3, 3, 4):
        e.step(column)
    board = {a: e.observe(a)["observation"][:84].reshape(2, 6, 7) for a in e.agents}
    assert board["player_0"][0].sum() == 2 and board["player_0"][1].sum() == 1
    assert board["player_1"][0].sum() == 1 and board["player_1"][1].sum() == 2
    assert (board["player_0"][0] == board["player_1"][1]).all()
    flags = {a: e.observe(a)["observation"][-1] for a in e.agents}
    assert flags == {"player_0": 1.0, "player_1": 0.0}


def test_kuhn_encoding_by_hand() -> None:
    e = env("kuhn_poker")
    e.reset(seed=4)
    e.step(1)  # player_0 bets
    for agent, seat in (("player_0", 0), ("player_1", 1)):
        v = e.observe(agent)["observation"]
        card = e.state.observation(seat).card
        assert v[:3].tolist() == [float(c == card) for c in range(3)]
        assert v[3:].tolist() == [0, 1, 0, 0, 0, 0]  # first action: bet; nothing after


@pytest.mark.parametrize("game", ["kuhn_poker", "doudizhu", "mahjong", "yuxi"])
def test_observation_vector_hides_what_the_seat_cannot_see(game: str) -> None:
    """A state redrawn from seat 0's information (other hands, the wall) encodes the same."""
    from paiju.interop.pettingzoo import observation_encoder

    e = env(game)
    e.reset(seed=9)
    rng = np.random.default_rng(9)
    for _ in range(2):  # two moves: no game here is over yet
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert not any(e.terminations.values())
    encode = observation_encoder(game, e.game)
    seen = e.observe("player_0")["observation"]
    changed = 0
    for k in range(8):
        other = e.state.resample_from_infostate(0, k)
        assert (encode(other, 0) == seen).all()
        # the redraw did change hidden information: another seat's view differs
        changed += not (encode(other, 1) == encode(e.state, 1)).all()
    assert changed > 0
