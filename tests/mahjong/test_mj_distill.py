"""The network distilled from the value Expectimax (paiju.mahjong.distill, train_distill): its
targets are the teacher search's own values (run again on replayed decisions), its ordering
keeps exactly the paper's k discards, its leaf values are the same batched or one by one, an
untrained value head is the teacher's analytic leaf, and a tiny run trains, resumes to the
same weights and plays by name."""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.agents import keyword_defaults
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.mahjong import distill as D
from paiju.mahjong import search_data as S
from paiju.mahjong import train_distill as T
from paiju.mahjong.agents import DISTILL_DEFAULTS, REGISTRY, ShantenOrdering, ValueExpectimaxAgent
from paiju.mahjong.agents.expectimax import SearchNode
from paiju.mahjong.agents.greedy import greedy_turns
from paiju.mahjong.agents.value import LeafState, ValueSearch, deal_in_risk
from paiju.mahjong.game import MahjongGame, MahjongObservation
from paiju.mahjong.model_files import MODEL_DIR
from paiju.mahjong.shanten import suit_indices
from paiju.mahjong.tiles import NUM_KINDS

TEACHER = "expectimax:depth=1,ron=flat"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("search") / "data"
    S.generate(S.SearchDataConfig(out=str(out), hands=4, seed=3, teacher=TEACHER, players=(TEACHER, "greedy"),
                                  chunk=2))
    return out


@pytest.fixture(scope="module")
def samples(data: Path) -> T.Samples:
    return T.data_samples(data)


def random_net(seed: int = 0, residual: bool = True) -> D.DistillNet:
    """A network whose heads say something (a trained one's last layers are not zero)."""
    torch.manual_seed(seed)
    net = D.DistillNet((16,), (16,), residual)
    for head in (net.value, net.order):
        torch.nn.init.normal_(head[-1].weight, std=0.5)
    return net.eval()


def replayed(data: Path, s: T.Samples, row: int) -> MahjongObservation:
    """The observation of sample row ``row``, rebuilt by replaying its hand."""
    con = S.connect(data)
    wall, actions = con.execute("SELECT wall, actions FROM hands WHERE hand = ?",
                                [int(s.hand_index[row])]).fetchone()
    seat = con.execute("SELECT seat FROM decisions WHERE hand = ? AND move = ?",
                       [int(s.hand_index[row]), int(s.move[row])]).fetchone()[0]
    for move, state in S.replay(wall, actions):
        if move == s.move[row]:
            return state.observation(seat)
    raise AssertionError("the row's move is not in its hand")


# ---- targets --------------------------------------------------------------------------------------
def test_targets_are_the_teachers_own_values_on_replayed_decisions(data: Path, samples: T.Samples) -> None:
    """The advantage targets are the teacher's values as it plays (charged with the deal-in risk);
    the value targets are its tree's values uncharged: the same tree run without its defence
    gives them."""
    teacher = REGISTRY.make(TEACHER, seed=0)
    assert isinstance(teacher, ValueExpectimaxAgent) and teacher.defence
    undefended = ValueExpectimaxAgent(depth=teacher.depth, alpha=teacher.alpha, defence=False)
    rows = np.linspace(0, samples.rows() - 1, 12).astype(int)
    compared = charged_apart = 0
    for r in rows:
        obs = replayed(data, samples, r)
        evaluated = [k for k in range(NUM_KINDS) if not math.isnan(samples.charged[r, k])]
        played = teacher.discard_values(obs)
        assert sorted(played) == evaluated
        assert [samples.charged[r, k] for k in evaluated] == pytest.approx([played[k] for k in evaluated],
                                                                             rel=1e-5, abs=1e-3)
        tree = undefended.discard_values(obs)
        both = [k for k in evaluated if k in tree]  # the teacher also expands its safest discard
        assert both
        assert [samples.tree[r, k] for k in both] == pytest.approx([tree[k] for k in both],
                                                                   rel=1e-4, abs=1e-2)
        compared += len(both)
        charged_apart += sum(abs(tree[k] - played[k]) > 1 for k in both)
        # each value sample of the row is the hand after one evaluated discard, with the row's target
        leaves = T.leaves_of(T.split(samples, 0.25, 0.25), np.asarray([r]))
        assert sorted(samples.leaf_kind[leaves].tolist()) == evaluated
        assert samples.leaf_target(leaves).tolist() == [samples.tree[r, k] for k in samples.leaf_kind[leaves]]
        after = [tuple(c - (i == k) for i, c in enumerate(obs.hand)) for k in samples.leaf_kind[leaves]]
        melds, unseen = tuple(obs.melds[obs.player]), tuple(obs.unseen_counts())
        states = [LeafState(h, melds, unseen, int(samples.draws[r]), (), ()) for h in after]
        assert samples.leaf_analytic[leaves] == pytest.approx(teacher.leaf_evaluator.evaluate(obs, states),
                                                              rel=1e-5, abs=1e-3)
        # the advantage target is search_data's: each option less the action played
        con = S.connect(data)
        options, values, action = con.execute(
            "SELECT options, \"values\", action FROM decisions WHERE hand = ? AND move = ?",
            [int(samples.hand_index[r]), int(samples.move[r])]).fetchone()
        adv = S.advantages(options, values, action)
        if adv is not None and action < NUM_KINDS:
            assert all(adv[k] == pytest.approx(samples.charged[r, k] - samples.charged[r, action], abs=1e-3)
                       for k in evaluated)
    assert compared > 50 and charged_apart > 0  # the charge did change values, and was undone


