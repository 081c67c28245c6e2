"""`paiju arena`: matches between agent line-ups (formats, WP/ADP with 95% intervals, records)."""

from __future__ import annotations

from paiju.cli import options as opt
from paiju.cli.arena_options import (
    AgentSpecs,
    ArenaJson,
    Format,
    GameName,
    Games,
    Match,
    Ray,
    Record,
    RuleOptions,
    RunSeed,
    play_arena,
)


def arena(
    game: GameName,
    agents: AgentSpecs,
    games: Games = 100,
    seed: RunSeed = 0,
    fmt: Format = None,
    options: RuleOptions = None,
    match: Match = None,
    workers: opt.Workers = 1,
    ray: Ray = False,
    json_out: ArenaJson = False,
    record: Record = None,
    progress: opt.Progress = True,
) -> None:
    """Play matches between agents with seat rotation; WP and ADP per role with 95% intervals.

    Every deal is replayed under each line-up of the format (duplicate: A landlord vs B
    farmers, then B landlord vs A farmers on the same cards), so --games must be a multiple of
    the line-ups per deal. With --record, an interrupted run restarted with the same
    arguments resumes where it stopped. --option sets the game's rules, e.g. the RLCard
    anchor of the Dou Dizhu ladder:

    paiju arena -g doudizhu -a search:wings=rlcard,rlcard-rule -o wing_rule=rlcard -n 400
    """
    play_arena(game, agents, games, seed, fmt, options, match, workers, ray, json_out, record, progress)
