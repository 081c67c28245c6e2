"""`paiju ddz` sub-commands: moves, deal, play (the engine), split (hand splitting), selfplay."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from paiju.cli import options as opt
from paiju.cli.config_options import config_command, config_values
from paiju.cli.validate import (
    MAX_SELFPLAY_GAMES,
    LimitsHelpCommand,
    agents_help,
    ddz_deal,
    ddz_hand,
    ddz_move,
    input_file,
    parquet_input,
)

app = typer.Typer(no_args_is_help=True)


def _say(text: str) -> None:
    """Print plain text: card notation like ``[33][44]`` must not be read as Rich markup."""
    from paiju.cli.common import console

    console.print(text, markup=False, soft_wrap=True)


# --- engine commands: `paiju ddz moves | deal | play` (docs/doudizhu.md) ------------------------------


@app.command("moves", cls=LimitsHelpCommand)
def moves_command(
    hand: Annotated[
        str, typer.Argument(parser=ddz_hand, help="The hand in any card order, e.g. 34445556789TA22XD.")
    ],
    beat: Annotated[
        str | None,
        typer.Option("--beat", "-b", parser=ddz_move, help="The move to beat (omit for a free lead)."),
    ] = None,
    beat_type: Annotated[
        str | None,
        typer.Option(
            "--beat-type", help="Reading of --beat when its cards have two: trio_chain or airplane_solo."
        ),
    ] = None,
    wings: Annotated[
        str, typer.Option("--wings", help="Wing rule: douzero (default) or rlcard (strict).")
    ] = "douzero",
    as_json: Annotated[bool, opt.json_flag("Print machine-readable JSON.")] = False,
) -> None:
    """List every legal move of HAND (duplicate-free, canonical notation), grouped by type."""
    from paiju.cli.common import print_json
    from paiju.core.errors import ConfigError, InvalidNotationError
    from paiju.doudizhu.cards import Hand
    from paiju.doudizhu.movegen import generate
    from paiju.doudizhu.moves import PASS, Move, key_of

    if wings not in ("douzero", "rlcard"):
        raise ConfigError(f"--wings {wings!r}: use douzero or rlcard")
    cards = Hand.parse(hand)
    target = None
    if beat is not None:
        target = Move.parse(beat, beat_type)
        if target is PASS:
            raise InvalidNotationError("--beat pass: omit --beat for a free lead")
    elif beat_type is not None:
        raise ConfigError("--beat-type needs --beat")
    moves = generate(key_of(cards.counts), target, strict=wings == "rlcard")
    if target is not None and target.size > 0:
        moves_out = [*moves, PASS]
    else:
        moves_out = moves
    if as_json:
        print_json(
            {
                "hand": str(cards),
                "beat": None if target is None else {"cards": str(target), "type": target.type.name.lower()},
                "wings": wings,
                "count": len(moves),
                "moves": [{"cards": str(m), "type": m.type.name.lower()} for m in moves],
                "can_pass": target is not None,
            }
        )
        return
    where = "free lead" if target is None else f"to beat {target.describe()}"
    _say(f"{cards}  {where}: {len(moves)} moves{' + pass' if target is not None else ''}")
    by_type: dict[str, list[str]] = {}
    for m in moves_out:
        by_type.setdefault(m.type.label, []).append(str(m))
    for label, items in by_type.items():
        _say(f"{label} ({len(items)}): " + " ".join(items))


@app.command("deal", cls=LimitsHelpCommand)
def deal_command(
    seed: Annotated[int | None, opt.seed("Seed of the shuffle (random if omitted).")] = None,
    as_json: Annotated[bool, opt.json_flag("Print machine-readable JSON.")] = False,
) -> None:
    """Deal the 54 cards by the paper's algorithm: landlord (20 with the kitty), farmer 1, farmer 2."""
    from paiju.cli.common import print_json
    from paiju.doudizhu.cards import Deal

    deal = Deal.random(seed)
    if as_json:
        print_json(
            {
                "seed": seed,
                "deal": str(deal),
                "landlord": str(deal.landlord),
                "farmer1": str(deal.farmer1),
                "farmer2": str(deal.farmer2),
                "kitty": str(deal.kitty),
            }
        )
        return
    _say(str(deal))
    for role, hand in zip(("landlord", "farmer 1", "farmer 2"), deal.hands, strict=True):
        _say(f"{role:>9}: {hand}  ({len(hand)})")
    _say(f"{'kitty':>9}: {deal.kitty}  (open, part of the landlord's hand)")


