"""A local Botzone Dou Dizhu judge: three bot programs play through the protocol.

The judge deals with paiju's engine (``douzero`` wings, which hold every move the Botzone
judge accepts but its space shuttles) and accepts a response only if the Botzone judge would
(:func:`paiju.interop.botzone.judge_accepts`) and the engine does. A bot that crashes, answers
late, prints something that is not a response, or answers an illegal move loses the game for
its side; the game's record says which seat and why, and the other games are not affected.
Bots rotate seats game by game, so each is the landlord a third of the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from paiju.core.errors import ConfigError, PaijuError
from paiju.core.rng import derive_seed
from paiju.core.stats import Estimate, mean_ci, proportion_ci
from paiju.doudizhu.cards import Deal
from paiju.doudizhu.game import Bid, DouDizhuConfig, DouDizhuGame, DouDizhuState
from paiju.doudizhu.moves import PASS, Move
from paiju.doudizhu.scoring import ScoreFacts, get_rule, seat_returns
from paiju.interop.botzone import KEEP_RUNNING, card_ids, cards_text, judge_accepts, level_counts
from paiju.interop.programs import LineProgram, ProgramError


class Forfeit(Exception):
    """A bot lost its game by misbehaving; ``reason`` goes into the record."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class BotProgram:
    """One bot: a command line, run afresh per request (simple interaction) or kept running
    for a game (:class:`paiju.interop.programs.LineProgram`)."""

    command: str
    time_limit: float
    keep_running: bool = False

    def __post_init__(self) -> None:
        self._program = LineProgram(self.command)  # reads the command line once, for both modes

    def ask(self, requests: list[Any], responses: list[Any]) -> Any:
        """The bot's response to the last request (raises :class:`Forfeit`)."""
        if not self.keep_running:
            return self._ask_fresh(requests, responses)
        if self._program.running:
            payload: Any = requests[-1]
        else:
            payload = {"requests": requests, "responses": responses}
        try:
            if not self._program.running:
                self._program.start()
            deadline = time.monotonic() + self.time_limit
            self._program.write_line(json.dumps(payload, separators=(",", ":")), deadline, self.time_limit)
            line = self._program.read_line(deadline, self.time_limit)
            marker = self._program.read_line(deadline, self.time_limit)
        except ProgramError as err:
            raise Forfeit(err.reason) from None
        if marker.strip() != KEEP_RUNNING:
            raise Forfeit(
                f"keep-running mode: expected {KEEP_RUNNING} after the response, got {marker[:60]!r}"
            )
        return _response(line)

    def _ask_fresh(self, requests: list[Any], responses: list[Any]) -> Any:
        payload = json.dumps({"requests": requests, "responses": responses}, separators=(",", ":"))
        try:
            done = subprocess.run(
                self._program.argv, input=payload.encode() + b"\n", capture_output=True,
                timeout=self.time_limit,
            )
        except subprocess.TimeoutExpired:
            raise Forfeit(f"timed out (no answer within {self.time_limit:g} s)") from None
        except OSError as err:
            raise Forfeit(f"could not start ({err.strerror})") from None
        if done.returncode != 0:
            raise Forfeit(f"crashed (exit code {done.returncode}){_tail(done.stderr)}")
        lines = [ln for ln in done.stdout.decode(errors="replace").splitlines() if ln.strip()]
        if not lines:
            raise Forfeit("printed no response")
        return _response(lines[0])

    def close(self) -> None:
        """End a kept-running bot (its game is over)."""
        self._program.close(grace=0.2)  # a bot that is done exits at end of input; others are ended


def _tail(stderr: bytes) -> str:
    text = stderr.decode(errors="replace").strip().splitlines()
    return f": {text[-1][:200]}" if text else ""


def _response(line: str) -> Any:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        raise Forfeit(f"answered something that is not JSON: {line[:80]!r}") from None
    if not isinstance(obj, dict) or "response" not in obj:
        raise Forfeit(f"answered JSON without a 'response': {line[:80]!r}")
    return obj["response"]


