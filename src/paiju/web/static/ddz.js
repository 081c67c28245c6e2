"use strict";
(() => {
  const { el, api } = paiju;
  const $ = (id) => document.getElementById(id);
  let view = null;
  let selected = [];      // indices into view.cards
  let chosen = null;      // a legal move item chosen from the list

  function seatLabel(s) {
    if (!view) return `seat ${s}`;
    const who = s === view.seat ? "you" : view.agents[s];
    return `seat ${s} · ${view.roles[s]} · ${who}`;
  }

  function cardsOf(text) { return text.split(""); }
  function sameMultiset(a, b) { return a.slice().sort().join("") === b.slice().sort().join(""); }
  function selectedCards() { return selected.map((i) => view.cards[i]).sort((x, y) => "3456789TJQKA2XD".indexOf(x) - "3456789TJQKA2XD".indexOf(y)); }

  function selectCards(text) {
    selected = [];
    const used = new Set();
    for (const c of cardsOf(text)) {
      const i = view.cards.findIndex((x, j) => x === c && !used.has(j));
      if (i >= 0) { used.add(i); selected.push(i); }
    }
  }

  function renderHand() {
    const hand = $("hand"); hand.innerHTML = "";
    view.cards.forEach((c, i) => {
      const node = el("span", { class: "card" + (selected.includes(i) ? " sel" : "") + (c === "X" || c === "D" ? " joker" : ""),
        // the engine's notation (T for ten), as in the legal moves, the hints and the transcript
        "data-rank": c, title: c === "X" ? "small joker" : c === "D" ? "big joker" : c === "T" ? "ten" : c }, c);
      node.addEventListener("click", () => {
        if (!view.your_turn) return;
        const k = selected.indexOf(i);
        if (k >= 0) selected.splice(k, 1); else selected.push(i);
        if (chosen && !sameMultiset(selectedCards(), cardsOf(chosen.cards))) chosen = null;
        renderHand(); renderControls();
      });
      hand.append(node);
    });
    $("hand-size").textContent = `(${view.cards.length} cards)`;
  }

  // the legal moves made of exactly the selected cards (usually one; a type may tell them apart)
  function movesOf(sel) {
    return view.legal.filter((m) => m.type !== "pass" && m.type !== "bid" && sameMultiset(cardsOf(m.cards), cardsOf(sel)));
  }

  function renderControls() {
    const sel = selectedCards().join("");
    const canPass = view.your_turn && view.legal.some((m) => m.type === "pass");
    const moves = sel ? movesOf(sel) : [];
    $("pass").disabled = !canPass;
    // a selection that is no legal move cannot be played: the button waits for one that is
    $("play").disabled = !view.your_turn || !moves.length;
    $("selection").textContent = sel ? `selected: ${sel}` + (chosen ? ` (${chosen.label})` : "") : "";
    for (const b of document.querySelectorAll("#legal button")) {
      b.classList.toggle("chosen", chosen !== null && b.dataset.move === chosen.move && b.dataset.type === chosen.type);
    }
    renderWhy(sel, moves);
  }

  // next to the hand: what the selection would play, or why it cannot be played (the
  // server's own reason, the one a move request would be refused with)
  let checked = 0;
  function renderWhy(sel, moves) {
    const why = $("why");
    checked += 1;
    if (!view.your_turn || !sel) { why.textContent = ""; why.dataset.state = "none"; return; }
    if (moves.length) {
      why.textContent = `✓ plays ${(chosen || moves[0]).label}`; why.dataset.state = "legal"; return;
    }
    why.textContent = `${sel}: checking…`; why.dataset.state = "checking";
    const ask = checked;
    api(`/api/games/${view.id}/check?move=${encodeURIComponent(sel)}`).then((r) => {
      if (ask !== checked) return;  // the selection has changed meanwhile
      // "illegal move 3K for seat 1 (farmer 1): " repeats what the page shows already
      const reason = (r.reason || "not a legal move").replace(/^illegal move \S+ for seat \d+ \([^)]*\): /, "");
      why.textContent = `✗ ${sel} cannot be played: ${reason}`; why.dataset.state = "illegal";
    }).catch(() => { /* banner */ });
  }

  function renderLegal() {
    const box = $("legal"); box.innerHTML = "";
    const moves = view.legal.filter((m) => m.type !== "pass");
    $("legal-count").textContent = view.your_turn ? `(${moves.length})` : "";
    if (!view.your_turn) { box.append(el("span", { class: "muted" }, view.over ? "game over" : "waiting for the AIs")); return; }
    if (!moves.length) box.append(el("span", { class: "muted" }, "nothing in your hand beats it: pass"));
    for (const m of moves) {
      const b = el("button", { class: "move", "data-move": m.move, "data-type": m.type, title: m.label }, m.type === "bid" ? m.label : m.move);
      b.addEventListener("click", () => {
        if (m.type === "bid") { submit({ move: m.move }); return; }
        chosen = m; selectCards(m.cards); renderHand(); renderControls();
      });
      box.append(b);
    }
  }

  function renderSeats() {
    const box = $("seats"); box.innerHTML = "";
    for (let s = 0; s < 3; s++) {
      box.append(el("div", { class: "seat-box" + (view.current_player === s ? " to-move" : ""), id: `seat-${s}` },
        el("b", {}, seatLabel(s)), ` — ${view.hand_sizes[s]} cards`,
        view.result ? el("span", { class: "muted" }, ` · left: ${view.result.hands_left[s] || "none"}`) : null));
    }
    $("to-beat").textContent = view.to_beat ? `${view.to_beat.cards} (${view.to_beat.label}, by seat ${view.trick_owner})` : "free lead";
    if (view.kitty) $("to-beat").append(el("span", { class: "muted small" }, `  · kitty ${view.kitty}`));
  }

  function renderTranscript() {
    const ol = $("transcript"); ol.innerHTML = "";
    for (const e of view.transcript) {
      ol.append(el("li", { class: e.seat === view.seat ? "you" : "" }, `${seatLabel(e.seat)}: ${e.text}`,
        e.detail && e.detail !== e.text ? el("span", { class: "muted small" }, ` (${e.detail})`) : null,
        e.note ? el("div", { class: "note" }, e.note) : null));
    }
    ol.scrollTop = ol.scrollHeight;
  }

  function renderResult() {
    const box = $("result");
    if (!view.result) { box.style.display = "none"; return; }
    const r = view.result;
    box.style.display = "block"; box.innerHTML = "";
    const youWon = r.your_return > 0;
    box.append(el("h2", { id: "result-title" }, `Game over — ${r.landlord_won ? "the landlord" : "the farmers"} won (${youWon ? "you win" : "you lose"})`));
    box.append(el("p", {}, `Rule: ${r.rule}. Landlord's score: ${r.landlord_score}. Your return: `, el("b", { id: "your-return" }, String(r.your_return)),
      `. Bombs/rockets: ${r.facts.bombs}${r.facts.spring ? ", spring" : ""}${r.facts.anti_spring ? ", anti-spring" : ""}.`));
    const t = el("table", {}, el("tr", {}, el("th", {}, "rule"), [0, 1, 2].map((s) => el("th", {}, seatLabel(s)))));
    for (const [rule, rets] of Object.entries(r.under_each_rule)) {
      t.append(el("tr", {}, el("td", {}, rule + (rule === r.rule ? " (chosen)" : "")), rets.map((x) => el("td", {}, String(x)))));
    }
    box.append(t, el("p", { class: "small muted" }, `Deal: ${r.deal}`));
  }

  function render() {
    $("table").style.display = "block";
    $("status").textContent = view.over ? "Game over." : view.your_turn ? (view.phase === "bidding" ? "Your bid." : "Your turn.") : "AI is playing…";
    $("status").dataset.state = view.over ? "over" : view.your_turn ? "your-turn" : "waiting";
    renderSeats(); renderHand(); renderLegal(); renderControls(); renderTranscript(); renderResult();
    if (view.over) $("hint").innerHTML = "";
  }

  function show(v) {
    view = v; selected = []; chosen = null;
    paiju.foldSetup(v.id);
    if (location.hash !== `#${v.id}`) history.replaceState(null, "", `#${v.id}`);
    render();
    if (hintOpen && !v.over) loadHint().catch(() => {});
  }

  async function submit(body) {
    body.ply = view.ply;
    try { show(await api(`/api/games/${view.id}/move`, body)); } catch (e) { /* shown in the banner; state unchanged */ }
  }

  $("play").addEventListener("click", () => {
    const cards = selectedCards().join("");
    const body = { move: cards };
    if (chosen && sameMultiset(cardsOf(chosen.cards), cardsOf(cards))) body.type = chosen.type;
    submit(body);
  });
  $("pass").addEventListener("click", () => submit({ move: "pass" }));
  $("clear").addEventListener("click", () => { selected = []; chosen = null; renderHand(); renderControls(); });

  let hintOpen = false;
  $("hint-btn").addEventListener("click", () => {
    hintOpen = !hintOpen;
    $("hint-btn").textContent = hintOpen ? "hide" : "show";
    $("hint-btn").setAttribute("aria-expanded", String(hintOpen));
    if (hintOpen) loadHint().catch(() => {}); else $("hint").innerHTML = "";
  });

  async function loadHint() {
    if (!view || view.over) return;
    const h = await api(`/api/games/${view.id}/hint`);
    const box = $("hint"); box.innerHTML = "";
    if (!h.splits || !h.splits.length) { box.textContent = "no cards left"; return; }
    for (const s of h.splits) {
      box.append(el("div", { class: "split", "data-method": s.method, "data-objective": s.objective },
        el("b", {}, s.title), el("br"),
        s.groups.map((g, i) => el("span", { class: s.differs && s.differs[i] ? "tile differs" : "tile",
          title: s.differs && s.differs[i] ? `${g.type}: not in the other split` : g.type }, g.cards)),
        s.differs ? el("span", { class: "muted" }, s.method === "tagger"
          ? " (marked: groups the exact fewest-plays split does not have)"
          : " (marked: groups the learned split does not have)") : null,
        el("div", { class: "muted" }, `${s.num_groups} groups, ${s.num_plays} plays: ` + s.plays.map((p) => `${p.cards} (${p.kind})`).join(", "))));
    }
  }

  function updateSeatLabels() {
    const seat = Number($("seat").value);
    const others = [0, 1, 2].filter((s) => s !== seat);
    $("ai-a-label").textContent = `AI at seat ${others[0]}`;
    $("ai-b-label").textContent = `AI at seat ${others[1]}`;
  }
  $("seat").addEventListener("change", updateSeatLabels);

  $("new-game").addEventListener("click", async () => {
    const body = { seat: Number($("seat").value), agents: [$("ai-a").value, $("ai-b").value], scoring: $("scoring").value,
      bidding: $("bidding").checked, seed: paiju.seedValue($("seed")) };
    try { show(await api("/api/games/doudizhu", body)); } catch (e) { /* banner */ }
  });

  (async () => {
    await paiju.fillAgents("doudizhu", [$("ai-a"), $("ai-b")], "rule");
    updateSeatLabels();
    const id = paiju.gameIdFromHash();
    if (id) { try { show(await api(`/api/games/${id}`)); } catch (e) { /* banner */ } }
    document.body.dataset.ready = "1";
  })();
})();
