"""The yuxi card table and fixed decks: data files, validation, and the compiled form.

Cards are data (``data/cards.toml``, decks in ``data/decks.toml``). Loading validates every
field and every effect parameter against the effect vocabulary of :mod:`paiju.yuxi.effects`
so that a designer's typo fails at load time with a message naming the file, the card and
the field (:class:`~paiju.core.errors.ConfigError`), and an unreadable or syntactically
broken file fails naming the file (:class:`~paiju.core.errors.CorruptRecordError`).

The validated table is then *compiled*: each card's effects are bound to their functions
and grouped by trigger, so the engine's hot path is a tuple walk with no lookups. Compiling
takes optional ``overrides`` (effect name -> function); the audit tests use them to inject
a deliberately buggy effect and check that the invariant checker catches it. The card types
themselves (:class:`Card`, :class:`CompiledCard`) are in :mod:`paiju.yuxi.card_types`, below
the effect code; they are importable from here as before.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from paiju.core.errors import ConfigError, CorruptRecordError, InvalidNotationError
from paiju.yuxi.card_types import Card, CompiledCard, EffectFn, EffectRef
from paiju.yuxi.effects import EFFECTS, TRIGGERS, EffectSpec, Param

FACTIONS = ("tide", "guild", "storm", "iron")
KINDS = ("character", "spell")
RARITIES = ("common", "rare", "epic", "legendary", "void")
COPY_LIMIT = {"common": 4, "rare": 2, "epic": 1, "legendary": 1}
"""Copies of one card a deck may hold, by rarity (player guides of the original: 4/2/1/1)."""
SPELL_TARGETS = ("enemy", "ally", "character", "cell", "none")

_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_CARD_FIELDS = {
    "id",
    "key",
    "name",
    "faction",
    "kind",
    "rarity",
    "points",
    "armour",
    "coins",
    "cost",
    "cooldown",
    "titles",
    "target",
    "text",
    "effects",
}
_EFFECT_FIELDS = {"trigger", "effect", "params"}


@dataclass(frozen=True)
class Deck:
    """A fixed deck: card key -> copies."""

    key: str
    name: str
    cards: Mapping[str, int]

    @property
    def size(self) -> int:
        return sum(self.cards.values())


@dataclass
class CardTable:
    """The whole card set, the fixed decks, and their compiled forms.

    ``cards[i]`` is the card with id ``i`` (index 0 is None: id 0 means "end turn" in the
    card-id space of the action encoding).
    """

    cards: tuple[Card | None, ...]
    decks: dict[str, Deck]
    source: str
    compiled: tuple[CompiledCard | None, ...] = field(default=(), repr=False)

    @property
    def num_ids(self) -> int:
        """Card ids 1..num_ids exist."""
        return len(self.cards) - 1

    def card(self, key_or_id: str | int) -> Card:
        """A card by key (``"reef_crab"``) or id; unknown ones are an InvalidNotationError."""
        if isinstance(key_or_id, int):
            if 1 <= key_or_id <= self.num_ids:
                card = self.cards[key_or_id]
                assert card is not None
                return card
            raise InvalidNotationError(f"no yuxi card with id {key_or_id} (ids 1..{self.num_ids})")
        by_key = self._by_key()
        text = key_or_id.strip()
        if text in by_key:
            return by_key[text]
        if text.isdigit():
            return self.card(int(text))
        raise InvalidNotationError(f"unknown yuxi card {key_or_id!r} (card keys look like 'reef_crab')")

    parse = card

    def _by_key(self) -> dict[str, Card]:
        cache = self.__dict__.get("_key_cache")
        if cache is None:
            cache = {c.key: c for c in self.cards if c is not None}
            self.__dict__["_key_cache"] = cache
        return cache

    def deck(self, key: str) -> Deck:
        try:
            return self.decks[key]
        except KeyError:
            raise ConfigError(f"unknown yuxi deck {key!r}; decks: {', '.join(self.decks)}") from None

    def deck_counts(self, key: str) -> list[int]:
        """Copies per card id (length ``num_ids + 1``) of the deck ``key``."""
        counts = [0] * (self.num_ids + 1)
        for card_key, n in self.deck(key).cards.items():
            counts[self.card(card_key).id] = n
        return counts

    def compile(self, overrides: Mapping[str, EffectFn] | None = None) -> tuple[CompiledCard | None, ...]:
        """Bind effects to functions (``overrides`` replaces some, e.g. to inject a bug)."""
        funcs = {name: spec.fn for name, spec in EFFECTS.items()}
        for name, fn in (overrides or {}).items():
            if name not in funcs:
                raise ConfigError(
                    f"effect override {name!r}: no such effect; effects: {', '.join(sorted(funcs))}"
                )
            funcs[name] = fn
        ids = {c.key: c.id for c in self.cards if c is not None}
        out: list[CompiledCard | None] = [None]
        for card in self.cards[1:]:
            assert card is not None
            bound: dict[str, list[tuple[EffectFn, dict[str, Any]]]] = {}
            discount = 0
            for ref in card.effects:
                params = dict(ref.params)
                for pname, pspec in EFFECTS[ref.effect].params.items():
                    if pspec.kind in ("void_card", "coin_card"):
                        params[pname] = ids[params[pname]]
                if ref.trigger == "aura":
                    discount += int(params["amount"])
                    continue
                bound.setdefault(ref.trigger, []).append((funcs[ref.effect], params))
            out.append(CompiledCard(card, {k: tuple(v) for k, v in bound.items()}, discount))
        return tuple(out)


# ------------------------------------------------------------------------------------------------
# loading and validation
# ------------------------------------------------------------------------------------------------
def _read_toml(path: Path | Any, what: str) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CorruptRecordError(f"{path}: cannot read the yuxi {what} file ({err})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise CorruptRecordError(f"{path}: the yuxi {what} file is not valid TOML ({err})") from None


def _field_error(src: str, where: str, fld: str, problem: str) -> ConfigError:
    return ConfigError(f"{src}: {where}: field {fld!r} {problem}")


def _int_field(
    raw: dict[str, Any], fld: str, src: str, where: str, low: int, high: int, default: int = 0
) -> int:
    value = raw.get(fld, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _field_error(src, where, fld, f"must be an integer, got {value!r}")
    if not low <= value <= high:
        raise _field_error(src, where, fld, f"must be between {low} and {high}, got {value}")
    return value


def _str_field(
    raw: dict[str, Any],
    fld: str,
    src: str,
    where: str,
    choices: tuple[str, ...] | None = None,
    default: str | None = None,
) -> str:
    value = raw.get(fld, default)
    if value is None:
        raise _field_error(src, where, fld, "is missing")
    if not isinstance(value, str) or not value.strip():
        raise _field_error(src, where, fld, f"must be a non-empty string, got {value!r}")
    if choices is not None and value not in choices:
        raise _field_error(src, where, fld, f"must be one of {', '.join(choices)}, got {value!r}")
    return value


def _parse_card(raw: Any, index: int, src: str) -> Card:
    if not isinstance(raw, dict):
        raise ConfigError(f"{src}: card entry #{index + 1} is not a table")
    key = raw.get("key")
    where = f"card #{index + 1} ({key!r})" if isinstance(key, str) else f"card #{index + 1}"
    unknown = sorted(set(raw) - _CARD_FIELDS)
    if unknown:
        raise _field_error(
            src, where, unknown[0], f"is not a card field (fields: {', '.join(sorted(_CARD_FIELDS))})"
        )
    key = _str_field(raw, "key", src, where)
    if not _KEY_RE.match(key):
        raise _field_error(src, where, "key", f"must be snake_case ([a-z][a-z0-9_]*), got {key!r}")
    where = f"card {key!r}"
    cid = _int_field(raw, "id", src, where, 1, 10_000, default=-1)
    name = _str_field(raw, "name", src, where)
    faction = _str_field(raw, "faction", src, where, FACTIONS)
    kind = _str_field(raw, "kind", src, where, KINDS)
    rarity = _str_field(raw, "rarity", src, where, RARITIES)
    text = _str_field(raw, "text", src, where)
    if kind == "character":
        points = _int_field(raw, "points", src, where, 1, 30, default=-1)
        armour = _int_field(raw, "armour", src, where, 0, 20)
        coins = _int_field(raw, "coins", src, where, 0, 10)
        target = _str_field(raw, "target", src, where, ("empty",), default="empty")
    else:
        for fld in ("points", "armour", "coins", "cooldown"):
            if raw.get(fld, 0) != 0:
                raise _field_error(src, where, fld, f"must be 0 (or absent) for a spell, got {raw[fld]!r}")
        points = armour = coins = 0
        target = _str_field(raw, "target", src, where, SPELL_TARGETS)
    cost = _int_field(raw, "cost", src, where, 0, 10)
    cooldown = _int_field(raw, "cooldown", src, where, 0, 9)
    titles_raw = raw.get("titles", [])
    if not isinstance(titles_raw, list) or not all(
        isinstance(t, str) and _KEY_RE.match(t) for t in titles_raw
    ):
        raise _field_error(src, where, "titles", f"must be a list of snake_case words, got {titles_raw!r}")
    if len(set(titles_raw)) != len(titles_raw):
        raise _field_error(src, where, "titles", f"has a repeated title: {titles_raw!r}")
    effects_raw = raw.get("effects", [])
    if not isinstance(effects_raw, list):
        raise _field_error(src, where, "effects", "must be a list of {trigger, effect, params} tables")
    effects = []
    for j, e in enumerate(effects_raw):
        ew = f"{where} effect #{j + 1}"
        if not isinstance(e, dict):
            raise _field_error(src, where, "effects", f"entry #{j + 1} is not a table")
        bad = sorted(set(e) - _EFFECT_FIELDS)
        if bad:
            raise _field_error(src, ew, bad[0], "is not an effect field (trigger, effect, params)")
        trigger = _str_field(e, "trigger", src, ew, TRIGGERS)
        effect = _str_field(e, "effect", src, ew, tuple(sorted(EFFECTS)))
        params = e.get("params", {})
        if not isinstance(params, dict):
            raise _field_error(src, ew, "params", f"must be a table, got {params!r}")
        effects.append(EffectRef(trigger, effect, dict(params)))
    return Card(
        cid,
        key,
        name,
        faction,
        kind,
        rarity,
        points,
        armour,
        coins,
        cost,
        cooldown,
        tuple(titles_raw),
        target,
        text,
        tuple(effects),
    )


def _check_effects(cards: list[Card], src: str) -> None:
    """Cross-card checks: triggers fit the kind, parameters fit the effect's schema, titles
    and void-card references exist, cooldown iff a timed skill."""
    titles = {t for c in cards for t in c.titles}
    by_key = {c.key: c for c in cards}
    for c in cards:
        where = f"card {c.key!r}"
        has_timed = False
        for j, ref in enumerate(c.effects):
            ew = f"{where} effect #{j + 1} ({ref.effect})"
            spec = EFFECTS[ref.effect]
            _check_trigger(c, ref, spec, src, ew)
            has_timed |= ref.trigger == "turn_start"
            _check_param_names(ref, spec, src, ew)
            for pname, p in spec.params.items():
                check = _PARAM_CHECKS.get(p.kind)
                problem = check(ref.params[pname], p, titles, by_key) if check else None
                if problem is not None:
                    raise _field_error(src, ew, f"params.{pname}", problem)
        if has_timed != (c.cooldown > 0):
            raise _field_error(
                src,
                where,
                "cooldown",
                "must be >= 1 exactly when the card has a turn_start effect "
                f"(cooldown {c.cooldown}, turn_start effect: {has_timed})",
            )
        # void cards must not create void cards: keeps every game finite
        if c.is_void and any(ref.effect in ("add_void", "recycle_coins") for ref in c.effects):
            raise _field_error(
                src, where, "effects", "a void card may not create void cards (games must end)"
            )


def _check_trigger(c: Card, ref: EffectRef, spec: EffectSpec, src: str, ew: str) -> None:
    """The trigger fits the card's kind (spells on 'cast' only) and the effect's own triggers."""
    if c.kind == "spell" and ref.trigger != "cast":
        raise _field_error(
            src, ew, "trigger", f"a spell's effects trigger on 'cast', got {ref.trigger!r}"
        )
    if c.kind == "character" and ref.trigger == "cast":
        raise _field_error(src, ew, "trigger", "a character cannot have a 'cast' effect")
    if ref.trigger not in spec.triggers:
        raise _field_error(
            src,
            ew,
            "trigger",
            f"{ref.effect} may trigger on {', '.join(sorted(spec.triggers))}, not {ref.trigger!r}",
        )
    if spec.triggers <= {"cast"} and c.target in ("none",):
        raise _field_error(
            src, ew, "effect", f"{ref.effect} needs a target; the card's target is 'none'"
        )


def _check_param_names(ref: EffectRef, spec: EffectSpec, src: str, ew: str) -> None:
    """The effect line gives exactly the parameters of the effect's schema."""
    missing = sorted(set(spec.params) - set(ref.params))
    if missing:
        raise _field_error(
            src, ew, "params", f"is missing {missing[0]!r} (needs {', '.join(spec.params)})"
        )
    extra = sorted(set(ref.params) - set(spec.params))
    if extra:
        raise _field_error(
            src,
            ew,
            "params",
            f"has unknown parameter {extra[0]!r} (allowed: {', '.join(spec.params) or 'none'})",
        )


