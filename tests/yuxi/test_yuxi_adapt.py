"""Models that follow card changes (issue 47 item 5): `paiju yuxi train-az --init OLD.pt
--cards-file NEW.toml` starts from OLD.pt's network, the card rows mapped by card key (a kept
card's row moved to its new id, a removed card's dropped, a new card's the mean of the old
cards'), everything else copied; the attribute encoder's inputs do not change with the table;
the adaptation resumes to the uninterrupted result; bad models are one error line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from yuxi_states import random_states, same_encoding

from paiju.algorithms.alphazero import AZNet, NetConfig
from paiju.algorithms.alphazero.checkpoint import load_checkpoint, save_checkpoint
from paiju.cli.main import run
from paiju.core.errors import ConfigError
from paiju.core.protocol import play_game
from paiju.core.torch_files import load_payload
from paiju.games.grid_encoding import connect_four_setup
from paiju.yuxi.adapt import CARD_ROWS, card_rows, map_card_rows
from paiju.yuxi.agents import REGISTRY
from paiju.yuxi.agents.az import YuxiPolicyAgent
from paiju.yuxi.board import BOARDS
from paiju.yuxi.cards import table_fingerprint
from paiju.yuxi.encoding import CARD_KEYS, EncoderSpec, YuxiAttributeEncoder, YuxiEncoderBase
from paiju.yuxi.game import YuxiConfig, YuxiGame

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "src" / "paiju" / "yuxi" / "data"
EXAMPLE = ROOT / "docs" / "yuxi-cards"
SIZES = {"channels": 4, "blocks": 1, "hidden": 16}
DECKS = ("guild_iron", "storm_iron")
"""Decks without Pearl Diver, the removed card."""
TINY = ["--iterations", "1", "--games", "2", "--simulations", "4", "--steps", "2", "--batch-size", "8",
        "--window", "1", "--channels", "4", "--blocks", "1", "--hidden", "16"]


# ---- the three card changes, written from the shipped table ----------------------------------------
def _stat_change(text: str | None = None) -> str:
    """Reef Crab prints 3 points instead of 2 (in the shipped table, or ``text``)."""
    text = (DATA / "cards.toml").read_text(encoding="utf-8") if text is None else text
    line = ('key = "reef_crab"\nname = "礁蟹 Reef Crab"\nfaction = "tide"\nkind = "character"\n'
            'rarity = "common"\n')
    assert text.count(line + "points = 2\n") == 1
    return text.replace(line + "points = 2\n", line + "points = 3\n")


def _new_card() -> str:
    """docs/yuxi-cards.md's Tide Warden appended (id 45, in no deck)."""
    shipped = (DATA / "cards.toml").read_text(encoding="utf-8")
    return shipped + "\n" + (EXAMPLE / "tide_warden.toml").read_text(encoding="utf-8")


def _removed_card(key: str) -> tuple[str, str]:
    """The table without ``key`` (the later cards' ids one lower) and the decks without it."""
    text = (DATA / "cards.toml").read_text(encoding="utf-8")
    head, *blocks = text.split("[[card]]\n")
    kept = [b for b in blocks if f'\nkey = "{key}"\n' not in b]
    assert len(kept) == len(blocks) - 1
    kept = [re.sub(r"^id = \d+$", f"id = {i}", b, count=1, flags=re.M) for i, b in enumerate(kept, 1)]
    decks = re.sub(rf"{key} = \d+, ", "", (DATA / "decks.toml").read_text(encoding="utf-8"))
    assert key not in decks
    return head + "".join("[[card]]\n" + b for b in kept), decks


@pytest.fixture(scope="module")
def changes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Each change as the train-az options giving its tables."""
    root = tmp_path_factory.mktemp("tables")
    removed, decks = _removed_card("pearl_diver")
    files = {"stat.toml": _stat_change(), "new.toml": _new_card(), "removed.toml": removed,
             "removed-decks.toml": decks}
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return {
        "stat": ["--cards-file", str(root / "stat.toml")],
        "new": ["--cards-file", str(root / "new.toml")],
        "removed": ["--cards-file", str(root / "removed.toml"),
                    "--decks-file", str(root / "removed-decks.toml")],
    }


def _game(
    options: list[str], board: str = "3x3", decks: tuple[str, str] = ("tide_guild", "storm_iron")
) -> YuxiGame:
    """A game on the tables of a change's options (none: the shipped ones)."""
    files = dict(zip(options[::2], options[1::2], strict=True))
    return YuxiGame(YuxiConfig(board=board, decks=decks, cards_file=files.get("--cards-file"),
                               decks_file=files.get("--decks-file")))


