"""Score distributions of deals and of a player's tournament total (``docs/dih.md`` §1-2).

A deal's *score distribution* is the law of the landlord's score when the deal is played
(the paper: ±(bombs + rockets played), at least 1, so the support is {-6..-1, 1..6}). It is
a :class:`ScoreDistribution`: integer scores with probabilities, written ``"-1:0.6,1:0.4"``.

A player's total over the rounds of a tournament is the sum of independent round scores, so
its law is the convolution of the round distributions (the m-fold convolution ``D^(*m)``
when every round has the same law). :class:`TotalDistribution` holds it densely on the
lattice ``offset + step * i``; only *equality* of totals matters for DIH, so the lattice is
compressed by the gcd of the score gaps (``{-1, 1}`` needs one cell per 2 points).

The per-deal distributions of a pool are stored as Parquet tables with columns
``(deal, score, probability, plays)`` (one row per deal and score; ``plays`` is how many
plays of that deal the probabilities were estimated from, the same on every row of a deal).
:func:`read_distribution_table` validates such files; :func:`write_distribution_table`
writes them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path
from typing import Any, Final, SupportsInt, cast

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from paiju.core import deadline
from paiju.core.errors import ConfigError, CorruptRecordError, InvalidNotationError

SUM_TOLERANCE: Final = 1e-9
"""Probabilities must sum to 1 within this (data files carry rounded decimals)."""
MAX_LATTICE: Final = 20_000_000
"""Largest total lattice we allocate (cells); beyond it a distribution is surely a mistake."""
TABLE_COLUMNS: Final = ("deal", "score", "probability", "plays")
MAX_SCORE: Final = 10**9
"""Largest |score| of a round: totals of many rounds must stay far inside int64 lattices."""

_ENTRY_RE: Final = re.compile(r"\s*([+-]?\d+)\s*:\s*([^\s:]+)\s*")


@dataclass(frozen=True)
class ScoreDistribution:
    """The law of one round's score: integer ``scores`` (ascending) and their probabilities.

    Probabilities are validated (finite, non-negative, summing to 1 within
    :data:`SUM_TOLERANCE`) and then divided by their sum, so downstream code can rely on an
    exact distribution. Zero-probability scores are kept (they document the declared support)
    but never matter: ties only happen on values that can occur.
    """

    scores: tuple[int, ...]
    probabilities: tuple[float, ...]

    def __post_init__(self) -> None:
        scores, probs = self.scores, self.probabilities
        if len(scores) != len(probs):
            raise ConfigError(f"score distribution: {len(scores)} scores but {len(probs)} probabilities")
        if not scores:
            raise ConfigError("score distribution is empty: give at least one score:probability")
        clean_scores = tuple(_as_score(s) for s in scores)
        if len(set(clean_scores)) != len(clean_scores):
            dup = sorted({s for s in clean_scores if clean_scores.count(s) > 1})
            raise ConfigError(f"score distribution {self._text(scores, probs)}: score(s) {dup} given twice")
        clean_probs: list[float] = []
        for s, p in zip(clean_scores, probs, strict=True):
            try:
                q = float(p)
            except (TypeError, ValueError):
                raise ConfigError(
                    f"score distribution: probability {p!r} of score {s} is not a number"
                ) from None
            if not math.isfinite(q):
                raise ConfigError(f"score distribution: probability of score {s} is {q}")
            if q < 0:
                raise ConfigError(
                    f"score distribution {self._text(scores, probs)}: "
                    f"probability of score {s} is negative ({q})"
                )
            clean_probs.append(q)
        total = math.fsum(clean_probs)
        if abs(total - 1.0) > SUM_TOLERANCE:
            raise ConfigError(
                f"score distribution {self._text(scores, probs)}: probabilities sum to {total!r}, "
                f"not 1 (tolerance {SUM_TOLERANCE:g})"
            )
        order = sorted(range(len(clean_scores)), key=clean_scores.__getitem__)
        object.__setattr__(self, "scores", tuple(clean_scores[i] for i in order))
        # Renormalise only when the sum is visibly off 1: dividing sums that are already 1 up to
        # rounding would move the last bits, so parse(str(d)) would no longer give d back.
        scale = 1.0 if abs(total - 1.0) <= 1e-15 else total
        object.__setattr__(self, "probabilities", tuple(clean_probs[i] / scale for i in order))

    @staticmethod
    def _text(scores: Sequence[object], probs: Sequence[object]) -> str:
        return "'" + ",".join(f"{s}:{p}" for s, p in zip(scores, probs, strict=False)) + "'"

    @classmethod
    def parse(cls, text: str) -> ScoreDistribution:
        """Parse ``"score:probability,..."``, e.g. ``"-1:0.6,1:0.4"`` (scores are integers)."""
        if not isinstance(text, str):
            raise InvalidNotationError(f"score distribution must be a string, not {type(text).__name__}")
        if not text.strip():
            raise InvalidNotationError("score distribution is empty: expected 'score:probability,...'")
        scores: list[int] = []
        probs: list[float] = []
        for entry in text.split(","):
            m = _ENTRY_RE.fullmatch(entry)
            if m is None:
                raise InvalidNotationError(
                    f"score distribution {text!r}: entry {entry.strip()!r} is not 'score:probability' "
                    "with an integer score (e.g. '-1:0.6,1:0.4')"
                )
            try:
                prob = float(m.group(2))
            except ValueError:
                raise InvalidNotationError(
                    f"score distribution {text!r}: probability {m.group(2)!r} is not a number"
                ) from None
            scores.append(int(m.group(1)))
            probs.append(prob)
        return cls(tuple(scores), tuple(probs))

    @classmethod
    def from_mapping(cls, probabilities: Mapping[int, float]) -> ScoreDistribution:
        """From ``{score: probability}``."""
        return cls(tuple(probabilities), tuple(probabilities.values()))

    @classmethod
    def empirical(cls, scores: Iterable[int]) -> ScoreDistribution:
        """The paper's formula (1): relative frequency of each observed score of a deal."""
        observed = np.fromiter((_as_score(s) for s in scores), dtype=np.int64)
        values, counts = np.unique(observed, return_counts=True)
        if values.size == 0:
            raise ConfigError("empirical score distribution of no plays")
        return cls(tuple(int(v) for v in values), tuple((counts / counts.sum()).tolist()))

    @classmethod
    def point_mass(cls, score: int) -> ScoreDistribution:
        return cls((score,), (1.0,))

    def as_dict(self) -> dict[int, float]:
        return dict(zip(self.scores, self.probabilities, strict=True))

    @property
    def mean(self) -> float:
        return math.fsum(s * p for s, p in zip(self.scores, self.probabilities, strict=True))

    def __str__(self) -> str:
        return ",".join(f"{s}:{p!r}" for s, p in zip(self.scores, self.probabilities, strict=True))

    def __repr__(self) -> str:
        return f"ScoreDistribution.parse({str(self)!r})"


