// dsim trace viewer. Reads the trace embedded as JSON in #trace-data (the compact form
// `traces/src/render/html.rs` writes) and draws it as a sequence diagram: one lane per node, one
// row per kernel step. Every string from the trace goes through textContent (never innerHTML):
// node names and message fields are untrusted.
//
// A long run has tens of thousands of rows, so the page lays out every row once (heights,
// label positions) but keeps in the DOM only the rows near the viewport, the last lines of the
// story and the last notes of each node: the number of elements stays bounded however long the
// run.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("trace-data").textContent);

  // ---- Interface words, in the language the page was made in (`dsim view --lang es`).
  const WORDS = {
    en: {
      first: "\u00AB first", prev: "\u25C0 back", next: "forward \u25B6", last: "last \u00BB",
      firstTip: "first step (Home)", prevTip: "step back (\u2190)", nextTip: "step forward (\u2192)", lastTip: "last step (End)",
      node: "node", allNodes: "all nodes", kind: "kind", allKinds: "all kinds",
      delivered: "\u2192 delivered", lost: "\u2715 lost", duplicated: "\u21C9 duplicated", faded: "later steps faded",
      down: "down", paused: "paused",
      notesTitle: "Each node's notes up to this step", storyTitle: "Story up to this step",
      historyTitle: "Clients' history: each operation a bar from its call to its return", pending: "never returned",
      seed: "seed", nodes: "nodes", steps: "steps",
      stepOf: function (s, n) { return "step " + s + " of " + n; },
      stepAt: function (s, t, k) { return "Step " + s + " at " + t + ": " + k + (k === 1 ? " record" : " records"); },
      violation: function (what, s, t) { return "VIOLATION of " + what + " at step " + s + " (" + t + "): "; },
      more: function (k) { return " (+" + k + " more)"; },
      earlier: function (k) { return k + " earlier lines"; },
      earlierNotes: function (k) { return k + " earlier notes"; },
      lostWord: "LOST", copy: "(copy)", dupWord: "DUPLICATED",
      starts: function (n) { return n + " starts"; },
      sends: function (f, t, m) { return f + " sends " + m + " to " + t; },
      receives: function (f, t, m) { return t + " receives " + m + " from " + f; },
      drops: function (f, t, m) { return f + ": " + m + " to " + t + " LOST"; },
      timer: function (n, w) { return n + ": timer " + w + " fires"; },
      message: "message", reason: "reason", none: "none", invariant: "invariant",
    },
    es: {
      first: "\u00AB primero", prev: "\u25C0 atr\u00E1s", next: "adelante \u25B6", last: "\u00FAltimo \u00BB",
      firstTip: "primer paso (Inicio)", prevTip: "paso atr\u00E1s (\u2190)", nextTip: "paso adelante (\u2192)", lastTip: "\u00FAltimo paso (Fin)",
      node: "nodo", allNodes: "todos los nodos", kind: "tipo", allKinds: "todos los tipos",
      delivered: "\u2192 entregado", lost: "\u2715 perdido", duplicated: "\u21C9 duplicado", faded: "pasos posteriores atenuados",
      down: "ca\u00EDdo", paused: "parado",
      notesTitle: "Notas de cada nodo hasta este paso", storyTitle: "Historia hasta este paso",
      historyTitle: "Historia de los clientes: cada operaci\u00F3n, una barra de su llamada a su respuesta", pending: "sin respuesta",
      seed: "semilla", nodes: "nodos", steps: "pasos",
      stepOf: function (s, n) { return "paso " + s + " de " + n; },
      stepAt: function (s, t, k) { return "Paso " + s + " a los " + t + ": " + k + (k === 1 ? " registro" : " registros"); },
      violation: function (what, s, t) { return "VIOLACI\u00D3N de " + what + " en el paso " + s + " (" + t + "): "; },
      more: function (k) { return " (+" + k + " m\u00E1s)"; },
      earlier: function (k) { return k + " l\u00EDneas anteriores"; },
      earlierNotes: function (k) { return k + " notas anteriores"; },
      lostWord: "PERDIDO", copy: "(copia)", dupWord: "DUPLICADO",
      starts: function (n) { return n + " arranca"; },
      sends: function (f, t, m) { return f + " env\u00EDa " + m + " a " + t; },
      receives: function (f, t, m) { return t + " recibe " + m + " de " + f; },
      drops: function (f, t, m) { return f + ": " + m + " a " + t + " PERDIDO"; },
      timer: function (n, w) { return n + ": vence el timer " + w; },
      message: "mensaje", reason: "motivo", none: "ninguno", invariant: "invariante",
    },
  };
  const W = WORDS[data.lang] || WORDS.en;

  // ---- The records, decoded from the compact rows (see html.rs: `data`).
  const text = function (i) { return i ? data.strings[i - 1] : null; };
  const records = [];
  {
    let step = 0, time = 0;
    data.records.forEach(function (row, i) {
      step += row[0]; time += row[1];
      records.push({
        i: i, step: step, time: time, kind: data.kinds[row[2]] || "?",
        node: text(row[3]), from: text(row[4]), to: text(row[5]),
        id: row[6] ? row[6] - 1 : null, what: text(row[7]), story: text(row[8]),
        fields: row[9] ? data.payloads[row[9] - 1] : {}, key: row[10] === 1,
      });
    });
  }
  const steps = [];
  const firstOfRow = []; // the index of each row's first record
  records.forEach(function (r, i) {
    if (!steps.length || steps[steps.length - 1] !== r.step) { steps.push(r.step); firstOfRow.push(i); }
    r.row = steps.length - 1;
  });
  firstOfRow.push(records.length);
  const rowOf = new Map(steps.map(function (s, i) { return [s, i]; }));
  const nodes = data.nodes.slice();
  for (const r of records) {
    for (const n of [r.node, r.from, r.to]) { if (n != null && nodes.indexOf(n) < 0) nodes.push(n); }
  }
  const laneOf = new Map(nodes.map(function (n, i) { return [n, i]; }));
  const sends = new Map();
  for (const r of records) if (r.kind === "send") sends.set(r.id, r);
  const state = { cursor: 0, node: "", kind: "" };

  function el(tag, attrs, content) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (content != null) e.textContent = content;
    return e;
  }
  function sv(tag, attrs, content) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (content != null) e.textContent = content;
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
  // A value as the scenario file would write it: `Tag(a: 1)`, `(version: 1, value: "x")`.
  function compact(v) {
    if (v === null) return W.none;
    if (Array.isArray(v)) return "[" + v.map(compact).join(", ") + "]";
    if (typeof v === "object") {
      const keys = Object.keys(v);
      if (keys.length === 1 && /^[A-Z]/.test(keys[0])) {
        const inner = v[keys[0]];
        const body = Array.isArray(inner) ? inner.map(compact).join(", ")
          : inner !== null && typeof inner === "object" ? pairs(inner) : compact(inner);
        return keys[0] + "(" + body + ")";
      }
      return "(" + pairs(v) + ")";
    }
    if (typeof v === "string") return JSON.stringify(v);
    return String(v);
  }
  function pairs(o) {
    return Object.keys(o).map(function (k) { return k + ": " + compact(o[k]); }).join(", ");
  }
  // What a record says in words when the protocol told nothing about it.
  function said(r) {
    if (r.story) return r.story;
    switch (r.kind) {
      case "start": return W.starts(r.node);
      case "send": return W.sends(r.from, r.to, r.what);
      case "deliver": return W.receives(r.from, r.to, r.what);
      case "drop": return W.drops(r.from, r.to, r.what);
      case "timer": return W.timer(r.node, r.what);
      default: return (r.node ? r.node + ": " : "") + (r.what || r.kind);
    }
  }

  // ---- The static words of the page.
  const setText = function (id, t) { const e = document.getElementById(id); if (e) e.textContent = t; };
  for (const b of ["first", "prev", "next", "last"]) {
    setText(b, W[b]);
    document.getElementById(b).title = W[b + "Tip"];
  }
  for (const id of ["node", "kind", "delivered", "lost", "duplicated", "faded", "down", "paused", "notesTitle", "storyTitle", "historyTitle"]) {
    setText("w-" + id, W[id]);
  }
  setText("all-nodes", W.allNodes);
  setText("all-kinds", W.allKinds);
  document.getElementById("title").textContent = data.scenario;
  document.getElementById("meta").textContent = data.protocol + " \u00B7 " + W.seed + " " + data.seed + " \u00B7 " +
    nodes.length + " " + W.nodes + " \u00B7 " + steps.length + " " + W.steps;
  const violations = records.filter(function (r) { return r.kind === "violation"; });
  if (violations.length) {
    const v = violations[0];
    const banner = document.getElementById("violation");
    banner.hidden = false;
    banner.textContent = W.violation(v.what, v.step, clock(v.time)) + (v.fields.message || "") +
      (violations.length > 1 ? W.more(violations.length - 1) : "");
    banner.addEventListener("click", function () { go(v.row); });
  }
  const nodeSel = document.getElementById("filter-node");
  for (const n of nodes) nodeSel.appendChild(el("option", { value: n }, n));
  const kindSel = document.getElementById("filter-kind");
  const kinds = Array.from(new Set(records.filter(function (r) { return r.what != null && r.kind !== "violation"; })
    .map(function (r) { return r.what; }))).sort();
  for (const k of kinds) kindSel.appendChild(el("option", { value: k }, k));
  nodeSel.addEventListener("change", function () { state.node = nodeSel.value; retell(); update(); });
  kindSel.addEventListener("change", function () { state.kind = kindSel.value; retell(); update(); });

  // ---- Layout, once for the whole run: row heights, what each row draws, where labels go.
  const COL = 150, ROW = 22, LEFT = 110, TOP = 6, LINE = 13, HEAD = 26;
  const FONT = "11px system-ui, sans-serif", BOLD = "bold " + FONT;
  const xOf = function (n) { return LEFT + COL / 2 + laneOf.get(n) * COL; };
  const width = LEFT + nodes.length * COL + COL / 2; // room for the last lane's labels
  const measure = (function () {
    const ctx = document.createElement("canvas").getContext("2d");
    const cache = new Map();
    return function (t, font) {
      const k = font + "\u0000" + t;
      let w = cache.get(k);
      if (w == null) {
        if (ctx) { ctx.font = font; w = ctx.measureText(t).width; } else { w = t.length * 7; }
        cache.set(k, w);
      }
      return w;
    };
  })();
  // Lines of at most `max` pixels, broken at spaces (or inside a word too long for one line).
  function wrap(t, max, font) {
    const lines = [];
    let line = "";
    for (const word of t.split(" ")) {
      const next = line ? line + " " + word : word;
      if (measure(next, font) <= max) { line = next; continue; }
      if (line) lines.push(line);
      line = word;
      while (measure(line, font) > max && line.length > 1) {
        let cut = line.length - 1;
        while (cut > 1 && measure(line.slice(0, cut), font) > max) cut--;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    }
    if (line) lines.push(line);
    return lines;
  }
  const labelled = function (r) {
    return r.kind === "fault" || r.kind === "duplicate" || r.kind === "violation" || (r.key && r.story != null);
  };
  // Events: a dot on a lane, and for the lesson's events a wrapped label beside it.
  const events = [];
  const stack = new Map(); // row + lane -> lines used so far in that cell
  const rowLines = new Array(steps.length).fill(1);
  for (const r of records) {
    if (!(r.kind === "note" || r.kind === "fault" || r.kind === "start" || r.kind === "command" || r.kind === "duplicate")) continue;
    if (r.kind === "note" && r.story == null) continue; // a protocol's internal note
    const n = r.kind === "duplicate" ? r.from : r.node;
    if (n == null || !laneOf.has(n)) continue;
    const e = { r: r, lane: n, row: r.row, row2: r.row, lines: [], line0: 0 };
    if (labelled(r)) {
      const t = r.kind === "duplicate" ? r.what + " " + W.dupWord : said(r);
      const font = r.key || r.kind === "fault" ? BOLD : FONT;
      e.lines = wrap(t, COL - 16, font);
      e.font = font;
      const cell = r.row + "/" + n;
      e.line0 = stack.get(cell) || 0;
      stack.set(cell, e.line0 + e.lines.length);
      rowLines[r.row] = Math.max(rowLines[r.row], e.line0 + e.lines.length);
    }
    events.push(e);
  }
  // A message lost on the row it was sent on slants down to its receiver's lane, the k-th such
  // on a row one line lower than the one before, so that two lost on one row (to different
  // receivers) end apart: the row grows a line for each.
  const SLANT = LINE, slant = new Map(), lostOnRow = new Map();
  for (const r of records) {
    if (r.kind !== "drop") continue;
    const s = sends.get(r.id);
    if (!s || s.row !== r.row) continue;
    const k = (lostOnRow.get(r.row) || 0) + 1;
    lostOnRow.set(r.row, k);
    slant.set(r.i, k * SLANT);
    rowLines[r.row] = Math.max(rowLines[r.row], k + 1);
  }
  const rowTop = new Array(steps.length + 1);
  rowTop[0] = TOP;
  for (let i = 0; i < steps.length; i++) rowTop[i + 1] = rowTop[i] + ROW + (rowLines[i] - 1) * LINE;
  const height = rowTop[steps.length] + 10;
  const yMid = function (row) { return rowTop[row] + ROW / 2; };
  // Every label's box, for placing message labels where nothing else is written.
  const GRID = 64, boxes = new Map();
  function cells(b, fn) {
    for (let cx = Math.floor(b.x / GRID); cx <= Math.floor((b.x + b.w) / GRID); cx++) {
      for (let cy = Math.floor(b.y / GRID); cy <= Math.floor((b.y + b.h) / GRID); cy++) {
        if (fn(cx + "," + cy) === false) return false;
      }
    }
    return true;
  }
  function free(b) {
    return cells(b, function (k) {
      const list = boxes.get(k);
      if (!list) return true;
      for (const o of list) {
        if (b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h) return false;
      }
      return true;
    });
  }
  function claim(b) {
    cells(b, function (k) { let list = boxes.get(k); if (!list) boxes.set(k, list = []); list.push(b); });
  }
  for (const e of events) {
    if (!e.lines.length) continue;
    const x = xOf(e.lane) + 6, y = rowTop[e.row] + 4 + e.line0 * LINE;
    let w = 0;
    for (const l of e.lines) w = Math.max(w, measure(l, e.font));
    claim({ x: x - 1, y: y - 1, w: w + 2, h: e.lines.length * LINE + 3 });
  }
  // Messages: an arrow from the send's row to the delivery's; a lost one ends in a cross at
  // its receiver's lane, on the row where it was lost.
  const messages = [];
  const delivered = new Set();
  // Where a label may go: a point along its arrow (from the middle out), above it or below.
  const PLACES = [];
  for (const t of [0.5, 0.35, 0.65, 0.2, 0.8, 0.42, 0.58, 0.28, 0.72, 0.12, 0.88]) PLACES.push([t, -3]);
  for (const t of [0.5, 0.35, 0.65, 0.2, 0.8]) PLACES.push([t, 11]);
  for (const r of records) {
    if (r.kind !== "deliver" && r.kind !== "drop") continue;
    if (!laneOf.has(r.from) || !laneOf.has(r.to)) continue;
    const s = sends.get(r.id) || r;
    const dup = r.kind === "deliver" && delivered.has(r.id);
    if (r.kind === "deliver") delivered.add(r.id);
    const m = { r: r, send: s, row: s.row, row2: r.row, dup: dup, lost: r.kind === "drop" };
    m.x1 = xOf(r.from); m.y1 = yMid(s.row); m.x2 = xOf(r.to); m.y2 = yMid(r.row);
    if (slant.has(r.i)) m.y2 += slant.get(r.i);
    m.label = r.what + (m.lost ? " " + W.lostWord : dup ? " " + W.copy : "");
    const w = measure(m.label, FONT) + 4, h = 15;
    for (const c of PLACES) {
      const t = c[0];
      const px = m.x1 === m.x2 ? m.x1 + 34 + w / 2 : m.x1 + (m.x2 - m.x1) * t;
      const py = m.y1 + (m.y2 - m.y1) * t + c[1];
      const b = { x: px - w / 2, y: py - 11, w: w, h: h };
      if (free(b)) { claim(b); m.lx = px; m.ly = py; break; }
    }
    messages.push(m);
  }
  // Down (crash to restart) and paused (pause to resume) spans of each lane.
  const spans = [];
  {
    const open = new Map();
    for (const r of records) {
      if (r.kind !== "fault" || r.node == null || !laneOf.has(r.node)) continue;
      const k = r.what;
      if (k === "crash" || k === "pause") {
        if (!open.has(r.node)) open.set(r.node, { lane: r.node, row: r.row, cls: k === "crash" ? "down" : "paused" });
      } else if (k === "restart" || k === "resume") {
        const s = open.get(r.node);
        if (s) { s.row2 = r.row; spans.push(s); open.delete(r.node); }
      }
    }
    for (const s of open.values()) { s.row2 = steps.length - 1; s.open = true; spans.push(s); }
  }
  // Which items each block of rows draws: an item is listed in every block it crosses.
  const BLOCK = 32;
  const blocks = [];
  const items = [];
  function index(item, kind) {
    item.type = kind;
    const at = items.push(item) - 1;
    const a = Math.min(item.row, item.row2), b = Math.max(item.row, item.row2);
    for (let k = Math.floor(a / BLOCK); k <= Math.floor(b / BLOCK); k++) (blocks[k] = blocks[k] || []).push(at);
  }
  spans.forEach(function (s) { index(s, "span"); });
  messages.forEach(function (m) { index(m, "msg"); });
  events.forEach(function (e) { index(e, "ev"); });

  // ---- Drawing the rows in view.
  const violationSteps = new Set(violations.map(function (v) { return v.step; }));
  const svg = sv("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, id: "svg" });
  svg.appendChild(sv("defs")).appendChild((function () {
    const mk = sv("marker", { id: "arrow", markerWidth: 8, markerHeight: 8, refX: 7, refY: 4, orient: "auto" });
    mk.appendChild(sv("path", { d: "M0,0 L8,4 L0,8 z", fill: "#1f5fa8" }));
    return mk;
  })());
  const head = sv("svg", { width: width, height: HEAD, id: "lane-names" });
  nodes.forEach(function (n) {
    const x = xOf(n);
    svg.appendChild(sv("line", { x1: x, y1: 0, x2: x, y2: height, class: "lane" }));
    head.appendChild(sv("text", { x: x, y: 18, "text-anchor": "middle", class: "lane-name" }, n));
  });
  const layer = sv("g", { id: "rows" });
  svg.appendChild(layer);
  const diagram = document.getElementById("diagram");
  const sticky = el("div", { id: "lanes" });
  sticky.appendChild(head);
  diagram.appendChild(sticky);
  diagram.appendChild(svg);

  function rowAt(y) {
    let lo = 0, hi = steps.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (rowTop[mid] <= y) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
  function onClick(g, row) {
    g.addEventListener("click", function (ev) { ev.stopPropagation(); go(row); });
  }
  function drawBand(i) {
    const s = steps[i];
    const g = sv("g", { "data-step": s });
    const cls = "row-band" + (violationSteps.has(s) ? " violation" : "") + (i === state.cursor ? " current" : "");
    g.appendChild(sv("rect", { x: 0, y: rowTop[i], width: width, height: rowTop[i + 1] - rowTop[i], class: cls }));
    g.appendChild(sv("text", { x: 6, y: rowTop[i] + 15, class: "time" }, "#" + s + "  " + clock(records[firstOfRow[i]].time)));
    onClick(g, i);
    return g;
  }
  function classes(base, r, row) {
    return base + (steps[row] > steps[state.cursor] ? " future" : "") + (visible(r) ? "" : " hidden");
  }
  function drawSpan(s) {
    const x = xOf(s.lane);
    const g = sv("g", { class: "span " + s.cls, "data-node": s.lane });
    const y1 = rowTop[s.row] + ROW / 2, y2 = s.open ? height : rowTop[s.row2] + ROW / 2;
    g.appendChild(sv("rect", { x: x - 9, y: y1, width: 18, height: Math.max(2, y2 - y1), rx: 3 }));
    g.appendChild(sv("title", {}, s.lane + ": " + W[s.cls]));
    return g;
  }
  function drawMessage(m) {
    const cls = m.lost ? "msg lost" : m.dup ? "msg dup" : "msg";
    const g = sv("g", { class: classes(cls, m.r, m.row2), "data-step": m.r.step, "data-from": m.r.from, "data-to": m.r.to });
    g.appendChild(sv("title", {}, said(m.r)));
    const { x1, y1, x2, y2 } = m;
    if (x1 === x2) {
      g.appendChild(sv("path", { d: "M" + x1 + "," + y1 + " C" + (x1 + 30) + "," + y1 + " " + (x1 + 30) + "," + y2 + " " + x2 + "," + y2, fill: "none" }));
    } else if (m.lost) {
      const back = x2 > x1 ? -6 : 6;
      g.appendChild(sv("line", { x1: x1, y1: y1, x2: x2 + back, y2: y2 }));
      g.appendChild(sv("text", { x: x2, y: y2 + 5, "text-anchor": "middle", class: "cross" }, "\u2715"));
    } else {
      g.appendChild(sv("line", { x1: x1, y1: y1, x2: x2 + (x2 > x1 ? -4 : 4), y2: y2, "marker-end": "url(#arrow)" }));
    }
    if (m.lx != null) g.appendChild(sv("text", { x: m.lx, y: m.ly, "text-anchor": "middle", class: "label" }, m.label));
    onClick(g, m.row2);
    return g;
  }
  function drawEvent(e) {
    const r = e.r;
    const g = sv("g", { class: classes("ev " + r.kind + (r.key ? " key" : ""), r, e.row), "data-step": r.step });
    const x = xOf(e.lane);
    g.appendChild(sv("circle", { cx: x, cy: yMid(e.row), r: r.kind === "note" ? 3 : 4 }));
    if (e.lines.length) {
      const t = sv("text", { x: x + 6, y: rowTop[e.row] + 15 + e.line0 * LINE, class: "label" });
      e.lines.forEach(function (l, k) { t.appendChild(sv("tspan", { x: x + 6, dy: k ? LINE : 0 }, l)); });
      g.appendChild(t);
    } else {
      g.appendChild(sv("title", {}, said(r)));
    }
    onClick(g, e.row);
    return g;
  }
  const BUFFER = 40;
  let drawnRange = "";
  function render(force) {
    if (!steps.length) return;
    const top = Math.max(0, diagram.scrollTop - HEAD);
    const a = Math.max(0, rowAt(top) - BUFFER);
    const b = Math.min(steps.length - 1, rowAt(top + (diagram.clientHeight || 600)) + BUFFER);
    const range = a + ":" + b;
    if (!force && range === drawnRange) return;
    drawnRange = range;
    const out = document.createDocumentFragment();
    for (let i = a; i <= b; i++) out.appendChild(drawBand(i));
    const seen = new Set();
    const later = [];
    for (let k = Math.floor(a / BLOCK); k <= Math.floor(b / BLOCK); k++) {
      for (const at of blocks[k] || []) {
        if (seen.has(at)) continue;
        seen.add(at);
        const it = items[at];
        if (Math.max(it.row, it.row2) < a || Math.min(it.row, it.row2) > b) continue;
        if (it.type === "span") out.appendChild(drawSpan(it));
        else later.push(at);
      }
    }
    later.sort(function (x, y) { return x - y; });
    for (const at of later) {
      const it = items[at];
      out.appendChild(it.type === "msg" ? drawMessage(it) : drawEvent(it));
    }
    layer.replaceChildren(out);
  }
  diagram.addEventListener("scroll", function () { render(false); });

  // ---- The panel: the step in words, with each message's fields by name; each node's notes.
  function row(k, v) {
    const tr = el("tr");
    tr.appendChild(el("td", {}, k));
    tr.appendChild(el("td", {}, v));
    return tr;
  }
  function messageTable(r) {
    const t = el("table");
    const send = sends.get(r.id);
    const msg = send && send.fields.msg;
    const kind = el("div", { class: "msg-kind" }, r.what + ": " + r.from + " \u2192 " + r.to);
    if (msg !== null && typeof msg === "object" && !Array.isArray(msg)) {
      const tag = Object.keys(msg)[0];
      const body = msg[tag];
      if (body !== null && typeof body === "object" && !Array.isArray(body)) {
        for (const k of Object.keys(body)) t.appendChild(row(k, compact(body[k])));
      } else if (Array.isArray(body)) {
        body.forEach(function (v, i) { t.appendChild(row(String(i + 1), compact(v))); });
      } else {
        t.appendChild(row(W.message, compact(body)));
      }
    }
    if (r.kind === "drop" && r.fields.reason) t.appendChild(row(W.reason, String(r.fields.reason)));
    return [kind, t];
  }
  function details(i) {
    const box = document.getElementById("details");
    box.replaceChildren();
    const recs = [];
    for (let k = firstOfRow[i]; k < firstOfRow[i + 1]; k++) {
      const r = records[k];
      if (!visible(r) || (r.kind === "note" && r.story == null)) continue;
      recs.push(r);
    }
    document.getElementById("details-title").textContent =
      W.stepAt(steps[i], clock(records[firstOfRow[i]].time), recs.length);
    for (const r of recs) {
      const d = el("div", { class: "rec " + r.kind + (r.key ? " key" : "") });
      d.appendChild(el("div", { class: "story" }, said(r)));
      if (r.id != null) {
        for (const part of messageTable(r)) d.appendChild(part);
      } else if (r.kind === "violation") {
        const t = el("table");
        t.appendChild(row(W.invariant, String(r.what)));
        t.appendChild(row(W.message, String(r.fields.message || "")));
        d.appendChild(t);
      }
      box.appendChild(d);
    }
  }
  // The notes and story lines before a step are found by binary search in per-node and
  // per-filter index lists, so stepping through a long run costs the same at every step.
  const NOTES = 30, LINES = 200;
  function before(list, end) { // how many of the sorted indices in `list` are below `end`
    let lo = 0, hi = list.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (list[mid] < end) lo = mid + 1; else hi = mid; }
    return lo;
  }
  const notesOf = new Map(nodes.map(function (n) { return [n, []]; }));
  records.forEach(function (r, k) { if (r.kind === "note" && r.story != null && notesOf.has(r.node)) notesOf.get(r.node).push(k); });
  let told = [];
  function retell() { // the story's lines under the current filters
    told = [];
    records.forEach(function (r, k) { if (r.story && visible(r)) told.push(k); });
  }
  retell();
  function notes(i) {
    const box = document.getElementById("notes");
    box.replaceChildren();
    const end = firstOfRow[i + 1];
    for (const n of nodes) {
      if (state.node && n !== state.node) continue;
      const list = notesOf.get(n);
      const count = before(list, end);
      const sec = el("div", { class: "node-notes", "data-node": n });
      sec.appendChild(el("h3", {}, n + " (" + count + ")"));
      const ul = el("ul");
      const from = Math.max(0, count - NOTES);
      if (from > 0) ul.appendChild(el("li", { class: "earlier" }, W.earlierNotes(from)));
      for (let k = from; k < count; k++) {
        const r = records[list[k]];
        ul.appendChild(el("li", { class: r.key ? "key" : "" }, "#" + r.step + " " + r.story));
      }
      sec.appendChild(ul);
      box.appendChild(sec);
    }
  }
  function story(i) {
    const ol = document.getElementById("story");
    ol.replaceChildren();
    const count = before(told, firstOfRow[i + 1]);
    const from = Math.max(0, count - LINES);
    if (from > 0) ol.appendChild(el("li", { class: "earlier" }, W.earlier(from)));
    for (let k = from; k < count; k++) {
      const r = records[told[k]];
      const cls = (r.kind === "drop" ? "lost" : r.kind) + (r.key ? " key" : "");
      ol.appendChild(el("li", { class: cls }, clock(r.time) + "  #" + r.step + "  " + r.story));
    }
  }

  function update() {
    const i = state.cursor;
    document.getElementById("current-step").textContent =
      W.stepOf(steps[i], steps[steps.length - 1]) + " \u00B7 " + clock(records[firstOfRow[i]].time);
    document.body.setAttribute("data-step", steps[i]);
    render(true);
    for (const b of historyBars) b.g.classList.toggle("current", b.from <= i && i <= b.to);
    details(i);
    notes(i);
    story(i);
  }
  // Scrolls the diagram so that row `i` is in view (a third of the way down when it was not).
  function reveal(i) {
    const y = rowTop[i] + HEAD, h = rowTop[i + 1] - rowTop[i];
    const view = diagram.clientHeight || 600;
    if (y < diagram.scrollTop + HEAD || y + h > diagram.scrollTop + view) {
      diagram.scrollTop = Math.max(0, y - view / 3);
    }
  }
  function go(i) {
    if (i == null || steps.length === 0) return;
    state.cursor = Math.max(0, Math.min(steps.length - 1, i));
    reveal(state.cursor);
    update();
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
  function openingRow() {
    const first = records.find(function (r) {
      return r.kind === "drop" || (r.kind === "fault" && SETUP.indexOf(r.what) < 0);
    });
    return first ? first.row : 0;
  }
  // ---- The clients' history (Porcupine's picture): a row per client, each operation a bar
  // from its call to its return (to the end of the run if it never returned), the failing
  // window red and its culprit darker; a click on a bar goes to the step of its call.
  const history = data.history;
  const historyBars = [];
  if (history && history.ops.length) {
    document.getElementById("history-box").hidden = false;
    const verdict = document.getElementById("history-verdict");
    verdict.textContent = history.verdict;
    if (history.window.length) verdict.classList.add("failed");
    const clients = [];
    for (const op of history.ops) if (clients.indexOf(op.client) < 0) clients.push(op.client);
    // x is the order of calls and returns, not time: what linearizability reads, and short
    // operations of a long run stay wide enough to read.
    const events = [];
    for (const op of history.ops) { events.push(op.call); if (op.ret != null) events.push(op.ret); }
    const order = Array.from(new Set(events)).sort(function (a, b) { return a - b; });
    const rank = new Map(order.map(function (e, k) { return [e, k]; }));
    const HL = 90, HROW = 26, SLOT = 110;
    const HW = HL + (order.length + 1) * SLOT;
    const hx = function (e) { return HL + (e == null ? order.length : rank.get(e)) * SLOT; };
    const svg = sv("svg", { width: HW, height: clients.length * HROW + 8, id: "history-svg" });
    clients.forEach(function (c, k) {
      svg.appendChild(sv("text", { x: 4, y: k * HROW + 18, class: "client" }, c));
    });
    history.ops.forEach(function (op, n) {
      const start = records[op.call];
      const end = op.ret != null ? records[op.ret] : records[records.length - 1];
      const x = hx(op.call), w = Math.max(hx(op.ret) - x, 3) + SLOT / 2;
      const y = clients.indexOf(op.client) * HROW + 4;
      const inWindow = history.window.indexOf(n);
      let cls = "op";
      if (op.ret == null) cls += " pending";
      if (inWindow === 0) cls += " culprit window";
      else if (inWindow > 0) cls += " window";
      const g = sv("g", { class: cls, "data-op": n, "data-step": start.step });
      g.appendChild(sv("rect", { x: x, y: y, width: w, height: HROW - 8, rx: 3 }));
      const label = op.op + " \u2192 " + (op.result != null ? op.result : W.pending);
      g.appendChild(sv("text", { x: x + 3, y: y + 13 }, label));
      g.appendChild(sv("title", {}, op.client + ": " + label + " (" + clock(start.time) + " \u2013 " +
        (op.ret != null ? clock(end.time) : "\u2026") + ")"));
      g.addEventListener("click", function () { go(start.row); });
      svg.appendChild(g);
      historyBars.push({ g: g, from: start.row, to: op.ret != null ? end.row : steps.length - 1 });
    });
    document.getElementById("history").appendChild(svg);
  }
  window.addEventListener("hashchange", fromHash);
  if (steps.length && !fromHash()) go(openingRow());
})();
