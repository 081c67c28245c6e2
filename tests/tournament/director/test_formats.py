"""The event format: KEY=VALUE items typed and checked, stored and read back."""

from __future__ import annotations

import re
from typing import get_args

import pytest

from paiju.core.errors import ConfigError
from paiju.tournament import planning
from paiju.tournament.director import rounds
from paiju.tournament.director.formats import BoardSelection, EventFormat, choose
from paiju.tournament.director.results import SPRINGS


def test_items_set_typed_fields_and_round_trip_through_json() -> None:
    fmt = EventFormat.from_items(
        [
            "rounds=18",
            "boards_per_round=1",
            "odd_field=sitter",
            "tie_breaks=landlord,lot",
            "final_after=12",
            "final_players=9",
            "carry_over=half",
            "comparison=rank-points",
        ]
    )
    assert (fmt.rounds, fmt.boards_per_round, fmt.odd_field, fmt.tie_breaks) == (
        18,
        1,
        "sitter",
        ("landlord", "lot"),
    )
    assert (fmt.final_after, fmt.final_players, fmt.carry_over) == (12, 9, "half")
    assert EventFormat.from_json(fmt.to_json()) == fmt
    assert EventFormat.from_items([]) == EventFormat()


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["rounds"], "write KEY=VALUE"),
        (["colour=red"], "no key 'colour'"),
        (["rounds=3", "rounds=4"], "--format rounds given twice"),
        (["rounds=many"], "rounds='many': expected a whole number"),
        (["rounds=0"], "rounds=0: expected a whole number 1..60"),
        (["boards_per_round=13"], "boards_per_round=13: expected a whole number 1..12"),
        (["odd_field=pass"], "odd_field='pass': choose one of bye, sitter"),
        (["comparison=imps"], "choose one of matchpoints, rank-points"),
        (["scoring=poker"], "scoring='poker': choose one of"),
        (["tie_breaks=lot,lot"], "name each tie-break once"),
        (["tie_breaks=age"], "tie_breaks='age'"),
        (["final_after=3"], "give final_after and final_players together"),
        (["final_after=6", "final_players=9"], "the final must start after round 1..5"),
        (["final_after=2", "final_players=2"], "a final needs a table of 3"),
        (["carry_over=full"], "there is no final"),
    ],
)
def test_a_bad_item_is_named(items: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        EventFormat.from_items(items)


def test_a_stored_format_from_a_newer_paiju_is_refused() -> None:
    with pytest.raises(ConfigError, match="does not know"):
        EventFormat.from_json('{"rounds": 3, "teams": true}')


def test_a_named_choice_is_checked_by_one_helper_for_options_and_format_items() -> None:
    assert choose("--method", "swiss", ("random", "rating", "swiss")) == "swiss"
    with pytest.raises(
        ConfigError, match=re.escape("--spring 'autumn': choose one of none, spring, anti-spring")
    ):
        choose("--spring", "autumn", SPRINGS)
    with pytest.raises(
        ConfigError, match=re.escape("format landlord='auction': choose one of fixed, bidding")
    ):
        EventFormat(landlord="auction")
    with pytest.raises(
        ConfigError, match=re.escape("format tie_breaks='coin': choose one of opponents, landlord, lot")
    ):
        EventFormat(tie_breaks=("coin",))


def test_the_director_and_the_planner_offer_every_board_selection_each_in_its_own_order() -> None:
    # one type for both; the director's messages list DIH first, the plan runs random first
    assert rounds.SELECTIONS == get_args(BoardSelection) == ("dih", "random")
    assert planning.SELECTIONS == ("random", "dih")
    with pytest.raises(ConfigError, match=re.escape("--select 'best': choose one of dih, random")):
        choose("--select", "best", rounds.SELECTIONS)
