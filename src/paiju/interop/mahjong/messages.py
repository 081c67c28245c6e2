"""The wire of paiju's mahjong line protocol: each message a referee sends and each answer a
bot gives, as values (every message is in ``docs/mahjong-protocol.md``).

* Messages are frozen dataclasses with ``format()``; :func:`parse_message` reads a line back
  (``parse_message(m.format()) == m``). Answers: :func:`format_answer` / :func:`parse_answer`;
  the ask of an engine decision: :func:`ask_for`.
* ``/rules`` carries the rules that differ from paiju's defaults (:func:`rules_items`,
  :func:`config_from_items`); the fields that change hand by hand come in ``/initGame``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from paiju.core.errors import InvalidNotationError, PaijuError
from paiju.mahjong.config import MahjongConfig, load_tai_table
from paiju.mahjong.game import (
    ADDED_KONG,
    CHOW_HIGH,
    CHOW_LOW,
    CHOW_MID,
    CONCEALED_KONG,
    HAND_SIZE,
    KONG,
    PASS,
    PUNG,
    WIN,
    MahjongObservation,
    Phase,
)
from paiju.mahjong.tiles import (
    FLOWER_BASE,
    NUM_KINDS,
    format_counts,
    format_tiles,
    parse_kinds,
    tile_name,
    wall_tile_name,
)

PROTOCOL = "MJ16"
"""The protocol's name in ``/start``."""
WINDS = ("east", "south", "west", "north")
SOURCES = ("deal", "normal", "flower", "replacement")
"""Where a drawn tile came from: replacing a flower of the deal (tail), a normal draw (head),
replacing a flower drawn on a normal draw (tail), a kong's replacement (tail)."""
KONG_KINDS = ("exposed", "concealed", "added")
WIN_KINDS = ("selfdraw", "discard", "robkong", "flowers")
END_KINDS = ("win", "exhaustive", "forfeit")
_TABLE_FIELDS = ("dealer", "continuation", "round_wind")
"""Config fields that change hand by hand: sent in ``/initGame``, not ``/rules``."""


# ---- tokens --------------------------------------------------------------------------------------
def _bad(line: str, why: str) -> InvalidNotationError:
    return InvalidNotationError(f"bad mahjong protocol line {line[:80]!r}: {why}")


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


def chow_name(low: int) -> str:
    """A chow from ``low`` as the protocol writes it, its three tiles: ``345m``."""
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
        return " ".join(["/initCard", *(wall_tile_name(t) for t in self.tiles)])


@dataclass(frozen=True)
class Mo:
    """``/mo <tile> <source>``: the seat itself draws ``tile`` (only the drawer is told it)."""

    tile: int
    source: str
    verb: ClassVar[str] = "/mo"

    def format(self) -> str:
        return f"/mo {wall_tile_name(self.tile)} {self.source}"


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
        return f"/flower {self.seat} {wall_tile_name(FLOWER_BASE + self.flower)}"


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
        return f"/chow {self.seat} {chow_name(self.low)} {self.source}"


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
                parts += ["chow", chow_name(self.tile - (a - CHOW_LOW))]
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
        return f"chow {chow_name(ask.tile - (action - CHOW_LOW))}"
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
