"""The organiser's API from its own OpenAPI schema (schemathesis), on an app serving a real event.

``test_web_schema.py`` fuzzes every route of an app without an event (the tournament routes
then answer 404); here the app serves an event with a released round, and most generated
requests are steered at it (a paired round, a table it has, the director's token), so the
bodies reach the director's library: every answer must be no 5xx and match the schema,
schema-invalid requests must get a 4xx, whatever the library makes of the rest.
"""

from __future__ import annotations

import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, seed, settings
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.parameters import ParameterLocation
from schemathesis.python import asgi

from paiju.tournament.director.formats import EventFormat
from paiju.tournament.director.rounds import choose_boards, pair_round, release
from paiju.tournament.director.store import EventStore
from paiju.web.app import create_app

EXAMPLES = 25
TOKEN = "schema-director-token"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    negative_data_rejection,
]


def _build_app(root: Path) -> Any:
    rows = [{"code": f"{i:02d}", "name": f"Player {i}", "club": "", "rating": None} for i in range(1, 10)]
    with EventStore.create(root / "event.db", "Schema event", EventFormat(rounds=2), "desk", rows) as store:
        pair_round(store, 1, 1, "desk")
        choose_boards(store, 1, 1, "desk", select="random", pool=None)
        release(store, 1, "desk")
    return create_app(
        root / "data", report_dirs=[], ai_workers=1, event=root / "event.db", director_token=TOKEN
    )


APP = _build_app(Path(tempfile.mkdtemp(prefix="paiju-tournament-schema-")))
schema = schemathesis.openapi.from_dict(APP.openapi()).include(path_regex="^/api/tournament")
schema.app = APP
schema.config.generation.update(max_examples=EXAMPLES, database="none")


@pytest.fixture(scope="module")
def api() -> Iterator[Any]:
    """One in-process client for the module, without the app's lifespan (as test_web_schema.py)."""
    try:
        yield asgi.get_client(APP)
    finally:
        APP.state.web.close()


@schema.parametrize()
@seed(20261207)
@settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=False)
def test_the_tournament_api_answers_as_its_schema_says(case: Any, api: Any) -> None:
    # steer most schema-valid requests at the event (deterministically, from what was generated)
    pick = zlib.crc32(repr(case.path_parameters).encode() + repr(case.body).encode()) % 4
    params = case.path_parameters or {}
    if not case.meta.is_negative_at(ParameterLocation.PATH) and pick < 3:
        if "round_no" in params:
            params["round_no"] = 1
        if "table_no" in params:
            params["table_no"] = 1 + pick
    if not case.meta.is_negative_at(ParameterLocation.HEADER) and pick < 3:
        case.headers = {**(case.headers or {}), "x-director-token": TOKEN}
    case.call_and_validate(session=api, checks=CHECKS)
