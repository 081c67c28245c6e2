"""The CLI's boundary: every value a user types is checked here, before any work starts.

Shared by every ``paiju`` command: seeds and counts (with their documented maxima, which
``--help`` shows as ``[1<=x<=MAX]``), output and input paths, hands, agent line-ups, game
options, the server's listen address. Checks that run while Typer parses the command line
(``parser=`` functions) raise :class:`typer.BadParameter`, which the entry point
(:mod:`paiju.cli.main`) prints as one line naming the option; checks that need the game
(agent specs, game options) raise :class:`~paiju.core.errors.ConfigError`, also one line.

Only the standard library, Typer and the error types are imported here at module level, so
``paiju --help`` stays fast; the game modules are imported inside the functions that need them.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperOption

from paiju.core.errors import ConfigError

# --- documented maxima (shown by --help; a request above one is refused before it starts) ----

MAX_SEED = 2**63 - 1
"""Seeds are 0..2**63-1: what :func:`paiju.core.rng.derive_seed` produces and records store."""
MAX_GAMES = 1_000_000
"""``paiju arena --games``: a million games is hours of play for the fastest agents."""
MAX_SELFPLAY_GAMES = 10_000_000
"""``paiju ddz selfplay --games``: self-play for training data runs larger than a match."""
MAX_HANDS = 1_000_000
"""Hands of the mahjong commands that count hands (``mahjong table4``, ``mahjong alpha-sweep``)."""
MAX_WORKERS = 256
"""``--workers`` of every command (local processes or Ray tasks in flight)."""
MAX_YUXI_GAMES = 100_000
"""``paiju yuxi audit --games`` and ``paiju yuxi balance --games`` (per board and die setting)."""
MAX_DIH_PLAYERS = 100_000
MAX_DIH_ROUNDS = 200
"""``paiju dih value --rounds``: the total-score law of M rounds is M convolutions."""
MAX_SELECT_ROUNDS = 60
"""``paiju dih select --rounds``: one deal per round, chosen from the pool."""
MAX_BEAM = 16
"""``paiju dih select --beam``: the joint search costs about beam × pool per round."""
MAX_MIN_PLAYS = 1_000_000
MAX_POOL = 1_000_000
"""``paiju dih pool --count``."""
MAX_PLAYS = 100_000
"""``paiju dih dists --plays`` (plays per deal when simulating)."""
MAX_TOURNAMENTS = 1_000_000
"""``paiju dih validate --tournaments``."""


# --- the agents an option takes: listed by `paiju agents GAME`, named in the help ---------------


def agents_help(text: str, *games: str) -> str:
    """Help of an ``--agents`` option: ``text``, then where the agents of ``games`` are listed
    with their parameters, defaults and ranges (``paiju agents GAME``: one list, not one per
    command's help, where it ran to dozens of lines at 80 columns)."""
    where = f"paiju agents {games[0]}" if len(games) == 1 else "paiju agents GAME"
    return f"{text} Agents and their parameters: {where}."


class LimitsHelpCommand(TyperCommand):
    """The class of every ``paiju`` command: a ``--help`` that reads at 80 columns.

    Typer prints a value's range beside its type (``<int range> [0<=x<=9223372036854775807]``),
    which widens the type column until the descriptions are squeezed into a few characters
    and the range itself breaks across lines; here the range goes after the description
    instead, the type column says only ``<int>``, and a flag shows no ``<bool>``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.short_help is None and self.help:
            # the group's listing shows the first paragraph with the docstring's line breaks,
            # ragged at 80 columns: as one line instead, which Rich wraps
            self.short_help = " ".join(inspect.cleandoc(self.help).split("\n\n")[0].split())

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from rich.markup import escape

        shown: list[tuple[Any, dict[str, Any]]] = []
        for param in self.get_params(ctx):  # with --help
            # typer's options and arguments carry help text; the base parameter class does not
            if not isinstance(param, TyperOption | TyperArgument):
                continue
            saved = {"help": param.help, "metavar": param.metavar}
            help_text = param.help or ""
            limits = param._get_number_range_help_str()
            if limits:
                saved |= {"min": getattr(param, "min", None), "max": getattr(param, "max", None)}
                help_text = f"{help_text} {escape(f'[{limits}]')}".strip()  # [x>=0] is a tag to Rich
                if param.metavar is None:
                    param.metavar = (param.display_type(ctx) or "").replace(" range>", ">")
                param.min = param.max = None  # restored below
            if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
                param.metavar = ""
            if isinstance(param, TyperOption) and param.multiple and param.metavar is None:
                # <list[str]> -> <str>...: Click's way of saying "one or more"
                param.metavar = re.sub(r"<list\[(.*)\]>", r"<\1>...", param.display_type(ctx) or "")
            param.help = help_text or None
            shown.append((param, saved))
        from typer import rich_utils

        text = self.help
        if text:
            # Typer keeps the docstring's line breaks after its first paragraph, which leaves
            # ragged half-lines at 80 columns: each paragraph is rewrapped as one line instead
            self.help = "\n\n".join(" ".join(part.split()) for part in inspect.cleandoc(text).split("\n\n"))
        padding = rich_utils.STYLE_OPTIONS_TABLE_PADDING
        # one space between the option table's columns, not two: six more for the descriptions
        rich_utils.STYLE_OPTIONS_TABLE_PADDING = (0, 1, 0, 0)  # type: ignore[assignment]  # Rich takes 4
        try:
            super().format_help(ctx, formatter)
        finally:  # the parameters parse as before if the command is used after its help
            rich_utils.STYLE_OPTIONS_TABLE_PADDING = padding
            self.help = text
            for param, saved in shown:
                for key, value in saved.items():
                    setattr(param, key, value)


# --- parsers: run while the command line is parsed, raise typer.BadParameter --------------------


def _text(value: str | os.PathLike[str]) -> str:
    # Typer also passes the (already converted) default through the parser
    return os.fspath(value)


def output_dir(value: str | os.PathLike[str]) -> Path:
    """A folder to write into: absent (and creatable) or an existing, writable folder."""
    text = _text(value)
    if not text.strip():
        raise typer.BadParameter("empty path; name the folder to write to")
    path = Path(text)
    if path.exists():
        if not path.is_dir():
            raise typer.BadParameter(f"{text} is a file, not a folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise typer.BadParameter(f"folder {text} is not writable")
        return path
    _check_creatable(path, text)
    return path


def output_file(value: str | os.PathLike[str]) -> Path:
    """A file to write: not a folder, in an existing writable folder."""
    text = _text(value)
    if not text.strip():
        raise typer.BadParameter("empty path; name the file to write")
    path = Path(text)
    if path.is_dir():
        raise typer.BadParameter(f"{text} is a folder, not a file")
    parent = path.parent
    if not parent.exists():
        raise typer.BadParameter(f"cannot write {text}: folder {parent} does not exist")
    if not parent.is_dir():
        raise typer.BadParameter(f"cannot write {text}: {parent} is a file, not a folder")
    if not os.access(path if path.exists() else parent, os.W_OK):
        raise typer.BadParameter(f"cannot write {text}: permission denied")
    return path


def _check_creatable(path: Path, text: str) -> None:
    ancestor = path.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise typer.BadParameter(f"cannot create folder {text}: {ancestor} is a file")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise typer.BadParameter(f"cannot create folder {text}: {ancestor} is not writable")


def input_file(value: str | os.PathLike[str]) -> Path:
    """An existing, readable file."""
    text = _text(value)
    if not text.strip():
        raise typer.BadParameter("empty path; name the file to read")
    path = Path(text)
    if not path.exists():
        raise typer.BadParameter(f"{text} does not exist")
    if path.is_dir():
        raise typer.BadParameter(f"{text} is a folder, not a file")
    if not os.access(path, os.R_OK):
        raise typer.BadParameter(f"{text} is not readable")
    return path


def existing_dir(name: str = "the folder to read", kind: str = "a folder") -> Callable[[Any], Path]:
    """A parser of an existing folder; ``name`` and ``kind`` word its errors ("empty path; name
    {name}", "... is a file, not {kind}")."""

    def parse(value: str | os.PathLike[str]) -> Path:
        text = _text(value)
        if not text.strip():
            raise typer.BadParameter(f"empty path; name {name}")
        path = Path(text)
        if not path.exists():
            raise typer.BadParameter(f"{text} does not exist")
        if not path.is_dir():
            raise typer.BadParameter(f"{text} is a file, not {kind}")
        return path

    return parse


input_dir = existing_dir()
"""An existing folder."""


def parquet_input(value: str | os.PathLike[str]) -> Path:
    """A Parquet file, or a folder holding at least one (game records, distribution tables)."""
    text = _text(value)
    if not text.strip():
        raise typer.BadParameter("empty path; name a Parquet file or a folder of them")
    path = Path(text)
    if not path.exists():
        raise typer.BadParameter(f"{text} does not exist")
    if path.is_dir():
        # the records module skips the writer's temporary files; use its own listing
        from paiju.core.records import record_files

        if not record_files(path):
            raise typer.BadParameter(f"folder {text} holds no .parquet files")
    elif not os.access(path, os.R_OK):
        raise typer.BadParameter(f"{text} is not readable")
    return path


def _not_empty(what: str, example: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if not str(value).strip():
            raise typer.BadParameter(f"empty {what}; give one, e.g. {example}")
        return str(value)

    return parse


ddz_hand = _not_empty("hand", "34445556789TA22XD")
"""A Dou Dizhu hand argument (its notation is checked by :meth:`Hand.parse`)."""
ddz_move = _not_empty("move", "3456789 (omit --beat for a free lead)")
ddz_deal = _not_empty("deal", "[33445566778899TTJ][JQQKKAA22XD3456][789TJQKA234567890]")
mahjong_hand = _not_empty("hand", "123m456p789s1122z")


_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = rf"^(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*\.?$"
"""RFC 1123 host names (compiled on first use, by :func:`re.match`'s cache)."""


def listen_address(value: str) -> str:
    """A host the server can listen on: an IP literal or host name of this machine."""
    import ipaddress  # imported here: only `paiju serve` needs them, every command starts faster
    import socket

    host = str(value).strip()
    if not host:
        raise typer.BadParameter("empty address; use e.g. 127.0.0.1, ::1 or 0.0.0.0")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if not re.match(_HOSTNAME, host):
            raise typer.BadParameter(f"{host!r} is neither an IP address nor a host name") from None
    try:
        family, kind, proto, _, sockaddr = socket.getaddrinfo(
            host, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        # binding port 0 proves the address belongs to this machine without taking a port
        with socket.socket(family, kind, proto) as probe:
            probe.bind(sockaddr)
    except OSError as err:
        raise typer.BadParameter(f"cannot listen on {host}: {err.strerror or err}") from None
    return host


# --- checks that need the game: raise ConfigError ------------------------------------------


def agent_line_up(
    text: str, registry: Any, expected: int | None = None, option: str = "--agents"
) -> list[str]:
    """Split ``--agents`` into specs and validate each through the game's agent registry
    (name, parameters, every parameter's range), before any game is played."""
    from paiju.cli.common import split_agents

    specs = split_agents(text)
    if expected is not None and len(specs) != expected:
        raise ConfigError(f"{option} {text!r}: expected {expected} agents, got {len(specs)}")
    for spec in specs:
        if not spec:
            raise ConfigError(f"{option} {text!r}: an empty agent spec (two commas, or a trailing comma)")
        registry.resolve(spec)
    return specs


def game_options(game: str, items: list[str] | None) -> dict[str, Any]:
    """``--option key=value`` pairs as typed keyword options of game ``game``.

    Keys are the fields of the game's rules configuration (``DouDizhuConfig``,
    ``MahjongConfig``, ``YuxiConfig``) or, for a game without one, its constructor's keyword
    parameters; values are converted to the field's type (bool: true/false, numbers, a
    choice, ``none`` for an optional value, comma-separated lists). The game then validates
    the values themselves, so an unknown key, a wrong type and an out-of-range value are each
    a :class:`ConfigError` naming the option.
    """
    if not items:
        return {}
    fields = option_fields(game)
    options: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--option {item!r}: write key=value, e.g. wing_rule=rlcard")
        if key not in fields:
            raise ConfigError(
                f"--option {item!r}: {game} has no option {key!r}; options: {', '.join(sorted(fields))}"
            )
        if key in options:
            raise ConfigError(f"--option {key} given twice")
        options[key] = _convert_option(game, key, raw.strip(), fields[key])
    from paiju.core.registry import load_game

    load_game(game, **options)  # the game's own checks (ranges, choices) name the bad value
    return options


def option_fields(game: str) -> dict[str, Any]:
    """The settable rule options of ``game`` with their types (for ``--option`` and its help)."""
    import dataclasses
    import inspect
    import typing

    from paiju.core.registry import load_game

    instance = load_game(game)
    config = getattr(instance, "config", None)
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        hints = typing.get_type_hints(type(config))
        return {f.name: hints[f.name] for f in dataclasses.fields(config) if _convertible(hints[f.name])}
    # a game without a config dataclass takes its options as constructor keywords
    init = type(instance).__init__
    hints = typing.get_type_hints(init)
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(init).parameters.items():
        kind = hints.get(name, type(param.default))
        if name != "self" and param.default is not inspect.Parameter.empty and _convertible(kind):
            fields[name] = kind
    return fields


def _convertible(kind: Any) -> bool:
    import types
    import typing

    origin = typing.get_origin(kind)
    if kind in (bool, int, float, str):
        return True
    if origin is typing.Literal:
        return True
    if origin in (typing.Union, types.UnionType):
        return all(a is type(None) or _convertible(a) for a in typing.get_args(kind))
    if origin in (frozenset, set, tuple, list):
        return all(a is Ellipsis or a is str for a in typing.get_args(kind))
    return False


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _convert_option(game: str, key: str, raw: str, kind: Any) -> Any:
    import types
    import typing

    origin = typing.get_origin(kind)
    where = f"--option {key}={raw}"
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        if raw.lower() == "none" and len(args) < len(typing.get_args(kind)):
            return None
        if len(args) == 1:
            return _convert_option(game, key, raw, args[0])
        raise ConfigError(f"{where}: {game} option {key} cannot be set from the command line")
    if origin is typing.Literal:
        allowed = [str(a) for a in typing.get_args(kind)]
        if raw not in allowed:
            raise ConfigError(f"{where}: use one of {', '.join(allowed)}")
        return raw
    if origin in (frozenset, set, tuple, list):
        # JSON-friendly (the arena stores game options in run.json); the config converts
        return [part.strip() for part in raw.split(",") if part.strip()]
    if kind is bool:
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise ConfigError(f"{where}: use true or false")
    if kind is int:
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(f"{where}: not a whole number") from None
    if kind is float:
        try:
            number = float(raw)
        except ValueError:
            raise ConfigError(f"{where}: not a number") from None
        if number != number or number in (float("inf"), float("-inf")):
            raise ConfigError(f"{where}: not a finite number")
        return number
    return raw
