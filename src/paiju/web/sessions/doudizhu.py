"""Dou Dizhu in the web app: bids and card plays in notation (stored with the move type), the split hint."""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING, Any

from paiju.core.errors import InvalidNotationError
from paiju.web.sessions.base import GameSession

if TYPE_CHECKING:  # the game modules load on first use, not with the web app
    from paiju.doudizhu.game import DouDizhuAction, DouDizhuGame, DouDizhuState


class DouDizhuSession(GameSession["DouDizhuState", "DouDizhuAction"]):
    """Dou Dizhu: the human takes one seat, two AIs the others."""

    game: DouDizhuGame

    kind = "doudizhu"
    fallback_spec = "greedy"
    inline_agents = frozenset({"random", "greedy", "rule"})

    @classmethod
    def build_game(cls, params: dict[str, Any]) -> DouDizhuGame:
        from paiju.doudizhu.game import DouDizhuGame

        return DouDizhuGame(scoring=params.get("scoring", "competition"), bidding=bool(params.get("bidding")))

    @classmethod
    def warm_up(cls) -> None:
        """Also load the shipped split tagger, the hint's learned split (torch takes seconds
        to import; until it has loaded, the hint leaves the learned split out)."""
        from paiju.doudizhu.tagger.model import SHIPPED, shipped_model

        super().warm_up()
        if SHIPPED.is_file():
            shipped_model()

    def encode(self, action: DouDizhuAction) -> str:
        from paiju.doudizhu.game import Bid, Deal

        if isinstance(action, Bid):
            return f"bid {action.value}"
        if isinstance(action, Deal):
            raise TypeError("a deal is a chance outcome, not a decision to encode")
        if action.is_pass:
            return "pass"
        return f"{action}:{action.type.name.lower()}"

    def decode(self, token: str) -> DouDizhuAction:
        from paiju.doudizhu.game import Bid
        from paiju.doudizhu.moves import PASS, Move

        if token.startswith("bid "):
            return Bid.parse(token)
        if token == "pass":
            return PASS
        cards, _, kind = token.partition(":")
        return Move.parse(cards, kind or None)

    def parse_human(self, move: dict[str, Any]) -> DouDizhuAction:
        from paiju.doudizhu.moves import Move

        text = (move.get("move") or "").strip()
        kind = move.get("type")
        if not text and move.get("action") is not None:
            raise InvalidNotationError(
                "Dou Dizhu moves are notation: give 'move' (e.g. '33', 'pass'), not 'action'"
            )
        if not text:
            raise InvalidNotationError("empty move: give the cards (e.g. '33'), 'pass' or a bid")
        if kind:
            return Move.parse(text, kind)
        return self.state.parse_move(text)

    def describe(self, seat: int, action: DouDizhuAction, before: DouDizhuState) -> tuple[str, str]:
        from paiju.doudizhu.moves import Move

        if not isinstance(action, Move):  # a bid
            return str(action), ""
        return str(action), action.describe()

    def roles(self) -> list[str]:
        st = self.state
        return [st.role_name(s) for s in range(3)]

    def view(self) -> dict[str, Any]:
        from paiju.doudizhu.cards import RANKS

        st: Any = self.state
        obs = st.observation(self.human)
        out = self.base_view()
        out.update(
            phase=obs.phase,
            landlord=obs.landlord,
            roles=self.roles(),
            scoring=self.params.get("scoring", "competition"),
            bidding=bool(self.params.get("bidding")),
            hand=str(obs.hand),
            cards=[RANKS[r] for r in obs.hand.ranks()] if obs.hand else [],
            hand_sizes=list(obs.hand_sizes),
            kitty=str(obs.kitty) if obs.kitty is not None else None,
            to_beat=None
            if obs.to_beat is None
            else {"cards": str(obs.to_beat), "label": obs.to_beat.describe()},
            trick_owner=obs.trick_owner,
            bombs=obs.bombs,
            bids=list(obs.bids),
            legal=[],
        )
        if self.human_to_move():
            out["legal"] = [self._legal_item(a) for a in st.legal_actions()]
        if self.over:
            record = st.record()
            facts = record.facts()
            from paiju.doudizhu.game import rescore
            from paiju.doudizhu.scoring import SCORING_RULES

            out["result"] = {
                "winner": st.winner,
                "winner_role": st.role_name(st.winner),
                "landlord_won": facts.landlord_won,
                "returns": st.returns(),
                "your_return": st.returns()[self.human],
                "rule": st.game.rule.name,
                "landlord_score": st.game.rule.landlord_score(facts),
                "facts": dataclasses.asdict(facts),
                "under_each_rule": {name: rescore(record, name) for name in SCORING_RULES},
                "hands_left": [str(h) for h in st.hands],
                "deal": str(st.deal),
            }
        return out

    def _legal_item(self, action: DouDizhuAction) -> dict[str, Any]:
        from paiju.doudizhu.game import Bid

        if isinstance(action, Bid):
            return {"move": f"bid {action.value}", "label": str(action), "type": "bid", "cards": ""}
        m: Any = action
        if m.is_pass:
            return {"move": "pass", "label": "pass", "type": "pass", "cards": ""}
        return {"move": str(m), "label": m.describe(), "type": m.type.name.lower(), "cards": str(m)}

    def hint(self) -> dict[str, Any]:
        """The human's current hand split four ways: the paper's baseline, the two exact splits
        and the learned (tagger) split, the last two marking the groups the other lacks."""
        from paiju.doudizhu.split import split

        hand = self.state.observation(self.human).hand
        if not hand:
            return {"hand": "", "splits": []}
        splits = []
        for title, method, objective in (
            ("baseline (heuristic, 40 priority orders)", "heuristic", "groups"),
            ("exact: fewest groups", "exact", "groups"),
            ("exact: fewest plays (kickers attached)", "exact", "plays"),
        ):
            s = split(hand, method, objective)
            splits.append({"title": title, "method": method, "objective": objective, **s.to_dict()})
        # the server loads the tagger at start-up (torch takes seconds to import); until it has,
        # or where none is installed, the hint answers at once with the three splits above. Not
        # even imported here: an import would wait on the start-up thread's import of torch.
        # (a module still being imported is in sys.modules without its functions yet)
        tagger = sys.modules.get("paiju.doudizhu.tagger.model")
        loaded = getattr(tagger, "loaded_shipped_model", None)
        tag = getattr(tagger, "tag_hands", None)
        model = loaded() if loaded is not None else None
        if model is None or tag is None:
            return {"hand": str(hand), "splits": splits, "learned": "not loaded"}
        learned = tag(model, [hand])[0].split
        exact_plays = split(hand, "exact", "plays")
        learned_groups, exact_groups = set(learned), set(exact_plays)
        splits[2]["differs"] = [g not in learned_groups for g in exact_plays]
        splits.append({"title": "learned: how winners split (BiLSTM-CRF tagger)", "method": "tagger",
                       "objective": "groups", **learned.to_dict(),
                       "differs": [g not in exact_groups for g in learned]})
        return {"hand": str(hand), "splits": splits}

