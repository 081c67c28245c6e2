// paiju web app: the organiser's pages of a duplicate Dou Dizhu event (the event, a round's
// pairings, score entry at a table, the hall's standings, the director's pages). One file for
// the five pages: each page's <body data-page=...> picks its part. The event itself comes from
// the CLI (paiju tournament new / pair / boards) and is served with paiju serve --event.
"use strict";
(() => {
  const { el, api, showError } = paiju;
  const $ = (id) => document.getElementById(id);
  const query = new URLSearchParams(location.search);
  const HANDS = ["A", "B", "C"];
  const SPRINGS = [["none", "none"], ["spring", "spring 春天"], ["anti-spring", "anti-spring 反春"]];
  const TOKEN_KEY = "paiju-director-token";

  // an error shown in the banner, and under the field it names inside ``scope`` (a form)
  function clearErrors(scope) {
    for (const n of scope.querySelectorAll(".invalid")) n.classList.remove("invalid");
    for (const n of scope.querySelectorAll(".field-error")) n.textContent = "";
    showError(null);
  }
  function fieldError(scope, err) {
    showError(err.message);
    if (!err.field) return;
    const input = scope.querySelector(`[data-field="${CSS.escape(err.field)}"]`);
    if (input) { input.classList.add("invalid"); input.setAttribute("aria-invalid", "true"); }
    let slot = scope.querySelector(`.field-error[data-for="${CSS.escape(err.field)}"]`);
    if (!slot) {
      const box = scope.querySelector(".field-errors");
      if (!box) return;
      slot = el("span", { class: "field-error", "data-for": err.field });
      box.append(slot);
    }
    slot.textContent = err.message;
  }

  const num = (v) => (v === null || v === undefined ? "" : String(Math.round(v * 1000) / 1000));
  const roundLink = (r) => `/tournament/round?round=${r}`;
  const tableLink = (r, t) => `/tournament/table?round=${r}&table=${t}`;
  function wholeParam(name) {
    const v = Number(query.get(name));
    return Number.isInteger(v) && v >= 1 ? v : null;
  }
  const table = (head, rows) => el("table", {}, el("tr", {}, head.map((h) => el("th", {}, h))), rows);

  function describe(r) {
    // a stored result in words: "landlord A won, 1 bomb, spring: +2"
    const bits = [`landlord ${r.landlord} ${r.result}`];
    if (r.bid !== null) bits.push(`bid ${r.bid}`);
    bits.push(`${r.bombs} bomb${r.bombs === 1 ? "" : "s"}`);
    if (r.spring !== "none") bits.push(r.spring);
    return `${bits.join(", ")}: ${r.landlord_score > 0 ? "+" : ""}${num(r.landlord_score)}`;
  }

  // --- the event --------------------------------------------------------------------------------
  function formatLine(f) {
    return [`${f.rounds} rounds`, `${f.boards_per_round} board${f.boards_per_round === 1 ? "" : "s"} a round`, f.comparison,
      f.landlord === "fixed" ? "hand A is the landlord" : "bidding", `scoring ${f.scoring}`, `top ${f.top}`,
      `odd field: ${f.odd_field}`].join(" · ");
  }

  async function eventPage() {
    const ev = await api("/api/tournament");
    $("title").textContent = ev.name;
    document.title = `${ev.name} — paiju`;
    $("format").textContent = formatLine(ev.format);
    const rounds = $("rounds");
    rounds.innerHTML = "";
    rounds.classList.remove("muted");
    if (!ev.rounds.length) rounds.textContent = "No round is paired yet (paiju tournament pair).";
    else {
      rounds.append(table(["round", "tables", "boards", "state", "pages"], ev.rounds.map((r) => el("tr", { "data-round": r.round },
        el("td", {}, String(r.round)), el("td", {}, String(r.tables)), el("td", {}, r.boards.join(", ") || "not chosen"),
        el("td", {}, r.released ? "released" : r.boards.length ? "boards chosen, not released" : "paired"),
        el("td", { class: "tlinks" }, el("a", { href: roundLink(r.round) }, "pairings"),
          r.released ? Array.from({ length: r.tables }, (_, i) => el("a", { href: tableLink(r.round, i + 1), title: `enter results at table ${i + 1}` }, `table ${i + 1}`)) : [])))));
    }
    $("players").innerHTML = "";
    $("players").append(table(["id", "name", "club", "rating", "status"], ev.players.map((p) => el("tr", {},
      el("td", {}, p.id), el("td", {}, p.name), el("td", {}, p.club), el("td", {}, p.rating === null ? "" : num(p.rating)),
      el("td", {}, p.withdrawn_round ? `withdrawn before round ${p.withdrawn_round}` : p.entered_round > 1 ? `from round ${p.entered_round}` : "playing")))));
  }

  // --- a round's pairings ---------------------------------------------------------------------
  async function roundPage() {
    const ev = await api("/api/tournament");
    const number = wholeParam("round") || ev.current_round || (ev.rounds.length ? ev.rounds[ev.rounds.length - 1].round : 1);
    const r = await api(`/api/tournament/rounds/${number}`);
    $("title").textContent = `${ev.name} · round ${number}`;
    const played = r.boards.length && r.boards.every((b) => b.cards);
    $("state").textContent = played ? "Played: every table has finished every board."
      : r.released ? "Released: the tables play and enter their results."
        : "Not released yet: the boards stay secret until the director releases the round.";
    $("state").dataset.released = r.released ? "1" : "0";
    $("rounds").innerHTML = "";
    for (const x of ev.rounds) $("rounds").append(el("li", {}, el("a", { href: roundLink(x.round), class: x.round === number ? "active" : "" }, `round ${x.round}`)));
    const tables = $("tables"); tables.innerHTML = "";
    for (const t of r.tables) {
      tables.append(el("div", { class: "table-card", "data-table": t.table },
        el("h3", {}, `Table ${t.table}`, r.released ? el("a", { href: tableLink(number, t.table), class: "enter" }, "enter results") : null),
        table(["seat", "player", "id", "board: hand"], t.players.map((p) => el("tr", {},
          el("td", {}, String(p.seat)), el("td", {}, p.name), el("td", {}, p.id || ""),
          el("td", {}, p.hands.map((h) => `${h.board}: ${h.hand}`).join(" · ")))))));
    }
    $("byes").innerHTML = "";
    if (r.byes.length) $("byes").append(el("p", {}, "Byes: ", r.byes.map((p) => p.name).join(", ")));
    const named = r.tables.flatMap((t) => t.players.filter((p) => p.id).map((p) => ({ ...p, table: t.table })))
      .sort((a, b) => a.name.localeCompare(b.name));
    $("by-name").innerHTML = "";
    $("by-name").append(table(["player", "table", "seat"], named.map((p) => el("tr", {}, el("td", {}, p.name),
      el("td", {}, String(p.table)), el("td", {}, String(p.seat))))));
    const tableNumbers = r.tables.map((t) => t.table);
    $("boards").innerHTML = "";
    $("boards").append(table(["board", "check", ...tableNumbers.map((t) => `table ${t}`), "cards"], r.boards.map((b) => el("tr", { "data-board": b.board },
      el("td", {}, String(b.board)), el("td", { class: "check" }, b.check || "not chosen"),
      tableNumbers.map((t) => el("td", { class: `status ${b.tables[t] || ""}` }, r.released ? ROUND_STATUS[b.tables[t]] || b.tables[t] || "" : "secret")),
      el("td", { class: "cards-text" }, b.cards ? HANDS.map((h) => `${h} ${b.cards[h]}`).concat(`bottom ${b.cards.bottom}`).join(" · ") : "")))));
    $("boards").prepend(el("p", { class: "small" }, `${r.copies} cop${r.copies === 1 ? "y" : "ies"} of each board.`));
  }

  const ROUND_STATUS = { missing: "—" };  // nothing entered yet: not a problem while the round is played

  // --- score entry at a table -------------------------------------------------------------------
  let tableState = null;
  const STATUS_TEXT = {
    missing: "no result yet", pending: "awaiting confirmation", confirmed: "confirmed", fouled: "fouled (the director)",
    adjusted: "adjusted by the director", "not released": "the round is not released yet",
  };

  function resultFields(view, board) {
    // the result's fields as the slip has them, each naming the request field it sends; a
    // pending result fills them in (a player who disagrees changes what differs)
    const was = board.result;
    const parts = [];
    if (view.landlord === "bidding") {
      parts.push(el("label", {}, "Landlord ", el("select", { class: "declarer", "data-field": "declarer" }, HANDS.map((h) => el("option", { value: h, selected: was && was.landlord === h }, `hand ${h}`)))));
      parts.push(el("label", {}, "Bid ", el("select", { class: "bid", "data-field": "bid" }, [1, 2, 3].map((b) => el("option", { value: b, selected: was && was.bid === b }, String(b))))));
    } else {
      parts.push(el("span", { class: "small muted landlord" }, `Landlord: hand A (${holderName(view, board.holders.A)})`));
    }
    parts.push(el("label", {}, "Bombs and rockets ", el("input", { class: "bombs", "data-field": "bombs", type: "number", min: 0, max: 14, value: was ? was.bombs : 0, inputmode: "numeric" })));
    parts.push(el("label", {}, "Spring ", el("select", { class: "spring", "data-field": "spring" }, SPRINGS.map(([v, t]) => el("option", { value: v, selected: was && was.spring === v }, t)))));
    parts.push(el("label", {}, "The landlord ", el("select", { class: "outcome", "data-field": "result" },
      ["won", "lost"].map((r) => el("option", { value: r, selected: was && was.result === r }, r)))));
    return parts;
  }

  function holderName(view, id) {
    const p = view.players.find((x) => x.id === id);
    return p ? `${p.name}, ${p.id}` : "sitter";
  }

  // who holds each hand of a board, and which one the player at the keyboard holds: the only
  // part of the table that depends on him
  function holdersLine(view, b) {
    const me = $("player").value;
    const mine = HANDS.find((h) => b.holders[h] === me);
    return el("p", { class: "small holders" }, HANDS.map((h) => `${h}: ${holderName(view, b.holders[h])}`).join(" · "),
      mine ? el("b", {}, ` · you hold ${mine}`) : null);
  }

  function boardSection(view, b) {
    const section = el("section", { class: "panel board-entry", "data-board": b.board, "data-status": b.status },
      el("h2", {}, `Board ${b.board}`, el("span", { class: "small muted" }, ` · stage ${b.stage} · check `), el("span", { class: "check" }, b.check || "—")),
      holdersLine(view, b),
      el("p", { class: "status" }, el("span", { class: `badge ${b.status.replace(" ", "-")}` }, STATUS_TEXT[b.status] || b.status),
        b.result ? ` ${describe(b.result)} · entered by ${b.result.entered_by}` : "",
        b.result && b.result.confirmed_by ? `, confirmed by ${b.result.confirmed_by}` : ""));
    const open = view.released && (b.status === "missing" || b.status === "pending");
    if (open) {
      const form = el("div", { class: "entry" }, resultFields(view, b), el("div", { class: "field-errors" }));
      const enterBtn = el("button", { type: "button", class: b.status === "pending" ? "enter" : "enter primary" },
        b.status === "pending" ? "enter my version instead" : "enter the result");
      enterBtn.addEventListener("click", () => submit(section, b.board, "results", entryBody(section, view, b.board)));
      const buttons = [enterBtn];
      if (b.status === "pending") {
        const confirmBtn = el("button", { type: "button", class: "confirm primary" }, "confirm this result");
        confirmBtn.addEventListener("click", () => submit(section, b.board, "confirm", { board: b.board }));
        buttons.unshift(confirmBtn);
      }
      form.append(el("div", { class: "buttons" }, buttons));
      section.append(form);
    }
    section.append(el("p", { class: "message small" }));
    return section;
  }

  function entryBody(section, view, board) {
    const body = {
      board,
      bombs: Number(section.querySelector(".bombs").value || "0"),
      spring: section.querySelector(".spring").value,
      result: section.querySelector(".outcome").value,
    };
    if (view.landlord === "bidding") {
      body.declarer = section.querySelector(".declarer").value;
      body.bid = Number(section.querySelector(".bid").value);
    }
    return body;
  }

  async function submit(section, board, what, body) {
    const who = $("who");
    clearErrors(who); clearErrors(section);
    const t = tableState;
    try {
      const stored = await api(`/api/tournament/rounds/${t.round}/tables/${t.table}/${what}`,
        { ...body, player: $("player").value, pin: $("pin").value });
      await loadTable();
      const again = document.querySelector(`.board-entry[data-board="${board}"] .message`);
      if (again) {
        again.textContent = stored.status === "pending"
          ? `Entered by ${stored.entered_by}: another player of the table confirms it.` : `Confirmed by ${stored.confirmed_by}.`;
      }
    } catch (err) {
      fieldError(["player", "pin"].includes(err.field) ? who : section, err);
    }
  }

  async function loadTable() {
    const round = wholeParam("round"), tableNo = wholeParam("table");
    if (!round || !tableNo) throw new Error("name the round and the table: /tournament/table?round=1&table=2");
    const view = await api(`/api/tournament/rounds/${round}/tables/${tableNo}`);
    tableState = view;
    $("title").textContent = `Round ${round} · table ${tableNo}`;
    $("back").href = roundLink(round);
    $("seated").textContent = view.players.map((p) => `seat ${p.seat}: ${p.name}${p.id ? ` (${p.id})` : ""}`).join(" · ");
    const select = $("player");
    if (!select.options.length) {
      select.append(el("option", { value: "" }, "choose…"));
      for (const p of view.players.filter((x) => x.id)) select.append(el("option", { value: p.id }, `${p.name} (${p.id})`));
    }
    const boards = $("boards"); boards.innerHTML = "";
    if (!view.released) boards.append(el("p", { class: "panel" }, "This round is not released yet: results are entered once it is."));
    for (const b of view.boards) boards.append(boardSection(view, b));
  }

  // choosing who is at the keyboard changes only the "you hold" of each board: redrawn from the
  // table already read, so what was typed into the boards' forms stands
  function showHolders() {
    const view = tableState;
    for (const b of view.boards) {
      const line = document.querySelector(`.board-entry[data-board="${b.board}"] .holders`);
      if (line) line.replaceWith(holdersLine(view, b));
    }
  }

  async function tablePage() {
    $("player").addEventListener("change", () => { if (tableState) showHolders(); });
    $("reload").addEventListener("click", () => loadTable().catch((e) => showError(e.message)));
    await loadTable();
  }

  // --- the hall's standings: polled, redrawn only when they change ---------------------------------
  async function standingsPage() {
    const every = Math.min(300, Math.max(1, Number(query.get("every")) || 5));
    const round = wholeParam("round");
    const path = `/api/tournament/standings${round ? `?round=${round}` : ""}`;
    let last = null, shown = 0;
    const box = $("standings");
    async function poll() {
      try {
        const s = await api(path);
        const text = JSON.stringify(s);
        if (text !== last) { last = text; shown += 1; draw(s); box.dataset.version = String(shown); }
        $("waiting").textContent = `${waitingLine(s)} · checked ${new Date().toLocaleTimeString()} · every ${every} s`;
        showError(null);
      } catch (err) {
        showError(`${err.message} (trying again in ${every} s)`);
      } finally {
        setTimeout(poll, every * 1000);
      }
    }
    await poll();
  }

  function waitingLine(s) {
    const parts = [];
    if (s.pending) parts.push(`${s.pending} result${s.pending === 1 ? "" : "s"} awaiting confirmation`);
    if (s.missing) parts.push(`${s.missing} still to come`);
    return parts.join(" · ") || (s.after_round ? "every result is in" : "no round released yet");
  }

  function draw(s) {
    $("title").textContent = s.event;
    document.title = `${s.event} standings`;
    $("summary").innerHTML = "";
    $("summary").append(s.after_round ? `Standings after round ${s.after_round} (${s.comparison}); ` : "No round is released yet. ",
      s.after_round ? el("span", { class: s.top_unique ? "unique" : "open" }, s.top_unique ? `the top ${s.top} are unique` : `the top ${s.top} are not unique yet`) : "");
    const held = {};
    for (const r of s.standings) held[r.place] = (held[r.place] || 0) + 1;
    const box = $("standings"); box.innerHTML = "";
    const head = [["rank", "num"], ["place", "num"], ["player", ""], ["club", ""], ["total", "num"], ["boards", "num"], ["tie-break", ""]];
    box.append(el("table", {}, el("tr", {}, head.map(([h, c]) => el("th", { class: c }, h))), s.standings.map((r) => el("tr", { "data-id": r.id },
      el("td", { class: "num" }, String(r.rank)), el("td", { class: "num" }, `${r.place}${held[r.place] > 1 ? "=" : ""}`),
      el("td", {}, r.name), el("td", {}, r.club), el("td", { class: "num total" }, num(r.total)),
      el("td", { class: "num boards" }, String(r.boards)), el("td", {}, r.decided_by || "")))));
  }

  // --- the director's pages -------------------------------------------------------------------------
  function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }
  const asDirector = (path, body) => api(path, body, { headers: { "X-Director-Token": token() } });
  // who makes a change, for the audit log: an empty field sends none (JSON.stringify leaves an
  // undefined field out), so the server records its own default, "director (web)"
  const by = () => $("by").value.trim() || undefined;

  function tokenFromAddress() {
    // the address paiju serve prints carries the token after '#' (never sent to the server);
    // it is kept for this tab and taken out of the address bar
    const fromHash = new URLSearchParams(location.hash.replace(/^#/, "")).get("token");
    if (!fromHash) return false;
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, "", location.pathname + location.search);
    $("token").value = fromHash;
    return true;
  }

  async function directorPage() {
    tokenFromAddress();
    window.addEventListener("hashchange", () => { if (tokenFromAddress()) loadDirector().catch(() => {}); });
    $("token").value = token();
    $("use-token").addEventListener("click", () => { sessionStorage.setItem(TOKEN_KEY, $("token").value.trim()); loadDirector().catch(() => {}); });
    $("round").addEventListener("change", () => loadDirector().catch(() => {}));
    $("release").addEventListener("click", async () => {
      clearErrors(document.body);
      try {
        await asDirector(`/api/tournament/director/rounds/${$("round").value}/release`, { by: by() });
        await loadDirector();
      } catch (err) { fieldError(document.body, err); }
    });
    $("correction").addEventListener("submit", (e) => { e.preventDefault(); correct(); });
    $("adjust").addEventListener("submit", (e) => { e.preventDefault(); adjust(); });
    const ev = await api("/api/tournament");
    $("title").textContent = `${ev.name}: the director's pages`;
    for (const r of ev.rounds) $("round").append(el("option", { value: r.round }, `round ${r.round}`));
    const chosen = wholeParam("round") || ev.current_round || (ev.rounds.length ? ev.rounds[ev.rounds.length - 1].round : null);
    if (chosen) $("round").value = String(chosen);
    if (token()) await loadDirector().catch(() => {});
  }

  async function loadDirector() {
    clearErrors(document.body);
    const round = $("round").value;
    if (!round) { $("round-state").textContent = "No round is paired yet (paiju tournament pair)."; return; }
    // one request after the other: paiju.api clears the banner on success, so a request
    // answering after another's refusal would wipe its message
    let d, ev;
    try {
      d = await asDirector(`/api/tournament/director/rounds/${round}`);
      ev = await api("/api/tournament");
    } catch (err) { fieldError($("access"), err); throw err; }
    const info = ev.rounds.find((r) => String(r.round) === round);
    $("round-state").textContent = d.released_at ? `released ${d.released_at}` : d.boards_at ? "boards chosen, not released" : "paired; no boards yet (paiju tournament boards)";
    $("release").hidden = Boolean(d.released_at) || !info.boards.length;
    const pins = $("pins"); pins.innerHTML = "";
    const entries = Object.entries(d.pins);
    if (!entries.length) pins.textContent = "issued when the round is released";
    else pins.append(table(["table", "PIN"], entries.map(([t, pin]) => el("tr", {}, el("td", {}, t), el("td", { class: "pin" }, pin)))));
    const results = $("results"); results.innerHTML = "";
    if (!d.results.length) results.append(el("p", { class: "small muted" }, "nothing entered yet"));
    else {
      results.append(table(["table", "board", "result", "status", "entered by", "confirmed by", ""], d.results.map((r) => {
        const fix = el("button", { type: "button", class: "fix" }, "correct…");
        fix.addEventListener("click", () => fillCorrection(r));
        return el("tr", { "data-table": r.table, "data-board": r.board }, el("td", {}, String(r.table)), el("td", {}, String(r.board)),
          el("td", {}, describe(r)), el("td", {}, r.status), el("td", {}, r.entered_by), el("td", {}, r.confirmed_by || ""), el("td", {}, fix));
      })));
    }
    await loadAdjustments();
    await loadLog();
  }

  function fillCorrection(r) {
    const f = $("correction");
    f.table.value = r.table; f.board.value = r.board; f.declarer.value = r.landlord; f.bid.value = r.bid === null ? "" : r.bid;
    f.bombs.value = r.bombs; f.spring.value = r.spring; f.result.value = r.result;
    f.reason.focus();
  }

  async function correct() {
    const f = $("correction");
    clearErrors(f);
    const body = { table: Number(f.table.value), board: Number(f.board.value), declarer: f.declarer.value,
      bombs: Number(f.bombs.value || "0"), spring: f.spring.value, result: f.result.value, reason: f.reason.value, by: by() };
    if (f.bid.value) body.bid = Number(f.bid.value);
    try {
      await asDirector(`/api/tournament/director/rounds/${$("round").value}/corrections`, body);
      f.reason.value = "";
      await loadDirector();
    } catch (err) { fieldError(f, err); }
  }

  async function adjust() {
    const f = $("adjust");
    clearErrors(f);
    const body = { kind: f.kind.value, round: Number($("round").value), reason: f.reason.value, by: by() };
    if (f.board.value) body.board = Number(f.board.value);
    if (f.table.value) body.table = Number(f.table.value);
    if (f.player.value.trim()) body.player = f.player.value.trim();
    if (f.points.value) body.points = Number(f.points.value);
    try {
      await asDirector("/api/tournament/director/adjustments", body);
      f.reset();
      await loadDirector();
    } catch (err) { fieldError(f, err); }
  }

  async function loadAdjustments() {
    const { adjustments } = await asDirector("/api/tournament/director/adjustments");
    const box = $("adjustments"); box.innerHTML = "";
    if (!adjustments.length) { box.append(el("p", { class: "small muted" }, "none")); return; }
    box.append(table(["#", "what", "player", "reason", "by", ""], adjustments.map((a) => {
      const reason = el("input", { placeholder: "why withdraw it", maxlength: 200, size: 14, "data-field": "reason" });
      const cancel = el("button", { type: "button", class: "cancel" }, "withdraw");
      const row = el("tr", { "data-adjustment": a.id }, el("td", {}, String(a.id)), el("td", {}, a.description), el("td", {}, a.player || ""),
        el("td", {}, a.reason), el("td", {}, a.made_by), el("td", {}, reason, cancel, el("span", { class: "field-error", "data-for": "reason" })));
      cancel.addEventListener("click", async () => {
        clearErrors(row);
        try {
          await asDirector(`/api/tournament/director/adjustments/${a.id}/cancel`, { reason: reason.value, by: by() });
          await loadDirector();
        } catch (err) { fieldError(row, err); }
      });
      return row;
    })));
  }

  async function loadLog() {
    const { log } = await asDirector("/api/tournament/director/log?limit=20");
    const box = $("log"); box.innerHTML = "";
    box.append(table(["when", "who", "what"], log.map((e) => el("tr", {}, el("td", { class: "when" }, e.at.replace("T", " ").slice(0, 19)), el("td", {}, e.who),
      el("td", {}, e.action, e.rows > 1 ? el("span", { class: "muted" }, ` (${e.rows} rows)`) : null)))));
  }

  // --- start the page ---------------------------------------------------------------------------------
  const PAGES = { event: eventPage, round: roundPage, table: tablePage, standings: standingsPage, director: directorPage };
  document.addEventListener("DOMContentLoaded", async () => {
    try {
      await PAGES[document.body.dataset.page]();
    } catch (err) {
      showError(err.message);
    } finally {
      document.body.dataset.ready = "1";
    }
  });
})();
