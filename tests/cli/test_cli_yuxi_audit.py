"""`paiju yuxi audit`'s fuzzer never crashes the audit: a position it cannot build is a counted
skip, reported in the text and JSON output (issue 43: `--seed 5` crashed the clean engine)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paiju.cli.main import run
from paiju.yuxi.oracle import fuzz


def test_the_builder_builds_the_merchant_prince_position_that_crashed_seed_5() -> None:
    # position 246 of seed 5 targets the Merchant Prince's deploy; the builder used to put the
    # only copy on the board (or leave the purse short of its cost 2) in all 20 attempts
    target, state, action = fuzz.fuzz_case(5, 246)
    assert target == "boost_allies_by_coins"
    assert state.action_to_string(action).startswith("play merchant_prince@")


def test_every_deploy_target_builds_on_the_first_attempts() -> None:
    """Each card effect played from the hand builds in most attempts: the acting card is held
    back from the random board and the mover can pay for it (independent count of failures)."""
    fz = fuzz._Fuzzer(0, ["3x3", "4x4", "6x4"], None)
    failed = 0
    for i in range(60):
        rng = fuzz.as_generator(fuzz.derive_seed(7, i))
        if fz._build(rng, "boost_allies_by_coins") is None:
            failed += 1
    assert failed <= 12, failed  # was ~40 of 60 before the fix


@pytest.fixture
def unbuildable(monkeypatch: pytest.MonkeyPatch) -> str:
    """A builder that can never build the die rule's positions."""
    real = fuzz._Fuzzer._build

    def build(self: fuzz._Fuzzer, rng: np.random.Generator, target: str) -> object:
        return None if target == "die" else real(self, rng, target)

    monkeypatch.setattr(fuzz._Fuzzer, "_build", build)
    return "die"


def test_a_position_the_fuzzer_cannot_build_is_a_counted_skip(unbuildable: str) -> None:
    report = fuzz.run_fuzz(60, seed=1)
    n_targets = len(fuzz.fuzz_targets(fuzz._Fuzzer(1, ["4x4"], None).base))
    # round robin: the die is one target in n, so indices 0..59 hold 60 // n or more of it
    want = sum(1 for i in range(60) if i % n_targets == n_targets - 1)
    assert report.skipped == {unbuildable: want}
    assert report.positions == 60 - want and report.clean


def test_audit_reports_skipped_positions_in_text_and_json(
    unbuildable: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["yuxi", "audit", "--games", "2", "--fuzz", "40", "--seed", "5", "--search", "random"]
    assert run([*base, "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)["fuzz"]
    assert data["skipped"] == {"die": 1} and data["positions"] == 39, data
    assert run(base) == 0
    out, err = capsys.readouterr()
    assert "skipped 1 position the fuzzer could not build: die 1" in out, out
    assert "Traceback" not in out + err


def test_audit_seed_5_runs_past_position_246(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["yuxi", "audit", "--games", "2", "--seed", "5", "--search", "random", "--fuzz", "250", "--json"]
    assert run(argv) == 0
    data = json.loads(capsys.readouterr().out)["fuzz"]
    assert data["positions"] + sum(data["skipped"].values()) == 250 and data["findings"] == []
