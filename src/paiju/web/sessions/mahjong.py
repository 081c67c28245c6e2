"""Taiwan mahjong in the web app: one hand, the human's claim decisions sealed until the
window closes, a shanten hint and the Expectimax advice."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paiju.core.errors import IllegalMoveError
from paiju.web.sessions.base import IntActionSession

if TYPE_CHECKING:  # the game modules load on first use, not with the web app
    from paiju.mahjong.game import MahjongGame, MahjongState


class MahjongSession(IntActionSession["MahjongState"]):
    """Taiwan 16-tile mahjong, one hand: the human takes one seat, three AIs the others."""

    game: MahjongGame

    kind = "mahjong"
    fallback_spec = "greedy"

    ADVICE_TOP = 5
    """Most candidate discards the Expectimax hint lists."""
    ADVICE_DEPTH = 2
    """Deepest hint search: depth 2 took a median 0.37 s on the 2-core VM (docs/web.md); depth 3
    takes tens of seconds (``paiju mahjong advise --help``), past the analysis time limit."""

    def __init__(self, game_id: str, params: dict[str, Any], seed: int) -> None:
        self._advice: dict[tuple[int, int], list[dict[str, Any]]] = {}
        """The latest Expectimax hint by (ply, depth): asking twice costs one search."""
        super().__init__(game_id, params, seed)

    @classmethod
    def build_game(cls, params: dict[str, Any]) -> MahjongGame:
        from paiju.mahjong.game import MahjongGame

        # the flowers are the one rule a player may turn on here (older games have no key: off)
        return MahjongGame(mode="hand", flowers=bool(params.get("flowers", False)))

    @classmethod
    def warm_up(cls) -> None:
        """Also build the shanten tables, which every view's hint reads."""
        from paiju.mahjong.shanten import warm_up

        super().warm_up()
        warm_up()

    move_example = "'5m', 'pung', 'chow 345m', 'pass'"

    def parse_notation(self, text: str) -> int:
        return self.state.parse_action(text)

    def sealed(self, before: MahjongState) -> bool:
        from paiju.mahjong.game import Phase

        return before.phase in (Phase.CLAIM, Phase.ROB)

    def after_play(self) -> None:
        from paiju.mahjong.game import Phase

        if self.state.phase not in (Phase.CLAIM, Phase.ROB):
            for e in self.transcript:
                e.hidden_until_resolved = False

    def describe(self, seat: int, action: int, before: MahjongState) -> tuple[str, str]:
        from paiju.mahjong.game import ADDED_KONG, CONCEALED_KONG

        a = int(action)
        public_kongs = self.game.config.concealed_kong_public
        if CONCEALED_KONG <= a < ADDED_KONG and seat != self.human and not public_kongs:
            return "concealed kong", ""
        return before.action_to_string(action), ""

    def view(self) -> dict[str, Any]:
        from paiju.mahjong.game import Phase
        from paiju.mahjong.tiles import flower_name, tile_name

        st: Any = self.state
        obs = st.observation(self.human)
        out = self.base_view()
        hand = [tile_name(k) for k in range(len(obs.hand)) for _ in range(obs.hand[k])]
        # once the hand is over the engine has already passed the deal on: show this hand's dealer
        dealer = st.last_result.dealer if self.over and st.last_result is not None else obs.dealer
        out.update(
            phase=Phase(obs.phase).name.lower(),
            to_act=obs.to_act,
            turn=obs.turn,
            dealer=dealer,
            winds=["東南西北"[(s - dealer) % 4] for s in range(4)],
            hand=hand,
            drawn=tile_name(obs.drawn) if obs.drawn >= 0 else None,
            melds=[[str(m) if m.tile >= 0 else "concealed kong (face down)" for m in ms] for ms in obs.melds],
            meld_tiles=[[_meld(m) for m in ms] for ms in obs.melds],
            flowers=[[flower_name(f) for f in fs] for fs in obs.flowers],
            rules={"flowers": self.game.config.flowers},
            rivers=[
                [{"tile": tile_name(k), "claimed": by >= 0} for k, by in river] for river in obs.discards
            ],
            hand_sizes=list(obs.hand_sizes),
            live_tiles=obs.live_tiles,
            window_tile=tile_name(obs.window_tile) if obs.window_tile >= 0 else None,
            window_from=obs.window_from if obs.window_tile >= 0 else None,
            legal=[],
            hint=self.hint(),
        )
        if self.human_to_move():
            out["legal"] = [
                {"action": int(a), "label": st.action_to_string(a), "kind": _action_kind(int(a))}
                for a in st.legal_actions()
            ]
        if self.over:
            out["result"] = _result(st.last_result, st)
        return out

    def hint(self) -> dict[str, Any]:
        """Shanten and effective tiles of the human's concealed hand, counted over unseen tiles."""
        from paiju.mahjong.shanten import discard_options, effective_counts, shanten_counts
        from paiju.mahjong.tiles import tile_name

        obs: Any = self.state.observation(self.human)
        counts = list(obs.hand)
        n = sum(counts)
        if n == 0 or n % 3 == 0:
            return {}
        unseen = obs.unseen_counts()
        out: dict[str, Any] = {"tiles": n, "shanten": shanten_counts(counts)}
        eff = effective_counts(counts, unseen)
        out["effective"] = {tile_name(k): v for k, v in eff.items()}
        out["effective_total"] = sum(eff.values())
        if n % 3 == 2:
            out["discards"] = [
                {
                    "tile": tile_name(o.discard),
                    "shanten": o.shanten,
                    "total": o.total,
                    "effective": {tile_name(k): v for k, v in o.effective.items()},
                }
                for o in discard_options(counts, unseen)[:6]
            ]
        return out

    def advice_position(self) -> tuple[int, Any]:
        """(ply, the human's observation) while the human has a discard due: what the
        Expectimax hint (:meth:`advice`) is computed from, taken under the game's lock."""
        from paiju.mahjong.game import Phase

        obs: Any = self.state.observation(self.human)
        if not self.human_to_move() or obs.phase != Phase.TURN or sum(obs.hand) % 3 != 2:
            now = "the hand is over" if self.over else "it is not your turn to discard"
            raise IllegalMoveError(f"the Expectimax hint is for your turn with a discard due; {now}")
        return self.ply, obs

    def advice(self, ply: int, observation: Any, depth: int) -> list[dict[str, Any]]:
        """Every distinct discard with its Expectimax value, effective tiles and win probability,
        best first: :func:`paiju.mahjong.score_hand.advise_position` (the ``paiju mahjong
        advise`` search) on the human's own observation. Runs outside the game's lock."""
        from paiju.mahjong.score_hand import advise_position
        from paiju.mahjong.tiles import Tile

        key = (ply, depth)
        rows = self._advice.get(key)
        if rows is None:
            rows = [
                {**a.as_dict(), "face": Tile(a.discard).chinese}
                for a in advise_position(observation, depth=depth)
            ]
            self._advice = {key: rows}  # only the latest position is worth keeping
        return rows


