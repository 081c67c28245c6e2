"""Determinization of Taiwan mahjong: full states consistent with one seat's observation.

Searches over hidden information (Expectimax chance nodes, determinized MCTS, rollouts)
sample the tiles a seat has not seen. :meth:`paiju.mahjong.game.MahjongGame.sample_state`
is the entry point; the redeal itself lives here, apart from the rules engine:

* others' concealed tiles, the rest of the wall and the kinds of others' face-down kongs are
  drawn uniformly from the tiles the seat has not seen;
* when another seat is deciding in a claim or rob window (public: the table waits for it),
  its redealt hand must hold a claim on the offered tile: uniform deals are tried first, then
  a hand built around a claim (a pung or chow if the pool allows, else a win);
* private flags of the others that the seat cannot know (missed-win locks, sealed claim
  declarations made before it looked) are reset to "none".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paiju.core.errors import IllegalMoveError
from paiju.mahjong.phases import NUM_PLAYERS, DrawKind, Phase
from paiju.mahjong.tiles import (
    COPIES,
    FLOWER_BASE,
    NUM_FLOWERS,
    NUM_KINDS,
    NUM_TILES,
    NUM_TILES_WITH_FLOWERS,
    Meld,
    MeldType,
    tile_name,
)

if TYPE_CHECKING:  # the engine calls this module: the types only, no import circle (docs/design.md §21)
    from paiju.mahjong.game import MahjongGame, MahjongState
    from paiju.mahjong.observation import MahjongObservation


def sample_state(game: MahjongGame, obs: MahjongObservation, rng: np.random.Generator) -> MahjongState:
    """A full state consistent with ``obs`` (see :meth:`MahjongGame.sample_state`)."""
    s = _public_state(game, obs)
    if obs.phase in (Phase.DEAL, Phase.OVER):
        return s  # no hand in progress: nothing hidden matters
    me = obs.player
    s.rivers = [list(r) for r in obs.discards]
    s.discards_drawn = [_drawn_flags(obs, p) for p in range(NUM_PLAYERS)]
    s.locks = [0] * NUM_PLAYERS
    s.locks[me] = obs.lock
    s.earth = [0 if not obs.discards[p] else 2 for p in range(NUM_PLAYERS)]
    s.earth[me] = obs.earth_ready
    if game.config.heaven_ready:  # others' 天聽 depends on their hidden hands: not eligible
        s.heaven = [2] * NUM_PLAYERS
        s.heaven[me] = obs.heaven_ready
    s.flowers = [list(f) for f in obs.flowers]
    shown = {f for row in obs.flowers for f in row}
    # flowers are shown the moment they are drawn: every other one is still in the wall
    hidden_flowers = [FLOWER_BASE + f for f in range(NUM_FLOWERS) if f not in shown]
    if not game.config.flowers:
        hidden_flowers = []
    size = NUM_TILES_WITH_FLOWERS if game.config.flowers else NUM_TILES
    s.tail = size - obs.replacements_drawn
    s.head = s.tail - obs.live_tiles - game.config.dead_wall
    sizes = {p: obs.hand_sizes[p] for p in range(NUM_PLAYERS) if p != me}
    pool = _unseen_pool(obs, sizes, s.tail - s.head - len(hidden_flowers))
    s.hands = [[0] * NUM_KINDS for _ in range(NUM_PLAYERS)]
    s.hands[me] = list(obs.hand)
    s.window_tile = obs.window_tile
    s.window_from = obs.window_from
    rest = _redeal_hidden_tiles(s, obs, pool, sizes, rng)
    if hidden_flowers:
        rest = [int(k) for k in rng.permutation(np.array(rest + hidden_flowers, dtype=np.int64))]
    wall = [-1] * size
    wall[s.head : s.tail] = rest
    s.wall = tuple(wall)
    if obs.phase == Phase.TURN:
        _set_drawn_tile(s, obs, rng)
    if obs.phase in (Phase.CLAIM, Phase.ROB):
        _set_window_queue(s, obs)
    return s


def _drawn_flags(obs: MahjongObservation, seat: int) -> list[bool]:
    """The seat's 摸打 flags, one per discard (public): an observation built by hand without
    them (older code, tests) reads as all 手出."""
    flags = list(obs.discards_drawn[seat]) if seat < len(obs.discards_drawn) else []
    n = len(obs.discards[seat])
    return (flags + [False] * n)[:n]


def _public_state(game: MahjongGame, obs: MahjongObservation) -> MahjongState:
    """A state with what every seat sees of the game outside the hand in progress."""
    s = game.new_initial_state()  # a fresh MahjongState(game)
    s.phase = obs.phase
    s.turn = obs.turn
    s.draw_kind = obs.draw_kind
    s.after_claim = obs.after_claim
    s.no_calls = obs.no_calls
    s.dealer = obs.dealer
    s.continuation = obs.continuation
    s.round_wind = obs.round_wind
    s.hand_number = obs.hand_number
    s.dealer_passes = obs.dealer_passes
    s.scores = list(obs.scores)
    s.last_result = obs.last_result
    s.results = (obs.last_result,) if obs.last_result is not None else ()
    return s


def _unseen_pool(obs: MahjongObservation, sizes: dict[int, int], n_wall: int) -> list[int]:
    """Counts of the tiles the seat has not seen; raises when they cannot fill the hidden places."""
    pool = obs.unseen_counts()
    if min(pool) < 0:
        worst = tile_name(pool.index(min(pool)))
        raise IllegalMoveError(f"inconsistent observation: more than 4 of {worst} seen")
    hidden_kongs = sum(1 for row in obs.melds for m in row if m.tile < 0)
    if sum(pool) != sum(sizes.values()) + n_wall + COPIES * hidden_kongs:
        raise IllegalMoveError(
            f"inconsistent observation: {sum(pool)} unseen tiles for {sum(sizes.values())} hidden "
            "hand tiles, "
            f"{n_wall} wall tiles and {hidden_kongs} face-down kongs"
        )
    return pool


def _redeal_hidden_tiles(
    s: MahjongState,
    obs: MahjongObservation,
    pool: list[int],
    sizes: dict[int, int],
    rng: np.random.Generator,
) -> list[int]:
    """Deal the others' melds and hands into ``s``; returns the tiles left for the wall.

    When another seat is deciding in a claim or rob window, its hand must hold a claim on the
    offered tile: uniform deals first, then deals built around a claim (a win under min_tai may
    need many).
    """
    decider = obs.to_act
    need = obs.phase in (Phase.CLAIM, Phase.ROB) and decider != obs.player
    for attempt in range(400 if need else 1):
        left = pool[:]
        s.melds = _reveal_face_down_kongs(obs, left, rng)
        if attempt < 16 or not need:
            rest = _deal_uniform(s, left, sizes, rng)
        else:
            rest = _deal_with_claim(s, obs, left, sizes, decider, rng)
        if not need or _has_option(s, decider, obs.phase):
            return rest
    raise IllegalMoveError(
        f"could not redeal a hand for seat {decider} with a claim on {tile_name(obs.window_tile)}"
    )


def _reveal_face_down_kongs(
    obs: MahjongObservation, left: list[int], rng: np.random.Generator
) -> list[list[Meld]]:
    """Every seat's melds, face-down kongs given a kind of which this seat has seen nothing
    (taken out of ``left``)."""
    melds: list[list[Meld]] = []
    for p in range(NUM_PLAYERS):
        row = []
        for m in obs.melds[p]:
            if m.tile < 0:
                free = [k for k in range(NUM_KINDS) if left[k] == COPIES]
                if not free:
                    raise IllegalMoveError("inconsistent observation: no kind left for a face-down kong")
                k = free[int(rng.integers(len(free)))]
                left[k] -= COPIES
                m = Meld(MeldType.CONCEALED_KONG, k)
            row.append(m)
        melds.append(row)
    return melds


def _deal_uniform(
    s: MahjongState, left: list[int], sizes: dict[int, int], rng: np.random.Generator
) -> list[int]:
    """Deal ``left`` uniformly to the others' hands (in seat order); returns the wall rest."""
    order = rng.permutation(np.repeat(np.arange(NUM_KINDS), left))
    pos = 0
    for p, n in sizes.items():
        h = [0] * NUM_KINDS
        for k in order[pos : pos + n]:
            h[int(k)] += 1
        s.hands[p] = h
        pos += n
    return [int(k) for k in order[pos:]]


