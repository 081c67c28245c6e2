"""A mahjong referee's match: hands one after another, the dealer moving on by the engine's
rule, each recorded as it ends (:func:`play_match`); four programs' match and its report
(:func:`run_referee`: per seat, win rate and points per hand with 95% intervals)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paiju.core.errors import ConfigError
from paiju.core.rng import derive_seed
from paiju.core.stats import Estimate, mean_ci, proportion_ci
from paiju.interop.mahjong.links import BotLink, ProcessBot
from paiju.interop.mahjong.messages import Rules, rules_items
from paiju.interop.mahjong.records import record_row
from paiju.interop.mahjong.referee import HandRecord, Referee, Table, Transcript
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.game import NUM_PLAYERS


@dataclass(frozen=True)
class SeatStats:
    """One seat's bot over a match: hands won (Wilson 95%) and points per hand (normal 95%)."""

    seat: int
    bot: str
    hands: int
    win_rate: Estimate
    points: Estimate
    forfeits: int

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "hands": self.hands, "win_rate": self.win_rate.as_dict(),
                "points": self.points.as_dict(), "forfeits": self.forfeits}


def summarize(bots: Sequence[str], hands: Sequence[HandRecord]) -> tuple[list[SeatStats], Estimate]:
    """Per seat: win rate and points per hand; and the rate of exhaustive draws."""
    out = []
    for seat, bot in enumerate(bots):
        wins = sum(seat in h.winners for h in hands)
        points = [float(h.deltas[seat]) for h in hands]
        forfeits = sum(bool(h.forfeit and h.forfeit["seat"] == seat) for h in hands)
        rate = proportion_ci(wins, len(hands))
        out.append(SeatStats(seat, bot, len(hands), rate, mean_ci(points), forfeits))
    return out, proportion_ci(sum(h.exhaustive for h in hands), len(hands))


def hand_seed(seed: int, index: int) -> int:
    """The wall seed of hand ``index``: the arena's deal seed of game ``index`` (same walls)."""
    return derive_seed(seed, index)


def play_match(
    links: Sequence[BotLink],
    hands: int,
    seed: int = 0,
    *,
    rules: MahjongConfig | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    transcript: Transcript | None = None,
    run_config: dict[str, Any] | None = None,
) -> list[HandRecord]:
    """Play ``hands`` hands one after another (the dealer moving on by the engine's rule),
    recording each to ``out_dir`` as it ends; the bots are told ``/quit`` at the end."""
    from paiju.core.records import RecordWriter

    if not 1 <= hands <= 100_000:
        raise ConfigError(f"hands={hands} must be in 1..100000")
    referee = Referee(links, rules, transcript)
    cfg = referee.rules
    names = [link.name for link in links]
    writer = None
    if out_dir is not None:
        config = run_config or {"kind": "mahjong-referee", "bots": names, "seed": seed}
        config = {**config, "rules": Rules(rules_items(cfg)).format()}
        writer = RecordWriter(out_dir, config)
        if writer.done_indices():
            writer.close()
            raise ConfigError(
                f"{out_dir} already holds hands of this match; bots keep state between hands, so a "
                "referee match is not resumed: record to a new folder"
            )
    table = Table(cfg.dealer, cfg.continuation, cfg.round_wind, 0)
    out: list[HandRecord] = []
    try:
        for i in range(hands):
            out.append(referee.play_hand(i, hand_seed(seed, i), table))
            table = out[-1].next_table
            if writer is not None:
                writer.write_batch([record_row(cfg, names, out[-1], writer.run_id)])
    finally:
        referee.close()
        if writer is not None:
            writer.close()
    return out


def run_referee(
    commands: Sequence[str],
    hands: int,
    seed: int = 0,
    *,
    time_limit: float = 5.0,
    rules: MahjongConfig | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    transcript: Transcript | None = None,
) -> tuple[list[HandRecord], list[SeatStats], Estimate]:
    """Four bot programs (command lines) play ``hands`` hands; the hands and the report."""
    if len(commands) != NUM_PLAYERS:
        raise ConfigError(f"name 4 bot commands, got {len(commands)}")
    if not 0 < time_limit <= 600:
        raise ConfigError(f"time limit {time_limit} s must be in (0, 600]")
    links = [ProcessBot(c, time_limit) for c in commands]
    config = {"kind": "mahjong-referee", "bots": list(commands), "seed": seed, "time_limit": time_limit}
    played = play_match(
        links, hands, seed, rules=rules, out_dir=out_dir, transcript=transcript, run_config=config
    )
    stats, draws = summarize(list(commands), played)
    return played, stats, draws
