"""Hand-built yuxi positions: for rules tests, documentation examples and designers.

``scenario(game, units={"b2": ("reef_crab", 0, {"power": 6})}, weather={"b2": "fog"}, ...)``
builds a consistent mid-game state: the decks are what the fixed deck lists leave after the
hands, the board and the graves (a position that needs more copies than a deck holds is a
:class:`ConfigError` naming the card), so the invariant checker holds on it and every rule
can be exercised with the checker on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from paiju.core.errors import ConfigError
from paiju.yuxi.effects import WEATHER_BY_NAME
from paiju.yuxi.game import YuxiGame, YuxiState
from paiju.yuxi.phases import PH_SWAP, PHASE_NAMES, Phase

UnitSpec = tuple[str, int] | tuple[str, int, Mapping[str, int]]


def scenario(
    game: YuxiGame,
    *,
    units: Mapping[str, UnitSpec] | None = None,
    weather: Mapping[str, str] | None = None,
    hands: Sequence[Sequence[str]] = ((), ()),
    graves: Sequence[Sequence[str]] = ((), ()),
    purses: tuple[int, int] = (2, 2),
    to_move: int = 0,
    phase: str = "play",
    played: bool = False,
    acted: bool = False,
    out: tuple[bool, bool] = (False, False),
    offer: Sequence[str] = (),
    turn: int = 1,
) -> YuxiState:
    """A state with the given board, hands, graves and purses (see the module docstring).

    A unit is ``(card key, owner)`` or ``(card key, owner, {"power", "armour", "coins",
    "cd"})``; unspecified numbers are the card's printed ones (cooldown: its period).
    """
    table = game.table
    s = YuxiState(game)
    s.phase = Phase(PHASE_NAMES.index(phase))
    s.to_move, s.played, s.acted, s.out, s.turn = to_move, played, acted, list(out), turn
    s.purse = list(purses)
    s.hand = [sorted(table.card(k).id for k in hands[0]), sorted(table.card(k).id for k in hands[1])]
    for name, spec in (units or {}).items():
        cell = game.shape.parse_cell(name)
        key, owner = spec[0], spec[1]
        extra: Mapping[str, Any] = spec[2] if len(spec) > 2 else {}
        unknown = set(extra) - {"power", "armour", "coins", "cd"}
        if unknown:
            raise ConfigError(f"scenario unit {name}: unknown fields {sorted(unknown)}")
        c = game.cards[table.card(key).id]
        assert c is not None
        if not c.is_character:
            raise ConfigError(f"scenario unit {name}: {key} is a spell, not a character")
        s.card[cell], s.owner[cell] = c.id, owner
        s.base[cell] = c.points
        s.power[cell] = extra.get("power", c.points)
        s.armour[cell] = extra.get("armour", c.armour)
        s.coins[cell] = extra.get("coins", c.coins)
        s.cd[cell] = extra.get("cd", c.cooldown)
        s.score[owner] += s.power[cell]
    for name, kind in (weather or {}).items():
        s.weather[game.shape.parse_cell(name)] = WEATHER_BY_NAME[kind]
    for p in (0, 1):
        for k in graves[p]:
            s.grave[p][table.card(k).id] += 1
        deck = list(game.initial_decks[p])
        for cid in range(1, table.num_ids + 1):
            c = game.cards[cid]
            assert c is not None
            used = (
                s.hand[p].count(cid)
                + s.grave[p][cid]
                + sum(1 for i in range(game.shape.cells) if s.card[i] == cid and s.owner[i] == p)
            )
            if c.is_void:
                s.voids[p][cid] = used
            else:
                deck[cid] -= used
                if deck[cid] < 0:
                    raise ConfigError(
                        f"scenario: player {p} uses {used} {c.key} but deck {game.config.decks[p]!r} "
                        f"holds {game.initial_decks[p][cid]}"
                    )
        s.deck[p] = deck
        s.deck_n[p] = sum(deck)
    if s.phase == PH_SWAP:
        s.offer = sorted(table.card(k).id for k in offer)
        s.offer_size = len(s.offer)
    s.coin_total = (
        sum(s.purse)
        + sum(s.coins)
        + sum(
            1
            for p in (0, 1)
            for cid in s.hand[p]
            if (c := game.cards[cid]) is not None and c.is_coin
        )
    )
    return s
