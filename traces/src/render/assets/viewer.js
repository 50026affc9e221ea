// dsim trace viewer. Reads the trace embedded as JSON in #trace-data and draws it; every
// string from the trace goes through textContent (never innerHTML): node names and message
// fields are untrusted.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("trace-data").textContent);
  const records = data.records;
  const steps = Array.from(new Set(records.map(function (r) { return r.step; }))).sort(function (a, b) { return a - b; });
  const rowOf = new Map(steps.map(function (s, i) { return [s, i]; }));
  const nodes = data.nodes.slice();
  for (const r of records) {
    for (const n of [r.node, r.from, r.to]) { if (n != null && nodes.indexOf(n) < 0) nodes.push(n); }
  }
  const state = { cursor: steps.length - 1, node: "", kind: "" };

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }
  function sv(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }
  function clock(ns) {
    const ms = Math.floor(ns / 1e6);
    return Math.floor(ms / 1000) + "." + String(ms % 1000).padStart(3, "0") + "s";
  }
  function involves(r, n) {
    return r.node === n || r.from === n || r.to === n;
  }
  function visible(r) {
    if (r.kind === "violation") return true;
    if (state.node && !involves(r, state.node)) return false;
    if (state.kind && r.what !== state.kind) return false;
    return true;
  }

  // Header, violation banner, filters.
  document.getElementById("title").textContent = data.scenario;
  document.getElementById("meta").textContent =
    data.protocol + " · seed " + data.seed + " · " + nodes.length + " nodes · " + steps.length + " steps";
  const violations = records.filter(function (r) { return r.kind === "violation"; });
  if (violations.length) {
    const v = violations[0];
    const banner = document.getElementById("violation");
    banner.hidden = false;
    banner.textContent = "VIOLATION of " + v.what + " at step " + v.step + " (" + clock(v.time) + "): " +
      (v.fields.message || "") + (violations.length > 1 ? " (+" + (violations.length - 1) + " more)" : "");
    banner.addEventListener("click", function () { go(rowOf.get(v.step)); });
  }
  const nodeSel = document.getElementById("filter-node");
  for (const n of nodes) nodeSel.appendChild(el("option", { value: n }, n));
  const kindSel = document.getElementById("filter-kind");
  const kinds = Array.from(new Set(records.filter(function (r) { return r.what != null && r.kind !== "violation"; })
    .map(function (r) { return r.what; }))).sort();
  for (const k of kinds) kindSel.appendChild(el("option", { value: k }, k));
  nodeSel.addEventListener("change", function () { state.node = nodeSel.value; update(); });
  kindSel.addEventListener("change", function () { state.kind = kindSel.value; update(); });

  // The diagram: lanes as columns, steps as rows.
  const COL = 150, ROW = 22, LEFT = 110, TOP = 6;
  const xOf = function (n) { return LEFT + COL / 2 + nodes.indexOf(n) * COL; };
  const yOf = function (step) { return TOP + rowOf.get(step) * ROW + ROW / 2; };
  const width = LEFT + nodes.length * COL + 20, height = TOP + steps.length * ROW + 10;
  const svg = sv("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, id: "svg" });
  svg.appendChild(sv("defs")).appendChild((function () {
    const m = sv("marker", { id: "arrow", markerWidth: 8, markerHeight: 8, refX: 7, refY: 4, orient: "auto" });
    m.appendChild(sv("path", { d: "M0,0 L8,4 L0,8 z", fill: "#1f5fa8" }));
    return m;
  })());
  const violationSteps = new Set(violations.map(function (v) { return v.step; }));
  const bands = steps.map(function (s, i) {
    const g = sv("g", { "data-step": s });
    const band = sv("rect", { x: 0, y: TOP + i * ROW, width: width, height: ROW, class: "row-band" + (violationSteps.has(s) ? " violation" : "") });
    const first = records.find(function (r) { return r.step === s; });
    const label = sv("text", { x: 6, y: TOP + i * ROW + 15, class: "time" }, "#" + s + "  " + clock(first.time));
    g.appendChild(band); g.appendChild(label);
    g.addEventListener("click", function () { go(i); });
    svg.appendChild(g);
    return band;
  });
  // Lane names stay in view while the rows scroll.
  const head = sv("svg", { width: width, height: 26, id: "lane-names" });
  nodes.forEach(function (n) {
    const x = xOf(n);
    svg.appendChild(sv("line", { x1: x, y1: 0, x2: x, y2: height, class: "lane" }));
    head.appendChild(sv("text", { x: x, y: 18, "text-anchor": "middle", class: "lane-name" }, n));
  });
  const drawn = []; // { g, step (when it is complete), from (first step), record }
  const sends = new Map();
  const delivered = new Set();
  records.forEach(function (r) {
    if (r.kind === "send") { sends.set(r.id, r); return; }
    if (r.kind === "deliver" || r.kind === "drop") {
      const s = sends.get(r.id) || r;
      const dup = r.kind === "deliver" && delivered.has(r.id);
      if (r.kind === "deliver") delivered.add(r.id);
      const cls = r.kind === "drop" ? "msg lost" : dup ? "msg dup" : "msg";
      const g = sv("g", { class: cls, "data-step": r.step, "data-from": r.from, "data-to": r.to });
      const x1 = xOf(r.from), y1 = yOf(s.step), x2 = xOf(r.to), y2 = yOf(r.step);
      const label = r.what + (r.kind === "drop" ? " LOST" : dup ? " (copy)" : "");
      if (r.kind === "drop") {
        const xm = x1 + (x2 - x1) * 0.6, ym = y1 + (y2 - y1) * 0.6;
        g.appendChild(sv("line", { x1: x1, y1: y1, x2: xm, y2: ym }));
        g.appendChild(sv("text", { x: xm, y: ym + 4, "text-anchor": "middle", class: "cross", "font-size": 14 }, "✕"));
        g.appendChild(sv("text", { x: xm + (x2 > x1 ? 8 : -8), y: ym - 6, "text-anchor": x2 > x1 ? "start" : "end" }, label));
      } else {
        g.appendChild(sv("line", { x1: x1, y1: y1, x2: x2 + (x2 > x1 ? -4 : 4), y2: y2, "marker-end": "url(#arrow)" }));
        g.appendChild(sv("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 3, "text-anchor": "middle" }, label));
      }
      g.addEventListener("click", function (e) { e.stopPropagation(); go(rowOf.get(r.step)); });
      svg.appendChild(g);
      drawn.push({ g: g, step: r.step, record: r });
      return;
    }
    if (r.kind === "note" || r.kind === "fault" || r.kind === "start" || r.kind === "command" || r.kind === "duplicate") {
      const n = r.kind === "duplicate" ? r.from : (r.node || r.fault_node);
      if (n == null) return;
      const milestone = r.kind === "note" && /Chosen|Adopted|Leader|Elected|Decided/.test(r.what || "");
      const cls = "ev " + r.kind + (milestone ? " milestone" : "");
      const g = sv("g", { class: cls, "data-step": r.step });
      const x = xOf(n), y = yOf(r.step);
      g.appendChild(sv("circle", { cx: x, cy: y, r: r.kind === "note" ? 3 : 4 }));
      if (milestone || r.kind === "fault" || r.kind === "duplicate") {
        const text = r.kind === "fault" ? String(r.what).toUpperCase() : r.kind === "duplicate" ? r.what + " DUPLICATED" : (r.story || r.what);
        g.appendChild(sv("text", { x: x + 6, y: y + 4 }, text));
      }
      g.addEventListener("click", function (e) { e.stopPropagation(); go(rowOf.get(r.step)); });
      svg.appendChild(g);
      drawn.push({ g: g, step: r.step, record: r });
    }
  });
  const sticky = el("div", { id: "lanes" });
  sticky.appendChild(head);
  document.getElementById("diagram").appendChild(sticky);
  document.getElementById("diagram").appendChild(svg);

  // The panel: the step's records with their fields, and each node's notes so far.
  function fieldRows(table, value, prefix) {
    if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      if (keys.length === 0) table.appendChild(row(prefix || "(none)", Array.isArray(value) ? "[]" : "{}"));
      for (const k of keys) fieldRows(table, value[k], prefix ? prefix + "." + k : k);
    } else {
      table.appendChild(row(prefix, value === null ? "none" : String(value)));
    }
  }
  function row(k, v) {
    const tr = el("tr");
    tr.appendChild(el("td", {}, k));
    tr.appendChild(el("td", {}, v));
    return tr;
  }
  function details(step) {
    const box = document.getElementById("details");
    box.replaceChildren();
    const recs = records.filter(function (r) { return r.step === step && visible(r); });
    document.getElementById("details-title").textContent =
      "Step " + step + " at " + clock(recs.length ? recs[0].time : 0) + ": " + recs.length + " record" + (recs.length === 1 ? "" : "s");
    for (const r of recs) {
      const d = el("div", { class: "rec " + r.kind });
      d.appendChild(el("div", { class: "story" }, r.story || (r.kind + (r.what ? " " + r.what : ""))));
      const t = el("table");
      t.appendChild(row("kind", r.kind));
      const payload = r.kind === "deliver" || r.kind === "drop" || r.kind === "duplicate"
        ? Object.assign({}, r.fields, sends.has(r.id) ? { msg: sends.get(r.id).fields.msg } : {})
        : r.fields;
      fieldRows(t, payload, "");
      d.appendChild(t);
      box.appendChild(d);
    }
    const notes = document.getElementById("notes");
    notes.replaceChildren();
    for (const n of nodes) {
      if (state.node && n !== state.node) continue;
      const mine = records.filter(function (r) { return r.kind === "note" && r.node === n && r.step <= step; });
      const sec = el("div", { class: "node-notes", "data-node": n });
      sec.appendChild(el("h3", {}, n + " (" + mine.length + ")"));
      const ul = el("ul");
      for (const r of mine) ul.appendChild(el("li", {}, "#" + r.step + " " + (r.story || r.what)));
      sec.appendChild(ul);
      notes.appendChild(sec);
    }
  }
  function story(step) {
    const ol = document.getElementById("story");
    ol.replaceChildren();
    for (const r of records) {
      if (r.step > step || !r.story || !visible(r)) continue;
      ol.appendChild(el("li", { class: r.kind === "drop" ? "lost" : r.kind }, clock(r.time) + "  #" + r.step + "  " + r.story));
    }
  }

  function update() {
    const step = steps[state.cursor];
    document.getElementById("current-step").textContent =
      "step " + step + " of " + steps[steps.length - 1] + " · " + clock(records.find(function (r) { return r.step === step; }).time);
    document.body.setAttribute("data-step", step);
    bands.forEach(function (b, i) { b.classList.toggle("current", i === state.cursor); });
    for (const d of drawn) {
      d.g.classList.toggle("future", d.step > step);
      d.g.classList.toggle("hidden", !visible(d.record));
    }
    details(step);
    story(step);
  }
  function go(i) {
    if (i == null || steps.length === 0) return;
    state.cursor = Math.max(0, Math.min(steps.length - 1, i));
    update();
    const b = bands[state.cursor];
    if (b && b.scrollIntoView) b.scrollIntoView({ block: "nearest" });
  }
  function fromHash() {
    const m = /step=(\d+)/.exec(location.hash);
    if (!m) return false;
    const want = Number(m[1]);
    let i = 0;
    while (i + 1 < steps.length && steps[i + 1] <= want) i++;
    go(i);
    return true;
  }
  document.getElementById("first").addEventListener("click", function () { go(0); });
  document.getElementById("prev").addEventListener("click", function () { go(state.cursor - 1); });
  document.getElementById("next").addEventListener("click", function () { go(state.cursor + 1); });
  document.getElementById("last").addEventListener("click", function () { go(steps.length - 1); });
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") go(state.cursor + 1);
    else if (e.key === "ArrowLeft") go(state.cursor - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(steps.length - 1);
    else return;
    e.preventDefault();
  });
  // Where the lesson starts: the first message lost or the first fault (a crash, a pause, a
  // partition; installing a rule or a link law is not one yet), else the first step. A
  // #step=N link wins.
  const SETUP = ["rule", "clear_rules", "link"];
  function openingStep() {
    const first = records.find(function (r) {
      return r.kind === "drop" || (r.kind === "fault" && SETUP.indexOf(r.what) < 0);
    });
    return first ? rowOf.get(first.step) : 0;
  }
  window.addEventListener("hashchange", fromHash);
  if (steps.length && !fromHash()) go(openingStep());
})();
