"""Mahjong moves, positions and walls as text: the action ids, their names, reading them back.

The engine (:mod:`paiju.mahjong.game`) plays int actions; what each id means and how it is
written lives here, beside the wall notation that fixes a hand for duplicate play. Reading a
move needs the position (``chow`` without tiles, ``kong 5m`` on one's turn), so the functions
that read or name a move take the state; the state's ``action_to_string`` and ``parse_action``
call them. Tile notation itself is :mod:`paiju.mahjong.tiles`.

Action space (fixed, ``NUM_ACTIONS = 109``)
-------------------------------------------
====================  =============================================================
``0..33``             discard tile kind k
``34..67``            concealed kong (暗槓) of kind k - 34
``68..101``           added kong (加槓) of kind k - 68
``102`` WIN           self-draw win on one's turn, or win on the discard / robbed kong
``103`` PUNG          pung the discard
``104`` KONG          exposed kong (明槓) on the discard
``105`` CHOW_LOW      chow with the discard as the lowest tile (t, t+1, t+2)
``106`` CHOW_MID      chow with the discard in the middle (t-1, t, t+1)
``107`` CHOW_HIGH     chow with the discard as the highest tile (t-2, t-1, t)
``108`` PASS          decline every claim in a window
====================  =============================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from paiju.core.errors import AmbiguousMoveError, InvalidNotationError
from paiju.core.rng import SeedLike, as_generator
from paiju.mahjong.phases import HAND_SIZE, NUM_PLAYERS, Phase
from paiju.mahjong.tiles import (
    COPIES,
    FLOWER_BASE,
    NUM_FLOWERS,
    NUM_KINDS,
    NUM_TILES,
    NUM_TILES_WITH_FLOWERS,
    WINDS,
    Tile,
    format_counts,
    format_tiles,
    parse_kinds,
    parse_wall_kinds,
    tile_name,
    wall_tile_name,
)

if TYPE_CHECKING:  # the engine calls this module: its type only, no import circle
    from paiju.mahjong.game import MahjongState

DISCARD = 0
CONCEALED_KONG = 34
ADDED_KONG = 68
WIN = 102
PUNG = 103
KONG = 104
CHOW_LOW = 105
CHOW_MID = 106
CHOW_HIGH = 107
PASS = 108
NUM_ACTIONS = 109

_WIND_NAMES = tuple(Tile(k).chinese for k in WINDS)
_ALIASES = {
    "hu": "win",
    "胡": "win",
    "自摸": "win",
    "tsumo": "win",
    "ron": "win",
    "碰": "pung",
    "pong": "pung",
    "槓": "kong",
    "gang": "kong",
    "吃": "chow",
    "chi": "chow",
    "過": "pass",
    "discard": "d",
}
"""Other names a player may type for a move (Chinese, pinyin, Japanese), by canonical verb."""


# ---- moves --------------------------------------------------------------------------------------
def action_name(action: int, window_tile: int = -1, *, self_draw: bool = False) -> str:
    """Readable name of an action id (the layout of the module docstring)."""
    a = action
    if not 0 <= a < NUM_ACTIONS:
        return f"<invalid mahjong action {a}>"
    if a < CONCEALED_KONG:
        return f"discard {tile_name(a)}"
    if a < ADDED_KONG:
        return f"concealed kong {tile_name(a - CONCEALED_KONG)}"
    if a < WIN:
        return f"added kong {tile_name(a - ADDED_KONG)}"
    on = f" {tile_name(window_tile)}" if window_tile >= 0 else ""
    if a == WIN:
        return "win (自摸)" if self_draw else f"win{on}"
    if a == PUNG:
        return f"pung{on}"
    if a == KONG:
        return f"kong{on}"
    if a == PASS:
        return "pass"
    if window_tile >= 0:
        low = window_tile - (a - CHOW_LOW)
        return f"chow {format_tiles((low, low + 1, low + 2))}"
    return ("chow (discard low)", "chow (discard middle)", "chow (discard high)")[a - CHOW_LOW]


def action_to_string(state: MahjongState, action: Any) -> str:
    """The name of ``action`` in ``state``: the wall at the deal, else :func:`action_name` with
    the tile of the open window (what :meth:`MahjongState.action_to_string` answers)."""
    phase = state.phase
    if phase == Phase.DEAL and isinstance(action, tuple | list):
        try:
            return "wall " + wall_notation(action)
        except InvalidNotationError:
            return f"wall {action!r}"
    return action_name(
        int(action),
        state.window_tile if phase in (Phase.CLAIM, Phase.ROB) else -1,
        self_draw=phase == Phase.TURN,
    )


def read_action(state: MahjongState, text: str, legal: Sequence[int]) -> int:
    """The action ``text`` names in ``state``, whose legal actions are ``legal``; legality is
    the caller's to check (:meth:`MahjongState.parse_action`, which documents the notation).

    ``legal`` settles a bare ``chow``: the one legal chow, else :class:`AmbiguousMoveError`.
    """
    words = text.strip().lower().split()
    if not words:
        raise InvalidNotationError("empty mahjong move")
    kong_type = None
    if words[0] in ("concealed", "added") and len(words) > 1 and words[1] == "kong":
        kong_type = words.pop(0)  # action_to_string's name of a kong on one's turn
    verb, rest = words[0], " ".join(words[1:])
    verb = _ALIASES.get(verb, verb)
    if verb == "win":
        return WIN
    if verb == "pass":
        return PASS
    if verb == "pung":
        return PUNG
    if verb == "kong" and state.phase != Phase.TURN and kong_type is None:
        return KONG
    if verb == "kong":
        return _turn_kong(state, rest, text, kong_type)
    if verb == "chow":
        return _chow(state, rest, text, legal)
    ks = parse_kinds(rest if verb == "d" else text)
    if len(ks) != 1:
        raise InvalidNotationError(f"unknown mahjong move {text!r}: a discard is one tile like '5m'")
    return ks[0]


def _turn_kong(state: MahjongState, rest: str, text: str, kong_type: str | None) -> int:
    """The kong on one's turn that ``kong 5m`` names: ``concealed`` / ``added`` as written,
    else concealed when the hand holds four, added otherwise."""
    ks = parse_kinds(rest) if rest else []
    if len(ks) != 1:
        raise InvalidNotationError(f"say which kong on your turn, e.g. 'kong 5m', not {text!r}")
    k = ks[0]
    if kong_type is None:
        kong_type = "concealed" if state.hands[state.turn][k] == 4 else "added"
    return (CONCEALED_KONG if kong_type == "concealed" else ADDED_KONG) + k


def _chow(state: MahjongState, rest: str, text: str, legal: Sequence[int]) -> int:
    """The chow ``chow 345m`` names (the three tiles, the discard among them), or the one legal
    chow that a bare ``chow`` means."""
    if rest:
        ks = sorted(parse_kinds(rest))
        t = state.window_tile
        if len(ks) != 3 or t not in ks or ks[1] != ks[0] + 1 or ks[2] != ks[1] + 1:
            raise InvalidNotationError(f"a chow is three consecutive tiles including the discard: {text!r}")
        return CHOW_LOW + (t - ks[0])
    chows = [x for x in (CHOW_LOW, CHOW_MID, CHOW_HIGH) if x in legal]
    if len(chows) > 1:
        raise AmbiguousMoveError(
            f"{text!r} fits {', '.join(action_to_string(state, x) for x in chows)}; name the three tiles"
        )
    return chows[0] if chows else CHOW_LOW


# ---- positions ----------------------------------------------------------------------------------
def format_state(state: MahjongState) -> str:
    """The table as text (``str(state)``): the hand's header, then per seat its wind, concealed
    tiles, melds and river (``*`` marks a claimed discard)."""
    lines = [
        f"hand {state.hand_number} dealer {state.dealer} 連{state.continuation} "
        f"round {_WIND_NAMES[state.round_wind]} phase {state.phase.name} live {state.live_tiles}"
    ]
    for s in range(NUM_PLAYERS):
        ms = " ".join(str(m) for m in state.melds[s])
        river = " ".join(tile_name(k) + ("*" if by >= 0 else "") for k, by in state.rivers[s])
        lines.append(
            f"  {s} {_WIND_NAMES[state.seat_wind(s)]} {format_counts(state.hands[s])} [{ms}] | {river}"
        )
    return "\n".join(lines)


# ---- walls --------------------------------------------------------------------------------------
def wall_notation(wall: Sequence[int]) -> str:
    """The wall in dealing order, one tile after another (``1m5p3z…``, 272 characters; with
    flowers 144 entries, the flowers written ``1f``..``8f``)."""
    if len(wall) not in (NUM_TILES, NUM_TILES_WITH_FLOWERS):
        raise InvalidNotationError(
            f"a wall has {NUM_TILES} tiles ({NUM_TILES_WITH_FLOWERS} with flowers), got {len(wall)}"
        )
    return "".join(wall_tile_name(int(k)) for k in wall)


def parse_wall(text: str, *, flowers: bool = False) -> tuple[int, ...]:
    """Inverse of :func:`wall_notation` (tiles in written order; each kind exactly 4 times and,
    with ``flowers``, each flower once)."""
    kinds = parse_wall_kinds(text.removeprefix("wall").strip(), flowers=flowers)
    size = NUM_TILES_WITH_FLOWERS if flowers else NUM_TILES
    if len(kinds) != size:
        raise InvalidNotationError(f"a wall has {size} tiles, got {len(kinds)} in {text[:40]!r}…")
    counts = [0] * NUM_KINDS
    for k in kinds:
        if k < NUM_KINDS:
            counts[k] += 1
    bad = [tile_name(k) for k in range(NUM_KINDS) if counts[k] != COPIES]
    if bad:
        raise InvalidNotationError(f"a wall holds each tile 4 times; wrong number of {', '.join(bad)}")
    return tuple(kinds)


def build_wall(
    hands: Sequence[str],
    draws: str = "",
    replacements: str = "",
    *,
    dealer: int = 0,
    seed: SeedLike = 0,
    flowers: bool = False,
) -> tuple[int, ...]:
    """A 136-tile wall that deals the given tiles: for puzzles, tests and replaying real hands.

    ``hands[seat]`` is the notation of that seat's starting tiles (17 for ``dealer``, 16 for the
    others; a shorter string is topped up at random), ``draws`` the normal draws in order from
    the head, ``replacements`` the kong replacement tiles in order from the tail. The tiles not
    named are shuffled with ``seed`` into the remaining places. With ``flowers`` the wall has
    144 entries and the strings may name flowers (``1f``..``8f``); remember that the flowers of
    the deal are replaced from the tail first, seat by seat from the dealer.
    """
    if len(hands) != NUM_PLAYERS:
        raise InvalidNotationError(f"build_wall needs 4 hands (one per seat), got {len(hands)}")
    named = [parse_wall_kinds(h, flowers=flowers, max_copies=NUM_TILES) for h in hands]
    head = parse_wall_kinds(draws, flowers=flowers, max_copies=NUM_TILES)
    back = parse_wall_kinds(replacements, flowers=flowers, max_copies=NUM_TILES)
    entries = FLOWER_BASE + (NUM_FLOWERS if flowers else 0)
    size = NUM_TILES_WITH_FLOWERS if flowers else NUM_TILES
    counts = [0] * entries
    for k in [*(k for h in named for k in h), *head, *back]:
        counts[k] += 1
        if counts[k] > (COPIES if k < FLOWER_BASE else 1):
            raise InvalidNotationError(f"build_wall: more than {counts[k] - 1} of {wall_tile_name(k)} named")
    for seat, h in enumerate(named):
        cap = HAND_SIZE + (1 if seat == dealer else 0)
        if len(h) > cap:
            raise InvalidNotationError(f"build_wall: seat {seat} is dealt {cap} tiles, {len(h)} named")
    spare = [k for k in range(entries) for _ in range((COPIES if k < FLOWER_BASE else 1) - counts[k])]
    spare_arr = as_generator(seed).permutation(np.array(spare, dtype=np.int64))
    fill = iter(int(k) for k in spare_arr)
    wall: list[int] = [-1] * size
    for i in range(NUM_PLAYERS):
        seat = (dealer + i) % NUM_PLAYERS
        tiles = named[seat] + [next(fill) for _ in range(HAND_SIZE + (seat == dealer) - len(named[seat]))]
        wall[i * HAND_SIZE : (i + 1) * HAND_SIZE] = tiles[:HAND_SIZE]
        if seat == dealer:
            wall[NUM_PLAYERS * HAND_SIZE] = tiles[HAND_SIZE]
    start = NUM_PLAYERS * HAND_SIZE + 1
    if len(head) + len(back) > size - start:
        raise InvalidNotationError("build_wall: more draws and replacements named than the wall holds")
    wall[start : start + len(head)] = head
    for i, k in enumerate(back):
        wall[size - 1 - i] = k
    for i in range(size):
        if wall[i] < 0:
            wall[i] = next(fill)
    return tuple(wall)
