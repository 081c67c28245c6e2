"""The BiLSTM-CRF hand tagger (``docs/splitting.md``, "The learned splitter").

Network, as the paper describes it: each card is embedded, a bidirectional LSTM reads the
hand, a linear layer gives 4 emission scores per card, and a linear-chain CRF
(``torchcrf.CRF`` of the maintained ``pytorch-crf`` package: a 4x4 transition matrix plus
start and end transitions, i.e. the paper's 6x6 matrix over start, 4 labels, end) scores the
label sequence; training minimises the CRF's negative log-likelihood, decoding is Viterbi.

Input order: the hand is read **from high to low** (big joker first, 3s last), as the paper
feeds it. A card's embedding is the sum of three learned vectors: its rank, how many cards of
that rank the hand holds (1-4) and its place among them (0-3) — the cards of a rank are
interchangeable, so the last two tell the network which of a rank's cards it is looking at.

Ours, beyond the paper (``ModelConfig.prior = "exact_plays"``): a fourth vector, the card's
label in the exact fewest-plays split (:func:`paiju.doudizhu.split.exact`). Winners who play
from that split (``rule``, most of ``search``) then need no rediscovery of the exact
algorithm from data: the network learns where winners *depart* from it. ``prior = "none"``
is the paper's network.

Also ours (``ModelConfig.sources``): the data source — whose winners' hands a row comes from,
e.g. ``rule`` or ``search`` — as an input, a learned vector added to every card. One model
then learns every source's style, sources with few hands borrow from the others, and a hand is
tagged *as a given source's winners would split it* (``tag_hands(..., source=)``; without it,
the model's ``default_source``). An empty ``sources`` is the paper's network.

Tags come back in the library's canonical order (hand ascending, a rank's labels
ascending), are repaired by :func:`paiju.doudizhu.split.repair_tags` when they cannot be
decoded, and become a split with :meth:`paiju.doudizhu.split.Split.from_tags`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import torch
from torch import nn
from torchcrf import CRF

from paiju.core.errors import ConfigError
from paiju.doudizhu.cards import NUM_RANKS, Hand, parse_counts
from paiju.doudizhu.split_core import Split, exact, repair_tags, tags_need_repair

MAX_CARDS: Final = 20
NUM_LABELS: Final = 4
PAD: Final = NUM_RANKS
"""Rank index of padding positions (one past the big joker)."""
MODELS_DIR: Final = Path(__file__).resolve().parent.parent / "models"
SHIPPED: Final = MODELS_DIR / "tagger.pt"
PRIORS: Final = ("none", "exact_plays")
"""What the network reads besides the cards: nothing (the paper), or each card's label in the
exact fewest-plays split."""
NO_PRIOR: Final = NUM_LABELS
"""Prior index of a padding position (and of every card when the model reads no prior)."""


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of the network (saved with every checkpoint)."""

    embedding: int = 32
    hidden: int = 64
    layers: int = 1
    dropout: float = 0.1
    prior: str = "none"
    """One of :data:`PRIORS` (checkpoints saved before the option read no prior)."""
    sources: tuple[str, ...] = ()
    """Data sources the network reads as an input (empty: none, the paper's network)."""
    default_source: str = ""
    """The source a hand is tagged as when the caller names none (one of ``sources``)."""

    def __post_init__(self) -> None:
        check_prior(self.prior)
        object.__setattr__(self, "sources", tuple(self.sources))  # a checkpoint stores a list
        if len(set(self.sources)) != len(self.sources):
            raise ConfigError(f"tagger sources repeat: {list(self.sources)}")
        if self.sources and self.default_source not in self.sources:
            raise ConfigError(
                f"tagger default source {self.default_source!r} is not one of its sources "
                f"({', '.join(self.sources)})"
            )
        if not self.sources and self.default_source:
            raise ConfigError("a tagger default source needs the model to read sources")

    def source_index(self, source: str | None) -> int | None:
        """Input index of ``source`` (None: the default); None for a model without sources."""
        if not self.sources:
            if source is not None:
                raise ConfigError(f"this tagger does not read the data source (asked for {source!r})")
            return None
        name = self.default_source if source is None else source
        if name not in self.sources:
            raise ConfigError(f"unknown tagger source {name!r}; this model knows {', '.join(self.sources)}")
        return self.sources.index(name)


