"""The BiLSTM-CRF tagger: input order, the CRF loss against brute force, decoding, metrics."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
import torch

from paiju.core.errors import ConfigError
from paiju.doudizhu.split import Split, repair_tags, tags_need_repair
from paiju.doudizhu.tagger.evaluate import card_matches, paired_interval, score
from paiju.doudizhu.tagger.model import (
    SHIPPED,
    HandTagger,
    ModelConfig,
    batch_tensors,
    canonical_to_input,
    encode_hand,
    input_to_canonical,
    load_model,
    save_model,
    tag_hands,
)


def test_the_hand_is_read_from_high_to_low() -> None:
    assert encode_hand("3345XD") == [
        (14, 1, 0, 4), (13, 1, 0, 4), (2, 1, 0, 4), (1, 1, 0, 4), (0, 2, 0, 4), (0, 2, 1, 4)
    ]
    assert canonical_to_input("0112") == [2, 1, 1, 0]
    # a rank's labels come back ascending, whatever order the network gave them in
    assert input_to_canonical("3345", [0, 2, 1, 0]) == "0120"  # 5:0, 4:2, 3s:{1,0}
    with pytest.raises(ConfigError, match="1-20 cards"):
        encode_hand("3" * 4 + "4" * 4 + "5" * 4 + "6" * 4 + "7" * 4 + "8")


def _path_scores(model: HandTagger, x: torch.Tensor, mask: torch.Tensor) -> dict[tuple[int, ...], float]:
    """Score (emissions + transitions, start and end included) of every one of the 4^L paths."""
    with torch.no_grad():
        em = model.emissions(x, mask)[0].tolist()
        start = model.crf.start_transitions.tolist()
        end = model.crf.end_transitions.tolist()
        trans = model.crf.transitions.tolist()
    out = {}
    for path in itertools.product(range(4), repeat=len(em)):
        s = start[path[0]] + em[0][path[0]] + end[path[-1]]
        for i in range(1, len(path)):
            s += trans[path[i - 1]][path[i]] + em[i][path[i]]
        out[path] = s
    return out


def _brute_nll(model: HandTagger, x: torch.Tensor, mask: torch.Tensor, y: list[int]) -> float:
    """-log p(y | x) by enumerating all label paths (the paper's formula, eq. 5-6)."""
    scores = _path_scores(model, x, mask)
    top = max(scores.values())
    log_z = top + math.log(sum(math.exp(s - top) for s in scores.values()))
    return log_z - scores[tuple(y)]


def test_crf_loss_equals_the_brute_force_partition_function() -> None:
    torch.manual_seed(0)
    model = HandTagger(ModelConfig(embedding=8, hidden=8, dropout=0.0)).eval()
    for hand, tags in (("3345", "0110"), ("777X", "2220"), ("T", "0")):
        x, mask = batch_tensors([hand])
        y = torch.tensor([canonical_to_input(tags)])
        loss = float(model.nll(x, y, mask).detach())
        assert loss == pytest.approx(_brute_nll(model, x, mask, y[0].tolist()), abs=1e-4)


def test_viterbi_path_is_the_best_of_all_paths() -> None:
    torch.manual_seed(1)
    model = HandTagger(ModelConfig(embedding=8, hidden=8, dropout=0.0)).eval()
    x, mask = batch_tensors(["34566"])
    best = model.decode(x, mask)[0]
    scores = _path_scores(model, x, mask)
    assert tuple(best) == max(scores, key=lambda p: scores[p])


def test_batches_pad_and_tag_like_single_hands() -> None:
    torch.manual_seed(2)
    model = HandTagger(ModelConfig(embedding=8, hidden=8)).eval()
    hands = ["34445556789TA22XD", "345", "55667788899TJQKA2XD2"]
    together = tag_hands(model, hands)
    alone = [tag_hands(model, [h])[0] for h in hands]
    assert [t.raw for t in together] == [t.raw for t in alone]
    for hand, t in zip(hands, together, strict=True):
        assert t.repaired == tags_need_repair(hand, t.raw)
        assert t.tags == repair_tags(hand, t.raw)
        assert t.split == Split.from_tags(hand, t.tags)
        assert sorted(str(t.split.hand)) == sorted(hand)


def test_card_matches_treats_a_ranks_cards_as_interchangeable() -> None:
    assert card_matches("334", "110", "010") == 2  # rank 3: {1,1} vs {0,1} -> 1, rank 4 -> 1
    assert card_matches("33", "01", "01") == 2
    s = score(["334", "33"], ["110", "01"], ["010", "01"], [True, False])
    assert s["per_card"] == pytest.approx(4 / 5) and s["exact_match"] == 0.5 and s["repair_rate"] == 0.5


def test_paired_interval_averages_hands_of_a_deal_first() -> None:
    out = paired_interval(["a", "a", "b", "c"], [1.0, 0.0, 1.0, 0.5], [0.5, 0.5, 0.5, 0.5])
    # per deal: a -> 0, b -> 0.5, c -> 0
    assert out["deals"] == 3 and out["margin"] == pytest.approx(1 / 6)
    sd = math.sqrt(((0 - 1 / 6) ** 2 * 2 + (0.5 - 1 / 6) ** 2) / 2)
    assert out["high"] - out["margin"] == pytest.approx(1.96 * sd / math.sqrt(3))


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no shipped tagger checkpoint")
def test_the_shipped_tagger_splits_the_paper_hands() -> None:
    model = load_model()
    for hand in ("34445556789TA22XD", "3689TTTJJJKKAAA22", "X2AAQQQJJTT988774", "2AKKKQQ9998888555"):
        t = tag_hands(model, [hand])[0]
        assert len(t.tags) == len(hand) and sorted(str(t.split.hand)) == sorted(hand)
    # the shipped model tags the paper's two worked examples as the paper does (docs/splitting.md, "Tags")
    assert tag_hands(model, ["34445556789TA22XD"])[0].tags == "02222220000001133"
    assert tag_hands(model, ["3689TTTJJJKKAAA22"])[0].tags == "00002222221122211"
    assert model.config.sources and model.config.default_source == "search"


def test_split_method_tagger_and_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from typer.testing import CliRunner

    from paiju.cli.main import app
    from paiju.doudizhu import split
    from paiju.doudizhu.tagger import model as model_module

    # a checkpoint of our own stands in for the shipped one (whether or not one is shipped)
    torch.manual_seed(3)
    save_model(HandTagger(ModelConfig(embedding=8, hidden=8)), tmp_path / "t.pt")
    monkeypatch.setattr(model_module, "SHIPPED", tmp_path / "t.pt")
    monkeypatch.setattr(model_module, "_LOADED", {})
    hand = "34445556789TA22XD"
    expected = tag_hands(load_model(tmp_path / "t.pt"), [hand])[0].split
    assert split(hand, method="tagger") == expected
    with pytest.raises(ConfigError, match="no objective"):
        split(hand, method="tagger", objective="plays")
    res = CliRunner().invoke(app, ["ddz", "split", hand, "--method", "tagger", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["method"] == "tagger" and out["split"] == str(expected) and out["tags"] == expected.tags()
    monkeypatch.setattr(model_module, "SHIPPED", tmp_path / "absent.pt")
    monkeypatch.setattr(model_module, "_LOADED", {})
    with pytest.raises(ConfigError, match="tagger-train"):
        split(hand, method="tagger")


def test_the_prior_is_the_exact_fewest_plays_split_read_in_input_order() -> None:
    # each card's label in the exact fewest-plays split, read high to low like the cards
    hand = "34445556789TA22XD"
    from paiju.doudizhu.split import exact

    tags = exact(hand, "plays").tags()
    enc = encode_hand(hand, "exact_plays")
    assert [c[3] for c in enc] == [int(t) for t in reversed(tags)]
    assert [c[:3] for c in enc] == [c[:3] for c in encode_hand(hand)]
    with pytest.raises(ConfigError, match="unknown tagger prior"):
        ModelConfig(prior="groups")
    # a prior model learns a one-hand set at once and tags in batches like single hands
    torch.manual_seed(3)
    model = HandTagger(ModelConfig(embedding=8, hidden=8, prior="exact_plays")).eval()
    hands = ["34445556789TA22XD", "345", "55667788899TJQKA2XD2"]
    assert [t.raw for t in tag_hands(model, hands)] == [tag_hands(model, [h])[0].raw for h in hands]
    # the paper's model has no prior embedding: checkpoints from before the option load
    assert HandTagger(ModelConfig()).prior is None


def test_a_model_that_reads_the_source_tags_each_source_by_its_own_vector(tmp_path: Path) -> None:
    from paiju.doudizhu.tagger.model import tag_rows

    with pytest.raises(ConfigError, match="not one of its sources"):
        ModelConfig(sources=("rule", "search"), default_source="xgb")
    with pytest.raises(ConfigError, match="repeat"):
        ModelConfig(sources=("rule", "rule"), default_source="rule")
    with pytest.raises(ConfigError, match="needs the model to read sources"):
        ModelConfig(default_source="rule")
    torch.manual_seed(5)
    model = HandTagger(ModelConfig(embedding=8, hidden=8, sources=("rule", "search"),
                                   default_source="search")).eval()
    with torch.no_grad():  # two sources far apart: their emissions must differ
        model.source.weight[0].fill_(3.0)
        model.source.weight[1].fill_(-3.0)
    hands = ["34445556789TA22XD", "345", "55667788899TJQKA2XD2", "3456789TJQKA22XD3"]
    x, mask = batch_tensors(hands)
    rule = model.emissions(x, mask, torch.zeros(len(hands), dtype=torch.long))
    search = model.emissions(x, mask, torch.ones(len(hands), dtype=torch.long))
    assert not torch.allclose(rule, search)
    # the default is the configured source; a named one is used as named
    assert [t.raw for t in tag_hands(model, hands)] == [t.raw for t in tag_hands(model, hands, "search")]
    by_path = model.decode(x, mask, torch.zeros(len(hands), dtype=torch.long))
    assert [t.raw for t in tag_hands(model, hands, "rule")] == [
        input_to_canonical(h, p) for h, p in zip(hands, by_path, strict=True)
    ]
    # dataset rows are tagged as their own source, in their order
    sources = ["search", "rule", "rule", "search"]
    rows = [{"hand": h, "source": s} for h, s in zip(hands, sources, strict=True)]
    want = [tag_hands(model, [r["hand"]], r["source"])[0].raw for r in rows]
    assert [t.raw for t in tag_rows(model, rows)] == want
    with pytest.raises(ConfigError, match="unknown tagger source 'greedy'"):
        tag_hands(model, hands, "greedy")
    with pytest.raises(ConfigError, match="does not read the data source"):
        tag_hands(HandTagger(ModelConfig(embedding=8, hidden=8)), hands, "rule")
    # the sources survive a checkpoint
    save_model(model, tmp_path / "s.pt")
    again = load_model(tmp_path / "s.pt")
    assert again.config == model.config
    assert [t.raw for t in tag_hands(again, hands, "rule")] == [
        t.raw for t in tag_hands(model, hands, "rule")
    ]
