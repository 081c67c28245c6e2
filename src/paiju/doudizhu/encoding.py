"""Dou Dizhu observations and candidate moves as numeric arrays, for learned policies.

Why this shape (DouZero-like, cheap on CPU): a policy scores every *(observation, legal
move)* pair and takes a softmax over the legal moves, so the network never needs a fixed
action space (Dou Dizhu has ~27,000 distinct moves, a hand rarely more than a few hundred).
One decision is encoded once as a :class:`Decision`:

* ``state``: a ``uint8`` vector of what the player can see (:data:`STATE_LAYOUT`): its role,
  the unseen cards, the cards each seat has played, the other seats' hand sizes, the
  landlord's open kitty cards still in its hand, the trick to beat and who owns it, each
  other seat's last action, the bomb count, and the fewest plays the player's hand needs;
* ``hand``: the player's 15 rank counts;
* per candidate move: its 15 rank counts, its type, main rank and body length, and the
  fewest plays the hand needs *after* it (the exact fewest-plays split of
  :mod:`paiju.doudizhu.split_exact`, cached): the single most telling fact about a move.

The network expands these compact integers into one-hot and "at least k cards" (thermometer)
features itself, so training sets stay small (a candidate is 19 bytes, not ~170 floats) and
the agent and the trainer share one code path. This module is numpy only: torch stays out of
the rules modules (``docs/design.md`` §3).

:data:`ENCODING_VERSION` is stored in every checkpoint; a checkpoint trained on another
version is refused when loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from paiju.doudizhu import split_exact
from paiju.doudizhu.cards import MAX_COUNT, NUM_RANKS
from paiju.doudizhu.game import DouDizhuObservation
from paiju.doudizhu.moves import Move, counts_of, key_of

ENCODING_VERSION: Final = 1
"""Bumped whenever the meaning of any array below changes."""

CARD_BITS: Final = 54
"""A card multiset as "at least k of rank r" bits: 4 per rank 3..2, 1 per joker."""
NUM_TYPES: Final = 15
"""Move types 0..14 (:class:`paiju.doudizhu.moves.MoveType`, pass = 0)."""
MAX_PLAYS_FEATURE: Final = 10
"""Fewest-plays counts are clipped to this (a one-hot of 0..10)."""
MAX_HAND: Final = 20

_THRESH: Final = tuple((r, k) for r in range(NUM_RANKS) for k in range(1, MAX_COUNT[r] + 1))
assert len(_THRESH) == CARD_BITS
BIT_RANKS: Final = tuple(r for r, _ in _THRESH)
"""The rank of each of the 54 card bits (summing a block's bits per rank gives the counts)."""

STATE_LAYOUT: Final = (
    ("role", 3),
    ("unseen", CARD_BITS),
    ("played_me", CARD_BITS),
    ("played_next", CARD_BITS),
    ("played_prev", CARD_BITS),
    ("size_next", MAX_HAND + 1),
    ("size_prev", MAX_HAND + 1),
    ("landlord_known", CARD_BITS),
    ("trick", CARD_BITS),
    ("trick_type", NUM_TYPES),
    ("trick_owner", 4),
    ("last_next", CARD_BITS),
    ("last_next_flags", 3),
    ("last_prev", CARD_BITS),
    ("last_prev_flags", 3),
    ("bombs", 5),
    ("plays_now", MAX_PLAYS_FEATURE + 1),
)
"""Blocks of the state vector in order (name, width). ``trick_owner``: none (free lead), me,
next, prev. ``last_*_flags``: no action yet, passed, played. Seats are relative to the
observer: ``next`` plays after it (下家), ``prev`` before it (上家)."""
STATE_SIZE: Final = sum(w for _, w in STATE_LAYOUT)
_OFFSET: Final = {}
_pos = 0
for _name, _width in STATE_LAYOUT:
    _OFFSET[_name] = _pos
    _pos += _width
del _pos


def card_bits(counts: Sequence[int]) -> np.ndarray:
    """The 54 "at least k cards of rank r" bits of a 15-count vector (uint8)."""
    c = np.asarray(counts, dtype=np.int16)
    return np.array([c[r] >= k for r, k in _THRESH], dtype=np.uint8)


_BITS_CACHE: dict[int, np.ndarray] = {}


def _bits_of_key(key: int) -> np.ndarray:
    got = _BITS_CACHE.get(key)
    if got is None:
        if len(_BITS_CACHE) > 200_000:
            _BITS_CACHE.clear()
        got = _BITS_CACHE[key] = card_bits(counts_of(key))
    return got


_PLAYS_CACHE: dict[int, int] = {}


def fewest_plays(key: int) -> int:
    """Fewest plays (kickers attached) that empty the hand with packed key ``key``; cached."""
    got = _PLAYS_CACHE.get(key)
    if got is None:
        if len(_PLAYS_CACHE) > 500_000:
            _PLAYS_CACHE.clear()
        got = _PLAYS_CACHE[key] = split_exact.min_plays(counts_of(key)) if key else 0
    return got


@dataclass(frozen=True)
class Decision:
    """One decision, encoded: what the player sees and every candidate move.

    ``moves`` / ``move_type`` / ``move_rank`` / ``move_length`` / ``plays_after`` have one row
    per candidate, in the order of the legal moves given to :func:`encode_decision`.
    """

    state: np.ndarray
    """uint8[STATE_SIZE]"""
    hand: np.ndarray
    """int8[15]: the player's rank counts."""
    moves: np.ndarray
    """int8[R, 15]: each candidate's rank counts (zeros for pass)."""
    move_type: np.ndarray
    """int8[R]: :class:`~paiju.doudizhu.moves.MoveType` values."""
    move_rank: np.ndarray
    """int8[R]: main rank (lowest body rank of a chain); 0 for pass."""
    move_length: np.ndarray
    """int8[R]: body length of chains and airplanes, 1 otherwise, 0 for pass."""
    plays_after: np.ndarray
    """int8[R]: fewest plays the hand needs after the move (clipped to 10)."""


def encode_state(obs: DouDizhuObservation) -> np.ndarray:
    """The ``uint8`` state vector of a play-phase observation (layout :data:`STATE_LAYOUT`)."""
    if obs.phase != "play" or obs.landlord is None:
        raise ValueError(f"only play-phase observations are encoded, not phase {obs.phase!r}")
    me = obs.player
    nxt, prv = (me + 1) % 3, (me + 2) % 3
    v = np.zeros(STATE_SIZE, dtype=np.uint8)
    o = _OFFSET
    role = obs.role()
    assert role is not None
    v[o["role"] + role] = 1
    v[o["unseen"] : o["unseen"] + CARD_BITS] = _bits_of_key(key_of(obs.unseen().counts))
    played = [0, 0, 0]
    last: dict[int, Move] = {}
    for seat, move in obs.history:
        played[seat] += move.key
        last[seat] = move
    v[o["played_me"] : o["played_me"] + CARD_BITS] = _bits_of_key(played[me])
    v[o["played_next"] : o["played_next"] + CARD_BITS] = _bits_of_key(played[nxt])
    v[o["played_prev"] : o["played_prev"] + CARD_BITS] = _bits_of_key(played[prv])
    v[o["size_next"] + min(obs.hand_sizes[nxt], MAX_HAND)] = 1
    v[o["size_prev"] + min(obs.hand_sizes[prv], MAX_HAND)] = 1
    if obs.landlord != me:
        v[o["landlord_known"] : o["landlord_known"] + CARD_BITS] = _bits_of_key(
            key_of(obs.kitty_in_hand.counts)
        )
    trick = obs.to_beat
    if trick is None:
        v[o["trick_owner"]] = 1
    else:
        v[o["trick"] : o["trick"] + CARD_BITS] = _bits_of_key(trick.key)
        v[o["trick_type"] + int(trick.type)] = 1
        owner = obs.trick_owner
        v[o["trick_owner"] + (1 if owner == me else 2 if owner == nxt else 3)] = 1
    for seat, block in ((nxt, "last_next"), (prv, "last_prev")):
        last_move = last.get(seat)
        flags = o[block + "_flags"]
        if last_move is None:
            v[flags] = 1
        elif last_move.is_pass:
            v[flags + 1] = 1
        else:
            v[flags + 2] = 1
            v[o[block] : o[block] + CARD_BITS] = _bits_of_key(last_move.key)
    v[o["bombs"] + min(obs.bombs, 4)] = 1
    v[o["plays_now"] + min(fewest_plays(key_of(obs.hand.counts)), MAX_PLAYS_FEATURE)] = 1
    return v


def encode_decision(obs: DouDizhuObservation, legal: Sequence[Move]) -> Decision:
    """Encode a play-phase observation and its legal moves (in the given order)."""
    if not legal:
        raise ValueError("cannot encode a decision with no legal moves")
    hand_key = key_of(obs.hand.counts)
    n = len(legal)
    moves = np.zeros((n, NUM_RANKS), dtype=np.int8)
    mtype = np.zeros(n, dtype=np.int8)
    mrank = np.zeros(n, dtype=np.int8)
    mlen = np.zeros(n, dtype=np.int8)
    after = np.zeros(n, dtype=np.int8)
    for i, m in enumerate(legal):
        if not isinstance(m, Move):
            raise TypeError(f"candidate {m!r} is not a Dou Dizhu Move")
        moves[i] = m.counts
        mtype[i] = int(m.type)
        mrank[i] = m.rank
        mlen[i] = m.length
        after[i] = min(fewest_plays(hand_key - m.key), MAX_PLAYS_FEATURE)
    return Decision(
        encode_state(obs), np.asarray(obs.hand.counts, dtype=np.int8), moves, mtype, mrank, mlen, after
    )


__all__ = [
    "BIT_RANKS",
    "CARD_BITS",
    "ENCODING_VERSION",
    "MAX_PLAYS_FEATURE",
    "NUM_TYPES",
    "STATE_LAYOUT",
    "STATE_SIZE",
    "Decision",
    "card_bits",
    "encode_decision",
    "encode_state",
    "fewest_plays",
]
