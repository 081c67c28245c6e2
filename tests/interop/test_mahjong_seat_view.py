"""What each seat is told, and what it rebuilds from it (paiju.interop.mahjong.seat_view): the
bot's observation and legal actions equal the engine's at every decision of refereed hands,
and no seat is told another seat's concealed tiles."""

from __future__ import annotations

from typing import Any

import pytest

from paiju.interop.mahjong import referee
from paiju.interop.mahjong.bot import Decision, MahjongBot
from paiju.interop.mahjong.links import LocalBot
from paiju.interop.mahjong.match import play_match
from paiju.interop.mahjong.referee import Transcript
from paiju.mahjong.agents import REGISTRY
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.game import MahjongObservation


# ---- the bot's view equals the engine's observation -------------------------------------------
def _observed_match(
    spec: str, seed: int, hands: int, rules: MahjongConfig, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[list[Decision]], list[list[Decision]], list[str]]:
    """Rebuilt (bot side) and engine (referee side) decisions per seat, and the lines sent."""
    rebuilt: list[list[tuple[MahjongObservation, list[int]]]] = [[] for _ in range(4)]
    engine: list[list[tuple[MahjongObservation, list[int]]]] = [[] for _ in range(4)]
    original = referee._Proxy.act

    def act(self: Any, observation: MahjongObservation, legal: Any) -> int:
        engine[self.seat].append((observation, list(legal)))
        return original(self, observation, legal)

    monkeypatch.setattr(referee._Proxy, "act", act)
    links = [LocalBot(MahjongBot(REGISTRY.make(spec, seed=s), decisions=rebuilt[s])) for s in range(4)]
    transcript: Transcript = []
    play_match(links, hands, seed, rules=rules, transcript=transcript)
    return rebuilt, engine, [f"{seat} {way} {line}" for seat, way, line in transcript]


@pytest.mark.parametrize(
    ("spec", "seed", "hands", "rules"),
    [
        ("random", 3, 6, MahjongConfig(flowers=True, heaven_ready=True, earth_ready=True)),
        ("greedy", 5, 4, MahjongConfig()),
        ("greedy", 8, 4, MahjongConfig(flowers=True, heaven_ready=True, earth_ready=True, ligu=True,
                                       concealed_kong_public=True, missed_discard_scope="all")),
    ],
)
def test_the_bots_rebuilt_observation_equals_the_engines_at_every_decision(
    spec: str, seed: int, hands: int, rules: MahjongConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    rebuilt, engine, lines = _observed_match(spec, seed, hands, rules, monkeypatch)
    for seat in range(4):
        assert len(rebuilt[seat]) == len(engine[seat]) > 20
        for i, (mine, true) in enumerate(zip(rebuilt[seat], engine[seat], strict=True)):
            assert mine == true, (seat, i)
    verbs = {line.split()[2] for line in lines}
    assert {"/initCard", "/mo", "/draw", "/throw", "/ask", "/end"} <= verbs
    if rules.flowers:
        assert "/flower" in verbs
    if spec == "random":  # random play makes every kind of claim
        assert {"/pung", "/chow", "/kong"} <= verbs


def test_no_seat_is_told_another_seats_concealed_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, lines = _observed_match("random", 11, 4, MahjongConfig(flowers=True), monkeypatch)
    seen_kongs = 0
    for line in lines:
        seat, way, verb, *args = line.split()
        if way != ">":
            continue
        if verb == "/draw":
            assert args[0] != seat  # told of another's draw, never its tile
        if verb == "/kong" and args[1] == "concealed":
            seen_kongs += 1
            assert (len(args) == 3) == (args[0] == seat)  # the kind only for the konger
    lines_per_seat = [[ln for ln in lines if ln.startswith(f"{s} > /initCard")] for s in range(4)]
    assert all(len(x) == 4 for x in lines_per_seat)  # one /initCard per hand, to its own seat only
    assert seen_kongs > 0
