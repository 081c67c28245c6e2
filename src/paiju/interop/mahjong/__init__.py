"""paiju's line protocol for Taiwan 16-tile mahjong programs: a referee and four bots.

In the spirit of the TCGA/ICGA computer-mahjong framework (MJTALK's ``/initGame``,
``/initCard``, ``/mo``, ``/ask throw``): the referee writes one line per message to each bot's
standard input, in paiju's tile notation (``5m``, ``7z``, flowers ``1f``..``8f``), and a bot
answers only an ``/ask`` (and the ``/start`` handshake) with one line on its standard output.
Every message is in ``docs/mahjong-protocol.md``. One concern per module:

* ``messages``: the wire; each message as a value that formats and parses its line, the
  answers, and the ``/rules`` line of a :class:`~paiju.mahjong.config.MahjongConfig`.
* ``seat_view``: :class:`SeatView` rebuilds a seat's
  :class:`~paiju.mahjong.game.MahjongObservation` from the messages alone.
* ``bot``: :class:`MahjongBot` puts any paiju agent behind the protocol (``paiju mahjong bot``).
* ``links``: bots as the referee sees them (:class:`ProcessBot`: a program, with time and line
  limits; :class:`LocalBot`: a :class:`MahjongBot` in this process).
* ``referee``: :class:`Referee` plays a hand with the engine through
  :func:`paiju.core.protocol.play_game`, seating agents that proxy every decision to a bot. A
  bot that crashes, answers late, answers garbage or an illegal move forfeits the hand: it
  pays each other seat ``base + FORFEIT_TAI x per_tai`` and is restarted for the next hand;
  the hand is recorded with the reason.
* ``records``: a refereed hand as a game record, and its replay (``paiju records replay``).
* ``match``: hands one after another, recorded and reported (``paiju mahjong referee``).
"""

from paiju.interop.mahjong.bot import MahjongBot
from paiju.interop.mahjong.links import BotLink, Forfeit, LocalBot, ProcessBot
from paiju.interop.mahjong.match import SeatStats, play_match, run_referee
from paiju.interop.mahjong.messages import (
    Ask,
    Message,
    config_from_items,
    format_answer,
    parse_answer,
    parse_message,
    rules_items,
)
from paiju.interop.mahjong.records import replay_hand, replay_records
from paiju.interop.mahjong.referee import HandRecord, Referee, Table, Transcript, write_transcript
from paiju.interop.mahjong.seat_view import SeatView

__all__ = [
    "Ask",
    "BotLink",
    "Forfeit",
    "HandRecord",
    "LocalBot",
    "MahjongBot",
    "Message",
    "ProcessBot",
    "Referee",
    "SeatStats",
    "SeatView",
    "Table",
    "Transcript",
    "config_from_items",
    "format_answer",
    "parse_answer",
    "parse_message",
    "play_match",
    "replay_hand",
    "replay_records",
    "rules_items",
    "run_referee",
    "write_transcript",
]
