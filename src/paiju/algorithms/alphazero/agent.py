"""The AlphaZero agent for any game on the core protocol: network-guided PUCT from a checkpoint.

``AZAgent(game, encoder, game_id, model=PATH, simulations=N, seconds=S, c=C, batch=B)``
loads a model written by :func:`paiju.algorithms.alphazero.train.train` and searches with
the project's :class:`~paiju.algorithms.mcts.MCTS` (the PUCT rule, the network's priors and
values through a cached :class:`NetworkEvaluator`, ``B`` leaves per network call). The
budget is ``simulations`` per move, or ``seconds`` of wall clock when given (> 0): the
latter is how "equal time per move" against another searcher is set.

``game_id`` is the plain data the training run recorded for its game (``train(...,
game_id=...)``); a model trained on another game or board is refused with a
:class:`ConfigError` naming both, before it can play nonsense on a board of the same shape.
Nothing here imports a game: the game and its encoder come in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paiju.algorithms.alphazero.checkpoint import load_checkpoint
from paiju.algorithms.alphazero.evaluator import NetworkEvaluator
from paiju.algorithms.alphazero.net import Encoder
from paiju.algorithms.mcts import MCTSAgent, SearchResult
from paiju.core.errors import ConfigError
from paiju.core.protocol import Action, Game
from paiju.core.rng import SeedLike, as_generator

MAX_BATCH = 256
"""Most leaves an AlphaZero agent sends to the network in one call (yuxi's agent too)."""


def trained_on(meta: dict[str, Any], game_id: dict[str, Any]) -> dict[str, Any]:
    """The keys of ``game_id`` as the model's metadata records them (missing ones None)."""
    return {key: meta.get(key) for key in game_id}


class AZAgent:
    """AlphaZero play: PUCT guided by a policy/value network (see the module docstring)."""

    def __init__(
        self,
        game: Game,
        encoder: Encoder,
        game_id: dict[str, Any],
        seed: SeedLike = None,
        *,
        model: str,
        simulations: int = 200,
        seconds: float = 0.0,
        c: float = 2.0,
        batch: int = 8,
        threads: int = 1,
        name: str | None = None,
    ) -> None:
        if not model:
            raise ConfigError(
                f"az on {game.info.name}: give model=PATH (the model.pt of a paiju az train run)"
            )
        if simulations < 0 or seconds < 0 or (simulations == 0 and seconds == 0):
            raise ConfigError(
                f"az: simulations={simulations} and seconds={seconds} must be >= 0, one of them > 0"
            )
        if not 1 <= batch <= MAX_BATCH or not c >= 0 or threads < 0:
            raise ConfigError(
                f"az: batch={batch} must be in 1..{MAX_BATCH}, c={c} >= 0, threads={threads} >= 0"
            )
        net, meta = load_checkpoint(model)
        found = trained_on(meta, game_id)
        if found != game_id:
            raise ConfigError(f"az: model {model!r} was trained on {found}, this game is {game_id}")
        self.model = model
        self.meta = meta
        # one thread by default: a small network's batches of a few positions run several times
        # slower on torch's default of one thread per core, the more so when other processes
        # (arena workers, the opponent) share the cores; 0 leaves torch's setting alone
        self.evaluator = NetworkEvaluator(net, encoder, num_players=game.info.num_players,
                                          threads=threads or None)
        rng = as_generator(seed)
        self.search = MCTSAgent(
            game,
            seed=int(rng.integers(2**63)),
            evaluator=self.evaluator,
            rule="puct",
            c=c,
            simulations=simulations or None,
            seconds=seconds or None,
            batch_size=batch,
        )
        budget = f"seconds={seconds:g}" if seconds else f"simulations={simulations}"
        self.name = name or f"az({budget})"

    @property
    def last_result(self) -> SearchResult | None:
        """The last search's result, as :class:`MCTSAgent`'s (a forced move searches nothing)."""
        return self.search.last_result

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        return self.search.act(observation, legal_actions)
