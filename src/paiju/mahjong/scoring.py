"""Winning-hand detection, decomposition and tai scoring of Taiwan 16-tile mahjong.

A winning hand is 5 sets (chow / pung / kong) + 1 pair (``docs/mahjong-rules.md`` §5). The concealed
part is given as a 34-long count vector *including the winning tile*; exposed sets and
concealed kongs as :class:`~paiju.mahjong.tiles.Meld` values.

Scoring follows ``docs/mahjong-rules.md`` T1-T3:

* every pattern of the T1 table with the values of :class:`~paiju.mahjong.config.TaiTable`;
* the non-repeat principle (T2): a pattern necessarily implied by a higher one is not added;
* the best arrangement: every decomposition of the concealed part and every reading of the
  winning tile (which set or the pair it completed) is scored, and the maximum is kept;
* 獨聽 is a property of the hand before the winning tile: exactly one tile kind completes it
  by shape (a kind the player already holds all four of cannot, so it does not count).

The functions here are pure and work on plain ints, so search code (Expectimax) can
call :func:`is_complete` and :func:`score_win` directly to value a win by its real score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from paiju.core.errors import IllegalMoveError
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.tiles import NUM_KINDS, Meld, MeldType, format_counts, tile_name

DEFAULT_CONFIG = MahjongConfig()

SET_CHOW = 0
SET_PUNG = 1

PATTERN_ENGLISH: dict[str, str] = {
    "莊家": "dealer",
    "連莊": "dealer continuation (連N拉N)",
    "門清": "concealed hand",
    "自摸": "self-draw",
    "門清自摸": "concealed self-draw (不求)",
    "門風刻": "seat-wind pung",
    "圈風刻": "round-wind pung",
    "三元牌": "dragon pung",
    "獨聽": "single wait",
    "搶槓": "robbing a kong",
    "槓上開花": "win on a kong replacement",
    "海底撈月": "self-draw on the last tile",
    "河底撈魚": "win on the last discard",
    "半求": "all sets exposed, self-drawn",
    "平胡": "all chows",
    "全求人": "all sets exposed, won on a discard",
    "三暗刻": "three concealed pungs",
    "四暗刻": "four concealed pungs",
    "五暗刻": "five concealed pungs",
    "碰碰胡": "all pungs",
    "混一色": "half flush",
    "小三元": "little three dragons",
    "地聽": "ready after the first discard",
    "清一色": "full flush",
    "大三元": "big three dragons",
    "小四喜": "little four winds",
    "人胡": "human win (first go-around, on a discard)",
    "字一色": "all honours",
    "大四喜": "big four winds",
    "地胡": "earthly win (first self-draw)",
    "天胡": "heavenly win (dealer's initial tiles)",
    "無字": "no honours",
    "斷么九": "all simples",
    "四槓": "four kongs",
    "明槓": "exposed kong",
    "暗槓": "concealed kong",
    "正花": "own-seat flower",
    "花槓": "a full group of four flowers",
    "七搶一": "seven flowers robbing the eighth",
    "八仙過海": "all eight flowers",
    "天聽": "ready with the dealt tiles",
    "嚦咕嚦咕": "seven pairs and a pung",
}
"""English gloss of every pattern name used in a :class:`Score` breakdown."""


# ---------------------------------------------------------------------------------------------
# Complete-hand test and decompositions
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)
def _suit_complete(key: tuple[int, ...], with_pair: bool) -> bool:
    """Can the 9 counts of one suit be split into sets (plus exactly one pair if ``with_pair``)?"""
    i = 0
    while i < 9 and key[i] == 0:
        i += 1
    if i == 9:
        return not with_pair
    c = list(key)
    if c[i] >= 3:
        c[i] -= 3
        if _suit_complete(tuple(c), with_pair):
            return True
        c[i] += 3
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        if _suit_complete(tuple(c), with_pair):
            return True
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
    if with_pair and c[i] >= 2:
        c[i] -= 2
        if _suit_complete(tuple(c), False):
            return True
    return False


def is_complete(counts: Sequence[int]) -> bool:
    """True when the concealed counts split into sets plus exactly one pair (3n+2 tiles).

    Fast path used by the engine for every win check: the suits are tested independently,
    each through a cache.
    """
    pair_group = -1
    total = 0
    for g in range(3):
        s = sum(counts[g * 9 : g * 9 + 9])
        total += s
        r = s % 3
        if r == 1:
            return False
        if r == 2:
            if pair_group >= 0:
                return False
            pair_group = g
    for k in range(27, 34):
        c = counts[k]
        total += c
        if c == 1 or c == 4:
            return False
        if c == 2:
            if pair_group >= 0:
                return False
            pair_group = 3
    if pair_group < 0 or total % 3 != 2:
        return False
    for g in range(3):
        part = tuple(counts[g * 9 : g * 9 + 9])
        if any(part) and not _suit_complete(part, g == pair_group):
            return False
    return True


@dataclass(frozen=True, order=True)
class Decomposition:
    """One way to read a complete concealed part: the pair and the sets (``(SET_*, kind)``)."""

    pair: int
    sets: tuple[tuple[int, int], ...]

    def __str__(self) -> str:
        parts = [f"{tile_name(self.pair)[0] * 2}{tile_name(self.pair)[1]}"]
        for kind, t in self.sets:
            if kind == SET_PUNG:
                parts.append(f"{tile_name(t)[0] * 3}{tile_name(t)[1]}")
            else:
                parts.append(f"{tile_name(t)[0]}{tile_name(t + 1)[0]}{tile_name(t + 2)}")
        return " ".join(parts)


def decompositions(counts: Sequence[int]) -> list[Decomposition]:
    """Every distinct split of a concealed part into sets + one pair (empty if not complete)."""
    if not is_complete(counts):
        return []
    found: set[Decomposition] = set()
    c = list(counts)
    sets: list[tuple[int, int]] = []

    def rec(i: int, pair: int) -> None:
        while i < NUM_KINDS and c[i] == 0:
            i += 1
        if i == NUM_KINDS:
            if pair >= 0:
                found.add(Decomposition(pair, tuple(sorted(sets))))
            return
        if c[i] >= 3:
            c[i] -= 3
            sets.append((SET_PUNG, i))
            rec(i, pair)
            sets.pop()
            c[i] += 3
        if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            sets.append((SET_CHOW, i))
            rec(i, pair)
            sets.pop()
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1
        if pair < 0 and c[i] >= 2:
            c[i] -= 2
            rec(i, i)
            c[i] += 2

    rec(0, -1)
    return sorted(found)


def waits(counts: Sequence[int], held: Sequence[int] | None = None) -> list[int]:
    """Tile kinds that complete a 3n+1 concealed part (聽牌 waits), by shape.

    A kind the player already holds all four of (concealed ``counts`` plus ``held``, e.g.
    the tiles of his melds) cannot be drawn and is not a wait.
    """
    if sum(counts) % 3 != 1:
        raise IllegalMoveError(
            f"waits need a 3n+1 concealed part, got {sum(counts)} tiles ({format_counts(counts)})"
        )
    c = list(counts)
    out = []
    for k in range(NUM_KINDS):
        own = c[k] + (held[k] if held is not None else 0)
        if own >= 4:
            continue
        # only kinds next to (or equal to) a held tile can complete a set or the pair
        if c[k] == 0:
            if k >= 27:
                continue
            r = k % 9
            near = (
                (r >= 1 and c[k - 1])
                or (r >= 2 and c[k - 2])
                or (r <= 7 and c[k + 1])
                or (r <= 6 and c[k + 2])
            )
            if not near:
                continue
        c[k] += 1
        if is_complete(c):
            out.append(k)
        c[k] -= 1
    return out


# ---------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WinContext:
    """Circumstances of a win that the tiles alone do not show (the engine fills these in)."""

    winning_tile: int | None
    """The tile that completed the hand; None only for 天胡 (the dealer's initial 17 tiles)."""
    self_draw: bool
    seat_wind: int = 0
    """0 = 東 .. 3 = 北 (the dealer is always 東)."""
    round_wind: int = 0
    robbing_kong: bool = False
    kong_bloom: bool = False
    """Self-drawn on a kong replacement tile (槓上開花)."""
    last_tile: bool = False
    """Self-drawn on the last drawable tile (海底撈月)."""
    last_discard: bool = False
    """Won on the last discard of the hand (河底撈魚)."""
    heaven: bool = False
    earth: bool = False
    human: bool = False
    earth_ready: bool = False
    """The winner has been ready since his first discard (地聽), tracked by the engine."""
    heaven_ready: bool = False
    """The winner has been ready since the deal (天聽), tracked by the engine."""
    flowers: tuple[int, ...] = ()
    """The winner's revealed flowers, 0..7 = 春夏秋冬梅蘭竹菊 (only with ``MahjongConfig.flowers``)."""


@dataclass(frozen=True)
class Score:
    """The best-scoring reading of a win: its patterns and the arrangement that gives them."""

    tai: int
    """Hand tai (dealer tai excluded: those depend on who pays, see :func:`payment_tai`)."""
    patterns: tuple[tuple[str, int], ...]
    """Readable breakdown: (pattern name, tai), in table order; names in :data:`PATTERN_ENGLISH`."""
    decomposition: Decomposition | None
    reading: str
    """How the winning tile is read: 'pair', 'pung', 'chow-two-sided', 'chow-edge', 'chow-closed'
    or 'none' (天胡)."""

    def breakdown(
        self, *, dealer_involved: bool = False, continuation: int = 0, config: MahjongConfig = DEFAULT_CONFIG
    ) -> list[tuple[str, int]]:
        """The patterns plus, when the dealer is winner or payer, the 莊家 and 連莊 lines."""
        out = list(self.patterns)
        if dealer_involved:
            if config.tai.dealer:
                out.append(("莊家", config.tai.dealer))
            if continuation and config.tai.continuation_per_hand:
                out.append(("連莊", config.tai.continuation_per_hand * continuation))
        return out


def _chow_wait(s: int, w: int) -> str:
    """Wait shape of winning tile ``w`` completing the chow that starts at ``s``."""
    if w == s + 1:
        return "chow-closed"
    if w == s:
        return "chow-edge" if s % 9 == 6 else "chow-two-sided"
    return "chow-edge" if s % 9 == 0 else "chow-two-sided"


class _HandFacts(NamedTuple):
    """What a win's tiles and melds show whatever the decomposition: computed once per win."""

    menqing: bool
    """門清: no set claimed from a discard (a concealed kong breaks it only if the config says so)."""
    exposed: int
    """Sets on the table other than concealed kongs (5 for 全求人 / 半求)."""
    single: bool
    """獨聽: exactly one kind completed the hand before the winning tile."""
    meld_chows: int
    kongs_exposed: int
    kongs_concealed: int
    honour_pungs: set[int]
    dragon_pungs: list[int]
    big_winds: bool
    small_winds: bool
    big_dragons: bool
    small_dragons: bool
    all_honours: bool
    full_flush: bool
    half_flush: bool
    has_honours: bool
    all_counts: list[int]
    """Counts of every tile of the hand, melds included."""


class _ReadingFacts(NamedTuple):
    """What one decomposition and one reading of the winning tile add to the hand facts."""

    concealed_pungs: int
    all_pungs: bool
    all_chows: bool
    """平胡's shape: five chows, no honours, a two-sided wait, won on a discard, not 獨聽."""


def score_win(
    concealed: Sequence[int],
    melds: Sequence[Meld],
    ctx: WinContext,
    config: MahjongConfig = DEFAULT_CONFIG,
) -> Score:
    """Score a winning hand: the maximum over every decomposition and winning-tile reading.

    ``concealed`` are the concealed counts *including* the winning tile; ``melds`` every set
    on the table for this player (concealed kongs included). Raises :class:`IllegalMoveError`
    when the tiles are not 5 sets + a pair.
    """
    if config.ligu and not melds and is_ligu(concealed):
        ligu = _score_ligu(concealed, ctx, config)
        if not is_complete(concealed):
            return ligu
        standard = _score_standard(concealed, melds, ctx, config)
        return ligu if ligu.tai > standard.tai else standard
    return _score_standard(concealed, melds, ctx, config)


def _all_chows_allowed(hand: _HandFacts, ctx: WinContext, config: MahjongConfig) -> bool:
    """The 平胡 conditions outside the shape and the wait, as the config's variant reads them."""
    if hand.has_honours and not config.all_chows_honour_pair:
        return False  # with five chows an honour can only be the pair
    if ctx.self_draw and not config.all_chows_self_draw:
        return False
    return not (config.flowers and config.all_chows_no_flowers and ctx.flowers)


def _score_standard(
    concealed: Sequence[int], melds: Sequence[Meld], ctx: WinContext, config: MahjongConfig
) -> Score:
    """The best reading of a 5-sets-and-a-pair win (see :func:`score_win`)."""
    decomps = _winning_decompositions(concealed, melds, ctx.winning_tile)
    hand = _hand_facts(concealed, melds, ctx.winning_tile, config)
    chows_allowed = _all_chows_allowed(hand, ctx, config)
    w = ctx.winning_tile
    best: Score | None = None
    for d in decomps:
        n_pungs_concealed_part = sum(1 for kind, _ in d.sets if kind == SET_PUNG)
        n_chows = hand.meld_chows + sum(1 for kind, _ in d.sets if kind == SET_CHOW)
        for reading in _winning_tile_readings(d, w):
            wait = _chow_wait(reading[1], w) if reading[0] == "chow" and w is not None else reading[0]
            concealed_pungs = n_pungs_concealed_part + hand.kongs_concealed
            if reading[0] == "pung" and not ctx.self_draw:
                concealed_pungs -= 1  # completed by the winning discard: not concealed
            all_chows = n_chows == 5 and chows_allowed and wait == "chow-two-sided" and not hand.single
            # positional: on this hot path a keyword NamedTuple call costs as much as a pattern group
            facts = _ReadingFacts(concealed_pungs, n_chows == 0, all_chows)
            pats = _patterns(hand, facts, ctx, config)
            tai = sum(v for _, v in pats)
            if best is None or tai > best.tai:
                best = Score(tai=tai, patterns=tuple(pats), decomposition=d, reading=wait)
    assert best is not None
    return best


def is_ligu(counts: Sequence[int]) -> bool:
    """嚦咕嚦咕's shape: 17 concealed tiles as seven pairs and one pung (four of a kind = two pairs)."""
    return sum(counts) == 17 and sorted(c for c in counts if c % 2) == [3]


def ligu_waits(counts: Sequence[int]) -> list[int]:
    """Kinds that complete a 16-tile concealed part into 嚦咕嚦咕 (no kind already held 4 times)."""
    c = list(counts)
    out = []
    for k in range(NUM_KINDS):
        if c[k] and c[k] < 4:
            c[k] += 1
            if is_ligu(c):
                out.append(k)
            c[k] -= 1
    return out


def _score_ligu(concealed: Sequence[int], ctx: WinContext, config: MahjongConfig) -> Score:
    """A 嚦咕嚦咕 win: its own tai plus the patterns that do not depend on sets (門清 / 自摸,
    the pung's wind or dragon tai, flushes, the wait and the circumstances, flowers)."""
    w = ctx.winning_tile
    if w is not None and concealed[w] == 0:
        raise IllegalMoveError(f"winning tile {tile_name(w)} is not in the hand {format_counts(concealed)}")
    hand = _hand_facts(concealed, [], w, config)
    single = False
    if w is not None:
        pre = list(concealed)
        pre[w] -= 1
        single = len(set(ligu_waits(pre)) | set(waits(pre))) == 1
    pung = next(k for k in range(NUM_KINDS) if concealed[k] == 3)
    # the one pung is the only set: four of a kind are two pairs, not a pung
    honours = {pung} if pung >= 27 else set()
    dragons = [pung] if pung >= 31 else []
    hand = hand._replace(
        single=single,
        honour_pungs=honours,
        dragon_pungs=dragons,
        big_winds=False,
        small_winds=False,
        big_dragons=False,
        small_dragons=False,
    )
    concealed_pungs = 0 if (w == pung and not ctx.self_draw) else 1
    facts = _ReadingFacts(concealed_pungs, False, False)
    pats = [("嚦咕嚦咕", config.tai.ligu), *_patterns(hand, facts, ctx, config)]
    pats = [p for p in pats if p[1]]
    return Score(tai=sum(v for _, v in pats), patterns=tuple(pats), decomposition=None, reading="ligu")


def score_flower_win(name: str, flowers: Sequence[int], config: MahjongConfig = DEFAULT_CONFIG) -> Score:
    """The score of a flower win, 八仙過海 or 七搶一: the pattern alone (it implies every flower
    tai; the tiles in hand are not a winning shape)."""
    tai = {"八仙過海": config.tai.eight_immortals, "七搶一": config.tai.seven_rob_one}
    if name not in tai:
        raise IllegalMoveError(f"{name!r} is not a flower win; flower wins: {', '.join(tai)}")
    pats: tuple[tuple[str, int], ...] = ((name, tai[name]),) if tai[name] else ()
    if not config.non_repeat:
        pats += tuple(_flower_lines(sorted(flowers), 0, config, non_repeat=False))
    return Score(tai=sum(v for _, v in pats), patterns=pats, decomposition=None, reading="flowers")


def _flower_lines(
    flowers: Sequence[int], seat_wind: int, config: MahjongConfig, *, non_repeat: bool
) -> list[tuple[str, int]]:
    """正花 per own-seat flower (春/梅 for 東 .. 冬/菊 for 北) and 花槓 per complete group."""
    t = config.tai
    out: list[tuple[str, int]] = []
    for group in (0, 1):
        held = [f for f in flowers if f // 4 == group]
        full = len(held) == 4
        if full:
            out.append(("花槓", t.flower_kong))
        if group * 4 + seat_wind in held and not (non_repeat and full):
            out.append(("正花", t.seat_flower))
    return out


def _winning_decompositions(
    concealed: Sequence[int], melds: Sequence[Meld], w: int | None
) -> list[Decomposition]:
    """The decompositions of a winning concealed part; raises when the hand is not a win."""
    if len(concealed) != NUM_KINDS:
        raise IllegalMoveError(f"concealed counts must have {NUM_KINDS} entries, got {len(concealed)}")
    n_sets = len(melds) + (sum(concealed) - 2) // 3
    decomps = decompositions(concealed)
    if not decomps or n_sets != 5:
        melds_text = ", ".join(str(m) for m in melds) or "no melds"
        raise IllegalMoveError(
            f"not a winning hand: {format_counts(concealed)} with {melds_text} is not 5 sets + a pair"
        )
    if w is not None and concealed[w] == 0:
        raise IllegalMoveError(f"winning tile {tile_name(w)} is not in the hand {format_counts(concealed)}")
    return decomps


def _hand_facts(
    concealed: Sequence[int], melds: Sequence[Meld], w: int | None, config: MahjongConfig
) -> _HandFacts:
    """The decomposition-independent facts of a win, so each reading only adds its own."""
    all_counts = list(concealed)
    held = [0] * NUM_KINDS
    for m in melds:
        for k in m.kinds():
            all_counts[k] += 1
            held[k] += 1
    suits = {k // 9 for k in range(27) if all_counts[k]}
    has_honours = any(all_counts[27:])
    if config.concealed_kong_keeps_menqing:
        menqing = all(m.type == MeldType.CONCEALED_KONG for m in melds)
    else:
        menqing = not melds
    # honour tiles cannot chow: their pungs and pair are fixed whatever the decomposition
    honour_pungs = {k for k in range(27, 34) if concealed[k] >= 3}
    honour_pungs |= {m.tile for m in melds if m.type != MeldType.CHOW and m.tile >= 27}
    honour_pair = next((k for k in range(27, 34) if concealed[k] == 2), -1)
    wind_pungs = sum(1 for k in range(27, 31) if k in honour_pungs)
    dragon_pungs = [k for k in range(31, 34) if k in honour_pungs]
    return _HandFacts(
        menqing=menqing,
        exposed=sum(1 for m in melds if m.type != MeldType.CONCEALED_KONG),
        single=_single_wait(concealed, held, w),
        meld_chows=sum(1 for m in melds if m.type == MeldType.CHOW),
        kongs_exposed=sum(1 for m in melds if m.type in (MeldType.EXPOSED_KONG, MeldType.ADDED_KONG)),
        kongs_concealed=sum(1 for m in melds if m.type == MeldType.CONCEALED_KONG),
        honour_pungs=honour_pungs,
        dragon_pungs=dragon_pungs,
        big_winds=wind_pungs == 4,
        small_winds=wind_pungs == 3 and 27 <= honour_pair <= 30,
        big_dragons=len(dragon_pungs) == 3,
        small_dragons=len(dragon_pungs) == 2 and honour_pair >= 31,
        all_honours=not suits,
        full_flush=len(suits) == 1 and not has_honours,
        half_flush=len(suits) == 1 and has_honours,
        has_honours=has_honours,
        all_counts=all_counts,
    )


def _single_wait(concealed: Sequence[int], held: Sequence[int], w: int | None) -> bool:
    """獨聽: the hand before the winning tile had exactly one wait (never for 天胡)."""
    if w is None:
        return False
    pre = list(concealed)
    pre[w] -= 1
    return len(waits(pre, held)) == 1


def _winning_tile_readings(d: Decomposition, w: int | None) -> list[tuple[str, int]]:
    """Which part of ``d`` the winning tile completed: ('pair' | 'pung' | 'chow', start)."""
    if w is None:
        return [("none", -1)]
    readings = []
    if d.pair == w:
        readings.append(("pair", w))
    if (SET_PUNG, w) in d.sets:
        readings.append(("pung", w))
    for kind, s in set(d.sets):
        if kind == SET_CHOW and s <= w <= s + 2:
            readings.append(("chow", s))
    return readings


# The T1 table as one function per group of related patterns, in table order. Each returns
# (name, tai) for the patterns of its group that the reading has, with the non-repeat
# exclusions (T2) applied; a pattern worth 0 under the config's table is dropped by _patterns.
_PatternGroup = Callable[[_HandFacts, _ReadingFacts, WinContext, MahjongConfig], list[tuple[str, int]]]


def _patterns(
    hand: _HandFacts, r: _ReadingFacts, ctx: WinContext, config: MahjongConfig
) -> list[tuple[str, int]]:
    """Patterns of one reading, in table order, with the non-repeat exclusions applied."""
    found: list[tuple[str, int]] = []
    for group in _PATTERN_GROUPS:
        found += group(hand, r, ctx, config)
    return [p for p in found if p[1]]


def _concealed_and_self_draw(
    hand: _HandFacts, r: _ReadingFacts, ctx: WinContext, config: MahjongConfig
) -> list[tuple[str, int]]:
    """門清 / 自摸 / 門清自摸, less what the special first-go-around wins already imply."""
    t, nr = config.tai, config.non_repeat
    five = r.concealed_pungs >= 5
    if ctx.self_draw:
        if nr and (ctx.heaven or ctx.earth):
            return []  # 天胡 / 地胡 imply 門清自摸
        if hand.menqing and not (nr and five):
            return [("門清自摸", t.concealed_self_draw)]
        return [("自摸", t.self_draw)]
    if hand.menqing and not (nr and (ctx.human or five)):
        return [("門清", t.concealed)]
    return []


def _wind_and_dragon_pungs(
    hand: _HandFacts, r: _ReadingFacts, ctx: WinContext, config: MahjongConfig
) -> list[tuple[str, int]]:
    """門風刻, 圈風刻 and one 三元牌 per dragon pung, unless the four-winds / three-dragons
    patterns already count them."""
    t, nr = config.tai, config.non_repeat
    out: list[tuple[str, int]] = []
    four_winds = hand.big_winds or hand.small_winds
    if not (nr and four_winds and not config.wind_pungs_in_four_winds):
        if 27 + ctx.seat_wind in hand.honour_pungs:
            out.append(("門風刻", t.seat_wind))
        if 27 + ctx.round_wind in hand.honour_pungs:
            out.append(("圈風刻", t.round_wind))
    if not (nr and (hand.big_dragons or hand.small_dragons)):
        out += [("三元牌", t.dragon_pung)] * len(hand.dragon_pungs)
    return out


def _wait_and_circumstances(
    hand: _HandFacts, r: _ReadingFacts, ctx: WinContext, config: MahjongConfig
) -> list[tuple[str, int]]:
    """How the hand was won: 獨聽, the last-tile and kong wins, 半求 / 平胡 / 全求人."""
    t = config.tai
    out: list[tuple[str, int]] = []
    if hand.single and ctx.winning_tile is not None:
        out.append(("獨聽", t.single_wait))
    if ctx.robbing_kong:
        out.append(("搶槓", t.robbing_kong))
    if ctx.kong_bloom:
        out.append(("槓上開花", t.kong_bloom))
    if ctx.last_tile:
        out.append(("海底撈月", t.last_tile_draw))
    if ctx.last_discard:
        out.append(("河底撈魚", t.last_discard))
    all_exposed_single = hand.exposed == 5 and hand.single
    if all_exposed_single and ctx.self_draw:
        out.append(("半求", t.half_beg))
    if r.all_chows:
        out.append(("平胡", t.all_chows))
    if all_exposed_single and not ctx.self_draw:
        out.append(("全求人", t.all_beg))
    return out


def _concealed_pungs_and_all_pungs(
    hand: _HandFacts, r: _ReadingFacts, ctx: WinContext, config: MahjongConfig
) -> list[tuple[str, int]]:
    """五暗刻 / 四暗刻 / 三暗刻 (without non-repeat each higher one also counts the lower) and 碰碰胡."""
    t, nr = config.tai, config.non_repeat
    n = r.concealed_pungs
    out: list[tuple[str, int]] = []
    if n >= 5:
        out.append(("五暗刻", t.five_concealed_pungs))
    if n == 4 or (not nr and n >= 4):
        out.append(("四暗刻", t.four_concealed_pungs))
    if n == 3 or (not nr and n >= 3):
        out.append(("三暗刻", t.three_concealed_pungs))
    if r.all_pungs and not (nr and (hand.all_honours or n >= 5)):
        out.append(("碰碰胡", t.all_pungs))
    return out


def _flushes(
    hand: _HandFacts, r: _ReadingFacts, ctx: WinContext, config: MahjongConfig
) -> list[tuple[str, int]]:
    """字一色, 清一色, 混一色 (清一色 also counts 混一色 without non-repeat)."""
    t, nr = config.tai, config.non_repeat
    out: list[tuple[str, int]] = []
    if hand.all_honours:
        out.append(("字一色", t.all_honours))
    if hand.full_flush:
        out.append(("清一色", t.full_flush))
    if hand.half_flush or (hand.full_flush and not nr):
        out.append(("混一色", t.half_flush))
    return out


def _three_dragons_and_four_winds(
    hand: _HandFacts, r: _ReadingFacts, ctx: WinContext, config: MahjongConfig
) -> list[tuple[str, int]]:
    """大三元 / 小三元, 大四喜 / 小四喜 (the big one also counts the little without non-repeat)."""
    t, nr = config.tai, config.non_repeat
    out: list[tuple[str, int]] = []
    if hand.big_dragons:
        out.append(("大三元", t.big_three_dragons))
    if hand.small_dragons or (hand.big_dragons and not nr):
        out.append(("小三元", t.small_three_dragons))
    if hand.big_winds:
        out.append(("大四喜", t.big_four_winds))
    if hand.small_winds or (hand.big_winds and not nr):
        out.append(("小四喜", t.small_four_winds))
    return out


def _first_go_around(
    hand: _HandFacts, r: _ReadingFacts, ctx: WinContext, config: MahjongConfig
) -> list[tuple[str, int]]:
    """天胡, 地胡, 人胡 and 地聽 (the last only when the config plays it)."""
    t = config.tai
    out: list[tuple[str, int]] = []
    if ctx.heaven:
        out.append(("天胡", t.heaven_win))
    if ctx.earth:
        out.append(("地胡", t.earth_win))
    if ctx.human:
        out.append(("人胡", t.human_win))
    heaven_ready = ctx.heaven_ready and config.heaven_ready
    if heaven_ready:
        out.append(("天聽", t.heaven_ready))
    if ctx.earth_ready and config.earth_ready and not (heaven_ready and config.non_repeat):
        out.append(("地聽", t.earth_ready))
    return out


def _flower_patterns(
    hand: _HandFacts, r: _ReadingFacts, ctx: WinContext, config: MahjongConfig
) -> list[tuple[str, int]]:
    """正花 and 花槓 of a win (with ``flowers``; 花槓 implies its group's 正花 under non-repeat)."""
    if not config.flowers:
        return []
    return _flower_lines(ctx.flowers, ctx.seat_wind, config, non_repeat=config.non_repeat)


_TERMINALS = (0, 8, 9, 17, 18, 26)


def _extras(
    hand: _HandFacts, r: _ReadingFacts, ctx: WinContext, config: MahjongConfig
) -> list[tuple[str, int]]:
    """The optional single-source patterns named in ``config.extras``."""
    extras = config.extras
    if not extras:
        return []
    t, nr = config.tai, config.non_repeat
    c = hand.all_counts
    out: list[tuple[str, int]] = []
    if "無字" in extras and not hand.has_honours and not (nr and (hand.full_flush or r.all_chows)):
        out.append(("無字", t.no_honours))
    if "斷么九" in extras and not any(c[k] for k in range(27, 34)) and not any(c[k] for k in _TERMINALS):
        out.append(("斷么九", t.all_simples))
    kongs = hand.kongs_exposed + hand.kongs_concealed
    if "四槓" in extras and kongs >= 4:
        out.append(("四槓", t.four_kongs))
    if "明槓" in extras:
        out.append(("明槓", t.exposed_kong * hand.kongs_exposed))
    if "暗槓" in extras:
        out.append(("暗槓", t.concealed_kong * hand.kongs_concealed))
    return out


_PATTERN_GROUPS: tuple[_PatternGroup, ...] = (
    _concealed_and_self_draw,
    _wind_and_dragon_pungs,
    _wait_and_circumstances,
    _concealed_pungs_and_all_pungs,
    _flushes,
    _three_dragons_and_four_winds,
    _first_go_around,
    _extras,
    _flower_patterns,
)


# ---------------------------------------------------------------------------------------------
# Payments
# ---------------------------------------------------------------------------------------------


def dealer_bonus(continuation: int, config: MahjongConfig = DEFAULT_CONFIG) -> int:
    """莊家 + 連莊 tai: 1 + 2N with the default table."""
    return config.tai.dealer + config.tai.continuation_per_hand * continuation


def payment_tai(
    score: Score, *, dealer_involved: bool, continuation: int, config: MahjongConfig = DEFAULT_CONFIG
) -> int:
    """Tai of one payment: hand tai, plus the dealer bonus when the dealer is winner or payer."""
    tai = score.tai + (dealer_bonus(continuation, config) if dealer_involved else 0)
    if config.limit is not None:
        tai = min(tai, config.limit)
    return tai


def payment_amount(
    score: Score, *, dealer_involved: bool, continuation: int, config: MahjongConfig = DEFAULT_CONFIG
) -> int:
    """Points one payer hands the winner: base + tai × per-tai."""
    tai = payment_tai(score, dealer_involved=dealer_involved, continuation=continuation, config=config)
    return config.base + tai * config.per_tai


@dataclass(frozen=True)
class Payment:
    """One payer's debt to one winner, with the readable lines it is made of."""

    winner: int
    payer: int
    tai: int
    """Tai of this payment: hand tai + dealer tai when the dealer is winner or payer, capped by
    ``limit``."""
    amount: int
    """base + tai x per-tai points."""
    lines: tuple[tuple[str, int], ...]
    """(pattern, tai) lines, the 莊家 / 連莊 lines included (before any ``limit`` cap)."""


def payments(
    winner: int,
    score: Score,
    *,
    discarder: int | None,
    dealer: int,
    continuation: int,
    config: MahjongConfig = DEFAULT_CONFIG,
    num_players: int = 4,
) -> list[Payment]:
    """Who pays a win and how much (``docs/mahjong-rules.md`` T3): the one place of the payer rule.

    ``discarder`` is the seat that discarded the winning tile (the robbed konger for 搶槓): it
    pays alone. None for a self-draw: each of the others pays, in turn order from the winner.
    A payment carries the dealer tai (莊家, 連莊) when the dealer is the winner or that payer.
    The engine settles every hand with this (``MahjongState``'s hand results).
    """
    if discarder is not None:
        payers: Sequence[int] = (discarder,)
    else:
        payers = [(winner + k) % num_players for k in range(1, num_players)]
    out = []
    n, cfg = continuation, config
    for p in payers:
        involved = dealer in (winner, p)
        out.append(
            Payment(
                winner=winner,
                payer=p,
                tai=payment_tai(score, dealer_involved=involved, continuation=n, config=cfg),
                amount=payment_amount(score, dealer_involved=involved, continuation=n, config=cfg),
                lines=tuple(score.breakdown(dealer_involved=involved, continuation=n, config=cfg)),
            )
        )
    return out
