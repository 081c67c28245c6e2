"""Agent-spec parsing/validation, seeds and confidence intervals (hand-checked values)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paiju.core.agents import AgentRegistry, UniformRandomAgent, parse_agent_spec
from paiju.core.errors import ConfigError
from paiju.core.rng import as_generator, derive_seed
from paiju.core.stats import mean_ci, proportion_ci


def _registry() -> AgentRegistry:
    reg = AgentRegistry("testgame")
    reg.register("random", lambda seed, **kw: UniformRandomAgent(seed), {})
    defaults = {"budget": 200, "c": 1.4, "fast": True}
    reg.register(
        "search", lambda seed, **kw: UniformRandomAgent(seed), defaults,
        limits={"budget": (1, 10_000), "c": (0.0, 10.0)},
    )
    return reg


def test_parse_spec_splits_name_and_params() -> None:
    assert parse_agent_spec("search:budget=50,c=2.0") == ("search", {"budget": "50", "c": "2.0"})
    assert parse_agent_spec(" random ") == ("random", {})


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("search:budget", "not key=value"),
        ("search:budget=1,budget=2", "given twice"),
        ("nosuch", "unknown testgame agent 'nosuch'"),
        ("search:depth=3", "unknown parameter 'depth'"),
        ("search:budget=lots", "not a valid int"),
        ("search:fast=maybe", "not a valid bool"),
    ],
)
def test_bad_specs_name_the_problem(text: str, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        _registry().resolve(text)


def test_resolve_types_parameters() -> None:
    spec = _registry().resolve("search:budget=50,c=0.5,fast=no")
    assert spec.params == {"budget": 50, "c": 0.5, "fast": False}
    assert str(spec) == "search:budget=50,c=0.5,fast=False"


def test_random_agent_is_seeded() -> None:
    legal = list(range(10))
    a, b = UniformRandomAgent(3), UniformRandomAgent(3)
    assert [a.act(None, legal) for _ in range(20)] == [b.act(None, legal) for _ in range(20)]


def test_seeds_are_stable_and_distinct() -> None:
    assert derive_seed(1, 2) == derive_seed(1, 2)
    assert len({derive_seed(1, i) for i in range(1000)}) == 1000
    assert 0 <= derive_seed(2**70, 5) < 2**63
    with pytest.raises(TypeError):
        as_generator("7")  # type: ignore[arg-type]
    g = np.random.default_rng(1)
    assert as_generator(g) is g


def test_wilson_interval_hand_checked() -> None:
    # 8/10: Wilson 95% interval is (0.4902, 0.9433) (standard tables)
    est = proportion_ci(8, 10)
    assert est.value == 0.8
    assert math.isclose(est.low, 0.4902, abs_tol=1e-4)
    assert math.isclose(est.high, 0.9433, abs_tol=1e-4)
    zero = proportion_ci(0, 20)
    assert zero.low == 0.0 and 0.15 < zero.high < 0.17


def test_mean_interval_hand_checked() -> None:
    est = mean_ci([1.0, 2.0, 3.0, 4.0])
    # sd = 1.2910, se = 0.6455, half = 1.96 * se = 1.2652
    assert est.value == 2.5
    assert math.isclose(est.half_width, 1.2652, abs_tol=1e-3)


def test_pair_correlation_against_hand_and_known_models() -> None:
    from paiju.core.stats import pair_correlation

    # by hand: pair means 1, 0, .5, .5; MSB = 2·(.25+.25)/3 = 1/3, MSW = 2/8; ICC = (1/12)/(7/12)
    assert math.isclose(pair_correlation([1, 0, 1, 0], [1, 0, 0, 1]).value, 1 / 7)
    same = pair_correlation([1, 0, 0.5, 1], [1, 0, 0.5, 1])
    assert same.value == 1.0 and same.low == 1.0
    rng = as_generator(3)
    # a shared component of variance 1 and noise of variance 1 per replay: ICC 0.5
    deal = rng.normal(size=4000)
    est = pair_correlation(deal + rng.normal(size=4000), deal + rng.normal(size=4000))
    assert est.low < 0.5 < est.high and est.high - est.low < 0.08
    # nothing shared: about 0
    free = pair_correlation(rng.normal(size=4000), rng.normal(size=4000))
    assert free.low < 0.0 < free.high
    assert math.isnan(pair_correlation([1, 1, 1], [1, 1, 1]).value)
    with pytest.raises(ValueError, match="equal-length"):
        pair_correlation([1, 2], [1])


def test_an_estimate_says_honestly_when_it_has_no_sample_or_no_interval() -> None:
    """No sample: no value (JSON null, '—'); one sample of a mean: a value, no interval (null
    bounds, '(1 hand)'); never NaN or Infinity in JSON, never 'nan%' or '± inf' in text."""
    import json

    none, one, two = mean_ci([]), mean_ci([300.0]), mean_ci([100.0, 300.0])
    assert none.as_dict() == {"value": None, "low": None, "high": None, "n": 0}
    assert one.as_dict() == {"value": 300.0, "low": None, "high": None, "n": 1}
    json.loads(json.dumps([none.as_dict(), one.as_dict()]), parse_constant=lambda c: 1 / 0)
    assert none.text() == "—" and proportion_ci(0, 0).text(percent=True) == "—"
    assert one.text("+.0f", unit="hand") == "+300 (1 hand)"
    half = 1.959963984540054 * (100 * 2**0.5) / 2**0.5  # z * s / sqrt(n), s = 141.4, n = 2
    assert two.text("+.0f") == f"+200 ± {half:.0f}"
    rate = proportion_ci(1, 4)
    assert rate.text(".1f", interval=True, percent=True) == (
        f"25.0% [{100 * rate.low:.1f}, {100 * rate.high:.1f}]")


def test_a_name_that_changed_meaning_keeps_its_old_agent_under_a_versioned_name() -> None:
    """One name per idea (docs/design.md): a redefined name has a higher revision, the old
    agent stays under a versioned name marked superseded, and a parameter the name dropped
    is refused with what to write instead."""
    reg = AgentRegistry("testgame")
    reg.register("search", lambda seed, **kw: UniformRandomAgent(seed), {"budget": 200},
                 limits={"budget": (1, 10_000)}, revision=2, removed={"mode": "mode=fast is search-fast"})
    reg.register("search-v1", lambda seed, **kw: UniformRandomAgent(seed), {"budget": 200, "mode": "slow"},
                 limits={"budget": (1, 10_000)}, superseded_by="search")
    assert reg.revision("search") == 2 and reg.revision("search-v1") == 1
    listing = {e["name"]: e for e in reg.catalogue()}
    assert listing["search-v1"]["superseded_by"] == "search" and "superseded_by" not in listing["search"]
    with pytest.raises(ConfigError, match="search no longer takes mode: mode=fast is search-fast"):
        reg.resolve("search:mode=fast")
    with pytest.raises(ConfigError, match="unknown parameter 'speed'"):
        reg.resolve("search:speed=1")
    assert str(reg.resolve("search-v1:mode=fast")) == "search-v1:mode=fast"


def test_a_spec_recorded_before_a_name_changed_resolves_to_the_kept_agent() -> None:
    reg = AgentRegistry("testgame")
    reg.register("search", lambda seed, **kw: UniformRandomAgent(seed), {"budget": 200},
                 limits={"budget": (1, 10_000)}, revision=2)
    reg.register("search-v1", lambda seed, **kw: UniformRandomAgent(seed), {"budget": 200, "mode": "slow"},
                 limits={"budget": (1, 10_000)}, superseded_by="search", was="search")
    assert str(reg.recorded("search:mode=fast")) == "search-v1:mode=fast"
    assert str(reg.recorded("search")) == "search-v1"
    assert str(reg.resolve("search:budget=5")) == "search:budget=5"  # today's meaning
