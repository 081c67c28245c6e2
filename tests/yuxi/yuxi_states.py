"""Positions of random yuxi games and encoding comparison, shared by the encoder tests."""

from __future__ import annotations

import numpy as np

from paiju.yuxi.game import YuxiGame, YuxiState


def random_states(game: YuxiGame, seed: int, games: int) -> list[YuxiState]:
    """Every state (chance nodes included) of a few uniform random games."""
    rng = np.random.default_rng(seed)
    out: list[YuxiState] = []
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            out.append(s.clone())
            if s.is_chance_node():
                s.apply(s.sample_chance(rng))
            else:
                legal = s.legal_actions()
                s.apply(legal[int(rng.integers(len(legal)))])
    return out


def same_encoding(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether two encodings (board planes, vector) are equal."""
    return bool(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]))
