"""Playing against the AIs: start a game, list mine, look at one, ask for a hint, move.

A game belongs to the session cookie that started it (other sessions get a 404), and the
moves on one game are serialised by its lock (:meth:`~paiju.web.state.WebState.lock`).
Engine and AI work runs in worker threads; every game is saved after every request that
changed it, whatever went wrong in the AI's part.
"""

from __future__ import annotations

import re
import secrets
import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from paiju.core.errors import InvalidNotationError, NotFoundError, PaijuError
from paiju.web.errors import blame, blamed
from paiju.web.limits import MAX_INDEX
from paiju.web.sessions import MAX_SEED, SESSION_KINDS, GameSession, MahjongSession
from paiju.web.state import Web, WebState
from paiju.yuxi.cards import MAX_TABLE_TEXT

GAME_ID = re.compile(r"[0-9a-f]{8,64}")
"""The shape of a game id (``uuid4().hex``), checked before any lookup."""
AgentSpec = Annotated[str, Field(min_length=1, max_length=200)]
Seed = Annotated[int | None, Field(default=None, ge=0, le=MAX_SEED)]


# ---- request bodies -------------------------------------------------------------------------------
class _Body(BaseModel):
    # strict: JSON true/false are not integers and "3" is not a number (lax mode coerces both)
    model_config = ConfigDict(extra="forbid", strict=True)


class NewDouDizhu(_Body):
    seat: int = Field(0, ge=0, le=2, description="your seat (0 is the landlord unless bidding)")
    agents: list[AgentSpec] = Field(
        default_factory=lambda: ["rule", "rule"],
        min_length=2,
        max_length=2,
        description="the two AIs, in seat order of the seats you do not take",
    )
    scoring: Literal["competition", "casual"] = "competition"
    bidding: bool = False
    seed: Seed = None


class NewMahjong(_Body):
    seat: int = Field(0, ge=0, le=3, description="your seat (0 is the dealer)")
    agents: list[AgentSpec] = Field(
        default_factory=lambda: ["greedy"] * 3,
        min_length=3,
        max_length=3,
        description="the three AIs, in seat order of the seats you do not take",
    )
    flowers: bool = Field(False, description="play the 8 flowers (docs/mahjong-rules.md §9.1)")
    seed: Seed = None


class NewYuxi(_Body):
    seat: int = Field(0, ge=0, le=1, description="0 moves first")
    agent: AgentSpec = "greedy"
    board: Literal["3x3", "4x4", "6x4"] = "4x4"
    decks: list[Annotated[str, Field(min_length=1, max_length=60)]] | None = Field(
        None, min_length=2, max_length=2, description="your deck and the AI's deck (seat order)"
    )
    die_bonus: bool = True
    swaps: bool = True
    seed: Seed = None
    cards_toml: Annotated[str, Field(max_length=MAX_TABLE_TEXT)] | None = Field(
        None, description="a card table in the TOML format of docs/yuxi-cards.md (default: the shipped one)"
    )
    decks_toml: Annotated[str, Field(max_length=MAX_TABLE_TEXT)] | None = Field(
        None, description="a deck table (TOML) to go with it (default: the shipped decks)"
    )


class MoveBody(_Body):
    move: Annotated[str, Field(max_length=80)] | None = None
    type: Annotated[str, Field(max_length=40)] | None = None
    action: int | None = Field(None, ge=0, le=100_000)
    ply: int | None = Field(
        None, ge=0, le=MAX_INDEX, description="the ply the move was made for (stale moves get 409)"
    )


# ---- starting and loading games -------------------------------------------------------------------
async def start(
    web: WebState,
    request: Request,
    kind: str,
    params: dict[str, Any],
    seed: int | None,
    agents_field: str = "agents",
) -> dict[str, Any]:
    """Create, store and open a game of ``kind``: the AIs move until it is the human's turn."""
    cls = SESSION_KINDS[kind]
    specs = params["agents"]
    with blame(agents_field):
        await run_in_threadpool(cls.validate_specs, specs, params)
    game_seed = seed if seed is not None else secrets.randbits(63)
    game_id = uuid.uuid4().hex

    def work() -> dict[str, Any]:
        game = cls(game_id, params, game_seed)
        web.store.create(request.state.session, game)
        try:
            game.run_ai(web.runner)
        finally:
            web.store.save(game)
        return game.view()

    async with web.lock(game_id):
        return await run_in_threadpool(work)


async def load(web: WebState, request: Request, game_id: str) -> GameSession:
    """The game ``game_id`` of this request's session (a 404 naming the path if there is none)."""
    # the id's shape is checked before any lookup: no odd bytes reach the store
    if not GAME_ID.fullmatch(game_id):
        raise blamed(NotFoundError(f"no game {game_id!r}"), "path.game_id")
    game = await run_in_threadpool(web.store.get, request.state.session, game_id)
    if game is None:
        raise blamed(NotFoundError(f"no game {game_id!r} in this session"), "path.game_id")
    return game


# ---- the routes ---------------------------------------------------------------------------------
router = APIRouter()


@router.post("/api/games/doudizhu", status_code=201)
async def new_doudizhu(web: Web, request: Request, body: NewDouDizhu) -> dict[str, Any]:
    agents: list[str | None] = list(body.agents)
    agents.insert(body.seat, None)
    params = {"seat": body.seat, "agents": agents, "scoring": body.scoring, "bidding": body.bidding}
    return await start(web, request, "doudizhu", params, body.seed)


