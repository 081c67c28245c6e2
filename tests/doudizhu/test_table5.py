"""The paper's Table 5 (``paiju ddz table5``): leads, groups, hand-checked shares, a tiny run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import ConfigError
from paiju.doudizhu.cards import Hand
from paiju.doudizhu.moves import PASS, Move
from paiju.doudizhu.split import Group, GroupType, Split
from paiju.doudizhu.table5 import (
    RoleLeads,
    Table5Config,
    initial_hands,
    leading_plays,
    play_groups,
    run_table5,
    table_for,
)
from paiju.doudizhu.tagger.model import HandTagger, ModelConfig, save_model

S, P, T, B = GroupType.SOLO, GroupType.PAIR, GroupType.TRIO, GroupType.BOMB


def test_kickers_are_stripped_into_their_own_groups() -> None:
    assert play_groups(Move.parse("5553")) == [Group(T, 2), Group(S, 0)]
    assert play_groups(Move.parse("55533")) == [Group(T, 2), Group(P, 0)]
    airplane = [Group(GroupType.TRIO_CHAIN, 2, 2), Group(S, 10), Group(S, 11)]
    assert play_groups(Move.parse("555666KA")) == airplane
    assert play_groups(Move.parse("5555KKAA")) == [Group(B, 2), Group(P, 10), Group(P, 11)]
    assert play_groups(Move.parse("34567")) == [Group(GroupType.SOLO_CHAIN, 0, 5)]
    assert play_groups(Move.parse("XD")) == [Group(GroupType.ROCKET, 13, 2)]
    # two solo kickers of one rank (a four with two solos 33) are two solos
    assert play_groups(Move.parse("555533", "four_two_solo")) == [Group(B, 2), Group(S, 0), Group(S, 0)]


def test_a_seat_leads_first_and_when_the_trick_comes_back() -> None:
    m = Move.parse
    plays = [(0, m("3")), (1, m("5")), (2, PASS), (0, PASS), (1, m("77")), (2, PASS), (0, PASS),
             (1, m("9")), (2, m("T")), (0, PASS), (1, PASS), (2, m("JJ"))]
    leads = leading_plays(plays)
    assert leads == {0: [m("3")], 1: [m("77"), m("9")], 2: [m("JJ")]}


def test_shares_by_hand() -> None:
    # deal 0: the landlord led 3 groups, 2 in h; deal 1: the landlord led 1 group, in h and g
    h0 = Split.parse("3 44 555 6789T")
    g0 = Split.parse("3 44 555 6 7 8 9 T")
    entries = [
        RoleLeads(0, "landlord", h0.hand, (Group(S, 0), Group(P, 1), Group(S, 3))),
        RoleLeads(1, "landlord", Hand.parse("33"), (Group(P, 0),)),
        RoleLeads(1, "farmer 1", Hand.parse("44"), (Group(S, 1),)),
    ]
    splits = {"heuristic": [h0, Split.parse("33"), Split.parse("44")],
              "tagger": [g0, Split.parse("33"), Split.parse("4 4")]}
    table = table_for(entries, splits, seed=0, n_boot=200)
    assert table["landlord"]["heuristic"]["value"] == pytest.approx(3 / 4)
    assert table["landlord"]["tagger"]["value"] == pytest.approx(4 / 4)  # g holds the solo 6
    assert table["farmer 1"]["tagger"]["value"] == 1.0 and table["farmer 1"]["heuristic"]["value"] == 0.0
    assert table["all"]["heuristic"]["value"] == pytest.approx(3 / 5)
    assert table["all"]["tagger_minus"]["heuristic"]["value"] == pytest.approx(2 / 5)
    assert table["all"]["heuristic"]["groups"] == 5


@pytest.fixture(scope="module")
def tagger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(2)
    path = tmp_path_factory.mktemp("t5") / "t.pt"
    save_model(HandTagger(ModelConfig(embedding=8, hidden=8)), path)
    return path


def test_a_tiny_run_writes_the_table_and_resumes(tagger: Path, tmp_path: Path) -> None:
    config = Table5Config(out=str(tmp_path), deals=8, players=("rule", "greedy"), model=str(tagger),
                          progress=False, bootstrap=100)
    first = run_table5(config)
    assert (tmp_path / "table5.json").is_file() and (tmp_path / "table5.png").is_file()
    for entry in first["players"].values():
        assert entry["games"] == 8
        for role in ("all", "landlord", "farmer 1", "farmer 2"):
            for name in ("heuristic", "exact_groups", "exact_plays", "tagger"):
                e = entry["table"][role][name]
                assert 0 <= e["low"] <= e["value"] <= e["high"] <= 1
    # a rerun plays nothing more and gives the same table
    assert run_table5(config) == first
    with pytest.raises(ConfigError, match="unknown doudizhu agent"):
        run_table5(Table5Config(out=str(tmp_path / "x"), deals=2, players=("nobody",), progress=False))


def test_initial_hands_hold_the_whole_deck(tagger: Path, tmp_path: Path) -> None:
    from paiju.core.records import read_records
    from paiju.doudizhu.game import GameRecord
    from paiju.doudizhu.selfplay import selfplay

    selfplay(["greedy"], 5, tmp_path, seed=9)
    for row in read_records(tmp_path, columns=["extra"]).to_pylist():
        record = GameRecord.from_dict(json.loads(row["extra"])["record"])
        hands = initial_hands(record)
        assert [sum(h.counts) for h in hands] == [20, 17, 17]
        assert [sum(x) for x in zip(*(h.counts for h in hands), strict=True)] == [4] * 13 + [1, 1]
        assert hands == record.deal.hands


def test_cli(tagger: Path, tmp_path: Path) -> None:
    args = ["--out", str(tmp_path), "--deals", "3", "--players", "rule", "--model", str(tagger), "--json"]
    res = CliRunner().invoke(app, ["ddz", "table5", *args])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["players"]["rule"]["games"] == 3


def test_cli_bad_player_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from paiju.cli.main import run

    assert run(["ddz", "table5", "--out", str(tmp_path), "--players", "rule:split=x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "split='x' is not one of exact, tagger" in err
