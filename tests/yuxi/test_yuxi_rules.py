"""Rules of yuxi, card by card and rule by rule, on hand-built positions with hand-checked results.

Every game here runs with the invariant checker on, so each scenario also checks card
conservation, the score, the coin ledger and the rest after every action.
4×4 cells: a1=0 b1=1 c1=2 d1=3 / a2=4 b2=5 c2=6 d2=7 / a3=8 b3=9 c3=10 d3=11 / a4..d4=12..15.
"""

from __future__ import annotations

import pytest

from paiju.core.errors import IllegalMoveError
from paiju.core.protocol import CHANCE, TERMINAL
from paiju.yuxi.actions import END_TURN, KEEP, Offer
from paiju.yuxi.effects import FOG, ICE, THUNDER
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiState
from paiju.yuxi.invariants import check_invariants
from paiju.yuxi.phases import PH_OVER, PH_PLAY
from paiju.yuxi.scenario import scenario

TIDE = ("tide_guild", "crab_feast")
TIDE_VS_STORM = ("tide_guild", "storm_iron")
GUILD_VS_STORM = ("guild_iron", "storm_iron")
BAZAAR_VS_SHELL = ("guild_storm", "tide_iron")
TEMPEST = ("tempest", "tide_iron")


def mk(decks: tuple[str, str], board: str = "4x4", die: bool = False, swaps: bool = False) -> YuxiGame:
    return YuxiGame(YuxiConfig(board=board, decks=decks, die_bonus=die, swaps=swaps), check_invariants=True)


def build(game: YuxiGame, **kw: object) -> YuxiState:
    st = scenario(game, **kw)  # type: ignore[arg-type]
    check_invariants(st)
    return st


def unit(st: YuxiState, name: str) -> tuple[str, int, int, int, int] | None:
    """(key, owner, points, armour, coins) at a cell, or None."""
    i = st.shape.parse_cell(name)
    if not st.card[i]:
        return None
    return (st.cards[st.card[i]].key, st.owner[i], st.power[i], st.armour[i], st.coins[i])  # type: ignore[union-attr]


def play(st: YuxiState, text: str) -> None:
    st.apply(st.parse_action(text))


def hand_keys(st: YuxiState, p: int) -> list[str]:
    return [st.cards[c].key for c in st.hand[p]]  # type: ignore[union-attr]


def cid(st: YuxiState, key: str) -> int:
    return st.game.table.card(key).id


# ---- tide --------------------------------------------------------------------------------------
def test_reef_crab_eats_the_strongest_adjacent_crab_of_either_side_ties_to_lowest_cell() -> None:
    g = mk(TIDE)
    st = build(
        g,
        units={
            "b1": ("reef_crab", 1, {"power": 3}),  # enemy crab, 3 points, cell 1
            "a2": ("hermit_crab", 0, {"power": 3}),  # own crab, 3 points, cell 4 (tie: b1 wins)
            "c2": ("king_crab", 1, {"power": 2}),
            "b3": ("footman", 1, {"power": 9}),  # not a crab: never eaten
        },
        hands=(["reef_crab", "peddler"], ["footman"]),
    )
    play(st, "play reef_crab@b2")
    assert unit(st, "b1") is None
    assert unit(st, "b2") == ("reef_crab", 0, 2 + 3, 0, 0)
    assert unit(st, "a2") == ("hermit_crab", 0, 3, 1, 0)
    assert st.grave[1][cid(st, "reef_crab")] == 1
    assert st.score == [5 + 3, 2 + 9]


