"""Audits that also check the states agents visit inside their searches (``in_search``):
they find injected bugs that the same games' moves never reach, say where, and replay them;
on the clean engine they find nothing (the determinized states of a search are consistent)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from effect_mutants import damage_through_armour, heal_without_cap  # tests/yuxi/, on the path
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.yuxi.audit import replay_seed, replay_violation, run_audit
from paiju.yuxi.invariants import InvariantViolation
from paiju.yuxi.oracle.check import RULE_COVERAGE

SEARCH = (("mcts:simulations=16", "mcts:simulations=16"),)


@pytest.mark.parametrize(
    ("effect", "mutant"),
    [("heal_allies", heal_without_cap), ("damage_adjacent_enemies", damage_through_armour)],
)
def test_search_checks_flag_bugs_the_games_own_moves_miss(effect: str, mutant: Any) -> None:
    fns = {effect: mutant}
    played_only = run_audit(6, seed=3, boards=("3x3",), agent_pairs=SEARCH, effect_overrides=fns)
    assert played_only.clean  # six games' own moves never hit the bug ...
    report = run_audit(6, seed=3, boards=("3x3",), agent_pairs=SEARCH, effect_overrides=fns, in_search=True)
    assert report.violations  # ... the states their searches visited did
    v = report.violations[0]
    assert v.in_search and v.invariant == f"rules:{effect}" and f"effect at fault: {effect}" in v.detail
    assert f"inside the search for move {v.step}" in v.describe() and len(v.moves) == v.step
    # the game's moves up to that decision are clean; the seeded game, searches checked, fails again
    _, step, err = replay_violation(v, effect_overrides=fns)
    assert err is None and step == v.step
    moves, again = replay_seed(v, effect_overrides=fns)
    assert moves == v.moves and isinstance(again, InvariantViolation)
    assert again.invariant == v.invariant and again.detail == v.detail


def test_the_clean_engine_passes_a_search_checked_audit_that_checks_many_more_steps() -> None:
    pairs = (*SEARCH, ("greedy", "greedy"))
    RULE_COVERAGE.clear()
    plain = run_audit(4, seed=5, boards=("3x3",), agent_pairs=pairs)
    checked_plain = sum(RULE_COVERAGE.values())
    RULE_COVERAGE.clear()
    searched = run_audit(4, seed=5, boards=("3x3",), agent_pairs=pairs, in_search=True)
    checked_search = sum(RULE_COVERAGE.values())
    assert plain.clean and searched.clean, [v.describe() for v in searched.violations]
    assert searched.steps == plain.steps  # the same games ...
    assert checked_search > 5 * checked_plain  # ... and far more rule applications checked


def test_the_cli_flag(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = CliRunner().invoke(
        app,
        ["yuxi", "audit", "--games", "2", "--boards", "3x3", "--search", "mcts:simulations=8",
         "--fuzz", "0", "--in-search", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["violations"] == []


def test_replaying_a_search_violation_from_the_cli(tmp_path: Path) -> None:
    fns = {"damage_adjacent_enemies": damage_through_armour}
    report = run_audit(1, seed=3, boards=("3x3",), agent_pairs=SEARCH, effect_overrides=fns, in_search=True)
    assert report.violations and report.violations[0].in_search
    report.save(tmp_path / "r.json")
    # the command replays on the shipped (correct) engine: the decision is reached, and the
    # seeded game's searches now pass, which is what a fixed bug looks like
    result = CliRunner().invoke(app, ["yuxi", "replay", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    assert "inside the search for move" in result.output
    assert "searches replayed with no violation" in result.output
