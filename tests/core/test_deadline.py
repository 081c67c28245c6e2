"""Cooperative deadlines: the token, its scope per thread, and the checks inside every search loop.

No timings: a loop's checks are observed with a token that cancels itself after a given
number of checks, so "the loop checks as it goes" is tested deterministically (a loop that
checked only once at its start, or never, fails these tests).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from paiju.core import deadline
from paiju.core.errors import DeadlineExceeded, PaijuError, WorkCancelled
from paiju.core.registry import load_agents
from paiju.core.rng import as_generator


class CountingToken(deadline.CancelToken):
    """A token that counts its checks and cancels itself at check number ``stop_at``."""

    def __init__(self, stop_at: int | None = None) -> None:
        super().__init__(None, what="the test work")
        self.checks = 0
        self.stop_at = stop_at

    def check(self) -> None:
        self.checks += 1
        if self.stop_at is not None and self.checks >= self.stop_at:
            self.cancel("the test stops it")
        super().check()


def test_check_is_a_no_op_without_a_token() -> None:
    assert deadline.current() is None
    deadline.check()  # nothing installed: nothing happens


def test_cancelled_token_raises_with_its_first_reason() -> None:
    token = deadline.CancelToken(what="the search")
    with deadline.scope(token):
        deadline.check()
        token.cancel("its client disconnected")
        token.cancel("a later reason")
        with pytest.raises(WorkCancelled, match="the search was stopped: its client disconnected"):
            deadline.check()
    assert deadline.current() is None  # the scope is left as it was found
    deadline.check()


def test_expired_deadline_raises_deadline_exceeded() -> None:
    token = deadline.CancelToken(1e-9, what="the DIH computation")
    while not token.expired():
        pass
    assert token.remaining() == 0.0
    with deadline.scope(token), pytest.raises(DeadlineExceeded, match="time limit of 1e-09 s"):
        deadline.check()
    assert deadline.CancelToken().remaining() is None
    with pytest.raises(ValueError, match="positive"):
        deadline.CancelToken(0)


def test_cancellation_is_not_bad_input() -> None:
    # code that catches ValueError around a move or a parse must not swallow a cancellation
    assert not issubclass(WorkCancelled, ValueError)
    assert issubclass(DeadlineExceeded, WorkCancelled) and not issubclass(DeadlineExceeded, PaijuError)


def test_tokens_are_per_thread() -> None:
    cancelled = deadline.CancelToken()
    cancelled.cancel("stop")
    seen: list[deadline.CancelToken | None] = []
    with deadline.scope(cancelled):
        worker = threading.Thread(target=lambda: (seen.append(deadline.current()), deadline.check()))
        worker.start()
        worker.join()
    assert seen == [None]  # the other thread did not inherit the token, and its check passed
    assert deadline.run(None, lambda: deadline.current()) is None
    assert deadline.run(cancelled, deadline.current) is cancelled


def test_group_cancels_what_is_in_flight_and_what_starts_after_close() -> None:
    group = deadline.TokenGroup()
    with group.track(what="a") as a:
        b = group.new(what="b")
        assert len(group) == 2
        assert group.cancel_all("shutting down") == 2
        assert a.reason == b.reason == "shutting down"
    group.discard(b)
    assert len(group) == 0
    group.close("the server is stopping")
    late = group.new(what="late")
    assert group.closed and late.cancelled and late.reason == "the server is stopping"


# ---- every search and analysis loop checks the token as it goes -------------------------------
def _ddz_position(seed: int) -> tuple[Any, list[Any]]:
    from paiju.doudizhu.game import DouDizhuGame

    game = DouDizhuGame()
    rng = np.random.default_rng(seed)
    state = game.new_state_from_deal(game.new_initial_state().sample_chance(rng))
    return state.observation(state.current_player()), state.legal_actions()


def _mahjong_turn(seed: int) -> tuple[Any, list[Any]]:
    from paiju.mahjong.game import MahjongGame

    state = MahjongGame(mode="hand").new_initial_state()
    rng = as_generator(seed)
    while state.is_chance_node():
        state.apply(state.sample_chance(rng))
    return state.observation(state.current_player()), state.legal_actions()


def _yuxi_turn(seed: int) -> tuple[Any, list[Any]]:
    from paiju.yuxi.game import YuxiGame

    state = YuxiGame().new_initial_state()
    rng = as_generator(seed)
    while state.is_chance_node() or len(state.legal_actions()) < 2:
        if state.is_chance_node():
            state.apply(state.sample_chance(rng))
        else:
            state.apply(state.legal_actions()[0])
    return state.observation(state.current_player()), state.legal_actions()


def _agent_move(kind: str, spec: str, position: Callable[[int], tuple[Any, list[Any]]]) -> Callable[[], Any]:
    obs, legal = position(3)
    return lambda: load_agents(kind).make(spec, seed=5).act(obs, legal)


def _dih_value() -> Any:
    from paiju.tournament.dih import dih
    from paiju.tournament.distributions import ScoreDistribution

    law = ScoreDistribution.parse("-2:0.2,-1:0.3,1:0.3,2:0.2")
    return dih(law, 1000, 60, 200)


def _selection() -> Any:
    from paiju.tournament.distributions import ScoreDistribution
    from paiju.tournament.selection import DealPool, select_joint

    rng = as_generator(11)
    laws = {}
    for i in range(40):
        p = rng.dirichlet(np.ones(4))
        laws[f"d{i}"] = ScoreDistribution((-2, -1, 1, 2), tuple(float(x) for x in p / p.sum()))
    return select_joint(DealPool.from_distributions(laws), 30, 6, 3).set_dih


def _custom_pool() -> Any:
    from pathlib import Path

    from paiju.web.analysis import load_pool

    text = "\n".join(f"d{i}: -1:0.5,1:0.5" for i in range(2000))
    return len(load_pool("custom", Path("."), text=text))


WORK = {
    "doudizhu search": _agent_move("doudizhu", "search:budget=400,width=4", _ddz_position),
    "mahjong expectimax-shanten": _agent_move(
        "mahjong", "expectimax-shanten:depth=2,alpha=1.0", _mahjong_turn
    ),
    "yuxi mcts (and the generic MCTS)": _agent_move("yuxi", "mcts:simulations=200", _yuxi_turn),
    "dih value": _dih_value,
    "deal selection": _selection,
    "web custom pool": _custom_pool,
}


@pytest.mark.parametrize("name", list(WORK))
def test_every_search_and_analysis_loop_checks_as_it_goes(name: str) -> None:
    work = WORK[name]
    unlimited = CountingToken()
    with deadline.scope(unlimited):
        expected = work()
    assert unlimited.checks >= 4, f"{name}: {unlimited.checks} checks in a whole run"
    stop_at = unlimited.checks // 2  # half-way through: the loop must notice and stop there
    halted = CountingToken(stop_at)
    with deadline.scope(halted), pytest.raises(WorkCancelled, match="the test stops it"):
        work()
    assert halted.checks == stop_at
    # a token that never fires changes nothing: the result is the one without any token
    assert work() == expected


def test_moves_without_a_deadline_are_the_moves_with_a_distant_one() -> None:
    specs = [
        ("doudizhu", "search:budget=60,width=4", _ddz_position),
        ("mahjong", "expectimax-shanten", _mahjong_turn),
        ("yuxi", "mcts:simulations=60", _yuxi_turn),
    ]
    for kind, spec, position in specs:
        for seed in range(3):
            obs, legal = position(seed)
            plain = load_agents(kind).make(spec, seed=seed).act(obs, legal)
            with deadline.scope(deadline.CancelToken(3600.0)):
                timed = load_agents(kind).make(spec, seed=seed).act(obs, legal)
            assert timed == plain, (kind, spec, seed)
