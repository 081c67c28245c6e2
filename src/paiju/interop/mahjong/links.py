"""Bots as the mahjong referee sees them (:class:`BotLink`): lines out, answer lines in.

:class:`ProcessBot` is a program, spoken to through
:class:`paiju.interop.programs.LineProgram` with time and line limits; :class:`LocalBot` is a
:class:`~paiju.interop.mahjong.bot.MahjongBot` in this process. A bot that breaks the
protocol raises :class:`Forfeit` (what that costs it is the referee's to decide)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn, Protocol, TypeVar

from paiju.interop.mahjong.bot import MahjongBot
from paiju.interop.mahjong.messages import Start
from paiju.interop.programs import LineProgram, ProgramError

T = TypeVar("T")

MAX_LINE = 4096
"""Longest answer line a bot may write (bytes, newline excluded)."""
STARTUP_LIMIT = 30.0
"""Seconds a bot has to answer ``/start`` (interpreter start-up and model loading included)."""


class Forfeit(Exception):
    """A bot broke the protocol; it loses the hand (``reason`` goes into the record)."""

    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(f"seat {seat}: {reason}")
        self.seat = seat
        self.reason = reason


class BotLink(Protocol):
    """A bot as the referee sees it: lines out, answer lines in."""

    name: str

    @property
    def alive(self) -> bool:
        """Whether the bot is running (a forfeit ends it; the next hand restarts it)."""
        ...

    def start(self, seat: int) -> str:
        """Start (or restart) the bot and shake hands; its ``ready`` line (raises Forfeit)."""
        ...

    def send(self, line: str) -> None:
        """A notification (no answer); raises Forfeit when the bot is gone."""
        ...

    def ask(self, line: str) -> str:
        """Send an ask and return the bot's answer line (raises Forfeit)."""
        ...

    def close(self) -> None: ...


class LocalBot:
    """A :class:`MahjongBot` in this process (tests, or paiju agents without the start-up)."""

    def __init__(self, bot: MahjongBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.alive = False
        self.seat = -1

    def start(self, seat: int) -> str:
        self.seat, self.alive = seat, True
        return self.bot.handle(Start(seat).format()) or ""

    def send(self, line: str) -> None:
        self.bot.handle(line)

    def ask(self, line: str) -> str:
        return self.bot.handle(line) or ""

    def close(self) -> None:
        self.alive = False


@dataclass
class ProcessBot:
    """A bot program (a command line, split like a shell would), started once per match and
    restarted after a forfeit. Every answer is due within ``time_limit`` seconds of its ask and
    is at most ``max_line`` bytes; output nobody asked for is a forfeit too. The program is
    driven through :class:`paiju.interop.programs.LineProgram`."""

    command: str
    time_limit: float = 5.0
    startup_limit: float = STARTUP_LIMIT
    max_line: int = MAX_LINE
    name: str = ""
    ready: bool = False
    """Running and through the ``/start`` handshake."""
    seat: int = -1

    def __post_init__(self) -> None:
        self.program = LineProgram(self.command, max_line=self.max_line)
        self.name = self.name or self.command

    @property
    def alive(self) -> bool:
        return self.program.running

    def spawn(self, seat: int) -> None:
        """Start the program without waiting for it (the referee starts all four, then shakes hands)."""
        self.close()
        self.seat = seat
        self._guard(self.program.start)

    def start(self, seat: int) -> str:
        if not self.alive or self.seat != seat:
            self.spawn(seat)
        line = self._exchange(Start(seat).format(), max(self.startup_limit, self.time_limit))
        if line.split()[:1] != ["ready"]:
            self._fail(f"answered {line[:80]!r} to /start, not 'ready'")
        self.ready = True
        return line

    def send(self, line: str) -> None:
        deadline = time.monotonic() + self.time_limit
        self._guard(lambda: self.program.write_line(line, deadline, self.time_limit))

    def ask(self, line: str) -> str:
        return self._exchange(line, self.time_limit)

    def _exchange(self, line: str, limit: float) -> str:
        deadline = time.monotonic() + limit
        if self.alive and self.program.has_unread_output():
            self._fail("wrote output nobody asked for")

        def exchange() -> str:
            self.program.write_line(line, deadline, self.time_limit)
            return self.program.read_line(deadline, limit)

        return self._guard(exchange)

    def _guard(self, step: Callable[[], T]) -> T:
        """Run one step of the conversation; a misbehaving program forfeits (and is ended)."""
        try:
            return step()
        except ProgramError as err:
            self._fail(err.reason)

    def _fail(self, reason: str) -> NoReturn:
        self.close()
        raise Forfeit(self.seat, reason)

    def close(self) -> None:
        """End the bot: close its input (a bot exits at end of input), then kill it if needed."""
        self.ready = False
        self.program.close()
