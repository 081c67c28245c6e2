"""The shipped shanten tables and the fast notation paths (issue 12 §4: fast from the first call).

``src/paiju/mahjong/shanten_tables.xz`` is made by ``scripts/build_shanten_tables.py``; these
tests check it against a fresh build, check that a damaged file is rebuilt instead of used, and
check the string API's fast paths against the general ones (the general paths are themselves
checked against the ``mahjong`` package and a brute force in ``test_mj_shanten.py``).
"""

from __future__ import annotations

import functools
import importlib
import lzma
import random
import re
from pathlib import Path

import pytest

from paiju.core.errors import InvalidNotationError, PaijuError
from paiju.mahjong.tiles import format_counts, parse_counts, parse_kinds, to_counts

S = importlib.import_module("paiju.mahjong.shanten")  # the module; ``paiju.mahjong.shanten`` is the function


def test_shipped_file_equals_a_fresh_build() -> None:
    assert lzma.decompress(S.TABLE_FILE.read_bytes()) == S.table_bytes()


def random_counts(rng: random.Random, size: int, cap: int = 4) -> list[int]:
    counts = [0] * 34
    while sum(counts) < size:
        k = rng.randrange(34)
        if counts[k] < cap:
            counts[k] += 1
    return counts


def test_shipped_combination_tables_agree_with_the_memoised_combinations() -> None:
    shipped, built = S.ShantenTables(), built_tables()
    assert shipped.dense is not None and built.dense is None
    rng = random.Random(7)
    for _ in range(5000):
        counts = random_counts(rng, rng.choice([1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17]))
        for sets in range(sum(counts) // 3 + 1):
            assert shipped.distance(counts, sets) == built.distance(counts, sets), (counts, sets)


@pytest.mark.parametrize("damage", [b"", b"not xz at all", "truncated", "wrong magic"])
def test_a_damaged_file_is_rebuilt_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage) -> None:
    good = lzma.decompress(S.TABLE_FILE.read_bytes())
    bad = tmp_path / "shanten_tables.xz"
    if damage == "truncated":
        bad.write_bytes(lzma.compress(good[:-1]))
    elif damage == "wrong magic":
        bad.write_bytes(lzma.compress(b"x" + good[1:]))
    else:
        bad.write_bytes(damage)
    monkeypatch.setattr(S, "TABLE_FILE", bad)
    tables = S.ShantenTables()
    assert tables.dense is None  # built afresh
    assert tables.distance(parse_counts("123m456p789s1122z"), 4) == 1  # ready: shanten 0


@functools.cache
def built_tables() -> object:
    return S.ShantenTables(load=False)


def general_shanten(text: str) -> tuple[str, object]:
    """The general path: parse_kinds, a count vector, the memoised combinations."""
    try:
        counts = to_counts(parse_kinds(text))
        n = sum(counts)
        S.sets_needed(n)
        return "ok", built_tables().distance(counts, n // 3) - 1
    except PaijuError as err:
        return "error", str(err)


def fast_shanten(text: str) -> tuple[str, object]:
    try:
        return "ok", S.shanten(text)
    except PaijuError as err:
        return "error", str(err)


def test_string_api_fast_path_matches_the_general_path() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        # up to 5 copies of a kind: the fast paths must hand the copy-limit error on
        text = format_counts(random_counts(rng, rng.randint(0, 18), cap=5))
        variants = [text, "".join(rng.sample(text, len(text))), text.replace("p", "p ", 1), text + "1m"]
        for variant in variants:
            assert fast_shanten(variant) == general_shanten(variant), variant


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("123m456p789s1122z", 0),  # ready (tests the fast path on the documented example)
        ("123m456p789s11222z", -1),  # complete
        ("1m2m3m456p789s1122z", 0),  # one suit written twice: the general path
        ("123m 456p 789s 1122z", 0),  # spaces: the general path
        ("1111m234p567p789p", 1),  # four copies cannot be waited on (the trap of naive counts)
    ],
)
def test_hand_checked_values(text: str, expected: int) -> None:
    assert S.shanten(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("11111m", "more than 4 times"), ("0m", "no red fives"), ("8z", "no flower"), ("", "3k+1 or 3k+2")],
)
def test_errors_name_the_problem(text: str, fragment: str) -> None:
    with pytest.raises(InvalidNotationError, match=re.escape(fragment)):
        S.shanten(text)


def test_parse_counts_fast_path_matches_parse_kinds() -> None:
    rng = random.Random(5)
    alphabet = "123456789mpsz"
    odd = "0 xM８"
    for _ in range(20000):
        chars = [rng.choice(alphabet if rng.random() > 0.05 else odd) for _ in range(rng.randint(0, 30))]
        text = "".join(chars)
        try:
            expected: object = to_counts(parse_kinds(text))
        except PaijuError as err:
            expected = str(err)
        try:
            got: object = parse_counts(text)
        except PaijuError as err:
            got = str(err)
        assert got == expected, text
