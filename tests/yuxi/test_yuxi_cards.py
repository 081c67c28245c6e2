"""The card table and decks: the shipped data validates, bad files are refused with errors
naming the file, card and field, and the rules document lists exactly the shipped cards."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from paiju.core.errors import ConfigError, CorruptRecordError, InvalidNotationError
from paiju.yuxi.cards import COPY_LIMIT, load_card_table, parse_card_table
from paiju.yuxi.effects import EFFECTS
from paiju.yuxi.rulesdoc import BEGIN, END, card_reference_markdown, embed

DATA = Path(__file__).resolve().parents[2] / "src" / "paiju" / "yuxi" / "data"
RULES = Path(__file__).resolve().parents[2] / "docs" / "yuxi-rules.md"


def _data() -> tuple[dict[str, Any], dict[str, Any]]:
    return (
        tomllib.loads((DATA / "cards.toml").read_text(encoding="utf-8")),
        tomllib.loads((DATA / "decks.toml").read_text(encoding="utf-8")),
    )


def test_shipped_table_shape() -> None:
    table = load_card_table()
    cards = [c for c in table.cards[1:] if c is not None]
    assert [c.id for c in cards] == list(range(1, 45))
    deck_cards = [c for c in cards if not c.is_void]
    assert len(deck_cards) == 40 and len(cards) - len(deck_cards) == 4
    assert {c.faction for c in deck_cards} == {"tide", "guild", "storm", "iron"}
    assert 6 <= len(table.decks) <= 10
    for deck in table.decks.values():
        assert deck.size >= 35  # legal on every board, 6x4 included
        for key, n in deck.cards.items():
            assert n <= COPY_LIMIT[table.card(key).rarity]
    # every effect of the vocabulary is used by some card, and every card has rules text
    used = {ref.effect for c in cards for ref in c.effects}
    assert used == set(EFFECTS)
    assert all(c.text for c in cards)


def test_card_lookup_by_key_or_id() -> None:
    table = load_card_table()
    assert table.card("reef_crab").id == 1 and table.card(1).key == "reef_crab" and table.card("1").id == 1
    assert table.parse(" king_crab ").key == "king_crab"
    with pytest.raises(InvalidNotationError, match="unknown yuxi card 'reef_crap'"):
        table.card("reef_crap")
    with pytest.raises(InvalidNotationError, match="no yuxi card with id 45"):
        table.card(45)


def _bad(mutate: Any, match: str, deck_mutate: Any = None) -> None:
    cards, decks = _data()
    mutate(cards)
    if deck_mutate is not None:
        deck_mutate(decks)
    with pytest.raises(ConfigError, match=match):
        parse_card_table(cards, decks, "bad.toml")


def _card(cards: dict[str, Any], key: str) -> dict[str, Any]:
    return next(c for c in cards["card"] if c["key"] == key)


def test_bad_cards_are_refused_naming_card_and_field() -> None:
    _bad(
        lambda c: _card(c, "reef_crab").update(points=-2),
        r"card 'reef_crab': field 'points' must be between 1",
    )
    _bad(
        lambda c: _card(c, "reef_crab").update(points="two"),
        r"card 'reef_crab': field 'points' must be an integer",
    )
    _bad(lambda c: _card(c, "reef_crab").update(colour="red"), r"field 'colour' is not a card field")
    _bad(lambda c: _card(c, "reef_crab").pop("text"), r"card 'reef_crab': field 'text' is missing")
    _bad(lambda c: _card(c, "reef_crab").update(faction="fire"), r"field 'faction' must be one of tide")
    _bad(lambda c: _card(c, "lightning").update(points=3), r"card 'lightning': field 'points' must be 0")
    _bad(lambda c: _card(c, "lightning").update(target="everywhere"), r"card 'lightning': field 'target'")
    _bad(
        lambda c: _card(c, "reef_crab")["effects"][0].update(effect="explode"),
        r"card 'reef_crab' effect #1: field 'effect' must be one of",
    )
    _bad(
        lambda c: _card(c, "reef_crab")["effects"][0].update(params={"title": "crabb"}),
        r"card 'reef_crab' effect #1 \(eat_adjacent\): field 'params.title' must be a title some card has",
    )
    _bad(
        lambda c: _card(c, "reef_crab")["effects"][0].update(params={}),
        r"effect #1 \(eat_adjacent\): field 'params' is missing 'title'",
    )
    _bad(
        lambda c: _card(c, "hired_blade")["effects"][0].update(params={"amount": 1, "range": 2}),
        r"field 'params' has unknown parameter 'range'",
    )
    _bad(
        lambda c: _card(c, "hired_blade")["effects"][0].update(params={"amount": True}),
        r"field 'params.amount' must be an integer",
    )
    _bad(
        lambda c: _card(c, "reef_crab")["effects"][0].update(trigger="cast"),
        r"card 'reef_crab' effect #1 \(eat_adjacent\): field 'trigger'",
    )
    _bad(
        lambda c: _card(c, "lightning")["effects"][0].update(trigger="deploy"),
        r"card 'lightning' effect #1 \(damage_target\): field 'trigger' a spell's effects trigger on 'cast'",
    )
    _bad(
        lambda c: _card(c, "king_crab").update(cooldown=0), r"card 'king_crab': field 'cooldown' must be >= 1"
    )
    _bad(lambda c: _card(c, "footman").update(cooldown=2), r"card 'footman': field 'cooldown'")
    _bad(
        lambda c: _card(c, "shell_guard")["effects"][0]["params"].update(card="footman"),
        r"field 'params.card' must be the key of a void card",
    )
    _bad(
        lambda c: _card(c, "treasurer")["effects"][0]["params"].update(card="bubble"),
        r"field 'params.card' must be a void card with the title 'coin'",
    )
    _bad(
        lambda c: _card(c, "crabling")["effects"].append(
            {"trigger": "deploy", "effect": "add_void", "params": {"card": "crabling", "count": 1}}
        ),
        r"card 'crabling': field 'effects' a void card may not create void cards",
    )
    _bad(
        lambda c: _card(c, "footman").update(id=1),
        r"card 'footman': field 'id' 1 is also the id of 'reef_crab'",
    )
    _bad(lambda c: _card(c, "recruit").update(id=99), r"card ids must be 1..44 with no gaps")
    _bad(lambda c: _card(c, "footman").update(key="Foot Man"), r"field 'key' must be snake_case")


def test_bad_decks_are_refused_naming_deck_and_card() -> None:
    noop = lambda c: None  # noqa: E731
    _bad(
        noop,
        r"deck 'tempest': field 'cards.reef_crab' must be 1..4 copies",
        lambda d: d["deck"][-1]["cards"].update(reef_crab=5),
    )
    _bad(
        noop,
        r"deck 'tempest': field 'cards.maelstrom' must be 1..1 copies \(a epic card\)",
        lambda d: d["deck"][-1]["cards"].update(maelstrom=2),
    )
    _bad(
        noop,
        r"deck 'tempest': field 'cards.coin' is a void card",
        lambda d: d["deck"][-1]["cards"].update(coin=1),
    )
    _bad(
        noop,
        r"deck 'tempest': field 'cards.dragon' is not a card key",
        lambda d: d["deck"][-1]["cards"].update(dragon=1),
    )
    _bad(
        noop,
        r"deck 'tiny': field 'cards' holds 4 cards; the smallest board needs 15",
        lambda d: d["deck"].append({"key": "tiny", "name": "Tiny", "cards": {"footman": 4}}),
    )


def test_small_decks_are_refused_per_board(tmp_path: Path) -> None:
    from paiju.yuxi.game import YuxiGame

    decks = (DATA / "decks.toml").read_text(encoding="utf-8") + (
        '\n[[deck]]\nkey = "small"\nname = "Small"\n'
        "cards = { footman = 4, shieldbearer = 4, drillmaster = 4, banner_bearer = 4, field_medic = 4 }\n"
    )
    path = tmp_path / "decks.toml"
    path.write_text(decks, encoding="utf-8")
    YuxiGame(board="3x3", decks=("small", "tempest"), decks_file=str(path))
    with pytest.raises(
        ConfigError, match="deck 'small' \\(seat 0\\) has 20 cards; the 4x4 board needs at least 25"
    ):
        YuxiGame(board="4x4", decks=("small", "tempest"), decks_file=str(path))


def test_unreadable_or_broken_files_are_corrupt_records(tmp_path: Path) -> None:
    broken = tmp_path / "cards.toml"
    broken.write_text("[[card]]\nid = 1\nkey = 'x\n", encoding="utf-8")
    with pytest.raises(CorruptRecordError, match=r"cards\.toml: the yuxi card file is not valid TOML"):
        load_card_table(broken)
    with pytest.raises(CorruptRecordError, match="cannot read the yuxi card file"):
        load_card_table(tmp_path / "missing.toml")


def test_rules_document_lists_exactly_the_shipped_cards() -> None:
    text = RULES.read_text(encoding="utf-8")
    table = load_card_table()
    assert BEGIN in text and END in text
    assert embed(text, table) == text, (
        "docs/yuxi-rules.md is stale: regenerate with paiju.yuxi.rulesdoc.embed"
    )
    ref = card_reference_markdown(table)
    for c in table.cards[1:]:
        assert f"`{c.key}`" in ref and c.text in ref  # type: ignore[union-attr]


def test_effect_overrides_must_name_real_effects() -> None:
    with pytest.raises(ConfigError, match="effect override 'explode': no such effect"):
        load_card_table().compile({"explode": lambda *a, **k: None})
