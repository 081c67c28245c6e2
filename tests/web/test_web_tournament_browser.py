"""The organiser's pages in Debian's Chromium (Playwright), on an event made by the CLI.

The director creates nothing in the browser: the event, its pairings and boards come from
`paiju tournament new / pair / boards / release`, and the server serves the file. In the
browser: the event and a round's pairings as the file has them, a table's form entering a
board's result and another player confirming it, wrong PINs and impossible results marked on
the field at fault, the hall's standings changing without a reload when a result comes in,
the director's pages behind the token, and the table's form and the standings on a phone.
Screenshots go to ``test-artifacts/web/tournament-*.png``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from web_helpers import ARTIFACTS, LiveServer, new_page, screenshot

from paiju.cli.main import run
from paiju.tournament.director.store import EventStore

pytestmark = pytest.mark.browser

TOKEN = "browser-director-token"
PHONE = {"width": 390, "height": 844}
TAP = 44
PLAYERS = "name,id,club,rating\n" + "".join(
    f"Player {i},{i:02d},{'Red' if i % 2 else 'Blue'},{2000 - 10 * i}\n" for i in range(1, 10)
)


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Nine players: round 1 paired, boards chosen and released; round 2 paired with its boards,
    not released. All through the CLI."""
    root = tmp_path_factory.mktemp("tournament-web")
    (root / "players.csv").write_text(PLAYERS)
    db = str(root / "club.db")
    steps = [
        [
            "new",
            db,
            "--players",
            str(root / "players.csv"),
            "--name",
            "Browser club night",
            "--format",
            "rounds=3",
        ],
        ["pair", db, "--round", "1", "--seed", "1"],
        ["boards", db, "--round", "1", "--select", "random", "--seed", "1"],
        ["release", db, "--round", "1"],
        ["pair", db, "--round", "2", "--seed", "2"],
        ["boards", db, "--round", "2", "--select", "random", "--seed", "2"],
    ]
    for step in steps:
        assert run(["tournament", *step, "--by", "desk"]) == 0
    return root / "club.db"


