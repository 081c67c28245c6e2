"""yuxi arena records carry the card table's hash, the board, the decks and the final scores."""

from __future__ import annotations

import json
from pathlib import Path

from paiju.core.arena import run_games
from paiju.yuxi.cards import load_card_table, table_fingerprint

ROOT = Path(__file__).resolve().parents[2]
DATA, EXAMPLE = ROOT / "src" / "paiju" / "yuxi" / "data", ROOT / "docs" / "yuxi-cards"


def test_records_carry_the_card_tables_hash(tmp_path: Path) -> None:
    shipped = run_games("yuxi", ["greedy", "random"], 2, seed=3).rows
    assert shipped is not None
    extra = json.loads(shipped[0]["extra"])
    assert extra["table_hash"] == table_fingerprint(load_card_table())
    assert extra["board"] == "4x4" and len(extra["decks"]) == 2
    assert shipped[0]["returns"][0] == (1.0 if extra["final_scores"][0] > extra["final_scores"][1] else
                                        -1.0 if extra["final_scores"][0] < extra["final_scores"][1] else 0.0)
    # the documented example (docs/yuxi-cards.md: a card and a deck appended to the shipped
    # tables) is another table: another hash
    cards, decks = tmp_path / "cards.toml", tmp_path / "decks.toml"
    cards.write_text((DATA / "cards.toml").read_text() + "\n" + (EXAMPLE / "tide_warden.toml").read_text())
    decks.write_text((DATA / "decks.toml").read_text() + "\n" + (EXAMPLE / "warden_wall.toml").read_text())
    options = {"cards_file": str(cards), "decks_file": str(decks)}
    other = run_games("yuxi", ["greedy", "random"], 2, seed=3, game_options=options).rows
    assert other is not None
    assert json.loads(other[0]["extra"])["table_hash"] != extra["table_hash"]
