"""The attribute encoder (version 2): cards by what they are, so the card file changes no input
width; no hidden-card leak; one attribute changed moves exactly its channels; models say which
encoder they read."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from yuxi_states import random_states, same_encoding

from paiju.core.errors import ConfigError
from paiju.yuxi.board import BOARDS
from paiju.yuxi.card_features import CARD_FEATURES, card_features, title_channels
from paiju.yuxi.card_types import Card
from paiju.yuxi.cards import load_card_table
from paiju.yuxi.encoding import (
    ZONE_SCALE,
    ZONES,
    EncoderSpec,
    YuxiAttributeEncoder,
    YuxiEncoder,
    encoder_for,
)
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiState
from paiju.yuxi.rooms import YuxiRooms

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "src" / "paiju" / "yuxi" / "data"
EXAMPLE = ROOT / "docs" / "yuxi-cards"


@pytest.fixture(scope="module")
def grown_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """The shipped tables plus docs/yuxi-cards.md's new card (tide_warden, id 45) and deck."""
    root = tmp_path_factory.mktemp("grown")
    cards, decks = root / "cards.toml", root / "decks.toml"
    cards.write_text((DATA / "cards.toml").read_text(encoding="utf-8") + "\n"
                     + (EXAMPLE / "tide_warden.toml").read_text(encoding="utf-8"), encoding="utf-8")
    decks.write_text((DATA / "decks.toml").read_text(encoding="utf-8") + "\n"
                     + (EXAMPLE / "warden_wall.toml").read_text(encoding="utf-8"), encoding="utf-8")
    return str(cards), str(decks)


def test_a_card_added_through_the_card_file_changes_no_input(grown_files: tuple[str, str]) -> None:
    """Same widths; and a game the new card takes no part in encodes exactly as on the old table."""
    cards, decks = grown_files
    for board in BOARDS:
        old = YuxiGame(YuxiConfig(board=board, decks=("tide_guild", "storm_iron")))
        new = YuxiGame(YuxiConfig(board=board, decks=("tide_guild", "storm_iron"), cards_file=cards,
                                  decks_file=decks))
        assert new.table.num_ids == old.table.num_ids + 1
        a, b = YuxiAttributeEncoder(old), YuxiAttributeEncoder(new)
        assert (a.plane_shape, a.vector_size) == (b.plane_shape, b.vector_size)
        assert a.plane_names == b.plane_names and a.vector_names == b.vector_names
        # random play picks by index, so both tables play the same game
        for s, t in zip(random_states(old, 4, 1), random_states(new, 4, 1), strict=True):
            seat = a.perspective(s)
            if not s.is_chance_node():
                assert list(map(s.action_to_string, s.legal_actions())) == list(
                    map(t.action_to_string, t.legal_actions()))
            seen_a, seen_b = s.observation(seat), t.observation(seat)
            assert same_encoding(a.encode_observation(seen_a), b.encode_observation(seen_b))
    # the card-id channels are the option that ties the inputs to the table again
    with_ids = YuxiAttributeEncoder(YuxiGame(board="3x3", cards_file=cards, decks_file=decks), card_ids=True)
    plain = YuxiAttributeEncoder(YuxiGame(board="3x3"), card_ids=True)
    assert with_ids.plane_shape[0] == plain.plane_shape[0] + 1
    assert with_ids.vector_size == plain.vector_size + len(ZONES)
    assert "card:tide_warden" in with_ids.plane_names
    assert "enemy_unseen:card:tide_warden" in with_ids.vector_names


def test_the_new_card_is_read_by_its_attributes(grown_files: tuple[str, str]) -> None:
    """tide_warden is a 3-point, 1-armour rare tide Shell whose deploy boosts adjacent Shells: a
    card the network has never seen arrives as features it knows."""
    table = load_card_table(*grown_files)
    row = dict(zip(CARD_FEATURES, card_features(table.card("tide_warden"), table).tolist(), strict=True))
    lit = {k for k, v in row.items() if v}
    a, b = title_channels("shell")
    assert lit == {
        "faction:tide", "kind:character", "rarity:rare", "points", "armour", "target:empty",
        f"title:a{a}", f"title:b{b}", "effect:boost_adjacent_allies@deploy",
        "effect:boost_adjacent_allies.amount", f"effect_title:a{a}", f"effect_title:b{b}",
    }
    assert (row["points"], row["armour"], row["effect:boost_adjacent_allies.amount"]) == pytest.approx(
        (0.3, 0.2, 0.2)
    )