# One rule per parameter kind of the effect schema: each returns what is wrong with the
# value (completing "field 'params.NAME' ..."), or None when the value fits.
_ParamCheck = Callable[[Any, Param, set[str], dict[str, Card]], str | None]


def _int_param_problem(v: Any, p: Param, titles: set[str], by_key: dict[str, Card]) -> str | None:
    if isinstance(v, bool) or not isinstance(v, int) or not p.low <= v <= p.high:
        return f"must be an integer in {p.low}..{p.high}, got {v!r}"
    return None


def _choice_param_problem(v: Any, p: Param, titles: set[str], by_key: dict[str, Card]) -> str | None:
    if v not in p.choices:
        return f"must be one of {', '.join(p.choices)}, got {v!r}"
    return None


def _title_param_problem(v: Any, p: Param, titles: set[str], by_key: dict[str, Card]) -> str | None:
    # "title_or_any" also accepts "" (any card); "title" needs a title some card has
    if not isinstance(v, str) or (v == "" and p.kind == "title") or (v and v not in titles):
        return f"must be a title some card has ({', '.join(sorted(titles))}), got {v!r}"
    return None


def _void_card_param_problem(
    v: Any, p: Param, titles: set[str], by_key: dict[str, Card]
) -> str | None:
    ref_card = by_key.get(v) if isinstance(v, str) else None
    if ref_card is None or not ref_card.is_void:
        return f"must be the key of a void card, got {v!r}"
    if p.kind == "coin_card" and "coin" not in ref_card.titles:
        return f"must be a void card with the title 'coin', got {v!r}"
    return None


