"""paiju's line protocol for Taiwan 16-tile mahjong programs: a referee and four bots.

In the spirit of the TCGA/ICGA computer-mahjong framework (MJTALK's ``/initGame``,
``/initCard``, ``/mo``, ``/ask throw``): the referee writes one line per message to each bot's
standard input, in paiju's tile notation (``5m``, ``7z``, flowers ``1f``..``8f``), and a bot
answers only an ``/ask`` (and the ``/start`` handshake) with one line on its standard output.
Every message is in ``docs/mahjong-protocol.md``.

* Messages are frozen dataclasses with ``format()``; :func:`parse_message` reads a line back
  (``parse_message(m.format()) == m``). Answers: :func:`format_answer` / :func:`parse_answer`.
* :class:`SeatView` rebuilds a seat's :class:`~paiju.mahjong.game.MahjongObservation` from the
  messages alone; :class:`MahjongBot` puts any paiju agent behind it (``paiju mahjong bot``).
* :class:`Referee` plays hands with the engine through :func:`paiju.core.protocol.play_game`,
  seating agents that proxy every decision to a bot (:class:`ProcessBot`: a program, with time
  and line limits; :class:`LocalBot`: a :class:`MahjongBot` in this process). A bot that
  crashes, answers late, answers garbage or an illegal move forfeits the hand: it pays each
  other seat ``base + FORFEIT_TAI x per_tai`` and is restarted for the next hand; the hand is
  recorded with the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, ClassVar, NoReturn, Protocol, TypeVar

from paiju.core.errors import ConfigError, IllegalMoveError, InvalidNotationError, PaijuError
from paiju.core.protocol import CHANCE, Agent, PlayedGame, State, play_game
from paiju.core.rng import derive_seed
from paiju.core.stats import Estimate, mean_ci, proportion_ci
from paiju.interop.programs import LineProgram, ProgramError
from paiju.mahjong.config import MahjongConfig, load_tai_table
from paiju.mahjong.game import (
    ADDED_KONG,
    CHOW_HIGH,
    CHOW_LOW,
    CHOW_MID,
    CONCEALED_KONG,
    HAND_SIZE,
    KONG,
    LOCK_ALL_DISCARDS,
    NUM_PLAYERS,
    PASS,
    PUNG,
    WIN,
    DrawKind,
    MahjongGame,
    MahjongObservation,
    MahjongState,
    Phase,
    wall_notation,
)
from paiju.mahjong.scoring import ligu_waits, waits
from paiju.mahjong.tiles import (
    FLOWER_BASE,
    NUM_KINDS,
    NUM_TILES,
    NUM_TILES_WITH_FLOWERS,
    Meld,
    MeldType,
    format_counts,
    format_tiles,
    parse_kinds,
    tile_name,
    wall_tile_name,
)

T = TypeVar("T")

PROTOCOL = "MJ16"
"""The protocol's name in ``/start``."""
WINDS = ("east", "south", "west", "north")
SOURCES = ("deal", "normal", "flower", "replacement")
"""Where a drawn tile came from: replacing a flower of the deal (tail), a normal draw (head),
replacing a flower drawn on a normal draw (tail), a kong's replacement (tail)."""
KONG_KINDS = ("exposed", "concealed", "added")
WIN_KINDS = ("selfdraw", "discard", "robkong", "flowers")
END_KINDS = ("win", "exhaustive", "forfeit")
FORFEIT_TAI = 8
"""A forfeit (詐胡-like penalty): the offender pays each other seat ``base + 8 x per_tai``."""
MAX_LINE = 4096
"""Longest answer line a bot may write (bytes, newline excluded)."""
MAX_MESSAGE = 65536
"""Longest referee line a bot reads (characters): the longest real one, a ``/rules`` with a
tai table of one's own, is a few hundred; a flood without a line end is refused, not buffered."""
HELD = 3 * 5 + 2
"""Tiles a seat holds on its turn, a meld counted as 3 (a kong too: its fourth is replaced)."""
STARTUP_LIMIT = 30.0
"""Seconds a bot has to answer ``/start`` (interpreter start-up and model loading included)."""
if TYPE_CHECKING:  # the arena is imported only when records are replayed
    from paiju.core.arena import ReplayCheck

_FLOWER_WINS = ("八仙過海", "七搶一")
NUM_FLOWERS = 8
_COUNT_WORDS = ("no", "one", "two", "three", "four", "five")
_TABLE_FIELDS = ("dealer", "continuation", "round_wind")
"""Config fields that change hand by hand: sent in ``/initGame``, not ``/rules``."""


# ---- tokens --------------------------------------------------------------------------------------
def _bad(line: str, why: str) -> InvalidNotationError:
    return InvalidNotationError(f"bad mahjong protocol line {line[:80]!r}: {why}")


def _out_of_order(line: str, why: str) -> IllegalMoveError:
    """A well-formed line that cannot come now (docs/mahjong-protocol.md, "Order")."""
    return IllegalMoveError(f"mahjong protocol line {line[:80]!r} cannot come now: {why}")


def _tile_token(tok: str, line: str, *, flowers: bool = False) -> int:
    """One tile (``5m``) or, with ``flowers``, a flower entry (``3f`` -> FLOWER_BASE + 2)."""
    if flowers and len(tok) == 2 and tok[1] == "f" and tok[0] in "12345678":
        return FLOWER_BASE + int(tok[0]) - 1
    try:
        kinds = parse_kinds(tok)
    except InvalidNotationError as err:
        raise _bad(line, str(err)) from None
    if len(kinds) != 1 or tile_name(kinds[0]) != tok:
        raise _bad(line, f"{tok!r} is not one tile like 5m")
    return kinds[0]


def _seat_token(tok: str, line: str) -> int:
    if tok not in ("0", "1", "2", "3"):
        raise _bad(line, f"{tok!r} is not a seat 0..3")
    return int(tok)


def _int_token(tok: str, line: str, what: str) -> int:
    try:
        return int(tok)
    except ValueError:
        raise _bad(line, f"{what} {tok!r} is not a whole number") from None


def _choice(tok: str, choices: Sequence[str], line: str, what: str) -> str:
    if tok not in choices:
        raise _bad(line, f"{what} {tok!r} is not one of {', '.join(choices)}")
    return tok


def _need(words: list[str], n: int, line: str, usage: str) -> None:
    if len(words) != n:
        raise _bad(line, f"expected {usage}")


def _chow_tiles(low: int) -> str:
    return format_tiles((low, low + 1, low + 2))


def _chow_low(tok: str, tile: int, line: str) -> int:
    """The lowest kind of a chow written ``345m`` that holds ``tile`` (the claimed discard)."""
    try:
        ks = sorted(parse_kinds(tok))
    except InvalidNotationError as err:
        raise _bad(line, str(err)) from None
    if len(ks) != 3 or ks[0] >= 27 or ks[0] // 9 != ks[2] // 9 or ks != [ks[0], ks[0] + 1, ks[0] + 2]:
        raise _bad(line, f"{tok!r} is not a chow of three consecutive suited tiles")
    if tile >= 0 and tile not in ks:
        raise _bad(line, f"the chow {tok!r} does not hold the discard {tile_name(tile)}")
    return ks[0]


def _entry(e: int) -> str:
    return wall_tile_name(e)


# ---- rules ---------------------------------------------------------------------------------------
_DEFAULT = MahjongConfig()


def _format_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, frozenset):
        return ",".join(sorted(v))
    return str(v)


def rules_items(config: MahjongConfig) -> tuple[tuple[str, str], ...]:
    """The rules that differ from paiju's defaults, as (key, value) text (``tai.<pattern>`` for
    values that are not those of the named tai preset)."""
    out: list[tuple[str, str]] = []
    for f in fields(MahjongConfig):
        if f.name in _TABLE_FIELDS or f.name == "tai":
            continue
        value = getattr(config, f.name)
        if value != getattr(_DEFAULT, f.name):
            out.append((f.name, _format_value(value)))
    preset = load_tai_table(config.tai_table)
    for f in fields(type(preset)):
        if getattr(config.tai, f.name) != getattr(preset, f.name):
            out.append((f"tai.{f.name}", str(getattr(config.tai, f.name))))
    return tuple(out)


def _convert(key: str, raw: str, default: Any, line: str) -> Any:
    if isinstance(default, bool):
        if raw not in ("true", "false"):
            raise _bad(line, f"{key}={raw}: use true or false")
        return raw == "true"
    if isinstance(default, frozenset):
        return frozenset(p for p in raw.split(",") if p)
    if isinstance(default, int) or default is None:  # ``limit`` is the one optional int
        if default is None and raw == "none":
            return None
        return _int_token(raw, line, key)
    return raw


