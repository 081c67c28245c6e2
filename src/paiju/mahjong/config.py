"""Rule flags and the tai table of Taiwan 16-tile mahjong (flowers optional, off by default).

Every default below is a rule of ``docs/mahjong-rules.md`` (§8, T1-T3); the
choices where the sources disagree are written down there too (T2). Both dataclasses
are frozen so a config can be shared by every state of a game (and by clones) safely.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from functools import cache
from importlib import resources
from typing import Literal

from paiju.core.errors import ConfigError

MultiRon = Literal["all", "head_bump"]
Mode = Literal["hand", "game"]
MissedScope = Literal["kind", "all"]

EXTRA_PATTERNS = ("無字", "斷么九", "四槓", "明槓", "暗槓")
MAX_HANDS_PER_GAME = 1000
"""Largest ``max_hands``: a real 將 is 16-25 hands, so 1,000 only bounds a pathological game."""
"""Optional single-source patterns, off by default (``docs/mahjong-rules.md`` T1, extras)."""


@dataclass(frozen=True)
class TaiTable:
    """Tai value of every pattern (``docs/mahjong-rules.md`` T1, table ``atawmj_2009`` defaults)."""

    dealer: int = 1
    """莊家: +1 between the dealer and his counterparty."""
    continuation_per_hand: int = 2
    """連莊/拉莊: 2 per continuation (連N拉N = 2N)."""
    concealed: int = 1
    """門清 (win on a discard)."""
    self_draw: int = 1
    """自摸 (not 門清)."""
    concealed_self_draw: int = 3
    """門清自摸 (不求): replaces 門清 and 自摸."""
    seat_wind: int = 1
    round_wind: int = 1
    dragon_pung: int = 1
    single_wait: int = 1
    """獨聽."""
    robbing_kong: int = 1
    kong_bloom: int = 1
    """槓上開花."""
    last_tile_draw: int = 1
    """海底撈月."""
    last_discard: int = 1
    """河底撈魚."""
    half_beg: int = 1
    """半求."""
    all_chows: int = 2
    """平胡."""
    all_beg: int = 2
    """全求人."""
    three_concealed_pungs: int = 2
    four_concealed_pungs: int = 5
    five_concealed_pungs: int = 8
    all_pungs: int = 4
    """碰碰胡."""
    half_flush: int = 4
    """混一色."""
    small_three_dragons: int = 4
    earth_ready: int = 4
    """地聽 (only when ``MahjongConfig.earth_ready`` is on)."""
    full_flush: int = 8
    """清一色."""
    big_three_dragons: int = 8
    small_four_winds: int = 8
    human_win: int = 8
    """人胡."""
    all_honours: int = 16
    """字一色."""
    big_four_winds: int = 16
    earth_win: int = 16
    """地胡."""
    heaven_win: int = 24
    """天胡."""
    no_honours: int = 1
    """無字 (extra, off by default)."""
    all_simples: int = 1
    """斷么九 (extra)."""
    four_kongs: int = 8
    """四槓 (extra)."""
    exposed_kong: int = 1
    """明槓, per exposed or added kong (extra)."""
    concealed_kong: int = 2
    """暗槓, per concealed kong (extra)."""
    seat_flower: int = 1
    """正花, per own-seat flower held (only with ``MahjongConfig.flowers``)."""
    flower_kong: int = 2
    """花槓, per complete group of four flowers (春夏秋冬 or 梅蘭竹菊)."""
    seven_rob_one: int = 8
    """七搶一: holding seven flowers, win on the eighth when another player reveals it."""
    eight_immortals: int = 8
    """八仙過海: all eight flowers, a win by itself."""
    heaven_ready: int = 16
    """天聽 (only when ``MahjongConfig.heaven_ready`` is on): ready with the dealt tiles."""
    ligu: int = 8
    """嚦咕嚦咕 (only when ``MahjongConfig.ligu`` is on): seven pairs and a pung, concealed."""

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ConfigError(f"tai value {f.name}={v!r} must be a non-negative int")


FLAG_PATTERNS: dict[str, tuple[str, ...]] = {
    "flowers": ("seat_flower", "flower_kong", "seven_rob_one", "eight_immortals"),
    "heaven_ready": ("heaven_ready",),
    "ligu": ("ligu",),
}
"""The ``TaiTable`` fields that count only when the ``MahjongConfig`` flag naming them is on."""


@cache
def tai_table_names() -> tuple[str, ...]:
    """Names of the shipped tai-table presets (``paiju/mahjong/data/tai_<name>.json``)."""
    files = resources.files("paiju.mahjong.data").iterdir()
    names = (f.name for f in files)
    return tuple(sorted(n[4:-5] for n in names if n.startswith("tai_") and n.endswith(".json")))


@cache
def load_tai_table(name: str) -> TaiTable:
    """The preset ``name`` as a :class:`TaiTable`: the values its data file lists, the
    ``atawmj_2009`` defaults for the patterns it does not."""
    if name not in tai_table_names():
        raise ConfigError(f"unknown tai_table {name!r}; known: {', '.join(tai_table_names())}")
    text = resources.files("paiju.mahjong.data").joinpath(f"tai_{name}.json").read_text(encoding="utf-8")
    values = json.loads(text)["values"]
    known = {f.name for f in fields(TaiTable)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(f"tai table {name!r}: unknown patterns {unknown}")
    return TaiTable(**values)


@dataclass(frozen=True)
class MahjongConfig:
    """Rule flags (``docs/mahjong-rules.md`` §8) plus stake and game-length settings."""

    mode: Mode = "hand"
    """``"hand"``: one hand (the arena's unit); ``"game"``: a full 將 of ``rounds`` 圈."""
    dead_wall: int = 16
    """Tiles kept back at the tail; a normal draw with only these left is an exhaustive draw."""
    multi_ron: MultiRon = "all"
    """Several players winning on one discard: all win (discarder pays each) or 截胡 (first in turn)."""
    missed_discard_lock: bool = True
    """過水: passing a winning tile forbids winning on that tile kind until one's own next discard."""
    missed_discard_scope: MissedScope = "kind"
    """What 過水 locks: ``"kind"`` the passed tile kind, on a discard or by self-draw (the default);
    ``"all"`` every win on a discard (self-draw stays allowed), until one's own next discard."""
    min_tai: int = 0
    """Minimum hand tai (dealer tai excluded) for a win to be legal."""
    tai_table: str = "atawmj_2009"
    """Tai preset, a data file of ``paiju/mahjong/data`` (:func:`tai_table_names`); it fills
    ``tai`` unless ``tai`` is given with values that are not those of a shipped preset."""
    tai: TaiTable = field(default_factory=TaiTable)
    non_repeat: bool = True
    """Non-repeat principle (``docs/mahjong-rules.md`` T2): a pattern implied by a higher one is not added."""
    concealed_kong_keeps_menqing: bool = True
    """A concealed kong does not break 門清 (sources A, E of ``docs/mahjong-rules.md``); W: any kong does."""
    wind_pungs_in_four_winds: bool = False
    """Whether 門風/圈風 pung tai are added on top of 小四喜/大四喜."""
    earth_ready: bool = False
    """地聽 (4 tai): ready after one's first discard with no calls yet, hand then never changed."""
    concealed_kong_public: bool = False
    """Whether others see the kind of a concealed kong (Taiwan custom: face down, hidden)."""
    flowers: bool = False
    """Play with the 8 flowers (144 tiles): each is revealed and replaced from the tail at once;
    正花, 花槓, 七搶一 and 八仙過海 count (``docs/mahjong-rules.md`` §9)."""
    heaven_ready: bool = False
    """天聽: ready with the dealt tiles (the dealer after his first discard), hand never changed."""
    ligu: bool = False
    """嚦咕嚦咕: seven pairs and one pung (17 concealed tiles) is a winning shape."""
    all_chows_self_draw: bool = False
    """平胡 also on a self-draw (default: on a discard only)."""
    all_chows_honour_pair: bool = False
    """平胡 with an honour pair (default: no honour tile anywhere)."""
    all_chows_no_flowers: bool = True
    """With ``flowers``: 平胡 needs no flower (source C: 無花)."""
    extras: frozenset[str] = frozenset()
    """Optional single-source patterns to count, names from :data:`EXTRA_PATTERNS`."""
    limit: int | None = None
    """Cap on the tai of one payment (dealer tai included); None = no cap."""
    base: int = 1000
    """底: paid on every win (the paper's 1,000)."""
    per_tai: int = 500
    """Per-tai stake (the paper's 500)."""
    dealer: int = 0
    """First dealer (seat 0..3)."""
    continuation: int = 0
    """Dealer continuation count N at the start (single-hand mode, e.g. to replay a 連2 hand)."""
    round_wind: int = 0
    """Prevailing wind at the start, 0 = 東 .. 3 = 北."""
    rounds: int = 4
    """圈 in a full game (4 = one 將: 東南西北)."""
    max_hands: int = 64
    """Safety cap on hands in a full game (exhaustive draws keep the dealer, so random play could
    otherwise last for ever); a real 將 is ~16-25 hands."""

    def __post_init__(self) -> None:
        if self.mode not in ("hand", "game"):
            raise ConfigError(f"mode must be 'hand' or 'game', not {self.mode!r}")
        if self.multi_ron not in ("all", "head_bump"):
            raise ConfigError(f"multi_ron must be 'all' or 'head_bump', not {self.multi_ron!r}")
        if not 0 <= self.dead_wall <= 40:
            raise ConfigError(f"dead_wall={self.dead_wall} must be in 0..40 (136 tiles, 65 dealt)")
        if self.missed_discard_scope not in ("kind", "all"):
            raise ConfigError(
                f"missed_discard_scope must be 'kind' or 'all', not {self.missed_discard_scope!r}"
            )
        preset = load_tai_table(self.tai_table)  # an unknown name is a ConfigError listing the known
        # a table equal to a shipped preset (the default one included) is a preset, not values
        # of one's own: the named preset replaces it, so replace(cfg, tai_table=...) switches
        if self.tai != preset and self.tai in [load_tai_table(n) for n in tai_table_names()]:
            object.__setattr__(self, "tai", preset)
        for name in ("min_tai", "base", "per_tai", "continuation"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 0:
                raise ConfigError(f"{name}={v!r} must be a non-negative int")
        if self.limit is not None and self.limit < 1:
            raise ConfigError(f"limit={self.limit!r} must be None or a positive number of tai")
        for name in ("dealer", "round_wind"):
            if getattr(self, name) not in (0, 1, 2, 3):
                raise ConfigError(f"{name}={getattr(self, name)!r} must be 0..3")
        if not 1 <= self.rounds <= 4:
            raise ConfigError(f"rounds={self.rounds} must be 1..4 (東南西北)")
        if not 1 <= self.max_hands <= MAX_HANDS_PER_GAME:
            raise ConfigError(f"max_hands={self.max_hands} must be in 1..{MAX_HANDS_PER_GAME}")
        unknown = set(self.extras) - set(EXTRA_PATTERNS)
        if unknown:
            raise ConfigError(f"unknown extra patterns {sorted(unknown)}; known: {list(EXTRA_PATTERNS)}")
        if not isinstance(self.extras, frozenset):
            object.__setattr__(self, "extras", frozenset(self.extras))
