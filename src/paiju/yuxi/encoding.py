"""Network inputs and policy-head indices for yuxi (the talk's AlphaZero encoding), in two versions.

Everything is computed from ``state.observation(seat)`` only, so hidden cards (the
opponent's hand and deck, a determinization's guesses) can never reach the network: a state
redrawn by ``resample_from_infostate`` encodes to the same input (tested).

A network is built for one encoder, and its checkpoint says which (:class:`EncoderSpec`,
metadata key ``encoder``; a checkpoint without it reads version 1, as every model made
before version 2 does):

* **version 1**, :class:`YuxiEncoder` (the shipped models): the talk's encoding, with the
  cards of the board by table-derived features and the card id, and the zones (hand, deck,
  graves) as card-id counts. Its widths grow with the card table.
* **version 2**, :class:`YuxiAttributeEncoder`: every card, on the board and in every zone,
  by its attributes (:mod:`paiju.yuxi.card_features`), so a card added, changed or removed
  through the card file changes no input width; the card-id channels are an option
  (``card_ids``), off by default.

Both share the layout:

* **Board planes** ``(C, 4, 6)``: every board is padded to the largest one (6×4, rows on the
  first axis) with an ``on board`` plane marking the real cells, so one network serves the
  three boards (the shared-model mode; docs/alphazero.md). Cell ``i`` of a board of width
  ``w`` sits at ``divmod(i, w)``. Planes, from the encoded seat's point of view (``mine`` /
  ``theirs``, never seat 0 / seat 1): on board; weather one-hot (clear, fog, thunder, ice,
  erosion); occupied by mine, by theirs; points, starting points, damaged (points below
  start), boosted, armour, coins, cooldown (scaled); then the card's static features.
  Version 1: kind (character, void); faction one-hot; one plane per title, per effect
  trigger and per effect used in the card table; and the card id one-hot. Version 2: the
  card's features (:data:`~paiju.yuxi.card_features.CARD_FEATURES`), then the card id
  one-hot if ``card_ids``.
* **Vector**: the zones, then purses, scores, deck sizes, hidden hand size, turn, phase
  one-hot, flags (my turn, played, acted, out, skipped), the die (on, rolled), whether the
  encoded seat moves first, and the board one-hot. Version 1's zones are card-id counts
  (ids 1..N) of own hand, own deck, own grave, enemy grave, the void cards seen in the enemy
  hand, and the own swap offer, and it ends with both fixed decks one-hot. Version 2's zones
  are those six and the enemy's unseen cards (their fixed deck less what has been seen of
  it: the cards of their hand and deck, together), each zone the sum of its cards' features
  (÷10); with ``card_ids`` each zone's card-id counts follow.
* **Policy heads** (the talk's two-step output): a *card* head over ids ``0..N`` (0 = end
  turn) and a *position* head over the action space's target axis ``0..24`` (24 = no
  target), computed from the chosen card. A play action is exactly one (card, position) pair
  and back (:meth:`YuxiEncoderBase.action_index` / :meth:`YuxiEncoderBase.action_at`); the
  swap decision is not in the heads: the search enumerates its outcomes with the value head.
  The card head is over ids in both versions, so it grows with the table.

A model records its cards' keys in id order (:data:`CARD_KEYS`, :meth:`YuxiEncoderBase.model_meta`),
so a model can start another one's training on a changed card table, its card rows mapped by
key (:meth:`YuxiEncoderBase.adapt_weights`, :mod:`paiju.yuxi.adapt`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from paiju.core.errors import ConfigError
from paiju.core.protocol import Action, State
from paiju.yuxi.actions import END_TURN, KIND_END, KIND_PLAY, N_TARGETS
from paiju.yuxi.board import BOARDS
from paiju.yuxi.card_features import CARD_FEATURES, POINT_SCALE, SMALL_SCALE, feature_table
from paiju.yuxi.cards import FACTIONS, CardTable, table_fingerprint
from paiju.yuxi.effects import TRIGGERS, WEATHER_NAMES
from paiju.yuxi.game import YuxiGame, YuxiObservation, YuxiState
from paiju.yuxi.phases import PHASE_NAMES

if TYPE_CHECKING:
    import torch

    from paiju.algorithms.alphazero.net import NetConfig

__all__ = [
    "BOARD_NAMES",
    "CARD_KEYS",
    "COUNT_SCALE",
    "HEIGHT",
    "POINT_SCALE",
    "SMALL_SCALE",
    "TURN_SCALE",
    "WIDTH",
    "ZONES",
    "ZONE_SCALE",
    "EncoderSpec",
    "YuxiAttributeEncoder",
    "YuxiEncoder",
    "YuxiEncoderBase",
    "encoder_for",
    "recorded_card_keys",
]

HEIGHT = max(b.height for b in BOARDS.values())
WIDTH = max(b.width for b in BOARDS.values())
BOARD_NAMES = tuple(BOARDS)

COUNT_SCALE = 4.0
"""Most copies of one card in a deck (common rarity)."""
TURN_SCALE = 40.0
ZONE_SCALE = 10.0
"""Version 2's zone sums are divided by this (about a mid-game deck's cards)."""
SCALARS = (
    "purse:mine", "purse:theirs", "score:mine", "score:theirs", "deck_size:mine", "deck_size:theirs",
    "hidden_hand:theirs", "offer_size", "turn", "my_turn", "played", "acted", "out:mine", "out:theirs",
    "skipped:mine", "skipped:theirs", "moves_first", "die_to_come", "die",
)
"""The scalars in the vector after the zones, in order (:meth:`YuxiEncoderBase.turn_features`)."""
N_SCALARS = len(SCALARS)
ZONES = ("hand", "deck", "grave", "enemy_grave", "enemy_voids", "offer", "enemy_unseen")
"""Version 2's zones, in order: own hand, own deck, own grave, enemy grave, the void cards seen
in the enemy hand, the own swap offer, and the enemy's unseen cards (hand and deck together)."""

