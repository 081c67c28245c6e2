"""Reading the table for defence: is an opponent ready, and is this tile his wait?

Two logistic models over public facts only (what the acting player sees), fitted to self-play
where the truth is known (:func:`fit_defence`; the shipped coefficients are
``paiju/mahjong/data/defence.json``, with the command that made them):

* **readiness** of an opponent (:data:`READINESS_FEATURES`): exposed sets, discards so far,
  how many of his last three discards were the tile just drawn (摸打: a hand that no longer
  changes), how many of them were middle tiles taken from the hand (手出 of a 3-7: the last
  useful tiles go when the hand is ready), and how far the wall is gone;
* **wait** -- given that he is ready, is kind ``k`` a tile he wins on (:data:`WAIT_FEATURES`):
  copies still unseen, honour / terminal / 2-8, whether he threw ``k`` away himself, whether
  ``k`` was discarded by anyone after his last discard and he did not win on it (he passed
  it: not his wait, unless he was locked), the 筋 tiles three away that he discarded, his
  discards next to ``k``, how few of his discards are in ``k``'s suit and how many of his
  melds are (a hand going for one suit), and how many chows through ``k`` are still live.

:func:`deal_in_chances` combines them: discarding ``k`` deals in to ``o`` with
``ready(o) x wait(o, k)``. The models are plain dot products: a decision computes them for
three opponents and the kinds in hand in well under a millisecond.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any

import numpy as np

from paiju.core.errors import ConfigError
from paiju.mahjong.game import NUM_PLAYERS, MahjongObservation

READINESS_FEATURES = (
    "bias", "melds", "discards", "drawn_recent", "middle_from_hand_recent", "wall_gone",
)
WAIT_FEATURES = (
    "bias", "unseen_0", "unseen_1", "unseen_2", "unseen_3", "honour", "terminal", "two_eight",
    "own_discard", "passed", "suji", "neighbour_discard", "suit_discard_share", "suit_melds",
    "other_suit_melds", "live_chows",
)
WALL = 136 - 16 * NUM_PLAYERS - 16
"""The fixed scale of ``wall_gone`` (1 - live tiles / WALL) that the shipped coefficients were
fitted with: about the live tiles at the start of a hand under the default rules."""


def readiness_features(obs: MahjongObservation, seat: int) -> list[float]:
    """The :data:`READINESS_FEATURES` of ``seat`` as ``obs.player`` sees them."""
    river = obs.discards[seat]
    flags = list(obs.discards_drawn[seat])
    if len(flags) != len(river):  # an observation without the 摸打 flags: none counts as drawn
        flags = [False] * len(river)
    recent = list(zip(river[-3:], flags[-3:], strict=True))
    drawn = sum(1 for _, f in recent if f)
    middle = sum(1 for (k, _), f in recent if not f and k < 27 and 2 <= k % 9 <= 6)
    gone = max(0.0, 1.0 - obs.live_tiles / WALL)
    return [1.0, float(len(obs.melds[seat])), len(river) / 10, float(drawn), float(middle), gone]


def wait_features(
    obs: MahjongObservation, seat: int, kind: int, unseen: Sequence[int], passed: set[int] | None = None
) -> list[float]:
    """The :data:`WAIT_FEATURES` of ``kind`` for a ready ``seat``, as ``obs.player`` sees them
    (``passed``: :func:`passed_kinds` of ``seat``, computed once per opponent by callers)."""
    river = obs.discards[seat]
    own = {k for k, _ in river}
    u = unseen[kind]
    honour = kind >= 27
    r = kind % 9
    was_passed = kind in (passed_kinds(obs, seat) if passed is None else passed)
    if honour:
        suji = neighbour = share = suit_melds = other_melds = chows = 0.0
        terminal = two_eight = 0.0
    else:
        suit = kind // 9
        base = 9 * suit
        sides = [kind + d for d in (-3, 3) if 0 <= r + d <= 8]
        suji = sum(1 for x in sides if x in own) / len(sides)
        neighbour = float(sum(1 for d in (-2, -1, 1, 2) if 0 <= r + d <= 8 and kind + d in own))
        share = sum(1 for k, _ in river if base <= k < base + 9) / max(1, len(river))
        suit_melds = float(sum(1 for m in obs.melds[seat] if 0 <= m.tile < 27 and m.tile // 9 == suit))
        other_melds = float(sum(1 for m in obs.melds[seat] if 0 <= m.tile < 27 and m.tile // 9 != suit))
        chows = 0.0
        for a, b in ((-2, -1), (-1, 1), (1, 2)):
            if 0 <= r + a <= 8 and 0 <= r + b <= 8:
                chows += min(unseen[kind + a], unseen[kind + b]) / 4
        terminal = 1.0 if r in (0, 8) else 0.0
        two_eight = 1.0 if r in (1, 7) else 0.0
    return [
        1.0, float(u == 0), float(u == 1), float(u == 2), float(u == 3), float(honour), terminal,
        two_eight, float(kind in own), float(was_passed), suji, neighbour, share, suit_melds,
        other_melds, chows,
    ]


def discard_order(obs: MahjongObservation) -> list[tuple[int, int]]:
    """Every discard of the hand so far as (seat, index in his river), in the order made.

    The rivers keep each seat's order only; the table's order follows from the rules: the
    dealer discards first, and after a discard the next to discard is its claimer (a chow,
    pung or exposed kong, marked in the river) or else the next seat. Kongs on a player's own
    turn and flowers add no discard.
    """
    rivers = obs.discards
    pos = [0] * NUM_PLAYERS
    seat = obs.dealer
    order: list[tuple[int, int]] = []
    total = sum(len(r) for r in rivers)
    while len(order) < total and pos[seat] < len(rivers[seat]):
        i = pos[seat]
        order.append((seat, i))
        pos[seat] += 1
        by = rivers[seat][i][1]
        seat = by if by >= 0 else (seat + 1) % NUM_PLAYERS
    return order


def passed_kinds(
    obs: MahjongObservation, seat: int, order: Sequence[tuple[int, int]] | None = None
) -> set[int]:
    """Kinds other players discarded after ``seat``'s last discard (he did not win on them)."""
    seq = discard_order(obs) if order is None else order
    last = max((j for j, (s, _) in enumerate(seq) if s == seat), default=-1)
    return {obs.discards[s][i][0] for s, i in seq[last + 1:] if s != seat}


