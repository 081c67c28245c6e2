"""External programs that paiju's referees and judges run: how a command line is read, and
how a program is spoken to one line at a time with deadlines (:class:`LineProgram`)."""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import subprocess
import threading
import time
from typing import IO

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


STDERR_KEEP = 8192
"""Bytes of a program's standard error kept (its end): enough for its last lines."""


class _StderrTail:
    """Reads a program's standard error as it comes, in a thread, keeping only its end: a
    program that writes much there is never blocked, and a crash can quote its last line."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._data = b""
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(stream.fileno(), 65536):
                with self._lock:
                    self._data = (self._data + chunk)[-STDERR_KEEP:]
        with contextlib.suppress(OSError):
            stream.close()

    def last_line(self, wait: float = 1.0) -> str:
        """The last non-empty line written (at most 200 characters), once the program's end
        of standard error is read or ``wait`` seconds have passed."""
        self._thread.join(wait)
        with self._lock:
            lines = [ln.strip() for ln in self._data.decode(errors="replace").splitlines()]
        lines = [ln for ln in lines if ln]
        return " ".join(lines[-1].split())[:200] if lines else ""


class ProgramError(Exception):
    """The program misbehaved (``reason``: how, as a record states it); what that costs it is
    the protocol's to decide (the Botzone judge and the mahjong referee: a forfeit)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class LineProgram:
    """A running external program spoken to in lines over its standard input and output.

    Started from a command line without a shell (:func:`command_argv`); of its standard
    error only the end is kept, and a crash quotes its last line. Writes never block the
    caller past their deadline (the program's input is non-blocking, so a program that stops
    reading cannot hang a match), reads wait at most until theirs, and a line longer than
    ``max_line`` bytes is refused. Every failure is a :class:`ProgramError`; the program is
    not killed by one (call :meth:`close`).
    """

    def __init__(self, command: str, *, max_line: int | None = None) -> None:
        self.command = command
        self.argv = command_argv(command)
        self.max_line = max_line
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: _StderrTail | None = None
        self._buffer = b""

    @property
    def running(self) -> bool:
        return self._proc is not None

    def start(self) -> None:
        """Start the program (ending a previous run of it first)."""
        self.close()
        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except OSError as err:
            raise ProgramError(f"could not start ({err.strerror})") from None
        assert self._proc.stdin is not None and self._proc.stderr is not None
        self._stderr = _StderrTail(self._proc.stderr)
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
                    raise ProgramError(self._crashed(proc)) from None

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
                raise ProgramError(self._crashed(proc))
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if self.max_line is not None and len(line) > self.max_line:
            raise ProgramError(f"answered a line longer than {self.max_line} bytes")
        return line.decode(errors="replace").rstrip("\r")

    def _crashed(self, proc: subprocess.Popen[bytes]) -> str:
        """``crashed (exit code N)``, and the last line the program wrote on standard error."""
        code = proc.wait()
        last = self._stderr.last_line() if self._stderr is not None else ""
        return f"crashed (exit code {code})" + (f": {last}" if last else "")

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
        self._stderr = None  # its thread ends at the program's end of standard error
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
