"""A trainer's config dataclass as its command's options (issue 44 item 3).

Every field of the config (a nested config dataclass's fields in its place) becomes an
option, unless the command ``skip``s it (``out``, ``data``: the paths it declares itself):

* the flag: :func:`paiju.core.run_folder.field_flag` (``--field-name``, or the field's
  ``metadata["flag"]``), the same rule that writes a run's command line, and
  ``metadata["short"]`` (e.g. ``"-m"``) beside it;
* the type and default: the field's (``int``, ``float``, ``str``; a ``bool`` is ``--flag``,
  or ``--flag/--no-flag`` when it defaults to true; ``tuple[int, ...]`` is comma-separated,
  ``256,256``);
* the help: ``metadata["help"]``; the range: ``metadata["min"]`` / ``["max"]`` (of each
  number of a tuple);
* ``seed``, ``workers`` and ``threads`` are the shared options of :mod:`paiju.cli.options`
  (their ranges), with the field's help.

The config class is named as ``"module:Class"`` and imported when the command is built for
its own use (parsed, or its help shown), never when the CLI module is imported, so
``paiju mahjong shanten`` does not load the trainers (numpy, torch). A command reads the
values with :func:`config_values`::

    @app.command("train-dqn", cls=config_command("paiju.mahjong.train_dqn:TrainConfig", skip=("out",)))
    def train_dqn_command(ctx: typer.Context, out: ...) -> None:
        config = TrainConfig(out=str(out), **config_values(ctx))
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import shlex
import typing
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer
import typer.main

from paiju.cli import options as opt
from paiju.cli.validate import LimitsHelpCommand
from paiju.core.run_folder import config_fields, field_default, field_flag

METADATA = frozenset({"help", "flag", "short", "min", "max"})
"""The keys of a config field's metadata that the options read."""
_VALUES = "paiju.config_values"
_GIVEN = "paiju.config_given"


@dataclasses.dataclass(frozen=True)
class _Option:
    """One generated option: its parameter name, the config field's dotted path, the option."""

    name: str
    path: str
    param: Any
    """Typer's option (Typer builds its own Click classes)."""


def load_config_class(where: str) -> type[Any]:
    """The dataclass named ``"module:Class"``."""
    module, _, name = where.partition(":")
    cls = getattr(importlib.import_module(module), name)
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{where} is not a dataclass")
    return cls


def config_options(config: type[Any], skip: Sequence[str] = ()) -> list[Any]:
    """The options of every field of the dataclass ``config`` but those in ``skip`` (dotted
    paths), as Typer builds them (help, default, range, flags)."""
    return [o.param for o in _options(config, tuple(skip))]


def _options(config: type[Any], skip: tuple[str, ...]) -> list[_Option]:
    hints = {path: hint for path, hint in _hints(config)}
    parameters, paths = [], []
    for path, f in config_fields(config):
        if path in skip:
            continue
        unknown = set(f.metadata) - METADATA
        if unknown:
            raise TypeError(f"{config.__name__}.{path}: unknown option metadata {sorted(unknown)}")
        flag = field_flag(f)
        name = flag.removeprefix("--").replace("-", "_")
        parameters.append(_parameter(name, flag, f, hints[path]))
        paths.append(path)
    names = [p.name for p in parameters]
    if len(set(names)) != len(names):
        raise TypeError(f"{config.__name__}: two fields have the same flag ({names})")

    def command(**values: Any) -> None:  # pragma: no cover - never run, only read by Typer
        pass

    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]  # Typer reads it
    reader = typer.Typer()
    reader.command()(command)
    built = {p.name: p for p in typer.main.get_command(reader).params}
    return [_Option(name, path, built[name]) for name, path in zip(names, paths, strict=True)]


def _hints(config: type[Any], prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted path, resolved type) of every field, as :func:`config_fields` walks them."""
    hints = typing.get_type_hints(config)
    out = []
    for f in dataclasses.fields(config):
        default = field_default(f)
        if dataclasses.is_dataclass(default) and not isinstance(default, type):
            out += _hints(type(default), f"{prefix}{f.name}.")
        else:
            out.append((f"{prefix}{f.name}", hints[f.name]))
    return out


def _parameter(name: str, flag: str, f: dataclasses.Field[Any], hint: Any) -> inspect.Parameter:
    meta = f.metadata
    help_text = meta.get("help")
    short = meta.get("short")
    default = field_default(f)
    if default is dataclasses.MISSING:
        raise TypeError(f"field {f.name}: a config option needs a default (or skip it and declare it)")
    info = _shared_option(f.name, help_text, bool(short))
    if info is not None:
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                 annotation=Annotated[hint, info])
    flags = (flag, short) if short else (flag,)
    if hint is bool:
        decl = f"{flag}/--no-{flag.removeprefix('--')}" if default else flag
        info = typer.Option(decl, *flags[1:], help=help_text)
    elif typing.get_origin(hint) is tuple:
        info = typer.Option(*flags, help=help_text, metavar="<int,...>",
                            parser=_widths(flag, meta.get("min"), meta.get("max")))
        default = ",".join(str(v) for v in default)
        hint = str
    else:
        info = typer.Option(*flags, help=help_text, min=meta.get("min"), max=meta.get("max"))
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[hint, info])


def _shared_option(name: str, help_text: str | None, short: bool) -> Any:
    """The option of a field named ``seed``, ``workers`` or ``threads``: the shared one of
    :mod:`paiju.cli.options` (its flags and range), with the field's help; None for another."""
    text = {"help": help_text} if help_text else {}
    if name == "seed":
        return opt.seed(**text, short=short)
    if name == "workers":
        return opt.workers(**text, short=short)
    if name == "threads":
        return opt.threads(**text)
    return None


