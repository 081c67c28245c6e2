"""How the web app answers a refused or failed request: always one JSON error body.

Every error is ``{"error": ..., "field": ..., "type": ...}`` (:class:`ErrorBody`, declared in
the OpenAPI schema for every 4xx by :data:`ERROR_RESPONSES`), whose ``field`` names the
request field at fault. The status follows the engine error's meaning
(:func:`install_error_handlers`): an illegal move is a 409, a not-found a 404, a request
without the right to it (:class:`Forbidden`) a 403, bad
notation or configuration a 422, a cancelled computation a 503; an unexpected exception is
a logged 500 that keeps the connection usable (:class:`ContainErrors`).

Routes say which field an engine error is about with :func:`blame` (around the call that
reads the field) or :func:`blamed` (on an error they raise themselves).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paiju.core.errors import (
    CorruptRecordError,
    IllegalMoveError,
    NotFoundError,
    PaijuError,
    WorkCancelled,
)

_log = logging.getLogger("paiju.web.app")  # the app's one logger, whichever module logs


class ErrorBody(BaseModel):
    """What every refused request gets (the OpenAPI schema declares it for every 4xx)."""

    error: str = Field(description="what is wrong, in words")
    field: str | None = Field(
        description="the request field at fault: a body field ('seed', 'agents.1'), "
        "'query.<name>', 'path.<name>', or 'body' for the body as a whole; null if none is"
    )
    type: str = Field(description="the kind of error (ValidationError, IllegalMoveError, ...)")
    problems: list[str] | None = Field(None, description="every validation problem, when there are several")


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "a body that cannot be read (not UTF-8 JSON)"},
    404: {"model": ErrorBody, "description": "no such game, run, report or game kind"},
    409: {"model": ErrorBody, "description": "an illegal or stale move"},
    422: {"model": ErrorBody, "description": "a malformed request: the field and why"},
    503: {"model": ErrorBody, "description": "busy: no worker free in time, or the work ran out of time"},
}


class Forbidden(PaijuError):
    """A request the client has no right to (a 403): a route's refusal, not an engine error."""


def blamed(err: PaijuError, field: str) -> PaijuError:
    """``err`` naming the request field at fault (the error body's ``field``)."""
    if err.field is None:
        err.field = field
    return err


@contextmanager
def blame(field: str) -> Iterator[None]:
    """Engine errors raised while handling one request field name that field."""
    try:
        yield
    except PaijuError as err:
        raise blamed(err, field) from None


def error_response(status: int, exc: Exception) -> JSONResponse:
    """The error body of ``exc`` (its ``field`` if a route blamed one) with ``status``."""
    return JSONResponse(
        {"error": str(exc), "field": getattr(exc, "field", None), "type": type(exc).__name__},
        status_code=status,
    )


async def _illegal(request: Request, exc: IllegalMoveError) -> JSONResponse:
    return error_response(409, exc)


async def _stopped(request: Request, exc: WorkCancelled) -> JSONResponse:
    # over the analysis time limit, no free analysis slot, or the server is stopping:
    # nothing wrong with the request itself, so a 503 the client may retry
    response = error_response(503, exc)
    response.headers["Retry-After"] = "5"
    return response


async def _bad_input(request: Request, exc: PaijuError) -> JSONResponse:
    if isinstance(exc, NotFoundError):
        return error_response(404, exc)
    if isinstance(exc, Forbidden):
        return error_response(403, exc)
    if isinstance(exc, CorruptRecordError):
        # a damaged file on the server, not the client's input: logged, still a JSON body
        _log.error("paiju web: %s", exc)
        return error_response(500, exc)
    return error_response(422, exc)


async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    problems, fields = [], []
    for e in exc.errors():
        if e.get("type") == "json_invalid":
            where = "body"  # its loc is ("body", <character offset>)
        else:
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        fields.append(where)
        problems.append(f"{where}: {e.get('msg')}")
    return JSONResponse(
        {
            "error": "invalid request: " + "; ".join(problems),
            "field": fields[0] if fields else None,
            "type": "ValidationError",
            "problems": problems,
        },
        status_code=422,
    )


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    # a 400 is a body that cannot be read at all (not UTF-8, not a form): the body is at fault;
    # a 404 / 405 from the router: no route has this path / takes this method (the HTTP fuzzer
    # found these 4xx naming no field)
    field = {400: "body", 404: "path", 405: "method"}.get(exc.status_code)
    return JSONResponse(
        {"error": str(exc.detail), "field": field, "type": "HTTPError"},
        status_code=exc.status_code,
        headers=exc.headers,
    )


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error ``app`` can meet with the JSON error body and its status."""
    # (the decorator form: it takes handlers typed with their own exception class)
    app.exception_handler(IllegalMoveError)(_illegal)
    app.exception_handler(WorkCancelled)(_stopped)
    app.exception_handler(PaijuError)(_bad_input)
    app.exception_handler(RequestValidationError)(_invalid)
    # FastAPI's and Starlette's own (404, 405, bodies that cannot be read)
    app.exception_handler(StarletteHTTPException)(_http_error)


class ContainErrors:
    """Answers an unexpected exception with a logged 500 JSON body and does not re-raise it.

    Starlette's outermost layer re-raises after sending its 500 (so that servers can log it),
    and uvicorn then closes the connection: the client's next request on the same keep-alive
    connection was reset. Stopping the exception here keeps the connection usable."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            _log.exception("paiju web: %s %s failed", scope.get("method"), scope.get("path"))
            if started:
                raise  # half a response is out: the connection cannot carry another one anyway
            body = {"error": f"internal error ({type(exc).__name__})", "field": None, "type": "InternalError"}
            await JSONResponse(body, status_code=500)(scope, receive, send)
