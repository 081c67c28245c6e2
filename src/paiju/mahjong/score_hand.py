"""Score a finished Taiwan mahjong hand as a player describes it: ``paiju mahjong score``.

A hand is given as the concealed tiles *before* the winning tile, the melds on the table, the
winning tile, the flags of how it was won, the seats (winner, dealer, discarder), the
prevailing wind, the dealer's streak (連莊) and the flowers. :func:`score_hand` checks it,
scores it with :func:`paiju.mahjong.scoring.score_win` (every tai line, best reading) and
settles it with :func:`paiju.mahjong.scoring.payments` (the one payer rule), so the tool and
the engine cannot disagree. The notation (``docs/mahjong-score.md``):

* melds, separated by spaces or commas: ``123m`` chow, ``555p`` pung, ``7777s`` exposed kong
  (明槓), ``7777s+`` added kong (加槓), ``[7777s]`` concealed kong (暗槓);
* flags, separated by commas: ``self-draw``, ``robbing-kong``, ``kong-bloom``, ``last-tile``,
  ``last-discard``, ``heaven``, ``earth``, ``human``, ``heaven-ready``, ``earth-ready`` (or
  their Chinese names 自摸, 搶槓, 槓上開花, 海底撈月, 河底撈魚, 天胡, 地胡, 人胡, 天聽, 地聽);
* flowers: ``1f``..``8f`` = 春夏秋冬梅蘭竹菊, e.g. ``15f``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from paiju.core.errors import IllegalMoveError, InvalidNotationError
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.scoring import (
    PATTERN_ENGLISH,
    Payment,
    Score,
    WinContext,
    payments,
    score_win,
)
from paiju.mahjong.tiles import (
    COPIES,
    FLOWER_BASE,
    FLOWER_CHINESE,
    NUM_KINDS,
    Meld,
    MeldType,
    flower_name,
    format_counts,
    parse_kinds,
    parse_wall_kinds,
    tile_name,
    to_counts,
)

HAND_TILES = 17
"""A winning hand: 5 sets + a pair, a kong counting as a set of three."""
NUM_SEATS = 4

FLAGS: tuple[str, ...] = (
    "self-draw",
    "robbing-kong",
    "kong-bloom",
    "last-tile",
    "last-discard",
    "heaven",
    "earth",
    "human",
    "heaven-ready",
    "earth-ready",
)
"""Win flags in canonical order (:func:`format_flags` writes them so)."""

FLAG_CHINESE: dict[str, str] = {
    "self-draw": "自摸",
    "robbing-kong": "搶槓",
    "kong-bloom": "槓上開花",
    "last-tile": "海底撈月",
    "last-discard": "河底撈魚",
    "heaven": "天胡",
    "earth": "地胡",
    "human": "人胡",
    "heaven-ready": "天聽",
    "earth-ready": "地聽",
}
_FLAG_OF = {**{f: f for f in FLAGS}, **{c: f for f, c in FLAG_CHINESE.items()}}

_MELD = re.compile(r"^(\[)?([1-9]{3,4})([mpsz])(\])?(\+)?$")


# ---------------------------------------------------------------------------------------------
# Notation
# ---------------------------------------------------------------------------------------------


def parse_meld(token: str) -> Meld:
    """One meld: ``123m`` chow, ``555p`` pung, ``7777s`` kong, ``7777s+`` added kong,
    ``[7777s]`` concealed kong."""
    m = _MELD.match(token.strip())
    if m is None:
        raise InvalidNotationError(
            f"invalid meld {token!r}: write 123m (chow), 555p (pung), 7777s (kong), "
            "7777s+ (added kong) or [7777s] (concealed kong)"
        )
    opened, digits, suit, closed, added = m.groups()
    kinds = parse_kinds(digits + suit)
    if bool(opened) != bool(closed):
        raise InvalidNotationError(f"invalid meld {token!r}: unbalanced brackets")
    if len(set(kinds)) == 1:
        if len(kinds) == 4:
            if opened and added:
                raise InvalidNotationError(f"invalid meld {token!r}: a kong is concealed [..] or added +")
            kind = MeldType.EXPOSED_KONG
            if opened or added:
                kind = MeldType.CONCEALED_KONG if opened else MeldType.ADDED_KONG
            return Meld(kind, kinds[0])
        if not (opened or added):
            return Meld(MeldType.PUNG, kinds[0])
        raise InvalidNotationError(f"invalid meld {token!r}: [..] and + mark kongs of four tiles")
    s = sorted(kinds)
    chow = len(s) == 3 and s[0] < 27 and s[0] % 9 <= 6 and s == [s[0], s[0] + 1, s[0] + 2]
    if chow and not (opened or added):
        return Meld(MeldType.CHOW, s[0])
    raise InvalidNotationError(
        f"invalid meld {token!r}: not a chow (three consecutive suited tiles), pung or kong"
    )


def format_meld(meld: Meld) -> str:
    """Canonical notation of one meld (inverse of :func:`parse_meld`)."""
    text = format_counts(to_counts(meld.kinds()))
    if meld.type == MeldType.CONCEALED_KONG:
        return f"[{text}]"
    if meld.type == MeldType.ADDED_KONG:
        return text + "+"
    return text


def parse_melds(text: str) -> tuple[Meld, ...]:
    """Melds separated by spaces or commas; an empty text is no melds."""
    return tuple(parse_meld(t) for t in re.split(r"[\s,]+", text.strip()) if t)


def format_melds(melds: Iterable[Meld]) -> str:
    return " ".join(format_meld(m) for m in melds)


def parse_flags(text: str) -> frozenset[str]:
    """Win flags separated by commas (English or Chinese names, see :data:`FLAGS`)."""
    out: set[str] = set()
    for raw in re.split(r"[\s,]+", text.strip()):
        if not raw:
            continue
        flag = _FLAG_OF.get(raw.lower() if raw.isascii() else raw)
        if flag is None:
            raise InvalidNotationError(f"unknown flag {raw!r}; flags: {', '.join(FLAGS)}")
        if flag in out:
            raise InvalidNotationError(f"flag {flag} given twice")
        out.add(flag)
    return frozenset(out)


def format_flags(flags: Iterable[str]) -> str:
    given = set(flags)
    unknown = given - set(FLAGS)
    if unknown:
        raise InvalidNotationError(f"unknown flags {sorted(unknown)}; flags: {', '.join(FLAGS)}")
    return ",".join(f for f in FLAGS if f in given)


def parse_flowers(text: str) -> tuple[int, ...]:
    """Flowers ``1f``..``8f`` (春夏秋冬梅蘭竹菊) as 0..7, sorted; each at most once."""
    entries = parse_wall_kinds(text, flowers=True)
    if any(e < FLOWER_BASE for e in entries):
        raise InvalidNotationError(f"invalid flowers {text!r}: only 1f..8f (春夏秋冬梅蘭竹菊) are flowers")
    return tuple(sorted(e - FLOWER_BASE for e in entries))


def format_flowers(flowers: Iterable[int]) -> str:
    return "".join(flower_name(f) for f in sorted(flowers))


# ---------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoredHand:
    """A scored hand: its tai lines, total and the payment of each paying seat."""

    score: Score
    """The best reading (hand tai, dealer tai excluded)."""
    payments: tuple[Payment, ...]
    winner: int
    dealer: int
    discarder: int | None
    continuation: int
    config: MahjongConfig

    @property
    def lines(self) -> tuple[tuple[str, int], ...]:
        """The hand's tai lines (莊家 / 連莊 are per payment, see :attr:`payments`)."""
        return self.score.patterns

    @property
    def total(self) -> int:
        """Hand tai, dealer tai excluded."""
        return self.score.tai

    def as_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "dealer": self.dealer,
            "discarder": self.discarder,
            "continuation": self.continuation,
            "tai": self.total,
            "lines": [
                {"pattern": n, "english": PATTERN_ENGLISH.get(n, n), "tai": v} for n, v in self.lines
            ],
            "reading": self.score.reading,
            "decomposition": str(self.score.decomposition) if self.score.decomposition else None,
            "payments": [
                {"payer": p.payer, "tai": p.tai, "amount": p.amount, "lines": [list(x) for x in p.lines]}
                for p in self.payments
            ],
            "base": self.config.base,
            "per_tai": self.config.per_tai,
        }


