"""Game records: atomic batches, resume after interruption (in-process and SIGKILL), corrupt
files, DuckDB queries, the score distribution per deal, and JSON-lines import."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.arena import run_arena, run_games
from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.records import (
    SCHEMA,
    RecordWriter,
    connect,
    import_jsonl,
    read_records,
    record_files,
    score_distribution,
)

AGENTS = ["nash:alpha=0.2", "random"]


def _games(path: Path) -> list[dict]:
    """Rows sorted by game index, decision times dropped (the only non-deterministic column)."""
    rows = read_records(path).to_pylist()
    rows.sort(key=lambda r: r["game_index"])
    return [{k: v for k, v in r.items() if k != "move_ms"} for r in rows]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """An uninterrupted recorded run of 600 Kuhn poker games."""
    out = tmp_path_factory.mktemp("reference")
    run_games("kuhn_poker", AGENTS, 600, seed=8, out_dir=out, batch_size=50)
    return _games(out)


def test_recorded_run_has_every_game_once_with_its_fields(reference: list[dict]) -> None:
    assert [r["game_index"] for r in reference] == list(range(600))
    first = reference[0]
    assert first["game"] == "kuhn_poker" and first["arena_format"] == "swap"
    assert len(first["deal"]) == 2 and first["moves"][:2] == [f"deal {c}" for c in first["deal"]]
    assert first["score"] == first["returns"][0] and first["scoring_rule"] == "ante 1, bet 1"
    assert json.loads(first["extra"])["betting"] == "".join(m[0] for m in first["moves"][2:])
    assert first["roles"] == ["first", "second"] and first["paiju_version"]
    assert len({r["run_id"] for r in reference}) == 1


def test_resume_after_an_exception_equals_an_uninterrupted_run(tmp_path: Path, reference: list[dict]) -> None:
    batches = 0

    def crash_after_three(done: int, total: int) -> None:
        nonlocal batches
        batches += 1
        if batches == 3:
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError, match="interrupted"):
        run_games(
            "kuhn_poker", AGENTS, 600, seed=8, out_dir=tmp_path, batch_size=50, progress=crash_after_three
        )
    assert len(read_records(tmp_path)) == 150
    resumed = run_games("kuhn_poker", AGENTS, 600, seed=8, out_dir=tmp_path, batch_size=64)
    assert (resumed.skipped, resumed.played) == (150, 450)
    assert _games(tmp_path) == reference
    again = run_games("kuhn_poker", AGENTS, 600, seed=8, out_dir=tmp_path)
    assert (again.skipped, again.played) == (600, 0)


def test_resume_after_sigkill_equals_an_uninterrupted_run(tmp_path: Path, reference: list[dict]) -> None:
    """A real kill -9 in the middle of a run (slowed down so it is caught mid-way)."""
    script = textwrap.dedent(
        f"""
        import time
        from paiju.core.arena import run_games
        run_games("kuhn_poker", {AGENTS!r}, 600, seed=8, out_dir={str(tmp_path)!r}, batch_size=20,
                  progress=lambda done, total: time.sleep(0.1))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 60
        while len(record_files(tmp_path)) < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    partial = len(read_records(tmp_path))
    assert 0 < partial < 600
    run_arena("kuhn_poker", AGENTS, 600, seed=8, out_dir=tmp_path)
    assert _games(tmp_path) == reference


def test_extending_a_finished_run_adds_only_the_new_games(tmp_path: Path, reference: list[dict]) -> None:
    run_games("kuhn_poker", AGENTS, 200, seed=8, out_dir=tmp_path)
    run_games("kuhn_poker", AGENTS, 600, seed=8, out_dir=tmp_path, workers=2)
    assert _games(tmp_path) == reference


def test_a_directory_belongs_to_one_run(tmp_path: Path) -> None:
    run_games("kuhn_poker", AGENTS, 20, seed=1, out_dir=tmp_path)
    with pytest.raises(ConfigError, match="resume with the same arguments"):
        run_games("kuhn_poker", AGENTS, 20, seed=2, out_dir=tmp_path)
    with pytest.raises(ConfigError, match="resume with the same arguments"):
        run_games("kuhn_poker", ["random", "nash"], 20, seed=1, out_dir=tmp_path)
    # a refused writer does not keep the directory locked
    assert run_games("kuhn_poker", AGENTS, 20, seed=1, out_dir=tmp_path).skipped == 20


