"""Double DQN fine-tuning of the distilled network (paiju.mahjong.finetune_dqn): the samples'
seat, points and deal-ins against the hands' own record, each transition's next turn by brute
force, the targets and the large-margin term against one-by-one evaluation, and a tiny run that
trains only the value head, resumes to the same weights, reruns from its command and plays."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from paiju.cli.main import app
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.mahjong import distill as D
from paiju.mahjong import finetune_dqn as FT
from paiju.mahjong import search_data as S
from paiju.mahjong import train_distill as T
from paiju.mahjong.agents import REGISTRY
from paiju.mahjong.game import WIN, MahjongGame
from paiju.mahjong.tiles import NUM_KINDS

TEACHER = "expectimax:depth=1,ron=flat"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("search") / "data"
    S.generate(S.SearchDataConfig(out=str(out), hands=6, seed=5, teacher=TEACHER, players=(TEACHER, "greedy"),
                                  chunk=3))
    return out


@pytest.fixture(scope="module")
def samples(data: Path) -> T.Samples:
    return T.data_samples(data)


def random_net(seed: int) -> D.DistillNet:
    torch.manual_seed(seed)
    net = D.DistillNet((16,), (8,), True)
    for head in (net.value, net.order):
        torch.nn.init.normal_(head[-1].weight, std=0.5)
    return net.eval()


def whole_split(s: T.Samples) -> T.Split:
    sp = T.split(s, 0.25, 0.25)
    return T.Split(np.arange(s.rows()), sp.validation, sp.test, sp.leaf_start)


def test_seat_points_and_deal_ins_agree_with_the_hands_record(data: Path, samples: T.Samples) -> None:
    hands = {h: (list(a), list(r)) for h, a, r in
             S.connect(data).execute("SELECT hand, actions, returns FROM hands").fetchall()}
    dealt = 0
    for r in range(samples.rows()):
        actions, returns = hands[int(samples.hand_index[r])]
        assert samples.score[r] == pytest.approx(returns[samples.seat[r]])
        # a discard deals in when the hand's next moves are the other seats' claims ending in a win
        after = actions[samples.move[r] + 1:samples.move[r] + 4]
        won_on = samples.action[r] < NUM_KINDS and WIN in after and samples.move[r] + 1 < len(actions)
        if samples.dealt_in[r]:
            dealt += 1
            assert won_on and samples.score[r] < 0
            later = (samples.hand_index == samples.hand_index[r]) & (samples.move > samples.move[r])
            assert not later.any(), "a discard that dealt in ends the hand"
    assert dealt > 0, "the fixture's hands hold deal-ins (the check above ran)"


def test_each_transition_leads_to_the_same_seats_next_turn(samples: T.Samples) -> None:
    sp = whole_split(samples)
    tr = FT.transitions(samples, sp)
    for r in range(samples.rows()):
        same = np.flatnonzero((samples.hand_index == samples.hand_index[r])
                              & (samples.seat == samples.seat[r]) & (samples.move > samples.move[r]))
        want = same[np.argmin(samples.move[same])] if len(same) else FT.NONE
        assert tr.next_row[r] == want
        kinds = samples.leaf_kind[sp.leaf_start[r]:sp.leaf_start[r + 1]].tolist()
        assert (tr.played[r] != FT.NONE) == (samples.action[r] in kinds)
        if tr.played[r] != FT.NONE:
            leaf = tr.played[r]
            assert samples.leaf_row[leaf] == r and samples.leaf_kind[leaf] == samples.action[r]
    learn = tr.learns(samples, np.arange(samples.rows()))
    assert len(learn) > 0 and not samples.dealt_in[learn].any()
    assert (tr.next_row[learn] == FT.NONE).any() and (tr.next_row[learn] != FT.NONE).any()


def q_by_hand(net: D.DistillNet, s: T.Samples, sp: T.Split, row: int) -> dict[int, float]:
    """Each evaluated discard's charged value, one value sample at a time."""
    out = {}
    for leaf in range(sp.leaf_start[row], sp.leaf_start[row + 1]):
        k = int(s.leaf_kind[leaf])
        with torch.no_grad():
            v = float(net.values(torch.from_numpy(s.value_inputs(np.array([leaf]), True)))[0])
        p, cost = float(s.risk[row, 0, k]), float(s.risk[row, 1, k])
        out[k] = (1 - p) * v - cost
    return out


