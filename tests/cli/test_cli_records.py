"""`paiju records list|show|replay|import|export` (docs/records.md), in-process through `run`."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from paiju.cli.main import run
from paiju.core.arena import run_games
from paiju.core.records import read_records


@pytest.fixture(scope="module")
def arena_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("records")
    run_games("doudizhu", ["greedy", "random"], 4, seed=9, out_dir=root / "ddz", batch_size=2)
    return root


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_every_run_and_game(
    arena_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["records", "list", str(arena_run), "--json"], capsys)
    assert code == 0
    (summary,) = json.loads(out)
    assert summary["games"] == 4 and summary["kind"] == "arena" and summary["game_names"] == ["doudizhu"]
    assert [g["game_index"] for g in summary["first_games"]] == [0, 1, 2, 3]
    table = read_records(arena_run / "ddz")
    assert [g["moves"] for g in summary["first_games"]] == [len(m) for m in table["moves"].to_pylist()]
    code, out, _ = _run(["records", "list", str(arena_run / "ddz"), "-n", "1"], capsys)
    assert code == 0 and "4 games of doudizhu" in out and "3 more" in out


def test_show_prints_every_recorded_move_in_order(
    arena_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = next(r for r in read_records(arena_run / "ddz").to_pylist() if r["game_index"] == 2)
    code, out, _ = _run(["records", "show", str(arena_run / "ddz"), "2"], capsys)
    assert code == 0
    lines = out.splitlines()
    move_lines = [ln for ln in lines if ln[:4].strip().isdigit()]
    assert [ln.split()[-1] for ln in move_lines] == [m.split()[-1] for m in row["moves"]]
    for ln, seat in zip(move_lines, row["move_players"], strict=True):
        assert (f"seat {seat}" in ln) if seat >= 0 else ("chance" in ln)
    assert lines[-1].startswith("returns: [") and f"score {row['score']:g}" in lines[-1]
    code, _, err = _run(["records", "show", str(arena_run / "ddz"), "99"], capsys)
    assert code == 2 and "has no game 99" in err


def test_replay_is_identical_then_names_a_changed_move(
    arena_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(arena_run / "ddz", folder)
    code, out, _ = _run(["records", "replay", str(folder)], capsys)
    assert code == 0 and "4 of 4 games replayed identically" in out
    path = next(
        f for f in sorted(folder.glob("*.parquet")) if 3 in pq.read_table(f)["game_index"].to_pylist()
    )
    table = pq.read_table(path)
    rows = table.to_pylist()
    row = next(r for r in rows if r["game_index"] == 3)
    row["moves"][4] = "pass" if row["moves"][4] != "pass" else "3"
    pq.write_table(table.from_pylist(rows, schema=table.schema), path)
    code, out, _ = _run(["records", "replay", str(folder), "--indices", "2-3", "--json"], capsys)
    assert code == 1
    checks = {c["game_index"]: c for c in json.loads(out)}
    assert checks[2]["identical"] and not checks[3]["identical"] and checks[3]["first_difference"] == 4


def test_export_import_round_trip(
    arena_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = tmp_path / "a.jsonl"
    assert _run(["records", "export", str(arena_run / "ddz"), "-o", str(first)], capsys)[0] == 0
    code, out, _ = _run(["records", "import", str(first), str(tmp_path / "imported")], capsys)
    assert code == 0 and "imported 4 games" in out
    code, out, _ = _run(["records", "export", str(tmp_path / "imported")], capsys)
    assert code == 0 and out == first.read_text()
    # the exported objects carry the recorded columns unchanged
    original = {r["game_index"]: r for r in read_records(arena_run / "ddz").to_pylist()}
    for line in out.splitlines():
        obj = json.loads(line)
        row = original[obj["game_index"]]
        assert obj["moves"] == row["moves"] and obj["returns"] == row["returns"]
        assert obj["extra"] == json.loads(row["extra"]) and obj["agents"] == row["agents"]
    # replaying imported games is refused with a reason
    code, _, err = _run(["records", "replay", str(tmp_path / "imported")], capsys)
    assert code == 2 and "holds imported games" in err


def test_import_of_a_hand_written_log_then_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = {
        "game": "kuhn_poker",
        "deal": "KJ",
        "returns": [1, -1],
        "moves": ["deal KJ", "bet", "call"],
        "move_players": [-1, 0, 1],
        "score": 1,
    }
    src = tmp_path / "mine.jsonl"
    src.write_text(json.dumps(log) + "\n\n")
    assert _run(["records", "import", str(src), str(tmp_path / "r")], capsys)[0] == 0
    code, out, _ = _run(["records", "export", str(tmp_path / "r")], capsys)
    assert code == 0
    (obj,) = [json.loads(x) for x in out.splitlines()]
    assert obj == {**log, "returns": [1.0, -1.0], "score": 1.0, "game_index": 0, "deal_index": 0}


@pytest.mark.parametrize(
    ("lines", "fragment"),
    [
        (['{"game": "doudizhu", "returns": [1, -0.5, -0.5]}', "{not json"], "bad.jsonl:2: not valid JSON"),
        (['{"game": "doudizhu"}'], "bad.jsonl:1: missing required field 'returns'"),
        (['{"game": "x", "returns": [1], "score": "big"}'], "bad.jsonl:1: field 'score' must be int"),
        (["[1, 2]"], "bad.jsonl:1: a record must be a JSON object"),
    ],
)
def test_a_bad_log_line_is_one_error_line_naming_file_and_line(
    lines: list[str], fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "bad.jsonl"
    src.write_text("\n".join(lines) + "\n")
    code, out, err = _run(["records", "import", str(src), str(tmp_path / "out")], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and fragment in err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.parquet"))


def test_a_corrupt_record_file_is_named(
    arena_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    folder = tmp_path / "broken"
    shutil.copytree(arena_run / "ddz", folder)
    victim = sorted(folder.glob("*.parquet"))[0]
    victim.write_bytes(victim.read_bytes()[:100])
    for command in (["list"], ["show"], ["export"]):
        args = ["records", *command, str(folder)] + (["0"] if command == ["show"] else [])
        code, _, err = _run(args, capsys)
        assert code == 2 and len(err.splitlines()) == 1 and victim.name in err, (command, err)


def test_replaying_a_run_of_external_programs_is_refused_with_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the header a Botzone judge run writes (paiju.interop.botzone_judge): bots, not agents
    folder = tmp_path / "judged"
    folder.mkdir()
    header = {"run_id": "x", "config": {"kind": "botzone-judge", "bots": ["a", "b", "c"], "seed": 0}}
    (folder / "run.json").write_text(json.dumps(header))
    code, _, err = _run(["records", "replay", str(folder)], capsys)
    assert code == 2 and "botzone-judge run" in err and "external programs" in err


@pytest.mark.parametrize(
    ("indices", "fragment"),
    [
        ("5-2", "--indices '5-2': the range 5-2 runs backwards"),
        ("2-9", "--indices '2-9': no recorded game 4 (the run holds 4 games, indices 0-3)"),
        ("7", "--indices '7': no recorded game 7"),
        ("0-99999999999999", "no recorded game 4"),
        ("", "--indices '': write indices like 0,3,10-19"),
        ("1,,2", "write indices like 0,3,10-19"),
        ("-3", "write indices like 0,3,10-19"),
    ],
)
def test_replay_refuses_a_reversed_or_out_of_range_index_range(
    indices: str, fragment: str, arena_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: '5-2' replayed '0 of 0 games' and exited 0 (a silent success on nonsense)."""
    code, out, err = _run(["records", "replay", str(arena_run / "ddz"), "--indices", indices], capsys)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and fragment in err, err


