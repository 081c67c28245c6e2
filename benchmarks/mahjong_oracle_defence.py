"""What the value Expectimax's defence could be worth: the same agent with perfect reads.

The defence of ``expectimax:leaf=value`` reads the table with fitted models: is an opponent
ready, and is a tile his wait (``paiju.mahjong.agents.defence``). This benchmark plugs in an
**oracle reader** instead (a :class:`~paiju.mahjong.agents.value.DealInReader` that looks at
the true hands: a discard deals in to an opponent exactly when it completes his concealed
hand), and plays the arena's ``2v2-all`` format against ``--baseline`` on the arena's walls
(``paiju arena -f 2v2-all -n 6*WALLS --seed SEED`` plays the same ones). Everything else of the
agent is unchanged, so the gap between ``--reads oracle`` and ``--reads model`` on the same
walls is what a better reading of the table could at most buy, and the oracle's margin over
the baseline says whether the defence can carry the issue's win-rate target. ``--reads
oracle-ready`` knows only who is ready and reads the waits with the fitted model. Analysis
only: no agent at a table can see the hands. ``--reads boosted`` is a reader an agent could
have: the boosted trees of ``reads-ceiling`` (below), trained on ``--train-hands`` hands of
greedy self-play (kept beside the journal as ``<journal>.reader.json``).

``reads-ceiling`` asks how much more the public facts can tell: in greedy self-play, at every
turn, for each opponent and each tile the player holds, whether discarding it would deal in
(from the true hands). On the last 20% of the hands it reports the log-loss of a constant, of
the agent's fitted models (ready x wait) and of boosted trees (XGBoost) trained on the first
80% with the same public facts plus more of the river: the share of 摸打 discards, the run of
them since the last tile from the hand, the last six flags, the last two tiles from the hand
next to or three from the tile, the copies held, the river's length.

Each job keeps a journal (``--journal``): run the same command again to resume. Both runs'
rows are paired by wall when two journals are given to ``compare``.

Usage::

    python benchmarks/mahjong_oracle_defence.py run --reads oracle --walls 100 --seed 14 \\
        --workers 2 --journal runs/oracle-defence/oracle.jsonl
    python benchmarks/mahjong_oracle_defence.py run --reads model --walls 100 --seed 14 \\
        --workers 2 --journal runs/oracle-defence/model.jsonl
    python benchmarks/mahjong_oracle_defence.py compare runs/oracle-defence/oracle.jsonl \\
        runs/oracle-defence/model.jsonl
    python benchmarks/mahjong_oracle_defence.py run --reads boosted --train-hands 3000 \\
        --train-seed 70000 --walls 200 --seed 14 --journal runs/oracle-defence/boosted.jsonl
    python benchmarks/mahjong_oracle_defence.py reads-ceiling --hands 2000 --seed 60000
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from paiju.core.arena import agent_seed, game_row, lineups, match_plan
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.core.registry import get_entry
from paiju.core.runner import Backend, TaskJournal, run_journalled
from paiju.mahjong.agents import REGISTRY
from paiju.mahjong.agents.defence import (
    WAIT_FEATURES,
    discard_order,
    passed_kinds,
    probability_log_loss,
    readiness_features,
    shipped_defence,
    wait_features,
)
from paiju.mahjong.agents.greedy import greedy_turns
from paiju.mahjong.agents.match import outcomes, paired_by_wall, rows_paired
from paiju.mahjong.agents.value import ValueExpectimaxAgent
from paiju.mahjong.game import NUM_KINDS, MahjongGame, MahjongObservation, MahjongState
from paiju.mahjong.scoring import waits

READS = ("oracle", "oracle-ready", "model", "boosted")
"""``--reads``: the true hands; the true readiness with the fitted wait model; the agent's own;
boosted trees trained on greedy self-play (:func:`train_boosted`)."""
SURE = 0.99
"""The oracle's chance for a tile that completes a hand: below 1, since the agent divides by
the chance of *not* dealing in with the safest tile (a claim's relative charge)."""


class OracleReader:
    """Reads the table from the true hands (``state``, set before every move). With
    ``waits=False`` it knows only who is ready: the fitted wait model says which of a ready
    hand's tiles are its waits (which half of the reading matters)."""

    def __init__(self, waits: bool = True) -> None:
        self.state: MahjongState | None = None
        self.waits = waits

    def see(self, state: Any, _player: int) -> None:
        self.state = state

    def deal_in_chances(self, obs: MahjongObservation, kinds: Sequence[int]) -> dict[int, list[float]]:
        assert self.state is not None, "the oracle is told the state before every move"
        out = {}
        for seat in range(4):
            if seat == obs.player:
                continue
            waits = _waits(list(self.state.observation(seat).hand))
            if self.waits or not waits:
                out[seat] = [SURE if k in waits else 0.0 for k in kinds]
            else:
                unseen, passed = obs.unseen_counts(), passed_kinds(obs, seat)
                model = shipped_defence()
                out[seat] = [model.wait_chance_of(wait_features(obs, seat, k, unseen, passed)) for k in kinds]
        return out


class BoostedReader:
    """Deal-in chances from the boosted trees of :func:`train_boosted` (public facts only)."""

    def __init__(self, path: Path) -> None:
        import xgboost as xgb

        self.booster = xgb.Booster()
        self.booster.load_model(str(path))
        self.booster.set_param({"nthread": 1})

    def see(self, state: Any, _player: int) -> None:
        pass  # reads the observation only

    def deal_in_chances(self, obs: MahjongObservation, kinds: Sequence[int]) -> dict[int, list[float]]:
        unseen, order = obs.unseen_counts(), discard_order(obs)
        rows, seats = [], []
        for seat in range(4):
            if seat == obs.player:
                continue
            ready_x = readiness_features(obs, seat)
            passed = passed_kinds(obs, seat, order)
            rows += [public_features(obs, seat, k, unseen, passed, ready_x) for k in kinds]
            seats.append(seat)
        p = self.booster.inplace_predict(np.array(rows))
        n = len(kinds)
        return {s: [min(float(x), SURE) for x in p[i * n:(i + 1) * n]] for i, s in enumerate(seats)}


_BOOSTED: dict[str, BoostedReader] = {}


def boosted_reader(path: str) -> BoostedReader:
    """One :class:`BoostedReader` per model file and process (it reads the observation only)."""
    if path not in _BOOSTED:
        _BOOSTED[path] = BoostedReader(Path(path))
    return _BOOSTED[path]


@dataclass(frozen=True)
class WallTask:
    specs: tuple[str, str]
    reads: str
    seed: int
    walls: int
    wall: int
    run_id: str
    reader_model: str | None = None


def play_wall(task: WallTask) -> list[dict[str, Any]]:
    """The 6 seatings of one wall, as arena rows; agent A gets the oracle with ``reads=oracle``."""
    entry = get_entry("mahjong")
    game = MahjongGame()
    plan = match_plan(lineups("2v2-all", 2, entry), 6 * task.walls, task.seed)
    rows = []
    for planned in plan[6 * task.wall: 6 * task.wall + 6]:
        if task.reader_model:
            reader: OracleReader | BoostedReader = boosted_reader(task.reader_model)
        else:
            reader = OracleReader(task.reads == "oracle")
        agents = []
        for seat, a in enumerate(planned.seat_agents):
            agent = REGISTRY.make(task.specs[a], seed=agent_seed(task.seed, planned.index, seat))
            if a == 0 and task.reads != "model":
                assert isinstance(agent, ValueExpectimaxAgent), "run() checked the spec"
                agent.reader = reader
            agents.append(agent)
        played = play_game(game, agents, planned.seed, notation=True, before_move=reader.see)
        rows.append(
            game_row("mahjong", game, played, planned, task.specs, entry.roles, task.run_id, "2v2-all")
        )
    return rows


def run(args: argparse.Namespace) -> dict[str, Any]:
    specs = (args.agent, args.baseline)
    if args.walls < 1:
        raise ConfigError(f"--walls must be at least 1, got {args.walls}")
    agent = REGISTRY.make(args.agent, seed=0)  # a bad spec fails here, before any journal
    REGISTRY.make(args.baseline, seed=0)
    if args.reads != "model" and not isinstance(agent, ValueExpectimaxAgent):
        raise ConfigError(f"--reads {args.reads} plugs into an expectimax agent: {args.agent!r}")
    run_id = f"oracle-defence-{args.reads}-{args.seed}"
    # not the number of walls: wall w is the same in any run of the seed, so a run extends
    config = {"specs": list(specs), "reads": args.reads, "seed": args.seed}
    reader_model = None
    if args.reads == "boosted":
        config.update(train_hands=args.train_hands, train_seed=args.train_seed)
        path = args.journal.with_suffix(".reader.json")
        if not path.exists():
            train_boosted(args.train_hands, args.train_seed, path)
        reader_model = str(path)
    journal: TaskJournal[list[dict[str, Any]]] = TaskJournal(
        args.journal, config, encode=lambda rows: rows, decode=lambda rows: rows
    )
    tasks = [WallTask(specs, args.reads, args.seed, args.walls, w, run_id, reader_model)
             for w in range(args.walls)]
    results = run_journalled(
        play_wall, tasks, journal, backend=Backend(workers=args.workers), progress=True,
        size=lambda _t: 6, label="hands",
    )
    rows = [r for wall in results for r in wall]
    return summary(rows, {**config, "walls": args.walls})


def _rows(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    config = json.loads(lines[0])["config"]
    return config, [r for line in lines[1:] if line.strip() for r in json.loads(line)["result"]]


def summary(rows: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
    return {**config, **paired_by_wall(rows).as_dict(), "outcomes": outcomes(rows)}


def compare(a: Path, b: Path) -> dict[str, Any]:
    config_a, rows_a = _rows(a)
    config_b, rows_b = _rows(b)
    return {
        "a": summary(rows_a, config_a), "b": summary(rows_b, config_b),
        "a_agent_minus_b_agent": rows_paired(rows_a, rows_b),
    }


def _waits(hand: list[int]) -> set[int]:
    """The kinds that complete a concealed ``hand`` (none unless it has 3k+1 tiles)."""
    return set(waits(hand)) if sum(hand) % 3 == 1 else set()


def river_features(obs: MahjongObservation, seat: int, kind: int) -> list[float]:
    """More of ``seat``'s river than the fitted models read, for the boosted trees."""
    river, flags = obs.discards[seat], list(obs.discards_drawn[seat])
    run = 0
    for f in reversed(flags):
        if not f:
            break
        run += 1
    last6 = [0.0] * max(0, 6 - len(flags)) + [float(f) for f in flags[-6:]]
    from_hand = [k for (k, _), f in zip(river, flags, strict=True) if not f]
    near = []
    for back in (1, 2):
        t = from_hand[-back] if len(from_hand) >= back else -1
        same = 0 <= t < 27 and kind < 27 and t // 9 == kind // 9
        near += [float(same and abs(kind - t) <= 2), float(same and abs(kind - t) == 3), float(t == kind)]
    share = sum(flags) / max(1, len(flags))
    return [share, float(run), *last6, *near, float(obs.hand[kind]), float(len(river))]


def public_features(
    obs: MahjongObservation, seat: int, kind: int, unseen: Sequence[int], passed: set[int],
    ready_x: Sequence[float],
) -> list[float]:
    """The boosted trees' input: the fitted models' features (``ready_x``: his
    :func:`readiness_features`) without their bias terms, then :func:`river_features`."""
    wait_x = wait_features(obs, seat, kind, unseen, passed)
    return [*ready_x[1:], *wait_x[1:], *river_features(obs, seat, kind)]


def reads_samples(hands: int, seed: int) -> dict[str, np.ndarray]:
    """Greedy self-play: per (turn, opponent, held kind) the public features, the fitted models'
    deal-in chance and the truth; ``hand`` numbers the hands for the split."""
    model = shipped_defence()
    x, y, hand_of, fitted = [], [], [], []
    for h, state, obs in greedy_turns(hands, seed):
        unseen, order = obs.unseen_counts(), discard_order(obs)
        for other in range(4):
            if other == obs.player:
                continue
            waits = _waits(list(state.observation(other).hand))
            ready_x = readiness_features(obs, other)
            ready = model.ready_chance(obs, other)
            passed = passed_kinds(obs, other, order)
            for k in (k for k in range(NUM_KINDS) if obs.hand[k]):
                features = public_features(obs, other, k, unseen, passed, ready_x)
                x.append(features)
                y.append(float(k in waits))
                hand_of.append(h)
                start = len(ready_x) - 1  # the wait features follow, without their bias
                wait_x = [1.0, *features[start:start + len(WAIT_FEATURES) - 1]]
                fitted.append(ready * model.wait_chance_of(wait_x))
    return {"x": np.array(x), "y": np.array(y), "hand": np.array(hand_of), "fitted": np.array(fitted)}


def boost(d: dict[str, np.ndarray], train: np.ndarray, test: np.ndarray, seed: int) -> Any:
    """Boosted trees on the ``train`` samples, stopped when the ``test`` log-loss stops falling,
    cut to the best round."""
    import xgboost as xgb

    booster = xgb.train(
        {"objective": "binary:logistic", "max_depth": 4, "eta": 0.1, "min_child_weight": 5,
         "tree_method": "hist", "eval_metric": "logloss", "nthread": 2, "seed": seed},
        xgb.DMatrix(d["x"][train], label=d["y"][train]), 1000,
        evals=[(xgb.DMatrix(d["x"][test], label=d["y"][test]), "held_out")], early_stopping_rounds=30,
        verbose_eval=False,
    )
    return booster[: booster.best_iteration + 1]


def train_boosted(hands: int, seed: int, path: Path) -> None:
    """``--reads boosted``'s trees: ``hands`` hands of greedy self-play, the last tenth to stop on."""
    d = reads_samples(hands, seed)
    cut = int(0.9 * hands)
    path.parent.mkdir(parents=True, exist_ok=True)
    boost(d, d["hand"] < cut, d["hand"] >= cut, seed).save_model(str(path))


def reads_ceiling(hands: int, seed: int) -> dict[str, Any]:
    import xgboost as xgb

    d = reads_samples(hands, seed)
    cut = int(0.8 * hands)
    train, test = d["hand"] < cut, d["hand"] >= cut
    y_test = d["y"][test]
    booster = boost(d, train, test, seed)
    boosted = booster.predict(xgb.DMatrix(d["x"][test]))
    return {
        "hands": hands, "seed": seed, "held_out_hands": hands - cut, "samples": len(d["y"]),
        "deal_in_share": round(float(d["y"].mean()), 5), "boosted_rounds": booster.num_boosted_rounds(),
        "held_out_log_loss": {
            "constant": round(probability_log_loss(np.full(len(y_test), d["y"][train].mean()), y_test), 5),
            "fitted_models": round(probability_log_loss(d["fitted"][test], y_test), 5),
            "boosted_trees": round(probability_log_loss(boosted, y_test), 5),
            "oracle": 0.0,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--reads", choices=READS, required=True)
    r.add_argument("--agent", default="expectimax")
    r.add_argument("--baseline", default="greedy")
    r.add_argument("--walls", type=int, default=100)
    r.add_argument("--seed", type=int, default=14)
    r.add_argument("--workers", type=int, default=1)
    r.add_argument("--journal", type=Path, required=True)
    r.add_argument("--train-hands", type=int, default=3000, help="--reads boosted: self-play hands")
    r.add_argument("--train-seed", type=int, default=70000, help="--reads boosted: their first seed")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    ceiling = sub.add_parser("reads-ceiling")
    ceiling.add_argument("--hands", type=int, default=2000)
    ceiling.add_argument("--seed", type=int, default=60000)
    args = parser.parse_args()
    try:
        if args.cmd == "run":
            out = run(args)
        elif args.cmd == "compare":
            out = compare(args.a, args.b)
        else:
            out = reads_ceiling(args.hands, args.seed)
    except (ConfigError, ValueError, OSError) as err:  # bad arguments or journals: one line
        raise SystemExit(f"error: {err}") from None
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
