"""DQN and Double DQN over a fixed action set with legal-action masks (game-agnostic).

``net``: the ResNet / MLP Q-networks (the trunk shared with supervised models);
``replay``: the seeded replay buffer; ``learner``: targets, training step and checkpoints.
"""

from __future__ import annotations

from paiju.algorithms.dqn.learner import (
    DQNConfig,
    DQNLearner,
    advantage_loss,
    dqn_targets,
    load_model,
    save_model,
    seeded_network,
)
from paiju.algorithms.dqn.net import (
    MLPTrunk,
    QNetConfig,
    QNetwork,
    ResNetTrunk,
    build_trunk,
    count_parameters,
    masked_argmax,
    masked_max,
    masked_values,
)
from paiju.algorithms.dqn.replay import Batch, ReplayBuffer

__all__ = [
    "Batch",
    "DQNConfig",
    "DQNLearner",
    "MLPTrunk",
    "QNetConfig",
    "QNetwork",
    "ReplayBuffer",
    "ResNetTrunk",
    "advantage_loss",
    "build_trunk",
    "count_parameters",
    "dqn_targets",
    "load_model",
    "masked_argmax",
    "masked_max",
    "masked_values",
    "save_model",
    "seeded_network",
]