def config_from_items(items: Sequence[tuple[str, str]], line: str = "/rules") -> MahjongConfig:
    """The :class:`MahjongConfig` of ``/rules`` items (table fields left at their defaults)."""
    known = {f.name for f in fields(MahjongConfig)} - set(_TABLE_FIELDS) - {"tai"}
    options: dict[str, Any] = {}
    tai: dict[str, int] = {}
    for key, raw in items:
        if key.startswith("tai."):
            tai[key[4:]] = _int_token(raw, line, key)
        elif key in known:
            options[key] = _convert(key, raw, getattr(_DEFAULT, key), line)
        else:
            raise _bad(line, f"unknown rule {key!r}")
    try:
        cfg = MahjongConfig(**options)
        if tai:
            cfg = replace(cfg, tai=replace(load_tai_table(cfg.tai_table), **tai))
    except (TypeError, PaijuError) as err:
        raise _bad(line, str(err)) from None
    return cfg


# ---- messages: referee -> bot --------------------------------------------------------------------
@dataclass(frozen=True)
class Start:
    """``/start MJ16 <seat>``: the handshake; the bot answers ``ready [name]``."""

    seat: int
    verb: ClassVar[str] = "/start"

    def format(self) -> str:
        return f"/start {PROTOCOL} {self.seat}"


@dataclass(frozen=True)
class Rules:
    """``/rules [key=value ...]``: the table's rules, those that differ from paiju's defaults."""

    items: tuple[tuple[str, str], ...] = ()
    verb: ClassVar[str] = "/rules"

    def format(self) -> str:
        return " ".join(["/rules", *(f"{k}={v}" for k, v in self.items)])

    def config(self) -> MahjongConfig:
        return config_from_items(self.items, self.format())


@dataclass(frozen=True)
class InitGame:
    """``/initGame <round wind> <hand> <dealer> <continuation>``: a hand begins."""

    round_wind: int
    hand: int
    dealer: int
    continuation: int
    verb: ClassVar[str] = "/initGame"

    def format(self) -> str:
        return f"/initGame {WINDS[self.round_wind]} {self.hand} {self.dealer} {self.continuation}"


@dataclass(frozen=True)
class InitCard:
    """``/initCard <tiles>``: the seat's own dealt tiles in dealing order (16, the dealer 17;
    flowers included, each then shown with ``/flower`` and replaced)."""

    tiles: tuple[int, ...]
    verb: ClassVar[str] = "/initCard"

    def format(self) -> str:
        return " ".join(["/initCard", *(_entry(t) for t in self.tiles)])


@dataclass(frozen=True)
class Mo:
    """``/mo <tile> <source>``: the seat itself draws ``tile`` (only the drawer is told it)."""

    tile: int
    source: str
    verb: ClassVar[str] = "/mo"

    def format(self) -> str:
        return f"/mo {_entry(self.tile)} {self.source}"


@dataclass(frozen=True)
class Draw:
    """``/draw <seat> <source>``: another seat draws (the tile is not shown)."""

    seat: int
    source: str
    verb: ClassVar[str] = "/draw"

    def format(self) -> str:
        return f"/draw {self.seat} {self.source}"


@dataclass(frozen=True)
class Flower:
    """``/flower <seat> <flower>``: a seat shows a flower (it is replaced from the tail)."""

    seat: int
    flower: int
    verb: ClassVar[str] = "/flower"

    def format(self) -> str:
        return f"/flower {self.seat} {_entry(FLOWER_BASE + self.flower)}"


@dataclass(frozen=True)
class Throw:
    """``/throw <seat> <tile> drawn|hand``: a discard, 摸打 (the tile just drawn) or 手出."""

    seat: int
    tile: int
    drawn: bool
    verb: ClassVar[str] = "/throw"

    def format(self) -> str:
        return f"/throw {self.seat} {tile_name(self.tile)} {'drawn' if self.drawn else 'hand'}"


@dataclass(frozen=True)
class Pung:
    """``/pung <seat> <tile> <from>``."""

    seat: int
    tile: int
    source: int
    verb: ClassVar[str] = "/pung"

    def format(self) -> str:
        return f"/pung {self.seat} {tile_name(self.tile)} {self.source}"


@dataclass(frozen=True)
class Chow:
    """``/chow <seat> <tiles> <from>``: the claimed tile is ``from``'s last discard."""

    seat: int
    low: int
    source: int
    verb: ClassVar[str] = "/chow"

    def format(self) -> str:
        return f"/chow {self.seat} {_chow_tiles(self.low)} {self.source}"


@dataclass(frozen=True)
class Kong:
    """``/kong <seat> exposed <tile> <from>``, ``/kong <seat> added <tile>``, ``/kong <seat>
    concealed [<tile>]`` (the tile only to the konger, unless concealed kongs are public)."""

    seat: int
    kind: str
    tile: int = -1
    source: int = -1
    verb: ClassVar[str] = "/kong"

    def format(self) -> str:
        out = f"/kong {self.seat} {self.kind}"
        if self.tile >= 0:
            out += f" {tile_name(self.tile)}"
        if self.kind == "exposed":
            out += f" {self.source}"
        return out


@dataclass(frozen=True)
class AskTurn:
    """``/ask throw [kong <tile>]... [addkong <tile>]... [win]``: your turn; discarding any
    tile in hand is always allowed, the listed options besides (in paiju's action order)."""

    options: tuple[int, ...] = ()
    verb: ClassVar[str] = "/ask"

    def format(self) -> str:
        parts = ["/ask", "throw"]
        for a in self.options:
            if a == WIN:
                parts.append("win")
            elif a < ADDED_KONG:
                parts += ["kong", tile_name(a - CONCEALED_KONG)]
            else:
                parts += ["addkong", tile_name(a - ADDED_KONG)]
        return " ".join(parts)


@dataclass(frozen=True)
class AskClaim:
    """``/ask claim <tile> <from> <options>``: claims on a discard, from ``win pung kong
    chow <tiles>... pass`` (sealed; resolved win > pung/kong > chow when every asked seat
    has answered)."""

    tile: int
    source: int
    options: tuple[int, ...]
    verb: ClassVar[str] = "/ask"

    def format(self) -> str:
        parts = ["/ask", "claim", tile_name(self.tile), str(self.source)]
        for a in self.options:
            if a in (CHOW_LOW, CHOW_MID, CHOW_HIGH):
                parts += ["chow", _chow_tiles(self.tile - (a - CHOW_LOW))]
            else:
                parts.append(_CLAIM_WORDS[a])
        return " ".join(parts)


@dataclass(frozen=True)
class AskRob:
    """``/ask rob <tile> <from> win pass``: win on the tile of an added kong (搶槓), or pass."""

    tile: int
    source: int
    verb: ClassVar[str] = "/ask"

    def format(self) -> str:
        return f"/ask rob {tile_name(self.tile)} {self.source} win pass"


@dataclass(frozen=True)
class Win:
    """``/win <seat> <how> <tile|-> <from|-> <tai> <hand>``: a winner and the winning hand."""

    seat: int
    how: str
    tile: int
    source: int
    tai: int
    hand: tuple[int, ...]
    verb: ClassVar[str] = "/win"

    def format(self) -> str:
        tile = tile_name(self.tile) if self.tile >= 0 else "-"
        source = str(self.source) if self.source >= 0 else "-"
        return f"/win {self.seat} {self.how} {tile} {source} {self.tai} {format_counts(self.hand) or '-'}"


@dataclass(frozen=True)
class ForfeitNotice:
    """``/forfeit <seat> <reason>``: a bot broke the protocol and loses the hand."""

    seat: int
    reason: str
    verb: ClassVar[str] = "/forfeit"

    def format(self) -> str:
        return f"/forfeit {self.seat} {' '.join(self.reason.split())}"


@dataclass(frozen=True)
class End:
    """``/end win|exhaustive|forfeit <points of seats 0..3>``: the hand is over."""

    how: str
    deltas: tuple[int, ...]
    verb: ClassVar[str] = "/end"

    def format(self) -> str:
        return " ".join(["/end", self.how, *(f"{d:+d}" for d in self.deltas)])


@dataclass(frozen=True)
class Quit:
    """``/quit``: the match is over; the bot exits."""

    verb: ClassVar[str] = "/quit"

    def format(self) -> str:
        return "/quit"