def test_fog_halves_a_newcomer_after_it_has_eaten_the_talks_bug() -> None:
    # the talk: a 6-point card in fog eating an 8 must end at (6 + 8) / 2 = 7, not 6/2 + 8 = 11
    g = mk(TIDE)
    st = build(
        g,
        units={"b1": ("reef_crab", 1, {"power": 8})},
        weather={"a1": "fog"},
        hands=(["reef_crab", "peddler"], ["footman"]),
    )
    play(st, "play reef_crab@a1")
    assert unit(st, "a1") == ("reef_crab", 0, (2 + 8) // 2, 0, 0)  # 5; the wrong order gives 1 + 8 = 9
    st2 = build(
        g,
        units={"b1": ("king_crab", 1, {"power": 12})},
        weather={"a1": "fog"},
        hands=(["reef_crab", "peddler"], ["footman"]),
    )
    play(st2, "play reef_crab@a1")
    assert unit(st2, "a1") == ("reef_crab", 0, 7, 0, 0)


def test_a_one_point_character_entering_fog_dies() -> None:
    g = mk(TIDE)
    st = build(
        g,
        units={"b2": ("peddler", 0)},
        weather={"a1": "fog"},
        hands=(["crabling", "reef_crab"], ["footman"]),
        played=True,
        acted=True,
    )
    play(st, "play crabling@a1")
    assert unit(st, "a1") is None
    assert st.grave[0][cid(st, "crabling")] == 1
    assert st.weather[0] == FOG


def test_shell_guard_death_gives_a_bubble_and_bubble_gives_armour() -> None:
    g = mk(TIDE_VS_STORM)
    st = build(
        g,
        units={"a1": ("shell_guard", 0, {"power": 1, "armour": 0}), "c3": ("peddler", 0)},
        hands=(["reef_crab"], ["lightning", "footman"]),
        to_move=1,
    )
    play(st, "play lightning@a1")
    assert unit(st, "a1") is None and st.grave[0][cid(st, "shell_guard")] == 1
    assert hand_keys(st, 0) == ["reef_crab", "bubble"]
    # seat 1 played a deck card and holds no void card: the turn ended by itself
    assert st.current_player() == 0
    play(st, "play bubble@c3")
    assert unit(st, "c3") == ("peddler", 0, 2, 2, 2)
    with pytest.raises(IllegalMoveError):
        st.apply(st.game.actions.play(cid(st, "bubble"), 5))  # no bubble left, and b2 is empty


def test_tide_caller_boosts_adjacent_friendly_crabs_only() -> None:
    g = mk(TIDE)
    st = build(
        g,
        units={"a1": ("reef_crab", 0), "c1": ("reef_crab", 1), "b2": ("shell_guard", 0)},
        hands=(["tide_caller", "peddler"], ["footman"]),
    )
    play(st, "play tide_caller@b1")
    assert unit(st, "a1")[2] == 4 and unit(st, "c1")[2] == 2 and unit(st, "b2")[2] == 2  # type: ignore[index]


def test_hermit_crab_counts_adjacent_shells_of_both_sides() -> None:
    g = mk(TIDE)
    st = build(
        g,
        units={"a1": ("shell_guard", 0), "c1": ("bubble_spout", 1), "b2": ("footman", 1)},
        hands=(["hermit_crab", "peddler"], ["footman"]),
    )
    play(st, "play hermit_crab@b1")
    assert unit(st, "b1") == ("hermit_crab", 0, 1 + 2, 1, 0)


def test_bubble_spout_adds_a_void_card_playable_after_the_deck_card() -> None:
    g = mk(TIDE)
    st = build(g, units={"d4": ("peddler", 0)}, hands=(["bubble_spout", "reef_crab"], ["footman"]))
    play(st, "play bubble_spout@a1")
    assert st.current_player() == 0 and st.played
    legal = {st.action_to_string(a) for a in st.legal_actions()}
    assert "play bubble@a1" in legal and "play bubble@d4" in legal
    assert not any(a.startswith("play reef_crab") for a in legal)  # one deck card per turn
    with pytest.raises(IllegalMoveError, match="already played"):
        play(st, "play reef_crab@b1")
    play(st, "play bubble@d4")
    assert unit(st, "d4") == ("peddler", 0, 2, 2, 2)


def test_king_crab_eats_on_its_timed_skill_and_ice_freezes_it() -> None:
    g = mk(TIDE)
    units = {"a1": ("king_crab", 0, {"cd": 1}), "b1": ("reef_crab", 1, {"power": 2})}
    st = build(g, units=units, hands=(["peddler", "reef_crab"], ["footman", "footman"]), to_move=1)
    play(st, "play footman@d4")  # seat 1 plays, the turn ends, seat 0's turn starts: cooldown 1 -> fires
    assert st.current_player() == 0
    assert unit(st, "a1") == ("king_crab", 0, 3 + 2, 0, 0) and unit(st, "b1") is None
    assert st.cd[0] == 2
    frozen = build(
        g,
        units=units,
        weather={"a1": "ice"},
        hands=(["peddler", "reef_crab"], ["footman", "footman"]),
        to_move=1,
    )
    play(frozen, "play footman@d4")
    assert unit(frozen, "a1") == ("king_crab", 0, 3, 0, 0) and unit(frozen, "b1") is not None
    assert frozen.cd[0] == 1


def test_pearl_diver_gains_a_coin_per_adjacent_shell() -> None:
    g = mk(TIDE)
    st = build(
        g,
        units={"a1": ("shell_guard", 0), "c1": ("hermit_crab", 1), "b2": ("reef_crab", 1)},
        hands=(["pearl_diver", "peddler"], ["footman"]),
        purses=(2, 0),
    )
    play(st, "play pearl_diver@b1")
    assert st.purse[0] == 4 and unit(st, "b1") == ("pearl_diver", 0, 2, 0, 1)


def test_undertow_returns_an_enemy_to_its_owners_deck_with_its_coins_to_its_purse() -> None:
    g = mk(TEMPEST)
    st = build(
        g,
        units={"a1": ("footman", 1, {"coins": 1}), "b1": ("recruit", 1)},
        hands=(["undertow", "undertow"], ["footman"]),
        purses=(3, 0),
    )
    deck_before = st.deck[1][cid(st, "footman")]
    play(st, "play undertow@a1")
    assert unit(st, "a1") is None and st.purse == [1, 1]
    assert st.deck[1][cid(st, "footman")] == deck_before + 1 and st.grave[1][cid(st, "footman")] == 0
    assert st.grave[0][cid(st, "undertow")] == 1
    # a void card can never go into a deck: returned, it goes to the grave
    st2 = build(
        g, units={"b1": ("recruit", 1)}, hands=(["undertow", "pickpocket"], ["footman"]), purses=(2, 0)
    )
    play(st2, "play undertow@b1")
    assert st2.grave[1][cid(st2, "recruit")] == 1 and st2.deck[1][cid(st2, "recruit")] == 0
    st3 = build(g, units={"b1": ("recruit", 1)}, hands=(["undertow"], ["footman"]), purses=(1, 0))
    with pytest.raises(IllegalMoveError, match="costs 2 coins"):
        play(st3, "play undertow@b1")


def test_maelstrom_damages_both_sides_on_the_cross_through_armour() -> None:
    g = mk(TEMPEST)
    st = build(
        g,
        units={
            "b2": ("footman", 1, {"power": 3, "armour": 1}),  # 2 damage: 1 armour, 1 point
            "a2": ("pickpocket", 0, {"power": 2}),  # own character, dies
            "b1": ("shieldbearer", 1, {"power": 2, "armour": 2}),  # all absorbed
            "c2": ("general", 1, {"power": 5, "armour": 0}),
            "c3": ("footman", 1),  # diagonal: untouched
        },
        hands=(["maelstrom", "pickpocket"], ["footman"]),
    )
    play(st, "play maelstrom@b2")
    assert unit(st, "b2") == ("footman", 1, 2, 0, 0)
    assert unit(st, "a2") is None and st.grave[0][cid(st, "pickpocket")] == 1
    assert unit(st, "b1") == ("shieldbearer", 1, 2, 0, 0)
    assert unit(st, "c2") == ("general", 1, 3, 0, 0)
    assert unit(st, "c3") == ("footman", 1, 3, 1, 0)


def test_crab_matriarch_adds_two_crablings_and_a_crab_can_eat_them() -> None:
    g = mk(TIDE)
    st = build(g, hands=(["crab_matriarch", "reef_crab"], ["footman"]))
    play(st, "play crab_matriarch@a1")
    assert hand_keys(st, 0) == ["reef_crab", "crabling", "crabling"]
    play(st, "play crabling@b1")
    play(st, "play crabling@c1")
    assert st.current_player() == 1  # nothing playable left: the turn ended by itself
    assert st.voids[0][cid(st, "crabling")] == 2
    play(st, "play footman@d4")
    play(st, "play reef_crab@b2")  # adjacent to the crabling at b1 (1 point)
    assert unit(st, "b2") == ("reef_crab", 0, 3, 0, 0) and unit(st, "b1") is None
    assert st.grave[0][cid(st, "crabling")] == 1


# ---- guild ----------------------------------------------------------------------------------------
def test_a_destroyed_characters_coins_go_to_the_other_player_as_a_bounty() -> None:
    g = mk(TIDE_VS_STORM)
    st = build(
        g,
        units={"a1": ("peddler", 0, {"power": 2})},
        hands=(["reef_crab"], ["lightning", "footman"]),
        to_move=1,
        purses=(2, 0),
    )
    play(st, "play lightning@a1")
    assert unit(st, "a1") is None and st.purse == [2, 2] and st.coin_total == 4


def test_pickpocket_steals_from_adjacent_enemies_only() -> None:
    g = mk(GUILD_VS_STORM)
    st = build(
        g,
        units={"a1": ("footman", 1, {"coins": 3}), "c1": ("peddler", 0), "b2": ("footman", 1)},
        hands=(["pickpocket", "footman"], ["footman"]),
        purses=(0, 0),
    )
    play(st, "play pickpocket@b1")
    assert st.purse[0] == 1 and unit(st, "a1")[4] == 2 and unit(st, "c1")[4] == 2  # type: ignore[index]


def test_moneylender_gains_a_coin_every_second_turn() -> None:
    g = mk(TIDE)
    st = build(
        g,
        units={"a1": ("moneylender", 0, {"cd": 2})},
        hands=(["peddler", "reef_crab", "reef_crab"], ["footman", "footman", "footman"]),
        to_move=1,
        purses=(0, 0),
    )
    play(st, "play footman@d4")  # seat 0's turn start: cd 2 -> 1
    assert st.purse[0] == 0 and st.cd[0] == 1
    play(st, "play peddler@a4")
    play(st, "play footman@d3")  # cd 1 -> 0: +1 coin, reset to 2
    assert st.purse[0] == 1 and st.cd[0] == 2 and st.coin_total == 1 + 1 + 2


def test_hired_blade_costs_a_coin_and_hits_adjacent_enemies() -> None:
    g = mk(GUILD_VS_STORM)
    st = build(
        g,
        units={"a1": ("footman", 1, {"armour": 0}), "c1": ("footman", 0, {"armour": 0})},
        hands=(["hired_blade", "peddler"], ["footman"]),
        purses=(0, 0),
    )
    legal = {st.action_to_string(a) for a in st.legal_actions()}
    assert not any(a.startswith("play hired_blade") for a in legal)
    with pytest.raises(IllegalMoveError, match="costs 1 coins, the purse holds 0"):
        play(st, "play hired_blade@b1")
    st.purse[0] = 1
    st.coin_total += 1
    play(st, "play hired_blade@b1")
    assert st.purse[0] == 0 and unit(st, "a1")[2] == 2 and unit(st, "c1")[2] == 3  # type: ignore[index]


def test_tax_day_pays_a_coin_per_friendly_merchant() -> None:
    g = mk(GUILD_VS_STORM)
    st = build(
        g,
        units={"a1": ("peddler", 0), "b1": ("guild_master", 0), "c1": ("footman", 0), "d1": ("footman", 1)},
        hands=(["tax_day", "footman"], ["footman"]),
        purses=(0, 0),
    )
    play(st, "play tax_day")
    assert st.purse[0] == 2 and st.grave[0][cid(st, "tax_day")] == 1


def test_treasurer_recycles_carried_coins_in_cell_order_without_the_discount() -> None:
    g = mk(BAZAAR_VS_SHELL)
    st = build(
        g,
        units={
            "a1": ("peddler", 0),
            "d4": ("moneylender", 0, {"coins": 2}),
            "b1": ("guild_master", 0, {"coins": 0}),
        },
        hands=(["treasurer", "peddler"], ["footman"]),
        purses=(0, 0),
    )
    total = st.coin_total
    play(st, "play treasurer@c3")
    # 3 coins taken: both of a1's, then one of d4's (cell order); the discount does not add any
    assert unit(st, "a1")[4] == 0 and unit(st, "d4")[4] == 1  # type: ignore[index]
    assert hand_keys(st, 0) == ["peddler", "coin", "coin", "coin"]
    assert st.coin_total == total
    play(st, "play coin@b1")  # a Coin spends its coin: the Guild Master gains 2 points
    assert unit(st, "b1")[2] == 5 and st.coin_total == total - 1


def test_the_talks_discount_on_recycling_bug_is_caught_by_the_coin_ledger() -> None:
    from paiju.yuxi.effects import add_to_hand, discount_of, recycle_coins
    from paiju.yuxi.invariants import InvariantViolation

    def recycle_with_discount(st: YuxiState, owner: int, cell: int, max: int, card: int) -> None:
        recycle_coins(st, owner, cell, max, card)
        for _ in range(discount_of(st, owner) * 2):  # the bug: the spending discount "saves" coins here too
            add_to_hand(st, owner, card, minted=False)

    units = {"a1": ("peddler", 0, {"coins": 1}), "b1": ("guild_master", 0, {"coins": 0})}
    hands = (["treasurer", "peddler"], ["footman"])
    buggy = YuxiGame(
        YuxiConfig(board="4x4", decks=BAZAAR_VS_SHELL, swaps=False),
        check_invariants=True,
        effect_overrides={"recycle_coins": recycle_with_discount},
    )
    st = scenario(buggy, units=units, hands=hands, purses=(0, 0))
    with pytest.raises(InvariantViolation) as err:
        play(st, "play treasurer@c3")
    assert err.value.invariant == "coin_ledger"
    good = build(mk(BAZAAR_VS_SHELL), units=units, hands=hands, purses=(0, 0))
    play(good, "play treasurer@c3")
    assert hand_keys(good, 0) == ["peddler", "coin"]  # one coin on the board, one Coin card


def test_bounty_hunter_buys_damage_with_the_discount_and_not_without_a_target() -> None:
    g = mk(BAZAAR_VS_SHELL)
    units = {"a1": ("footman", 1, {"power": 3, "armour": 0}), "c1": ("footman", 1, {"power": 4, "armour": 0})}
    st = build(g, units=units, hands=(["bounty_hunter", "peddler"], ["footman"]), purses=(2, 0))
    play(st, "play bounty_hunter@b1")
    assert unit(st, "c1")[2] == 2 and unit(st, "a1")[2] == 3 and st.purse[0] == 0  # type: ignore[index]
    st = build(
        g,
        units={**units, "d4": ("guild_master", 0)},
        hands=(["bounty_hunter", "peddler"], ["footman"]),
        purses=(2, 0),
    )
    play(st, "play bounty_hunter@b1")
    assert unit(st, "c1")[2] == 1 and st.purse[0] == 0  # 3 damage for 2 coins  # type: ignore[index]
    st = build(g, units=units, hands=(["bounty_hunter", "peddler"], ["footman"]), purses=(2, 0))
    play(st, "play bounty_hunter@d4")
    assert st.purse[0] == 2


def test_golden_idol_counts_the_purse_up_to_five_without_spending() -> None:
    g = mk(BAZAAR_VS_SHELL)
    st = build(g, hands=(["golden_idol", "peddler"], ["footman"]), purses=(4, 0))
    play(st, "play golden_idol@a1")
    assert unit(st, "a1")[2] == 5 and st.purse[0] == 4  # type: ignore[index]
    st = build(g, hands=(["golden_idol", "peddler"], ["footman"]), purses=(9, 0))
    play(st, "play golden_idol@a1")
    assert unit(st, "a1")[2] == 6  # type: ignore[index]


def test_guild_master_discount_and_merchant_prince() -> None:
    g = mk(BAZAAR_VS_SHELL)
    st = build(
        g,
        units={"a1": ("guild_master", 0), "b1": ("peddler", 0, {"coins": 1}), "c1": ("footman", 1)},
        hands=(["merchant_prince", "peddler"], ["footman"]),
        purses=(1, 0),
    )
    assert st.price(0, cid(st, "merchant_prince")) == 1
    play(st, "play merchant_prince@a2")
    assert st.purse[0] == 0
    # every friendly Merchant gains a point per coin it carries, the Prince too (2 coins)
    assert unit(st, "a1")[2] == 3 + 1 and unit(st, "b1")[2] == 2 + 1  # type: ignore[index]
    assert unit(st, "a2") == ("merchant_prince", 0, 3 + 2, 0, 2)


# ---- storm ----------------------------------------------------------------------------------------
def test_mist_weaver_fogs_adjacent_empty_cells_and_fog_halves_later_arrivals() -> None:
    g = mk(TEMPEST)
    st = build(
        g, units={"a1": ("footman", 1)}, hands=(["mist_weaver", "storm_spirit"], ["footman", "footman"])
    )
    play(st, "play mist_weaver@b1")
    assert [st.weather[i] for i in (0, 2, 5)] == [0, FOG, FOG]  # a1 occupied: no fog
    assert unit(st, "a1")[2] == 3  # type: ignore[index]
    play(st, "play footman@c1")  # seat 1 walks into fog: 3 -> 1
    assert unit(st, "c1")[2] == 1  # type: ignore[index]


def test_thunder_acolyte_and_thunder_at_the_owners_turn_end() -> None:
    g = mk(TEMPEST)
    st = build(
        g,
        units={"a1": ("footman", 1, {"power": 3, "armour": 1}), "c1": ("footman", 1)},
        hands=(["thunder_acolyte", "pickpocket"], ["footman", "footman"]),
    )
    play(st, "play thunder_acolyte@b1")
    assert st.weather[0] == THUNDER and st.weather[2] == THUNDER and st.weather[5] == 0
    assert st.current_player() == 1
    play(st, "play footman@d4")  # seat 1's turn ends: each of its characters on thunder takes 2
    assert unit(st, "a1")[2:4] == (2, 0) and unit(st, "c1")[2:4] == (2, 0)  # type: ignore[index]


def test_frost_sprite_ices_adjacent_enemies() -> None:
    g = mk(TEMPEST)
    st = build(
        g,
        units={"a1": ("footman", 1), "c1": ("pickpocket", 0)},
        hands=(["frost_sprite", "pickpocket"], ["footman"]),
    )
    play(st, "play frost_sprite@b1")
    assert st.weather[0] == ICE and st.weather[2] == 0


def test_rain_dancer_clears_its_cross_and_gains_per_cell() -> None:
    g = mk(("storm_iron", "tide_iron"))
    st = build(
        g,
        weather={"a1": "fog", "b2": "thunder", "c1": "ice", "d1": "fog"},
        hands=(["rain_dancer", "footman"], ["footman"]),
    )
    play(st, "play rain_dancer@b1")
    assert unit(st, "b1")[2] == 1 + 3  # type: ignore[index]
    assert [st.weather[i] for i in range(4)] == [0, 0, 0, FOG]


def test_storm_spirit_feeds_on_its_cells_weather_before_fog_can_halve_it() -> None:
    g = mk(TEMPEST)
    st = build(g, weather={"a1": "fog"}, hands=(["storm_spirit", "pickpocket"], ["footman"]))
    play(st, "play storm_spirit@a1")
    assert unit(st, "a1")[2] == 5 and st.weather[0] == 0  # type: ignore[index]


def test_fog_bank_halves_characters_it_covers_once() -> None:
    g = mk(("storm_iron", "tide_iron"))
    st = build(
        g,
        units={
            "b2": ("footman", 1, {"power": 5}),
            "a2": ("footman", 0, {"power": 4}),
            "c2": ("footman", 1, {"power": 6}),
        },
        weather={"c2": "fog"},
        hands=(["fog_bank", "footman"], ["footman"]),
    )
    play(st, "play fog_bank@b2")
    assert unit(st, "b2")[2] == 2 and unit(st, "a2")[2] == 2 and unit(st, "c2")[2] == 6  # type: ignore[index]


def test_lightning_is_stronger_on_thunder_and_armour_absorbs() -> None:
    g = mk(("storm_iron", "tide_iron"))
    units = {"a1": ("footman", 1, {"power": 6, "armour": 1}), "b1": ("footman", 1, {"power": 6, "armour": 1})}
    st = build(g, units=units, weather={"b1": "thunder"}, hands=(["lightning", "footman"], ["footman"]))
    play(st, "play lightning@a1")
    assert unit(st, "a1")[2:4] == (4, 0)  # type: ignore[index]
    st = build(g, units=units, weather={"b1": "thunder"}, hands=(["lightning", "footman"], ["footman"]))
    play(st, "play lightning@b1")
    assert unit(st, "b1")[2:4] == (2, 0)  # type: ignore[index]


def test_acid_rain_erodes_through_armour_at_the_owners_turn_end() -> None:
    g = mk(TEMPEST)
    st = build(
        g,
        units={"a2": ("footman", 1, {"power": 3, "armour": 4}), "d2": ("pickpocket", 0)},
        hands=(["acid_rain", "pickpocket"], ["footman", "footman"]),
    )
    play(st, "play acid_rain@b2")
    assert [st.weather[i] for i in (4, 5, 6, 7, 0)] == [4, 4, 4, 4, 0]
    # seat 0's turn ended by itself: its own pickpocket on erosion lost 1 point
    assert unit(st, "d2")[2] == 1 and st.current_player() == 1  # type: ignore[index]
    play(st, "play footman@a4")
    assert unit(st, "a2")[2:4] == (2, 4)  # type: ignore[index]
    assert unit(st, "d2")[2] == 1  # seat 0's pickpocket erodes only at seat 0's turn end  # type: ignore[index]


def test_weather_sage_strikes_enemies_standing_on_weather() -> None:
    g = mk(TEMPEST)
    st = build(
        g,
        units={
            "a1": ("weather_sage", 0, {"cd": 1}),
            "b2": ("footman", 1, {"armour": 0}),
            "c2": ("footman", 1, {"armour": 0}),
            "d2": ("pickpocket", 0),
        },
        weather={"b2": "fog", "d2": "fog"},
        hands=(["pickpocket"], ["footman", "footman"]),
        to_move=1,
    )
    play(st, "play footman@d4")
    assert unit(st, "b2")[2] == 2 and unit(st, "c2")[2] == 3 and unit(st, "d2")[2] == 2  # type: ignore[index]


def test_storm_empress_thunders_the_rest_of_her_column() -> None:
    g = mk(TEMPEST)
    st = build(g, hands=(["storm_empress", "pickpocket"], ["footman"]))
    play(st, "play storm_empress@b2")
    assert [st.weather[i] for i in (1, 5, 9, 13)] == [THUNDER, 0, THUNDER, THUNDER]


# ---- iron -----------------------------------------------------------------------------------------
def test_shieldbearer_banner_bearer_phalanx_and_rally() -> None:
    g = mk(("storm_iron", "tide_iron"))
    st = build(
        g,
        units={"a1": ("footman", 0), "c1": ("footman", 1), "b2": ("drillmaster", 0)},
        hands=(["shieldbearer", "footman"], ["footman"]),
    )
    play(st, "play shieldbearer@b1")
    assert unit(st, "a1")[3] == 2 and unit(st, "c1")[3] == 1 and unit(st, "b2")[3] == 1  # type: ignore[index]
    st = build(
        g,
        units={"a2": ("footman", 0), "d2": ("phalanx", 0), "c2": ("footman", 1), "b1": ("footman", 0)},
        hands=(["banner_bearer", "footman"], ["footman"]),
    )
    play(st, "play banner_bearer@b2")
    assert [unit(st, c)[2] for c in ("a2", "d2", "c2", "b1")] == [4, 3, 3, 3]  # type: ignore[index]
    st = build(
        g,
        units={
            "a2": ("footman", 0),
            "c2": ("footman", 1),
            "b1": ("banner_bearer", 0),
            "b3": ("field_medic", 0),
        },
        hands=(["phalanx", "footman"], ["footman"]),
    )
    play(st, "play phalanx@b2")
    assert unit(st, "b2")[2] == 2 + 2  # a2 and b3 are friendly Soldiers; b1 is a Banner  # type: ignore[index]
    g = mk(("tide_iron", "storm_iron"))
    st = build(
        g,
        units={"a2": ("footman", 0), "b1": ("shell_guard", 0), "c2": ("footman", 1)},
        hands=(["rally", "footman"], ["footman"]),
    )
    play(st, "play rally")
    assert unit(st, "a2")[2:4] == (4, 2) and unit(st, "b1")[2:4] == (2, 2)  # type: ignore[index]
    assert unit(st, "c2")[2:4] == (3, 1)  # type: ignore[index]


def test_drillmaster_timed_boost_and_field_medic_heals_only_up_to_starting_points() -> None:
    g = mk(("storm_iron", "tide_iron"))
    st = build(
        g,
        units={
            "b2": ("drillmaster", 0, {"cd": 1}),
            "a2": ("footman", 0, {"power": 1}),
            "c2": ("footman", 0, {"power": 5}),
        },
        hands=(["field_medic", "footman"], ["footman", "footman"]),
        to_move=1,
    )
    play(st, "play footman@d4")  # seat 0's turn start: the drillmaster fires
    assert unit(st, "a2")[2] == 2 and unit(st, "c2")[2] == 6  # type: ignore[index]
    play(st, "play field_medic@a4")
    # healed by 2, never above the starting 3 points; boosted characters are not "healed" down
    assert unit(st, "a2")[2] == 3 and unit(st, "c2")[2] == 6 and unit(st, "b2")[2] == 2  # type: ignore[index]


def test_siege_ram_hits_enemies_in_its_column() -> None:
    g = mk(("storm_iron", "tide_iron"))
    st = build(
        g,
        units={
            "b1": ("footman", 1, {"armour": 0}),
            "b4": ("footman", 1, {"armour": 1}),
            "b3": ("footman", 0),
            "a2": ("footman", 1),
        },
        hands=(["siege_ram", "footman"], ["footman"]),
    )
    play(st, "play siege_ram@b2")
    assert [unit(st, c)[2] for c in ("b1", "b4", "b3", "a2")] == [1, 2, 3, 3]  # type: ignore[index]


def test_iron_wall_turn_end_armour_and_general_death_recruits() -> None:
    g = mk(("guild_iron", "tide_iron"))
    st = build(
        g,
        units={
            "a1": ("iron_wall", 0),
            "b1": ("footman", 0, {"armour": 0}),
            "a2": ("footman", 1, {"armour": 0}),
        },
        hands=(["footman", "footman"], ["footman"]),
    )
    play(st, "play footman@d4")  # the turn ends by itself; Iron Wall gives adjacent friends 1 armour
    assert unit(st, "b1")[3] == 1 and unit(st, "a2")[3] == 0  # type: ignore[index]
    st = build(g, units={"b1": ("footman", 0)}, hands=(["general", "peddler"], ["footman"]), purses=(2, 0))
    play(st, "play general@a1")
    assert unit(st, "b1")[2] == 4 and unit(st, "a1")[2] == 5 and st.purse[0] == 0  # type: ignore[index]
    g2 = mk(("storm_iron", "guild_iron"))
    st = build(
        g2,
        units={"a1": ("general", 1, {"power": 3, "armour": 0}), "c1": ("peddler", 1)},
        hands=(["lightning", "footman"], ["footman"]),
    )
    play(st, "play lightning@a1")
    assert hand_keys(st, 1) == ["footman", "recruit", "recruit"]


# ---- turn structure ------------------------------------------------------------------------------
def test_ending_a_turn_without_playing_is_a_pass_that_finishes_the_player() -> None:
    g = mk(TIDE)
    st = build(g, hands=(["reef_crab", "peddler"], ["footman", "footman"]))
    st.apply(END_TURN)
    assert st.out == [True, False] and st.current_player() == 1
    play(st, "play footman@a1")
    assert st.current_player() == 1  # seat 0 is finished: seat 1 plays on
    play(st, "play footman@b1")
    assert st.phase == PH_OVER and st.returns() == [-1.0, 1.0]


def test_an_empty_hand_finishes_the_player_and_the_die_is_added_for_seat_0() -> None:
    g = mk(TIDE, die=True)
    st = build(g, units={"a1": ("reef_crab", 1, {"power": 4})}, hands=(["peddler"], []), out=(False, True))
    play(st, "play peddler@d4")
    assert st.current_player() == CHANCE and st.chance_outcomes() is not None
    st.apply(st.parse_action("die 3"))
    assert st.current_player() == TERMINAL and st.final_scores() == (2 + 3, 4)
    assert st.returns() == [1.0, -1.0]


def test_a_turn_with_nothing_playable_ends_by_itself() -> None:
    g = mk(TEMPEST, board="3x3")
    cells = [f"{c}{r}" for r in "123" for c in "abc" if f"{c}{r}" != "b2"]
    full: dict[str, tuple[str, int]] = {
        c: ("footman" if k % 2 else "shieldbearer", 1) for k, c in enumerate(cells)
    }
    full["b2"] = ("pickpocket", 0)
    st = build(g, units=full, hands=(["pickpocket"], []), to_move=1, acted=True, played=True)
    st.apply(END_TURN)  # seat 1's hand is empty: it is finished
    # seat 0's only card needs an empty cell and there is none: it passes by itself, the game ends
    assert st.phase == PH_OVER and st.out == [True, True]


def test_swap_offers_two_cards_four_with_one_card_left_never_void_cards() -> None:
    g = mk(TIDE, swaps=True)
    st = build(
        g, hands=(["reef_crab", "peddler"], ["footman", "footman"]), to_move=1, acted=True, played=True
    )
    st.apply(END_TURN)
    assert st.current_player() == CHANCE and st.offer_size == 2
    outcomes = st.chance_outcomes()
    assert outcomes is not None and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    st.apply(Offer((cid(st, "reef_crab"), cid(st, "tide_caller"))))
    legal = {st.action_to_string(a) for a in st.legal_actions()}
    assert legal == {
        "keep",
        "swap peddler->reef_crab",
        "swap reef_crab->tide_caller",
        "swap peddler->tide_caller",
    }
    deck_before = list(st.deck[0])
    play(st, "swap peddler->tide_caller")
    assert hand_keys(st, 0) == ["reef_crab", "tide_caller"] and st.phase == PH_PLAY
    assert st.deck[0][cid(st, "peddler")] == deck_before[cid(st, "peddler")] + 1
    assert st.deck[0][cid(st, "tide_caller")] == deck_before[cid(st, "tide_caller")] - 1
    one = build(g, hands=(["reef_crab"], ["footman", "footman"]), to_move=1, acted=True, played=True)
    one.apply(END_TURN)
    assert one.offer_size == 4
    voids = build(
        g,
        units={"a1": ("peddler", 0)},
        hands=(["coin"], ["footman", "footman"]),
        to_move=1,
        acted=True,
        played=True,
    )
    voids.apply(END_TURN)
    assert voids.current_player() == 0 and voids.phase == PH_PLAY  # no offer for a hand of void cards
    keep = build(
        g, hands=(["reef_crab", "peddler"], ["footman", "footman"]), to_move=1, acted=True, played=True
    )
    keep.apply(END_TURN)
    keep.apply(Offer((cid(keep, "king_crab"), cid(keep, "king_crab"))))
    assert {keep.action_to_string(a) for a in keep.legal_actions()} == {
        "keep",
        "swap peddler->king_crab",
        "swap reef_crab->king_crab",
    }  # one slot per distinct card
    keep.apply(KEEP)
    assert hand_keys(keep, 0) == ["reef_crab", "peddler"] and not keep.offer


def test_ice_also_stops_turn_end_skills() -> None:
    g = mk(("guild_iron", "tide_iron"))
    st = build(
        g,
        units={"a1": ("iron_wall", 0), "b1": ("footman", 0, {"armour": 0})},
        weather={"a1": "ice"},
        hands=(["footman", "footman"], ["footman"]),
    )
    play(st, "play footman@d4")
    assert unit(st, "b1")[3] == 0  # type: ignore[index]


def test_eating_your_own_crab_pays_its_coins_to_the_opponent() -> None:
    g = mk(TIDE)
    st = build(
        g,
        units={"a1": ("hermit_crab", 0, {"power": 2, "coins": 3})},
        hands=(["reef_crab", "peddler"], ["footman"]),
        purses=(0, 0),
    )
    play(st, "play reef_crab@b1")
    assert unit(st, "b1")[2] == 4 and st.purse == [0, 3]  # type: ignore[index]
    assert st.score[0] == 4


def test_deaths_resolve_lowest_cell_first_each_with_its_own_triggers() -> None:
    # Maelstrom kills a General (b1: 2 Recruits) and a Shell Guard (a2: a Bubble) at once
    g = mk(("tempest", "tide_iron"))
    st = build(
        g,
        units={
            "b1": ("general", 1, {"power": 2, "armour": 0}),
            "a2": ("shell_guard", 1, {"power": 1, "armour": 0}),
        },
        hands=(["maelstrom", "pickpocket"], ["footman"]),
    )
    play(st, "play maelstrom@b2")
    assert unit(st, "b1") is None and unit(st, "a2") is None
    assert hand_keys(st, 1) == ["footman", "bubble", "recruit", "recruit"]
    assert st.voids[1][cid(st, "recruit")] == 2 and st.voids[1][cid(st, "bubble")] == 1


def test_cell_spells_may_target_empty_cells_and_untargeted_spells_use_no_target() -> None:
    from paiju.yuxi.actions import NO_TARGET

    g = mk(("tempest", "tide_iron"))
    st = build(g, hands=(["fog_bank", "pickpocket"], ["footman"]), units={"d4": ("pickpocket", 0)})
    legal = {st.action_to_string(a) for a in st.legal_actions()}
    assert {"play fog_bank@a1", "play fog_bank@d4"} <= legal
    g = mk(("tide_iron", "tempest"))
    st = build(g, hands=(["rally", "footman"], ["pickpocket"]), units={"d4": ("footman", 0)})
    legal = {st.action_to_string(a) for a in st.legal_actions()}
    assert "play rally" in legal
    assert st.game.actions.play(cid(st, "rally"), NO_TARGET) in st.legal_actions()
    with pytest.raises(IllegalMoveError, match="needs target 'none'"):
        st.apply(st.game.actions.play(cid(st, "rally"), 3))
