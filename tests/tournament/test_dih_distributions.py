"""Score distributions: notation, validation, convolution, Parquet tables."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.core.errors import ConfigError, CorruptRecordError, InvalidNotationError
from paiju.core.rng import as_generator
from paiju.doudizhu.cards import Deal
from paiju.tournament.distributions import (
    DealDistribution,
    ScoreDistribution,
    read_distribution_table,
    repeated_total,
    total_distribution,
    write_distribution_table,
)


def test_parse_and_format() -> None:
    d = ScoreDistribution.parse(" 1:0.4 , -1:0.6 ")
    assert d.scores == (-1, 1)
    assert d.probabilities == pytest.approx((0.6, 0.4))
    assert ScoreDistribution.parse(str(d)) == d
    assert repr(d) == "ScoreDistribution.parse('-1:0.6,1:0.4')"
    assert d.as_dict() == {-1: 0.6, 1: 0.4}
    assert d.mean == pytest.approx(-0.2)
    assert ScoreDistribution.parse("+3:1").scores == (3,)


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.integers(-50, 50), st.integers(0, 1000), min_size=1, max_size=8))
def test_round_trip(weights: dict[int, int]) -> None:
    if sum(weights.values()) == 0:
        weights[next(iter(weights))] = 1
    total = sum(weights.values())
    d = ScoreDistribution.from_mapping({s: w / total for s, w in weights.items()})
    assert ScoreDistribution.parse(str(d)) == d
    assert math.fsum(d.probabilities) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize(
    ("text", "error", "fragment"),
    [
        ("", InvalidNotationError, "empty"),
        ("-1:0.6,1.5:0.4", InvalidNotationError, "integer score"),
        ("-1:0.6;1:0.4", InvalidNotationError, "not 'score:probability'"),
        ("a:1", InvalidNotationError, "not 'score:probability'"),
        ("1:x", InvalidNotationError, "not a number"),
        ("-1:0.6,1:0.5", ConfigError, "sum to 1.1"),
        ("-1:1.2,1:-0.2", ConfigError, "negative"),
        ("1:0.5,1:0.5", ConfigError, "given twice"),
        ("1:nan", ConfigError, "nan"),
        ("1:0.3,2:0.7000001", ConfigError, "not 1"),
    ],
)
def test_bad_distributions(text: str, error: type[Exception], fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        ScoreDistribution.parse(text)


def test_tolerance_is_1e_9() -> None:
    ok = ScoreDistribution.parse("0:0.5,1:0.5000000005")
    assert math.fsum(ok.probabilities) == pytest.approx(1.0, abs=1e-15)
    with pytest.raises(ConfigError):
        ScoreDistribution.parse("0:0.5,1:0.500000002")


def test_non_integer_scores_from_data() -> None:
    assert ScoreDistribution((2.0, -1), (0.5, 0.5)).scores == (-1, 2)
    with pytest.raises(ConfigError, match="not an integer"):
        ScoreDistribution((2.5, -1), (0.5, 0.5))
    with pytest.raises(ConfigError, match="not an integer"):
        ScoreDistribution((True,), (1.0,))


def test_empirical_is_relative_frequency() -> None:
    d = ScoreDistribution.empirical([1, -1, -1, 2, -1, 1])
    assert d.as_dict() == pytest.approx({-1: 0.5, 1: 1 / 3, 2: 1 / 6})
    with pytest.raises(ConfigError):
        ScoreDistribution.empirical([])


def _enumerated_total(dists: list[ScoreDistribution]) -> dict[int, float]:
    out: dict[int, float] = {}
    for seq in itertools.product(*(list(d.as_dict().items()) for d in dists)):
        v = sum(s for s, _ in seq)
        out[v] = out.get(v, 0.0) + math.prod(p for _, p in seq)
    return {v: p for v, p in out.items() if p > 0}


def test_convolution_matches_enumeration() -> None:
    rng = as_generator(3)
    for _ in range(20):
        dists = []
        for _ in range(int(rng.integers(1, 5))):
            scores = rng.choice(np.arange(-6, 7), size=int(rng.integers(1, 5)), replace=False)
            dists.append(
                ScoreDistribution(tuple(int(s) for s in scores), tuple(rng.dirichlet(np.ones(scores.size))))
            )
        total = total_distribution(dists)
        expected = _enumerated_total(dists)
        got = total.as_dict()
        assert got.keys() == expected.keys()
        for v, p in expected.items():
            assert got[v] == pytest.approx(p, rel=1e-12)
            assert total.probability(v) == got[v]
        assert float(np.sum(total.probabilities)) == pytest.approx(1.0, abs=1e-13)


def test_lattice_is_compressed_by_gcd() -> None:
    total = repeated_total(ScoreDistribution.parse("-2:0.5,2:0.5"), 3)
    assert (total.offset, total.step, len(total)) == (-6, 4, 4)
    assert total.as_dict() == pytest.approx({-6: 0.125, -2: 0.375, 2: 0.375, 6: 0.125})
    assert total.probability(0) == 0.0 and total.probability(-4) == 0.0
    mixed = total_distribution(
        [ScoreDistribution.parse("0:0.5,2:0.5"), ScoreDistribution.parse("1:0.5,4:0.5")]
    )
    assert mixed.step == 1 and mixed.as_dict() == pytest.approx({1: 0.25, 4: 0.25, 3: 0.25, 6: 0.25})
    point = repeated_total(ScoreDistribution.point_mass(-3), 4)
    assert point.as_dict() == {-12: 1.0}


def test_absurd_score_range_is_refused() -> None:
    with pytest.raises(ConfigError, match="lattice cells"):
        repeated_total(ScoreDistribution.parse("0:0.5,1:0.25,100000000:0.25"), 1000)
    with pytest.raises(ConfigError, match="rounds"):
        repeated_total(ScoreDistribution.parse("0:1"), 0)


# ---------------------------------------------------------------------------------------
# Parquet tables


def _entries(count: int, seed: int) -> list[DealDistribution]:
    rng = as_generator(seed)
    out = []
    for i in range(count):
        deal = str(Deal.random(rng).without_kitty())
        scores = (-3, -2, -1, 1, 2, 3)
        out.append(
            DealDistribution(deal, ScoreDistribution(scores, tuple(rng.dirichlet(np.ones(6)))), 40 + 10 * i)
        )
    return out


def test_table_round_trip(tmp_path: Path) -> None:
    entries = _entries(5, 1)
    write_distribution_table(tmp_path / "a.parquet", entries[:3])
    write_distribution_table(tmp_path / "b.parquet", entries[3:])
    table = read_distribution_table(tmp_path)
    assert set(table) == {e.deal for e in entries}
    for e in entries:
        assert table[e.deal].plays == e.plays
        assert table[e.deal].distribution.as_dict() == pytest.approx(e.distribution.as_dict(), rel=1e-15)
    single = read_distribution_table(tmp_path / "a.parquet")
    assert len(single) == 3


def test_table_keys_are_canonical_deals(tmp_path: Path) -> None:
    deal = Deal.random(7).without_kitty()
    scrambled = "".join("[" + "".join(reversed(str(h))) + "]" for h in deal.hands)
    assert scrambled != str(deal)
    pq.write_table(
        pa.table({"deal": [scrambled] * 2, "score": [-1, 1], "probability": [0.5, 0.5], "plays": [60, 60]}),
        tmp_path / "t.parquet",
    )
    assert list(read_distribution_table(tmp_path)) == [str(deal)]


def _write(path: Path, **cols: list[object]) -> None:
    pq.write_table(pa.table(cols), path)


@pytest.mark.parametrize(
    ("columns", "error", "fragment"),
    [
        ({"deal": ["D"], "score": [1], "probability": [1.0]}, CorruptRecordError, "missing column"),
        (
            {"deal": ["D", "D"], "score": [1, 2], "probability": [0.5, 0.6], "plays": [60, 60]},
            ConfigError,
            "sum to",
        ),
        (
            {"deal": ["D", "D"], "score": [1, 1], "probability": [0.5, 0.5], "plays": [60, 60]},
            ConfigError,
            "twice",
        ),
        (
            {"deal": ["D", "D"], "score": [1, 2], "probability": [0.5, 0.5], "plays": [60, 61]},
            CorruptRecordError,
            "different plays",
        ),
        ({"deal": ["D"], "score": [1.5], "probability": [1.0], "plays": [60]}, ConfigError, "not an integer"),
        ({"deal": ["D"], "score": [1], "probability": [-1.0], "plays": [60]}, ConfigError, "sum to|negative"),
        (
            {"deal": ["[333][444][555]"], "score": [1], "probability": [1.0], "plays": [60]},
            InvalidNotationError,
            "row 0",
        ),
    ],
)
def test_bad_tables(
    tmp_path: Path, columns: dict[str, list[object]], error: type[Exception], fragment: str
) -> None:
    deal = str(Deal.random(1).without_kitty())
    columns = {k: [deal if x == "D" else x for x in v] if k == "deal" else v for k, v in columns.items()}
    _write(tmp_path / "bad.parquet", **columns)
    with pytest.raises(error, match=fragment) as info:
        read_distribution_table(tmp_path)
    assert "bad.parquet" in str(info.value)


def test_unreadable_and_missing_tables(tmp_path: Path) -> None:
    (tmp_path / "x.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(CorruptRecordError, match=r"x\.parquet"):
        read_distribution_table(tmp_path)
    with pytest.raises(ConfigError, match="does not exist"):
        read_distribution_table(tmp_path / "nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match=r"no \*\.parquet"):
        read_distribution_table(empty)


def test_deal_in_two_files_is_an_error(tmp_path: Path) -> None:
    entries = _entries(2, 4)
    write_distribution_table(tmp_path / "a.parquet", entries)
    write_distribution_table(tmp_path / "b.parquet", entries[:1])
    with pytest.raises(CorruptRecordError, match="also in"):
        read_distribution_table(tmp_path)