Ask = AskTurn | AskClaim | AskRob
Message = (
    Start | Rules | InitGame | InitCard | Mo | Draw | Flower | Throw | Pung | Chow | Kong
    | AskTurn | AskClaim | AskRob | Win | ForfeitNotice | End | Quit
)
_CLAIM_WORDS = {WIN: "win", PUNG: "pung", KONG: "kong", PASS: "pass"}


def _parse_start(w: list[str], line: str) -> Message:
    _need(w, 3, line, f"/start {PROTOCOL} <seat>")
    if w[1] != PROTOCOL:
        raise _bad(line, f"protocol {w[1]!r} is not {PROTOCOL}")
    return Start(_seat_token(w[2], line))


def _parse_rules(w: list[str], line: str) -> Message:
    items = []
    for item in w[1:]:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise _bad(line, f"{item!r} is not key=value")
        items.append((key, value))
    msg = Rules(tuple(items))
    msg.config()  # an unknown key or value is refused here, where the line is read
    return msg


def _parse_init_game(w: list[str], line: str) -> Message:
    _need(w, 5, line, "/initGame <round wind> <hand> <dealer> <continuation>")
    wind = WINDS.index(_choice(w[1], WINDS, line, "round wind"))
    hand, cont = _int_token(w[2], line, "hand"), _int_token(w[4], line, "continuation")
    if hand < 0 or cont < 0:
        raise _bad(line, "hand and continuation are >= 0")
    return InitGame(wind, hand, _seat_token(w[3], line), cont)


def _parse_init_card(w: list[str], line: str) -> Message:
    if len(w) - 1 not in (HAND_SIZE, HAND_SIZE + 1):
        raise _bad(line, f"expected {HAND_SIZE} or {HAND_SIZE + 1} tiles, got {len(w) - 1}")
    return InitCard(tuple(_tile_token(t, line, flowers=True) for t in w[1:]))


def _parse_mo(w: list[str], line: str) -> Message:
    _need(w, 3, line, "/mo <tile> <source>")
    return Mo(_tile_token(w[1], line, flowers=True), _choice(w[2], SOURCES, line, "source"))


def _parse_draw(w: list[str], line: str) -> Message:
    _need(w, 3, line, "/draw <seat> <source>")
    return Draw(_seat_token(w[1], line), _choice(w[2], SOURCES, line, "source"))


def _parse_flower(w: list[str], line: str) -> Message:
    _need(w, 3, line, "/flower <seat> <flower 1f..8f>")
    entry = _tile_token(w[2], line, flowers=True)
    if entry < FLOWER_BASE:
        raise _bad(line, f"{w[2]!r} is not a flower 1f..8f")
    return Flower(_seat_token(w[1], line), entry - FLOWER_BASE)


def _parse_throw(w: list[str], line: str) -> Message:
    _need(w, 4, line, "/throw <seat> <tile> drawn|hand")
    how = _choice(w[3], ("drawn", "hand"), line, "discard flag")
    return Throw(_seat_token(w[1], line), _tile_token(w[2], line), how == "drawn")


def _parse_pung(w: list[str], line: str) -> Message:
    _need(w, 4, line, "/pung <seat> <tile> <from>")
    return Pung(_seat_token(w[1], line), _tile_token(w[2], line), _seat_token(w[3], line))


def _parse_chow(w: list[str], line: str) -> Message:
    _need(w, 4, line, "/chow <seat> <tiles> <from>")
    return Chow(_seat_token(w[1], line), _chow_low(w[2], -1, line), _seat_token(w[3], line))


def _parse_kong(w: list[str], line: str) -> Message:
    if len(w) < 3:
        raise _bad(line, "expected /kong <seat> exposed|concealed|added ...")
    seat, kind = _seat_token(w[1], line), _choice(w[2], KONG_KINDS, line, "kong")
    if kind == "exposed":
        _need(w, 5, line, "/kong <seat> exposed <tile> <from>")
        return Kong(seat, kind, _tile_token(w[3], line), _seat_token(w[4], line))
    if kind == "added":
        _need(w, 4, line, "/kong <seat> added <tile>")
        return Kong(seat, kind, _tile_token(w[3], line))
    if len(w) not in (3, 4):
        raise _bad(line, "expected /kong <seat> concealed [<tile>]")
    return Kong(seat, kind, _tile_token(w[3], line) if len(w) == 4 else -1)


def _parse_ask(w: list[str], line: str) -> Message:
    if len(w) < 2:
        raise _bad(line, "expected /ask throw|claim|rob ...")
    kind = _choice(w[1], ("throw", "claim", "rob"), line, "ask")
    if kind == "throw":
        return _parse_ask_turn(w[2:], line)
    if len(w) < 5:
        raise _bad(line, f"expected /ask {kind} <tile> <from> <options>")
    tile, source = _tile_token(w[2], line), _seat_token(w[3], line)
    if kind == "rob":
        if w[4:] != ["win", "pass"]:
            raise _bad(line, "a rob ask offers exactly: win pass")
        return AskRob(tile, source)
    return AskClaim(tile, source, _claim_options(w[4:], tile, line))


def _parse_ask_turn(words: list[str], line: str) -> AskTurn:
    options: list[int] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "win":
            options.append(WIN)
            i += 1
        elif word in ("kong", "addkong") and i + 1 < len(words):
            base = CONCEALED_KONG if word == "kong" else ADDED_KONG
            options.append(base + _tile_token(words[i + 1], line))
            i += 2
        else:
            raise _bad(line, f"unknown turn option {word!r} (win, kong <tile>, addkong <tile>)")
    return AskTurn(tuple(options))


def _claim_options(words: list[str], tile: int, line: str) -> tuple[int, ...]:
    options: list[int] = []
    words_to_action = {v: k for k, v in _CLAIM_WORDS.items()}
    i = 0
    while i < len(words):
        word = words[i]
        if word == "chow" and i + 1 < len(words):
            options.append(CHOW_LOW + tile - _chow_low(words[i + 1], tile, line))
            i += 2
        elif word in words_to_action:
            options.append(words_to_action[word])
            i += 1
        else:
            raise _bad(line, f"unknown claim option {word!r} (win, pung, kong, chow <tiles>, pass)")
    if not options or options[-1] != PASS:
        raise _bad(line, "a claim ask ends with the option pass")
    return tuple(options)


def _parse_win(w: list[str], line: str) -> Message:
    _need(w, 7, line, "/win <seat> <how> <tile|-> <from|-> <tai> <hand>")
    how = _choice(w[2], WIN_KINDS, line, "win")
    tile = -1 if w[3] == "-" else _tile_token(w[3], line)
    source = -1 if w[4] == "-" else _seat_token(w[4], line)
    try:
        hand = tuple(sorted(parse_kinds(w[6]))) if w[6] != "-" else ()
    except InvalidNotationError as err:
        raise _bad(line, str(err)) from None
    counts = [0] * NUM_KINDS
    for k in hand:
        counts[k] += 1
    return Win(_seat_token(w[1], line), how, tile, source, _int_token(w[5], line, "tai"), tuple(counts))


def _parse_forfeit(w: list[str], line: str) -> Message:
    if len(w) < 3:
        raise _bad(line, "expected /forfeit <seat> <reason>")
    return ForfeitNotice(_seat_token(w[1], line), " ".join(w[2:]))


def _parse_end(w: list[str], line: str) -> Message:
    _need(w, 6, line, "/end win|exhaustive|forfeit <4 points>")
    return End(_choice(w[1], END_KINDS, line, "end"), tuple(_int_token(d, line, "points") for d in w[2:]))


def _parse_quit(w: list[str], line: str) -> Message:
    _need(w, 1, line, "/quit")
    return Quit()


_PARSERS: dict[str, Callable[[list[str], str], Message]] = {
    "/start": _parse_start, "/rules": _parse_rules, "/initGame": _parse_init_game,
    "/initCard": _parse_init_card, "/mo": _parse_mo, "/draw": _parse_draw, "/flower": _parse_flower,
    "/throw": _parse_throw, "/pung": _parse_pung, "/chow": _parse_chow, "/kong": _parse_kong,
    "/ask": _parse_ask, "/win": _parse_win, "/forfeit": _parse_forfeit, "/end": _parse_end,
    "/quit": _parse_quit,
}


def parse_message(line: str) -> Message:
    """A referee line as a message; :class:`InvalidNotationError` naming what is wrong."""
    words = line.split()
    if not words:
        raise _bad(line, "empty line")
    parser = _PARSERS.get(words[0])
    if parser is None:
        raise _bad(line, f"unknown message {words[0]!r}; known: {', '.join(_PARSERS)}")
    return parser(words, line)


