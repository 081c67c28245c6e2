"""MCTS simulations per second on yuxi: network leaf (batched, cached) vs heuristic and rollout leaves.

One determinized search per position (the searcher's view, hidden cards redrawn every
simulation), from positions a few random plies into seeded games, die off:

* ``heuristic``: UCT with the greedy position value at the leaves (``mcts:eval=heuristic``);
* ``rollout``: UCT with one uniform random playout per leaf (``mcts:eval=rollout``);
* ``net bN``: PUCT with :class:`paiju.algorithms.alphazero.NetworkEvaluator` over an
  :class:`~paiju.algorithms.alphazero.AZNet` of the default size (randomly initialised: the
  speed does not depend on the weights), ``N`` leaves per network call under virtual loss,
  one torch thread.

For reference the same on connect four (perfect information, one policy head): UCT with one
random rollout against the network at each batch size, from the opening and two later
positions (``--connect-four``).

Rounds alternate the leaf kinds so machine load hits all alike; figures are medians over
rounds of the simulations/s of one search per position. Also printed: network calls and
positions per search (the cache keeps any information state from being sent twice).

Usage: ``.venv/bin/python benchmarks/az_mcts_speed.py [--boards 3x3,4x4,6x4] [--simulations N]
[--positions P] [--rounds R] [--batches 1,8,32] [--connect-four] [--channels C] [--hidden H]``
(the network's sizes; the defaults are ``NetConfig``'s).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np
import torch

from paiju.algorithms.alphazero import AZNet, NetConfig, NetworkEvaluator
from paiju.algorithms.alphazero.net import count_parameters
from paiju.algorithms.mcts import MCTS, Evaluator
from paiju.core.protocol import Game, State
from paiju.games.connect_four import ConnectFour
from paiju.games.grid_encoding import ConnectFourEncoder
from paiju.yuxi.agents.search import HeuristicEvaluator
from paiju.yuxi.encoding import YuxiEncoder
from paiju.yuxi.game import YuxiGame, YuxiState


def positions(game: YuxiGame, count: int, seed: int) -> list[YuxiState]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        s = game.new_initial_state()
        plies = 2 + 3 * i
        while s.is_chance_node() or plies > 0:
            if s.is_chance_node():
                s.apply(s.sample_chance(rng))
            else:
                legal = s.legal_actions()
                s.apply(legal[int(rng.integers(len(legal)))])
                plies -= 1
        out.append(s)
    return out


def rate(make: Callable[[], MCTS], states: Sequence[State]) -> tuple[float, int, int]:
    """Simulations/s over one search per state; network calls and positions per search."""
    sims, seconds, calls, sent = 0, 0.0, 0, 0
    for s in states:
        mcts = make()
        ev = mcts.evaluator
        t = time.perf_counter()
        result = mcts.search(s)
        seconds += time.perf_counter() - t
        sims += result.simulations
        if isinstance(ev, NetworkEvaluator):
            calls += ev.calls
            sent += ev.positions
    return sims / seconds, calls // len(states), sent // len(states)


def bench_board(
    board: str, simulations: int, count: int, rounds: int, batches: list[int], sizes: dict[str, int]
) -> None:
    game = YuxiGame(board=board, decks=("tide_guild", "storm_iron"), die_bonus=False)
    enc = YuxiEncoder(game)
    kinds = {"heuristic": HeuristicEvaluator()}
    compare(f"yuxi {board}", game, enc, positions(game, count, seed=1), simulations, rounds, batches, kinds,
            sizes)


def bench_connect_four(simulations: int, rounds: int, batches: list[int], sizes: dict[str, int]) -> None:
    game = ConnectFour()
    states = []
    for opening in ((), (3, 3, 2, 4), (3, 2, 3, 4, 4, 1, 5, 0)):
        s = game.new_initial_state()
        for a in opening:
            s.apply(a)
        states.append(s)
    compare("connect four", game, ConnectFourEncoder(game), states, simulations, rounds, batches, {}, sizes)


def compare(
    label: str,
    game: Game,
    enc: YuxiEncoder | ConnectFourEncoder,
    states: Sequence[State],
    simulations: int,
    rounds: int,
    batches: list[int],
    uct_leaves: dict[str, Evaluator],
    sizes: dict[str, int],
) -> None:
    torch.manual_seed(0)
    net = AZNet(NetConfig.for_encoder(enc, **sizes))

    def uct(evaluator: Evaluator | None) -> Callable[[], MCTS]:
        return lambda: MCTS(game, evaluator=evaluator, simulations=simulations, seed=0)

    def az(batch: int) -> Callable[[], MCTS]:
        return lambda: MCTS(
            game, evaluator=NetworkEvaluator(net, enc), rule="puct", c=2.0, simulations=simulations,
            seed=0, batch_size=batch, solve=False,
        )

    kinds: dict[str, Callable[[], MCTS]] = {k: uct(ev) for k, ev in uct_leaves.items()}
    kinds["rollout"] = uct(None)
    kinds.update({f"net b{b}": az(b) for b in batches})
    rates: dict[str, list[float]] = {k: [] for k in kinds}
    per_search: dict[str, tuple[int, int]] = {}
    for r in range(rounds):
        for k in list(kinds) if r % 2 == 0 else list(reversed(kinds)):
            sps, calls, sent = rate(kinds[k], states)
            rates[k].append(sps)
            per_search[k] = (calls, sent)
    print(
        f"## {label}: {simulations} simulations, {len(states)} positions, {rounds} rounds; "
        f"net {count_parameters(net):,} parameters, input {enc.plane_shape} + {enc.vector_size}"
    )
    first = next(iter(kinds))
    base = statistics.median(rates[first])
    for k, v in rates.items():
        med = statistics.median(v)
        calls, sent = per_search[k]
        extra = f"  net calls/search {calls}, positions/search {sent}" if k.startswith("net") else ""
        print(f"{k:10s} {med:8.0f} sims/s  ({med / base:.2f}x {first}){extra}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="3x3,4x4,6x4")
    ap.add_argument("--simulations", type=int, default=400)
    ap.add_argument("--positions", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batches", default="1,8,32")
    ap.add_argument("--connect-four", action="store_true", help="also connect four (only it: --boards none)")
    ap.add_argument("--channels", type=int, default=NetConfig.channels, help="the network's conv channels")
    ap.add_argument("--hidden", type=int, default=NetConfig.hidden, help="its penultimate layer's width")
    args = ap.parse_args()
    sizes = {"channels": args.channels, "hidden": args.hidden}
    torch.set_num_threads(1)  # one core per search, as parallel actors would run
    batches = [int(b) for b in args.batches.split(",")]
    for board in args.boards.split(","):
        if board != "none":
            bench_board(board, args.simulations, args.positions, args.rounds, batches, sizes)
    if args.connect_four:
        bench_connect_four(args.simulations, args.rounds, batches, sizes)


if __name__ == "__main__":
    main()