# ---- one game ----------------------------------------------------------------------------------
@dataclass
class GameResult:
    """One judged game: who sat where, every exchange, the result (and a forfeit's reason)."""

    index: int
    bots: list[int]
    """Per seat, the index of the bot (in the judge's list) playing it."""
    landlord: int
    bid: int
    moves: list[tuple[int, str]]
    returns: list[float]
    forfeit: dict[str, Any] | None = None
    deal: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.index,
            "bots": self.bots,
            "landlord": self.landlord,
            "bid": self.bid,
            "deal": self.deal,
            "moves": [[s, m] for s, m in self.moves],
            "returns": self.returns,
            "forfeit": self.forfeit,
        }


@dataclass
class _Seat:
    program: BotProgram
    own: list[int]
    requests: list[Any] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)
    played: set[int] = field(default_factory=set)
    seen: int = 0
    """How many plays of the game this seat has been told of."""

    def ask(self, request: dict[str, Any]) -> Any:
        self.requests.append(request)
        answer = self.program.ask(self.requests, self.responses)
        self.responses.append(answer)
        return answer


def deal_ids(deal: Deal) -> tuple[list[list[int]], list[int]]:
    """Card ids for a paiju deal: per hand, and the kitty's (inside hand 0)."""
    taken: set[int] = set()
    hands = []
    for hand in deal.hands:
        ids = []
        for level, n in enumerate(hand.counts):
            free = [c for c in card_ids([4] * 13 + [1, 1]) if c // 4 + c // 53 == level and c not in taken]
            ids.extend(free[:n])
            taken.update(free[:n])
        hands.append(sorted(ids))
    kitty: list[int] = []
    assert deal.kitty is not None
    for level, n in enumerate(deal.kitty.counts):
        kitty.extend([c for c in hands[0] if c // 4 + c // 53 == level][-n:] if n else [])
    return hands, sorted(kitty)


class Judge:
    """Plays games between three bot programs (FightTheLandlord, or FightTheLandlord2 with bids)."""

    def __init__(
        self,
        commands: Sequence[str],
        time_limit: float = 3.0,
        bidding: bool = False,
        keep_running: Sequence[bool] | bool = False,
        scoring: str = "competition",
    ) -> None:
        if len(commands) != 3:
            raise ConfigError(f"a Dou Dizhu judge needs 3 bots, got {len(commands)}")
        if not 0 < time_limit <= 600:
            raise ConfigError(f"time limit {time_limit} s must be in (0, 600]")
        flags = [keep_running] * 3 if isinstance(keep_running, bool) else list(keep_running)
        self.commands = list(commands)
        self.time_limit, self.flags = time_limit, flags
        self.game = DouDizhuGame(DouDizhuConfig(bidding=bidding, wing_rule="douzero", scoring=scoring))
        self.bidding, self.scoring = bidding, scoring
        self.rule = get_rule(scoring)

    def play(self, index: int, seed: int) -> GameResult:
        """Game ``index``: deal from ``derive_seed(seed, index)``; bot k sits at seat (k + index) % 3."""
        bots = [(seat - index) % 3 for seat in range(3)]
        state = self.game.new_initial_state()
        state.apply(Deal.random(derive_seed(seed, index)))
        deal = state.deal
        assert deal is not None
        hands, kitty = deal_ids(deal)
        if self.bidding:
            hands[0] = [c for c in hands[0] if c not in kitty]
        seats = [
            _Seat(BotProgram(self.commands[b], self.time_limit, self.flags[b]), hands[s])
            for s, b in enumerate(bots)
        ]
        result = GameResult(index, bots, 0, 1, [], [0.0, 0.0, 0.0], deal=str(deal))
        try:
            self._run(state, seats, kitty, result, derive_seed(seed, index, 7))
        finally:
            for s in seats:
                s.program.close()
        return result

    def _run(
        self, state: DouDizhuState, seats: list[_Seat], kitty: list[int], result: GameResult, redeal_seed: int
    ) -> None:
        seat = -1
        try:
            if self.bidding:
                kitty = self._bidding(state, seats, result, redeal_seed, kitty)
            plays: list[tuple[int, list[int]]] = []
            landlord = state.landlord
            assert landlord is not None
            result.landlord = landlord
            if self.bidding:
                seats[landlord].own = sorted(seats[landlord].own + kitty)
            while not state.is_terminal():
                seat = state.current_player()
                self._turn(state, seats, seat, plays, kitty, result)
            result.returns = list(state.returns())
        except Forfeit as lost:
            self._forfeit(state, seat, lost.reason, result)

    def _bidding(
        self, state: DouDizhuState, seats: list[_Seat], result: GameResult, seed: int, kitty: list[int]
    ) -> list[int]:
        """Ask for bids until someone is landlord; the kitty's ids (of the last deal)."""
        bids: list[int] = []
        redeals = 0
        while state.phase == "bidding" or state.is_chance_node():
            if state.is_chance_node():  # all three passed: paiju deals again
                redeals += 1
                state.apply(Deal.random(derive_seed(seed, redeals)))
                assert state.deal is not None
                hands, kitty = deal_ids(state.deal)
                hands[0] = [c for c in hands[0] if c not in kitty]
                for s, h in zip(seats, hands, strict=True):
                    s.own, s.requests, s.responses = h, [], []
                result.deal = str(state.deal)
                bids = []
                continue
            seat = state.current_player()
            answer = seats[seat].ask({"own": seats[seat].own, "bid": list(bids)})
            if (
                isinstance(answer, bool)
                or not isinstance(answer, int)
                or Bid(answer) not in state.legal_actions()
            ):
                raise Forfeit(f"illegal bid {answer!r} (bids so far {bids})")
            bids.append(answer)
            result.moves.append((seat, f"bid {answer}"))
            state.apply(Bid(answer))
        result.bid = max(bids)
        return kitty

    def _turn(
        self,
        state: DouDizhuState,
        seats: list[_Seat],
        seat: int,
        plays: list[tuple[int, list[int]]],
        kitty: list[int],
        result: GameResult,
    ) -> None:
        me = seats[seat]
        new = [ids for _, ids in plays[me.seen :]]
        history: list[list[int]] = [[], [], *new][-2:]
        me.seen = len(plays) + 1
        request: dict[str, Any] = {"history": history}
        if len(me.requests) == 0 or (self.bidding and "history" not in me.requests[-1]):
            request.update({"own": me.own, "publiccard": kitty})
            if self.bidding:
                request.update({"landlord": result.landlord, "pos": seat, "finalbid": result.bid})
        answer = me.ask(request)
        move = self._check_play(state, me, answer)
        ids = list(answer)
        me.played.update(ids)
        plays.append((seat, ids))
        result.moves.append((seat, str(move)))
        state.apply(move)

    def _check_play(self, state: DouDizhuState, me: _Seat, answer: Any) -> Move:
        if not isinstance(answer, list) or any(isinstance(c, bool) or not isinstance(c, int) for c in answer):
            raise Forfeit(f"answered {answer!r}, not a list of card ids")
        hand = set(me.own) - me.played
        if len(set(answer)) != len(answer) or not set(answer) <= hand:
            raise Forfeit(f"played cards it does not hold: {sorted(set(answer) - hand) or answer}")
        beat = state.to_beat
        if not judge_accepts(None if beat is None else beat.counts, level_counts(answer)):
            raise Forfeit(
                f"illegal move {cards_text(answer)!r} after {str(beat) if beat else 'nothing (a lead)'}"
            )
        try:
            move = state.parse_move(cards_text(answer))
        except PaijuError as err:
            raise Forfeit(f"illegal move {cards_text(answer)!r}: {err}") from None
        if not isinstance(move, Move) or move not in state.legal_actions():
            raise Forfeit(
                f"illegal move {cards_text(answer)!r} after {str(beat) if beat else 'nothing (a lead)'}"
            )
        return move if move != PASS else PASS

    def _forfeit(self, state: DouDizhuState, seat: int, reason: str, result: GameResult) -> None:
        """The misbehaving seat's side loses, scored as a game lost at that point."""
        landlord = state.landlord if state.landlord is not None else seat
        result.landlord = landlord
        result.forfeit = {"seat": seat, "bot": result.bots[seat], "reason": reason}
        facts = ScoreFacts(
            landlord_won=seat != landlord, bombs=state.bombs, bid=result.bid, spring=False, anti_spring=False
        )
        result.returns = seat_returns(landlord, self.rule.landlord_score(facts))


# ---- a match and its report ------------------------------------------------------------------------
@dataclass
class BotStats:
    bot: str
    role: str
    wp: Estimate
    adp: Estimate
    forfeits: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "role": self.role,
            "wp": self.wp.as_dict(),
            "adp": self.adp.as_dict(),
            "forfeits": self.forfeits,
        }


def summarize(commands: Sequence[str], results: Sequence[GameResult]) -> list[BotStats]:
    """Per bot and role (landlord, farmer, all): WP (return > 0; a draw half) and ADP, 95% intervals."""
    out = []
    for b, command in enumerate(commands):
        for role in ("landlord", "farmer", "all"):
            points = []
            forfeits = 0
            for r in results:
                seat = r.bots.index(b)
                if (role == "landlord" and seat != r.landlord) or (role == "farmer" and seat == r.landlord):
                    continue
                points.append(r.returns[seat])
                forfeits += bool(r.forfeit and r.forfeit["seat"] == seat)
            wins = sum(1.0 if p > 0 else 0.5 if p == 0 else 0.0 for p in points)
            out.append(BotStats(command, role, proportion_ci(wins, len(points)), mean_ci(points), forfeits))
    return out


def record_row(judge: Judge, result: GameResult, seed: int, run_id: str) -> dict[str, Any]:
    """A judged game as a row of paiju's game records (``docs/records.md``)."""
    import paiju

    landlord = result.landlord
    return {
        "run_id": run_id,
        "game_index": result.index,
        "deal_index": result.index,
        "lineup": result.index % 3,
        "game": "doudizhu",
        "rules_version": judge.game.info.rules_version,
        "arena_format": "botzone",
        "seed": derive_seed(seed, result.index),
        "deal": result.deal,
        "dealer_seat": landlord,
        "agents": [judge.commands[b] for b in result.bots],
        "seat_agents": list(result.bots),
        "roles": ["landlord" if p == landlord else "farmer" for p in range(3)],
        "moves": [result.deal, *(m for _, m in result.moves)],
        "move_players": [-1, *(p for p, _ in result.moves)],
        "move_ms": None,
        "returns": list(result.returns),
        "score": result.returns[landlord],
        "scoring_rule": judge.scoring,
        "paiju_version": paiju.__version__,
        "extra": json.dumps({"bid": result.bid, "forfeit": result.forfeit}, sort_keys=True),
    }


def run_judge(
    commands: Sequence[str],
    games: int,
    seed: int = 0,
    out_dir: str | os.PathLike[str] | None = None,
    **options: Any,
) -> tuple[list[GameResult], list[BotStats]]:
    """Play ``games`` games (bots rotating seats) and summarize them like the arena.

    With ``out_dir`` every game is recorded there (one Parquet batch per 50 games); a rerun
    with the same bots and options plays only the games not yet recorded, and the report
    covers the games played in this call.
    """
    from paiju.core.records import RecordWriter

    judge = Judge(commands, **options)
    if out_dir is None:
        results = [judge.play(i, seed) for i in range(games)]
        return results, summarize(commands, results)
    config = {
        "kind": "botzone-judge",
        "bots": list(commands),
        "seed": seed,
        "options": {k: options[k] for k in sorted(options)},
    }
    results = []
    with RecordWriter(out_dir, config) as writer:
        done = writer.done_indices()
        batch: list[dict[str, Any]] = []
        for i in range(games):
            if i in done:
                continue
            results.append(judge.play(i, seed))
            batch.append(record_row(judge, results[-1], seed, writer.run_id))
            if len(batch) == 50:
                writer.write_batch(batch)
                batch = []
        writer.write_batch(batch)
    return results, summarize(commands, results)