# ---- answers: bot -> referee ---------------------------------------------------------------------
def format_answer(ask: Ask, action: int) -> str:
    """The answer line of ``action`` to ``ask``: ``throw 5m``, ``kong 5m``, ``addkong 5m``,
    ``win``, ``pung``, ``chow 345m``, ``pass``."""
    if isinstance(ask, AskTurn):
        if action < CONCEALED_KONG:
            return f"throw {tile_name(action)}"
        if action < ADDED_KONG:
            return f"kong {tile_name(action - CONCEALED_KONG)}"
        if action < WIN:
            return f"addkong {tile_name(action - ADDED_KONG)}"
        return "win"
    if action in (CHOW_LOW, CHOW_MID, CHOW_HIGH):
        return f"chow {_chow_tiles(ask.tile - (action - CHOW_LOW))}"
    return _CLAIM_WORDS.get(action, f"action{action}")


def parse_answer(ask: Ask, line: str) -> int:
    """The paiju action of a bot's answer to ``ask`` (legality is the caller's check)."""
    words = line.split()
    verb = words[0] if words else ""
    if isinstance(ask, AskTurn):
        if verb == "win" and len(words) == 1:
            return WIN
        if verb in ("throw", "kong", "addkong") and len(words) == 2:
            base = {"throw": 0, "kong": CONCEALED_KONG, "addkong": ADDED_KONG}[verb]
            return base + _tile_token(words[1], line)
        raise _bad(line, "a turn is answered throw <tile>, kong <tile>, addkong <tile> or win")
    if verb == "chow" and len(words) == 2 and isinstance(ask, AskClaim):
        return CHOW_LOW + ask.tile - _chow_low(words[1], ask.tile, line)
    allowed = ("win", "pung", "kong", "pass") if isinstance(ask, AskClaim) else ("win", "pass")
    if verb in allowed and len(words) == 1:
        return {"win": WIN, "pung": PUNG, "kong": KONG, "pass": PASS}[verb]
    usage = "win, pung, kong, chow <tiles> or pass" if isinstance(ask, AskClaim) else "win or pass"
    raise _bad(line, f"a {'claim' if isinstance(ask, AskClaim) else 'rob'} ask is answered {usage}")


def ask_for(observation: MahjongObservation, legal: Sequence[int]) -> Ask:
    """The ask the referee sends for this decision (the options are the engine's legal actions)."""
    if observation.phase == Phase.TURN:
        return AskTurn(tuple(int(a) for a in legal if a >= CONCEALED_KONG))
    if observation.phase == Phase.CLAIM:
        return AskClaim(observation.window_tile, observation.window_from, tuple(int(a) for a in legal))
    return AskRob(observation.window_tile, observation.window_from)


# ---- the bot's side: a seat's view rebuilt from the messages --------------------------------------
_HIDDEN_KONG = Meld(MeldType.CONCEALED_KONG, -1, -1, -1)
_DRAW_KIND = {"normal": DrawKind.NORMAL, "flower": DrawKind.FLOWER, "replacement": DrawKind.REPLACEMENT}


