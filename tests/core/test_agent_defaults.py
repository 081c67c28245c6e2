"""Agent defaults have one source: the registries document the agent classes' own defaults.

The expected values below are the defaults documented in ``docs/ddz-agents.md`` and
``docs/mahjong-agents.md`` and by ``paiju ... --help``, written out by hand; the tests check that the
registry, its factory and the class agree with them (a change in one place alone fails).
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from paiju.core.agents import keyword_defaults
from paiju.core.errors import ConfigError


def _agent(seed: int = 0, depth: int = 2, *, mode: str = "a", bare: Any = None) -> None:
    """A stand-in factory with positional and keyword-only defaults."""


def _no_default(seed: int, steps: int) -> None:
    """A factory whose ``steps`` has no default."""


def test_keyword_defaults_reads_the_signature_in_the_order_asked() -> None:
    assert keyword_defaults(_agent, "mode", "depth") == {"mode": "a", "depth": 2}
    assert list(keyword_defaults(_agent, "mode", "depth")) == ["mode", "depth"]


@pytest.mark.parametrize("names", [("steps",), ("missing",)])
def test_keyword_defaults_refuses_a_parameter_without_a_default(names: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match=names[0]):
        keyword_defaults(_no_default, *names)


def test_doudizhu_search_defaults_are_the_registry_the_factory_and_the_class() -> None:
    from paiju.doudizhu.agents import REGISTRY
    from paiju.doudizhu.agents.search import SearchAgent

    documented = {
        "budget": 120, "width": 6, "time": 0.0, "wings": "game", "scoring": "game", "leads": "split",
    }
    assert REGISTRY.describe()["search"][0] == documented
    params = inspect.signature(SearchAgent).parameters
    signature = {k: params[k].default for k in ("budget", "width", "wings", "scoring", "leads")}
    assert signature == {k: documented[k] for k in signature}
    assert params["time_limit"].default == documented["time"]
    built = REGISTRY.make("search", seed=1)
    assert isinstance(built, SearchAgent)
    got = (built.budget, built.width, built.time_limit, built.wings, built.scoring)
    assert got == (120, 6, 0.0, "game", "game")
    # spec parameters pass through the factory, the spec's time= becoming time_limit
    tuned = REGISTRY.make("search:budget=40,time=1.5,scoring=casual", seed=1)
    assert isinstance(tuned, SearchAgent)
    assert (tuned.budget, tuned.width, tuned.time_limit, tuned.scoring) == (40, 6, 1.5, "casual")


def test_doudizhu_search_refuses_the_same_values_as_its_spec() -> None:
    from paiju.doudizhu.agents import REGISTRY
    from paiju.doudizhu.agents.search import SearchAgent

    with pytest.raises(ConfigError, match=r"scoring='points' is not one of"):
        REGISTRY.make("search:scoring=points")
    with pytest.raises(ConfigError, match="scoring='points'"):
        SearchAgent(scoring="points")
    with pytest.raises(ConfigError, match="wings='wide'"):
        SearchAgent(wings="wide")


def test_doudizhu_policy_defaults_are_the_registry_and_the_factory() -> None:
    pytest.importorskip("torch")
    from paiju.doudizhu.agents import REGISTRY
    from paiju.doudizhu.agents.policy import make_policy_agent

    documented = {"model": "large", "temperature": 0.0, "threads": 1}
    assert REGISTRY.describe()["policy"][0] == documented
    assert keyword_defaults(make_policy_agent, *documented) == documented


def test_mahjong_defaults_are_the_agent_classes() -> None:
    from paiju.mahjong.agents import REGISTRY, ExpectimaxAgent, GreedyAgent

    described = REGISTRY.describe()
    assert described["expectimax-shanten"][0] == {"depth": 2, "alpha": 0.6, "claim_depth": 1}
    assert described["expectimax"][0] == {
        "depth": 2, "alpha": 0.6, "claim_depth": 1, "prune": "tiles",
        "defence": True, "deal_in_tai": 2.0, "wait_scale": 0.02, "ron_rate": 0.6, "reads": "fitted",
        "saved_loss": 940.0, "ron": "classes", "rates": "first",
    }
    assert described["expectimax-v1"][0] == {
        "depth": 2, "alpha": 0.6, "claim_depth": 1, "leaf": "shanten", "prune": "tiles",
        "defence": True, "deal_in_tai": 2.0, "wait_scale": 0.02, "ron_rate": 0.6, "reads": "fitted",
        "saved_loss": 940.0, "ron": "flat", "rates": "first",
    }
    assert described["greedy"][0] == {"defence": True}
    default = REGISTRY.make("expectimax-shanten", seed=0)
    assert isinstance(default, ExpectimaxAgent)
    assert (default.depth, default.alpha, default.claim_depth) == (2, 0.6, 1)
    tuned = REGISTRY.make("expectimax-shanten:depth=3,alpha=0.5", seed=0)
    assert isinstance(tuned, ExpectimaxAgent)
    assert (tuned.depth, tuned.alpha, tuned.claim_depth) == (3, 0.5, 1)
    folding = REGISTRY.make("greedy:defence=false")
    assert isinstance(folding, GreedyAgent) and folding.defence is False
    greedy = REGISTRY.make("greedy")
    assert isinstance(greedy, GreedyAgent) and greedy.defence is True


def test_yuxi_mcts_defaults_are_the_agent_class() -> None:
    from paiju.yuxi.agents import REGISTRY

    assert REGISTRY.describe()["mcts"][0] == {
        "simulations": 200,
        "seconds": 0.0,
        "c": 1.4,
        "reuse": True,
        "eval": "rollout",
    }
    assert REGISTRY.make("mcts", seed=0).name == "mcts(simulations=200)"
    tuned = REGISTRY.make("mcts:simulations=50,eval=heuristic", seed=0)
    assert tuned.name == "mcts(simulations=50,eval=heuristic)"
    with pytest.raises(ConfigError, match="eval='fast' is not one of rollout, heuristic"):
        REGISTRY.make("mcts:eval=fast")
