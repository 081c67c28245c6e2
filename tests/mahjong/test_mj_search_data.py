"""Search-labelled mahjong data (paiju.mahjong.search_data): oracle labels against hand-built
positions and against the engine's own win rule, values equal to the search's on replayed
positions, play unchanged by the labelling, resume equal to an uninterrupted job."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.mahjong import search_data as S
from paiju.mahjong.agents import REGISTRY
from paiju.mahjong.game import WIN, MahjongGame, Phase
from paiju.mahjong.tiles import NUM_KINDS, Meld, MeldType, parse_counts

# a cheap teacher (depth 1) and table, so a hand takes a fraction of a second
TEACHER = "expectimax:depth=1,claim_depth=1,ron=flat"
PLAYERS = (TEACHER, "greedy")


def config(out: Path, hands: int = 3, **kw: object) -> S.SearchDataConfig:
    fields: dict[str, object] = {"seed": 11, "teacher": TEACHER, "players": PLAYERS, "chunk": 2, **kw}
    return S.SearchDataConfig(out=str(out), hands=hands, **fields)  # type: ignore[arg-type]


def labels_of(cfg: S.SearchDataConfig, index: int) -> S.HandLabels:
    teacher, players = S.check_config(cfg)
    return S.play_hand(S.hand_task(cfg, teacher, players, index))


def test_oracle_labels_of_a_hand_built_position() -> None:
    state = MahjongGame().new_hand(seed=3)
    seat = 0
    # opponent 1 (seat 1): five sets and a lone 9s: waits on 9s only (a pair wait)
    state.hands[1] = parse_counts("123m456m789m123p456p9s")
    # opponent 2 (seat 2): 4-5s open wait on 3s/6s, a pung of 6s on the table (3 of the 6s held:
    # one 6s is left, still a wait), and a lock on 3s (he passed a 3s this go-around)
    state.hands[2] = parse_counts("123m456m789m45s11z")
    state.melds[2] = [Meld(MeldType.PUNG, 23, 23, 0)]
    state.locks[2] = 1 << 20
    # opponent 3 (seat 3): not ready (two shanten or more)
    state.hands[3] = parse_counts("147m258p369s1234567z")
    hands, ready, waits, locks = S.oracle_labels(state, seat)
    assert hands[:NUM_KINDS] == list(state.hands[1]) and hands[2 * NUM_KINDS:] == list(state.hands[3])
    assert ready == [True, True, False]
    kinds = [[k for k in range(NUM_KINDS) if waits[i * NUM_KINDS + k]] for i in range(3)]
    assert kinds == [[26], [20, 23], []]  # 9s; 3s and 6s; none
    assert [k for k in range(NUM_KINDS) if locks[NUM_KINDS + k]] == [20]
    assert not any(locks[:NUM_KINDS]) and not any(locks[2 * NUM_KINDS:])


def test_a_kind_held_four_times_with_the_melds_is_no_wait() -> None:
    state = MahjongGame().new_hand(seed=4)
    # 2s3s waits on 1s and 4s by shape; with a kong of 4s on the table (all four held) only 1s
    state.hands[1] = parse_counts("123m456m789m23s99s")
    state.melds[1] = [Meld(MeldType.EXPOSED_KONG, 21, 21, 0)]
    _, ready, waits, _ = S.oracle_labels(state, 0)
    assert ready[0] and [k for k in range(NUM_KINDS) if waits[k]] == [18]  # 1s only: 4s are all held


def test_every_deal_in_the_labels_name_is_a_win_the_engine_allows() -> None:
    """The oracle: after each labelled discard, the seats the engine lets win on it are exactly
    the opponents whose labelled waits hold the tile and whose lock does not."""
    cfg = config(Path("unused"))
    checked = 0
    for index in range(3):
        labels = labels_of(cfg, index)
        record = labels.hand
        states = {move: state.clone() for move, state in S.replay(record["wall"], record["actions"])}
        for row in labels.rows:
            if row["phase"] != Phase.TURN or row["action"] >= NUM_KINDS:
                continue
            kind, seat, after = row["action"], row["seat"], row["move"] + 1
            expected = {
                (seat + 1 + i) % 4 for i in range(3)
                if row["opp_waits"][i * NUM_KINDS + kind] and not row["opp_locks"][i * NUM_KINDS + kind]
            }
            allowed = set()
            move = after
            while move in states and states[move].phase == Phase.CLAIM and states[move].window_tile == kind:
                st = states[move]
                if WIN in st.legal_actions():
                    allowed.add(st.current_player())
                move += 1
            assert allowed == expected, (index, row["move"])
            checked += 1
    assert checked > 50


def test_values_are_the_searchs_own_on_the_replayed_position() -> None:
    """The distillation targets: a fresh teacher, asked at the position rebuilt by replay, gives
    the stored values, options and choice (so the row, its move and its seat line up)."""
    cfg = config(Path("unused"))
    labels = labels_of(cfg, 1)
    record = labels.hand
    states = {move: state.clone() for move, state in S.replay(record["wall"], record["actions"])}
    teacher = REGISTRY.make(REGISTRY.resolve(TEACHER), seed=0)
    for row in labels.rows[::5]:
        state = states[row["move"]]
        assert state.current_player() == row["seat"]
        legal = state.legal_actions()
        assert list(legal) == row["legal"]
        assert teacher.act(state.observation(row["seat"]), legal) == row["teacher_action"]
        assert sorted(teacher.last_values) == row["options"]
        assert [teacher.last_values[a] for a in row["options"]] == pytest.approx(row["values"], rel=1e-6)
    assert record["actions"][labels.rows[-1]["move"]] == labels.rows[-1]["action"]


def test_labelling_does_not_change_the_play() -> None:
    """The hand equals a plain game of the same seeded seats with no teacher asked."""
    cfg = config(Path("unused"))
    teacher, players = S.check_config(cfg)
    for index in range(3):
        task = S.hand_task(cfg, teacher, players, index)
        labels = S.play_hand(task)
        seats = [S.hand_agent(task, spec, s) for s, spec in enumerate(S.lineup(task))]
        plain = play_game(MahjongGame(), seats, S.hand_wall_seed(task))
        assert [int(a) for a in plain.actions[1:]] == labels.hand["actions"]
        assert [float(r) for r in plain.state.returns()] == labels.hand["returns"]
        assert all(row["score"] == labels.hand["returns"][row["seat"]] for row in labels.rows)


def test_a_resumed_job_equals_an_uninterrupted_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = S.generate(config(tmp_path / "whole", hands=5))
    calls = {"n": 0}
    real = S._play_chunk

    def dies_on_second_chunk(*args: object, **kw: object) -> list[S.HandLabels]:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(S, "_play_chunk", dies_on_second_chunk)
    with pytest.raises(KeyboardInterrupt):
        S.generate(config(tmp_path / "split", hands=5))
    assert len(list((tmp_path / "split" / "parts").glob("decisions-*.parquet"))) == 1
    monkeypatch.setattr(S, "_play_chunk", real)
    split = S.generate(config(tmp_path / "split", hands=5))
    assert split["rows"] == whole["rows"] and not (tmp_path / "split" / "parts").exists()
    for name in S.TABLES:
        a = pq.read_table(tmp_path / "whole" / f"{name}.parquet").drop(["cpu_s", "teacher_cpu_s"]
                                                                         if name == "hands" else [])
        b = pq.read_table(tmp_path / "split" / f"{name}.parquet").drop(["cpu_s", "teacher_cpu_s"]
                                                                         if name == "hands" else [])
        assert a.equals(b), name
    summary = json.loads((tmp_path / "split" / "summary.json").read_text())
    assert summary["hands"] == 5 and summary["cost"]["hands_timed"] == 5
    con = S.connect(tmp_path / "split")
    assert con.execute("SELECT count(*) FROM decisions").fetchone()[0] == whole["rows"]
    assert con.execute("SELECT count(DISTINCT hand) FROM hands").fetchone()[0] == 5


def test_another_job_in_the_folder_is_refused(tmp_path: Path) -> None:
    S.generate(config(tmp_path / "a", hands=1))
    with pytest.raises(ConfigError, match="finished job"):
        S.generate(config(tmp_path / "a", hands=1))
    (tmp_path / "b" / "parts").mkdir(parents=True)
    (tmp_path / "b" / "parts" / "job.json").write_text(json.dumps({"identity": {"seed": 1}}))
    with pytest.raises(ConfigError, match="another job"):
        S.generate(config(tmp_path / "b", hands=1))


@pytest.mark.parametrize(("field", "value", "match"), [
    ("hands", 0, "at least 1"), ("seed", -1, ">= 0"), ("teacher", "greedy", "values no options"),
    ("players", (), "at least one player"), ("players", ("nosuch",), "nosuch"),
])
def test_bad_configs_are_refused_before_any_work(tmp_path: Path, field: str, value: object,
                                                 match: str) -> None:
    cfg = config(tmp_path / "x", **{field: value})
    with pytest.raises(ConfigError, match=match):
        S.generate(cfg)
    assert not (tmp_path / "x").exists()


def test_advantages_are_over_the_action_played() -> None:
    assert S.advantages([3, 7, 9], [10.0, 4.0, -2.0], 7) == {3: 6.0, 7: 0.0, 9: -6.0}
    assert S.advantages([3, 7], [10.0, 4.0], 12) is None  # a pruned option was played


def test_the_commands_write_the_data_and_train_the_reader_or_refuse_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paiju.cli.main import run

    out = tmp_path / "data"
    assert run(["mahjong", "search-data", "--out", str(out), "-n", "2", "--teacher", TEACHER, "-p", TEACHER,
                "-p", "greedy", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["hands"] == 2 and (out / "decisions.parquet").is_file()
    assert run(["mahjong", "train-reader", "--data", str(out), "--out", str(tmp_path / "r"), "--epochs", "1",
                "--hidden", "8", "--leave-out", TEACHER]) == 0
    assert "reader" in capsys.readouterr().out and (tmp_path / "r" / "model.pt").is_file()
    assert run(["mahjong", "search-data", "--out", str(tmp_path / "x"), "--teacher", "greedy"]) == 2
    assert not (tmp_path / "x").exists()  # refused before anything is written
    (tmp_path / "x").mkdir()
    assert run(["mahjong", "train-reader", "--data", str(tmp_path / "x"), "--out", str(tmp_path / "y")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "values no options" in err[0] and "not a finished search-data folder" in err[1]
    assert not (tmp_path / "y").exists()