def _widths(flag: str, low: int | None, high: int | None) -> Callable[[Any], tuple[int, ...]]:
    """The parser of a ``tuple[int, ...]`` option: ``256,256``, at least one number."""

    def parse(value: Any) -> tuple[int, ...]:
        if isinstance(value, tuple):  # Typer also passes the (converted) default through
            return value
        text = str(value).strip()
        try:
            numbers = tuple(int(w) for w in text.split(","))
        except ValueError:
            raise typer.BadParameter(f"{text!r}: comma-separated integers, e.g. 256,256") from None
        if any((low is not None and n < low) or (high is not None and n > high) for n in numbers):
            raise typer.BadParameter(f"{text!r}: every number must be in {low}..{high}")
        return numbers

    parse.__name__ = f"{flag.removeprefix('--')}_list"
    return parse


def config_command(config: str, *, skip: Sequence[str] = ()) -> type[LimitsHelpCommand]:
    """The command class (Typer's ``cls=``) of a command whose options are its own followed by
    the fields of the config dataclass ``config`` (``"module:Class"``) but those in ``skip``."""
    skipped = tuple(skip)

    class ConfigCommand(LimitsHelpCommand):
        """A command with its config's fields as options, built when first needed."""

        _own: list[Any]
        _all: list[Any] | None
        _generated: list[_Option] | None

        @property  # Click's attribute, computed on first use (one list: Click appends and pops on it)
        def params(self) -> list[Any]:
            if self._all is None:
                self._all = [*self._own, *(o.param for o in self._config_options())]
            return self._all

        @params.setter
        def params(self, value: list[Any]) -> None:  # Click's __init__ sets it
            self._own, self._all, self._generated = list(value), None, None

        def _config_options(self) -> list[_Option]:
            if self._generated is None:
                generated = _options(load_config_class(config), skipped)
                taken = {p.name for p in self._own} & {o.name for o in generated}
                if taken:
                    raise TypeError(f"{self.name}: options {sorted(taken)} declared twice")
                self._generated = generated
            return self._generated

        def invoke(self, ctx: Any) -> Any:
            # the config's values go to config_values(ctx); Typer's callback takes only its own
            ctx.meta[_GIVEN] = dict(ctx.params)
            values = {o.path: ctx.params.pop(o.name) for o in self._config_options()}
            ctx.meta[_VALUES] = _nest(load_config_class(config), values)
            return super().invoke(ctx)

    return ConfigCommand


def _nest(config: type[Any], values: dict[str, Any]) -> dict[str, Any]:
    """The config's keyword arguments from the options' values by dotted path (a nested
    config built from its own, its skipped fields at their defaults)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(config):
        default = field_default(f)
        if dataclasses.is_dataclass(default) and not isinstance(default, type):
            inner = {k.removeprefix(f"{f.name}."): v for k, v in values.items() if k.startswith(f"{f.name}.")}
            if inner:
                out[f.name] = type(default)(**_nest(type(default), inner))
        elif f.name in values:
            out[f.name] = values[f.name]
    return out


def config_values(ctx: typer.Context) -> dict[str, Any]:
    """The config fields the running command parsed, as the config's keyword arguments."""
    values: dict[str, Any] = ctx.meta[_VALUES]
    return dict(values)


def command_line(ctx: typer.Context) -> str:
    """The running command as a command line: its path and every option that differs from its
    default, config options included (what a model records as the command that produced it;
    also right when the command runs in-process, where ``sys.argv`` is the host's)."""
    words = ctx.command_path.split()
    given = ctx.meta.get(_GIVEN, ctx.params)
    for param in ctx.command.params:
        value = given.get(param.name)
        if param.param_type_name != "option" or value is None:
            continue
        name = param.opts[0]
        if getattr(param, "is_flag", False):
            if value != param.default:
                words.append(name if value else (param.secondary_opts or [name])[0])
        elif getattr(param, "multiple", False):
            for item in value:
                words += [name, str(item)]
        else:  # a tuple option's default is its text ("256,256")
            text = ",".join(str(v) for v in value) if isinstance(value, tuple) else str(value)
            if value != param.default and text != param.default:
                words += [name, text]
    return shlex.join(words)


__all__ = [
    "METADATA",
    "command_line",
    "config_command",
    "config_options",
    "config_values",
    "load_config_class",
]
