"""Train the ``policy`` Dou Dizhu agent by imitation of recorded games (one readable file).

CleanRL style (``docs/design.md`` §14): a ``@dataclass`` of arguments with a help text per
field, a seeding block, a run name, and the whole loop below in plain sight. It imports the
library for everything game-specific (records, engine, encoding, network).

What it does:

1. reads game records (``paiju ddz selfplay`` / arena output, the core Parquet format) and
   replays each game with the engine, keeping every decision of the seats played by the
   teacher agent (``--teacher``) that had more than one legal move;
2. encodes each as (observation, legal moves, the teacher's move) with
   :mod:`paiju.doudizhu.encoding`, splitting train / validation *by game*;
3. trains :class:`~paiju.doudizhu.agents.policy.PolicyNet` with Adam on the cross-entropy of
   the softmax over each decision's legal moves against the teacher's move;
4. writes the run folder ``--out`` (:mod:`paiju.core.run_folder`): after every epoch
   ``checkpoint.pt`` (network, optimiser, schedule and both RNGs: rerunning the command after
   an interruption, or after ``--stop-after N`` epochs, continues to the weights of an
   uninterrupted run), a line of ``metrics.jsonl`` and ``curve.png``; at the end the model
   ``model.pt``, ``metrics.json`` (data sizes, loss and accuracy per epoch) and, from the
   start, ``config.json`` (arguments, the exact command, the records' provenance).

The shipped checkpoints (``ddz-policy-{small,large}.pt`` in ``paiju/doudizhu/models``, with the
``.config.json`` and ``.metrics.json`` their runs wrote) were made by the commands below, from
before the run folder, when ``--out`` was the checkpoint's path (figures in
``docs/results/ddz-selfplay.md``); today ``--out runs/ddz-policy-small`` and a copy of its
``model.pt`` give the same weights::

    paiju ddz selfplay --agents rule,rule,rule --games 4000 --seed 0 --out runs/ddz-rule
    python -m paiju.doudizhu.train_policy --records runs/ddz-rule --games 300 \\
        --hidden 8 --layers 1 --epochs 20 --out src/paiju/doudizhu/models/ddz-policy-small.pt
    python -m paiju.doudizhu.train_policy --records runs/ddz-rule --games 4000 \\
        --hidden 128 --layers 2 --epochs 8 --workers 2 --out src/paiju/doudizhu/models/ddz-policy-large.pt

Both use the default seed 0 and 1 torch thread; re-running either reproduced its weights bit for
bit (the records are the same for any ``--games`` >= 4000: game i depends only on the seed).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import torch

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.records import RUN_FILE, read_records
from paiju.core.run_folder import RunFolder
from paiju.core.runner import Backend, run_tasks
from paiju.doudizhu.agents.policy import (
    Arch,
    PolicyNet,
    decision_tensors,
    save_checkpoint,
    segment_log_softmax,
)
from paiju.doudizhu.encoding import ENCODING_VERSION, Decision, encode_decision
from paiju.doudizhu.game import BIDS, DouDizhuConfig, DouDizhuGame, DouDizhuObservation, GameRecord, are_moves
from paiju.doudizhu.moves import Move

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

ArgsT = TypeVar("ArgsT", bound="DataclassInstance")


@dataclass
class Args:
    records: list[str] = field(default_factory=list, metadata={"help": "record directories or files"})
    out: str = field(default="ddz-policy", metadata={"help": "run folder (the model is its model.pt)"})
    teacher: str = field(default="rule", metadata={"help": "learn the moves of seats played by this spec"})
    games: int = field(default=1000, metadata={"help": "use the first N teacher games (by game index)"})
    val_fraction: float = field(default=0.05, metadata={"help": "share of games held out for validation"})
    hidden: int = field(default=128, metadata={"help": "hidden layer width"})
    layers: int = field(default=2, metadata={"help": "hidden layers"})
    epochs: int = field(default=6, metadata={"help": "passes over the training decisions"})
    batch_size: int = field(default=256, metadata={"help": "decisions per gradient step"})
    lr: float = field(default=2e-3, metadata={"help": "Adam learning rate (cosine-decayed to 5%)"})
    weight_decay: float = field(default=1e-5, metadata={"help": "Adam weight decay"})
    max_steps: int = field(default=0, metadata={"help": "stop after this many steps (0 = no limit)"})
    seed: int = field(default=0, metadata={"help": "seed of the split, the initialisation and the batches"})
    threads: int = field(default=1, metadata={"help": "torch intra-op threads"})
    workers: int = field(default=1, metadata={"help": "processes that replay and encode the games"})
    stop_after: int = field(
        default=0, metadata={"help": "stop this sitting after N epochs, checkpointed (0 = to the end)"}
    )

    def __post_init__(self) -> None:
        check_data_args(self.records, self.games, self.val_fraction)
        if self.epochs < 1 or self.batch_size < 1 or self.workers < 1:
            raise ConfigError("--epochs, --batch-size and --workers must be positive")
        if self.stop_after < 0 or self.max_steps < 0:
            raise ConfigError("--stop-after and --max-steps must be >= 0")
        if self.out.endswith(".pt"):
            raise ConfigError(
                f"--out {self.out!r}: --out is the run folder (the model is its model.pt); give a folder, "
                "e.g. runs/ddz-policy, and copy its model.pt where the checkpoint should go"
            )
        Arch(self.hidden, self.layers)  # validates

    @property
    def run_name(self) -> str:
        return f"ddz-policy__h{self.hidden}x{self.layers}__g{self.games}__s{self.seed}__{int(time.time())}"


def check_data_args(records: list[str], games: int, val_fraction: float) -> None:
    """The data options every training script on game records shares."""
    if not records:
        raise ConfigError("--records: give at least one record directory or file")
    if games < 2:
        raise ConfigError(f"--games must be at least 2 (to train and to validate on), got {games}")
    if not 0.0 < val_fraction < 1.0:
        raise ConfigError(f"--val-fraction must be in (0, 1), got {val_fraction}")


def split_by_game(n_games: int, val_fraction: float, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """Training and validation game positions (sorted), split by game, never by decision."""
    order = rng.permutation(n_games)
    n_val = max(1, round(n_games * val_fraction))
    return sorted(order[n_val:].tolist()), sorted(order[:n_val].tolist())


def dataclass_args(cls: type[ArgsT], argv: list[str] | None, prog: str, description: str | None) -> ArgsT:
    """``--kebab-case`` flags from a training dataclass's fields (help from each field's
    metadata; ``records`` takes one or more values); the training scripts share it."""
    parser = argparse.ArgumentParser(prog=prog, description=description,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        if f.default is not dataclasses.MISSING:
            default = f.default
        else:
            factory = f.default_factory
            assert callable(factory), f"{cls.__name__}.{f.name} has neither a default nor a default factory"
            default = factory()
        if f.name == "records":
            parser.add_argument(flag, nargs="+", required=True, help=f.metadata["help"])
        else:
            kind = {"int": int, "float": float, "str": str}[str(f.type)]
            text = f"{f.metadata['help']} ({default})".replace("%", "%%")  # argparse formats help with %
            parser.add_argument(flag, type=kind, default=default, help=text)
    return cls(**vars(parser.parse_args(argv)))


def parse_args(argv: list[str] | None = None) -> Args:
    return dataclass_args(Args, argv, "python -m paiju.doudizhu.train_policy", __doc__)


# ---- data ---------------------------------------------------------------------------------------
def teacher_games(
    records: list[str], teacher: str, n_games: int
) -> list[tuple[int, GameRecord, tuple[int, ...]]]:
    """(game index, record, teacher seats) of the first ``n_games`` games (by index) of
    ``records`` with a seat played by the agent spec ``teacher``."""
    table = read_records(records, columns=["game", "game_index", "agents", "extra"])
    order = np.argsort(np.asarray(table["game_index"].to_pylist(), dtype=np.int64), kind="stable")
    games = table["game"].to_pylist()
    indices = table["game_index"].to_pylist()
    agents = table["agents"].to_pylist()
    extras = table["extra"].to_pylist()
    out = []
    for i in order:
        seats = tuple(s for s, spec in enumerate(agents[i] or []) if spec == teacher)
        if games[i] != "doudizhu" or not seats:
            continue
        try:
            record = GameRecord.from_dict(json.loads(extras[i])["record"])
        except (TypeError, KeyError, json.JSONDecodeError) as err:
            raise CorruptRecordError(
                f"{records}: game {indices[i]} has no Dou Dizhu record ({err})"
            ) from None
        out.append((int(indices[i]), record, seats))
        if len(out) == n_games:
            break
    if len(out) < n_games:
        raise ConfigError(
            f"--games {n_games}: the records hold only {len(out)} games with a {teacher!r} seat"
        )
    return out


def teacher_choices(
    items: list[tuple[int, GameRecord, tuple[int, ...]]],
) -> Iterator[tuple[DouDizhuObservation, Sequence[Move], int]]:
    """Replay each game; (observation, legal moves, index of the teacher's move) at every
    decision of a teacher seat with more than one legal move."""
    games: dict[DouDizhuConfig, DouDizhuGame] = {}
    for index, record, seats in items:
        game = games.setdefault(record.config, DouDizhuGame(record.config))
        state = game.new_state_from_deal(record.deal)
        for bid in record.bids:
            state.apply(BIDS[bid])
        for seat, move in record.plays:
            legal = state.legal_actions()
            if seat in seats and len(legal) > 1:
                try:
                    target = legal.index(move)
                except ValueError:
                    raise CorruptRecordError(f"game {index}: recorded move {move} is not legal") from None
                assert are_moves(legal)  # the recorded plays are of the play phase
                yield state.observation(seat), legal, target
            state.apply(move)


def encode_games(items: list[tuple[int, GameRecord, tuple[int, ...]]]) -> list[tuple[Decision, int]]:
    """(encoded decision, index of the teacher's move) per real choice of the teacher."""
    return [(encode_decision(obs, legal), target) for obs, legal, target in teacher_choices(items)]


Item = tuple[int, GameRecord, tuple[int, ...]]
Example = tuple[Decision, int]


def encode_all(
    items: list[Item], workers: int, encode: Callable[[list[Item]], list[Any]] = encode_games
) -> list[Any]:
    """``encode`` (top-level, for worker processes) over ``items``, split among ``workers``;
    the result is in the order of ``items``' interleaved chunks, the same for any run."""
    if workers == 1 or len(items) < 2 * workers:
        return encode(items)
    chunks = [items[i::workers] for i in range(workers)]
    parts: dict[int, list[Any]] = {}
    run_tasks(encode, chunks, parts.__setitem__, backend=Backend(workers=workers))
    return [d for i in range(len(chunks)) for d in parts[i]]


def batch_of(data: list[Example], idx: np.ndarray) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """Network inputs of the decisions ``idx`` and the global row of each teacher move."""
    decisions = [data[i][0] for i in idx]
    inputs = decision_tensors(decisions)
    sizes = np.array([len(d.move_type) for d in decisions])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    targets = torch.from_numpy(starts + np.array([data[i][1] for i in idx]))
    return inputs, targets


def evaluate(net: PolicyNet, data: list[tuple[Decision, int]], batch_size: int) -> dict[str, float]:
    """Mean cross-entropy and top-1 agreement with the teacher over ``data``."""
    net.eval()
    loss_sum, hits = 0.0, 0
    with torch.inference_mode():
        for start in range(0, len(data), batch_size):
            idx = np.arange(start, min(start + batch_size, len(data)))
            inputs, targets = batch_of(data, idx)
            logits = net(**inputs)
            logp = segment_log_softmax(logits, inputs["segment"], len(idx))
            loss_sum += float(-logp[targets].sum())
            top = torch.full((len(idx),), -torch.inf).scatter_reduce(
                0, inputs["segment"], logits, reduce="amax", include_self=True
            )
            hits += int((logits[targets] >= top).sum())
    net.train()
    n = max(1, len(data))
    return {"loss": loss_sum / n, "accuracy": hits / n}


def records_provenance(paths: list[str]) -> list[dict[str, Any]]:
    """Where the training games came from: each record directory's run id and configuration
    (``run.json``: agents, seed, rules), so a checkpoint names the self-play run behind it."""
    out = []
    for path in paths:
        run_file = Path(path) / RUN_FILE
        entry: dict[str, Any] = {"path": str(path)}
        if run_file.is_file():
            try:
                header = json.loads(run_file.read_text())
                entry.update(run_id=header.get("run_id"), config=header.get("config"))
            except json.JSONDecodeError as err:
                raise CorruptRecordError(f"{run_file}: not valid JSON ({err})") from None
        out.append(entry)
    return out


# ---- main ---------------------------------------------------------------------------------------
RUN_FORMAT = "paiju-ddz-policy-run-1"
MAY_CHANGE = ("out", "threads", "stop_after")
"""The arguments a resumed run may change (where it runs, its torch threads, when this sitting
stops); not ``workers``: the encoded decisions come in the order of the workers' chunks."""
CURVE = {"loss": ["train/loss", "val/loss"], "validation top-1 agreement": ["val/accuracy"]}


def run_folder(args: Args) -> RunFolder:
    """The run's folder (:mod:`paiju.core.run_folder`)."""
    return RunFolder(args.out, "train_policy", args, may_change=MAY_CHANGE)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    command = "python -m paiju.doudizhu.train_policy " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    folder = run_folder(args)
    folder.check_start(resume=folder.has_checkpoint())  # rerun the command to resume
    saved = folder.load_checkpoint(RUN_FORMAT) if folder.has_checkpoint() else None
    run_name = saved["run_name"] if saved is not None else args.run_name
    print(f"run {run_name}", flush=True)

    # seeding
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()

    items = teacher_games(args.records, args.teacher, args.games)
    train_games, val_games = split_by_game(len(items), args.val_fraction, rng)
    train = encode_all([items[i] for i in train_games], args.workers)
    val = encode_all([items[i] for i in val_games], args.workers)
    t_data = time.perf_counter() - t0
    print(f"{len(train_games)} train games -> {len(train)} decisions; {len(val_games)} validation games "
          f"-> {len(val)} decisions; encoded in {t_data:.1f}s", flush=True)
    if not train:
        raise ConfigError("no training decisions: the teacher never had a choice in these games")

    net = PolicyNet(Arch(args.hidden, args.layers))
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    steps_per_epoch = math.ceil(len(train) / args.batch_size)
    total_steps = steps_per_epoch * args.epochs
    if args.max_steps:
        total_steps = min(total_steps, args.max_steps)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(s, total_steps) / total_steps))
    )
    history: list[dict[str, float]] = []
    step, start = 0, 0
    if saved is not None:  # where the last sitting's last epoch left every state
        net.load_state_dict(saved["net"])
        optimizer.load_state_dict(saved["optimizer"])
        schedule.load_state_dict(saved["schedule"])
        rng.bit_generator.state = json.loads(saved["rng"])
        torch.set_rng_state(saved["torch_rng"])
        history, step, start = list(saved["history"]), int(saved["step"]), len(saved["history"])
    folder.write_config(command, encoding_version=ENCODING_VERSION, torch=torch.__version__,
                        records=records_provenance(args.records))
    folder.write_metrics(history)
    for epoch in range(start, args.epochs):
        if step >= total_steps:
            break
        perm = rng.permutation(len(train))
        running, seen = 0.0, 0
        for begin in range(0, len(train), args.batch_size):
            if step >= total_steps:
                break
            idx = perm[begin : begin + args.batch_size]
            inputs, targets = batch_of(train, idx)
            logits = net(**inputs)
            loss = -segment_log_softmax(logits, inputs["segment"], len(idx))[targets].mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            step += 1
            running += loss.item() * len(idx)
            seen += len(idx)
        metrics = evaluate(net, val, 1024)
        history.append({
            "epoch": epoch + 1, "step": step, "train/loss": running / max(1, seen),
            "val/loss": metrics["loss"], "val/accuracy": metrics["accuracy"],
            "time_s": time.perf_counter() - t0,
        })
        print(json.dumps(history[-1]), flush=True)
        folder.save_checkpoint(RUN_FORMAT, {
            "run_name": run_name, "net": net.state_dict(), "optimizer": optimizer.state_dict(),
            "schedule": schedule.state_dict(), "rng": json.dumps(rng.bit_generator.state),
            "torch_rng": torch.get_rng_state(), "step": step, "history": history,
        })
        folder.append_metrics(history[-1])
        folder.plot_curve(CURVE, x="epoch")
        if args.stop_after and epoch + 1 - start >= args.stop_after and epoch + 1 < args.epochs \
                and step < total_steps:
            print(f"stopped after epoch {epoch + 1}; run the same command again to continue", flush=True)
            return {"run_name": run_name, "stopped_after_epoch": epoch + 1, "history": history}

    model_meta = {"run_name": run_name, "teacher": args.teacher, "games": args.games}
    save_checkpoint(folder.model_file, net, model_meta)
    params = sum(p.numel() for p in net.parameters())
    result = {
        "run_name": run_name,
        "teacher": args.teacher,
        "train_games": len(train_games),
        "val_games": len(val_games),
        "train_decisions": len(train),
        "val_decisions": len(val),
        "parameters": params,
        "checkpoint_bytes": folder.model_file.stat().st_size,
        "steps": step,
        "encode_seconds": round(t_data, 1),
        "total_seconds": round(time.perf_counter() - t0, 1),
        "final": history[-1] if history else {},
        "history": history,
    }
    folder.write_summary(result)
    print(f"wrote {folder.model_file} ({result['checkpoint_bytes']} bytes, {params} parameters)", flush=True)
    return result


if __name__ == "__main__":
    from paiju.core.errors import PaijuError

    try:
        main()
    except PaijuError as err:  # bad arguments or data: one line, no traceback
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
