"""benchmarks/mahjong_oracle_defence.py: the defence given the true hands, and what the public
facts can tell (the oracle's waits by hand; a short run against the arena's own rows)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from paiju.core.arena import run_games
from paiju.core.errors import ConfigError
from paiju.mahjong.tiles import parse_counts


class _Seat:
    def __init__(self, hand: str) -> None:
        self.hand = tuple(parse_counts(hand))


class _State:
    """What the oracle reads of a state: each seat's concealed hand."""

    def __init__(self, hands: list[str]) -> None:
        self.seats = [_Seat(h) for h in hands]

    def observation(self, seat: int) -> _Seat:
        return self.seats[seat]


def test_the_oracle_knows_every_wait_and_nothing_else(benchmark_module: Callable[[str], ModuleType]) -> None:
    bench = benchmark_module("mahjong_oracle_defence")
    # seat 1 waits on 3s and 6s (a two-sided 45s); seat 2 on 1z and 9p (two pairs); seat 3 is
    # two from ready; seat 0 (the player) holds one of each
    hands = ["3s6s1z9p5m", "123m456m789m123p45s11z", "123m456m789m99p11z", "13m57p9s2z4z"]
    assert bench._waits(list(parse_counts(hands[1]))) == {18 + 2, 18 + 5}
    assert bench._waits(list(parse_counts(hands[2]))) == {8 + 9, 27}
    assert bench._waits(list(parse_counts(hands[3]))) == set()
    reader = bench.OracleReader()
    reader.see(_State(hands), 0)

    class Obs:
        player = 0

    kinds = [20, 23, 27, 17, 4]  # 3s 6s 1z 9p 5m
    chances = reader.deal_in_chances(Obs(), kinds)
    sure = bench.SURE
    assert chances == {1: [sure, sure, 0.0, 0.0, 0.0], 2: [0.0, 0.0, sure, sure, 0.0], 3: [0.0] * 5}


def test_a_run_plays_the_arenas_walls_and_seats(
    tmp_path: Any, benchmark_module: Callable[[str], ModuleType]
) -> None:
    """With the agent's own reads the benchmark is the arena: the same walls, seats and moves
    as ``paiju arena -f 2v2-all`` with the same seed; and it resumes from its journal."""
    bench = benchmark_module("mahjong_oracle_defence")
    args = bench.argparse.Namespace(reads="model", agent="random", baseline="greedy", walls=1, seed=5,
                                    workers=1, journal=tmp_path / "j.jsonl")
    out = bench.run(args)
    arena = run_games("mahjong", ["random", "greedy"], 6, seed=5, out_dir=tmp_path / "arena", fmt="2v2-all")
    assert arena.played == 6
    _, rows = bench._rows(tmp_path / "j.jsonl")
    from paiju.core.records import read_records

    recorded = sorted(read_records(tmp_path / "arena").to_pylist(), key=lambda r: r["game_index"])
    assert [r["moves"] for r in rows] == [r["moves"] for r in recorded]
    assert [r["seat_agents"] for r in rows] == [list(r["seat_agents"]) for r in recorded]
    assert out["walls"] == 1 and out["win_rate_A_minus_B"]["n"] == 1
    # the journal holds the wall: a rerun plays nothing and gives the same summary
    assert bench.run(args) == out
    with pytest.raises(ConfigError, match="another job"):
        bench.run(bench.argparse.Namespace(**{**vars(args), "seed": 6}))
