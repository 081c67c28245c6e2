"""Network inputs for Taiwan mahjong: what the acting seat can see, as planes or one vector.

Everything comes from a :class:`~paiju.mahjong.game.MahjongObservation` (never a state), so
hidden tiles -- the others' concealed hands, the wall order, a face-down kong's kind -- can
never reach a network: a state redrawn by ``resample_from_infostate`` encodes the same
(tested). The features are the paper's Table 1 (own hand, own melds, the others' melds,
every seat's discards with the draw-or-discard flag, round and winds, tiles left), seats
taken *relative* to the acting one (0 = self, 1 = next, 2 = opposite, 3 = previous).

Two layouts of the same numbers (``docs/mahjong-agents.md`` §4):

* **Planes** ``(NUM_PLANES, 19, 19)`` for convolutional models: each per-kind feature is a
  34-long vector laid out as the tile grid (row = suit m / p / s / honours, column = rank;
  kind ``k`` at ``(k // 9, k % 9)``) in the top-left corner of a 19×19 plane, the rest
  zero-padded as in the paper; a scalar feature fills the 34 tile cells of its plane.
* **Flat** ``(FLAT_SIZE,)`` for linear / MLP models: the per-kind features kind-major per
  feature, then the scalars.

:func:`encode_planes_batch` and :func:`encode_flat_batch` encode many observations into
one float32 array (one network forward pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from paiju.mahjong.game import NUM_PLAYERS, MahjongObservation, Phase
from paiju.mahjong.shanten import KIND_STEP, KIND_SUIT, shanten_tables, suit_indices
from paiju.mahjong.tiles import COPIES, NUM_FLOWERS, NUM_KINDS, NUM_TILES, Meld

FEATURES_VERSION = "mj-features-1"
"""Changes whenever the layout below does: a model records the version it was trained on."""
SHAPE_VERSION = "mj-features-2"
"""The flat features plus the hand-shape block (:func:`shape_features`): ``--features shape``."""
FEATURE_SETS = {"base": FEATURES_VERSION, "shape": SHAPE_VERSION}
"""The feature sets a flat model may be trained on, by their name in a training command."""
BOARD = 19
"""Side of the zero-padded square plane (the paper's 19×19)."""

KIND_ROW = np.arange(NUM_KINDS) // 9
"""Plane row of each kind: 0 = 萬, 1 = 筒, 2 = 條, 3 = honours."""
KIND_COL = np.arange(NUM_KINDS) % 9
"""Plane column of each kind: rank - 1 (東南西北白發中 = columns 0..6 of row 3)."""

# ---- per-kind features (each a 34-vector, one plane) -------------------------------------
HAND = 0
"""4 planes: own concealed copies >= 1, >= 2, >= 3, == 4."""
DRAWN = HAND + COPIES
"""1 plane: the tile just drawn on own turn (one-hot; none otherwise)."""
WINDOW = DRAWN + 1
"""1 plane: the tile offered in an open claim / rob window (one-hot)."""
UNSEEN = WINDOW + 1
"""4 planes: copies the seat cannot see >= 1 .. == 4."""
MELDS = UNSEEN + COPIES
"""4 planes per relative seat (16): face-up meld copies >= 1 .. == 4."""
DISCARDS = MELDS + NUM_PLAYERS * COPIES
"""Per relative seat (``DISCARD_PLANES`` each): copies discarded >= 1 .. == 4, any discarded
just after drawing it (摸打), any discarded from the hand (手出), the latest discard."""
DISCARD_PLANES = COPIES + 3
NUM_KIND_FEATURES = DISCARDS + NUM_PLAYERS * DISCARD_PLANES

# ---- scalar features (each fills one plane) ----------------------------------------------
ROUND_WIND = 0
"""4: prevailing wind one-hot (東南西北)."""
SEAT_WIND = ROUND_WIND + NUM_PLAYERS
"""4: own seat wind one-hot (0 = 東, the dealer)."""
DEALER = SEAT_WIND + NUM_PLAYERS
"""4: the dealer's relative seat one-hot."""
PHASE = DEALER + NUM_PLAYERS
"""3: own turn, claim window, rob window (one-hot; all zero otherwise)."""
TILES_LEFT = PHASE + 3
"""1: tiles left to draw / 136."""
CONTINUATION = TILES_LEFT + 1
"""1: the dealer's 連莊 count / 4 (clipped at 1)."""
AFTER_CLAIM = CONTINUATION + 1
"""1: own turn after a chow / pung (a discard must follow)."""
HIDDEN_KONGS = AFTER_CLAIM + 1
"""4: face-down concealed kongs per relative seat / 4."""
FLOWERS = HIDDEN_KONGS + NUM_PLAYERS
"""4: revealed flowers per relative seat / 8 (zero without flowers)."""
NUM_SCALARS = FLOWERS + NUM_PLAYERS

NUM_PLANES = NUM_KIND_FEATURES + NUM_SCALARS
PLANE_SHAPE = (NUM_PLANES, BOARD, BOARD)
FLAT_SIZE = NUM_KIND_FEATURES * NUM_KINDS + NUM_SCALARS
SHAPE_PLANES = 4
"""Per-kind numbers of the hand-shape block (:func:`shape_features`)."""
SHAPE_SIZE = SHAPE_PLANES * NUM_KINDS + 1
MAX_EFFECTIVE = 80.0
"""Scale of an effective-tile count (a 17-tile hand rarely has more than 80 live)."""

_THRESHOLDS = np.arange(1, COPIES + 1)
_PHASE_INDEX = {Phase.TURN: 0, Phase.CLAIM: 1, Phase.ROB: 2}


def _at_least(counts: np.ndarray) -> np.ndarray:
    """(COPIES, 34) planes ``counts >= 1 .. >= 4`` of a 34-long count vector."""
    return (counts[None, :] >= _THRESHOLDS[:, None]).astype(np.float32)


def _meld_counts(obs: MahjongObservation, seat: int) -> tuple[np.ndarray, int]:
    """Face-up meld copies per kind of ``seat``, and its face-down kongs."""
    counts = np.zeros(NUM_KINDS, dtype=np.int64)
    face_down = 0
    for meld in obs.melds[seat]:
        if meld.tile < 0:
            face_down += 1
            continue
        for k in meld.kinds():
            counts[k] += 1
    return counts, face_down


def _discard_features(obs: MahjongObservation, seat: int, out: np.ndarray) -> None:
    """Fill ``out`` (DISCARD_PLANES, 34) with ``seat``'s river features."""
    _river_planes(obs.discards[seat], obs.discards_drawn[seat], out)


def _river_planes(river: Sequence[tuple[int, int]], flags: Sequence[bool], out: np.ndarray) -> None:
    """Fill ``out`` (DISCARD_PLANES, 34, zero on entry) with one river's features."""
    counts = np.zeros(NUM_KINDS, dtype=np.int64)
    for i, (kind, _claimed_by) in enumerate(river):
        counts[kind] += 1
        # the flag is public: a drawn-and-discarded tile says the hand did not want it
        drawn = bool(flags[i]) if i < len(flags) else False
        out[COPIES if drawn else COPIES + 1, kind] = 1.0
    out[:COPIES] = _at_least(counts)
    if river:
        out[COPIES + 2, river[-1][0]] = 1.0


def _kind_features(obs: MahjongObservation, out: np.ndarray) -> np.ndarray:
    """Fill ``out`` (NUM_KIND_FEATURES, 34); returns the face-down kongs per relative seat."""
    out[HAND : HAND + COPIES] = _at_least(np.asarray(obs.hand, dtype=np.int64))
    if obs.drawn >= 0:
        out[DRAWN, obs.drawn] = 1.0
    if obs.window_tile >= 0:
        out[WINDOW, obs.window_tile] = 1.0
    out[UNSEEN : UNSEEN + COPIES] = _at_least(np.asarray(obs.unseen_counts(), dtype=np.int64))
    face_down = np.zeros(NUM_PLAYERS, dtype=np.float32)
    for rel in range(NUM_PLAYERS):
        seat = (obs.player + rel) % NUM_PLAYERS
        counts, face_down[rel] = _meld_counts(obs, seat)
        out[MELDS + rel * COPIES : MELDS + (rel + 1) * COPIES] = _at_least(counts)
        start = DISCARDS + rel * DISCARD_PLANES
        _discard_features(obs, seat, out[start : start + DISCARD_PLANES])
    return face_down


def _scalar_features(obs: MahjongObservation, face_down: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (NUM_SCALARS,)."""
    out[ROUND_WIND + obs.round_wind % NUM_PLAYERS] = 1.0
    out[SEAT_WIND + obs.seat_wind] = 1.0
    out[DEALER + (obs.dealer - obs.player) % NUM_PLAYERS] = 1.0
    phase = _PHASE_INDEX.get(obs.phase)
    if phase is not None:
        out[PHASE + phase] = 1.0
    out[TILES_LEFT] = max(obs.live_tiles, 0) / NUM_TILES
    out[CONTINUATION] = min(obs.continuation / 4.0, 1.0)
    out[AFTER_CLAIM] = float(obs.after_claim and obs.phase == Phase.TURN and obs.turn == obs.player)
    out[HIDDEN_KONGS : HIDDEN_KONGS + NUM_PLAYERS] = face_down / COPIES
    for rel in range(NUM_PLAYERS):
        out[FLOWERS + rel] = len(obs.flowers[(obs.player + rel) % NUM_PLAYERS]) / NUM_FLOWERS


def encode_features(obs: MahjongObservation) -> tuple[np.ndarray, np.ndarray]:
    """``(per-kind features float32 (NUM_KIND_FEATURES, 34), scalars float32 (NUM_SCALARS,))``."""
    if not isinstance(obs, MahjongObservation):
        raise TypeError(f"mahjong features need a MahjongObservation, not {type(obs).__name__}")
    kinds = np.zeros((NUM_KIND_FEATURES, NUM_KINDS), dtype=np.float32)
    scalars = np.zeros(NUM_SCALARS, dtype=np.float32)
    face_down = _kind_features(obs, kinds)
    _scalar_features(obs, face_down, scalars)
    return kinds, scalars


def planes_from_features(kinds: np.ndarray, scalars: np.ndarray) -> np.ndarray:
    """Lay ``(B, NUM_KIND_FEATURES, 34)`` and ``(B, NUM_SCALARS)`` out as ``(B, *PLANE_SHAPE)``."""
    batch = kinds.shape[0]
    planes = np.zeros((batch, NUM_PLANES, BOARD, BOARD), dtype=np.float32)
    planes[:, :NUM_KIND_FEATURES, KIND_ROW, KIND_COL] = kinds
    planes[:, NUM_KIND_FEATURES:, KIND_ROW, KIND_COL] = scalars[:, :, None]
    return planes


def flat_from_features(
    kinds: np.ndarray, scalars: np.ndarray, version: str = FEATURES_VERSION
) -> np.ndarray:
    """Concatenate ``(B, NUM_KIND_FEATURES, 34)`` and ``(B, NUM_SCALARS)`` into ``(B, FLAT_SIZE)``;
    for :data:`SHAPE_VERSION` the :func:`shape_features` block follows."""
    flat_size(version)  # an unknown set raises, naming the known ones
    batch = kinds.shape[0]
    parts = [kinds.reshape(batch, -1), scalars]
    if version == SHAPE_VERSION:
        parts.append(shape_features(kinds))
    return np.concatenate(parts, axis=1).astype(np.float32, copy=False)


def _features_from_flat(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if flat.ndim != 2 or flat.shape[1] != FLAT_SIZE:
        raise ValueError(f"flat features must be (B, {FLAT_SIZE}), got {flat.shape}")
    split = NUM_KIND_FEATURES * NUM_KINDS
    return flat[:, :split].reshape(-1, NUM_KIND_FEATURES, NUM_KINDS), flat[:, split:]


def planes_from_flat(flat: np.ndarray) -> np.ndarray:
    """``(B, FLAT_SIZE)`` -> ``(B, *PLANE_SHAPE)``: store the compact flat form (a replay
    buffer holds 1,862 floats per position instead of 28,880) and expand it for a CNN."""
    return planes_from_features(*_features_from_flat(flat))


def flat_in_version(flat: np.ndarray, version: str) -> np.ndarray:
    """``(B, FLAT_SIZE)`` base vectors (the stored form of discard data) as the
    ``(B, flat_size(version))`` vectors of feature set ``version``."""
    return flat_from_features(*_features_from_flat(flat), version=version)


def _stack(observations: Sequence[MahjongObservation]) -> tuple[np.ndarray, np.ndarray]:
    kinds = np.zeros((len(observations), NUM_KIND_FEATURES, NUM_KINDS), dtype=np.float32)
    scalars = np.zeros((len(observations), NUM_SCALARS), dtype=np.float32)
    for i, obs in enumerate(observations):
        kinds[i], scalars[i] = encode_features(obs)
    return kinds, scalars


def encode_planes_batch(observations: Sequence[MahjongObservation]) -> np.ndarray:
    """``(B, NUM_PLANES, 19, 19)`` float32 planes of every observation."""
    return planes_from_features(*_stack(observations))


def encode_flat_batch(
    observations: Sequence[MahjongObservation], version: str = FEATURES_VERSION
) -> np.ndarray:
    """``(B, flat_size(version))`` float32 vectors of every observation."""
    return flat_from_features(*_stack(observations), version=version)


def flat_size(version: str) -> int:
    """Length of a flat vector of feature set ``version`` (a :data:`FEATURE_SETS` value)."""
    extra = {FEATURES_VERSION: 0, SHAPE_VERSION: SHAPE_SIZE}.get(version)
    if extra is not None:
        return FLAT_SIZE + extra
    raise ValueError(f"unknown mahjong feature set {version!r} (known: {', '.join(FEATURE_SETS.values())})")


_LOWERING: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}
"""Memo of :func:`discard_shapes`: a 3k+1 hand (suit indices, sets) -> its distance and the
kinds whose draw lowers it. A search's leaves share most of their hands after a discard."""
_LOWERING_SIZE = 200_000


def discard_shapes(
    hand: list[int], unseen: Sequence[int], *, ligu: bool = False
) -> list[tuple[int, int, int]]:
    """``(kind, shanten after, effective tiles after)`` of discarding each held kind, toward the
    plain winning shape, or with ``ligu`` toward either it or 嚦咕嚦咕 (greedy's
    :func:`~paiju.mahjong.agents.greedy.rank_discards` adds its danger). Fast enough for a
    search's thousands of leaves: only the draws that can lower the shanten are looked at
    (:func:`~paiju.mahjong.agents.value.near_kinds`; tested against a look at all 34 draws).
    ``hand`` is changed while it runs and restored."""
    # the agents package imports this module: import from it when first used
    from paiju.mahjong.agents._hand import effective_total, ligu_distance
    from paiju.mahjong.agents.value import near_kinds

    t = shanten_tables()
    sets = (sum(hand) - 1) // 3
    index = suit_indices(hand)
    rows = []
    for k in range(NUM_KINDS):
        if hand[k]:
            suit, step = KIND_SUIT[k], KIND_STEP[k]
            hand[k] -= 1
            index[suit] -= step
            if ligu:  # the rare rule: not memoised (the key would need the whole hand)
                sh = min(t.distance_at(index, sets), ligu_distance(hand)) - 1
                rows.append((k, sh, effective_total(hand, unseen, index, True)))
            else:
                key = (index[0], index[1], index[2], index[3], sets)
                got = _LOWERING.get(key)
                if got is None:
                    d = t.distance_at(index, sets)
                    after = t.distances_after_draw(index, sets, near_kinds(hand, index))
                    got = (d, tuple(x for x in range(NUM_KINDS) if after[x] < d))
                    if len(_LOWERING) >= _LOWERING_SIZE:
                        _LOWERING.clear()
                    _LOWERING[key] = got
                d, lowering = got
                rows.append((k, d - 1, sum(unseen[x] for x in lowering)))
            index[suit] += step
            hand[k] += 1
    return rows


def shape_features(kinds: np.ndarray) -> np.ndarray:
    """``(B, SHAPE_SIZE)`` float32: what each discard does to the hand's shape, per kind.

    Read from the encoded features themselves (own concealed hand and unseen copies are planes
    of ``kinds``, ``(B, NUM_KIND_FEATURES, 34)``), so every path that builds features -- an
    observation, a search leaf -- gets the same numbers. Per kind ``k`` held, after discarding
    one ``k`` (:func:`discard_shapes`, greedy's own ranking numbers): 1 when it leaves the
    lowest shanten of the hand's discards; the shanten above that lowest, / 4 (kinds not held:
    1); the effective tiles (unseen copies of the kinds that lower the shanten) /
    :data:`MAX_EFFECTIVE`; and their share of the most any lowest-shanten discard keeps (0 off
    the lowest shanten). The last number is the lowest shanten / 8. Why: a flat network has to
    learn shanten from the raw tile counts, which 1,862 inputs and a few hundred thousand
    decisions do not teach it (docs/results/mahjong-dqn.md); greedy play is these numbers, so
    a network given them can spend its capacity on what greedy misses.
    """
    batch = kinds.shape[0]
    out = np.zeros((batch, SHAPE_PLANES, NUM_KINDS), dtype=np.float32)
    out[:, 1] = 1.0
    best = np.zeros(batch, dtype=np.float32)
    hands = kinds[:, HAND : HAND + COPIES].sum(axis=1).astype(np.int64)
    unseen = kinds[:, UNSEEN : UNSEEN + COPIES].sum(axis=1).astype(np.int64)
    for i in range(batch):
        if not hands[i].any():
            continue
        rows = discard_shapes(hands[i].tolist(), unseen[i].tolist())
        low = min(r[1] for r in rows)
        most = max((r[2] for r in rows if r[1] == low), default=0)
        for kind, sh, eff in rows:
            out[i, 0, kind] = float(sh == low)
            out[i, 1, kind] = min(sh - low, 4) / 4.0
            out[i, 2, kind] = eff / MAX_EFFECTIVE
            out[i, 3, kind] = eff / most if sh == low and most else 0.0
        best[i] = max(low, 0) / 8.0
    return np.concatenate([out.reshape(batch, -1), best[:, None]], axis=1)


def encode_planes(obs: MahjongObservation) -> np.ndarray:
    """``(NUM_PLANES, 19, 19)`` float32 planes of one observation."""
    return encode_planes_batch([obs])[0]


def encode_flat(obs: MahjongObservation, version: str = FEATURES_VERSION) -> np.ndarray:
    """``(flat_size(version),)`` float32 vector of one observation."""
    return encode_flat_batch([obs], version)[0]


def own_turn(
    obs: MahjongObservation,
    hand: Sequence[int],
    melds: Sequence[Meld],
    river: Sequence[tuple[int, int]],
    river_drawn: Sequence[bool],
    live_tiles: int,
) -> MahjongObservation:
    """``obs`` moved to a hypothetical own turn of its seat before the draw (a search leaf):
    the given concealed hand, own melds, own river and tiles left; no window, no drawn tile."""
    p = obs.player
    all_melds, rivers, flags = list(obs.melds), list(obs.discards), list(obs.discards_drawn)
    all_melds[p], rivers[p], flags[p] = tuple(melds), tuple(river), tuple(river_drawn)
    return replace(
        obs, phase=Phase.TURN, to_act=p, turn=p, hand=tuple(hand), drawn=-1, after_claim=False,
        window_tile=-1, window_from=-1, own_claim=-1, melds=tuple(all_melds), discards=tuple(rivers),
        discards_drawn=tuple(flags), live_tiles=live_tiles,
    )


def _own_counts(melds: Sequence[Meld], river: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    meld_counts = np.zeros(NUM_KINDS, dtype=np.int64)
    for meld in melds:
        for k in meld.kinds():
            meld_counts[k] += 1
    river_counts = np.zeros(NUM_KINDS, dtype=np.int64)
    for kind, by in river:
        if by < 0:  # a claimed discard is counted in the claimer's meld
            river_counts[kind] += 1
    return meld_counts, river_counts


def encode_own_turns(
    obs: MahjongObservation,
    hands: Sequence[Sequence[int]],
    melds: Sequence[Sequence[Meld]],
    rivers: Sequence[Sequence[tuple[int, int]]],
    rivers_drawn: Sequence[Sequence[bool]],
    live_tiles: Sequence[int],
) -> tuple[np.ndarray, np.ndarray]:
    """Features of many :func:`own_turn` positions of one observation, computed together:
    the same numbers as ``encode_features(own_turn(obs, ...))`` per position (tested), but
    the other seats' part is encoded once. Returns ``(B, NUM_KIND_FEATURES, 34)`` and
    ``(B, NUM_SCALARS)``."""
    n = len(hands)
    p = obs.player
    base = own_turn(obs, obs.hand, obs.melds[p], obs.discards[p], obs.discards_drawn[p], obs.live_tiles)
    base_kinds, base_scalars = encode_features(base)
    own_melds, own_river = _own_counts(base.melds[p], base.discards[p])
    others = np.asarray(base.visible_counts(), dtype=np.int64) - np.asarray(obs.hand) - own_melds - own_river
    kinds = np.repeat(base_kinds[None], n, axis=0)
    scalars = np.repeat(base_scalars[None], n, axis=0)
    hand_arr = np.asarray(hands, dtype=np.int64).reshape(n, NUM_KINDS)
    kinds[:, HAND : HAND + COPIES] = hand_arr[:, None, :] >= _THRESHOLDS[None, :, None]
    own = DISCARDS  # relative seat 0
    for i in range(n):
        meld_counts, river_counts = _own_counts(melds[i], rivers[i])
        unseen = COPIES - others - hand_arr[i] - meld_counts - river_counts
        kinds[i, UNSEEN : UNSEEN + COPIES] = _at_least(unseen)
        kinds[i, MELDS : MELDS + COPIES] = _at_least(meld_counts)
        kinds[i, own : own + DISCARD_PLANES] = 0.0
        flags = rivers_drawn[i]
        _river_planes(rivers[i], flags, kinds[i, own : own + DISCARD_PLANES])
    scalars[:, TILES_LEFT] = np.maximum(np.asarray(live_tiles, dtype=np.float32), 0) / NUM_TILES
    return kinds, scalars


def discard_mask(obs: MahjongObservation) -> np.ndarray:
    """``(34,)`` bool: the kinds the seat holds, i.e. the discards a Q-network may pick
    on its turn (the engine's legal discards; a kong or win is decided outside the net)."""
    return np.asarray(obs.hand, dtype=np.int64) > 0