@pytest.mark.parametrize("board", list(BOARDS))
@pytest.mark.parametrize("card_ids", [False, True])
def test_resampling_the_hidden_cards_changes_no_input(board: str, card_ids: bool) -> None:
    game = YuxiGame(board=board, decks=("tide_guild", "storm_iron"))
    enc = YuxiAttributeEncoder(game, card_ids=card_ids)
    rng = np.random.default_rng(7)
    hidden_changed = 0
    for s in random_states(game, seed=3, games=3)[::3]:
        seat = enc.perspective(s)
        x = enc.encode(s)
        for _ in range(3):
            other = s.resample_from_infostate(seat, rng)
            assert isinstance(other, YuxiState)
            hidden_changed += sorted(other.hand[1 - seat]) != sorted(s.hand[1 - seat])
            assert enc.perspective(other) == seat
            assert same_encoding(enc.encode(other), x)
    assert hidden_changed > 10  # the redraws did change the opponent's hidden hand


def test_the_zones_hold_the_cards_where_they_are() -> None:
    """Each zone's counts against the true state, and the vector's zone block is their cards'
    features summed (the enemy's unseen cards: exactly their hand and deck, less the void cards
    they were seen to receive)."""
    game = YuxiGame(board="4x4", decks=("crab_feast", "guild_iron"))
    enc = YuxiAttributeEncoder(game)
    table = game.table
    features = np.stack([np.zeros(len(CARD_FEATURES), np.float32)]
                        + [card_features(c, table) for c in table.cards if c is not None])
    checked = 0
    for s in random_states(game, seed=8, games=2)[1::2]:
        for me in (0, 1):
            opp = 1 - me
            obs = s.observation(me)
            counts = enc.zone_counts(obs)
            n = table.num_ids + 1
            hidden = [c for c in s.hand[opp] if not game.is_void[c]]
            expect = {
                "hand": np.bincount(s.hand[me], minlength=n),
                "deck": np.asarray(s.deck[me]),
                "grave": np.asarray(s.grave[me]),
                "enemy_grave": np.asarray(s.grave[opp]),
                "enemy_voids": np.bincount([c for c in s.hand[opp] if game.is_void[c]], minlength=n),
                "offer": np.bincount(obs.offer, minlength=n),
                "enemy_unseen": np.bincount(hidden, minlength=n) + np.asarray(s.deck[opp]),
            }
            vector = enc.vector(obs)
            for z, zone in enumerate(ZONES):
                assert np.array_equal(counts[z], expect[zone]), zone
                block = vector[z * len(CARD_FEATURES):(z + 1) * len(CARD_FEATURES)]
                np.testing.assert_allclose(block, expect[zone] @ features / ZONE_SCALE, rtol=1e-5, atol=1e-6)
            checked += 1
    assert checked > 20


def test_cards_differing_in_one_attribute_differ_in_exactly_its_channels() -> None:
    table = load_card_table()
    crab, blade = table.card("reef_crab"), table.card("hired_blade")

    def moved(card: Card, changed: Card) -> set[str]:
        a, b = card_features(card, table), card_features(changed, table)
        return {CARD_FEATURES[i] for i in np.flatnonzero(a != b)}

    assert moved(crab, dataclasses.replace(crab, points=3)) == {"points"}
    assert moved(crab, dataclasses.replace(crab, armour=1)) == {"armour"}
    assert moved(blade, dataclasses.replace(blade, cost=2)) == {"cost"}
    assert moved(crab, dataclasses.replace(crab, faction="iron")) == {"faction:tide", "faction:iron"}
    assert moved(crab, dataclasses.replace(crab, rarity="rare")) == {"rarity:common", "rarity:rare"}
    eats_shells = dataclasses.replace(
        crab, effects=(dataclasses.replace(crab.effects[0], params={"title": "shell"}),)
    )
    (ca, cb), (sa, sb) = title_channels("crab"), title_channels("shell")
    # the channels of one title and the other (a group's channel they share does not move)
    assert moved(crab, eats_shells) == {f"effect_title:a{ca}", f"effect_title:b{cb}"} ^ {
        f"effect_title:a{sa}", f"effect_title:b{sb}"}
    hits_harder = dataclasses.replace(
        blade, effects=(dataclasses.replace(blade.effects[0], params={"amount": 2}),)
    )
    assert moved(blade, hits_harder) == {"effect:damage_adjacent_enemies.amount"}
    timed = dataclasses.replace(blade, effects=(dataclasses.replace(blade.effects[0], trigger="turn_end"),))
    assert moved(blade, timed) == {"effect:damage_adjacent_enemies@deploy",
                                   "effect:damage_adjacent_enemies@turn_end"}
    general = table.card("general")  # its death adds two Recruits: a 2-point iron Soldier
    fewer = dataclasses.replace(general, effects=(
        general.effects[0], dataclasses.replace(general.effects[1], params={"card": "recruit", "count": 1})))
    assert moved(general, fewer) == {"effect:add_void.count"}


