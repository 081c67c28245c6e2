"""The mahjong DQN trainer: rewards of a recorded hand, the DQN / Double DQN flag, resume equality
with one and two actor processes, and the command end to end (a model the ``ddqn`` agent plays)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from paiju.algorithms.dqn import Batch, dqn_targets, load_model, seeded_network
from paiju.cli.main import run
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.core.rng import derive_seed
from paiju.mahjong import features as F
from paiju.mahjong.agents import REGISTRY, ExpectimaxAgent
from paiju.mahjong.game import NUM_PLAYERS, PASS, WIN, MahjongGame, MahjongObservation, Phase
from paiju.mahjong.tiles import NUM_KINDS
from paiju.mahjong.train_dqn import (
    HAND,
    SEAT,
    WALL,
    HandExperience,
    HandTask,
    TrainConfig,
    build_learner,
    check_config,
    explored_value,
    hand_transitions,
    play_hand,
    train,
)


def tiny(out: Path, **changes: Any) -> TrainConfig:
    """A run of a few hands that trains from its 40th transition on, in a second or two."""
    cfg = TrainConfig(
        out=str(out), trunk="mlp", hidden=(16,), total_steps=260, learning_starts=40, buffer_size=400,
        batch_size=8, train_every=1, target_sync_every=25, hands_per_round=6, checkpoint_every=70,
        log_every=35, eval_every=0, seed=5, curve=False,
    )
    return replace(cfg, **changes)


# ---- rewards -------------------------------------------------------------------------------
def test_transitions_of_a_hand_made_episode() -> None:
    # seat 0 discards twice then seat 2 once, then seat 0 again; seat 0 won 3000 points.
    obs = np.arange(4, dtype=np.float16)[:, None] * np.ones((4, F.FLAT_SIZE), dtype=np.float16)
    mask = np.zeros((4, NUM_KINDS), dtype=np.bool_)
    for i in range(4):
        mask[i, i] = True
    exp = HandExperience(
        index=0, seat=np.array([0, 0, 2, 0]), obs=obs, mask=mask, action=np.array([5, 6, 7, 8]),
        value=np.array([1000.0, 2000.0, 500.0, 0.0]), returns=np.array([3000.0, -1000.0, -1000.0, -1000.0]),
    )
    tr = hand_transitions(exp, shaping=0.1, score_scale=1000.0)
    # by hand: 0.1 * V / 1000, and the seat's last decision adds its points / 1000
    np.testing.assert_allclose(tr.reward, [0.1, 0.2, 0.05 - 1.0, 0.0 + 3.0], rtol=1e-6)
    assert tr.done.tolist() == [False, False, True, True]
    assert tr.next_obs[0][0] == 1 and tr.next_obs[1][0] == 3  # the same seat's next decision
    assert tr.next_mask[0].tolist() == mask[1].tolist() and tr.next_mask[1].tolist() == mask[3].tolist()
    assert not tr.next_mask[2].any() and not tr.next_obs[3].any()


class _Witness:
    """Plays like the behaviour search and writes down, for every discard, the value that an
    independent search of the same position gives the chosen kind (its root's child)."""

    def __init__(self, agent: ExpectimaxAgent, seat: int, seen: list[tuple[int, Any, list[int], int, float]]):
        self.name = "witness"
        self.agent, self.seat, self.seen = agent, seat, seen
        self.valued: list[dict[int, float]] = []  # every discard the search valued, per decision

    def act(self, observation: Any, legal: Any) -> int:
        obs: MahjongObservation = observation
        action = self.agent.act(obs, legal)
        if obs.phase == Phase.TURN and action < NUM_KINDS:
            discards = [a for a in legal if a < NUM_KINDS]
            search = self.agent.search(self.agent.context(obs))
            _, _, children = search.root_discard(obs.hand, discards)
            self.seen.append((self.seat, obs, discards, action, children[action]))
            self.valued.append(dict(children))
        return int(action)


def test_rewards_of_a_recorded_hand_are_the_shaped_search_values_and_the_final_score() -> None:
    cfg = TrainConfig(out="unused")
    task = HandTask(3, derive_seed(cfg.seed, HAND, 3), cfg.behaviour_spec())
    exp = play_hand(task)
    tr = hand_transitions(exp, cfg.shaping, cfg.score_scale)
    # the same hand replayed by plain search agents, each discard valued independently
    seen: list[tuple[int, Any, list[int], int, float]] = []
    agents = [_Witness(REGISTRY.make(task.behaviour, seed=derive_seed(task.seed, SEAT, s)), s, seen)
              for s in range(NUM_PLAYERS)]
    played = play_game(MahjongGame(), agents, derive_seed(task.seed, WALL))
    returns = played.state.returns()
    assert len(seen) == len(tr.action) > 20
    # the advantage targets: every discard the independent search valued, in the score's units
    valued = iter([v for a in agents for v in a.valued])
    for i in np.argsort(tr.seat, kind="stable"):
        children = next(valued)
        expected_row = np.full(NUM_KINDS, np.nan)
        for kind, v in children.items():
            expected_row[kind] = v / 1000.0
        np.testing.assert_allclose(tr.action_values[i], expected_row, rtol=1e-5, atol=1e-6)
        assert np.isfinite(tr.action_values[i]).sum() >= 2
    assert [s[0] for s in seen] == tr.seat.tolist() and [s[3] for s in seen] == tr.action.tolist()
    for i, (seat, obs, _, _, value) in enumerate(seen):
        later = [j for j in range(i + 1, len(seen)) if seen[j][0] == seat]
        expected = 0.1 * value / 1000.0 + (0.0 if later else returns[seat] / 1000.0)
        assert tr.reward[i] == pytest.approx(expected, rel=1e-5, abs=1e-6)
        assert tr.done[i] == (not later)
        np.testing.assert_array_equal(tr.obs[i], F.encode_flat(obs).astype(np.float16))
        if later:
            nxt = seen[later[0]]
            np.testing.assert_array_equal(tr.next_obs[i], F.encode_flat(nxt[1]).astype(np.float16))
            assert np.flatnonzero(tr.next_mask[i]).tolist() == sorted(nxt[2])
    assert sum(returns) == 0 and any(returns)  # this hand was won: the final rewards carry it


def test_recommend_returns_the_acted_move_and_its_searched_value() -> None:
    game = MahjongGame()
    state = game.new_hand(seed=11)
    agent = REGISTRY.make("expectimax-shanten:depth=1")
    assert isinstance(agent, ExpectimaxAgent)
    checked = 0
    while not state.is_terminal() and checked < 30:
        if state.is_chance_node():
            state.apply_chance(np.random.default_rng(checked))
            continue
        obs, legal = state.observation(state.current_player()), state.legal_actions()
        action, value = agent.recommend(obs, legal)
        assert action == agent.act(obs, legal)
        if WIN in legal:
            assert value is None
        elif obs.phase == Phase.TURN or (obs.phase == Phase.CLAIM and PASS in legal):
            assert value is not None and value >= 0
        state.apply(action)
        checked += 1
    assert checked == 30


def test_epsilon_discards_are_seeded_legal_and_off_by_default() -> None:
    spec = TrainConfig(out="unused").behaviour_spec()
    searched = play_hand(HandTask(2, 21, spec))
    again = play_hand(HandTask(2, 21, spec, epsilon=1.0))
    assert play_hand(HandTask(2, 21, spec, epsilon=1.0)).action.tolist() == again.action.tolist()
    assert again.action.tolist() != searched.action.tolist()
    assert all(again.mask[i, a] for i, a in enumerate(again.action))  # always a legal discard
    # the shaping is the search's value of the discard played: a number for every row
    assert np.isfinite(again.value).all() and (again.value >= 0).all()


def test_an_explored_discard_is_shaped_by_its_own_value() -> None:
    values = {3: 500.0, 7: 200.0, 9: 350.0, 40: 900.0}  # 40: a kong, not a discard
    assert explored_value(values, 7, 500.0) == 200.0
    # pruned by the search: no better than the worst discard it kept (the kong does not count)
    assert explored_value(values, 12, 500.0) == 200.0
    assert explored_value({}, 12, 500.0) == 500.0  # nothing valued: the recommended move's value
    assert explored_value({}, 12, None) is None


# ---- the DQN / Double DQN flag ---------------------------------------------------------------
def test_algorithm_flag_reaches_the_learners_targets(tmp_path: Path) -> None:
    exp = play_hand(HandTask(0, 7, TrainConfig(out="unused").behaviour_spec()))
    tr = hand_transitions(exp, 0.1, 1000.0)
    keep = ~tr.done
    batch = Batch.from_arrays(tr.obs[keep], tr.action[keep], tr.reward[keep], tr.next_obs[keep],
                              tr.done[keep], tr.next_mask[keep])
    ys = {}
    for algorithm in ("dqn", "ddqn"):
        learner = build_learner(tiny(tmp_path, algorithm=algorithm))
        assert learner.config.double == (algorithm == "ddqn") and learner.config.gamma == 0.99
        # the target network differs from the online one, as after some training
        learner.target.load_state_dict(seeded_network(learner.net_config, 99).state_dict())
        ys[algorithm] = learner.targets(batch)
        # the learner's targets are the tested dqn_targets (tests/algorithms/test_dqn.py) of its flag
        want = dqn_targets(batch, learner.online, learner.target, 0.99, double=algorithm == "ddqn")
        torch.testing.assert_close(ys[algorithm], want, rtol=0, atol=0)
    # max over the target's legal values >= the target's value of the online network's choice
    assert bool((ys["dqn"] >= ys["ddqn"] - 1e-6).all()) and bool((ys["dqn"] > ys["ddqn"] + 1e-4).any())


# ---- resume ----------------------------------------------------------------------------------
def _state(out: Path) -> dict[str, Any]:
    state: dict[str, Any] = torch.load(out / "checkpoint.pt", weights_only=True)
    return state


def _assert_same_run(a: Path, b: Path) -> None:
    sa, sb = _state(a), _state(b)
    for part in ("online", "target"):
        da, db = sa["learner"][part], sb["learner"][part]
        assert da.keys() == db.keys()
        for key in da:
            assert torch.equal(da[key], db[key]), (part, key)
    for key, value in sa["learner"]["optimizer"]["state"].items():
        for name, tensor in value.items():
            assert torch.equal(tensor, sb["learner"]["optimizer"]["state"][key][name])
    buffer_a, buffer_b = sa["learner"]["buffer"], sb["learner"]["buffer"]
    assert buffer_a["rng"] == buffer_b["rng"] and torch.equal(buffer_a["obs"], buffer_b["obs"])
    assert sa["learner"]["steps"] == sb["learner"]["steps"] > 100
    ra, rb = sa["run"], sb["run"]
    assert (ra["step"], ra["hand"], ra["consumed"]) == (rb["step"], rb["hand"], rb["consumed"])

    def untimed(metrics: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in m.items() if k != "timing"} for m in metrics]

    assert untimed(ra["metrics"]) == untimed(rb["metrics"])
    lines = [json.loads(x) for x in (b / "metrics.jsonl").read_text().splitlines()]
    assert untimed(lines) == untimed(rb["metrics"])  # the file holds no line of the lost stretch


