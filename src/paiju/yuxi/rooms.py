"""yuxi rooms: which board and decks each game gets, for AlphaZero training, matches and ladders.

:class:`YuxiRooms` is the game side of :mod:`paiju.algorithms.alphazero.train`: called with a
game's seed it gives that game's ``(YuxiGame, encoder)``. A room is drawn from the seed:
a board of ``boards`` and, unless ``decks`` fixes them, both decks uniformly from the card
table's decks big enough for that board (the same deck may face itself). One model per deck
pair (the talk) is ``decks=("a", "b")``; one shared model with the deck as input (ours: the
encoder's vector carries both decks, one-hot in version 1, by their cards in version 2) is
``decks=None``. Every board is padded to the same planes, so one network serves them all.
``encoder`` is the input the network reads (:class:`~paiju.yuxi.encoding.EncoderSpec`:
version 1, card ids, by default; version 2, card attributes), recorded with the rooms in
every model trained in them. Matches between agents in these rooms: :mod:`paiju.yuxi.matches`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from paiju.algorithms.mcts import Evaluator
from paiju.core.errors import ConfigError
from paiju.yuxi.agents.greedy import game_for
from paiju.yuxi.agents.search import HeuristicEvaluator
from paiju.yuxi.board import board_shape
from paiju.yuxi.cards import table_fingerprint
from paiju.yuxi.encoding import EncoderSpec, YuxiEncoderBase
from paiju.yuxi.game import YuxiConfig, YuxiGame

_ENCODERS: dict[tuple[YuxiConfig, EncoderSpec], YuxiEncoderBase] = {}


@dataclass(frozen=True)
class YuxiRooms:
    """The rooms games are played in (see the module docstring); picklable, so worker
    processes rebuild the same rooms from the same seeds."""

    boards: tuple[str, ...] = ("3x3",)
    decks: tuple[str, str] | None = None
    die_bonus: bool = False
    cards_file: str | None = None
    decks_file: str | None = None
    encoder: EncoderSpec = field(default_factory=EncoderSpec)

    def __post_init__(self) -> None:
        if not self.boards:
            raise ConfigError("yuxi rooms: give at least one board")
        object.__setattr__(self, "boards", tuple(board_shape(b).name for b in self.boards))
        table = self.base_config().table()
        if self.decks is not None:
            for name in self.decks:
                if name not in table.decks:
                    raise ConfigError(
                        f"yuxi rooms: no deck {name!r}; the table has {', '.join(sorted(table.decks))}"
                    )
        for board in self.boards:
            if not self.decks_for(board):
                raise ConfigError(
                    f"yuxi rooms: no deck of the card table is big enough for the {board} board"
                )

    def base_config(self, board: str | None = None, decks: tuple[str, str] | None = None) -> YuxiConfig:
        return YuxiConfig(
            board=board or self.boards[0],
            decks=decks or self.decks or ("tide_guild", "storm_iron"),
            die_bonus=self.die_bonus,
            cards_file=self.cards_file,
            decks_file=self.decks_file,
        )

    def decks_for(self, board: str) -> list[str]:
        table = self.base_config().table()
        need = board_shape(board).min_deck
        return sorted(d for d in table.decks if table.deck(d).size >= need)

    def config(self, seed: int) -> YuxiConfig:
        """The room of the game with this seed."""
        rng = np.random.default_rng(seed)
        board = self.boards[int(rng.integers(len(self.boards)))]
        if self.decks is not None:
            return self.base_config(board, self.decks)
        names = self.decks_for(board)
        pair = (names[int(rng.integers(len(names)))], names[int(rng.integers(len(names)))])
        return self.base_config(board, pair)

    def __call__(self, seed: int) -> tuple[YuxiGame, YuxiEncoderBase]:
        config = self.config(seed)
        game = game_for(config)
        encoder = _ENCODERS.get((config, self.encoder))
        if encoder is None:
            encoder = _ENCODERS[config, self.encoder] = self.encoder.build(game)
        return game, encoder

    def heuristic(self, game: YuxiGame) -> Evaluator:
        """The leaf value self-play mixes in with ``mix`` (that of ``mcts:eval=heuristic``)."""
        return HeuristicEvaluator()

    def fingerprint(self) -> str:
        """The card table's hash (what a model trained in these rooms is tied to)."""
        return table_fingerprint(self.base_config().table())

    def describe(self) -> dict[str, object]:
        """The rooms as plain data: the game identity of a run and of its models. The encoder is
        named only when it is not version 1, so the rooms of runs and models made before version
        2 describe as they did (a model without it reads version 1)."""
        described: dict[str, object] = {
            "boards": list(self.boards),
            "decks": list(self.decks) if self.decks else "random",
            "die_bonus": self.die_bonus,
            "card_table": self.fingerprint(),
        }
        if self.encoder != EncoderSpec():
            described[EncoderSpec.META_KEY] = self.encoder.to_meta()
        return described
