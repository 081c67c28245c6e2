"""AlphaZero for any game on the core protocol: the network, its MCTS leaf evaluator.

The game supplies an :class:`~paiju.algorithms.alphazero.net.Encoder` (planes, vector, and
the policy-head index of each legal move); nothing here imports a game. See
``docs/alphazero.md``.
"""

from paiju.algorithms.alphazero.evaluator import MixedEvaluator, NetworkEvaluator
from paiju.algorithms.alphazero.net import AZNet, Encoder, NetConfig, NetOutput, legal_priors

__all__ = ["AZNet", "Encoder", "MixedEvaluator", "NetConfig", "NetOutput", "NetworkEvaluator", "legal_priors"]