class SeatView:
    """What one seat knows, kept up to date message by message: its observation at an ask.

    The private flags follow the engine's rules from what the seat itself saw and did: the
    missed-win lock (a win offered and passed), 地聽 and 天聽 (its own hand, ``waits``).
    """

    def __init__(self) -> None:
        self.seat = -1
        self.rules = MahjongConfig()
        self.cfg = self.rules
        self.hand_index = -1
        self._reset()

    def _reset(self) -> None:
        self.hand = [0] * NUM_KINDS
        self.melds: list[list[Meld]] = [[] for _ in range(NUM_PLAYERS)]
        self.rivers: list[list[tuple[int, int]]] = [[] for _ in range(NUM_PLAYERS)]
        self.drawn_flags: list[list[bool]] = [[] for _ in range(NUM_PLAYERS)]
        self.flowers: list[list[int]] = [[] for _ in range(NUM_PLAYERS)]
        self.sizes = [HAND_SIZE] * NUM_PLAYERS
        self.head = NUM_PLAYERS * HAND_SIZE + 1
        self.tail = NUM_TILES
        self.turn = self.cfg.dealer
        self.drawn = -1
        self.draw_kind = DrawKind.NONE
        self.after_claim = False
        self.no_calls = True
        self.lock = 0
        self.earth = 0
        self.heaven = 0
        self.dealing = False
        self.pending_kong: tuple[int, int] | None = None
        self.window: tuple[int, int] | None = None
        """The discard open to claims: (discarder, tile); closed by the next draw or a claim."""

    # -- notifications --
    def handle(self, msg: Message) -> None:
        """Update the view with a notification (not an ask)."""
        if self.dealing and not (
            isinstance(msg, InitCard | Flower) or (isinstance(msg, Mo | Draw) and msg.source == "deal")
        ):
            self._deal_done()
        handler = _HANDLERS.get(type(msg))
        if handler is not None:
            handler(self, msg)

    def _start(self, msg: Start) -> None:
        self.seat = msg.seat

    def _rules(self, msg: Rules) -> None:
        self.rules = msg.config()

    def _init_game(self, msg: InitGame) -> None:
        self.cfg = replace(
            self.rules, dealer=msg.dealer, continuation=msg.continuation, round_wind=msg.round_wind
        )
        self.hand_index = msg.hand
        self._reset()
        self.sizes[msg.dealer] += 1
        self.tail = NUM_TILES_WITH_FLOWERS if self.cfg.flowers else NUM_TILES
        self.dealing = True

    def _init_card(self, msg: InitCard) -> None:
        for t in msg.tiles:
            if t < FLOWER_BASE:
                self.hand[t] += 1

    def _deal_done(self) -> None:
        """The deal and its flower replacements are over: 天聽 of a non-dealer is decided now."""
        self.dealing = False
        if self.cfg.heaven_ready and self.seat != self.cfg.dealer:
            self.heaven = 1 if self._ready() else 2

    def _ready(self) -> bool:
        return bool(waits(self.hand)) or (
            self.cfg.ligu and not self.melds[self.seat] and bool(ligu_waits(self.hand))
        )

    def _drew(self, seat: int, source: str) -> None:
        self.sizes[seat] += 1
        if source == "normal":
            self.head += 1
        else:
            self.tail -= 1
        if source == "deal":
            return
        self.window = None
        if self.pending_kong is not None and self.pending_kong[0] == seat and source == "replacement":
            self._complete_added_kong()
        self.draw_kind = _DRAW_KIND[source]
        self.turn = seat
        self.after_claim = False

    def _mo(self, msg: Mo) -> None:
        self._drew(self.seat, msg.source)
        if msg.tile < FLOWER_BASE:
            self.hand[msg.tile] += 1
            if msg.source != "deal":
                self.drawn = msg.tile

    def _draw(self, msg: Draw) -> None:
        self._drew(msg.seat, msg.source)

    def _flower(self, msg: Flower) -> None:
        self.flowers[msg.seat].append(msg.flower)
        self.sizes[msg.seat] -= 1

    def _throw(self, msg: Throw) -> None:
        p, k = msg.seat, msg.tile
        self.window = (p, k)
        self.rivers[p].append((k, -1))
        self.drawn_flags[p].append(msg.drawn)
        self.sizes[p] -= 1
        if p != self.seat:
            return
        self.hand[k] -= 1
        self.lock = 0
        first = len(self.rivers[p]) == 1
        if self.cfg.earth_ready:
            if first:
                self.earth = 1 if self.no_calls and waits(self.hand) else 2
            elif self.earth == 1 and k != self.drawn:
                self.earth = 2
        if self.cfg.heaven_ready:
            if p == self.cfg.dealer and first and self.heaven == 0:
                self.heaven = 1 if self.no_calls and self._ready() else 2
            elif self.heaven == 1 and not msg.drawn:
                self.heaven = 2

    def _called(self, seat: int) -> None:
        """A claim or kong by ``seat``: the go-around is no longer clean, its ready flags end."""
        self.no_calls = False
        if seat == self.seat:
            if self.earth == 1:
                self.earth = 2
            if self.cfg.heaven_ready:
                self.heaven = 2

    def _claimed(self, seat: int, tile: int, source: int, meld: Meld, taken: Sequence[int]) -> None:
        self.rivers[source][-1] = (tile, seat)
        self.window = None
        self.melds[seat].append(meld)
        self.sizes[seat] -= len(taken)
        if seat == self.seat:
            for k in taken:
                self.hand[k] -= 1
        self._called(seat)

    def _after_claim(self, seat: int) -> None:
        self.turn = seat
        self.draw_kind = DrawKind.NONE
        self.after_claim = True
        if seat == self.seat:
            self.drawn = -1

    def _pung(self, msg: Pung) -> None:
        t = msg.tile
        self._claimed(msg.seat, t, msg.source, Meld(MeldType.PUNG, t, t, msg.source), (t, t))
        self._after_claim(msg.seat)

    def _chow(self, msg: Chow) -> None:
        t = self.rivers[msg.source][-1][0]
        taken = [k for k in (msg.low, msg.low + 1, msg.low + 2) if k != t]
        self._claimed(msg.seat, t, msg.source, Meld(MeldType.CHOW, msg.low, t, msg.source), taken)
        self._after_claim(msg.seat)

    def _kong(self, msg: Kong) -> None:
        p, t = msg.seat, msg.tile
        if msg.kind == "exposed":
            self._claimed(p, t, msg.source, Meld(MeldType.EXPOSED_KONG, t, t, msg.source), (t, t, t))
        elif msg.kind == "concealed":
            self.melds[p].append(Meld(MeldType.CONCEALED_KONG, t) if t >= 0 else _HIDDEN_KONG)
            self.sizes[p] -= 4
            if p == self.seat:
                self.hand[t] -= 4
            self._called(p)
        else:  # added: the tile is offered to robbers; the pung becomes a kong when it stands
            self.sizes[p] -= 1
            if p == self.seat:
                self.hand[t] -= 1
            self.pending_kong = (p, t)

    def _complete_added_kong(self) -> None:
        assert self.pending_kong is not None
        p, t = self.pending_kong
        self.pending_kong = None
        row = self.melds[p]
        for i, m in enumerate(row):
            if m.type == MeldType.PUNG and m.tile == t:
                row[i] = Meld(MeldType.ADDED_KONG, t, m.claimed, m.source)
                break
        self._called(p)

    # -- what cannot come now --
    def held(self, seat: int) -> int:
        """Tiles ``seat`` holds, a meld counted as 3: ``HELD`` on its turn, one fewer otherwise."""
        return self.sizes[seat] + 3 * len(self.melds[seat])

    def refusal(self, msg: Message) -> str | None:
        """Why a message of the hand cannot come now (None: it can). Only what the seat can
        check from its own view: the turn, the open discard, its own tiles, the counts."""
        check = _REFUSALS.get(type(msg))
        return check(self, msg) if check is not None else None

    def _deal_refusal(self, msg: InitCard) -> str | None:
        want = HAND_SIZE + (self.seat == self.cfg.dealer)
        if len(msg.tiles) != want:
            return f"seat {self.seat} is dealt {want} tiles (the dealer 17, others 16), not {len(msg.tiles)}"
        return self._tiles_refusal(msg.tiles)

    def _draw_refusal(self, msg: Mo | Draw) -> str | None:
        seat = self.seat if isinstance(msg, Mo) else msg.seat
        if isinstance(msg, Draw) and seat == self.seat:
            return "a seat's own draws come as /mo, with the tile"
        if self.held(seat) >= HELD:
            return f"seat {seat} holds {self.held(seat)} tiles: it discards before it draws again"
        if self.tail <= self.head:
            return "the wall is empty"
        return self._tiles_refusal([msg.tile], self.hand) if isinstance(msg, Mo) else None

    def _flower_refusal(self, msg: Flower) -> str | None:
        if not self.cfg.flowers:
            return "flowers are not in play (the rules say flowers=false)"
        if any(msg.flower in f for f in self.flowers):
            return f"flower {_entry(FLOWER_BASE + msg.flower)} was shown already"
        return None

    def _throw_refusal(self, msg: Throw) -> str | None:
        return self._turn_refusal(msg.seat) or self._own_refusal(msg.seat, msg.tile, 1, "discard")

    def _kong_refusal(self, msg: Kong) -> str | None:
        if msg.kind == "exposed":
            return self._claim_refusal(msg)
        if why := self._turn_refusal(msg.seat):
            return why
        if msg.kind == "added":
            return self._added_refusal(msg.seat, msg.tile)
        return self._own_refusal(msg.seat, msg.tile, 4, "concealed kong")

    def _ask_turn_refusal(self, msg: AskTurn) -> str | None:
        if why := self._turn_refusal(self.seat):
            return why
        for a in msg.options:  # an option the hand cannot make would mislead the agent
            why = None
            if CONCEALED_KONG <= a < ADDED_KONG:
                why = self._own_refusal(self.seat, a - CONCEALED_KONG, 4, "kong")
            elif ADDED_KONG <= a < WIN:
                why = self._added_refusal(self.seat, a - ADDED_KONG)
            if why:
                return f"offers {why}"
        return None

    def _ask_window_refusal(self, msg: AskClaim | AskRob) -> str | None:
        me = self.seat
        if msg.source == me:
            return f"seat {me} is asked to claim its own tile"
        if self.held(me) != HELD - 1:
            return f"seat {me} holds {self.held(me)} tiles: it is on its turn, not waiting"
        if isinstance(msg, AskRob):
            if self.pending_kong != (msg.source, msg.tile):
                return f"seat {msg.source} declared no added kong of {tile_name(msg.tile)} to rob"
            return None
        if self.window != (msg.source, msg.tile):
            return f"there is no open discard of {tile_name(msg.tile)} by seat {msg.source}"
        return self._offer_refusal(msg)

    def _tiles_refusal(self, tiles: Sequence[int], hand: Sequence[int] | None = None) -> str | None:
        """More than four of a kind, or a flower twice, in ``tiles`` (plus ``hand``)."""
        counts = list(hand or [0] * NUM_KINDS) + [0] * NUM_FLOWERS
        for t in tiles:
            if t >= FLOWER_BASE and not self.cfg.flowers:
                return f"{_entry(t)} is a flower, and flowers are not in play"
            counts[t] += 1
            if counts[t] > (1 if t >= FLOWER_BASE else 4):
                return f"seat {self.seat} would hold {_COUNT_WORDS[counts[t]]} {_entry(t)}"
        return None

    def _turn_refusal(self, seat: int) -> str | None:
        if seat != self.turn:
            return f"it is not seat {seat}'s turn (seat {self.turn} drew or claimed last)"
        if self.held(seat) != HELD:
            return f"seat {seat} holds {self.held(seat)} tiles; on its turn it holds {HELD} (it draws first)"
        return None

    def _own_refusal(self, seat: int, tile: int, need: int, what: str) -> str | None:
        """This seat's own move needs ``need`` of ``tile`` in its hand (others' are not seen)."""
        if seat != self.seat:
            return None
        if tile < 0:
            return f"a {what} of this seat names its tile"
        have = self.hand[tile]
        if have < need:
            holds = "does not hold" if not have else f"holds {have} of"
            return f"a {what} of {tile_name(tile)}, but seat {seat} {holds} {tile_name(tile)}"
        return None

    def _added_refusal(self, seat: int, tile: int) -> str | None:
        if not any(m.type == MeldType.PUNG and m.tile == tile for m in self.melds[seat]):
            return f"an added kong of {tile_name(tile)}, but seat {seat} has no pung of it"
        return self._own_refusal(seat, tile, 1, "added kong")

    def _claim_refusal(self, msg: Pung | Chow | Kong) -> str | None:
        """A claim needs the discard still open, a waiting claimer and (its own) the tiles."""
        seat, source = msg.seat, msg.source
        if self.window is None or self.window[0] != source:
            return f"there is no open discard by seat {source} to claim"
        tile = self.window[1]
        if source == seat:
            return f"seat {seat} claims its own discard"
        if self.held(seat) != HELD - 1:
            return f"seat {seat} holds {self.held(seat)} tiles: it is on its turn, not waiting"
        if isinstance(msg, Chow):
            if tile not in (msg.low, msg.low + 1, msg.low + 2):
                return f"the chow {_chow_tiles(msg.low)} does not hold the discard {tile_name(tile)}"
            return self._chow_refusal(seat, source, msg.low, tile)
        if msg.tile != tile:
            return f"seat {source}'s open discard is {tile_name(tile)}, not {tile_name(msg.tile)}"
        return self._own_refusal(seat, tile, 3 if isinstance(msg, Kong) else 2, type(msg).__name__.lower())

    def _offer_refusal(self, ask: AskClaim) -> str | None:
        """A claim offered that this seat's hand cannot make."""
        t = ask.tile
        for a in ask.options:
            if a == PUNG and (why := self._own_refusal(self.seat, t, 2, "pung")):
                return f"offers {why}"
            if a == KONG and (why := self._own_refusal(self.seat, t, 3, "kong")):
                return f"offers {why}"
            if a in (CHOW_LOW, CHOW_MID, CHOW_HIGH) and (
                why := self._chow_refusal(self.seat, ask.source, t - (a - CHOW_LOW), t)
            ):
                return f"offers {why}"
        return None

    def _chow_refusal(self, seat: int, source: int, low: int, tile: int) -> str | None:
        """A chow of ``source``'s ``tile`` from ``low`` needs the next seat and (its own) the
        two other tiles: one rule for a claim made and a claim offered."""
        if seat != (source + 1) % NUM_PLAYERS:
            nxt = (source + 1) % NUM_PLAYERS
            return f"a chow by seat {seat}, but only seat {nxt}, the next, may chow seat {source}'s discard"
        for k in sorted({low, low + 1, low + 2} - {tile}):
            if why := self._own_refusal(seat, k, 1, f"chow {_chow_tiles(low)}"):
                return why
        return None

    # -- decisions --
    def observation(self, ask: Ask) -> MahjongObservation:
        """This seat's observation at ``ask``, as the engine would give it."""
        if self.dealing:
            self._deal_done()
        turn_phase = isinstance(ask, AskTurn)
        phase = Phase.TURN if turn_phase else Phase.CLAIM if isinstance(ask, AskClaim) else Phase.ROB
        window = (-1, -1) if isinstance(ask, AskTurn) else (ask.tile, ask.source)
        wall = NUM_TILES_WITH_FLOWERS if self.cfg.flowers else NUM_TILES
        return MahjongObservation(
            player=self.seat, phase=phase, to_act=self.seat, turn=self.turn, hand=tuple(self.hand),
            drawn=self.drawn if turn_phase else -1, draw_kind=self.draw_kind,
            after_claim=self.after_claim, window_tile=window[0], window_from=window[1],
            melds=tuple(tuple(m) for m in self.melds),
            discards=tuple(tuple(r) for r in self.rivers),
            hand_sizes=tuple(self.sizes), live_tiles=self.tail - self.head - self.cfg.dead_wall,
            replacements_drawn=wall - self.tail, no_calls=self.no_calls, lock=self.lock,
            own_claim=-1, earth_ready=self.earth, dealer=self.cfg.dealer,
            continuation=self.cfg.continuation, round_wind=self.cfg.round_wind, hand_number=0,
            dealer_passes=0, scores=(0,) * NUM_PLAYERS, last_result=None, config=self.cfg,
            discards_drawn=tuple(tuple(r) for r in self.drawn_flags),
            flowers=tuple(tuple(f) for f in self.flowers), heaven_ready=self.heaven,
        )

    def legal_actions(self, ask: Ask) -> list[int]:
        """The legal actions at ``ask``: any tile in hand on a turn plus the options offered."""
        if isinstance(ask, AskTurn):
            return [k for k in range(NUM_KINDS) if self.hand[k]] + list(ask.options)
        if isinstance(ask, AskClaim):
            return list(ask.options)
        return [WIN, PASS]

    def answered(self, ask: Ask, action: int) -> None:
        """A window passed with a win on offer locks that win (過水), as the engine does."""
        if isinstance(ask, AskTurn) or action == WIN or not self.cfg.missed_discard_lock:
            return
        if isinstance(ask, AskClaim) and WIN not in ask.options:
            return
        bit = LOCK_ALL_DISCARDS if self.cfg.missed_discard_scope == "all" else 1 << ask.tile
        self.lock |= bit


