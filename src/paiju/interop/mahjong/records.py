"""A refereed hand as a row of paiju's game records (``docs/records.md``), and its replay:
the bots were programs, so ``paiju records replay`` replays their recorded moves through the
engine instead of asking them again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paiju.core.errors import ConfigError, PaijuError
from paiju.interop.mahjong.messages import WINDS, Rules, parse_message, rules_items
from paiju.interop.mahjong.referee import HandRecord, forfeit_penalty
from paiju.mahjong.config import MahjongConfig
from paiju.mahjong.game import NUM_PLAYERS, MahjongGame

if TYPE_CHECKING:  # the arena is imported only when records are replayed
    from paiju.core.arena import ReplayCheck


def record_row(rules: MahjongConfig, bots: Sequence[str], hand: HandRecord, run_id: str) -> dict[str, Any]:
    """A refereed hand as a row of paiju's game records (``docs/records.md``)."""
    import paiju
    from paiju.mahjong.game import RULES_VERSION

    t = hand.table
    extra = dict(hand.record.get("extra", {}))
    extra.update({
        "forfeit": hand.forfeit, "actions": hand.actions, "rules": Rules(rules_items(rules)).format(),
        "table": {"dealer": t.dealer, "continuation": t.continuation, "round_wind": t.round_wind,
                  "passes": t.passes},
    })
    return {
        "run_id": run_id, "game_index": hand.index, "deal_index": hand.index, "lineup": 0,
        "game": "mahjong", "rules_version": RULES_VERSION, "arena_format": "referee", "seed": hand.seed,
        "deal": hand.wall or None, "dealer_seat": t.dealer, "agents": list(bots), "seat_agents": [0, 1, 2, 3],
        "roles": [WINDS[(s - t.dealer) % NUM_PLAYERS] for s in range(NUM_PLAYERS)],
        "moves": hand.moves, "move_players": hand.players, "move_ms": hand.move_ms,
        "returns": [float(d) for d in hand.deltas], "score": None,
        "scoring_rule": hand.record.get("scoring_rule"), "paiju_version": paiju.__version__,
        "extra": json.dumps(extra, sort_keys=True, ensure_ascii=False),
    }


def replay_hand(row: dict[str, Any]) -> tuple[bool, int | None]:
    """Replay a recorded refereed hand through the engine: every recorded move must be legal
    and written as recorded, and the points must follow (the penalty after a forfeit).
    Returns (identical, index of the first move that differs)."""
    extra = json.loads(row["extra"])
    rules = parse_message(extra["rules"])
    assert isinstance(rules, Rules)
    t = extra["table"]
    cfg = replace(
        rules.config(), dealer=t["dealer"], continuation=t["continuation"], round_wind=t["round_wind"]
    )
    from paiju.mahjong.game import parse_wall

    state = MahjongGame(cfg).new_initial_state()
    moves = row["moves"] or []
    if not row["deal"]:
        return (not moves), (0 if moves else None)
    state.apply(parse_wall(row["deal"], flowers=cfg.flowers))
    for i, (text, action) in enumerate(zip(moves[1:], extra["actions"][1:], strict=True), start=1):
        try:
            if state.action_to_string(action) != text:
                return False, i
            state.apply(action)
        except PaijuError:
            return False, i
    forfeit = extra.get("forfeit")
    if forfeit is not None:
        same = [float(x) for x in forfeit_penalty(forfeit["seat"], cfg)] == row["returns"]
        return same, None if same else len(moves)
    return state.is_terminal() and state.returns() == row["returns"], None


def replay_records(out_dir: str | Path, game_indices: Sequence[int]) -> list[ReplayCheck]:
    """``paiju records replay`` for a referee's records: each hand replayed with
    :func:`replay_hand` (the bots were programs, so their moves are replayed, not re-asked)."""
    from paiju.core.arena import ReplayCheck
    from paiju.core.records import read_records

    rows = {r["game_index"]: r for r in read_records(out_dir).to_pylist()}
    missing = [i for i in game_indices if i not in rows]
    if missing:
        raise ConfigError(f"{out_dir} has no recorded hand {missing[0]} ({len(rows)} hands recorded)")
    checks = []
    for i in game_indices:
        same, diff = replay_hand(rows[i])
        if not same and diff is None:
            diff = len(rows[i]["moves"] or [])  # the moves replay, but the points differ
        checks.append(ReplayCheck(i, len(rows[i]["moves"] or []), same, diff))
    return checks
