"""Botzone's Dou Dizhu protocol: a paiju agent as a bot, and the judge's move rule.

Botzone (botzone.org.cn) runs FightTheLandlord (the landlord is fixed) and FightTheLandlord2
(a 1-2-3 bid first). A bot gets JSON on standard input — every request so far and its own
earlier responses — and prints one JSON line. docs/botzone.md has the protocol, a transcript
and the rule findings below.

Why the Botzone filter: Botzone's judge classifies a card set by how many ranks hold one,
two, three or four cards, so its kickers are stricter than DouZero's (solo wings and a
four's two solos must be distinct single cards of ranks outside the body; no pair, trio or
bomb among them) while it allows the rocket as kickers, which RLCard's rule forbids. Every
Botzone move other than its "space shuttles" (consecutive fours) is a move under paiju's
``douzero`` wing rule, so the bot reads the game under that rule (the default) and plays only
moves the judge accepts (:func:`judge_accepts`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from paiju.core.errors import IllegalMoveError, InvalidNotationError, PaijuError
from paiju.core.protocol import Agent
from paiju.core.rng import as_generator, derive_seed
from paiju.doudizhu.cards import Deal
from paiju.doudizhu.game import Bid, DouDizhuConfig, DouDizhuGame, DouDizhuState
from paiju.doudizhu.moves import PASS, Move

KEEP_RUNNING = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"
RANKS = "3456789TJQKA2XD"
MAX_CHAIN_LEVEL = 11  # chains end at the ace (level 11); never 2 or a joker
HAND_SIZES = (20, 17, 17)


# ---- cards -----------------------------------------------------------------------------------------
def card_level(card: int) -> int:
    """Botzone's rank level of card id 0..53: 0..12 = 3 .. A, 2; 13 small joker; 14 big joker."""
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card <= 53:
        raise InvalidNotationError(f"card {card!r} is not a Botzone card id 0..53")
    return card // 4 + card // 53


def level_counts(cards: Iterable[int]) -> tuple[int, ...]:
    counts = [0] * 15
    for c in cards:
        counts[card_level(c)] += 1
    return tuple(counts)


def cards_text(cards: Iterable[int]) -> str:
    """Card ids in paiju notation (``pass`` for none): [0, 1, 52] -> ``33X``."""
    counts = level_counts(cards)
    return "".join(RANKS[r] * n for r, n in enumerate(counts)) or "pass"


def card_ids(counts: Sequence[int]) -> list[int]:
    """A canonical set of ids holding ``counts`` (the lowest ids of each rank)."""
    out: list[int] = []
    for level, n in enumerate(counts):
        out.extend([52 + (level - 13)] if level >= 13 and n else range(4 * level, 4 * level + n))
    return out


def pick_cards(hand: Iterable[int], counts: Sequence[int]) -> list[int]:
    """The ids to play from ``hand`` for a move of ``counts`` (lowest ids of each rank)."""
    by_level: dict[int, list[int]] = {}
    for c in sorted(hand):
        by_level.setdefault(card_level(c), []).append(c)
    out: list[int] = []
    for level, n in enumerate(counts):
        have = by_level.get(level, [])
        if len(have) < n:
            raise IllegalMoveError(f"the hand lacks {n} x {RANKS[level]!r}")
        out.extend(have[:n])
    return out


# ---- the judge's move rule -------------------------------------------------------------------------
@dataclass(frozen=True)
class Combo:
    """A card set as Botzone's judge classifies it: type, comparison level, card count."""

    kind: str
    level: int
    size: int


def _chain(levels: Sequence[int]) -> bool:
    """Consecutive ranks ending at the ace at the latest (``levels`` sorted high to low)."""
    return levels[0] <= MAX_CHAIN_LEVEL and all(a - 1 == b for a, b in itertools.pairwise(levels))