def _one_line_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = run(args)
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, (code, err)
    return err


# ---- the inputs ---------------------------------------------------------------------------------------
def test_a_removed_card_changes_no_input_either(changes: dict[str, list[str]]) -> None:
    """(A card added and resampled hidden cards: tests/yuxi/test_yuxi_encoding_attributes.py.) The
    ids after the removed card move down, the inputs do not: a game without it encodes as before
    (on decks that never held it: the decks that did are 33 cards now, too few for 6x4)."""
    old_game, new_game = _game([], "4x4", DECKS), _game(changes["removed"], "4x4", DECKS)
    assert new_game.table.num_ids == old_game.table.num_ids - 1
    assert new_game.table.card("undertow").id == old_game.table.card("undertow").id - 1
    for board in BOARDS:
        a = YuxiAttributeEncoder(_game([], board, DECKS))
        b = YuxiAttributeEncoder(_game(changes["removed"], board, DECKS))
        assert (a.plane_shape, a.vector_names) == (b.plane_shape, b.vector_names)
    a, b = YuxiAttributeEncoder(old_game), YuxiAttributeEncoder(new_game)
    for s, t in zip(random_states(old_game, 2, 1), random_states(new_game, 2, 1), strict=True):
        seat = a.perspective(s)
        seen_a, seen_b = s.observation(seat), t.observation(seat)
        assert same_encoding(a.encode_observation(seen_a), b.encode_observation(seen_b))


# ---- the mapping --------------------------------------------------------------------------------------
def test_card_rows_are_mapped_by_key_hand_checked() -> None:
    """Old cards crab, shell, blade (ids 1-3); new blade, crab, warden: blade's row moves to 1,
    crab's to 2, shell's is dropped, warden's is the mean of the old cards' rows, end turn stays."""
    rows = card_rows(["crab", "shell", "blade"], ["blade", "crab", "warden"])
    assert rows == [0, 3, 1, None]
    weights = {
        "first_head.weight": torch.tensor([[0.0, 0.0], [1.0, 10.0], [2.0, 20.0], [6.0, 60.0]]),
        "first_head.bias": torch.tensor([0.5, 1.0, 2.0, 6.0]),
        "second_choice.weight": torch.tensor([[9.0], [3.0], [0.0], [0.0]]),
        "stem.0.weight": torch.ones(2, 2),
    }
    mapped = map_card_rows(weights, rows)
    assert mapped["first_head.weight"].tolist() == [[0.0, 0.0], [6.0, 60.0], [1.0, 10.0], [3.0, 30.0]]
    assert mapped["first_head.bias"].tolist() == [0.5, 6.0, 1.0, 3.0]
    assert mapped["second_choice.weight"].tolist() == [[9.0], [0.0], [3.0], [1.0]]
    assert mapped["stem.0.weight"] is weights["stem.0.weight"]  # not a card row: as it is


def _net(encoder: YuxiEncoderBase) -> AZNet:
    torch.manual_seed(0)
    return AZNet(NetConfig.for_encoder(encoder, **SIZES))


def _meta(encoder: YuxiEncoderBase, **extra: object) -> dict[str, object]:
    meta: dict[str, object] = {"game": "yuxi", "card_table": table_fingerprint(encoder.table), **extra}
    if encoder.spec != EncoderSpec():
        meta["encoder"] = encoder.spec.to_meta()
    return meta


def test_a_network_is_mapped_onto_a_changed_table(tmp_path: Path) -> None:
    """All three changes at once: the card rows follow the keys, the rest is copied."""
    root = tmp_path
    removed, decks = _removed_card("pearl_diver")
    warden = (EXAMPLE / "tide_warden.toml").read_text(encoding="utf-8").replace("id = 45", "id = 44")
    (root / "cards.toml").write_text(_stat_change(removed) + "\n" + warden, encoding="utf-8")
    (root / "decks.toml").write_text(decks, encoding="utf-8")
    old_enc = YuxiAttributeEncoder(_game([]))
    new_enc = YuxiAttributeEncoder(_game(["--cards-file", str(root / "cards.toml"),
                                          "--decks-file", str(root / "decks.toml")]))
    assert old_enc.num_ids == new_enc.num_ids == 44 and "tide_warden" in new_enc.card_keys
    old_net = _net(old_enc)
    new_config = NetConfig.for_encoder(new_enc, **SIZES)
    weights = old_net.state_dict()
    meta = _meta(old_enc, **old_enc.model_meta())
    mapped = new_enc.adapt_weights(weights, old_net.config, meta, new_config, "m")
    AZNet(new_config).load_state_dict(mapped)  # fits the new network
    old_id = {key: i + 1 for i, key in enumerate(old_enc.card_keys)}
    for name in CARD_ROWS:
        old_rows, new_rows = weights[name], mapped[name]
        assert torch.equal(new_rows[0], old_rows[0])  # end turn
        for new_id, key in enumerate(new_enc.card_keys, 1):
            expect = old_rows[old_id[key]] if key in old_id else old_rows[1:].mean(dim=0)
            assert torch.equal(new_rows[new_id], expect), (name, key)
        assert len(new_rows) == new_enc.first_size  # pearl_diver's row is gone
    assert all(torch.equal(mapped[k], v) for k, v in weights.items() if k not in CARD_ROWS)