@app.command("play", cls=LimitsHelpCommand)
def play_command(
    agents: Annotated[
        str,
        typer.Option(
            "--agents",
            "-a",
            help=agents_help("Three agent specs for seats 0, 1, 2 (landlord first).", "doudizhu"),
        ),
    ] = "random,random,random",
    seed: Annotated[int, opt.seed("Seed of the deal and of the agents.")] = 0,
    deal: Annotated[
        str | None,
        typer.Option(
            # escaped: Rich would read [landlord] as a markup tag and drop it
            "--deal", parser=ddz_deal, help="Play this deal (\\[landlord]\\[farmer 1]\\[farmer 2])."
        ),
    ] = None,
    bidding: Annotated[bool, typer.Option("--bidding", help="Decide the landlord by a 1-2-3 bid.")] = False,
    scoring: Annotated[
        str | None, typer.Option("--scoring", help="competition (the paper's, the default) or casual.")
    ] = None,
    wings: Annotated[
        str, typer.Option("--wings", help="Wing rule: douzero (default) or rlcard.")
    ] = "douzero",
    as_json: Annotated[bool, opt.json_flag("Print the game record as JSON.")] = False,
) -> None:
    """Play one game between three agents and print a readable transcript."""
    from paiju.cli.common import print_json
    from paiju.cli.validate import agent_line_up
    from paiju.core.protocol import PlayedGame, State, play_game
    from paiju.core.rng import derive_seed
    from paiju.doudizhu.agents import REGISTRY
    from paiju.doudizhu.cards import Deal
    from paiju.doudizhu.game import Bid, DouDizhuConfig, DouDizhuGame, DouDizhuState
    from paiju.doudizhu.moves import Move

    specs = agent_line_up(agents, REGISTRY, expected=3)
    players = [REGISTRY.make(spec, seed=derive_seed(seed, 1, i)) for i, spec in enumerate(specs)]
    rules = {"scoring": scoring} if scoring is not None else {}  # the game's default otherwise
    game = DouDizhuGame(DouDizhuConfig(bidding=bidding, wing_rule=wings, **rules))
    start = game.new_initial_state()
    if deal is not None:
        start.apply(Deal.parse(deal))
    lines: list[str] = []
    turn = 0

    def transcript(state: State, played: PlayedGame) -> None:
        nonlocal turn
        assert isinstance(state, DouDizhuState)
        seat, action = played.players[-1], played.actions[-1]
        if seat < 0:
            lines.append(f"deal {action}")
            return
        turn += 1
        if isinstance(action, Bid):
            lines.append(f"{turn:>3}. seat {seat} ({specs[seat]}): {action}")
        elif isinstance(action, Move):
            who = f"seat {seat} {state.role_name(seat):<8} ({specs[seat]})"
            text = "pass" if action.is_pass else f"{action}  [{action.type.label}]"
            lines.append(f"{turn:>3}. {who}: {text}")

    state = play_game(game, players, derive_seed(seed, 0), start=start, after_move=transcript).state
    assert isinstance(state, DouDizhuState)
    record = state.record()
    returns = state.returns()
    if as_json:
        print_json({"agents": specs, "seed": seed, "returns": returns, "record": record.to_dict()})
        return
    for line in lines:
        _say(line)
    _say(f"landlord: seat {state.landlord}; kitty {state.deal.kitty if state.deal else None}")
    winner = state.winner
    assert winner is not None
    side = "landlord" if winner == state.landlord else "farmers"
    facts = record.facts()
    _say(
        f"winner: seat {winner} ({side} win); bombs+rockets: {facts.bombs}; "
        f"{game.rule.name} score: landlord {returns[state.landlord or 0]:+g}; returns {returns}"
    )


# --- `paiju ddz split`: hand splitting (拆牌, docs/splitting.md) ----------------------------------------


