"""Tile notation: round trips, the kind order, and clear errors for bad strings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paiju.core.errors import InvalidNotationError
from paiju.mahjong.tiles import (
    NUM_KINDS,
    Tile,
    format_counts,
    format_tiles,
    from_counts,
    parse_counts,
    parse_kinds,
    parse_tiles,
    tile_name,
    to_counts,
)


def test_kind_order_matches_spec() -> None:
    # 0-8 = 1m-9m, 9-17 = 1p-9p, 18-26 = 1s-9s, 27-33 = 東南西北白發中
    names = [str(Tile(k)) for k in (0, 8, 9, 17, 18, 26, 27, 33)]
    assert names == ["1m", "9m", "1p", "9p", "1s", "9s", "1z", "7z"]
    assert [Tile.parse(f"{i}z").chinese for i in range(1, 8)] == list("東南西北白發中")
    assert Tile.parse("5m").chinese == "五萬" and Tile.parse("9s").chinese == "九條"
    assert Tile.parse("3p") == 11 and Tile.parse("3p") is Tile.P3
    assert len(Tile) == NUM_KINDS == 34


def test_every_tile_round_trips() -> None:
    for t in Tile:
        assert Tile.parse(str(t)) is t
        assert eval(repr(t), {"Tile": Tile}) is t  # repr round-trips
        assert tile_name(int(t)) == str(t)


def test_parse_forms() -> None:
    expected = [Tile(k) for k in (0, 1, 2, 12, 13, 14, 24, 25, 26, *range(27, 34))]
    assert parse_tiles("123m456p789s1234567z") == expected
    assert parse_tiles("1m2m3m") == parse_tiles("123m") == parse_tiles(" 12m 3m ")
    assert parse_tiles("") == []
    # written order is kept; format sorts
    assert parse_kinds("9m1m") == [8, 0]
    assert format_tiles(parse_tiles("9m1m5z1p")) == "19m1p5z"


def test_counts() -> None:
    c = parse_counts("111m19p77z")
    assert c[0] == 3 and c[9] == 1 and c[17] == 1 and c[33] == 2 and sum(c) == 7
    assert format_counts(c) == "111m19p77z"
    assert from_counts(c) == parse_tiles("111m19p77z")
    assert to_counts(parse_tiles("111m19p77z")) == c


@given(st.lists(st.integers(0, 33), max_size=40).filter(lambda ks: max(to_counts(ks)) <= 4))
def test_round_trip_property(kinds: list[int]) -> None:
    tiles = [Tile(k) for k in kinds]
    s = format_tiles(tiles)
    assert parse_tiles(s) == sorted(tiles)
    assert format_tiles(parse_tiles(s)) == s
    assert from_counts(to_counts(tiles)) == sorted(tiles)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("123x", "unknown suit 'x'"),
        ("0m", "0m does not exist"),
        ("8z", "no flower"),
        ("9z", "honour 9z does not exist"),
        ("11111m", "more than 4"),
        ("1111m1m", "more than 4"),
        ("123", "not followed by a suit"),
        ("12 3m", "not followed by a suit"),
        ("m", "no numbers before"),
        ("1m,2m", "unexpected character ','"),
        ("１m", "unexpected character"),
    ],
)
def test_bad_strings(text: str, fragment: str) -> None:
    with pytest.raises(InvalidNotationError, match=None) as err:
        parse_tiles(text)
    assert fragment in str(err.value)
    assert repr(text) in str(err.value)


def test_bad_single_tiles() -> None:
    for bad in ("10m", "5", "mm", "", "0p", "8z", "5q"):
        with pytest.raises(InvalidNotationError):
            Tile.parse(bad)
    with pytest.raises(InvalidNotationError):
        Tile.parse(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidNotationError, match="out of range"):
        to_counts([34])
    with pytest.raises(InvalidNotationError, match="34 entries"):
        format_counts([0] * 33)
