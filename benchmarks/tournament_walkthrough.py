"""An organiser's 12-player, 4-round duplicate Dou Dizhu event, end to end (docs/tournament/walkthrough.md).

Everything an organiser does, with the commands they type, on one event file:

1. ``players.csv`` (12 players in three clubs, rated) and ``paiju tournament new``;
2. each round: ``pair`` (round 1 seeded by rating, then Swiss), ``boards --select dih`` from the
   shipped pool and its laws, ``sheets`` (the dealers' hand records), ``release``, ``sheets``
   again (the slips, with the tables' PINs);
3. the tables play, and the results come in two ways at once: table 1 enters each board on the
   web form of ``paiju serve --event`` (one player enters, another confirms, in Chromium), the
   other tables' slips go into a CSV that the director enters with ``paiju tournament enter``;
4. the director's adjustments: round 2, a board fouled at table 3 (``adjust fouled``); round 3,
   a penalty for a late arrival on the director's web page; round 4, a slip typed wrong in the
   CSV and corrected (``correct``);
5. the standings after each round (``standings --json``), and at the end the hall's page, the
   CSV and the master points (``masterpoints --points-table``).

**The results are played, not drawn**: each player is an agent of the engine with a skill of
its own (the rule agent, ε-mixed with random play for weaker players, and the greedy agent;
:data:`PLAYERS`), and each table plays each board's deal with its holders' agents (hand A the
landlord with the bottom cards, as the format's ``landlord=fixed``); the result on the slip is
what the game's score facts say (won or lost, bombs and rockets, spring). Every seed is fixed,
so a run gives the same pairings, boards, results and standings (only the PINs differ: they
come from the operating system's randomness).

Run: ``nice .venv/bin/python benchmarks/tournament_walkthrough.py [--out DIR] [--shots
docs/tournament]``. Without ``--out`` it works in a temporary folder; ``--shots`` writes the
walk-through's screenshots (PNG, each kept under 150 KB). It prints every command, and a
summary as JSON at the end (also ``summary.json`` in the folder).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx

from paiju.core.protocol import play_game
from paiju.core.rng import derive_seed
from paiju.doudizhu.game import DouDizhuGame
from paiju.tournament.director.boards import Board
from paiju.tournament.director.store import EventStore
from paiju.tournament.planning import DEFAULT_LAWS, DEFAULT_POOL
from paiju.tournament.population import make_member

ROUNDS: Final = 4
WEB_TABLE: Final = 1
"""The table that enters its results on the web form; the others' slips go into a CSV."""
PLAYERS: Final = (
    # name, id, club, rating, the agent that plays for them (strongest first)
    ("Wang Fang", "W1", "Red", 1900, "rule"),
    ("Li Lei", "L2", "Blue", 1860, "rule"),
    ("Zhang Wei", "Z3", "Green", 1820, "rule~0.1"),
    ("Liu Yang", "Y4", "Red", 1780, "rule~0.1"),
    ("Chen Jing", "C5", "Blue", 1740, "rule~0.2"),
    ("Yang Min", "M6", "Green", 1700, "rule~0.2"),
    ("Huang Lei", "H7", "Red", 1660, "rule~0.35"),
    ("Zhao Li", "Z8", "Blue", 1620, "rule~0.35"),
    ("Wu Hua", "U9", "Green", 1580, "greedy"),
    ("Zhou Jie", "J10", "Red", 1540, "greedy"),
    ("Xu Ming", "X11", "Blue", 1500, "rule~0.6"),
    ("Sun Tao", "S12", "Green", 1460, "random"),
)
POINTS_TABLE: Final = """name = "Club master points"

[[scale]]
players = 6
points = [6, 4, 2]

[[scale]]
players = 12
points = [10, 7, 5, 3]
"""
SHOT_LIMIT: Final = 150_000
"""Bytes a screenshot may take in the docs."""
A4: Final = (794, 1123)
"""An A4 sheet in CSS pixels (96 per inch)."""
MARGIN: Final = 45
"""The sheets' print margin (12 mm) in CSS pixels."""
CHROMIUM_ARGS: Final = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


# ---- the commands ------------------------------------------------------------------------------
CHECKOUT: Final = Path(__file__).resolve().parents[1]
CHANGES: Final = frozenset({"new", "pair", "boards", "release", "pins", "enter", "adjust", "correct"})
"""The commands that change the event: each names who makes the change (``--by``)."""


