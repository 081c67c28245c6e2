"""End-to-end tests in Debian's Chromium (Playwright): every page driven by clicks.

Each test plays or uses one page as a person would, checks what the page shows against the
server's own state, and saves a screenshot under ``test-artifacts/web/``.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from web_helpers import screenshot

pytestmark = pytest.mark.browser

MAX_CLICKS = 400


def wait_idle(page: Any) -> None:
    page.wait_for_function("!document.body.dataset.busy")


def open_page(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready]")


def status(page: Any) -> str | None:
    return page.get_attribute("#status", "data-state")


def test_doudizhu_full_game_by_clicking(page: Any, live_server: Any) -> None:
    open_page(page, live_server.url + "/ddz")
    page.select_option("#seat", "1")
    page.select_option("#ai-a", "rule")
    page.select_option("#ai-b", "greedy")
    page.fill("#seed", "5")
    page.click("#new-game")
    page.wait_for_selector("#status[data-state=your-turn], #status[data-state=over]")
    assert page.text_content("#seat-0").startswith("seat 0 · landlord · rule")
    assert page.locator("#hand .card").count() == 17
    # the hand is written in the engine's notation, as the legal moves and hints are (T, not 10)
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    game_id = page.evaluate("location.hash").lstrip("#")
    cards = httpx.get(f"{live_server.url}/api/games/{game_id}", cookies=cookies).json()["cards"]
    assert page.locator("#hand .card").all_text_contents() == list(cards)
    # the split hint shows the baseline, both exact splits and (when shipped) the learned one
    from paiju.doudizhu.tagger.model import SHIPPED

    page.click("#hint-btn")
    page.wait_for_selector(".split")
    assert page.locator(".split").count() == (4 if SHIPPED.is_file() else 3)
    screenshot(page, "ddz-play")
    clicks = 0
    while status(page) != "over":
        assert status(page) == "your-turn"
        if page.is_enabled("#pass"):
            page.click("#pass")
        else:
            page.click("#legal button.move >> nth=0")
            assert page.locator("#hand .card.sel").count() >= 1
            page.click("#play")
        wait_idle(page)
        clicks += 1
        assert clicks < MAX_CLICKS
    title = page.text_content("#result-title")
    assert title.startswith("Game over")
    # the page's result agrees with the server's view of the game
    view = httpx.get(f"{live_server.url}/api/games/{game_id}", cookies=cookies).json()
    assert view["over"] and float(page.text_content("#your-return")) == view["result"]["your_return"]
    screenshot(page, "ddz-result")


def test_doudizhu_illegal_move_shows_the_reason(page: Any, live_server: Any) -> None:
    open_page(page, live_server.url + "/ddz")
    page.select_option("#seat", "0")  # the human leads freely
    page.fill("#seed", "9")
    page.click("#new-game")
    page.wait_for_selector("#status[data-state=your-turn]")
    page.click("#hint-btn")
    page.wait_for_selector(".split")
    page.click("#legal button.move >> nth=-1")  # choosing a legal move selects its cards
    chosen = page.get_attribute("#legal button.move >> nth=-1", "data-move")
    selected = "".join(
        sorted(page.locator("#hand .card.sel").evaluate_all("ns => ns.map(n => n.dataset.rank)"))
    )
    assert selected == "".join(sorted(chosen))
    screenshot(page, "ddz-lead")
    assert page.is_enabled("#play") and page.text_content("#why").startswith("✓ plays")
    page.click("#clear")
    page.click("#hand .card >> nth=0")
    page.click("#hand .card >> nth=-1")  # lowest and highest card: never a move of a 20-card hand
    # a selection that is no legal move cannot be played, and the reason stands under the
    # hand: the one the server gives a move request for these cards
    page.wait_for_selector("#why[data-state=illegal]")
    assert not page.is_enabled("#play")
    ranks = page.locator("#hand .card").evaluate_all("ns => ns.map(n => n.dataset.rank)")
    low, high = ranks[0], ranks[-1]
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    game_id = page.evaluate("location.hash").lstrip("#")
    url = f"{live_server.url}/api/games/{game_id}/move"
    refused = httpx.post(url, json={"move": low + high}, cookies=cookies)
    assert refused.status_code in (409, 422)
    # the page leaves out the prefix "illegal move 3D for seat 0 (landlord 地主): " it repeats
    reason = re.sub(r"^illegal move \S+ for seat \d+ \([^)]*\): ", "", refused.json()["error"])
    why = page.text_content("#why")
    assert why == f"✗ {low}{high} cannot be played: {reason}", (why, reason)
    assert not page.locator("#error").is_visible()  # no banner: nothing was sent to be played
    hand, under = page.locator("#hand").bounding_box(), page.locator("#why").bounding_box()
    assert under["y"] - (hand["y"] + hand["height"]) < 120  # next to the hand, under its buttons
    screenshot(page, "ddz-illegal-selection")
    assert page.locator("#hand .card").count() == 20 and status(page) == "your-turn"
    # deselecting one card leaves a single card: a legal lead again
    page.click("#hand .card >> nth=-1")
    page.wait_for_selector("#why[data-state=legal]")
    assert page.is_enabled("#play")


def test_doudizhu_split_hint_button_says_what_it_will_do(page: Any, live_server: Any) -> None:
    open_page(page, live_server.url + "/ddz")
    page.fill("#seed", "9")
    page.click("#new-game")
    page.wait_for_selector("#status[data-state=your-turn]")
    button = page.locator("#hint-btn")
    assert button.text_content() == "show" and button.get_attribute("aria-expanded") == "false"
    button.click()
    page.wait_for_selector(".split")
    assert button.text_content() == "hide" and button.get_attribute("aria-expanded") == "true"
    button.click()
    assert page.locator(".split").count() == 0 and button.text_content() == "show"
    # the hint stays shut across a move, and opens again on demand
    page.click("#legal button.move >> nth=0")
    page.click("#play")
    wait_idle(page)
    assert page.locator(".split").count() == 0
    if status(page) == "your-turn":
        button.click()
        page.wait_for_selector(".split")
        assert button.text_content() == "hide"


def test_mahjong_hand_to_the_end_by_clicking(page: Any, live_server: Any) -> None:
    open_page(page, live_server.url + "/mahjong")
    page.fill("#seed", "3")
    page.click("#new-game")
    page.wait_for_selector("#status[data-state=your-turn], #status[data-state=over]")
    assert page.locator("#shanten").count() == 1
    screenshot(page, "mahjong-play")
    clicks = 0
    while status(page) != "over":
        if page.locator("#legal button.win").count():
            page.click("#legal button.win")
        elif page.locator("#hand button.discard").count():
            best = page.locator("#discard-table tr >> nth=1 >> .tile").get_attribute("data-tile")
            page.click(f"#hand button.discard[data-tile='{best}'] >> nth=0")
        else:
            page.click("#legal button.pass")
        wait_idle(page)
        clicks += 1
        assert clicks < MAX_CLICKS
    assert page.text_content("#result-title").startswith("Hand over")
    if page.locator(".win-breakdown").count():
        assert page.locator(".win-breakdown table.payments tr").count() >= 2
    screenshot(page, "mahjong-result")


def test_yuxi_game_by_clicking(page: Any, live_server: Any) -> None:
    open_page(page, live_server.url + "/yuxi")
    page.select_option("#board", "3x3")
    page.fill("#seed", "3")
    page.click("#new-game")
    page.wait_for_selector("#status[data-state=your-turn], #status[data-state=over]")
    assert page.locator("#board-grid .cell").count() == 9
    shot = False
    clicks = 0
    while status(page) != "over":
        if page.locator("#offer button.action").count():
            page.click("#offer button.action >> nth=-1")  # a swap (keep is listed first)
        elif page.locator(".handcard.playable").count():
            page.click(".handcard.playable >> nth=0")
            if page.locator(".cell.target").count():
                if not shot:
                    screenshot(page, "yuxi-play")
                    shot = True
                page.click(".cell.target >> nth=0")
        else:
            page.click("#end")
        wait_idle(page)
        clicks += 1
        assert clicks < MAX_CLICKS
    assert page.text_content("#result-title").startswith("Game over")
    # the transcript says what the moves did, under each move: the server's sentences
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    game_id = page.evaluate("location.hash").lstrip("#")
    view = httpx.get(f"{live_server.url}/api/games/{game_id}", cookies=cookies).json()
    said = [x for e in view["transcript"] for x in e["effects"]]
    assert said and page.locator("#transcript ul.effects li").all_text_contents() == said
    screenshot(page, "yuxi-result")


def test_deal_selection_page(page: Any, live_server: Any) -> None:
    open_page(page, live_server.url + "/dih")
    assert "No validation results yet" in page.text_content("#no-validation")
    page.fill("#dist", "-1:0.5,1:0.5")
    page.fill("#v-players", "2")
    page.fill("#v-rounds", "1")
    page.fill("#v-top", "2")
    page.click("#dih-value")
    page.wait_for_selector("#dih-result")
    assert float(page.text_content("#dih-result")) == pytest.approx(0.5)
    page.select_option("#pool", "synthetic")
    page.check("#joint")
    page.click("#dih-select")
    page.wait_for_selector("table.selection[data-method=joint]")
    assert page.locator("table.selection[data-method=paper] tr").count() == 1 + 3
    screenshot(page, "dih")


def test_reports_page_with_and_without_files(page: Any, live_server: Any) -> None:
    open_page(page, live_server.url + "/reports")
    assert page.locator("#ladder .absent").count() == 1 and page.locator("#balance .absent").count() == 1
    assert page.locator("#empty").is_visible()  # no report anywhere: how to name a folder
    reports = live_server.reports_dir
    (reports / "yuxi-balance").mkdir(parents=True, exist_ok=True)
    (reports / "arena-ladder.md").write_text("# Ladder\n\n| agent | rating |\n|---|---|\n| rule | 1510 |\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.bar(["3x3", "4x4"], [0.55, 0.48])
    fig.savefig(reports / "yuxi-balance" / "first_player.png")
    plt.close(fig)
    open_page(page, live_server.url + "/reports")
    assert page.locator("#ladder table").count() == 1
    assert page.locator("#empty").is_hidden()
    img = page.locator("#balance img")
    img.wait_for()
    img.scroll_into_view_if_needed()  # the page's images load lazily, when they come into view
    loaded = "(i) => i.complete && i.naturalWidth > 0"
    page.wait_for_function(loaded, arg=img.element_handle(), timeout=15_000)
    screenshot(page, "reports")


def test_reports_page_shows_the_checkouts_analyses(
    page: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from web_helpers import LiveServer

    from paiju.web.app import create_app

    monkeypatch.chdir(tmp_path)  # started outside the repository: still the checkout's reports
    with LiveServer(create_app(tmp_path / "data")) as server:
        open_page(page, server.url + "/reports")
        for section in ("ladder", "validation", "balance", "models", "engineering"):
            assert page.locator(f"#{section} > h2").is_visible(), section
        assert "Arena ladder" not in page.text_content("main")
        # the analyses show their plots, loaded
        plots = {"ladder": 1, "validation": 2, "balance": 6}
        for section, least in plots.items():
            imgs = page.locator(f"#{section} .figures img")
            assert imgs.count() >= least, section
            for i in range(imgs.count()):
                imgs.nth(i).scroll_into_view_if_needed()
                loaded = "(i) => i.complete && i.naturalWidth > 0"
                page.wait_for_function(loaded, arg=imgs.nth(i).element_handle())
        assert page.locator("#ladder figure[data-path='ddz-ladder.png']").count() == 1
        assert page.locator("#models .absent").count() == 1  # no learned model's results yet
        # the long texts are folded, the benchmarks are links: the page stays short
        assert page.locator("#ladder details[data-path='ddz-agents.md']").count() == 1
        assert page.locator("#sections details[open]").count() == 0
        assert page.locator("#sections .md table").first.is_hidden()
        # the plots are a grid that grows a row per few reports (5,647 px with the three yuxi
        # boards' balance plots and ladders); every text unfolded, the page is much longer
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height < 6000, height
        screenshot(page, "reports-checkout")
        links = page.locator("#engineering a.doc-link")
        assert links.count() >= 5
        assert page.locator("#engineering a.doc-link[data-path='ddz-engine.md']").count() == 1
        # opening the ladder report shows its tables
        page.click("#ladder details[data-path='ddz-agents.md'] summary")
        assert page.locator("#ladder details[data-path='ddz-agents.md'] table").first.is_visible()
        # a benchmark opens on its own page
        page.click("#engineering a.doc-link[data-path='ddz-engine.md']")
        page.wait_for_selector("body[data-ready]")
        assert page.locator("#sections").is_hidden()
        single = page.locator("#single .md[data-path='ddz-engine.md']")
        assert single.is_visible() and "Dou Dizhu engine" in single.text_content()
        assert single.locator("table").count() >= 1


def test_records_page_replays_a_game(page: Any, live_server: Any) -> None:
    # a finished game played through the API (its own session)
    with httpx.Client(base_url=live_server.url, timeout=60) as c:
        view = c.post(
            "/api/games/doudizhu", json={"seat": 0, "agents": ["greedy", "greedy"], "seed": 4}
        ).json()
        while not view["over"]:
            item = view["legal"][0]
            body = {"move": item["move"], "ply": view["ply"]}
            if item["type"] != "pass":
                body["type"] = item["type"]
            view = c.post(f"/api/games/{view['id']}/move", json=body).json()
    open_page(page, live_server.url + "/records")
    page.select_option("#game", "doudizhu")
    page.wait_for_selector("#records-table button.open")
    page.click("#records-table button.open >> nth=0")
    page.wait_for_selector("#step-info[data-step='0']")
    start = page.locator("#frame .seat-box").nth(0).locator(".card").count()
    page.click("#forward")
    page.wait_for_selector("#step-info[data-step='1']")
    after = page.locator("#frame .seat-box").nth(0).locator(".card").count()
    assert start == 20 and after < start  # the landlord's first play left its hand
    page.click("#last")
    screenshot(page, "records")