def _as_score(value: object) -> int:
    """An integer score; integral floats from data files are accepted, anything else is not."""
    if isinstance(value, bool):
        raise ConfigError(f"score {value!r} is not an integer")
    whole = isinstance(value, float | np.floating) and math.isfinite(value) and float(value).is_integer()
    if not (isinstance(value, int | np.integer) or whole):
        raise ConfigError(f"score {value!r} is not an integer (scores are whole points)")
    score = int(cast(SupportsInt, value))  # an int, a numpy int or an integral float: checked above
    if abs(score) > MAX_SCORE:
        raise ConfigError(f"score {score} is out of range: |score| must be at most {MAX_SCORE:,}")
    return score


@dataclass(frozen=True)
class TotalDistribution:
    """The law of a player's total on the lattice ``offset + step * i`` (dense, ascending).

    ``probabilities[i]`` is the probability that the total equals ``offset + step * i``.
    """

    offset: int
    step: int
    probabilities: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        probs = np.ascontiguousarray(self.probabilities, dtype=np.float64)
        probs.setflags(write=False)
        object.__setattr__(self, "probabilities", probs)

    @property
    def values(self) -> np.ndarray:
        return self.offset + self.step * np.arange(self.probabilities.size, dtype=np.int64)

    def __len__(self) -> int:
        return int(self.probabilities.size)

    def probability(self, value: int) -> float:
        i, rem = divmod(value - self.offset, self.step)
        if rem or not 0 <= i < self.probabilities.size:
            return 0.0
        return float(self.probabilities[i])

    def as_dict(self) -> dict[int, float]:
        """``{total: probability}`` over the lattice cells with positive probability."""
        return {int(v): float(p) for v, p in zip(self.values, self.probabilities, strict=True) if p > 0}


