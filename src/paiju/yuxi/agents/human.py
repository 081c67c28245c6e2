"""A person at the terminal as a yuxi seat: the legal moves listed, the move typed in notation.

The agent sees only its observation, like every agent; to write and read moves in the
game's notation (``play reef_crab@b2``, ``swap peddler->reef_crab``, ``end``) it rebuilds a
state consistent with that observation (:meth:`YuxiGame.sample_state`: its own hand and
swap offer are copied exactly, which is all the notation of its own moves needs).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from paiju.core.errors import PaijuError
from paiju.core.protocol import Action
from paiju.core.rng import as_generator
from paiju.yuxi.game import YuxiGame


class HumanQuit(Exception):
    """The person left the game (end of input or Ctrl-C at the prompt)."""

    def __init__(self, interrupted: bool) -> None:
        super().__init__("interrupted" if interrupted else "end of input")
        self.interrupted = interrupted


class HumanAgent:
    """Asks ``ask(prompt)`` for each move until it is a legal move; ``say`` shows the moves
    and the reason a typed move was refused. A move may be typed in notation or as its
    number in the list."""

    def __init__(
        self,
        game: YuxiGame,
        seat: int,
        ask: Callable[[str], str] = input,
        say: Callable[[str], None] = print,
        name: str = "human",
    ) -> None:
        self.game = game
        self.seat = seat
        self.ask = ask
        self.say = say
        self.name = name

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        # The seed only fills in the opponent's hidden cards, which no own move names.
        state = self.game.sample_state(observation, as_generator(0))
        texts = [state.action_to_string(a) for a in legal_actions]
        for line in self.hand_lines(observation.hand):
            self.say(line)
        self.say(f"{'AB'[self.seat]} to play; legal moves:")
        for i, text in enumerate(texts, 1):
            self.say(f"  {i:>2}. {text}")
        while True:
            try:
                line = self.ask(f"{'AB'[self.seat]}> ").strip()
            except EOFError:
                raise HumanQuit(False) from None
            except KeyboardInterrupt:
                raise HumanQuit(True) from None
            problem, action = self._read(line, texts, legal_actions, state)
            if problem is None:
                return action
            self.say(f"{problem}; type a move from the list (or its number)")

    def hand_lines(self, hand: Sequence[int], width: int = 80) -> list[str]:
        """Each hand card with its points, cost and text, wrapped to ``width`` columns."""
        out = []
        for cid in dict.fromkeys(hand):
            c = self.game.table.card(cid)
            head = f"{c.key} ({c.points or '-'} pts, cost {c.cost or 0})"
            out.extend(textwrap.wrap(f"{head}: {c.text}", width, subsequent_indent="    "))
        return out

    @staticmethod
    def _read(line: str, texts: list[str], legal: Sequence[Action], state: Any) -> tuple[str | None, Any]:
        """(None, action) for a legal move, else (the reason, None)."""
        if not line:
            return "no move typed", None
        if line.isdigit():
            k = int(line)
            if 1 <= k <= len(texts):
                return None, legal[k - 1]
            return f"{k} is not a move number (1..{len(texts)})", None
        if line in texts:
            return None, legal[texts.index(line)]
        try:
            action = state.parse_action(line)
        except (PaijuError, ValueError, KeyError) as err:
            return str(err), None
        if action in legal:
            return None, action
        return f"{line!r} is not a legal move now", None
