"""yuxi in the web app: the human against one AI, each move's effects told in sentences."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from paiju.core.errors import PaijuError
from paiju.web.sessions.base import IntActionSession

if TYPE_CHECKING:  # the game modules load on first use, not with the web app
    from paiju.yuxi.game import YuxiGame, YuxiState


class YuxiSession(IntActionSession["YuxiState"]):
    """yuxi: the human against one AI on any board size."""

    game: YuxiGame

    kind = "yuxi"
    fallback_spec = "greedy"

    @classmethod
    def build_game(cls, params: dict[str, Any]) -> YuxiGame:
        from paiju.yuxi.game import YuxiGame

        options: dict[str, Any] = {
            "board": params.get("board", "4x4"),
            "die_bonus": bool(params.get("die_bonus", True)),
            "swaps": bool(params.get("swaps", True)),
        }
        if params.get("decks"):
            options["decks"] = tuple(params["decks"])
        # a designer's card / deck tables, sent as TOML text (bounded by the request model)
        for part in ("cards_toml", "decks_toml"):
            if params.get(part) is not None:
                options[part] = str(params[part])
        return YuxiGame(**options)

    move_example = "'play reef_crab@b2', 'end', 'keep'"

    def __init__(self, game_id: str, params: dict[str, Any], seed: int) -> None:
        from paiju.yuxi.events import EventLog

        super().__init__(game_id, params, seed)
        self.state.log = EventLog()  # the transcript says what each move did

    def effects(self) -> list[str]:
        from paiju.yuxi.events import describe

        st = self.state
        if st.log is None:
            return []
        table = self.game.table
        return describe(
            st.log.take(),
            card_name=lambda c: table.card(c).name,
            cell_name=st.shape.cell_name,
            seat_name=lambda s: "you" if s == self.human else "AI",
            source_name=self._source_name,
        )

    def _source_name(self, source: str) -> str:
        """``reef_crab deploy`` -> ``寄居蟹 Reef Crab deploy``: the card's name as the board shows it."""
        key, _, rest = source.partition(" ")
        try:
            name = self.game.table.card(key).name
        except (KeyError, ValueError, PaijuError):
            return source  # thunder, fog, the weather
        return f"{name} {rest}".strip()

    def record_row(self, game_index: int, run_id: str) -> dict[str, Any]:
        """The shared record row, its ``extra`` also naming the card table's hash (the
        identity of the table the moves mean something on)."""
        from paiju.yuxi.cards import table_fingerprint

        row = super().record_row(game_index, run_id)
        extra = json.loads(row["extra"])
        extra["table_hash"] = table_fingerprint(self.game.table)
        row["extra"] = json.dumps(extra, default=str)
        return row

    def parse_notation(self, text: str) -> int:
        return self.state.parse_action(text)

    def describe(self, seat: int, action: int, before: YuxiState) -> tuple[str, str]:
        kind, _, _ = self.game.actions.decode(int(action))
        if seat != self.human and kind == "swap":
            return "swaps a hand card for an offered one", ""
        if seat != self.human and kind == "keep":
            return "keeps the hand (no swap)", ""
        return before.action_to_string(action), ""

    def _card(self, cid: int) -> dict[str, Any]:
        return self.game.table.card(cid).summary()

    def view(self) -> dict[str, Any]:
        from paiju.yuxi.cards import table_fingerprint
        from paiju.yuxi.effects import WEATHER_NAMES

        st: Any = self.state
        obs = st.observation(self.human)
        shape = st.shape
        out = self.base_view()
        cells = []
        for i, cell in enumerate(obs.cells):
            item: dict[str, Any] = {"cell": shape.cell_name(i), "weather": WEATHER_NAMES[obs.weather[i]]}
            if cell is not None:
                cid, owner, power, base, armour, coins, cd = cell
                item.update(
                    card=self._card(cid),
                    owner=owner,
                    points=power,
                    base=base,
                    armour=armour,
                    coins=coins,
                    cooldown=cd,
                )
            cells.append(item)
        out.update(
            phase=obs.phase,
            board={"name": shape.name, "width": shape.width, "height": shape.height},
            decks=list(self.game.config.decks),
            table_hash=table_fingerprint(self.game.table),
            cells=cells,
            hand=[{**self._card(c), "price": st.price(self.human, c)} for c in obs.hand],
            offer=[self._card(c) for c in obs.offer],
            purses=list(obs.purses),
            scores=list(obs.scores),
            deck_sizes=list(obs.deck_sizes),
            opponent_hidden=obs.opponent_hidden,
            opponent_voids=[self._card(c) for c in obs.opponent_voids],
            out_of_cards=list(obs.out),
            bonus=obs.bonus,
            legal=[],
        )
        if self.human_to_move():
            items = []
            for a in st.legal_actions():
                kind, x, y = self.game.actions.decode(int(a))
                item = {"action": int(a), "label": st.action_to_string(a), "kind": kind}
                if kind == "play":
                    item["card"] = x
                    item["cell"] = shape.cell_name(y) if y < shape.cells else None
                if kind == "swap":
                    # a person reads card names, not the notation's keys
                    give, take = self.game.table.card(y).name, self.game.table.card(st.offer[x]).name
                    item.update(give=give, take=take, text=f"give {give}, take {take}")
                items.append(item)
            out["legal"] = items
        if self.over:
            final = st.final_scores()
            out["result"] = {
                "final_scores": list(final),
                "die_bonus": st.bonus,
                "returns": st.returns(),
                "winner": 0 if final[0] > final[1] else 1 if final[1] > final[0] else None,
            }
        return out