def score_hand(
    concealed: str | Sequence[int],
    melds: str | Sequence[Meld] = (),
    *,
    winning_tile: str | int,
    flags: str | Iterable[str] = (),
    seat: int = 0,
    dealer: int | None = None,
    discarder: int | None = None,
    round_wind: int | None = None,
    continuation: int | None = None,
    flowers: str | Sequence[int] = (),
    config: MahjongConfig | None = None,
) -> ScoredHand:
    """Score a finished hand (see the module docstring for the notation).

    ``concealed`` are the concealed tiles before the winning tile (notation or plain kinds);
    ``seat`` the winner, ``dealer`` the dealer's seat (the dealer is 東, so the seat wind is
    ``(seat - dealer) % 4``), ``discarder`` the seat whose discard (or robbed kong) won, None
    for a self-draw. ``dealer``, ``round_wind`` and ``continuation`` default to the config's.
    Raises :class:`~paiju.core.errors.PaijuError` naming what is wrong with the hand.
    """
    cfg = config or MahjongConfig()
    hand = parse_kinds(concealed) if isinstance(concealed, str) else list(concealed)
    meld_list = parse_melds(melds) if isinstance(melds, str) else tuple(melds)
    w = _one_tile(winning_tile)
    flag_set = parse_flags(flags) if isinstance(flags, str) else frozenset(parse_flags(",".join(flags)))
    flower_list = parse_flowers(flowers) if isinstance(flowers, str) else tuple(sorted(flowers))
    dealer = cfg.dealer if dealer is None else dealer
    round_wind = cfg.round_wind if round_wind is None else round_wind
    continuation = cfg.continuation if continuation is None else continuation
    _check_tiles(hand, meld_list, w)
    _check_flowers(flower_list, cfg)
    _check_flags(flag_set, meld_list, seat == dealer, cfg)
    _check_seats(seat, dealer, discarder, round_wind, continuation, "self-draw" in flag_set)
    counts = to_counts(hand)
    counts[w] += 1
    ctx = WinContext(
        winning_tile=None if "heaven" in flag_set else w,
        self_draw="self-draw" in flag_set,
        seat_wind=(seat - dealer) % NUM_SEATS,
        round_wind=round_wind,
        robbing_kong="robbing-kong" in flag_set,
        kong_bloom="kong-bloom" in flag_set,
        last_tile="last-tile" in flag_set,
        last_discard="last-discard" in flag_set,
        heaven="heaven" in flag_set,
        earth="earth" in flag_set,
        human="human" in flag_set,
        earth_ready="earth-ready" in flag_set,
        heaven_ready="heaven-ready" in flag_set,
        flowers=flower_list,
    )
    score = score_win(counts, meld_list, ctx, cfg)
    pays = payments(seat, score, discarder=discarder, dealer=dealer, continuation=continuation, config=cfg)
    return ScoredHand(score, tuple(pays), seat, dealer, discarder, continuation, cfg)


