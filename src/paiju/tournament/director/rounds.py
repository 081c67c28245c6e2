"""A round's life: pairing (with byes or sitters, the movement and the hands), its boards, and
their release. Each step is one transaction of the event store, so the round is either
written whole or not at all; each random step draws from a seed that is stored with it.

Rounds are paired in order. Round 1 is drawn at random or seeded by rating (the format's
``first_round``); every later round is Swiss on the totals so far
(:func:`paiju.tournament.director.standings.totals_before`). Both go through the one solver
(:mod:`paiju.tournament.director.pairing`), so club tables and repeats are avoided the same
way: round 1 gives the solver *virtual totals* that make its draw the cheapest partition
(consecutive triples of the random order; or, by rating, the players at the same place of
each third of the rating order, so the strongest meet last), and the solver departs from it
only to avoid a same-club table.

With a final (the format's ``final_after`` = K), a round after K seats only the finalists
(:func:`paiju.tournament.director.standings.finalists`), Swiss on their final totals (what they
carried in, then the final's results), with byes or sitters by the event's rule. Round K + 1 is
paired only once every result of rounds 1..K counts, and stores the cut with its pairing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, get_args

import numpy as np

from paiju.core.errors import ConfigError
from paiju.core.rng import as_generator
from paiju.tournament.director import movement
from paiju.tournament.director.boards import Board, deal_key, make_boards, select_at_random, select_by_dih
from paiju.tournament.director.formats import TABLE_SIZE, BoardSelection, EventFormat
from paiju.tournament.director.pairing import DEFAULT_BUDGET, Entrant, pair_key, solve
from paiju.tournament.director.pins import issue_pins
from paiju.tournament.director.players import next_unpaired_round
from paiju.tournament.director.standings import Standings, compute_standings, finalists, totals_before
from paiju.tournament.director.store import EventStore, Player, RoundInfo, Seat, players_by_table

Method = Literal["random", "rating", "swiss"]
METHODS: Final[tuple[Method, ...]] = get_args(Method)
SELECTIONS: Final[tuple[BoardSelection, ...]] = get_args(BoardSelection)


def meetings(store: EventStore, before: int) -> Counter[tuple[int, int]]:
    """How often each pair of players sat at one table in the rounds before ``before``."""
    met: Counter[tuple[int, int]] = Counter()
    for info in store.rounds():
        if info.number >= before:
            break
        for table in players_by_table(store.seats(info.number)).values():
            players = [p for p in table if p is not None]  # sitters meet no one
            for i, a in enumerate(players):
                for b in players[i + 1 :]:
                    met[pair_key(a, b)] += 1
    return met


def _byes(
    field: list[Player], count: int, totals: dict[int, float], store: EventStore, rng: np.random.Generator
) -> list[Player]:
    """Who sits out: fewest byes so far, then the lowest total, then the lowest rating, then a lot."""
    if count == 0:
        return []
    had = Counter(player for _, player in store.byes())
    lots = rng.permutation(len(field))
    ranked = sorted(
        range(len(field)),
        key=lambda i: (had[field[i].id], totals.get(field[i].id, 0.0), _rating(field[i]), lots[i]),
    )
    return [field[i] for i in ranked[:count]]


def _rating(p: Player) -> float:
    return p.rating if p.rating is not None else float("-inf")


def _entrants(
    method: Method, field: list[Player], sitters: int, totals: dict[int, float], rng: np.random.Generator
) -> list[Entrant]:
    """The field (and sitters, keys -1, -2) in standings order with the totals the solver pairs on."""
    lots = rng.permutation(len(field))
    if method == "random":
        order = [field[i] for i in lots]
    elif method == "rating":
        order = [field[i] for i in sorted(range(len(field)), key=lambda i: (-_rating(field[i]), lots[i]))]
    else:
        order = [
            field[i]
            for i in sorted(
                range(len(field)), key=lambda i: (-totals[field[i].id], -_rating(field[i]), lots[i])
            )
        ]
    keys: list[tuple[int, str, bool]] = [(p.id, p.club, False) for p in order]
    keys += [(-(s + 1), "", True) for s in range(sitters)]
    tables = len(keys) // TABLE_SIZE
    out: list[Entrant] = []
    for k, (key, club, sitter) in enumerate(keys):
        if method == "random":
            total = -float(k // TABLE_SIZE)  # consecutive triples of the draw
        elif method == "rating":
            total = -float(k % tables)  # the k-th of each third of the rating order
        else:
            total = totals[key] if not sitter else min(totals[p.id] for p in field)
        out.append(Entrant(key, total, club, sitter))
    return out


@dataclass(frozen=True)
class RoundPairing:
    info: RoundInfo
    seats: list[Seat]
    byes: list[int]


def pair_round(
    store: EventStore,
    round_no: int,
    seed: int,
    who: str,
    *,
    method: Method | None = None,
    budget: int = DEFAULT_BUDGET,
) -> RoundPairing:
    """Pair round ``round_no`` (the next unpaired one) and plan its movement, in one transaction."""
    expected = next_unpaired_round(store)
    if round_no != expected:
        raise ConfigError(
            f"round {round_no}: rounds are paired in order; the next to pair is round {expected}"
        )
    fmt = store.event().format
    if round_no > fmt.rounds:
        raise ConfigError(f"round {round_no}: the event's format plans {fmt.rounds} rounds")
    field = [p for p in store.players() if p.plays_in(round_no)]
    # the standings after the round before, computed once: the final's cut and the totals Swiss
    # pairs on both read them
    previous = compute_standings(store, round_no - 1) if round_no > 1 else None
    cut = _final_cut(store, fmt, round_no, previous) if fmt.in_final(round_no) else []
    if fmt.in_final(round_no):
        field = [p for p in field if p.id in set(cut)]
    if len(field) < TABLE_SIZE:
        raise ConfigError(
            f"round {round_no}: {len(field)} player(s) in the field; a table needs {TABLE_SIZE}"
        )
    chosen: Method = method or (fmt.first_round if round_no == 1 else "swiss")
    rng = as_generator(seed)
    totals = totals_before(store, round_no, previous)
    odd = len(field) % TABLE_SIZE
    bye_players = _byes(field, odd, totals, store, rng) if fmt.odd_field == "bye" else []
    sitters = (TABLE_SIZE - odd) % TABLE_SIZE if fmt.odd_field == "sitter" else 0
    playing = [p for p in field if p not in bye_players]
    entrants = _entrants(chosen, playing, sitters, totals, rng)
    result = solve(entrants, meetings(store, round_no), budget=budget)
    order = {e.key: i for i, e in enumerate(entrants)}
    tables = sorted(result.tables, key=lambda t: sum(order[k] for k in t))
    seats = [
        Seat(table_no, position, key if key >= 0 else None)
        for table_no, table in enumerate(tables, start=1)
        for position, key in enumerate(sorted(table, key=order.__getitem__))
    ]
    stages = movement.plan_round(
        seats, movement.board_numbers(round_no, fmt.boards_per_round), _hand_counts(store, round_no)
    )
    report: dict[str, Any] = {
        "method": chosen,
        "cost": result.cost.as_dict(),
        "optimal": result.optimal,
        "work": result.work,
        "budget": budget,
        "byes": [p.id for p in bye_players],
        "sitters": sitters,
        "totals": {str(p.id): totals[p.id] for p in playing} if chosen == "swiss" else {},
    }
    if fmt.final_after is not None:
        report["stage"] = "final" if fmt.in_final(round_no) else "qualifying"
        if round_no == fmt.final_after + 1:
            report["finalists"] = cut  # the cut, fixed from now on (standings read it here)
    with store.transaction(who, f"pair round {round_no}") as tx:
        tx.insert(
            "rounds",
            {
                "number": round_no,
                "method": chosen,
                "pairing_seed": seed,
                "pairing_report": json.dumps(report, sort_keys=True),
                "paired_at": tx.at,
            },
        )
        for seat in seats:
            tx.insert("seats", {"round": round_no, **seat.__dict__})
        for p in bye_players:
            tx.insert("byes", {"round": round_no, "player_id": p.id})
        for st in stages:
            tx.insert(
                "movement",
                {
                    "round": round_no,
                    "table_no": st.table_no,
                    "stage": st.stage,
                    "board": st.board,
                    "copy": st.copy,
                    "holders": "".join(map(str, st.holders)),
                },
            )
    return RoundPairing(store.round(round_no), store.seats(round_no), [p.id for p in bye_players])


def _final_cut(store: EventStore, fmt: EventFormat, round_no: int, previous: Standings | None) -> list[int]:
    """The finalists of a final round (ids). The final's first round reads the cut from complete
    qualifying results (``previous``: the standings after the round before), and stores it with
    its pairing; later rounds read the stored cut."""
    last = fmt.final_after
    assert last is not None
    if round_no != last + 1:
        return finalists(store)
    if store.round(last).released_at is None:
        raise ConfigError(f"round {round_no}: the final's cut needs round {last} released and scored")
    assert previous is not None  # round_no > 1: the final starts after round 1 at the earliest
    if previous.pending or previous.missing:
        raise ConfigError(
            f"round {round_no}: the final's cut needs every result of rounds 1..{last}: "
            f"{previous.pending} pending, {previous.missing} missing (confirm them, or settle them "
            "with paiju tournament adjust)"
        )
    return finalists(store, previous)


def _hand_counts(store: EventStore, before: int) -> dict[int, tuple[int, int, int]]:
    held: list[movement.Holding] = []
    for info in store.rounds():
        if info.number < before:
            held += movement.holdings(store.seats(info.number), store.movement(info.number))
    return movement.hand_counts(held)


def choose_boards(
    store: EventStore,
    round_no: int,
    seed: int,
    who: str,
    *,
    select: BoardSelection,
    pool: Path | None,
    dists: Path | None = None,
    min_plays: int = 50,
) -> list[Board]:
    """Choose, number and store round ``round_no``'s boards (secret until :func:`release`)."""
    info = store.round(round_no)
    if store.boards(round_no):
        raise ConfigError(f"round {round_no} already has its boards (chosen {info.boards_at})")
    fmt = store.event().format
    used = {deal_key(Board.parse(b.record).deal()) for b in store.all_boards()}
    count = fmt.boards_per_round
    if select == "dih":
        if pool is None or dists is None:
            raise ConfigError("--select dih needs --pool (the deals) and --dists (their score laws)")
        field = sum(s.player_id is not None for s in store.seats(round_no))
        choice = select_by_dih(
            pool,
            dists,
            count,
            used,
            players=field,
            event_boards=fmt.rounds * count,
            # R unique places = the top R + 1 totals pairwise distinct (docs/dih.md §1)
            top=fmt.top + 1,
            min_plays=min_plays,
        )
    else:
        choice = select_at_random(count, used, seed, pool)
    boards = make_boards(movement.board_numbers(round_no, count), choice.deals, seed)
    report = {**choice.report, "boards": [b.number for b in boards]}
    with store.transaction(who, f"choose the boards of round {round_no}") as tx:
        for board in boards:
            tx.insert(
                "boards",
                {
                    "number": board.number,
                    "round": round_no,
                    "record": board.record(),
                    "checksum": board.check,
                    "source": choice.report["method"],
                },
            )
        tx.update(
            "rounds",
            {"number": round_no},
            {"board_seed": seed, "board_selection": json.dumps(report, sort_keys=True), "boards_at": tx.at},
        )
    return boards


