"""`paiju records`: list, show, replay, import and export game records (docs/records.md).

A records folder is what `paiju arena --record DIR`, the self-play commands or an import
wrote: ``run.json`` plus Parquet batches. ``list`` also accepts a folder of such folders. Bad
files end in one line naming the file (and for JSON lines the line), exit code 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from paiju.cli import options as opt
from paiju.cli.validate import LimitsHelpCommand, existing_dir, input_file, output_dir

app = typer.Typer(no_args_is_help=True)

_EXPORT_FIELDS = (
    "game",
    "game_index",
    "deal_index",
    "seed",
    "rules_version",
    "deal",
    "dealer_seat",
    "agents",
    "roles",
    "moves",
    "move_players",
    "returns",
    "score",
    "scoring_rule",
    "extra",
)
"""The columns `export` writes: exactly the fields `import` reads, so the two round-trip."""


records_dir = existing_dir("a folder of game records", "a folder of records")
"""An existing folder of records (a run) or of runs."""


def _say(text: str) -> None:
    from paiju.cli.common import console

    console.print(text, markup=False, soft_wrap=True, highlight=False)


def run_folders(folder: Path) -> list[Path]:
    """The runs under ``folder``: itself when it holds records, else its sub-folders that do."""
    from paiju.core.errors import NotFoundError
    from paiju.core.records import RUN_FILE, record_files

    if record_files(folder) or (folder / RUN_FILE).exists():
        return [folder]
    runs = sorted(p for p in folder.iterdir() if p.is_dir() and record_files(p))
    if not runs:
        raise NotFoundError(f"{folder}: no game records here (no .parquet files, no run.json)")
    return runs


def _run_header(folder: Path) -> dict[str, Any]:
    from paiju.core.errors import CorruptRecordError
    from paiju.core.records import RUN_FILE

    path = folder / RUN_FILE
    if not path.exists():
        return {}
    try:
        header = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CorruptRecordError(f"{path}: not valid JSON ({err})") from None
    if not isinstance(header, dict):
        raise CorruptRecordError(f"{path}: a run header must be a JSON object")
    return header


def _games_query(folder: Path, where: str = "", params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    from paiju.core.records import connect

    con = connect(folder)
    sql = f"SELECT * FROM games {where} ORDER BY game_index"
    rows: list[dict[str, Any]] = con.sql(sql, params=params or {}).to_arrow_table().to_pylist()
    return rows


def run_summary(folder: Path, limit: int) -> dict[str, Any]:
    """One run: its header, its game count and its first ``limit`` games (one line each)."""
    from paiju.core.records import connect

    header = _run_header(folder)
    con = connect(folder)
    count, games = con.sql("SELECT count(*), list(DISTINCT game) FROM games").fetchall()[0]
    rows = (
        con.sql(
            "SELECT game_index, deal_index, game, agents, roles, returns, score, len(moves) AS moves "
            "FROM games ORDER BY game_index LIMIT $n",
            params={"n": limit},
        )
        .to_arrow_table()
        .to_pylist()
    )
    config = header.get("config", {}) if isinstance(header.get("config"), dict) else {}
    return {
        "path": str(folder),
        "run_id": header.get("run_id"),
        "kind": config.get("kind", "arena" if "agents" in config else None),
        "games": int(count),
        "game_names": sorted(games or []),
        "first_games": rows,
    }


@app.command("list", cls=LimitsHelpCommand)
def list_command(
    folder: Annotated[
        Path, typer.Argument(parser=records_dir, help="A records folder, or a folder of them.")
    ],
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=0, max=100_000, help="Games to list per run.")
    ] = 20,
    json_out: opt.Json = False,
) -> None:
    """List the runs under FOLDER and their games (index, agents, returns, number of moves)."""
    from paiju.cli.common import print_json

    summaries = [run_summary(f, limit) for f in run_folders(folder)]
    if json_out:
        print_json(summaries)
        return
    for s in summaries:
        names = ",".join(s["game_names"]) or "-"
        _say(
            f"{s['path']}: run {s['run_id'] or '-'} ({s['kind'] or 'records'}), {s['games']} games of {names}"
        )
        lines = [_game_line(g, ",".join(g["agents"] or []) or "-") for g in s["first_games"]]
        if any(len(line) > LINE_WIDTH for line in lines):
            # long specs (a referee's bot commands): each named once by a label, within the width
            labels: dict[str, str] = {}
            for g in s["first_games"]:
                for spec in g["agents"] or []:
                    labels.setdefault(spec, f"#{len(labels) + 1}")
            for spec, label in labels.items():
                _say(f"  {label} {_abbreviate(spec, LINE_WIDTH - 3 - len(label))}")
            lines = [
                _game_line(g, ",".join(labels[a] for a in g["agents"] or []) or "-") for g in s["first_games"]
            ]
        for line in lines:
            _say(line)
        if s["games"] > len(s["first_games"]):
            _say(f"  ... {s['games'] - len(s['first_games'])} more (--limit)")


LINE_WIDTH = 100
"""Columns a `records list` line keeps within (the full agent specs are in --json)."""


def _game_line(g: dict[str, Any], agents: str) -> str:
    score = "" if g["score"] is None else f" score {g['score']:g}"
    returns = " ".join(f"{r:g}" for r in g["returns"])
    return (
        f"  game {g['game_index']:>6}  deal {g['deal_index']:>6}  {agents}"
        f"  returns [{returns}]{score}  {g['moves'] or 0} moves"
    )


def _abbreviate(text: str, width: int) -> str:
    """``text`` within ``width`` columns: its start and its longer end (where a bot command
    names its agent) around an ellipsis."""
    if len(text) <= width:
        return text
    head = (width - 1) // 3
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def transcript(row: dict[str, Any]) -> list[str]:
    """A recorded game as text: header, one line per move (seat, role, agent), result."""
    agents = row["agents"] or []
    roles = row["roles"] or []
    lines = [
        f"game {row['game_index']} of run {row['run_id']}: {row['game']}"
        f" (rules {row['rules_version'] or '-'})"
    ]
    if row["deal"] is not None:
        lines.append(f"deal: {row['deal']}")
    for seat in range(len(row["returns"])):
        who = " ".join(
            x
            for x in (roles[seat] if seat < len(roles) else "", agents[seat] if seat < len(agents) else "")
            if x
        )
        lines.append(f"seat {seat}: {who or '-'}")
    players = row["move_players"] or []
    for n, move in enumerate(row["moves"] or [], start=1):
        player: int | None = players[n - 1] if n - 1 < len(players) else None
        if player is None or player < 0:
            lines.append(f"{n:>4}  chance    {move}")
        else:
            role = f" {roles[player]}" if player < len(roles) else ""
            lines.append(f"{n:>4}  seat {player}{role:<9} {move}")
    forfeit = _forfeit(row)
    if forfeit is not None:  # the referees' record of a bot that broke the protocol
        reason = forfeit.get("reason", "(no reason recorded)")
        lines.append(f"forfeit: seat {forfeit.get('seat', '?')}: {reason}")
    returns = " ".join(f"{r:g}" for r in row["returns"])
    score = "" if row["score"] is None else f", score {row['score']:g} ({row['scoring_rule']})"
    lines.append(f"returns: [{returns}]{score}")
    return lines


def _forfeit(row: dict[str, Any]) -> dict[str, Any] | None:
    """``extra.forfeit`` of a refereed game (mahjong referee, Botzone judge), if any."""
    from paiju.core.errors import CorruptRecordError

    if not row.get("extra"):
        return None
    try:
        extra = json.loads(row["extra"])
    except json.JSONDecodeError as err:
        where = f"game {row['game_index']}"
        raise CorruptRecordError(f"{where}: column 'extra' is not JSON ({err.msg})") from None
    forfeit = extra.get("forfeit") if isinstance(extra, dict) else None
    return forfeit if isinstance(forfeit, dict) else None


@app.command("show", cls=LimitsHelpCommand)
def show_command(
    folder: Annotated[Path, typer.Argument(parser=records_dir, help="A records folder (one run).")],
    game_index: Annotated[int, typer.Argument(min=0, help="The game's index in the run.")],
    json_out: Annotated[bool, opt.json_flag("Print the row as JSON.")] = False,
) -> None:
    """Show one recorded game as a transcript."""
    from paiju.cli.common import print_json
    from paiju.core.errors import NotFoundError

    rows = _games_query(folder, "WHERE game_index = $i", {"i": game_index})
    if not rows:
        raise NotFoundError(f"{folder} has no game {game_index}")
    if json_out:
        print_json(rows[0])
        return
    for line in transcript(rows[0]):
        _say(line)


def _indices(text: str | None, folder: Path) -> list[int]:
    """The game indices ``--indices`` names (in order, each once), all recorded in ``folder``.

    A range that runs backwards or names a game the run does not hold is refused: replaying
    "0 of 0 games" would be a silent success on a typo."""
    from paiju.core.errors import ConfigError
    from paiju.core.records import read_records

    recorded = sorted(read_records(folder, columns=["game_index"])["game_index"].to_pylist())
    if text is None:
        return recorded
    span = ""
    if recorded and len(recorded) == recorded[-1] - recorded[0] + 1:
        span = f", indices {recorded[0]}-{recorded[-1]}"
    ranges = []
    for part in text.split(","):  # the syntax of every part first, then what each names
        lo, dash, hi = part.strip().partition("-")
        if not (lo.isascii() and lo.isdigit()) or (dash and not (hi.isascii() and hi.isdigit())):
            raise ConfigError(f"--indices {text!r}: write indices like 0,3,10-19")
        ranges.append((int(lo), int(hi or lo)))
    out: dict[int, None] = {}  # ordered and each index once
    for first, last in ranges:
        if last < first:
            raise ConfigError(
                f"--indices {text!r}: the range {first}-{last} runs backwards (write {last}-{first})"
            )
        # checked before the range is expanded: 0-99999999999 must not build a list first
        missing = _first_gap(recorded, first, last)
        if missing is not None:
            raise ConfigError(
                f"--indices {text!r}: no recorded game {missing} (the run holds {len(recorded)} games{span})"
            )
        out.update(dict.fromkeys(range(first, last + 1)))
    return list(out)


def _first_gap(recorded: list[int], first: int, last: int) -> int | None:
    """The first index of ``first..last`` missing from the sorted, distinct ``recorded``."""
    import bisect

    lo, hi = bisect.bisect_left(recorded, first), bisect.bisect_right(recorded, last)
    if hi - lo == last - first + 1:
        return None
    return next((first + k for k, i in enumerate(recorded[lo:hi]) if i != first + k), first + hi - lo)


@app.command("replay", cls=LimitsHelpCommand)
def replay_command(
    folder: Annotated[
        Path, typer.Argument(parser=records_dir, help="An arena records folder (with run.json).")
    ],
    indices: Annotated[
        str | None, typer.Option("--indices", "-i", help="Game indices, e.g. 0,3,10-19 (default: all).")
    ] = None,
    json_out: opt.Json = False,
) -> int:
    """Replay recorded games through the engine from their seeds and compare every move.

    Exit code 1 when a game differs from its record (the first differing move is named).
    """
    from paiju.cli.common import print_json
    from paiju.core.arena import replay_check
    from paiju.core.errors import ConfigError

    config = _run_header(folder).get("config")
    if isinstance(config, dict) and config.get("kind") == "import":
        raise ConfigError(
            f"{folder} holds imported games ({config.get('source')}); only games paiju played "
            "(arena, self-play) carry the seeds a replay needs"
        )
    if isinstance(config, dict) and config.get("kind") == "mahjong-referee":
        from paiju.interop.mahjong import replay_records as replay_check  # bots' moves replayed
    checks = replay_check(folder, _indices(indices, folder))
    if json_out:
        print_json([c.__dict__ for c in checks])
    else:
        for c in checks:
            verdict = "identical" if c.identical else f"DIFFERS at move {c.first_difference}"
            _say(f"game {c.game_index}: {c.recorded_moves} moves, {verdict}")
        same = sum(c.identical for c in checks)
        _say(f"{same} of {len(checks)} games replayed identically")
    if all(c.identical for c in checks):
        return 0
    raise typer.Exit(1)


@app.command("import", cls=LimitsHelpCommand)
def import_command(
    source: Annotated[
        Path, typer.Argument(parser=input_file, help="A JSON-lines game log (docs/records.md).")
    ],
    folder: Annotated[Path, typer.Argument(parser=output_dir, help="The records folder to write.")],
) -> None:
    """Import a JSON-lines game log into a records folder (validated whole first)."""
    from paiju.core.records import import_jsonl

    n = import_jsonl(source, folder)
    _say(f"imported {n} games from {source} into {folder}")


def export_rows(folder: Path) -> list[dict[str, Any]]:
    """The run's games as JSON-lines objects in the import format (nulls left out)."""
    out = []
    for row in _games_query(folder):
        obj = {k: row[k] for k in _EXPORT_FIELDS if row[k] is not None}
        if "extra" in obj:
            obj["extra"] = json.loads(obj["extra"])
        out.append(obj)
    return out


@app.command("export", cls=LimitsHelpCommand)
def export_command(
    folder: Annotated[Path, typer.Argument(parser=records_dir, help="A records folder (one run).")],
    out: Annotated[Path | None, opt.out_file("File to write (default: stdout).")] = None,
) -> None:
    """Export a run's games as JSON lines, the format `paiju records import` reads."""
    import sys

    text = "".join(json.dumps(o, ensure_ascii=False, sort_keys=True) + "\n" for o in export_rows(folder))
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
