"""The designer's balance report: who wins, with which deck, thanks to which cards.

The talk's balance finding was that the first player is favoured on 3×3 but not on 6×4,
so the first-player die bonus could be dropped. :func:`run_balance` measures exactly that,
and more, from self-play (greedy agents by default; any registry spec works):

* **first-player win rate** per board, with and without the die bonus (the same seeds and
  decks in both settings, so the comparison is paired), with 95% Wilson intervals; a draw
  counts half;
* **deck win matrix**: the share of points (win 1, draw 0.5) of the row deck against the
  column deck over every board and setting, seats pooled; and each deck's overall rate;
* **per-card play rate and win contribution**: among player-games whose deck holds the
  card (for a void card: a card that creates it), the share in which the card was played,
  and the player's win rate when it was played minus the win rate when it was not, with a
  95% interval (Newcombe's score interval for a difference of two proportions). A large positive
  contribution marks a card that wins games when it lands (a candidate for a nerf, or a
  card that mostly lands in already-winning positions: read it with the play rate).

The report renders as Markdown tables (:meth:`BalanceReport.markdown`) and PNG plots
(:func:`save_plots`, matplotlib with the Agg backend).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paiju.core.protocol import play_game
from paiju.core.rng import as_generator, derive_seed
from paiju.core.runner import Backend, Progress, TaskJournal, run_journalled
from paiju.core.stats import Estimate, mean_ci, pair_correlation, proportion_ci
from paiju.yuxi.actions import KIND_PLAY
from paiju.yuxi.board import BOARDS
from paiju.yuxi.cards import CardTable
from paiju.yuxi.game import RULES_VERSION, YuxiConfig, YuxiGame


@dataclass(frozen=True)
class GameRecord:
    """One balance game: room, decks, result and the cards each seat played."""

    board: str
    die_bonus: bool
    decks: tuple[str, str]
    scores: tuple[int, int]
    result: float
    """Seat 0's share: 1 win, 0.5 draw, 0 loss."""
    played: tuple[tuple[int, ...], tuple[int, ...]]
    """Distinct card ids each seat played."""
    swapped: bool = False
    """A luck replay: the game of the same index and seed with the agents' seats swapped."""


BONUS_OPTIONS: dict[str, tuple[int, ...]] = {
    "none": (0,),
    "+1": (1,),
    "+2": (2,),
    "d3": (1, 2, 3),
    "d6": (1, 2, 3, 4, 5, 6),
}
"""End bonuses for seat 0 the what-if table compares (a die averages over its faces)."""

REMEDIES: dict[str, tuple[tuple[int, ...], float]] = {
    **{name: (faces, 0.5) for name, faces in BONUS_OPTIONS.items()},
    "ties→1st": ((0,), 1.0),
    "ties→2nd": ((0,), 0.0),
}
"""First-player remedies the what-if table compares: an end bonus for seat 0 (its faces), and
what an equal final score gives seat 0 (0.5: a draw; the tie-break rules give it to one seat)."""


def bonus_share(margin: int, faces: Sequence[int], tie: float = 0.5) -> float:
    """Seat 0's expected result (1 win, ``tie`` for equal scores, 0 loss) with raw margin
    ``margin`` and a bonus drawn uniformly from ``faces``."""
    total = 0.0
    for f in faces:
        m = margin + f
        total += 1.0 if m > 0 else tie if m == 0 else 0.0
    return total / len(faces)


@dataclass(frozen=True)
class CardStat:
    key: str
    in_deck: int
    """Player-games whose deck holds the card (for void cards: a card creating it)."""
    play_rate: Estimate
    win_when_played: Estimate
    win_when_not: Estimate
    contribution: Estimate
    """win_when_played - win_when_not, with a 95% interval."""