_SINGLE_KIND = {
    1: ("solo", "solo_chain", 5),
    2: ("pair", "pair_chain", 3),
    3: ("trio", "trio_chain", 2),
    4: ("bomb", "shuttle", 2),
}
_KICKED = {
    (3, 1): ("trio_solo", "airplane_solo", 1),
    (3, 2): ("trio_pair", "airplane_pair", 1),
    (4, 1): ("four_two_solo", "shuttle_solo", 2),
    (4, 2): ("four_two_pair", "shuttle_pair", 2),
}


def judge_combo(counts: Sequence[int]) -> Combo | None:
    """Botzone's classification of a card set (rank counts), None when it is no move.

    The judge groups ranks by how many cards each holds. One group: a solo, pair, trio or
    bomb, or a chain of them (5+ solos, 3+ pairs, 2+ trios, 2+ fours: the "space shuttle");
    the two jokers are the rocket. Two groups: trios (or fours) carrying as many single
    ranks or pairs as trios (twice as many for fours), the main ranks forming a chain when
    more than one. The level compared is the highest main rank; the size must match.
    """
    size = sum(counts)
    if size == 0:
        return Combo("pass", -1, 0)
    groups: dict[int, list[int]] = {}
    for level in range(14, -1, -1):
        if counts[level]:
            groups.setdefault(counts[level], []).append(level)
    if len(groups) == 1:
        ((n, levels),) = groups.items()
        one, many, least = _SINGLE_KIND[n]
        if len(levels) == 1:
            return Combo(one, levels[0], size)
        if n == 1 and levels == [14, 13]:
            return Combo("rocket", 14, size)
        if len(levels) >= least and _chain(levels):
            return Combo(many, levels[0], size)
        return None
    if len(groups) == 2:
        big, small = max(groups), min(groups)
        if (big, small) not in _KICKED:
            return None
        one, many, per = _KICKED[(big, small)]
        mains, kicks = groups[big], groups[small]
        if len(kicks) != per * len(mains):
            return None
        if len(mains) == 1:
            return Combo(one, mains[0], size)
        if _chain(mains):
            return Combo(many, mains[0], size)
    return None


def judge_beats(to_beat: Combo | None, move: Combo) -> bool:
    """Whether the judge accepts ``move`` after ``to_beat`` (None: a free lead)."""
    if to_beat is None:
        return move.kind != "pass"
    if move.kind == "pass":
        return True
    if to_beat.kind == "rocket":
        return False
    if move.kind == "rocket":
        return True
    if move.kind == "bomb":
        return to_beat.kind != "bomb" or move.level > to_beat.level
    return move.kind == to_beat.kind and move.size == to_beat.size and move.level > to_beat.level


def judge_accepts(to_beat: Sequence[int] | None, move: Sequence[int]) -> bool:
    """``move`` (rank counts) is a judge-valid answer to ``to_beat`` (rank counts; None: lead)."""
    combo = judge_combo(move)
    if combo is None:
        return False
    before = None if to_beat is None else judge_combo(to_beat)
    if to_beat is not None and before is None:
        return combo.kind in ("pass", "bomb", "rocket")  # a set the judge would not have accepted
    return judge_beats(before, combo)


# ---- reading the bot's input -----------------------------------------------------------------------
def parse_input(text: str) -> tuple[list[Any], list[Any]]:
    """Botzone input -> (requests, responses); JSON mode or the simple line format."""
    stripped = text.strip()
    if not stripped:
        raise InvalidNotationError("empty input: expected Botzone's JSON on standard input")
    first, _, rest = stripped.partition("\n")
    if _is_count(first):  # simple interaction: n, then 2n-1 request/response lines
        n = int(first)
        lines = rest.splitlines()
        if n < 1 or len(lines) < 2 * n - 1:
            raise InvalidNotationError(f"simple input announces {n} requests but has {len(lines)} lines")
        values = [_json(line, f"line {i + 2}") for i, line in enumerate(lines[: 2 * n - 1])]
        return values[0::2], values[1::2]
    obj = _json(stripped, "input")
    if not isinstance(obj, dict):
        raise InvalidNotationError("input must be a JSON object with 'requests'")
    if "requests" not in obj:  # keep-running: a bare request
        return [obj], []
    requests, responses = obj["requests"], obj.get("responses", [])
    if not isinstance(requests, list) or not isinstance(responses, list) or not requests:
        raise InvalidNotationError("'requests' must be a non-empty list and 'responses' a list")
    if len(responses) != len(requests) - 1:
        raise InvalidNotationError(
            f"{len(requests)} requests need {len(requests) - 1} responses, got {len(responses)}"
        )
    return requests, responses


