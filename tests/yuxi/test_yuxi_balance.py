"""The balance report: hand-checked aggregation on synthetic records, and a small real run."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

from paiju.core.stats import proportion_ci
from paiju.yuxi.balance import GameRecord, _difference, run_balance, save_plots, summarize


def _rec(
    board: str,
    die: bool,
    decks: tuple[str, str],
    result: float,
    played0: tuple[int, ...] = (),
    played1: tuple[int, ...] = (),
) -> GameRecord:
    return GameRecord(
        board,
        die,
        decks,
        (1, 0) if result == 1 else (0, 1) if result == 0 else (1, 1),
        result,
        (played0, played1),
    )


def test_summary_numbers_are_hand_checked() -> None:
    # 3x3 with die: seat 0 wins 3 of 4; without: 1 win, 1 draw of 4 -> 1.5 / 4
    recs = [
        _rec("3x3", True, ("tide_guild", "tempest"), 1, played0=(1,)),
        _rec("3x3", True, ("tide_guild", "tempest"), 1, played0=(1,)),
        _rec("3x3", True, ("tempest", "tide_guild"), 1),
        _rec("3x3", True, ("tempest", "tide_guild"), 0, played1=(1,)),
        _rec("3x3", False, ("tide_guild", "tempest"), 0),
        _rec("3x3", False, ("tide_guild", "tempest"), 0.5),
        _rec("3x3", False, ("tempest", "tide_guild"), 1),
        _rec("3x3", False, ("tempest", "tide_guild"), 0),
    ]
    rep = summarize(recs, 4, ("greedy", "greedy"), 0, ["tide_guild", "tempest"])
    assert rep.first_player[("3x3", True)] == proportion_ci(3, 4)
    assert rep.first_player[("3x3", False)] == proportion_ci(1.5, 4)
    # tide_guild as seat 0 scored 1+1+0+0.5, as seat 1: 0+1 (game 4) + 0 + 1 -> 4.5 of 8
    assert rep.deck_overall["tide_guild"] == proportion_ci(4.5, 8)
    assert rep.deck_matrix["tide_guild"]["tempest"] == proportion_ci(4.5, 8)
    assert rep.deck_matrix["tempest"]["tide_guild"] == proportion_ci(3.5, 8)
    assert rep.deck_matrix["tempest"]["tempest"].n == 0
    crab = next(c for c in rep.cards if c.key == "reef_crab")  # id 1, only tide_guild holds it
    assert crab.in_deck == 8
    assert crab.play_rate == proportion_ci(3, 8)
    assert crab.win_when_played == proportion_ci(3, 3)  # games 1, 2 (seat 0) and 4 (seat 1 won)
    assert crab.win_when_not == proportion_ci(1.5, 5)
    assert math.isclose(crab.contribution.value, 1 - 0.3)
    lightning = next(c for c in rep.cards if c.key == "lightning")
    assert lightning.in_deck == 8 and lightning.play_rate.value == 0  # tempest holds it, never played here
    md = rep.markdown()
    assert "| 3x3 | on | 0.750 |" in md and "reef_crab" in md


def test_difference_interval_is_sane_at_the_edges() -> None:
    a, b = proportion_ci(2, 2), proportion_ci(10, 20)
    d = _difference(a, b)
    assert d.value == 0.5 and d.low < 0.2 and d.high <= 1.0  # n = 2: wide, not zero width
    assert _difference(proportion_ci(0, 0), b).n == 0


def test_a_small_real_run_and_its_plots(tmp_path: Path) -> None:
    rep = run_balance(3, seed=2, boards=("3x3",), agents=("greedy", "random"))
    assert set(rep.first_player) == {("3x3", True), ("3x3", False)}
    assert all(e.n == 3 for e in rep.first_player.values())
    assert len(rep.records) == 6
    # the die setting is paired: same decks for the same game index
    assert [r.decks for r in rep.records[::2]] == [r.decks for r in rep.records[1::2]]
    paths = save_plots(rep, tmp_path)
    assert [p.name for p in paths] == ["first_player.png", "deck_matrix.png", "cards.png"]
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert rep.to_dict()["first_player"][0]["n"] == 3


def test_workers_do_not_change_the_report() -> None:
    one = run_balance(2, seed=4, boards=("3x3",), agents=("greedy", "random"))
    two = run_balance(2, seed=4, boards=("3x3",), agents=("greedy", "random"), workers=2)
    assert one.records == two.records


def test_bonus_what_if_is_hand_checked() -> None:
    from paiju.yuxi.balance import bonus_share

    assert bonus_share(-2, (1,)) == 0.0 and bonus_share(-2, (2,)) == 0.5 and bonus_share(-2, (3,)) == 1.0
    assert bonus_share(-2, (1, 2, 3, 4, 5, 6)) == (0 + 0.5 + 4) / 6
    decks = ("tide_guild", "tempest")
    recs = [_rec("4x4", False, decks, 0), _rec("4x4", False, decks, 1)]
    # margins -1 and +1: with +1 the loss becomes a draw
    rep = summarize(recs, 2, ("greedy", "greedy"), 0, ["tide_guild", "tempest"])
    assert rep.bonus_what_if[("4x4", "none")].value == 0.5
    assert rep.bonus_what_if[("4x4", "+1")].value == (0.5 + 1) / 2
    assert rep.bonus_what_if[("4x4", "+2")].value == 1.0
    assert "| 4x4 | 0.500" in rep.markdown()


def test_tie_break_remedies_are_hand_checked() -> None:
    from paiju.yuxi.balance import bonus_share

    assert bonus_share(0, (0,), 1.0) == 1.0 and bonus_share(0, (0,), 0.0) == 0.0
    assert bonus_share(-1, (1,), 0.0) == 0.0  # a +1 that only ties loses under ties→2nd
    decks = ("tide_guild", "tempest")
    recs = [_rec("3x3", False, decks, 0.5), _rec("3x3", False, decks, 0.5), _rec("3x3", False, decks, 1)]
    rep = summarize(recs, 3, ("greedy", "greedy"), 0, list(decks))
    # two draws and a win: a draw is 0.5, a tie-break gives both draws to one seat
    assert rep.bonus_what_if[("3x3", "none")].value == 2 / 3
    assert rep.bonus_what_if[("3x3", "ties→1st")].value == 1.0
    assert rep.bonus_what_if[("3x3", "ties→2nd")].value == 1 / 3
    assert "ties→2nd" in rep.markdown()


def test_luck_pairs_are_hand_checked() -> None:
    deck = ("tempest", "tide_iron")
    # 4 pairs on 3x3 die off: (1,1) same seat, (0,0) same seat, (1,0) same agent, (0.5,1) a draw
    records = []
    for a, b in ((1.0, 1.0), (0.0, 0.0), (1.0, 0.0), (0.5, 1.0)):
        records.append(_rec("3x3", False, deck, a))
        records.append(dataclasses.replace(_rec("3x3", False, deck, b), swapped=True))
    report = summarize(records, 4, ("greedy", "greedy"), 0, list(deck))
    luck = report.luck[("3x3", False)]
    assert (luck.same_seat.value, luck.same_agent.value, luck.share.n) == (0.5, 0.25, 4)
    # ICC(1) by hand: pair means 1, 0, .5, .75 (grand .5625); MSB = 2·Σ(m−g)²/3, MSW = Σd²/8
    msb = 2 * ((1 - 0.5625) ** 2 + 0.5625**2 + 0.0625**2 + 0.1875**2) / 3
    msw = (0 + 0 + 1 + 0.25) / 8
    assert math.isclose(luck.share.value, (msb - msw) / (msb + msw))
    # the replays do not enter the other figures: the first games alone give the same report
    alone = summarize(records[::2], 4, ("greedy", "greedy"), 0, list(deck))
    assert report.first_player == alone.first_player and report.cards == alone.cards
    assert alone.luck == {}


def test_a_swapped_replay_is_the_same_deal_with_the_agents_seats_swapped() -> None:
    from paiju.core.protocol import play_game
    from paiju.core.rng import derive_seed
    from paiju.yuxi.agents import REGISTRY
    from paiju.yuxi.game import YuxiConfig, YuxiGame

    specs = ("random", "greedy")
    report = run_balance(3, seed=5, agents=specs, boards=("3x3",), luck=True)
    assert len(report.records) == 6 and all(not r.swapped for r in report.records)
    assert set(report.luck) == {("3x3", True), ("3x3", False)}
    plain = run_balance(3, seed=5, agents=specs, boards=("3x3",))
    assert plain.first_player == report.first_player and plain.luck == {}
    # the replay of game 0 (die on), built by hand: greedy in seat 0, random in seat 1, each
    # agent keeping its own seed; the opening deal equals the first game's
    first = report.records[0]
    game = YuxiGame(YuxiConfig(board="3x3", decks=first.decks, die_bonus=True))
    seed = derive_seed(5, 0)
    def pair() -> list[Any]:
        return [REGISTRY.make(s, derive_seed(seed, 100 + k)) for k, s in enumerate(specs)]

    replay = play_game(game, pair()[::-1], seed)
    original = play_game(game, pair(), seed)
    assert replay.actions[0] == original.actions[0]  # the deal
    state = game.new_initial_state()
    for a in replay.actions:
        state.apply(a)
    a, b = state.final_scores()
    pair = report.luck[("3x3", True)]
    assert pair.share.n == 3
    from paiju.yuxi.balance import play_balance_game

    rec = play_balance_game(game, specs, seed, swapped=True)
    assert rec.swapped and rec.scores == (a, b)