def test_models_that_cannot_follow_are_refused(changes: dict[str, list[str]], tmp_path: Path) -> None:
    new_game = _game(changes["new"])

    def refused(old: YuxiEncoderBase, new: YuxiEncoderBase, meta: dict[str, object], match: str) -> None:
        net = _net(old)
        with pytest.raises(ConfigError, match=match):
            new.adapt_weights(net.state_dict(), net.config, meta, NetConfig.for_encoder(new, **SIZES),
                              "--init m")

    v1_old, v1_new = EncoderSpec(1).build(_game([])), EncoderSpec(1).build(new_game)
    refused(v1_old, v1_new, _meta(v1_old, **v1_old.model_meta()),
            r"--init m: its input is planes \(108, 4, 6\) and a vector of 308, this card table's is planes "
            r"\(109, 4, 6\) and a vector of 314: it encodes cards by id")
    with_ids = EncoderSpec(2, card_ids=True)
    ids_old, ids_new = with_ids.build(_game([])), with_ids.build(new_game)
    refused(ids_old, ids_new, _meta(ids_old, **ids_old.model_meta()), "it encodes cards by id")
    v2_old, v2_new = EncoderSpec(2).build(_game([])), EncoderSpec(2).build(new_game)
    refused(v1_old, v2_new, _meta(v1_old), "--init m reads yuxi encoder version 1, this run's rooms "
                                           "version 2")
    # made before models recorded their card keys: only its own table can take it
    refused(v2_old, v2_new, _meta(v2_old), "does not record its cards' keys")
    same = v2_old.adapt_weights(_net(v2_old).state_dict(), _net(v2_old).config, _meta(v2_old),
                                NetConfig.for_encoder(v2_old, **SIZES), "m")
    assert all(torch.equal(same[k], v) for k, v in _net(v2_old).state_dict().items())
    # card ids of the same count but other cards: a renamed card
    renamed = tmp_path / "renamed"
    renamed.mkdir()
    for name in ("cards.toml", "decks.toml"):
        text = (DATA / name).read_text(encoding="utf-8")
        (renamed / name).write_text(re.sub(r"\breef_crab\b", "rock_crab", text), encoding="utf-8")
    ids_renamed = with_ids.build(_game(["--cards-file", str(renamed / "cards.toml"),
                                                             "--decks-file", str(renamed / "decks.toml")]))
    refused(ids_old, ids_renamed, _meta(ids_old, **ids_old.model_meta()), "card table's cards are others")
    with pytest.raises(ConfigError, match="are not the keys of its 44 card rows"):
        net = _net(v2_old)
        v2_new.adapt_weights(net.state_dict(), net.config, _meta(v2_old, card_keys=["x"]),
                             NetConfig.for_encoder(v2_new, **SIZES), "m")


