"""The ``xgb`` agent and its training script: features checked against the observation,
a tiny training run that plays, a resumed run equal to an uninterrupted one, refused files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paiju.core.errors import ConfigError, CorruptRecordError
from paiju.core.protocol import play_game
from paiju.doudizhu import split_exact
from paiju.doudizhu.agents import REGISTRY
from paiju.doudizhu.agents.rule import RuleAgent
from paiju.doudizhu.agents.xgb import FEATURE_NAMES, decision_features, load_model
from paiju.doudizhu.cards import RANKS
from paiju.doudizhu.game import DouDizhuGame
from paiju.doudizhu.selfplay import selfplay
from paiju.doudizhu.train_xgb import main, top1_agreement


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("teacher")
    selfplay(["greedy", "random", "greedy"], 12, out, seed=3)
    return out


def _argv(records: Path, out: Path, *extra: str) -> list[str]:
    return ["--records", str(records), "--teacher", "greedy", "--games", "12", "--rounds", "8",
            "--max-depth", "3", "--threads", "1", "--out", str(out), *extra]


def test_features_say_what_the_player_sees_and_what_each_move_leaves() -> None:
    game = DouDizhuGame()
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        obs = state.observation(state.current_player())
        if obs.phase == "play" and len(legal) > 1:
            rows = decision_features(obs, legal)
            col = {n: i for i, n in enumerate(FEATURE_NAMES)}
            assert rows.shape == (len(legal), len(FEATURE_NAMES))
            hand = list(obs.hand.counts)
            unseen = list(obs.unseen().counts)
            for k, move in enumerate(legal):
                row = rows[k]
                assert [row[col[f"hand_{r}"]] for r in RANKS] == hand
                assert [row[col[f"unseen_{r}"]] for r in RANKS] == unseen
                assert [row[col[f"move_{r}"]] for r in RANKS] == list(move.counts)
                left = [h - m for h, m in zip(hand, move.counts, strict=True)]
                assert row[col["cards_left"]] == sum(left)
                assert row[col["plays_after"]] == min(split_exact.min_plays(left) if sum(left) else 0, 10)
                assert row[col["legal_moves"]] == len(legal)
                assert row[col["size_next"]] == min(obs.hand_sizes[(obs.player + 1) % 3], 20)
                assert row[col["rule_move"]] == (move == RuleAgent().act(obs, legal))
            checked += 1
        state.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 5


def test_top1_agreement_is_hand_checked() -> None:
    scores = np.array([0.1, 0.9, 0.3, 0.5, 0.5, 0.0])
    labels = np.array([0, 1, 0, 0, 1, 0], dtype=np.float32)
    qid = np.array([0, 0, 0, 1, 1, 1])
    # decision 0: top is row 1 (the teacher's); decision 1: a tie goes to the first, row 3: a miss
    assert top1_agreement(scores, labels, qid) == 0.5


def test_a_tiny_training_run_writes_a_playable_model(records: Path, tmp_path: Path) -> None:
    out = tmp_path / "tiny.json"
    result = main(_argv(records, out))
    assert result["rounds"] == 8 and len(result["ndcg@1"]["val"]) == 8
    assert 0.0 <= result["val/top1"] <= 1.0 and result["train/top1"] > 0.3
    config = json.loads((tmp_path / "tiny.config.json").read_text())
    assert config["args"]["rounds"] == 8 and "--rounds 8" in config["command"]
    assert (tmp_path / "tiny.curve.png").stat().st_size > 0 and not (tmp_path / "tiny.ckpt.json").exists()
    agents = [REGISTRY.make(f"xgb:model={out}", seed=s) for s in range(3)]
    assert play_game(DouDizhuGame(), agents, 1).state.is_terminal()


def test_a_run_in_sittings_gives_the_uninterrupted_model(records: Path, tmp_path: Path) -> None:
    whole = tmp_path / "whole.json"
    main(_argv(records, whole, "--checkpoint-every", "0"))
    parts = tmp_path / "parts.json"
    first = main(_argv(records, parts, "--checkpoint-every", "3", "--stop-after", "5"))
    assert first == {"stopped_at": 5} and (tmp_path / "parts.ckpt.json").exists() and not parts.exists()
    with pytest.raises(ConfigError, match="checkpoint of another run"):
        main([*_argv(records, parts), "--eta", "0.3"])
    main(_argv(records, parts, "--checkpoint-every", "3"))
    a, b = load_model(str(whole)), load_model(str(parts))
    assert a.get_dump() == b.get_dump()
    metrics = json.loads((tmp_path / "parts.metrics.json").read_text())
    assert metrics["ndcg@1"] == json.loads((tmp_path / "whole.metrics.json").read_text())["ndcg@1"]


def test_bad_files_and_arguments_are_refused(tmp_path: Path) -> None:
    import xgboost as xgb

    plain = tmp_path / "plain.json"
    xgb.train({"objective": "rank:pairwise"}, xgb.DMatrix(np.eye(4), label=[1, 0, 1, 0], qid=[0, 0, 1, 1]), 1
              ).save_model(str(plain))
    with pytest.raises(CorruptRecordError, match="not a paiju xgb model"):
        load_model(str(plain))
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    with pytest.raises(CorruptRecordError, match="not an XGBoost model"):
        load_model(str(junk))
    with pytest.raises(CorruptRecordError, match="no such model file"):
        load_model(str(tmp_path / "missing.json"))
    with pytest.raises(ConfigError, match="unknown xgb model"):
        load_model("nonesuch")
    with pytest.raises(ConfigError, match=r"must end in \.json"):
        main(["--records", "r", "--out", "m.ubj"])
    with pytest.raises(ConfigError, match="--objective"):
        main(["--records", "r", "--objective", "reg:squarederror"])