@dataclass(frozen=True)
class LuckStat:
    """A board and die setting's games against their seat-swapped replays (the same index,
    seed and opening deal, the agents' seats swapped)."""

    same_seat: Estimate
    """Share of the pairs in which the same seat won both games: the deal, not who played
    it, decided."""
    same_agent: Estimate
    """Share of the pairs in which the same agent won both games (in self-play: the play's
    own randomness turned the result)."""
    share: Estimate
    """Luck's share of the variance of seat 0's result: the intraclass correlation of the two
    replays (1: the deal decides everything; 0: a replay agrees no more than another deal)."""


@dataclass
class BalanceReport:
    games_per_setting: int
    agents: tuple[str, str]
    seed: int
    first_player: dict[tuple[str, bool], Estimate]
    mean_margin: dict[tuple[str, bool], float]
    deck_matrix: dict[str, dict[str, Estimate]]
    deck_overall: dict[str, Estimate]
    cards: list[CardStat]
    bonus_what_if: dict[tuple[str, str], Estimate] = field(default_factory=dict)
    """(board, remedy) -> first-player win rate had the die-off games been scored with that
    remedy (see :data:`REMEDIES`); exact for agents that ignore the end scoring (greedy)."""
    records: list[GameRecord] = field(repr=False, default_factory=list)
    table_hash: str = ""
    """:func:`paiju.yuxi.cards.table_fingerprint` of the card table the games used."""
    luck: dict[tuple[str, bool], LuckStat] = field(default_factory=dict)
    """(board, die) -> the games against their seat-swapped replays (runs with ``luck``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "table_hash": self.table_hash,
            "games_per_setting": self.games_per_setting,
            "agents": list(self.agents),
            "seed": self.seed,
            "first_player": [
                {"board": b, "die_bonus": d, **e.as_dict(), "mean_margin": self.mean_margin[(b, d)]}
                for (b, d), e in self.first_player.items()
            ],
            "bonus_what_if": [
                {"board": b, "bonus": o, **e.as_dict()} for (b, o), e in self.bonus_what_if.items()
            ],
            "luck": [
                {"board": b, "die_bonus": d, "same_seat": x.same_seat.as_dict(),
                 "same_agent": x.same_agent.as_dict(), "share": x.share.as_dict()}
                for (b, d), x in self.luck.items()
            ],
            "deck_overall": {k: e.as_dict() for k, e in self.deck_overall.items()},
            "deck_matrix": {
                a: {b: e.as_dict() for b, e in row.items()} for a, row in self.deck_matrix.items()
            },
            "cards": [
                {
                    "card": c.key,
                    "in_deck": c.in_deck,
                    "play_rate": c.play_rate.as_dict(),
                    "win_when_played": c.win_when_played.as_dict(),
                    "win_when_not": c.win_when_not.as_dict(),
                    "contribution": c.contribution.as_dict(),
                }
                for c in self.cards
            ],
        }

    def markdown(self) -> str:
        """The report as Markdown tables."""
        out = [
            f"Balance self-play: {self.agents[0]} (seat 0, first) vs {self.agents[1]}, "
            f"{self.games_per_setting} games per board and die setting, seed {self.seed}"
            + (f", card table {self.table_hash}." if self.table_hash else "."),
            "",
            "| board | die bonus | first-player win rate | 95% interval | mean margin (seat 0) | games |",
            "|---|---|---|---|---|---|",
        ]
        for (b, d), e in self.first_player.items():
            out.append(
                f"| {b} | {'on' if d else 'off'} | {e.value:.3f} | [{e.low:.3f}, {e.high:.3f}] | "
                f"{self.mean_margin[(b, d)]:+.2f} | {e.n} |"
            )
        if self.luck:
            out += [
                "",
                "Luck (each game against its seat-swapped replay on the same deal): the share of "
                "pairs the same seat won twice, the same agent won twice, and luck's share of the "
                "variance of the result (intraclass correlation, 95% bootstrap interval over deals)",
                "",
                "| board | die bonus | same seat won both | same agent won both | luck share | pairs |",
                "|---|---|---|---|---|---|",
            ]
            for (b, d), x in self.luck.items():
                out.append(
                    f"| {b} | {'on' if d else 'off'} | {_fmt(x.same_seat)} | {_fmt(x.same_agent)} | "
                    f"{x.share.value:.2f} [{x.share.low:.2f}, {x.share.high:.2f}] | {x.share.n} |"
                )
        if self.bonus_what_if:
            boards = list(dict.fromkeys(b for b, _ in self.bonus_what_if))
            out += [
                "",
                "What if (re-scored die-off games): first-player win rate with each remedy "
                "(an end bonus for seat 0, or a tie-break rule)",
                "",
                "| board | " + " | ".join(REMEDIES) + " |",
                "|---" * (len(REMEDIES) + 1) + "|",
            ]
            for b in boards:
                row = [self.bonus_what_if[(b, o)] for o in REMEDIES]
                out.append(
                    f"| {b} | " + " | ".join(f"{e.value:.3f} [{e.low:.2f}, {e.high:.2f}]" for e in row) + " |"
                )
        decks = list(self.deck_overall)
        out += ["", "| deck | win rate | 95% interval | games |", "|---|---|---|---|"]
        for k in sorted(decks, key=lambda k: -self.deck_overall[k].value):
            e = self.deck_overall[k]
            out.append(f"| {k} | {e.value:.3f} | [{e.low:.3f}, {e.high:.3f}] | {e.n} |")
        out += [
            "",
            "Deck matrix (row deck's win share against the column deck; games in brackets):",
            "",
            "| vs | " + " | ".join(decks) + " |",
            "|---" * (len(decks) + 1) + "|",
        ]
        for a in decks:
            cells = []
            for b in decks:
                pair = self.deck_matrix[a].get(b)
                cells.append("-" if pair is None or pair.n == 0 else f"{pair.value:.2f} ({pair.n})")
            out.append(f"| {a} | " + " | ".join(cells) + " |")
        out += [
            "",
            "Cards, ranked by the lower end of their contribution's 95% interval:",
            "",
            "| card | in deck (player-games) | play rate | win when played | win when not | "
            "contribution [95%] |",
            "|---|---|---|---|---|---|",
        ]
        # ranked by the lower end of the interval, not the point estimate: a rarely played
        # card with a large but uncertain contribution does not top the list
        def lower_end(c: CardStat) -> float:
            low = c.contribution.low
            return low if c.contribution.n and not math.isnan(low) else -9.0

        ranked = sorted(self.cards, key=lambda c: -lower_end(c))
        for c in ranked:
            contrib = (
                f"{c.contribution.value:+.3f} [{c.contribution.low:+.3f}, {c.contribution.high:+.3f}]"
                if c.contribution.n and not math.isnan(c.contribution.value)
                else "-"
            )
            out.append(
                f"| {c.key} | {c.in_deck} | {_fmt(c.play_rate)} | {_fmt(c.win_when_played)} | "
                f"{_fmt(c.win_when_not)} | {contrib} |"
            )
        return "\n".join(out) + "\n"


def _fmt(e: Estimate) -> str:
    return "-" if e.n == 0 or math.isnan(e.value) else f"{e.value:.3f}"


def _difference(a: Estimate, b: Estimate) -> Estimate:
    """Difference of two proportions with Newcombe's hybrid score 95% interval (built from
    the two Wilson intervals, so it stays sane at 0%, 100% and small counts, where the plain
    normal approximation collapses to zero width)."""
    if a.n == 0 or b.n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    d = a.value - b.value
    low = d - math.sqrt((a.value - a.low) ** 2 + (b.high - b.value) ** 2)
    high = d + math.sqrt((a.high - a.value) ** 2 + (b.value - b.low) ** 2)
    return Estimate(d, max(-1.0, low), min(1.0, high), a.n + b.n)


def play_balance_game(
    game: YuxiGame, agent_specs: tuple[str, str], seed: int, swapped: bool = False
) -> GameRecord:
    """One self-play game for the report (agents seeded from ``seed``); ``swapped``: the same
    game with ``agent_specs[1]`` in seat 0 and ``agent_specs[0]`` in seat 1, each agent keeping
    its seed (the same opening deal; only who plays which side changes)."""
    from paiju.yuxi.agents import REGISTRY

    order = (1, 0) if swapped else (0, 1)
    agents = [REGISTRY.make(agent_specs[k], derive_seed(seed, 100 + k)) for k in order]
    history = play_game(game, agents, seed).actions
    played: tuple[set[int], set[int]] = (set(), set())
    # replay to attribute each play to its seat (the history holds actions only); the replay
    # ends in the game's final state
    replay = game.new_initial_state()
    for action in history:
        player = replay.current_player()
        if player >= 0:
            kind, cid, _ = game.actions.decode(int(action))
            if kind == KIND_PLAY:
                played[player].add(cid)
        replay.apply(action)
    a, b = replay.final_scores()
    result = 1.0 if a > b else 0.0 if a < b else 0.5
    return GameRecord(
        game.config.board,
        game.config.die_bonus,
        game.config.decks,
        (a, b),
        result,
        (tuple(sorted(played[0])), tuple(sorted(played[1]))),
        swapped,
    )


BalanceJob = tuple[YuxiConfig, tuple[str, str], int, bool]
"""One game of a run: room, agents (seat 0, seat 1), seed, swapped (a luck replay)."""


def _balance_task(jobs: tuple[BalanceJob, ...]) -> list[GameRecord]:
    """The runner's task: a few balance games (top-level, so worker processes can run it)."""
    records = []
    for config, agents, game_seed, swapped in jobs:
        game = _GAMES.get(config)
        if game is None:
            game = _GAMES[config] = YuxiGame(config)
        records.append(play_balance_game(game, agents, game_seed, swapped))
    return records


