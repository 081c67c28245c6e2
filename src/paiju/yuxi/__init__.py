"""yuxi: an original 1-vs-1 card-battle game with the structure of 谕戏 (NetEase, GDC 2021).

Public API::

    from paiju.yuxi import YuxiGame, YuxiConfig
    game = YuxiGame(board="3x3", decks=("tide_guild", "tempest"), die_bonus=True)
    state = game.new_initial_state()          # chance node: the deal
    obs = state.observation(0)                # YuxiObservation, no hidden cards
    twin = game.sample_state(obs, rng)        # determinization

* :mod:`paiju.yuxi.game`: the engine (:class:`YuxiGame`, :class:`YuxiState`, observations);
* :mod:`paiju.yuxi.position`: what a position holds (a :class:`YuxiState` is one), which the
  effects, the invariant checker and the rendering act on without importing the game;
* :mod:`paiju.yuxi.cards`: the card table and decks (data in ``data/*.toml``), validation;
  the card types themselves (:class:`Card`, the compiled form) in :mod:`paiju.yuxi.card_types`;
* :mod:`paiju.yuxi.effects`: the effect vocabulary cards are made of;
* :mod:`paiju.yuxi.actions`: the fixed action space and chance outcomes;
* :mod:`paiju.yuxi.invariants`: the invariant checker;
* :mod:`paiju.yuxi.audit` / :mod:`paiju.yuxi.balance`: the designer tools;
* :mod:`paiju.yuxi.agents`: ``REGISTRY`` with random, greedy and mcts;
* :mod:`paiju.yuxi.scenario`: hand-built positions.

The complete rules: ``docs/yuxi-rules.md``.
"""

from paiju.yuxi.actions import END_TURN, KEEP, NO_TARGET, ActionSpace, Deal, DieRoll, Offer
from paiju.yuxi.board import BOARDS, BoardShape, board_shape
from paiju.yuxi.cards import Card, CardTable, load_card_table
from paiju.yuxi.game import YuxiConfig, YuxiGame, YuxiObservation, YuxiState
from paiju.yuxi.invariants import InvariantViolation, check_invariants

__all__ = [
    "BOARDS",
    "END_TURN",
    "KEEP",
    "NO_TARGET",
    "ActionSpace",
    "BoardShape",
    "Card",
    "CardTable",
    "Deal",
    "DieRoll",
    "InvariantViolation",
    "Offer",
    "YuxiConfig",
    "YuxiGame",
    "YuxiObservation",
    "YuxiState",
    "board_shape",
    "check_invariants",
    "load_card_table",
]