@app.command("split", cls=LimitsHelpCommand)
def split_command(
    hand: Annotated[
        str, typer.Argument(parser=ddz_hand, help="The hand in any card order, e.g. 34445556789TA22XD.")
    ],
    method: Annotated[
        str,
        typer.Option(
            "--method",
            "-m",
            help="exact (provably optimal), heuristic (the paper's 40 orders) or tagger (learned from "
            "winners)",
        ),
    ] = "exact",
    objective: Annotated[
        str,
        typer.Option(
            "--objective", "-o", help="groups (fewest groups) or plays (fewest plays, kickers attached)"
        ),
    ] = "groups",
    as_json: Annotated[bool, opt.json_flag("Print machine-readable JSON instead of a table.")] = False,
) -> None:
    """Split a hand into basic groups; print each group with its type, the plays and the tags."""
    from rich.table import Table

    from paiju.cli.common import console, print_json
    from paiju.doudizhu.split import split as split_hand

    result = split_hand(hand, method=method, objective=objective)
    if as_json:
        print_json({"method": method, "objective": objective, **result.to_dict()})
        return
    how = "learned from winners" if method == "tagger" else f"fewest {objective}"
    console.print(f"{result.hand}  [dim]{method} split, {how}[/dim]")
    table = Table(show_edge=False)
    table.add_column("group")
    table.add_column("type")
    table.add_column("label", justify="right")
    for group in result:
        table.add_row(str(group), group.type.value, str(group.label))
    console.print(table)
    plays = result.plays()
    console.print(f"groups: {len(result)}   plays: {len(plays)}")
    console.print("plays:  " + "  ".join(f"{p} ({p.kind})" for p in plays))
    console.print(f"tags:   {result.tags()}")


# --- self-play at scale: `paiju ddz selfplay` (paiju/doudizhu/selfplay.py) ----------------------


@app.command("selfplay", cls=LimitsHelpCommand)
def selfplay_command(
    agents: Annotated[
        str,
        typer.Option(
            "--agents",
            "-a",
            help=agents_help(
                "Line-up in seat order (landlord, farmer 1, farmer 2), or one for all.", "doudizhu"
            ),
        ),
    ],
    games: Annotated[
        int,
        typer.Option(
            "--games", "-n", min=1, max=MAX_SELFPLAY_GAMES, help="Number of games (indices 0..N-1)."
        ),
    ],
    out: Annotated[Path, opt.out_dir("Record directory (Parquet); rerun to resume.")],
    workers: Annotated[int, opt.workers("Local processes (or Ray tasks in flight).", short=True)] = 1,
    seed: Annotated[int, opt.seed("Run seed: game i is dealt from derive_seed(seed, i).")] = 0,
    use_ray: Annotated[bool, opt.ray("Play on Ray ($RAY_ADDRESS, else a local instance).")] = False,
    as_json: Annotated[bool, opt.json_flag("Print the run summary as JSON.")] = False,
) -> None:
    """Record self-play games (core records format) with a progress bar; resumes after interruption."""
    from paiju.cli.common import console, print_json
    from paiju.cli.validate import agent_line_up
    from paiju.doudizhu.agents import REGISTRY
    from paiju.doudizhu.selfplay import selfplay

    specs = agent_line_up(agents, REGISTRY)
    result = selfplay(specs, games, out, workers=workers, seed=seed, use_ray=use_ray, progress=not as_json)
    if use_ray:
        import ray

        ray.shutdown()
    summary = result.as_dict()
    if as_json:
        print_json(summary)
        return
    rate = summary["games_per_second"]
    console.print(
        f"{summary['played']} games played, {summary['skipped']} already recorded, in {out} "
        f"({summary['backend']}, {workers} worker(s)"
        + (f", {rate:.1f} games/s)" if rate is not None else ")"),
        markup=False,
    )
    console.print(f"run {summary['run_id']}: {', '.join(summary['agents'])}", markup=False)


# --- the learned splitter: `paiju ddz tagger-data | tagger-train` (paiju/doudizhu/tagger/) ------