_GAMES: dict[YuxiConfig, YuxiGame] = {}
TASK_GAMES = 8
"""Games per runner task (the unit of parallel work and of resume)."""


def balance_jobs(
    games: int, seed: int, agents: tuple[str, str], boards: Sequence[str], deck_names: Sequence[str],
    cards_file: str | None = None, decks_file: str | None = None, luck: bool = False,
) -> list[BalanceJob]:
    """Every game of a balance run: room, agents and seed (decks and seed shared by the two
    die settings of the same game index, so the die comparison is paired); with ``luck``,
    each game is followed by its seat-swapped replay."""
    jobs: list[BalanceJob] = []
    for board in boards:
        for i in range(games):
            rng = as_generator(derive_seed(seed, i, 7))
            d0, d1 = (deck_names[int(k)] for k in rng.integers(len(deck_names), size=2))
            for die in (True, False):
                config = YuxiConfig(board=board, decks=(d0, d1), die_bonus=die,
                                    cards_file=cards_file, decks_file=decks_file)
                for swapped in (False, True) if luck else (False,):
                    jobs.append((config, agents, derive_seed(seed, i), swapped))
    return jobs


def _record_to_json(records: list[GameRecord]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(r) for r in records]


def _record_from_json(items: list[dict[str, Any]]) -> list[GameRecord]:
    return [
        GameRecord(
            r["board"], bool(r["die_bonus"]), (r["decks"][0], r["decks"][1]),
            (int(r["scores"][0]), int(r["scores"][1])), float(r["result"]),
            (tuple(r["played"][0]), tuple(r["played"][1])), bool(r.get("swapped", False)),
        )
        for r in items
    ]


