"""The ``policy`` agent: legal play in every seat, determinism, encoding, checkpoints and errors."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import Action, play_game
from paiju.core.rng import derive_seed
from paiju.doudizhu import split_exact
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.agents.policy import (
    SHIPPED,
    Arch,
    PolicyAgent,
    PolicyNet,
    decision_tensors,
    load_checkpoint,
    save_checkpoint,
    segment_log_softmax,
    shipped_checkpoint_bytes,
)
from paiju.doudizhu.cards import Hand
from paiju.doudizhu.encoding import (
    CARD_BITS,
    STATE_LAYOUT,
    STATE_SIZE,
    card_bits,
    encode_decision,
    encode_state,
    fewest_plays,
)
from paiju.doudizhu.game import DouDizhuConfig, DouDizhuGame
from paiju.doudizhu.moves import key_of

MODELS = Path(__file__).resolve().parents[2] / "src" / "paiju" / "doudizhu" / "models"


class Checked:
    """Wraps an agent and asserts every choice is one of the offered legal actions."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.calls = inner, inner.name, 0

    def act(self, observation: Any, legal: Sequence[Action]) -> Action:
        choice = self.inner.act(observation, legal)
        assert choice in legal, f"{choice!r} not among the legal actions"
        self.calls += 1
        return choice


def _block(vector: np.ndarray, name: str) -> np.ndarray:
    start = 0
    for block, width in STATE_LAYOUT:
        if block == name:
            return vector[start : start + width]
        start += width
    raise KeyError(name)


# ---- legality and determinism ----------------------------------------------------------------
@pytest.mark.parametrize("model", SHIPPED)
@pytest.mark.parametrize(
    "config", [DouDizhuConfig(), DouDizhuConfig(bidding=True, wing_rule="rlcard", scoring="casual")]
)
def test_policy_plays_only_legal_moves_in_every_seat(model: str, config: DouDizhuConfig) -> None:
    game = DouDizhuGame(config)
    for seat in range(3):
        for g in range(2):
            seed = derive_seed(11, seat, g)
            agents: list[Any] = [REGISTRY.make("random", seed=seed + s) for s in range(3)]
            agents[seat] = Checked(REGISTRY.make(f"policy:model={model}", seed=seed))
            state = play_game(game, agents, seed).state
            assert state.is_terminal() and agents[seat].calls > 0
            assert sum(state.returns()) == pytest.approx(0.0)


def test_policy_is_deterministic_for_a_seed_and_temperature_samples_with_its_own_generator() -> None:
    game = DouDizhuGame()

    def moves(spec: str, agent_seed: int) -> list[str]:
        agents = [REGISTRY.make(spec, seed=agent_seed + s) for s in range(3)]
        history = play_game(game, agents, 5).actions
        return [str(a) for a in history]

    assert moves("policy:model=large", 1) == moves("policy:model=large", 1)
    assert moves("policy:model=large", 1) == moves("policy:model=large", 99)  # greedy: seed-free
    warm = "policy:model=small,temperature=2.0"
    assert moves(warm, 3) == moves(warm, 3)
    runs = {tuple(moves(warm, s)) for s in range(4)}
    assert len(runs) > 1  # sampling really uses the seed


def test_scores_do_not_depend_on_the_order_of_the_legal_moves() -> None:
    game = DouDizhuGame()
    agent = REGISTRY.make("policy:model=large", seed=0)
    assert isinstance(agent, PolicyAgent)
    state = game.new_state_from_deal(game.new_initial_state().sample_chance(np.random.default_rng(3)))
    rng = np.random.default_rng(0)
    checked = 0
    while not state.is_terminal() and checked < 12:
        legal = state.legal_actions()
        if len(legal) > 2:
            obs = state.observation(state.current_player())
            perm = rng.permutation(len(legal))
            a = agent.scores(obs, legal)
            b = agent.scores(obs, [legal[i] for i in perm])
            np.testing.assert_allclose(a[perm], b, rtol=1e-5, atol=1e-5)
            checked += 1
        state.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 3


# ---- encoding -----------------------------------------------------------------------------------
def test_card_bits_are_at_least_k_of_each_rank() -> None:
    hand = Hand.parse("3334445556789TJQKA22XD")
    bits = card_bits(hand.counts)
    assert bits.shape == (CARD_BITS,) and bits.sum() == len(hand)
    # rank 3 (index 0) has 3 cards: bits 0..2 on, bit 3 off; the jokers are the last two bits
    assert bits[:4].tolist() == [1, 1, 1, 0] and bits[-2:].tolist() == [1, 1]
    assert card_bits(Hand.parse("2222").counts)[48:52].tolist() == [1, 1, 1, 1]