class Organiser:
    """Runs ``paiju`` in the event's folder as the organiser would type it, printing each command
    (a file of the checkout by its path in the checkout); every change is the chief director's."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.command = Path(sys.executable).parent / "paiju"
        self.typed: list[str] = []

    def __call__(self, *args: str, json_out: bool = True) -> Any:
        if args[0] == "tournament" and args[1] in CHANGES:
            args = (*args, "--by", "Chief")
        shown = [a.removeprefix(f"{CHECKOUT}{os.sep}") for a in args]
        line = "paiju " + " ".join(shlex.quote(a) for a in shown)
        self.typed.append(line)
        print(f"$ {line}", flush=True)
        argv = [str(self.command), *args, *(["--json"] if json_out else [])]
        done = subprocess.run(argv, cwd=self.folder, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{line}: exit {done.returncode}: {done.stderr.strip()}")
        return json.loads(done.stdout) if json_out else done.stdout


# ---- playing a board -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Slip:
    """What a table writes on a board's slip."""

    table: int
    board: int
    landlord_won: bool
    bombs: int
    spring: str

    def row(self) -> list[object]:
        return [self.table, self.board, self.bombs, self.spring, "won" if self.landlord_won else "lost"]


def play(board: Board, agents: list[str], scoring: str, seed: int) -> tuple[bool, int, str]:
    """The board played by the holders' ``agents`` (hands A, B, C): won, bombs, spring."""
    game = DouDizhuGame(scoring=scoring)
    seats = [make_member(spec, derive_seed(seed, seat)) for seat, spec in enumerate(agents)]
    facts = play_game(game, seats, seed, start=game.new_state_from_deal(board.deal())).state.score_facts()
    spring = "spring" if facts.spring else "anti-spring" if facts.anti_spring else "none"
    return facts.landlord_won, facts.bombs, spring


def play_round(event: Path, round_no: int, seed: int) -> tuple[list[Slip], dict[int, list[str]]]:
    """Every table's slips of the round, and each table's player ids by seat."""
    agent = {code: spec for _, code, _, _, spec in PLAYERS}
    with EventStore.open(event) as store:
        scoring = store.event().format.scoring
        code = {p.id: p.code for p in store.players()}
        seated: dict[int, list[str]] = {}
        for s in store.seats(round_no):
            assert s.player_id is not None  # twelve players: four full tables
            seated.setdefault(s.table_no, []).append(code[s.player_id])
        boards = {b.number: Board.parse(b.record) for b in store.boards(round_no)}
        stages = store.movement(round_no)
    slips = []
    for st in sorted(stages, key=lambda st: (st.table_no, st.stage)):
        holders = [agent[seated[st.table_no][p]] for p in st.holders]
        won, bombs, spring = play(
            boards[st.board], holders, scoring, derive_seed(seed, round_no, st.table_no, st.board)
        )
        slips.append(Slip(st.table_no, st.board, won, bombs, spring))
    return slips, seated


def slips_csv(slips: list[Slip]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["table", "board", "bombs", "spring", "result"])
    writer.writerows(s.row() for s in slips)
    return out.getvalue()


# ---- the web app -----------------------------------------------------------------------------------
@contextmanager
def serving(folder: Path, event: str) -> Iterator[tuple[str, str]]:
    """``paiju serve --event`` in the background: (its address, the director's token)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    command = Path(sys.executable).parent / "paiju"
    argv = [str(command), "serve", "--port", str(port), "--data", "web-data", "--event", event]
    print(f"$ paiju serve --port {port} --data web-data --event {event} &", flush=True)
    proc = subprocess.Popen(argv, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        token = ""
        for line in proc.stdout:
            found = re.search(r"#token=(\S+)", line)
            if found:
                token = found.group(1)
                break
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        yield url, token
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def shrink(path: Path) -> int:
    """The screenshot as a palette PNG (64 colours: text and flat panels lose nothing you see)."""
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=64)
    small.save(path, optimize=True)
    size = path.stat().st_size
    if size > SHOT_LIMIT:
        raise RuntimeError(f"{path}: {size} bytes, over {SHOT_LIMIT}")
    return size


class Camera:
    """Screenshots of the pages for the walk-through (``--shots DIR``); nothing without it."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.taken: dict[str, int] = {}

    def __call__(self, page: Any, name: str, *, clip: dict[str, float] | None = None) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=True, clip=clip)
        self.taken[path.name] = shrink(path)

    def sheet(self, page: Any, name: str, selector: str) -> None:
        """The first ``selector`` element (one printed page) placed on an A4 sheet with margins."""
        if self.folder is None:
            return
        from PIL import Image, ImageDraw

        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{name}.png"
        box = page.locator(selector).first.bounding_box()
        page.screenshot(path=str(path), full_page=True, clip=box)
        with Image.open(path) as printed:
            sheet = Image.new("RGB", A4, "white")
            width, height = min(printed.width, A4[0] - 2 * MARGIN), min(printed.height, A4[1] - 2 * MARGIN)
            sheet.paste(printed.convert("RGB").crop((0, 0, width, height)), (MARGIN, MARGIN))
        ImageDraw.Draw(sheet).rectangle((0, 0, A4[0] - 1, A4[1] - 1), outline="#999999")
        sheet.save(path)
        self.taken[path.name] = shrink(path)


