"""External programs that paiju's referees and judges run: how a command line is read, and
how a program is spoken to one line at a time with deadlines (:class:`LineProgram`)."""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import subprocess
import time

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


class ProgramError(Exception):
    """The program misbehaved (``reason``: how, as a record states it); what that costs it is
    the protocol's to decide (the Botzone judge and the mahjong referee: a forfeit)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class LineProgram:
    """A running external program spoken to in lines over its standard input and output.

    Started from a command line without a shell (:func:`command_argv`); its standard error
    is discarded. Writes never block the caller past their deadline (the program's input is
    non-blocking, so a program that stops reading cannot hang a match), reads wait at most
    until theirs, and a line longer than ``max_line`` bytes is refused. Every failure is a
    :class:`ProgramError`; the program is not killed by one (call :meth:`close`).
    """

    def __init__(self, command: str, *, max_line: int | None = None) -> None:
        self.command = command
        self.argv = command_argv(command)
        self.max_line = max_line
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""

    @property
    def running(self) -> bool:
        return self._proc is not None

    def start(self) -> None:
        """Start the program (ending a previous run of it first)."""
        self.close()
        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
        except OSError as err:
            raise ProgramError(f"could not start ({err.strerror})") from None
        assert self._proc.stdin is not None
        os.set_blocking(self._proc.stdin.fileno(), False)
        self._buffer = b""

    def write_line(self, line: str, deadline: float, limit: float) -> None:
        """Send ``line`` (a newline is added) before ``deadline`` (``time.monotonic()``);
        ``limit`` is the allowance the error message quotes."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise ProgramError("is not running")
        data = (line + "\n").encode()
        fd = proc.stdin.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while data:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise ProgramError(f"stopped reading its input (blocked for {limit:g} s)")
                try:
                    data = data[os.write(fd, data) :]
                except BlockingIOError:
                    continue
                except OSError:
                    raise ProgramError(f"crashed (exit code {proc.wait()})") from None

    def has_unread_output(self) -> bool:
        """Whether the program wrote something not read yet (e.g. an answer nobody asked for)."""
        return bool(self._buffer) or self._readable(0.0)

    def read_line(self, deadline: float, limit: float) -> str:
        """The next line the program writes (without its line end), due before ``deadline``;
        ``limit`` is the allowance the error message quotes."""
        proc = self._proc
        if proc is None or proc.stdout is None:
            raise ProgramError("is not running")
        fd = proc.stdout.fileno()
        while b"\n" not in self._buffer:
            if self.max_line is not None and len(self._buffer) > self.max_line:
                raise ProgramError(f"answered a line longer than {self.max_line} bytes")
            left = deadline - time.monotonic()
            if left <= 0 or not self._readable(left):
                raise ProgramError(f"timed out (no answer within {limit:g} s)")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise ProgramError(f"crashed (exit code {proc.wait()})")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if self.max_line is not None and len(line) > self.max_line:
            raise ProgramError(f"answered a line longer than {self.max_line} bytes")
        return line.decode(errors="replace").rstrip("\r")

    def _readable(self, timeout: float) -> bool:
        proc = self._proc
        if proc is None or proc.stdout is None:
            return False
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout.fileno(), selectors.EVENT_READ)
            return bool(sel.select(timeout))

    def close(self, grace: float = 0.5) -> None:
        """End the program: close its input (a program that is done exits at end of input),
        wait ``grace`` seconds, then kill it."""
        proc, self._proc = self._proc, None
        self._buffer = b""
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
