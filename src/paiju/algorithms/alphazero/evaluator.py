"""A network as the MCTS leaf evaluator: batched, cached, priors from the two-step heads.

:class:`NetworkEvaluator` is an ``paiju.algorithms.mcts.BatchEvaluator``: the search asks
``evaluate`` (or ``evaluate_batch``) when it first reaches a position and ``prior`` when it
expands it on a later visit; one network call gives both, and the answer is kept in an LRU
cache keyed by what the network sees (the perspective seat's observation), so a node, or a
position reached again through another path or determinization, is never valued twice while
it is cached. ``calls`` and ``positions`` count network forwards and positions sent.

Decisions the encoder's heads do not cover (``policy_indices`` gives None: yuxi's swap) are
decided through the value head, as the talk does online: every outcome (the position after
each legal move) is valued in one batch, the prior is a sharp softmax of the mover's values
(``choice_temperature``), and :meth:`NetworkEvaluator.best_by_value` takes the best.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence

import numpy as np
import torch

from paiju.algorithms.alphazero.net import AZNet, Encoder, legal_priors
from paiju.algorithms.mcts import Evaluator
from paiju.core.errors import ConfigError
from paiju.core.protocol import Action, State

_Priors = tuple[tuple[Action, ...], np.ndarray]
"""The legal moves and their probabilities: compact (no per-move tuples), as the cache holds many."""
_Entry = tuple[list[float], _Priors | None]


class NetworkEvaluator:
    """Values and priors of positions from an :class:`AZNet` and the game's encoder.

    Args:
        net: the network (put in eval mode here; batch norm uses its running statistics).
        encoder: the game's encoder, matching the network's sizes.
        num_players: seats of the game (values are returned in seat order).
        cache_size: positions kept in the LRU cache (0: no cache); an entry holds the values
            and the legal moves and their priors, about a kilobyte for yuxi.
        threads: ``torch.set_num_threads`` for the whole process, set once here; None (the
            default) leaves torch's setting alone. A self-play actor process should pass 1 (on
            a small machine parallel actors are processes of one core each).
        choice_temperature: temperature of the value-head softmax for decisions no policy
            head covers.
    """

    def __init__(
        self,
        net: AZNet,
        encoder: Encoder,
        *,
        num_players: int = 2,
        cache_size: int = 50_000,
        threads: int | None = None,
        choice_temperature: float = 0.1,
    ) -> None:
        cfg = net.config
        want = (tuple(encoder.plane_shape), encoder.vector_size, encoder.first_size, encoder.second_size)
        have = (tuple(cfg.plane_shape), cfg.vector_size, cfg.first_size, cfg.second_size)
        if want != have:
            raise ConfigError(f"AlphaZero net sizes {have} do not match the encoder's {want}")
        if cfg.num_players != num_players:
            raise ConfigError(
                f"AlphaZero net has {cfg.num_players} value outputs, the game {num_players} seats"
            )
        if cache_size < 0 or not choice_temperature > 0:
            raise ConfigError(
                f"network evaluator: cache_size={cache_size} must be >= 0, "
                f"choice_temperature={choice_temperature} > 0"
            )
        if threads is not None:
            torch.set_num_threads(threads)
        self.net = net.eval()
        self.encoder = encoder
        self.num_players = num_players
        self.cache_size = cache_size
        self.choice_temperature = choice_temperature
        self._cache: OrderedDict[Hashable, _Entry] = OrderedDict()
        self.calls = 0
        """Network forward passes so far."""
        self.positions = 0
        """Positions sent to the network so far (cache misses)."""

    # ---- the Evaluator protocol ---------------------------------------------------------------
    def evaluate(self, state: State) -> list[float]:
        return self.evaluate_batch([state])[0]

    def evaluate_batch(self, states: Sequence[State]) -> list[list[float]]:
        """Values of every state (seat order); one network call for all the uncached ones."""
        return [values for values, _ in self._entries(states)]

    def prior(self, state: State) -> list[tuple[Action, float]]:
        (values, priors), = self._entries([state])
        if priors is None:  # a decision no head covers: through the value head
            priors = self._value_priors(state)
            self._store(self._key(state), (values, priors))
        actions, probs = priors
        return list(zip(actions, probs.tolist(), strict=True))

    def best_by_value(self, state: State) -> Action:
        """The legal move whose outcome the value head rates best for the mover (the talk's
        online swap decision: enumerate the outcomes, take the best)."""
        legal = state.legal_actions()
        mover = state.current_player()
        values = self.evaluate_batch([self._after(state, a) for a in legal])
        best: Action = legal[int(np.argmax([v[mover] for v in values]))]
        return best

    # ---- internals ------------------------------------------------------------------------------
    def _key(self, state: State) -> Hashable:
        seat = self.encoder.perspective(state)
        return (seat, state.observation(seat))

    def _entries(self, states: Sequence[State]) -> list[_Entry]:
        keys = [self._key(s) for s in states]
        out: list[_Entry | None] = []
        misses: dict[Hashable, int] = {}
        for i, key in enumerate(keys):
            entry = self._cache.get(key)
            if entry is not None:
                self._cache.move_to_end(key)
            elif states[i].is_terminal():
                entry = (list(states[i].returns()), None)
            else:
                misses.setdefault(key, i)
            out.append(entry)
        if misses:
            computed = self._forward([states[i] for i in misses.values()])
            for key, entry in zip(misses, computed, strict=True):
                self._store(key, entry)
            by_key = dict(zip(misses, computed, strict=True))
            out = [e if e is not None else by_key[k] for e, k in zip(out, keys, strict=True)]
        return [e for e in out if e is not None]

    def _store(self, key: Hashable, entry: _Entry) -> None:
        if not self.cache_size:
            return
        self._cache[key] = entry
        self._cache.move_to_end(key)
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _forward(self, states: Sequence[State]) -> list[_Entry]:
        encoded = [self.encoder.encode(s) for s in states]
        planes = torch.from_numpy(np.stack([p for p, _ in encoded]))
        vector = torch.from_numpy(np.stack([v for _, v in encoded]))
        with torch.inference_mode():
            out = self.net(planes, vector)
        self.calls += 1
        self.positions += len(states)
        first = out.first.numpy()
        second = out.second.numpy() if out.second is not None else None
        value = out.value.numpy().astype(np.float64)
        n = self.num_players
        entries: list[_Entry] = []
        for i, state in enumerate(states):
            seat = self.encoder.perspective(state)
            # value index k is seat (perspective + k) mod n
            values = [float(value[i, (s - seat) % n]) for s in range(n)]
            priors = None
            player = state.current_player()
            if player >= 0:
                legal = state.legal_actions()
                indices = self.encoder.policy_indices(state, legal)
                if indices is not None:
                    p = legal_priors(first[i], None if second is None else second[i], indices)
                    priors = (tuple(legal), p)
            entries.append((values, priors))
        return entries

    @staticmethod
    def _after(state: State, action: Action) -> State:
        child = state.clone()
        child.apply(action)
        return child

    def _value_priors(self, state: State) -> _Priors:
        legal = state.legal_actions()
        mover = state.current_player()
        values = np.array([v[mover] for v in self.evaluate_batch([self._after(state, a) for a in legal])])
        z = (values - values.max()) / self.choice_temperature
        p = np.exp(z)
        p /= p.sum()
        return tuple(legal), p


class MixedEvaluator:
    """Leaf values mixed with another evaluator's: ``(1 - weight) x network + weight x other``.

    AlphaGo's leaf evaluation (Silver et al. 2016) mixed its value network with a rollout's
    outcome; here the other evaluator is any :class:`~paiju.algorithms.mcts.Evaluator` of the
    game (yuxi: the heuristic position value). Priors and the decisions no policy head covers
    stay the network's; ``weight=0`` is the network alone. Terminal states keep their returns.
    """

    def __init__(self, network: NetworkEvaluator, other: Evaluator, weight: float) -> None:
        if not 0 <= weight <= 1:
            raise ConfigError(f"mixed evaluator: weight={weight!r} must be in [0, 1]")
        self.network = network
        self.other = other
        self.weight = float(weight)

    def evaluate(self, state: State) -> list[float]:
        return self.evaluate_batch([state])[0]

    def evaluate_batch(self, states: Sequence[State]) -> list[list[float]]:
        w = self.weight
        out = []
        for state, net in zip(states, self.network.evaluate_batch(states), strict=True):
            if w == 0 or state.is_terminal():
                out.append(list(net))
            else:
                other = self.other.evaluate(state)
                out.append([(1 - w) * a + w * float(b) for a, b in zip(net, other, strict=True)])
        return out

    def prior(self, state: State) -> list[tuple[Action, float]]:
        return self.network.prior(state)

    def best_by_value(self, state: State) -> Action:
        return self.network.best_by_value(state)