def test_the_split_is_by_hand_and_whole(samples: T.Samples) -> None:
    sp = T.split(samples, 0.25, 0.25)
    parts = [set(samples.hand_index[p].tolist()) for p in (sp.fit, sp.validation, sp.test)]
    assert all(parts) and not (parts[0] & parts[1] or parts[0] & parts[2] or parts[1] & parts[2])
    assert max(parts[0]) < min(parts[1]) <= max(parts[1]) < min(parts[2])
    assert sorted(np.concatenate([sp.fit, sp.validation, sp.test]).tolist()) == list(range(samples.rows()))
    assert sp.leaf_start[-1] == len(samples.leaf_row)
    with pytest.raises(ConfigError, match="cannot be split"):
        T.split(samples, 0.5, 0.5)


# ---- the search's plug-ins --------------------------------------------------------------------------
def turns(count: int, seed: int = 4) -> list[object]:
    out = []
    for _, _, obs in greedy_turns(3, seed):
        out.append(obs)
        if len(out) == count:
            break
    return out


def test_pruning_keeps_exactly_the_papers_k_best_by_the_advantage_head() -> None:
    net = random_net()
    agent = ValueExpectimaxAgent()
    ordering = D.DistillOrdering(net, agent.risk)
    pruned = 0
    for obs in turns(12):
        ctx = agent.context(obs)
        held = [k for k in range(NUM_KINDS) if obs.hand[k]]
        scores = ordering.scores(ctx, SearchNode(tuple(obs.hand), (), (), 0, 0), held)
        by_score = sorted(held, key=lambda k: (-scores[held.index(k)], k))
        for alpha in (0.3, 0.6, 1.0):
            search = ValueSearch(obs, 2, alpha, "tiles", ordering)
            c = list(obs.hand)
            kept = search.expand(ctx, c, suit_indices(c), 0, [], [])
            k = min(math.ceil(alpha * sum(obs.hand)), len(held))
            assert len(kept) == k and kept == (by_score[:k] if k < len(held) else held)
            pruned += k < len(held)
        # the agent's root: the k best, and the safest discard, which it always looks at
        player = ValueExpectimaxAgent(ordering=ordering)
        player.act(obs, [*held])
        k = min(math.ceil(player.alpha * sum(obs.hand)), len(held))
        risk = deal_in_risk(obs, player.deal_in_tai, player.wait_scale, player.reads, player.saved_loss)
        safest = min(held, key=lambda t: (risk.cost[t], t))
        assert set(player.last_values) == set(by_score[:k]) | {safest}
    assert pruned > 10