_REFUSALS: dict[type, Callable[[SeatView, Any], str | None]] = {
    InitCard: SeatView._deal_refusal, Mo: SeatView._draw_refusal, Draw: SeatView._draw_refusal,
    Flower: SeatView._flower_refusal, Throw: SeatView._throw_refusal, Pung: SeatView._claim_refusal,
    Chow: SeatView._claim_refusal, Kong: SeatView._kong_refusal, AskTurn: SeatView._ask_turn_refusal,
    AskClaim: SeatView._ask_window_refusal, AskRob: SeatView._ask_window_refusal,
}
_HANDLERS: dict[type, Callable[[SeatView, Any], None]] = {
    Start: SeatView._start, Rules: SeatView._rules, InitGame: SeatView._init_game,
    InitCard: SeatView._init_card, Mo: SeatView._mo, Draw: SeatView._draw, Flower: SeatView._flower,
    Throw: SeatView._throw, Pung: SeatView._pung, Chow: SeatView._chow, Kong: SeatView._kong,
}


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
        self.stage = _NEXT_STAGE.get(type(msg), self.stage)
        if isinstance(msg, Quit):
            self.done = True
            return None
        if isinstance(msg, AskTurn | AskClaim | AskRob):
            obs = self.view.observation(msg)
            legal = self.view.legal_actions(msg)
            if self.decisions is not None:
                self.decisions.append((obs, legal))
            action = int(self.agent.act(obs, legal))
            self.view.answered(msg, action)
            return format_answer(msg, action)
        self.view.handle(msg)
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


# ---- the referee's side: bots as links -----------------------------------------------------------
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


