"""The tagger's dataset: winners' initial hands labelled by how they were played (``docs/splitting.md``).

From every finished Dou Dizhu game of a records directory (``docs/records.md``: our self-play,
or a user's own logs imported from JSON lines) one row: the **winner's** initial hand (the
seat that played out all its cards first) and one label per card, 0 solo / solo chain, 1
pair / pair chain, 2 trio / trio chain, 3 bomb / rocket, given by the move the card was
played in. Kickers are stripped into their own groups: a solo kicker is labelled 0 and a
pair kicker 1, whatever it was attached to. Choices the paper leaves open, documented in
``docs/splitting.md`` ("The tagger's dataset"): the four of a four-with-two is labelled 3
(the cards were held as a bomb: the paper's own Table 4 tags a four 3 next to trios); the
body of an airplane is 2; jokers played as solo kickers are 0; the hand is in canonical
ascending order and a rank's labels ascending (the cards of a rank are interchangeable).

Splits are **by deal**: a row's ``deal_id`` is a hash of the deal's notation, so the games
of one deal (duplicate formats, two runs with one seed) always fall on the same side, and
rows from separate test records (dealt from other seeds) are checked to share no deal with
training.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.parquet as pq

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.doudizhu.cards import NUM_RANKS, format_counts
from paiju.doudizhu.moves import Move, MoveType

SPLITS: Final = ("train", "validation", "test")

BODY_LABEL: Final = {
    MoveType.SOLO: 0,
    MoveType.SOLO_CHAIN: 0,
    MoveType.PAIR: 1,
    MoveType.PAIR_CHAIN: 1,
    MoveType.TRIO: 2,
    MoveType.TRIO_CHAIN: 2,
    MoveType.TRIO_SOLO: 2,
    MoveType.TRIO_PAIR: 2,
    MoveType.AIRPLANE_SOLO: 2,
    MoveType.AIRPLANE_PAIR: 2,
    MoveType.BOMB: 3,
    MoveType.ROCKET: 3,
    MoveType.FOUR_TWO_SOLO: 3,
    MoveType.FOUR_TWO_PAIR: 3,
}
"""Label of a move's body (its kickers aside): the group type the body is, the four of a
four-with-two a bomb (3)."""
KICKER_LABEL: Final = {
    MoveType.TRIO_SOLO: 0,
    MoveType.AIRPLANE_SOLO: 0,
    MoveType.FOUR_TWO_SOLO: 0,
    MoveType.TRIO_PAIR: 1,
    MoveType.AIRPLANE_PAIR: 1,
    MoveType.FOUR_TWO_PAIR: 1,
}
"""Label of a move's kicker cards: solo kickers are solos (0), pair kickers pairs (1)."""

SCHEMA: Final = pa.schema(
    [
        pa.field("hand", pa.string()),
        pa.field("tags", pa.string()),
        pa.field("role", pa.string()),
        pa.field("seat", pa.int8()),
        pa.field("source", pa.string()),
        pa.field("run_id", pa.string()),
        pa.field("game_index", pa.int64()),
        pa.field("deal_index", pa.int64()),
        pa.field("deal_id", pa.string()),
        pa.field("split", pa.string()),
    ]
)
"""One row per winner hand. ``source`` is the winner's agent spec (``imported`` for logs
without one): the data source every metric is reported by."""


def winner_tags(plays: Iterable[Move]) -> tuple[str, str]:
    """``(hand, tags)`` of a winner who played ``plays`` (all its moves, passes allowed):
    the hand in canonical notation and one label per card, kickers stripped."""
    per_rank: list[list[int]] = [[] for _ in range(NUM_RANKS)]
    for move in plays:
        if move.is_pass:
            continue
        body, kickers = move.body.counts, move.kickers.counts
        body_label = BODY_LABEL[move.type]
        kicker_label = KICKER_LABEL.get(move.type, 0)
        for r in range(NUM_RANKS):
            per_rank[r].extend([body_label] * body[r])
            per_rank[r].extend([kicker_label] * kickers[r])
    counts = tuple(len(labels) for labels in per_rank)
    tags = "".join(str(label) for labels in per_rank for label in sorted(labels))
    return format_counts(counts), tags


