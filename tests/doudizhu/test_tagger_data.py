"""The tagger's dataset: winners' hands labelled by their plays, kickers stripped, split by deal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import CorruptRecordError
from paiju.core.records import import_jsonl
from paiju.doudizhu.moves import Move
from paiju.doudizhu.selfplay import selfplay
from paiju.doudizhu.split import Split
from paiju.doudizhu.tagger.data import build_rows, read_dataset, winner_hand, winner_tags, write_dataset

runner = CliRunner()


def _tags(*plays: str) -> tuple[str, str]:
    return winner_tags(Move.parse(p) for p in plays)


def test_paper_first_example() -> None:
    # {3, 444555, 6789T, A, 22, XD}: the paper's first example, played as plain groups
    assert _tags("3", "444555", "6789T", "A", "22", "XD") == ("34445556789TA22XD", "02222220000001133")
    # the same groups with the airplane carrying 3 and A: kickers stripped, same labels
    assert _tags("3444555A", "6789T", "22", "XD") == ("34445556789TA22XD", "02222220000001133")
    assert Split.parse("3 444555 6789T A 22 XD").tags() == "02222220000001133"


def test_paper_second_example() -> None:
    # the winner played {3AAA, 68TTTJJJ, KK, 22, 9} (passes in between are ignored)
    plays = [Move.parse(p) for p in ("3AAA", "pass", "68TTTJJJ", "KK", "22", "9")]
    assert winner_tags(plays) == ("3689TTTJJJKKAAA22", "00002222221122211")


@pytest.mark.parametrize(
    ("move", "hand", "tags"),
    [
        ("3334", "3334", "2220"),  # trio with solo
        ("33344", "33344", "22211"),  # trio with pair
        ("33344456", "33344456", "22222200"),  # airplane with solo wings
        ("33344455", "33344455", "22222200"),  # solo wings of one rank: two solos
        ("3334445566", "3334445566", "2222221111"),  # airplane with pair wings
        ("333345", "333345", "333300"),  # four with two solos: the four keeps label 3
        ("3333XD", "3333XD", "333300"),  # jokers as solo kickers are solos, not a rocket
        ("33334455", "33334455", "33331111"),  # four with two pairs
        ("555666", "555666", "222222"),  # trio chain
    ],
)
def test_kickers_of_every_carrying_type(move: str, hand: str, tags: str) -> None:
    assert _tags(move) == (hand, tags)


def test_airplane_with_trio_wings_follows_its_reading() -> None:
    # 333444555666 read as an airplane of 3 (444555666) with the trio 333 as its wings
    move = Move.parse("333444555666", "airplane_solo")
    assert winner_tags([move]) == ("333444555666", "000222222222")


def _engine_game(seed: int) -> dict[str, object]:
    from paiju.core.protocol import play_game
    from paiju.doudizhu.agents import REGISTRY
    from paiju.doudizhu.game import DouDizhuGame

    game = DouDizhuGame()
    players = [REGISTRY.make("rule", seed=i) for i in range(3)]
    state = play_game(game, players, seed).state
    record = state.record()
    moves = ["pass" if m.is_pass else str(m) for _, m in record.plays]
    return {
        "game": "doudizhu",
        "deal": str(record.deal),
        "dealer_seat": 0,
        "returns": state.returns(),
        "moves": moves,
        "move_players": [s for s, _ in record.plays],
    }


def test_imported_logs_replay_to_the_engine_labels(tmp_path: Path) -> None:
    line = _engine_game(3)
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(line) + "\n")
    import_jsonl(log, tmp_path / "rec")
    rows, dropped = build_rows([tmp_path / "rec"], validation=0.0, test=0.0)
    assert dropped == 0 and len(rows) == 1
    row = rows[0]
    moves = line["moves"]
    players = line["move_players"]
    assert isinstance(moves, list) and isinstance(players, list)
    winner = players[-1]
    assert row["seat"] == winner and row["source"] == "imported"
    won = [Move.parse(m) for m, s in zip(moves, players, strict=True) if s == winner and m != "pass"]
    expected = winner_tags(won)
    assert (row["hand"], row["tags"]) == expected
    assert row["role"] == ("landlord" if winner == 0 else "farmer")


def test_a_winner_who_did_not_play_every_card_is_rejected(tmp_path: Path) -> None:
    line = _engine_game(4)
    moves, players = line["moves"], line["move_players"]
    assert isinstance(moves, list) and isinstance(players, list)
    line["moves"], line["move_players"] = moves[:-1], players[:-1]  # the winning play lost
    log = tmp_path / "cut.jsonl"
    log.write_text(json.dumps(line) + "\n")
    import_jsonl(log, tmp_path / "rec")
    pattern = r"game 0: the winner \(seat \d\) played \d+ of its (17|20) cards"
    with pytest.raises(CorruptRecordError, match=pattern):
        build_rows([tmp_path / "rec"])


def test_rows_from_engine_records_and_split_by_deal(tmp_path: Path) -> None:
    selfplay(["rule"], 40, tmp_path / "a", seed=7)
    selfplay(["greedy"], 40, tmp_path / "b", seed=7)  # same seed: the same 40 deals
    rows, _ = build_rows([tmp_path / "a", tmp_path / "b"], validation=0.3, test=0.3)
    assert len(rows) == 80
    side: dict[str, set[str]] = {}
    for r in rows:
        side.setdefault(r["deal_id"], set()).add(r["split"])
        assert len(r["hand"]) == len(r["tags"]) == (20 if r["role"] == "landlord" else 17)
        assert Split.from_tags(r["hand"], r["tags"], repair=False).hand.counts == Split.parse(
            str(Split.from_tags(r["hand"], r["tags"]))
        ).hand.counts
    assert len(side) == 40 and all(len(s) == 1 for s in side.values())  # one side per deal
    assert {s for v in side.values() for s in v} == {"train", "validation", "test"}
    assert {r["source"] for r in rows} == {"rule", "greedy"}


def test_test_records_from_other_seeds_share_no_deal_with_training(tmp_path: Path) -> None:
    selfplay(["rule"], 30, tmp_path / "train", seed=1)
    selfplay(["rule"], 30, tmp_path / "test", seed=2)
    rows, dropped = build_rows([tmp_path / "train"], [tmp_path / "test"])
    test = {r["deal_id"] for r in rows if r["split"] == "test"}
    train = {r["deal_id"] for r in rows if r["split"] != "test"}
    assert dropped == 0 and len(test) == 30 and len(train) == 30 and not test & train
    # records of the same seed repeat the deals: every such training hand is dropped
    rows, dropped = build_rows([tmp_path / "train"], [tmp_path / "train"])
    assert dropped == 30 and {r["split"] for r in rows} == {"test"}


def test_cli_writes_the_dataset_and_prints_label_statistics(tmp_path: Path) -> None:
    selfplay(["rule"], 20, tmp_path / "rec", seed=5)
    selfplay(["rule"], 10, tmp_path / "held", seed=6)
    out = tmp_path / "d.parquet"
    res = runner.invoke(app, ["ddz", "tagger-data", "--records", str(tmp_path / "rec"),
                              "--test-records", str(tmp_path / "held"), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    stats = json.loads(res.output)
    assert stats["total"]["hands"] == 30 and stats["by_split"]["test"]["hands"] == 10
    shares = stats["total"]["label_share"]
    assert abs(sum(shares.values()) - 1) < 1e-3
    rows = read_dataset(out)
    cards = sum(len(r["tags"]) for r in rows)
    assert shares["0"] == round(sum(r["tags"].count("0") for r in rows) / cards, 4)
    res = runner.invoke(app, ["ddz", "tagger-data", "--records", str(tmp_path / "rec"), "--out", str(out)])
    assert res.exit_code == 0 and "winner hands written" in res.output


def test_cli_rejects_a_folder_without_records(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    res = runner.invoke(app, ["ddz", "tagger-data", "--records", str(tmp_path / "empty"),
                              "--out", str(tmp_path / "d.parquet")])
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", res.output).split())  # Rich's error panel wraps lines
    assert res.exit_code == 2 and "holds no .parquet files" in text


def test_write_and_read_round_trip(tmp_path: Path) -> None:
    selfplay(["rule"], 5, tmp_path / "rec", seed=9)
    rows, _ = build_rows([tmp_path / "rec"])
    path = write_dataset(rows, tmp_path / "x.parquet")
    assert read_dataset(path) == rows
    row = {"run_id": "r", "game_index": 0, **_engine_game(1), "agents": None}
    assert winner_hand(row).source == "imported"