def _interrupt_at(step: int) -> Any:
    def report(done: int, total: int) -> None:
        if done == step:
            raise KeyboardInterrupt

    return report


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("whole")
    train(tiny(out))
    return out


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_and_resumed_run_equals_an_uninterrupted_one(
    workers: int, uninterrupted: Path, tmp_path: Path
) -> None:
    cfg = tiny(tmp_path, workers=workers)
    with pytest.raises(KeyboardInterrupt):
        train(cfg, progress=_interrupt_at(180))  # after the checkpoint at 140, inside a hand
    assert _state(tmp_path)["run"]["step"] == 140 and _state(tmp_path)["run"]["consumed"] > 0
    train(cfg, resume=True)
    _assert_same_run(uninterrupted, tmp_path)


def test_resume_checks_the_settings_and_steps_may_be_extended(uninterrupted: Path, tmp_path: Path) -> None:
    cfg = tiny(tmp_path, total_steps=150)
    train(cfg)
    with pytest.raises(ConfigError, match="already holds a training run"):
        train(cfg)
    with pytest.raises(ConfigError, match=r"another configuration \(lr: 0\.00025 there, 0\.001 now\)"):
        train(replace(cfg, lr=1e-3), resume=True)
    train(replace(cfg, total_steps=260), resume=True)  # a longer run from the shorter one's end
    _assert_same_run(uninterrupted, tmp_path)