_PARAM_CHECKS: dict[str, _ParamCheck] = {
    "int": _int_param_problem,
    "choice": _choice_param_problem,
    "title": _title_param_problem,
    "title_or_any": _title_param_problem,
    "void_card": _void_card_param_problem,
    "coin_card": _void_card_param_problem,
}


def parse_card_table(
    card_data: dict[str, Any], deck_data: dict[str, Any], source: str, deck_source: str | None = None
) -> CardTable:
    """Validate parsed TOML data into a :class:`CardTable` (compiled with the real effects).

    ``source`` names the card file in errors, ``deck_source`` the deck file (default: ``source``).
    """
    raw_cards = card_data.get("card")
    if not isinstance(raw_cards, list) or not raw_cards:
        raise ConfigError(f"{source}: no [[card]] entries")
    extra_top = sorted(set(card_data) - {"card"})
    if extra_top:
        raise ConfigError(f"{source}: unknown top-level key {extra_top[0]!r} (only [[card]] tables)")
    cards = [_parse_card(raw, i, source) for i, raw in enumerate(raw_cards)]
    seen_ids: dict[int, str] = {}
    seen_keys: set[str] = set()
    for c in cards:
        if c.id in seen_ids:
            raise _field_error(
                source, f"card {c.key!r}", "id", f"{c.id} is also the id of {seen_ids[c.id]!r}"
            )
        if c.key in seen_keys:
            raise _field_error(source, f"card {c.key!r}", "key", "is used by two cards")
        seen_ids[c.id] = c.key
        seen_keys.add(c.key)
    expected = set(range(1, len(cards) + 1))
    if set(seen_ids) != expected:
        gap = min(expected - set(seen_ids))
        raise ConfigError(f"{source}: card ids must be 1..{len(cards)} with no gaps (id {gap} is missing)")
    _check_effects(cards, source)
    ordered: list[Card | None] = [None, *sorted(cards, key=lambda c: c.id)]
    decks = _parse_decks(deck_data, {c.key: c for c in cards}, deck_source or source)
    table = CardTable(tuple(ordered), decks, source)
    table.compiled = table.compile()
    return table


