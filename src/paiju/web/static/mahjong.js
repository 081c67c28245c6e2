"use strict";
(() => {
  const { el, api } = paiju;
  const $ = (id) => document.getElementById(id);
  let view = null;
  let advice = null; // the latest Expectimax hint: {ply, discards, ...}

  // Tile faces: the number and the suit in characters (五萬, 五筒, 五條), the honours (東 .. 中)
  // and the flowers (春 .. 菊). The notation stays in data-tile: it is what moves are made of.
  const NUMERALS = "一二三四五六七八九";
  const SUITS = { m: "萬", p: "筒", s: "條" };
  const HONOURS = "東南西北白發中";
  const FLOWERS = "春夏秋冬梅蘭竹菊";
  const suit = (t) => t.slice(-1);
  function faceParts(name) {
    const n = Number(name[0]), s = suit(name);
    if (s === "z") return [HONOURS[n - 1]];
    if (s === "f") return [FLOWERS[n - 1]];
    return [NUMERALS[n - 1], SUITS[s]];
  }
  const faceText = (name) => faceParts(name).join("");
  // tile notation groups ("3s", "345s", "777z", "11345m234p") in the engine's words, read as
  // characters: 三條, 三四五條, 中中中
  const GROUP = /\b([1-9]+)([mpszf])\b/g;
  const groupFaces = (digits, s) => s === "z" || s === "f"
    ? [...digits].map((d) => faceText(d + s)).join("")
    : [...digits].map((d) => NUMERALS[Number(d) - 1]).join("") + SUITS[s];
  const inCharacters = (text) => text.replace(GROUP, (_, digits, s) => groupFaces(digits, s));
  const expand = (notation) => [...notation.matchAll(/([1-9]+)([mpszf])/g)].flatMap(([, digits, s]) => [...digits].map((d) => d + s));
  function tileNode(tag, name, extra, attrs) {
    const parts = faceParts(name);
    const body = parts.length === 2
      ? [el("span", { class: "num" }, parts[0]), el("span", { class: "suit" }, parts[1])]
      : [el("span", { class: "hon" }, parts[0])];
    return el(tag, { class: `tile ${suit(name)} ${extra || ""}`, "data-tile": name, title: `${faceText(name)} (${name})`, ...(attrs || {}) }, body);
  }
  const tile = (name, extra, attrs) => tileNode("span", name, extra, attrs);
  const seatName = (s) => `seat ${s} ${view.winds[s]}${s === view.seat ? " · you" : " · " + view.agents[s]}`;

  function renderSeats() {
    const box = $("seats"); box.innerHTML = "";
    for (let s = 0; s < 4; s++) {
      const melds = (view.meld_tiles || [[], [], [], []])[s].map((m) => el("span", { class: "meld", title: m.label },
        m.tiles.length ? m.tiles.map((t) => tile(t, "mini")) : el("span", { class: "tile back mini" }, "槓")));
      const flowers = (view.flowers || [[], [], [], []])[s].map((f) => tile(f, "mini"));
      const river = view.rivers[s].map((d) => tile(d.tile, "mini" + (d.claimed ? " claimed" : "")));
      box.append(el("div", { class: "seat-box" + (view.to_act === s ? " to-move" : ""), id: `seat-${s}` },
        el("b", {}, seatName(s)), ` — ${view.hand_sizes[s]} concealed tiles`,
        melds.length ? el("div", { class: "melds" }, "melds: ", melds) : null,
        flowers.length ? el("div", { class: "flowers" }, "flowers: ", flowers) : null,
        el("div", { class: "river" }, "discards: ", river.length ? river : el("span", { class: "muted" }, "none"))));
    }
    const rules = view.rules && view.rules.flowers ? " · with flowers" : "";
    $("wall").textContent = `live tiles left: ${view.live_tiles} · dealer: seat ${view.dealer}${rules}`;
  }

  function adviceRanks() {
    const ranks = new Map();
    if (advice && advice.ply === view.ply) advice.discards.forEach((d, i) => ranks.set(d.discard, i + 1));
    return ranks;
  }

  function renderHand() {
    const box = $("hand"); box.innerHTML = "";
    const discards = new Map(view.legal.filter((a) => a.kind === "discard").map((a) => [a.label.replace(/^discard /, ""), a]));
    const ranks = adviceRanks();
    const badged = new Set(); // one rank badge per tile kind: a discard discards the kind, not a copy
    let drawnMarked = false;
    for (const t of view.hand) {
      const a = discards.get(t);
      // the drawn tile is marked once (the last copy of its kind, as players keep it apart)
      const last = view.hand.lastIndexOf(t) === box.childElementCount;
      const drawn = !drawnMarked && view.drawn === t && last;
      if (drawn) drawnMarked = true;
      const badge = ranks.has(t) && !badged.has(t);
      if (badge) badged.add(t);
      const extra = (drawn ? " drawn" : "") + (badge ? " advised" : "");
      const rank = badge ? { "data-rank": ranks.get(t) } : {};
      if (a) {
        const b = tileNode("button", t, "discard" + extra, { "data-action": a.action, "aria-label": `discard ${faceText(t)}`, ...rank });
        b.addEventListener("click", () => submit(a.action));
        box.append(b);
      } else {
        box.append(tile(t, extra, rank));
      }
    }
    $("hand-note").textContent = view.drawn ? `(drew ${faceText(view.drawn)})` : "";
    $("window").textContent = "";
    if (view.window_tile) $("window").append("On offer: ", tile(view.window_tile, "mini"), ` from seat ${view.window_from}`);
  }

  function canAdvise() {
    return view.your_turn && view.phase === "turn" && view.legal.some((x) => x.kind === "discard");
  }

  function renderLegal() {
    const box = $("legal"); box.innerHTML = "";
    if (!view.your_turn) { box.append(el("span", { class: "muted" }, view.over ? "hand over" : "waiting for the AIs")); return; }
    for (const a of view.legal.filter((x) => x.kind !== "discard")) {
      const b = el("button", { class: `action ${a.kind}`, "data-action": a.action, "data-kind": a.kind }, a.label);
      b.addEventListener("click", () => submit(a.action));
      box.append(b);
    }
    if (canAdvise()) {
      const b = el("button", { id: "advise-btn", class: "action" }, "hint: best discards");
      b.addEventListener("click", () => loadAdvice().catch(() => {}));
      box.append(b, el("span", { class: "muted small" }, " tap a tile to discard it"));
    }
  }

  function renderHint() {
    const h = view.hint || {}; const box = $("hint"); box.innerHTML = "";
    if (h.shanten === undefined) { box.textContent = "—"; return; }
    const sh = h.shanten === -1 ? "complete" : h.shanten === 0 ? "ready (聽牌)" : `${h.shanten}`;
    box.append(el("div", { id: "shanten" }, el("b", {}, "shanten: "), sh));
    box.append(el("div", { class: "eff" }, el("b", {}, "effective tiles: "), `${h.effective_total} unseen `,
      Object.entries(h.effective).map(([t, n]) => el("span", { class: "eff-item", title: `${n} unseen` }, tile(t, "mini"), `×${n}`))));
    if (h.discards) {
      const table = el("table", { id: "discard-table" }, el("tr", {}, el("th", {}, "discard"), el("th", {}, "shanten"), el("th", {}, "effective")));
      for (const d of h.discards) table.append(el("tr", {}, el("td", {}, tile(d.tile, "mini")), el("td", {}, String(d.shanten)), el("td", {}, String(d.total))));
      box.append(el("div", { class: "muted" }, "fastest discards (shanten, counted over the tiles you cannot see):"), table);
    }
  }

  function renderAdvice() {
    const box = $("advice"); box.innerHTML = "";
    if (!advice || advice.ply !== view.ply) return;
    box.append(el("div", { class: "muted" }, `Expectimax (depth ${advice.depth}): the agent's ranking, best first, by value in points. ` +
      "▲ a worse shanten than the best discard's: its effective tiles lead to a slower hand."));
    const table = el("table", { id: "advice-table" }, el("tr", {}, el("th", {}, "#"), el("th", {}, "discard"), el("th", {}, "value"),
      el("th", {}, "shanten"), el("th", {}, "effective tiles"), el("th", {}, "win prob.")));
    const best = advice.discards.length ? advice.discards[0].shanten : 0;
    advice.discards.forEach((d, i) => {
      const kinds = Object.entries(d.effective).map(([t, n]) => `${faceText(t)}×${n}`).join(" ");
      const worse = d.shanten > best;
      const sh = d.shanten === 0 ? "ready" : String(d.shanten);
      table.append(el("tr", { "data-tile": d.discard, "data-rank": i + 1, class: i === 0 ? "best" : worse ? "slower" : "" },
        el("td", {}, String(i + 1)), el("td", {}, tile(d.discard, "mini")),
        el("td", { class: "value" }, d.value.toFixed(1)),
        el("td", { class: "shanten" + (worse ? " worse" : ""), "data-shanten": d.shanten,
          title: worse ? `${d.shanten - best} worse than the best discard's shanten ${best}` : "" }, worse ? `${sh} ▲` : sh),
        el("td", { class: "effective", title: kinds }, String(d.effective_total), el("div", { class: "kinds muted" }, kinds)),
        el("td", { class: "prob" }, `${(100 * d.win_probability).toFixed(1)}%`)));
    });
    box.append(table);
  }

  async function loadAdvice() {
    const res = await api(`/api/games/${view.id}/advice?top=5`);
    if (res.ply !== view.ply) return; // the table has moved on meanwhile
    advice = res; renderHand(); renderAdvice();
    if (window.matchMedia("(max-width: 640px)").matches) $("advice").scrollIntoView({ block: "center" });
  }

  function renderTranscript() {
    const ol = $("transcript"); ol.innerHTML = "";
    for (const e of view.transcript) {
      ol.append(el("li", { class: e.seat === view.seat ? "you" : "", title: e.text }, `${seatName(e.seat)}: ${inCharacters(e.text)}`,
        e.note ? el("div", { class: "note" }, e.note) : null));
    }
    ol.scrollTop = ol.scrollHeight;
  }

  function renderResult() {
    const box = $("result"); const r = view.result;
    if (!r) { box.style.display = "none"; return; }
    box.style.display = "block"; box.innerHTML = "";
    if (r.exhaustive) { box.append(el("h2", { id: "result-title" }, "Hand over — exhaustive draw (流局), nobody won")); return; }
    box.append(el("h2", { id: "result-title" }, `Hand over — ${r.winners.map((w) => seatName(w)).join(" and ")} won` +
      (r.self_draw ? " by self-draw (自摸)" : ` on ${faceText(r.winning_tile)} from seat ${r.discarder}`)));
    for (const w of r.wins) {
      const div = el("div", { class: "win-breakdown" }, el("h3", {}, `${seatName(w.winner)}: ${w.tai} tai`),
        el("div", { class: "winning-hand", title: w.hand }, expand(w.hand).map((t) => tile(t, "mini"))));
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
    renderSeats(); renderHand(); renderLegal(); renderHint(); renderAdvice(); renderTranscript(); renderResult();
  }

  function show(v) { view = v; paiju.foldSetup(v.id); if (location.hash !== `#${v.id}`) history.replaceState(null, "", `#${v.id}`); render(); }

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
    const body = { seat: Number($("seat").value), agents: [...document.querySelectorAll(".ai")].map((s) => s.value),
      flowers: $("flowers").checked, seed: paiju.seedValue($("seed")) };
    try { advice = null; show(await api("/api/games/mahjong", body)); } catch (e) { /* banner */ }
  });

  (async () => {
    await paiju.fillAgents("mahjong", [...document.querySelectorAll(".ai")], "greedy");
    updateLabels();
    const id = paiju.gameIdFromHash();
    if (id) { try { show(await api(`/api/games/${id}`)); } catch (e) { /* banner */ } }
    document.body.dataset.ready = "1";
  })();
})();
