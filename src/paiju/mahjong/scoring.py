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

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

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
    if len(concealed) != NUM_KINDS:
        raise IllegalMoveError(f"concealed counts must have {NUM_KINDS} entries, got {len(concealed)}")
    n_sets = len(melds) + (sum(concealed) - 2) // 3
    decomps = decompositions(concealed)
    if not decomps or n_sets != 5:
        melds_text = ", ".join(str(m) for m in melds) or "no melds"
        raise IllegalMoveError(
            f"not a winning hand: {format_counts(concealed)} with {melds_text} is not 5 sets + a pair"
        )
    w = ctx.winning_tile
    if w is not None and concealed[w] == 0:
        raise IllegalMoveError(f"winning tile {tile_name(w)} is not in the hand {format_counts(concealed)}")
    nr = config.non_repeat

    # ---- decomposition-independent facts ------------------------------------------------------
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
    exposed = sum(1 for m in melds if m.type != MeldType.CONCEALED_KONG)
    kongs_exposed = sum(1 for m in melds if m.type in (MeldType.EXPOSED_KONG, MeldType.ADDED_KONG))
    kongs_concealed = sum(1 for m in melds if m.type == MeldType.CONCEALED_KONG)
    # honour tiles cannot chow: their pungs and pair are fixed whatever the decomposition
    honour_pungs = {k for k in range(27, 34) if concealed[k] >= 3}
    honour_pungs |= {m.tile for m in melds if m.type != MeldType.CHOW and m.tile >= 27}
    honour_pair = next((k for k in range(27, 34) if concealed[k] == 2), -1)
    wind_pungs = sum(1 for k in range(27, 31) if k in honour_pungs)
    dragon_pungs = [k for k in range(31, 34) if k in honour_pungs]
    big_winds = wind_pungs == 4
    small_winds = wind_pungs == 3 and 27 <= honour_pair <= 30
    big_dragons = len(dragon_pungs) == 3
    small_dragons = len(dragon_pungs) == 2 and honour_pair >= 31
    all_honours = not suits
    full_flush = len(suits) == 1 and not has_honours
    half_flush = len(suits) == 1 and has_honours
    if w is not None:
        pre = list(concealed)
        pre[w] -= 1
        single = len(waits(pre, held)) == 1
    else:
        single = False
    meld_chows = sum(1 for m in melds if m.type == MeldType.CHOW)

    # ---- the part that depends on the arrangement -------------------------------------------------
    best: Score | None = None
    for d in decomps:
        if w is None:
            readings: list[tuple[str, int]] = [("none", -1)]
        else:
            readings = []
            if d.pair == w:
                readings.append(("pair", w))
            if (SET_PUNG, w) in d.sets:
                readings.append(("pung", w))
            for kind, s in set(d.sets):
                if kind == SET_CHOW and s <= w <= s + 2:
                    readings.append(("chow", s))
        n_pungs_concealed_part = sum(1 for kind, _ in d.sets if kind == SET_PUNG)
        n_chows = meld_chows + sum(1 for kind, _ in d.sets if kind == SET_CHOW)
        for reading in readings:
            wait = _chow_wait(reading[1], w) if reading[0] == "chow" and w is not None else reading[0]
            concealed_pungs = n_pungs_concealed_part + kongs_concealed
            if reading[0] == "pung" and not ctx.self_draw:
                concealed_pungs -= 1  # completed by the winning discard: not concealed
            all_chows_shape = n_chows == 5 and not has_honours
            pats = _patterns(
                nr=nr,
                config=config,
                ctx=ctx,
                menqing=menqing,
                exposed=exposed,
                single=single,
                concealed_pungs=concealed_pungs,
                all_pungs=(n_chows == 0),
                all_chows=(all_chows_shape and wait == "chow-two-sided" and not ctx.self_draw and not single),
                honour_pungs=honour_pungs,
                dragon_pungs=dragon_pungs,
                big_winds=big_winds,
                small_winds=small_winds,
                big_dragons=big_dragons,
                small_dragons=small_dragons,
                all_honours=all_honours,
                full_flush=full_flush,
                half_flush=half_flush,
                has_honours=has_honours,
                all_counts=all_counts,
                kongs_exposed=kongs_exposed,
                kongs_concealed=kongs_concealed,
            )
            tai = sum(v for _, v in pats)
            if best is None or tai > best.tai:
                best = Score(tai=tai, patterns=tuple(pats), decomposition=d, reading=wait)
    assert best is not None
    return best