def test_a_second_live_writer_is_refused_and_stale_temp_files_are_cleared(tmp_path: Path) -> None:
    config = {"kind": "test"}
    (tmp_path / ".tmp-deadbeef.parquet").write_bytes(b"half a batch")
    with RecordWriter(tmp_path, config) as writer:
        assert not list(tmp_path.glob(".tmp-*"))
        with pytest.raises(ConfigError, match="another running process"):
            RecordWriter(tmp_path, config)
        assert writer.done_indices() == set()
    RecordWriter(tmp_path, config).close()  # free again once closed


def test_the_arena_report_covers_games_recorded_before_a_resume(tmp_path: Path) -> None:
    run_games("kuhn_poker", AGENTS, 100, seed=3, out_dir=tmp_path)
    report = run_arena("kuhn_poker", AGENTS, 300, seed=3, out_dir=tmp_path)
    in_memory = run_arena("kuhn_poker", AGENTS, 300, seed=3)
    assert report.n_games == 300
    assert [s.as_dict() for s in report.roles] == [s.as_dict() for s in in_memory.roles]
    assert report.duplicate == in_memory.duplicate


# ---- corrupt files ------------------------------------------------------------------------------------
def test_truncated_parquet_names_the_file(tmp_path: Path) -> None:
    run_games("kuhn_poker", AGENTS, 40, seed=1, out_dir=tmp_path, batch_size=20)
    victim = record_files(tmp_path)[1]
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptRecordError, match=f"{victim.name}: not a readable Parquet file"):
        read_records(tmp_path)
    with pytest.raises(CorruptRecordError, match=victim.name):
        connect(tmp_path)
    with pytest.raises(CorruptRecordError, match=victim.name):  # resume refuses too
        run_games("kuhn_poker", AGENTS, 40, seed=1, out_dir=tmp_path)
    args = ["arena", "-g", "kuhn_poker", "-a", ",".join(AGENTS), "-n", "40", "--seed", "1"]
    cli = CliRunner().invoke(app, [*args, "--record", str(tmp_path)])
    assert isinstance(cli.exception, CorruptRecordError) and victim.name in str(cli.exception)


def test_wrong_schema_names_the_file_and_the_columns(tmp_path: Path) -> None:
    bad = tmp_path / "other.parquet"
    pq.write_table(pa.table({"game": ["x"], "returns": [[1, 2]], "oops": [1]}), bad)
    expected = r"other\.parquet: .*missing columns \['run_id'.*unexpected columns \['oops'\]"
    with pytest.raises(CorruptRecordError, match=expected):
        read_records(bad)
    typed = tmp_path / "typed.parquet"
    table = SCHEMA.empty_table().cast(SCHEMA)
    score = table.schema.get_field_index("score")
    pq.write_table(table.set_column(score, "score", pa.array([], pa.string())), typed)
    with pytest.raises(CorruptRecordError, match=r"typed\.parquet: .*score is string, expected double"):
        read_records(typed)


def test_corrupt_run_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text("{not json")
    with pytest.raises(CorruptRecordError, match=r"run\.json: not valid JSON"):
        RecordWriter(tmp_path, {"kind": "test"})