# ---- one hand ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    """Who deals the next hand: the engine's rule (the dealer keeps the deal on a win or a draw,
    連莊 +1; otherwise it passes on), the prevailing wind advancing every 4 passes."""

    dealer: int = 0
    continuation: int = 0
    round_wind: int = 0
    passes: int = 0

    def after(self, state: MahjongState | None, forfeit_seat: int | None, start_wind: int) -> Table:
        if forfeit_seat is None and state is not None and state.is_terminal():
            dealer, cont, passed = state.dealer, state.continuation, state.dealer_passes
        elif forfeit_seat == self.dealer:  # a forfeiting dealer loses the deal
            dealer, cont, passed = (self.dealer + 1) % NUM_PLAYERS, 0, 1
        else:  # another seat forfeited: the dealer keeps the deal, as after a draw
            dealer, cont, passed = self.dealer, self.continuation + 1, 0
        passes = self.passes + passed
        return Table(dealer, cont, (start_wind + passes // NUM_PLAYERS) % NUM_PLAYERS, passes)


@dataclass
class HandRecord:
    """One refereed hand: table, wall, every move, the points and a forfeit's reason."""

    index: int
    seed: int
    table: Table
    wall: str
    moves: list[str]
    players: list[int]
    actions: list[int]
    move_ms: list[float]
    deltas: list[int]
    winners: list[int]
    exhaustive: bool
    forfeit: dict[str, Any] | None = None
    next_table: Table = field(default_factory=Table)
    record: dict[str, Any] = field(default_factory=dict)
    """The engine's record fields of the hand (``MahjongGame.record_fields``)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "hand": self.index, "seed": self.seed, "dealer": self.table.dealer,
            "continuation": self.table.continuation, "round_wind": self.table.round_wind,
            "wall": self.wall, "moves": self.moves, "deltas": self.deltas, "winners": self.winners,
            "exhaustive": self.exhaustive, "forfeit": self.forfeit,
        }


Transcript = list[tuple[int, str, str]]
"""(seat, ">" referee to bot or "<" bot to referee, line)."""


class _Proxy:
    """The agent play_game seats for a bot: each decision becomes an ask over the link."""

    def __init__(self, referee: Referee, seat: int) -> None:
        self.referee, self.seat = referee, seat
        self.name = referee.links[seat].name

    def act(self, observation: MahjongObservation, legal_actions: Sequence[int]) -> int:
        ask = ask_for(observation, legal_actions)
        answer = self.referee.ask(self.seat, ask.format())
        try:
            action = parse_answer(ask, answer)
        except InvalidNotationError:
            raise Forfeit(self.seat, f"answered garbage {answer[:80]!r} to {ask.format()!r}") from None
        if action not in legal_actions:
            what = "move" if isinstance(ask, AskTurn) else "claim"
            raise Forfeit(self.seat, f"illegal {what} {answer[:80]!r} (asked {ask.format()!r})")
        return action


@dataclass
class _Snapshot:
    phase: Phase
    head: int
    tail: int
    window_from: int
    melds: tuple[int, ...]


class Referee:
    """Plays hands between four bot links through the engine and the protocol."""

    def __init__(
        self,
        links: Sequence[BotLink],
        rules: MahjongConfig | None = None,
        transcript: Transcript | None = None,
    ) -> None:
        if len(links) != NUM_PLAYERS:
            raise ConfigError(f"a mahjong referee needs 4 bots, got {len(links)}")
        rules = rules or MahjongConfig()
        if rules.mode != "hand":
            raise ConfigError("the referee plays hand by hand: rules mode must be 'hand'")
        self.links = list(links)
        self.rules = rules
        self.transcript = transcript
        self._snap: _Snapshot | None = None
        self._played: PlayedGame[Any] | None = None

    # -- the wire --
    def _log(self, seat: int, way: str, line: str) -> None:
        if self.transcript is not None:
            self.transcript.append((seat, way, line))

    def send(self, seat: int, msg: Message) -> None:
        line = msg.format()
        self._log(seat, ">", line)
        self.links[seat].send(line)

    def broadcast(self, msg: Message) -> None:
        for seat in range(NUM_PLAYERS):
            self.send(seat, msg)

    def ask(self, seat: int, line: str) -> str:
        self._log(seat, ">", line)
        answer = self.links[seat].ask(line)
        self._log(seat, "<", answer)
        return answer

    def _tell_all(self, msg: Message) -> None:
        """Best effort (the end of a hand): a bot gone now is restarted for the next hand."""
        for seat, link in enumerate(self.links):
            if link.alive:
                with contextlib.suppress(Forfeit):
                    self.send(seat, msg)

    def _start_bots(self) -> Forfeit | None:
        """Start every bot that is not running (before a hand); the first failure, if any."""
        failed: Forfeit | None = None
        for seat, link in enumerate(self.links):
            spawn = getattr(link, "spawn", None)
            if not link.alive and spawn is not None:  # start-ups overlap: all first, then the handshakes
                try:
                    spawn(seat)
                except Forfeit as err:
                    failed = failed or err
        for seat, link in enumerate(self.links):
            if link.alive and getattr(link, "ready", True):
                continue
            try:
                self._log(seat, ">", Start(seat).format())
                self._log(seat, "<", link.start(seat))
                self.send(seat, Rules(rules_items(self.rules)))
            except Forfeit as err:
                failed = failed or err
        return failed

    # -- a hand --
    def play_hand(self, index: int, seed: int, table: Table) -> HandRecord:
        """Hand ``index`` on the wall of ``seed`` at ``table``; a forfeit ends it at once."""
        t = table
        cfg = replace(self.rules, dealer=t.dealer, continuation=t.continuation, round_wind=t.round_wind)
        game = MahjongGame(cfg)
        self._played = None
        error: Exception | None = self._start_bots()
        played: PlayedGame[Any] | None = None
        if error is None:
            try:
                self.broadcast(InitGame(table.round_wind, index, table.dealer, table.continuation))
                played = play_game(
                    game, [_Proxy(self, s) for s in range(NUM_PLAYERS)], seed, notation=True,
                    before_move=self._before, after_move=self._after, stop_on_error=True,
                )
                error = played.error
            except Forfeit as err:  # raised while telling a bot of a move (it is gone)
                error, played = err, self._played
        if error is not None and not isinstance(error, Forfeit):
            raise error
        return self._hand_record(index, seed, table, game, played, error)

    def _hand_record(
        self, index: int, seed: int, table: Table, game: MahjongGame, played: PlayedGame[Any] | None,
        forfeit: Forfeit | None,
    ) -> HandRecord:
        state = played.state if played is not None else None
        assert state is None or isinstance(state, MahjongState)
        moves = list(played.moves) if played is not None else []
        players = list(played.players) if played is not None else []
        actions = [a if isinstance(a, int) else -1 for a in played.actions] if played is not None else []
        wall = wall_notation(state.wall) if state is not None and state.wall else ""
        record = game.record_fields(state, played.actions) if state is not None and played is not None else {}
        if forfeit is not None:
            deltas = self._penalty(forfeit.seat, game.config)
            self.links[forfeit.seat].close()
            self._tell_all(ForfeitNotice(forfeit.seat, forfeit.reason))
            self._tell_all(End("forfeit", tuple(deltas)))
            winners: list[int] = []
            exhaustive = False
            info: dict[str, Any] | None = {"seat": forfeit.seat, "bot": self.links[forfeit.seat].name,
                                           "reason": forfeit.reason}
        else:
            assert state is not None and state.last_result is not None
            result = state.last_result
            deltas, winners = list(result.deltas), list(result.winners)
            exhaustive, info = result.exhaustive, None
        ms = list(played.move_ms) if played is not None else []
        nxt = table.after(state, forfeit.seat if forfeit else None, self.rules.round_wind)
        return HandRecord(index, seed, table, wall, moves, players, actions, ms, deltas, winners,
                          exhaustive, info, nxt, record)

    @staticmethod
    def _penalty(seat: int, cfg: MahjongConfig) -> list[int]:
        amount = cfg.base + FORFEIT_TAI * cfg.per_tai
        return [-amount * (NUM_PLAYERS - 1) if s == seat else amount for s in range(NUM_PLAYERS)]

    # -- turning engine moves into messages --
    def _before(self, state: State[Any], player: int) -> None:
        assert isinstance(state, MahjongState)
        self._snap = _Snapshot(
            state.phase, state.head, state.tail, state.window_from, tuple(len(m) for m in state.melds)
        )

    def _after(self, state: State[Any], played: PlayedGame[Any]) -> None:
        assert isinstance(state, MahjongState) and self._snap is not None
        self._played = played
        player, action = played.players[-1], played.actions[-1]
        if player == CHANCE:
            self._deal_events(state)
        else:
            drawer = self._move_events(self._snap, state, player, int(action))
            self._draw_events(self._snap, state, drawer)
        if state.is_terminal():
            self._end_events(state)

    def _deal_events(self, state: MahjongState) -> None:
        wall, d = state.wall, state.dealer
        dealt: list[list[int]] = [[] for _ in range(NUM_PLAYERS)]
        for i in range(NUM_PLAYERS):
            dealt[(d + i) % NUM_PLAYERS] = list(wall[i * HAND_SIZE : (i + 1) * HAND_SIZE])
        dealt[d].append(wall[NUM_PLAYERS * HAND_SIZE])
        for seat in range(NUM_PLAYERS):
            self.send(seat, InitCard(tuple(dealt[seat])))
        tail = len(wall)
        for i in range(NUM_PLAYERS):  # 補花 seat by seat from the dealer, as the engine does
            seat = (d + i) % NUM_PLAYERS
            for t in dealt[seat]:
                if t >= FLOWER_BASE:
                    self.broadcast(Flower(seat, t - FLOWER_BASE))
            for _ in range(len(state.flowers[seat])):  # one tail draw per flower shown
                tail -= 1
                self._tell_draw(seat, wall[tail], "deal")
        assert tail == state.tail, "the deal's replacement draws do not match the engine's"

    def _tell_draw(self, seat: int, tile: int, source: str) -> None:
        for s in range(NUM_PLAYERS):
            self.send(s, Mo(tile, source) if s == seat else Draw(seat, source))
        if tile >= FLOWER_BASE:
            self.broadcast(Flower(seat, tile - FLOWER_BASE))

    def _move_events(self, snap: _Snapshot, state: MahjongState, p: int, a: int) -> int | None:
        """Tell the public part of move ``a`` by seat ``p``; the seat that draws next, if any."""
        if snap.phase == Phase.TURN:
            if a < CONCEALED_KONG:
                self.broadcast(Throw(p, a, state.discards_drawn[p][-1]))
                return (p + 1) % NUM_PLAYERS
            if a < ADDED_KONG:
                k = a - CONCEALED_KONG
                shown = k if state.cfg.concealed_kong_public else -1
                for s in range(NUM_PLAYERS):
                    self.send(s, Kong(p, "concealed", k if s == p else shown))
                return p
            if a < WIN:
                self.broadcast(Kong(p, "added", a - ADDED_KONG))
                return p
            return None
        if state.phase == snap.phase and not state.is_terminal():
            return None  # the window is still collecting sealed answers
        if snap.phase == Phase.ROB:
            return snap.window_from  # nobody robbed: the kong stands, the konger draws
        for c in range(NUM_PLAYERS):
            if len(state.melds[c]) > snap.melds[c]:
                m = state.melds[c][-1]
                if m.type == MeldType.PUNG:
                    self.broadcast(Pung(c, m.tile, m.source))
                    return None
                if m.type == MeldType.CHOW:
                    self.broadcast(Chow(c, m.tile, m.source))
                    return None
                self.broadcast(Kong(c, "exposed", m.tile, m.source))
                return c
        return (snap.window_from + 1) % NUM_PLAYERS

    def _draw_events(self, snap: _Snapshot, state: MahjongState, drawer: int | None) -> None:
        head = list(state.wall[snap.head : state.head])
        tail = [state.wall[i] for i in range(snap.tail - 1, state.tail - 1, -1)]
        if not head and not tail:
            return
        assert drawer is not None, "tiles were drawn, but by whom?"
        for t in head:
            self._tell_draw(drawer, t, "normal")
        for t in tail:
            self._tell_draw(drawer, t, "flower" if head else "replacement")

    def _end_events(self, state: MahjongState) -> None:
        result = state.last_result
        assert result is not None
        for i, w in enumerate(result.winners):
            score = result.scores[i]
            if any(name in _FLOWER_WINS for name, _ in score.patterns):
                how = "flowers"
            else:
                how = "selfdraw" if result.self_draw else "robkong" if result.robbed_kong else "discard"
            source = result.discarder if result.discarder is not None else -1
            self._tell_all(Win(w, how, result.winning_tile, source, score.tai, result.winning_hands[i]))
        self._tell_all(End("exhaustive" if result.exhaustive else "win", tuple(result.deltas)))

    def close(self) -> None:
        self._tell_all(Quit())
        for link in self.links:
            link.close()


# ---- a match and its report ----------------------------------------------------------------------
@dataclass(frozen=True)
class SeatStats:
    """One seat's bot over a match: hands won (Wilson 95%) and points per hand (normal 95%)."""

    seat: int
    bot: str
    hands: int
    win_rate: Estimate
    points: Estimate
    forfeits: int

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "hands": self.hands, "win_rate": self.win_rate.as_dict(),
                "points": self.points.as_dict(), "forfeits": self.forfeits}