# ---- end to end: paiju yuxi train-az --init ---------------------------------------------------------
@pytest.fixture(scope="module")
def old_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model trained 1 tiny iteration on the shipped table, on the attribute encoder."""
    out = tmp_path_factory.mktemp("old") / "run"
    assert run(["yuxi", "train-az", "--out", str(out), "--encoder", "2", *TINY]) == 0
    return out / "model.pt"


def _params(net: AZNet) -> dict[str, torch.Tensor]:
    return {k: v.detach() for k, v in net.named_parameters()}


@pytest.mark.parametrize("change", ["stat", "new", "removed"])
def test_train_az_init_adapts_a_model_to_each_card_change(
    old_model: Path, changes: dict[str, list[str]], tmp_path: Path, change: str
) -> None:
    """The run learns so slowly (--lr 1e-6, two steps) that its model is its start: the old model
    mapped by key. It records the new table's keys and plays on the new table."""
    out = tmp_path / "new"
    assert run(["yuxi", "train-az", "--out", str(out), "--init", str(old_model), *changes[change], *TINY,
                "--lr", "0.000001"]) == 0
    old, old_meta = load_checkpoint(old_model)
    new, meta = load_checkpoint(out / "model.pt")
    game = _game(changes[change])
    keys = [c.key for c in game.table.cards if c is not None]
    assert old_meta[CARD_KEYS] == [c.key for c in _game([]).table.cards if c is not None]
    assert meta[CARD_KEYS] == keys and meta["card_table"] == table_fingerprint(game.table)
    assert meta["encoder"] == {"version": 2, "card_ids": False}  # the --init model's, not given again
    assert new.config.first_size == len(keys) + 1
    inputs = (new.config.plane_shape, new.config.vector_size)
    assert inputs == (old.config.plane_shape, old.config.vector_size)
    before, after = _params(old), _params(new)
    old_id = {key: i + 1 for i, key in enumerate(old_meta[CARD_KEYS])}
    for name in CARD_ROWS:
        expect = torch.stack([before[name][0]] + [
            before[name][old_id[k]] if k in old_id else before[name][1:].mean(dim=0) for k in keys])
        assert torch.allclose(after[name], expect, atol=1e-5), name
    assert all(torch.allclose(after[k], before[k], atol=1e-5) for k in before if k not in CARD_ROWS)
    agent = YuxiPolicyAgent(seed=0, model=str(out / "model.pt"))
    agent.check_game(game)
    assert play_game(game, [agent, REGISTRY.make("greedy", seed=0)], seed=2).state.is_terminal()


def test_an_adaptation_resumed_equals_the_uninterrupted_one(
    old_model: Path, changes: dict[str, list[str]], tmp_path: Path
) -> None:
    """Through the command: the resume, without --encoder, takes the run's encoder (the start
    model's, version 2) from the run, not from the start model, which is gone by then."""
    start = tmp_path / "start.pt"  # a copy of the module's model, so this test may delete it
    start.write_bytes(old_model.read_bytes())
    sizes = ["--seed", "4", "--games", "2", "--simulations", "4", "--steps", "2", "--batch-size", "8",
             "--window", "2", "--channels", "4", "--blocks", "1", "--hidden", "16"]

    def train_az(out: str, iterations: int, *more: str) -> None:
        assert run(["yuxi", "train-az", "--out", str(tmp_path / out), "--boards", "3x3", "--init", str(start),
                    *changes["removed"], *sizes, "--iterations", str(iterations), *more]) == 0

    train_az("whole", 2)
    train_az("split", 1)
    start.unlink()
    train_az("split", 2, "--resume")
    whole = load_payload(tmp_path / "whole" / "checkpoint.pt", "c")["net"]
    split = load_payload(tmp_path / "split" / "checkpoint.pt", "c")["net"]
    assert whole.keys() == split.keys() and all(torch.equal(whole[k], split[k]) for k in whole)
    assert load_checkpoint(tmp_path / "split" / "model.pt")[1]["encoder"] == {"version": 2, "card_ids": False}


def test_bad_init_models_are_one_error_line(
    old_model: Path, changes: dict[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["yuxi", "train-az", "--out", str(tmp_path / "run"), *changes["new"], *TINY]
    missing = tmp_path / "nope.pt"
    assert f"--init {missing}: no such model file" in _one_line_error([*args, "--init", str(missing)], capsys)
    v1 = EncoderSpec(1).build(_game([]))
    v1_model = save_checkpoint(tmp_path / "v1.pt", _net(v1), _meta(v1, **v1.model_meta()))
    err = _one_line_error([*args, "--init", str(v1_model)], capsys)
    assert "its input is planes (108, 4, 6) and a vector of 308" in err and "encodes cards by id" in err
    _, c4 = connect_four_setup(0)
    c4_model = save_checkpoint(tmp_path / "c4.pt", AZNet(NetConfig.for_encoder(c4, **SIZES)),
                               {"game": "connect_four"})
    assert "a model of connect_four, and this run trains yuxi" in _one_line_error(
        [*args, "--init", str(c4_model)], capsys)
    assert "--encoder '3': one of 1, 2, 2+ids" in _one_line_error([*args, "--encoder", "3"], capsys)
    assert not (tmp_path / "run").exists()