def enter_on_the_web(
    page: Any, url: str, round_no: int, slips: list[Slip], seated: list[str], pin: str, camera: Camera
) -> None:
    """The web table enters its boards on the form: its first player enters, its second confirms
    (in round 1 the camera takes the form with the first board waiting for the confirmation)."""
    page.goto(f"{url}/tournament/table?round={round_no}&table={WEB_TABLE}")
    page.wait_for_selector("body[data-ready]")
    page.fill("#pin", pin)
    for slip in slips:
        section = f".board-entry[data-board='{slip.board}']"
        page.select_option("#player", seated[0])
        page.wait_for_function("!document.body.dataset.busy")
        page.fill(f"{section} .bombs", str(slip.bombs))
        page.select_option(f"{section} .spring", slip.spring)
        page.select_option(f"{section} .outcome", "won" if slip.landlord_won else "lost")
        page.click(f"{section} button.enter")
        page.wait_for_selector(f"{section}[data-status='pending']")
        page.select_option("#player", seated[1])
        page.wait_for_function("!document.body.dataset.busy")
        if round_no == 1 and slip is slips[0]:
            camera(page, "entry-form")
        page.click(f"{section} button.confirm")
        page.wait_for_selector(f"{section}[data-status='confirmed']")


# ---- the event -------------------------------------------------------------------------------------
def standings_line(standings: dict[str, Any]) -> dict[str, Any]:
    rows = standings["standings"]
    return {
        "after_round": standings["after_round"],
        "top_unique": standings["top_unique"],
        "pending": standings["pending"],
        "missing": standings["missing"],
        "leaders": [(r["place"], r["name"], r["total"]) for r in rows[:4]],
    }


def run_round(
    paiju: Organiser,
    folder: Path,
    round_no: int,
    seed: int,
    web: tuple[Any, str, str],
    camera: Camera,
) -> dict[str, Any]:
    page, url, token = web
    event = "club.db"
    paiju("tournament", "pair", event, "--round", str(round_no), "--seed", str(round_no))
    boards = paiju(
        "tournament", "boards", event, "--round", str(round_no), "--select", "dih",
        "--pool", str(DEFAULT_POOL), "--dists", str(DEFAULT_LAWS),
    )  # fmt: skip
    paiju("tournament", "sheets", event, "--round", str(round_no), "--out", f"round-{round_no}")
    paiju("tournament", "release", event, "--round", str(round_no))
    paiju("tournament", "sheets", event, "--round", str(round_no), "--out", f"round-{round_no}")
    pins = {
        int(t): p for t, p in paiju("tournament", "pins", event, "--round", str(round_no))["pins"].items()
    }
    slips, seated = play_round(folder / event, round_no, seed)
    on_paper = [s for s in slips if s.table != WEB_TABLE]
    typo = None
    if round_no == 4:  # a slip typed wrong: the landlord's result the other way round, spring left out
        typo = next(s for s in on_paper if s.table == 4)
        on_paper = [
            s if s is not typo else Slip(s.table, s.board, not s.landlord_won, s.bombs, "none")
            for s in on_paper
        ]
    (folder / f"round-{round_no}-results.csv").write_text(slips_csv(on_paper))
    # the web table and the director's CSV, side by side on the same file
    on_the_web = [s for s in slips if s.table == WEB_TABLE]
    enter_on_the_web(page, url, round_no, on_the_web, seated[WEB_TABLE], pins[WEB_TABLE], camera)
    paiju("tournament", "enter", event, "--round", str(round_no), "--file", f"round-{round_no}-results.csv")
    adjustment = adjust(paiju, page, url, token, round_no, slips, seated, typo, camera)
    standings = paiju("tournament", "standings", event, "--round", str(round_no))
    return {
        "round": round_no,
        "boards": [
            {"board": d["board"], "check": d["check"], "own_dih": s["dih"], "pool_rank": s["pool_rank"]}
            for d, s in zip(boards["boards"], boards["selection"]["deals"], strict=True)
        ],
        "set_dih": boards["selection"]["set_dih"],
        "slips": [s.row() for s in slips],
        "adjustment": adjustment,
        "standings": standings_line(standings),
    }


