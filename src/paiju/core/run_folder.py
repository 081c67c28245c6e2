"""A training run's folder: one layout for every trainer (issue 44).

::

    OUT/config.json     what the run is: {"trainer", "config", "identity", "command"}
    OUT/checkpoint.pt   where it stands: the resume state (torch, written atomically), saved
                        with the run's identity
    OUT/model.pt        what it made: the weights that ship, in the trainer's model format
    OUT/metrics.jsonl   one JSON line per epoch, iteration or logging step
    OUT/metrics.json    the final summary
    OUT/curve.png       the learning curve, drawn from metrics.jsonl

A trainer keeps its own extras beside them (AlphaZero's ``samples/`` and ``snapshots/``,
the DQN's ``evals/``). A shipped model is ``model.pt`` copied into a package's ``models/``
under the model's name, with ``config.json`` / ``metrics.json`` as ``NAME.config.json`` /
``NAME.metrics.json`` where the package keeps them.

The **identity** of a run is what a resume must match: the config dataclass as JSON data
without the fields a run may change between its sittings (its length, its threads), plus
what the trainer adds (AlphaZero: the game). A resume with another identity is refused with
an error naming the fields that differ. A field a checkpoint does not name (a setting added
to the config since it was written) reads as the field's default, so older runs still resume.

A config field's command-line flag is ``--field-name``, or the ``"flag"`` of its
``dataclasses.field(metadata=...)`` (:func:`field_flag`); :func:`command_line` writes the
command that reproduces a config, and :mod:`paiju.cli.config_options` turns the same fields
into a command's options, so the two cannot disagree.

torch is imported only to write or read a checkpoint, matplotlib only to draw the curve.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.torch_files import load_payload, save_payload

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

CONFIG = "config.json"
CHECKPOINT = "checkpoint.pt"
MODEL = "model.pt"
METRICS = "metrics.jsonl"
SUMMARY = "metrics.json"
CURVE = "curve.png"
RUN_FORMAT = "paiju-run-1"
"""The ``format`` of ``config.json`` (a file without one is a flat config of an older run)."""


def json_data(value: Any) -> Any:
    """``value`` as plain JSON data: dataclasses as dicts, tuples as lists (so a copy read
    back from a file compares equal)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    return json.loads(json.dumps(value))


def field_default(f: dataclasses.Field[Any]) -> Any:
    """The default of a dataclass field (its factory's value), or ``dataclasses.MISSING``."""
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def identity(config: DataclassInstance, may_change: Iterable[str] = ()) -> dict[str, Any]:
    """What a resumed run of ``config`` must match: its fields as JSON data, without those in
    ``may_change``."""
    skip = set(may_change)
    return {k: v for k, v in json_data(config).items() if k not in skip}