def _one_tile(tile: str | int) -> int:
    if not isinstance(tile, str):
        return tile
    kinds = parse_kinds(tile)
    if len(kinds) != 1:
        raise InvalidNotationError(f"winning tile {tile!r}: give one tile, e.g. 5m")
    return kinds[0]


def _check_tiles(hand: Sequence[int], melds: Sequence[Meld], w: int) -> None:
    """Tile count (16 before the win, a kong counting 3) and at most four copies of a kind."""
    if any(not 0 <= k < NUM_KINDS for k in [*hand, w]):
        raise InvalidNotationError(f"tile kinds are 0..{NUM_KINDS - 1}")
    n = len(hand) + 1 + 3 * len(melds)
    if n != HAND_TILES:
        raise IllegalMoveError(
            f"wrong tile count: {len(hand)} concealed + the winning tile + {len(melds)} meld(s) × 3 = {n}; "
            f"a winning hand has {HAND_TILES} (a kong counts as 3)"
        )
    all_counts = to_counts(hand)
    all_counts[w] += 1
    for m in melds:
        for k in m.kinds():
            all_counts[k] += 1
    over = [tile_name(k) for k in range(NUM_KINDS) if all_counts[k] > COPIES]
    if over:
        raise IllegalMoveError(
            f"more than {COPIES} copies of {', '.join(over)} in the hand, melds and winning tile"
        )


