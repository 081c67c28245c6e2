// paiju web app: helpers shared by every page (no build step, no framework).
"use strict";
const paiju = (() => {
  const PAGES = [["/", "home"], ["/ddz", "Dou Dizhu"], ["/mahjong", "Mahjong"], ["/yuxi", "yuxi"],
    ["/dih", "Deal selection"], ["/reports", "Reports"], ["/records", "Records"], ["/tournament", "Tournament"]];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function showError(msg) {
    const box = document.getElementById("error");
    if (!box) return;
    if (!msg) { box.style.display = "none"; box.textContent = ""; return; }
    box.textContent = msg; box.style.display = "block";
  }

  // a GET without a body, a POST with one; a refusal's error carries the status and the request
  // field the server names (a form marks it); ``options``: { headers } (the director's token)
  let busy = 0;
  async function api(path, body, options) {
    const { headers } = options || {};
    busy += 1; document.body.dataset.busy = "1";
    try {
      const opts = { method: body === undefined ? "GET" : "POST", headers: { ...(headers || {}) }, credentials: "same-origin" };
      if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
      const res = await fetch(path, opts);
      let data = null;
      try { data = await res.json(); } catch (e) { data = { error: `HTTP ${res.status}` }; }
      if (!res.ok) {
        const err = new Error((data && data.error) || `HTTP ${res.status}`);
        err.status = res.status; err.field = data && data.field; throw err;
      }
      showError(null);
      return data;
    } catch (e) {
      showError(e.message); throw e;
    } finally {
      busy -= 1; if (busy === 0) delete document.body.dataset.busy;
    }
  }

  function nav() {
    const header = document.querySelector("header");
    if (!header) return;
    header.append(el("span", { class: "brand" }, "paiju 牌局"));
    for (const [href, name] of PAGES) {
      header.append(el("a", { href, class: location.pathname === href ? "active" : "" }, name));
    }
  }

  async function fillAgents(kind, selects, preferred) {
    const data = await api(`/api/agents/${kind}`);
    for (const sel of selects) {
      sel.innerHTML = "";
      for (const a of data.agents) {
        sel.append(el("option", { value: a.name, title: a.doc, selected: a.name === preferred }, a.name));
      }
    }
    return data;
  }

  function gameIdFromHash() {
    const id = location.hash.replace(/^#/, "");
    return /^[0-9a-f]{8,64}$/.test(id) ? id : null;
  }

  function seedValue(input) {
    const v = input.value.trim();
    return v === "" ? null : Number(v);
  }

  // on a phone a game in play folds its setup panel away, so the table and the hand fit the
  // screen; its summary line opens it again for a new game
  const PHONE = "(max-width: 640px)";
  let foldedFor = null;
  function foldSetup(gameId) {
    if (gameId === foldedFor) return;  // once per game: a setup opened by hand stays open
    foldedFor = gameId;
    const setup = document.getElementById("setup");
    if (setup && setup.tagName === "DETAILS" && window.matchMedia(PHONE).matches) setup.open = false;
  }

  document.addEventListener("DOMContentLoaded", nav);
  return { el, api, showError, fillAgents, gameIdFromHash, seedValue, foldSetup, PHONE };
})();