def test_the_ordering_reads_the_risk_at_the_root_only_and_numpy_equals_torch() -> None:
    net = random_net(1)
    agent = ValueExpectimaxAgent()
    ordering = D.DistillOrdering(net, agent.risk)
    obs = turns(1, 9)[0]
    ctx = agent.context(obs)
    held = [k for k in range(NUM_KINDS) if obs.hand[k]]
    root = ordering.node_inputs(ctx, SearchNode(tuple(obs.hand), (), (), 0, 0))
    inside = ordering.node_inputs(ctx, SearchNode(tuple(obs.hand), (), (), 0, 1))
    risk = deal_in_risk(obs, agent.deal_in_tai, agent.wait_scale, agent.reads, agent.saved_loss)
    assert root[0, :, 5] == pytest.approx(risk.probability)
    assert root[0, :, 6] * D.SCALE == pytest.approx(risk.cost)
    assert not inside[0, :, 5:7].any()
    scores = ordering.scores(ctx, SearchNode(tuple(obs.hand), (), (), 0, 0), held)
    torch_scores = D.predict_scores(net, root)[0]
    assert scores == pytest.approx([torch_scores[k] for k in held], rel=1e-5, abs=1e-3)


def test_leaf_values_batched_equal_one_by_one() -> None:
    net = random_net(2)
    base = ValueExpectimaxAgent(ron="classes").leaf_evaluator
    leaf = D.DistillLeaf(net, base)
    agent = ValueExpectimaxAgent(ron="classes", leaf_evaluator=leaf)
    obs = turns(2, 6)[1]
    agent.act(obs, [k for k in range(NUM_KINDS) if obs.hand[k]])
    search = agent.last_value_search
    assert search is not None and len(search.leaves) > 100
    leaves = search.leaves[::7]
    batched = leaf.evaluate(obs, leaves)
    alone = [leaf.evaluate(obs, [lf])[0] for lf in leaves]
    assert batched == pytest.approx(alone, rel=1e-6, abs=1e-3)
    assert not np.allclose(batched, base.evaluate(obs, leaves))  # the head changed the analytic values


def test_an_untrained_value_head_is_the_analytic_leaf_and_plays_as_the_teacher() -> None:
    net = D.DistillNet((8,), (8,)).eval()
    teacher = REGISTRY.make("expectimax:depth=1", seed=0)
    assert isinstance(teacher, ValueExpectimaxAgent)
    leaf = D.DistillLeaf(net, teacher.leaf_evaluator)
    student = ValueExpectimaxAgent(depth=1, ron="classes", leaf_evaluator=leaf)
    for obs in turns(3, 2):
        legal = [k for k in range(NUM_KINDS) if obs.hand[k]]
        assert student.act(obs, legal) == teacher.act(obs, legal)
        assert student.last_values == teacher.last_values  # exactly: the correction is 0.0
    with pytest.raises(ConfigError, match="analytic leaf"):
        D.DistillLeaf(net, None)


