"""`paiju tournament` with a final, end to end: new, then pair, boards, release and enter for
three rounds, then the standings. The event is test_stages.py's nine players with
``carry_over=half`` (same ratings, format and results), so the same hand-worked standings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paiju.cli.main import run

PLAYERS = "name,id,rating\n" + "".join(f"Player {i:02d},{i:02d},{2000 - 10 * i}\n" for i in range(1, 10))
FORMAT = {
    "rounds": 3,
    "boards_per_round": 1,
    "scoring": "casual",
    "first_round": "rating",
    "final_after": 2,
    "final_players": 6,
    "carry_over": "half",
    "top": 2,
}
RESULTS = {  # round -> the director's CSV (one board a round: board = round)
    1: "table,board,bombs,spring,result\n1,1,0,,won\n2,1,0,,lost\n3,1,0,,lost\n",
    2: "table,board,bombs,spring,result\n1,2,0,spring,won\n2,2,0,,lost\n3,2,0,,won\n",
    3: "table,board,bombs,spring,result\n1,3,0,,lost\n2,3,0,spring,won\n",
}


def as_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code = run([*args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_a_final_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "players.csv").write_text(PLAYERS)
    db = str(tmp_path / "final.db")
    items = [a for key, value in FORMAT.items() for a in ("--format", f"{key}={value}")]
    as_json(capsys, "tournament", "new", db, "--players", str(tmp_path / "players.csv"), *items)
    seated: dict[int, set[str]] = {}
    for round_no in (1, 2, 3):
        r = str(round_no)
        paired = as_json(capsys, "tournament", "pair", db, "-r", r, "--seed", r)
        seated[round_no] = {p for t in paired["tables"] for p in t["players"]}
        as_json(capsys, "tournament", "boards", db, "-r", r, "--select", "random", "--seed", r)
        as_json(capsys, "tournament", "release", db, "-r", r)
        (tmp_path / f"round-{r}.csv").write_text(RESULTS[round_no])
        as_json(capsys, "tournament", "enter", db, "-r", r, "-f", str(tmp_path / f"round-{r}.csv"))
    assert len(seated[1]) == len(seated[2]) == 9
    # the final seats the top six after round 2: 05, 09, 01, 07 and, on the tie-breaks, 08
    # and 06 of the four on 3
    assert seated[3] == {f"Player {i}" for i in ("01", "05", "06", "07", "08", "09")}
    table = as_json(capsys, "tournament", "standings", db)
    assert table["after_round"] == 3 and table["top_unique"] is False  # 5.5, 4, 4
    rows = [
        (s["rank"], s["place"], s["id"], s["total"], s["carried"], s["stage"]) for s in table["standings"]
    ]
    assert rows == [
        (1, 1, "05", 5.5, 3.5, "final"),
        (2, 2, "01", 4.0, 2.0, "final"),
        (3, 2, "07", 4.0, 2.0, "final"),
        (4, 4, "09", 3.5, 3.5, "final"),
        (5, 5, "08", 1.5, 1.5, "final"),
        (6, 5, "06", 1.5, 1.5, "final"),
        (7, 7, "03", 3.0, 0.0, "qualifying"),
        (8, 7, "02", 3.0, 0.0, "qualifying"),
        (9, 9, "04", 2.0, 0.0, "qualifying"),
    ]
    # after round 2 the same command shows the qualifying standings, everyone on one list
    qualifying = as_json(capsys, "tournament", "standings", db, "--round", "2")
    assert [(s["id"], s["total"], s["stage"]) for s in qualifying["standings"]][:3] == [
        ("05", 7.0, None),
        ("09", 7.0, None),
        ("01", 4.0, None),
    ]
