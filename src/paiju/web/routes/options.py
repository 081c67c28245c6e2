"""What a new game may be started with: each game's agents, yuxi's boards and decks."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from paiju.core.errors import NotFoundError
from paiju.web.errors import blamed
from paiju.web.sessions import SESSION_KINDS, GameSession

router = APIRouter()


def session_kind(kind: str) -> type[GameSession]:
    """The session class of the game ``kind`` named in the path (a 404 naming it if unknown)."""
    try:
        return SESSION_KINDS[kind]
    except KeyError:
        raise blamed(
            NotFoundError(f"unknown game {kind!r}; games: {', '.join(SESSION_KINDS)}"), "path.kind"
        ) from None


@router.get("/api/agents/{kind}")
def agents(kind: str) -> dict[str, Any]:
    cls = session_kind(kind)
    registry = cls.load_registry()
    return {
        "game": kind,
        "fallback": cls.fallback_spec,
        "agents": [
            {
                "name": name,
                "defaults": defaults,
                "doc": doc,
                # the inclusive range of every numeric parameter (its cost limit) and the
                # allowed values of closed string parameters
                "limits": {key: list(bounds) for key, bounds in registry.limits(name).items()},
                "choices": {key: list(values) for key, values in registry.choices(name).items()},
            }
            for name, (defaults, doc) in registry.describe().items()
        ],
    }


@router.get("/api/yuxi/options")
def yuxi_options() -> dict[str, Any]:
    from paiju.yuxi.board import BOARDS
    from paiju.yuxi.cards import load_card_table

    table = load_card_table()
    return {
        "boards": [
            {"name": b.name, "hand_size": b.hand_size, "min_deck": b.min_deck} for b in BOARDS.values()
        ],
        "decks": [{"name": name, "size": deck.size} for name, deck in table.decks.items()],
    }
