"use strict";
(() => {
  const { el, api } = paiju;
  const $ = (id) => document.getElementById(id);
  let view = null;
  let picked = null; // card id whose targets are highlighted

  const who = (s) => (s === view.seat ? "you" : `AI (${view.agents[s]})`);

  function playsOf(cardId) { return view.legal.filter((a) => a.kind === "play" && a.card === cardId); }

  function renderBoard() {
    const grid = $("board-grid"); grid.innerHTML = "";
    grid.style.gridTemplateColumns = `repeat(${view.board.width}, minmax(0, auto))`;
    const targets = new Map(picked === null ? [] : playsOf(picked).filter((a) => a.cell).map((a) => [a.cell, a]));
    for (const c of view.cells) {
      const node = el("div", { class: `cell w-${c.weather}` + (targets.has(c.cell) ? " target" : ""), "data-cell": c.cell },
        el("span", { class: "cname" }, c.cell + (c.weather !== "clear" ? ` · ${c.weather}` : "")));
      if (c.card) {
        const cls = c.points < c.base ? "down" : c.points > c.base ? "up" : "";
        node.append(el("div", { class: `unit o${c.owner}`, title: c.card.text },
          el("div", {}, el("b", {}, c.card.name)),
          // damaged / boosted points say so in words too (readable without colour)
          el("span", { class: `pts ${cls}` }, cls ? `${c.points}/${c.base} pts ${cls === "down" ? "▼" : "▲"}` : `${c.points} pts`),
          c.armour ? ` [${c.armour}]` : "", c.coins ? ` $${c.coins}` : "", c.card.cooldown ? ` cd${c.cooldown}` : "",
          el("div", { class: "small" }, c.owner === view.seat ? "yours" : "AI's")));
      }
      if (targets.has(c.cell)) node.addEventListener("click", () => submit(targets.get(c.cell).action));
      grid.append(node);
    }
    $("scoreline").innerHTML = "";
    $("scoreline").append(el("div", {},
      [0, 1].map((s) => el("div", { class: "seat-box" + (view.current_player === s ? " to-move" : ""), id: `seat-${s}` },
        el("b", {}, `seat ${s} (${who(s)}, deck ${view.decks[s]})`),
        `: ${view.scores[s]} points on the board, purse $${view.purses[s]}, deck ${view.deck_sizes[s]}` +
        (s !== view.seat ? `, ${view.opponent_hidden} hidden hand cards` : "") + (view.out_of_cards[s] ? ", finished" : "")))));
  }

  function cardBox(c, extra) {
    return el("div", { class: `handcard ${extra || ""}`, "data-card": c.id, title: c.text },
      el("b", {}, c.name), el("span", { class: "muted" }, ` ${c.kind}`), el("br"),
      c.kind === "character" ? `${c.points} pts` : "", c.armour ? ` [${c.armour}]` : "", c.coins ? ` $${c.coins}` : "",
      c.cost ? ` cost $${c.price !== undefined ? c.price : c.cost}` : "", el("div", { class: "small" }, c.text));
  }

  function renderHand() {
    const box = $("hand"); box.innerHTML = "";
    for (const c of view.hand) {
      const plays = view.your_turn ? playsOf(c.id) : [];
      const node = cardBox(c, (plays.length ? "playable" : "unplayable") + (picked === c.id ? " sel" : ""));
      if (plays.length) {
        node.addEventListener("click", () => {
          if (plays.length === 1 && !plays[0].cell) { submit(plays[0].action); return; }
          picked = picked === c.id ? null : c.id; render();
        });
      }
      box.append(node);
    }
    if (!view.hand.length) box.append(el("span", { class: "muted" }, "no cards left"));
    const end = view.legal.find((a) => a.kind === "end");
    $("end").disabled = !end;
    $("pick").textContent = picked !== null ? "click a highlighted cell to play the card there" : "";
  }

  function renderOffer() {
    const box = $("offer"); box.innerHTML = "";
    if (!view.offer.length || !view.your_turn) return;
    box.append(el("h2", {}, "Swap offer: give a hand card for one of these, or keep your hand"));
    box.append(el("div", {}, view.offer.map((c) => cardBox(c, ""))));
    for (const a of view.legal.filter((x) => x.kind === "swap" || x.kind === "keep")) {
      const b = el("button", { class: `action ${a.kind}`, "data-action": a.action, title: a.label }, a.text || a.label);
      b.addEventListener("click", () => submit(a.action));
      box.append(b);
    }
  }

  function renderLegal() {
    const box = $("legal"); box.innerHTML = "";
    for (const a of view.legal) {
      const b = el("button", { class: `action ${a.kind}`, "data-action": a.action, title: a.label }, a.text || a.label);
      b.addEventListener("click", () => submit(a.action));
      box.append(b);
    }
  }

  function renderTranscript() {
    const ol = $("transcript"); ol.innerHTML = "";
    for (const e of view.transcript) {
      // each move, then what it did: damage, deaths and their cause, weather, coins, skips
      ol.append(el("li", { class: e.seat === view.seat ? "you" : "" }, `${who(e.seat)}: ${e.text}`,
        e.note ? el("div", { class: "note" }, e.note) : null,
        (e.effects || []).length ? el("ul", { class: "effects" }, e.effects.map((x) => el("li", {}, x))) : null));
    }
    ol.scrollTop = ol.scrollHeight;
  }

  function renderResult() {
    const box = $("result"); const r = view.result;
    if (!r) { box.style.display = "none"; return; }
    box.style.display = "block"; box.innerHTML = "";
    const outcome = r.winner === null ? "a draw" : r.winner === view.seat ? "you win" : "the AI wins";
    box.append(el("h2", { id: "result-title" }, `Game over — ${outcome}`),
      el("p", {}, `Final scores: seat 0 ${r.final_scores[0]}${r.die_bonus ? ` (including the die bonus ${r.die_bonus})` : ""}, seat 1 ${r.final_scores[1]}.`));
  }

  function render() {
    $("table").style.display = "block";
    $("status").textContent = view.over ? "Game over." : view.your_turn ? (view.phase === "swap" ? "Your swap decision." : "Your turn: play a card or end the turn.") : "AI is playing…";
    $("status").dataset.state = view.over ? "over" : view.your_turn ? "your-turn" : "waiting";
    renderBoard(); renderOffer(); renderHand(); renderLegal(); renderTranscript(); renderResult();
  }

  function show(v) { view = v; paiju.foldSetup(v.id); picked = null; if (location.hash !== `#${v.id}`) history.replaceState(null, "", `#${v.id}`); render(); }

  async function submit(action) {
    try { show(await api(`/api/games/${view.id}/move`, { action, ply: view.ply })); } catch (e) { /* banner */ }
  }

  $("end").addEventListener("click", () => { const a = view.legal.find((x) => x.kind === "end"); if (a) submit(a.action); });

  $("new-game").addEventListener("click", async () => {
    const body = { seat: Number($("seat").value), agent: $("agent").value, board: $("board").value,
      decks: [$("deck-you").value, $("deck-ai").value], die_bonus: $("die").checked, swaps: $("swaps").checked, seed: paiju.seedValue($("seed")) };
    try { show(await api("/api/games/yuxi", body)); } catch (e) { /* banner */ }
  });

  (async () => {
    await paiju.fillAgents("yuxi", [$("agent")], "greedy");
    const opts = await api("/api/yuxi/options");
    for (const b of opts.boards) $("board").append(el("option", { value: b.name, selected: b.name === "4x4" }, `${b.name} (hand ${b.hand_size})`));
    opts.decks.forEach((d, i) => {
      $("deck-you").append(el("option", { value: d.name, selected: i === 0 }, `${d.name} (${d.size})`));
      $("deck-ai").append(el("option", { value: d.name, selected: i === 5 }, `${d.name} (${d.size})`));
    });
    const id = paiju.gameIdFromHash();
    if (id) { try { show(await api(`/api/games/${id}`)); } catch (e) { /* banner */ } }
    document.body.dataset.ready = "1";
  })();
})();