def test_a_run_stopped_at_a_checkpoint_is_finished_there_as_the_shorter_run(tmp_path: Path) -> None:
    # resume --steps N, N = the checkpoint's step: the model of an uninterrupted N-step run
    cut, whole = tmp_path / "cut", tmp_path / "whole"
    with pytest.raises(KeyboardInterrupt):
        train(tiny(cut), progress=_interrupt_at(180))  # the run of 260 steps, stopped after 140
    summary = train(tiny(cut, total_steps=140), resume=True)
    train(tiny(whole, total_steps=140))
    _assert_same_run(whole, cut)
    assert summary["command"] == load_model(whole / "model.pt")[1]["command"].replace(str(whole), str(cut))
    ours, theirs = (load_model(p / "model.pt")[0].state_dict() for p in (cut, whole))
    assert all(torch.equal(ours[k], theirs[k]) for k in theirs)


@pytest.mark.parametrize("buffer_size", [400, 100])  # 100: the buffer has wrapped at the checkpoint
def test_a_compact_checkpoint_resumes_as_the_uninterrupted_run(buffer_size: int, tmp_path: Path) -> None:
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    train(tiny(whole, buffer_size=buffer_size))
    cfg = tiny(cut, buffer_size=buffer_size, compact=True)
    with pytest.raises(KeyboardInterrupt):
        train(cfg, progress=_interrupt_at(180))  # after the checkpoint at 140, inside a hand
    saved = _state(cut)
    assert saved["learner"]["buffer"] is None and saved["run"]["consumed"] > 0
    train(cfg, resume=True)  # the buffer is rebuilt by replaying the hands that filled it
    _assert_same_weights(whole, cut)  # a wrongly rebuilt buffer would sample other batches