class HandTagger(nn.Module):
    """Card embedding -> BiLSTM -> linear (4 emissions per card) -> CRF."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.rank = nn.Embedding(NUM_RANKS + 1, config.embedding, padding_idx=PAD)
        self.multiplicity = nn.Embedding(5, config.embedding, padding_idx=0)
        self.place = nn.Embedding(5, config.embedding, padding_idx=4)
        # only models that read the prior have its embedding (older checkpoints load unchanged)
        self.prior = (
            nn.Embedding(NUM_LABELS + 1, config.embedding, padding_idx=NO_PRIOR)
            if config.prior != "none" else None
        )
        self.source = nn.Embedding(len(config.sources), config.embedding) if config.sources else None
        self.lstm = nn.LSTM(
            config.embedding, config.hidden, num_layers=config.layers, batch_first=True,
            bidirectional=True, dropout=config.dropout if config.layers > 1 else 0.0,
        )
        self.drop = nn.Dropout(config.dropout)
        self.emit = nn.Linear(2 * config.hidden, NUM_LABELS)
        self.crf = CRF(NUM_LABELS, batch_first=True)

    def emissions(self, x: torch.Tensor, mask: torch.Tensor,
                  source: torch.Tensor | None = None) -> torch.Tensor:
        """``x``: (batch, length, 4) rank / multiplicity / place / prior indices, ``source``:
        (batch,) source indices (models that read sources) -> (batch, length, 4).

        Packed by length, so the backward LSTM of a 17-card hand in a batch padded to 20
        starts at its own last card: a hand tags the same alone or in any batch."""
        e = self.rank(x[..., 0]) + self.multiplicity(x[..., 1]) + self.place(x[..., 2])
        if self.prior is not None:
            e = e + self.prior(x[..., 3])
        if self.source is not None:
            if source is None:
                raise ValueError("this tagger reads the data source: pass source indices")
            e = e + self.source(source)[:, None, :]
        lengths = mask.sum(dim=1).cpu()
        packed = nn.utils.rnn.pack_padded_sequence(
            self.drop(e), lengths, batch_first=True, enforce_sorted=False
        )
        h, _ = self.lstm(packed)
        h, _ = nn.utils.rnn.pad_packed_sequence(h, batch_first=True, total_length=x.shape[1])
        out: torch.Tensor = self.emit(self.drop(h))
        return out

    def nll(self, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor,
            source: torch.Tensor | None = None) -> torch.Tensor:
        """Mean negative log-likelihood of the label paths ``y`` (the training loss)."""
        ll: torch.Tensor = self.crf(self.emissions(x, mask, source), y, mask=mask, reduction="mean")
        return -ll

    def decode(self, x: torch.Tensor, mask: torch.Tensor,
               source: torch.Tensor | None = None) -> list[list[int]]:
        """Viterbi label paths, one list per hand (its length, in input order)."""
        paths: list[list[int]] = self.crf.decode(self.emissions(x, mask, source), mask=mask)
        return paths


def check_prior(prior: str) -> None:
    if prior not in PRIORS:
        raise ConfigError(f"unknown tagger prior {prior!r}; expected one of {', '.join(PRIORS)}")


def prior_tags(hand: str | Hand, prior: str) -> str | None:
    """The canonical tags the network reads as its prior (None for ``prior="none"``)."""
    check_prior(prior)
    return exact(hand, "plays").tags() if prior == "exact_plays" else None


def encode_hand(hand: str | Hand, prior: str = "none") -> list[tuple[int, int, int, int]]:
    """The network's input for one hand: per card, high to low, ``(rank, multiplicity, place,
    prior label)`` (the prior label is :data:`NO_PRIOR` when the model reads none)."""
    counts = hand.counts if isinstance(hand, Hand) else parse_counts(hand, what="hand")
    out: list[tuple[int, int, int, int]] = []
    for r in range(NUM_RANKS - 1, -1, -1):
        n = counts[r]
        out.extend((r, n, i, NO_PRIOR) for i in range(n))
    if not 0 < len(out) <= MAX_CARDS:
        raise ConfigError(f"the tagger splits hands of 1-{MAX_CARDS} cards, got {len(out)}")
    tags = prior_tags(hand, prior)
    if tags is not None:  # in input order, as the labels are (canonical_to_input)
        out = [(r, n, i, label) for (r, n, i, _), label in zip(out, canonical_to_input(tags), strict=True)]
    return out


def batch_tensors(hands: Sequence[str | Hand], prior: str = "none") -> tuple[torch.Tensor, torch.Tensor]:
    """Padded inputs ``(batch, L, 4)`` and the mask ``(batch, L)`` of ``hands``."""
    encoded = [encode_hand(h, prior) for h in hands]
    length = max(len(e) for e in encoded)
    x = torch.full((len(encoded), length, 4), 0, dtype=torch.long)
    x[..., 0] = PAD
    x[..., 2] = 4
    x[..., 3] = NO_PRIOR
    mask = torch.zeros((len(encoded), length), dtype=torch.bool)
    for i, e in enumerate(encoded):
        x[i, : len(e)] = torch.tensor(e, dtype=torch.long)
        mask[i, : len(e)] = True
    return x, mask


def canonical_to_input(tags: str) -> list[int]:
    """Labels of a canonical tag string (hand ascending) in the network's high-to-low order."""
    return [int(ch) for ch in reversed(tags)]