def _meld(m: Any) -> dict[str, Any]:
    """A meld for the page: what it is and its tiles (none for another's face-down kong)."""
    from paiju.mahjong.tiles import tile_name

    if m.tile < 0:
        return {"label": "concealed kong", "tiles": []}
    return {"label": str(m).rsplit(" ", 1)[0], "tiles": [tile_name(k) for k in m.kinds()]}


def _action_kind(a: int) -> str:
    from paiju.mahjong.game import CONCEALED_KONG, PASS, WIN

    if a < CONCEALED_KONG:
        return "discard"
    if a < WIN:
        return "kong"
    if a == WIN:
        return "win"
    if a == PASS:
        return "pass"
    return "claim"


def _result(result: Any, st: Any) -> dict[str, Any]:
    from paiju.mahjong.scoring import PATTERN_ENGLISH
    from paiju.mahjong.tiles import format_counts, tile_name

    if result is None:
        return {"exhaustive": True, "winners": [], "returns": st.returns()}
    wins = []
    for i, w in enumerate(result.winners):
        score = result.scores[i]
        wins.append(
            {
                "winner": w,
                "tai": score.tai,
                "patterns": [
                    {"name": name, "english": PATTERN_ENGLISH.get(name, name), "tai": tai}
                    for name, tai in score.patterns
                ],
                "reading": score.reading,
                "hand": format_counts(result.winning_hands[i]) if i < len(result.winning_hands) else "",
                "payments": [
                    {
                        "payer": p.payer,
                        "tai": p.tai,
                        "amount": p.amount,
                        "lines": [
                            {"name": name, "english": PATTERN_ENGLISH.get(name, name), "tai": tai}
                            for name, tai in p.lines
                        ],
                    }
                    for p in result.payments
                    if p.winner == w
                ],
            }
        )
    return {
        "exhaustive": result.exhaustive,
        "winners": list(result.winners),
        "self_draw": result.self_draw,
        "robbed_kong": result.robbed_kong,
        "discarder": result.discarder,
        "winning_tile": tile_name(result.winning_tile) if result.winning_tile >= 0 else None,
        "wins": wins,
        "deltas": list(result.deltas),
        "returns": st.returns(),
    }

