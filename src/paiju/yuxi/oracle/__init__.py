"""An independent rules oracle for yuxi, written from ``docs/yuxi-rules.md``.

From the state before a step and the step's action, :func:`expected_after` derives what the
step must produce — points, armour, deaths, bounties, coins, cooldowns, hands, decks, graves,
weather, whose turn, who is finished — by re-deriving every rule in its own code: the order
eat → fog halving, armour before damage, deaths after each effect, the discount on payments
only, heal caps, swap offers, the die. :func:`check_step` compares that with what the engine
produced and raises :class:`RuleViolation` (an
:class:`~paiju.yuxi.invariants.InvariantViolation`, so the audit reports it like any other)
naming the card, the effect at fault and expected vs actual.

Independence is enforced: an import-linter contract (``[tool.importlinter]`` in
pyproject.toml, run by ``tests/yuxi/test_yuxi_oracle_independence.py``) forbids this package
to import the engine's effect, card and game modules, directly or indirectly; the oracle
reads the card table and the state only through their public attributes.
"""

from __future__ import annotations

from paiju.yuxi.oracle.check import RuleViolation, check_step, expected_after, explain

__all__ = ["RuleViolation", "check_step", "expected_after", "explain"]