def _check_seats(
    seat: int, dealer: int, discarder: int | None, round_wind: int, continuation: int, self_draw: bool
) -> None:
    for name, v in (("seat", seat), ("dealer", dealer), ("round wind", round_wind)):
        if v not in range(NUM_SEATS):
            raise IllegalMoveError(f"{name} {v} must be 0..3")
    if continuation < 0:
        raise IllegalMoveError(f"streak (連莊) {continuation} must be 0 or more")
    if self_draw and discarder is not None:
        raise IllegalMoveError(f"a self-draw has no discarder (got discarder {discarder})")
    if not self_draw:
        if discarder is None:
            raise IllegalMoveError("a win on a discard needs the discarder's seat (or flag self-draw)")
        if discarder not in range(NUM_SEATS) or discarder == seat:
            raise IllegalMoveError(f"discarder {discarder} must be a seat 0..3 other than the winner {seat}")


_NEEDS_SELF_DRAW = ("kong-bloom", "last-tile", "heaven", "earth")
_NEEDS_DISCARD = ("robbing-kong", "last-discard", "human")
_EXCLUSIVE = (
    ("last-tile", "kong-bloom"),
    ("robbing-kong", "last-discard"),
    ("heaven", "earth"),
    ("heaven", "human"),
    ("earth", "human"),
)


def _check_flags(
    flags: frozenset[str], melds: Sequence[Meld], winner_deals: bool, cfg: MahjongConfig
) -> None:
    """Flags that contradict each other, the seats, the melds or the rule set."""
    self_draw = "self-draw" in flags
    for f in _NEEDS_SELF_DRAW:
        if f in flags and not self_draw:
            raise IllegalMoveError(f"flag {f} ({FLAG_CHINESE[f]}) is a self-draw: add the flag self-draw")
    for f in _NEEDS_DISCARD:
        if f in flags and self_draw:
            raise IllegalMoveError(f"flag {f} ({FLAG_CHINESE[f]}) is a win on another's tile, not self-drawn")
    for a, b in _EXCLUSIVE:
        if a in flags and b in flags:
            raise IllegalMoveError(f"flags {a} and {b} contradict each other")
    first = [f for f in ("heaven", "earth", "human") if f in flags]
    if first and melds:
        raise IllegalMoveError(f"flag {first[0]} ({FLAG_CHINESE[first[0]]}) is a win with no melds")
    if "heaven" in flags and not winner_deals:
        raise IllegalMoveError("flag heaven (天胡) is the dealer's win: the winner must be the dealer")
    for f in ("earth", "human"):
        if f in flags and winner_deals:
            raise IllegalMoveError(f"flag {f} ({FLAG_CHINESE[f]}) is a non-dealer's win; the winner deals")
    if "kong-bloom" in flags and not cfg.flowers and not any(m.type.is_kong for m in melds):
        raise IllegalMoveError("flag kong-bloom (槓上開花) needs a kong among the melds")
    for f, option in (("heaven-ready", "heaven_ready"), ("earth-ready", "earth_ready")):
        if f in flags and not getattr(cfg, option):
            raise IllegalMoveError(
                f"flag {f} ({FLAG_CHINESE[f]}) is not in this rule set (use --option {option}=true)"
            )


def _check_flowers(flowers: Sequence[int], cfg: MahjongConfig) -> None:
    if flowers and not cfg.flowers:
        raise IllegalMoveError("flowers given while the rule set has none (use --option flowers=true)")
    if len(set(flowers)) != len(flowers) or any(not 0 <= f < len(FLOWER_CHINESE) for f in flowers):
        raise InvalidNotationError("each flower 1f..8f at most once")
    if len(flowers) == len(FLOWER_CHINESE):
        raise IllegalMoveError("all eight flowers is the flower win 八仙過海, not a hand this tool scores")


# ---------------------------------------------------------------------------------------------
# Advice: the Expectimax's values of each discard
# ---------------------------------------------------------------------------------------------

MAX_LEFT = NUM_KINDS * COPIES - 16 * NUM_SEATS - 1
"""Most live tiles a hand can have when a discard is due (136 less the 65 dealt)."""