def test_search_advantages_change_the_weights_and_resume_compact_as_uninterrupted(tmp_path: Path) -> None:
    plain, whole, cut = tmp_path / "plain", tmp_path / "whole", tmp_path / "cut"
    train(tiny(plain))
    train(tiny(whole, search_advantages=1.0))
    cfg = tiny(cut, search_advantages=1.0, compact=True)
    with pytest.raises(KeyboardInterrupt):
        train(cfg, progress=_interrupt_at(180))
    train(cfg, resume=True)  # the rebuilt buffer must hold the same action values
    _assert_same_weights(whole, cut)
    ours, theirs = (_state(p)["learner"]["online"] for p in (plain, whole))
    assert not all(torch.equal(ours[k], theirs[k]) for k in ours)  # the extra loss is applied
    with pytest.raises(ConfigError, match="search_advantages"):
        check_config(tiny(tmp_path, search_advantages=-1.0))


def _assert_same_weights(a: Path, b: Path) -> None:
    sa, sb = _state(a), _state(b)
    assert sb["learner"]["buffer"] is None  # the compact run's last checkpoint is compact too
    for part in ("online", "target"):
        assert all(torch.equal(sa["learner"][part][k], sb["learner"][part][k]) for k in sa["learner"][part])
    theirs = sb["learner"]["optimizer"]["state"]
    for key, value in sa["learner"]["optimizer"]["state"].items():
        assert all(torch.equal(t, theirs[key][name]) for name, t in value.items())
    held = len(sa["learner"]["buffer"]["action"])
    assert sa["buffer_sampling"] is None and sb["buffer_sampling"]["size"] == held
    assert sa["learner"]["steps"] == sb["learner"]["steps"] > 100