def test_state_vector_after_the_landlords_lead() -> None:
    game = DouDizhuGame()
    deal = game.new_initial_state().sample_chance(np.random.default_rng(21))
    state = game.new_state_from_deal(deal)
    lead = max(state.legal_actions(), key=lambda m: (m.size, -m.rank))  # the biggest lead
    state.apply(lead)
    obs = state.observation(1)  # farmer 1 to follow
    v = encode_state(obs)
    assert v.shape == (STATE_SIZE,) and v.dtype == np.uint8
    assert _block(v, "role").tolist() == [0, 1, 0]
    assert _block(v, "trick_owner").tolist() == [0, 0, 0, 1]  # owned by prev (the landlord)
    assert _block(v, "trick").tolist() == card_bits(lead.counts).tolist()
    assert np.flatnonzero(_block(v, "trick_type")).tolist() == [int(lead.type)]
    assert np.flatnonzero(_block(v, "size_next")).tolist() == [17]  # farmer 2
    assert np.flatnonzero(_block(v, "size_prev")).tolist() == [20 - lead.size]  # the landlord
    assert _block(v, "played_prev").sum() == lead.size and _block(v, "played_me").sum() == 0
    assert _block(v, "last_prev_flags").tolist() == [0, 0, 1]
    assert _block(v, "last_next_flags").tolist() == [1, 0, 0]
    assert _block(v, "unseen").sum() == 54 - 17 - lead.size
    # the kitty is public: the kitty cards the landlord still holds are known to the farmers
    assert deal.kitty is not None
    assert _block(v, "landlord_known").sum() == len(deal.kitty) - sum(
        min(k, c) for k, c in zip(deal.kitty.counts, lead.counts, strict=True)
    )
    plays_now = min(10, split_exact.min_plays(obs.hand.counts))
    assert np.flatnonzero(_block(v, "plays_now")).tolist() == [plays_now]
    legal = state.legal_actions()
    d = encode_decision(obs, legal)
    for i, m in enumerate(legal):
        after = tuple(h - c for h, c in zip(obs.hand.counts, m.counts, strict=True))
        assert d.moves[i].tolist() == list(m.counts) and d.move_type[i] == int(m.type)
        assert d.move_rank[i] == m.rank and d.move_length[i] == m.length
        assert d.plays_after[i] == min(10, split_exact.min_plays(after))
        assert fewest_plays(key_of(after)) == split_exact.min_plays(after)


def test_segment_log_softmax_matches_a_softmax_per_decision() -> None:
    gen = torch.Generator().manual_seed(0)
    sizes = [1, 4, 2, 7]
    logits = torch.randn(sum(sizes), generator=gen) * 5
    segment = torch.repeat_interleave(torch.arange(len(sizes)), torch.tensor(sizes))
    got = segment_log_softmax(logits, segment, len(sizes))
    want = torch.cat([torch.log_softmax(part, 0) for part in torch.split(logits, sizes)])
    torch.testing.assert_close(got, want)


# ---- checkpoints -------------------------------------------------------------------------------
def _some_decisions() -> list[Any]:
    game = DouDizhuGame()
    agents = [REGISTRY.make("greedy", seed=s) for s in range(3)]
    history = play_game(game, agents, 8).actions
    replay = game.new_state_from_deal(history[0])
    out = []
    for move in history[1:]:
        legal = replay.legal_actions()
        if len(legal) > 1:
            out.append(encode_decision(replay.observation(replay.current_player()), legal))
        replay.apply(move)
    return out[:10]


def test_checkpoint_round_trip_gives_identical_scores(tmp_path: Path) -> None:
    torch.manual_seed(3)
    net = PolicyNet(Arch(hidden=24, layers=2))
    inputs = decision_tensors(_some_decisions())
    path = tmp_path / "net.pt"
    save_checkpoint(path, net, {"note": "test"})
    loaded = load_checkpoint(path)
    assert loaded.arch == net.arch
    with torch.inference_mode():
        torch.testing.assert_close(loaded(**inputs), net.eval()(**inputs), rtol=0, atol=0)
    agent = REGISTRY.make(f"policy:model={path}", seed=0)
    assert isinstance(agent, PolicyAgent) and agent.net.arch == Arch(24, 2)


