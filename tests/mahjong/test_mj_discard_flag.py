"""The draw-or-hand flag of every discard (摸打 / 手出): recorded by the engine, shown to every
seat in the observation, kept by clones and by determinization. Hand-built walls; each
expected flag is read off the scenario (which tile was drawn, which was thrown)."""

from __future__ import annotations

import numpy as np

from paiju.mahjong.game import CONCEALED_KONG, PASS, PUNG, MahjongGame, MahjongState, Phase, build_wall
from paiju.mahjong.tiles import Tile


def k(t: str) -> int:
    return int(Tile.parse(t))


def pass_windows(s: MahjongState) -> None:
    while s.phase in (Phase.CLAIM, Phase.ROB):
        s.apply(PASS)


def _three_discards() -> MahjongState:
    """Dealer throws from his hand (no draw on his first turn), seat 1 throws the 1z he drew,
    seat 2 keeps the 2z he drew and throws a tile from his hand."""
    dealer = "1m2m3m4m5m6m7m8m9m1p2p3p4p5p6p7p8p"
    s = MahjongGame().new_hand(build_wall([dealer, "", "", ""], draws="1z2z", seed=5))
    s.apply(k("9m"))
    pass_windows(s)
    assert s.turn == 1 and s.drawn == k("1z")
    s.apply(k("1z"))
    pass_windows(s)
    assert s.turn == 2 and s.drawn == k("2z")
    s.apply(next(x for x in range(34) if s.hands[2][x] and x != k("2z")))
    pass_windows(s)
    return s


def test_each_discard_says_whether_it_was_the_drawn_tile() -> None:
    s = _three_discards()
    assert s.discards_drawn == [[False], [True], [False], []]
    for seat in range(4):  # public: every seat sees the same flags
        obs = s.observation(seat)
        assert obs.discards_drawn == ((False,), (True,), (False,), ())
        assert [len(r) for r in obs.discards_drawn] == [len(r) for r in obs.discards]


def test_clone_and_sample_state_keep_the_flags() -> None:
    s = _three_discards()
    c = s.clone()
    assert c.discards_drawn == s.discards_drawn and c.discards_drawn is not s.discards_drawn
    c.discards_drawn[0].append(True)
    assert s.discards_drawn[0] == [False]
    game = s.game
    for seed in range(3):
        t = game.sample_state(s.observation(3), np.random.default_rng(seed))
        assert t.discards_drawn == s.discards_drawn


def test_discard_after_a_pung_is_from_the_hand() -> None:
    dealer = "5p" + "1m4m7m2s5s8s1z2z3z4z6z7z9m3p6p9p"
    s = MahjongGame().new_hand(build_wall([dealer, "", "55p", ""], seed=4))
    s.apply(k("5p"))
    while s.phase == Phase.CLAIM and s.current_player() != 2:
        s.apply(PASS)
    s.apply(PUNG)
    pass_windows(s)
    assert s.phase == Phase.TURN and s.turn == 2 and s.after_claim
    s.apply(next(x for x in range(34) if s.hands[2][x]))
    assert s.discards_drawn[2] == [False]


def test_discarding_the_kong_replacement_tile_is_drawn() -> None:
    hands = ["1111z" + "2m5m8m1p4p7p2s5s8s3z4z6z7z", "46p123m456m789m234s99s", "", ""]
    s = MahjongGame().new_hand(build_wall(hands, replacements="9s", seed=2))
    s.apply(CONCEALED_KONG + k("1z"))
    assert s.drawn == k("9s")
    s.apply(k("9s"))
    assert s.discards_drawn[0] == [True]


def test_flags_stay_parallel_to_the_rivers_in_random_play() -> None:
    game = MahjongGame()
    for seed in range(20):
        s = game.new_hand(seed=seed)
        rng = np.random.default_rng(seed)
        while s.phase != Phase.OVER:
            # 摸打 needs a draw: a turn that began with a claim (or the dealer's first) has none
            drew = s.phase == Phase.TURN and s.drawn >= 0
            before = [len(r) for r in s.discards_drawn]
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
            for p in range(4):
                assert len(s.discards_drawn[p]) == len(s.rivers[p])
                if len(s.discards_drawn[p]) > before[p] and s.discards_drawn[p][-1]:
                    assert drew