def total_distribution(rounds: Sequence[ScoreDistribution]) -> TotalDistribution:
    """Law of the sum of independent round scores with the given per-round distributions.

    Exact up to float rounding: direct convolution of non-negative arrays has no
    cancellation (an FFT would put absolute noise of ~1e-17 on the tail probabilities that
    decide the top places).
    """
    if not rounds:
        raise ConfigError("a tournament needs at least one round")
    supports = []
    for d in rounds:
        if not isinstance(d, ScoreDistribution):
            raise ConfigError(f"expected a ScoreDistribution per round, got {type(d).__name__}")
        pos = [(s, p) for s, p in zip(d.scores, d.probabilities, strict=True) if p > 0]
        supports.append(pos)
    step = reduce(math.gcd, (s - sup[0][0] for sup in supports for s, _ in sup), 0) or 1
    cells = 1 + sum((sup[-1][0] - sup[0][0]) // step for sup in supports)
    if cells > MAX_LATTICE:
        raise ConfigError(
            f"the totals of {len(rounds)} rounds span {cells} lattice cells (limit {MAX_LATTICE}); "
            "scores are expected to be small integers"
        )
    offset = sum(sup[0][0] for sup in supports)
    arrays = []
    for sup in supports:
        low = sup[0][0]
        arr = np.zeros((sup[-1][0] - low) // step + 1)
        for s, p in sup:
            arr[(s - low) // step] = p
        arrays.append(arr)
    total = _convolve_all(arrays)
    return TotalDistribution(offset, step, total)


def repeated_total(dist: ScoreDistribution, rounds: int) -> TotalDistribution:
    """``D^(*m)``: the law of the total when every one of ``rounds`` rounds has law ``dist``."""
    check_positive_int(rounds, "rounds")
    return total_distribution([dist] * rounds)


def _convolve_all(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """Convolve the arrays, shortest first (keeps the intermediate products small)."""
    ordered = sorted(arrays, key=len)
    out = ordered[0]
    for arr in ordered[1:]:
        deadline.check()  # one convolution per round: its cost grows with the total's support
        out = np.convolve(out, arr)
    return out


def check_positive_int(value: object, name: str) -> int:
    """``value`` as an int >= 1, or a :class:`ConfigError` naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ConfigError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


# ---------------------------------------------------------------------------------------
# Parquet tables of per-deal distributions


@dataclass(frozen=True)
class DealDistribution:
    """One deal's score distribution with the number of plays it was estimated from."""

    deal: str
    distribution: ScoreDistribution
    plays: int


def _canonical_deal(text: str, where: str) -> str:
    # Imported here so the distribution maths does not depend on the Dou Dizhu engine.
    from paiju.doudizhu.cards import Deal

    try:
        return str(Deal.parse(text))
    except InvalidNotationError as err:
        raise InvalidNotationError(f"{where}: {err}") from None


def canonical_deal(text: str) -> str:
    """The canonical notation of a deal (``[landlord][farmer 1][farmer 2]``, ranks ascending)."""
    return _canonical_deal(text, "deal")


def read_distribution_table(path: str | Path) -> dict[str, DealDistribution]:
    """Read one Parquet file, or every ``*.parquet`` file of a directory, of deal distributions.

    Deals are keyed by their canonical notation. Every problem is an error naming the file
    (and deal): missing columns, a deal in two files or with two rows for one score,
    disagreeing ``plays``, probabilities that are not a distribution.
    """
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*.parquet"))
        if not files:
            raise ConfigError(f"--dists {p}: no *.parquet files in this directory")
    elif p.is_file():
        files = [p]
    else:
        raise ConfigError(f"distribution table {p} does not exist")
    rows: dict[str, DealDistribution] = {}
    origin: dict[str, Path] = {}
    for f in files:
        for deal, dd in _read_one_table(f).items():
            if deal in rows:
                raise CorruptRecordError(f"{f}: deal {deal} is also in {origin[deal]}")
            rows[deal] = dd
            origin[deal] = f
    return rows


def _read_one_table(path: Path) -> dict[str, DealDistribution]:
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as err:
        raise CorruptRecordError(f"{path}: not a readable Parquet file ({err})") from None
    missing = [c for c in TABLE_COLUMNS if c not in table.column_names]
    if missing:
        raise CorruptRecordError(
            f"{path}: missing column(s) {missing}; a distribution table has columns {list(TABLE_COLUMNS)}"
        )
    cols = {c: table.column(c).to_pylist() for c in TABLE_COLUMNS}
    grouped: dict[str, tuple[list[Any], list[Any], set[Any]]] = {}  # raw Parquet values, checked below
    raw_name: dict[str, str] = {}
    for i, (deal, score, prob, plays) in enumerate(
        zip(cols["deal"], cols["score"], cols["probability"], cols["plays"], strict=True)
    ):
        if deal is None or score is None or prob is None or plays is None:
            raise CorruptRecordError(f"{path}: row {i} has an empty field")
        if not isinstance(deal, str):
            raise CorruptRecordError(f"{path}: row {i}: deal must be text, got {type(deal).__name__}")
        key = raw_name.get(deal)
        if key is None:
            key = _canonical_deal(deal, f"{path}: row {i}")
            raw_name[deal] = key
        entry = grouped.setdefault(key, ([], [], set()))
        entry[0].append(score)
        entry[1].append(prob)
        entry[2].add(plays)
    out: dict[str, DealDistribution] = {}
    for deal, (scores, probs, plays_set) in grouped.items():
        if len(plays_set) != 1:
            raise CorruptRecordError(f"{path}: deal {deal} has different plays counts {sorted(plays_set)}")
        plays = plays_set.pop()
        if isinstance(plays, bool) or not isinstance(plays, int) or plays < 0:
            raise CorruptRecordError(
                f"{path}: deal {deal}: plays must be a non-negative integer, got {plays!r}"
            )
        try:
            dist = ScoreDistribution(tuple(scores), tuple(probs))
        except ConfigError as err:
            raise ConfigError(f"{path}: deal {deal}: {err}") from None
        out[deal] = DealDistribution(deal, dist, plays)
    return out


def write_distribution_table(path: str | Path, entries: Iterable[DealDistribution]) -> None:
    """Write deal distributions as a Parquet table (deal, score, probability, plays)."""
    deals: list[str] = []
    scores: list[int] = []
    probs: list[float] = []
    plays: list[int] = []
    for e in entries:
        for s, p in zip(e.distribution.scores, e.distribution.probabilities, strict=True):
            deals.append(e.deal)
            scores.append(s)
            probs.append(p)
            plays.append(e.plays)
    table = pa.table(
        {
            "deal": pa.array(deals, pa.string()),
            "score": pa.array(scores, pa.int32()),
            "probability": pa.array(probs, pa.float64()),
            "plays": pa.array(plays, pa.int64()),
        }
    )
    pq.write_table(table, Path(path))
