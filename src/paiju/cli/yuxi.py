"""`paiju yuxi` sub-commands: play a game, audit the rules by self-play, balance report, cards."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from paiju.cli import az_options as az
from paiju.cli import options as opt
from paiju.cli.common import console, print_json
from paiju.cli.config_options import config_command, config_values
from paiju.cli.validate import (
    MAX_YUXI_GAMES,
    LimitsHelpCommand,
    agent_line_up,
    agents_help,
    input_file,
    output_dir,
    output_file,
)
from paiju.core.errors import ConfigError
from paiju.core.runner import Backend

app = typer.Typer(no_args_is_help=True)

JsonOpt = Annotated[bool, opt.json_flag("Print one JSON object instead of text.")]
SeedOpt = Annotated[
    int,
    opt.seed("Seed of every random choice (same seed, same output).", short=False),
]
BoardsOpt = Annotated[str, typer.Option("--boards", help="Comma-separated boards among 3x3, 4x4, 6x4.")]
WorkersOpt = Annotated[
    int, opt.workers("Local processes playing the games.")
]
RayOpt = Annotated[
    bool, opt.ray("Play the games as Ray tasks ($RAY_ADDRESS, else a local Ray).")
]
JournalOpt = Annotated[
    Path | None,
    typer.Option(
        "--journal", parser=output_file,
        help="Append every finished batch of games to this JSONL file; rerun with it to resume.",
    ),
]
CardsFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--cards-file", parser=input_file,
        help="A designer's card table (TOML, the format of docs/yuxi-cards.md) instead of the shipped one.",
    ),
]
DecksFileOpt = Annotated[
    Path | None,
    typer.Option("--decks-file", parser=input_file, help="A designer's deck table (TOML) to go with it."),
]
DeckPoolOpt = Annotated[
    str | None,
    typer.Option(
        "--decks",
        help="Comma-separated deck keys each game's two decks are drawn from (default: every deck).",
    ),
]


def _deck_pool(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [d.strip() for d in text.split(",") if d.strip()]
    if not names:
        raise ConfigError(f"--decks {text!r}: name at least one deck (see `paiju yuxi cards --decks`)")
    return names


def _file(path: Path | None) -> str | None:
    return None if path is None else str(path)


def _boards(text: str) -> list[str]:
    from paiju.yuxi.board import board_shape

    names = [board_shape(b).name for b in text.split(",") if b.strip()]
    if not names:
        raise ConfigError(f"--boards {text!r}: name at least one board (3x3, 4x4, 6x4)")
    return names


@app.command("play", cls=LimitsHelpCommand)
def play(
    agents: Annotated[
        str,
        typer.Option(
            "--agents",
            help=agents_help("Two agent specs, seat 0 (moves first) then seat 1.", "yuxi"),
        ),
    ] = "greedy,random",
    board: Annotated[str, typer.Option("--board", help="3x3, 4x4 or 6x4.")] = "4x4",
    seed: SeedOpt = 0,
    decks: Annotated[
        str | None,
        typer.Option(
            "--decks",
            help="Two deck keys 'a,b' (default: drawn from the seed); see `paiju yuxi cards --decks`.",
        ),
    ] = None,
    die: Annotated[bool, typer.Option("--die/--no-die", help="First player's end-of-game die bonus.")] = True,
    swaps: Annotated[bool, typer.Option("--swaps/--no-swaps", help="The once-per-turn card swap.")] = True,
    quiet: Annotated[bool, typer.Option("--quiet", help="Show only the final board.")] = False,
    human: Annotated[
        int | None,
        typer.Option(
            "--human",
            min=0,
            max=1,
            help="Play this seat (0 or 1) yourself: type each move in notation (its agent spec is ignored).",
        ),
    ] = None,
    cards_file: CardsFileOpt = None,
    decks_file: DecksFileOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Play one game between two agents, showing the board after each move."""
    import dataclasses

    from paiju.core.agents import check_can_play
    from paiju.core.protocol import PlayedGame, State
    from paiju.core.rng import as_generator, derive_seed
    from paiju.yuxi.agents import REGISTRY
    from paiju.yuxi.cards import table_fingerprint
    from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiState
    from paiju.yuxi.render import LEGEND, board_table

    if human is not None and as_json:
        raise ConfigError("--human and --json: a person plays at the text prompt, leave out --json")
    specs = agent_line_up(agents, REGISTRY, expected=2)
    players: list[Any] = [REGISTRY.make(spec, derive_seed(seed, 100 + i)) for i, spec in enumerate(specs)]
    files = YuxiConfig(cards_file=_file(cards_file), decks_file=_file(decks_file))
    if decks is None:
        names = list(files.table().decks)
        pick = as_generator(derive_seed(seed, 7)).integers(len(names), size=2)
        deck_pair = (names[int(pick[0])], names[int(pick[1])])
    else:
        given = tuple(d.strip() for d in decks.split(","))
        if len(given) != 2:
            raise ConfigError(f"yuxi needs two deck names (seat 0, seat 1), got {given!r}")
        deck_pair = (given[0], given[1])
    game = YuxiGame(
        dataclasses.replace(files, board=board, decks=deck_pair, die_bonus=die, swaps=swaps)
    )
    check_can_play(players, game)  # az: a model per board, refused now rather than at its move
    if human is not None:
        from paiju.yuxi.agents.human import HumanAgent

        players[human] = HumanAgent(game, human, say=lambda line: console.print(line, markup=False))
        specs[human] = "human"
    moves: list[dict[str, object]] = []
    if not as_json:
        console.print(
            f"yuxi {game.config.board}: A = seat 0 ({specs[0]}, deck {deck_pair[0]}, moves first) vs "
            f"B = seat 1 ({specs[1]}, deck {deck_pair[1]}); seed {seed}"
        )
        if not quiet:
            console.print(LEGEND, markup=False, style="dim")

    def show(at: State, played: PlayedGame) -> None:
        assert isinstance(at, YuxiState)
        who = "chance" if played.players[-1] < 0 else "AB"[played.players[-1]]
        text = played.moves[-1]
        moves.append({"by": who, "move": text})
        if not as_json and not quiet:
            # A person sees the deal of their own hand only (the board shows it), not the other's.
            shown = "deal (hands dealt)" if human is not None and text.startswith("deal") else text
            console.print(f"[bold]{who}[/bold]: {shown}")
            if who != "chance" or text.startswith("deal"):
                console.print(board_table(at, hands=_shown_hands(human)))

    state = _play_or_quit(game, players, seed, show)
    assert isinstance(state, YuxiState)
    a, b = state.final_scores()
    winner = "A" if a > b else "B" if b > a else "draw"
    if as_json:
        print_json(
            {
                "board": game.config.board,
                "decks": list(deck_pair),
                "table_hash": table_fingerprint(game.table),
                "agents": specs,
                "seed": seed,
                "moves": moves,
                "scores": [a, b],
                "bonus": state.bonus,
                "winner": winner,
            }
        )
        return
    if quiet:
        console.print(board_table(state, hands=_shown_hands(human)))
    bonus = f" (including the die bonus {state.bonus})" if state.bonus else ""
    console.print(f"final: A {a}{bonus}, B {b}: " + ("draw" if winner == "draw" else f"{winner} wins"))