DYNAMIC_PLANES = (
    "on_board", *(f"weather:{w}" for w in WEATHER_NAMES), "mine", "theirs",
    "points", "start_points", "damaged", "boosted", "armour", "coins", "cooldown",
)
"""The planes of what a cell holds now; the card's static features follow them."""
CARD_KEYS = "card_keys"
"""The model metadata key holding the keys of the cards of ids 1..N in order: what the card
head's rows (and the position head's per-card rows) stand for."""


def recorded_card_keys(meta: Mapping[str, Any], name: str, first_size: int) -> tuple[str, ...] | None:
    """The card keys a model's metadata records (None: made before they were recorded).

    Raises:
        ConfigError: keys that are not a list of strings, one per card row of its network.
    """
    raw = meta.get(CARD_KEYS)
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(k, str) for k in raw) or len(raw) != first_size - 1:
        raise ConfigError(f"{name}: its {CARD_KEYS} are not the keys of its {first_size - 1} card rows")
    return tuple(raw)


def _spec_words(spec: EncoderSpec) -> str:
    return f"version {spec.version}" + (" with card ids" if spec.card_ids else "")


class YuxiEncoderBase:
    """What both versions share: the board planes given a card's static features, the turn's
    scalars and the policy heads (see the module docstring).

    The game-agnostic AlphaZero code (``paiju.algorithms.alphazero``) uses an encoder through
    its ``Encoder`` protocol: ``plane_shape``, ``vector_size``, ``first_size`` (card head),
    ``second_size`` (position head), ``encode``, ``perspective``, ``policy_indices``; and the
    trainer through two optional hooks: :meth:`model_meta` (what its models record) and
    :meth:`adapt_weights` (a model of another card table as the start of a run).
    """

    spec: EncoderSpec
    vector_size: int

    def __init__(self, game: YuxiGame, static_names: Sequence[str], static_table: np.ndarray) -> None:
        table: CardTable = game.table
        self.game = game
        self.table = table
        self.num_ids = table.num_ids
        self.card_keys = tuple(c.key for c in table.cards if c is not None)
        """The keys of the cards of ids 1..N, in id order."""
        self.plane_names: tuple[str, ...] = (*DYNAMIC_PLANES, *static_names)
        self.plane_shape = (len(self.plane_names), HEIGHT, WIDTH)
        self._card_features = static_table
        """Per card id, its static planes (row 0: no card)."""
        self._static_start = len(DYNAMIC_PLANES)
        self.first_size = self.num_ids + 1
        """Card head: card ids 0..N, 0 = end turn."""
        self.second_size = N_TARGETS
        """Position head: a cell 0..23 or 24 = no target (the action space's target axis)."""
        self._cell_rc: dict[str, tuple[np.ndarray, np.ndarray]] = {
            name: (np.arange(b.cells) // b.width, np.arange(b.cells) % b.width) for name, b in BOARDS.items()
        }

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

    def vector(self, obs: YuxiObservation) -> np.ndarray:
        raise NotImplementedError

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

    def turn_features(self, obs: YuxiObservation) -> list[float]:
        """The vector's tail both versions share: :data:`SCALARS`, the phase one-hot and the
        board one-hot."""
        me, opp = obs.player, 1 - obs.player
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
        return scalars + phase + board

    # ---- the trainer's hooks -------------------------------------------------------------------
    def model_meta(self) -> dict[str, Any]:
        """What a model trained on this encoder records beside the rooms: its cards' keys in id
        order (:data:`CARD_KEYS`), so its card rows can be matched to another table's cards."""
        return {CARD_KEYS: list(self.card_keys)}

    def adapt_weights(
        self, weights: Mapping[str, torch.Tensor], old: NetConfig, meta: Mapping[str, Any], new: NetConfig,
        name: str,
    ) -> dict[str, torch.Tensor]:
        """The weights of a model (network ``old``, metadata ``meta``, named ``name`` in errors)
        mapped onto this encoder's network ``new``: the same inputs, the card rows by key
        (:mod:`paiju.yuxi.adapt`).

        Raises:
            ConfigError: another encoder, input widths that differ, card-id inputs of other cards,
                or a model that does not record its card keys trained on another table.
        """
        spec = EncoderSpec.of_model(meta, name)
        if spec != self.spec:
            raise ConfigError(f"{name} reads yuxi encoder {_spec_words(spec)}, this run's rooms "
                              f"{_spec_words(self.spec)}")
        if old.second_size != new.second_size:
            raise ConfigError(f"{name}: a position head of {old.second_size}, yuxi's has {new.second_size}")
        by_id = spec.version == 1 or spec.card_ids
        inputs = (tuple(old.plane_shape), old.vector_size), (tuple(new.plane_shape), new.vector_size)
        if inputs[0] != inputs[1]:
            why = ("it encodes cards by id, so its input widens with the card table; only a version 2 "
                   "model without card ids follows card changes (train one with --encoder 2)" if by_id else
                   "version 2's widths do not depend on the card table: a paiju with other card features "
                   "made it")
            raise ConfigError(f"{name}: its input is planes {inputs[0][0]} and a vector of {inputs[0][1]}, "
                              f"this card table's is planes {inputs[1][0]} and a vector of {inputs[1][1]}: "
                              f"{why}")
        new_keys = self.card_keys
        old_keys = recorded_card_keys(meta, name, old.first_size)
        if old_keys is None:
            if meta.get("card_table") != table_fingerprint(self.table):
                raise ConfigError(
                    f"{name} does not record its cards' keys (made before models recorded them), so its "
                    "card head's rows cannot be matched to another card table's cards; train it again, or "
                    "start from it only on its own table"
                )
            old_keys = new_keys  # the same table: every row stays where it is
        if by_id and old_keys != new_keys:
            raise ConfigError(f"{name}: its input encodes cards by id (encoder {_spec_words(spec)}) and this "
                              "card table's cards are others; only a version 2 model without card ids "
                              "follows card changes (train one with --encoder 2)")
        from paiju.yuxi.adapt import card_rows, map_card_rows  # torch: only when a run starts from a model

        return map_card_rows(weights, card_rows(old_keys, new_keys))

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
        return self.play_indices(legal)

    def play_indices(self, legal: Sequence[Action]) -> list[tuple[int, int]] | None:
        """:meth:`policy_indices` of a decision's legal moves (the state adds nothing: an
        agent holding only the observation asks this)."""
        acts = np.asarray(legal, dtype=np.int64)
        base = self.game.actions.play_base
        end = acts == END_TURN
        if not (end | (acts >= base)).all():
            return None
        card, target = np.divmod(acts - base, N_TARGETS)
        card = np.where(end, 0, card + 1)
        target = np.where(end, -1, target)
        return list(zip(card.tolist(), target.tolist(), strict=True))


class YuxiEncoder(YuxiEncoderBase):
    """Version 1 of the module docstring: table-derived card planes and card-id zones (what the
    shipped models read). Titles, effects, card ids and decks come from the card table, so a
    card added through the card file needs no code change here, but the input and head widths
    grow with the table."""

    def __init__(self, game: YuxiGame) -> None:
        table = game.table
        self.decks = tuple(sorted(table.decks))
        cards = [c for c in table.cards if c is not None]
        self.titles = tuple(sorted({t for c in cards for t in c.titles}))
        self.effects = tuple(sorted({e.effect for c in cards for e in c.effects}))
        names = ["kind:character", "kind:void", *(f"faction:{f}" for f in FACTIONS)]
        names += [f"title:{t}" for t in self.titles]
        names += [f"trigger:{t}" for t in TRIGGERS]
        names += [f"effect:{e}" for e in self.effects]
        names += [f"card:{c.key}" for c in cards]
        index = {name: i for i, name in enumerate(names)}
        static = np.zeros((table.num_ids + 1, len(names)), dtype=np.float32)
        for c in cards:
            row = static[c.id]
            row[index["kind:character"]] = float(c.is_character)
            row[index["kind:void"]] = float(c.is_void)
            row[index[f"faction:{c.faction}"]] = 1.0
            for t in c.titles:
                row[index[f"title:{t}"]] = 1.0
            for e in c.effects:
                row[index[f"trigger:{e.trigger}"]] = 1.0
                row[index[f"effect:{e.effect}"]] = 1.0
            row[index[f"card:{c.key}"]] = 1.0
        super().__init__(game, names, static)
        self.spec = EncoderSpec(1)
        self.vector_size = (
            6 * self.num_ids + N_SCALARS + len(PHASE_NAMES) + len(BOARD_NAMES) + 2 * len(self.decks)
        )

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
        decks = [float(cfg.decks[seat] == d) for seat in (me, opp) for d in self.decks]
        tail = np.asarray(self.turn_features(obs) + decks, dtype=np.float32)
        out = np.concatenate([counts, tail])
        assert out.shape == (self.vector_size,)
        return out


class YuxiAttributeEncoder(YuxiEncoderBase):
    """Version 2 of the module docstring: every card by its attributes; ``card_ids`` adds the
    card-id planes and each zone's card-id counts (inputs that then grow with the table).

    ``vector_names`` names every vector entry (``hand:points``, ``enemy_unseen:faction:tide``,
    ``deck:card:reef_crab``, ``turn``, ``phase:play``, ``board:3x3``)."""

    def __init__(self, game: YuxiGame, *, card_ids: bool = False) -> None:
        table = game.table
        attributes = feature_table(table)
        features = attributes
        names = list(CARD_FEATURES)
        keys = [f"card:{c.key}" for c in table.cards if c is not None]
        if card_ids:
            names += keys
            features = np.concatenate([features, np.eye(table.num_ids + 1, dtype=np.float32)[:, 1:]], axis=1)
        super().__init__(game, names, features)
        self.card_ids = card_ids
        self.spec = EncoderSpec(2, card_ids=card_ids)
        self._zone_features = attributes
        vector = [f"{z}:{f}" for z in ZONES for f in CARD_FEATURES]
        if card_ids:
            vector += [f"{z}:{k}" for z in ZONES for k in keys]
        vector += [*SCALARS, *(f"phase:{p}" for p in PHASE_NAMES), *(f"board:{b}" for b in BOARD_NAMES)]
        self.vector_names: tuple[str, ...] = tuple(vector)
        self.vector_size = len(vector)
        self._initial = np.asarray(game.initial_decks, dtype=np.float32)
        self._is_void = tuple(game.is_void)

    def zone_counts(self, obs: YuxiObservation) -> np.ndarray:
        """Copies per card id (shape ``(len(ZONES), num_ids + 1)``, column 0 unused) of each
        zone of :data:`ZONES`, as ``obs.player`` knows them."""
        me, opp = obs.player, 1 - obs.player
        n = self.num_ids + 1
        counts = np.zeros((len(ZONES), n), dtype=np.float32)
        for z, ids in ((0, obs.hand), (4, obs.opponent_voids), (5, obs.offer)):
            for cid in ids:
                counts[z, cid] += 1.0
        counts[1] = obs.deck
        counts[2] = obs.graves[me]
        counts[3] = obs.graves[opp]
        # the enemy's fixed deck is public: what of it is neither on the board nor in their
        # grave is in their hand or deck (as YuxiGame.sample_state draws them)
        unseen = self._initial[opp].copy()
        is_void = self._is_void
        for cid, grave_copies in enumerate(obs.graves[opp]):
            if grave_copies and not is_void[cid]:
                unseen[cid] -= grave_copies
        for cell in obs.cells:
            if cell is not None and cell[1] == opp and not is_void[cell[0]]:
                unseen[cell[0]] -= 1.0
        counts[6] = unseen
        return counts

    def vector(self, obs: YuxiObservation) -> np.ndarray:
        counts = self.zone_counts(obs)
        parts = [(counts @ self._zone_features).ravel() / ZONE_SCALE]
        if self.card_ids:
            parts.append(counts[:, 1:].ravel() / COUNT_SCALE)
        parts.append(np.asarray(self.turn_features(obs), dtype=np.float32))
        out = np.concatenate(parts).astype(np.float32, copy=False)
        assert out.shape == (self.vector_size,)
        return out


@dataclass(frozen=True)
class EncoderSpec:
    """Which encoder a network reads: ``version`` 1 (:class:`YuxiEncoder`) or 2
    (:class:`YuxiAttributeEncoder`, with the card-id channels if ``card_ids``)."""

    version: int = 1
    card_ids: bool = False

    META_KEY = "encoder"
    """The checkpoint metadata key holding :meth:`to_meta` (absent: version 1)."""
    VERSIONS = (1, 2)

    def __post_init__(self) -> None:
        if self.version not in self.VERSIONS:
            raise ConfigError(
                f"yuxi encoder version {self.version!r}: this paiju has versions "
                f"{', '.join(map(str, self.VERSIONS))}"
            )
        if self.card_ids and self.version == 1:
            raise ConfigError(
                "yuxi encoder version 1 always has the card ids; card_ids is a version 2 option"
            )

    def build(self, game: YuxiGame) -> YuxiEncoderBase:
        """This encoder for ``game``'s card table."""
        if self.version == 1:
            return YuxiEncoder(game)
        return YuxiAttributeEncoder(game, card_ids=self.card_ids)

    def to_meta(self) -> dict[str, Any]:
        """As a checkpoint's metadata holds it under :attr:`META_KEY`."""
        return {"version": self.version, "card_ids": self.card_ids}

    @classmethod
    def of_model(cls, meta: Mapping[str, Any], name: str = "the model") -> EncoderSpec:
        """The encoder a checkpoint's metadata ``meta`` names (none named: version 1, what
        every model made before version 2 reads). An unknown one is a ConfigError naming
        ``name``."""
        raw = meta.get(cls.META_KEY)
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping) or set(raw) - {"version", "card_ids"}:
            raise ConfigError(f"{name}: its yuxi encoder {raw!r} is not {{version, card_ids}}")
        try:
            return cls(int(raw.get("version", 1)), card_ids=bool(raw.get("card_ids", False)))
        except ConfigError as err:
            raise ConfigError(f"{name} needs {err}") from None


def encoder_for(game: YuxiGame, meta: Mapping[str, Any], name: str = "the model") -> YuxiEncoderBase:
    """The encoder a checkpoint with metadata ``meta`` was trained with, for ``game``."""
    return EncoderSpec.of_model(meta, name).build(game)