def _parse_decks(deck_data: dict[str, Any], by_key: dict[str, Card], source: str) -> dict[str, Deck]:
    raw_decks = deck_data.get("deck")
    if not isinstance(raw_decks, list) or not raw_decks:
        raise ConfigError(f"{source}: no [[deck]] entries")
    decks: dict[str, Deck] = {}
    for i, raw in enumerate(raw_decks):
        if not isinstance(raw, dict):
            raise ConfigError(f"{source}: deck entry #{i + 1} is not a table")
        key = _str_field(raw, "key", source, f"deck #{i + 1}")
        where = f"deck {key!r}"
        bad = sorted(set(raw) - {"key", "name", "cards"})
        if bad:
            raise _field_error(source, where, bad[0], "is not a deck field (key, name, cards)")
        name = _str_field(raw, "name", source, where)
        entries = raw.get("cards")
        if not isinstance(entries, dict) or not entries:
            raise _field_error(source, where, "cards", "must be a table of card_key = copies")
        for card_key, n in entries.items():
            card = by_key.get(card_key)
            if card is None:
                raise _field_error(source, where, f"cards.{card_key}", "is not a card key")
            if card.is_void:
                raise _field_error(
                    source, where, f"cards.{card_key}", "is a void card; void cards are never in a deck"
                )
            limit = COPY_LIMIT[card.rarity]
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= limit:
                raise _field_error(
                    source,
                    where,
                    f"cards.{card_key}",
                    f"must be 1..{limit} copies (a {card.rarity} card), got {n!r}",
                )
        if key in decks:
            raise _field_error(source, where, "key", "is used by two decks")
        deck = Deck(key, name, dict(entries))
        if deck.size < 15:
            raise _field_error(
                source, where, "cards", f"holds {deck.size} cards; the smallest board needs 15"
            )
        decks[key] = deck
    return decks


