"use strict";
(() => {
  const { el, api } = paiju;
  const $ = (id) => document.getElementById(id);
  const PAGE = 25;
  let offset = 0, detail = null, step = 0;

  async function loadList() {
    const game = $("game").value;
    const q = new URLSearchParams({ limit: PAGE, offset });
    if (game) q.set("game", game);
    const r = await api(`/api/records?${q}`);
    $("summary").textContent = `Folder ${r.root}: ` + (Object.keys(r.by_game).length
      ? Object.entries(r.by_game).map(([g, n]) => `${n} ${g}`).join(", ") : `no recorded games yet: play a game here, or record an arena run into this folder, e.g. paiju arena --game doudizhu --agents rule,greedy --games 20 --record ${r.root}/rule-vs-greedy`);
    for (const bad of r.unreadable) $("summary").append(el("div", { class: "note" }, `unreadable: ${bad.file}: ${bad.error}`));
    $("page-info").textContent = r.total ? `${offset + 1}–${Math.min(offset + PAGE, r.total)} of ${r.total}` : "";
    const list = $("list"); list.innerHTML = "";
    if (!r.games.length) return;
    const t = el("table", { id: "records-table" }, el("tr", {}, ["game", "run", "#", "format", "agents", "returns", "score", "moves", ""].map((h) => el("th", {}, h))));
    for (const g of r.games) {
      const b = el("button", { class: "open", "data-run": g.run_id, "data-index": g.game_index }, "replay");
      b.addEventListener("click", () => openGame(g.run_id, g.game_index));
      t.append(el("tr", {}, el("td", {}, g.game), el("td", { class: "small" }, g.run_id), el("td", {}, String(g.game_index)),
        el("td", {}, g.arena_format || ""), el("td", { class: "small" }, (g.agents || []).join(", ")),
        el("td", { class: "small" }, (g.returns || []).join(" / ")), el("td", {}, g.score === null ? "" : String(g.score)),
        el("td", {}, String(g.n_moves)), el("td", {}, b)));
    }
    list.append(t);
  }

  async function openGame(run, index) {
    detail = await api(`/api/records/${run}/${index}`);
    step = 0;
    $("replay").style.display = "block";
    $("replay-title").textContent = `${detail.game} — run ${detail.run_id}, game ${detail.game_index}`;
    $("replay-meta").textContent = `agents: ${(detail.agents || []).join(", ")} · roles: ${(detail.roles || []).join(", ")} · returns: ${(detail.returns || []).join(" / ")}` +
      (detail.deal ? ` · deal ${detail.deal.slice(0, 120)}` : "");
    $("slider").max = String(maxStep());
    const ol = $("moves"); ol.innerHTML = "";
    detail.moves.forEach((m, i) => ol.append(el("li", { "data-step": i + 1 }, `${m.player < 0 ? "chance" : "seat " + m.player}: ${m.text.slice(0, 160)}`)));
    renderStep();
  }

  const maxStep = () => (detail.frames ? detail.frames.length - 1 : detail.moves.length);

  function renderStep() {
    $("slider").value = String(step);
    $("step-info").textContent = `step ${step} of ${maxStep()}`;
    $("step-info").dataset.step = String(step);
    const frame = $("frame"); frame.innerHTML = "";
    if (detail.frames) {
      const f = detail.frames[step];
      frame.append(el("p", {}, f.move === null ? "Deal:" : el("b", {}, `seat ${f.seat} played ${f.move} (${f.label})`)));
      f.hands.forEach((h, s) => frame.append(el("div", { class: "seat-box" + (f.seat === s ? " to-move" : "") }, `seat ${s} (${(detail.roles || [])[s] || ""}): `,
        el("span", { class: "cards" }, h.split("").map((c) => el("span", { class: "card small", title: c === "T" ? "ten" : c }, c))))));
    } else {
      const m = detail.moves[step - 1];
      frame.append(el("p", {}, step === 0 ? "Start of the game." : el("b", {}, `move ${step}: ${m.player < 0 ? "chance" : "seat " + m.player} — ${m.text.slice(0, 300)}`)));
    }
    document.querySelectorAll("#moves li").forEach((li) => {
      const s = Number(li.dataset.step);
      const current = detail.frames ? (detail.frames[step].move_index !== null && s === detail.frames[step].move_index + 1) : s === step;
      li.style.fontWeight = current ? "700" : "400";
      if (current) li.scrollIntoView({ block: "nearest" });
    });
  }

  const go = (k) => { step = Math.max(0, Math.min(maxStep(), k)); renderStep(); };
  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(step - 1));
  $("forward").addEventListener("click", () => go(step + 1));
  $("last").addEventListener("click", () => go(maxStep()));
  $("slider").addEventListener("input", () => go(Number($("slider").value)));
  $("game").addEventListener("change", () => { offset = 0; loadList(); });
  $("prev-page").addEventListener("click", () => { offset = Math.max(0, offset - PAGE); loadList(); });
  $("next-page").addEventListener("click", () => { offset += PAGE; loadList(); });

  (async () => { await loadList(); document.body.dataset.ready = "1"; })();
})();