def run_balance(
    games: int,
    seed: int = 0,
    *,
    agents: tuple[str, str] = ("greedy", "greedy"),
    boards: Sequence[str] = tuple(BOARDS),
    decks: Sequence[str] | None = None,
    workers: int = 1,
    progress: Progress = False,
    journal: str | Path | None = None,
    backend: Backend | None = None,
    cards_file: str | Path | None = None,
    decks_file: str | Path | None = None,
    luck: bool = False,
) -> BalanceReport:
    """``games`` games per (board, die setting); decks drawn at random per game (the same
    draws and seeds for both die settings); with ``luck`` every game is replayed with the
    seats swapped (twice the games), for the luck table; the other figures use the first
    games only, so they do not change. The games are played by the project's runner
    (``workers`` local processes, or ``backend``); every game is seeded by its index, so the
    report does not depend on either. With ``journal`` (a JSONL file) every finished batch
    of games is appended there, and rerunning with the same arguments resumes. ``cards_file``
    / ``decks_file``: a designer's card and deck tables instead of the shipped ones; the
    report and the journal carry the table's hash."""
    from paiju.yuxi.cards import table_fingerprint

    cfile = None if cards_file is None else str(cards_file)
    dfile = None if decks_file is None else str(decks_file)
    table = YuxiConfig(cards_file=cfile, decks_file=dfile).table()
    table_hash = table_fingerprint(table)
    deck_names = list(decks) if decks else list(table.decks)
    for name in deck_names:
        table.deck(name)  # an unknown deck is refused before any game starts
    from paiju.yuxi.agents import check_specs

    check_specs(agents, boards, cfile, dfile)
    jobs = balance_jobs(games, seed, agents, boards, deck_names, cfile, dfile, luck)
    tasks = [tuple(jobs[i : i + TASK_GAMES]) for i in range(0, len(jobs), TASK_GAMES)]
    config = {"kind": "yuxi-balance", "games": games, "seed": seed, "agents": list(agents),
              "boards": list(boards), "decks": deck_names, "rules_version": RULES_VERSION,
              "table_hash": table_hash}
    if luck:  # absent otherwise, so journals written before the option still resume
        config["luck"] = True
    store = None if journal is None else TaskJournal(journal, config, _record_to_json, _record_from_json)
    results = run_journalled(
        _balance_task, tasks, store, backend=backend or Backend(workers=workers), progress=progress,
        size=len, label="yuxi balance",
    )
    records = [r for batch in results for r in batch]
    report = summarize(records, games, agents, seed, deck_names, table)
    report.table_hash = table_hash
    return report


