"""The independent rules oracle (paiju.yuxi.oracle): hand-checked expectations, its reports,
its switch, the fuzzer's reach, and its independence from the engine's effect code."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from paiju.yuxi import effects as fx
from paiju.yuxi.actions import DieRoll
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiState
from paiju.yuxi.invariants import InvariantViolation
from paiju.yuxi.oracle import RuleViolation, check_step, expected_after
from paiju.yuxi.oracle.fuzz import FuzzReport, fuzz_case, fuzz_targets, run_fuzz
from paiju.yuxi.scenario import scenario

ROOT = Path(__file__).resolve().parents[2]
WEATHER_RULES = ("fog", "thunder", "erosion", "ice")


def mk(
    decks: tuple[str, str],
    effect_overrides: dict[str, fx.EffectFn] | None = None,
    check_rules: bool | None = None,
) -> YuxiGame:
    cfg = YuxiConfig(board="4x4", decks=decks, die_bonus=False, swaps=False)
    return YuxiGame(cfg, check_invariants=True, check_rules=check_rules, effect_overrides=effect_overrides)


def uncapped_heal(st: YuxiState, owner: int, cell: int, amount: int) -> None:
    for n in range(len(st.card)):
        if st.card[n] and st.owner[n] == owner:
            fx.boost(st, n, amount)


def test_the_oracle_derives_the_talks_fog_example_by_hand() -> None:
    # a 2-point Reef Crab played into fog eats a 12-point King Crab: (2 + 12) // 2 = 7, not 1 + 12
    g = mk(("tide_guild", "crab_feast"))
    st = scenario(
        g,
        units={"b1": ("king_crab", 1, {"power": 12})},
        weather={"a1": "fog"},
        hands=(["reef_crab", "peddler"], ["footman"]),
    )
    action = st.parse_action("play reef_crab@a1")
    want = expected_after(st, action)
    assert want.power[0] == 7 and want.card[1] == 0 and want.grave[1][g.table.card("king_crab").id] == 1
    assert [e for e in want.events if e in ("reef_crab deploy: eat_adjacent", "fog")] == [
        "reef_crab deploy: eat_adjacent",
        "fog",
    ]
    assert st.power[0] == 0  # expected_after leaves the state alone


def test_the_oracle_derives_armour_before_damage_bounties_and_the_turn_after() -> None:
    g = mk(("storm_iron", "guild_iron"))
    # Lightning on a 2-point, 1-armour Peddler standing on thunder: 3 + 2 = 5 damage, 1 absorbed
    st = scenario(
        g,
        units={"a1": ("peddler", 1, {"armour": 1}), "b1": ("footman", 0)},
        weather={"a1": "thunder"},
        hands=(["lightning"], ["footman"]),
        purses=(0, 0),
    )
    want = expected_after(st, st.parse_action("play lightning@a1"))
    assert want.card[0] == 0 and want.purse == [2, 0]  # dead; its 2 coins a bounty for seat 0
    assert want.to_move == 1 and want.out == [True, False]  # seat 0's hand is empty: finished


def test_a_rule_violation_names_the_step_card_effect_and_values() -> None:
    g = mk(("storm_iron", "tide_iron"), effect_overrides={"heal_allies": uncapped_heal})
    st = scenario(
        g, units={"a2": ("footman", 0, {"power": 1})}, hands=(["field_medic", "footman"], ["footman"])
    )
    with pytest.raises(RuleViolation) as err:
        st.apply(st.parse_action("play field_medic@a4"))
    v = err.value
    assert isinstance(v, InvariantViolation) and v.invariant == "rules:heal_allies"
    assert v.effect == "heal_allies" and v.action == "play field_medic@a4"
    assert v.expected == 1 and v.actual == 3 and "field_medic" in v.what
    assert "field_medic deploy: heal_allies" in v.candidates


def test_check_rules_false_turns_only_the_oracle_off() -> None:
    g = mk(("storm_iron", "tide_iron"), effect_overrides={"heal_allies": uncapped_heal}, check_rules=False)
    st = scenario(
        g, units={"a2": ("footman", 0, {"power": 1})}, hands=(["field_medic", "footman"], ["footman"])
    )
    st.apply(st.parse_action("play field_medic@a4"))  # the books balance: no invariant catches it
    assert st.power[12] == 3


def test_an_invariant_failure_is_explained_by_the_oracle() -> None:
    def mint_on_recycle(st: YuxiState, owner: int, cell: int, max: int, card: int) -> None:
        fx.recycle_coins(st, owner, cell, max, card)
        fx.add_to_hand(st, owner, card, minted=False)  # one Coin card from nothing

    g = mk(("tide_guild", "crab_feast"), effect_overrides={"recycle_coins": mint_on_recycle})
    st = scenario(g, units={"a1": ("peddler", 0)}, hands=(["treasurer", "reef_crab"], ["footman"]))
    with pytest.raises(InvariantViolation) as err:
        st.apply(st.parse_action("play treasurer@b2"))
    assert err.value.invariant == "coin_ledger" and err.value.effect == "recycle_coins"
    assert "rules oracle" in err.value.detail


def test_the_die_result_is_checked() -> None:
    g = YuxiGame(
        YuxiConfig(board="3x3", decks=("tempest", "tide_iron"), die_bonus=True), check_invariants=True
    )
    st = scenario(g, units={"a1": ("pickpocket", 0), "b1": ("footman", 1)}, phase="die", out=(True, True))
    want = check_step(st.clone(), DieRoll(2), _applied(st, DieRoll(2)))
    assert want.bonus == 2 and st.returns() == [1.0, -1.0]  # 2 + 2 against 3


def _applied(st: YuxiState, action: object) -> YuxiState:
    st.apply(action)
    return st


def test_fuzz_positions_replay_from_seed_and_index() -> None:
    a = fuzz_case(5, 17)
    b = fuzz_case(5, 17)
    assert a[0] == b[0] and a[2] == b[2] and a[1].observation(0) == b[1].observation(0)


def test_the_fuzzer_reaches_every_effect_and_weather_and_the_engine_agrees() -> None:
    report = run_fuzz(300, seed=3)
    assert report.clean, report.findings[0].describe() if report.findings else ""
    targets = fuzz_targets(mk(("tempest", "tide_iron")))
    assert report.short_of([t for t in targets if t != "discount"], 9) == {}
    assert report.short_of(WEATHER_RULES, 9) == {}


@pytest.mark.slow
def test_the_default_fuzz_run_reaches_everything_100_times() -> None:
    report: FuzzReport = run_fuzz(3000, seed=0)
    assert report.clean
    targets = fuzz_targets(mk(("tempest", "tide_iron")))
    assert report.short_of([*targets, *WEATHER_RULES], 100) == {}


def test_every_oracle_module_is_under_the_import_contract() -> None:
    # tests/test_layers.py runs lint-imports, which keeps the contract; here: every oracle
    # module but the fuzzer (which drives the engine) is under it
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    oracle = [c for c in contracts if "paiju.yuxi.oracle" in c.get("source_modules", ())]
    sources = {m for c in oracle for m in c["source_modules"]}
    modules = {f"paiju.yuxi.oracle.{p.stem}" for p in (ROOT / "src/paiju/yuxi/oracle").glob("*.py")}
    modules = {m.removesuffix(".__init__") for m in modules} - {"paiju.yuxi.oracle.fuzz"}
    assert modules <= sources


def test_metamorphic_the_die_only_moves_seat_0s_score() -> None:
    # no oracle derives a die roll; the relation does: a higher roll never lowers seat 0's result
    g = YuxiGame(
        YuxiConfig(board="3x3", decks=("tempest", "tide_iron"), die_bonus=True), check_invariants=True
    )
    rng = np.random.default_rng(0)
    for _ in range(20):
        p0, p1 = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        results = []
        for roll in range(1, 7):
            st = scenario(
                g,
                units={"a1": ("pickpocket", 0, {"power": p0}), "b1": ("footman", 1, {"power": p1})},
                phase="die",
                out=(True, True),
            )
            st.apply(DieRoll(roll))
            results.append(st.returns()[0])
            assert st.returns()[0] == -st.returns()[1] and st.final_scores()[1] == p1
        assert results == sorted(results)


def test_the_effect_at_fault_is_named_even_when_a_later_rule_touches_the_same_character() -> None:
    # the Field Medic heals itself above its start on an erosion cell, then the turn ends by
    # itself and erosion drains it: the engine's effects are compared one by one, so the heal
    # is named, not the erosion that came after it
    def heal_everyone_by_2(st: YuxiState, owner: int, cell: int, amount: int) -> None:
        for n in range(len(st.card)):
            if st.card[n] and st.owner[n] == owner:
                fx.boost(st, n, amount)

    g = mk(("storm_iron", "tide_iron"), effect_overrides={"heal_allies": heal_everyone_by_2})
    st = scenario(
        g, units={"b1": ("footman", 1)}, weather={"a4": "erosion"}, hands=(["field_medic"], ["footman"])
    )
    with pytest.raises(RuleViolation) as err:
        st.apply(st.parse_action("play field_medic@a4"))
    assert err.value.effect == "heal_allies" and err.value.expected == 1 and err.value.actual == 3


def test_rule_coverage_counts_what_checked_steps_applied() -> None:
    from paiju.yuxi.oracle.check import RULE_COVERAGE

    g = mk(("tide_guild", "crab_feast"))
    st = scenario(
        g,
        units={"b1": ("king_crab", 1, {"power": 12})},
        weather={"a1": "fog"},
        hands=(["reef_crab", "peddler"], ["footman"]),
    )
    RULE_COVERAGE.clear()
    st.apply(st.parse_action("play reef_crab@a1"))
    assert RULE_COVERAGE["eat_adjacent"] == 1 and RULE_COVERAGE["fog"] == 1