def input_to_canonical(hand: str | Hand, path: Sequence[int]) -> str:
    """A label path in input order (high to low) as a canonical tag string: each rank's
    labels ascending, ranks ascending."""
    counts = hand.counts if isinstance(hand, Hand) else parse_counts(hand, what="hand")
    labels = list(reversed(path))
    out: list[str] = []
    i = 0
    for n in counts:
        out.extend(str(v) for v in sorted(labels[i : i + n]))
        i += n
    return "".join(out)


@dataclass(frozen=True)
class Tagging:
    """The tagger's answer for one hand: raw Viterbi tags, whether they needed the repair,
    the repaired tags and the split they decode to."""

    raw: str
    repaired: bool
    tags: str
    split: Split


def tag_hands(model: HandTagger, hands: Sequence[str | Hand], source: str | None = None) -> list[Tagging]:
    """Tag ``hands`` in one batch (eval mode, no gradients), for a model that reads the data
    source as ``source``'s winners would split them (None: the model's default source)."""
    index = model.config.source_index(source)
    if not hands:
        return []
    model.eval()
    x, mask = batch_tensors(hands, model.config.prior)
    sources = None if index is None else torch.full((len(hands),), index, dtype=torch.long)
    with torch.inference_mode():
        paths = model.decode(x, mask, sources)
    out = []
    for hand, path in zip(hands, paths, strict=True):
        raw = input_to_canonical(hand, path)
        repaired = tags_need_repair(hand, raw)
        tags = repair_tags(hand, raw) if repaired else raw
        out.append(Tagging(raw, repaired, tags, Split.from_tags(hand, tags)))
    return out


def tag_rows(model: HandTagger, rows: Sequence[dict[str, Any]]) -> list[Tagging]:
    """Tag dataset rows (``hand``, ``source``): a model that reads the data source tags each row
    as its own source's winners would (one batch per source), any other model in one batch."""
    if not model.config.sources:
        return tag_hands(model, [r["hand"] for r in rows])
    out: list[Tagging | None] = [None] * len(rows)
    by_source: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_source.setdefault(r["source"], []).append(i)
    for source, idx in by_source.items():
        for i, t in zip(idx, tag_hands(model, [rows[i]["hand"] for i in idx], source), strict=True):
            out[i] = t
    return [t for t in out if t is not None]


def save_model(model: HandTagger, path: str | os.PathLike[str], extra: dict[str, Any] | None = None) -> None:
    """A checkpoint: weights plus the model config (and ``extra``, e.g. the training config)."""
    torch.save({"model_config": asdict(model.config), "state_dict": model.state_dict(),
                "extra": extra or {}}, path)


def load_model(path: str | os.PathLike[str] | None = None) -> HandTagger:
    """The tagger saved at ``path`` (default: the shipped ``models/tagger.pt``)."""
    target = Path(path) if path is not None else SHIPPED
    if not target.is_file():
        raise ConfigError(f"no tagger checkpoint at {target}; train one with `paiju ddz tagger-train`")
    try:
        data = torch.load(target, map_location="cpu", weights_only=True)
        model = HandTagger(ModelConfig(**data["model_config"]))
        model.load_state_dict(data["state_dict"])
    except (KeyError, TypeError, RuntimeError, OSError) as err:
        raise ConfigError(f"{target}: not a tagger checkpoint ({err})") from None
    model.eval()
    return model


_LOADED: dict[str, HandTagger] = {}


def shipped_model() -> HandTagger:
    """The shipped tagger, loaded once per process."""
    model = _LOADED.get("shipped")
    if model is None:
        model = _LOADED["shipped"] = load_model()
    return model


def loaded_shipped_model() -> HandTagger | None:
    """The shipped tagger if this process has loaded it already, else None (never loads: for
    callers that must answer at once, like the web hint while the server warms up)."""
    return _LOADED.get("shipped")


def model_summary(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Config and metrics files saved next to a checkpoint (``X.pt`` -> ``X.config.json``...)."""
    p = Path(path)
    out: dict[str, Any] = {}
    for part in ("config", "metrics"):
        f = p.with_suffix(f".{part}.json")
        if f.is_file():
            out[part] = json.loads(f.read_text())
    return out


__all__ = [
    "MAX_CARDS",
    "NO_PRIOR",
    "PRIORS",
    "SHIPPED",
    "HandTagger",
    "ModelConfig",
    "Tagging",
    "batch_tensors",
    "canonical_to_input",
    "check_prior",
    "encode_hand",
    "input_to_canonical",
    "load_model",
    "loaded_shipped_model",
    "model_summary",
    "prior_tags",
    "save_model",
    "shipped_model",
    "tag_hands",
    "tag_rows",
]