@dataclass(frozen=True)
class DiscardAdvice:
    """One candidate discard: the Expectimax value and what the hand after it holds."""

    discard: int
    value: float
    """Points, by :meth:`~paiju.mahjong.agents.value.ValueExpectimaxAgent.discard_values`."""
    shanten: int
    """Shanten (向聽) after the discard, 0 = ready."""
    effective: dict[int, int]
    """Effective tiles (進張) after the discard: kind -> unseen copies."""
    win_probability: float
    """The leaf model's P(win before the wall ends) of the hand right after the discard."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "discard": tile_name(self.discard),
            "value": round(self.value, 1),
            "shanten": self.shanten,
            "effective": {tile_name(k): v for k, v in self.effective.items()},
            "effective_total": sum(self.effective.values()),
            "win_probability": round(self.win_probability, 4),
        }


def advise(
    hand: str | Sequence[int],
    melds: str | Sequence[Meld] = (),
    *,
    seen: str | Sequence[int] = (),
    left: int = 40,
    depth: int = 2,
    seat_wind: int = 0,
    round_wind: int = 0,
    config: MahjongConfig | None = None,
) -> list[DiscardAdvice]:
    """Every distinct discard of a hand whose discard is due, best (highest value) first.

    ``hand`` the concealed tiles (17 less 3 per meld), ``seen`` the tiles gone elsewhere
    (others' discards and melds), ``left`` the live tiles still to draw. The values are the
    default Expectimax's (:class:`~paiju.mahjong.agents.value.ValueExpectimaxAgent`) at
    ``depth``, every discard expanded (alpha 1) and without defence: the advice knows which
    tiles are gone, not who discarded them.
    """
    cfg = config or MahjongConfig()
    obs = advice_observation(hand, melds, seen=seen, left=left, seat_wind=seat_wind,
                             round_wind=round_wind, config=cfg)
    return advise_position(obs, depth=depth)


@dataclass(frozen=True)
class SelfDrawWin:
    """A hand with a discard due that is already complete: a win by self-draw (自摸)."""

    drawn: int
    """The drawn tile of the best reading (which tile was drawn last changes the wait tai)."""
    scored: ScoredHand
    tai_range: tuple[int, int]
    """Fewest and most hand tai over the tiles that could have been drawn last."""

    def as_dict(self) -> dict[str, Any]:
        return {"drawn": tile_name(self.drawn), "tai_range": list(self.tai_range), **self.scored.as_dict()}


def self_draw_win(
    hand: str | Sequence[int],
    melds: str | Sequence[Meld] = (),
    *,
    seat_wind: int = 0,
    round_wind: int = 0,
    config: MahjongConfig | None = None,
) -> SelfDrawWin | None:
    """``hand`` (17 less 3 per meld, a discard due) read as a self-drawn win, or ``None`` when it
    is not a winning shape or scores below ``min_tai`` (then it must discard).

    The hand does not say which tile came last, so every tile it holds is tried as the drawn
    one and the best reading is kept (:attr:`SelfDrawWin.tai_range` gives the spread). The
    winner sits at ``seat_wind`` from the dealer, as in :func:`advice_observation`.
    """
    cfg = config or MahjongConfig()
    kinds = parse_kinds(hand) if isinstance(hand, str) else list(hand)
    meld_list = parse_melds(melds) if isinstance(melds, str) else tuple(melds)
    advice_observation(kinds, meld_list, seat_wind=seat_wind, round_wind=round_wind, config=cfg)
    readings: list[tuple[int, ScoredHand]] = []
    for k in sorted(set(kinds)):
        rest = list(kinds)
        rest.remove(k)
        try:
            scored = score_hand(
                rest, meld_list, winning_tile=k, flags=("self-draw",), seat=0,
                dealer=(-seat_wind) % NUM_SEATS, round_wind=round_wind, config=cfg,
            )
        except IllegalMoveError:  # not a winning shape: the same whichever tile came last
            return None
        readings.append((k, scored))
    drawn, best = max(readings, key=lambda r: (r[1].total, sum(p.amount for p in r[1].payments), -r[0]))
    if best.total < cfg.min_tai:
        return None
    tai = [s.total for _, s in readings]
    return SelfDrawWin(drawn, best, (min(tai), max(tai)))


def advise_position(observation: Any, *, depth: int = 2) -> list[DiscardAdvice]:
    """:func:`advise` for a player's own observation (a
    :class:`~paiju.mahjong.game.MahjongObservation` with a discard due): what the web app's
    hint shows for the seat at the table, by the same search as :func:`advise`."""
    from paiju.mahjong.agents.value import HandValueEvaluator, LeafState, ValueExpectimaxAgent
    from paiju.mahjong.shanten import discard_options

    obs = observation
    if sum(obs.hand) % 3 != 2:
        raise IllegalMoveError(
            f"advice is for a hand whose discard is due, not {sum(obs.hand)} concealed tiles"
        )
    evaluator = HandValueEvaluator()
    agent = ValueExpectimaxAgent(depth=depth, alpha=1.0, defence=False, leaf_evaluator=evaluator)
    values = agent.discard_values(obs)
    unseen = obs.unseen_counts()
    options = {o.discard: o for o in discard_options(list(obs.hand), unseen)}
    from paiju.mahjong.agents._hand import draws_left

    own = tuple(obs.melds[obs.player])
    kinds = sorted(values)
    leaves = []
    for k in kinds:
        after = list(obs.hand)
        after[k] -= 1
        leaves.append(LeafState(tuple(after), own, tuple(unseen), draws_left(obs), (k,), ()))
    probs = evaluator.win_probability(obs, leaves)
    out = [
        DiscardAdvice(k, values[k], options[k].shanten, options[k].effective, float(p))
        for k, p in zip(kinds, probs, strict=True)
    ]
    return sorted(out, key=lambda a: (-a.value, a.shanten, -sum(a.effective.values()), a.discard))


def advice_observation(
    hand: str | Sequence[int],
    melds: str | Sequence[Meld] = (),
    *,
    seen: str | Sequence[int] = (),
    left: int = 40,
    seat_wind: int = 0,
    round_wind: int = 0,
    config: MahjongConfig | None = None,
) -> Any:
    """The observation of seat 0 on its turn with ``hand``: the seen tiles as uncalled discards
    spread over the other three seats. Raises naming a bad count, a 5th copy or a bad ``left``."""
    from paiju.mahjong.game import DrawKind, MahjongObservation, Phase

    cfg = config or MahjongConfig()
    kinds = parse_kinds(hand) if isinstance(hand, str) else list(hand)
    meld_list = parse_melds(melds) if isinstance(melds, str) else tuple(melds)
    seen_kinds = parse_kinds(seen) if isinstance(seen, str) else list(seen)
    n = len(kinds) + 3 * len(meld_list)
    if n != HAND_TILES:
        raise IllegalMoveError(
            f"wrong tile count: {len(kinds)} concealed + {len(meld_list)} meld(s) × 3 = {n}; "
            f"advice is for a hand whose discard is due ({HAND_TILES}, a kong counting 3)"
        )
    if not 0 <= left <= MAX_LEFT:
        raise IllegalMoveError(f"--left {left} must be 0..{MAX_LEFT} (live tiles still to draw)")
    for name, v in (("seat wind", seat_wind), ("round wind", round_wind)):
        if v not in range(NUM_SEATS):
            raise IllegalMoveError(f"{name} {v} must be 0..3")
    total = to_counts([*kinds, *seen_kinds])
    for m in meld_list:
        for k in m.kinds():
            total[k] += 1
    over = [tile_name(k) for k in range(NUM_KINDS) if total[k] > COPIES]
    if over:
        raise IllegalMoveError(f"more than {COPIES} copies of {', '.join(over)} in the hand, melds and seen")
    rivers: list[list[tuple[int, int]]] = [[], [], [], []]
    for i, k in enumerate(seen_kinds):
        rivers[1 + i % 3].append((k, -1))
    return MahjongObservation(
        player=0, phase=Phase.TURN, to_act=0, turn=0, hand=tuple(to_counts(kinds)), drawn=-1,
        draw_kind=DrawKind.NONE, after_claim=False, window_tile=-1, window_from=-1,
        melds=(meld_list, (), (), ()), discards=tuple(tuple(r) for r in rivers),
        hand_sizes=(len(kinds), 16, 16, 16), live_tiles=left, replacements_drawn=0,
        no_calls=not meld_list, lock=0, own_claim=-1, earth_ready=0,
        dealer=(-seat_wind) % NUM_SEATS, continuation=0, round_wind=round_wind, hand_number=0,
        dealer_passes=0, scores=(0, 0, 0, 0), last_result=None, config=cfg,
        discards_drawn=tuple(tuple(False for _ in r) for r in rivers),
    )
