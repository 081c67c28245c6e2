"use strict";
(() => {
  const { el, api } = paiju;
  const $ = (id) => document.getElementById(id);
  let view = null;

  const suit = (t) => t.slice(-1);
  const tile = (name, extra, attrs) => el("span", { class: `tile ${suit(name)} ${extra || ""}`, ...(attrs || {}) }, name);
  const seatName = (s) => `seat ${s} ${view.winds[s]}${s === view.seat ? " · you" : " · " + view.agents[s]}`;

  function renderSeats() {
    const box = $("seats"); box.innerHTML = "";
    for (let s = 0; s < 4; s++) {
      const melds = view.melds[s].map((m) => el("span", { class: "tile z" }, m));
      const river = view.rivers[s].map((d) => tile(d.tile, d.claimed ? "claimed" : ""));
      box.append(el("div", { class: "seat-box" + (view.to_act === s ? " to-move" : ""), id: `seat-${s}` },
        el("b", {}, seatName(s)), ` — ${view.hand_sizes[s]} concealed tiles`,
        melds.length ? el("div", {}, "melds: ", melds) : null,
        el("div", { class: "river" }, "discards: ", river.length ? river : el("span", { class: "muted" }, "none"))));
    }
    $("wall").textContent = `live tiles left: ${view.live_tiles} · dealer: seat ${view.dealer}`;
  }

  function renderHand() {
    const box = $("hand"); box.innerHTML = "";
    const discards = new Map(view.legal.filter((a) => a.kind === "discard").map((a) => [a.label.replace(/^discard /, ""), a]));
    for (const t of view.hand) {
      const a = discards.get(t);
      if (a) {
        const b = el("button", { class: `tile ${suit(t)} discard`, "data-action": a.action, "data-tile": t, title: `discard ${t}` }, t);
        b.addEventListener("click", () => submit(a.action));
        box.append(b);
      } else {
        box.append(tile(t, "", { "data-tile": t }));
      }
    }
    $("hand-note").textContent = view.drawn ? `(drew ${view.drawn})` : "";
    $("window").textContent = view.window_tile ? `On offer: ${view.window_tile} from seat ${view.window_from}` : "";
  }

  function renderLegal() {
    const box = $("legal"); box.innerHTML = "";
    if (!view.your_turn) { box.append(el("span", { class: "muted" }, view.over ? "hand over" : "waiting for the AIs")); return; }
    for (const a of view.legal.filter((x) => x.kind !== "discard")) {
      const b = el("button", { class: `action ${a.kind}`, "data-action": a.action, "data-kind": a.kind }, a.label);
      b.addEventListener("click", () => submit(a.action));
      box.append(b);
    }
    if (view.legal.some((x) => x.kind === "discard")) box.append(el("div", { class: "muted small" }, "click a tile of your hand to discard it"));
  }

  function renderHint() {
    const h = view.hint || {}; const box = $("hint"); box.innerHTML = "";
    if (h.shanten === undefined) { box.textContent = "—"; return; }
    const sh = h.shanten === -1 ? "complete" : h.shanten === 0 ? "ready (聽牌)" : `${h.shanten}`;
    box.append(el("div", { id: "shanten" }, el("b", {}, "shanten: "), sh));
    box.append(el("div", {}, el("b", {}, "effective tiles: "), `${h.effective_total} unseen `,
      Object.entries(h.effective).map(([t, n]) => el("span", { class: `tile ${suit(t)}`, title: `${n} unseen` }, `${t}×${n}`))));
    if (h.discards) {
      const table = el("table", { id: "discard-table" }, el("tr", {}, el("th", {}, "discard"), el("th", {}, "shanten"), el("th", {}, "effective")));
      for (const d of h.discards) table.append(el("tr", {}, el("td", {}, tile(d.tile)), el("td", {}, String(d.shanten)), el("td", {}, String(d.total))));
      box.append(el("div", { class: "muted" }, "best discards (counted over the tiles you cannot see):"), table);
    }
  }

  function renderTranscript() {
    const ol = $("transcript"); ol.innerHTML = "";
    for (const e of view.transcript) {
      ol.append(el("li", { class: e.seat === view.seat ? "you" : "" }, `${seatName(e.seat)}: ${e.text}`, e.note ? el("div", { class: "note" }, e.note) : null));
    }
    ol.scrollTop = ol.scrollHeight;
  }

  function renderResult() {
    const box = $("result"); const r = view.result;
    if (!r) { box.style.display = "none"; return; }
    box.style.display = "block"; box.innerHTML = "";
    if (r.exhaustive) { box.append(el("h2", { id: "result-title" }, "Hand over — exhaustive draw (流局), nobody won")); return; }
    box.append(el("h2", { id: "result-title" }, `Hand over — ${r.winners.map((w) => seatName(w)).join(" and ")} won` +
      (r.self_draw ? " by self-draw (自摸)" : ` on ${r.winning_tile} from seat ${r.discarder}`)));
    for (const w of r.wins) {
      const div = el("div", { class: "win-breakdown" }, el("h3", {}, `${seatName(w.winner)}: ${w.tai} tai · hand ${w.hand}`));
      const t = el("table", {}, el("tr", {}, el("th", {}, "pattern"), el("th", {}, "tai")));
      for (const p of w.patterns) t.append(el("tr", {}, el("td", {}, `${p.name} ${p.english}`), el("td", {}, String(p.tai))));
      div.append(t);
      const pt = el("table", { class: "payments" }, el("tr", {}, el("th", {}, "payer"), el("th", {}, "lines"), el("th", {}, "tai"), el("th", {}, "points")));
      for (const p of w.payments) {
        pt.append(el("tr", {}, el("td", {}, seatName(p.payer)), el("td", {}, p.lines.map((l) => `${l.name} ${l.tai}`).join(", ")),
          el("td", {}, String(p.tai)), el("td", {}, String(p.amount))));
      }
      div.append(el("div", { class: "small" }, "payments:"), pt);
      box.append(div);
    }
    box.append(el("p", {}, "points this hand: ", r.deltas.map((d, s) => `${seatName(s)} ${d > 0 ? "+" : ""}${d}`).join(" · ")));
  }

  function render() {
    $("table").style.display = "block";
    $("status").textContent = view.over ? "Hand over." : view.your_turn ? (view.phase === "turn" ? "Your turn." : "Claim or pass?") : "AI is playing…";
    $("status").dataset.state = view.over ? "over" : view.your_turn ? "your-turn" : "waiting";
    renderSeats(); renderHand(); renderLegal(); renderHint(); renderTranscript(); renderResult();
  }

  function show(v) { view = v; if (location.hash !== `#${v.id}`) history.replaceState(null, "", `#${v.id}`); render(); }

  async function submit(action) {
    try { show(await api(`/api/games/${view.id}/move`, { action, ply: view.ply })); } catch (e) { /* banner */ }
  }

  function updateLabels() {
    const seat = Number($("seat").value);
    const others = [0, 1, 2, 3].filter((s) => s !== seat);
    document.querySelectorAll(".ai-label").forEach((n, i) => { n.textContent = `AI at seat ${others[i]}`; });
  }
  $("seat").addEventListener("change", updateLabels);

  $("new-game").addEventListener("click", async () => {
    const body = { seat: Number($("seat").value), agents: [...document.querySelectorAll(".ai")].map((s) => s.value), seed: paiju.seedValue($("seed")) };
    try { show(await api("/api/games/mahjong", body)); } catch (e) { /* banner */ }
  });

  (async () => {
    await paiju.fillAgents("mahjong", [...document.querySelectorAll(".ai")], "greedy");
    updateLabels();
    const id = paiju.gameIdFromHash();
    if (id) { try { show(await api(`/api/games/${id}`)); } catch (e) { /* banner */ } }
    document.body.dataset.ready = "1";
  })();
})();
