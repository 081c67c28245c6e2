"""The hand-splitting paper's Table 5: do players lead the groups a split predicts?

For each of N seeded random deals, each seat's initial hand is split four ways — the paper's
40-order split h (``heuristic``), the exact fewest-groups and fewest-plays splits, and the
tagger's split g — and the deal is played by an AI in all three seats (the paper: its XGBoost
AI; here ``xgb`` and, as a second column, ``search``). Each role's first 5 *leading* plays
(free to lead: the first play of the game, or the trick came back to the seat) are taken with
their kickers stripped into their own solo/pair groups, as the tagger's labels do; P(split) is
the share of those groups that are groups of that split of the seat's initial hand (the paper:
"存在于集合 h"). The paper found Pg > Ph.

Choices the paper leaves open (``docs/splitting.md``, "Table 5"): membership is of the set of
the split's groups (a group led twice counts twice if it is in the split); the tagger splits
each hand as the player's own winners would (its own source, when the model reads sources and
knows it) else as the model's default source; intervals are 95% bootstraps over deals, and the
tagger's margin over each baseline is paired by deal.

The games are recorded through :func:`paiju.doudizhu.selfplay.selfplay` under ``OUT/<player>``,
so an interrupted run resumes where it stopped and a rerun only recomputes the table.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from paiju.core.errors import ConfigError
from paiju.core.runner import Progress
from paiju.doudizhu.cards import NUM_RANKS, Hand, format_counts
from paiju.doudizhu.game import GameRecord
from paiju.doudizhu.moves import Move, MoveType
from paiju.doudizhu.split import Group, GroupType, Split, exact, heuristic

if TYPE_CHECKING:
    from paiju.doudizhu.tagger.model import HandTagger

SPLITTERS: Final = ("heuristic", "exact_groups", "exact_plays", "tagger")
"""The four splits compared, in table order: h (the paper's), the two exact ones, g."""
ROLES: Final = ("landlord", "farmer 1", "farmer 2")
SOLO_KICKERS: Final = frozenset({MoveType.TRIO_SOLO, MoveType.AIRPLANE_SOLO, MoveType.FOUR_TWO_SOLO})
PAIR_KICKERS: Final = frozenset({MoveType.TRIO_PAIR, MoveType.AIRPLANE_PAIR, MoveType.FOUR_TWO_PAIR})
MAX_DEALS: Final = 100_000


@dataclass(frozen=True)
class Table5Config:
    """One Table 5 run (the CLI's options)."""

    out: str
    deals: int = 1000
    seed: int = 0
    players: tuple[str, ...] = ("xgb", "search")
    leads: int = 5
    """Leading plays per role (the paper: 5)."""
    model: str | None = None
    """Tagger checkpoint (None: the shipped one)."""
    workers: int = 1
    bootstrap: int = 2000
    """Bootstrap resamples of the deals for every interval."""
    progress: bool = True


def play_groups(move: Move) -> list[Group]:
    """A played move as basic groups, kickers stripped into their own solos and pairs."""
    body = Group.parse(format_counts(move.body.counts))
    kickers = move.kickers.counts
    out = [body]
    for r in range(NUM_RANKS):
        if move.type in SOLO_KICKERS:
            out.extend(Group(GroupType.SOLO, r) for _ in range(kickers[r]))
        elif move.type in PAIR_KICKERS:
            out.extend(Group(GroupType.PAIR, r) for _ in range(kickers[r] // 2))
    return out


def leading_plays(plays: Iterable[tuple[int, Move]]) -> dict[int, list[Move]]:
    """Every seat's leading plays in order. A seat leads when no card has been played yet or
    the last card play was its own (both others passed: the trick came back to it)."""
    out: dict[int, list[Move]] = {0: [], 1: [], 2: []}
    last: int | None = None
    for seat, move in plays:
        if move.is_pass:
            continue
        if last is None or last == seat:
            out[seat].append(move)
        last = seat
    return out


def initial_hands(record: GameRecord) -> tuple[Hand, Hand, Hand]:
    """Each seat's cards when the card play began (the kitty in the landlord's)."""
    end = record.replay().hands
    out = []
    for seat in range(3):
        counts = list(end[seat].counts)
        for s, move in record.plays:
            if s == seat:
                counts = [a + b for a, b in zip(counts, move.counts, strict=True)]
        out.append(Hand.from_counts(counts))
    return out[0], out[1], out[2]


@dataclass(frozen=True)
class RoleLeads:
    """One seat of one deal: its role, its initial hand and its first leads' groups."""

    deal: int
    role: str
    hand: Hand
    groups: tuple[Group, ...]


def deal_leads(index: int, record: GameRecord, n_leads: int) -> list[RoleLeads]:
    hands = initial_hands(record)
    leads = leading_plays(record.plays)
    out = []
    for seat in range(3):
        role = ROLES[(seat - record.landlord) % 3]
        groups = tuple(g for m in leads[seat][:n_leads] for g in play_groups(m))
        out.append(RoleLeads(index, role, hands[seat], groups))
    return out


Splitter = Callable[[Sequence[Hand]], list[Split]]


def split_functions(model: HandTagger, source: str | None) -> dict[str, Splitter]:
    """The four splitters, each splitting a batch of hands (the tagger in one batch)."""
    from paiju.doudizhu.tagger.model import tag_hands

    tag_as = source if source in model.config.sources else None
    return {
        "heuristic": lambda hands: [heuristic(h) for h in hands],
        "exact_groups": lambda hands: [exact(h, "groups") for h in hands],
        "exact_plays": lambda hands: [exact(h, "plays") for h in hands],
        "tagger": lambda hands: [t.split for t in tag_hands(model, list(hands), tag_as)],
    }


def hits(entries: Sequence[RoleLeads], splits: Sequence[Split]) -> np.ndarray:
    """Per entry, how many of its led groups are groups of its split."""
    out = []
    for e, s in zip(entries, splits, strict=True):
        groups = set(s)
        out.append(sum(g in groups for g in e.groups))
    return np.array(out)


def _ratio_interval(num: np.ndarray, den: np.ndarray, deals: np.ndarray, rng: np.random.Generator,
                    n_boot: int) -> dict[str, float]:
    """Ratio sum(num)/sum(den) with a bootstrap 95% interval over deals (``num`` may be a
    difference of two hit counts: then the interval is paired by deal)."""
    ids, inverse = np.unique(deals, return_inverse=True)
    per_num = np.bincount(inverse, weights=num, minlength=len(ids))
    per_den = np.bincount(inverse, weights=den, minlength=len(ids))
    total = float(per_den.sum())
    value = float(per_num.sum() / total) if total else float("nan")
    if len(ids) < 2 or not total:
        return {"value": value, "low": float("nan"), "high": float("nan"), "groups": int(total)}
    pick = rng.integers(0, len(ids), size=(n_boot, len(ids)))
    boot = per_num[pick].sum(axis=1) / np.maximum(per_den[pick].sum(axis=1), 1)
    low, high = np.percentile(boot, [2.5, 97.5])
    return {"value": value, "low": float(low), "high": float(high), "groups": int(total)}


def table_for(entries: Sequence[RoleLeads], splits: dict[str, list[Split]], seed: int,
              n_boot: int) -> dict[str, Any]:
    """P(split) per role and overall, and the tagger's paired margin over each baseline."""
    out: dict[str, Any] = {}
    hit = {name: hits(entries, s) for name, s in splits.items()}
    den = np.array([len(e.groups) for e in entries], dtype=float)
    deals = np.array([e.deal for e in entries])
    for role in ("all", *ROLES):
        idx = np.array([role == "all" or e.role == role for e in entries])
        rng = np.random.default_rng(seed)
        row: dict[str, Any] = {
            name: _ratio_interval(hit[name][idx].astype(float), den[idx], deals[idx], rng, n_boot)
            for name in splits
        }
        if "tagger" in splits:
            row["tagger_minus"] = {
                name: _ratio_interval((hit["tagger"] - hit[name])[idx].astype(float), den[idx], deals[idx],
                                      rng, n_boot)
                for name in splits if name != "tagger"
            }
        out[role] = row
    return out


def player_dir(out: str | os.PathLike[str], player: str) -> Path:
    """``OUT/<player>`` with the spec's punctuation made path-safe."""
    return Path(out) / re.sub(r"[^A-Za-z0-9_.-]+", "-", player)


def run_table5(config: Table5Config) -> dict[str, Any]:
    """Play (or resume) every player's games and compute the table; writes ``table5.json``."""
    from paiju.core.records import read_records
    from paiju.doudizhu.selfplay import selfplay, validate_agents

    if not 1 <= config.deals <= MAX_DEALS:
        raise ConfigError(f"table5 deals must be 1..{MAX_DEALS}, got {config.deals}")
    if not 1 <= config.leads <= 20:
        raise ConfigError(f"table5 leads must be 1..20, got {config.leads}")
    if not config.players:
        raise ConfigError("table5 needs at least one player")
    for player in config.players:
        validate_agents([player])
    from paiju.doudizhu.tagger.model import load_model

    model = load_model(config.model)  # once for every player; a bad path fails before any game
    settings = {k: v for k, v in asdict(config).items() if k != "progress"}
    result: dict[str, Any] = {"config": settings, "players": {}}
    for player in config.players:
        folder = player_dir(config.out, player)
        progress: Progress = config.progress
        run = selfplay([player], config.deals, folder, workers=config.workers, seed=config.seed,
                       progress=progress)
        table = read_records(folder, columns=["run_id", "game_index", "extra"])
        rows = sorted((r for r in table.to_pylist() if r["run_id"] == run.run.run_id
                       and r["game_index"] < config.deals), key=lambda r: r["game_index"])
        records = [(r["game_index"], GameRecord.from_dict(json.loads(r["extra"])["record"])) for r in rows]
        entries = [e for i, record in records for e in deal_leads(i, record, config.leads)]
        fns = split_functions(model, player)
        splits = {name: fn([e.hand for e in entries]) for name, fn in fns.items()}
        result["players"][player] = {
            "games": len(rows), "run_id": run.run.run_id, "records": str(folder),
            "table": table_for(entries, splits, config.seed, config.bootstrap),
        }
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "table5.json").write_text(json.dumps(result, indent=2) + "\n")
    plot_table5(result, out / "table5.png")
    return result


def plot_table5(result: dict[str, Any], path: Path) -> None:
    """Bars of P(split) per role, one panel per player, with the intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    players = list(result["players"])
    fig, axes = plt.subplots(1, len(players), figsize=(5.5 * len(players), 3.8), squeeze=False)
    roles = ("all", *ROLES)
    width = 0.8 / len(SPLITTERS)
    for ax, player in zip(axes[0], players, strict=True):
        table = result["players"][player]["table"]
        for k, name in enumerate(SPLITTERS):
            vals = [table[r][name]["value"] for r in roles]
            err = [[v - table[r][name]["low"] for r, v in zip(roles, vals, strict=True)],
                   [table[r][name]["high"] - v for r, v in zip(roles, vals, strict=True)]]
            xs = [i + (k - (len(SPLITTERS) - 1) / 2) * width for i in range(len(roles))]
            ax.bar(xs, vals, width, yerr=err, capsize=2, label=name)
        ax.set_xticks(range(len(roles)), roles)
        ax.set(ylim=(0, 1), ylabel="share of led groups in the split",
               title=f"{player}: {result['players'][player]['games']} deals")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


__all__ = [
    "ROLES",
    "SPLITTERS",
    "RoleLeads",
    "Table5Config",
    "deal_leads",
    "initial_hands",
    "leading_plays",
    "play_groups",
    "player_dir",
    "plot_table5",
    "run_table5",
    "split_functions",
    "table_for",
]
