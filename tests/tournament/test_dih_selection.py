"""Deal selection: the paper's ranking, our joint search, pool files."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from paiju.core.errors import ConfigError, InvalidNotationError
from paiju.core.rng import as_generator
from paiju.doudizhu.cards import Deal
from paiju.tournament.dih import dih, dih_of_rounds
from paiju.tournament.distributions import DealDistribution, ScoreDistribution, write_distribution_table
from paiju.tournament.selection import (
    DealPool,
    load_pool,
    rank_by_dih,
    read_pool_file,
    select_joint,
    select_paper,
    set_dih,
)

SCORES = (-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6)


def random_pool(size: int, seed: int) -> DealPool:
    rng = as_generator(seed)
    weights = np.array([1 / abs(s) ** 2 for s in SCORES])
    return DealPool.from_distributions(
        {f"deal{i}": ScoreDistribution(SCORES, tuple(rng.dirichlet(weights * 10))) for i in range(size)}
    )


def structured_pool() -> DealPool:
    """Deals whose scores live on different lattices (certain bombs double every score)."""
    laws = {
        "a1": "-1:0.5,1:0.5",
        "a2": "-1:0.48,1:0.52",
        "a3": "-1:0.47,1:0.53",
        "a4": "-1:0.46,1:0.54",
        "b": "-2:0.45,2:0.55",
        "c": "-4:0.44,4:0.56",
        "d": "-3:0.3,0:0.4,3:0.3",
    }
    return DealPool.from_distributions({k: ScoreDistribution.parse(v) for k, v in laws.items()})


def test_rank_matches_single_deal_dih() -> None:
    pool = random_pool(40, 1)
    for players, rounds, top in ((20, 5, 3), (108, 18, 4), (9, 2, 2)):
        own = rank_by_dih(pool, players, rounds, top)
        single = [dih(d, players, rounds, top) for d in pool.distributions]
        np.testing.assert_allclose(own, single, rtol=1e-11, atol=1e-15)


def test_paper_selection_is_top_m_by_own_dih() -> None:
    pool = random_pool(30, 2)
    sel = select_paper(pool, 20, 5, 3)
    own = [dih(d, 20, 5, 3) for d in pool.distributions]
    expected = sorted(range(len(pool)), key=lambda i: -own[i])[:5]
    assert list(sel.indices) == expected
    assert sel.deals == tuple(pool.deals[i] for i in expected)
    assert sel.deal_dih == pytest.approx([own[i] for i in expected], rel=1e-11)
    assert sel.set_dih == pytest.approx(
        dih_of_rounds([pool.distributions[i] for i in expected], 20, 3), rel=1e-11
    )
    assert sel.method == "paper" and sel.as_dict()["deals"][0]["round"] == 1


def test_joint_beats_paper_when_lattices_differ() -> None:
    pool = structured_pool()
    for players, rounds, top in ((6, 3, 2), (8, 3, 3), (5, 2, 2)):
        paper = select_paper(pool, players, rounds, top)
        joint = select_joint(pool, players, rounds, top)
        optimum = max(
            set_dih(pool, list(c), players, top) for c in itertools.combinations(range(len(pool)), rounds)
        )
        assert joint.set_dih == pytest.approx(optimum, rel=1e-12)
        assert joint.set_dih >= paper.set_dih
        laws = [pool.distributions[i] for i in joint.indices]
        assert joint.set_dih == pytest.approx(dih_of_rounds(laws, players, top), rel=1e-12)
    assert select_joint(pool, 6, 3, 2).set_dih > select_paper(pool, 6, 3, 2).set_dih + 0.05


def test_joint_never_below_paper_and_never_above_optimum() -> None:
    for seed in range(4):
        pool = random_pool(9, 10 + seed)
        for players, rounds, top in ((10, 3, 2), (6, 2, 3)):
            paper = select_paper(pool, players, rounds, top)
            joint = select_joint(pool, players, rounds, top, beam_width=2)
            optimum = max(
                set_dih(pool, list(c), players, top) for c in itertools.combinations(range(len(pool)), rounds)
            )
            assert paper.set_dih - 1e-12 <= joint.set_dih <= optimum + 1e-12
            assert len(set(joint.indices)) == rounds


def test_joint_reports_progress_and_uses_distinct_deals() -> None:
    pool = random_pool(60, 5)
    seen: list[tuple[int, int]] = []
    sel = select_joint(pool, 30, 6, 3, progress=lambda done, total: seen.append((done, total)))
    assert len(set(sel.indices)) == 6 and seen and seen[-1][0] == seen[-1][1]
    assert all(a <= b for (a, _), (b, _) in itertools.pairwise(seen))


def test_selection_errors() -> None:
    pool = random_pool(4, 6)
    with pytest.raises(ConfigError, match="fewer than the 5 rounds"):
        select_paper(pool, 10, 5, 2)
    with pytest.raises(ConfigError, match="N >= R"):
        select_joint(pool, 2, 3, 3)
    with pytest.raises(ConfigError, match="beam_width"):
        select_joint(pool, 10, 3, 2, beam_width=0)
    with pytest.raises(ConfigError, match="twice"):
        DealPool(("x", "x"), (pool.distributions[0],) * 2, (None, None))
    with pytest.raises(ConfigError, match="empty"):
        DealPool.from_distributions({})


# ---------------------------------------------------------------------------------------
# Pool files


def _deals(count: int, seed: int) -> list[str]:
    rng = as_generator(seed)
    return [str(Deal.random(rng).without_kitty()) for _ in range(count)]


def test_pool_file_and_table(tmp_path: Path) -> None:
    deals = _deals(8, 1)
    rng = as_generator(2)
    entries = [
        DealDistribution(
            d, ScoreDistribution(SCORES, tuple(rng.dirichlet(np.ones(12)))), 30 if i == 3 else 80
        )
        for i, d in enumerate(deals)
    ]
    write_distribution_table(tmp_path / "dists.parquet", entries)
    pool_file = tmp_path / "pool.txt"
    pool_file.write_text(
        "# test pool\n\n" + "\n".join(deals[:6]) + "  # trailing comment\n", encoding="utf-8"
    )
    assert read_pool_file(pool_file) == deals[:6]
    loaded = load_pool(pool_file, tmp_path)
    assert loaded.pool.deals == tuple(d for i, d in enumerate(deals[:6]) if i != 3)
    assert loaded.excluded == ((deals[3], 30),)
    assert len(load_pool(pool_file, tmp_path, min_plays=0).pool) == 6
    with pytest.raises(ConfigError, match="no deal of pool"):
        load_pool(pool_file, tmp_path, min_plays=1000)


def test_pool_file_errors(tmp_path: Path) -> None:
    deals = _deals(3, 3)
    bad = tmp_path / "bad.txt"
    bad.write_text(deals[0] + "\n[33][44][55]\n", encoding="utf-8")
    with pytest.raises(InvalidNotationError, match="line 2"):
        read_pool_file(bad)
    dup = tmp_path / "dup.txt"
    dup.write_text(f"{deals[0]}\n{deals[1]}\n{deals[0]}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"line 3.*repeats line 1"):
        read_pool_file(dup)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="no deals"):
        read_pool_file(empty)
    with pytest.raises(ConfigError, match="cannot read"):
        read_pool_file(tmp_path / "missing.txt")
    write_distribution_table(
        tmp_path / "d.parquet", [DealDistribution(deals[0], ScoreDistribution.parse("-1:0.5,1:0.5"), 99)]
    )
    pool = tmp_path / "pool.txt"
    pool.write_text(f"{deals[0]}\n{deals[2]}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"1 deal\(s\) of pool .* have no distribution"):
        load_pool(pool, tmp_path / "d.parquet")
