"""Every page on a phone (390x844, touch), in Debian's Chromium (Playwright).

On each page: no horizontal scrolling of the page, every tap target (buttons, selects,
inputs, the nav links, checkbox labels, the cards and tiles of a hand) at least 44 px each
way (Apple's minimum and WCAG 2.5.5's), and on the game pages the player's own hand lies
entirely inside the screen at the top of the page, without scrolling. Screenshots of each
page as the screen shows it go to ``test-artifacts/web/phone-*.png``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from web_helpers import ARTIFACTS, new_page

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
TAP = 44

# Inline links inside a sentence are exempt (WCAG 2.5.5's "inline" exception); every other
# thing a finger taps is measured. A checkbox is tapped through its label.
TARGETS = """() => {
  const sel = 'header a, button, select, summary, textarea, input:not([type=checkbox]):not([type=radio]),'
    + ' label:has(> input[type=checkbox]), h2 > a, ul.links a, #games a,'
    + ' #hand .card, #hand .tile, #hand .handcard, .cell.target';
  const out = [];
  for (const n of document.querySelectorAll(sel)) {
    const r = n.getBoundingClientRect();
    if (!r.width || !r.height) continue;  // not shown (a folded panel, a hidden section)
    out.push({ what: `${n.tagName.toLowerCase()}#${n.id}.${n.className} ${n.textContent.trim().slice(0, 20)}`,
               w: r.width, h: r.height });
  }
  return out;
}"""


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    with new_page(browser, viewport=PHONE, is_mobile=True, has_touch=True) as pg:
        yield pg


def fits_the_phone(page: Any) -> None:
    """No sideways scrolling of the page; every tap target at least 44 x 44 px."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    targets = page.evaluate(TARGETS)
    assert targets  # the selector finds the page's controls
    small = [t for t in targets if t["w"] < TAP - 0.5 or t["h"] < TAP - 0.5]
    assert not small, small


def on_screen(page: Any, selector: str) -> list[dict[str, float]]:
    """The boxes of ``selector``'s elements, each asserted to lie inside the screen (scroll 0)."""
    assert page.evaluate("window.scrollY") == 0
    nodes = page.locator(selector)
    boxes = [nodes.nth(i).bounding_box() for i in range(nodes.count())]
    assert boxes
    for b in boxes:
        assert b is not None
        assert b["x"] >= 0 and b["x"] + b["width"] <= PHONE["width"], (selector, b)
        assert b["y"] >= 0 and b["y"] + b["height"] <= PHONE["height"], (selector, b)
    return boxes


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"phone-{name}.png"))  # what the screen shows


def new_game(page: Any, url: str, path: str, **choices: str) -> None:
    page.goto(url + path)
    page.wait_for_selector("body[data-ready]")
    for select, value in choices.items():
        page.select_option(f"#{select}", value)
    page.fill("#seed", "3")
    page.click("#new-game")
    page.wait_for_selector("#status[data-state=your-turn], #status[data-state=over]")
    page.evaluate("window.scrollTo(0, 0)")


@pytest.mark.parametrize("path", ["/", "/dih", "/reports", "/records"])
def test_the_other_pages_fit_a_phone(phone: Any, live_server: Any, path: str) -> None:
    phone.goto(live_server.url + path)
    phone.wait_for_selector("body[data-ready]" if path != "/" else "#games:not(:empty)")
    assert phone.evaluate("innerWidth") == PHONE["width"]  # the viewport tag: not laid out at 980 px
    fits_the_phone(phone)
    shot(phone, path.strip("/") or "index")


def test_doudizhu_on_a_phone(phone: Any, live_server: Any) -> None:
    new_game(phone, live_server.url, "/ddz", seat="0")
    assert phone.evaluate("innerWidth") == PHONE["width"]
    assert not phone.locator("#setup").evaluate("n => n.open")  # folded away during the game
    fits_the_phone(phone)
    cards = on_screen(phone, "#hand .card")
    assert len(cards) == 20
    on_screen(phone, "#play")  # and the button that plays them
    shot(phone, "ddz")
    # the setup opens again from its summary line for a new game
    phone.click("#setup > summary")
    assert phone.locator("#new-game").is_visible()


@pytest.mark.parametrize("board", ["3x3", "4x4", "6x4"])
def test_yuxi_on_a_phone(phone: Any, live_server: Any, board: str) -> None:
    new_game(phone, live_server.url, "/yuxi", board=board)
    assert phone.evaluate("innerWidth") == PHONE["width"]
    fits_the_phone(phone)
    on_screen(phone, "#board-grid .cell")
    hand = on_screen(phone, "#hand .handcard")
    assert len(hand) == {"3x3": 4, "4x4": 6, "6x4": 8}[board]  # the whole dealt hand
    shot(phone, f"yuxi-{board}")
    # picking a card highlights its cells: still finger-sized
    playable = phone.locator("#hand .handcard.playable")
    if phone.locator("#offer button.keep").count():
        phone.click("#offer button.keep")
        phone.wait_for_function("!document.body.dataset.busy")
    if playable.count():
        playable.first.click()
        fits_the_phone(phone)


def test_mahjong_on_a_phone_keeps_the_table_above_the_hand(phone: Any, live_server: Any) -> None:
    new_game(phone, live_server.url, "/mahjong")
    fits_the_phone(phone)
    tiles = on_screen(phone, "#hand .tile")
    assert len(tiles) == 17
    # the hand panel sits at the bottom of the screen; every seat and the live-tile count lie
    # above it, not under it
    panel = phone.locator("#hand-panel").bounding_box()
    assert panel is not None
    for what in ("#wall", "#seat-0", "#seat-1", "#seat-2", "#seat-3"):
        box = phone.locator(what).bounding_box()
        assert box is not None and box["y"] + box["height"] <= panel["y"], (what, box, panel)
    shot(phone, "mahjong")
    # the Expectimax table (six columns) scrolls inside its panel, never the page sideways
    phone.click("#advise-btn")
    phone.wait_for_selector("#advice-table")
    assert phone.evaluate("innerWidth") == PHONE["width"]
    fits_the_phone(phone)
    phone.evaluate("window.scrollTo(0, 0)")
    on_screen(phone, "#hand .tile")
    shot(phone, "mahjong-advice")