@app.command("tagger-data", cls=LimitsHelpCommand)
def tagger_data_command(
    records: Annotated[
        list[Path],
        typer.Option(
            "--records",
            "-r",
            parser=parquet_input,
            help="Record folder or file (repeatable); its deals are split into train/validation by hash.",
        ),
    ],
    out: Annotated[Path, opt.out_file("Dataset file to write (.parquet).")],
    test_records: Annotated[
        list[Path] | None,
        typer.Option(
            "--test-records",
            "-t",
            parser=parquet_input,
            help="Records of the test set (dealt from other seeds; repeatable). Without: --test of the "
            "deals.",
        ),
    ] = None,
    validation: Annotated[
        float, typer.Option("--validation", min=0.0, max=0.5, help="Share of deals for validation.")
    ] = 0.05,
    test: Annotated[
        float, typer.Option("--test", min=0.0, max=0.5, help="Share of deals held out (no --test-records).")
    ] = 0.05,
    as_json: Annotated[bool, opt.json_flag("Print the label statistics as JSON.")] = False,
) -> None:
    """Build the tagger's dataset: every winner's initial hand with the label of each card's play."""
    from paiju.cli.common import console, print_json
    from paiju.doudizhu.tagger.data import build_rows, label_statistics, write_dataset

    rows, dropped = build_rows(records, test_records or [], validation=validation, test=test)
    write_dataset(rows, out)
    stats = {"out": str(out), "dropped_test_deals": dropped, **label_statistics(rows)}
    if as_json:
        print_json(stats)
        return
    console.print(f"{len(rows)} winner hands written to {out}", markup=False)
    for group in ("by_split", "by_source"):
        for name, s in stats[group].items():
            share = " ".join(f"{k}:{v:.3f}" for k, v in s["label_share"].items())
            console.print(
                f"{name:>24}: {s['hands']:>7} hands {s['deals']:>7} deals, "
                f"landlord {s['landlord_share']:.2f}, labels {share}", markup=False,
            )
    if dropped:
        console.print(f"{dropped} training hands dropped: their deal is a test deal", markup=False)


@app.command(
    "tagger-train",
    cls=config_command("paiju.doudizhu.tagger.train:TrainConfig", skip=("data", "out", "progress")),
)
def tagger_train_command(
    ctx: typer.Context,
    data: Annotated[
        Path, typer.Option("--data", "-d", parser=input_file, help="Dataset from `paiju ddz tagger-data`.")
    ],
    out: Annotated[Path, opt.out_dir("Run folder (rerun to resume).")],
    as_json: Annotated[bool, opt.json_flag("Print the final metrics as JSON (no progress bar).")] = False,
) -> None:
    """Train the BiLSTM-CRF tagger (resumable; rerun to resume).

    Writes the run folder OUT: model.pt (the best epoch; shipped as models/tagger.pt), config.json,
    metrics.jsonl, metrics.json (its test metrics), curve.png and checkpoint.pt.
    """
    from paiju.cli.common import print_json
    from paiju.doudizhu.tagger.train import TrainConfig, train

    config = TrainConfig(data=str(data), out=str(out), progress=not as_json, **config_values(ctx))
    metrics = train(config)
    if as_json:
        print_json(metrics)
        return
    _print_tagger_metrics(metrics)