def deal_id(deal: str) -> str:
    """Stable id of a deal (its notation hashed): equal deals, equal ids, in any run."""
    return hashlib.sha256(deal.encode()).hexdigest()[:16]


def split_of(deal: str, validation: float, test: float) -> str:
    """``train``/``validation``/``test`` for a deal, by its hash alone (never by row)."""
    u = int(hashlib.sha256(b"split:" + deal.encode()).hexdigest()[:12], 16) / 16**12
    if u < test:
        return "test"
    if u < test + validation:
        return "validation"
    return "train"


@dataclass(frozen=True)
class WinnerHand:
    hand: str
    tags: str
    role: str
    seat: int
    source: str


def _plays_of(row: dict[str, Any], where: str) -> tuple[list[tuple[int, Move]], int]:
    """The card plays ``(seat, move)`` of a record row and its landlord seat: from the
    engine's record in ``extra`` when there, else replayed from ``moves`` (imported logs)."""
    from paiju.doudizhu.game import GameRecord

    extra = json.loads(row["extra"]) if row.get("extra") else {}
    if isinstance(extra, dict) and "record" in extra:
        record = GameRecord.from_dict(extra["record"])
        return list(record.plays), record.landlord
    return _replay_moves(row, where)


def _replay_moves(row: dict[str, Any], where: str) -> tuple[list[tuple[int, Move]], int]:
    from paiju.doudizhu.cards import Deal
    from paiju.doudizhu.game import DouDizhuGame

    if not row.get("deal") or row.get("moves") is None or row.get("move_players") is None:
        raise CorruptRecordError(f"{where}: needs 'deal', 'moves' and 'move_players' (or an engine record)")
    if row.get("dealer_seat") not in (None, 0):
        raise CorruptRecordError(f"{where}: imported logs are read without bidding, landlord in seat 0")
    state = DouDizhuGame().new_initial_state()
    try:
        state.apply(Deal.parse(row["deal"]))
        for text, seat in zip(row["moves"], row["move_players"], strict=True):
            if seat < 0:  # a chance event: the deal itself
                continue
            if state.current_player() != seat:
                raise CorruptRecordError(f"{where}: seat {seat} plays {text!r} out of turn")
            state.apply(state.parse_move(text))
    except ValueError as err:
        raise CorruptRecordError(f"{where}: moves do not replay ({err})") from None
    return list(state.history), 0


def winner_hand(row: dict[str, Any]) -> WinnerHand:
    """The winner's hand and tags of one record row; :class:`CorruptRecordError` naming the
    game when its winner (by the returns) did not play out all its cards."""
    where = f"run {row.get('run_id')} game {row.get('game_index')}"
    plays, landlord = _plays_of(row, where)
    returns = row.get("returns") or []
    winners = [s for s, r in enumerate(returns) if r > 0]
    if not winners:
        raise CorruptRecordError(f"{where}: no seat has a positive return, so there is no winner")
    # the last card play is the winner's (it emptied its hand); the returns must agree
    seat = next((s for s, m in reversed(plays) if not m.is_pass), winners[0])
    dealt = 20 if seat == landlord else 17
    played = sum(m.size for s, m in plays if s == seat)
    if played != dealt or seat not in winners:
        raise CorruptRecordError(
            f"{where}: the winner (seat {seat}) played {played} of its {dealt} cards; "
            "a training hand needs a finished game whose winner played every card"
        )
    hand, tags = winner_tags(m for s, m in plays if s == seat)
    agents = row.get("agents") or []
    source = str(agents[seat]) if seat < len(agents) and agents[seat] else "imported"
    role = "landlord" if seat == landlord else "farmer"
    return WinnerHand(hand, tags, role, seat, source)


def _record_rows(paths: Sequence[str | os.PathLike[str]]) -> Iterator[dict[str, Any]]:
    from paiju.core.records import read_records

    columns = ["run_id", "game_index", "deal_index", "game", "deal", "dealer_seat", "agents",
               "moves", "move_players", "returns", "extra"]
    for path in paths:
        table = read_records(path, columns=columns)
        if table.num_rows == 0:
            raise ConfigError(f"no game records under {path}")
        for batch in table.to_batches(4096):
            yield from batch.to_pylist()


