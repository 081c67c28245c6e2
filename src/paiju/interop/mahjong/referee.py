"""The mahjong referee: :class:`Referee` plays hands between four bot links through the
engine (:func:`paiju.core.protocol.play_game`), telling each seat what it may see of every
move and turning each decision into an ask over the seat's link.

A bot that crashes, answers late, answers garbage or an illegal move forfeits the hand: it
pays each other seat ``base + FORFEIT_TAI x per_tai`` (:func:`forfeit_penalty`) and is
restarted for the next hand; the hand is recorded with the reason (:class:`HandRecord`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from paiju.core.errors import ConfigError, InvalidNotationError
from paiju.core.protocol import CHANCE, PlayedGame, State, play_game
from paiju.interop.mahjong.links import BotLink, Forfeit
from paiju.interop.mahjong.messages import (
    AskTurn,
    Chow,
    Draw,
    End,
    Flower,
    ForfeitNotice,
    InitCard,
    InitGame,
    Kong,
    Message,
    Mo,
    Pung,
    Quit,
    Rules,
    Start,
    Throw,
    Win,
    ask_for,
    parse_answer,
    rules_items,
)
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.game import (
    ADDED_KONG,
    CONCEALED_KONG,
    HAND_SIZE,
    NUM_PLAYERS,
    WIN,
    MahjongGame,
    MahjongObservation,
    MahjongState,
    Phase,
    wall_notation,
)
from paiju.mahjong.tiles import FLOWER_BASE, MeldType

FORFEIT_TAI = 8
"""A forfeit (詐胡-like penalty): the offender pays each other seat ``base + 8 x per_tai``."""
_FLOWER_WINS = ("八仙過海", "七搶一")


@dataclass(frozen=True)
class Table:
    """Who deals the next hand: the engine's rule (the dealer keeps the deal on a win or a draw,
    連莊 +1; otherwise it passes on), the prevailing wind advancing every 4 passes."""

    dealer: int = 0
    continuation: int = 0
    round_wind: int = 0
    passes: int = 0

    def after(self, state: MahjongState | None, forfeit_seat: int | None, start_wind: int) -> Table:
        if forfeit_seat is None and state is not None and state.is_terminal():
            dealer, cont, passed = state.dealer, state.continuation, state.dealer_passes
        elif forfeit_seat == self.dealer:  # a forfeiting dealer loses the deal
            dealer, cont, passed = (self.dealer + 1) % NUM_PLAYERS, 0, 1
        else:  # another seat forfeited: the dealer keeps the deal, as after a draw
            dealer, cont, passed = self.dealer, self.continuation + 1, 0
        passes = self.passes + passed
        return Table(dealer, cont, (start_wind + passes // NUM_PLAYERS) % NUM_PLAYERS, passes)


@dataclass
class HandRecord:
    """One refereed hand: table, wall, every move, the points and a forfeit's reason."""

    index: int
    seed: int
    table: Table
    wall: str
    moves: list[str]
    players: list[int]
    actions: list[int]
    move_ms: list[float]
    deltas: list[int]
    winners: list[int]
    exhaustive: bool
    forfeit: dict[str, Any] | None = None
    next_table: Table = field(default_factory=Table)
    record: dict[str, Any] = field(default_factory=dict)
    """The engine's record fields of the hand (``MahjongGame.record_fields``)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "hand": self.index, "seed": self.seed, "dealer": self.table.dealer,
            "continuation": self.table.continuation, "round_wind": self.table.round_wind,
            "wall": self.wall, "moves": self.moves, "deltas": self.deltas, "winners": self.winners,
            "exhaustive": self.exhaustive, "forfeit": self.forfeit,
        }


Transcript = list[tuple[int, str, str]]
"""(seat, ">" referee to bot or "<" bot to referee, line)."""


def write_transcript(transcript: Transcript, path: Path | None = None) -> list[str]:
    """Transcript lines ``seat > line`` / ``seat < line`` (optionally written to ``path``)."""
    lines = [f"{seat} {way} {line}" for seat, way, line in transcript]
    if path is not None:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


class _Proxy:
    """The agent play_game seats for a bot: each decision becomes an ask over the link."""

    def __init__(self, referee: Referee, seat: int) -> None:
        self.referee, self.seat = referee, seat
        self.name = referee.links[seat].name

    def act(self, observation: MahjongObservation, legal_actions: Sequence[int]) -> int:
        ask = ask_for(observation, legal_actions)
        answer = self.referee.ask(self.seat, ask.format())
        try:
            action = parse_answer(ask, answer)
        except InvalidNotationError:
            raise Forfeit(self.seat, f"answered garbage {answer[:80]!r} to {ask.format()!r}") from None
        if action not in legal_actions:
            what = "move" if isinstance(ask, AskTurn) else "claim"
            raise Forfeit(self.seat, f"illegal {what} {answer[:80]!r} (asked {ask.format()!r})")
        return action


@dataclass
class _Snapshot:
    phase: Phase
    head: int
    tail: int
    window_from: int
    melds: tuple[int, ...]


class Referee:
    """Plays hands between four bot links through the engine and the protocol."""

    def __init__(
        self,
        links: Sequence[BotLink],
        rules: MahjongConfig | None = None,
        transcript: Transcript | None = None,
    ) -> None:
        if len(links) != NUM_PLAYERS:
            raise ConfigError(f"a mahjong referee needs 4 bots, got {len(links)}")
        rules = rules or MahjongConfig()
        if rules.mode != "hand":
            raise ConfigError("the referee plays hand by hand: rules mode must be 'hand'")
        self.links = list(links)
        self.rules = rules
        self.transcript = transcript
        self._snap: _Snapshot | None = None
        self._played: PlayedGame[Any] | None = None

    # -- the wire --
    def _log(self, seat: int, way: str, line: str) -> None:
        if self.transcript is not None:
            self.transcript.append((seat, way, line))

    def send(self, seat: int, msg: Message) -> None:
        line = msg.format()
        self._log(seat, ">", line)
        self.links[seat].send(line)

    def broadcast(self, msg: Message) -> None:
        for seat in range(NUM_PLAYERS):
            self.send(seat, msg)

    def ask(self, seat: int, line: str) -> str:
        self._log(seat, ">", line)
        answer = self.links[seat].ask(line)
        self._log(seat, "<", answer)
        return answer

    def _tell_all(self, msg: Message) -> None:
        """Best effort (the end of a hand): a bot gone now is restarted for the next hand."""
        for seat, link in enumerate(self.links):
            if link.alive:
                with contextlib.suppress(Forfeit):
                    self.send(seat, msg)

    def _start_bots(self) -> Forfeit | None:
        """Start every bot that is not running (before a hand); the first failure, if any."""
        failed: Forfeit | None = None
        for seat, link in enumerate(self.links):
            spawn = getattr(link, "spawn", None)
            if not link.alive and spawn is not None:  # start-ups overlap: all first, then the handshakes
                try:
                    spawn(seat)
                except Forfeit as err:
                    failed = failed or err
        for seat, link in enumerate(self.links):
            if link.alive and getattr(link, "ready", True):
                continue
            try:
                self._log(seat, ">", Start(seat).format())
                self._log(seat, "<", link.start(seat))
                self.send(seat, Rules(rules_items(self.rules)))
            except Forfeit as err:
                failed = failed or err
        return failed

    # -- a hand --
    def play_hand(self, index: int, seed: int, table: Table) -> HandRecord:
        """Hand ``index`` on the wall of ``seed`` at ``table``; a forfeit ends it at once."""
        t = table
        cfg = replace(self.rules, dealer=t.dealer, continuation=t.continuation, round_wind=t.round_wind)
        game = MahjongGame(cfg)
        self._played = None
        error: Exception | None = self._start_bots()
        played: PlayedGame[Any] | None = None
        if error is None:
            try:
                self.broadcast(InitGame(table.round_wind, index, table.dealer, table.continuation))
                played = play_game(
                    game, [_Proxy(self, s) for s in range(NUM_PLAYERS)], seed, notation=True,
                    before_move=self._before, after_move=self._after, stop_on_error=True,
                )
                error = played.error
            except Forfeit as err:  # raised while telling a bot of a move (it is gone)
                error, played = err, self._played
        if error is not None and not isinstance(error, Forfeit):
            raise error
        return self._hand_record(index, seed, table, game, played, error)

    def _hand_record(
        self, index: int, seed: int, table: Table, game: MahjongGame, played: PlayedGame[Any] | None,
        forfeit: Forfeit | None,
    ) -> HandRecord:
        state = played.state if played is not None else None
        assert state is None or isinstance(state, MahjongState)
        moves = list(played.moves) if played is not None else []
        players = list(played.players) if played is not None else []
        actions = [a if isinstance(a, int) else -1 for a in played.actions] if played is not None else []
        wall = wall_notation(state.wall) if state is not None and state.wall else ""
        record = game.record_fields(state, played.actions) if state is not None and played is not None else {}
        if forfeit is not None:
            deltas = forfeit_penalty(forfeit.seat, game.config)
            self.links[forfeit.seat].close()
            self._tell_all(ForfeitNotice(forfeit.seat, forfeit.reason))
            self._tell_all(End("forfeit", tuple(deltas)))
            winners: list[int] = []
            exhaustive = False
            info: dict[str, Any] | None = {"seat": forfeit.seat, "bot": self.links[forfeit.seat].name,
                                           "reason": forfeit.reason}
        else:
            assert state is not None and state.last_result is not None
            result = state.last_result
            deltas, winners = list(result.deltas), list(result.winners)
            exhaustive, info = result.exhaustive, None
        ms = list(played.move_ms) if played is not None else []
        nxt = table.after(state, forfeit.seat if forfeit else None, self.rules.round_wind)
        return HandRecord(index, seed, table, wall, moves, players, actions, ms, deltas, winners,
                          exhaustive, info, nxt, record)

    # -- turning engine moves into messages --
    def _before(self, state: State[Any], player: int) -> None:
        assert isinstance(state, MahjongState)
        self._snap = _Snapshot(
            state.phase, state.head, state.tail, state.window_from, tuple(len(m) for m in state.melds)
        )

    def _after(self, state: State[Any], played: PlayedGame[Any]) -> None:
        assert isinstance(state, MahjongState) and self._snap is not None
        self._played = played
        player, action = played.players[-1], played.actions[-1]
        if player == CHANCE:
            self._deal_events(state)
        else:
            drawer = self._move_events(self._snap, state, player, int(action))
            self._draw_events(self._snap, state, drawer)
        if state.is_terminal():
            self._end_events(state)

    def _deal_events(self, state: MahjongState) -> None:
        wall, d = state.wall, state.dealer
        dealt: list[list[int]] = [[] for _ in range(NUM_PLAYERS)]
        for i in range(NUM_PLAYERS):
            dealt[(d + i) % NUM_PLAYERS] = list(wall[i * HAND_SIZE : (i + 1) * HAND_SIZE])
        dealt[d].append(wall[NUM_PLAYERS * HAND_SIZE])
        for seat in range(NUM_PLAYERS):
            self.send(seat, InitCard(tuple(dealt[seat])))
        tail = len(wall)
        for i in range(NUM_PLAYERS):  # 補花 seat by seat from the dealer, as the engine does
            seat = (d + i) % NUM_PLAYERS
            for t in dealt[seat]:
                if t >= FLOWER_BASE:
                    self.broadcast(Flower(seat, t - FLOWER_BASE))
            for _ in range(len(state.flowers[seat])):  # one tail draw per flower shown
                tail -= 1
                self._tell_draw(seat, wall[tail], "deal")
        assert tail == state.tail, "the deal's replacement draws do not match the engine's"

    def _tell_draw(self, seat: int, tile: int, source: str) -> None:
        for s in range(NUM_PLAYERS):
            self.send(s, Mo(tile, source) if s == seat else Draw(seat, source))
        if tile >= FLOWER_BASE:
            self.broadcast(Flower(seat, tile - FLOWER_BASE))

    def _move_events(self, snap: _Snapshot, state: MahjongState, p: int, a: int) -> int | None:
        """Tell the public part of move ``a`` by seat ``p``; the seat that draws next, if any."""
        if snap.phase == Phase.TURN:
            if a < CONCEALED_KONG:
                self.broadcast(Throw(p, a, state.discards_drawn[p][-1]))
                return (p + 1) % NUM_PLAYERS
            if a < ADDED_KONG:
                k = a - CONCEALED_KONG
                shown = k if state.cfg.concealed_kong_public else -1
                for s in range(NUM_PLAYERS):
                    self.send(s, Kong(p, "concealed", k if s == p else shown))
                return p
            if a < WIN:
                self.broadcast(Kong(p, "added", a - ADDED_KONG))
                return p
            return None
        if state.phase == snap.phase and not state.is_terminal():
            return None  # the window is still collecting sealed answers
        if snap.phase == Phase.ROB:
            return snap.window_from  # nobody robbed: the kong stands, the konger draws
        for c in range(NUM_PLAYERS):
            if len(state.melds[c]) > snap.melds[c]:
                m = state.melds[c][-1]
                if m.type == MeldType.PUNG:
                    self.broadcast(Pung(c, m.tile, m.source))
                    return None
                if m.type == MeldType.CHOW:
                    self.broadcast(Chow(c, m.tile, m.source))
                    return None
                self.broadcast(Kong(c, "exposed", m.tile, m.source))
                return c
        return (snap.window_from + 1) % NUM_PLAYERS

    def _draw_events(self, snap: _Snapshot, state: MahjongState, drawer: int | None) -> None:
        head = list(state.wall[snap.head : state.head])
        tail = [state.wall[i] for i in range(snap.tail - 1, state.tail - 1, -1)]
        if not head and not tail:
            return
        assert drawer is not None, "tiles were drawn, but by whom?"
        for t in head:
            self._tell_draw(drawer, t, "normal")
        for t in tail:
            self._tell_draw(drawer, t, "flower" if head else "replacement")

    def _end_events(self, state: MahjongState) -> None:
        result = state.last_result
        assert result is not None
        for i, w in enumerate(result.winners):
            score = result.scores[i]
            if any(name in _FLOWER_WINS for name, _ in score.patterns):
                how = "flowers"
            else:
                how = "selfdraw" if result.self_draw else "robkong" if result.robbed_kong else "discard"
            source = result.discarder if result.discarder is not None else -1
            self._tell_all(Win(w, how, result.winning_tile, source, score.tai, result.winning_hands[i]))
        self._tell_all(End("exhaustive" if result.exhaustive else "win", tuple(result.deltas)))

    def close(self) -> None:
        self._tell_all(Quit())
        for link in self.links:
            link.close()


def forfeit_penalty(seat: int, cfg: MahjongConfig) -> list[int]:
    """The points of a hand ``seat`` forfeits: it pays each other seat ``base + FORFEIT_TAI x
    per_tai`` (the referee scores the hand so, and a replay of its record checks it so)."""
    amount = cfg.base + FORFEIT_TAI * cfg.per_tai
    return [-amount * (NUM_PLAYERS - 1) if s == seat else amount for s in range(NUM_PLAYERS)]
