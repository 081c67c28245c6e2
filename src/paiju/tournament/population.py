"""Agent populations, deal pools, and the landlord scores they produce (``docs/dih.md`` §6, §7).

Why this module: the validation of deal selection (§7) and the simulated score distributions
of a pool (§6 (b)) both need "a population of agents plays deal d": the expensive part of
either is playing games, so it is done once, seeded, cached as Parquet, and everything else
(distributions, Algorithm 1, thousands of tournaments) works on the resulting numbers.

* A :class:`Population` is the paper's Algorithm 1 input: ``a`` landlord agents, ``b``
  farmer-1 agents and ``d`` farmer-2 agents (registry specs). Its ``a × b × d``
  *combinations* (landlord, farmer 1, farmer 2) are the validation's "players". An agent may
  be ε-mixed with uniform random play, written ``SPEC~EPS`` (``rule~0.2`` plays the rule
  agent's move, except with probability 0.2 a uniformly random legal move): a cheap way to
  grade abilities between the registry's agents.
* Pool files (one deal per line, canonical notation, ``#`` comments) are read by
  :func:`paiju.tournament.selection.read_pool_file`; :func:`random_pool` and
  :func:`write_pool_file` make new versioned pool files (never pickles).
* :func:`score_matrix` plays every (combination, deal) once and returns the landlord's scores
  as a ``(combinations × deals)`` matrix, in parallel (processes, or Ray with ``ray=True``),
  cached chunk by chunk as Parquet so an interrupted run resumes and a rerun is instant.
* :func:`simulate_distributions` is §6 (b): ``plays`` plays of every pool deal, play ``j``
  by combination ``perm_d[j mod C]`` (a seeded permutation per deal, so every combination
  plays a deal equally often, ±1), giving one :class:`~paiju.tournament.distributions.DealDistribution`
  per deal.
* :func:`distributions_from_records` is §6 (a): game records aggregated with DuckDB by
  :func:`paiju.core.records.score_distribution`.

Seeds: game ``(deal i, combination c, replicate j)`` of a run seeded ``S`` draws its agents'
seeds from ``derive_seed(S, i, c, j, seat)``, so a game is the same whatever process or chunk
plays it and whether it was resumed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from paiju.core.errors import ConfigError, CorruptRecordError, InvalidNotationError
from paiju.core.protocol import Action, Agent, play_game
from paiju.core.rng import SeedLike, as_generator, derive_seed
from paiju.core.runner import Backend, run_tasks
from paiju.doudizhu.scoring import DEFAULT_SCORING
from paiju.tournament.distributions import DealDistribution, ScoreDistribution, canonical_deal

Progress = Callable[[int, int], None]

ROLES: Final = ("landlord", "farmer1", "farmer2")
CHUNK_GAMES: Final = 400
"""Games per cached chunk (a chunk is the unit of parallel work and of resume)."""
_MATRIX_VERSION: Final = 1
"""Bump when the way games are played or seeded changes, so stale caches are not reused."""


# ---------------------------------------------------------------------------------------
# Agents and populations


class EpsilonMixedAgent:
    """Plays ``base``'s move, except with probability ``epsilon`` a uniformly random legal move.

    Why: graded abilities between the registry's agents at no extra cost per move (the
    paper's 9 × 7 × 7 trained agents are not available; ε-mixing a strong agent is the usual
    way to make a ladder of weaker ones). The base agent is consulted only when its move is
    used, so a mixed agent is never slower than its base.
    """

    def __init__(self, base: Agent, epsilon: float, seed: SeedLike = None) -> None:
        self.base = base
        self.epsilon = float(epsilon)
        self.name = f"{getattr(base, 'name', 'agent')}~{self.epsilon:g}"
        self._rng = as_generator(seed)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if self._rng.random() < self.epsilon:
            return legal_actions[int(self._rng.integers(len(legal_actions)))]
        return self.base.act(observation, legal_actions)


def parse_member(text: str) -> tuple[str, float]:
    """``"SPEC"`` or ``"SPEC~EPS"`` -> (registry spec, ε); both parts validated."""
    from paiju.doudizhu.agents import REGISTRY

    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"population member must be an agent spec, got {text!r}")
    spec, sep, eps_text = text.strip().partition("~")
    eps = 0.0
    if sep:
        try:
            eps = float(eps_text)
        except ValueError:
            raise ConfigError(
                f"population member {text!r}: ε after '~' must be a number, got {eps_text!r}"
            ) from None
        if not 0.0 <= eps <= 1.0:
            raise ConfigError(f"population member {text!r}: ε must be in [0, 1], got {eps}")
    REGISTRY.resolve(spec.strip())  # unknown agents / parameters fail here, with the registry's message
    return spec.strip(), eps


def make_member(text: str, seed: int) -> Agent:
    """Build a seeded agent of a population member (``SPEC`` or ``SPEC~EPS``)."""
    from paiju.doudizhu.agents import REGISTRY

    spec, eps = parse_member(text)
    base = REGISTRY.make(spec, seed=derive_seed(seed, 0))
    if eps == 0.0:
        return base
    return EpsilonMixedAgent(base, eps, seed=derive_seed(seed, 1))


@dataclass(frozen=True)
class Population:
    """Algorithm 1's agents: ``landlords`` × ``farmer1s`` × ``farmer2s`` combinations.

    ``scoring`` is the Dou Dizhu scoring rule of every game (the paper's ``competition``:
    the landlord scores ±max(1, bombs + rockets)).
    """

    landlords: tuple[str, ...]
    farmer1s: tuple[str, ...]
    farmer2s: tuple[str, ...]
    scoring: str = DEFAULT_SCORING

    def __post_init__(self) -> None:
        from paiju.doudizhu.scoring import get_rule

        for role, members in zip(ROLES, (self.landlords, self.farmer1s, self.farmer2s), strict=True):
            if not members:
                raise ConfigError(f"population: no {role} agents")
            for m in members:
                parse_member(m)
            if len(set(members)) != len(members):
                raise ConfigError(f"population: a {role} agent is listed twice: {list(members)}")
        get_rule(self.scoring)

    @classmethod
    def parse(cls, text: str, scoring: str = DEFAULT_SCORING) -> Population:
        """``"landlord=A|B;farmer1=C|D;farmer2=E"`` (a missing farmer2 copies farmer1), or a preset name."""
        if text.strip() in PRESET_NAMES:
            return preset(text.strip())
        parts: dict[str, tuple[str, ...]] = {}
        for chunk in text.split(";"):
            if not chunk.strip():
                continue
            role, eq, members = chunk.partition("=")
            role = role.strip()
            if not eq or role not in ROLES:
                raise InvalidNotationError(
                    f"population {text!r}: {chunk.strip()!r} is not 'ROLE=SPEC|SPEC...' with ROLE in "
                    f"{', '.join(ROLES)} (or use a preset: {', '.join(PRESET_NAMES)})"
                )
            if role in parts:
                raise InvalidNotationError(f"population {text!r}: role {role} given twice")
            parts[role] = tuple(m.strip() for m in members.split("|") if m.strip())
        if "landlord" not in parts or "farmer1" not in parts:
            raise InvalidNotationError(
                f"population {text!r}: give at least landlord=... and farmer1=... "
                f"(or a preset: {', '.join(PRESET_NAMES)})"
            )
        return cls(parts["landlord"], parts["farmer1"], parts.get("farmer2", parts["farmer1"]), scoring)

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> Population:
        """From a config table ``{landlord = [...], farmer1 = [...], farmer2 = [...], scoring = ...}``."""
        unknown = sorted(set(data) - {"landlord", "farmer1", "farmer2", "scoring", "preset"})
        if unknown:
            raise ConfigError(f"[population]: unknown key(s) {unknown}")
        if "preset" in data:
            if set(data) - {"preset"}:
                raise ConfigError("[population]: give either preset or the agent lists, not both")
            return preset(str(data["preset"]))
        lists = []
        for role in ROLES:
            value = data.get(role, data.get("farmer1") if role == "farmer2" else None)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"[population]: {role} must be a list of agent specs, got {value!r}")
            lists.append(tuple(value))
        return cls(lists[0], lists[1], lists[2], str(data.get("scoring", DEFAULT_SCORING)))

    @property
    def combinations(self) -> list[tuple[str, str, str]]:
        """Every (landlord, farmer 1, farmer 2), landlord-major (the matrix's row order)."""
        return [(a, b, c) for a in self.landlords for b in self.farmer1s for c in self.farmer2s]

    def __len__(self) -> int:
        return len(self.landlords) * len(self.farmer1s) * len(self.farmer2s)

    def label(self, index: int) -> str:
        return "/".join(self.combinations[index])

    def spec(self) -> str:
        return (
            f"landlord={'|'.join(self.landlords)};farmer1={'|'.join(self.farmer1s)};"
            f"farmer2={'|'.join(self.farmer2s)}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "landlord": list(self.landlords),
            "farmer1": list(self.farmer1s),
            "farmer2": list(self.farmer2s),
            "scoring": self.scoring,
        }


PRESET_NAMES: Final = ("ladder", "mixed")


def preset(name: str) -> Population:
    """A named population (built on demand: validating it imports the agent registry).

    * ``ladder``: cheap agents graded by ε-mixing (about 5 ms a game on one core);
      6 × 4 × 4 = 96 combinations, enough for tournaments of 30 players drawn from 30
      ability buckets.
    * ``mixed``: the ladder's agents with the policy networks and a small search in every
      role, 7 × 5 × 5 = 175 combinations (tens of times slower per game: a cluster job).
    """
    if name == "ladder":
        return Population(
            ("rule", "rule~0.15", "rule~0.3", "greedy", "greedy~0.5", "random"),
            ("rule", "rule~0.3", "greedy", "random"),
            ("rule", "rule~0.3", "greedy", "random"),
        )
    if name == "mixed":
        return Population(
            (
                "rule",
                "rule~0.3",
                "greedy",
                "random",
                "policy:model=small",
                "policy:model=large",
                "search:budget=20",
            ),
            ("rule", "greedy", "random", "policy:model=large", "search:budget=20"),
            ("rule", "greedy", "random", "policy:model=large", "search:budget=20"),
        )
    raise ConfigError(f"unknown population preset {name!r}; presets: {', '.join(PRESET_NAMES)}")


# ---------------------------------------------------------------------------------------
# Pools


def random_pool(count: int, seed: int) -> list[str]:
    """``count`` distinct uniformly random deals (the paper's Algorithm 2/3), canonical notation."""
    from paiju.doudizhu.cards import Deal

    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ConfigError(f"pool size must be a positive integer, got {count!r}")
    gen = as_generator(seed)
    deals: list[str] = []
    seen: set[str] = set()
    while len(deals) < count:
        d = str(Deal.random(gen))
        if d not in seen:
            seen.add(d)
            deals.append(d)
    return deals


def write_pool_file(path: str | Path, deals: Iterable[str], header: str = "") -> None:
    """Write a versioned pool file: ``#`` header lines, then one canonical deal per line."""
    lines = [f"# {h}".rstrip() for h in header.splitlines()] if header else []
    lines += [canonical_deal(d) for d in deals]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------
# Playing games


@dataclass(frozen=True)
class _Chunk:
    """Games to play: (deal index, combination index, replicate) triples and what they need."""

    deals: dict[int, str]
    """Only the deals this chunk's jobs play (keeps each task small for big pools)."""
    members: tuple[tuple[str, str, str], ...]
    jobs: tuple[tuple[int, int, int], ...]
    seed: int
    scoring: str


def play_deal(deal: str, members: tuple[str, str, str], seed: int, scoring: str = DEFAULT_SCORING) -> float:
    """The landlord's score when combination ``members`` plays ``deal`` (seats = roles, no bidding)."""
    from paiju.doudizhu.game import DouDizhuGame

    game = DouDizhuGame(scoring=scoring)
    agents = [make_member(m, derive_seed(seed, seat)) for seat, m in enumerate(members)]
    played = play_game(game, agents, seed, start=game.new_state_from_deal(deal))
    return float(played.state.returns()[0])


def _play_chunk(chunk: _Chunk) -> list[float]:
    return [
        play_deal(chunk.deals[d], chunk.members[c], derive_seed(chunk.seed, d, c, j), chunk.scoring)
        for d, c, j in chunk.jobs
    ]


def _cache_key(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def default_cache_dir() -> Path:
    """``$PAIJU_CACHE`` or ``$XDG_CACHE_HOME/paiju`` (``~/.cache/paiju``)."""
    if os.environ.get("PAIJU_CACHE"):
        return Path(os.environ["PAIJU_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "paiju"


def play_jobs(
    deals: Sequence[str],
    population: Population,
    jobs: Sequence[tuple[int, int, int]],
    seed: int,
    *,
    workers: int = 1,
    cache_dir: str | Path | None = None,
    use_ray: bool = False,
    progress: Progress | None = None,
) -> np.ndarray:
    """Landlord scores of ``jobs`` (deal index, combination index, replicate), in job order.

    Chunks of :data:`CHUNK_GAMES` games are played in ``workers`` processes (or Ray tasks) and,
    with ``cache_dir``, each finished chunk is written to ``cache_dir/games-<key>/`` as Parquet
    (deal, combination, replicate, score); chunks already there are read, not replayed.
    """
    members = tuple(population.combinations)
    key = _cache_key(
        {
            "v": _MATRIX_VERSION,
            "deals": hashlib.sha256("\n".join(deals).encode()).hexdigest(),
            "population": population.as_dict(),
            "seed": int(seed),
            "jobs": hashlib.sha256(np.asarray(jobs, dtype=np.int64).tobytes()).hexdigest(),
        }
    )
    chunks = []
    for start in range(0, len(jobs), CHUNK_GAMES):
        part = tuple(jobs[start : start + CHUNK_GAMES])
        used = {d: deals[d] for d in sorted({job[0] for job in part})}
        chunks.append(_Chunk(used, members, part, int(seed), population.scoring))
    folder = None if cache_dir is None else Path(cache_dir) / f"games-{key}"
    results: dict[int, list[float]] = {}
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        for i, chunk in enumerate(chunks):
            f = folder / f"chunk-{i:06d}.parquet"
            if f.exists():
                results[i] = _read_chunk(f, chunk)
    todo = [i for i in range(len(chunks)) if i not in results]
    total = len(jobs)
    done = sum(len(chunks[i].jobs) for i in results)
    if progress is not None:
        progress(done, total)

    def finish(i: int, scores: list[float]) -> None:
        results[i] = scores
        if folder is not None:
            _write_chunk(folder / f"chunk-{i:06d}.parquet", chunks[i], scores)

    run_tasks(
        _play_chunk, [chunks[i] for i in todo], lambda k, scores: finish(todo[k], scores),
        backend=Backend(workers=workers, ray=use_ray), size=lambda c: len(c.jobs), done=done, total=total,
        progress=progress if progress is not None else False,
    )
    return np.array([s for i in range(len(chunks)) for s in results[i]], dtype=np.float64)


def _write_chunk(path: Path, chunk: _Chunk, scores: Sequence[float]) -> None:
    d, c, j = (list(col) for col in zip(*chunk.jobs, strict=True))
    table = pa.table(
        {
            "deal": pa.array(d, pa.int32()),
            "combination": pa.array(c, pa.int32()),
            "replicate": pa.array(j, pa.int32()),
            "score": pa.array(list(scores), pa.float64()),
        }
    )
    tmp = path.with_name(f".tmp-{path.name}")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def _read_chunk(path: Path, chunk: _Chunk) -> list[float]:
    try:
        table = pq.read_table(path)
        got = list(
            zip(
                table["deal"].to_pylist(),
                table["combination"].to_pylist(),
                table["replicate"].to_pylist(),
                strict=True,
            )
        )
        scores = table["score"].to_pylist()
    except (OSError, KeyError, pa.ArrowException) as err:
        raise CorruptRecordError(
            f"{path}: not a readable game-score chunk ({err}); delete it to replay"
        ) from None
    if got != list(chunk.jobs):
        raise CorruptRecordError(f"{path}: holds other games than this chunk; delete the folder to replay")
    return [float(s) for s in scores]


def score_matrix(
    deals: Sequence[str],
    population: Population,
    seed: int,
    *,
    workers: int = 1,
    cache_dir: str | Path | None = None,
    use_ray: bool = False,
    progress: Progress | None = None,
) -> np.ndarray:
    """``M[c, i]`` = the landlord's score when combination ``c`` plays deal ``i`` (one seeded game each).

    This is Algorithm 1's step 4 for every pool deal at once: a "player" (combination) scores
    its landlord's score on a deal played within its own combination.
    """
    n_comb = len(population)
    jobs = [(i, c, 0) for i in range(len(deals)) for c in range(n_comb)]
    flat = play_jobs(
        deals,
        population,
        jobs,
        seed,
        workers=workers,
        cache_dir=cache_dir,
        use_ray=use_ray,
        progress=progress,
    )
    return flat.reshape(len(deals), n_comb).T.copy()


def sampling_plan(n_deals: int, n_combinations: int, plays: int, seed: int) -> list[tuple[int, int, int]]:
    """The plan of ``docs/dih.md`` §6 (b): play ``j`` of deal ``i`` is by combination ``perm_i[j mod C]``,
    replicate ``j // C``.

    ``perm_i`` is a seeded permutation per deal, so each combination plays each deal
    ``plays // C`` or ``plays // C + 1`` times and which ones get the extra play varies by deal.
    """
    if isinstance(plays, bool) or not isinstance(plays, int) or plays < 1:
        raise ConfigError(f"plays must be a positive integer, got {plays!r}")
    jobs: list[tuple[int, int, int]] = []
    for i in range(n_deals):
        perm = as_generator(derive_seed(seed, i, 0xD15)).permutation(n_combinations)
        jobs.extend((i, int(perm[j % n_combinations]), j // n_combinations) for j in range(plays))
    return jobs


def simulate_distributions(
    deals: Sequence[str],
    population: Population,
    plays: int,
    seed: int,
    *,
    workers: int = 1,
    cache_dir: str | Path | None = None,
    use_ray: bool = False,
    progress: Progress | None = None,
) -> list[DealDistribution]:
    """Every deal's landlord-score law from ``plays`` plays by the population (``docs/dih.md`` §6 b)."""
    canon = [canonical_deal(d) for d in deals]
    jobs = sampling_plan(len(canon), len(population), plays, seed)
    scores = play_jobs(
        canon,
        population,
        jobs,
        seed,
        workers=workers,
        cache_dir=cache_dir,
        use_ray=use_ray,
        progress=progress,
    )
    per_deal = scores.reshape(len(canon), plays)
    return [
        DealDistribution(d, ScoreDistribution.empirical(int(s) for s in row), plays)
        for d, row in zip(canon, per_deal, strict=True)
    ]


def distributions_from_records(
    source: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    min_plays: int = 50,
    game: str | None = "doudizhu",
) -> list[DealDistribution]:
    """Per-deal laws from game records (``docs/dih.md`` §6 a; DuckDB, ``records.score_distribution``).

    Deals are re-keyed by canonical notation; a record whose deal is not valid Dou Dizhu
    notation, or whose score is not a whole number, is an error naming the deal.
    """
    from paiju.core.records import score_distribution

    table = score_distribution(source, min_plays=min_plays, game=game)
    grouped: dict[str, tuple[list[int], list[float], int]] = {}
    for deal, score, prob, plays in zip(
        table["deal"].to_pylist(),
        table["score"].to_pylist(),
        table["probability"].to_pylist(),
        table["plays"].to_pylist(),
        strict=True,
    ):
        if not float(score).is_integer():
            raise CorruptRecordError(f"records: deal {deal} has a non-integer landlord score {score}")
        key = canonical_deal(deal)
        entry = grouped.setdefault(key, ([], [], int(plays)))
        if entry[2] != int(plays):
            raise CorruptRecordError(f"records: deal {key} is written in two notations; merge them first")
        entry[0].append(int(score))
        entry[1].append(float(prob))
    return [DealDistribution(d, ScoreDistribution(tuple(s), tuple(p)), n) for d, (s, p, n) in grouped.items()]