@router.post("/api/games/mahjong", status_code=201)
async def new_mahjong(web: Web, request: Request, body: NewMahjong) -> dict[str, Any]:
    agents: list[str | None] = list(body.agents)
    agents.insert(body.seat, None)
    params: dict[str, Any] = {"seat": body.seat, "agents": agents}
    if body.flowers:  # stored only when on: games started before the option replay unchanged
        params["flowers"] = True
    return await start(web, request, "mahjong", params, body.seed)


@router.post("/api/games/yuxi", status_code=201)
async def new_yuxi(web: Web, request: Request, body: NewYuxi) -> dict[str, Any]:
    agents: list[str | None] = [body.agent]
    agents.insert(body.seat, None)
    params: dict[str, Any] = {
        "seat": body.seat,
        "agents": agents,
        "board": body.board,
        "die_bonus": body.die_bonus,
        "swaps": body.swaps,
    }
    if body.decks is not None:
        decks = list(body.decks) if body.seat == 0 else [body.decks[1], body.decks[0]]
        params["decks"] = decks
    if body.cards_toml is not None or body.decks_toml is not None:
        from paiju.yuxi.cards import card_table_from_text

        for part in ("cards_toml", "decks_toml"):
            if getattr(body, part) is not None:
                params[part] = getattr(body, part)
        try:
            await run_in_threadpool(card_table_from_text, body.cards_toml, body.decks_toml)
        except PaijuError as err:
            # the tables' errors start with the text they are in: "cards_toml: ..." / "decks_toml: ..."
            raise blamed(err, "decks_toml" if str(err).startswith("decks") else "cards_toml") from None
    # check the options (deck names, deck sizes for the board) before storing anything
    with blame("decks"):
        await run_in_threadpool(SESSION_KINDS["yuxi"].build_game, params)
    return await start(web, request, "yuxi", params, body.seed, agents_field="agent")


@router.get("/api/games")
def my_games(web: Web, request: Request, limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
    return {"games": web.store.list(request.state.session, limit)}


@router.get("/api/games/{game_id}")
async def get_game(web: Web, request: Request, game_id: str) -> dict[str, Any]:
    async with web.lock(game_id):
        game = await load(web, request, game_id)
        return await run_in_threadpool(game.view)


@router.get("/api/games/{game_id}/hint")
async def get_hint(web: Web, request: Request, game_id: str) -> dict[str, Any]:
    async with web.lock(game_id):
        game = await load(web, request, game_id)
        return await run_in_threadpool(game.hint)


@router.get("/api/games/{game_id}/advice")
async def get_advice(
    web: Web,
    request: Request,
    game_id: str,
    top: int = Query(MahjongSession.ADVICE_TOP, ge=1, le=MahjongSession.ADVICE_TOP,
                     description="candidate discards to list, best first"),
    depth: int = Query(MahjongSession.ADVICE_DEPTH, ge=1, le=MahjongSession.ADVICE_DEPTH,
                       description="Expectimax discard layers"),
) -> dict[str, Any]:
    """Mahjong: the Expectimax values of the best discards of your hand (as ``paiju mahjong
    advise``), on your turn with a discard due. Runs as an analysis: bounded in number and
    time (a 503 past the analysis time limit)."""
    async with web.lock(game_id):
        game = await load(web, request, game_id)
        if not isinstance(game, MahjongSession):
            why = f"game {game_id!r} is {game.kind}: the Expectimax hint is for mahjong"
            raise blamed(NotFoundError(why), "path.game_id")
        with blame("path.game_id"):  # not this game's moment for it: the 409 names the game
            ply, observation = game.advice_position()
    # the search runs outside the game's lock (a move need not wait for it); the answer names
    # the ply it is for, so a page that has moved on can drop it
    rows = await web.analyses.run(request, "the Expectimax hint", game.advice, ply, observation, depth)
    return {"ply": ply, "depth": depth, "best": rows[0]["discard"], "discards": rows[:top]}


@router.get("/api/games/{game_id}/check")
async def check_move(
    web: Web,
    request: Request,
    game_id: str,
    move: str = Query(..., min_length=1, max_length=80, description="a move in notation, e.g. '33'"),
) -> dict[str, Any]:
    """Whether ``move`` is a legal move of yours now, and if not why (the reason a move
    request would be refused with): the page asks it for a selection before it enables its
    play button. Nothing is played."""
    async with web.lock(game_id):
        game = await load(web, request, game_id)
        return await run_in_threadpool(game.check_human, {"move": move})


@router.post("/api/games/{game_id}/move")
async def move(web: Web, request: Request, game_id: str, body: MoveBody) -> dict[str, Any]:
    if body.move is None and body.action is None:
        raise InvalidNotationError("give 'move' (notation) or 'action' (an id from the legal list)")
    async with web.lock(game_id):
        game = await load(web, request, game_id)

        def work() -> dict[str, Any]:
            with blame("move"):
                game.play_human(body.model_dump(exclude={"ply"}), body.ply)
            try:
                game.run_ai(web.runner)
            finally:
                web.store.save(game)
            return game.view()

        return await run_in_threadpool(work)
