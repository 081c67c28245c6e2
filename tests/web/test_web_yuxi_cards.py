"""yuxi in the web app: a game on a designer's card table sent with the request (bounded,
4xx naming the field), swap offers named by card names, readable damaged points."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from paiju.yuxi.cards import MAX_TABLE_TEXT, load_card_table, table_fingerprint

ROOT = Path(__file__).parents[2]
STATIC = ROOT / "src" / "paiju" / "web" / "static"
DATA = ROOT / "src" / "paiju" / "yuxi" / "data"
EXAMPLE = ROOT / "docs" / "yuxi-cards"  # the new card and deck of docs/yuxi-cards.md


def _appended(shipped: str, example: str) -> str:
    return (DATA / shipped).read_text(encoding="utf-8") + "\n" + (EXAMPLE / example).read_text("utf-8")


CARDS = _appended("cards.toml", "tide_warden.toml")
DECKS = _appended("decks.toml", "warden_wall.toml")


def _new(client: Any, **body: Any) -> Any:
    return client.post("/api/games/yuxi", json={"seat": 0, "board": "3x3", "seed": 5, **body})


def test_a_game_on_the_requests_card_table_carries_its_hash(client: Any, tmp_path: Path) -> None:
    r = _new(client, cards_toml=CARDS, decks_toml=DECKS, decks=["warden_wall", "tide_guild"])
    assert r.status_code == 201, r.text
    view = r.json()
    cards, decks = tmp_path / "c.toml", tmp_path / "d.toml"
    cards.write_text(CARDS, encoding="utf-8")
    decks.write_text(DECKS, encoding="utf-8")
    assert view["table_hash"] == table_fingerprint(load_card_table(cards, decks))
    assert view["decks"] == ["warden_wall", "tide_guild"]
    # the shipped table's game names the shipped hash
    plain = _new(client).json()
    assert plain["table_hash"] == table_fingerprint(load_card_table())
    # reloading the game (the stored params) gives the same table
    again = client.get(f"/api/games/{view['id']}").json()
    assert again["table_hash"] == view["table_hash"]


def test_bad_tables_are_4xx_naming_the_field(client: Any) -> None:
    bad_toml = _new(client, cards_toml="[[card]\nid = ")
    assert bad_toml.status_code == 422 and bad_toml.json()["field"] == "cards_toml"
    assert "not valid TOML" in bad_toml.json()["error"]
    # the deck names a card the (shipped) card table lacks
    bad_deck = _new(client, decks_toml=DECKS)
    assert bad_deck.status_code == 422 and bad_deck.json()["field"] == "decks_toml"
    assert "tide_warden" in bad_deck.json()["error"]
    bad_card = _new(client, cards_toml=CARDS.replace("id = 45", "id = 47"))
    assert bad_card.status_code == 422 and bad_card.json()["field"] == "cards_toml"
    too_big = _new(client, cards_toml=CARDS + "#" * MAX_TABLE_TEXT)
    assert too_big.status_code == 422 and too_big.json()["field"] == "cards_toml"
    not_text = _new(client, cards_toml=12)
    assert not_text.status_code == 422 and not_text.json()["field"] == "cards_toml"


def test_swap_offers_are_named_by_card_names(client: Any) -> None:
    view = _new(client, decks=["tide_iron", "guild_storm"]).json()
    assert view["your_turn"] and view["phase"] == "swap"
    swaps = [a for a in view["legal"] if a["kind"] == "swap"]
    assert swaps
    offered = {c["name"] for c in view["offer"]}
    hand = {c["name"] for c in view["hand"]}
    for a in swaps:
        assert a["take"] in offered and a["give"] in hand
        assert a["text"] == f"give {a['give']}, take {a['take']}"
        # the notation (keys) stays the label; the shown text has names, which are not keys
        give_key, take_key = a["label"].removeprefix("swap ").split("->")
        assert load_card_table().card(give_key).name == a["give"]
        assert load_card_table().card(take_key).name == a["take"]
    script = (STATIC / "yuxi.js").read_text(encoding="utf-8")
    assert "a.text || a.label" in script


def _luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_damaged_points_have_readable_contrast() -> None:
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    # WCAG's formula checked on a known pair: black on white is 21:1
    assert round(_contrast("#000", "#fff"), 1) == 21.0
    for state in ("down", "up"):
        rule = re.search(r"\.pts\." + state + r" \{([^}]*)\}", css)
        assert rule, state
        decl = dict(
            (k.strip(), v.strip()) for k, v in (d.split(":", 1) for d in rule.group(1).split(";") if ":" in d)
        )
        # the points sit on their own background, whatever the seat's colour around them
        assert _contrast(decl["color"], decl["background"]) >= 4.5, (state, decl)


def test_the_games_record_row_names_the_table_hash(tmp_path: Path) -> None:
    import json

    from paiju.web.sessions import SESSION_KINDS

    params = {"seat": 0, "agents": [None, "greedy"], "board": "3x3", "decks": ["warden_wall", "tide_guild"],
              "cards_toml": CARDS, "decks_toml": DECKS}
    session = SESSION_KINDS["yuxi"]("0123abcd", params, 5)
    row = session.record_row(0, "run")
    cards, decks = tmp_path / "c.toml", tmp_path / "d.toml"
    cards.write_text(CARDS, encoding="utf-8")
    decks.write_text(DECKS, encoding="utf-8")
    assert json.loads(row["extra"])["table_hash"] == table_fingerprint(load_card_table(cards, decks))