def build_rows(
    records: Sequence[str | os.PathLike[str]],
    test_records: Sequence[str | os.PathLike[str]] = (),
    *,
    validation: float = 0.05,
    test: float = 0.05,
) -> tuple[list[dict[str, Any]], int]:
    """Dataset rows of ``records`` (split by deal hash) and ``test_records`` (all test);
    returns the rows and how many training rows were dropped because their deal is a test
    deal. Without ``test_records`` a ``test`` share of deals is held out by hash."""
    if not 0 <= validation < 1 or not 0 <= test < 1 or validation + test >= 1:
        raise ConfigError(f"validation={validation} and test={test} must be shares in [0, 1) summing below 1")
    out: list[dict[str, Any]] = []
    test_deals: set[str] = set()
    for row in _record_rows(test_records):
        out.append(_dataset_row(row, "test"))
        test_deals.add(out[-1]["deal_id"])
    held_share = 0.0 if test_records else test
    dropped = 0
    for row in _record_rows(records):
        item = _dataset_row(row, split_of(row["deal"], validation, held_share))
        if item["deal_id"] in test_deals:
            dropped += 1
            continue
        out.append(item)
    return out, dropped


def _dataset_row(row: dict[str, Any], split: str) -> dict[str, Any]:
    if row.get("game") != "doudizhu":
        raise ConfigError(f"run {row.get('run_id')} game {row.get('game_index')}: not a Dou Dizhu game")
    won = winner_hand(row)
    return {
        "hand": won.hand,
        "tags": won.tags,
        "role": won.role,
        "seat": won.seat,
        "source": won.source,
        "run_id": row["run_id"],
        "game_index": row["game_index"],
        "deal_index": row["deal_index"],
        "deal_id": deal_id(row["deal"]),
        "split": split,
    }


def write_dataset(rows: Sequence[dict[str, Any]], out: str | os.PathLike[str]) -> Path:
    """Write ``rows`` as one Parquet file (atomically: a temporary file renamed)."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".tmp-{path.name}")
    pq.write_table(pa.Table.from_pylist(list(rows), schema=SCHEMA), tmp)
    os.replace(tmp, path)
    return path


def read_dataset(path: str | os.PathLike[str], split: str | None = None) -> list[dict[str, Any]]:
    """Rows of a dataset file (one ``split`` or all); :class:`ConfigError` for a file that is
    not one."""
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as err:
        raise ConfigError(f"{path}: not a readable tagger dataset ({err})") from None
    missing = [n for n in ("hand", "tags", "split", "deal_id", "source") if n not in table.column_names]
    if missing:
        raise ConfigError(f"{path}: not a tagger dataset, columns {missing} missing")
    rows = table.to_pylist()
    if split is not None:
        if split not in SPLITS:
            raise ConfigError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
        rows = [r for r in rows if r["split"] == split]
    return rows


def label_statistics(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Rows, deals and label shares per split and per source (what ``tagger-data`` prints)."""
    def shares(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
        labels = Counter(ch for r in items for ch in r["tags"])
        cards = sum(labels.values())
        return {
            "hands": len(items),
            "deals": len({r["deal_id"] for r in items}),
            "landlord_share": round(sum(r["role"] == "landlord" for r in items) / max(1, len(items)), 4),
            "label_share": {k: round(labels[k] / max(1, cards), 4) for k in "0123"},
        }

    return {
        "total": shares(rows),
        "by_split": {s: shares([r for r in rows if r["split"] == s]) for s in SPLITS},
        "by_source": {src: shares([r for r in rows if r["source"] == src])
                      for src in sorted({r["source"] for r in rows})},
    }


__all__ = [
    "BODY_LABEL",
    "KICKER_LABEL",
    "SCHEMA",
    "SPLITS",
    "WinnerHand",
    "build_rows",
    "deal_id",
    "label_statistics",
    "read_dataset",
    "split_of",
    "winner_hand",
    "winner_tags",
    "write_dataset",
]
