"""The ``search`` Dou Dizhu agent: determinized Monte Carlo rollouts over a few candidate moves.

Why this shape (perfect-information Monte Carlo, "PIMC"): Dou Dizhu hides two hands, so the
agent samples full deals consistent with everything it has seen
(:meth:`DouDizhuGame.sample_state` deals the unseen cards at random, respecting the hand
sizes and the landlord's open kitty cards it has not played), plays each candidate move in
every sampled deal, finishes the game with a fast policy for all three seats, and keeps the
candidate with the best mean return. Because the sample is built from the observation alone,
the agent cannot peek at the real hidden hands.

Details (also in ``docs/ddz-agents.md``):

* **Candidates** (``width``, default 6): the rule agent's own choice first, then, on a lead,
  the other plays of the exact fewest-plays split in the rule agent's lead order and the
  lowest solo and pair; when following, pass, the non-bomb answers ordered by the plays they
  leave, and the lowest bomb and the rocket.
  With ``leads=all`` a lead searches the rule agent's choice and then every other legal
  move (no width cap; ``budget // len(candidates)`` is then often one rollout each), so its
  leads are chosen by the rollouts, not drawn from a split: the self-play data source of the
  hand-splitting tagger (``docs/splitting.md``). The default ``leads=split`` is unchanged.
* **Rollouts**: every determinization is shared by all candidates (common random numbers:
  the comparison is paired), and each is played out by the rule policy
  (:func:`paiju.doudizhu.agents.rule.rule_move`) for all seats, each seat seeing only its
  own hand and the cards it cannot see in that sampled world.
* **Budget**: ``budget`` rollouts per decision in total (``budget // len(candidates)``
  determinizations, at least one), optionally capped by ``time`` seconds (0 = no cap; a
  time cap makes play depend on the machine's speed, so reproducible runs leave it at 0).
* **Value**: the mean return of the agent's seat under the game's scoring rule (a farmer's
  return is half the landlord's, negated), ties to the earlier candidate (the rule agent's
  preference).
* Shortcuts without search: a single legal move, a move that empties the hand, and the
  bidding phase (the rule agent's :func:`~paiju.doudizhu.agents.rule.bid_for`).

The rules come from the game: the sampled games are played under the
:class:`~paiju.doudizhu.game.DouDizhuConfig` the observation carries (wing rule, scoring,
bidding). The parameters ``wings=`` and ``scoring=`` of earlier versions, which repeated the
game's rules, remain as checks: naming one that differs from the game's is a
:class:`~paiju.core.errors.ConfigError` at the first decision (a spec written for one rule
set is never silently searched under another), and the default ``game`` follows the game.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from paiju.core import deadline as cancel  # `deadline` is the agent's own time cap below
from paiju.core.errors import ConfigError
from paiju.core.protocol import Action
from paiju.core.rng import SeedLike, as_generator
from paiju.doudizhu.agents import FOLLOW_GAME, SEARCH_CHOICES, SEARCH_DEFAULTS
from paiju.doudizhu.agents.rule import (
    Situation,
    bid_for,
    finishing_move,
    lead_order,
    lowest_of_width,
    ranked_answers,
    rule_move,
    split_leads,
)
from paiju.doudizhu.game import (
    Bid,
    DouDizhuConfig,
    DouDizhuGame,
    DouDizhuObservation,
    DouDizhuState,
    are_moves,
)
from paiju.doudizhu.moves import BOMB_TYPES, PASS, Move, MoveType

_PASS = MoveType.PASS  # hot-path alias (docs/design.md, "One source per fact")


def candidate_moves(sit: Situation, legal: Sequence[Move], width: int, all_leads: bool = False) -> list[Move]:
    """Up to ``width`` distinct legal moves worth searching, the rule policy's choice first.

    With ``all_leads`` a lead searches every legal move (no width cap): the choice is then
    made by the rollouts alone, not drawn from a split (``search:leads=all``)."""
    legal_set = set(legal)
    out: list[Move] = [rule_move(sit, legal)]
    if out[0] not in legal_set:  # a split lead not allowed under the wing rule in force
        sit.strict = True
        out = [rule_move(sit, legal)]
    if all_leads and sit.to_beat is None:
        return out + [m for m in legal if m != out[0]]
    pool: list[Move] = []
    if sit.to_beat is None:
        pool += lead_order(sit, split_leads(sit.hand, sit.strict))
        for width_ in (1, 2):
            low = lowest_of_width(sit.hand, width_)
            if low is not None:
                pool.append(low)
    else:
        normal = [m for m in legal if m.type != _PASS and m.type not in BOMB_TYPES]
        pool.append(PASS)
        pool += [m for _, _, m in ranked_answers(sit, normal)]
        pool += sorted((m for m in legal if m.type in BOMB_TYPES), key=lambda m: (m.type, m.rank))
    for m in pool:
        if len(out) >= width:
            break
        if m in legal_set and m not in out:
            out.append(m)
    return out


def rollout(state: DouDizhuState, strict: bool) -> list[float]:
    """Finish a full-information game with the rule policy in every seat; the returns.

    Uses the state's fast interface (packed hands, unchecked moves: this is the hot loop);
    each seat is given only its own hand and the union of the other two as "unseen".
    """
    while state.in_card_play:
        p = state.current_player()
        legal = state.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        else:
            hands = state.packed_hands
            landlord = state.landlord
            assert landlord is not None
            sit = Situation(
                hand=hands[p],
                me=p,
                landlord=landlord,
                sizes=tuple(state.hand_sizes),
                to_beat=state.to_beat,
                owner=state.trick_owner,
                unseen=hands[0] + hands[1] + hands[2] - hands[p],
                strict=strict,
                fast=True,
            )
            move = rule_move(sit, legal)
        state.apply_trusted(move)
    return state.returns()


class SearchAgent:
    """Determinized rollout search (see the module docstring)."""

    def __init__(
        self,
        seed: SeedLike = None,
        budget: int = SEARCH_DEFAULTS["budget"],
        width: int = SEARCH_DEFAULTS["width"],
        time_limit: float = SEARCH_DEFAULTS["time"],
        wings: str = SEARCH_DEFAULTS["wings"],
        scoring: str = SEARCH_DEFAULTS["scoring"],
        leads: str = SEARCH_DEFAULTS["leads"],
        name: str = "search",
    ) -> None:
        if budget < 1:
            raise ConfigError(f"search budget must be at least 1 rollout, got {budget}")
        if width < 1:
            raise ConfigError(f"search width must be at least 1 candidate, got {width}")
        if time_limit < 0:
            raise ConfigError(f"search time must be >= 0 seconds (0 = no cap), got {time_limit}")
        if wings not in SEARCH_CHOICES["wings"]:
            raise ConfigError(f"search wings={wings!r}: leave it out (the game's wing rule is used)")
        if scoring not in SEARCH_CHOICES["scoring"]:
            raise ConfigError(f"search scoring={scoring!r}: leave it out (the game's scoring is used)")
        if leads not in SEARCH_CHOICES["leads"]:
            raise ConfigError(f"search leads={leads!r}: use split (the default) or all")
        self.name = name
        self.all_leads = leads == "all"
        self.budget = budget
        self.width = width
        self.time_limit = time_limit
        self.wings = wings
        self.scoring = scoring
        self._rng = as_generator(seed)
        self._games: dict[DouDizhuConfig, DouDizhuGame] = {}

    def _game(self, config: DouDizhuConfig) -> DouDizhuGame:
        """The game the determinizations are sampled from: the rules ``config`` of the real one."""
        game = self._games.get(config)
        if game is None:
            checks = (("wings", self.wings, config.wing_rule), ("scoring", self.scoring, config.scoring))
            for name, asked, rule in checks:
                if asked not in (FOLLOW_GAME, rule):
                    raise ConfigError(
                        f"search:{name}={asked} but the game plays {rule!r}: the agent reads the rules "
                        f"from the game, leave {name}= out"
                    )
            game = self._games[config] = DouDizhuGame(config)
        return game

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("search agent asked to act with no legal actions")
        if observation.phase == "bidding" or isinstance(legal_actions[0], Bid):
            return bid_for(observation.hand, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        if not are_moves(legal_actions):
            raise ValueError(f"search agent: in play the legal actions are moves, not {legal_actions[0]!r}")
        legal = legal_actions
        obs: DouDizhuObservation = observation
        self._game(obs.config)  # checks a wings=/scoring= alias against the game at once
        sit = Situation.from_observation(obs, obs.config.strict_wings)
        done = finishing_move(sit, legal)
        if done is not None:
            return done
        cands = candidate_moves(sit, legal, self.width, self.all_leads)
        if len(cands) == 1:
            return cands[0]
        return self._search(obs, cands)

    def _search(self, obs: DouDizhuObservation, cands: list[Move]) -> Move:
        totals = self.values(obs, cands)
        best = 0
        for j in range(1, len(cands)):
            if totals[j] > totals[best] + 1e-9:
                best = j
        return cands[best]

    def values(self, obs: DouDizhuObservation, cands: Sequence[Move]) -> list[float]:
        """Summed rollout returns of the observer's seat for each candidate, under the game's
        rules (what the search maximises; every candidate sees the same determinizations)."""
        game = self._game(obs.config)
        me = obs.player
        totals = [0.0] * len(cands)
        rounds = max(1, self.budget // len(cands))
        deadline = time.perf_counter() + self.time_limit if self.time_limit > 0 else None
        strict = game.strict
        for i in range(rounds):
            cancel.check()  # a round is len(cands) rollouts: a few ms, so check each one
            world = game.sample_state(obs, self._rng)
            for j, move in enumerate(cands):
                state = world.clone()
                state.apply_trusted(move)
                totals[j] += rollout(state, strict)[me]
            if deadline is not None and i + 1 < rounds and time.perf_counter() > deadline:
                break
        return totals


__all__ = ["SearchAgent", "candidate_moves", "rollout"]
