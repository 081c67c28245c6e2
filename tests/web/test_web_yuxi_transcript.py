"""The yuxi transcript says what each move did: no character leaves the board unexplained.

Whole games through the API; the expectation comes from replaying the game's actions on a
fresh engine state that records nothing and comparing the board before and after each move.
"""

from __future__ import annotations

from typing import Any

import pytest

from paiju.core.protocol import CHANCE
from paiju.web.app import COOKIE
from paiju.web.sessions import YuxiSession


def _play(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    view: dict[str, Any] = client.post("/api/games/yuxi", json=body).json()
    while not view["over"]:
        # the last listed action: a swap or a play more often than 'keep' / 'end'
        action = view["legal"][-1]["action"]
        body = {"action": action, "ply": view["ply"]}
        view = client.post(f"/api/games/{view['id']}/move", json=body).json()
    return view


@pytest.mark.parametrize("seed,board", [(3, "3x3"), (5, "4x4"), (8, "6x4")])
def test_every_character_that_leaves_the_board_is_explained(client: Any, seed: int, board: str) -> None:
    view = _play(client, {"seed": seed, "board": board, "agent": "greedy"})
    session = client.app.state.web.store.get(client.cookies.get(COOKIE), view["id"])
    assert isinstance(session, YuxiSession)
    game = session.build_game(session.params)  # the same room (decks, options) as the page's
    st = game.new_initial_state()
    assert st.log is None  # this replay records nothing: the board is the only witness
    entries = iter(view["transcript"])
    vanished_total = 0
    actions = list(session.actions)
    i = 0
    while i < len(actions):
        if st.current_player() == CHANCE:
            st.apply(actions[i])
            i += 1
            continue
        before = st.clone()
        st.apply(actions[i])
        i += 1
        while i < len(actions) and st.current_player() == CHANCE:  # the die after the last move
            st.apply(actions[i])
            i += 1
        entry = next(entries)
        said = " ".join(entry["effects"])
        for cell, card in enumerate(before.card):
            if card and (st.card[cell] != card or st.owner[cell] != before.owner[cell]):
                name = game.table.card(card).name
                cell_name = st.shape.cell_name(cell)
                assert name in said and cell_name in said, (entry, name, cell_name)
                assert any(w in said for w in ("dies", "eats", "goes back")), entry
                vanished_total += 1
    assert next(entries, None) is None
    assert view["result"]["final_scores"] == list(st.final_scores())
    assert vanished_total >= 1  # these games lose characters on the way (else nothing was checked)
