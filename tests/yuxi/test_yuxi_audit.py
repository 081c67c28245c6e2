"""The self-play audit: clean on the real rules; a deliberately buggy effect is caught and the
reported case replays from its move list and from its seed."""

from __future__ import annotations

from pathlib import Path

import pytest

from paiju.core.errors import CorruptRecordError
from paiju.yuxi.audit import load_report, replay_moves, replay_seed, replay_violation, run_audit
from paiju.yuxi.effects import _has_title
from paiju.yuxi.game import YuxiState
from paiju.yuxi.invariants import InvariantViolation


def boost_forgetting_the_score(st: YuxiState, owner: int, cell: int, amount: int, title: str) -> None:
    """The injected bug: Tide Caller / Drillmaster raise points without telling the score."""
    for n in st.shape.neighbours[cell]:
        if st.owner[n] == owner and _has_title(st, n, title):
            st.power[n] += amount


def eat_leaving_no_corpse(st: YuxiState, owner: int, cell: int, title: str) -> None:
    """Another injected bug: eating removes the prey without sending it to the grave."""
    from paiju.yuxi.effects import boost, remove_unit

    prey = [n for n in st.shape.neighbours[cell] if _has_title(st, n, title)]
    if prey:
        gained = st.power[prey[0]]
        remove_unit(st, prey[0])
        boost(st, cell, gained)


def test_audit_of_the_real_rules_is_clean() -> None:
    report = run_audit(
        9,
        seed=1,
        agent_pairs=(
            ("random", "random"),
            ("greedy", "greedy"),
            ("mcts:simulations=6", "mcts:simulations=6"),
        ),
    )
    assert report.clean, [v.describe() for v in report.violations]
    assert report.games == 9 and report.steps > 9 * 20
    assert set(report.games_by_agents) == {
        "random vs random",
        "greedy vs greedy",
        "mcts:simulations=6 vs mcts:simulations=6",
    }


@pytest.mark.parametrize(
    ("effect", "bug", "invariant"),
    [
        ("boost_adjacent_allies", boost_forgetting_the_score, "score"),
        ("eat_adjacent", eat_leaving_no_corpse, "cards"),
    ],
)
def test_an_injected_bug_is_caught_and_replays(
    effect: str, bug: object, invariant: str, tmp_path: Path
) -> None:
    overrides = {effect: bug}
    report = run_audit(
        24,
        seed=5,
        decks=("tide_guild", "crab_feast", "storm_iron"),
        agent_pairs=(("random", "random"), ("greedy", "greedy")),
        effect_overrides=overrides,
    )  # type: ignore[arg-type]
    assert report.violations, "the audit missed the injected bug"
    v = report.violations[0]
    assert v.invariant == invariant
    assert v.step == len(v.moves) - 1
    # the move list alone replays it, failing at the same move with the same invariant
    _, step, err = replay_violation(v, effect_overrides=overrides)  # type: ignore[arg-type]
    assert isinstance(err, InvariantViolation) and err.invariant == invariant and step == v.step
    # with the bug fixed (the real effect) the same moves are clean
    _, step, err = replay_moves(v.config(), v.moves)
    assert err is None and step == len(v.moves)
    # the seed replays the same game through the agents
    moves, err = replay_seed(v, effect_overrides=overrides)  # type: ignore[arg-type]
    assert moves == v.moves and isinstance(err, InvariantViolation)
    # and the report survives a round trip through its JSON file
    path = tmp_path / "audit.json"
    report.save(path)
    loaded = load_report(path)
    assert loaded.violations[0] == v
    assert "broke" in v.describe() and str(v.seed) in v.describe()


def test_a_corrupt_report_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"games": 3}', encoding="utf-8")
    with pytest.raises(CorruptRecordError, match="not a yuxi audit report"):
        load_report(path)