def summarize(bots: Sequence[str], hands: Sequence[HandRecord]) -> tuple[list[SeatStats], Estimate]:
    """Per seat: win rate and points per hand; and the rate of exhaustive draws."""
    out = []
    for seat, bot in enumerate(bots):
        wins = sum(seat in h.winners for h in hands)
        points = [float(h.deltas[seat]) for h in hands]
        forfeits = sum(bool(h.forfeit and h.forfeit["seat"] == seat) for h in hands)
        rate = proportion_ci(wins, len(hands))
        out.append(SeatStats(seat, bot, len(hands), rate, mean_ci(points), forfeits))
    return out, proportion_ci(sum(h.exhaustive for h in hands), len(hands))


def hand_seed(seed: int, index: int) -> int:
    """The wall seed of hand ``index``: the arena's deal seed of game ``index`` (same walls)."""
    return derive_seed(seed, index)


def record_row(rules: MahjongConfig, bots: Sequence[str], hand: HandRecord, run_id: str) -> dict[str, Any]:
    """A refereed hand as a row of paiju's game records (``docs/records.md``)."""
    import paiju
    from paiju.mahjong.game import RULES_VERSION

    t = hand.table
    extra = dict(hand.record.get("extra", {}))
    extra.update({
        "forfeit": hand.forfeit, "actions": hand.actions, "rules": Rules(rules_items(rules)).format(),
        "table": {"dealer": t.dealer, "continuation": t.continuation, "round_wind": t.round_wind,
                  "passes": t.passes},
    })
    return {
        "run_id": run_id, "game_index": hand.index, "deal_index": hand.index, "lineup": 0,
        "game": "mahjong", "rules_version": RULES_VERSION, "arena_format": "referee", "seed": hand.seed,
        "deal": hand.wall or None, "dealer_seat": t.dealer, "agents": list(bots), "seat_agents": [0, 1, 2, 3],
        "roles": [WINDS[(s - t.dealer) % NUM_PLAYERS] for s in range(NUM_PLAYERS)],
        "moves": hand.moves, "move_players": hand.players, "move_ms": hand.move_ms,
        "returns": [float(d) for d in hand.deltas], "score": None,
        "scoring_rule": hand.record.get("scoring_rule"), "paiju_version": paiju.__version__,
        "extra": json.dumps(extra, sort_keys=True, ensure_ascii=False),
    }


def play_match(
    links: Sequence[BotLink],
    hands: int,
    seed: int = 0,
    *,
    rules: MahjongConfig | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    transcript: Transcript | None = None,
    run_config: dict[str, Any] | None = None,
) -> list[HandRecord]:
    """Play ``hands`` hands one after another (the dealer moving on by the engine's rule),
    recording each to ``out_dir`` as it ends; the bots are told ``/quit`` at the end."""
    from paiju.core.records import RecordWriter

    if not 1 <= hands <= 100_000:
        raise ConfigError(f"hands={hands} must be in 1..100000")
    referee = Referee(links, rules, transcript)
    cfg = referee.rules
    names = [link.name for link in links]
    writer = None
    if out_dir is not None:
        config = run_config or {"kind": "mahjong-referee", "bots": names, "seed": seed}
        config = {**config, "rules": Rules(rules_items(cfg)).format()}
        writer = RecordWriter(out_dir, config)
        if writer.done_indices():
            writer.close()
            raise ConfigError(
                f"{out_dir} already holds hands of this match; bots keep state between hands, so a "
                "referee match is not resumed: record to a new folder"
            )
    table = Table(cfg.dealer, cfg.continuation, cfg.round_wind, 0)
    out: list[HandRecord] = []
    try:
        for i in range(hands):
            out.append(referee.play_hand(i, hand_seed(seed, i), table))
            table = out[-1].next_table
            if writer is not None:
                writer.write_batch([record_row(cfg, names, out[-1], writer.run_id)])
    finally:
        referee.close()
        if writer is not None:
            writer.close()
    return out


def run_referee(
    commands: Sequence[str],
    hands: int,
    seed: int = 0,
    *,
    time_limit: float = 5.0,
    rules: MahjongConfig | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    transcript: Transcript | None = None,
) -> tuple[list[HandRecord], list[SeatStats], Estimate]:
    """Four bot programs (command lines) play ``hands`` hands; the hands and the report."""
    if len(commands) != NUM_PLAYERS:
        raise ConfigError(f"name 4 bot commands, got {len(commands)}")
    if not 0 < time_limit <= 600:
        raise ConfigError(f"time limit {time_limit} s must be in (0, 600]")
    links = [ProcessBot(c, time_limit) for c in commands]
    config = {"kind": "mahjong-referee", "bots": list(commands), "seed": seed, "time_limit": time_limit}
    played = play_match(
        links, hands, seed, rules=rules, out_dir=out_dir, transcript=transcript, run_config=config
    )
    stats, draws = summarize(list(commands), played)
    return played, stats, draws


def replay_hand(row: dict[str, Any]) -> tuple[bool, int | None]:
    """Replay a recorded refereed hand through the engine: every recorded move must be legal
    and written as recorded, and the points must follow (the penalty after a forfeit).
    Returns (identical, index of the first move that differs)."""
    extra = json.loads(row["extra"])
    rules = parse_message(extra["rules"])
    assert isinstance(rules, Rules)
    t = extra["table"]
    cfg = replace(
        rules.config(), dealer=t["dealer"], continuation=t["continuation"], round_wind=t["round_wind"]
    )
    from paiju.mahjong.game import parse_wall

    state = MahjongGame(cfg).new_initial_state()
    moves = row["moves"] or []
    if not row["deal"]:
        return (not moves), (0 if moves else None)
    state.apply(parse_wall(row["deal"], flowers=cfg.flowers))
    for i, (text, action) in enumerate(zip(moves[1:], extra["actions"][1:], strict=True), start=1):
        try:
            if state.action_to_string(action) != text:
                return False, i
            state.apply(action)
        except PaijuError:
            return False, i
    forfeit = extra.get("forfeit")
    if forfeit is not None:
        same = [float(x) for x in Referee._penalty(forfeit["seat"], cfg)] == row["returns"]
        return same, None if same else len(moves)
    return state.is_terminal() and state.returns() == row["returns"], None


def write_transcript(transcript: Transcript, path: Path | None = None) -> list[str]:
    """Transcript lines ``seat > line`` / ``seat < line`` (optionally written to ``path``)."""
    lines = [f"{seat} {way} {line}" for seat, way, line in transcript]
    if path is not None:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def replay_records(out_dir: str | Path, game_indices: Sequence[int]) -> list[ReplayCheck]:
    """``paiju records replay`` for a referee's records: each hand replayed with
    :func:`replay_hand` (the bots were programs, so their moves are replayed, not re-asked)."""
    from paiju.core.arena import ReplayCheck
    from paiju.core.records import read_records

    rows = {r["game_index"]: r for r in read_records(out_dir).to_pylist()}
    missing = [i for i in game_indices if i not in rows]
    if missing:
        raise ConfigError(f"{out_dir} has no recorded hand {missing[0]} ({len(rows)} hands recorded)")
    checks = []
    for i in game_indices:
        same, diff = replay_hand(rows[i])
        if not same and diff is None:
            diff = len(rows[i]["moves"] or [])  # the moves replay, but the points differ
        checks.append(ReplayCheck(i, len(rows[i]["moves"] or []), same, diff))
    return checks
