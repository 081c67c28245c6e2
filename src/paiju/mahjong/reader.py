"""Reading the table with a network: per opponent, is he ready and which tiles win for him.

The fitted logistic models of :mod:`paiju.mahjong.agents.defence` read a handful of public
facts; the reader network reads more of the same public record and learns from oracle labels
(the opponents' true waits in search-labelled data, :mod:`paiju.mahjong.search_data`). Its
input for opponent ``o`` as ``obs.player`` sees him (public facts and the reader's own hand
only: the leak test in ``tests/mahjong/test_mj_reader.py`` resamples every hidden tile and
finds the input unchanged):

* per tile kind (:data:`KIND_CHANNELS` × 34): copies unseen, his discards of the kind (all,
  from the hand 手出), how recent his last one was, whether it is among his last three
  discards from the hand, whether another player discarded it after his last discard and he
  did not win on it (passed), his melds holding it, everyone's discards of it, his 筋 and
  neighbouring discards, live chows through it, and the fitted wait model's chance;
* per opponent (:data:`SCALARS`): melds, discards, 摸打 share and trailing run, the fitted
  readiness features and chance, live tiles, his seat relative to the reader and whether he
  is the dealer.

The network (:class:`ReaderNet`, a small MLP) gives a readiness logit and 34 wait logits (the
chance that kind ``k`` completes his hand now, readiness included). :class:`NetworkReader`
plugs it into the value Expectimax as its :class:`~paiju.mahjong.agents.value.DealInReader`,
one batched forward pass for the three opponents of a decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

from paiju.algorithms.mlp import zero_output_mlp
from paiju.mahjong.agents.defence import (
    WALL,
    discard_order,
    passed_kinds,
    readiness_features,
    shipped_defence,
    wait_features,
)
from paiju.mahjong.agents.value import RON_CLASSES, kind_class
from paiju.mahjong.game import NUM_PLAYERS, MahjongObservation
from paiju.mahjong.tiles import NUM_KINDS

READER_VERSION = "mj-reader-1"
KIND_CHANNELS = 13
FITTED_CHANNEL = KIND_CHANNELS - 1
"""The kind channel holding the fitted models' deal-in chance: the residual's starting point."""
SCALARS = 16
INPUT_SIZE = KIND_CHANNELS * NUM_KINDS + SCALARS


def reader_features(obs: MahjongObservation, seat: int, order: Sequence[tuple[int, int]] | None = None,
                    unseen: Sequence[int] | None = None) -> np.ndarray:
    """The network's ``(INPUT_SIZE,)`` float32 input for opponent ``seat`` as ``obs.player`` sees him."""
    order = discard_order(obs) if order is None else order
    unseen = obs.unseen_counts() if unseen is None else unseen
    model = shipped_defence()
    river = obs.discards[seat]
    flags = list(obs.discards_drawn[seat])
    if len(flags) != len(river):  # an observation without the 摸打 flags: none counts as drawn
        flags = [False] * len(river)
    n = len(river)
    x = np.zeros((KIND_CHANNELS, NUM_KINDS), dtype=np.float32)
    x[0] = np.asarray(unseen, dtype=np.float32) / 4
    from_hand = [k for (k, _), f in zip(river, flags, strict=True) if not f]
    for i, ((k, _), f) in enumerate(zip(river, flags, strict=True)):
        x[1, k] += 0.25
        if not f:
            x[2, k] += 0.25
        x[3, k] = (i + 1) / n  # the latest discard of k wins: later i overwrite
    for k in from_hand[-3:]:
        x[4, k] = 1.0
    passed = passed_kinds(obs, seat, order)
    for k in passed:
        x[5, k] = 1.0
    for meld in obs.melds[seat]:
        if meld.tile >= 0:
            for k in meld.kinds():
                x[6, k] += 0.25
    for other in range(NUM_PLAYERS):
        for k, _ in obs.discards[other]:
            x[7, k] += 0.25
    ready = model.ready_chance(obs, seat)
    for k in range(NUM_KINDS):
        w = wait_features(obs, seat, k, unseen, passed)
        # WAIT_FEATURES: suji, neighbour_discard, suit_discard_share, suit_melds, live_chows
        x[8, k], x[9, k], x[10, k], x[11, k] = w[10], w[11] / 4, w[12], w[15] / 3
        x[FITTED_CHANNEL, k] = ready * model.wait_chance_of(w)
    run = 0
    for f in reversed(flags):
        if not f:
            break
        run += 1
    rel = (seat - obs.player) % NUM_PLAYERS
    scalars = [
        len(obs.melds[seat]) / 4, n / 20, sum(flags) / max(1, n), min(run, 6) / 6,
        *readiness_features(obs, seat)[1:],  # melds, discards, drawn_recent, middle_from_hand, wall_gone
        ready, obs.live_tiles / WALL, float(rel == 1), float(rel == 2), float(rel == 3),
        float(seat == obs.dealer), obs.hand_sizes[seat] / 16,
    ]
    return np.concatenate([x.reshape(-1), np.asarray(scalars, dtype=np.float32)])


