"""PettingZoo AEC environments for every registered paiju game (docs/interop.md).

``env("doudizhu", wing_rule="rlcard")`` builds the game through the registry (the keyword
options are the game's rule options) and wraps it as a PettingZoo ``AECEnv``:

* agents ``player_0 .. player_{n-1}`` are the game's seats;
* chance (deals, draws, the Kuhn cards) is resolved inside the environment with a generator
  seeded by ``reset(seed=...)``, so the same seed replays the same game;
* ``observe(agent)`` is ``{"observation": float32 vector, "action_mask": int8 mask}``: the
  vector is the game's own encoder applied to that seat's observation (see
  :func:`observation_encoder`; bounds in :func:`observation_box`), the mask marks the
  legal actions (all zeros when it is not that agent's turn);
* actions are ``Discrete(n)``: the game's fixed action space, or for Dou Dizhu the card-set
  index of :mod:`paiju.interop.action_spaces`;
* rewards are the game's ``returns()``, given once, at the end; an illegal action raises
  :class:`~paiju.core.errors.IllegalMoveError` (mask your policy).

The environment steps one ``State`` move by move because PettingZoo drives the loop (the
agent's action arrives from outside); it never plays agents itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from paiju.core.errors import ConfigError, IllegalMoveError
from paiju.core.protocol import Game, State, play_out_chance
from paiju.core.registry import get_entry
from paiju.core.rng import as_generator

Encode = Callable[[State, int], np.ndarray]
"""``encode(state, seat)``: the float32 observation vector of ``seat`` in ``state``."""


# ---- observation encoders -----------------------------------------------------------------------
def _kuhn_encoder(game: Game) -> Encode:
    """Kuhn poker: one-hot own card (J, Q, K), then each of the up to three betting actions as
    one-hot (pass, bet): 9 values, all zero while nothing is dealt or bet."""

    def encode(state: State, seat: int) -> np.ndarray:
        obs = state.observation(seat)
        v = np.zeros(9, dtype=np.float32)
        if obs.card is not None:
            v[obs.card] = 1.0
        for i, action in enumerate(obs.betting[:3]):
            v[3 + 2 * i + action] = 1.0
        return v

    return encode


def _tictactoe_encoder(game: Game) -> Encode:
    """Tic-tac-toe: the board as two 3x3 planes (own marks, opponent's), then whether the seat
    is seat 0 (the grid games' encoding, from the seat's side)."""

    def encode(state: State, seat: int) -> np.ndarray:
        planes = np.zeros((2, 9), dtype=np.float32)
        for ply, cell in enumerate(state.observation(seat).history):
            planes[0 if ply % 2 == seat else 1, cell] = 1.0  # seat 0 plays the even plies
        return np.concatenate([planes.ravel(), [float(seat == 0)]]).astype(np.float32)

    return encode


def _grid_encoder(encoder: Any) -> Encode:
    """Connect four / gomoku through :mod:`paiju.games.grid_encoding`, which encodes from the
    mover's side: for the other seat the two stone planes swap and the seat flag flips."""

    def encode(state: State, seat: int) -> np.ndarray:
        planes, vector = encoder.encode(state)
        if encoder.perspective(state) != seat:
            planes = planes[::-1]
            vector = np.array([vector[0], float(seat == 0)], dtype=np.float32)
        return np.concatenate([planes.ravel(), vector]).astype(np.float32)

    return encode


def _connect_four_encoder(game: Any) -> Encode:
    from paiju.games.grid_encoding import ConnectFourEncoder

    return _grid_encoder(ConnectFourEncoder(game))


def _gomoku_encoder(game: Any) -> Encode:
    from paiju.games.grid_encoding import GomokuEncoder

    return _grid_encoder(GomokuEncoder(game))


def _doudizhu_encoder(game: Game) -> Encode:
    """Dou Dizhu: the seat's own hand as 54 card bits, then :mod:`paiju.doudizhu.encoding`'s
    play-phase vector (all zeros while bidding and once the game is over, where that encoder
    has nothing to say): the bidding seat still sees its hand."""
    from paiju.doudizhu.encoding import STATE_SIZE, card_bits, encode_state

    def encode(state: State, seat: int) -> np.ndarray:
        obs = state.observation(seat)
        play = obs.phase == "play" and obs.landlord is not None
        rest = encode_state(obs) if play else np.zeros(STATE_SIZE, dtype=np.uint8)
        return np.concatenate([card_bits(obs.hand.counts), rest]).astype(np.float32)

    return encode


def _mahjong_encoder(game: Game) -> Encode:
    from paiju.mahjong.features import encode_flat

    return lambda state, seat: encode_flat(state.observation(seat)).astype(np.float32)


def _yuxi_encoder(game: Any) -> Encode:
    from paiju.yuxi.encoding import YuxiEncoder

    encoder = YuxiEncoder(game)

    def encode(state: State, seat: int) -> np.ndarray:
        obs = state.observation(seat)
        return np.concatenate([encoder.planes(obs).ravel(), encoder.vector(obs)]).astype(np.float32)

    return encode


_ENCODERS: dict[str, Callable[[Game], Encode]] = {
    "kuhn_poker": _kuhn_encoder,
    "tictactoe": _tictactoe_encoder,
    "connect_four": _connect_four_encoder,
    "gomoku": _gomoku_encoder,
    "doudizhu": _doudizhu_encoder,
    "mahjong": _mahjong_encoder,
    "yuxi": _yuxi_encoder,
}


def observation_box(name: str, shape: tuple[int, ...]) -> spaces.Box:
    """The space of game ``name``'s observation vectors: every encoder writes bits and
    fractions in [0, 1], except yuxi's, whose vector also holds counts (>= 0, unbounded)."""
    high = np.inf if name == "yuxi" else 1.0
    return spaces.Box(0.0, high, shape=shape, dtype=np.float32)


def observation_encoder(name: str, game: Game) -> Encode:
    """The observation vector encoder of game ``name`` (an instance built with its options)."""
    try:
        return _ENCODERS[name](game)
    except KeyError:
        known = ", ".join(sorted(_ENCODERS))
        raise ConfigError(f"game {name!r} has no environment encoder; known: {known}") from None


# ---- action spaces --------------------------------------------------------------------------------
@dataclass
class ActionAdapter:
    """A game's actions as ``0..n-1``: the mask of a state's legal actions and an index's action."""

    n: int
    mask: Callable[[State], np.ndarray]
    decode: Callable[[State, int], Any]


def _fixed_adapter(game: Game) -> ActionAdapter:
    n = game.info.num_distinct_actions
    assert n is not None

    def decode(state: State, index: int) -> int:
        if index not in state.legal_actions():
            raise IllegalMoveError(f"action {index} is not legal for player {state.current_player()}")
        return index

    return ActionAdapter(n, lambda state: state.legal_action_mask().astype(np.int8), decode)


def _doudizhu_adapter(game: Any) -> ActionAdapter:
    from paiju.interop.action_spaces import doudizhu_action_space

    space = doudizhu_action_space(game.config.wing_rule)
    return ActionAdapter(
        space.n,
        lambda state: space.mask(state.legal_actions()),
        lambda state, index: space.decode(index, state.legal_actions()),
    )


def action_adapter(game: Game) -> ActionAdapter:
    """How the environments number ``game``'s actions."""
    if game.info.num_distinct_actions is not None:
        return _fixed_adapter(game)
    if game.info.name == "doudizhu":
        return _doudizhu_adapter(game)
    raise ConfigError(f"{game.info.name} has typed actions and no action index for the environments")


# ---- the environment ------------------------------------------------------------------------------
class PaijuAECEnv(AECEnv):
    """One paiju game as a PettingZoo AEC environment (build it with :func:`env`)."""

    metadata = {"render_modes": ["ansi"], "name": "paiju_v0", "is_parallelizable": False}

    def __init__(self, game: str, render_mode: str | None = None, **rule_options: Any) -> None:
        super().__init__()
        entry = get_entry(game)
        self.game: Game = entry.load_game(**rule_options)
        self.metadata = {**self.metadata, "name": f"paiju_{game}_v0"}
        self.render_mode = render_mode
        self._encode = observation_encoder(game, self.game)
        self._actions = action_adapter(self.game)
        self.possible_agents = [f"player_{i}" for i in range(entry.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._rng = as_generator(0)  # paiju seeds everything: a first reset() without a seed is seed 0
        self.state: State = play_out_chance(self.game.new_initial_state(), self._rng)
        size = self._encode(self.state, 0).shape
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": observation_box(game, size),
                "action_mask": spaces.Box(0, 1, shape=(self._actions.n,), dtype=np.int8),
            })
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(self._actions.n) for agent in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = as_generator(seed)
        for agent in self.possible_agents:
            self.action_spaces[agent].seed(None if seed is None else seed + self._seat[agent])
        self.state = play_out_chance(self.game.new_initial_state(), self._rng)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        to_move = self.state.current_player() == seat
        mask = self._actions.mask(self.state) if to_move else np.zeros(self._actions.n, dtype=np.int8)
        return {"observation": self._encode(self.state, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        if action is None:
            raise IllegalMoveError(f"{agent} must act: step(None) is only for finished agents")
        self.state.apply(self._actions.decode(self.state, int(action)))
        play_out_chance(self.state, self._rng)
        if self.state.is_terminal():
            for a, value in zip(self.agents, self.state.returns(), strict=True):
                self.rewards[a] = float(value)
                self.terminations[a] = True
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()

    def render(self) -> str | None:
        return str(self.state) if self.render_mode == "ansi" else None

    def close(self) -> None:
        pass


def env(game: str, **rule_options: Any) -> PaijuAECEnv:
    """The AEC environment of registered game ``game`` with rule options ``rule_options``
    (``render_mode="ansi"`` renders the state as text)."""
    return PaijuAECEnv(game, **rule_options)


__all__ = ["ActionAdapter", "PaijuAECEnv", "action_adapter", "env", "observation_box", "observation_encoder"]