def summarize(
    records: Sequence[GameRecord], games: int, agents: tuple[str, str], seed: int, deck_names: Sequence[str],
    table: CardTable | None = None,
) -> BalanceReport:
    """Aggregate game records into the report's estimates (``table``: the card table they
    were played with, the shipped one by default)."""
    table = table if table is not None else YuxiConfig().table()
    luck = _luck(records)
    records = [r for r in records if not r.swapped]
    first: dict[tuple[str, bool], list[GameRecord]] = {}
    for r in records:
        first.setdefault((r.board, r.die_bonus), []).append(r)
    first_player = {k: proportion_ci(sum(r.result for r in rs), len(rs)) for k, rs in first.items()}
    margin = {k: sum(r.scores[0] - r.scores[1] for r in rs) / len(rs) for k, rs in first.items()}
    what_if: dict[tuple[str, str], Estimate] = {}
    for (board, die), rs in first.items():
        if not die:
            for option, (faces, tie) in REMEDIES.items():
                share = sum(bonus_share(r.scores[0] - r.scores[1], faces, tie) for r in rs)
                what_if[(board, option)] = proportion_ci(share, len(rs))
    pair_points: dict[tuple[str, str], list[float]] = {}
    deck_points: dict[str, list[float]] = {d: [] for d in deck_names}
    for r in records:
        for seat in (0, 1):
            share = r.result if seat == 0 else 1.0 - r.result
            me, them = r.decks[seat], r.decks[1 - seat]
            pair_points.setdefault((me, them), []).append(share)
            deck_points.setdefault(me, []).append(share)
    matrix = {
        a: {
            b: proportion_ci(sum(pair_points.get((a, b), [])), len(pair_points.get((a, b), [])))
            for b in deck_names
        }
        for a in deck_names
    }
    overall = {d: proportion_ci(sum(v), len(v)) for d, v in deck_points.items()}
    cards: list[CardStat] = []
    deck_has = {d: {table.card(k).id for k in table.deck(d).cards} for d in deck_names}
    creators = _void_creators(table)
    for card in table.cards[1:]:
        assert card is not None
        played_w: list[float] = []
        not_w: list[float] = []
        for r in records:
            for seat in (0, 1):
                held = deck_has[r.decks[seat]]
                if card.id not in held if not card.is_void else not (creators.get(card.id, set()) & held):
                    continue
                share = r.result if seat == 0 else 1.0 - r.result
                (played_w if card.id in r.played[seat] else not_w).append(share)
        n = len(played_w) + len(not_w)
        wp = proportion_ci(sum(played_w), len(played_w))
        wn = proportion_ci(sum(not_w), len(not_w))
        cards.append(CardStat(card.key, n, proportion_ci(len(played_w), n), wp, wn, _difference(wp, wn)))
    return BalanceReport(
        games, agents, seed, first_player, margin, matrix, overall, cards, what_if, list(records), luck=luck
    )