@pytest.fixture(scope="module")
def server(event: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    from paiju.web.app import create_app

    root = tmp_path_factory.mktemp("tournament-web-data")
    app = create_app(root / "data", report_dirs=[], event=event, director_token=TOKEN)
    with LiveServer(app) as live:
        yield live


def table_of(event: Path, round_no: int, table_no: int) -> tuple[list[str], str, list[int]]:
    """The table's player ids by seat, its PIN, and its boards in the order it plays them."""
    with EventStore.open(event) as store:
        code = {p.id: p.code for p in store.players()}
        ids = [code[s.player_id] for s in store.seats(round_no) if s.table_no == table_no and s.player_id]
        stages = sorted(
            (st for st in store.movement(round_no) if st.table_no == table_no), key=lambda st: st.stage
        )
        return ids, store.pins(round_no).get(table_no, ""), [st.board for st in stages]


def result_of(event: Path, round_no: int, table_no: int, board: int) -> dict[str, Any] | None:
    with EventStore.open(event) as store:
        found = [r for r in store.results(round_no) if (r["table_no"], r["board"]) == (table_no, board)]
    return found[0] if found else None


def open_page(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready]")


def idle(page: Any) -> None:
    page.wait_for_function("!document.body.dataset.busy")


def choose_player(page: Any, player: str) -> None:
    """Pick who is at the keyboard and wait until every board he holds a hand of says so (the
    page redraws only the boards' holders lines for him, from the table it has: the fields
    typed into the boards' forms are left as they are)."""
    page.select_option("#player", player)
    page.wait_for_function(
        """(id) => [...document.querySelectorAll('.board-entry .holders')]
             .every((n) => !n.textContent.includes(`, ${id}`) || n.textContent.includes('you hold'))""",
        arg=player,
    )
    idle(page)


def fits_the_phone(page: Any) -> None:
    """No sideways scrolling of the page; every control and stand-alone link at least 44 x 44 px."""
    assert page.evaluate("innerWidth") == PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    small = page.evaluate(
        """(tap) => [...document.querySelectorAll('header a, button, select, summary, input, ul.links a,'
             + ' .tlinks a, .table-card h3 a, #back')]
           .map((n) => ({ what: n.outerHTML.slice(0, 60), r: n.getBoundingClientRect() }))
           .filter((x) => x.r.width && (x.r.width < tap - 0.5 || x.r.height < tap - 0.5))
           .map((x) => x.what)""",
        TAP,
    )
    assert not small, small


def test_the_event_and_its_pairings_are_the_files(page: Any, server: LiveServer, event: Path) -> None:
    open_page(page, server.url + "/tournament")
    assert page.text_content("#title") == "Browser club night"
    assert page.locator("#players tr").count() == 1 + 9
    rows = page.locator("#rounds tr[data-round]")
    assert rows.count() == 2
    assert "released" in rows.nth(0).text_content() and "not released" in rows.nth(1).text_content()
    screenshot(page, "tournament-event")
    page.click("#rounds tr[data-round='1'] a:text('pairings')")
    page.wait_for_selector("#tables .table-card")
    for table_no in (1, 2, 3):
        ids, _, _ = table_of(event, 1, table_no)
        card = page.locator(f".table-card[data-table='{table_no}'] tr td:nth-child(3)")
        assert card.all_text_contents() == ids
    assert page.get_attribute("#state", "data-released") == "1"
    screenshot(page, "tournament-round")
    # round 2 is paired but not released: its boards are listed as secret, no link to enter
    open_page(page, server.url + "/tournament/round?round=2")
    assert page.get_attribute("#state", "data-released") == "0"
    assert page.locator(".table-card a.enter").count() == 0
    assert set(page.locator("#boards td.status").all_text_contents()) == {"secret"}


def test_a_table_enters_a_result_and_another_player_confirms_it(
    page: Any, server: LiveServer, event: Path
) -> None:
    ids, pin, order = table_of(event, 1, 1)
    board = order[0]
    open_page(page, server.url + "/tournament/table?round=1&table=1")
    assert page.locator(".board-entry").evaluate_all("ns => ns.map(n => Number(n.dataset.board))") == order
    section = f".board-entry[data-board='{board}']"
    # what is typed before the player is chosen survives the table's redraw for him
    page.fill(f"{section} .bombs", "3")
    choose_player(page, ids[0])
    assert page.input_value(f"{section} .bombs") == "3"
    page.fill("#pin", pin)
    page.fill(f"{section} .bombs", "0")
    page.select_option(f"{section} .spring", "none")
    page.select_option(f"{section} .outcome", "lost")
    page.click(f"{section} button.enter")
    page.wait_for_selector(f"{section}[data-status='pending']")
    stored = result_of(event, 1, 1, board)
    assert stored is not None and stored["confirmed_by"] is None and stored["landlord_won"] == 0
    assert stored["entered_by"] == f"player {ids[0]}"
    assert "another player of the table confirms it" in page.text_content(f"{section} .message")
    screenshot(page, "tournament-table-pending")
    # the second player of the table confirms it, with the same PIN
    choose_player(page, ids[1])
    page.click(f"{section} button.confirm")
    page.wait_for_selector(f"{section}[data-status='confirmed']")
    stored = result_of(event, 1, 1, board)
    assert stored is not None and stored["confirmed_by"] == f"player {ids[1]}"
    assert page.locator(f"{section} button").count() == 0  # confirmed: the director's only now
    screenshot(page, "tournament-table-confirmed")


def test_a_wrong_pin_and_an_impossible_result_are_marked_on_their_field(
    page: Any, server: LiveServer, event: Path
) -> None:
    ids, pin, order = table_of(event, 1, 2)
    board = order[-1]
    open_page(page, server.url + "/tournament/table?round=1&table=2")
    section = f".board-entry[data-board='{board}']"
    choose_player(page, ids[2])
    page.fill("#pin", "9999" if pin != "9999" else "8888")
    page.click(f"{section} button.enter")
    page.wait_for_selector("#pin.invalid")
    assert "wrong PIN" in page.text_content(".field-error[data-for='pin']")
    assert "wrong PIN" in page.text_content("#error")
    # the right PIN, but more bombs than the board's hands hold
    page.fill("#pin", pin)
    page.fill(f"{section} .bombs", "14")
    page.click(f"{section} button.enter")
    page.wait_for_selector(f"{section} .bombs.invalid")
    assert not page.locator("#pin.invalid").count()
    why = page.text_content(f"{section} .field-error[data-for='bombs']")
    assert "bombs and rockets" in why and "hold at most" in why
    screenshot(page, "tournament-table-refused")
    assert result_of(event, 1, 2, board) is None


def test_the_standings_change_without_a_reload_when_a_result_comes_in(
    page: Any, server: LiveServer, event: Path
) -> None:
    open_page(page, server.url + "/tournament/standings?every=1")
    page.wait_for_selector("#standings tr[data-id]")
    page.evaluate("window.stillTheSamePage = true")
    version = page.get_attribute("#standings", "data-version")
    before = page.text_content("#waiting")
    ids, pin, order = table_of(event, 1, 3)
    url = f"{server.url}/api/tournament/rounds/1/tables/3"
    body = {"board": order[0], "player": ids[0], "pin": pin, "bombs": 0, "result": "won"}
    assert httpx.post(f"{url}/results", json=body).status_code == 200
    page.wait_for_function(f"document.querySelector('#standings').dataset.version !== '{version}'")
    assert "awaiting confirmation" in page.text_content("#waiting") and before != page.text_content(
        "#waiting"
    )
    version = page.get_attribute("#standings", "data-version")
    confirm = {"board": order[0], "player": ids[1], "pin": pin}
    assert httpx.post(f"{url}/confirm", json=confirm).status_code == 200
    page.wait_for_function(f"document.querySelector('#standings').dataset.version !== '{version}'")
    # the page shows the server's standings, and it is still the page it was (no reload)
    assert page.evaluate("window.stillTheSamePage") is True
    standings = httpx.get(f"{server.url}/api/tournament/standings").json()["standings"]
    shown = page.locator("#standings tr[data-id]").evaluate_all(
        "rs => rs.map(r => [r.dataset.id, ...['.total', '.boards'].map(c => r.querySelector(c).textContent)])"
    )
    assert shown == [[r["id"], f"{r['total']:g}", str(r["boards"])] for r in standings]
    screenshot(page, "tournament-standings")


def test_the_directors_pages_need_the_token_and_show_the_pins(
    page: Any, server: LiveServer, event: Path
) -> None:
    open_page(page, server.url + "/tournament/director")
    page.fill("#token", "a guess")
    page.click("#use-token")
    page.wait_for_selector("#access .field-error[data-for='header.x-director-token']:not(:empty)")
    page.goto(server.url + "/tournament/director#token=" + TOKEN)  # the address paiju serve prints
    page.wait_for_selector("#pins td.pin")
    assert "token" not in page.url  # the token leaves the address bar once read
    with EventStore.open(event) as store:
        expected = [store.pins(1)[t] for t in (1, 2, 3)]
    assert page.locator("#pins td.pin").all_text_contents() == expected
    # a penalty through the form: listed, and in the audit log under the director's name
    ids, _, _ = table_of(event, 1, 2)
    page.fill("#by", "Chief")
    page.select_option("#adjust select[name=kind]", "penalty")
    page.fill("#adjust input[name=player]", ids[0])
    page.fill("#adjust input[name=points]", "1")
    page.fill("#adjust input[name=reason]", "late arrival")
    page.click("#adjust button[type=submit]")
    page.wait_for_selector("#adjustments tr[data-adjustment]")
    assert "penalty of 1 in round 1" in page.text_content("#adjustments")
    idle(page)  # the page reloads the adjustments, then the log: wait for both
    assert "late arrival" in page.text_content("#log")
    # a penalty without points: the form marks the field
    page.select_option("#adjust select[name=kind]", "penalty")
    page.fill("#adjust input[name=player]", ids[0])
    page.fill("#adjust input[name=reason]", "again")
    page.click("#adjust button[type=submit]")
    page.wait_for_selector("#adjust input[name=points].invalid")
    screenshot(page, "tournament-director")
    with EventStore.open(event) as store:
        (made,) = [a for a in store.adjustments() if a["reason"] == "late arrival"]
        assert made["made_by"] == "Chief"
    # withdrawn again, from its row, with no name given: the server's default name is logged
    page.fill("#by", "")
    page.fill("#adjustments tr[data-adjustment] input", "entered by mistake")
    page.click("#adjustments tr[data-adjustment] button.cancel")
    page.wait_for_selector("#adjustments tr[data-adjustment]", state="detached")
    with EventStore.open(event) as store:
        (withdrawn,) = [e for e in store.audit_log() if e.action.endswith("entered by mistake")]
    assert withdrawn.who == "director (web)"


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    with new_page(browser, viewport=PHONE, is_mobile=True, has_touch=True) as pg:
        yield pg


def test_the_table_form_and_the_standings_on_a_phone(phone: Any, server: LiveServer, event: Path) -> None:
    ids, pin, order = table_of(event, 1, 2)
    board = order[0]
    open_page(phone, server.url + "/tournament/table?round=1&table=2")
    fits_the_phone(phone)
    section = f".board-entry[data-board='{board}']"
    choose_player(phone, ids[1])
    phone.fill("#pin", pin)
    phone.fill(f"{section} .bombs", "0")
    phone.select_option(f"{section} .outcome", "won")
    phone.tap(f"{section} button.enter")
    phone.wait_for_selector(f"{section}[data-status='pending']")
    choose_player(phone, ids[2])
    phone.tap(f"{section} button.confirm")
    phone.wait_for_selector(f"{section}[data-status='confirmed']")
    fits_the_phone(phone)
    phone.evaluate("window.scrollTo(0, 0)")
    phone.screenshot(path=str(screenshot_path("tournament-phone-table")))
    stored = result_of(event, 1, 2, board)
    assert stored is not None and stored["confirmed_by"] == f"player {ids[2]}"
    for path in ("/tournament", "/tournament/round?round=1", "/tournament/director#token=" + TOKEN):
        open_page(phone, server.url + path)
        fits_the_phone(phone)
    open_page(phone, server.url + "/tournament/standings?every=1")
    phone.wait_for_selector("#standings tr[data-id]")
    fits_the_phone(phone)
    assert phone.locator("#standings tr[data-id]").count() == 9
    phone.screenshot(path=str(screenshot_path("tournament-phone-standings")))


def screenshot_path(name: str) -> Path:
    """Where a phone screenshot goes: what the screen shows, not the whole page."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"