# ---- JSON-lines import and DuckDB -------------------------------------------------------------------------
def _write_jsonl(path: Path, records: list[dict | str]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


DEAL_A = "[TTKA379Q2D69K5Q94J6][3JX8Q885TTK3265AK][29Q435J426787JA7A]"
DEAL_B = "[3333444455556666777][88889999TTTTJJJJQ][QQQKKKKAAAA2222XD]"


def test_import_jsonl_and_score_distribution(tmp_path: Path) -> None:
    logs = [
        {"game": "doudizhu", "deal": DEAL_A, "dealer_seat": 0, "score": 1, "returns": [2, -1, -1],
         "moves": ["3", "pass", "pass"], "move_players": [0, 1, 2], "extra": {"bombs": 0}},
        {"game": "doudizhu", "deal": DEAL_A, "dealer_seat": 0, "score": 1, "returns": [2, -1, -1]},
        {"game": "doudizhu", "deal": DEAL_A, "dealer_seat": 0, "score": -2, "returns": [-4, 2, 2]},
        {"game": "doudizhu", "deal": DEAL_B, "dealer_seat": 0, "score": 3, "returns": [6, -3, -3]},
        {"game": "doudizhu", "deal": DEAL_B, "dealer_seat": 0, "returns": [0, 0, 0]},  # no score: left out
    ]
    src = _write_jsonl(tmp_path / "logs.jsonl", logs)
    out = tmp_path / "records"
    assert import_jsonl(src, out) == 5
    assert import_jsonl(src, out) == 0  # idempotent
    dist = score_distribution(out, min_plays=2).to_pylist()
    assert dist == [
        {"deal": DEAL_A, "score": -2.0, "probability": pytest.approx(1 / 3), "plays": 3},
        {"deal": DEAL_A, "score": 1.0, "probability": pytest.approx(2 / 3), "plays": 3},
    ]
    assert len(score_distribution(out, min_plays=1)) == 3
    rows = read_records(out).to_pylist()
    assert rows[0]["moves"] == ["3", "pass", "pass"] and json.loads(rows[0]["extra"]) == {"bombs": 0}
    assert [r["game_index"] for r in rows] == [0, 1, 2, 3, 4]
    con = connect(out)
    assert con.sql("SELECT count(*) FROM games WHERE score IS NULL").fetchall() == [(1,)]
    with pytest.raises(ConfigError, match="min_plays"):
        score_distribution(con, min_plays=0)


def test_score_distribution_of_an_arena_run_agrees_with_a_direct_count(
    reference: list[dict], tmp_path: Path
) -> None:
    run_games("kuhn_poker", AGENTS, 600, seed=8, out_dir=tmp_path)
    dist = score_distribution(tmp_path, min_plays=1, game="kuhn_poker").to_pylist()
    counts: dict[tuple[str, float], int] = {}
    plays: dict[str, int] = {}
    for r in reference:
        counts[(r["deal"], r["score"])] = counts.get((r["deal"], r["score"]), 0) + 1
        plays[r["deal"]] = plays.get(r["deal"], 0) + 1
    assert {(d["deal"], d["score"]): d["probability"] for d in dist} == pytest.approx(
        {k: v / plays[k[0]] for k, v in counts.items()}
    )
    assert {d["deal"]: d["plays"] for d in dist} == plays
    assert score_distribution(tmp_path, game="doudizhu").num_rows == 0


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"game": "doudizhu", "returns": [1, -1', "2: not valid JSON"),
        ('[1, 2]', "2: a record must be a JSON object"),
        ('{"game": "doudizhu"}', "2: missing required field 'returns'"),
        ('{"game": "doudizhu", "returns": [1, "x"]}', "2: field 'returns' must be a list of int"),
        ('{"game": "doudizhu", "returns": [1, -1], "score": "big"}', "2: field 'score' must be int"),
        ('{"game": "doudizhu", "returns": [1, -1], "colour": 1}', r"2: unknown fields \['colour'\]"),
        ('{"game": "doudizhu", "returns": [1, -1], "dealer_seat": 5}', "2: dealer_seat 5 is not a seat"),
        ('{"game": "ddz", "returns": [1, -1], "moves": ["3"], "move_players": [0, 1]}', "differ in length"),
        ('{"game": "doudizhu", "returns": [1, -1], "game_index": 0}', "2: game_index 0 appears twice"),
    ],
)
def test_bad_jsonl_line_names_file_line_and_problem(tmp_path: Path, line: str, problem: str) -> None:
    src = _write_jsonl(tmp_path / "bad.jsonl", [{"game": "doudizhu", "returns": [1, -1]}, line])
    pattern = rf"bad\.jsonl:{problem}" if problem.startswith("2: ") else problem
    with pytest.raises(CorruptRecordError, match=pattern):
        import_jsonl(src, tmp_path / "out")
    assert not (tmp_path / "out").exists() or not record_files(tmp_path / "out")  # nothing half-imported
