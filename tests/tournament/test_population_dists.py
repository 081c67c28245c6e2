"""Agent populations, pool files, simulated and recorded score distributions (``docs/dih.md`` §6)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from paiju.core.errors import ConfigError, InvalidNotationError
from paiju.core.records import import_jsonl
from paiju.doudizhu.cards import Deal
from paiju.tournament import population as popmod
from paiju.tournament.distributions import read_distribution_table, write_distribution_table
from paiju.tournament.population import (
    EpsilonMixedAgent,
    Population,
    distributions_from_records,
    play_deal,
    random_pool,
    sampling_plan,
    score_matrix,
    simulate_distributions,
    write_pool_file,
)
from paiju.tournament.selection import read_pool_file

TINY = Population(("random", "greedy"), ("random",), ("random", "greedy"))


def test_pool_file_round_trip(tmp_path: Path) -> None:
    deals = random_pool(25, seed=7)
    assert len(set(deals)) == 25
    assert all(str(Deal.parse(d)) == d for d in deals)
    path = tmp_path / "pool.txt"
    write_pool_file(path, deals, header="test pool\nseed 7")
    text = path.read_text()
    assert text.startswith("# test pool\n# seed 7\n")
    assert read_pool_file(path) == deals
    assert random_pool(25, seed=7) == deals  # seeded


def test_pool_file_bad_lines_name_the_line(tmp_path: Path) -> None:
    good = random_pool(2, seed=1)
    path = tmp_path / "bad.txt"
    path.write_text(f"# header\n{good[0]}\n[333][444]\n")
    with pytest.raises(InvalidNotationError, match="line 3"):
        read_pool_file(path)
    path.write_text(f"{good[0]}\n\n{good[1]}\n{good[0]}\n")
    with pytest.raises(ConfigError, match="line 4: deal repeats line 1"):
        read_pool_file(path)
    with pytest.raises(InvalidNotationError):
        write_pool_file(tmp_path / "x.txt", ["[34][5][6]"])


def test_shipped_pools_are_valid_and_distinct() -> None:
    root = Path(popmod.__file__).parent / "pools"
    small = read_pool_file(root / "ddz-pool-300-v1.txt")
    assert len(small) == 300
    assert small == random_pool(300, 20261130)  # the header's recipe reproduces the file


def test_population_parse_and_errors() -> None:
    pop = Population.parse("landlord=rule|rule~0.3;farmer1=greedy|random")
    assert pop.farmer2s == ("greedy", "random")  # farmer2 defaults to farmer1's list
    assert len(pop) == 8
    assert pop.combinations[0] == ("rule", "greedy", "greedy")
    assert Population.parse(pop.spec()) == pop
    assert len(Population.parse("ladder")) == 96
    with pytest.raises(ConfigError, match="unknown"):
        Population.parse("landlord=nosuchagent;farmer1=random")
    with pytest.raises(ConfigError, match=r"\[0, 1\]"):
        Population.parse("landlord=rule~1.5;farmer1=random")
    with pytest.raises(InvalidNotationError, match="ROLE=SPEC"):
        Population.parse("boss=rule;farmer1=random")
    with pytest.raises(ConfigError, match="twice"):
        Population.parse("landlord=rule|rule;farmer1=random")


class _Fixed:
    name = "fixed"

    def act(self, observation: object, legal_actions: list[int]) -> int:
        return legal_actions[0]


def test_epsilon_mixed_agent_rate() -> None:
    agent = EpsilonMixedAgent(_Fixed(), 0.25, seed=3)
    legal = list(range(10))
    picks = [agent.act(None, legal) for _ in range(8000)]
    # Fixed move 0 unless random (then uniform over 10): P(move != 0) = 0.25 * 0.9.
    share = np.mean([p != 0 for p in picks])
    assert abs(share - 0.225) < 4 * np.sqrt(0.225 * 0.775 / 8000)
    assert all(EpsilonMixedAgent(_Fixed(), 0.0, seed=1).act(None, legal) == 0 for _ in range(100))


def test_sampling_plan_is_balanced() -> None:
    jobs = sampling_plan(n_deals=3, n_combinations=4, plays=10, seed=1)
    assert len(jobs) == 30
    for deal in range(3):
        per = Counter(c for d, c, _ in jobs if d == deal)
        assert sorted(per.values()) == [2, 2, 3, 3]
        reps = [(c, j) for d, c, j in jobs if d == deal]
        assert len(set(reps)) == 10  # a (combination, replicate) pair is one distinct game


def test_score_matrix_is_chunking_independent_and_matches_single_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deals = random_pool(3, seed=11)
    m = score_matrix(deals, TINY, seed=9)
    assert m.shape == (4, 3)
    assert set(np.unique(np.abs(m))) <= {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}
    monkeypatch.setattr(popmod, "CHUNK_GAMES", 5)
    m2 = score_matrix(deals, TINY, seed=9, cache_dir=tmp_path)
    np.testing.assert_array_equal(m, m2)
    # Entry (c, i) is exactly the seeded game of combination c on deal i.
    combos = TINY.combinations
    assert m[3, 1] == play_deal(deals[1], combos[3], popmod.derive_seed(9, 1, 3, 0))
    # A rerun reads the cached chunks and plays nothing.
    monkeypatch.setattr(popmod, "_play_chunk", lambda chunk: pytest.fail("replayed a cached chunk"))
    np.testing.assert_array_equal(score_matrix(deals, TINY, seed=9, cache_dir=tmp_path), m)


def test_simulated_distributions_are_the_empirical_laws(tmp_path: Path) -> None:
    deals = random_pool(2, seed=4)
    laws = simulate_distributions(deals, TINY, plays=6, seed=2)
    jobs = sampling_plan(2, len(TINY), 6, 2)
    for law, deal in zip(laws, deals, strict=True):
        i = deals.index(deal)
        scores = [
            play_deal(deal, TINY.combinations[c], popmod.derive_seed(2, d, c, j))
            for d, c, j in jobs
            if d == i
        ]
        want = {s: n / 6 for s, n in Counter(int(x) for x in scores).items()}
        assert law.plays == 6
        assert law.distribution.as_dict() == pytest.approx(want)
    out = tmp_path / "d.parquet"
    write_distribution_table(out, laws)
    back = read_distribution_table(out)
    assert {d: v.distribution for d, v in back.items()} == {v.deal: v.distribution for v in laws}


def test_distributions_from_records_equal_a_direct_count(tmp_path: Path) -> None:
    deals = random_pool(3, seed=5)
    rng = np.random.default_rng(0)
    plays = {deals[0]: 60, deals[1]: 50, deals[2]: 49}  # the last is below min_plays = 50
    lines = []
    truth: dict[str, Counter[int]] = {}
    for deal, n in plays.items():
        for _ in range(n):
            s = int(rng.choice([-3, -1, 1, 2]))
            truth.setdefault(deal, Counter())[s] += 1
            lines.append(
                json.dumps({"game": "doudizhu", "deal": deal, "score": s, "returns": [s, -s / 2, -s / 2]})
            )
    src = tmp_path / "log.jsonl"
    src.write_text("\n".join(lines) + "\n")
    import_jsonl(src, tmp_path / "records")
    laws = {law.deal: law for law in distributions_from_records(tmp_path / "records", min_plays=50)}
    assert set(laws) == {deals[0], deals[1]}
    for deal, law in laws.items():
        assert law.plays == plays[deal]
        want = {s: c / plays[deal] for s, c in truth[deal].items()}
        assert law.distribution.as_dict() == pytest.approx(want)
    assert {law.deal for law in distributions_from_records(tmp_path / "records", min_plays=1)} == set(deals)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_ray_games_equal_local_games(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    deals = random_pool(2, seed=3)
    local = score_matrix(deals, TINY, seed=4)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = score_matrix(deals, TINY, seed=4, use_ray=True, cache_dir=tmp_path)
    finally:
        ray.shutdown()
    np.testing.assert_array_equal(local, remote)
