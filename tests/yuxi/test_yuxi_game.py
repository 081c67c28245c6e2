"""The yuxi engine against the core protocol: API conformance, hidden information, chance,
notation, and the invariant checker over many random games."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from paiju.core.agents import random_agents
from paiju.core.conformance import check_game_api
from paiju.core.errors import ConfigError, IllegalMoveError, InvalidNotationError
from paiju.core.protocol import CHANCE, Game, new_game, play_game
from paiju.core.rng import as_generator
from paiju.yuxi.actions import END_TURN, KEEP, NO_TARGET, ActionSpace, Deal, DieRoll, Offer
from paiju.yuxi.board import BOARDS, board_shape
from paiju.yuxi.game import (
    YuxiConfig,
    YuxiGame,
    YuxiObservation,
    YuxiState,
    _draw,
    _multiset_outcomes,
)
from paiju.yuxi.phases import PH_SWAP

BOARD_NAMES = list(BOARDS)


def _illegal(state: YuxiState) -> int | None:
    """An action known to be illegal here: KEEP outside a swap, END_TURN during one."""
    return END_TURN if state.phase == PH_SWAP else KEEP


@pytest.mark.parametrize("board", BOARD_NAMES)
def test_core_api_conformance_with_invariants_on(board: str) -> None:
    game = YuxiGame(board=board, decks=("tide_storm", "guild_iron"), check_invariants=True)
    assert isinstance(game, Game)
    check_game_api(game, games=8, seed=3, illegal_action=_illegal)


def test_conformance_without_die_or_swaps() -> None:
    game = YuxiGame(
        board="3x3", die_bonus=False, swaps=False, decks=("crab_feast", "tempest"), check_invariants=True
    )
    check_game_api(game, games=8, seed=5, illegal_action=_illegal)


@pytest.mark.parametrize("board", BOARD_NAMES)
def test_invariants_hold_over_many_random_games(board: str) -> None:
    """Thousands of random games in total across the boards and all deck pairs, checker on."""
    names = list(YuxiConfig().table().decks)
    n_games = {"3x3": 700, "4x4": 350, "6x4": 200}[board]
    rng = as_generator(11)
    games: dict[tuple[str, str, bool], YuxiGame] = {}
    longest = 0
    outcomes: Counter[float] = Counter()
    for i in range(n_games):
        decks = (names[int(rng.integers(8))], names[int(rng.integers(8))])
        die = bool(i % 2)
        key = (*decks, die)
        if key not in games:
            games[key] = YuxiGame(board=board, decks=decks, die_bonus=die, check_invariants=True)
        played = play_game(games[key], random_agents(2, i), seed=i)
        state, history = played.state, played.actions
        decisions = sum(1 for a in history if isinstance(a, int))
        longest = max(longest, decisions)
        outcomes[state.returns()[0]] += 1
        assert sum(state.returns()) == 0
    assert longest <= games[key].info.max_game_length
    assert outcomes[1.0] > 0 and outcomes[-1.0] > 0  # both seats win sometimes


def test_same_seed_same_game_and_clone_is_deep() -> None:
    game = YuxiGame(board="4x4")
    played = play_game(game, random_agents(2, 9), seed=4)
    a, ha = played.state, played.actions
    played = play_game(game, random_agents(2, 9), seed=4)
    b, hb = played.state, played.actions
    assert ha == hb and a.final_scores() == b.final_scores()
    st = new_game(game, 1)
    copy = st.clone()
    rng = as_generator(0)
    while not copy.is_terminal():
        if copy.is_chance_node():
            copy.apply_chance(rng)
        else:
            legal = copy.legal_actions()
            copy.apply(legal[int(rng.integers(len(legal)))])
    assert st.observation(0) == new_game(game, 1).observation(0)
    assert st.observation(1) == new_game(game, 1).observation(1)


# ---- hidden information -----------------------------------------------------------------------------
def _mid_game(board: str = "4x4", seed: int = 2, steps: int = 12) -> YuxiState:
    game = YuxiGame(board=board, decks=("tide_guild", "storm_iron"))
    rng = as_generator(seed)
    st = game.new_initial_state()
    n = 0
    while n < steps or st.is_chance_node():
        if st.is_chance_node():
            st.apply_chance(rng)
            continue
        legal = st.legal_actions()
        st.apply(legal[int(rng.integers(len(legal)))])
        n += 1
    return st


def test_observation_hides_the_opponents_hand_deck_and_offer() -> None:
    st = _mid_game()
    for me in (0, 1):
        opp = 1 - me
        obs = st.observation(me)
        assert obs.hand == tuple(st.hand[me]) and obs.deck == tuple(st.deck[me])
        voids = tuple(c for c in st.hand[opp] if st.cards[c].is_void)  # type: ignore[union-attr]
        assert obs.opponent_hidden == len(st.hand[opp]) - len(voids) and obs.opponent_voids == voids
        # no field holds the opponent's hidden cards: change them, the observation is the same
        other = st.clone()
        hidden = [c for c in other.hand[opp] if not other.cards[c].is_void]  # type: ignore[union-attr]
        if hidden:
            swap_in = next(
                c for c in range(1, len(other.deck[opp])) if other.deck[opp][c] and c not in hidden
            )
            other.hand[opp].remove(hidden[0])
            other.deck[opp][hidden[0]] += 1
            other.deck[opp][swap_in] -= 1
            other.hand[opp] = sorted([*other.hand[opp], swap_in])
            assert other.observation(me) == obs
            assert other.observation(opp) != st.observation(opp)


def test_resampling_redraws_the_opponents_cards_and_keeps_everything_seen() -> None:
    st = _mid_game()
    me, opp = 0, 1
    obs = st.observation(me)
    pool = Counter()
    for c, n in enumerate(st.deck[opp]):
        pool[c] += n
    for c in st.hand[opp]:
        pool[c] += 1
    hands = set()
    for seed in range(40):
        s = st.game.sample_state(obs, np.random.default_rng(seed))
        assert s.observation(me) == obs
        assert s.hand[me] == st.hand[me] and s.deck[me] == st.deck[me]
        union = Counter()
        for c, n in enumerate(s.deck[opp]):
            union[c] += n
        for c in s.hand[opp]:
            union[c] += 1
        assert union == pool  # the opponent's hand + deck is always their unseen cards
        from paiju.yuxi.invariants import check_invariants

        check_invariants(s)
        hands.add(tuple(s.hand[opp]))
    assert len(hands) > 10  # really redrawn


def test_a_pending_swap_offer_is_private() -> None:
    game = YuxiGame(board="3x3", decks=("tide_guild", "storm_iron"))
    rng = as_generator(5)
    st = game.new_initial_state()
    while st.phase != PH_SWAP:
        if st.is_chance_node():
            st.apply_chance(rng)
        else:
            st.apply(st.legal_actions()[0])
    p = st.to_move
    assert st.observation(p).offer == tuple(st.offer)
    assert st.observation(1 - p).offer == () and st.observation(1 - p).offer_size == len(st.offer)
    offers = {
        tuple(game.sample_state(st.observation(1 - p), np.random.default_rng(s)).offer) for s in range(30)
    }
    assert len(offers) > 1


def test_sample_state_rejects_foreign_observations() -> None:
    st = _mid_game()
    other = YuxiGame(board="3x3")
    with pytest.raises(ConfigError, match="different yuxi configuration"):
        other.sample_state(st.observation(0), np.random.default_rng(0))
    with pytest.raises(ConfigError):
        st.game.sample_state("not an observation", np.random.default_rng(0))


# ---- chance --------------------------------------------------------------------------------------
def test_offer_draws_match_the_enumerated_probabilities() -> None:
    counts = [0, 3, 0, 1, 2, 0, 4]
    outcomes = dict(_multiset_outcomes(counts, 2))
    assert abs(sum(outcomes.values()) - 1) < 1e-12
    assert outcomes[Offer((1, 1))] == pytest.approx(3 / 45)  # C(3,2) / C(10,2)
    assert outcomes[Offer((1, 6))] == pytest.approx(12 / 45)
    rng = np.random.default_rng(1)
    n = 40_000
    seen = Counter(Offer(_draw(counts, 2, rng)) for _ in range(n))
    for outcome, p in outcomes.items():
        expected = n * p
        assert abs(seen[outcome] - expected) < 5 * (expected * (1 - p)) ** 0.5 + 1


def test_chance_outcomes_are_checked() -> None:
    game = YuxiGame(board="3x3", decks=("tide_guild", "storm_iron"))
    st = game.new_initial_state()
    assert st.current_player() == CHANCE and st.chance_outcomes() is None
    with pytest.raises(IllegalMoveError, match="not 4 cards"):
        st.apply(Deal(((1, 1, 1, 1, 1), (31, 31, 31, 31))))  # 5 reef crabs: the deck holds 4
    with pytest.raises(IllegalMoveError, match="not a Deal"):
        st.apply(DieRoll(3))
    st.apply(Deal(((1, 1, 2, 3), (31, 31, 32, 33))))
    assert st.current_player() == CHANCE
    with pytest.raises(IllegalMoveError):
        st.apply(Offer((44, 44)))  # recruits are never in a deck


# ---- notation and the action space -----------------------------------------------------------------
def test_action_space_layout_round_trips() -> None:
    space = ActionSpace(44)
    assert space.size == 2 + 4 * 44 + 44 * 25 == 1278 and space.play_base == 178
    assert space.decode(END_TURN) == ("end", 0, 0) and space.decode(KEEP) == ("keep", 0, 0)
    for slot in range(4):
        for give in range(1, 45):
            assert space.decode(space.swap(slot, give)) == ("swap", slot, give)
    for card in range(1, 45):
        for t in range(25):
            assert space.decode(space.play(card, t)) == ("play", card, t)
    assert space.play(1, NO_TARGET) == 178 + 24
    with pytest.raises(ValueError):
        space.decode(1278)


@pytest.mark.parametrize("board", BOARD_NAMES)
def test_every_action_round_trips_through_notation(board: str) -> None:
    game = YuxiGame(board=board)
    rng = np.random.default_rng(7)
    for _ in range(6):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                a = st.sample_chance(rng)
                assert st.parse_action(st.action_to_string(a)) == a
                st.apply(a)
                continue
            legal = st.legal_actions()
            for a in legal:
                assert st.parse_action(st.action_to_string(a)) == a
            mask = st.legal_action_mask()
            assert mask.sum() == len(legal) and mask.shape == (game.info.num_distinct_actions,)
            st.apply(legal[int(rng.integers(len(legal)))])


def test_cell_names_round_trip_and_bad_notation_is_named() -> None:
    for shape in BOARDS.values():
        for i in range(shape.cells):
            assert shape.parse_cell(shape.cell_name(i)) == i
    sh = board_shape("6x4")
    assert sh.neighbours[0] == (1, 6) and sh.neighbours[7] == (1, 6, 8, 13)
    assert sh.rows[1] == (6, 7, 8, 9, 10, 11) and sh.columns[2] == (2, 8, 14, 20)
    with pytest.raises(InvalidNotationError, match="not a cell of the 3x3 board"):
        board_shape("3x3").parse_cell("d1")
    with pytest.raises(InvalidNotationError, match="row 5"):
        board_shape("4x4").parse_cell("a5")
    with pytest.raises(ConfigError, match="unknown yuxi board"):
        board_shape("5x5")
    st = _mid_game()
    for bad in ("fly away", "play", "play nosuchcard@a1", "swap reef_crab", "deal a,b"):
        with pytest.raises((InvalidNotationError, IllegalMoveError)):
            st.parse_action(bad)


def test_illegal_moves_say_why() -> None:
    st = _mid_game()
    while st.is_chance_node():
        st.apply_chance(0)
    with pytest.raises(IllegalMoveError, match="outside the yuxi action space"):
        st.apply(99_999)
    with pytest.raises(IllegalMoveError, match="decisions are ints"):
        st.apply("end")
    if st.phase == PH_SWAP:
        st.apply(KEEP)
    missing = next(c for c in range(1, 45) if c not in st.hand[st.to_move])
    with pytest.raises(IllegalMoveError, match="is not in the hand"):
        st.apply(st.game.actions.play(missing, 0))


def test_config_errors_name_the_problem() -> None:
    with pytest.raises(ConfigError, match="unknown yuxi deck 'nope'"):
        YuxiGame(decks=("nope", "tempest"))
    with pytest.raises(ConfigError, match="two deck names"):
        YuxiConfig(decks=("tempest",))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="bad yuxi option"):
        YuxiGame(colour="blue")
    assert YuxiConfig(decks="tempest, crab_feast").decks == ("tempest", "crab_feast")  # type: ignore[arg-type]


def test_registry_builds_yuxi_with_options() -> None:
    from paiju.core.registry import load_agents, load_game

    game = load_game("yuxi", board="3x3", die_bonus=False)
    assert isinstance(game, YuxiGame) and game.config.board == "3x3"
    assert set(load_agents("yuxi").names()) >= {"random", "greedy", "mcts"}


def test_observation_is_frozen_and_hashable() -> None:
    obs = _mid_game().observation(0)
    assert isinstance(obs, YuxiObservation)
    assert hash(obs) == hash(obs)
    with pytest.raises(AttributeError):
        obs.turn = 3  # type: ignore[misc]
    random.Random(0)  # no global RNG needed anywhere
