"""External programs that paiju's referees and judges run: how a command line is read."""

from __future__ import annotations

import shlex

from paiju.core.errors import ConfigError


def command_argv(command: str) -> list[str]:
    """The argument vector of a bot's command line (shell quoting, no shell run).

    Raises:
        ConfigError: the command is empty or its quoting is broken, naming the command.
    """
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise ConfigError(f"bot command {command!r}: {err}") from None
    if not argv:
        raise ConfigError("empty bot command")
    return argv
