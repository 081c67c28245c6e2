"use strict";
(() => {
  const { el, api } = paiju;
  const $ = (id) => document.getElementById(id);
  const fmt = (x) => Number(x).toFixed(6);
  let pools = [];

  $("dih-value").addEventListener("click", async () => {
    const dists = $("dist").value.split("\n").map((s) => s.trim()).filter(Boolean);
    const body = { dists, players: Number($("v-players").value), rounds: Number($("v-rounds").value), top: Number($("v-top").value) };
    const out = $("value-out"); out.innerHTML = "";
    try {
      const r = await api("/api/dih/value", body);
      out.append(el("p", {}, el("b", {}, "DIH = "), el("span", { id: "dih-result" }, fmt(r.dih)),
        ` (N=${r.players}, M=${r.rounds}, R=${r.top}); mean round score ${r.means.map((m) => m.toFixed(3)).join(", ")}`),
        el("p", { class: "small" }, `P(top ${r.top} each unique, also apart from everyone below) = ${fmt(r.unique_awards)}; the M-round total takes ${r.total_support} values.`));
    } catch (e) { /* banner */ }
  });

  function histogram(h) {
    const max = Math.max(...h.counts, 1);
    const t = el("table", { class: "small" });
    h.counts.forEach((c, i) => t.append(el("tr", {}, el("td", {}, `${h.edges[i].toFixed(4)}–${h.edges[i + 1].toFixed(4)}`),
      el("td", {}, el("span", { class: "bar", style: `width:${Math.round(160 * c / max)}px` }), ` ${c}`))));
    return t;
  }

  function selectionTable(sel, title) {
    const t = el("table", { class: "selection", "data-method": sel.method }, el("tr", {}, el("th", {}, "round"), el("th", {}, "deal"), el("th", {}, "own DIH")));
    for (const d of sel.deals) t.append(el("tr", {}, el("td", {}, String(d.round)), el("td", { class: "small" }, d.deal), el("td", {}, fmt(d.dih))));
    return el("div", {}, el("h3", {}, `${title}: set DIH `, el("span", { class: "set-dih" }, fmt(sel.set_dih))), t);
  }

  $("dih-select").addEventListener("click", async () => {
    const body = { pool: $("pool").value, players: Number($("s-players").value), rounds: Number($("s-rounds").value),
      top: Number($("s-top").value), joint: $("joint").checked };
    if (body.pool === "custom") body.pool_text = $("pool-text").value;
    const out = $("select-out"); out.innerHTML = "";
    try {
      const r = await api("/api/dih/select", body);
      out.append(el("p", {}, `Pool of ${r.pool_size} deals; own DIH from ${fmt(r.pool_dih.min)} to ${fmt(r.pool_dih.max)} (median ${fmt(r.pool_dih.median)}).`));
      out.append(selectionTable(r.paper, "Paper's selection (top M by own DIH)"));
      if (r.joint) out.append(selectionTable(r.joint, "Joint search (ours)"));
      out.append(el("details", {}, el("summary", { class: "small" }, "own DIH of every pool deal (histogram)"), histogram(r.pool_dih.histogram)));
    } catch (e) { /* banner */ }
  });

  function describePool() {
    const p = pools.find((x) => x.name === $("pool").value);
    $("pool-desc").textContent = p ? p.description : "";
    $("custom-box").style.display = $("pool").value === "custom" ? "block" : "none";
  }
  $("pool").addEventListener("change", describePool);

  (async () => {
    pools = (await api("/api/dih/pools")).pools;
    pools.push({ name: "custom", description: "type the deals' score laws below" });
    for (const p of pools) $("pool").append(el("option", { value: p.name }, p.name + (p.size ? ` (${p.size})` : "")));
    describePool();
    const reports = await api("/api/reports");
    const body = $("validation-body"); body.innerHTML = ""; body.classList.remove("muted");
    if (!reports.validation.length) {
      body.append(el("p", { id: "no-validation", class: "muted" },
        `No validation results yet: no file named *validation* (Markdown table or plot) in ${reports.roots.join(" or ")}. ` +
        "Run the DIH validation (simulated tournaments) to produce one."));
    }
    for (const item of reports.validation) {
      if (item.type === "markdown") { const d = el("div", { class: "md" }); d.innerHTML = item.html; body.append(el("h3", {}, item.path), d); }
      else body.append(el("h3", {}, item.path), el("img", { src: item.url, alt: item.path }));
    }
    document.body.dataset.ready = "1";
  })();
})();
