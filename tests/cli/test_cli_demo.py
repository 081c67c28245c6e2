"""`paiju demo` (what `make run` shows until the web app): runs, and its figures are real."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.rng import derive_seed
from paiju.doudizhu import Deal, legal_moves


def test_demo_tours_a_deal_and_plays_it_out() -> None:
    result = CliRunner().invoke(app, ["demo", "--seed", "3", "--agents", "rule,rule,rule"])
    assert result.exit_code == 0, result.output
    deal = Deal.random(derive_seed(3, 0))
    assert str(deal.without_kitty()) in result.output
    n_moves = len(legal_moves(str(deal.landlord)))
    assert f"{n_moves} distinct opening moves" in result.output
    assert re.search(r"(the landlord|the farmers) win; bombs\+rockets played: \d+", result.output)


def test_demo_rejects_a_bad_agent_spec() -> None:
    result = CliRunner().invoke(app, ["demo", "--agents", "rule,rule,nosuch"])
    assert result.exit_code != 0
    assert "unknown doudizhu agent 'nosuch'" in str(result.exception)
