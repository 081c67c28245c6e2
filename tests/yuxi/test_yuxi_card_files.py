"""A designer's own card table end to end: play, audit, balance and replay take the files,
every record carries the table's hash, and a replay on another table is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paiju.cli.main import app, run
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.yuxi.agents import REGISTRY
from paiju.yuxi.audit import AuditReport, Violation, load_report, replay_violation, run_audit
from paiju.yuxi.balance import run_balance
from paiju.yuxi.cards import load_card_table, table_fingerprint
from paiju.yuxi.game import YuxiConfig, YuxiGame

DATA = Path(__file__).parents[2] / "src" / "paiju" / "yuxi" / "data"

# The card and deck of docs/yuxi-cards.md (a new tide character, id 45: the shipped table has 44),
# appended to the shipped tables as the page shows.
EXAMPLE = Path(__file__).parents[2] / "docs" / "yuxi-cards"
NEW_CARD = "\n" + (EXAMPLE / "tide_warden.toml").read_text(encoding="utf-8")
NEW_DECK = "\n" + (EXAMPLE / "warden_wall.toml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cards")
    cards = root / "cards.toml"
    cards.write_text((DATA / "cards.toml").read_text(encoding="utf-8") + NEW_CARD, encoding="utf-8")
    decks = root / "decks.toml"
    decks.write_text((DATA / "decks.toml").read_text(encoding="utf-8") + NEW_DECK, encoding="utf-8")
    return cards, decks


def test_the_new_card_loads_and_changes_the_hash(files: tuple[Path, Path]) -> None:
    table = load_card_table(*files)
    card = table.card("tide_warden")
    assert (card.id, card.points, card.armour) == (45, 3, 1)
    assert table.deck("warden_wall").size == 35
    assert table_fingerprint(table) != table_fingerprint(load_card_table())
    game = YuxiGame(
        YuxiConfig(decks=("warden_wall", "tide_guild"), cards_file=str(files[0]), decks_file=str(files[1]))
    )
    assert game.table.card("tide_warden").id == 45


def test_audit_runs_on_the_files_and_records_the_hash(files: tuple[Path, Path], tmp_path: Path) -> None:
    want = table_fingerprint(load_card_table(*files))
    journal = tmp_path / "audit.jsonl"
    report = run_audit(
        4,
        seed=3,
        boards=("3x3",),
        agent_pairs=(("random", "random"),),
        decks=("warden_wall",),
        cards_file=files[0],
        decks_file=files[1],
        journal=journal,
    )
    assert report.clean and report.games == 4 and report.table_hash == want
    header = json.loads(journal.read_text(encoding="utf-8").splitlines()[0])
    assert header["config"]["table_hash"] == want
    saved = tmp_path / "report.json"
    report.save(saved)
    assert load_report(saved).table_hash == want


def test_balance_runs_on_the_files_and_ranks_the_new_card(files: tuple[Path, Path], tmp_path: Path) -> None:
    journal = tmp_path / "balance.jsonl"
    report = run_balance(
        3,
        seed=1,
        agents=("greedy", "greedy"),
        boards=("3x3",),
        decks=("warden_wall", "tide_guild"),
        cards_file=files[0],
        decks_file=files[1],
        journal=journal,
    )
    want = table_fingerprint(load_card_table(*files))
    assert report.table_hash == want and report.to_dict()["table_hash"] == want
    assert f"card table {want}." in report.markdown().splitlines()[0]
    assert json.loads(journal.read_text(encoding="utf-8").splitlines()[0])["config"]["table_hash"] == want
    warden = next(c for c in report.cards if c.key == "tide_warden")
    # warden_wall is in play in every game that has it: seats holding it, 6 games (3 x 2 die settings)
    holders = sum(r.decks.count("warden_wall") for r in report.records)
    assert warden.in_deck == holders > 0


def _recorded_report(files: tuple[Path, Path], path: Path) -> Violation:
    """A report with one (made-up) violation whose moves are a real game on the new table."""
    config = YuxiConfig(
        board="3x3", decks=("warden_wall", "warden_wall"), cards_file=str(files[0]), decks_file=str(files[1])
    )
    game = YuxiGame(config)
    agents = [REGISTRY.make("greedy", 1), REGISTRY.make("greedy", 2)]
    played = play_game(game, agents, 7, notation=True)
    v = Violation(
        0,
        7,
        "3x3",
        config.decks,
        True,
        ("greedy", "greedy"),
        len(played.moves) - 1,
        "none",
        "-",
        played.moves,
        config.cards_file,
        config.decks_file,
        table_fingerprint(game.table),
    )
    report = AuditReport(1, len(played.moves), 7, [v], {"greedy vs greedy": 1}, v.table_hash)
    report.cards_file, report.decks_file = v.cards_file, v.decks_file
    report.save(path)
    return v


def test_replay_refuses_a_mismatched_table_naming_both_hashes(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    v = _recorded_report(files, report)
    _, step, err = replay_violation(v)
    assert err is None and step == len(v.moves)
    shipped = table_fingerprint(load_card_table())
    with pytest.raises(ConfigError) as info:
        replay_violation(v, cards_file=DATA / "cards.toml", decks_file=DATA / "decks.toml")
    assert v.table_hash in str(info.value)
    runner = CliRunner()
    ok = runner.invoke(app, ["yuxi", "replay", str(report)])
    assert ok.exit_code == 0, ok.output
    assert "replayed all" in ok.output
    # the card file edited after the report: refused, both hashes named
    edited = tmp_path / "edited.toml"
    edited.write_text(
        files[0].read_text(encoding="utf-8").replace("points = 3\narmour = 1", "points = 4\narmour = 1"),
        encoding="utf-8",
    )
    now = table_fingerprint(load_card_table(edited, files[1]))
    capsys.readouterr()
    assert run(["yuxi", "replay", str(report), "--cards-file", str(edited)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert v.table_hash in err and now in err
    assert now != shipped != v.table_hash
    # the shipped tables given for a report made on the designer's ones
    shipped_files = ["--cards-file", str(DATA / "cards.toml"), "--decks-file", str(DATA / "decks.toml")]
    assert run(["yuxi", "replay", str(report), *shipped_files]) == 2
    err = capsys.readouterr().err
    assert v.table_hash in err and shipped in err


def test_cli_play_audit_balance_take_the_files(files: tuple[Path, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    opts = ["--cards-file", str(files[0]), "--decks-file", str(files[1])]
    want = table_fingerprint(load_card_table(*files))
    played = runner.invoke(
        app,
        [
            "yuxi",
            "play",
            "--board",
            "3x3",
            "--agents",
            "greedy,greedy",
            "--decks",
            "warden_wall,tide_guild",
            "--seed",
            "2",
            "--json",
            *opts,
        ],
    )
    assert played.exit_code == 0, played.output
    out = json.loads(played.output)
    assert out["table_hash"] == want and out["decks"] == ["warden_wall", "tide_guild"]
    audited = runner.invoke(app, ["yuxi", "audit", "--games", "2", "--boards", "3x3", "--json", *opts])
    assert audited.exit_code == 0, audited.output
    assert json.loads(audited.output)["table_hash"] == want
    balanced = runner.invoke(
        app,
        ["yuxi", "balance", "--games", "1", "--boards", "3x3", "--json", *opts],
    )
    assert balanced.exit_code == 0, balanced.output
    body = json.loads(balanced.output)
    assert body["table_hash"] == want
    assert "tide_warden" in {c["card"] for c in body["cards"]}
    # a shipped-table run names another hash
    shipped = runner.invoke(
        app, ["yuxi", "audit", "--games", "1", "--boards", "3x3", "--search", "random", "--json"]
    )
    assert json.loads(shipped.output)["table_hash"] == table_fingerprint(load_card_table())