class RunFolder:
    """The folder ``path`` of a run of ``trainer`` (its name in messages, e.g. ``train-dqn``)
    with the configuration ``config``.

    ``may_change``: the config fields a resume may change; ``extra_identity``: what else a
    resume must match (JSON data, e.g. the game AlphaZero trains on).
    """

    def __init__(
        self,
        path: str | Path,
        trainer: str,
        config: DataclassInstance,
        *,
        may_change: Iterable[str] = (),
        extra_identity: Mapping[str, Any] | None = None,
    ) -> None:
        self.path = Path(path)
        self.trainer = trainer
        self.config = config
        skip = set(may_change)
        self.identity: dict[str, Any] = {**identity(config, skip), **json_data(dict(extra_identity or {}))}
        self._defaults = {
            f.name: json_data(default)
            for f in dataclasses.fields(config)
            if f.name not in skip and (default := field_default(f)) is not dataclasses.MISSING
        }

    # ---- the files ----------------------------------------------------------------------------
    @property
    def config_file(self) -> Path:
        return self.path / CONFIG

    @property
    def checkpoint_file(self) -> Path:
        return self.path / CHECKPOINT

    @property
    def model_file(self) -> Path:
        return self.path / MODEL

    @property
    def metrics_file(self) -> Path:
        return self.path / METRICS

    @property
    def summary_file(self) -> Path:
        return self.path / SUMMARY

    @property
    def curve_file(self) -> Path:
        return self.path / CURVE

    def has_checkpoint(self) -> bool:
        return self.checkpoint_file.is_file()

    # ---- starting and resuming ------------------------------------------------------------------
    def check_start(self, *, resume: bool) -> None:
        """Check the folder can take a new run, or (``resume``) holds one to continue (before
        any work: nothing is written).

        Raises:
            ConfigError: a new run in a folder that holds one, or a resume with nothing to resume.
        """
        if self.has_checkpoint() and not resume:
            raise ConfigError(
                f"{self.path} already holds a training run ({CHECKPOINT}): pass --resume or use another --out"
            )
        if resume and not self.has_checkpoint():
            raise ConfigError(f"--resume: {self.path} holds no {CHECKPOINT} to resume from")

    def write_config(self, command: str, **extra: Any) -> None:
        """``config.json``: the trainer, the config, the identity, the command that reproduces
        the run and ``extra`` (JSON data: where its data came from, versions)."""
        record = {"format": RUN_FORMAT, "trainer": self.trainer, "config": json_data(self.config),
                  "identity": self.identity, "command": command, **json_data(extra)}
        _write_json(self.config_file, record)

    def save_checkpoint(self, fmt: str, state: Mapping[str, Any]) -> Path:
        """Write the resume state ``state`` (tensors and JSON-like values) atomically, tagged
        ``fmt`` and saved with the run's identity."""
        return save_payload(self.checkpoint_file, {**state, "format": fmt, "identity": self.identity})

    def load_checkpoint(
        self, fmt: str, *, legacy_identity: Callable[[dict[str, Any]], Mapping[str, Any]] | None = None
    ) -> dict[str, Any]:
        """The resume state saved by :meth:`save_checkpoint` (a ``fmt`` file), after checking
        its identity against this run's. ``legacy_identity`` reads the identity of a
        checkpoint written before the run folder kept one (the payload in, the identity out).

        Raises:
            ConfigError: no checkpoint, or one of a run with another identity (the fields named).
            CorruptRecordError: not a readable ``fmt`` checkpoint.
        """
        payload = load_payload(self.checkpoint_file, f"{self.trainer} checkpoint", fmt)
        saved = payload.get("identity")
        if saved is None and legacy_identity is not None:
            saved = legacy_identity(payload)
        if not isinstance(saved, Mapping):
            raise CorruptRecordError(
                f"{self.checkpoint_file}: a {self.trainer} checkpoint without its identity"
            )
        self.check_identity(saved)
        return payload

    def check_identity(self, saved: Mapping[str, Any]) -> None:
        """Refuse a resume of a run saved with the identity ``saved`` if it differs from this one."""
        theirs = _with_defaults(json_data(dict(saved)), self._defaults)
        differ = sorted(k for k in set(theirs) | set(self.identity) if theirs.get(k) != self.identity.get(k))
        if differ:
            said = "; ".join(f"{k}: {_said(theirs, k)} there, {_said(self.identity, k)} now" for k in differ)
            raise ConfigError(
                f"{self.path} holds a {self.trainer} run of another configuration ({said}); "
                "resume it with the same options or use another --out"
            )

    # ---- metrics, summary, curve ----------------------------------------------------------------
    def write_metrics(self, lines: Iterable[Mapping[str, Any]]) -> None:
        """``metrics.jsonl`` rewritten whole with ``lines`` (what a resumed run has so far: lines
        written after its checkpoint by an interrupted sitting are dropped)."""
        self.path.mkdir(parents=True, exist_ok=True)
        self.metrics_file.write_text("".join(_line(m) for m in lines), encoding="utf-8")

    def append_metrics(self, line: Mapping[str, Any]) -> None:
        """One more line of ``metrics.jsonl``."""
        with self.metrics_file.open("a", encoding="utf-8") as f:
            f.write(_line(line))

    def read_metrics(self) -> list[dict[str, Any]]:
        """The lines of ``metrics.jsonl`` (none if there is no file yet)."""
        if not self.metrics_file.is_file():
            return []
        text = self.metrics_file.read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def write_summary(self, summary: Mapping[str, Any]) -> None:
        """``metrics.json``: the run's final summary."""
        _write_json(self.summary_file, summary)

    def plot_curve(self, panels: Mapping[str, Sequence[str]], x: str) -> Path:
        """``curve.png`` from ``metrics.jsonl``: one panel per title of ``panels``, one line per
        metric key it names (``a.b``: key ``b`` of the dict at ``a``) against the key ``x``;
        lines without the key (another kind of line) are left out."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        metrics = self.read_metrics()
        fig, axes = plt.subplots(1, len(panels), figsize=(3.4 * len(panels) + 1.5, 3.2), squeeze=False)
        for ax, (title, keys) in zip(axes[0], panels.items(), strict=True):
            for key in keys:
                points = [(m[x], v) for m in metrics if x in m and (v := _lookup(m, key)) is not None]
                ax.plot([p[0] for p in points], [p[1] for p in points], marker=".", label=key)
            ax.set(xlabel=x, title=title)
            if len(keys) > 1:
                ax.legend(fontsize="small")
        fig.tight_layout()
        fig.savefig(self.curve_file, dpi=80)
        plt.close(fig)
        return self.curve_file


def read_config(folder: str | Path) -> dict[str, Any]:
    """The ``config.json`` of a run folder in the layout above. The one fallback for runs
    written before it: their ``config.json`` was the bare config (no ``format``), read here as
    ``{"config": ...}`` with no trainer, identity or command.

    Raises:
        ConfigError: no ``config.json`` in ``folder``.
        CorruptRecordError: not JSON, or not a JSON object.
    """
    path = Path(folder) / CONFIG
    if not path.is_file():
        raise ConfigError(f"{folder}: no {CONFIG} (not a training run folder)")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise CorruptRecordError(f"{path}: not JSON ({err})") from None
    if not isinstance(record, dict):
        raise CorruptRecordError(f"{path}: not a JSON object")
    if record.get("format") == RUN_FORMAT:
        return record
    return {"format": None, "trainer": None, "config": record, "identity": None, "command": None}


# ---- the command line of a config ----------------------------------------------------------------
def field_flag(f: dataclasses.Field[Any]) -> str:
    """The command-line flag of a config field: ``metadata["flag"]``, else ``--field-name``."""
    flag = f.metadata.get("flag")
    return str(flag) if flag else "--" + f.name.replace("_", "-")


def config_fields(config: type[DataclassInstance]) -> Iterator[tuple[str, dataclasses.Field[Any]]]:
    """Every field of ``config`` as (dotted path, field), the fields of a nested config
    dataclass in its place (``search.simulations``)."""
    for f in dataclasses.fields(config):
        default = field_default(f)  # a nested config is known by its default (annotations are text)
        if dataclasses.is_dataclass(default) and not isinstance(default, type):
            for path, sub in config_fields(type(default)):
                yield f"{f.name}.{path}", sub
        else:
            yield f.name, f


def command_line(words: Sequence[str], config: DataclassInstance, skip: Iterable[str] = ()) -> str:
    """``words`` (the command and the options it states itself) followed by every field of
    ``config`` that differs from its default, as its flag and value (tuples comma-separated,
    a boolean as ``--flag`` / ``--no-flag``), minus the fields (dotted paths) in ``skip``."""
    out = list(words)
    left_out = set(skip)
    for path, f in config_fields(type(config)):
        value: Any = config
        for part in path.split("."):
            value = getattr(value, part)
        if path in left_out or value == field_default(f):
            continue
        flag = field_flag(f)
        if isinstance(value, bool):
            out.append(flag if value else "--no-" + flag.removeprefix("--"))
        else:
            out += [flag, ",".join(str(v) for v in value) if isinstance(value, tuple) else str(value)]
    return shlex.join(out)


# ---- helpers ---------------------------------------------------------------------------------------
def _line(m: Mapping[str, Any]) -> str:
    return json.dumps(m, sort_keys=True) + "\n"


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _said(values: Mapping[str, Any], key: str) -> str:
    return json.dumps(values[key], sort_keys=True) if key in values else "unset"


def _with_defaults(saved: dict[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """``saved`` with what it does not name read from ``defaults`` (in nested dicts too)."""
    out = dict(saved)
    for key, default in defaults.items():
        if key not in out:
            out[key] = default
        elif isinstance(out[key], dict) and isinstance(default, Mapping):
            out[key] = _with_defaults(out[key], default)
    return out


def _lookup(line: Mapping[str, Any], key: str) -> Any:
    value: Any = line
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


__all__ = [
    "CHECKPOINT",
    "CONFIG",
    "CURVE",
    "METRICS",
    "MODEL",
    "SUMMARY",
    "RunFolder",
    "command_line",
    "config_fields",
    "field_default",
    "field_flag",
    "identity",
    "json_data",
    "read_config",
]
