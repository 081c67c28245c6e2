"""The shipped suit table is split at ranks 7/8 (issue 43 §4: a faster first call).

The file holds a class per head (ranks 1-7) and a row id per class and tail (ranks 8-9)
instead of the whole 5^9 table; the whole table is made from the split when a search asks for
it. Both are checked against the table built afresh with numpy (``ShantenTables(load=False)``),
and the string API's digit-string lookup against the count-vector lookup.
"""

from __future__ import annotations

import functools
import importlib
import random

S = importlib.import_module("paiju.mahjong.shanten")  # the module; ``paiju.mahjong.shanten`` is the function


@functools.cache
def built() -> object:
    return S.ShantenTables(load=False)


def test_the_whole_suit_table_made_from_the_split_equals_a_fresh_build() -> None:
    shipped = S.ShantenTables()
    assert shipped.dense is not None  # read from the file, not built
    assert shipped.rows[: shipped.n_base] == built().rows[: built().n_base]  # same row ids
    assert shipped.suit_ids == built().suit_ids
    assert shipped.honour_ids == built().honour_ids


def test_split_lookups_equal_the_whole_table() -> None:
    shipped = S.ShantenTables()  # not materialised: suit_id reads the split
    whole = built().suit_ids
    rng = random.Random(8)
    indices = [0, len(whole) - 1, *range(0, len(whole), 997)]
    indices += [rng.randrange(len(whole)) for _ in range(20000)]
    assert [shipped.suit_id(i) for i in indices] == [whole[i] for i in indices]
    assert shipped._suit_ids is None  # the lookups did not need the whole table


def test_digit_rows_equal_count_vector_rows_in_any_order() -> None:
    tables = S.ShantenTables()
    rng = random.Random(9)
    for _ in range(5000):
        honours = rng.random() < 0.3
        kinds = 7 if honours else 9
        digits = "".join(str(rng.randint(1, kinds)) for _ in range(rng.randint(1, 17)))
        counts = [digits.count(str(d)) for d in range(1, kinds + 1)]
        if max(counts) > 4:
            expected = -1
        elif honours:
            expected = built().honour_ids[S._base5(tuple(counts))]
        else:
            expected = built().suit_ids[S._base5(tuple(counts))]
        assert tables.digit_row(digits, honours) == expected, digits
    assert tables.digit_row(None, False) == built().suit_ids[0]
    assert tables.digit_row(None, True) == built().honour_ids[0]