def _shown_hands(human: int | None) -> tuple[int, ...]:
    """Both hands when agents play; only the person's own hand when a person plays."""
    return (0, 1) if human is None else (human,)


def _play_or_quit(game: Any, players: list[Any], seed: int, show: Any) -> Any:
    """The game played through ``play_game``; a person leaving it ends the command cleanly."""
    from paiju.core.protocol import play_game
    from paiju.yuxi.agents.human import HumanQuit

    try:
        return play_game(game, players, seed, after_move=show, notation=True).state
    except HumanQuit as left:
        console.print(f"game left ({left}); no result")
        raise typer.Exit(130 if left.interrupted else 0) from None


@app.command("audit", cls=LimitsHelpCommand)
def audit(
    games: Annotated[
        int,
        typer.Option(
            "--games",
            min=1,
            max=MAX_YUXI_GAMES,
            help="Self-play games to play with the invariant checker on.",
        ),
    ] = 60,
    seed: SeedOpt = 0,
    boards: BoardsOpt = "3x3,4x4,6x4",
    search: Annotated[
        str,
        typer.Option(
            "--search",
            help=agents_help(
                "Agent spec of the search self-play half of the games (the other half is random vs random).",
                "yuxi",
            ),
        ),
    ] = "mcts:simulations=24",
    out: Annotated[
        Path | None,
        opt.out_file("Write the full report (JSON, with move lists).", short=False),
    ] = None,
    workers: WorkersOpt = 1,
    ray: RayOpt = False,
    journal: JournalOpt = None,
    deck_pool: DeckPoolOpt = None,
    cards_file: CardsFileOpt = None,
    decks_file: DecksFileOpt = None,
    fuzz: Annotated[
        int,
        typer.Option(
            "--fuzz",
            min=0,
            max=MAX_FUZZ,
            help="Random legal positions built and checked against the rules oracle after the games "
            "(every effect and weather in round robin; on the shipped card table); 0 = none.",
        ),
    ] = 3000,
    in_search: Annotated[
        bool,
        typer.Option(
            "--in-search",
            help="Also check every state the agents visit inside their searches (slower; reaches "
            "positions play rarely does).",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Self-play with every invariant and rule checked after every action, then the fuzzer.

    Each violation is reported with the seed that replays the game and the move list that
    replays it without agents (`paiju yuxi replay REPORT`); each fuzz finding with the seed
    and index that rebuild its position. The coverage table counts how often the fuzzer saw
    every effect, weather and turn rule applied (the audit's reach). Exit code 1 when
    anything is found."""
    from paiju.yuxi.agents import REGISTRY
    from paiju.yuxi.audit import run_audit
    from paiju.yuxi.oracle.fuzz import run_fuzz

    agent_line_up(search, REGISTRY, expected=1, option="--search")
    pairs = (("random", "random"), (search, search))
    board_list = _boards(boards)
    report = run_audit(
        games, seed, boards=board_list, agent_pairs=pairs, progress=not as_json,
        backend=Backend(workers=workers, ray=ray), journal=journal,
        cards_file=cards_file, decks_file=decks_file, decks=_deck_pool(deck_pool), in_search=in_search,
    )
    fuzzed = run_fuzz(fuzz, seed, boards=board_list) if fuzz else None
    if out is not None:
        report.save(out)
    if as_json:
        data = report.to_dict()
        if fuzzed is not None:
            data["fuzz"] = {
                "positions": fuzzed.positions, "steps": fuzzed.steps, "coverage": dict(fuzzed.coverage),
                "skipped": dict(fuzzed.skipped), "findings": [f.describe() for f in fuzzed.findings],
            }
        print_json(data)
    else:
        console.print(
            f"audited {report.games} games ({report.steps} actions checked), seed {seed}: "
            + ", ".join(f"{n} {k}" for k, n in report.games_by_agents.items())
            + f"; card table {report.table_hash}"
        )
        if report.clean:
            console.print("[green]no invariant violated[/green]")
        for v in report.violations:
            console.print(f"[red]violation[/red] {v.describe()}")
            shown = v.moves if len(v.moves) <= 12 else [*v.moves[:4], "...", *v.moves[-6:]]
            console.print("  moves: " + " ; ".join(shown))
        if out is not None:
            console.print(f"report with full move lists: {out}")
        if fuzzed is not None:
            _print_fuzz(fuzzed, seed)
    if not report.clean or (fuzzed is not None and not fuzzed.clean):
        raise typer.Exit(1)


COVERAGE_TARGET = 100
"""Times the default audit should see every effect and weather applied (its reach)."""
MAX_FUZZ = 200_000
"""Most fuzz positions one audit may ask for (~5 minutes here)."""


def _print_fuzz(fuzzed: Any, seed: int) -> None:
    table = Table(title=f"fuzzer: {fuzzed.positions} positions, seed {seed}: times each rule was applied")
    table.add_column("effect / weather / turn rule")
    table.add_column("applied", justify="right")
    for rule, n in sorted(fuzzed.coverage.items(), key=lambda kv: kv[1]):
        table.add_row(rule, f"{n}" + ("  (below 100)" if n < COVERAGE_TARGET else ""))
    console.print(table)
    if fuzzed.skipped:  # the builder's misses are the audit's blind spots: say so
        n = fuzzed.skipped.total()
        console.print(
            f"[yellow]skipped {n} position{'s' if n != 1 else ''} the fuzzer could not build:[/yellow] "
            + ", ".join(f"{t} {k}" for t, k in sorted(fuzzed.skipped.items()))
        )
    if fuzzed.clean:
        console.print("[green]no fuzz position broke a rule[/green]")
    for f in fuzzed.findings:
        console.print(f"[red]fuzz finding[/red] {f.describe()}")


@app.command("replay", cls=LimitsHelpCommand)
def replay(
    report: Annotated[
        Path, typer.Argument(parser=input_file, help="An audit report written with `paiju yuxi audit --out`.")
    ],
    index: Annotated[int, typer.Option("--index", min=0, help="Which violation of the report.")] = 0,
    cards_file: CardsFileOpt = None,
    decks_file: DecksFileOpt = None,
) -> None:
    """Replay a violation from an audit report: the position before the failing move, then the error."""
    from paiju.yuxi.audit import load_report, replay_seed, replay_violation
    from paiju.yuxi.render import board_table

    rep = load_report(report)
    rep.check_table(cards_file, decks_file)
    if not rep.violations:
        console.print("the report has no violations")
        return
    if not 0 <= index < len(rep.violations):
        raise ConfigError(f"--index {index}: the report has {len(rep.violations)} violation(s)")
    v = rep.violations[index]
    # Refused (exit 2) when the table given, or the one the report names, hashes differently.
    state, step, err = replay_violation(v, cards_file=cards_file, decks_file=decks_file)
    console.print(v.describe())
    if v.in_search and err is None:
        # the moves reach the decision cleanly; the seeded game, its searches checked, fails in one
        console.print(board_table(state))
        _, search_err = replay_seed(v)
        if search_err is None:
            console.print("[green]the seeded game's searches replayed with no violation[/green]")
            return
        console.print(f"[red]inside the search for move {len(v.moves)}:[/red] {search_err}")
        raise typer.Exit(1)
    console.print(board_table(state))
    if err is None:
        console.print(
            f"[green]replayed all {len(v.moves)} moves with no violation[/green] "
            "(fixed already, or found with effect overrides)"
        )
    else:
        console.print(f"[red]move {step} '{v.moves[step]}' fails:[/red] {err}")
        raise typer.Exit(1)


@app.command("balance", cls=LimitsHelpCommand)
def balance(
    games: Annotated[
        int, typer.Option("--games", min=1, max=MAX_YUXI_GAMES, help="Games per board and die setting.")
    ] = 100,
    seed: SeedOpt = 0,
    agents: Annotated[
        str, typer.Option("--agents", help=agents_help("Agent specs of seat 0 and seat 1.", "yuxi"))
    ] = "greedy,greedy",
    boards: BoardsOpt = "3x3,4x4,6x4",
    out_dir: Annotated[
        Path | None,
        typer.Option("--out-dir", parser=output_dir, help="Write report.md, report.json and PNG plots here."),
    ] = None,
    workers: WorkersOpt = 1,
    ray: RayOpt = False,
    journal: JournalOpt = None,
    deck_pool: DeckPoolOpt = None,
    cards_file: CardsFileOpt = None,
    decks_file: DecksFileOpt = None,
    compare: Annotated[
        tuple[Path, Path] | None,
        typer.Option(
            "--compare",
            help="Two card tables A.toml B.toml: play the same games on both and report B − A "
            "(first-player and deck win rates) with paired intervals; --decks-file goes with both.",
        ),
    ] = None,
    luck: Annotated[
        bool,
        typer.Option(
            "--luck",
            help="Replay every game with the seats swapped on the same deal (twice the games) and "
            "report how much of each board's result the deal decides.",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """First-player win rate per board with and without the die bonus, deck matrix, card stats;
    with --compare, what a change of the card table does on the same seeds."""
    from paiju.yuxi.agents import REGISTRY
    from paiju.yuxi.balance import run_balance, save_plots

    specs = agent_line_up(agents, REGISTRY, expected=2)
    board_list = _boards(boards)
    if compare is not None:
        if luck:
            raise ConfigError("--luck goes with one card table, not with --compare")
        _compare_balance(
            compare, games, seed, (specs[0], specs[1]), board_list, out_dir, workers, ray, journal,
            deck_pool, cards_file, decks_file, as_json,
        )
        return
    report = run_balance(
        games, seed, agents=(specs[0], specs[1]), boards=board_list, progress=not as_json,
        backend=Backend(workers=workers, ray=ray), journal=journal,
        cards_file=cards_file, decks_file=decks_file, decks=_deck_pool(deck_pool), luck=luck,
    )
    if out_dir is not None:
        import json

        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "report.md").write_text(report.markdown(), encoding="utf-8")
        (out_dir / "report.json").write_text(json.dumps(report.to_dict(), indent=2) + "\n", encoding="utf-8")
        plots = save_plots(report, out_dir)
    if as_json:
        print_json(report.to_dict())
        return
    table = Table(
        title=f"first player ({specs[0]}) vs {specs[1]}: win rate, 95% interval; "
        f"card table {report.table_hash}"
    )
    for col in ("board", "die bonus", "win rate", "95% interval", "mean margin", "games"):
        table.add_column(col)
    for (b, d), e in report.first_player.items():
        table.add_row(
            b,
            "on" if d else "off",
            f"{e.value:.3f}",
            f"[{e.low:.3f}, {e.high:.3f}]",
            f"{report.mean_margin[(b, d)]:+.2f}",
            str(e.n),
        )
    console.print(table)
    if report.luck:
        luck_table = Table(title="luck: each game against its seat-swapped replay on the same deal")
        for col in ("board", "die bonus", "same seat won both", "same agent won both", "luck share", "pairs"):
            luck_table.add_column(col)
        for (b, d), x in report.luck.items():
            luck_table.add_row(
                b, "on" if d else "off", f"{x.same_seat.value:.3f}", f"{x.same_agent.value:.3f}",
                f"{x.share.value:.2f} [{x.share.low:.2f}, {x.share.high:.2f}]", str(x.share.n),
            )
        console.print(luck_table)
    decks = Table(title="decks (all boards and settings)")
    for col in ("deck", "win rate", "95% interval", "games"):
        decks.add_column(col)
    for k, e in sorted(report.deck_overall.items(), key=lambda kv: -kv[1].value):
        decks.add_row(k, f"{e.value:.3f}", f"[{e.low:.3f}, {e.high:.3f}]", str(e.n))
    console.print(decks)
    cards = Table(
        title="cards: play rate and win contribution (played - not played), by the interval's lower end"
    )
    for col in ("card", "in deck", "play rate", "contribution", "95% interval"):
        cards.add_column(col)
    # by the lower end of the interval: a card is called strong only when the data say so
    ranked = sorted((c for c in report.cards if c.contribution.n), key=lambda c: -c.contribution.low)
    for c in ranked:
        cards.add_row(
            c.key,
            str(c.in_deck),
            f"{c.play_rate.value:.2f}",
            f"{c.contribution.value:+.3f}",
            f"[{c.contribution.low:+.3f}, {c.contribution.high:+.3f}]",
        )
    console.print(cards)
    if out_dir is not None:
        console.print(f"wrote {out_dir / 'report.md'}, report.json and " + ", ".join(p.name for p in plots))



def _compare_balance(
    files: tuple[Path, Path], games: int, seed: int, agents: tuple[str, str], boards: list[str],
    out_dir: Path | None, workers: int, ray: bool, journal: Path | None, deck_pool: str | None,
    cards_file: Path | None, decks_file: Path | None, as_json: bool,
) -> None:
    import json

    from paiju.yuxi.balance import compare_balance

    if cards_file is not None:
        raise ConfigError("--compare A.toml B.toml names both card tables; leave out --cards-file")
    for f in files:
        if not f.is_file():
            raise ConfigError(f"--compare: {f} is not a file")
    result = compare_balance(
        games, seed, cards_files=files, decks_files=(decks_file, decks_file), agents=agents, boards=boards,
        decks=_deck_pool(deck_pool), progress=not as_json, journal=journal,
        backend=Backend(workers=workers, ray=ray),
    )
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "compare.md").write_text(result.markdown(), encoding="utf-8")
        (out_dir / "compare.json").write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8")
    if as_json:
        print_json(result.to_dict())
        return
    from rich.markdown import Markdown

    console.print(Markdown(result.markdown()))
    if out_dir is not None:
        console.print(f"wrote {out_dir / 'compare.md'} and compare.json")


@app.command("cards", cls=LimitsHelpCommand)
def cards(
    cards_file: Annotated[
        Path | None,
        typer.Option(
            "--cards-file",
            parser=input_file,
            help="Validate and list this card table instead of the shipped one.",
        ),
    ] = None,
    decks_file: Annotated[
        Path | None, typer.Option("--decks-file", parser=input_file, help="Deck table to validate with it.")
    ] = None,
    show_decks: Annotated[
        bool, typer.Option("--decks", help="List the fixed decks instead of the cards.")
    ] = False,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the card and deck reference of docs/yuxi-rules.md.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """List (and validate) the card table or the fixed decks."""
    from paiju.yuxi.cards import load_card_table

    table = load_card_table(cards_file, decks_file)
    if markdown:
        from paiju.yuxi.rulesdoc import card_reference_markdown

        typer.echo(card_reference_markdown(table), nl=False)
        return
    if show_decks:
        if as_json:
            print_json(
                {k: {"name": d.name, "size": d.size, "cards": dict(d.cards)} for k, d in table.decks.items()}
            )
            return
        out = Table(title="yuxi fixed decks")
        for col in ("deck", "name", "cards", "list"):
            out.add_column(col)
        for k, d in table.decks.items():
            out.add_row(k, d.name, str(d.size), ", ".join(f"{n}x {c}" for c, n in d.cards.items()))
        console.print(out)
        return
    listed = [c for c in table.cards[1:] if c is not None]
    if as_json:
        print_json([c.summary() for c in listed])
        return
    out = Table(title=f"yuxi cards ({table.source})")
    for col in ("id", "key", "faction", "rarity", "pts", "arm", "$", "cost", "cd", "titles", "text"):
        out.add_column(col)
    for c in listed:
        out.add_row(
            str(c.id),
            c.key,
            c.faction,
            c.rarity,
            str(c.points or "-"),
            str(c.armour or ""),
            str(c.coins or ""),
            str(c.cost or ""),
            str(c.cooldown or ""),
            ",".join(c.titles),
            c.text,
        )
    console.print(out)


def _rooms(
    boards: str, decks: str | None, die: bool, cards_file: Path | None, decks_file: Path | None,
    encoder: Any = None,
) -> Any:
    """The rooms of --boards / --decks (a fixed pair SEAT0,SEAT1, or None: drawn per game), on
    the ``encoder`` (an EncoderSpec; None: version 1)."""
    from paiju.yuxi.encoding import EncoderSpec
    from paiju.yuxi.rooms import YuxiRooms

    pair = None
    if decks is not None:
        names = _deck_pool(decks) or []
        if len(names) != 2:
            raise ConfigError(f"--decks {decks!r}: give two deck keys, SEAT0,SEAT1")
        pair = (names[0], names[1])
    return YuxiRooms(boards=tuple(_boards(boards)), decks=pair, die_bonus=die, cards_file=_file(cards_file),
                     decks_file=_file(decks_file), encoder=encoder or EncoderSpec())


ENCODERS = {"1": (1, False), "2": (2, False), "2+ids": (2, True)}
"""--encoder's values: (version, card ids) of :class:`paiju.yuxi.encoding.EncoderSpec`."""


def _encoder(text: str | None, init: str, out_dir: Path, resume: bool) -> Any:
    """The EncoderSpec of --encoder; not given, on a resume that of the run in ``out_dir`` (its
    identity's rooms name it), else that of the --init model (so the model's input is the
    run's), else version 1.

    A resume never opens the --init model: the trainer reads it at the run's start only, so a
    run resumes after its start model has been moved or deleted."""
    from paiju.yuxi.encoding import EncoderSpec

    if text is not None:
        if text not in ENCODERS:
            raise ConfigError(f"--encoder {text!r}: one of {', '.join(ENCODERS)}")
        version, card_ids = ENCODERS[text]
        return EncoderSpec(version, card_ids=card_ids)
    if resume:
        return _run_encoder(out_dir)
    if not init:
        return EncoderSpec()
    from paiju.algorithms.alphazero.checkpoint import model_payload

    meta = model_payload(init, "--init").get("meta", {})
    return EncoderSpec.of_model(meta if isinstance(meta, dict) else {}, f"--init {init}")


def _run_encoder(out_dir: Path) -> Any:
    """The EncoderSpec of the run in ``out_dir``: its config.json's identity holds the rooms as
    the run described them (the encoder named unless version 1). A folder without one (no run
    to resume, or one made before the run folder, hence before encoder version 2): version 1,
    and the trainer's own resume checks say what is wrong."""
    from paiju.core.run_folder import CONFIG, read_config
    from paiju.yuxi.encoding import EncoderSpec

    if not (out_dir / CONFIG).is_file():
        return EncoderSpec()
    rooms = (read_config(out_dir).get("identity") or {}).get("game")
    return EncoderSpec.of_model(rooms if isinstance(rooms, dict) else {}, f"--resume {out_dir}")


@app.command("train-az", cls=config_command(az.TRAIN_CONFIG))
def train_az(
    ctx: typer.Context,
    out_dir: az.OutOpt,
    boards: BoardsOpt = "3x3",
    decks: Annotated[
        str | None,
        typer.Option(
            "--decks", help="Two deck keys SEAT0,SEAT1 (one model per deck pair); default: drawn per game."
        ),
    ] = None,
    die: Annotated[bool, typer.Option("--die/--no-die", help="The first player's die bonus.")] = False,
    cards_file: CardsFileOpt = None,
    decks_file: DecksFileOpt = None,
    encoder: Annotated[
        str | None,
        typer.Option(
            "--encoder", metavar="1|2|2+ids",
            help="The network's input: 1 (cards by id, the shipped models), 2 (cards by their "
                 "attributes: follows card changes) or 2+ids (both); default: a resumed run's own, "
                 "else --init's model's, else 1.",
        ),
    ] = None,
    workers: az.WorkersOpt = 1,
    ray: az.RayOpt = False,
    resume: az.ResumeOpt = False,
) -> None:
    """Train an AlphaZero model for yuxi by self-play (resumable; see docs/alphazero.md).

    yuxi's front of the trainer of paiju az train, with the same training options; yuxi's own
    are the rooms (--boards, --decks, --die), the card table (--cards-file, --decks-file) and
    the input (--encoder). With --init OLD.pt and a changed card table the run starts from
    OLD.pt's network, its card rows mapped by card key (docs/alphazero.md, Following card
    changes).
    """
    init = str(config_values(ctx).get("init", ""))
    rooms = _rooms(boards, decks, die, cards_file, decks_file, _encoder(encoder, init, out_dir, resume))
    model = az.run_training(ctx, rooms, out_dir, game_id={"game": "yuxi", **rooms.describe()},
                            workers=workers, ray=ray, resume=resume)
    console.print(f"model: {model} (play it with az:model={model})")


@app.command("match", cls=LimitsHelpCommand)
def match(
    agent_a: Annotated[str, typer.Argument(help=agents_help("Agent spec A.", "yuxi"))],
    agent_b: Annotated[str, typer.Argument(help="Agent spec B.")],
    pairs: Annotated[
        int, typer.Option("--pairs", min=1, max=MAX_YUXI_GAMES, help="Seat-swapped pairs (2 games each).")
    ] = 50,
    boards: BoardsOpt = "3x3,4x4,6x4",
    decks: Annotated[
        str | None, typer.Option("--decks", help="Two deck keys SEAT0,SEAT1; default: drawn per pair.")
    ] = None,
    die: Annotated[bool, typer.Option("--die/--no-die", help="The first player's die bonus.")] = False,
    seed: SeedOpt = 0,
    workers: WorkersOpt = 1,
    ray: RayOpt = False,
    journal: JournalOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A against B on seat-swapped pairs (same room and deal, each seat once), rooms drawn per pair."""
    from paiju.yuxi.matches import match_pairs

    rooms = _rooms(boards, decks, die, None, None)
    result = match_pairs(agent_a, agent_b, rooms, pairs, seed, backend=Backend(workers=workers, ray=ray),
                         progress=not as_json, journal=journal)
    if as_json:
        print_json(result.to_dict())
        return
    table = Table(title=f"{agent_a} vs {agent_b}: score of A (win 1, draw 0.5), 95% interval over pairs")
    for col in ("board", "score", "95% interval", "pairs", "pairs split 1–1"):
        table.add_column(col)
    for board in [*result.boards(), None]:
        e = result.score(board)
        table.add_row(board or "all", f"{e.value:.3f}", f"[{e.low:.3f}, {e.high:.3f}]", str(e.n),
                      f"{result.split(board).value:.2f}")
    console.print(table)


@app.command("ladder", cls=LimitsHelpCommand)
def ladder(
    agents: Annotated[
        str,
        typer.Argument(
            help=agents_help("Agent specs separated by ';' (the first is the Elo anchor, 0).", "yuxi")
        ),
    ],
    pairs: Annotated[
        int, typer.Option("--pairs", min=1, max=MAX_YUXI_GAMES, help="Seat-swapped pairs per matchup.")
    ] = 10,
    boards: BoardsOpt = "3x3,4x4,6x4",
    die: Annotated[bool, typer.Option("--die/--no-die", help="The first player's die bonus.")] = False,
    seed: SeedOpt = 0,
    workers: WorkersOpt = 1,
    ray: RayOpt = False,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out-dir", parser=output_dir, help="Write ladder.md, ladder.json and ladder.png here."
        ),
    ] = None,
    journal: JournalOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A round robin of agents on seat-swapped pairs and their Elo ratings with 95% intervals."""
    import json

    from paiju.yuxi.matches import run_ladder

    specs = [s.strip() for s in agents.split(";") if s.strip()]
    result = run_ladder(specs, _rooms(boards, None, die, None, None), pairs, seed,
                        backend=Backend(workers=workers, ray=ray), progress=not as_json, journal=journal)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "ladder.md").write_text(result.markdown(), encoding="utf-8")
        (out_dir / "ladder.json").write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8")
        result.plot(out_dir / "ladder.png")
    if as_json:
        print_json(result.to_dict())
        return
    table = Table(title=f"Elo (anchor {specs[0]} = 0), {pairs} pairs per matchup")
    for col in ("agent", "Elo", "95% interval", "games"):
        table.add_column(col)
    for spec, r in sorted(zip(specs, result.ratings, strict=True), key=lambda x: -x[1].value):
        table.add_row(spec, f"{r.value:+.0f}", f"[{r.low:+.0f}, {r.high:+.0f}]", str(r.n))
    console.print(table)