def _is_count(line: str) -> bool:
    """The simple format's first line: a count in ASCII digits (``str.isdigit`` also takes
    '²' and other scripts' digits, which ``int`` refuses or reads)."""
    text = line.strip()
    return text.isascii() and text.isdigit()


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidNotationError(f"{where}: not valid JSON ({err.msg} at column {err.colno})") from None


def _ids(value: Any, what: str) -> list[int]:
    if not isinstance(value, list):
        raise InvalidNotationError(f"{what} must be a list of card ids, got {value!r}")
    for c in value:
        card_level(c)
    if len(set(value)) != len(value):
        raise InvalidNotationError(f"{what} names a card twice: {value}")
    return list(value)


def _request(value: Any, index: int) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidNotationError(f"request {index} must be a JSON object, got {value!r}")
    return value


# ---- the bot ---------------------------------------------------------------------------------------
@dataclass
class PlayView:
    """The play phase as this bot saw it: seats relative to the landlord (paiju's seat 0)."""

    seat: int
    own: list[int]
    kitty: list[int]
    plays: list[tuple[int, list[int]]]
    bid: int
    where: list[str]
    """Per play, the entry of the input it came from: ``request 2 history[1]``, ``response 1``."""


def _play_view(requests: list[dict[str, Any]], responses: list[Any]) -> PlayView:
    indices = [i for i, r in enumerate(requests) if "history" in r]
    first = requests[indices[0]]
    kitty = _ids(first.get("publiccard", first.get("public", [])), "'publiccard'")
    if len(kitty) != 3:
        raise InvalidNotationError(f"the landlord's public cards must be 3 ids, got {kitty}")
    if "landlord" in first:
        landlord, pos = first["landlord"], first.get("pos")
        if not all(isinstance(x, int) and 0 <= x <= 2 for x in (landlord, pos)):
            raise InvalidNotationError("'landlord' and 'pos' must be seats 0..2")
        seat = (pos - landlord) % 3
    else:  # FightTheLandlord: the seat follows from who has played before the first request
        h = first["history"]
        if not isinstance(h, list) or len(h) != 2:
            raise InvalidNotationError("'history' must be [two seats before, previous player]")
        seat = 2 if h[0] else 1 if h[1] else 0
    # FightTheLandlord2 may send the hand only with the bids: take the latest request holding it
    own = _ids(next((r["own"] for r in reversed(requests[: indices[0] + 1]) if "own" in r), None), "'own'")
    if seat == 0:
        own = sorted(set(own) | set(kitty))
    if len(own) != HAND_SIZES[seat]:
        raise InvalidNotationError(
            f"'own' gives {len(own)} cards; seat {seat} from the landlord holds {HAND_SIZES[seat]}"
        )
    plays: list[tuple[int, list[int]]] = []
    where: list[str] = []
    for n, i in enumerate(indices):
        history = requests[i].get("history")
        if not isinstance(history, list) or len(history) != 2:
            raise InvalidNotationError(f"request {i}: 'history' must be [two seats before, previous player]")
        for k, moved in enumerate(history):
            who = (seat + k + 1) % 3
            ids = _ids(moved, f"request {i} history[{k}]")
            if n == 0 and k < 2 - seat:  # the seats before the landlord's first play: nothing yet
                if ids:
                    raise IllegalMoveError(
                        f"request {i} history[{k}]: seat {who} ({_ROLES[who]}) plays {cards_text(ids)!r} "
                        "before the game began (the landlord plays first)"
                    )
                continue
            plays.append((who, ids))
            where.append(f"request {i} history[{k}]")
        if i < len(responses):
            plays.append((seat, _ids(responses[i], f"response {i}")))
            where.append(f"response {i}")
    final = first.get("finalbid", 1)
    bid = final if isinstance(final, int) and 1 <= final <= 3 else 1
    view = PlayView(seat, own, kitty, plays, bid, where)
    check_history(view)
    return view


