"""The paper's result tables, one command each: Table 4 (every algorithm against the
Expectimax) and Tables 5-7 (the combined algorithm's alpha x depth sweep).

Every row is one ``2v2-all`` match of the row's agent (A) against the baseline (B) on the
same walls (``walls`` x 6 seatings = hands), played through :func:`run_match` and recorded
under ``OUT/rows/<label>/``: an interrupted table run again with the same options resumes
every row where it stopped (finished hands are kept). The summary is paired by wall
(:func:`paired_by_wall`): A's win rate and mean points per seat-hand, the differences to the
baseline with 95% intervals, and A's decision times. Points follow the game's scoring
configuration: the default is the paper's (base 1,000, 500 per tai).

Outputs in ``OUT``: ``<name>.json`` (config and rows), ``<name>.md`` (the table) and
``<name>.png`` (the plot).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from paiju.core.errors import ConfigError
from paiju.core.runner import Progress
from paiju.mahjong.agents import REGISTRY
from paiju.mahjong.agents.match import SEATINGS_2V2_ALL, paired_by_wall, run_match
from paiju.mahjong.model_files import supervised_model_file
from paiju.mahjong.train_supervised import MODELS

SUPERVISED = MODELS
"""The supervised baselines, in the paper's order (the models of ``paiju mahjong train-supervised``)."""
TABLE4 = (*SUPERVISED, "dqn", "ddqn", "expectimax", "expectimax-dqn", "expectimax-ddqn")
"""The paper's Table 4 algorithms, in its order."""
TABLE4_NAMES = {
    "linear": "Linear", "svm": "SVM", "mlp": "MLP", "cnn": "CNN", "densenet": "DenseNet",
    "resnet": "ResNet", "dqn": "DQN", "ddqn": "Double DQN", "expectimax": "Expectimax",
    "expectimax-dqn": "Expectimax + DQN", "expectimax-ddqn": "Expectimax + Double DQN",
}
SCALED_WALLS = 40
"""Table 4's default: 40 walls = 240 hands per algorithm (about an hour on 2 cores; the
paired intervals are about +-0.06 in win rate and +-330 points; docs/mahjong-training.md §3)."""
FULL_WALLS = 500
"""The paper's configuration: 500 walls = 3,000 hands per algorithm."""
ALPHAS = (0.2, 0.4, 0.6, 0.8, 1.0)
DEPTHS = (1, 2)


@dataclass(frozen=True)
class Row:
    """One row of a table: a label (its folder name) and the agent spec it plays."""

    label: str
    spec: str
    name: str


@dataclass(frozen=True)
class TableConfig:
    """A table run: its rows against ``baseline`` on ``walls`` walls from ``seed``."""

    out: str
    rows: tuple[Row, ...]
    baseline: str = "expectimax-shanten"
    walls: int = SCALED_WALLS
    seed: int = 0
    workers: int = 1

    def __post_init__(self) -> None:
        if self.walls < 1:
            raise ConfigError(f"walls={self.walls} must be at least 1")
        if not self.rows:
            raise ConfigError("a table needs at least one row")
        labels = [r.label for r in self.rows]
        if len(set(labels)) != len(labels):
            raise ConfigError(f"table rows repeat a label: {labels}")


def model_path(models: Path, algorithm: str) -> Path:
    """Where Table 4 looks for an algorithm's model in ``models``: ``mj-sup-M.pt`` for a
    supervised model (``paiju mahjong train-supervised``), ``mj-dqn.pt`` / ``mj-ddqn.pt`` for
    the Q-networks (``paiju mahjong train-dqn``) that the combined agents share."""
    if algorithm in SUPERVISED:
        return supervised_model_file(models, algorithm)
    return models / f"mj-{algorithm.removeprefix('expectimax-')}.pt"


def table4_rows(
    models: Path, only: Sequence[str] = TABLE4, baseline: str = "expectimax-shanten"
) -> tuple[Row, ...]:
    """Table 4's rows for the algorithms ``only`` with the model files of ``models``.

    Raises:
        ConfigError: an unknown algorithm, or model files missing (all of them named).
    """
    unknown = [a for a in only if a not in TABLE4]
    if unknown:
        raise ConfigError(f"table4: unknown algorithm {unknown[0]!r}; choose from {', '.join(TABLE4)}")
    missing = [str(model_path(models, a)) for a in only
               if a != "expectimax" and not model_path(models, a).is_file()]
    if missing:
        raise ConfigError(f"table4: model file(s) missing: {', '.join(dict.fromkeys(missing))}")
    rows = []
    for a in only:
        if a == "expectimax":  # the baseline against itself: the table's sanity row
            spec = baseline
            name = TABLE4_NAMES[a] if baseline.startswith("expectimax") else f"the baseline ({baseline})"
            rows.append(Row(a, spec, name))
            continue
        elif a in SUPERVISED:
            spec = f"supervised:model={model_path(models, a)}"
        else:
            spec = f"{a}:model={model_path(models, a)}"
        rows.append(Row(a, spec, TABLE4_NAMES[a]))
    return tuple(rows)


