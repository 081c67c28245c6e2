"use strict";
// The Reports page: the analyses users come for, each with its plots shown and its full text
// folded away, and the engineering benchmarks as links (one report per page).
(() => {
  const { el, api } = paiju;
  const SECTIONS = ["ladder", "validation", "balance", "models"];
  const ABSENT = {
    ladder: "No ladder report yet: run benchmarks/ddz_ladder.py (see docs/ddz-agents.md) into a report folder.",
    validation: "No validation results yet: run `paiju dih validate` and put its report in a report folder.",
    balance: "No yuxi balance report yet: run `paiju yuxi balance --out-dir <reports folder>/yuxi-balance`.",
    models: "No learned model results yet: they appear here as each model's evaluation lands.",
    engineering: "No benchmark reports found.",
  };
  const docLink = (item) => `/reports?${new URLSearchParams({ root: item.root, path: item.path })}`;

  function figure(item) {
    return el("figure", { class: "report-item", "data-path": item.path },
      el("a", { href: item.url, target: "_blank", title: "open the full-size image" },
        el("img", { src: item.url, alt: item.title, loading: "lazy" })),
      el("figcaption", { class: "small muted" }, item.title));
  }

  function doc(item) {
    const body = el("div", { class: "md" }); body.innerHTML = item.html;
    return el("details", { class: "report-item", "data-path": item.path },
      el("summary", {}, `${item.title} `, el("span", { class: "muted small" }, `(${item.path})`)), body);
  }

  function showSingle(r, root, path) {
    const all = SECTIONS.concat(["engineering"]).flatMap((s) => r[s]);
    const item = all.find((i) => String(i.root) === root && i.path === path);
    document.getElementById("sections").style.display = "none";
    document.getElementById("toc").style.display = "none";
    const box = document.getElementById("single"); box.style.display = "block";
    const body = box.querySelector(".body");
    if (!item) { body.append(el("p", { class: "muted absent" }, `No report ${path} here.`)); return; }
    document.title = `paiju — ${item.title}`;
    if (item.type === "image") body.append(el("h2", {}, item.title), el("img", { src: item.url, alt: item.title }));
    else { const d = el("div", { class: "md", "data-path": item.path }); d.innerHTML = item.html; body.append(d); }
  }

  (async () => {
    const r = await api("/api/reports");
    document.getElementById("roots").textContent = "Read from: " +
      r.roots.map((p, i) => `${p}${r.present[i] ? "" : " (absent)"}`).join(", ");
    const found = SECTIONS.concat(["engineering"]).reduce((n, s) => n + r[s].length, 0);
    document.getElementById("empty").hidden = found > 0;  // an installed paiju carries no reports
    const q = new URLSearchParams(location.search);
    if (q.has("path")) { showSingle(r, q.get("root") || "0", q.get("path")); document.body.dataset.ready = "1"; return; }
    for (const name of SECTIONS) {
      const section = document.getElementById(name);
      const items = r[name];
      if (!items.length) { section.append(el("p", { class: "muted absent" }, ABSENT[name])); continue; }
      for (const item of items) {
        if (item.type === "image") section.querySelector(".figures").append(figure(item));
        else section.querySelector(".docs").append(doc(item));
      }
    }
    const links = document.querySelector("#engineering .links");
    if (!r.engineering.length) links.after(el("p", { class: "muted absent" }, ABSENT.engineering));
    for (const item of r.engineering) {
      links.append(el("li", {}, el("a", { class: "doc-link", href: item.type === "image" ? item.url : docLink(item),
        "data-path": item.path }, item.title), el("span", { class: "muted small" }, ` (${item.path})`)));
    }
    document.body.dataset.ready = "1";
  })();
})();
