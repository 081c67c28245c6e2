"""Comparing what a step produced with what the rules say it must produce."""

from __future__ import annotations

from collections import Counter
from typing import Any

from paiju.yuxi.invariants import InvariantViolation
from paiju.yuxi.oracle.model import (
    CELL_FIELDS,
    OVER,
    SCALAR_FIELDS,
    VIEW_FIELDS,
    WEATHER_NAMES,
    Position,
    View,
    snapshot,
)
from paiju.yuxi.oracle.step import apply

EngineTrace = list[tuple[str, View, View]]
COVERAGE_RULES = ("fog", "thunder", "erosion", "ice", "discount")
RULE_COVERAGE: Counter[str] = Counter()
"""Rules applied in every step the oracle checked in this process (effects by name, weather
rules, the discount); reset it with ``RULE_COVERAGE.clear()`` before a run to count that run."""


def applied_rules(events: list[str]) -> Counter[str]:
    """Effects (by name) and weather / discount rules among a step's events."""
    out: Counter[str] = Counter()
    for e in events:
        name = e.rsplit(": ", 1)[-1]
        if ": " in e or name in COVERAGE_RULES:
            out[name] += 1
    return out


_PLAYER_PARTS = {"hand": "hand", "deck": "deck", "grave": "grave", "voids": "hand", "purse": "purse"}


class RuleViolation(InvariantViolation):
    """A step did not do what ``docs/yuxi-rules.md`` says. ``invariant`` is ``"rules:<effect>"``
    (the audit reports it like any invariant); ``effect`` names the rule at fault (the last one
    that visited the wrong value), ``candidates`` every rule that visited it, in order."""

    def __init__(
        self, effect: str, candidates: list[str], action: str, what: str, expected: Any, actual: Any
    ) -> None:
        detail = (
            f"{action}: {what} expected {expected!r}, engine gave {actual!r} "
            f"(effect at fault: {effect}; rules that touched it: {' -> '.join(candidates) or '-'})"
        )
        super().__init__(f"rules:{effect}", detail)
        self.effect = effect
        self.candidates = candidates
        self.action = action
        self.what = what
        self.expected = expected
        self.actual = actual


def expected_after(before: Any, action: Any) -> Position:
    """The position the rules say ``action`` leads to from state ``before`` (left unchanged)."""
    pos = snapshot(before)
    apply(pos, action, before.game.actions.decode)
    return pos


def check_step(before: Any, action: Any, after: Any, engine_trace: EngineTrace | None = None) -> Position:
    """Raise :class:`RuleViolation` if ``after`` is not what the rules derive from ``before``
    and ``action``; returns the oracle's position (its ``events`` say which rules applied).

    ``engine_trace``: the engine's (effect name, board before, board after) for each effect it
    applied in the step; the first effect whose result differs from the rules' is named."""
    want = expected_after(before, action)
    got = snapshot(after)
    label = before.action_to_string(action)
    verified = False
    if engine_trace is not None:
        verified = _compare_traces(want, list(engine_trace), label)
    # a value some rule visited comes first: an engine change where no rule acts is most often a
    # consequence (a skill that should not have fired), the visited one its cause
    diffs = sorted(_differences(want, got), key=lambda d: d[1] not in want.touched)
    for what, key, exp, act in diffs:
        seen = want.touched.get(key, [])
        raise RuleViolation(_culprit(want, got, key, what, seen, verified), seen, label, what, exp, act)
    if want.phase == OVER:
        _check_result(want, after, label)
    RULE_COVERAGE.update(applied_rules(want.events))
    return want


def _compare_traces(want: Position, engine: EngineTrace, label: str) -> bool:
    """Walk the effects the rules and the engine applied, in order; raise at the first effect
    that started from the same board but ended on a different one. True when every effect
    matched (the fault, if any, is then in a rule between effects: fog, weather, deaths, turns)."""
    for i, (rule, name, start, end) in enumerate(want.trace):
        if i >= len(engine):
            return False
        e_name, e_start, e_end = engine[i]
        if e_name != name or e_start != start:
            return False  # the engine went another way before this effect
        if e_end != end:
            field, exp, act = _view_difference(want, end, e_end)
            raise RuleViolation(name, [rule], label, f"after {rule}: {field}", exp, act)
    return len(engine) == len(want.trace)


