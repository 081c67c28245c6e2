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
        if observation.offer:
            self.say("swap offer: give a hand card back to your deck for one of these "
                     "(swap <give>-><take>), or keep")
            for line in self.hand_lines(observation.offer):
                self.say("  " + line)
        self.say(f"{'AB'[self.seat]} to play; legal moves:")
        for line in self.move_lines(texts):
            self.say(line)
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
    def move_lines(texts: Sequence[str], width: int = 80) -> list[str]:
        """The numbered moves, a line per card: one card's plays on many cells share a line
        (``3-14. play reef_crab@ a1 b1 ...``), as do the swaps taking one offered card
        (``2-7. swap <give>->peddler, give: reef_crab shell_guard ...``); a number stands for
        its cell or card in that order. The list stays a few lines, the board above it on screen."""
        out: list[str] = []
        i = 0
        while i < len(texts):
            head, item = _group(texts[i])
            j = i + 1
            while item and j < len(texts) and _group(texts[j])[0] == head:
                j += 1
            if j - i == 1:
                out.append(f"  {i + 1:>2}. {texts[i]}")
            else:
                items = " ".join(_group(t)[1] for t in texts[i:j])
                label = f"{i + 1}-{j}."
                out.extend(textwrap.wrap(f"{label:>7} {head} {items}", width, subsequent_indent=" " * 8))
            i = j
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


def _group(text: str) -> tuple[str, str]:
    """(what moves of a line share, what tells them apart): ``play reef_crab@b2`` ->
    ``("play reef_crab@", "b2")``, ``swap peddler->king_crab`` -> ``("swap <give>->king_crab,
    give:", "peddler")``; other moves stand alone."""
    if text.startswith("play ") and "@" in text:
        head, _, cell = text.partition("@")
        return head + "@", cell
    if text.startswith("swap ") and "->" in text:
        give, _, take = text[5:].partition("->")
        return f"swap <give>->{take}, give:", give
    return text, ""
