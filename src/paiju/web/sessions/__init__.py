"""Games played in the web app: one human seat against AI seats, replayable from seed + moves.

Why this shape: the server must survive a restart without pickling engine states, and an
illegal move must never leave a game half-changed. So a :class:`GameSession` is defined by
its *creation parameters* (game options, the human seat, the AI specs, a seed) plus the list
of decision actions played so far, each written as a short token. Chance (the deal, the wall,
yuxi's swap offers and die) is drawn from one generator seeded from the game seed and
consumed in order, so replaying the tokens rebuilds exactly the same state
(:meth:`GameSession.restore`). The engines' ``State.apply`` checks legality before changing
anything, so a refused move (``IllegalMoveError``) leaves the state as it was.

Each game kind (:class:`DouDizhuSession`, :class:`MahjongSession`, :class:`YuxiSession`)
knows how to read a human move from the request, encode/decode tokens, and describe the
table *as the human seat sees it* (``view``): only that seat's observation plus what is
public, never the AI's hidden cards until the game is over.

Where each piece lives: :mod:`.runner` runs AI decisions under their time limits,
:mod:`.base` holds what every game shares (:class:`GameSession`, and
:class:`IntActionSession` for games with integer actions), and each game has its own module
(:mod:`.doudizhu`, :mod:`.mahjong`, :mod:`.yuxi`). A new game is a new module with its
session class, imported here and registered by one entry in :data:`SESSION_KINDS` (the app's
start-up warms each registered game up through its session's ``warm_up``).
"""

from paiju.web.sessions.base import MAX_SEED, Entry, GameSession, IntActionSession, session_kinds
from paiju.web.sessions.doudizhu import DouDizhuSession
from paiju.web.sessions.mahjong import MahjongSession
from paiju.web.sessions.runner import AIRunner
from paiju.web.sessions.yuxi import YuxiSession

SESSION_KINDS = session_kinds(DouDizhuSession, MahjongSession, YuxiSession)
"""Game kinds the web app serves, by registry name."""

__all__ = [
    "MAX_SEED",
    "SESSION_KINDS",
    "AIRunner",
    "DouDizhuSession",
    "Entry",
    "GameSession",
    "IntActionSession",
    "MahjongSession",
    "YuxiSession",
]
