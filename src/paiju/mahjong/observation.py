"""What one mahjong seat sees: :class:`MahjongObservation` and how a state builds it.

Agents, features and determinization work from an observation alone, never from the state
(``docs/design.md`` §11), so the view is a value of its own; :func:`observe` is the one place
that decides what of the state a seat may see (the engine's ``observation`` calls it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from paiju.core.errors import IllegalMoveError
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.phases import NUM_PLAYERS, DrawKind, Phase
from paiju.mahjong.settlement import HandResult
from paiju.mahjong.tiles import COPIES, Meld, MeldType

if TYPE_CHECKING:  # the engine calls this module: its type only, no import circle
    from paiju.mahjong.game import MahjongState


@dataclass(frozen=True)
class MahjongObservation:
    """What one seat sees: the public table plus its own concealed tiles and private flags."""

    player: int
    phase: Phase
    to_act: int
    """Seat to decide now (CHANCE / TERMINAL constants otherwise): public, as at a real table."""
    turn: int
    """Seat whose turn it is (the discarder while a claim window is open)."""
    hand: tuple[int, ...]
    """Own concealed counts (34)."""
    drawn: int
    """Own just-drawn tile kind on own turn, else -1."""
    draw_kind: DrawKind
    after_claim: bool
    window_tile: int
    """Tile offered in the open claim / rob window, else -1."""
    window_from: int
    melds: tuple[tuple[Meld, ...], ...]
    """Every seat's melds; another seat's face-down concealed kong has ``tile == -1``."""
    discards: tuple[tuple[tuple[int, int], ...], ...]
    """Every seat's discards in order, as (kind, claimed_by or -1)."""
    hand_sizes: tuple[int, ...]
    live_tiles: int
    """Tiles left to draw before the exhaustive draw (the dead wall excluded)."""
    replacements_drawn: int
    no_calls: bool
    """No claim or kong yet this hand (the first go-around is still clean)."""
    lock: int
    """Own missed-discard lock: bit k set = may not win on kind k until own next discard."""
    own_claim: int
    """Own sealed declaration in the open window, -1 if none yet."""
    earth_ready: int
    dealer: int
    continuation: int
    round_wind: int
    hand_number: int
    dealer_passes: int
    """Times the deal has passed on in this game (4 per 圈)."""
    scores: tuple[int, ...]
    """Points won so far in this game (all zeros in single-hand mode until the end)."""
    last_result: HandResult | None
    config: MahjongConfig = field(default_factory=MahjongConfig)
    """The rules of the table (public, as at a real table): agents value hands by its tai
    table and stakes, never by defaults of their own."""
    discards_drawn: tuple[tuple[bool, ...], ...] = ((), (), (), ())
    """Per seat, parallel to ``discards``: True = the tile just drawn was discarded (摸打),
    False = a tile from the hand (手出). Public at a real table; a defence signal."""
    flowers: tuple[tuple[int, ...], ...] = ((), (), (), ())
    """Every seat's revealed flowers (0..7 = 春夏秋冬梅蘭竹菊), in the order revealed: public."""
    heaven_ready: int = 0
    """Own 天聽 state (with ``config.heaven_ready``): 1 = ready since the deal, hand unchanged."""

    @property
    def seat_wind(self) -> int:
        """0 = 東 (the dealer) .. 3 = 北."""
        return (self.player - self.dealer) % NUM_PLAYERS

    def visible_counts(self) -> list[int]:
        """Tiles this seat can see, per kind: own hand, every face-up meld, uncalled discards."""
        seen = list(self.hand)
        for seat_melds in self.melds:
            for m in seat_melds:
                if m.tile >= 0:
                    for k in m.kinds():
                        seen[k] += 1
        for river in self.discards:
            for k, by in river:
                if by < 0:
                    seen[k] += 1
        if self.phase == Phase.ROB and self.window_tile >= 0:
            seen[self.window_tile] += 1
        return seen

    def unseen_counts(self) -> list[int]:
        """4 - visible, per kind: the tiles that may be in the wall or in other hands."""
        return [COPIES - c for c in self.visible_counts()]


_HIDDEN_KONG = Meld(MeldType.CONCEALED_KONG, -1, -1, -1)
"""Another seat's concealed kong as this seat sees it: face down, kind unknown."""


def observe(state: MahjongState, player: int) -> MahjongObservation:
    """What seat ``player`` sees of ``state`` (:meth:`MahjongState.observation`): the public table,
    its own concealed tiles and private flags; another seat's concealed kong lies face down
    unless ``concealed_kong_public``."""
    if not 0 <= player < NUM_PLAYERS:
        raise IllegalMoveError(f"no seat {player}: mahjong seats are 0..3")
    show_kongs = state.cfg.concealed_kong_public
    melds = []
    for s, row in enumerate(state.melds):
        if s == player or show_kongs or all(m.type != MeldType.CONCEALED_KONG for m in row):
            melds.append(tuple(row))
        else:  # another seat's concealed kong lies face down
            melds.append(tuple(_HIDDEN_KONG if m.type == MeldType.CONCEALED_KONG else m for m in row))
    phase = state.phase
    in_window = phase == Phase.CLAIM or phase == Phase.ROB
    dealt = phase != Phase.DEAL
    h = state.hands
    # built field by field: the frozen dataclass __init__ costs ~10x more, and agents ask for
    # an observation at every decision (the values are the same as MahjongObservation(**f))
    obs = object.__new__(MahjongObservation)
    obs.__dict__.update(
        player=player,
        phase=phase,
        to_act=state.current_player(),
        turn=state.turn,
        hand=tuple(h[player]),
        drawn=state.drawn if phase == Phase.TURN and state.turn == player else -1,
        draw_kind=state.draw_kind,
        after_claim=state.after_claim,
        window_tile=state.window_tile if in_window else -1,
        window_from=state.window_from if in_window else -1,
        melds=tuple(melds),
        discards=(
            tuple(state.rivers[0]),
            tuple(state.rivers[1]),
            tuple(state.rivers[2]),
            tuple(state.rivers[3]),
        ),
        hand_sizes=(sum(h[0]), sum(h[1]), sum(h[2]), sum(h[3])),
        live_tiles=state.tail - state.head - state.cfg.dead_wall if dealt else 0,
        replacements_drawn=len(state.wall) - state.tail if dealt else 0,
        no_calls=state.no_calls,
        lock=state.locks[player],
        own_claim=state.intents[player] if in_window else -1,
        earth_ready=state.earth[player],
        dealer=state.dealer,
        continuation=state.continuation,
        round_wind=state.round_wind,
        hand_number=state.hand_number,
        dealer_passes=state.dealer_passes,
        scores=tuple(state.scores),
        last_result=state.last_result,
        config=state.cfg,
        discards_drawn=(
            tuple(state.discards_drawn[0]),
            tuple(state.discards_drawn[1]),
            tuple(state.discards_drawn[2]),
            tuple(state.discards_drawn[3]),
        ),
        flowers=(
            tuple(state.flowers[0]),
            tuple(state.flowers[1]),
            tuple(state.flowers[2]),
            tuple(state.flowers[3]),
        ),
        heaven_ready=state.heaven[player],
    )
    return obs
