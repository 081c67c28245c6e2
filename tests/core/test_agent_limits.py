"""Agent specs: every numeric parameter of every registered agent has a range, checked on entry."""

from __future__ import annotations

import pytest

from paiju.core.agents import AgentRegistry, UniformRandomAgent
from paiju.core.errors import ConfigError
from paiju.core.registry import available_games, load_agents


def _toy_registry() -> AgentRegistry:
    reg = AgentRegistry("toy")
    reg.register(
        "walker",
        lambda seed=None, steps=10, rate=0.5, mode="a": UniformRandomAgent(seed),
        {"steps": 10, "rate": 0.5, "mode": "a"},
        limits={"steps": (1, 100), "rate": (0.0, 1.0)},
        choices={"mode": ("a", "b")},
    )
    return reg


@pytest.mark.parametrize("game", available_games())
def test_every_numeric_parameter_of_every_agent_is_bounded(game: str) -> None:
    reg = load_agents(game)
    for name, (defaults, _doc) in reg.describe().items():
        limits = reg.limits(name)
        for key, value in defaults.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                lo, hi = limits[key]
                assert lo <= value <= hi, (game, name, key)
                # one past the maximum is refused, naming the parameter and the limit
                too_big = int(hi) + 1 if isinstance(value, int) else hi * 2 + 1
                with pytest.raises(ConfigError, match=rf"{key}=.* above the maximum"):
                    reg.resolve(f"{name}:{key}={too_big}")


def test_the_reported_search_budget_is_refused_with_its_limit() -> None:
    reg = load_agents("doudizhu")
    expected = r"budget=999999999999 is above the maximum 5000 \(allowed 1\.\.5000\)"
    with pytest.raises(ConfigError, match=expected):
        reg.resolve("search:budget=999999999999")
    assert reg.resolve("search:budget=5000").params == {"budget": 5000}


def test_bounds_are_inclusive_and_both_sides_are_named() -> None:
    reg = _toy_registry()
    assert reg.resolve("walker:steps=1,rate=1.0").params == {"steps": 1, "rate": 1.0}
    with pytest.raises(ConfigError, match=r"steps=0 is below the minimum 1"):
        reg.resolve("walker:steps=0")
    with pytest.raises(ConfigError, match=r"rate=1.5 is above the maximum 1"):
        reg.resolve("walker:rate=1.5")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_floats_are_not_numbers_here(value: str) -> None:
    with pytest.raises(ConfigError, match="not a valid float"):
        _toy_registry().resolve(f"walker:rate={value}")


def test_closed_string_parameters_list_their_choices() -> None:
    with pytest.raises(ConfigError, match=r"mode='c' is not one of a, b"):
        _toy_registry().resolve("walker:mode=c")
    with pytest.raises(ConfigError, match=r"scoring='friendly' is not one of game, competition, casual"):
        load_agents("doudizhu").resolve("search:scoring=friendly")


def test_a_numeric_parameter_without_a_range_cannot_be_registered() -> None:
    reg = AgentRegistry("toy")
    with pytest.raises(ValueError, match="'steps' has no range"):
        reg.register("walker", lambda seed=None, steps=10: UniformRandomAgent(seed), {"steps": 10})
    with pytest.raises(ValueError, match="outside its range"):
        reg.register(
            "walker", lambda seed=None, steps=10: UniformRandomAgent(seed), {"steps": 10},
            limits={"steps": (1, 5)},
        )


def test_make_checks_a_resolved_spec_built_by_hand() -> None:
    from paiju.core.agents import AgentSpec

    with pytest.raises(ConfigError, match="above the maximum 100"):
        _toy_registry().make(AgentSpec("walker", {"steps": 1000}))


def test_help_text_states_each_range() -> None:
    text = _toy_registry().help_text()
    assert text == "walker: steps=10 [1..100], rate=0.5 [0..1], mode=a (a|b)"
    assert "budget=120 [1..5000]" in load_agents("doudizhu").help_text()


def test_a_shared_host_refuses_only_the_parameters_an_agent_declares() -> None:
    reg = AgentRegistry("toy")
    reg.register(
        "net", lambda seed=None, threads=1, model="small": UniformRandomAgent(seed),
        {"threads": 1, "model": "small"}, limits={"threads": (0, 8)},
        process_wide={"threads": "sets the thread count of the process"}, file_params=("model",),
    )
    reg.register(
        "pool", lambda seed=None, threads=1: UniformRandomAgent(seed), {"threads": 1},
        limits={"threads": (0, 8)},
    )
    reg.check_shared(reg.resolve("net:model=large"), "net:model=large")  # a shipped name is fine
    reg.check_shared(reg.resolve("pool:threads=4"), "pool:threads=4")  # not declared process-wide here
    with pytest.raises(ConfigError, match=r"threads is the server's setting \(it sets the thread count"):
        reg.check_shared(reg.resolve("net:threads=4"), "net:threads=4")
    for path in ("/etc/passwd", "mine.pt", "../x"):
        with pytest.raises(ConfigError, match=r"model=.*: file paths are refused; name a shipped model"):
            reg.check_shared(reg.resolve(f"net:model={path}"), f"net:model={path}")
    with pytest.raises(ValueError, match="unknown parameters"):
        reg.register("bad", lambda seed=None: UniformRandomAgent(seed), {}, file_params=("model",))


def test_check_can_play_asks_only_the_agents_that_have_a_check() -> None:
    from paiju.core.agents import UniformRandomAgent, check_can_play
    from paiju.core.errors import ConfigError

    asked: list[object] = []

    class OneBoard:
        def check_game(self, game: object) -> None:
            asked.append(game)
            if game != "3x3":
                raise ConfigError(f"no model for {game}")

    check_can_play([UniformRandomAgent(0), OneBoard()], "3x3")
    assert asked == ["3x3"]
    with pytest.raises(ConfigError, match="no model for 6x4"):
        check_can_play([UniformRandomAgent(0), OneBoard()], "6x4")
