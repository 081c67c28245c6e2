"""A paiju agent as a program of the mahjong line protocol (``paiju mahjong bot``):
:class:`MahjongBot` reads referee lines, keeps its seat's view and answers each ``/ask`` with
the agent's move; a line out of the protocol's order is refused, naming the line and why."""

from __future__ import annotations

from typing import IO

from paiju.core.errors import IllegalMoveError, InvalidNotationError
from paiju.core.protocol import Agent
from paiju.interop.mahjong.messages import (
    AskClaim,
    AskRob,
    AskTurn,
    Chow,
    Draw,
    End,
    Flower,
    ForfeitNotice,
    InitCard,
    InitGame,
    Kong,
    Mo,
    Pung,
    Quit,
    Rules,
    Start,
    Throw,
    Win,
    format_answer,
    parse_message,
)
from paiju.interop.mahjong.seat_view import SeatView
from paiju.mahjong.game import MahjongObservation

MAX_MESSAGE = 65536
"""Longest referee line a bot reads (characters): the longest real one, a ``/rules`` with a
tai table of one's own, is a few hundred; a flood without a line end is refused, not buffered."""


def _out_of_order(line: str, why: str) -> IllegalMoveError:
    """A well-formed line that cannot come now (docs/mahjong-protocol.md, "Order")."""
    return IllegalMoveError(f"mahjong protocol line {line[:80]!r} cannot come now: {why}")


Decision = tuple[MahjongObservation, list[int]]
"""An observation and its legal actions."""


class MahjongBot:
    """A paiju agent as a protocol program: lines in, one answer line per ``/ask``.

    ``decisions`` (when a list is given) receives ``(observation, legal_actions)`` of every
    decision, as rebuilt from the messages (the tests compare them with the engine's).
    """

    def __init__(
        self, agent: Agent[int], name: str = "", decisions: list[Decision] | None = None
    ) -> None:
        self.agent = agent
        self.name = name or getattr(agent, "name", "paiju")
        self.view = SeatView()
        self.decisions = decisions
        self.done = False
        self.stage = "new"
        """Where the conversation is: new (before /start), table (between hands), init (after
        /initGame, before /initCard), hand; each admits only some messages (_ADMITS)."""

    @classmethod
    def from_spec(cls, spec: str, seed: int = 0) -> MahjongBot:
        from paiju.mahjong.agents import REGISTRY

        return cls(REGISTRY.make(spec, seed=seed), name=f"paiju-{spec}")

    def handle(self, line: str) -> str | None:
        """Read one referee line; the answer line for ``/start`` and ``/ask``, else None.

        Raises:
            InvalidNotationError: the line is no message.
            IllegalMoveError: a message that cannot come now (before its prerequisite, or one
                the seat's own view contradicts), naming the line and why.
        """
        line = line.rstrip("\r\n")
        if self.done:
            raise _out_of_order(line, "nothing comes after /quit")
        msg = parse_message(line)
        if not isinstance(msg, _ADMITS[self.stage]):
            raise _out_of_order(line, f"{msg.verb} {_STAGE_WORDS[self.stage]}")
        why = self.view.refusal(msg) if self.stage in ("init", "hand") else None
        if why is not None:
            raise _out_of_order(line, why)
        # the stage moves only once the message is taken: a line refused half-way (by the
        # view or the agent) leaves the conversation where it was
        next_stage = _NEXT_STAGE.get(type(msg), self.stage)
        if isinstance(msg, Quit):
            self.stage, self.done = next_stage, True
            return None
        if isinstance(msg, AskTurn | AskClaim | AskRob):
            obs = self.view.observation(msg)
            legal = self.view.legal_actions(msg)
            if self.decisions is not None:
                self.decisions.append((obs, legal))
            action = int(self.agent.act(obs, legal))
            self.view.answered(msg, action)
            self.stage = next_stage
            return format_answer(msg, action)
        self.view.handle(msg)
        self.stage = next_stage
        if isinstance(msg, Start):
            return f"ready {'_'.join(self.name.split()) or 'paiju'}"
        return None

    def serve(self, stdin: IO[str], stdout: IO[str]) -> None:
        """Answer the referee until ``/quit`` or the end of the input; a bad line raises."""
        while not self.done:
            try:
                line = stdin.readline(MAX_MESSAGE + 1)
            except UnicodeDecodeError as err:
                raise InvalidNotationError(f"a referee line is not UTF-8 ({err.reason})") from None
            if not line:
                return
            if len(line) > MAX_MESSAGE:
                raise InvalidNotationError(f"a referee line longer than {MAX_MESSAGE} characters")
            if not line.strip():
                continue
            answer = self.handle(line)
            if answer is not None:
                stdout.write(answer + "\n")
                stdout.flush()


_TABLE_MESSAGES = (Start, Quit, ForfeitNotice, End)
"""Admitted whenever the bot has started: a restart, the end, a forfeit (also between hands:
a bot that fails to start forfeits the hand before its /initGame)."""
_ADMITS: dict[str, tuple[type, ...]] = {
    "new": (Start, Quit),
    "table": (*_TABLE_MESSAGES, Rules, InitGame),
    "init": (*_TABLE_MESSAGES, InitCard),
    "hand": (*_TABLE_MESSAGES, Flower, Mo, Draw, Throw, Pung, Chow, Kong, AskTurn, AskClaim, AskRob, Win),
}
_STAGE_WORDS = {"new": "before /start", "table": "between hands (before /initGame)",
                "init": "before /initCard", "hand": "during a hand"}
_NEXT_STAGE: dict[type, str] = {Start: "table", InitGame: "init", InitCard: "hand", End: "table"}