def sweep_rows(model: Path, alphas: Sequence[float] = ALPHAS, depths: Sequence[int] = DEPTHS,
               network: str = "ddqn") -> tuple[Row, ...]:
    """Tables 5-7's rows: the combined agent ``expectimax-NETWORK`` of ``model`` at every
    alpha x depth."""
    if not model.is_file():
        raise ConfigError(f"alpha-sweep: model file {str(model)!r} not found")
    if network not in ("dqn", "ddqn"):
        raise ConfigError(f"alpha-sweep: network={network!r} must be dqn or ddqn")
    bad = [a for a in alphas if not 0 < a <= 1]
    if bad:
        raise ConfigError(f"alpha-sweep: alpha={bad[0]} must be in (0, 1]")
    bad_depths = [d for d in depths if d not in (1, 2, 3)]
    if bad_depths:
        raise ConfigError(f"alpha-sweep: depth={bad_depths[0]} must be 1, 2 or 3")
    return tuple(
        Row(f"alpha-{a:g}-depth-{d}", f"expectimax-{network}:model={model},alpha={a:g},depth={d}",
            f"α = {a:g}, depth {d}")
        for d in depths for a in alphas
    )


def run_table(cfg: TableConfig, name: str, progress: Progress = False) -> list[dict[str, Any]]:
    """Play every row (resuming recorded ones) and write ``OUT/<name>.{json,md,png}``.

    Every row's agent and the baseline are built once first, so a bad spec or an unreadable
    model is refused before any hand is played."""
    for spec in (cfg.baseline, *(r.spec for r in cfg.rows)):
        REGISTRY.make(spec, seed=0)
    out = Path(cfg.out)
    results: list[dict[str, Any]] = []
    for row in cfg.rows:
        report = run_match(
            [row.spec, cfg.baseline], SEATINGS_2V2_ALL * cfg.walls, cfg.seed, fmt="2v2-all",
            workers=cfg.workers, out_dir=out / "rows" / row.label, progress=progress,
        )
        results.append({"row": asdict(row), **paired_by_wall(report.rows).as_dict()})
        _write(cfg, name, results)
    return results


def _write(cfg: TableConfig, name: str, results: list[dict[str, Any]]) -> None:
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    config = {"baseline": cfg.baseline, "walls": cfg.walls, "hands_per_row": SEATINGS_2V2_ALL * cfg.walls,
              "seed": cfg.seed, "rows": [asdict(r) for r in cfg.rows]}
    (out / f"{name}.json").write_text(json.dumps({"config": config, "results": results}, indent=2) + "\n")
    (out / f"{name}.md").write_text(markdown(cfg, results))
    plot(results, out / f"{name}.png", f"{name}: each row against {cfg.baseline}, 2v2-all, "
         f"{SEATINGS_2V2_ALL * cfg.walls} hands")


def format_estimate(e: dict[str, Any], digits: int = 3, sign: bool = False) -> str:
    """``value [low, high]`` of an :class:`~paiju.core.stats.Estimate` dict (``—`` with no
    data; an unbounded side, one wall, as ``−∞`` / ``∞``: null in JSON, infinite in older files)."""
    if not e["n"] or not _finite(e["value"]):
        return "—"
    fmt = f"{{:{'+' if sign else ''}.{digits}f}}"
    low = fmt.format(e["low"]) if _finite(e["low"]) else "−∞"
    high = fmt.format(e["high"]) if _finite(e["high"]) else "∞"
    return f"{fmt.format(e['value'])} [{low}, {high}]"


def _ms(d: dict[str, Any], key: str) -> str:
    return f"{d[key] / 1000:.3f}" if d.get("n") else "—"