@pytest.mark.parametrize("double", [True, False])
def test_targets_are_the_next_turns_q_or_the_hands_points(samples: T.Samples, double: bool) -> None:
    sp = whole_split(samples)
    tr = FT.transitions(samples, sp)
    online, target = random_net(1), random_net(2)
    learn = tr.learns(samples, np.arange(samples.rows()))
    got = FT.td_targets(online, target, samples, sp, tr, learn, double).numpy()
    for y, r in zip(got, learn, strict=True):
        nxt = tr.next_row[r]
        if nxt == FT.NONE:
            assert y == pytest.approx(samples.score[r])
            continue
        q_t = q_by_hand(target, samples, sp, int(nxt))
        if double:
            q_o = q_by_hand(online, samples, sp, int(nxt))
            want = q_t[max(q_o, key=lambda k: q_o[k])]
        else:
            want = max(q_t.values())
        assert y == pytest.approx(want, rel=1e-4, abs=1e-2)


def test_the_margin_term_charges_discards_not_trailing_the_teachers_by_the_margin(samples: T.Samples) -> None:
    sp = whole_split(samples)
    tr = FT.transitions(samples, sp)
    net = random_net(3)
    rows = np.flatnonzero(tr.teacher != FT.NONE)
    cfg = FT.FineTuneConfig(data="", out="", margin=150.0)
    _, margin = FT.losses(net, net, samples, sp, tr, rows, cfg)
    want = []
    for r in rows:
        q = q_by_hand(net, samples, sp, int(r))
        t = int(samples.teacher_action[r])
        want.append(max(v + (0 if k == t else 150.0) for k, v in q.items()) - q[t])
    assert float(margin.detach()) == pytest.approx(np.mean(want) / D.SCALE, rel=1e-4)
    assert min(want) >= 0
    # without a margin the term is how far the best discard by Q is ahead of the teacher's
    _, plain = FT.losses(net, net, samples, sp, tr, rows, FT.FineTuneConfig(data="", out="", margin=0.0))
    ahead = [max(q.values()) - q[int(samples.teacher_action[r])]
             for r in rows for q in [q_by_hand(net, samples, sp, int(r))]]
    assert float(plain.detach()) == pytest.approx(np.mean(ahead) / D.SCALE, rel=1e-4)


def test_bad_configs_are_refused_naming_the_field(data: Path, tmp_path: Path) -> None:
    for bad, word in (({"algorithm": "sarsa"}, "algorithm"), ({"margin": -1.0}, "margin"),
                      ({"validation": 0.6, "test": 0.5}, "validation")):
        with pytest.raises(ConfigError, match=word):
            FT.train(FT.FineTuneConfig(data=str(data), out=str(tmp_path / "x"), **bad))


def test_a_tiny_run_trains_the_value_head_resumes_to_the_same_weights_and_plays(data: Path,
                                                                                 tmp_path: Path) -> None:
    start = tmp_path / "start.pt"
    D.save_model(start, D.DistillModel(random_net(4), TEACHER))
    cfg = FT.FineTuneConfig(data=str(data), out=str(tmp_path / "whole"), init=str(start), epochs=2, batch=16,
                            target_every=3, validation=0.25, test=0.25, lr=1e-3)
    report = FT.train(cfg)
    assert [m["epoch"] for m in report["epochs"]] == [-1, 0, 1]
    assert report["samples"]["transitions"] > 0 and report["test"]["outcome"]["decisions"] > 0
    trained = D.load_model(str(tmp_path / "whole" / "model.pt"))
    first = random_net(4)
    assert not all(torch.equal(a, b) for a, b in zip(trained.net.value.state_dict().values(),
                                                     first.value.state_dict().values(), strict=True))
    assert all(torch.equal(a, b) for a, b in zip(trained.net.order.state_dict().values(),
                                                 first.order.state_dict().values(), strict=True))
    assert trained.teacher == TEACHER

    split = FT.FineTuneConfig(**{**cfg.__dict__, "out": str(tmp_path / "split"), "epochs": 1})
    FT.train(split)
    resumed = FT.train(FT.FineTuneConfig(**{**split.__dict__, "epochs": 2}))
    a = torch.load(tmp_path / "whole" / "model.pt", weights_only=True)["state_dict"]
    b = torch.load(tmp_path / "split" / "model.pt", weights_only=True)["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)
    strip = [{k: v for k, v in m.items() if k != "cpu_s"} for m in report["epochs"]]
    assert strip == [{k: v for k, v in m.items() if k != "cpu_s"} for m in resumed["epochs"]]
    with pytest.raises(ConfigError, match="another configuration"):
        FT.train(FT.FineTuneConfig(**{**split.__dict__, "margin": 5.0}))
    res = CliRunner().invoke(app, shlex.split(report["command"])[1:])
    assert res.exit_code == 0 and "fine-tuned: played Q against the points RMSE" in res.output, res.output

    spec = f"expectimax-distill:model={tmp_path / 'whole' / 'model.pt'},depth=1"
    agents = [REGISTRY.make(spec if s % 2 == 0 else "greedy", seed=s) for s in range(4)]
    played = play_game(MahjongGame(), agents, 7)
    assert played.state.is_terminal() and sum(played.state.returns()) == 0