def adjust(
    paiju: Organiser,
    page: Any,
    url: str,
    token: str,
    round_no: int,
    slips: list[Slip],
    seated: dict[int, list[str]],
    typo: Slip | None,
    camera: Camera,
) -> str | None:
    """The round's irregularity, settled by the director (see the module docstring)."""
    event = "club.db"
    if round_no == 2:
        board = next(s.board for s in slips if s.table == 3)
        reason = f"table 3 played board {board} from another table's wallet (the slip's check did not match)"
        paiju("tournament", "adjust", event, "fouled", "--round", "2", "--board", str(board), "--table", "3",
              "--reason", reason)  # fmt: skip
        return f"fouled: round 2, board {board}, table 3"
    if round_no == 3:
        late = seated[2][0]
        page.goto(f"{url}/tournament/director?round=3#token={token}")
        page.wait_for_selector("#pins td.pin")
        page.fill("#by", "Chief")
        page.select_option("#adjust select[name=kind]", "penalty")
        page.fill("#adjust input[name=player]", late)
        page.fill("#adjust input[name=points]", "1")
        page.fill("#adjust input[name=reason]", "arrived 15 minutes late for round 3")
        page.click("#adjust button[type=submit]")
        page.wait_for_selector("#adjustments tr[data-adjustment]:has-text('penalty')")
        page.evaluate("window.scrollTo(0, 0)")  # (a box is where the element is on the screen)
        box = page.locator("#adjustments").bounding_box()  # down to the adjustments: the log is long
        camera(
            page, "director", clip={"x": 0, "y": 0, "width": 1000, "height": box["y"] + box["height"] + 16}
        )
        return f"penalty: 1 point off player {late} (the director's web page)"
    if round_no == 4 and typo is not None:
        paiju("tournament", "correct", event, "--round", "4", "--table", "4", "--board", str(typo.board),
              "--result", "won" if typo.landlord_won else "lost", "--spring", typo.spring,
              "--reason", "typed from the slip the wrong way round")  # fmt: skip
        return f"correction: round 4, table 4, board {typo.board}"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="the event's folder (default: a new temporary one)")
    parser.add_argument("--shots", type=Path, help="write the walk-through's screenshots here")
    parser.add_argument("--seed", type=int, default=48, help="seed of the games played at the tables")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    folder = args.out or Path(tempfile.mkdtemp(prefix="paiju-walkthrough-"))
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / "club.db").exists():
        raise SystemExit(f"{folder / 'club.db'} exists: give an empty --out folder")
    started = time.monotonic()
    with (folder / "players.csv").open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["name", "id", "club", "rating"])
        writer.writerows(p[:4] for p in PLAYERS)
    (folder / "masterpoints.toml").write_text(POINTS_TABLE)
    paiju = Organiser(folder)
    paiju("tournament", "new", "club.db", "--players", "players.csv", "--name", "Club night",
          "--format", f"rounds={ROUNDS}", "--format", "first_round=rating")  # fmt: skip
    camera = Camera(args.shots)
    rounds = []
    from playwright.sync_api import sync_playwright

    with serving(folder, "club.db") as (url, token), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1000, "height": 720}).new_page()
            page.set_default_timeout(60_000)
            for round_no in range(1, ROUNDS + 1):
                rounds.append(run_round(paiju, folder, round_no, args.seed, (page, url, token), camera))
            shoot_the_pages(page, url, folder, camera)
        finally:
            browser.close()
    paiju(
        "tournament", "standings", "club.db", "--html", "hall.html", "--csv", "standings.csv", json_out=False
    )
    final = paiju("tournament", "standings", "club.db")
    masterpoints = paiju("tournament", "masterpoints", "club.db", "--points-table", "masterpoints.toml",
                         "--csv", "masterpoints.csv")  # fmt: skip
    summary = {
        "folder": str(folder),
        "commands": paiju.typed,
        "rounds": rounds,
        "final": [
            {
                k: r[k]
                for k in ("rank", "place", "id", "name", "club", "total", "boards", "penalties", "decided_by")
            }
            for r in final["standings"]
        ],
        "top_unique": final["top_unique"],
        "masterpoints": [
            (a["rank"], a["name"], a["masterpoints"]) for a in masterpoints["awards"] if a["masterpoints"]
        ],
        "screenshots": camera.taken,
        "seconds": round(time.monotonic() - started, 1),
    }
    (folder / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(summary, indent=1, ensure_ascii=False))


def shoot_the_pages(page: Any, url: str, folder: Path, camera: Camera) -> None:
    """The pairings, the hall's standings and a printed sheet, once the event is over."""
    page.goto(f"{url}/tournament/round?round={ROUNDS}")
    page.wait_for_selector("body[data-ready]")
    camera(page, "pairings")
    page.goto(f"{url}/tournament/standings")
    page.wait_for_selector("#standings tr[data-id]")
    camera(page, "standings")
    # a printed sheet: the first page of round 4's score slips (table 1's) as the printer lays it
    # out: the print stylesheet, A4's width less its margins, on a sheet of A4 proportions
    page.set_viewport_size({"width": A4[0] - 2 * MARGIN, "height": A4[1]})
    page.emulate_media(media="print")
    page.goto((folder / f"round-{ROUNDS}" / "slips.html").resolve().as_uri())
    camera.sheet(page, "slips-printed", "section.page")
    page.emulate_media(media="screen")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
