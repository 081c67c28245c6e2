"""Expert iteration of the distilled search (issue 45 item 4; docs/mahjong-training.md §5).

    paiju mahjong expert-iteration --out runs/mj-exit --round 1 --workers 2
    paiju mahjong expert-iteration --out runs/mj-exit --round 2 --workers 2

One file, top to bottom (CleanRL's shape): the config; the round's folders; the round. Round
``r`` improves round ``r - 1``'s agent, ``expectimax-distill:model=OUT/round-{r-1}/model.pt``:

1. **Its decisions become the data.** The agent is the teacher of a search-data table
   (:mod:`paiju.mahjong.search_data`) and one of its players, beside ``others`` (the value
   search and greedy by default, so the data is not one opponent's habits): every decision
   of every seat is labelled with the agent's own value of each option, in ``round-r/data``.
2. **The network is retrained on them** from round ``r - 1``'s weights
   (:mod:`paiju.mahjong.train_distill`, ``init``), in ``round-r/train``. The epoch kept is the
   one with the lowest loss on the round's validation hands, the starting weights (epoch -1)
   included, so on its own targets a round keeps or improves on where it started.
3. The kept weights are the round's model, ``round-r/model.pt``; ``round-r/summary.json``
   records what the round cost and what it measured on its test hands.

Why the targets improve from round to round: the teacher's tree looks two own draws deep
with the previous network at its leaves, so the value head learns what that tree sees beyond
the previous network's horizon (the expert-iteration step of Anthony et al., 2017, with the
search as the expert). The network always learns the targets of the round's own data: the
earlier rounds' targets are the older, shallower expert's.

Round 1 starts from ``init`` (empty: the shipped ``mj-distill.pt``), copied to
``round-0/model.pt``, so every round names its teacher by a file of the run folder and a
model shipped later changes no round. Seeds: round ``r``'s hands are
``derive_seed(seed, r)``'s (:func:`round_seed`). Every step resumes (the data by chunk of
hands, the training by epoch): after an interruption run the same command again; a round
already finished only prints its summary. Strength is measured apart, with ``paiju arena``
(docs/results/mahjong-expert-iteration.md).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paiju.core import run_folder
from paiju.core.errors import ConfigError
from paiju.core.records import atomic_write_text
from paiju.core.rng import derive_seed
from paiju.core.runner import Progress
from paiju.mahjong import distill as D
from paiju.mahjong import search_data as S
from paiju.mahjong import train_distill as T
from paiju.mahjong.agents import DISTILL, DISTILL_DEFAULTS, REGISTRY
from paiju.mahjong.model_files import MODEL_DIR, distill_model_file


@dataclass(frozen=True)
class RoundConfig:
    """One round; each field's metadata gives its ``paiju mahjong expert-iteration`` option."""

    out: str
    """The iteration's folder: ``round-0/model.pt``, then ``round-r/{data,train,model.pt}``."""
    round: int = field(default=1, metadata={
        "help": "The round to run: its data from the previous round's agent, its network from the "
                "previous round's weights.", "min": 1, "max": 1000})
    init: str = field(default="", metadata={
        "help": "Round 0's model, read by round 1: a distilled model file or a shipped name (empty: "
                "the shipped mj-distill.pt)."})
    hands: int = field(default=1024, metadata={"help": "Hands of data the round plays.", "min": 4,
                                               "max": 1_000_000})
    others: str = field(default="expectimax;greedy", metadata={
        "help": "The other players a seat may draw, ';'-separated agent specs (the round's agent is "
                "always one)."})
    depth: int = field(default=DISTILL_DEFAULTS["depth"], metadata={
        "help": "The agent's search depth (own draws).", "min": 1, "max": 3})
    epochs: int = field(default=30, metadata={"help": "Training epochs of the round.", "min": 1,
                                              "max": 10_000})
    lr: float = field(default=5e-4, metadata={"min": 1e-7, "max": 1.0})
    batch: int = field(default=256, metadata={"help": "Decisions per training step.", "min": 1,
                                              "max": 65_536})
    chunk: int = field(default=32, metadata={"help": "Hands per data chunk (the unit of resume).", "min": 1,
                                             "max": 100_000})
    seed: int = field(default=0, metadata={"short": "-s"})
    workers: int = field(default=1, metadata={"help": "Processes playing the round's hands."})
    threads: int = field(default=1, metadata={"help": "Torch threads of the training."})