def round_boards(store: EventStore, round_no: int) -> list[Board]:
    """The round's boards, read back from their records (every check verified)."""
    return [Board.parse(b.record) for b in store.boards(round_no)]


def release(store: EventStore, round_no: int, who: str) -> RoundInfo:
    """Make the round's boards public (listings show their hands from now on), open it for
    score entry, and issue each table its PIN (:mod:`paiju.tournament.director.pins`)."""
    info = store.round(round_no)
    if not store.boards(round_no):
        raise ConfigError(f"round {round_no} has no boards yet (paiju tournament boards --select ...)")
    if info.released_at is not None:
        raise ConfigError(f"round {round_no} was released at {info.released_at}")
    with store.transaction(who, f"release round {round_no}") as tx:
        tx.update("rounds", {"number": round_no}, {"released_at": tx.at})
        issue_pins(tx, store, round_no)
    return store.round(round_no)


def check_format(fmt: EventFormat, players: Sequence[object]) -> None:
    """Refuse a format the field cannot play (before the event file is written)."""
    if len(players) < TABLE_SIZE:
        raise ConfigError(f"{len(players)} player(s): an event needs at least one table of {TABLE_SIZE}")
    if fmt.final_players is not None and fmt.final_players > len(players):
        raise ConfigError(f"format final_players={fmt.final_players}: only {len(players)} players entered")
