"""Network inputs and policy-head indices for yuxi (the talk's AlphaZero encoding).

Everything is computed from ``state.observation(seat)`` only, so hidden cards (the
opponent's hand and deck, a determinization's guesses) can never reach the network: a state
redrawn by ``resample_from_infostate`` encodes to the same input (tested).

* **Board planes** ``(C, 4, 6)``: every board is padded to the largest one (6×4, rows on the
  first axis) with an ``on board`` plane marking the real cells, so one network serves the
  three boards (the shared-model mode; docs/alphazero.md). Cell ``i`` of a board of width
  ``w`` sits at ``divmod(i, w)``. Planes, from the encoded seat's point of view (``mine`` /
  ``theirs``, never seat 0 / seat 1):
  on board; weather one-hot (clear, fog, thunder, ice, erosion); occupied by mine, by
  theirs; points, starting points, damaged (points below start), boosted, armour, coins,
  cooldown (scaled); kind (character, void); faction one-hot; one plane per title, per
  effect trigger and per effect used in the card table; and the card id one-hot.
* **Vector**: card-id counts (ids 1..N) of own hand, own deck, own grave, enemy grave, the
  void cards seen in the enemy hand, and the own swap offer; then purses, scores, deck
  sizes, hidden hand size, turn, phase one-hot, flags (my turn, played, acted, out, skipped),
  the die (on, rolled), whether the encoded seat moves first, the board one-hot, and both
  fixed decks one-hot.
* **Policy heads** (the talk's two-step output): a *card* head over ids ``0..N`` (0 = end
  turn) and a *position* head over the action space's target axis ``0..24`` (24 = no
  target), computed from the chosen card. A play action is exactly one (card, position) pair
  and back (:meth:`YuxiEncoder.action_index` / :meth:`YuxiEncoder.action_at`); the swap
  decision is not in the heads: the search enumerates its outcomes with the value head.

Titles, effects, card ids and decks come from the card table, so a card added through the
card file needs no code change here (the input and head widths grow with the table; a
network is tied to the table it was built for).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from paiju.core.protocol import Action, State
from paiju.yuxi.actions import END_TURN, KIND_END, KIND_PLAY, N_TARGETS
from paiju.yuxi.board import BOARDS
from paiju.yuxi.cards import FACTIONS, CardTable
from paiju.yuxi.effects import TRIGGERS, WEATHER_NAMES
from paiju.yuxi.game import YuxiGame, YuxiObservation, YuxiState
from paiju.yuxi.phases import PHASE_NAMES

HEIGHT = max(b.height for b in BOARDS.values())
WIDTH = max(b.width for b in BOARDS.values())
BOARD_NAMES = tuple(BOARDS)

# scales keep typical values near [0, 1]: a network learns badly from raw counts of 10+
POINT_SCALE = 10.0
SMALL_SCALE = 5.0
COUNT_SCALE = 4.0
"""Most copies of one card in a deck (common rarity)."""
TURN_SCALE = 40.0
N_SCALARS = 19
"""Scalars in the vector after the card counts (purses, scores, ..., the die)."""


class YuxiEncoder:
    """Inputs and head indices of one yuxi room's card table (see the module docstring).

    The game-agnostic AlphaZero code (``paiju.algorithms.alphazero``) uses it through its
    ``Encoder`` protocol: ``plane_shape``, ``vector_size``, ``first_size`` (card head),
    ``second_size`` (position head), ``encode``, ``perspective``, ``policy_indices``.
    """

    def __init__(self, game: YuxiGame) -> None:
        table: CardTable = game.table
        self.game = game
        self.table = table
        self.num_ids = table.num_ids
        self.decks = tuple(sorted(table.decks))
        cards = [c for c in table.cards if c is not None]
        self.titles = tuple(sorted({t for c in cards for t in c.titles}))
        self.effects = tuple(sorted({e.effect for c in cards for e in c.effects}))
        self.plane_names = self._plane_names()
        self.plane_shape = (len(self.plane_names), HEIGHT, WIDTH)
        self._card_features = self._card_feature_table(cards)
        self._static_start = self.plane_names.index("kind:character")
        self.vector_size = (
            6 * self.num_ids + N_SCALARS + len(PHASE_NAMES) + len(BOARD_NAMES) + 2 * len(self.decks)
        )
        self.first_size = self.num_ids + 1
        """Card head: card ids 0..N, 0 = end turn."""
        self.second_size = N_TARGETS
        """Position head: a cell 0..23 or 24 = no target (the action space's target axis)."""
        self._cell_rc: dict[str, tuple[np.ndarray, np.ndarray]] = {
            name: (np.arange(b.cells) // b.width, np.arange(b.cells) % b.width) for name, b in BOARDS.items()
        }

    # ---- layout ------------------------------------------------------------------------------
    def _plane_names(self) -> tuple[str, ...]:
        names = ["on_board", *(f"weather:{w}" for w in WEATHER_NAMES), "mine", "theirs"]
        names += ["points", "start_points", "damaged", "boosted", "armour", "coins", "cooldown"]
        names += ["kind:character", "kind:void", *(f"faction:{f}" for f in FACTIONS)]
        names += [f"title:{t}" for t in self.titles]
        names += [f"trigger:{t}" for t in TRIGGERS]
        names += [f"effect:{e}" for e in self.effects]
        names += [f"card:{c.key}" for c in self.table.cards if c is not None]
        return tuple(names)

    def _card_feature_table(self, cards: Sequence[Any]) -> np.ndarray:
        """Per card id, its static planes from ``kind:character`` on (row 0: no card)."""
        static = self.plane_names[self.plane_names.index("kind:character") :]
        index = {name: i for i, name in enumerate(static)}
        out = np.zeros((self.num_ids + 1, len(static)), dtype=np.float32)
        for c in cards:
            row = out[c.id]
            row[index["kind:character"]] = float(c.is_character)
            row[index["kind:void"]] = float(c.is_void)
            row[index[f"faction:{c.faction}"]] = 1.0
            for t in c.titles:
                row[index[f"title:{t}"]] = 1.0
            for e in c.effects:
                row[index[f"trigger:{e.trigger}"]] = 1.0
                row[index[f"effect:{e.effect}"]] = 1.0
            row[index[f"card:{c.key}"]] = 1.0
        return out

    # ---- inputs -------------------------------------------------------------------------------
    def perspective(self, state: State) -> int:
        """The seat whose information state is encoded: the one to act (its turn's owner at a
        chance node inside a turn)."""
        assert isinstance(state, YuxiState)
        p = state.current_player()
        return p if p >= 0 else state.to_move

    def encode(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """``(planes, vector)`` of the perspective seat's observation of ``state``."""
        return self.encode_observation(state.observation(self.perspective(state)))

    def encode_observation(self, obs: YuxiObservation) -> tuple[np.ndarray, np.ndarray]:
        """``(planes float32 (C, 4, 6), vector float32 (V,))`` of one observation."""
        return self.planes(obs), self.vector(obs)

    def planes(self, obs: YuxiObservation) -> np.ndarray:
        out = np.zeros(self.plane_shape, dtype=np.float32)
        rows, cols = self._cell_rc[obs.config.board]
        out[0, rows, cols] = 1.0
        weather = np.asarray(obs.weather, dtype=np.int64)
        out[1 + weather, rows, cols] = 1.0
        me = obs.player
        static = self._static_start
        feats = self._card_features
        for i, cell in enumerate(obs.cells):
            if cell is None:
                continue
            cid, owner, points, base, armour, coins, cd = cell
            r, c = rows[i], cols[i]
            out[6 if owner == me else 7, r, c] = 1.0
            out[8:15, r, c] = (
                points / POINT_SCALE,
                base / POINT_SCALE,
                float(points < base),
                float(points > base),
                armour / SMALL_SCALE,
                coins / SMALL_SCALE,
                cd / SMALL_SCALE,
            )
            out[static:, r, c] = feats[cid]
        return out

    def _counts(self, ids: Sequence[int]) -> np.ndarray:
        return np.bincount(np.asarray(ids, dtype=np.int64), minlength=self.num_ids + 1)[1:]

    def vector(self, obs: YuxiObservation) -> np.ndarray:
        me, opp = obs.player, 1 - obs.player
        n = self.num_ids
        counts = np.concatenate(
            [
                self._counts(obs.hand),
                np.asarray(obs.deck[1:], dtype=np.float32),
                np.asarray(obs.graves[me][1:], dtype=np.float32),
                np.asarray(obs.graves[opp][1:], dtype=np.float32),
                self._counts(obs.opponent_voids),
                self._counts(obs.offer),
            ]
        ).astype(np.float32) / COUNT_SCALE
        assert counts.shape == (6 * n,)
        cfg = obs.config
        scalars = [
            obs.purses[me] / SMALL_SCALE,
            obs.purses[opp] / SMALL_SCALE,
            obs.scores[me] / POINT_SCALE,
            obs.scores[opp] / POINT_SCALE,
            obs.deck_sizes[me] / TURN_SCALE,
            obs.deck_sizes[opp] / TURN_SCALE,
            obs.opponent_hidden / POINT_SCALE,
            obs.offer_size / COUNT_SCALE,
            obs.turn / TURN_SCALE,
            float(obs.turn_player == me),
            float(obs.played),
            float(obs.acted),
            float(obs.out[me]),
            float(obs.out[opp]),
            float(obs.skipped[me]),
            float(obs.skipped[opp]),
            float(me == 0),  # seat 0 moves first and gets the die
            float(cfg.die_bonus and obs.bonus == 0),  # the die is still to come
            obs.bonus / 6.0,
        ]
        phase = [float(obs.phase == name) for name in PHASE_NAMES]
        board = [float(cfg.board == name) for name in BOARD_NAMES]
        decks = [float(cfg.decks[seat] == d) for seat in (me, opp) for d in self.decks]
        tail = np.asarray(scalars + phase + board + decks, dtype=np.float32)
        out = np.concatenate([counts, tail])
        assert out.shape == (self.vector_size,)
        return out

    # ---- the two-step policy ------------------------------------------------------------------
    def action_index(self, action: int) -> tuple[int, int] | None:
        """``(card, position)`` of a play-phase action; ``position`` is -1 for end turn (it has
        no second step); None for the swap decisions (keep, swap), which no head covers."""
        kind, card, target = self.game.actions.decode(int(action))
        if kind == KIND_END:
            return (0, -1)
        if kind == KIND_PLAY:
            return (card, target)
        return None

    def action_at(self, card: int, position: int) -> int:
        """The action of a ``(card, position)`` pair: the inverse of :meth:`action_index`."""
        if card == 0:
            return END_TURN
        return self.game.actions.play(card, position)

    def policy_indices(self, state: State, legal: Sequence[Action]) -> list[tuple[int, int]] | None:
        """Head indices of each legal move, or None when the decision is a swap (resolved by
        enumerating its outcomes with the value head, as the talk does)."""
        acts = np.asarray(legal, dtype=np.int64)
        base = self.game.actions.play_base
        end = acts == END_TURN
        if not (end | (acts >= base)).all():
            return None
        card, target = np.divmod(acts - base, N_TARGETS)
        card = np.where(end, 0, card + 1)
        target = np.where(end, -1, target)
        return list(zip(card.tolist(), target.tolist(), strict=True))
