"""Mutations of yuxi effect functions that more than one test injects (through
``effect_overrides``): the oracle's fuzz tests and the search-checked audit's tests."""

from __future__ import annotations

from paiju.yuxi import effects as fx
from paiju.yuxi.game import YuxiState


def heal_without_cap(st: YuxiState, owner: int, cell: int, amount: int) -> None:
    for n in range(len(st.card)):
        if st.card[n] and st.owner[n] == owner and st.power[n] < st.base[n]:
            fx.boost(st, n, amount)  # may heal above the starting points


def damage_through_armour(st: YuxiState, owner: int, cell: int, amount: int) -> None:
    for n in st.shape.neighbours[cell]:
        if st.card[n] and st.owner[n] != owner:
            fx.drain(st, n, amount)  # armour ignored