def markdown(cfg: TableConfig, results: Sequence[dict[str, Any]]) -> str:
    """The table: one line per row, paired 95% intervals over walls."""
    lines = [
        f"Each row against `{cfg.baseline}` in the 2-vs-2 format over all 6 seatings, "
        f"{cfg.walls} walls = {SEATINGS_2V2_ALL * cfg.walls} hands (seed {cfg.seed}); "
        "per seat-hand, 95% intervals over walls; Δ = row minus baseline, paired by wall; "
        "decision times over the discard decisions of the row's seats.",
        "",
        "| algorithm | spec | walls | win rate | Δ win rate | mean score | Δ score "
        "| decision median s | p95 s |",
        "|---|---|---:|---|---|---|---|---:|---:|",
    ]
    for r in results:
        cells = [
            r["row"]["name"], f"`{r['row']['spec']}`", str(r["walls"]), format_estimate(r["win_rate_A"]),
            format_estimate(r["win_rate_A_minus_B"], sign=True), format_estimate(r["score_A"], digits=0),
            format_estimate(r["score_A_minus_B"], digits=0, sign=True), _ms(r["decision_A"], "median_ms"),
            _ms(r["decision_A"], "p95_ms"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _below(e: dict[str, Any]) -> float:
    """The error bar under an estimate (0 where the interval is unbounded: one wall)."""
    return max(0.0, e["value"] - e["low"]) if _finite(e["low"]) else 0.0


def _above(e: dict[str, Any]) -> float:
    return max(0.0, e["high"] - e["value"]) if _finite(e["high"]) else 0.0


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def _number(x: float | None) -> float:
    """A value to plot: NaN (not drawn) where there is none."""
    return math.nan if x is None else x


def plot(results: Sequence[dict[str, Any]], path: Path, title: str) -> None:
    """Two panels: Δ win rate and Δ score per row, with their 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["row"]["name"] for r in results]
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.45 * len(names) + 1.6), sharey=True)
    for ax, key, label in ((axes[0], "win_rate_A_minus_B", "Δ win rate per seat-hand"),
                           (axes[1], "score_A_minus_B", "Δ points per seat-hand")):
        values = [_number(r[key]["value"]) for r in results]
        errs = [[_below(r[key]) for r in results], [_above(r[key]) for r in results]]
        ax.errorbar(values, range(len(names)), xerr=errs, fmt="o", capsize=3)
        ax.axvline(0.0, color="grey", lw=0.8)
        ax.set_xlabel(label)
    axes[0].set_yticks(range(len(names)), names)
    axes[0].invert_yaxis()
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def sweep_plot(results: Sequence[dict[str, Any]], path: Path, title: str) -> None:
    """Tables 5-7 as curves over alpha, one per depth: decision time, win rate, score."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    by_depth: dict[int, list[tuple[float, dict[str, Any]]]] = {}
    for r in results:
        params = dict(p.split("=", 1) for p in r["row"]["spec"].split(":", 1)[1].split(",") if "=" in p)
        by_depth.setdefault(int(params["depth"]), []).append((float(params["alpha"]), r))
    for depth, points in sorted(by_depth.items()):
        points.sort(key=lambda p: p[0])
        xs = [a for a, _ in points]
        axes[0].plot(xs, [r["decision_A"].get("median_ms", math.nan) / 1000 for _, r in points], "o-",
                     label=f"depth {depth} median")
        axes[0].plot(xs, [r["decision_A"].get("p95_ms", math.nan) / 1000 for _, r in points], "x--",
                     label=f"depth {depth} p95")
        for ax, key in ((axes[1], "win_rate_A"), (axes[2], "score_A")):
            ys = [_number(r[key]["value"]) for _, r in points]
            lo = [_below(r[key]) for _, r in points]
            hi = [_above(r[key]) for _, r in points]
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", capsize=3, label=f"depth {depth}")
    axes[0].axhline(3.0, color="red", lw=0.8, ls=":", label="3 s budget")
    axes[0].set_ylabel("decision time (s)")
    axes[1].set_ylabel("win rate per seat-hand")
    axes[2].set_ylabel("points per seat-hand")
    for ax in axes:
        ax.set_xlabel("α")
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_sweep(cfg: TableConfig, progress: Progress = False) -> list[dict[str, Any]]:
    """Tables 5-7: :func:`run_table` under the name ``alpha-sweep``, plus the curves."""
    results = run_table(cfg, "alpha-sweep", progress)
    sweep_plot(results, Path(cfg.out) / "alpha-sweep-curves.png",
               f"expectimax + Q-network against {cfg.baseline}: "
               f"{SEATINGS_2V2_ALL * cfg.walls} hands per point")
    return results


__all__ = [
    "ALPHAS", "DEPTHS", "FULL_WALLS", "SCALED_WALLS", "TABLE4", "Row", "TableConfig", "format_estimate",
    "model_path", "run_sweep", "run_table", "sweep_rows", "table4_rows",
]
