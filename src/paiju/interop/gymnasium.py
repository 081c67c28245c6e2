"""Gymnasium single-agent environments: one seat of a paiju game against fixed paiju agents.

``make("tictactoe", seat=0, opponents=["random"])`` seats the learner at ``seat``; every other
seat is played by an agent built from the game's agent registry (one spec per other seat, in
seat order; a single spec is used for all of them). ``reset(seed=s)`` rebuilds the opponents
with seeds derived from ``s`` and draws chance from ``s``, so an episode is a function of the
seed and the learner's actions (docs/interop.md). Should a game end before the learner's
first move (possible in mahjong), ``reset`` deals the next one.

Observation and action spaces are those of :mod:`paiju.interop.pettingzoo`: a dict
``{"observation": float32 vector, "action_mask": int8 mask}`` and ``Discrete(n)``.
The reward is the seat's return at the end of the game (0 before).

**Invalid actions.** With ``invalid_action="penalty"`` (the default) an action outside the
mask ends the episode at once with reward ``penalty`` (default: the game's lowest utility)
and ``info["illegal_action"] = True``; with ``invalid_action="raise"`` it raises
:class:`~paiju.core.errors.IllegalMoveError`. Masked policies never meet either.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from paiju.core.errors import ConfigError, IllegalMoveError
from paiju.core.protocol import Agent, State
from paiju.core.registry import get_entry
from paiju.core.rng import as_generator, derive_seed
from paiju.interop.pettingzoo import action_adapter, observation_box, observation_encoder

INVALID_ACTION_MODES = ("penalty", "raise")


class PaijuSingleAgentEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One seat of a paiju game as a Gymnasium environment (build it with :func:`make`)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self, game: str, seat: int = 0, opponents: Sequence[str] = ("random",), *,
        invalid_action: str = "penalty", penalty: float | None = None,
        render_mode: str | None = None, **rule_options: Any,
    ) -> None:
        entry = get_entry(game)
        self.game = entry.load_game(**rule_options)
        n = entry.num_players
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise ConfigError(f"seat must be 0..{n - 1} for {game}, not {seat!r}")
        specs = list(opponents)
        if len(specs) == 1:
            specs *= n - 1
        if len(specs) != n - 1:
            raise ConfigError(
                f"opponents: {game} needs {n - 1} agent specs (or one for all), got {len(specs)}"
            )
        if invalid_action not in INVALID_ACTION_MODES:
            modes = ", ".join(INVALID_ACTION_MODES)
            raise ConfigError(f"invalid_action must be one of {modes}, not {invalid_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be 'ansi' or None, not {render_mode!r}")
        self.seat, self.render_mode, self.invalid_action = seat, render_mode, invalid_action
        self.penalty = float(self.game.info.utility_range[0] if penalty is None else penalty)
        self._registry = entry.load_agents(self.game)
        for spec in specs:
            self._registry.resolve(spec)  # a bad spec fails here, naming itself
        self._specs = specs
        self._encode = observation_encoder(game, self.game)
        self._actions = action_adapter(self.game)
        self._others = [s for s in range(n) if s != seat]
        self._start(0)
        size = self._encode(self.state, seat).shape
        self.observation_space = gymnasium.spaces.Dict({
            "observation": observation_box(game, size),
            "action_mask": gymnasium.spaces.Box(0, 1, shape=(self._actions.n,), dtype=np.int8),
        })
        self.action_space = gymnasium.spaces.Discrete(self._actions.n)

    # ---- the episode ---------------------------------------------------------------------------
    def _start(self, seed: int) -> None:
        self._rng = as_generator(derive_seed(seed, 0))
        self._agents: dict[int, Agent] = {
            s: self._registry.make(spec, seed=derive_seed(seed, 1, s))
            for s, spec in zip(self._others, self._specs, strict=True)
        }
        self._over = False
        self.state: State = self.game.new_initial_state()
        self._play_others()
        while self.state.is_terminal():  # the game ended before the learner's first move: redeal
            self.state = self.game.new_initial_state()
            self._play_others()

    def _play_others(self) -> None:
        """Chance and the opponents' moves, until the learner is to move or the game is over."""
        state = self.state
        while not state.is_terminal():
            player = state.current_player()
            if state.is_chance_node():
                state.apply_chance(self._rng)
            elif player == self.seat:
                return
            else:
                state.apply(self._agents[player].act(state.observation(player), state.legal_actions()))

    def _observe(self) -> dict[str, np.ndarray]:
        to_move = self.state.current_player() == self.seat
        mask = self._actions.mask(self.state) if to_move else np.zeros(self._actions.n, dtype=np.int8)
        return {"observation": self._encode(self.state, self.seat), "action_mask": mask}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        # paiju seeds everything: an env never seeded starts from seed 0, not from OS entropy
        super().reset(seed=0 if seed is None and self._np_random is None else seed)
        # without a seed, the next episode is drawn from the env's own seeded generator
        self._start(int(self.np_random.integers(2**62)) if seed is None else seed)
        return self._observe(), {}

    def step(self, action: np.int64 | int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self._over or self.state.is_terminal():
            raise IllegalMoveError("the episode is over: call reset()")
        try:
            move = self._actions.decode(self.state, int(action))
        except IllegalMoveError:
            if self.invalid_action == "raise":
                raise
            self._over = True
            return self._observe(), self.penalty, True, False, {"illegal_action": True}
        self.state.apply(move)
        self._play_others()
        done = self.state.is_terminal()
        reward = float(self.state.returns()[self.seat]) if done else 0.0
        return self._observe(), reward, done, False, {"illegal_action": False}

    def render(self) -> str | None:
        return str(self.state) if self.render_mode == "ansi" else None


def make(
    game: str, seat: int = 0, opponents: Sequence[str] = ("random",), **rule_options: Any,
) -> PaijuSingleAgentEnv:
    """The single-agent environment of ``game`` for ``seat`` against agents ``opponents`` (specs
    of the game's registry); ``invalid_action``, ``penalty`` and ``render_mode`` are env options,
    the other keywords the game's rule options."""
    return PaijuSingleAgentEnv(game, seat, opponents, **rule_options)


__all__ = ["INVALID_ACTION_MODES", "PaijuSingleAgentEnv", "make"]