def _default_path(name: str) -> Any:
    return resources.files("paiju.yuxi").joinpath("data").joinpath(name)


def load_card_table(cards_path: str | Path | None = None, decks_path: str | Path | None = None) -> CardTable:
    """The card table from TOML files (the shipped ones by default), validated and compiled."""
    return _load_cached(str(cards_path) if cards_path else None, str(decks_path) if decks_path else None)


@lru_cache(maxsize=16)
def _load_cached(cards_path: str | None, decks_path: str | None) -> CardTable:
    cpath = Path(cards_path) if cards_path else _default_path("cards.toml")
    dpath = Path(decks_path) if decks_path else _default_path("decks.toml")
    card_data = _read_toml(cpath, "card")
    deck_data = _read_toml(dpath, "deck")
    card_source = str(cpath) if cards_path else "cards.toml"
    return parse_card_table(card_data, deck_data, card_source, str(dpath) if decks_path else "decks.toml")


MAX_TABLE_TEXT = 65_536
"""Most characters of a card or deck table sent as text (a web request); the shipped card
table is about 16,000."""


def card_table_from_text(cards_text: str | None, decks_text: str | None = None) -> CardTable:
    """The card table from TOML *text* (a web request's own tables; None: the shipped file),
    validated and compiled. Errors name the text as ``cards_toml`` / ``decks_toml``."""
    for what, text in (("cards_toml", cards_text), ("decks_toml", decks_text)):
        if text is not None and len(text) > MAX_TABLE_TEXT:
            raise ConfigError(f"{what}: {len(text)} characters, more than the {MAX_TABLE_TEXT} allowed")
    return _text_cached(cards_text, decks_text)