@dataclass(frozen=True)
class DefenceModel:
    """The two logistic models' coefficients, in :data:`READINESS_FEATURES` / :data:`WAIT_FEATURES` order."""

    readiness: tuple[float, ...]
    wait: tuple[float, ...]
    meta: dict[str, Any]

    def __post_init__(self) -> None:
        if len(self.readiness) != len(READINESS_FEATURES) or len(self.wait) != len(WAIT_FEATURES):
            raise ConfigError(
                f"defence model needs {len(READINESS_FEATURES)} readiness and {len(WAIT_FEATURES)} wait "
                f"coefficients, got {len(self.readiness)} and {len(self.wait)}"
            )

    def ready_chance(self, obs: MahjongObservation, seat: int) -> float:
        return _sigmoid(float(np.dot(self.readiness, readiness_features(obs, seat))))

    def wait_chance(self, obs: MahjongObservation, seat: int, kind: int, unseen: Sequence[int]) -> float:
        return self.wait_chance_of(wait_features(obs, seat, kind, unseen))

    def wait_chance_of(self, features: Sequence[float]) -> float:
        """The wait model on a :func:`wait_features` vector."""
        return _sigmoid(float(np.dot(self._wait_array, features)))

    @cached_property
    def _wait_array(self) -> np.ndarray:  # made once: the model is read every decision
        return np.asarray(self.wait)

    def to_json(self) -> dict[str, Any]:
        return {
            "readiness": dict(zip(READINESS_FEATURES, self.readiness, strict=True)),
            "wait": dict(zip(WAIT_FEATURES, self.wait, strict=True)),
            **self.meta,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DefenceModel:
        try:
            readiness = tuple(float(data["readiness"][f]) for f in READINESS_FEATURES)
            wait = tuple(float(data["wait"][f]) for f in WAIT_FEATURES)
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"defence model is missing or has a bad coefficient: {exc}") from exc
        meta = {k: v for k, v in data.items() if k not in ("readiness", "wait")}
        return cls(readiness, wait, meta)


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, x))))


@lru_cache(maxsize=1)
def shipped_defence() -> DefenceModel:
    """The fitted model shipped with the package (``data/defence.json``)."""
    text = resources.files("paiju.mahjong.data").joinpath("defence.json").read_text(encoding="utf-8")
    return DefenceModel.from_json(json.loads(text))


def deal_in_chances(
    obs: MahjongObservation, kinds: Sequence[int], model: DefenceModel | None = None
) -> dict[int, list[float]]:
    """Per opponent seat, the chance that discarding each of ``kinds`` now deals in to him."""
    m = model or shipped_defence()
    unseen = obs.unseen_counts()
    order = discard_order(obs)
    out: dict[int, list[float]] = {}
    for seat in range(NUM_PLAYERS):
        if seat == obs.player:
            continue
        ready = m.ready_chance(obs, seat)
        passed = passed_kinds(obs, seat, order)
        out[seat] = [ready * m.wait_chance_of(wait_features(obs, seat, k, unseen, passed)) for k in kinds]
    return out


# ---------------------------------------------------------------------------------------------
# Fitting
# ---------------------------------------------------------------------------------------------
def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-5, steps: int = 50) -> np.ndarray:
    """Maximum-likelihood logistic coefficients by Newton's method (IRLS), a small ridge for stability."""
    if x.ndim != 2 or len(x) != len(y) or not len(y):
        raise ConfigError(f"fit_logistic needs a non-empty 2-D x and a y as long, got {x.shape}, {y.shape}")
    w = np.zeros(x.shape[1])
    ridge = l2 * len(y) * np.eye(x.shape[1])
    ridge[0, 0] = 0.0  # no penalty on the bias
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (y - p) - ridge @ w
        hess = x.T @ (x * (p * (1 - p))[:, None]) + ridge + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w = w + step
        if float(np.abs(step).max()) < 1e-8:
            break
    return w


def log_loss(x: np.ndarray, y: np.ndarray, w: Sequence[float]) -> float:
    """Mean log-loss of the logistic model ``w`` on ``(x, y)``."""
    return probability_log_loss(1 / (1 + np.exp(-np.clip(x @ np.asarray(w), -30, 30))), y)


def probability_log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean log-loss of predicted probabilities ``p`` of the outcomes ``y``."""
    q = np.clip(np.asarray(p, dtype=float), 1e-12, 1 - 1e-12)
    return float(-(y * np.log(q) + (1 - y) * np.log(1 - q)).mean())