# ---- training -----------------------------------------------------------------------------------------
def test_a_tiny_run_trains_resumes_to_the_same_weights_and_plays(data: Path, tmp_path: Path) -> None:
    cfg = T.DistillConfig(data=str(data), out=str(tmp_path / "whole"), value_hidden=(8,), order_hidden=(8,),
                          epochs=2, batch=32, validation=0.25, test=0.25)
    report = T.train(cfg)
    assert len(report["epochs"]) == 2 and report["best_epoch"] in (-1, 0, 1)
    t = report["test"]
    assert t["value"]["samples"] > 0 and t["advantage_root"]["options"] > 0
    assert 0 <= t["agreement"]["network"]["top1"] <= 1
    assert set(t["agreement"]["analytic_leaf"]["teacher_kept_by_alpha"]) == {str(a) for a in T.ALPHAS}
    assert {p.name for p in (tmp_path / "whole").iterdir()} >= {
        "config.json", "checkpoint.pt", "model.pt", "metrics.jsonl", "metrics.json", "curve.png",
        "samples.npz",
    }
    split = T.DistillConfig(**{**cfg.__dict__, "out": str(tmp_path / "split"), "epochs": 1})
    T.train(split)
    resumed = T.train(T.DistillConfig(**{**split.__dict__, "epochs": 2}))
    a = torch.load(tmp_path / "whole" / "model.pt", weights_only=True)["state_dict"]
    b = torch.load(tmp_path / "split" / "model.pt", weights_only=True)["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)
    last = torch.load(tmp_path / "whole" / "checkpoint.pt", weights_only=True)["net"]
    last_split = torch.load(tmp_path / "split" / "checkpoint.pt", weights_only=True)["net"]
    assert all(torch.equal(last[k], last_split[k]) for k in last)
    strip = [{k: v for k, v in m.items() if k != "cpu_s"} for m in report["epochs"]]
    assert strip == [{k: v for k, v in m.items() if k != "cpu_s"} for m in resumed["epochs"]]
    lines = (tmp_path / "split" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(x)["epoch"] for x in lines] == [0, 1]
    with pytest.raises(ConfigError, match="another configuration"):
        T.train(T.DistillConfig(**{**split.__dict__, "lr": 0.5}))
    # the recorded command rebuilds the config: run again, it resumes the finished run (another
    # configuration would be refused)
    res = CliRunner().invoke(app, shlex.split(report["command"])[1:])
    assert res.exit_code == 0 and f"best epoch {report['best_epoch']}; test:" in res.output, res.output
    # the model plays by name, every seat's move legal
    spec = f"expectimax-distill:model={tmp_path / 'whole' / 'model.pt'},depth=1"
    agents = [REGISTRY.make(spec if s % 2 == 0 else "greedy", seed=s) for s in range(4)]
    played = play_game(MahjongGame(), agents, 5)
    assert played.state.is_terminal() and sum(played.state.returns()) == 0


# ---- the agent --------------------------------------------------------------------------------------
def test_the_registry_declares_the_factorys_defaults_and_refuses_the_teacher_itself(tmp_path: Path) -> None:
    assert keyword_defaults(D.make_agent, *DISTILL_DEFAULTS) == DISTILL_DEFAULTS
    assert REGISTRY.describe()["expectimax-distill"][0] == DISTILL_DEFAULTS
    path = tmp_path / "m.pt"
    D.save_model(path, D.DistillModel(random_net(), "expectimax"))
    with pytest.raises(ConfigError, match="order=shanten with leaf=value"):
        REGISTRY.make(f"expectimax-distill:model={path},order=shanten,leaf=value")
    agent = REGISTRY.make(f"expectimax-distill:model={path},order=shanten,alpha=0.5", seed=1)
    assert isinstance(agent, ValueExpectimaxAgent) and isinstance(agent.ordering, ShantenOrdering)
    assert agent.alpha == 0.5 and agent.ron == "classes" and isinstance(agent.leaf_evaluator, D.DistillLeaf)
    with pytest.raises(ConfigError, match="does not exist"):
        REGISTRY.make(f"expectimax-distill:model={tmp_path / 'missing.pt'}")
    D.save_model(path.with_name("g.pt"), D.DistillModel(random_net(), "greedy"))
    with pytest.raises(ConfigError, match="must be a value search"):
        REGISTRY.make(f"expectimax-distill:model={path.with_name('g.pt')}")


SHIPPED = D.model_path("")


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no distilled model shipped")
def test_the_shipped_model_is_small_carries_its_command_and_plays_by_name() -> None:
    assert SHIPPED.parent == MODEL_DIR and SHIPPED.stat().st_size < 5_000_000
    config = json.loads(SHIPPED.with_name("mj-distill.config.json").read_text())
    metrics = json.loads(SHIPPED.with_name("mj-distill.metrics.json").read_text())
    cfg = T.DistillConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in config["config"].items()})
    assert config["command"] == metrics["command"] == T.command_line(cfg)
    assert metrics["test"]["agreement"]["network"]["top1"] > 0.5
    agents = [REGISTRY.make("expectimax-distill:depth=1" if s % 2 == 0 else "greedy", seed=s)
              for s in range(4)]
    played = play_game(MahjongGame(), agents, 3)
    assert played.state.is_terminal() and sum(played.state.returns()) == 0
