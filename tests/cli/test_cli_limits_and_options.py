"""`--help` states each limit; `paiju arena --option` sets a game's rules; the CLI fixes of
issue 12 (help markup, the arena's paired row, the README's `ddz moves` example)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer.main
from rich.console import Console

from paiju.cli.main import app, run
from paiju.cli.validate import LimitsHelpCommand, game_options
from paiju.core.arena import run_arena, setup_match, summarize
from paiju.core.registry import load_agents, load_game
from paiju.core.stats import mean_ci

ROOT = Path(__file__).resolve().parents[2]

# options whose value scales the cost of a command: each must have a documented maximum
COST_OPTIONS = {
    "games", "hands", "workers", "rounds", "players", "top", "count", "plays", "tournaments",
    "beam", "min_plays", "seed", "port",
}


def _commands() -> dict[str, object]:
    out: dict[str, object] = {}

    def walk(command: object, prefix: tuple[str, ...]) -> None:
        subs = getattr(command, "commands", None)
        if subs is None:
            out[" ".join(prefix)] = command
            return
        for name, sub in subs.items():
            walk(sub, (*prefix, name))

    walk(typer.main.get_command(app), ())
    return out


def _help(path: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", "400")  # no wrapping inside the help table's cells
    assert run([*path.split(), "--help"]) == 0
    out = capsys.readouterr().out
    # a long help text still wraps inside its cell: drop the cell borders, join the words
    return " ".join(out.replace("│", " ").split())


@pytest.mark.parametrize("path", sorted(_commands()))
def test_help_states_every_limit(
    path: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    command = _commands()[path]
    text = _help(path, capsys, monkeypatch)
    for param in command.params:  # type: ignore[attr-defined]
        if param.name in COST_OPTIONS:
            assert param.max is not None, f"{path} --{param.name} has no maximum"
        if getattr(param, "max", None) is not None:
            assert f"<=x<={param.max}" in text, (path, param.name)
        if getattr(param, "min", None) is not None:
            shown = f"{param.min}<=x" if param.max is not None else f"x>={param.min}"
            assert shown in text, (path, param.name)
    # every --agents help says where the agents and their parameter ranges are listed
    agent_params = [p for p in command.params if p.name in ("agents", "search")]  # type: ignore[attr-defined]
    if agent_params:
        assert isinstance(command, LimitsHelpCommand), path
        game = "GAME" if path == "arena" else (
            {"ddz": "doudizhu", "demo": "doudizhu", "mahjong": "mahjong", "yuxi": "yuxi"}[path.split()[0]])
        assert f"paiju agents {game}" in " ".join(text.split()), path


@pytest.mark.parametrize("game", ["doudizhu", "mahjong", "yuxi", "connect_four"])
def test_the_agents_command_lists_every_agent_with_its_ranges(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``paiju agents GAME``: each agent the registry holds, its description and every
    parameter's default and range or choices, as the registry states them."""
    registry = load_agents(game)
    assert run(["agents", game]) == 0
    blocks: dict[str, list[str]] = {}
    current: list[str] = []
    for line in capsys.readouterr().out.splitlines()[1:]:
        if line.startswith("    "):
            current.append(line.strip())
        else:
            current = blocks.setdefault(line.strip(), [])
    assert list(blocks) == registry.names()
    for name, (defaults, description) in registry.describe().items():
        assert " ".join(description.split()) in " ".join(blocks[name]), name
        for key, value in defaults.items():
            shown = [ln for ln in blocks[name] if ln.startswith(f"{key}={value}")]
            assert len(shown) == 1, (name, key)
            if key in registry.limits(name):
                found = re.search(r"\[(\S+?)\.\.(\S+)\]$", shown[0])
                assert found and (float(found[1]), float(found[2])) == registry.limits(name)[key], (name, key)
            elif key in registry.choices(name):
                assert shown[0].endswith(f"({'|'.join(registry.choices(name)[key])})"), (name, key)
    assert run(["agents", game, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)[game]
    assert [e["name"] for e in listed] == registry.names()


def test_the_agents_command_refuses_an_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["agents", "chess"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown game 'chess'" in err[0] and "mahjong" in err[0]


def test_help_keeps_bracketed_text(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rich markup must not eat `[landlord]...` or the ranges' brackets in any help text."""
    assert "([landlord][farmer 1][farmer 2])" in _help("ddz play", capsys, monkeypatch)
    assert run(["agents", "doudizhu"]) == 0
    assert "budget=120 [1..5000]" in capsys.readouterr().out
    for path, command in _commands().items():
        text = _help(path, capsys, monkeypatch)
        sources = [command.help or ""] + [p.help or "" for p in command.params]  # type: ignore[attr-defined]
        for source in sources:
            for bracketed in re.findall(r"\\?\[[A-Za-z][^\]]*\]", source):
                assert bracketed.lstrip("\\") in text, (path, bracketed)


# --- paiju arena --option ------------------------------------------------------------------


def test_arena_option_sets_the_rules_and_matches_the_library(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The RLCard-anchor set-up of the ladder: `wing_rule="rlcard"`, as the benchmark sets it."""
    record = tmp_path / "runs"
    argv = ["arena", "-g", "doudizhu", "-a", "rule,random", "-n", "4", "--seed", "5",
            "-o", "wing_rule=rlcard", "--record", str(record), "--json", "--no-progress"]
    assert run(argv) == 0
    cli = json.loads(capsys.readouterr().out)
    header = json.loads((record / "run.json").read_text())
    assert header["config"]["game_options"] == {"wing_rule": "rlcard"}
    assert header["config"]["rules_version"].endswith("wings=rlcard")
    lib = run_arena("doudizhu", ["rule", "random"], 4, 5, game_options={"wing_rule": "rlcard"}).as_dict()
    assert cli["run_id"] == lib["run_id"]
    assert cli["roles"] == lib["roles"] and cli["duplicate"] == lib["duplicate"]
    default = run_arena("doudizhu", ["rule", "random"], 4, 5).as_dict()
    assert default["run_id"] != lib["run_id"]  # the option is part of the run's identity


def test_game_options_are_typed_from_the_config() -> None:
    got = game_options(
        "mahjong", ["min_tai=1", "limit=none", "extras=", "multi_ron=head_bump", "missed_discard_lock=off"]
    )
    assert got == {"min_tai": 1, "limit": None, "extras": [], "multi_ron": "head_bump",
                   "missed_discard_lock": False}
    cfg = load_game("mahjong", **got).config  # type: ignore[attr-defined]
    assert (cfg.min_tai, cfg.limit, cfg.multi_ron, cfg.missed_discard_lock) == (1, None, "head_bump", False)
    yuxi = game_options("yuxi", ["decks=tempest,crab_feast", "die_bonus=false", "board=3x3"])
    assert load_game("yuxi", **yuxi).config.decks == ("tempest", "crab_feast")  # type: ignore[attr-defined]
    ddz = game_options("doudizhu", ["scoring=casual", "bidding=yes"])
    assert ddz == {"scoring": "casual", "bidding": True}
    assert game_options("gomoku", ["rows=9", "win_length=4"]) == {"rows": 9, "win_length": 4}
    assert game_options("kuhn_poker", None) == {}


# --- the arena's paired row ------------------------------------------------------------------


def _row(deal: int, lineup: int, seats: tuple[int, int], returns: list[float]) -> dict:
    return {
        "deal_index": deal, "lineup": lineup, "seat_agents": list(seats), "roles": ["first", "second"],
        "returns": returns, "move_players": [0, 1], "move_ms": [1.0, 1.0],
    }


def test_paired_row_label_agrees_with_its_value() -> None:
    """Hand-computed, not zero-sum so A's score and the paired value differ:
    deal 0: A gets 2 (seat 0) + 1 (seat 1 of line-up 1) = 3, B gets 0 + 1 = 1 -> (3 - 1) / 2 = 1;
    deal 1: everything 0 -> 0. Duplicate A = 1.5, B = 0.5; paired = (1.5 - 0.5) / 2 = 0.5."""
    setup = setup_match("kuhn_poker", ["nash", "random"], seed=0)
    rows = [
        _row(0, 0, (0, 1), [2.0, 0.0]), _row(0, 1, (1, 0), [1.0, 1.0]),
        _row(1, 0, (0, 1), [0.0, 0.0]), _row(1, 1, (1, 0), [0.0, 0.0]),
    ]
    report = summarize(rows, setup, seed=0)
    assert report.duplicate["nash"].value == 1.5 and report.duplicate["random"].value == 0.5
    assert report.paired_difference == mean_ci([1.0, 0.0])
    console = Console(record=True, width=200)
    for table in report.tables():
        console.print(table)
    line = next(x for x in console.export_text().splitlines() if "paired" in x)
    assert "(nash − random) / 2, paired" in line
    assert re.search(r"│\s+0\.50 \[", line), line


# --- README -----------------------------------------------------------------------------------


def test_readme_ddz_moves_example_lists_moves(capsys: pytest.CaptureFixture[str]) -> None:
    line = next(x for x in (ROOT / "README.md").read_text().splitlines() if "paiju ddz moves" in x)
    argv = line.split("#")[0].split()[1:]  # drop ".venv/bin/paiju"
    assert run([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] > 1 and data["can_pass"]