def test_a_full_checkpoint_resumes_compact(uninterrupted: Path, tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        train(tiny(tmp_path), progress=_interrupt_at(180))
    train(tiny(tmp_path, compact=True), resume=True)
    _assert_same_weights(uninterrupted, tmp_path)


# ---- the command end to end ------------------------------------------------------------------
def test_train_dqn_command_writes_a_model_the_ddqn_agent_plays(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "run"
    argv = ["mahjong", "train-dqn", "--out", str(out), "--trunk", "resnet", "--channels", "4", "--blocks",
            "1", "--steps", "90", "--learning-starts", "30", "--buffer", "200", "--batch", "8",
            "--hands-per-round", "2", "--log-every", "30", "--eval-every", "90", "--eval-hands", "1",
            "--json"]
    assert run(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    model = out / "model.pt"
    assert summary["model"] == str(model)
    assert {p.name for p in out.iterdir()} >= {"model.pt", "checkpoint.pt", "metrics.jsonl", "metrics.json",
                                               "curve.png", "config.json", "evals"}
    assert json.loads((out / "metrics.json").read_text()) == summary
    written = json.loads((out / "config.json").read_text())
    assert written["trainer"] == "train-dqn" and written["config"]["trunk"] == "resnet"
    assert written["command"] == summary["command"]  # the command that reproduces the run
    net, meta = load_model(model)
    assert meta["features"] == F.FEATURES_VERSION and meta["algorithm"] == "ddqn" and meta["steps"] == 90
    assert meta["command"].startswith(f"paiju mahjong train-dqn --out {out}")
    assert "--trunk resnet" in meta["command"] and "--algorithm" not in meta["command"]  # not the defaults
    assert "--channels 4" in meta["command"] and meta["config"]["channels"] == 4
    assert [m["kind"] for m in meta["metrics"]] == ["eval", "train"]
    assert net.config.input_shape == F.PLANE_SHAPE
    agent = REGISTRY.make(f"ddqn:model={model}")
    played = play_game(MahjongGame(), [agent, REGISTRY.make("greedy"), agent, REGISTRY.make("greedy")], 3)
    assert played.state.is_terminal() and played.error is None
    assert any(p in (0, 2) and a < NUM_KINDS for p, a in zip(played.players, played.actions, strict=True))


def test_a_shape_feature_run_records_and_learns_from_the_shape_vectors(tmp_path: Path) -> None:
    cfg = tiny(tmp_path / "shape", features="shape", total_steps=80)
    exp = play_hand(HandTask(0, derive_seed(cfg.seed, HAND, 0), cfg.behaviour_spec(), 0.0, F.SHAPE_VERSION))
    assert exp.obs.shape[1] == F.flat_size(F.SHAPE_VERSION)
    base = play_hand(HandTask(0, derive_seed(cfg.seed, HAND, 0), cfg.behaviour_spec()))
    # the same hand, the same decisions: the base vector is the shape vector's head
    np.testing.assert_array_equal(exp.obs[:, : F.FLAT_SIZE], base.obs)
    summary = train(cfg)
    net, meta = load_model(summary["model"])
    assert meta["features"] == F.SHAPE_VERSION and net.config.input_shape == (F.flat_size(F.SHAPE_VERSION),)
    assert "--features shape" in meta["command"]
    with pytest.raises(ConfigError, match="is for the mlp trunk"):
        check_config(replace(cfg, trunk="resnet"))