@app.command("table5", cls=LimitsHelpCommand)
def table5_command(
    out: Annotated[
        Path, opt.out_dir("Run folder: each player's records and table5.json / table5.png (rerun to resume).")
    ] = Path("runs/table5"),
    deals: Annotated[
        int, typer.Option("--deals", "-n", min=1, max=100_000, help="Random deals (seeded).")
    ] = 1000,
    seed: Annotated[int, opt.seed("Deal i is dealt from (seed, i).")] = 0,
    line_up: Annotated[
        str,
        typer.Option(
            "--players",
            "-p",
            help=agents_help(
                "AIs that play each deal in all three seats, comma-separated (one column each).", "doudizhu"
            ),
        ),
    ] = "xgb,search",
    leads: Annotated[
        int, typer.Option("--leads", min=1, max=20, help="Leading plays per role (the paper: 5).")
    ] = 5,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model", "-m", parser=input_file, help="Tagger checkpoint (default: the shipped one)."
        ),
    ] = None,
    workers: Annotated[int, opt.workers("Local processes.", short=True)] = 1,
    as_json: Annotated[bool, opt.json_flag("Print the table as JSON (no progress bar).")] = False,
) -> None:
    """The paper's Table 5: the share of each role's first leads that are groups of the 40-order,
    exact and tagger splits of its initial hand (Ph, Pg), with 95% intervals over deals."""
    from rich.table import Table

    from paiju.cli.common import console, print_json
    from paiju.cli.validate import agent_line_up
    from paiju.doudizhu.agents import REGISTRY
    from paiju.doudizhu.table5 import ROLES, SPLITTERS, Table5Config, run_table5

    names = tuple(agent_line_up(line_up, REGISTRY, option="--players"))
    config = Table5Config(out=str(out), deals=deals, seed=seed, players=names, leads=leads,
                          model=None if model is None else str(model), workers=workers, progress=not as_json)
    result = run_table5(config)
    if as_json:
        print_json(result)
        return
    heads = {"heuristic": "h (40-order)", "exact_groups": "exact groups", "exact_plays": "exact plays",
             "tagger": "g (tagger)"}

    def cell(e: dict[str, float], sign: str = "") -> str:  # value ± half the 95% interval
        return f"{e['value']:{sign}.3f} ±{(e['high'] - e['low']) / 2:.3f}"

    for player, entry in result["players"].items():
        table = Table(title=f"{player}: first {leads} leads of {entry['games']} deals", show_edge=False)
        for name in ("role", *(heads[n] for n in SPLITTERS), "g − h"):
            table.add_column(name, justify="left" if name == "role" else "right")
        for role in ("all", *ROLES):
            row = entry["table"][role]
            gap = cell(row["tagger_minus"]["heuristic"], "+")
            table.add_row(role, *(cell(row[n]) for n in SPLITTERS), gap)
        console.print(table)
    console.print(f"written: {out / 'table5.json'}, {out / 'table5.png'}", markup=False)


@app.command("tagger-eval", cls=LimitsHelpCommand)
def tagger_eval_command(
    data: Annotated[
        Path, typer.Option("--data", "-d", parser=input_file, help="Dataset from `paiju ddz tagger-data`.")
    ],
    model: Annotated[
        Path | None,
        typer.Option(
            "--model", "-m", parser=input_file, help="Tagger checkpoint (default: the shipped one)."
        ),
    ] = None,
    split_name: Annotated[
        str, typer.Option("--split", help="Rows to score: train, validation or test.")
    ] = "test",
    as_json: Annotated[bool, opt.json_flag("Print the metrics as JSON.")] = False,
) -> None:
    """Score a tagger and the three split baselines on a dataset's held-out hands, per data source."""
    from paiju.cli.common import print_json
    from paiju.core.errors import ConfigError
    from paiju.doudizhu.tagger.data import read_dataset
    from paiju.doudizhu.tagger.evaluate import evaluate_rows
    from paiju.doudizhu.tagger.model import load_model, tag_rows

    rows = read_dataset(data, split_name)
    if not rows:
        raise ConfigError(f"{data}: no {split_name} rows")
    tagger = load_model(model)
    tagged = tag_rows(tagger, rows)
    metrics = {"model": str(model) if model else "shipped", "split": split_name,
               "test": evaluate_rows(rows, [t.tags for t in tagged], [t.repaired for t in tagged])}
    if as_json:
        print_json(metrics)
        return
    _print_tagger_metrics(metrics)


def _print_tagger_metrics(metrics: dict[str, Any]) -> None:
    from paiju.cli.common import console

    if "epochs" in metrics:
        best = metrics["epochs"][metrics["best_epoch"] - 1]["validation"]
        console.print(
            f"best epoch {metrics['best_epoch']}: validation per-card {best['per_card']:.4f}", markup=False
        )
    for key, entry in metrics.get("test", {}).items():
        t = entry["tagger"]
        gap = entry["vs_best_baseline"]
        console.print(
            f"test {key}: tagger {t['per_card']:.4f} (exact {t['exact_match']:.3f}, "
            f"repair {t['repair_rate']:.3f}); "
            f"{entry['best_baseline']} {entry[entry['best_baseline']]['per_card']:.4f}; margin "
            f"{gap['margin']:+.4f} [{gap['low']:+.4f}, {gap['high']:+.4f}] over {gap['deals']} deals",
            markup=False,
        )