_ROLES = ("the landlord", "farmer A", "farmer B")


def _cards_refusal(view: PlayView, who: int, cards: set[int], played: set[int]) -> str | None:
    """Why seat ``who`` cannot play ``cards``: played before, or known to be elsewhere."""
    own, kitty = set(view.own), set(view.kitty)
    if cards & played:
        return f"but {cards_text(sorted(cards & played))!r} was played already"
    if who == view.seat and not cards <= own:
        return f"cards this bot does not hold ({cards_text(sorted(cards - own))!r})"
    if who != view.seat and cards & own:
        return f"but this bot holds {cards_text(sorted(cards & own))!r}"
    if who != 0 and cards & kitty:
        return f"but {cards_text(sorted(cards & kitty))!r} are the landlord's public cards"
    return None


def check_history(view: PlayView) -> None:
    """Every play of the history must be one Botzone's judge accepts (:func:`judge_combo`,
    :func:`judge_beats`), of cards its player can hold, in a game not yet over.

    Raises:
        IllegalMoveError: naming the entry (``request 1 history[0]``, ``response 2``), the
            seat, the cards and why.
    """
    played: set[int] = set()
    holds: list[set[int]] = [set(view.kitty), set(), set()]  # what each seat is known to hold
    holds[view.seat] |= set(view.own)
    lead: tuple[Combo, str] | None = None
    passes = 0
    out: str | None = None
    for (who, ids), where in zip(view.plays, view.where, strict=True):
        text = cards_text(ids)
        if out is not None:
            raise IllegalMoveError(f"{where}: a play after the game ended ({out})")

        def bad(why: str, who: int = who, text: str = text, where: str = where) -> IllegalMoveError:
            return IllegalMoveError(f"{where}: seat {who} ({_ROLES[who]}) plays {text!r}, {why}")

        cards = set(ids)
        if why := _cards_refusal(view, who, cards, played):
            raise bad(why)
        combo = judge_combo(level_counts(ids))
        if combo is None:
            raise bad("which is no Dou Dizhu move (Botzone's judge refuses it)")
        if combo.kind == "pass":
            if lead is None:
                raise IllegalMoveError(f"{where}: seat {who} ({_ROLES[who]}) passes on a free lead")
            passes += 1
            if passes == 2:  # both others passed: the last player leads again
                lead, passes = None, 0
        else:
            if lead is not None and not judge_beats(lead[0], combo):
                raise bad(f"which does not beat {lead[1]!r}")
            lead, passes = (combo, text), 0
        holds[who] |= cards
        if len(holds[who]) > HAND_SIZES[who]:
            raise bad(f"but it holds only {HAND_SIZES[who]} cards")
        played |= cards
        if sum(1 for c in played if c in holds[who]) == HAND_SIZES[who]:
            out = f"seat {who} played its last card at {where}"
    if out is not None:
        raise IllegalMoveError(f"the history ends the game ({out}): there is no turn to answer")