# ---- the folders ---------------------------------------------------------------------------------
def round_dir(out: str | Path, r: int) -> Path:
    return Path(out) / f"round-{r}"


def model_file(out: str | Path, r: int) -> Path:
    """Round ``r``'s model (round 0: the start)."""
    return round_dir(out, r) / "model.pt"


def agent_spec(out: str | Path, r: int, depth: int = DISTILL_DEFAULTS["depth"]) -> str:
    """Round ``r``'s agent: the distilled search with round ``r``'s model (the spec as the
    registry writes it, which the search data records)."""
    extra = f",depth={depth}" if depth != DISTILL_DEFAULTS["depth"] else ""
    return str(REGISTRY.resolve(f"{DISTILL}:model={model_file(out, r)}{extra}"))


def round_seed(seed: int, r: int) -> int:
    """The seed of round ``r``'s hands."""
    return derive_seed(seed, r)


def check_config(cfg: RoundConfig) -> tuple[str, ...]:
    """The other players' specs, or a :class:`ConfigError` naming the bad field."""
    if cfg.round < 1 or cfg.hands < 4 or cfg.epochs < 1:
        raise ConfigError(f"expert-iteration round={cfg.round}, hands={cfg.hands} and epochs={cfg.epochs} "
                          "must be at least 1, 4 and 1")
    players = tuple(p.strip() for p in cfg.others.split(";") if p.strip())
    if not players:
        raise ConfigError("expert-iteration others: name at least one agent spec (';'-separated)")
    for p in players:
        REGISTRY.resolve(p)  # a bad spec is named before anything runs
    return players


def start_model(cfg: RoundConfig) -> Path:
    """Round ``cfg.round - 1``'s model file; round 1 writes round 0's from ``init`` first."""
    previous = model_file(cfg.out, cfg.round - 1)
    if cfg.round > 1:
        if not previous.is_file():
            raise ConfigError(f"expert-iteration round {cfg.round}: {previous} does not exist; run round "
                              f"{cfg.round - 1} first")
        return previous
    source = D.model_path(cfg.init)
    D.load_model(cfg.init)  # a missing or foreign file is refused here
    if previous.is_file():
        if previous.read_bytes() != source.read_bytes():
            raise ConfigError(f"expert-iteration: {previous} is not init {str(source)!r}; round 0 of this "
                              "folder started from another model (use another --out)")
        return previous
    previous.parent.mkdir(parents=True, exist_ok=True)
    _copy_whole(source, previous)
    return previous


