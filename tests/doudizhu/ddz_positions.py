"""Seeded random Dou Dizhu positions for the agent tests (not a test module)."""

from __future__ import annotations

import numpy as np

from paiju.doudizhu.game import DouDizhuGame, DouDizhuState


def random_positions(n: int, seed: int) -> list[DouDizhuState]:
    """``n`` positions reached by 0-29 random moves from random deals, each with a choice to make."""
    game = DouDizhuGame()
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        state = game.new_state_from_deal(game.new_initial_state().sample_chance(rng))
        for _ in range(int(rng.integers(0, 30))):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            out.append(state)
    return out