def _luck(records: Sequence[GameRecord]) -> dict[tuple[str, bool], LuckStat]:
    """Each swapped replay against the game just before it (balance_jobs keeps them adjacent)."""
    pairs: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    for prev, r in itertools.pairwise(records):
        if r.swapped:
            if prev.swapped or (prev.board, prev.die_bonus, prev.decks) != (r.board, r.die_bonus, r.decks):
                raise ValueError(f"a swapped replay on {r.board} without its game just before it")
            pairs.setdefault((r.board, r.die_bonus), []).append((prev.result, r.result))
    out = {}
    for (board, die), ps in pairs.items():
        n = len(ps)
        decided = [(a, b) for a, b in ps if a in (0.0, 1.0) and b in (0.0, 1.0)]
        out[(board, die)] = LuckStat(
            proportion_ci(sum(a == b for a, b in decided), n),
            proportion_ci(sum(a != b for a, b in decided), n),
            pair_correlation([a for a, _ in ps], [b for _, b in ps]),  # bootstrap seed 0: the data fix it
        )
    return out


def _void_creators(table: Any) -> dict[int, set[int]]:
    """Void card id -> ids of the deck cards whose effects create it."""
    out: dict[int, set[int]] = {}
    for card in table.cards[1:]:
        for ref in card.effects:
            key = ref.params.get("card")
            if isinstance(key, str):
                out.setdefault(table.card(key).id, set()).add(card.id)
    return out


