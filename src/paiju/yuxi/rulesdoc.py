"""The card and deck reference of ``docs/yuxi-rules.md``, generated from the card table.

The rules document embeds this text between ``<!-- cards:begin -->`` and
``<!-- cards:end -->``; a test checks the committed document equals what the shipped table
generates, so the written rules can never drift from the data (``paiju yuxi cards
--markdown`` prints it).
"""

from __future__ import annotations

from paiju.yuxi.cards import COPY_LIMIT, Card, CardTable

BEGIN = "<!-- cards:begin -->"
END = "<!-- cards:end -->"


def _stats(card: Card) -> str:
    parts = []
    if card.kind == "character":
        pts = card.points
        parts.append(f"{pts} pt{'s' if pts != 1 else ''}")
        if card.armour:
            parts.append(f"armour {card.armour}")
        if card.coins:
            parts.append(f"{card.coins} coins")
        if card.cooldown:
            parts.append(f"cooldown {card.cooldown}")
    else:
        parts.append(f"spell, target {card.target}")
    if card.cost:
        parts.append(f"cost {card.cost}")
    return ", ".join(parts)


def card_reference_markdown(table: CardTable) -> str:
    """Every card (by faction, then the void cards) and every deck, as Markdown."""
    lines = []
    factions: dict[str, list[Card]] = {}
    voids: list[Card] = []
    for c in table.cards[1:]:
        assert c is not None
        (voids if c.is_void else factions.setdefault(c.faction, [])).append(c)
    for faction, cards in factions.items():
        lines += [
            f"#### {faction}",
            "",
            "| id | key | name | rarity | stats | titles | text |",
            "|---|---|---|---|---|---|---|",
        ]
        for c in cards:
            lines.append(
                f"| {c.id} | `{c.key}` | {c.name} | {c.rarity} | {_stats(c)} | "
                f"{', '.join(c.titles) or '-'} | {c.text} |"
            )
        lines.append("")
    lines += [
        "#### void cards (created by effects, never in a deck)",
        "",
        "| id | key | name | stats | titles | text |",
        "|---|---|---|---|---|---|",
    ]
    for c in voids:
        lines.append(
            f"| {c.id} | `{c.key}` | {c.name} | {_stats(c)} | {', '.join(c.titles) or '-'} | {c.text} |"
        )
    lines += [
        "",
        "#### fixed decks",
        "",
        f"Copies per card are limited by rarity: {', '.join(f'{r} {n}' for r, n in COPY_LIMIT.items())}.",
        "",
        "| deck | name | cards | list |",
        "|---|---|---|---|",
    ]
    for k, d in table.decks.items():
        lst = ", ".join(f"{n}× {c}" for c, n in d.cards.items())
        lines.append(f"| `{k}` | {d.name} | {d.size} | {lst} |")
    return "\n".join(lines) + "\n"


def embed(document: str, table: CardTable) -> str:
    """``document`` with its generated section replaced by the current reference."""
    head, sep, rest = document.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"the rules document has no {BEGIN} ... {END} section")
    return f"{head}{BEGIN}\n{card_reference_markdown(table)}{END}{tail}"