def _view_difference(want: Position, exp: View, act: View) -> tuple[str, Any, Any]:
    geo = want.rules.geo
    for name, e, a in zip(VIEW_FIELDS, exp, act, strict=True):
        if e == a:
            continue
        if name in ("hand 0", "hand 1") or name == "purse":
            return name, list(e), list(a)
        cell = next(i for i in range(len(e)) if e[i] != a[i])
        return f"cell {geo.name(cell)} {name}", e[cell], a[cell]
    return "board", exp, act


def explain(
    before: Any, action: Any, after: Any, err: InvariantViolation, engine_trace: EngineTrace | None = None
) -> InvariantViolation:
    """``err`` (an invariant that failed on this step) with the oracle's finding added, so the
    report names the effect at fault as well as the broken invariant."""
    try:
        check_step(before, action, after, engine_trace)
    except RuleViolation as found:
        return InvariantViolation(err.invariant, f"{err.detail}; rules oracle: {found.detail}", found.effect)
    except Exception:  # the oracle cannot follow a state the engine already broke
        return err
    return err


def _culprit(
    want: Position, got: Position, key: tuple[str, int], what: str, seen: list[str], verified: bool
) -> str:
    """The rule to blame: a character the rules kill but the engine kept is the death rule's
    fault; otherwise the last rule that visited the wrong value, deaths aside (a death only
    follows from the points the rules before it set) and effects aside when every effect was
    checked one by one (``verified``)."""
    if key[0] == "cell" and what.endswith(" card"):
        cell = key[1]
        if not want.card[cell] and got.card[cell] and got.power[cell] <= 0:
            return "death"
    rules = [r for r in seen if r != "death" and not (verified and ": " in r)]
    if rules:
        return _effect_name(rules[-1])
    if seen:
        return "death"
    return _effect_name(want.events[-1]) if want.events else "step"


def _effect_name(context: str) -> str:
    """``"reef_crab deploy: eat_adjacent"`` -> ``"eat_adjacent"``; weather and turn rules as named."""
    return context.rsplit(": ", 1)[-1]


def _differences(want: Position, got: Position) -> list[tuple[str, tuple[str, int], Any, Any]]:
    out: list[tuple[str, tuple[str, int], Any, Any]] = []
    geo = want.rules.geo
    for cell in range(geo.cells):
        for name in CELL_FIELDS:
            exp, act = getattr(want, name)[cell], getattr(got, name)[cell]
            if exp != act:
                if name == "weather":
                    exp, act = WEATHER_NAMES[exp], WEATHER_NAMES[act]
                key = (
                    want.rules.card(want.card[cell] or got.card[cell]).key
                    if (want.card[cell] or got.card[cell])
                    else "empty"
                )
                out.append((f"cell {geo.name(cell)} ({key}) {name}", ("cell", cell), exp, act))
    for name, part in _PLAYER_PARTS.items():
        for p in (0, 1):
            exp, act = getattr(want, name)[p], getattr(got, name)[p]
            if exp != act:
                out.append((f"player {p}'s {name}", (part, p), exp, act))
    for name in ("score", "out", "skipped"):
        if getattr(want, name) != getattr(got, name):
            out.append((name, ("turn", 0), getattr(want, name), getattr(got, name)))
    for name in SCALAR_FIELDS:
        if getattr(want, name) != getattr(got, name):
            out.append((name, ("turn", 0), getattr(want, name), getattr(got, name)))
    return out


def _check_result(want: Position, after: Any, label: str) -> None:
    """§8: seat 0 adds the die (when on); higher score wins, +1 / -1, a draw 0 each."""
    a, b = want.score[0] + want.bonus, want.score[1]
    expect = [1.0, -1.0] if a > b else ([-1.0, 1.0] if b > a else [0.0, 0.0])
    if list(after.returns()) != expect:
        raise RuleViolation("die", ["die", "scores"], label, "returns", expect, list(after.returns()))
