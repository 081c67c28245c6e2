"""`paiju mahjong` sub-commands: shanten of a hand, one hand played with a transcript, arena."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from paiju.cli import arena_options
from paiju.cli import options as opt
from paiju.cli.common import console, print_json
from paiju.cli.config_options import config_command, config_values
from paiju.cli.validate import (
    MAX_HANDS,
    LimitsHelpCommand,
    agent_line_up,
    agents_help,
    input_dir,
    input_file,
    mahjong_hand,
    output_file,
)

app = typer.Typer(no_args_is_help=True)

_WINDS = "東南西北"


def _shanten_words(sh: int) -> str:
    if sh < 0:
        return "complete (胡)"
    if sh == 0:
        return "ready (聽牌)"
    return f"{sh}-shanten ({sh}向聽)"


@app.command(cls=LimitsHelpCommand)
def shanten(
    hand: Annotated[
        str,
        typer.Argument(
            parser=mahjong_hand,
            help="Concealed tiles (no exposed melds) in tenhou notation, e.g. 123m456p789s1122z.",
        ),
    ],
    json_out: opt.Json = False,
) -> None:
    """Shanten (向聽數) and effective tiles (進張) of a concealed hand of 3k+1 or 3k+2 tiles.

    Give only the concealed tiles: exposed melds are complete sets, so a hand with two
    melds is 10 or 11 concealed tiles (3 sets + a pair to go), and 16/17 without melds.
    A 3k+1 hand lists the tiles that lower its shanten with their unseen copies (4 minus
    the copies in the hand). A 3k+2 hand (a discard is due) lists every discard with the
    shanten it leaves and that hand's effective tiles, best first.
    """
    from paiju.mahjong.shanten import discard_options, effective_counts, shanten_counts
    from paiju.mahjong.tiles import format_counts, parse_counts, tile_name

    counts = parse_counts(hand)
    sh = shanten_counts(counts)
    n = sum(counts)
    out: dict[str, Any] = {"hand": format_counts(counts), "tiles": n, "sets_needed": n // 3, "shanten": sh}
    if n % 3 == 1:
        eff = effective_counts(counts)
        out["effective"] = {tile_name(k): v for k, v in eff.items()}
        out["effective_total"] = sum(eff.values())
    else:
        out["discards"] = [
            {
                "discard": tile_name(o.discard),
                "shanten": o.shanten,
                "effective": {tile_name(k): v for k, v in o.effective.items()},
                "effective_total": o.total,
            }
            for o in discard_options(counts)
        ]
    if json_out:
        print_json(out)
        return
    console.print(f"{out['hand']}  ({n} tiles, {n // 3} sets + a pair to go): {_shanten_words(sh)}")
    if n % 3 == 1:
        if out["effective"]:
            tiles = " ".join(f"{t}×{v}" for t, v in out["effective"].items())
            console.print(f"effective tiles: {tiles}  (total {out['effective_total']})")
        else:
            console.print("effective tiles: none")
        return
    if sh < 0:
        console.print("the hand is complete; discards listed for reference")
    from rich.table import Table

    table = Table(title="discards, best first")
    for col in ("discard", "shanten", "effective tiles", "total"):
        table.add_column(col, justify="right" if col in ("shanten", "total") else "left")
    for row in out["discards"]:
        eff_text = " ".join(f"{t}×{v}" for t, v in row["effective"].items()) or "—"
        table.add_row(row["discard"], str(row["shanten"]), eff_text, str(row["effective_total"]))
    console.print(table)


@app.command(cls=LimitsHelpCommand)
def play(
    agents: Annotated[
        str,
        typer.Option(
            "--agents", "-a", help=agents_help("Four agent specs for seats 0-3 (seat 0 deals).", "mahjong")
        ),
    ] = "expectimax,greedy,greedy,random",
    seed: Annotated[int, opt.seed("Seed of the shuffle (and of the agents).", short=False)] = 0,
    json_out: Annotated[bool, opt.json_flag("Print the moves and the result as JSON.")] = False,
) -> None:
    """Play one hand and print a readable transcript, with the scoring breakdown of each win."""
    from paiju.core.protocol import State, play_game
    from paiju.core.rng import derive_seed
    from paiju.mahjong.agents import REGISTRY
    from paiju.mahjong.game import MahjongGame, MahjongState

    specs = agent_line_up(agents, REGISTRY, expected=4)
    players = [REGISTRY.make(s, seed=derive_seed(seed, 1 + i)) for i, s in enumerate(specs)]
    game = MahjongGame()
    state = game.new_hand(seed=seed)
    lines: list[str] = []
    moves: list[dict[str, Any]] = []

    names = [f"{_WINDS[state.seat_wind(seat)]}{seat} {players[seat].name}" for seat in range(4)]

    def who(seat: int) -> str:
        return names[seat]

    from paiju.mahjong.game import PASS, DrawKind, Phase
    from paiju.mahjong.tiles import format_counts, tile_name

    lines.append(f"seed {seed}; dealer seat {state.dealer}; round wind {_WINDS[state.round_wind]}")
    for seat in range(4):
        lines.append(f"  {who(seat)}: {format_counts(state.hands[seat])}")
    drawn: list[tuple[bool, str]] = []  # per move: was it a turn (not a claim window), what was drawn

    def note_draw(at: State, seat: int) -> None:
        assert isinstance(at, MahjongState)
        text = ""
        if at.phase == Phase.TURN and at.drawn >= 0 and at.draw_kind != DrawKind.NONE:
            kind = "replacement " if at.draw_kind == DrawKind.REPLACEMENT else ""
            text = f"draws {kind}{tile_name(at.drawn)}, "
        drawn.append((at.phase == Phase.TURN, text))

    played = play_game(game, players, seed, start=state, notation=True, before_move=note_draw)
    for seat, action, text, (turn, draw) in zip(
        played.players, played.actions, played.moves, drawn, strict=True
    ):
        moves.append({"seat": seat, "action": int(action), "move": text})
        if turn or action != PASS:
            lines.append(f"{who(seat)}: {draw}{text}")
    result = state.last_result
    assert result is not None
    summary = _result_lines(state, result, [p.name for p in players])
    lines.extend(summary["lines"])
    if json_out:
        print_json({"seed": seed, "agents": specs, "moves": moves, "result": summary["json"]})
        return
    for line in lines:
        console.print(line, markup=False)


def _result_lines(state: Any, result: Any, names: list[str]) -> dict[str, Any]:
    """Transcript lines and JSON of a finished hand: winners, patterns, payments."""
    from paiju.mahjong.scoring import PATTERN_ENGLISH, payment_amount
    from paiju.mahjong.tiles import format_counts, tile_name

    cfg = state.cfg
    lines: list[str] = []
    wins: list[dict[str, Any]] = []
    if result.exhaustive:
        lines.append("exhaustive draw (流局): nobody wins")
    for i, w in enumerate(result.winners):
        how = "self-draw (自摸)" if result.self_draw else (
            f"robbing the kong of seat {result.discarder}" if result.robbed_kong
            else f"the discard of seat {result.discarder}"
        )
        score = result.scores[i]
        melds = " ".join(str(m) for m in state.melds[w]) or "no melds"
        lines.append(
            f"WIN: seat {w} ({names[w]}) on {tile_name(result.winning_tile)} by {how}: "
            f"{format_counts(result.winning_hands[i])} + [{melds}], read as {score.reading}"
        )
        payers = [result.discarder] if result.discarder is not None else [p for p in range(4) if p != w]
        pay_json = []
        for p in payers:
            breakdown = result.breakdown(i, p, cfg)
            tai = sum(v for _, v in breakdown)
            involved = result.dealer in (w, p)
            amount = payment_amount(
                score, dealer_involved=involved, continuation=result.continuation, config=cfg
            )
            parts = ", ".join(f"{name} {v}" for name, v in breakdown) or "no tai"
            lines.append(
                f"  seat {p} pays {amount} = {cfg.base} + {tai} tai × {cfg.per_tai}  [{parts}]"
            )
            pay_json.append({"payer": p, "amount": amount, "tai": tai, "breakdown": breakdown})
        lines.append(
            "  patterns: " + (", ".join(f"{n} ({PATTERN_ENGLISH.get(n, n)}) {v}" for n, v in score.patterns)
                              or "none (0 tai: base only)")
        )
        wins.append({
            "winner": w, "tile": tile_name(result.winning_tile), "self_draw": result.self_draw,
            "hand": format_counts(result.winning_hands[i]), "tai": score.tai,
            "patterns": [list(p) for p in score.patterns], "payments": pay_json,
        })
    lines.append("points: " + ", ".join(f"seat {s} {d:+d}" for s, d in enumerate(result.deltas)))
    return {
        "lines": lines,
        "json": {"exhaustive": result.exhaustive, "wins": wins, "deltas": list(result.deltas)},
    }


@app.command(cls=LimitsHelpCommand)
def arena(
    agents: Annotated[str, arena_options.agent_specs("mahjong")],
    games: arena_options.Games = 100,
    seed: arena_options.RunSeed = 0,
    fmt: arena_options.Format = None,
    options: arena_options.RuleOptions = None,
    match: arena_options.Match = None,
    workers: opt.Workers = 1,
    ray: arena_options.Ray = False,
    json_out: arena_options.ArenaJson = False,
    record: arena_options.Record = None,
    progress: opt.Progress = True,
) -> None:
    """Hands (or --match: whole matches) between agents: the arena with the game set to mahjong.

    The same options, defaults and report as the arena of every game (its -g mahjong), which
    adds the paper's win rate and mean score per seat-hand. 2v2 (the default) is the paper's
    set-up: two seats each, A B A B then B A B A on every deal, so every agent sits in every
    seat equally often; 2v2-all plays all six seatings of a wall.
    """
    arena_options.play_arena(
        "mahjong", agents, games, seed, fmt, options, match, workers, ray, json_out, record, progress
    )


@app.command(cls=LimitsHelpCommand)
def score(
    hand: Annotated[
        str,
        typer.Argument(
            parser=mahjong_hand,
            help="Concealed tiles before the winning tile, e.g. 123456789m234p67s55s (16, less 3 per meld).",
        ),
    ],
    win: Annotated[str, typer.Option("--win", "-w", help="The winning tile, e.g. 5s.")],
    melds: Annotated[
        str,
        typer.Option(
            "--melds",
            "-m",
            help="Melds: 123m chow, 555p pung, 7777s kong, 7777s+ added kong, [7777s] concealed kong.",
        ),
    ] = "",
    flags: Annotated[
        str,
        typer.Option(
            "--flags",
            "-f",
            help="Comma-separated: self-draw, robbing-kong, kong-bloom, last-tile, last-discard, "
            "heaven, earth, human, heaven-ready, earth-ready.",
        ),
    ] = "",
    seat: Annotated[int, typer.Option(min=0, max=3, help="The winner's seat.")] = 0,
    dealer: Annotated[int | None, typer.Option(min=0, max=3, help="The dealer's seat (東).")] = None,
    discarder: Annotated[
        int | None, typer.Option(min=0, max=3, help="Seat whose discard won (none for a self-draw).")
    ] = None,
    round_wind: Annotated[
        int | None, typer.Option("--round-wind", min=0, max=3, help="Prevailing wind, 0 = 東 .. 3 = 北.")
    ] = None,
    streak: Annotated[
        int | None, typer.Option(min=0, max=1000, help="Dealer continuation N (連N拉N).")
    ] = None,
    flowers: Annotated[str, typer.Option(help="The winner's flowers, 1f..8f = 春夏秋冬梅蘭竹菊.")] = "",
    options: Annotated[
        list[str] | None,
        opt.rule_options("A rule option as KEY=VALUE (as in paiju arena), repeatable."),
    ] = None,
    json_out: opt.Json = False,
) -> None:
    """Score a finished hand: every tai line, the total and each seat's payment.

    The notation is in docs/mahjong-score.md. Example: paiju mahjong score 23456789m234p66s
    --win 1m --melds 555z --discarder 2
    """
    from paiju.cli.validate import game_options
    from paiju.mahjong.game import MahjongGame
    from paiju.mahjong.score_hand import score_hand

    cfg = MahjongGame(**game_options("mahjong", options)).config
    scored = score_hand(
        hand, melds, winning_tile=win, flags=flags, seat=seat, dealer=dealer, discarder=discarder,
        round_wind=round_wind, continuation=streak, flowers=flowers, config=cfg,
    )
    if json_out:
        print_json(scored.as_dict())
        return
    _print_scored(scored)


def _print_scored(scored: Any) -> None:
    """A :class:`~paiju.mahjong.score_hand.ScoredHand`: its tai lines, total and payments."""
    from paiju.mahjong.scoring import PATTERN_ENGLISH

    cfg = scored.config
    for name, tai in scored.lines:
        console.print(f"  {name} ({PATTERN_ENGLISH.get(name, name)}): {tai}", markup=False)
    console.print(f"hand tai: {scored.total}  (read as {scored.score.reading})", markup=False)
    for p in scored.payments:
        extra = ", ".join(f"{n} {v}" for n, v in p.lines if n in ("莊家", "連莊"))
        console.print(
            f"seat {p.payer} pays {p.amount} = {cfg.base} + {p.tai} tai × {cfg.per_tai}"
            + (f"  [with {extra}]" if extra else ""),
            markup=False,
        )


@app.command(cls=LimitsHelpCommand)
def advise(
    hand: Annotated[
        str,
        typer.Argument(
            parser=mahjong_hand,
            help="Concealed tiles with a discard due (17, less 3 per meld), e.g. 123456789m2345p19s77z.",
        ),
    ],
    melds: Annotated[str, typer.Option("--melds", "-m", help="Own melds, as in 'paiju mahjong score'.")] = "",
    seen: Annotated[
        str, typer.Option("--seen", help="Tiles seen elsewhere (others' discards and melds).")
    ] = "",
    left: Annotated[int, typer.Option("--left", min=0, max=71, help="Live tiles still to draw.")] = 40,
    depth: Annotated[
        int, typer.Option(min=1, max=3, help="Expectimax discard layers (3: tens of seconds).")
    ] = 2,
    seat_wind: Annotated[int, typer.Option("--seat-wind", min=0, max=3, help="0 = 東 .. 3 = 北.")] = 0,
    round_wind: Annotated[int, typer.Option("--round-wind", min=0, max=3, help="0 = 東 .. 3 = 北.")] = 0,
    options: Annotated[
        list[str] | None,
        opt.rule_options("A rule option as KEY=VALUE (as in paiju arena), repeatable."),
    ] = None,
    top: Annotated[int, typer.Option(min=1, max=34, help="Candidates to show.")] = 34,
    json_out: opt.Json = False,
) -> None:
    """The best discard by the Expectimax: each candidate's value (points), shanten, effective
    tiles and win probability, best first (docs/mahjong-score.md). A hand that is already
    complete is a self-drawn win: its tai and payments instead (no discard to advise)."""
    from paiju.cli.validate import game_options
    from paiju.mahjong.game import MahjongGame
    from paiju.mahjong.score_hand import advise as advise_hand
    from paiju.mahjong.score_hand import self_draw_win

    cfg = MahjongGame(**game_options("mahjong", options)).config
    win = self_draw_win(hand, melds, seat_wind=seat_wind, round_wind=round_wind, config=cfg)
    if win is not None:
        _print_win(win, json_out)
        return
    rows = advise_hand(
        hand, melds, seen=seen, left=left, depth=depth, seat_wind=seat_wind, round_wind=round_wind,
        config=cfg,
    )[:top]
    if json_out:
        print_json({"best": rows[0].as_dict()["discard"], "candidates": [r.as_dict() for r in rows]})
        return
    from rich.table import Table

    table = Table(title=f"discards, best first (depth {depth}, {left} tiles left)")
    for col in ("discard", "value", "win prob.", "shanten", "effective tiles", "total"):
        table.add_column(col, justify="left" if col in ("discard", "effective tiles") else "right")
    for r in rows:
        d = r.as_dict()
        eff = " ".join(f"{t}×{v}" for t, v in d["effective"].items()) or "—"
        table.add_row(
            d["discard"], f"{r.value:.0f}", f"{100 * r.win_probability:.1f}%", str(r.shanten), eff,
            str(d["effective_total"]),
        )
    console.print(table)


def _print_win(win: Any, json_out: bool) -> None:
    """`advise` on a complete hand: the win, read with the drawn tile that scores best."""
    from paiju.mahjong.tiles import tile_name

    if json_out:
        print_json({"win": win.as_dict(), "best": None, "candidates": []})
        return
    lo, hi = win.tai_range
    tile = tile_name(win.drawn)
    head = f"the hand is a win: self-draw (自摸), {win.scored.total} tai"
    if lo == hi:
        head += f" whichever tile was drawn (read with {tile})"
    else:  # the wait tai depend on the tile drawn last, which the hand does not tell
        head += f" with {tile} as the tile drawn ({lo} to {hi} tai by the tile drawn)"
    console.print(head, markup=False, soft_wrap=True)
    _print_scored(win.scored)


ResumeOpt = Annotated[bool, typer.Option("--resume", help="Continue the run in --out from its checkpoint.")]


@app.command("train-dqn", cls=config_command("paiju.mahjong.train_dqn:TrainConfig", skip=("out", "curve")))
def train_dqn_command(
    ctx: typer.Context,
    out: Annotated[Path, opt.out_dir("Run folder.")],
    resume: ResumeOpt = False,
    json_out: Annotated[bool, opt.json_flag("Print the summary as JSON (no progress bar).")] = False,
) -> None:
    """Train the DQN / Double DQN by self-play behind the Expectimax (resumable; docs/mahjong-training.md §1).

    Writes the run folder OUT: model.pt (load it with the agent spec ddqn:model=PATH), metrics.jsonl,
    metrics.json, curve.png, config.json and checkpoint.pt.
    """
    from paiju.mahjong.train_dqn import TrainConfig, train

    config = TrainConfig(out=str(out), **config_values(ctx))
    summary = train(config, resume=resume, progress=not json_out)
    if json_out:
        print_json(summary)
        return
    last = summary["metrics"][-1] if summary["metrics"] else {}
    done = f"{summary['steps']} steps, {summary['hands']} hands"
    console.print(f"{done}: model {summary['model']}", markup=False)
    for m in summary["metrics"]:
        if m["kind"] == "eval":
            console.print(
                f"step {m['step']}: win rate {100 * m['win_rate']:.1f}%, {m['points_per_hand']:+.0f} "
                f"points per seat-hand against {m['against']} ({m['seat_hands']} seat-hands)", markup=False,
            )
    if last.get("loss") is not None:
        console.print(f"last loss {last['loss']:.4f}, mean Q {last['q_mean']:.3f}", markup=False)


@app.command("bot", cls=LimitsHelpCommand)
def bot_command(
    agent: Annotated[
        str,
        typer.Option(
            "--agent", "-a", help=agents_help("The agent spec, e.g. greedy or expectimax:depth=1.", "mahjong")
        ),
    ] = "greedy",
    seed: Annotated[int, opt.seed("Seed of the agent.", short=False)] = 0,
) -> None:
    """Play a paiju agent as a program of paiju's mahjong line protocol (docs/mahjong-protocol.md):
    referee messages on standard input, one answer line per /ask on standard output."""
    import sys

    from paiju.interop.mahjong import MahjongBot

    agent_line_up(agent, _registry(), expected=1, option="--agent")
    MahjongBot.from_spec(agent, seed=seed).serve(sys.stdin, sys.stdout)


def _registry() -> Any:
    from paiju.mahjong.agents import REGISTRY

    return REGISTRY


@app.command("referee", cls=LimitsHelpCommand)
def referee_command(
    bots: Annotated[
        list[str],
        typer.Option("--bots", help="Four bot command lines (seats 0-3), e.g. 'paiju mahjong bot'."),
    ],
    extra: Annotated[
        list[str] | None, typer.Argument(help="The other three bot commands.", show_default=False)
    ] = None,
    hands: Annotated[int, opt.hands("Hands to play.", most=100_000)] = 4,
    seed: Annotated[int, opt.seed("Seed of the walls (hand i: the arena's deal i).", short=False)] = 0,
    time_limit: Annotated[
        float, typer.Option("--time-limit", "-t", min=0.01, max=600, help="Seconds per answer.")
    ] = 5.0,
    options: Annotated[
        list[str] | None,
        opt.rule_options("A rule option as KEY=VALUE (as in paiju arena), repeatable."),
    ] = None,
    record: Annotated[
        Path | None,
        opt.record("Record the hands here (Parquet; see paiju records)."),
    ] = None,
    json_out: Annotated[bool, opt.json_flag("Print every hand and the report as JSON.")] = False,
    transcript: Annotated[
        Path | None,
        typer.Option(
            "--transcript", parser=output_file, help="Write every line sent and answered ('SEAT > LINE')."
        ),
    ] = None,
) -> int:
    """Referee four bot programs through paiju's mahjong line protocol, hand after hand.

    Seat i is bot i; the dealer moves on by the engine's rule. A bot that crashes, times out,
    answers garbage or an illegal move forfeits the hand (docs/mahjong-protocol.md).
    """
    from rich.table import Table

    from paiju.cli.validate import game_options
    from paiju.core.errors import ConfigError
    from paiju.interop.mahjong import Transcript, run_referee, write_transcript
    from paiju.mahjong.game import MahjongGame

    commands = [*bots, *(extra or [])]
    if len(commands) != 4:
        raise ConfigError(f"--bots: name 4 bot commands, got {len(commands)}")
    rules = MahjongGame(**game_options("mahjong", options)).config
    if rules.mode != "hand":
        raise ConfigError("--option mode=game: the referee plays hand by hand (mode=hand)")
    lines: Transcript | None = [] if transcript is not None else None
    try:
        played, stats, draws = run_referee(
            commands, hands, seed, time_limit=time_limit, rules=rules, out_dir=record, transcript=lines
        )
    finally:
        if transcript is not None and lines is not None:
            write_transcript(lines, transcript)
    if json_out:
        print_json({"hands": [h.as_dict() for h in played], "report": [s.as_dict() for s in stats],
                    "exhaustive_draw_rate": draws.as_dict()})
        return 0
    table = Table(title=f"mahjong referee: {hands} hands, seed {seed}")
    for col in ("seat", "bot", "hands", "win rate (95% CI)", "points / hand (95% CI)", "forfeits"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for s in stats:
        wr, pt = s.win_rate, s.points
        table.add_row(
            str(s.seat), s.bot, str(s.hands),
            wr.text(".1f", interval=True, percent=True), pt.text("+.0f", unit="hand"), str(s.forfeits),
        )
    console.print(table)
    dr = draws
    console.print(f"exhaustive draws: {dr.text('.1f', interval=True, percent=True)}")
    for h in played:
        if h.forfeit:
            f = h.forfeit
            console.print(f"hand {h.index}: seat {f['seat']} lost by forfeit: {f['reason']}", markup=False)
    if record is not None:
        console.print(f"records: {record}", markup=False)
    return 0


@app.command("discard-data", cls=LimitsHelpCommand)
def discard_data_command(
    out: Annotated[Path, opt.out_file("The Parquet file to write.")],
    agent: Annotated[
        str, typer.Option("--agent", "-a", help=agents_help("The expert agent of all four seats.", "mahjong"))
    ] = "expectimax-shanten",
    hands: Annotated[int, opt.hands("Hands to play.")] = 1000,
    seed: opt.Seed = 0,
    workers: Annotated[int, opt.workers("Processes (same rows with any).")] = 1,
    chunk: Annotated[
        int, typer.Option(min=1, max=100_000, help="Hands per chunk file (the unit of resume).")
    ] = 64,
    json_out: Annotated[bool, opt.json_flag("Print the summary as JSON.")] = False,
) -> None:
    """Play seeded hands of four expert seats and write one row per discard decision
    (features, legal discards, the discard; docs/mahjong-training.md §2). Run again with the same
    arguments to resume an interrupted job."""
    from paiju.mahjong.discard_data import DataConfig, generate

    summary = generate(DataConfig(out=str(out), agent=agent, hands=hands, seed=seed, workers=workers,
                                  chunk=chunk), progress=not json_out)
    if json_out:
        print_json(summary)
        return
    cost = summary["cost"]
    console.print(
        f"{summary['rows']} discard decisions of {hands} hands of {summary['agent']}: {out} "
        f"({cost['hands_per_s']:.2f} hands/s, {cost['cpu_s_per_hand']:.2f} CPU s per hand)", markup=False,
    )


@app.command("search-data", cls=LimitsHelpCommand)
def search_data_command(
    out: Annotated[Path, opt.out_dir("The output folder.")],
    hands: Annotated[int, opt.hands("Hands to play.")] = 1000,
    seed: opt.Seed = 0,
    teacher: Annotated[str, typer.Option(help="The value search that labels every decision.")] = "expectimax",
    player: Annotated[
        list[str] | None,
        typer.Option(
            "--player",
            "-p",
            help="A player a seat may draw (repeat; default: the teacher, expectimax, greedy).",
        ),
    ] = None,
    workers: Annotated[int, opt.workers("Processes (same rows with any).")] = 1,
    chunk: Annotated[
        int, typer.Option(min=1, max=100_000, help="Hands per chunk (the unit of resume).")
    ] = 32,
    json_out: Annotated[bool, opt.json_flag("Print the summary as JSON.")] = False,
) -> None:
    """Play seeded hands at a table of mixed players and label every decision with a choice by
    the teacher search (each option's value), with the opponents' hidden hands, readiness and
    waits (docs/mahjong-training.md §4). Run again with the same arguments to resume."""
    from paiju.mahjong.search_data import PLAYERS, SearchDataConfig, generate

    cfg = SearchDataConfig(out=str(out), hands=hands, seed=seed, teacher=teacher,
                           players=tuple(player) if player else PLAYERS, workers=workers, chunk=chunk)
    summary = generate(cfg, progress=not json_out)
    if json_out:
        print_json(summary)
        return
    cost = summary["cost"]
    console.print(
        f"{summary['rows']} labelled decisions of {hands} hands: {out} "
        f"({cost['cpu_s_per_hand']:.2f} CPU s per hand, "
        f"{cost['teacher_cpu_s'] / max(cost['cpu_s'], 1e-9):.0%} of it the teacher's)", markup=False,
    )


SearchDataOpt = Annotated[
    Path, typer.Option("--data", "-d", parser=input_dir, help="A finished search-data folder.")
]
"""The trainers' input: a folder of paiju mahjong search-data."""
RerunOutOpt = Annotated[Path, opt.out_dir("Run folder (rerun to resume).")]
ReportJsonOpt = Annotated[bool, opt.json_flag("Print the report as JSON.")]


@app.command(
    "train-reader", cls=config_command("paiju.mahjong.train_reader:ReaderConfig", skip=("data", "out"))
)
def train_reader_command(
    ctx: typer.Context,
    data: SearchDataOpt,
    out: RerunOutOpt,
    json_out: ReportJsonOpt = False,
) -> None:
    """Train the table reader (each opponent's readiness and waits) on a search-data folder's
    oracle labels, one opponent type left out, and report the held-out deal-in log-loss
    beside the fitted models and a constant (docs/results/mahjong-reader.md)."""
    from paiju.mahjong.train_reader import ReaderConfig, train

    report = train(ReaderConfig(data=str(data), out=str(out), **config_values(ctx)))
    if json_out:
        print_json(report)
        return
    for name, row in {**report["held_out_by_opponent"],
                      **({"reads-ceiling hands": report["reads_ceiling_hands"]}
                         if "reads_ceiling_hands" in report else {})}.items():
        if not row["samples"]:
            console.print(f"{name}: no held-out turn", markup=False)
            continue
        console.print(f"{name}: reader {row['reader']:.4f}, fitted {row['fitted_models']:.4f}, "
                      f"constant {row['constant']:.4f} ({row['samples']} samples)", markup=False)


@app.command(
    "train-distill", cls=config_command("paiju.mahjong.train_distill:DistillConfig", skip=("data", "out"))
)
def train_distill_command(
    ctx: typer.Context,
    data: SearchDataOpt,
    out: RerunOutOpt,
    json_out: ReportJsonOpt = False,
) -> None:
    """Train the network distilled from the value search (its advantage head prunes the tree,
    its value head values the leaves: expectimax-distill:model=OUT/model.pt) on a search-data
    folder's values, and report it on held-out hands (docs/mahjong-training.md §4)."""
    from paiju.mahjong.train_distill import DistillConfig, train

    report = train(DistillConfig(data=str(data), out=str(out), **config_values(ctx)))
    if json_out:
        print_json(report)
        return
    _print_distill_test(report["best_epoch"], report["test"])


@app.command(
    "finetune-dqn", cls=config_command("paiju.mahjong.finetune_dqn:FineTuneConfig", skip=("data", "out"))
)
def finetune_dqn_command(
    ctx: typer.Context,
    data: SearchDataOpt,
    out: RerunOutOpt,
    json_out: ReportJsonOpt = False,
) -> None:
    """Fine-tune a distilled network by Double DQN on a search-data folder's hands (the hand's
    points as the reward, a large-margin term toward the search's discard), and report it on
    held-out hands before and after (docs/mahjong-training.md §6). The model plays as
    expectimax-distill:model=OUT/model.pt."""
    from paiju.mahjong.finetune_dqn import FineTuneConfig, train

    report = train(FineTuneConfig(data=str(data), out=str(out), **config_values(ctx)))
    if json_out:
        print_json(report)
        return
    for name in ("test_start", "test"):
        t = report[name]
        console.print(
            f"{'start' if name == 'test_start' else 'fine-tuned'}: played Q against the points RMSE "
            f"{t['outcome']['rmse']:.1f} (a constant {t['outcome']['mean_rmse']:.1f}), Bellman residual "
            f"{t['bellman_rmse']:.1f}, top-1 agreement with the search {t['top1']:.3f}", markup=False)


def _print_distill_test(best_epoch: int, t: dict[str, Any]) -> None:
    console.print(
        f"best epoch {best_epoch}; test: value RMSE {t['value']['rmse']:.1f} points (analytic leaf "
        f"{t['value']['analytic_leaf_rmse']:.1f}), advantage RMSE {t['advantage_root']['rmse']:.1f} (zero "
        f"{t['advantage_root']['zero_rmse']:.1f}), top-1 agreement {t['agreement']['network']['top1']:.3f} "
        f"(analytic leaf {t['agreement']['analytic_leaf']['top1']:.3f})", markup=False)


@app.command(
    "expert-iteration", cls=config_command("paiju.mahjong.expert_iteration:RoundConfig", skip=("out",))
)
def expert_iteration_command(
    ctx: typer.Context,
    out: Annotated[Path, opt.out_dir("The iteration's folder (rerun to resume a round).")],
    json_out: Annotated[bool, opt.json_flag("Print the round's summary as JSON (no progress bar).")] = False,
) -> None:
    """Run one round of expert iteration: the previous round's distilled search plays and labels
    the round's hands, and its network is retrained on them from its own weights
    (docs/mahjong-training.md §5). Round 1 starts from --init (the shipped mj-distill.pt)."""
    from paiju.mahjong.expert_iteration import RoundConfig, run_round

    summary = run_round(RoundConfig(out=str(out), **config_values(ctx)), progress=not json_out)
    if json_out:
        print_json(summary)
        return
    data = summary["data"]
    console.print(f"round {summary['round']}: {data['hands']} hands, {data['rows']} labelled decisions by "
                  f"{summary['teacher']}; {summary['cpu_hours']:.2f} CPU hours", markup=False)
    _print_distill_test(summary["training"]["best_epoch"], summary["training"]["test"])
    console.print(f"the round's agent: {summary['agent']}", markup=False)


@app.command(
    "train-supervised",
    cls=config_command("paiju.mahjong.train_supervised:SupervisedConfig", skip=("data", "out", "curve")),
)
def train_supervised_command(
    ctx: typer.Context,
    data: Annotated[
        Path, typer.Option("--data", "-d", parser=input_file, help="The discard-data Parquet file.")
    ],
    out: Annotated[Path, opt.out_dir("Run folder.")],
    resume: ResumeOpt = False,
    json_out: Annotated[bool, opt.json_flag("Print the summary as JSON (no progress bar).")] = False,
) -> None:
    """Train a supervised discard model on an expert's decisions (resumable; docs/mahjong-training.md §2).

    Writes the run folder OUT: model.pt (play it with the agent spec supervised:model=PATH; shipped
    as mj-sup-MODEL.pt), metrics.jsonl, metrics.json (the test accuracy), curve.png, config.json and
    checkpoint.pt. With --target score a value model (the leaves of
    expectimax-ddqn:value_model=PATH,leaf=draw; shipped as mj-value-MODEL.pt).
    """
    from paiju.mahjong.train_supervised import SupervisedConfig, train

    config = SupervisedConfig(data=str(data), out=str(out), **config_values(ctx))
    summary = train(config, resume=resume, progress=not json_out)
    if json_out:
        print_json(summary)
        return
    last = summary["metrics"][-1]
    if config.target == "score":
        def r(x: float | None) -> str:
            return "undefined" if x is None else f"{x:.3f}"

        console.print(
            f"{summary['model']} value model: {summary['epochs']} epochs, validation correlation "
            f"{r(last['validation_correlation'])}, test correlation {r(summary['test_correlation'])} and "
            f"squared error {summary['test_loss']:.4f} (the mean's {summary['test_mean_loss']:.4f}) on "
            f"{summary['data']['test_rows']} positions of {summary['data']['hands']['test']} held-out hands; "
            f"model {summary['model_file']}", markup=False,
        )
        return
    console.print(
        f"{summary['model']}: {summary['epochs']} epochs, "
        f"validation accuracy {100 * last['validation_accuracy']:.1f}%, "
        f"test accuracy {100 * summary['test_accuracy']:.1f}% on {summary['data']['test_rows']} decisions of "
        f"{summary['data']['hands']['test']} held-out hands (a random legal discard: "
        f"{100 * summary['test_chance_accuracy']:.1f}%); model {summary['model_file']}", markup=False,
    )


def _names(value: str, what: str) -> list[str]:
    names = [n.strip() for n in value.split(",")]
    if not value.strip() or any(not n for n in names):
        raise typer.BadParameter(f"empty name in {what} {value!r}")
    return names


def _table_summary(results: list[dict[str, Any]], out: Path, name: str, json_out: bool) -> None:
    if json_out:
        print_json({"out": str(out), "results": results})
        return
    from rich.table import Table

    from paiju.mahjong.tables import format_estimate as ci

    table = Table(title=f"{name}: each row against the baseline, 2v2-all, paired by wall")
    for col in ("algorithm", "hands", "win rate", "Δ win rate", "Δ points / seat-hand", "median s"):
        table.add_column(col, justify="left" if col == "algorithm" else "right")
    for r in results:
        median = r["decision_A"].get("median_ms")
        table.add_row(r["row"]["name"], str(r["hands"]), ci(r["win_rate_A"]),
                      ci(r["win_rate_A_minus_B"], sign=True),
                      ci(r["score_A_minus_B"], digits=0, sign=True),
                      "—" if median is None else f"{median / 1000:.3f}")
    console.print(table)
    console.print(f"table: {out / (name + '.md')}, plot: {out / (name + '.png')}", markup=False)


_TableSeed = opt.Seed
_TableWorkers = Annotated[int, opt.workers("Processes (same results).")]
_TableJson = Annotated[bool, opt.json_flag("Print the results as JSON (no progress bar).")]


@app.command("table4", cls=LimitsHelpCommand)
def table4_command(
    out: Annotated[Path, opt.out_dir("Folder of the table and its records.")],
    models: Annotated[
        Path | None,
        typer.Option(
            parser=input_dir,
            help="Folder of mj-sup-M.pt, mj-dqn.pt, mj-ddqn.pt (default: the shipped models).",
        ),
    ] = None,
    only: Annotated[
        str,
        typer.Option(
            help="Comma-separated subset of: linear,svm,mlp,cnn,densenet,resnet,dqn,ddqn,"
            "expectimax,expectimax-dqn,expectimax-ddqn (default: all)."
        ),
    ] = "",
    baseline: Annotated[
        str, typer.Option("--baseline", "-b", help=agents_help("The opponent of every row.", "mahjong"))
    ] = "expectimax-shanten",
    walls: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=MAX_HANDS // 6,
            help="Walls per algorithm (x6 seatings = hands); default 40, or 500 with --full.",
        ),
    ] = None,
    full: Annotated[
        bool, typer.Option("--full", help="The paper's configuration: 500 walls = 3,000 hands.")
    ] = False,
    seed: _TableSeed = 0,
    workers: _TableWorkers = 1,
    json_out: _TableJson = False,
) -> None:
    """The paper's Table 4: every algorithm against the Expectimax, 2 vs 2 over all 6 seatings
    on paired walls (docs/mahjong-training.md §3). Run again with the same options to resume."""
    from paiju.mahjong.agents import REGISTRY
    from paiju.mahjong.agents.dqn import MODEL_DIR
    from paiju.mahjong.tables import FULL_WALLS, SCALED_WALLS, TABLE4, TableConfig, run_table, table4_rows

    REGISTRY.resolve(baseline)
    chosen = _names(only, "--only") if only else list(TABLE4)
    n = walls if walls is not None else FULL_WALLS if full else SCALED_WALLS
    rows = table4_rows(models or MODEL_DIR, chosen, baseline)
    cfg = TableConfig(out=str(out), rows=rows, baseline=baseline, walls=n, seed=seed, workers=workers)
    _table_summary(run_table(cfg, "table4", progress=not json_out), out, "table4", json_out)