@pytest.mark.parametrize("model", SHIPPED)
def test_shipped_checkpoints_load_from_package_data_with_config_and_metrics(model: str) -> None:
    data, label = shipped_checkpoint_bytes(model)
    assert len(data) < 5 * 1024 * 1024, f"{label} is {len(data)} bytes"
    net = load_checkpoint(data, name=label)
    config = json.loads((MODELS / f"ddz-policy-{model}.config.json").read_text())
    metrics = json.loads((MODELS / f"ddz-policy-{model}.metrics.json").read_text())
    assert config["command"].startswith("python -m paiju.doudizhu.train_policy")
    assert config["args"]["hidden"] == net.arch.hidden and config["args"]["layers"] == net.arch.layers
    assert metrics["parameters"] == sum(p.numel() for p in net.parameters())
    assert 0.0 < metrics["final"]["val/accuracy"] <= 1.0


def test_the_two_shipped_models_differ_in_size_and_imitation_accuracy() -> None:
    small, large = (json.loads((MODELS / f"ddz-policy-{m}.metrics.json").read_text()) for m in SHIPPED)
    assert large["train_decisions"] > 10 * small["train_decisions"]
    assert large["parameters"] > 10 * small["parameters"]
    assert large["final"]["val/accuracy"] > small["final"]["val/accuracy"] + 0.1


def _payload(**changes: Any) -> bytes:
    net = PolicyNet(Arch(hidden=8, layers=1))
    buf = io.BytesIO()
    save_checkpoint(buf, net)  # type: ignore[arg-type]
    payload = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    payload.update(changes)
    out = io.BytesIO()
    torch.save(payload, out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "not a readable PyTorch checkpoint"),
        (b"definitely not a zip file", "not a readable PyTorch checkpoint"),
        ("truncated", "not a readable PyTorch checkpoint"),
        ("list", "not a dictionary"),
        ("format", "not a Dou Dizhu policy checkpoint"),
        ("encoding", "encoding version 0"),
        ("arch", "weights do not match the architecture"),
        ("bad_arch", "bad architecture"),
        ("nan", "NaN or infinite"),
        ("no_weights", "no 'state_dict'"),
    ],
)
def test_corrupt_or_mismatched_checkpoints_name_the_file_and_the_problem(
    tmp_path: Path, content: Any, problem: str
) -> None:
    good = _payload()
    if content == "truncated":
        data = good[: len(good) // 2]
    elif content == "list":
        buf = io.BytesIO()
        torch.save([1, 2, 3], buf)
        data = buf.getvalue()
    elif content == "format":
        data = _payload(format="something.else")
    elif content == "encoding":
        data = _payload(encoding_version=0)
    elif content == "arch":
        data = _payload(arch={"hidden": 9, "layers": 1})
    elif content == "bad_arch":
        data = _payload(arch={"hidden": -3, "layers": 1})
    elif content == "nan":
        weights = torch.load(io.BytesIO(good), weights_only=True)["state_dict"]
        weights["out.bias"] = torch.tensor([float("nan")])
        data = _payload(state_dict=weights)
    elif content == "no_weights":
        data = _payload(state_dict=None)
    else:
        data = content
    path = tmp_path / "broken.pt"
    path.write_bytes(data)
    with pytest.raises(CorruptRecordError, match=problem) as info:
        load_checkpoint(path)
    assert str(path) in str(info.value)
    with pytest.raises(CorruptRecordError, match=r"broken\.pt"):
        REGISTRY.make(f"policy:model={path}", seed=0)


def test_missing_checkpoints_and_unknown_names_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(CorruptRecordError, match="no such checkpoint file"):
        load_checkpoint(tmp_path / "absent.pt")
    with pytest.raises(CorruptRecordError, match="is a directory"):
        load_checkpoint(tmp_path)
    with pytest.raises(CorruptRecordError, match=r"absent\.pt: no such checkpoint file"):
        REGISTRY.make(f"policy:model={tmp_path / 'absent.pt'}", seed=0)
    with pytest.raises(ConfigError, match="unknown policy model 'medium'"):
        REGISTRY.make("policy:model=medium", seed=0)
    with pytest.raises(ConfigError, match=r"temperature=-1 is below the minimum 0"):
        REGISTRY.make("policy:model=small,temperature=-1", seed=0)
    with pytest.raises(ConfigError, match="unknown parameter"):
        REGISTRY.resolve("policy:size=small")
