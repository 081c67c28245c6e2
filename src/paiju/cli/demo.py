"""`paiju demo`: a short terminal tour on the embedded defaults (runs in seconds).

It shows what paiju does with one Dou Dizhu deal: the deal in notation, the landlord's legal
opening moves by type, the hand-splitting helper (the paper's 40-order baseline against the
exact minimum split, with the tag string the BiLSTM-CRF tagger learns), and a full game
between the shipped agents with a readable transcript and the competition score.
"""

from __future__ import annotations

from typing import Annotated

import typer

from paiju.cli import options as opt
from paiju.cli.validate import agents_help


def demo(
    seed: Annotated[int, opt.seed("Seed of the deal and the agents.")] = 7,
    agents: Annotated[
        str,
        typer.Option(
            "--agents", "-a", help=agents_help("Landlord, farmer 1, farmer 2 agent specs.", "doudizhu")
        ),
    ] = "search:budget=60,rule,rule",
) -> None:
    """A short tour: a Dou Dizhu deal, its legal opening moves, splits, a full game between shipped agents."""
    from rich.rule import Rule
    from rich.table import Table

    from paiju.cli.common import console
    from paiju.cli.validate import agent_line_up
    from paiju.core.protocol import PlayedGame, State, play_game
    from paiju.core.rng import derive_seed
    from paiju.doudizhu.agents import REGISTRY
    from paiju.doudizhu.cards import Deal
    from paiju.doudizhu.game import DouDizhuGame, DouDizhuState
    from paiju.doudizhu.movegen import generate
    from paiju.doudizhu.moves import Move, key_of
    from paiju.doudizhu.split import split

    specs = agent_line_up(agents, REGISTRY, expected=3)
    players = [REGISTRY.make(spec, seed=derive_seed(seed, 1, i)) for i, spec in enumerate(specs)]

    def say(text: str) -> None:
        console.print(text, markup=False, soft_wrap=True)

    console.print(Rule("paiju (牌局) — a tour of one Dou Dizhu deal"))
    deal = Deal.random(derive_seed(seed, 0))
    say(f"deal (seed {seed}): {deal.without_kitty()}")
    for role, hand in zip(("landlord", "farmer 1", "farmer 2"), deal.hands, strict=True):
        say(f"  {role:>9}: {hand}  ({len(hand)} cards)")
    say(f"  {'kitty':>9}: {deal.kitty}  (shown to everyone, part of the landlord's 20)")

    console.print(Rule("the landlord's legal opening moves"))
    moves = generate(key_of(deal.landlord.counts))
    by_type: dict[str, list[str]] = {}
    for m in moves:
        by_type.setdefault(m.type.label, []).append(str(m))
    table = Table("type", "count", "examples")
    for label, items in by_type.items():
        table.add_row(label, str(len(items)), " ".join(items[:6]) + (" …" if len(items) > 6 else ""))
    console.print(table)
    say(f"{len(moves)} distinct opening moves in all")

    console.print(Rule("hand-splitting helper (拆牌)"))
    for name, method, objective in (
        ("40-order baseline", "heuristic", "groups"),
        ("exact, fewest groups", "exact", "groups"),
        ("exact, fewest plays", "exact", "plays"),
    ):
        s = split(str(deal.landlord), method=method, objective=objective)
        say(f"  {name:<22} {len(s.groups):>2} groups, {s.num_plays:>2} plays:  {s}")
    say(f"  tags (0 solo, 1 pair, 2 trio, 3 bomb/rocket): {split(str(deal.landlord)).tags()}")

    console.print(Rule(f"a full game: {', '.join(specs)}"))
    game = DouDizhuGame()

    def transcript(at: State, played: PlayedGame) -> None:
        assert isinstance(at, DouDizhuState)
        seat, action = played.players[-1], played.actions[-1]
        assert isinstance(action, Move)
        text = "pass" if action.is_pass else f"{action}  [{action.type.label}]"
        say(f"{len(played.actions):>3}. {at.role_name(seat):<8} ({specs[seat]}): {text}")

    state = play_game(game, players, seed, start=game.new_state_from_deal(deal), after_move=transcript).state
    assert isinstance(state, DouDizhuState)
    winner = state.winner
    side = "the landlord" if winner == state.landlord else "the farmers"
    returns = state.returns()
    say(f"{side} win; bombs+rockets played: {state.bombs}; competition score: landlord {returns[0]:+g}")
    console.print(Rule("more"))
    say("paiju ddz moves HAND --beat MOVE | paiju ddz split HAND | paiju arena --game doudizhu ...")
    say("paiju mahjong shanten HAND | paiju yuxi play | paiju dih value ... | paiju --help")