def _set_drawn_tile(s: MahjongState, obs: MahjongObservation, rng: np.random.Generator) -> None:
    """The tile just drawn: the seat's own is known; another's is one of its redealt tiles."""
    if obs.turn == obs.player:
        s.drawn = obs.drawn
    elif obs.draw_kind != DrawKind.NONE:
        h = s.hands[obs.turn]
        kinds = np.repeat(np.arange(NUM_KINDS), h)
        s.drawn = int(kinds[int(rng.integers(len(kinds)))])


def _set_window_queue(s: MahjongState, obs: MahjongObservation) -> None:
    """The claim / rob window's queue: the decider, then the later seats that have an option
    in the redealt state (this seat only if it has not answered yet and has one)."""
    me, decider, d = obs.player, obs.to_act, obs.window_from
    order_seats = [(d + i) % NUM_PLAYERS for i in (1, 2, 3)]
    later = order_seats[order_seats.index(decider) + 1 :]
    if obs.phase == Phase.CLAIM:
        tail_q = [q for q in later if q != me and len(s.claim_options(q, obs.window_tile, d)) > 1]
    else:
        tail_q = [q for q in later if q != me and s.can_win_on(q, obs.window_tile, True)]
    if me in later and obs.own_claim < 0 and _has_option(s, me, obs.phase):
        tail_q = [q for q in later if q == me or q in tail_q]
    s.queue = (decider, *tail_q)
    s.qpos = 0
    s.intents = [-1] * NUM_PLAYERS
    s.intents[me] = obs.own_claim