def table_features(obs: MahjongObservation) -> tuple[list[int], np.ndarray]:
    """The three opponents of ``obs.player`` (turn order after him) and their inputs, ``(3, INPUT_SIZE)``."""
    order = discard_order(obs)
    unseen = obs.unseen_counts()
    seats = [(obs.player + i) % NUM_PLAYERS for i in range(1, NUM_PLAYERS)]
    return seats, np.stack([reader_features(obs, s, order, unseen) for s in seats])


NEIGHBOURS = (-2, -1, 1, 2)
"""Kinds whose channels a kind's wait reads beside its own (same suit only)."""
READY_SCALAR = 9
"""Index among the scalars of the fitted readiness chance (the readiness head's starting point)."""


KIND_CLASS = np.eye(len(RON_CLASSES), dtype=np.float32)[[kind_class(k) for k in range(NUM_KINDS)]]
"""(34, 4) one-hot class of each kind: the value search's ron classes (honour, 1/9, 2/8, 3-7)."""


def neighbour_index() -> list[list[int]]:
    """Per kind, the kind ``k + d`` of each offset in :data:`NEIGHBOURS` when in the same suit, else
    ``NUM_KINDS`` (a column of zeros)."""
    out = []
    for k in range(NUM_KINDS):
        row = []
        for d in NEIGHBOURS:
            j = k + d
            row.append(j if k < 27 and 0 <= j < 27 and j // 9 == k // 9 else NUM_KINDS)
        out.append(row)
    return out


def _logit(p: torch.Tensor) -> torch.Tensor:
    p = p.clamp(1e-6, 1 - 1e-6)
    return torch.log(p) - torch.log1p(-p)


class ReaderNet(nn.Module):
    """The reader: one small network shared by the 34 kinds (a kind's channels, its same-suit
    neighbours' within two, its class and the opponent's scalars give its wait logit) and a
    readiness head on the scalars. Both learn a residual on the fitted models' logits and start
    at zero, so an untrained reader reads as the fitted models do; sharing the kinds' network
    gives each weight 34 samples a decision (a flat network over all kinds learnt the training
    hands by heart within three epochs: docs/results/mahjong-reader.md)."""

    neighbours: torch.Tensor
    kind_class: torch.Tensor

    def __init__(self, hidden: Sequence[int] = (64, 64)) -> None:
        super().__init__()
        self.wait = zero_output_mlp(KIND_CHANNELS * (1 + len(NEIGHBOURS)) + 4 + SCALARS, hidden)
        self.ready = zero_output_mlp(SCALARS, hidden)
        self.register_buffer("neighbours", torch.tensor(neighbour_index()))
        self.register_buffer("kind_class", torch.from_numpy(KIND_CLASS.copy()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, INPUT_SIZE)`` inputs to ``(B, 35)`` logits: readiness, then the 34 waits."""
        b = x.shape[0]
        planes = x[:, :KIND_CHANNELS * NUM_KINDS].view(b, KIND_CHANNELS, NUM_KINDS).transpose(1, 2)
        scalars = x[:, KIND_CHANNELS * NUM_KINDS:]
        padded = torch.cat([planes, planes.new_zeros(b, 1, KIND_CHANNELS)], dim=1)  # (b, 35, C)
        near = padded[:, self.neighbours].reshape(b, NUM_KINDS, -1)  # (b, 34, 4C)
        per_kind = torch.cat([planes, near, self.kind_class.expand(b, -1, -1),
                              scalars[:, None, :].expand(-1, NUM_KINDS, -1)], dim=2)
        waits = _logit(planes[:, :, FITTED_CHANNEL]) + self.wait(per_kind).squeeze(2)
        ready = _logit(scalars[:, READY_SCALAR]) + self.ready(scalars).squeeze(1)
        return torch.cat([ready[:, None], waits], dim=1)


def build_net(hidden: Sequence[int] = (64, 64)) -> ReaderNet:
    return ReaderNet(hidden)


class NetworkReader:
    """A trained reader as the value Expectimax's :class:`DealInReader`."""

    def __init__(self, net: nn.Module) -> None:
        self.net = net.eval()

    @classmethod
    def load(cls, path: str | Path) -> NetworkReader:
        """A reader saved by ``paiju.mahjong.train_reader`` (its run folder's ``model.pt``)."""
        from paiju.core.torch_files import load_payload

        data = load_payload(path, "mahjong reader", fmt=READER_VERSION, hint="paiju mahjong train-reader")
        net = build_net(tuple(data["hidden"]))
        net.load_state_dict(data["state_dict"])
        return cls(net)

    def chances(self, obs: MahjongObservation) -> dict[int, np.ndarray]:
        """Per opponent seat, the 34 kinds' chances of completing his hand now."""
        seats, x = table_features(obs)
        with torch.no_grad():
            out = torch.sigmoid(self.net(torch.from_numpy(x))[:, 1:]).numpy()
        return {s: out[i] for i, s in enumerate(seats)}

    def deal_in_chances(self, obs: MahjongObservation, kinds: Sequence[int]) -> dict[int, list[float]]:
        return {s: [float(p[k]) for k in kinds] for s, p in self.chances(obs).items()}


__all__ = ["FITTED_CHANNEL", "INPUT_SIZE", "KIND_CHANNELS", "KIND_CLASS", "READER_VERSION", "SCALARS",
           "NetworkReader", "ReaderNet", "build_net", "neighbour_index", "reader_features", "table_features"]