def _copy_whole(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` through a rename: an interrupted copy leaves no half file
    that a resumed round would take for the model."""
    tmp = target.with_suffix(".tmp")
    shutil.copyfile(source, tmp)
    tmp.replace(target)


# ---- the round -------------------------------------------------------------------------------------
def run_round(cfg: RoundConfig, *, progress: Progress = False) -> dict[str, Any]:
    """Run round ``cfg.round`` (or finish it where it stopped); returns its summary (also
    ``round-r/summary.json``)."""
    players = check_config(cfg)
    here = round_dir(cfg.out, cfg.round)
    run = run_folder.RunFolder(here, PROG, cfg, may_change=("workers", "threads"))  # they change no result
    summary_file = here / "summary.json"
    if summary_file.is_file():
        done: dict[str, Any] = json.loads(summary_file.read_text(encoding="utf-8"))
        run.check_identity(done["config"])  # names the options that differ
        return done
    previous = start_model(cfg)
    teacher = agent_spec(cfg.out, cfg.round - 1, cfg.depth)

    # 1. the previous round's agent plays and labels the round's hands
    data_cfg = S.SearchDataConfig(out=str(here / "data"), hands=cfg.hands,
                                  seed=round_seed(cfg.seed, cfg.round), teacher=teacher,
                                  players=(teacher, *players), workers=cfg.workers, chunk=cfg.chunk)
    if (here / "data" / "summary.json").is_file():
        data = S.read_summary(data_cfg.out)
        expected = {**data_cfg.identity(), "hands": cfg.hands}
        if any(data[k] != v for k, v in expected.items()):
            raise ConfigError(f"{data_cfg.out} holds another round's data: {data['teacher']}, "
                              f"{data['hands']} hands")
    else:
        data = S.generate(data_cfg, progress=progress)

    # 2. the network, from the previous round's weights, learns the round's targets
    start = D.load_model(str(previous)).net
    train_cfg = T.DistillConfig(
        data=data_cfg.out, out=str(here / "train"), value_hidden=tuple(start.value_hidden),
        order_hidden=tuple(start.order_hidden), residual=start.residual, init=str(previous),
        epochs=cfg.epochs, batch=cfg.batch, lr=cfg.lr, seed=cfg.seed, threads=cfg.threads)
    report = T.train(train_cfg)

    # 3. the kept weights are the round's model
    target = model_file(cfg.out, cfg.round)
    _copy_whole(Path(train_cfg.out) / "model.pt", target)
    epochs_cpu_s = sum(m["cpu_s"] for m in report["epochs"])
    summary = {
        "config": run.identity, "command": command_line(cfg), "round": cfg.round, "teacher": teacher,
        "model": str(target),
        "agent": agent_spec(cfg.out, cfg.round, cfg.depth),
        "data": {"hands": data["hands"], "rows": data["rows"], "cost": data["cost"]},
        "training": {"best_epoch": report["best_epoch"], "epochs": report["epochs"],
                     "epochs_cpu_s": epochs_cpu_s, "samples": report["samples"], "test": report["test"],
                     "command": report["command"]},
        # the data and the epochs; replaying the hands into samples (under 1% of a round) is left out
        "cpu_hours": (data["cost"]["cpu_s"] + epochs_cpu_s) / 3600,
    }
    atomic_write_text(summary_file, json.dumps(summary, indent=2) + "\n")
    return summary


def ship_round(out: str | Path, r: int, folder: str | Path = MODEL_DIR) -> Path:
    """Copy finished round ``r``'s model into ``folder`` (the package's models by default) as
    the distilled model ``distill-exit-{r}`` (``expectimax-distill:model=distill-exit-{r}``),
    its round's command and config as ``.config.json`` and its summary as ``.metrics.json``
    beside it; returns the model file. Later rounds of ``out`` name their teacher by the
    folder's file, so a new session restores it by copying the shipped one back."""
    summary_file = round_dir(out, r) / "summary.json"
    if not summary_file.is_file():
        raise ConfigError(f"round {r} of {out} is not finished ({summary_file} does not exist)")
    summary = json.loads(summary_file.read_text(encoding="utf-8"))
    target = distill_model_file(Path(folder), f"distill-exit-{r}")
    shutil.copyfile(model_file(out, r), target)
    config = {"trainer": "expert-iteration", "command": summary["command"], "config": summary["config"],
              "teacher": summary["teacher"], "training_command": summary["training"]["command"]}
    for suffix, data in ((".config.json", config), (".metrics.json", summary)):
        atomic_write_text(target.with_suffix(suffix), json.dumps(data, indent=2) + "\n")
    return target


PROG = "paiju mahjong expert-iteration"


def command_line(cfg: RoundConfig) -> str:
    """The command that runs ``cfg`` (the options that differ from the defaults)."""
    return run_folder.command_line([*PROG.split(), "--out", cfg.out], cfg, ("out",))


__all__ = ["PROG", "RoundConfig", "agent_spec", "check_config", "command_line", "model_file", "round_dir",
           "round_seed", "run_round", "ship_round", "start_model"]
