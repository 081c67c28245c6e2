"""``paiju agents [GAME]``: every agent of a game with its parameters, defaults and ranges.

The one place the per-game agent lists are shown: the commands that take agents say
``paiju agents GAME`` in their ``--help`` instead of repeating a long list there.
"""

from __future__ import annotations

import textwrap
from typing import Annotated

import typer

from paiju.cli.common import console, print_json
from paiju.cli.options import Json
from paiju.core.errors import ConfigError


def agents(
    game: Annotated[
        str | None, typer.Argument(help="A game (doudizhu, mahjong, yuxi, ...); none: every game.")
    ] = None,
    json_out: Json = False,
) -> None:
    """List each game's agents: name, what it does, its parameters with defaults and ranges."""
    from paiju.core.agents import parameter_text
    from paiju.core.registry import available_games, load_agents

    games = available_games()
    if game is not None and game not in games:
        raise ConfigError(f"unknown game {game!r}; games with agents: {', '.join(games)}")
    chosen = [game] if game is not None else games
    listing = {g: load_agents(g).catalogue() for g in chosen}
    if json_out:
        print_json(listing)
        return
    width = max(40, min(console.width, 100))
    for g, entries in listing.items():
        console.print(f"{g} ({len(entries)} agents; spec: NAME:param=value,...)", markup=False)
        for e in entries:
            console.print(f"  {e['name']}", markup=False, style="bold")
            description = e["description"]
            if "superseded_by" in e:  # kept so that old command lines and records still build it
                description = f"superseded by {e['superseded_by']}; kept as it was: {description}"
            for line in textwrap.wrap(description, width - 4, break_on_hyphens=False):
                console.print(f"    {line}", markup=False)
            for p in e["parameters"]:
                console.print(f"    {parameter_text(p)}", markup=False)
