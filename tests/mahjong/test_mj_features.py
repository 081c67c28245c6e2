"""The mahjong feature encoder: only what the seat sees, laid out as documented."""

from __future__ import annotations

import numpy as np
import pytest

from paiju.mahjong import features as F
from paiju.mahjong.game import DrawKind, MahjongGame, MahjongObservation, MahjongState, Phase
from paiju.mahjong.tiles import Meld, MeldType, parse_counts


def _positions(seed: int, every: int = 7) -> list[MahjongState]:
    """States along a random hand, every ``every`` decisions."""
    state = MahjongGame().new_hand(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    step = 0
    while not state.is_terminal():
        if step % every == 0:
            out.append(state.clone())
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
        step += 1
    return out


def test_resampling_hidden_tiles_leaves_the_encoding_unchanged() -> None:
    hidden_changed = 0
    checked = 0
    for seed in (3, 11):
        for state in _positions(seed):
            player = state.current_player()
            planes = F.encode_planes(state.observation(player))
            flat = F.encode_flat(state.observation(player))
            for r in range(2):
                other = state.resample_from_infostate(player, 1000 * seed + r)
                others_before = [state.hands[s] for s in range(4) if s != player]
                others_after = [other.hands[s] for s in range(4) if s != player]
                hidden_changed += others_before != others_after or state.wall != other.wall
                np.testing.assert_array_equal(F.encode_planes(other.observation(player)), planes)
                np.testing.assert_array_equal(F.encode_flat(other.observation(player)), flat)
                checked += 1
    assert checked >= 20
    # the hidden part really was redrawn, so the equality above is not vacuous
    assert hidden_changed >= checked - 2


def test_other_seats_see_different_inputs() -> None:
    # the encoding does depend on the seat: an encoder ignoring its input would pass the leak test
    state = _positions(5)[3]
    encodings = [F.encode_flat(state.observation(p)) for p in range(4)]
    for a in range(4):
        for b in range(a + 1, 4):
            assert not np.array_equal(encodings[a], encodings[b])


def _observation(**overrides: object) -> MahjongObservation:
    base: dict[str, object] = dict(
        player=1,
        phase=Phase.TURN,
        to_act=1,
        turn=1,
        hand=tuple(parse_counts("1112345m19p77z")),
        drawn=4,  # 5m
        draw_kind=DrawKind.NORMAL,
        after_claim=False,
        window_tile=-1,
        window_from=-1,
        melds=(
            (),
            (Meld(MeldType.PUNG, 27, 27, 0),),  # own pung of 東 claimed from seat 0
            (Meld(MeldType.CHOW, 20, 21, 1), Meld(MeldType.CONCEALED_KONG, -1)),  # 345s, face down
            (),
        ),
        discards=(((9, -1), (27, 1)), ((33, -1),), ((18, -1), (18, -1)), ((17, -1),)),
        discards_drawn=((True, False), (False,), (True, True), (False,)),
        hand_sizes=(16, 14, 10, 16),
        live_tiles=68,
        replacements_drawn=1,
        no_calls=False,
        lock=0,
        own_claim=-1,
        earth_ready=2,
        dealer=0,
        continuation=2,
        round_wind=1,
        hand_number=0,
        dealer_passes=0,
        scores=(0, 0, 0, 0),
        last_result=None,
    )
    base.update(overrides)
    return MahjongObservation(**base)  # type: ignore[arg-type]


def _kind_plane(planes: np.ndarray, index: int) -> dict[str, int]:
    """The tiles marked in a per-kind plane, in notation, and a check that padding is zero."""
    plane = planes[index]
    assert plane[4:].sum() == 0 and plane[:, 9:].sum() == 0 and plane[3, 7:].sum() == 0
    names = "mpsz"
    return {f"{c + 1}{names[r]}": int(plane[r, c]) for r, c in zip(*np.nonzero(plane), strict=True)}


def test_hand_built_observation_gives_the_hand_checked_planes() -> None:
    planes = F.encode_planes(_observation())
    assert planes.shape == F.PLANE_SHAPE == (F.NUM_PLANES, 19, 19)
    assert _kind_plane(planes, F.HAND) == {t: 1 for t in ("1m", "2m", "3m", "4m", "5m", "1p", "9p", "7z")}
    assert _kind_plane(planes, F.HAND + 1) == {"1m": 1, "7z": 1}
    assert _kind_plane(planes, F.HAND + 2) == {"1m": 1}
    assert _kind_plane(planes, F.HAND + 3) == {}
    assert _kind_plane(planes, F.DRAWN) == {"5m": 1}
    assert _kind_plane(planes, F.WINDOW) == {}
    # relative seats: 0 = self (seat 1), 1 = seat 2, 2 = seat 3, 3 = seat 0
    assert _kind_plane(planes, F.MELDS + 0 * 4 + 2) == {"1z": 1}  # own pung: 3 copies of 東
    assert _kind_plane(planes, F.MELDS + 0 * 4 + 3) == {}
    # seat 2: the chow; its face-down kong is no kind (a scalar counts it)
    assert _kind_plane(planes, F.MELDS + 1 * 4) == {"3s": 1, "4s": 1, "5s": 1}
    assert _kind_plane(planes, F.MELDS + 3 * 4) == {}
    seat0 = F.DISCARDS + 3 * F.DISCARD_PLANES
    assert _kind_plane(planes, seat0) == {"1p": 1, "1z": 1}
    assert _kind_plane(planes, seat0 + 4) == {"1p": 1}  # 1p was the tile just drawn
    assert _kind_plane(planes, seat0 + 5) == {"1z": 1}  # 東 came from the hand
    assert _kind_plane(planes, seat0 + 6) == {"1z": 1}  # latest discard
    seat2 = F.DISCARDS + 1 * F.DISCARD_PLANES
    assert _kind_plane(planes, seat2 + 1) == {"1s": 1}  # 1s twice
    assert _kind_plane(planes, seat2 + 4) == {"1s": 1}
    assert _kind_plane(planes, seat2 + 5) == {}
    seat3 = F.DISCARDS + 2 * F.DISCARD_PLANES
    assert _kind_plane(planes, seat3) == {"9p": 1} == _kind_plane(planes, seat3 + 5)
    own = F.DISCARDS + 0 * F.DISCARD_PLANES
    assert _kind_plane(planes, own + 5) == {"7z": 1}
    # unseen 東: own pung 3 + seat 0's discard was claimed (counted in the pung) -> 1 unseen
    unseen = _kind_plane(planes, F.UNSEEN)
    assert unseen["1z"] == 1 and "1z" not in _kind_plane(planes, F.UNSEEN + 1)
    # 1m: 3 own, none elsewhere -> 1 unseen; 1s: 2 discarded -> 2 unseen; 7z: 2 own + 1 discarded
    assert "1m" not in _kind_plane(planes, F.UNSEEN + 1)
    assert "1s" in _kind_plane(planes, F.UNSEEN + 1) and "1s" not in _kind_plane(planes, F.UNSEEN + 2)
    assert unseen["7z"] == 1 and "7z" not in _kind_plane(planes, F.UNSEEN + 1)
    assert _kind_plane(planes, F.UNSEEN + 3)["9s"] == 1  # nothing of 9s seen


def test_hand_built_scalars_fill_the_tile_cells() -> None:
    planes = F.encode_planes(_observation())
    base = F.NUM_KIND_FEATURES

    def scalar(index: int) -> float:
        plane = planes[base + index]
        cells = plane[F.KIND_ROW, F.KIND_COL]
        assert np.all(cells == cells[0])
        assert plane.sum() == pytest.approx(cells[0] * 34)  # nothing outside the tile cells
        return float(cells[0])

    assert [scalar(F.ROUND_WIND + i) for i in range(4)] == [0, 1, 0, 0]  # 南 round
    assert [scalar(F.SEAT_WIND + i) for i in range(4)] == [0, 1, 0, 0]  # seat 1, dealer 0: 南
    assert [scalar(F.DEALER + i) for i in range(4)] == [0, 0, 0, 1]  # dealer is the previous seat
    assert [scalar(F.PHASE + i) for i in range(3)] == [1, 0, 0]
    assert scalar(F.TILES_LEFT) == pytest.approx(68 / 136)
    assert scalar(F.CONTINUATION) == pytest.approx(0.5)
    assert scalar(F.AFTER_CLAIM) == 0
    assert [scalar(F.HIDDEN_KONGS + i) for i in range(4)] == [0, 0.25, 0, 0]


def test_flat_layout_matches_the_planes_and_batches_stack() -> None:
    a = _observation()
    b = _observation(phase=Phase.CLAIM, to_act=1, turn=0, drawn=-1, window_tile=17, window_from=0)
    flat = F.encode_flat_batch([a, b])
    planes = F.encode_planes_batch([a, b])
    assert flat.shape == (2, F.FLAT_SIZE) and flat.dtype == np.float32
    assert planes.shape == (2, *F.PLANE_SHAPE) and planes.dtype == np.float32
    for i in range(2):
        kinds = flat[i, : F.NUM_KIND_FEATURES * 34].reshape(F.NUM_KIND_FEATURES, 34)
        np.testing.assert_array_equal(kinds, planes[i][: F.NUM_KIND_FEATURES, F.KIND_ROW, F.KIND_COL])
        np.testing.assert_array_equal(
            flat[i, F.NUM_KIND_FEATURES * 34 :], planes[i, F.NUM_KIND_FEATURES :, 0, 0]
        )
    np.testing.assert_array_equal(planes[0], F.encode_planes(a))
    np.testing.assert_array_equal(F.planes_from_flat(flat), planes)
    assert _kind_plane(planes[1], F.WINDOW) == {"9p": 1}
    assert planes[1, F.NUM_KIND_FEATURES + F.PHASE + 1, 0, 0] == 1
    assert _kind_plane(planes[1], F.DRAWN) == {}


def test_discard_mask_is_the_engines_legal_discards() -> None:
    for state in _positions(7, every=3):
        if state.phase != Phase.TURN:
            continue
        p = state.current_player()
        legal = {a for a in state.legal_actions() if a < 34}
        assert set(np.flatnonzero(F.discard_mask(state.observation(p)))) == legal


def test_encoder_rejects_a_non_observation() -> None:
    with pytest.raises(TypeError, match="MahjongObservation"):
        F.encode_planes_batch([object()])  # type: ignore[list-item]


def test_batched_own_turn_encoding_equals_encoding_each_position() -> None:
    rng = np.random.default_rng(8)
    checked = 0
    for state in _positions(13, every=5):
        obs = state.observation(state.current_player())
        p = obs.player
        hands, melds, rivers, flags, lefts, singles = [], [], [], [], [], []
        for _ in range(4):
            hand = list(obs.hand)
            unseen = obs.unseen_counts()
            river = list(obs.discards[p])
            drawn_flags = list(obs.discards_drawn[p])
            own_melds = list(obs.melds[p])
            for _step in range(int(rng.integers(0, 3))):  # hypothetical draw-and-discard turns
                pool = [k for k in range(34) if unseen[k] > 0]
                t = pool[int(rng.integers(len(pool)))]
                hand[t] += 1
                unseen[t] -= 1
                held = [k for k in range(34) if hand[k]]
                d = held[int(rng.integers(len(held)))]
                hand[d] -= 1
                river.append((d, -1))
                drawn_flags.append(d == t)
            if rng.random() < 0.3 and max(hand) >= 3:  # and sometimes a pung of a held triple
                k = int(np.argmax(hand))
                hand[k] -= 3
                own_melds.append(Meld(MeldType.PUNG, k, k, (p + 1) % 4))
            left = obs.live_tiles - int(rng.integers(0, 9))
            hands.append(hand)
            melds.append(tuple(own_melds))
            rivers.append(tuple(river))
            flags.append(tuple(drawn_flags))
            lefts.append(left)
            singles.append(F.encode_features(F.own_turn(obs, hand, own_melds, river, drawn_flags, left)))
        kinds, scalars = F.encode_own_turns(obs, hands, melds, rivers, flags, lefts)
        for i, (k_one, s_one) in enumerate(singles):
            np.testing.assert_array_equal(kinds[i], k_one)
            np.testing.assert_array_equal(scalars[i], s_one)
            checked += 1
    assert checked >= 20


def _shape_of(hand: str, unseen: dict[str, int]) -> dict[str, tuple[float, float, float, float]]:
    """The shape block of a hand given its unseen copies, per held kind (via the kinds array)."""
    kinds = np.zeros((1, F.NUM_KIND_FEATURES, 34), dtype=np.float32)
    counts = np.asarray(parse_counts(hand))
    seen = np.zeros(34, dtype=np.int64)
    for tile, n in unseen.items():
        seen[parse_counts(tile).index(1)] = n
    kinds[0, F.HAND : F.HAND + 4] = counts[None, :] >= np.arange(1, 5)[:, None]
    kinds[0, F.UNSEEN : F.UNSEEN + 4] = seen[None, :] >= np.arange(1, 5)[:, None]
    block = F.shape_features(kinds)[0]
    assert block.shape == (F.SHAPE_SIZE,)
    per_kind = block[:-1].reshape(F.SHAPE_PLANES, 34)
    names = "mpsz"
    return {f"{k % 9 + 1}{names[k // 9]}": tuple(float(x) for x in per_kind[:, k])
            for k in range(34) if counts[k]} | {"best": (float(block[-1]),) * 4}


def test_shape_block_of_a_hand_checked_hand() -> None:
    # five sets, a lone 東 and a stray 9s: dropping either stray leaves a single wait (ready),
    # waiting on the other one's unseen copies; dropping a tile of a set leaves 1-shanten
    shape = _shape_of("123456789m123456p1z9s", {"1z": 3, "9s": 2, "7p": 4, "3p": 1})
    assert shape["9s"] == pytest.approx((1.0, 0.0, 3 / F.MAX_EFFECTIVE, 1.0))  # keeps 1z: 3 live
    assert shape["1z"] == pytest.approx((1.0, 0.0, 2 / F.MAX_EFFECTIVE, 2 / 3))  # keeps 9s: 2 of 3
    first, rise, _, share = shape["1m"]
    assert (first, rise, share) == (0.0, 0.25, 0.0)  # one shanten above the lowest
    assert shape["best"][0] == 0.0  # ready after the best discard


def test_shape_block_counts_only_unseen_copies() -> None:
    # the same hand with every 1z and 9s visible elsewhere: still ready by shape, nothing live
    shape = _shape_of("123456789m123456p1z9s", {})
    assert shape["9s"][:3] == (1.0, 0.0, 0.0) and shape["1z"][:3] == (1.0, 0.0, 0.0)


def test_shape_feature_set_extends_the_flat_vector_and_keeps_the_leak_test() -> None:
    assert F.flat_size(F.FEATURES_VERSION) == F.FLAT_SIZE
    assert F.flat_size(F.SHAPE_VERSION) == F.FLAT_SIZE + F.SHAPE_SIZE
    with pytest.raises(ValueError, match="unknown mahjong feature set 'mj-features-9'"):
        F.flat_size("mj-features-9")
    for state in _positions(3)[:6]:
        player = state.current_player()
        obs = state.observation(player)
        flat = F.encode_flat(obs, F.SHAPE_VERSION)
        np.testing.assert_array_equal(flat[: F.FLAT_SIZE], F.encode_flat(obs))
        other = state.resample_from_infostate(player, 99)
        np.testing.assert_array_equal(F.encode_flat(other.observation(player), F.SHAPE_VERSION), flat)


def test_discard_shapes_match_a_look_at_every_draw_on_random_hands() -> None:
    from paiju.mahjong.agents._hand import distance

    def brute(hand: list[int], unseen: list[int]) -> list[tuple[int, int, int]]:
        # every discard, then every one of the 34 draws, by the plain distance
        rows = []
        for k in range(34):
            if hand[k]:
                after = list(hand)
                after[k] -= 1
                d = distance(after)
                eff = 0
                for t in range(34):
                    if unseen[t] and after[t] < 4:
                        drawn = list(after)
                        drawn[t] += 1
                        eff += unseen[t] * (distance(drawn) < d)
                rows.append((k, d - 1, eff))
        return rows

    rng = np.random.default_rng(8)
    for _ in range(150):
        wall = rng.permutation(np.repeat(np.arange(34), 4))
        size = int(rng.choice([17, 14, 11, 8, 5, 16]))  # turns after 0-4 melds, and a 3k+1 hand
        if rng.random() < 0.5:  # a kind held four times: its 4th copy can never pair
            quad = int(wall[0])
            wall = np.concatenate([[quad] * 4, wall[wall != quad]])
        hand = np.bincount(wall[:size], minlength=34)
        unseen = 4 - hand - np.bincount(wall[size : size + 30], minlength=34)
        assert F.discard_shapes(hand.tolist(), unseen.tolist()) == brute(hand.tolist(), unseen.tolist())
