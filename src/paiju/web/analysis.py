"""The analysis pages' back end: DIH and deal selection, generated reports, game records.

Everything here is a thin layer over the library (:mod:`paiju.tournament`,
:mod:`paiju.core.records`) plus the file discovery the pages need:

* **Deal pools.** A page visitor picks a pool by name: ``synthetic`` (paper-shaped score
  laws drawn from a fixed seed — the same generator as ``benchmarks/dih.py``, labelled as
  synthetic on the page), ``records`` (the empirical laws of every Dou Dizhu deal recorded
  under the data folder at least ``min_plays`` times, via DuckDB), and every distribution
  table ``pools/*.parquet`` in the data folder (columns ``deal, score, probability, plays``,
  the format ``paiju dih select --dists`` reads). A pool may also be typed in, one
  ``label: score:prob,...`` per line.
* **Reports.** Markdown and PNG files under the report folders (by default the
  ``docs/results`` of the source checkout paiju runs from, if any, and ``<data>/reports``:
  :func:`default_report_dirs`),
  grouped by their paths into the analyses users come for (:data:`SECTIONS`: the Dou Dizhu
  agents' ladder, deal-selection validation, yuxi balance, learned models) and the
  engineering benchmarks, which the page links rather than shows; Markdown is rendered with
  markdown-it-py (raw HTML disabled).
* **Records.** Every record directory under ``<data>/records`` (recursively) is opened as
  one DuckDB view; unreadable files are listed, not silently skipped.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from paiju.core import deadline
from paiju.core.errors import ConfigError, CorruptRecordError, InvalidNotationError, NotFoundError

SYNTHETIC_SIZE = 300
SYNTHETIC_SEED = 2024
MAX_POOL = 5000
IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg"}
PACKAGE = Path(__file__).resolve().parents[1]
"""The ``paiju`` package folder this module was imported from."""


# ---- DIH ----------------------------------------------------------------------------------------
def dih_value(
    dists: Sequence[str],
    players: int,
    rounds: int,
    top: int,
    check_laws: Callable[[list[Any]], None] | None = None,
) -> dict[str, Any]:
    """DIH of N players over M rounds for one law (every round) or one law per round.

    ``check_laws`` sees the round laws before any convolution (the web app's cost limit)."""
    from paiju.tournament.dih import check_top, dih_of_total, unique_awards_of_total
    from paiju.tournament.distributions import ScoreDistribution, total_distribution

    check_top(players, top)
    given = [ScoreDistribution.parse(d) for d in dists]
    laws = given * rounds if len(given) == 1 else given
    if len(laws) != rounds:
        raise ConfigError(
            f"{len(given)} distributions given: give one (every round) or one per round ({rounds})"
        )
    if check_laws is not None:
        check_laws(laws)
    total = total_distribution(laws)
    return {
        "dih": dih_of_total(total, players, top),
        "unique_awards": unique_awards_of_total(total, players, top),
        "players": players,
        "rounds": rounds,
        "top": top,
        "distributions": [str(d) for d in given],
        "means": [d.mean for d in given],
        "total_support": len(total.as_dict()),
    }


def _synthetic_law(rng: Any) -> Any:
    """A paper-shaped score law: win rate w, certain bombs, Poisson extra bombs (as the benchmark)."""
    import numpy as np

    from paiju.tournament.distributions import ScoreDistribution

    win = rng.beta(2.0, 2.0)
    sure = int(rng.choice([0, 0, 0, 1, 2, 3]))
    lam = rng.gamma(1.0, 0.5)
    extra = np.array([math.exp(-lam) * lam**j / math.factorial(j) for j in range(7)])
    extra /= extra.sum()
    probs: dict[int, float] = {}
    for j, pj in enumerate(extra):
        b = min(6, max(1, sure + j))
        probs[b] = probs.get(b, 0.0) + win * pj
        probs[-b] = probs.get(-b, 0.0) + (1 - win) * pj
    return ScoreDistribution.from_mapping(probs)


@dataclass(frozen=True)
class PoolInfo:
    name: str
    size: int | None
    source: str
    description: str


def list_pools(data_dir: Path, min_plays: int = 50) -> list[dict[str, Any]]:
    """The pools a visitor can pick (size None: not counted until used)."""
    pools = [
        PoolInfo(
            "synthetic",
            SYNTHETIC_SIZE,
            "built in",
            f"{SYNTHETIC_SIZE} synthetic deals with paper-shaped score laws (seed {SYNTHETIC_SEED}); "
            "not real Dou Dizhu deals",
        ),
        PoolInfo(
            "records",
            None,
            str(data_dir / "records"),
            f"empirical laws of the Dou Dizhu deals recorded in the data folder (>= {min_plays} plays)",
        ),
    ]
    for path in sorted((data_dir / "pools").glob("*.parquet")):
        pools.append(
            PoolInfo(
                f"file:{path.stem}", None, str(path), "distribution table (deal, score, probability, plays)"
            )
        )
    return [p.__dict__ for p in pools]


def load_pool(name: str, data_dir: Path, min_plays: int = 50, text: str | None = None) -> Any:
    """A :class:`~paiju.tournament.selection.DealPool` by name (see the module docstring)."""
    from paiju.core.rng import as_generator
    from paiju.tournament.selection import DealPool

    if name == "custom":
        return _custom_pool(text)
    if name == "synthetic":
        rng = as_generator(SYNTHETIC_SEED)
        return DealPool.from_distributions(
            {f"synthetic-{i:04d}": _synthetic_law(rng) for i in range(SYNTHETIC_SIZE)}
        )
    if name == "records":
        from paiju.core.records import score_distribution

        files = record_files_under(data_dir / "records")[0]
        if not files:
            raise ConfigError(f"no game records under {data_dir / 'records'}: play or run an arena first")
        table = score_distribution(files, min_plays=min_plays, game="doudizhu")
        return _pool_from_table(table, f"records under {data_dir / 'records'} (min_plays={min_plays})")
    if name.startswith("file:"):
        return _file_pool(name, data_dir, min_plays)
    raise ConfigError(f"unknown pool {name!r}; pools: synthetic, records, custom, file:<name>")


def _custom_pool(text: str | None) -> Any:
    """The typed-in pool: one ``label: score:prob,...`` per line (``#`` starts a comment)."""
    from paiju.tournament.distributions import ScoreDistribution
    from paiju.tournament.selection import DealPool

    if not text or not text.strip():
        raise InvalidNotationError("custom pool is empty: one 'label: score:prob,...' per line")
    laws: dict[str, Any] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not lineno & 255:
            deadline.check()
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        label, sep, dist = line.partition(" ")
        label = label.rstrip(":")
        if not sep or not dist.strip():
            raise InvalidNotationError(
                f"custom pool line {lineno}: write 'label: score:prob,...', got {raw!r}"
            )
        if label in laws:
            raise ConfigError(f"custom pool line {lineno}: label {label!r} is used twice")
        try:
            laws[label] = ScoreDistribution.parse(dist.strip())
        except ValueError as err:
            raise type(err)(f"custom pool line {lineno}: {err}") from None
    if len(laws) > MAX_POOL:
        raise ConfigError(f"custom pool has {len(laws)} deals; at most {MAX_POOL}")
    return DealPool.from_distributions(laws)


def _file_pool(name: str, data_dir: Path, min_plays: int) -> Any:
    """The pool ``file:<stem>``: the deals of ``<data>/pools/<stem>.parquet`` with enough plays."""
    from paiju.tournament.distributions import read_distribution_table
    from paiju.tournament.selection import DealPool

    path = data_dir / "pools" / f"{name[5:]}.parquet"
    if "/" in name[5:] or not path.is_file():
        raise ConfigError(f"unknown pool {name!r}; see the pool list")
    entries = read_distribution_table(path)
    kept = [e for e in entries.values() if e.plays >= min_plays]
    if not kept:
        raise ConfigError(f"no deal of {path} has at least {min_plays} plays")
    return DealPool(
        tuple(e.deal for e in kept), tuple(e.distribution for e in kept), tuple(e.plays for e in kept)
    )


def _pool_from_table(table: Any, what: str) -> Any:
    from paiju.tournament.distributions import ScoreDistribution
    from paiju.tournament.selection import DealPool

    rows = table.to_pylist()
    if not rows:
        raise ConfigError(f"{what}: no deal has enough plays to estimate its score law")
    laws: dict[str, dict[int, float]] = {}
    plays: dict[str, int] = {}
    for r in rows:
        laws.setdefault(r["deal"], {})[int(r["score"])] = float(r["probability"])
        plays[r["deal"]] = int(r["plays"])
    return DealPool.from_distributions({d: ScoreDistribution.from_mapping(p) for d, p in laws.items()}, plays)


def select_deals(pool: Any, players: int, rounds: int, top: int, joint: bool, beam: int) -> dict[str, Any]:
    """The paper's selection (top M by own DIH) and, with ``joint``, ours; with the pool's DIH spread."""
    from paiju.tournament.selection import rank_by_dih, select_joint, select_paper

    own = rank_by_dih(pool, players, rounds, top)
    paper = select_paper(pool, players, rounds, top, own=own)
    out: dict[str, Any] = {"pool_size": len(pool), "paper": paper.as_dict()}
    if joint:
        out["joint"] = select_joint(pool, players, rounds, top, beam_width=beam, own=own).as_dict()
    values = sorted(float(v) for v in own)
    out["pool_dih"] = {
        "min": values[0],
        "median": values[len(values) // 2],
        "max": values[-1],
        "histogram": _histogram(values, 20),
    }
    return out


def _histogram(values: Sequence[float], bins: int) -> dict[str, list[float]]:
    import numpy as np

    counts, edges = np.histogram(np.asarray(values), bins=bins)
    return {"counts": counts.tolist(), "edges": edges.tolist()}


# ---- reports ------------------------------------------------------------------------------------
SECTIONS = {
    # a file's section is the first whose patterns match its lower-case relative path
    "models": (r"^models/", r"(^|/)model-", r"learned"),
    "validation": (r"validation",),
    "balance": (r"yuxi", r"balance", r"first_player", r"deck_matrix"),
    "ladder": (r"ddz-agents", r"ladder", r"(^|[/_-])elo\b"),
}
"""The analyses the Reports page shows; every other report file is an engineering benchmark."""
OTHER = "engineering"


def checkout_reports(package: Path = PACKAGE) -> Path | None:
    """The ``docs/results`` folder of the source checkout whose ``src/`` holds ``package``
    (``make run``, an editable install), or None for an installed package, which carries no
    docs (the Reports page then shows its ``--reports`` folders and ``<data>/reports``)."""
    src = package.parent
    results = src.parent / "docs" / "results"
    return results if src.name == "src" and results.is_dir() else None


def default_report_dirs(data: Path) -> list[Path]:
    """The Reports page's folders when none are named: the checkout's results (if paiju runs
    from one) and the data folder's ``reports``."""
    checkout = checkout_reports()
    return [*([checkout] if checkout else []), data / "reports"]


def report_section(rel: str) -> str:
    """The Reports page section of a report file, from its path relative to its folder."""
    low = rel.lower()
    for section, patterns in SECTIONS.items():
        if any(re.search(p, low) for p in patterns):
            return section
    return OTHER


def _title(path: Path, text: str | None) -> str:
    """A Markdown file's first heading; otherwise its name in words."""
    for line in (text or "").splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip().replace("`", "")
    return path.stem.replace("_", " ").replace("-", " ")


def render_markdown(text: str) -> str:
    """Markdown to HTML (CommonMark + tables; raw HTML in the source is escaped, not rendered)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def list_reports(roots: Sequence[Path]) -> dict[str, Any]:
    """Report files by section (:func:`report_section`); each root is searched recursively
    for Markdown and images."""
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in (*SECTIONS, OTHER)}
    for index, root in enumerate(roots):
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            suffix = path.suffix.lower()
            item: dict[str, Any] = {"root": index, "path": rel, "name": path.name, "dir": str(root)}
            if suffix == ".md":
                text = path.read_text(encoding="utf-8", errors="replace")
                item["type"] = "markdown"
                item["title"] = _title(path, text)
                item["html"] = render_markdown(text)
            elif suffix in IMAGE_TYPES:
                item["type"] = "image"
                item["title"] = _title(path, None)
                item["url"] = "/api/reports/file?" + urlencode({"root": index, "path": rel})
            else:
                continue
            found[report_section(rel)].append(item)
    return {"roots": [str(r) for r in roots], "present": [r.is_dir() for r in roots], **found}


def report_file(roots: Sequence[Path], root: int, rel: str) -> tuple[Path, str]:
    """A report image by root index and relative path; refuses anything outside the root."""
    if not 0 <= root < len(roots):
        raise NotFoundError(f"no report folder {root}")
    missing = NotFoundError(f"no report image {rel!r}")
    if "\x00" in rel:  # the OS refuses such a name (ValueError), so it names no file
        raise missing
    try:
        base = roots[root].resolve()
        path = (base / rel).resolve()
        found = path.is_relative_to(base) and path.suffix.lower() in IMAGE_TYPES and path.is_file()
    except OSError:  # e.g. a name longer than the file system allows
        raise missing from None
    if not found:
        raise missing
    return path, IMAGE_TYPES[path.suffix.lower()]


# ---- records ------------------------------------------------------------------------------------
def record_files_under(root: Path) -> tuple[list[Path], list[dict[str, str]]]:
    """Readable record files under ``root`` (recursively) and the unreadable ones with the reason."""
    from paiju.core.records import validate_file

    good: list[Path] = []
    bad: list[dict[str, str]] = []
    if not root.is_dir():
        return good, bad
    for path in sorted(root.rglob("*.parquet")):
        if path.name.startswith(".tmp-"):
            continue
        try:
            validate_file(path)
        except CorruptRecordError as err:
            bad.append({"file": str(path), "error": str(err)})
            continue
        good.append(path)
    return good, bad


def list_records(root: Path, game: str | None, limit: int, offset: int) -> dict[str, Any]:
    """One page of recorded games (newest runs first), with the totals per game."""
    from paiju.core.records import connect

    files, bad = record_files_under(root)
    out: dict[str, Any] = {"root": str(root), "unreadable": bad, "games": [], "total": 0, "by_game": {}}
    if not files:
        return out
    con = connect(files)
    where = "WHERE game = $game" if game else ""
    params: dict[str, Any] = {"game": game} if game else {}
    out["total"] = con.sql(f"SELECT count(*) FROM games {where}", params=params).fetchall()[0][0]
    out["by_game"] = dict(con.sql("SELECT game, count(*) FROM games GROUP BY game ORDER BY game").fetchall())
    rows = (
        con.sql(
            f"""SELECT run_id, game_index, game, arena_format, agents, roles, returns, score, scoring_rule,
                   len(moves) AS n_moves, seed
            FROM games {where} ORDER BY run_id, game_index DESC LIMIT {int(limit)} OFFSET {int(offset)}""",
            params=params,
        )
        .to_arrow_table()
        .to_pylist()
    )
    out["games"] = rows
    return out


def record_detail(root: Path, run_id: str, game_index: int) -> dict[str, Any]:
    """One recorded game with its moves; Dou Dizhu games also get every seat's hand after each move."""
    from paiju.core.records import connect

    files, _ = record_files_under(root)
    if not files:
        raise NotFoundError(f"no recorded game {game_index} in run {run_id}: no game records under {root}")
    con = connect(files)
    rows = (
        con.sql(
            "SELECT * FROM games WHERE run_id = $run AND game_index = $idx LIMIT 1",
            params={"run": run_id, "idx": game_index},
        )
        .to_arrow_table()
        .to_pylist()
    )
    if not rows:
        raise NotFoundError(f"no recorded game {game_index} in run {run_id}")
    row = rows[0]
    moves = [
        {"player": player, "text": text}
        for player, text in zip(row["move_players"] or [], row["moves"] or [], strict=False)
    ]
    detail: dict[str, Any] = {
        k: row[k]
        for k in (
            "run_id",
            "game_index",
            "game",
            "arena_format",
            "seed",
            "deal",
            "dealer_seat",
            "agents",
            "roles",
            "returns",
            "score",
            "scoring_rule",
            "rules_version",
        )
    }
    detail["moves"] = moves
    detail["frames"] = None
    extra = _json_or_none(row.get("extra"))
    if row["game"] == "doudizhu" and extra and "record" in extra:
        frames = _doudizhu_frames(extra["record"])
        # frame k >= 1 shows the k-th play; point it at that play in the move list (which also
        # holds the deal and any bids)
        plays = [i for i, m in enumerate(moves) if m["player"] >= 0 and not _is_bid(m["text"])]
        for k, frame in enumerate(frames):
            frame["move_index"] = plays[k - 1] if 0 < k <= len(plays) else None
        detail["frames"] = frames
    return detail


def _is_bid(text: str) -> bool:
    return text == "no bid" or text.startswith("bid ")


def _json_or_none(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _doudizhu_frames(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Every seat's cards before the first play and after each play (the replay checks legality)."""
    from paiju.doudizhu.game import GameRecord

    rec = GameRecord.from_dict(record)
    game_record = GameRecord(rec.deal, (), rec.landlord, rec.bids, rec.config)
    state = game_record.replay()
    frames: list[dict[str, Any]] = [{"hands": [str(h) for h in state.hands], "move": None, "seat": None}]
    for seat, move in rec.plays:
        state.apply(move)
        frames.append(
            {
                "hands": [str(h) for h in state.hands],
                "move": str(move),
                "seat": seat,
                "label": move.describe(),
            }
        )
    return frames