def _has_option(s: MahjongState, seat: int, phase: Phase) -> bool:
    if phase == Phase.CLAIM:
        return len(s.claim_options(seat, s.window_tile, s.window_from)) > 1
    return s.can_win_on(seat, s.window_tile, True)


def _deal_with_claim(
    s: MahjongState,
    obs: MahjongObservation,
    pool: list[int],
    sizes: dict[int, int],
    seat: int,
    rng: np.random.Generator,
) -> list[int]:
    """Deal the hidden tiles so that ``seat`` holds a claim on the window tile; returns the wall rest."""
    t = obs.window_tile
    left = pool[:]
    core: list[int] = []
    choices: list[list[int]] = []
    if obs.phase == Phase.CLAIM and s.live_tiles >= 1 and sizes[seat] >= 2:
        if left[t] >= 2:
            choices.append([t, t])
        if seat == (obs.window_from + 1) % NUM_PLAYERS and t < 27:
            r = t % 9
            for a, b in ((1, 2), (-1, 1), (-2, -1)):
                if 0 <= r + a <= 8 and 0 <= r + b <= 8 and left[t + a] and left[t + b]:
                    choices.append([t + a, t + b])
    if choices:
        core = choices[int(rng.integers(len(choices)))]
    else:
        core = _random_winning_part(left, t, sizes[seat], rng) or []
    for k in core:
        left[k] -= 1
    flat = rng.permutation(np.repeat(np.arange(NUM_KINDS), left))
    pos = 0
    for p in sizes:
        h = [0] * NUM_KINDS
        n = sizes[p]
        if p == seat:
            for k in core:
                h[k] += 1
            n -= len(core)
        for k in flat[pos : pos + n]:
            h[int(k)] += 1
        pos += n
        s.hands[p] = h
    return [int(k) for k in flat[pos:]]


def _random_winning_part(pool: list[int], t: int, size: int, rng: np.random.Generator) -> list[int] | None:
    """``size`` tiles from ``pool`` that become sets + a pair with the extra tile ``t``."""
    n_sets = (size - 1) // 3
    with_t = pool[:]
    with_t[t] += 1
    # the group that uses t does not depend on the draw: without one no attempt can succeed
    groups = _groups_through(with_t, t)
    if not groups:
        return None
    for _ in range(200):
        c = with_t[:]
        first = groups[int(rng.integers(len(groups)))]
        for k in first:
            c[k] -= 1
        taken = list(first)
        pair_done = len(first) == 2
        sets_left = n_sets - (0 if pair_done else 1)
        if _complete_randomly(c, taken, pair_done, sets_left, rng) and len(taken) == size + 1:
            taken.remove(t)
            return taken
    return None


def _groups_through(c: list[int], t: int) -> list[list[int]]:
    """The pair, pung and chows through tile ``t`` that the counts ``c`` can form."""
    groups = [[t, t]] if c[t] >= 2 else []
    if c[t] >= 3:
        groups.append([t, t, t])
    if t < 27:
        for lo in (t - 2, t - 1, t):
            if (
                lo >= 0
                and lo // 9 == t // 9
                and (lo % 9) <= 6
                and lo + 2 < 27
                and all(c[lo + i] >= 1 for i in range(3))
            ):
                groups.append([lo, lo + 1, lo + 2])
    return groups


def _complete_randomly(
    c: list[int], taken: list[int], pair_done: bool, sets_left: int, rng: np.random.Generator
) -> bool:
    """Add random groups from ``c`` to ``taken`` until ``sets_left`` sets and the pair (unless
    ``pair_done``) are in; False after 100 draws of a kind that starts no needed group."""
    misses = 0
    while sets_left > 0 or not pair_done:
        avail = [k for k in range(NUM_KINDS) if c[k]]
        k = avail[int(rng.integers(len(avail)))]
        options = _groups_from(c, k, need_pair=not pair_done, need_set=sets_left > 0)
        if not options:
            misses += 1
            if misses > 100:
                return False
            continue
        g = options[int(rng.integers(len(options)))]
        for x in g:
            c[x] -= 1
            taken.append(x)
        if len(g) == 2:
            pair_done = True
        else:
            sets_left -= 1
    return True


def _groups_from(c: list[int], k: int, *, need_pair: bool, need_set: bool) -> list[list[int]]:
    """The still-needed groups that start at kind ``k``: its pair, its pung, the chow from it."""
    options = []
    if need_pair and c[k] >= 2:
        options.append([k, k])
    if need_set:
        if c[k] >= 3:
            options.append([k, k, k])
        if k < 27 and k % 9 <= 6 and c[k + 1] and c[k + 2]:
            options.append([k, k + 1, k + 2])
    return options