def test_replay_indices_replays_each_named_game_once(
    arena_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["records", "replay", str(arena_run / "ddz"), "-i", "3,1-2,2", "--json"], capsys)
    assert code == 0 and [c["game_index"] for c in json.loads(out)] == [3, 1, 2]


BOT = "/home/someone/.venv/bin/python -m paiju.cli.main mahjong bot --agent {}"
LONG = "expectimax-ddqn:value_model=/home/someone/models/value-net-2024.pt,leaf=draw"


@pytest.fixture
def referee_like(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A run shaped like `paiju mahjong referee`'s: four long bot commands, a forfeit in `extra`
    (the referee's own record fields: seat, bot, reason)."""
    bots = [BOT.format(a) for a in ("greedy", LONG, "greedy", "random")]
    forfeit = {"seat": 3, "bot": 3, "reason": "illegal move 'discard 9z' (asked '/ask discard')"}
    rows = [
        {"game": "mahjong", "returns": [-16000.0, 5333.33, 5333.33, 5333.34], "agents": bots,
         "moves": ["deal", "discard 1m"], "move_players": [-1, 0], "extra": {"forfeit": forfeit}},
        {"game": "mahjong", "returns": [0, 0, 0, 0], "agents": bots, "extra": {"forfeit": None}},
    ]
    src = tmp_path / "referee.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run(["records", "import", str(src), str(tmp_path / "ref")]) == 0
    capsys.readouterr()
    return tmp_path / "ref"


def test_show_names_a_forfeit_and_its_reason(referee_like: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["records", "show", str(referee_like), "0"], capsys)
    assert code == 0
    assert "forfeit: seat 3: illegal move 'discard 9z' (asked '/ask discard')" in out.splitlines()
    code, out, _ = _run(["records", "show", str(referee_like), "1"], capsys)
    assert code == 0 and "forfeit" not in out


def test_list_keeps_lines_short_with_long_agent_specs_full_in_json(
    referee_like: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: each game line held the four bot commands in full (~300 columns)."""
    code, out, _ = _run(["records", "list", str(referee_like)], capsys)
    assert code == 0
    lines = out.splitlines()[1:]  # the header names the folder, as long as the user's path
    assert lines and all(len(ln) <= 100 for ln in lines), [len(ln) for ln in lines]
    games = [ln for ln in lines if ln.lstrip().startswith("game ")]
    assert len(games) == 2 and all("returns [" in ln and "moves" in ln for ln in games)
    # the long specs are named once, by a short label; each label's line keeps what tells the
    # seats apart (the end of the command)
    legend = {ln.split()[0]: ln for ln in lines if ln.lstrip().startswith("#")}
    assert sorted(legend) == ["#1", "#2", "#3"]
    assert legend["#1"].split(None, 1)[1] == BOT.format("greedy")  # short enough: whole
    assert legend["#3"].split(None, 1)[1] == BOT.format("random")
    assert legend["#2"].endswith("value-net-2024.pt,leaf=draw") and "…" in legend["#2"]
    assert legend["#2"].split()[1] == "/home/someone/.venv/bin/python"
    assert all("#1,#2,#1,#3" in ln for ln in games)
    code, out, _ = _run(["records", "list", str(referee_like), "--json"], capsys)
    (summary,) = json.loads(out)
    assert summary["first_games"][0]["agents"][1] == BOT.format(LONG)


def test_list_shows_short_agent_specs_in_the_game_line(
    arena_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["records", "list", str(arena_run / "ddz")], capsys)
    assert code == 0 and "  greedy,random,random  returns [" in out and "#1" not in out
