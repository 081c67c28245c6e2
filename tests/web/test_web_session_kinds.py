"""The web sessions' registry (each game served once, under its engine's registry name) and
the start-up warm-up each session provides."""

from __future__ import annotations

import pytest

from paiju.core.registry import get_entry
from paiju.web.sessions import SESSION_KINDS, DouDizhuSession, MahjongSession, YuxiSession
from paiju.web.sessions.base import session_kinds


def test_each_game_is_served_by_its_own_session() -> None:
    served = SESSION_KINDS
    assert served == {"doudizhu": DouDizhuSession, "mahjong": MahjongSession, "yuxi": YuxiSession}
    for kind in served:  # the name the session loads its engine and agents by
        assert get_entry(kind).name == kind


def test_a_second_session_for_one_game_is_refused() -> None:
    class AnotherMahjong(MahjongSession):
        pass

    with pytest.raises(ValueError, match="two web sessions for game 'mahjong'"):
        session_kinds(DouDizhuSession, MahjongSession, AnotherMahjong)


def test_the_dou_dizhu_warm_up_loads_the_shipped_tagger() -> None:
    # the split hint never waits for torch: it shows the learned split once this has run
    from paiju.doudizhu.tagger.model import SHIPPED, loaded_shipped_model

    DouDizhuSession.warm_up()
    assert (loaded_shipped_model() is not None) == SHIPPED.is_file()
