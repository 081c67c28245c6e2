"""Train a small policy on a paiju Gymnasium environment and compare it with random play.

REINFORCE with a running-mean baseline and a tiny torch MLP (one hidden layer), the logits of
illegal actions masked out with the observation's ``action_mask``. The default trains the
first seat of tic-tac-toe against the registry's uniform random agent; ``--game kuhn_poker``
trains Kuhn poker's first seat the same way. Seeded throughout: the same command prints the
same numbers (docs/interop.md shows a run).

    .venv/bin/python benchmarks/gym_example.py --episodes 3000 --eval 1000 --seed 0
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from paiju.core.rng import derive_seed
from paiju.interop.gymnasium import PaijuSingleAgentEnv, make

Policy = Callable[[dict[str, np.ndarray], np.random.Generator], int]


class MaskedMLP(nn.Module):
    """Observation vector -> logits over the action space; illegal actions get -inf."""

    def __init__(self, inputs: int, actions: int, hidden: int = 64) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, actions))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.net(obs)
        return logits.masked_fill(mask == 0, float("-inf"))


def _tensors(obs: dict[str, np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.from_numpy(obs["observation"]), torch.from_numpy(obs["action_mask"])


def train(
    env: PaijuSingleAgentEnv, episodes: int, seed: int, lr: float = 0.01, batch: int = 16,
) -> MaskedMLP:
    """REINFORCE on ``env`` for ``episodes`` episodes (episode ``i`` seeded ``derive_seed(seed, i)``)."""
    torch.manual_seed(seed)
    size = env.observation_space["observation"].shape[0]  # type: ignore[index]
    model = MaskedMLP(size, int(env.action_space.n))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    baseline, losses = 0.0, []
    for i in range(episodes):
        obs, _ = env.reset(seed=derive_seed(seed, i))
        log_probs, total, done = [], 0.0, False
        while not done:
            dist = torch.distributions.Categorical(logits=model(*_tensors(obs)))
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            obs, reward, done, _, _ = env.step(int(action))
            total += reward
        # the return is paid at the end and undiscounted: every move of the game shares it
        losses.append(-(total - baseline) * torch.stack(log_probs).sum())
        baseline += 0.05 * (total - baseline)
        if len(losses) == batch or i == episodes - 1:
            opt.zero_grad()
            torch.stack(losses).mean().backward()
            opt.step()
            losses = []
    return model


def greedy(model: MaskedMLP) -> Policy:
    """The trained policy, playing its most likely legal action."""

    def act(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        with torch.no_grad():
            return int(model(*_tensors(obs)).argmax())

    return act


def uniform(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    """The baseline: a uniformly random legal action."""
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def evaluate(env: PaijuSingleAgentEnv, policy: Policy, episodes: int, seed: int) -> tuple[float, float]:
    """Mean return of ``policy`` over ``episodes`` seeded episodes, and its standard error."""
    rng = np.random.default_rng(seed)
    returns = []
    for i in range(episodes):
        obs, _ = env.reset(seed=derive_seed(seed, 1, i))
        total, done = 0.0, False
        while not done:
            obs, reward, done, _, _ = env.step(policy(obs, rng))
            total += reward
        returns.append(total)
    arr = np.asarray(returns)
    return float(arr.mean()), float(arr.std(ddof=1) / np.sqrt(len(arr)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tictactoe", choices=["tictactoe", "kuhn_poker"])
    parser.add_argument("--opponent", default="random", help="agent spec of the opponent")
    parser.add_argument("--episodes", type=int, default=3000, help="training episodes")
    parser.add_argument("--eval", type=int, default=1000, help="evaluation episodes per policy")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = make(args.game, seat=0, opponents=[args.opponent])
    torch.set_num_threads(1)
    model = train(env, args.episodes, args.seed)
    for name, policy in (("random", uniform), ("trained", greedy(model))):
        mean, se = evaluate(env, policy, args.eval, derive_seed(args.seed, 2))
        print(f"{args.game} seat 0 vs {args.opponent}: {name:8s} mean return {mean:+.3f} ± {se:.3f} "
              f"({args.eval} episodes)")


if __name__ == "__main__":
    main()