@app.command("alpha-sweep", cls=LimitsHelpCommand)
def alpha_sweep_command(
    out: Annotated[Path, opt.out_dir("Folder of the tables and records.")],
    model: Annotated[
        Path, typer.Option("--model", "-m", parser=input_file, help="The Q-network (mj-ddqn.pt).")
    ],
    network: Annotated[str, typer.Option(help="dqn or ddqn: which combined agent plays it.")] = "ddqn",
    alphas: Annotated[str, typer.Option(help="Comma-separated alphas in (0, 1].")] = "0.2,0.4,0.6,0.8,1.0",
    depths: Annotated[str, typer.Option(help="Comma-separated depths (1-3).")] = "1,2",
    baseline: Annotated[
        str, typer.Option("--baseline", "-b", help=agents_help("The opponent of every point.", "mahjong"))
    ] = "expectimax-shanten",
    walls: Annotated[
        int, typer.Option(min=1, max=MAX_HANDS // 6, help="Walls per point (x6 seatings = hands).")
    ] = 10,
    seed: _TableSeed = 0,
    workers: _TableWorkers = 1,
    json_out: _TableJson = False,
) -> None:
    """The paper's Tables 5-7: the combined algorithm at every alpha x depth against the
    Expectimax (decision time, win rate, score; docs/mahjong-training.md §3). Resumable like table4."""
    from paiju.mahjong.agents import REGISTRY
    from paiju.mahjong.tables import TableConfig, run_sweep, sweep_rows

    REGISTRY.resolve(baseline)

    def numbers(text: str, what: str, kind: type) -> list[Any]:
        try:
            return [kind(x) for x in _names(text, what)]
        except ValueError:
            raise typer.BadParameter(f"{what} {text!r}: not a list of numbers") from None

    rows = sweep_rows(model, numbers(alphas, "--alphas", float), numbers(depths, "--depths", int), network)
    cfg = TableConfig(out=str(out), rows=rows, baseline=baseline, walls=walls, seed=seed, workers=workers)
    _table_summary(run_sweep(cfg, progress=not json_out), out, "alpha-sweep", json_out)