def save_plots(report: BalanceReport, out_dir: str | Path) -> list[Path]:
    """Three PNGs: first-player win rates, the deck matrix, card contributions; returns paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []

    boards = sorted({b for b, _ in report.first_player}, key=lambda b: list(BOARDS).index(b))
    fig, ax = plt.subplots(figsize=(6, 4))
    width = 0.35
    for k, die in enumerate((True, False)):
        ests = [report.first_player.get((b, die)) for b in boards]
        xs = np.arange(len(boards)) + (k - 0.5) * width
        vals = [e.value if e else np.nan for e in ests]
        errs = [[e.value - e.low if e else 0 for e in ests], [e.high - e.value if e else 0 for e in ests]]
        ax.bar(xs, vals, width, yerr=errs, capsize=4, label=f"die bonus {'on' if die else 'off'}")
    ax.axhline(0.5, color="grey", lw=1, ls="--")
    ax.set_xticks(np.arange(len(boards)), boards)
    ax.set_ylim(0, 1)
    ax.set_ylabel("first-player win rate (95% CI)")
    ax.set_title(f"yuxi: first player, {report.agents[0]} vs {report.agents[1]}")
    ax.legend()
    fig.tight_layout()
    paths.append(out / "first_player.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    decks = list(report.deck_overall)
    grid = np.array(
        [
            [report.deck_matrix[a][b].value if report.deck_matrix[a][b].n else np.nan for b in decks]
            for a in decks
        ]
    )
    fig, ax = plt.subplots(figsize=(7, 6))
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(len(decks)), decks, rotation=45, ha="right")
    ax.set_yticks(range(len(decks)), decks)
    for i in range(len(decks)):
        for j in range(len(decks)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7)
    fig.colorbar(im, ax=ax, label="row deck's win share")
    ax.set_title("yuxi deck matrix")
    fig.tight_layout()
    paths.append(out / "deck_matrix.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    cards = [c for c in report.cards if c.contribution.n and not math.isnan(c.contribution.value)]
    cards.sort(key=lambda c: c.contribution.value)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, max(5, 0.22 * len(cards))), sharey=True)
    ys = np.arange(len(cards))
    ax1.errorbar(
        [c.contribution.value for c in cards],
        ys,
        xerr=[
            [c.contribution.value - c.contribution.low for c in cards],
            [c.contribution.high - c.contribution.value for c in cards],
        ],
        fmt="o",
        ms=3,
    )
    ax1.axvline(0, color="grey", lw=1)
    ax1.set_yticks(ys, [c.key for c in cards], fontsize=7)
    ax1.set_xlabel("win contribution (played - not played)")
    ax2.barh(ys, [c.play_rate.value for c in cards])
    ax2.set_xlabel("play rate")
    ax2.set_xlim(0, 1)
    fig.suptitle("yuxi cards")
    fig.tight_layout()
    paths.append(out / "cards.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths


# ---- comparing two card tables on the same seeds -----------------------------------------------
@dataclass
class BalanceComparison:
    """Two balance runs of the same games (boards, decks, die settings, seeds, agents) on two
    card tables: what a proposed change does, as paired differences (B − A) with 95% intervals.

    A game index is played once per table, from the same seed and by the same agents, so most
    of the game-to-game luck cancels in the differences. That is why a paired interval is
    narrower than the gap between the two runs' own intervals."""

    a: BalanceReport
    b: BalanceReport
    files: tuple[str, str]
    first_player: dict[tuple[str, bool], Estimate]
    """(board, die) -> B − A of the first player's result per game (1 win, 0.5 draw)."""
    decks: dict[str, Estimate]
    """deck -> B − A of that deck's result per player-game it was in."""
    changed_cards: list[str]
    """Card keys whose printed face or effects differ (or that one table lacks)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": list(self.files),
            "table_hashes": [self.a.table_hash, self.b.table_hash],
            "changed_cards": self.changed_cards,
            "first_player": [
                {"board": b, "die_bonus": d, "a": self.a.first_player[(b, d)].as_dict(),
                 "b": self.b.first_player[(b, d)].as_dict(), "difference": e.as_dict()}
                for (b, d), e in self.first_player.items()
            ],
            "decks": {
                k: {"a": self.a.deck_overall[k].as_dict(), "b": self.b.deck_overall[k].as_dict(),
                    "difference": e.as_dict()}
                for k, e in self.decks.items()
            },
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
        }

    def markdown(self) -> str:
        a, b = self.files
        out = [
            f"Balance comparison: A = {a} (table {self.a.table_hash}), B = {b} (table {self.b.table_hash}); "
            f"{self.a.agents[0]} vs {self.a.agents[1]}, {self.a.games_per_setting} games per board and die "
            f"setting, the same seeds (seed {self.a.seed}) on both tables.",
            "",
            "Changed cards: " + (", ".join(self.changed_cards) or "none"),
            "",
            "| board | die bonus | first-player win rate A | B | B − A [95% paired interval] |",
            "|---|---|---|---|---|",
        ]
        for (board, die), e in self.first_player.items():
            out.append(
                f"| {board} | {'on' if die else 'off'} | {self.a.first_player[(board, die)].value:.3f} | "
                f"{self.b.first_player[(board, die)].value:.3f} | {_signed(e)} |"
            )
        out += ["", "| deck | win rate A | B | B − A [95% paired interval] |", "|---|---|---|---|"]
        for k, e in sorted(self.decks.items(), key=lambda kv: -abs(kv[1].value) if kv[1].n else 0):
            out.append(
                f"| {k} | {_fmt(self.a.deck_overall[k])} | {_fmt(self.b.deck_overall[k])} | {_signed(e)} |"
            )
        return "\n".join(out) + "\n"


def _signed(e: Estimate) -> str:
    if e.n == 0 or math.isnan(e.value):
        return "-"
    return f"{e.value:+.3f} [{e.low:+.3f}, {e.high:+.3f}]"


def _card_faces(table: CardTable) -> dict[str, str]:
    import json

    faces = {}
    for c in table.cards[1:]:
        assert c is not None
        face = {k: v for k, v in c.summary().items() if k != "id"}  # ids shift when a card is added
        face["effects"] = [[e.trigger, e.effect, dict(e.params)] for e in c.effects]
        faces[c.key] = json.dumps(face, sort_keys=True, ensure_ascii=False)
    return faces


def compare_balance(
    games: int,
    seed: int = 0,
    *,
    cards_files: tuple[str | Path | None, str | Path | None],
    decks_files: tuple[str | Path | None, str | Path | None] = (None, None),
    agents: tuple[str, str] = ("greedy", "greedy"),
    boards: Sequence[str] = tuple(BOARDS),
    decks: Sequence[str] | None = None,
    workers: int = 1,
    progress: Progress = False,
    journal: str | Path | None = None,
    backend: Backend | None = None,
) -> BalanceComparison:
    """:func:`run_balance` on table A, then on table B, with the same games, and their paired
    differences. ``decks`` (default: the decks of table A) must exist in both tables. With
    ``journal`` each run keeps its own journal (``NAME.a.jsonl``, ``NAME.b.jsonl``), so an
    interrupted comparison resumes."""
    names: list[str] | None = list(decks) if decks else None
    reports = []
    for side, (cfile, dfile) in zip("ab", zip(cards_files, decks_files, strict=True), strict=True):
        if names is None:
            names = list(YuxiConfig(cards_file=_opt(cfile), decks_file=_opt(dfile)).table().decks)
        side_journal = None if journal is None else Path(journal).with_suffix(f".{side}.jsonl")
        reports.append(
            run_balance(
                games, seed, agents=agents, boards=boards, decks=names, workers=workers, progress=progress,
                journal=side_journal, backend=backend, cards_file=cfile, decks_file=dfile,
            )
        )
    ra, rb = reports
    first: dict[tuple[str, bool], list[float]] = {}
    per_deck: dict[str, list[float]] = {d: [] for d in names or ()}
    for x, y in zip(ra.records, rb.records, strict=True):
        # the same job in both runs (balance_jobs depends on neither table)
        assert (x.board, x.die_bonus, x.decks) == (y.board, y.die_bonus, y.decks)
        first.setdefault((x.board, x.die_bonus), []).append(y.result - x.result)
        for seat in (0, 1):
            sign = 1.0 if seat == 0 else -1.0
            per_deck[x.decks[seat]].append(sign * (y.result - x.result))
    faces_a, faces_b = (
        _card_faces(YuxiConfig(cards_file=_opt(c), decks_file=_opt(d)).table())
        for c, d in zip(cards_files, decks_files, strict=True)
    )
    changed = sorted(k for k in set(faces_a) | set(faces_b) if faces_a.get(k) != faces_b.get(k))
    return BalanceComparison(
        ra, rb,
        (str(cards_files[0] or "shipped cards"), str(cards_files[1] or "shipped cards")),
        {k: mean_ci(v) for k, v in first.items()},
        {k: mean_ci(v) for k, v in per_deck.items()},
        changed,
    )


def _opt(path: str | Path | None) -> str | None:
    return None if path is None else str(path)