def _patterns(
    *,
    nr: bool,
    config: MahjongConfig,
    ctx: WinContext,
    menqing: bool,
    exposed: int,
    single: bool,
    concealed_pungs: int,
    all_pungs: bool,
    all_chows: bool,
    honour_pungs: set[int],
    dragon_pungs: list[int],
    big_winds: bool,
    small_winds: bool,
    big_dragons: bool,
    small_dragons: bool,
    all_honours: bool,
    full_flush: bool,
    half_flush: bool,
    has_honours: bool,
    all_counts: list[int],
    kongs_exposed: int,
    kongs_concealed: int,
) -> list[tuple[str, int]]:
    """Patterns of one reading, in table order, with the non-repeat exclusions applied."""
    t = config.tai
    out: list[tuple[str, int]] = []

    def add(name: str, value: int) -> None:
        if value:
            out.append((name, value))

    five = concealed_pungs >= 5
    # 門清 / 自摸 / 門清自摸, and what the special first-go-around wins already imply
    if ctx.self_draw:
        if nr and (ctx.heaven or ctx.earth):
            pass  # 天胡 / 地胡 imply 門清自摸
        elif menqing and not (nr and five):
            add("門清自摸", t.concealed_self_draw)
        else:
            add("自摸", t.self_draw)
    elif menqing and not (nr and (ctx.human or five)):
        add("門清", t.concealed)
    # winds and dragons
    four_winds = big_winds or small_winds
    if not (nr and four_winds and not config.wind_pungs_in_four_winds):
        if 27 + ctx.seat_wind in honour_pungs:
            add("門風刻", t.seat_wind)
        if 27 + ctx.round_wind in honour_pungs:
            add("圈風刻", t.round_wind)
    if not (nr and (big_dragons or small_dragons)):
        for _k in dragon_pungs:
            add("三元牌", t.dragon_pung)
    if single and ctx.winning_tile is not None:
        add("獨聽", t.single_wait)
    if ctx.robbing_kong:
        add("搶槓", t.robbing_kong)
    if ctx.kong_bloom:
        add("槓上開花", t.kong_bloom)
    if ctx.last_tile:
        add("海底撈月", t.last_tile_draw)
    if ctx.last_discard:
        add("河底撈魚", t.last_discard)
    if exposed == 5 and single and ctx.self_draw:
        add("半求", t.half_beg)
    if all_chows:
        add("平胡", t.all_chows)
    if exposed == 5 and single and not ctx.self_draw:
        add("全求人", t.all_beg)
    # concealed pungs
    if concealed_pungs >= 5:
        add("五暗刻", t.five_concealed_pungs)
    if concealed_pungs == 4 or (not nr and concealed_pungs >= 4):
        add("四暗刻", t.four_concealed_pungs)
    if concealed_pungs == 3 or (not nr and concealed_pungs >= 3):
        add("三暗刻", t.three_concealed_pungs)
    if all_pungs and not (nr and (all_honours or five)):
        add("碰碰胡", t.all_pungs)
    # flushes
    if all_honours:
        add("字一色", t.all_honours)
    if full_flush:
        add("清一色", t.full_flush)
    if half_flush or (full_flush and not nr):
        add("混一色", t.half_flush)
    # dragons and winds
    if big_dragons:
        add("大三元", t.big_three_dragons)
    if small_dragons or (big_dragons and not nr):
        add("小三元", t.small_three_dragons)
    if big_winds:
        add("大四喜", t.big_four_winds)
    if small_winds or (big_winds and not nr):
        add("小四喜", t.small_four_winds)
    # first go-around
    if ctx.heaven:
        add("天胡", t.heaven_win)
    if ctx.earth:
        add("地胡", t.earth_win)
    if ctx.human:
        add("人胡", t.human_win)
    if ctx.earth_ready and config.earth_ready:
        add("地聽", t.earth_ready)
    # optional single-source extras
    extras = config.extras
    if extras:
        if "無字" in extras and not has_honours and not (nr and (full_flush or all_chows)):
            add("無字", t.no_honours)
        if (
            "斷么九" in extras
            and not any(all_counts[k] for k in range(27, 34))
            and not any(all_counts[k] for k in (0, 8, 9, 17, 18, 26))
        ):
            add("斷么九", t.all_simples)
        if "四槓" in extras and kongs_exposed + kongs_concealed >= 4:
            add("四槓", t.four_kongs)
        if "明槓" in extras:
            add("明槓", t.exposed_kong * kongs_exposed)
        if "暗槓" in extras:
            add("暗槓", t.concealed_kong * kongs_concealed)
    return out


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
