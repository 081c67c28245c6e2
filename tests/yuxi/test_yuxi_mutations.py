"""Injected bugs: hand-written mutations of the yuxi engine, each of which the rules oracle
must flag, naming the rule at fault, within a CI-sized fuzz run (and, for the talk's fog-order
bug, within a short self-play audit).

The mutations are written here, against the engine's public seams (``effect_overrides``) or by
monkeypatching one name of :mod:`paiju.yuxi.game`; the oracle (:mod:`paiju.yuxi.oracle`) is not
told which one is active. ``positions`` bounds the fuzz run; the test stops at the first finding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from effect_mutants import damage_through_armour, heal_without_cap  # tests/yuxi/, on the path

from paiju.yuxi import effects as fx
from paiju.yuxi import game as engine
from paiju.yuxi.audit import run_audit
from paiju.yuxi.effects import FOG, halve, mint, pay, resolve_deaths
from paiju.yuxi.game import YuxiState
from paiju.yuxi.oracle.fuzz import run_fuzz


# ---- the mutations ------------------------------------------------------------------------------
def fog_before_deploy(self: YuxiState, cid: int, target: int) -> None:
    """The talk's order-of-effects bug: a newcomer in fog is halved *before* its deploy
    effects (6 halved to 3, then eating 8 gives 11) instead of after (14 halved to 7)."""
    c = self.cards[cid]
    assert c is not None
    if not c.is_character:
        return ORIGINAL_PLAY(self, cid, target)
    p = self.to_move
    if c.cost:
        pay(self, p, c.cost)
    self.hand[p].remove(cid)
    if not c.is_void:
        self.played = True
    self.acted = True
    self.skipped[0] = self.skipped[1] = False
    self.card[target], self.owner[target] = cid, p
    self.power[target] = self.base[target] = c.points
    self.armour[target], self.coins[target], self.cd[target] = c.armour, c.coins, c.cooldown
    self.score[p] += c.points
    if c.coins:
        mint(self, c.coins)
    if self.weather[target] == FOG:
        halve(self, target)
        resolve_deaths(self)
    for fn, kw in c.on_deploy:
        fn(self, p, target, **kw)
        resolve_deaths(self)


ORIGINAL_PLAY = YuxiState._play


def recycle_with_discount(st: YuxiState, owner: int, cell: int, max: int, card: int) -> None:
    """The talk's bookkeeping bug: the payment discount also applied to recycling."""
    taken = 0
    for n in range(len(st.card)):
        if taken < max and st.card[n] and st.owner[n] == owner and st.coins[n]:
            took = min(max - taken, st.coins[n])
            st.coins[n] -= took
            taken += took
    extra = fx.discount_of(st, owner) if taken else 0
    for _ in range(taken + extra):
        fx.add_to_hand(st, owner, card, minted=False)


def deaths_below_zero_only(st: YuxiState) -> None:
    card, power = st.card, st.power
    while True:
        for cell in range(len(card)):
            if card[cell] and power[cell] < 0:  # a character at exactly 0 points survives
                fx.destroy(st, cell)
                break
        else:
            return


def die_for_seat_1(self: YuxiState) -> tuple[int, int]:
    return self.score[0], self.score[1] + self.bonus


Patch = Callable[[pytest.MonkeyPatch], None]


def overrides(**fns: Any) -> tuple[dict[str, Any], Patch | None]:
    return fns, None


def patch(target: Any, name: str, value: Any) -> tuple[dict[str, Any], Patch]:
    return {}, lambda mp: mp.setattr(target, name, value)


MUTATIONS: dict[str, tuple[tuple[dict[str, Any], Patch | None], str, tuple[str, ...] | None, int]] = {
    # name: (how, effect the finding must name, fuzz targets (None: all), positions at most)
    "fog halved before eating": (patch(YuxiState, "_play", fog_before_deploy), "fog", None, 3000),
    "thunder deals 1": (patch(engine, "THUNDER_DAMAGE", 1), "thunder", None, 2000),
    "erosion stopped by armour": (patch(engine, "drain", fx.damage), "erosion", None, 2000),
    "discount on recycling": (
        overrides(recycle_coins=recycle_with_discount),
        "recycle_coins",
        ("recycle_coins",),
        2000,
    ),
    "heal above starting points": (
        overrides(heal_allies=heal_without_cap),
        "heal_allies",
        ("heal_allies",),
        2000,
    ),
    "armour ignored by damage": (
        overrides(damage_adjacent_enemies=damage_through_armour),
        "damage_adjacent_enemies",
        ("damage_adjacent_enemies",),
        2000,
    ),
    "ice does not freeze": (patch(engine, "ICE", 99), "ice", None, 3000),
    "no death at 0 points": (patch(engine, "resolve_deaths", deaths_below_zero_only), "death", None, 3000),
    "swap offer never 4": (patch(engine, "MAX_OFFER", 2), "swap offer", None, 3000),
    "die added to seat 1": (patch(YuxiState, "final_scores", die_for_seat_1), "die", ("die",), 2000),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_the_oracle_flags_each_injected_bug_naming_the_rule(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (fns, apply_patch), effect, targets, positions = MUTATIONS[name]
    if apply_patch is not None:
        apply_patch(monkeypatch)
    report = run_fuzz(positions, seed=11, effect_overrides=fns, targets=targets, stop_at_first=True)
    assert report.findings, f"{name}: not flagged in {positions} fuzz positions"
    found = report.findings[0]
    assert found.effect == effect, found.describe()
    assert f"effect at fault: {effect}" in found.detail


def test_the_clean_engine_passes_the_same_fuzz_run() -> None:
    report = run_fuzz(600, seed=11)
    assert report.clean, report.findings[0].describe() if report.findings else ""


def test_a_short_self_play_audit_flags_the_fog_order_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    # the issue: with only the conservation invariants, this bug went unflagged in 300 audit games
    monkeypatch.setattr(YuxiState, "_play", fog_before_deploy)
    report = run_audit(120, seed=1, agent_pairs=(("random", "random"),))
    assert report.violations
    v = report.violations[0]
    assert v.invariant == "rules:fog" and "effect at fault: fog" in v.detail
    assert v.moves[v.step].startswith("play ")