def spread_cards(known: list[set[int]], sizes: Sequence[int], seed: int) -> list[list[int]]:
    """Per seat, card ids agreeing with what is known; the unknown cards spread at random (seeded)."""
    union: set[int] = set()
    for seat, cards in enumerate(known):
        if union & cards:
            raise InvalidNotationError(f"cards {sorted(union & cards)} appear in two places")
        if len(cards) > sizes[seat]:
            raise InvalidNotationError(f"seat {seat} would hold {len(cards)} cards, more than {sizes[seat]}")
        union |= cards
    rest = [c for c in range(54) if c not in union]
    pool = [rest[i] for i in as_generator(seed).permutation(len(rest))]
    hands = []
    for seat, cards in enumerate(known):
        need = sizes[seat] - len(cards)
        hands.append(sorted(cards) + pool[:need])
        pool = pool[need:]
    return hands


class BotzoneBot:
    """A paiju agent answering Botzone Dou Dizhu requests (one game per bot process)."""

    def __init__(
        self, agent: str, seed: int = 0, wing_rule: str = "douzero", scoring: str = "competition"
    ) -> None:
        from paiju.doudizhu.agents import REGISTRY

        self.agent: Agent = REGISTRY.make(agent, seed=derive_seed(seed, 0))
        self.seed = seed
        self.play_game = DouDizhuGame(DouDizhuConfig(scoring=scoring, wing_rule=wing_rule))
        self.bid_game = DouDizhuGame(DouDizhuConfig(scoring=scoring, wing_rule=wing_rule, bidding=True))
        self.requests: list[Any] = []
        self.responses: list[Any] = []
        self.note = ""

    def respond(self, requests: Sequence[Any], responses: Sequence[Any]) -> Any:
        """The answer to the last request given the whole exchange so far."""
        reqs = [_request(r, i) for i, r in enumerate(requests)]
        if "history" in reqs[-1]:
            return self._play(reqs, list(responses))
        if "bid" in reqs[-1]:
            return self._bid(reqs[-1], len(reqs))
        raise InvalidNotationError(
            f"request {len(reqs) - 1} is neither a bid ('bid') nor a play ('history') request"
        )

    def _bid(self, request: dict[str, Any], turn: int) -> int:
        own = _ids(request.get("own"), "'own'")
        bids = request["bid"]
        if (
            not isinstance(bids, list)
            or len(bids) > 2
            or any(b not in (0, 1, 2, 3) for b in bids)
            or len(own) != 17
        ):
            raise InvalidNotationError(
                "a bid request holds 'own' (17 ids) and 'bid' (0-2 earlier bids of 0..3)"
            )
        seat = len(bids)
        # paiju's bidding deal: seat i holds hands[i]; the face-down kitty lies in hands[0]
        known: list[set[int]] = [set(), set(), set()]
        known[seat] = set(own)
        hands = spread_cards(known, HAND_SIZES, derive_seed(self.seed, turn))
        kitty = [c for c in hands[0] if c not in own][:3]
        state = self.bid_game.new_state_from_deal(
            Deal([cards_text(h) for h in hands], kitty=cards_text(kitty))
        )
        for j, b in enumerate(bids):
            if state.phase != "bidding":
                raise IllegalMoveError(f"request {turn - 1} bid[{j - 1}]: a bid of 3 ended the bidding")
            if Bid(b) not in state.legal_actions():
                raise IllegalMoveError(
                    f"request {turn - 1} bid[{j}]: a bid of {b} after {max(bids[:j])} "
                    "(a seat passes with 0 or bids more than the highest bid)"
                )
            state.apply(Bid(b))
        if state.phase != "bidding":
            raise IllegalMoveError(
                f"request {turn - 1} bid[{len(bids) - 1}]: a bid of 3 ended the bidding: no bid to answer"
            )
        choice = self.agent.act(state.observation(seat), state.legal_actions())
        return int(choice.value) if isinstance(choice, Bid) else 0

    def _play(self, requests: list[dict[str, Any]], responses: list[Any]) -> list[int]:
        view = _play_view(requests, responses)
        state = self._replayed(view)
        mine = set(view.own) - {c for s, ids in view.plays if s == view.seat for c in ids}
        if state is None:
            return self._fallback(view, mine)
        legal = [m for m in state.legal_moves() if _judge_ok(state, m)]
        if not legal:
            return self._fallback(view, mine)
        choice = self.agent.act(state.observation(view.seat), legal)
        if not isinstance(choice, Move) or choice == PASS:
            return []
        return pick_cards(mine, choice.counts)

    def _replayed(self, view: PlayView) -> DouDizhuState | None:
        known: list[set[int]] = [set(), set(), set()]
        known[view.seat] |= set(view.own)
        known[0] |= set(view.kitty)
        for who, ids in view.plays:
            if who != view.seat:
                known[who] |= set(ids)
            elif not set(ids) <= set(view.own):
                raise InvalidNotationError(f"response {ids} plays cards the bot does not hold")
        hands = spread_cards(known, HAND_SIZES, derive_seed(self.seed, len(view.plays)))
        deal = Deal([cards_text(h) for h in hands], kitty=cards_text(view.kitty))
        state = self.play_game.new_state_from_deal(deal)
        for who, ids in view.plays:
            try:
                move = state.parse_move(cards_text(ids))
                if state.current_player() != who:
                    raise IllegalMoveError("out of turn")
                state.apply(move)
            except PaijuError:
                # a move paiju's rules do not have (a space shuttle): keep to safe answers
                self.note = f"cannot follow the game after {cards_text(ids)!r} by seat {who}"
                return None
        if state.current_player() != view.seat:
            raise InvalidNotationError(
                f"the history does not lead to this bot's turn (seat {view.seat} from the landlord)"
            )
        return state

    def _fallback(self, view: PlayView, mine: set[int]) -> list[int]:
        """Pass when following, else the lowest card: both are always accepted by the judge."""
        following = any(ids for _, ids in view.plays[-2:])
        return [] if following else [min(mine, key=lambda c: (card_level(c), c))]

    # ---- the process loop -------------------------------------------------------------------------
    def serve(self, stdin: IO[str], stdout: IO[str], keep_running: bool) -> None:
        """Answer one request (simple interaction) or every request until EOF (keep-running)."""
        text = read_input(stdin)
        if not text.strip():
            parse_input(text)  # raises: nothing to answer
        while text:
            requests, responses = parse_input(text)
            if len(requests) == 1 and not responses and self.requests and "requests" not in text:
                self.requests.append(requests[0])  # keep-running: just the new request
            else:
                self.requests, self.responses = list(requests), list(responses)
            answer = self.respond(self.requests, self.responses)
            self.responses.append(answer)
            out: dict[str, Any] = {"response": answer}
            if self.note:
                out["debug"] = self.note[:1000]
            stdout.write(json.dumps(out, separators=(",", ":")) + "\n")
            if not keep_running:
                stdout.flush()
                return
            stdout.write(KEEP_RUNNING + "\n")
            stdout.flush()
            text = read_input(stdin)


def read_input(stdin: IO[str]) -> str:
    """One input, without waiting for end of file (the judge may keep standard input open).

    JSON mode is one line; the simple format is a line ``n`` then ``2n - 1`` lines. Blank
    lines before it are skipped; a first line that is not complete JSON (pretty-printed by
    hand) is completed from the rest of the input.
    """
    try:
        line = stdin.readline()
        while line and not line.strip():
            line = stdin.readline()
        if _is_count(line):
            return line + "".join(stdin.readline() for _ in range(2 * int(line) - 1))
        try:
            json.loads(line or "null")
        except json.JSONDecodeError:
            return line + stdin.read()
    except UnicodeDecodeError as err:  # a strict UTF-8 standard input (a UTF-8 locale)
        raise InvalidNotationError(f"input is not UTF-8 ({err.reason})") from None
    return line


def _judge_ok(state: DouDizhuState, move: Move) -> bool:
    beat = state.to_beat
    return judge_accepts(None if beat is None else beat.counts, move.counts)