def test_a_changed_card_moves_exactly_its_channels_in_the_whole_input(tmp_path: Path) -> None:
    """Two card files differing only in Hired Blade's damage: until a Hired Blade reaches the
    board the games are the same, and every input differs only in the zone channels of that
    parameter, by the copies in the zone times the change."""
    text = (DATA / "cards.toml").read_text(encoding="utf-8")
    line = 'effects = [{ trigger = "deploy", effect = "damage_adjacent_enemies", params = { amount = 1 } }]'
    assert text.count(line) == 1  # hired_blade's own line
    path = tmp_path / "cards.toml"
    path.write_text(text.replace(line, line.replace("amount = 1", "amount = 2")), encoding="utf-8")
    old = YuxiGame(YuxiConfig(board="6x4", decks=("guild_iron", "guild_storm")))
    new = YuxiGame(YuxiConfig(board="6x4", decks=("guild_iron", "guild_storm"), cards_file=str(path)))
    a, b = YuxiAttributeEncoder(old), YuxiAttributeEncoder(new)
    blade = old.table.card("hired_blade").id
    channel = {z: a.vector_names.index(f"{z}:effect:damage_adjacent_enemies.amount") for z in ZONES}
    differing = 0
    for s, t in zip(random_states(old, 2, 1), random_states(new, 2, 1), strict=False):
        if blade in s.card:
            break
        for seat in (0, 1):
            obs = s.observation(seat)
            (pa, va), (pb, vb) = a.encode_observation(obs), b.encode_observation(t.observation(seat))
            assert np.array_equal(pa, pb)
            counts = a.zone_counts(obs)[:, blade]
            expect = np.zeros_like(va)
            for z, zone in enumerate(ZONES):
                expect[channel[zone]] = counts[z] * (2 - 1) / 5 / ZONE_SCALE
            np.testing.assert_allclose(vb - va, expect, atol=1e-6)
            differing += bool(counts.any())
    assert differing > 5


def test_the_shipped_titles_are_told_apart() -> None:
    titles = {t for c in load_card_table().cards if c is not None for t in c.titles}
    assert len(titles) == 10
    assert len({title_channels(t) for t in titles}) == len(titles)


def test_distinct_observations_encode_differently() -> None:
    """Every visible thing reaches the input (the card ids left out: the shipped cards all
    differ in some attribute)."""
    seen: dict[bytes, object] = {}
    for board in BOARDS:
        game = YuxiGame(board=board, decks=("tide_storm", "guild_iron"))
        enc = YuxiAttributeEncoder(game)
        for s in random_states(game, seed=11, games=2):
            for seat in (0, 1):
                obs = s.observation(seat)
                planes, vector = enc.encode_observation(obs)
                key = planes.tobytes() + vector.tobytes()
                # to_move follows from the phase and the turn's owner
                view = dataclasses.replace(obs, to_move=0)
                if key in seen:
                    assert seen[key] == view
                seen[key] = view
    assert len(seen) > 200


def test_a_model_names_the_encoder_it_reads() -> None:
    game = YuxiGame(board="3x3")
    # every model made before version 2 has no "encoder": version 1, exactly the old encoder
    assert EncoderSpec.of_model({"card_table": "x"}) == EncoderSpec(1)
    assert type(encoder_for(game, {})) is YuxiEncoder
    v2 = encoder_for(game, {"encoder": {"version": 2, "card_ids": True}})
    assert isinstance(v2, YuxiAttributeEncoder) and v2.card_ids and v2.spec == EncoderSpec(2, card_ids=True)
    assert EncoderSpec.of_model({"encoder": EncoderSpec(2).to_meta()}) == EncoderSpec(2)
    with pytest.raises(ConfigError, match=r"model m\.pt needs yuxi encoder version 3"):
        encoder_for(game, {"encoder": {"version": 3}}, "model m.pt")
    with pytest.raises(ConfigError, match="is not"):
        EncoderSpec.of_model({"encoder": "attributes"})
    with pytest.raises(ConfigError, match="card_ids is a version 2 option"):
        EncoderSpec(1, card_ids=True)


def test_rooms_record_the_encoder_only_when_it_is_not_version_1() -> None:
    """A run's game identity (and a model's metadata) is the rooms' description: version 1's
    is as before, so earlier runs still resume; version 2's names it."""
    plain = YuxiRooms(boards=("3x3",))
    assert "encoder" not in plain.describe()
    assert type(plain(0)[1]) is YuxiEncoder
    attrs = YuxiRooms(boards=("3x3",), encoder=EncoderSpec(2))
    assert attrs.describe()["encoder"] == {"version": 2, "card_ids": False}
    game, encoder = attrs(0)
    assert isinstance(encoder, YuxiAttributeEncoder) and encoder.game is game