def _toml_text(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        # the client's text, not a file of the server's: a ConfigError (4xx), not a corrupt record
        raise ConfigError(f"{source}: not valid TOML ({err})") from None


@lru_cache(maxsize=16)
def _text_cached(cards_text: str | None, decks_text: str | None) -> CardTable:
    if cards_text is None:
        card_data, card_source = _read_toml(_default_path("cards.toml"), "card"), "cards.toml"
    else:
        card_data, card_source = _toml_text(cards_text, "cards_toml"), "cards_toml"
    if decks_text is None:
        deck_data, deck_source = _read_toml(_default_path("decks.toml"), "deck"), "decks.toml"
    else:
        deck_data, deck_source = _toml_text(decks_text, "decks_toml"), "decks_toml"
    return parse_card_table(card_data, deck_data, card_source, deck_source)


def max_voids_per_card(table: CardTable) -> int:
    """Most void cards one deck card can create over a game (its add_void counts plus its
    recycling maximum): with void-creating effects only on once-per-card triggers, this
    bounds the length of every game."""
    best = 0
    for card in table.cards[1:]:
        assert card is not None
        total = 0
        for ref in card.effects:
            if ref.effect == "add_void":
                total += int(ref.params["count"])
            elif ref.effect == "recycle_coins":
                total += int(ref.params["max"])
        best = max(best, total)
    return best


def static_value(card: Card) -> float:
    """A rough worth of a card in points, for the greedy agent's swap and pass decisions:
    points plus half the armour and a third of the coins, plus one per effect line and
    minus the coin cost; spells count 2.5 plus their effects."""
    base = card.points + 0.5 * card.armour + card.coins / 3 if card.is_character else 2.5
    return base + len(card.effects) - 0.5 * card.cost


Override = Callable[..., None]


def table_fingerprint(table: CardTable) -> str:
    """A short hash of the card table and decks (every printed field and effect line): the table
    a record, report, journal or network was made with; another table is refused (a network's
    inputs and heads, a replay's moves, would mean other cards)."""
    cards = [
        {**c.summary(), "effects": [[e.trigger, e.effect, dict(e.params)] for e in c.effects]}
        for c in table.cards
        if c is not None
    ]
    decks = {k: dict(d.cards) for k, d in sorted(table.decks.items())}
    blob = json.dumps([cards, decks], sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]
