"""The arena's command-line options, declared once, and the arena command's work.

``paiju arena`` (:mod:`paiju.cli.arena`) and the per-game fronts (``paiju mahjong arena``)
take these options with the same defaults and run :func:`play_arena`. A module of its own,
not the command's: a front's sub-app imports it without importing another command's module
(``paiju mahjong shanten`` loads only ``paiju.cli.mahjong``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from paiju.cli import options as opt
from paiju.cli.common import console, print_json, split_agents
from paiju.cli.validate import MAX_GAMES, agents_help
from paiju.cli.validate import game_options as validate_game_options

GameName = Annotated[str, typer.Option("--game", "-g", help="Game name, e.g. doudizhu, mahjong, kuhn_poker.")]
def agent_specs(*games: str) -> Any:
    """The ``--agents`` option; its help points at ``paiju agents`` for ``games``."""
    return typer.Option(
        "--agents", "-a", help=agents_help("Comma-separated agent specs: 'rule,search:budget=200'.", *games)
    )


AgentSpecs = Annotated[str, agent_specs("doudizhu", "mahjong", "yuxi")]
Games = Annotated[
    int,
    typer.Option("--games", "-n", min=1, max=MAX_GAMES, help="Number of games (a whole number of deals)."),
]
RunSeed = Annotated[int, opt.seed("Run seed: deal i and every agent's seed derive from it.", short=False)]
Format = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        help="duplicate | swap | rotation | 2v2 | 2v2-all | fixed "
        "(default: the game's first supported format).",
    ),
]
RuleOptions = Annotated[
    list[str] | None,
    opt.rule_options(
        "A rule option of the game as KEY=VALUE, repeatable; the keys are the fields of the "
        "game's config: doudizhu wing_rule=rlcard, scoring=casual, bidding=true; mahjong "
        "min_tai=1, multi_ron=head_bump, limit=none, extras=...; yuxi board=6x4, "
        "die_bonus=false, swaps=false, decks=a,b (see docs/arena.md)."
    ),
]
Match = Annotated[
    str | None,
    typer.Option(
        "--match",
        help="mahjong: one arena game = a whole match of rounds (圈) with 連莊, reported per match: "
        "east (one 東風 round), east-south, full (東南西北), or a number of rounds 1..4.",
    ),
]
Ray = Annotated[bool, opt.ray("Play on Ray: $RAY_ADDRESS's cluster, else a local instance.")]
ArenaJson = Annotated[bool, opt.json_flag("Print the report as JSON.")]
Record = Annotated[Path | None, opt.record("Record games to this directory as Parquet; rerun to resume.")]
"""The arena's options, declared once: ``paiju arena`` and the per-game fronts (``paiju mahjong
arena``) take the same ones with the same defaults."""


def play_arena(
    game: str,
    agents: str,
    games: int,
    seed: int,
    fmt: str | None,
    options: list[str] | None,
    match: str | None,
    workers: int,
    ray: bool,
    json_out: bool,
    record: Path | None,
    progress: bool,
) -> None:
    """The arena command's work, shared by ``paiju arena`` and its per-game fronts."""
    from paiju.core.arena import run_arena
    from paiju.core.runner import Backend

    game_options = validate_game_options(game, options)
    if match is not None:
        from paiju.core.errors import ConfigError
        from paiju.mahjong.full_match import match_options

        if game != "mahjong":
            raise ConfigError(f"--match is for mahjong (rounds and 連莊), not {game!r}")
        game_options = match_options(match, game_options)
    report = run_arena(
        game, split_agents(agents), games, seed, fmt=fmt, out_dir=record,
        progress=progress and not json_out, game_options=game_options,
        backend=Backend(workers=workers, ray=ray),
    )
    if json_out:
        print_json(report.as_dict())
        return
    for table in report.tables():
        console.print(table)
    console.print(
        "WP counts a game as won when the agent's points are > 0 (a draw counts half); ADP is mean "
        "points per game; duplicate score = points per deal summed over its line-ups."
    )
    if report.game_summary is not None and report.game_summary.unit == "matches":
        console.print(
            "In match mode each game is a whole match: WP and ADP are per match; a match is won by "
            "the agent whose seats total the most points."
        )
    if record is not None:
        console.print(f"records: {record} (run {report.run_id})")
